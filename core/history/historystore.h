#pragma once

#include "core/history/storedcheck.h"
#include "core/util/result.h"

#include <QString>

#include <deque>
#include <memory>

class QLockFile;

namespace RetryLab::Core {

class HistoryConnection;
class HistoryInterner;
class IncidentRecorder;

/// How a HistoryStore behaves; every field has a default that suits a monitor.
struct HistoryStoreOptions
{
    /// Checks kept in memory while writes fail; past it the oldest are dropped
    /// (and counted: HistoryStore::droppedChecks()). State events have the same bound.
    int maxBacklogChecks = 100'000;
    /// Raw checks and attempts older than this are rolled up by applyRetention().
    int rawRetentionDays = HistoryLimits::defaultRawRetentionDays;
    /// SQLite: run PRAGMA quick_check when an existing file is opened (it reads
    /// every page: a few seconds for gigabytes).
    bool quickCheck = true;
    /// SQLite: the file may not grow past this (PRAGMA max_page_count); writes
    /// beyond fail as on a full disk. 0: no cap.
    qint64 maxDatabaseBytes = 0;
    /// SQLite: how long a write waits for a reader's lock before failing.
    int busyTimeoutMs = 5000;
};

/// The write side of a monitor's history: checks and state events queued in
/// memory and written in batches, to a SQLite file or a PostgreSQL database.
///
/// Threads: a store belongs to the thread that opened it (its Qt SQL connection
/// does): open it, call it and destroy it on the monitor's thread.
///
/// A SQLite file has one writer: the store holds `<file>.lock` (QLockFile) while
/// it is open, and a lock left by a process that died is taken over. Several
/// agents may write one PostgreSQL database at once, each with its own agent name.
///
/// Writes: append() only queues; flush() writes the whole queue in one
/// transaction. When a write fails (a full disk, PostgreSQL gone) the queue is
/// kept, warning() says why, and the next flush() tries again, connecting to
/// PostgreSQL anew. Nothing committed is lost when the process dies.
class HistoryStore final
{
public:
    using Options = HistoryStoreOptions;

    /// `database`: a SQLite file path, or `postgresql://USER[:PASSWORD]@HOST[:PORT]/DB`
    /// (`postgres://` too, `?host=/socket/dir` for a Unix socket). `agent` names
    /// this writer (empty: the machine's host name); a check with no agent of its
    /// own is stored under it. Refuses, with a sentence that says why and never
    /// recreating anything: a folder that does not exist, a file that is not a
    /// SQLite database or fails quick_check ("damaged"), a schema newer than this
    /// RetryLab reads, a file another process writes, a server that cannot be reached.
    static Result<std::unique_ptr<HistoryStore>> open(
        const QString &database, const QString &agent, const Options &options = {});
    /// Writes what is still queued (one last flush()), then closes.
    ~HistoryStore();
    HistoryStore(const HistoryStore &) = delete;
    HistoryStore &operator=(const HistoryStore &) = delete;

    QString agent() const { return m_agent; }
    /// The database, for messages: the file, or the PostgreSQL server (no password).
    QString where() const;

    /// Queues a check; an empty `check.agent` is this store's agent. A failed
    /// attempt's body is kept up to HistoryLimits::failureBodyBytes.
    void append(const StoredCheck &check);
    /// Queues a state change.
    void append(const StateEvent &event);
    /// Writes the queue in one transaction. False when it failed: the queue is
    /// kept and warning() says why.
    bool flush();
    /// Checks and state events queued and not yet written.
    int backlog() const;
    /// Checks dropped, oldest first, because the backlog passed maxBacklogChecks.
    qint64 droppedChecks() const { return m_droppedChecks; }
    qint64 droppedEvents() const { return m_droppedEvents; }
    /// Why the last write failed; empty after a successful one.
    QString warning() const { return m_warning; }

    /// Rolls raw checks older than rawRetentionDays (before `nowMs`, UTC epoch
    /// ms) into per-minute and per-hour aggregates and deletes them; deletes
    /// aggregates and events older than HistoryLimits::aggregateRetentionDays.
    /// False when it failed (warning() says why); nothing is half done.
    bool applyRetention(qint64 nowMs);
    /// The database's size in bytes (SQLite: page_count * page_size; PostgreSQL:
    /// pg_database_size); -1 when it cannot be read.
    qint64 databaseBytes() const;

private:
    HistoryStore() = default;
    bool ensureConnected();
    QString unwritten(const QString &why) const;
    void failed(const QString &message);

    std::unique_ptr<QLockFile> m_lock;
    std::unique_ptr<HistoryConnection> m_connection;
    std::unique_ptr<HistoryInterner> m_interner;
    std::unique_ptr<IncidentRecorder> m_incidents;
    QString m_agent;
    Options m_options;
    std::deque<StoredCheck> m_checks;
    std::deque<StateEvent> m_events;
    qint64 m_droppedChecks = 0;
    qint64 m_droppedEvents = 0;
    QString m_warning;
};

} // namespace RetryLab::Core
