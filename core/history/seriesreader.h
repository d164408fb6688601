#pragma once

#include "core/history/historyfigures.h"
#include "core/history/incidentfinder.h"
#include "core/history/sqldialect.h"
#include "core/history/storedcheck.h"
#include "core/history/whatifsimulator.h"
#include "core/util/result.h"

#include <QHash>
#include <QList>
#include <QSqlDatabase>
#include <QString>

namespace RetryLab::Core {

/// The SQL that reads one series (a monitor as one agent saw it) over a time
/// range [sinceMs, untilMs) of check starts. Counts and percentiles are computed
/// by the database; rows come back through forward-only queries, and only those
/// a figure needs (incidents read the failed and retried checks and the clean
/// check that ends each run, not the others).
class SeriesReader final
{
public:
    SeriesReader(const QSqlDatabase &db, const SqlDialect &dialect) : m_db(db), m_dialect(dialect) { }

    struct Counts
    {
        qint64 checks = 0;
        qint64 checksSucceeded = 0;
        qint64 attempts = 0;
        qint64 attemptsSucceeded = 0;
        qint64 maintenanceChecks = 0;
        /// The span the raw checks cover: first start, last end.
        std::optional<qint64> firstStartMs;
        std::optional<qint64> lastEndMs;

        Counts &operator+=(const Counts &other);
    };

    /// Counted from the raw rows.
    Result<Counts> rawCounts(qint64 series, qint64 sinceMs, qint64 untilMs);
    /// Counted from the aggregates: whole hours inside the range, whole minutes
    /// at its edges (a bucket counts when its start lies in the range).
    Result<Counts> aggregateCounts(qint64 series, qint64 sinceMs, qint64 untilMs);
    Result<LatencyPercentiles> checkLatency(qint64 series, qint64 sinceMs, qint64 untilMs);
    Result<LatencyPercentiles> attemptLatency(qint64 series, qint64 sinceMs, qint64 untilMs);
    /// The checks incidents are made of, in start order (see IncidentFinder).
    Result<QList<IncidentCheck>> incidentChecks(qint64 series, qint64 sinceMs, qint64 untilMs);
    /// Whole checks with every attempt, in start order.
    Result<QList<StoredCheck>> checks(
        qint64 series, const QString &monitor, const QString &agent, qint64 sinceMs, qint64 untilMs);
    Result<QList<StateEvent>> events(
        qint64 series, const QString &monitor, const QString &agent, qint64 sinceMs, qint64 untilMs);
    /// What a what-if replays: the starts of the counted checks in the range, and
    /// every counted attempt of the checks that started in [poolSinceMs, poolUntilMs).
    Result<void> replayInputs(qint64 series, qint64 sinceMs, qint64 untilMs, qint64 poolSinceMs, qint64 poolUntilMs,
        QList<qint64> *checkStartsMs, QList<ReplayAttempt> *attempts);

private:
    Result<LatencyPercentiles> percentiles(
        const QString &valuesSql, int placeholders, qint64 series, qint64 sinceMs, qint64 untilMs, double divisor);
    QString text(const QVariant &id);
    Error failure(const QSqlQuery &query) const;

    QSqlDatabase m_db;
    SqlDialect m_dialect;
    QHash<qint64, QString> m_texts;
};

} // namespace RetryLab::Core
