#include "core/util/clock.h"

#include <ctime>

namespace RetryLab::Core {

qint64 monotonicNowNs()
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

const SteadyClock &SteadyClock::instance()
{
    static const SteadyClock clock;
    return clock;
}

} // namespace RetryLab::Core
