#pragma once

#include "core/history/storedcheck.h"

#include <QHash>
#include <QMetaType>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// A stretch of time when a monitor's endpoint failed. An incident is a run of
/// failed checks: from the first one's start to the start of the next good
/// check. A hidden incident is a run of good checks each of which needed a
/// failed attempt first (the retries hid the fault from the client): from the
/// first failed attempt's start to the end of the run's last check. The same
/// definitions as the history's figures (HistoryQuery); checks in a maintenance
/// window are left out of both.
struct MonitorIncident
{
    QString monitor;
    QString agent;
    qint64 startMs = 0;
    std::optional<qint64> endMs; ///< none while it lasts
    bool hidden = false;
    QString firstError;
    QString lastError;
    int checks = 0;
    int attempts = 0; ///< attempts during it, good ones included
    int failedAttempts = 0;
};

/// Follows monitors' checks as they end and says when an incident opens and
/// when it, or a hidden one, closes: what `retrylab monitor` prints live and
/// what raises an alert on a hidden incident. Pure logic.
class IncidentTracker final
{
public:
    struct Update
    {
        std::optional<MonitorIncident> opened; ///< an incident began with this check
        std::optional<MonitorIncident> closed; ///< an incident or a hidden one ended before this check
        std::optional<MonitorIncident> closedHidden; ///< a hidden one ended (when an incident opens at once)
    };

    Update checkFinished(const StoredCheck &check);
    /// The incident of `monitor` that is open now, if any.
    std::optional<MonitorIncident> open(const QString &monitor) const;

private:
    struct Runs
    {
        std::optional<MonitorIncident> incident;
        std::optional<MonitorIncident> hidden;
    };
    QHash<QString, Runs> m_runs; ///< by monitor and agent
};

} // namespace RetryLab::Core

Q_DECLARE_METATYPE(RetryLab::Core::MonitorIncident)
