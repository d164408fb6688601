#pragma once

#include <QHash>
#include <QPair>
#include <QSqlDatabase>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The ids of interned strings (monitor and agent names, causes, reasons,
/// outcomes, decisions) and of series (a monitor as one agent sees it), found
/// or added inside the writer's transaction and remembered. Several agents may
/// add the same name at once to one PostgreSQL database: the insert does
/// nothing on a conflict and the id is read back. After a rollback, forget():
/// ids added by the rolled-back transaction no longer exist.
class HistoryInterner final
{
public:
    enum class Table { Monitors, Agents, Texts };

    explicit HistoryInterner(const QSqlDatabase &db) : m_db(db) { }

    /// The id of `text` in `table`, added when new; nullopt on a database error
    /// (see lastError()). An empty text has no id: the caller stores NULL.
    std::optional<qint64> id(Table table, const QString &text);
    /// The series of a monitor and an agent, added when new.
    std::optional<qint64> series(const QString &monitor, const QString &agent);
    /// Drops every remembered id.
    void forget();
    QString lastError() const { return m_lastError; }

private:
    std::optional<qint64> findOrAdd(const QString &insert, const QString &select, const QVariantList &values);

    QSqlDatabase m_db;
    QHash<QString, qint64> m_ids[3];
    QHash<QPair<qint64, qint64>, qint64> m_series;
    QString m_lastError;
};

} // namespace RetryLab::Core
