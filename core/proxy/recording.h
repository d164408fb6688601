#pragma once

#include "core/http/httpheaders.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QFile>
#include <QHash>
#include <QList>
#include <QString>

#include <memory>

namespace RetryLab::Core {

/// One answer of a real service as the proxy saw it pass (ProxyServer's
/// recorder): what was asked, what came back, and when. Credentials in the
/// request's headers and target are masked; the request body is kept only as
/// its SHA-256, which is what a replay matches on.
struct RecordedExchange
{
    QByteArray method;
    QByteArray path; ///< percent-encoded, as sent
    QByteArray query; ///< without '?', credentials masked (maskedQuery())
    QByteArray bodySha256; ///< hex of the request body's SHA-256 (of nothing, when it had none)
    HeaderList requestHeaders; ///< masked
    QString origin; ///< "http://host:port" the answer came from
    int status = 0;
    QByteArray reason;
    HeaderList headers; ///< the answer's, hop-by-hop and framing fields left out
    QByteArray body; ///< decoded (no chunk framing)
    double firstByteMs = 0.0; ///< from the request going upstream to the answer's head
    double durationMs = 0.0; ///< to the answer's end
    QDateTime recorded;

    /// "GET /items?page=2 (body 3a7bd3e2...)": what a replay matches on, for people.
    QString key() const;
    static QByteArray sha256Of(const QByteArray &body);
    /// The query with credentials masked (?token=REDACTED), as it is recorded and matched.
    static QByteArray maskedQuery(const QByteArray &query);
};

/// A recording folder as `retrylab proxy --record DIR` writes it and `retrylab
/// serve --replay DIR` reads it (format `retrylab-recording`, version 1):
///
///     DIR/recording.json    {"format": "retrylab-recording", "version": 1, "started": ...}
///     DIR/exchanges.jsonl   one exchange per line: method, path, query, bodySha256,
///                           requestHeaders, origin, status, reason, headers, body
///                           (a file under bodies/), bodyBytes, firstByteMs, durationMs, recorded
///     DIR/bodies/000001.bin the answers' bodies as they were
///
/// Appending to a folder that already holds a recording goes on after its last
/// exchange, so that one recording can gather several sessions.
class RecordingWriter final
{
public:
    /// Bodies larger than this are not recorded (the exchange is counted as skipped).
    static constexpr qint64 maxBodyBytes = 64 * 1024 * 1024;

    /// Makes the folder (and its parents) or takes up the recording in it; the
    /// error names the folder and why (not writable, holds something else).
    static Result<std::unique_ptr<RecordingWriter>> open(const QString &directory);
    ~RecordingWriter();

    /// Writes one exchange: its body file, then its line (flushed), so that a
    /// recording cut off by a crash keeps every exchange it names.
    Result<void> append(const RecordedExchange &exchange);
    QString directory() const { return m_directory; }
    int count() const { return m_count; }
    int skipped() const { return m_skipped; }
    void countSkipped() { ++m_skipped; }

private:
    RecordingWriter() = default;
    QString m_directory;
    QFile m_lines;
    int m_count = 0;
    int m_skipped = 0;
};

/// A recording read back, and the answers a replay gives from it: matched by
/// method, path, query and request body digest. Several answers recorded for the
/// same request are given in turn, the last again once all were.
class Recording final
{
public:
    /// Reads a recording folder; errors name the file and line and what is wrong.
    static Result<Recording> read(const QString &directory);

    const QList<RecordedExchange> &exchanges() const { return m_exchanges; }
    QString directory() const { return m_directory; }

    /// The next answer recorded for this request, or nullptr when none was.
    const RecordedExchange *next(
        const QByteArray &method, const QByteArray &path, const QByteArray &query, const QByteArray &body);
    /// Why nothing answers a request, for the 404: what was asked and what was
    /// recorded for the same path (or that nothing was).
    QString notRecorded(
        const QByteArray &method, const QByteArray &path, const QByteArray &query, const QByteArray &body) const;
    /// Starts every request's turn over.
    void rewind() { m_turns.clear(); }

private:
    QString m_directory;
    QList<RecordedExchange> m_exchanges;
    QHash<QString, QList<qsizetype>> m_byKey; ///< key() -> indexes into m_exchanges, in order
    QHash<QString, qsizetype> m_turns;
};

} // namespace RetryLab::Core
