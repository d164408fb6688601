#include "core/monitor/monitorstatemachine.h"

#include "core/util/coretr.h"

#include <algorithm>

namespace RetryLab::Core {

MonitorStateMachine::MonitorStateMachine(int downAfter, int upAfter)
    : m_downAfter(std::max(1, downAfter)), m_upAfter(std::max(1, upAfter))
{ }

std::optional<MonitorStateMachine::Change> MonitorStateMachine::checkFinished(
    bool success, bool maintenance, const QString &reason)
{
    if (m_state == MonitorState::Paused)
        return std::nullopt;
    if (success) {
        m_failures = 0;
        ++m_successes;
        if (m_state == MonitorState::Up)
            return std::nullopt;
        // A monitor that failed fewer checks than it takes to go down was never down.
        if (m_state == MonitorState::Pending && m_pendingFromUp)
            return moveTo(MonitorState::Up, Tr::tr("the check succeeded again"));
        if (m_successes >= m_upAfter) {
            return moveTo(MonitorState::Up,
                m_upAfter == 1 ? Tr::tr("the check succeeded")
                               : Tr::tr("%1 checks in a row succeeded").arg(m_successes));
        }
        return std::nullopt;
    }
    if (maintenance)
        return std::nullopt;
    m_successes = 0;
    ++m_failures;
    if (m_state == MonitorState::Down)
        return std::nullopt;
    if (m_failures >= m_downAfter) {
        return moveTo(MonitorState::Down,
            m_downAfter == 1 ? Tr::tr("the check failed: %1").arg(reason)
                             : Tr::tr("%1 checks in a row failed, the last: %2").arg(m_failures).arg(reason));
    }
    if (m_state == MonitorState::Up) {
        m_pendingFromUp = true;
        return moveTo(MonitorState::Pending,
            Tr::tr("the check failed (%1 of %2 before down): %3").arg(m_failures).arg(m_downAfter).arg(reason));
    }
    return std::nullopt;
}

std::optional<MonitorStateMachine::Change> MonitorStateMachine::pause()
{
    m_failures = 0;
    m_successes = 0;
    return moveTo(MonitorState::Paused, Tr::tr("paused"));
}

std::optional<MonitorStateMachine::Change> MonitorStateMachine::resume()
{
    if (m_state != MonitorState::Paused)
        return std::nullopt;
    return moveTo(MonitorState::Pending, Tr::tr("resumed"));
}

std::optional<MonitorStateMachine::Change> MonitorStateMachine::moveTo(MonitorState to, QString reason)
{
    if (to == m_state)
        return std::nullopt;
    if (to != MonitorState::Pending)
        m_pendingFromUp = false;
    Change change{m_state, to, std::move(reason)};
    m_state = to;
    return change;
}

} // namespace RetryLab::Core
