#include "core/history/historyretention.h"

#include "core/history/historyencoding.h"
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

const QString rolledUntilKey = QStringLiteral("rolled_until_ms");

} // namespace

qint64 HistoryRetention::rawCutoff(qint64 nowMs, int rawRetentionDays)
{
    return HistoryEncoding::floorTo(nowMs - rawRetentionDays * dayMs, HistoryEncoding::hourMs);
}

QStringList HistoryRetention::rollupStatements() const
{
    const QString bucket = QStringLiteral("start_ms - start_ms % %1").arg(HistoryEncoding::minuteMs);
    const QString counted = QStringLiteral("(flags & 2) = 0");
    const QString merge = HistorySchema::aggregateMerge(QStringLiteral("agg_minute"), m_dialect);
    const QString columns = QLatin1String(HistorySchema::aggregateColumns);
    // The checks first: they make the row of every minute; their retries land in
    // the minute of their check's start and add to it.
    const QString checks = QStringLiteral(
        "INSERT INTO agg_minute (series, bucket_ms, %4) SELECT series, %1,"
        " SUM(CASE WHEN %2 THEN 1 ELSE 0 END), SUM(CASE WHEN (flags & 3) = 1 THEN 1 ELSE 0 END),"
        " SUM(CASE WHEN %2 THEN attempts ELSE 0 END), SUM(CASE WHEN %2 THEN attempts_ok ELSE 0 END),"
        " SUM(CASE WHEN %2 THEN 0 ELSE 1 END), SUM(CASE WHEN %2 THEN 0 ELSE attempts END),"
        " SUM(CASE WHEN %2 THEN duration_ms ELSE 0 END), MAX(CASE WHEN %2 THEN duration_ms ELSE 0 END),"
        " SUM(CASE WHEN %2 THEN COALESCE(a_total, 0) ELSE 0 END),"
        " MAX(CASE WHEN %2 THEN COALESCE(a_total, 0) ELSE 0 END)"
        " FROM checks WHERE series = ? AND start_ms < ? GROUP BY series, %1%3")
                               .arg(bucket, counted, merge, columns);
    const QString retries = QStringLiteral("INSERT INTO agg_minute (series, bucket_ms, %4) SELECT series, %1,"
                                           " 0, 0, 0, 0, 0, 0, 0, 0, SUM(COALESCE(total, 0)), MAX(COALESCE(total, 0))"
                                           " FROM attempts WHERE series = ? AND start_ms < ? AND %2"
                                           " GROUP BY series, %1%3")
                                .arg(bucket, counted, merge, columns);
    return {checks, retries};
}

Result<void> HistoryRetention::apply(qint64 nowMs, int rawRetentionDays, int aggregateRetentionDays)
{
    const qint64 cutoff = rawCutoff(nowMs, rawRetentionDays);
    const qint64 aggregateCutoff
        = HistoryEncoding::floorTo(nowMs - aggregateRetentionDays * dayMs, HistoryEncoding::hourMs);
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

    // agg_hour already counts these checks: every flush keeps it up.
    QStringList rawStatements = rollupStatements();
    // An incident goes with its first check; one that began before the cutoff is
    // found again in the raw checks left (HistoryQuery reads the window's edges so).
    rawStatements << QStringLiteral("DELETE FROM incidents WHERE series = ? AND first_check_ms < ?")
                  << QStringLiteral("DELETE FROM attempts WHERE series = ? AND start_ms < ?")
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
