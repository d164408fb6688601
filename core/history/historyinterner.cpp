#include "core/history/historyinterner.h"

#include <QSqlError>
#include <QSqlQuery>

namespace RetryLab::Core {

namespace {

QString tableName(HistoryInterner::Table table)
{
    switch (table) {
    case HistoryInterner::Table::Monitors:
        return QStringLiteral("monitors");
    case HistoryInterner::Table::Agents:
        return QStringLiteral("agents");
    case HistoryInterner::Table::Texts:
        break;
    }
    return QStringLiteral("texts");
}

QString columnName(HistoryInterner::Table table)
{
    return table == HistoryInterner::Table::Texts ? QStringLiteral("text") : QStringLiteral("name");
}

} // namespace

std::optional<qint64> HistoryInterner::id(Table table, const QString &text)
{
    if (text.isEmpty())
        return std::nullopt;
    QHash<QString, qint64> &ids = m_ids[static_cast<int>(table)];
    if (const auto it = ids.constFind(text); it != ids.constEnd())
        return it.value();
    const QString name = tableName(table);
    const QString column = columnName(table);
    const auto found
        = findOrAdd(QStringLiteral("INSERT INTO %1 (%2) VALUES (?) ON CONFLICT (%2) DO NOTHING").arg(name, column),
            QStringLiteral("SELECT id FROM %1 WHERE %2 = ?").arg(name, column), {text});
    if (found)
        ids.insert(text, *found);
    return found;
}

std::optional<qint64> HistoryInterner::series(const QString &monitor, const QString &agent)
{
    const auto monitorId = id(Table::Monitors, monitor);
    const auto agentId = id(Table::Agents, agent);
    if (!monitorId || !agentId) {
        if (m_lastError.isEmpty())
            m_lastError = QStringLiteral("a check without a monitor or agent name");
        return std::nullopt;
    }
    const QPair<qint64, qint64> key(*monitorId, *agentId);
    if (const auto it = m_series.constFind(key); it != m_series.constEnd())
        return it.value();
    const auto found = findOrAdd(
        QStringLiteral("INSERT INTO series (monitor, agent) VALUES (?, ?) ON CONFLICT (monitor, agent) DO NOTHING"),
        QStringLiteral("SELECT id FROM series WHERE monitor = ? AND agent = ?"), {*monitorId, *agentId});
    if (found)
        m_series.insert(key, *found);
    return found;
}

void HistoryInterner::forget()
{
    for (auto &ids : m_ids)
        ids.clear();
    m_series.clear();
}

std::optional<qint64> HistoryInterner::findOrAdd(
    const QString &insert, const QString &select, const QVariantList &values)
{
    QSqlQuery query(m_db);
    // Look first: after the first flush nearly every name is already there, and a
    // read takes no lock that another agent's insert would wait for.
    for (int round = 0; round < 2; ++round) {
        query.prepare(select);
        for (const QVariant &value : values)
            query.addBindValue(value);
        if (!query.exec()) {
            m_lastError = query.lastError().databaseText();
            return std::nullopt;
        }
        if (query.next())
            return query.value(0).toLongLong();
        if (round == 1)
            break;
        query.prepare(insert);
        for (const QVariant &value : values)
            query.addBindValue(value);
        if (!query.exec()) {
            m_lastError = query.lastError().databaseText();
            return std::nullopt;
        }
    }
    m_lastError = QStringLiteral("an interned name vanished while it was added");
    return std::nullopt;
}

} // namespace RetryLab::Core
