#pragma once

#include <QString>

namespace RetryLab::Core {

/// What differs between SQLite and PostgreSQL in the history's SQL. Everything
/// else (upserts with ON CONFLICT, window functions, integer division, `&`) is
/// written once for both.
class SqlDialect final
{
public:
    enum class Kind { Sqlite, Postgres };
    explicit SqlDialect(Kind kind = Kind::Sqlite) : m_kind(kind) { }

    Kind kind() const { return m_kind; }
    bool isPostgres() const { return m_kind == Kind::Postgres; }

    /// Schema text with the dialect's words put in: %ID% (an integer key the
    /// database numbers), %BIGID% (the same, 64-bit), %BIG% (64-bit integer),
    /// %BLOB% (bytes) and %COMPACT% (SQLite keeps a table in its key's B-tree:
    /// WITHOUT ROWID).
    QString ddl(QString statement) const;
    /// The larger of two expressions: max(a, b) in SQLite, GREATEST in PostgreSQL.
    QString greatest(const QString &a, const QString &b) const;
    /// Starts a write transaction. SQLite takes the write lock at once, so that a
    /// busy database is waited for (busy_timeout) before anything is done.
    QString beginWrite() const;
    /// Serialises schema changes and rollups between agents of one PostgreSQL
    /// database, until the transaction ends; empty for SQLite (one writer).
    QString exclusiveLock() const;
    /// One row, one column: the size of the database in bytes.
    QString sizeQuery() const;
    /// " INDEXED BY index" after a table in SQLite, which has no statistics to
    /// prefer a small partial index by; PostgreSQL's planner chooses by itself.
    QString indexedBy(const QString &index) const
    {
        return isPostgres() ? QString() : QStringLiteral(" INDEXED BY ") + index;
    }
    /// Whether reads stream rows (QSqlQuery::setForwardOnly). SQLite does, so that
    /// a month of checks never sits in memory. Qt's PostgreSQL driver streams a
    /// forward-only query in single-row mode, one query at a time per connection:
    /// the next query on the connection throws away the rows not yet read. There
    /// the results are read whole.
    bool streamsRows() const { return !isPostgres(); }

private:
    Kind m_kind;
};

} // namespace RetryLab::Core
