#include "core/scripting/scriptwatchdog.h"

namespace RetryLab::Core {

ScriptWatchdog::ScriptWatchdog(std::function<void()> onDeadline)
    : m_onDeadline(std::move(onDeadline)), m_thread([this] { watch(); })
{ }

ScriptWatchdog::~ScriptWatchdog()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

void ScriptWatchdog::arm(std::chrono::milliseconds limit)
{
    {
        const std::lock_guard lock(m_mutex);
        m_deadline = std::chrono::steady_clock::now() + limit;
        m_armed = true;
        m_fired = false;
    }
    m_changed.notify_all();
}

bool ScriptWatchdog::disarm()
{
    const std::lock_guard lock(m_mutex);
    m_armed = false;
    return m_fired;
}

void ScriptWatchdog::watch()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        if (!m_armed) {
            m_changed.wait(lock);
            continue;
        }
        if (std::chrono::steady_clock::now() < m_deadline) {
            m_changed.wait_until(lock, m_deadline);
            continue;
        }
        // Called under the lock, so that disarm() cannot return between the
        // check and the call: once disarmed, a finished script is never hit.
        m_onDeadline();
        m_fired = true;
        m_armed = false;
    }
}

} // namespace RetryLab::Core
