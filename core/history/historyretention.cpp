#include "core/history/historyretention.h"

#include "core/history/historyschema.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

namespace {
Q_LOGGING_CATEGORY(lcHistoryRetention, "retrylab.core.history.retention")
} // namespace

namespace RetryLab::Core {

namespace {

qint64 floorTo(qint64 value, qint64 step)
{
    qint64 floored = value - value % step;
    if (value < 0 && value % step != 0)
        floored -= step;
    return floored;
}

const QString rolledUntilKey = QStringLiteral("rolled_until_ms");

} // namespace

qint64 HistoryRetention::rawCutoff(qint64 nowMs, int rawRetentionDays)
{
    return floorTo(nowMs - rawRetentionDays * dayMs, hourMs);
}

QStringList HistoryRetention::rollupStatements(const QString &table, qint64 bucketMs) const
{
    const QString bucket = QStringLiteral("start_ms - start_ms % %1").arg(bucketMs);
    const QString counted = QStringLiteral("(flags & 2) = 0");
    // The checks first: they make the row of every bucket; their retries land in
    // the bucket of their check's start and add to it.
    const QString checks
        = QStringLiteral(
            "INSERT INTO %1 (series, bucket_ms, checks, checks_ok, attempts, attempts_ok, maintenance_checks,"
            " maintenance_attempts, duration_sum_ms, duration_max_ms, attempt_sum, attempt_max)"
            " SELECT series, %2,"
            " SUM(CASE WHEN %3 THEN 1 ELSE 0 END), SUM(CASE WHEN (flags & 3) = 1 THEN 1 ELSE 0 END),"
            " SUM(CASE WHEN %3 THEN attempts ELSE 0 END), SUM(CASE WHEN %3 THEN attempts_ok ELSE 0 END),"
            " SUM(CASE WHEN %3 THEN 0 ELSE 1 END), SUM(CASE WHEN %3 THEN 0 ELSE attempts END),"
            " SUM(CASE WHEN %3 THEN duration_ms ELSE 0 END), MAX(CASE WHEN %3 THEN duration_ms ELSE 0 END),"
            " SUM(CASE WHEN %3 THEN COALESCE(a_total, 0) ELSE 0 END),"
            " MAX(CASE WHEN %3 THEN COALESCE(a_total, 0) ELSE 0 END)"
            " FROM checks WHERE series = ? AND start_ms < ? GROUP BY series, %2"
            " ON CONFLICT (series, bucket_ms) DO UPDATE SET checks = %1.checks + excluded.checks,"
            " checks_ok = %1.checks_ok + excluded.checks_ok, attempts = %1.attempts + excluded.attempts,"
            " attempts_ok = %1.attempts_ok + excluded.attempts_ok,"
            " maintenance_checks = %1.maintenance_checks + excluded.maintenance_checks,"
            " maintenance_attempts = %1.maintenance_attempts + excluded.maintenance_attempts,"
            " duration_sum_ms = %1.duration_sum_ms + excluded.duration_sum_ms, duration_max_ms = %4,"
            " attempt_sum = %1.attempt_sum + excluded.attempt_sum, attempt_max = %5")
              .arg(table, bucket, counted,
                  m_dialect.greatest(
                      table + QStringLiteral(".duration_max_ms"), QStringLiteral("excluded.duration_max_ms")),
                  m_dialect.greatest(table + QStringLiteral(".attempt_max"), QStringLiteral("excluded.attempt_max")));
    const QString retries
        = QStringLiteral(
            "INSERT INTO %1 (series, bucket_ms, checks, checks_ok, attempts, attempts_ok, maintenance_checks,"
            " maintenance_attempts, duration_sum_ms, duration_max_ms, attempt_sum, attempt_max)"
            " SELECT series, %2, 0, 0, 0, 0, 0, 0, 0, 0, SUM(COALESCE(total, 0)), MAX(COALESCE(total, 0))"
            " FROM attempts WHERE series = ? AND start_ms < ? AND %3 GROUP BY series, %2"
            " ON CONFLICT (series, bucket_ms) DO UPDATE SET attempt_sum = %1.attempt_sum + excluded.attempt_sum,"
            " attempt_max = %4")
              .arg(table, bucket, counted,
                  m_dialect.greatest(table + QStringLiteral(".attempt_max"), QStringLiteral("excluded.attempt_max")));
    return {checks, retries};
}

Result<void> HistoryRetention::apply(qint64 nowMs, int rawRetentionDays, int aggregateRetentionDays)
{
    const qint64 cutoff = rawCutoff(nowMs, rawRetentionDays);
    const qint64 aggregateCutoff = floorTo(nowMs - aggregateRetentionDays * dayMs, hourMs);
    QSqlQuery query(m_db);
    const auto fail = [&](const QString &statement, QString why = {}) {
        if (why.isEmpty())
            why = query.lastError().databaseText().simplified();
        qCWarning(lcHistoryRetention) << statement << "failed:" << why;
        QSqlQuery(m_db).exec(QStringLiteral("ROLLBACK"));
        return Result<void>::failure(Tr::tr("the retention could not be applied: %1").arg(why));
    };
    if (!query.exec(m_dialect.beginWrite()))
        return fail(m_dialect.beginWrite());
    if (!m_dialect.exclusiveLock().isEmpty() && !query.exec(m_dialect.exclusiveLock()))
        return fail(m_dialect.exclusiveLock());

    QList<qint64> series;
    if (!query.exec(QStringLiteral("SELECT id FROM series")))
        return fail(query.lastQuery());
    while (query.next())
        series.append(query.value(0).toLongLong());

    QStringList rawStatements = rollupStatements(QStringLiteral("agg_minute"), minuteMs);
    rawStatements += rollupStatements(QStringLiteral("agg_hour"), hourMs);
    rawStatements << QStringLiteral("DELETE FROM attempts WHERE series = ? AND start_ms < ?")
                  << QStringLiteral("DELETE FROM checks WHERE series = ? AND start_ms < ?");
    const QStringList agedStatements{
        QStringLiteral("DELETE FROM agg_minute WHERE series = ? AND bucket_ms < ?"),
        QStringLiteral("DELETE FROM agg_hour WHERE series = ? AND bucket_ms < ?"),
        QStringLiteral("DELETE FROM state_events WHERE series = ? AND at_ms < ?"),
    };
    qint64 rolled = 0;
    for (const qint64 id : std::as_const(series)) {
        for (const QString &statement : std::as_const(rawStatements)) {
            query.prepare(statement);
            query.addBindValue(id);
            query.addBindValue(cutoff);
            if (!query.exec())
                return fail(statement);
            if (statement.startsWith(QLatin1String("DELETE FROM checks")))
                rolled += query.numRowsAffected();
        }
        for (const QString &statement : agedStatements) {
            query.prepare(statement);
            query.addBindValue(id);
            query.addBindValue(aggregateCutoff);
            if (!query.exec())
                return fail(statement);
        }
    }
    bool known = false;
    const qint64 previous = HistorySchema::metaValue(m_db, rolledUntilKey).toLongLong(&known);
    if (!known || cutoff > previous) {
        if (Result<void> written = HistorySchema::setMetaValue(m_db, rolledUntilKey, QString::number(cutoff)); !written)
            return fail(rolledUntilKey, written.error());
    }
    if (!query.exec(QStringLiteral("COMMIT")))
        return fail(QStringLiteral("COMMIT"));
    qCDebug(lcHistoryRetention) << "rolled up" << rolled << "checks older than" << cutoff;
    return {};
}

} // namespace RetryLab::Core
