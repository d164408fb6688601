#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace RetryLab::Core {

/// Calls a function from a thread of its own when a deadline passes while it is
/// armed: ScriptSandbox's time limit, which must interrupt a script that never
/// returns to the thread that runs it. Arming and disarming are cheap (no thread
/// is started per script); disarm() says whether the deadline fired, and once it
/// has returned the function is no longer called for that arming.
class ScriptWatchdog final
{
public:
    explicit ScriptWatchdog(std::function<void()> onDeadline);
    ~ScriptWatchdog();
    ScriptWatchdog(const ScriptWatchdog &) = delete;
    ScriptWatchdog &operator=(const ScriptWatchdog &) = delete;

    void arm(std::chrono::milliseconds limit);
    /// Whether the deadline passed (and the function was called) since arm().
    bool disarm();

private:
    void watch();

    std::function<void()> m_onDeadline;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::chrono::steady_clock::time_point m_deadline;
    bool m_armed = false;
    bool m_fired = false;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace RetryLab::Core
