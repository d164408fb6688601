#pragma once

#include "core/history/historyfigures.h"
#include "core/history/storedcheck.h"

#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// One check as the incident rules see it (maintenance checks are never given).
struct IncidentCheck
{
    qint64 startMs = 0;
    qint64 endMs = 0;
    bool success = false;
    int attempts = 0;
    int failedAttempts = 0;
    QString reason; ///< why a failed check failed
    /// Of the failed attempts, for a check that succeeded after them.
    qint64 firstFailedAttemptStartMs = 0;
    QString firstFailedReason;
    QString lastFailedReason;
};

/// A stored check as the incident rules read it.
IncidentCheck incidentCheckOf(const StoredCheck &check);

/// Incidents added up for MTBF and MTTR, so that incidents counted by the
/// database and incidents found in checks make one figure.
struct IncidentTotals
{
    qint64 seen = 0;
    qint64 hidden = 0;
    qint64 seenDownMs = 0; ///< time in seen incidents, within the span
    qint64 seenEnded = 0;
    qint64 seenEndedMs = 0; ///< the durations of the seen incidents that ended

    /// Adds one incident; an incident still going counts as down up to spanEndMs.
    void add(const Incident &incident, qint64 spanStartMs, qint64 spanEndMs);
    IncidentTotals &operator+=(const IncidentTotals &other);
    /// Mean time between failures over [spanStartMs, spanEndMs): the time not in
    /// a seen incident over their number; empty without a seen incident.
    std::optional<double> mtbfMs(qint64 spanStartMs, qint64 spanEndMs) const;
    /// Mean duration of the seen incidents that ended; empty without one.
    std::optional<double> mttrMs() const;
};

/// Finds the seen and hidden incidents (see Incident) of one series of checks
/// given in start order. Runs break only at a clean check (one that succeeded
/// without a failed attempt), so the caller may leave out every clean check but
/// the one right after a failed or retried one.
class IncidentFinder final
{
public:
    IncidentFinder(const QString &monitor, const QString &agent) : m_monitor(monitor), m_agent(agent) { }

    void add(const IncidentCheck &check);
    /// Closes the runs still going and returns every incident, sorted by start.
    QList<Incident> finish();
    /// Followed as checks arrive: the seen incident going on now, if any, and the
    /// incidents that ended since the last call (in the order they ended).
    const std::optional<Incident> &failing() const { return m_failing; }
    QList<Incident> takeEnded();

    /// Mean time between failures over [spanStartMs, spanEndMs): the time not in
    /// a seen incident over their number; empty without a seen incident.
    static std::optional<double> mtbfMs(const QList<Incident> &incidents, qint64 spanStartMs, qint64 spanEndMs);
    /// Mean duration of the seen incidents that ended; empty without one.
    static std::optional<double> mttrMs(const QList<Incident> &incidents);

private:
    void closeFailing(std::optional<qint64> endMs);
    void closeHidden();

    QString m_monitor;
    QString m_agent;
    std::optional<Incident> m_failing;
    qint64 m_failingLastEndMs = 0;
    std::optional<Incident> m_hidden;
    QList<Incident> m_incidents;
};

} // namespace RetryLab::Core
