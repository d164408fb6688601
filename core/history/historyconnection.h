#pragma once

#include "core/history/historylocation.h"
#include "core/history/sqldialect.h"
#include "core/util/result.h"

#include <QSqlDatabase>
#include <QString>

#include <memory>

namespace RetryLab::Core {

/// One Qt SQL connection to a history, under a name of its own. A QSqlDatabase
/// belongs to the thread that opened it: create, use and destroy a connection on
/// one thread. Opening checks what can be checked before anything is written: the
/// folder exists, the file is a SQLite database, and (for the writer) that
/// PRAGMA quick_check passes; a refusal says why and leaves the file alone.
class HistoryConnection final
{
public:
    enum class Role {
        Writer, ///< the store: creates the file, WAL mode, quick_check
        Reader, ///< queries: never creates anything; a WAL reader that never blocks the writer
    };
    struct Settings
    {
        int busyTimeoutMs = 5000;
        bool quickCheck = true; ///< Writer on SQLite: PRAGMA quick_check at open
        qint64 maxPages = 0; ///< Writer on SQLite: PRAGMA max_page_count; 0: no cap
    };

    static Result<std::unique_ptr<HistoryConnection>> open(
        const HistoryLocation &location, Role role, const Settings &settings);
    ~HistoryConnection();
    HistoryConnection(const HistoryConnection &) = delete;
    HistoryConnection &operator=(const HistoryConnection &) = delete;

    QSqlDatabase database() const;
    const SqlDialect &dialect() const { return m_dialect; }
    const HistoryLocation &location() const { return m_location; }
    bool isOpen() const;
    /// Closes the connection; reopen() connects again (a PostgreSQL server that went away).
    void close();
    Result<void> reopen();

private:
    HistoryConnection(const HistoryLocation &location, Role role, const Settings &settings);
    Result<void> checkFileBeforeOpening() const;
    Result<void> connect();
    Result<void> prepareSqlite(bool existed);

    HistoryLocation m_location;
    Role m_role;
    Settings m_settings;
    SqlDialect m_dialect;
    QString m_name;
};

} // namespace RetryLab::Core
