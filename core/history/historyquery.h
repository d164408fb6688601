#pragma once

#include "core/history/historyfigures.h"
#include "core/history/seriesreader.h"
#include "core/history/storedcheck.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace RetryLab::Core {

class HistoryConnection;

/// The read side of a monitors' history: figures per monitor and agent, the
/// incidents, an availability objective, and what another policy would have
/// done. It has a connection of its own, and on SQLite it is a WAL reader: it
/// never blocks the writer, and each of its queries sees what was committed when
/// it began. Like the store, it belongs to the thread that opened it.
///
/// Counting: maintenance checks and their attempts are left out of every figure
/// (MonitorSummary::maintenanceChecks counts them apart). Where a window reaches
/// past the raw retention, the counts there come from the aggregates, and
/// percentiles, incidents, MTBF and MTTR from the raw rows only
/// (MonitorSummary::fromAggregates says so).
///
/// Measured on 26 million checks (100 monitors, one check each every 10 s for
/// 30 days, 1.5 GB of SQLite): one monitor's 30-day summary without latency
/// 35 ms (with percentiles 0.2 to 0.4 s), every monitor's last 24 hours 0.65 to
/// 0.85 s, a what-if of one monitor's 30 days 0.4 to 0.6 s.
class HistoryQuery final
{
public:
    /// A SQLite file or a PostgreSQL URL, as HistoryStore::open takes it. Refuses
    /// a file that does not exist or is not a history, and a newer schema.
    static Result<std::unique_ptr<HistoryQuery>> open(const QString &database);
    ~HistoryQuery();
    HistoryQuery(const HistoryQuery &) = delete;
    HistoryQuery &operator=(const HistoryQuery &) = delete;

    QString where() const;

    /// The monitors in the history, sorted by name.
    Result<QStringList> monitors();
    /// What a summary reads.
    enum class SummaryDetail {
        Full,
        /// No percentiles: they read a row per check of the window; the rest reads
        /// hourly aggregates and the failed and retried checks.
        WithoutLatency,
    };
    /// One summary per monitor and agent with a check in the window, sorted by
    /// monitor then agent.
    Result<QList<MonitorSummary>> summaries(const HistoryFilter &filter, SummaryDetail detail = SummaryDetail::Full);
    /// The seen and hidden incidents (see Incident) of the raw checks in the
    /// window, per monitor and agent, sorted by start.
    Result<QList<Incident>> incidents(const HistoryFilter &filter);
    /// The checks in the window as points to draw (of every agent matching the
    /// filter), sorted by start.
    Result<QList<CheckPoint>> checkPoints(const HistoryFilter &filter);
    /// The checks in the window with every attempt, sorted by start.
    Result<QList<StoredCheck>> checks(const HistoryFilter &filter);
    /// The state changes in the window (by their time), sorted by time.
    Result<QList<StateEvent>> stateEvents(const HistoryFilter &filter);

    /// An availability objective (`target` in (0, 1), such as 0.999) of
    /// `monitor`'s checks, every agent together, over the budget window ending at
    /// `nowMs`: the error budget left, and the burn rates of the alert's long and
    /// short windows, which alert when both pass the threshold.
    Result<ObjectiveStatus> objective(
        const QString &monitor, double target, qint64 nowMs, const ObjectiveWindows &windows = {});

    /// What `monitor`'s checks that started in [sinceMs, untilMs) would have
    /// looked like under `policy`. The method: each recorded check time t starts
    /// a counterfactual check; its attempt k at time t_k takes the outcome and the
    /// duration of the recorded attempt of that monitor whose start is nearest t_k.
    /// When none lies within the gap (WhatIfOptions::gapMs; by default twice the
    /// median interval between recorded checks, at least 60 s), the check is
    /// unknown: left out and counted. A failure is retried when the policy's
    /// classifier retries it, for GET (a stored status is the status, a network
    /// cause the matching Qt error, a failed condition an HTTP 503), until a
    /// success, maxAttempts or the deadline; the next attempt starts at t_k plus
    /// the borrowed attempt's duration plus the policy's delay
    /// (Backoff::delayMs, from a RandomSource seeded with `seed`: the same seed
    /// gives the same figures). A policy of one attempt is named "none". See
    /// WhatIfSimulator for the fine print. The result is an estimate.
    Result<WhatIf> whatIf(const QString &monitor, qint64 sinceMs, qint64 untilMs, const BackoffPolicy &policy,
        quint64 seed, const WhatIfOptions &options = {});

private:
    struct Series
    {
        qint64 id = 0;
        QString monitor;
        QString agent;
    };
    HistoryQuery() = default;
    Result<QList<Series>> series(const QString &monitor, const QString &agent);
    qint64 rolledUntilMs() const;
    Result<MonitorSummary> summarize(
        const Series &series, const HistoryFilter &filter, qint64 rolledUntil, SummaryDetail detail);
    Result<SeriesReader::Counts> count(
        qint64 series, qint64 sinceMs, qint64 untilMs, qint64 rolledUntil, bool *fromAggregates);
    /// The incidents of a series over [sinceMs, untilMs) of raw checks: the stored
    /// ones (IncidentRecorder) and, found in the checks, those before the first
    /// stored one and after the last.
    Result<QList<Incident>> seriesIncidents(const Series &series, qint64 sinceMs, qint64 untilMs);
    /// The same, added up; the stored ones by the database.
    Result<IncidentTotals> seriesIncidentTotals(
        const Series &series, qint64 sinceMs, qint64 untilMs, qint64 spanStartMs, qint64 spanEndMs);
    /// The incidents found in the checks of [sinceMs, untilMs) alone.
    Result<QList<Incident>> foundIncidents(const Series &series, qint64 sinceMs, qint64 untilMs);
    /// Where stored incidents may start: the later of sinceMs and the cover.
    Result<std::optional<qint64>> storedSince(const Series &series, qint64 sinceMs);

    std::unique_ptr<HistoryConnection> m_connection;
    std::unique_ptr<SeriesReader> m_reader;
};

} // namespace RetryLab::Core
