#include "core/monitor/incidenttracker.h"

#include <algorithm>

namespace RetryLab::Core {

namespace {

QString keyOf(const StoredCheck &check)
{
    return check.monitor + QChar(0x1f) + check.agent;
}

int failedAttemptsOf(const StoredCheck &check)
{
    return static_cast<int>(std::count_if(
        check.attempts.cbegin(), check.attempts.cend(), [](const StoredAttempt &a) { return !a.success; }));
}

QString firstFailureOf(const StoredCheck &check)
{
    for (const StoredAttempt &a : check.attempts) {
        if (!a.success)
            return a.reason;
    }
    return check.reason;
}

QString lastFailureOf(const StoredCheck &check)
{
    for (auto it = check.attempts.crbegin(); it != check.attempts.crend(); ++it) {
        if (!it->success)
            return it->reason;
    }
    return check.reason;
}

} // namespace

IncidentTracker::Update IncidentTracker::checkFinished(const StoredCheck &check)
{
    Update update;
    if (check.maintenance)
        return update;
    Runs &runs = m_runs[keyOf(check)];
    const int failed = failedAttemptsOf(check);
    const int attempts = static_cast<int>(check.attempts.size());

    if (!check.success) {
        if (runs.hidden) {
            update.closedHidden = std::move(runs.hidden);
            runs.hidden.reset();
        }
        if (!runs.incident) {
            MonitorIncident incident;
            incident.monitor = check.monitor;
            incident.agent = check.agent;
            incident.startMs = check.startMs;
            incident.firstError = firstFailureOf(check);
            runs.incident = incident;
            update.opened = incident;
        }
        MonitorIncident &incident = *runs.incident;
        incident.lastError = check.reason.isEmpty() ? lastFailureOf(check) : check.reason;
        ++incident.checks;
        incident.attempts += attempts;
        incident.failedAttempts += failed;
        if (update.opened)
            update.opened = incident;
        return update;
    }

    if (runs.incident) {
        runs.incident->endMs = check.startMs;
        update.closed = std::move(runs.incident);
        runs.incident.reset();
    }
    if (failed > 0) {
        if (!runs.hidden) {
            MonitorIncident hidden;
            hidden.monitor = check.monitor;
            hidden.agent = check.agent;
            hidden.hidden = true;
            const auto first = std::find_if(
                check.attempts.cbegin(), check.attempts.cend(), [](const StoredAttempt &a) { return !a.success; });
            hidden.startMs = first != check.attempts.cend() ? first->startMs : check.startMs;
            hidden.firstError = firstFailureOf(check);
            runs.hidden = hidden;
        }
        MonitorIncident &hidden = *runs.hidden;
        hidden.lastError = lastFailureOf(check);
        hidden.endMs = check.endMs;
        ++hidden.checks;
        hidden.attempts += attempts;
        hidden.failedAttempts += failed;
        return update;
    }
    if (runs.hidden) {
        if (update.closed)
            update.closedHidden = std::move(runs.hidden);
        else
            update.closed = std::move(runs.hidden);
        runs.hidden.reset();
    }
    return update;
}

std::optional<MonitorIncident> IncidentTracker::open(const QString &monitor) const
{
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        if (it->incident && it->incident->monitor == monitor)
            return it->incident;
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
