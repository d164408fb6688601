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

class QSqlQuery;

#include <vector>

namespace RetryLab::Core {

/// The SQL that reads one series (a monitor as one agent saw it) over a time
/// range [sinceMs, untilMs) of check starts. Counts are sums over hourly
/// aggregates; rows come back through forward-only queries (on SQLite), and only
/// those a figure needs (incidents read the failed and retried checks and the
/// clean check that ends each run, not the others). Percentiles read one column
/// pair per check in one pass: measured, that costs a third of what sorting or
/// grouping them in SQLite does.
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

        Counts &operator+=(const Counts &other);
    };
    /// The time the raw checks of a range cover: the first one's start, the
    /// last one's end.
    struct Span
    {
        qint64 firstStartMs = 0;
        qint64 lastEndMs = 0;
    };

    /// The counts of the checks that started in the range: the whole hours inside
    /// from `agg_hour`, the rest from the raw rows, or, where retention rolled them
    /// up (`rolledUp`), from `agg_minute` (a minute counts when its start lies in
    /// the range).
    Result<Counts> counts(qint64 series, qint64 sinceMs, qint64 untilMs, bool rolledUp);
    /// Empty when the range has no raw check.
    Result<std::optional<Span>> rawSpan(qint64 series, qint64 sinceMs, qint64 untilMs);
    struct Latencies
    {
        LatencyPercentiles checks; ///< whole checks, maintenance left out
        LatencyPercentiles attempts; ///< every attempt of those checks
    };
    Result<Latencies> latencies(qint64 series, qint64 sinceMs, qint64 untilMs);
    /// Nearest-rank p50, p90 and p99 of `values` (reordered), divided by `divisor`.
    static LatencyPercentiles percentilesOf(std::vector<qint64> &values, double divisor);
    /// The checks incidents are made of, in start order (see IncidentFinder): the
    /// failed and retried ones, found through the partial index `checks_trouble`,
    /// and the clean check that follows each of them. When they are many (a
    /// monitor down for days), one pass over the range finds them instead.
    Result<QList<IncidentCheck>> incidentChecks(qint64 series, qint64 sinceMs, qint64 untilMs);
    /// The time from which every incident of the series is stored (see
    /// IncidentRecorder); empty when none is.
    Result<std::optional<qint64>> incidentCoverFrom(qint64 series);
    /// A stored incident and the start of the check that ended it.
    struct StoredIncident
    {
        Incident incident;
        qint64 closedMs = 0;
    };
    /// The stored incidents whose first check starts at or after `sinceMs` and
    /// that ended with a check before `untilMs`, in start order.
    Result<QList<StoredIncident>> storedIncidents(
        qint64 series, const QString &monitor, const QString &agent, qint64 sinceMs, qint64 untilMs);
    /// The same incidents added up, with the first one's first check and the
    /// last one's closing check (both 0 without incidents).
    struct StoredTotals
    {
        IncidentTotals totals;
        qint64 firstCheckMs = 0;
        qint64 lastClosedMs = 0;
    };
    Result<StoredTotals> storedIncidentTotals(qint64 series, qint64 sinceMs, qint64 untilMs);
    /// The checks of a series in start order, as points to draw.
    Result<QList<CheckPoint>> checkPoints(qint64 series, qint64 sinceMs, qint64 untilMs);
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
    Result<Counts> rawCounts(qint64 series, qint64 sinceMs, qint64 untilMs);
    Result<Counts> bucketCounts(const QString &table, qint64 series, qint64 sinceMs, qint64 untilMs);
    Result<LatencyPercentiles> percentiles(
        const QString &valuesSql, int placeholders, qint64 series, qint64 sinceMs, qint64 untilMs, double divisor);
    QString text(const QVariant &id);
    /// Reads the columns CheckWriter binds for an attempt, from `column` on.
    void readAttempt(const QSqlQuery &q, int column, qint64 checkStartMs, StoredAttempt &attempt);
    Error failure(const QSqlQuery &query) const;

    QSqlDatabase m_db;
    SqlDialect m_dialect;
    QHash<qint64, QString> m_texts;
};

} // namespace RetryLab::Core
