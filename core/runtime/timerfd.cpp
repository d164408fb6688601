#include "core/runtime/timerfd.h"

#include <algorithm>
#include <cerrno>

#ifdef Q_OS_LINUX
#include <sys/timerfd.h>
#include <unistd.h>
#endif

namespace RetryLab::Core {

int createTimerFd()
{
#ifdef Q_OS_LINUX
    return ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
#else
    return -1;
#endif
}

void armTimerFd(int fd, qint64 deadlineNs)
{
#ifdef Q_OS_LINUX
    itimerspec at{};
    if (deadlineNs >= 0) {
        // Absolute; a time already past fires at once. Zero would disarm: no deadline is zero.
        const qint64 when = std::max<qint64>(deadlineNs, 1);
        at.it_value.tv_sec = when / 1'000'000'000;
        at.it_value.tv_nsec = when % 1'000'000'000;
    }
    ::timerfd_settime(fd, TFD_TIMER_ABSTIME, &at, nullptr);
#else
    Q_UNUSED(fd);
    Q_UNUSED(deadlineNs);
#endif
}

void drainFd(int fd)
{
#ifdef Q_OS_LINUX
    quint64 count = 0;
    while (::read(fd, &count, sizeof count) < 0 && errno == EINTR) { }
#else
    Q_UNUSED(fd);
#endif
}

} // namespace RetryLab::Core
