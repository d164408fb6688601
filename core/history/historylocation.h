#pragma once

#include "core/util/result.h"

#include <QString>

namespace RetryLab::Core {

/// Where a history lives, read from what the user typed: a SQLite file path, or
/// a PostgreSQL URL `postgresql://USER[:PASSWORD]@HOST[:PORT]/DB` (`postgres://`
/// too; `?host=/socket/dir` connects through that folder's Unix socket). The
/// password is kept for the connection and never shown: describe() leaves it out.
struct HistoryLocation
{
    enum class Kind { Sqlite, Postgres };
    Kind kind = Kind::Sqlite;
    QString path; ///< SQLite: the file, absolute
    QString host; ///< PostgreSQL: the host named in the URL
    int port = 5432;
    QString user;
    QString password;
    QString databaseName;
    QString socketDirectory; ///< PostgreSQL: `?host=/dir`; empty: TCP to host:port

    /// The history file `retrylab monitor` and the window share when none is
    /// chosen: history.sqlite in the application's data folder.
    static QString defaultDatabase();
    /// A SQLite path or a PostgreSQL URL; an error says what is wrong with the URL.
    static Result<HistoryLocation> parse(const QString &database);

    bool isPostgres() const { return kind == Kind::Postgres; }
    /// "host:port" (or the socket folder) for messages, never the password.
    QString server() const;
    /// The file, or "database DB at HOST:PORT", for messages.
    QString describe() const;
};

} // namespace RetryLab::Core
