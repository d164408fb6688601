#include "core/runtime/epolleventdispatcher.h"

#include "core/runtime/timerfd.h"
#include "core/util/clock.h"

#include <QCoreApplication>
#include <QEvent>
#include <QSocketNotifier>
#include <QVarLengthArray>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#ifdef Q_OS_LINUX
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#endif

namespace RetryLab::Core {

namespace {

constexpr qint64 nsPerMs = 1'000'000;

#ifdef Q_OS_LINUX
// The epoll data of the two descriptors of the dispatcher's own; sockets carry their fd (>= 0).
constexpr quint64 wakeTag = ~quint64(0);
constexpr quint64 timerTag = ~quint64(0) - 1;

#endif

} // namespace

EpollEventDispatcher::EpollEventDispatcher(QObject *parent) : QAbstractEventDispatcher(parent)
{
#ifdef Q_OS_LINUX
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    m_timerFd = createTimerFd();
    if (m_epoll < 0 || m_wake < 0 || m_timerFd < 0)
        return;
    epoll_event wake{};
    wake.events = EPOLLIN;
    wake.data.u64 = wakeTag;
    epoll_event timer{};
    timer.events = EPOLLIN;
    timer.data.u64 = timerTag;
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wake, &wake) != 0
        || ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_timerFd, &timer) != 0) {
        ::close(m_wake);
        m_wake = -1;
    }
#endif
}

EpollEventDispatcher::~EpollEventDispatcher()
{
#ifdef Q_OS_LINUX
    for (int fd : {m_timerFd, m_wake, m_epoll}) {
        if (fd >= 0)
            ::close(fd);
    }
#endif
}

void EpollEventDispatcher::wakeUp()
{
#ifdef Q_OS_LINUX
    // One write until the loop has taken it: posting a thousand events costs one wake-up.
    if (m_wakePending.testAndSetAcquire(0, 1)) {
        const quint64 one = 1;
        while (::write(m_wake, &one, sizeof one) < 0 && errno == EINTR) { }
    }
#endif
}

void EpollEventDispatcher::interrupt()
{
    m_interrupted.storeRelaxed(1);
    wakeUp();
}

bool EpollEventDispatcher::processEvents(QEventLoop::ProcessEventsFlags flags)
{
#ifdef Q_OS_LINUX
    m_interrupted.storeRelaxed(0);
    Q_EMIT awake();
    QCoreApplication::sendPostedEvents();

    const bool includeTimers = !(flags & QEventLoop::X11ExcludeTimers);
    const bool includeNotifiers = !(flags & QEventLoop::ExcludeSocketNotifiers);
    // A wake-up pending means events were posted since: take them before blocking.
    const bool canWait
        = (flags & QEventLoop::WaitForMoreEvents) && !m_interrupted.loadRelaxed() && !m_wakePending.loadRelaxed();
    if (canWait)
        Q_EMIT aboutToBlock();
    if (m_interrupted.loadRelaxed())
        return false;

    applyInterest();
    if (includeTimers)
        armTimerFd();
    // A deadline already past has the timerfd readable: the wait ends at once.
    const int timeoutMs = canWait ? -1 : 0;
    // Not zeroed: epoll_wait() fills the first `count`, the only ones read, and zeroing all
    // 3 KiB was a quarter of the dispatcher's own instructions in a turn.
    std::array<epoll_event, 256> ready;
    int count = ::epoll_wait(m_epoll, ready.data(), int(ready.size()), timeoutMs);
    if (count < 0)
        count = 0; // EINTR: a turn with nothing ready

    int handled = 0;
    // Socket notifiers: gathered first, looked up again before each is activated,
    // since a handler may disable or delete the others.
    struct Activation
    {
        int fd;
        QSocketNotifier::Type type;
    };
    QVarLengthArray<Activation, 64> activations;
    for (int i = 0; i < count; ++i) {
        const quint64 tag = ready[i].data.u64;
        if (tag == wakeTag) {
            drainFd(m_wake);
            m_wakePending.storeRelease(0);
            ++handled;
            continue;
        }
        if (tag == timerTag) {
            drainFd(m_timerFd);
            m_armedNs = -1;
            continue;
        }
        if (!includeNotifiers)
            continue;
        const int fd = int(tag);
        const quint32 events = ready[i].events;
        // A hang-up or an error wakes every kind of notifier, as with Qt's poll():
        // the kernel reports them whatever was asked, and at every wait.
        const quint32 always = EPOLLHUP | EPOLLERR;
        if (events & (EPOLLIN | always))
            activations.append({fd, QSocketNotifier::Read});
        if (events & (EPOLLOUT | always))
            activations.append({fd, QSocketNotifier::Write});
        if (events & (EPOLLPRI | always))
            activations.append({fd, QSocketNotifier::Exception});
    }
    for (const Activation &a : std::as_const(activations)) {
        const auto it = m_sockets.constFind(a.fd);
        if (it == m_sockets.cend())
            continue;
        QSocketNotifier *notifier = a.type == QSocketNotifier::Read ? it->read
            : a.type == QSocketNotifier::Write                      ? it->write
                                                                    : it->exception;
        if (!notifier)
            continue;
        QEvent event(QEvent::SockAct);
        QCoreApplication::sendEvent(notifier, &event);
        ++handled;
    }
    if (includeTimers)
        handled += activateTimers();
    return handled > 0;
#else
    Q_UNUSED(flags);
    return false;
#endif
}

