#pragma once

#include <QtGlobal>

namespace RetryLab::Core {

/// A non-blocking CLOCK_MONOTONIC timerfd, or -1 where there is none (not Linux,
/// out of descriptors). Its deadlines are monotonicNowNs() times, to the nanosecond.
int createTimerFd();
/// Arms `fd` to turn readable at `deadlineNs` (at once when that is past), or
/// disarms it when `deadlineNs` is negative.
void armTimerFd(int fd, qint64 deadlineNs);
/// Reads what a timerfd or an eventfd holds, so that it is no longer readable.
void drainFd(int fd);

} // namespace RetryLab::Core
