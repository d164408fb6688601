#pragma once

#include "core/monitor/monitorcondition.h"
#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QTime>

#include <memory>
#include <optional>

namespace RetryLab::Core {

/// A time when a monitor's checks still run and are stored but do not count
/// against its availability: once (from, to: UTC wall ms) or every day
/// (dailyFrom..dailyTo, UTC; a window that crosses midnight is allowed).
struct MaintenanceWindow
{
    std::optional<qint64> fromMs;
    std::optional<qint64> toMs;
    std::optional<QTime> dailyFrom;
    std::optional<QTime> dailyTo;

    bool contains(qint64 utcMs) const;
    QString describe() const;
};

/// One monitor: a request sent every interval under a retry policy, and what
/// its answers must satisfy.
struct Monitor
{
    QString name;
    /// The request, with {{variables}} resolved; its responseCheck holds the conditions.
    RequestSpec request;
    /// The URL as written, with {{variables}} resolved; {id} becomes a key of its own for every check.
    QString urlTemplate;
    double intervalMs = 60'000.0;
    /// While down, checks come this often (shorter, to see it come back); unset: intervalMs.
    std::optional<double> downIntervalMs;
    /// The policy of every check; maxAttempts 1 for "none" (one attempt per check).
    BackoffPolicy policy;
    QString policyOrigin; ///< "preset standard", "none", "inline", ...
    /// The whole check, retries included, ends after this (the policy's deadline, at most).
    double timeoutMs = 30'000.0;
    QList<MonitorCondition> conditions;
    /// Down after this many failed checks in a row, up again after this many good ones.
    int downAfter = 1;
    int upAfter = 1;
    QList<MaintenanceWindow> maintenance;
    /// The availability objective of checks (0.999), for the error budget and burn rates.
    std::optional<double> objective;
    /// The alert targets (AlertTarget names of the file) told of its events.
    QStringList alerts;
    bool paused = false;

    /// The policy a check runs under: the monitor's, its deadline no later than the timeout.
    BackoffPolicy checkPolicy() const;
    /// The interval in the given state.
    double intervalFor(bool down) const { return down && downIntervalMs ? *downIntervalMs : intervalMs; }
    bool inMaintenance(qint64 utcMs) const;
};

} // namespace RetryLab::Core
