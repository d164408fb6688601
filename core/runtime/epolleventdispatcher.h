#pragma once

#include <QAbstractEventDispatcher>
#include <QAtomicInt>
#include <QHash>

#include <map>

class QSocketNotifier;

namespace RetryLab::Core {

/// An event dispatcher for Linux worker threads built on epoll, for a thread that
/// holds many sockets: the fault server keeps a thousand keep-alive connections
/// under a batch, ten thousand when connections are measured.
///
/// Qt's own dispatchers poll() every registered socket at every turn of the loop,
/// so a turn costs time in proportion to the connections held, idle or not; GLib's
/// also gathers and sorts its sources at every turn. Here sockets stay registered
/// with the kernel and a turn costs what is ready. Timers are kept ordered by
/// deadline (a lookup per change instead of a walk of a sorted list), and the wait
/// ends on the deadline to the microsecond (Qt rounds it up to the millisecond).
///
/// It does what QEventDispatcherUNIX does for a thread without a window: posted
/// events first, then sockets, then timers, each timer at most once per turn and
/// never inside its own handler; interrupt() and wakeUp() from any thread.
class EpollEventDispatcher final : public QAbstractEventDispatcher
{
    Q_OBJECT

public:
    explicit EpollEventDispatcher(QObject *parent = nullptr);
    ~EpollEventDispatcher() override;

    /// Whether epoll and its eventfd could be made (else the thread should use Qt's own).
    bool isValid() const { return m_epoll >= 0 && m_wake >= 0; }

    bool processEvents(QEventLoop::ProcessEventsFlags flags) override;
    void registerSocketNotifier(QSocketNotifier *notifier) override;
    void unregisterSocketNotifier(QSocketNotifier *notifier) override;
    void registerTimer(int timerId, qint64 interval, Qt::TimerType timerType, QObject *object) override;
    bool unregisterTimer(int timerId) override;
    bool unregisterTimers(QObject *object) override;
    QList<TimerInfo> registeredTimers(QObject *object) const override;
    int remainingTime(int timerId) override;
    void wakeUp() override;
    void interrupt() override;

private:
    struct Watched
    {
        QSocketNotifier *read = nullptr;
        QSocketNotifier *write = nullptr;
        QSocketNotifier *exception = nullptr;
        quint32 registered = 0; ///< the events the kernel watches for it now
        bool dirty = false; ///< in m_dirty
    };
    using Deadlines = std::multimap<qint64, int>; ///< deadline (ns) -> timer id
    struct Timer
    {
        qint64 intervalNs = 0;
        int intervalMs = 0;
        Qt::TimerType type = Qt::CoarseTimer;
        QObject *object = nullptr;
        Deadlines::iterator due; ///< end() while it fires
        qint64 nextNs = 0; ///< its next deadline while it fires (out of the list, so that a
                           ///< nested loop neither fires it again nor spins on its deadline)
        bool firing = false;
    };

    /// Tells the kernel what changed since the last wait. A notifier enabled and
    /// disabled again within one turn (a socket that writes and flushes) costs nothing.
    void applyInterest();
    static quint32 eventsOf(const Watched &watched);
    int activateTimers();
    /// Arms the timerfd for the earliest deadline (or disarms it), when that changed.
    void armTimerFd();

    int m_epoll = -1;
    int m_wake = -1; ///< eventfd written by wakeUp()
    int m_timerFd = -1; ///< wakes the wait at the earliest timer's deadline
    qint64 m_armedNs = -1;
    QAtomicInt m_wakePending;
    QAtomicInt m_interrupted;
    QHash<int, Watched> m_sockets;
    QList<int> m_dirty;
    QHash<int, Timer> m_timers;
    Deadlines m_deadlines;
};

} // namespace RetryLab::Core
