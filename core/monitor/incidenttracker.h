#pragma once

#include "core/history/historyfigures.h"
#include "core/history/incidentfinder.h"
#include "core/history/storedcheck.h"

#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// Follows monitors' checks as they end and says when an incident opens and
/// which incidents, seen or hidden (see Incident), have ended: what `retrylab
/// monitor` prints live and what raises the alert on a hidden incident. The
/// rules are the history's own (IncidentFinder), one finder per monitor and
/// agent; checks in a maintenance window are left out. Pure logic.
class IncidentTracker final
{
public:
    struct Update
    {
        std::optional<Incident> opened; ///< a seen incident began with this check
        QList<Incident> ended; ///< incidents, seen or hidden, that this check ended, in order
    };

    Update checkFinished(const StoredCheck &check);
    /// The seen incident of `monitor` going on now, if any (of any agent).
    std::optional<Incident> open(const QString &monitor) const;

private:
    QHash<QString, IncidentFinder> m_finders; ///< by monitor and agent
};

} // namespace RetryLab::Core
