#include "core/util/clock.h"

namespace RetryLab::Core {

const SteadyClock &SteadyClock::instance()
{
    static const SteadyClock clock;
    return clock;
}

} // namespace RetryLab::Core
