#pragma once

#include "core/history/storedcheck.h"

#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The state of one monitor as its checks decide it, with flap damping: down
/// after `downAfter` failed checks in a row, up again after `upAfter` good
/// ones. A first failure of a monitor that is up makes it pending, not down,
/// when downAfter > 1. A failed check inside a maintenance window changes
/// nothing (it is stored, but not held against the endpoint); a good one counts.
/// Pure logic, driven by the engine: every change comes back with its reason.
class MonitorStateMachine final
{
public:
    struct Change
    {
        MonitorState from = MonitorState::Pending;
        MonitorState to = MonitorState::Pending;
        QString reason;
    };

    explicit MonitorStateMachine(int downAfter = 1, int upAfter = 1);

    MonitorState state() const { return m_state; }
    int failuresInRow() const { return m_failures; }
    int successesInRow() const { return m_successes; }

    /// A check ended; `reason` is why it failed (empty for a success).
    std::optional<Change> checkFinished(bool success, bool maintenance, const QString &reason);
    std::optional<Change> pause();
    std::optional<Change> resume();

private:
    std::optional<Change> moveTo(MonitorState to, QString reason);

    int m_downAfter;
    int m_upAfter;
    MonitorState m_state = MonitorState::Pending;
    int m_failures = 0;
    int m_successes = 0;
    bool m_pendingFromUp = false; ///< pending after failures of a monitor that was up
};

} // namespace RetryLab::Core
