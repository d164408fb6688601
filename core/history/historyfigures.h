#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

#include <limits>
#include <optional>

namespace RetryLab::Core {

/// Which checks a figure reads: a monitor (empty: every monitor), an agent
/// (empty: every agent), and the checks that started in [sinceMs, untilMs)
/// (UTC epoch milliseconds).
struct HistoryFilter
{
    QString monitor;
    QString agent;
    qint64 sinceMs = 0;
    qint64 untilMs = std::numeric_limits<qint64>::max();
};

/// Nearest-rank percentiles of durations in milliseconds; empty when nothing was measured.
struct LatencyPercentiles
{
    std::optional<double> p50Ms;
    std::optional<double> p90Ms;
    std::optional<double> p99Ms;
};

/// A time a monitor failed, as one agent saw it.
///
/// Seen (hidden = false): a run of consecutive failed checks (maintenance checks
/// neither break nor extend it). It starts at the first failed check's start
/// and ends at the start of the next successful check; an incident still going
/// at the end of the window has no end. The errors are the failed checks' reasons.
///
/// Hidden (hidden = true): a run of consecutive checks that all succeeded, each
/// after at least one failed attempt: the retries hid a fault from the users.
/// It starts at the first failed attempt's start and ends at the end of the
/// run's last check. The errors are the failed attempts' reasons.
struct Incident
{
    QString monitor;
    QString agent;
    qint64 startMs = 0;
    /// The start of its first check (a hidden incident starts at that check's
    /// first failed attempt, which may come later).
    qint64 firstCheckMs = 0;
    std::optional<qint64> endMs; ///< none: still going at the end of the window
    /// end - start; for an incident still going, up to its last failed check's end.
    qint64 durationMs = 0;
    QString firstError;
    QString lastError;
    qint64 checks = 0; ///< the checks of the run
    qint64 attempts = 0; ///< every attempt of those checks
    qint64 failedAttempts = 0; ///< the failed ones among them
    bool hidden = false;
};

/// One check as a history chart draws it: no texts and no attempts, so a
/// month of one monitor (259,200 checks at 10 s) stays a few megabytes.
struct CheckPoint
{
    qint64 startMs = 0;
    float durationMs = 0.0F; ///< the whole check, backoff included
    float attemptMinMs = 0.0F; ///< the fastest attempt's total time
    float attemptMaxMs = 0.0F; ///< the slowest attempt's total time
    quint16 attempts = 0;
    quint16 failedAttempts = 0;
    bool success = false;
    bool maintenance = false;
};

/// What one monitor did, as one agent saw it, over a filter's window.
struct MonitorSummary
{
    QString monitor;
    QString agent;
    /// Counted checks and attempts: maintenance checks (and their attempts) are
    /// left out of every count and figure but maintenanceChecks.
    qint64 checks = 0;
    qint64 checksSucceeded = 0;
    qint64 attempts = 0;
    qint64 attemptsSucceeded = 0;
    qint64 maintenanceChecks = 0;
    std::optional<double> checkAvailability; ///< checksSucceeded / checks
    std::optional<double> attemptAvailability; ///< attemptsSucceeded / attempts
    std::optional<double> attemptsPerCheck;
    /// Whole checks, backoff included, and single attempts.
    LatencyPercentiles checkLatency;
    LatencyPercentiles attemptLatency;
    int incidents = 0; ///< seen incidents
    int hiddenIncidents = 0;
    /// Mean time between failures: the time up (the observed span less the seen
    /// incidents' time) over the number of seen incidents; empty without one.
    std::optional<double> mtbfMs;
    /// Mean time to repair: the mean duration of the seen incidents that ended.
    std::optional<double> mttrMs;
    /// Part of the window lies before the raw retention: its counts come from the
    /// per-minute and per-hour aggregates (whole minutes), and the percentiles,
    /// incidents, MTBF and MTTR cover only [rawSinceMs, untilMs).
    bool fromAggregates = false;
    qint64 rawSinceMs = 0;
};

/// The windows of an objective's burn-rate alert. The defaults are the fast
/// page of Google's SRE workbook ("Alerting on SLOs", multiwindow, multi-burn-rate):
/// 2 % of a 30-day budget spent in one hour, a burn rate of 14.4, confirmed by
/// the last five minutes.
struct ObjectiveWindows
{
    qint64 budgetWindowMs = 30LL * 24 * 3600 * 1000;
    qint64 longWindowMs = 3600LL * 1000;
    qint64 shortWindowMs = 5LL * 60 * 1000;
    double burnRateThreshold = 14.4;
};

/// How fast a window spent the error budget: its error rate over the budget's
/// (1 - target). 1 spends the budget exactly over the budget window.
struct BurnRate
{
    qint64 windowMs = 0;
    qint64 checks = 0;
    qint64 failedChecks = 0;
    std::optional<double> rate; ///< empty when the window counted no check
};

/// A monitor's availability objective over the budget window ending now, counted
/// on checks (maintenance left out) of every agent.
struct ObjectiveStatus
{
    QString monitor;
    double target = 0.0;
    qint64 nowMs = 0;
    qint64 budgetWindowMs = 0;
    qint64 checks = 0;
    qint64 failedChecks = 0;
    std::optional<double> availability;
    /// Failed checks the objective allows over the window: (1 - target) * checks.
    double allowedFailures = 0.0;
    /// The share of the budget left: 1 - failed / allowed (negative: overspent);
    /// empty when the window counted no check.
    std::optional<double> budgetRemaining;
    BurnRate longWindow;
    BurnRate shortWindow;
    double burnRateThreshold = 0.0;
    /// Both windows burn faster than the threshold: page someone.
    bool alerting = false;
    /// Part of the budget window was counted from aggregates (raw rows rolled up).
    bool fromAggregates = false;
};

/// Choices of a what-if beyond the policy.
struct WhatIfOptions
{
    QString agent; ///< empty: every agent's checks and attempts
    /// How far the nearest recorded attempt may be from a counterfactual attempt;
    /// empty: twice the median interval between recorded checks, at least 60 s.
    std::optional<qint64> gapMs;
};

/// What a monitor's recorded history would have looked like under another
/// policy: an estimate (HistoryQuery::whatIf says how it is made).
struct WhatIf
{
    QString policyName; ///< "none" for a policy of one attempt
    qint64 checksSimulated = 0; ///< checks whose every attempt had a recorded outcome near it
    qint64 unknownChecks = 0; ///< checks left out: an attempt fell where nothing was recorded
    qint64 checksSucceeded = 0;
    qint64 attempts = 0;
    std::optional<double> checkAvailability;
    std::optional<double> attemptsPerCheck;
    int incidents = 0;
    int hiddenIncidents = 0;
    qint64 gapMs = 0; ///< the gap used
    bool estimate = true;
};

} // namespace RetryLab::Core

Q_DECLARE_METATYPE(RetryLab::Core::Incident)
Q_DECLARE_METATYPE(RetryLab::Core::CheckPoint)
