#include "core/monitor/incidenttracker.h"

namespace RetryLab::Core {

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
    it->add(Core::incidentCheckOf(check));
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
