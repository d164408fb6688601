#include "core/history/storedcheck.h"

namespace RetryLab::Core {

QString monitorStateName(MonitorState state)
{
    switch (state) {
    case MonitorState::Pending:
        return QStringLiteral("pending");
    case MonitorState::Up:
        return QStringLiteral("up");
    case MonitorState::Down:
        return QStringLiteral("down");
    case MonitorState::Paused:
        return QStringLiteral("paused");
    }
    return QStringLiteral("pending");
}

std::optional<MonitorState> monitorStateFromName(const QString &name)
{
    for (MonitorState state : {MonitorState::Pending, MonitorState::Up, MonitorState::Down, MonitorState::Paused}) {
        if (monitorStateName(state) == name)
            return state;
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
