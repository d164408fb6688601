#pragma once

#include <QHash>
#include <QObject>
#include <QTimer>

#include <functional>
#include <map>

class QSocketNotifier;

namespace RetryLab::Core {

/// Wake-ups at deadlines finer than a millisecond, on the thread's Qt event loop.
///
/// Qt 6.4 sleeps between timers in whole milliseconds, rounded up (both its own
/// dispatcher and GLib's), so a QTimer due in 1234.2 ms fires at 1235 ms at the
/// earliest: half a millisecond late on average, almost a whole one at worst. On
/// Linux this keeps every deadline in one ordered list and arms a single timerfd
/// for the earliest; the event loop wakes when the fd turns readable, to the
/// microsecond. Elsewhere it falls back to one precise QTimer.
///
/// Keys are the caller's (request ids): one deadline per key, scheduling again
/// moves it. The handler runs for each due key in deadline order; it may
/// schedule and cancel keys.
class PreciseWakeups final : public QObject
{
    Q_OBJECT

public:
    using Handler = std::function<void(quint64 key)>;

    explicit PreciseWakeups(Handler handler, QObject *parent = nullptr);
    ~PreciseWakeups() override;

    /// Calls the handler with `key` once `delayNs` (>= 0) have passed from now.
    void schedule(quint64 key, qint64 delayNs);
    void cancel(quint64 key);
    bool isScheduled(quint64 key) const { return m_keys.contains(key); }
    qsizetype pendingCount() const { return m_keys.size(); }
    /// Whether deadlines are kept by a timerfd (false: the QTimer fallback).
    bool usesTimerFd() const { return m_fd >= 0; }

private:
    using Deadlines = std::multimap<qint64, quint64>;

    void arm();
    void handleDue();

    Handler m_handler;
    Deadlines m_deadlines; ///< deadline -> key
    QHash<quint64, Deadlines::iterator> m_keys;
    int m_fd = -1;
    QSocketNotifier *m_notifier = nullptr;
    QTimer m_fallback;
    qint64 m_armedNs = -1; ///< the deadline the timer is armed for; -1 when disarmed
};

} // namespace RetryLab::Core
