#pragma once

#include "core/http/serverlogentry.h"

#include <QList>
#include <QMutex>

#include <deque>

namespace RetryLab::Core {

/// The fault server's log: the newest entries up to a capacity, numbered 1, 2,
/// 3, ... for the lifetime of the server (a clear() forgets the entries, not the
/// numbering, so that a client reading GET /_control/log?since=N never sees a
/// number twice). Safe from any thread.
class ServerLog final
{
public:
    explicit ServerLog(int capacity = 10'000) : m_capacity(capacity) { }

    /// Entries kept (at least 1); the oldest beyond it are dropped at the next append().
    int capacity() const;
    void setCapacity(int capacity);

    /// Numbers the entry, keeps it, and returns it numbered.
    ServerLogEntry append(ServerLogEntry entry);
    /// Every entry kept, oldest first.
    QList<ServerLogEntry> entries() const;
    /// The newest `limit` entries numbered above `since`, oldest first.
    QList<ServerLogEntry> since(quint64 since, qint64 limit) const;
    /// Entries appended since the log was made.
    quint64 appendedCount() const;
    /// Forgets the entries; the numbering goes on.
    void clear();

private:
    mutable QMutex m_mutex; // guards everything below
    int m_capacity;
    std::deque<ServerLogEntry> m_entries;
    quint64 m_sequence = 0;
};

} // namespace RetryLab::Core