void EpollEventDispatcher::registerSocketNotifier(QSocketNotifier *notifier)
{
    const int fd = int(notifier->socket());
    Watched &watched = m_sockets[fd];
    switch (notifier->type()) {
    case QSocketNotifier::Read:
        watched.read = notifier;
        break;
    case QSocketNotifier::Write:
        watched.write = notifier;
        break;
    case QSocketNotifier::Exception:
        watched.exception = notifier;
        break;
    }
    if (!std::exchange(watched.dirty, true))
        m_dirty.append(fd);
}

void EpollEventDispatcher::unregisterSocketNotifier(QSocketNotifier *notifier)
{
    const int fd = int(notifier->socket());
    const auto it = m_sockets.find(fd);
    if (it == m_sockets.end())
        return;
    if (it->read == notifier)
        it->read = nullptr;
    else if (it->write == notifier)
        it->write = nullptr;
    else if (it->exception == notifier)
        it->exception = nullptr;
    if (it->read || it->write || it->exception) {
        if (!std::exchange(it->dirty, true))
            m_dirty.append(fd);
        return;
    }
    // The last one: the descriptor is about to be closed and its number may be
    // reused by the next socket, so the kernel forgets it now, not at the next turn.
#ifdef Q_OS_LINUX
    if (it->registered != 0) {
        epoll_event none{};
        ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, &none); // fails harmlessly when already closed
    }
#endif
    m_sockets.erase(it);
}

quint32 EpollEventDispatcher::eventsOf(const Watched &watched)
{
    quint32 events = 0;
#ifdef Q_OS_LINUX
    if (watched.read)
        events |= EPOLLIN;
    if (watched.write)
        events |= EPOLLOUT;
    if (watched.exception)
        events |= EPOLLPRI;
#else
    Q_UNUSED(watched);
#endif
    return events;
}

void EpollEventDispatcher::applyInterest()
{
#ifdef Q_OS_LINUX
    for (int fd : std::as_const(m_dirty)) {
        const auto it = m_sockets.find(fd);
        if (it == m_sockets.end())
            continue; // gone since
        it->dirty = false;
        const quint32 wanted = eventsOf(*it);
        if (wanted == it->registered)
            continue;
        epoll_event event{};
        event.events = wanted;
        event.data.u64 = quint64(quint32(fd));
        // Added by another path, or closed and its number reused before its
        // notifiers went: fall back from one operation to the other.
        int result = ::epoll_ctl(m_epoll, it->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
        if (result != 0 && errno == ENOENT)
            result = ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event);
        else if (result != 0 && errno == EEXIST)
            result = ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &event);
        if (result != 0) {
            // A regular file (EPERM) or the watch limit: say so rather than wait for nothing.
            qWarning("EpollEventDispatcher: cannot watch descriptor %d: %s", fd, strerror(errno));
            continue; // tried again when its notifiers change
        }
        it->registered = wanted;
    }
