#include "core/history/incidentrecorder.h"

#include "core/history/historyencoding.h"
#include "core/history/historyinterner.h"
#include "core/history/seriesreader.h"

#include <QLoggingCategory>
#include <QSqlError>

namespace {
Q_LOGGING_CATEGORY(lcIncidentRecorder, "retrylab.core.history.incidents")
} // namespace

namespace RetryLab::Core {

IncidentRecorder::Batch::Batch(
    IncidentRecorder &recorder, const QSqlDatabase &db, const SqlDialect &dialect, HistoryInterner &interner)
    : m_recorder(recorder), m_db(db), m_dialect(dialect), m_interner(interner), m_insert(db)
{ }

bool IncidentRecorder::Batch::prepare()
{
    // SQLite (3.24 on) and PostgreSQL spell the upsert alike.
    if (!m_insert.prepare(QStringLiteral(
            "INSERT INTO incidents (series, first_check_ms, start_off, end_off, closed_off, hidden, checks, attempts,"
            " failed_attempts, first_error, last_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (series, first_check_ms) DO UPDATE SET start_off = excluded.start_off,"
            " end_off = excluded.end_off, closed_off = excluded.closed_off, hidden = excluded.hidden,"
            " checks = excluded.checks, attempts = excluded.attempts, failed_attempts = excluded.failed_attempts,"
            " first_error = excluded.first_error, last_error = excluded.last_error")))
        return failed(m_insert);
    return true;
}

bool IncidentRecorder::Batch::failed(const QSqlQuery &query)
{
    m_lastError = query.lastError().databaseText().simplified();
    if (m_lastError.isEmpty())
        m_lastError = query.lastError().text();
    qCWarning(lcIncidentRecorder) << query.lastQuery() << "failed:" << m_lastError;
    return false;
}

QVariant IncidentRecorder::Batch::text(const QString &value)
{
    if (value.isEmpty())
        return QVariant();
    const auto id = m_interner.id(HistoryInterner::Table::Texts, value);
    if (!id) {
        m_lastError = m_interner.lastError();
        return QVariant();
    }
    return *id;
}

bool IncidentRecorder::Batch::add(qint64 series, qint64 startMs, const StoredCheck &check)
{
    // The incident rules never see a maintenance check (SeriesReader::incidentChecks
    // leaves them out too).
    if (check.maintenance)
        return true;
    IncidentFinder *finder = finderOf(series, startMs);
    if (!finder)
        return false;
    IncidentCheck stored = incidentCheckOf(check);
    // A start the writer had to move moves the whole check with it.
    const qint64 shift = startMs - check.startMs;
    stored.startMs += shift;
    stored.endMs += shift;
    if (stored.failedAttempts > 0)
        stored.firstFailedAttemptStartMs += shift;
    return addChecked(series, *finder, stored);
}

bool IncidentRecorder::Batch::addChecked(qint64 series, IncidentFinder &finder, const IncidentCheck &check)
{
    finder.add(check);
    const QList<Incident> ended = finder.takeEnded();
    for (const Incident &incident : ended) {
        if (!write(series, incident, check.startMs))
            return false;
    }
    return true;
}

IncidentFinder *IncidentRecorder::Batch::finderOf(qint64 series, qint64 beforeMs)
{
    auto it = m_finders.find(series);
    if (it != m_finders.end())
        return &it->second;
    const auto known = m_recorder.m_finders.find(series);
    if (known != m_recorder.m_finders.end())
        return &m_finders.emplace(series, known->second).first->second;
    IncidentFinder finder{QString(), QString()};
    if (!resume(series, beforeMs, finder))
        return nullptr;
    return &m_finders.emplace(series, std::move(finder)).first->second;
}

bool IncidentRecorder::Batch::resume(qint64 series, qint64 beforeMs, IncidentFinder &finder)
{
    // The last clean check before: no run goes on across it. Without one, the
    // series' first check (the one being written, for a new series).
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT start_ms FROM checks WHERE series = ? AND start_ms < ? AND (flags & 3) = 1"
                                 " AND attempts_ok = attempts ORDER BY start_ms DESC LIMIT 1"));
    query.addBindValue(series);
    query.addBindValue(beforeMs);
    if (!query.exec())
        return failed(query);
    qint64 fromMs = beforeMs;
    if (query.next()) {
        fromMs = query.value(0).toLongLong();
    } else {
        query.finish();
        query.prepare(QStringLiteral("SELECT MIN(start_ms) FROM checks WHERE series = ?"));
        query.addBindValue(series);
        if (!query.exec())
            return failed(query);
        if (query.next() && !query.value(0).isNull())
            fromMs = std::min(fromMs, query.value(0).toLongLong());
    }
    query.finish();
    query.prepare(
        QStringLiteral("INSERT INTO incident_cover (series, from_ms) VALUES (?, ?) ON CONFLICT (series) DO NOTHING"));
    query.addBindValue(series);
    query.addBindValue(fromMs);
    if (!query.exec())
        return failed(query);
    query.finish();

    SeriesReader reader(m_db, m_dialect);
    const auto replay = reader.incidentChecks(series, fromMs, beforeMs);
    if (!replay) {
        m_lastError = replay.error();
        return false;
    }
    for (const IncidentCheck &check : *replay) {
        if (!addChecked(series, finder, check))
            return false;
    }
    qCDebug(lcIncidentRecorder) << "series" << series << "resumed from" << fromMs << "over" << replay->size()
                                << "checks";
    return true;
}

bool IncidentRecorder::Batch::write(qint64 series, const Incident &incident, qint64 closedMs)
{
    const QVariant firstError = text(incident.firstError);
    const QVariant lastError = text(incident.lastError);
    if (!m_lastError.isEmpty())
        return false;
    QSqlQuery &q = m_insert;
    const qint64 first = incident.firstCheckMs;
    q.bindValue(0, series);
    q.bindValue(1, first);
    q.bindValue(2, incident.startMs - first);
    q.bindValue(3, incident.endMs.value_or(closedMs) - first);
    q.bindValue(4, closedMs - first);
    q.bindValue(5, incident.hidden ? 1 : 0);
    q.bindValue(6, incident.checks);
    q.bindValue(7, incident.attempts);
    q.bindValue(8, incident.failedAttempts);
    q.bindValue(9, firstError);
    q.bindValue(10, lastError);
    if (!q.exec())
        return failed(q);
    return true;
}

void IncidentRecorder::Batch::commit()
{
    for (auto &[series, finder] : m_finders)
        m_recorder.m_finders.insert_or_assign(series, std::move(finder));
    m_finders.clear();
}

} // namespace RetryLab::Core
