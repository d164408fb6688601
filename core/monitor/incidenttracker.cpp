#include "core/monitor/incidenttracker.h"

namespace RetryLab::Core {

IncidentCheck IncidentTracker::incidentCheckOf(const StoredCheck &check)
{
    IncidentCheck c;
    c.startMs = check.startMs;
    c.endMs = check.endMs;
    c.success = check.success;
    c.attempts = static_cast<int>(check.attempts.size());
    c.reason = check.reason;
    bool first = true;
    for (const StoredAttempt &a : check.attempts) {
        if (a.success)
            continue;
        ++c.failedAttempts;
        if (first) {
            c.firstFailedAttemptStartMs = a.startMs;
            c.firstFailedReason = a.reason;
            first = false;
        }
        c.lastFailedReason = a.reason;
    }
    return c;
}

IncidentTracker::Update IncidentTracker::checkFinished(const StoredCheck &check)
{
    Update update;
    if (check.maintenance)
        return update;
    const QString key = check.monitor + QChar(0x1f) + check.agent;
    auto it = m_finders.find(key);
    if (it == m_finders.end())
        it = m_finders.insert(key, IncidentFinder(check.monitor, check.agent));
    const bool wasFailing = it->failing().has_value();
    it->add(incidentCheckOf(check));
    update.ended = it->takeEnded();
    if (!wasFailing && it->failing())
        update.opened = it->failing();
    return update;
}

std::optional<Incident> IncidentTracker::open(const QString &monitor) const
{
    for (const IncidentFinder &finder : m_finders) {
        if (finder.failing() && finder.failing()->monitor == monitor)
            return finder.failing();
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