#endif
    m_dirty.clear();
}

void EpollEventDispatcher::registerTimer(int timerId, qint64 interval, Qt::TimerType timerType, QObject *object)
{
    unregisterTimer(timerId);
    Timer timer;
    timer.intervalMs = int(std::clamp<qint64>(interval, 0, std::numeric_limits<int>::max()));
    timer.intervalNs = std::max<qint64>(0, interval) * nsPerMs;
    timer.type = timerType;
    timer.object = object;
    timer.due = m_deadlines.emplace(monotonicNowNs() + timer.intervalNs, timerId);
    m_timers.insert(timerId, timer);
}

bool EpollEventDispatcher::unregisterTimer(int timerId)
{
    const auto it = m_timers.find(timerId);
    if (it == m_timers.end())
        return false;
    if (!it->firing)
        m_deadlines.erase(it->due);
    m_timers.erase(it);
    return true;
}

bool EpollEventDispatcher::unregisterTimers(QObject *object)
{
    bool any = false;
    for (auto it = m_timers.begin(); it != m_timers.end();) {
        if (it->object == object) {
            if (!it->firing)
                m_deadlines.erase(it->due);
            it = m_timers.erase(it);
            any = true;
        } else {
            ++it;
        }
    }
    return any;
}

QList<QAbstractEventDispatcher::TimerInfo> EpollEventDispatcher::registeredTimers(QObject *object) const
{
    QList<TimerInfo> list;
    for (auto it = m_timers.cbegin(); it != m_timers.cend(); ++it) {
        if (it->object == object)
            list.append(TimerInfo(it.key(), it->intervalMs, it->type));
    }
    return list;
}

int EpollEventDispatcher::remainingTime(int timerId)
{
    const auto it = m_timers.constFind(timerId);
    if (it == m_timers.cend())
        return -1;
    const qint64 left = (it->firing ? it->nextNs : it->due->first) - monotonicNowNs();
    return left <= 0 ? 0 : int((left + nsPerMs - 1) / nsPerMs);
}

void EpollEventDispatcher::armTimerFd()
{
#ifdef Q_OS_LINUX
    const qint64 next = m_deadlines.empty() ? -1 : m_deadlines.begin()->first;
    if (next == m_armedNs)
        return;
    // An armed deadline before the earliest one only ends a wait early, once, and
    // the timerfd is armed again then. Moving it later at once would cost a system
    // call per turn where timers restart per request (a connection's idle timeout).
    if (m_armedNs >= 0 && (next < 0 || next > m_armedNs))
        return;
    m_armedNs = next;
    Core::armTimerFd(m_timerFd, next);
#endif
}

int EpollEventDispatcher::activateTimers()
{
    if (m_deadlines.empty())
        return 0;
    const qint64 now = monotonicNowNs();
    // The timers due now, in deadline order, each once: a handler that restarts a
    // zero timer must not keep this turn going.
    QVarLengthArray<int, 32> due;
    for (auto it = m_deadlines.cbegin(); it != m_deadlines.cend() && it->first <= now; ++it)
        due.append(it->second);
    int fired = 0;
    for (int id : std::as_const(due)) {
        const auto it = m_timers.find(id);
        if (it == m_timers.end() || it->firing || it->due->first > now)
            continue; // stopped, in its handler (a nested loop), or restarted by an earlier handler
        // The next deadline first, as Qt does: a precise timer keeps its phase,
        // the others count from now.
        qint64 next = it->due->first + it->intervalNs;
        if (it->type != Qt::PreciseTimer || next <= now)
            next = now + it->intervalNs;
        m_deadlines.erase(it->due);
        it->due = m_deadlines.end();
        it->nextNs = next;
        it->firing = true;
        QObject *object = it->object;
        QTimerEvent event(id);
        QCoreApplication::sendEvent(object, &event);
        ++fired;
        // Back in the list, unless the handler stopped it (or stopped it and
        // started another under its id, which has a deadline of its own).
        if (const auto after = m_timers.find(id); after != m_timers.end() && after->firing) {
            after->firing = false;
            after->due = m_deadlines.emplace(after->nextNs, id);
        }
    }
    return fired;
}

} // namespace RetryLab::Core
