#pragma once

#include "core/http/httpheaders.h"

#include <QByteArray>
#include <QSet>

namespace RetryLab::Core {

/// Keeps one copy of each header name and value that repeats.
///
/// A run's attempts carry the same headers again and again: the request's own
/// (an `Authorization` token, a 60 KB cookie), and the answers' (`Server`,
/// `Content-Type`). QByteArray shares its bytes between copies, but bytes that
/// arrive separately (each reply's headers, each attempt read back from a
/// report) are separate buffers even when equal. Interned, equal names and
/// values share one buffer, so a run read back holds a header once, not once per
/// attempt.
///
/// The table is bounded (entries and bytes): values that never repeat (a Date, a
/// request id) stop being added once it is full and are kept as they came.
/// Not thread-safe: one per executor, one per report being read.
class HeaderInterner
{
public:
    explicit HeaderInterner(qsizetype maxEntries = 4096, qsizetype maxBytes = qsizetype(16) * 1024 * 1024);

    /// An equal array that shares its bytes with earlier equal ones.
    QByteArray intern(const QByteArray &bytes);
    /// Interns every name and value of the list in place.
    void intern(HeaderList &headers);
    /// The same for lists that repeat the one given here before, in order (the
    /// answers of one server): each header is first compared with the one at its place there.
    void internRepeating(HeaderList &headers);

    qsizetype entries() const { return m_table.size(); }
    /// The bytes of the distinct arrays the table holds.
    qsizetype bytes() const { return m_bytes; }

private:
    QSet<QByteArray> m_table;
    HeaderList m_last; ///< the list given to internRepeating() last
    qsizetype m_bytes = 0;
    qsizetype m_maxEntries;
    qsizetype m_maxBytes;
};

} // namespace RetryLab::Core
