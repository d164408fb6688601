#include "core/executor/ratelimithold.h"

#include "core/util/coretr.h"

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

void RateLimitHold::note(const QString &host, const Classification &c, double maxWaitMs, qint64 nowNs)
{
    if (!c.rateLimitExhausted || !c.rateLimitReset || !c.rateLimitReset->delayMs)
        return;
    const double waitMs = std::min(*c.rateLimitReset->delayMs, std::max(0.0, maxWaitMs));
    if (!(waitMs > 0.0))
        return;
    const qint64 untilNs = nowNs + static_cast<qint64>(std::ceil(waitMs * 1e6));
    const auto it = m_holds.constFind(host);
    if (it != m_holds.cend() && it->untilNs >= untilNs)
        return;
    const QString reason = waitMs < *c.rateLimitReset->delayMs
        ? Tr::tr("the rate limit of %1 is spent (%2), bounded to %3 ms")
              .arg(host, c.rateLimitReset->reason)
              .arg(maxWaitMs)
        : Tr::tr("the rate limit of %1 is spent (%2)").arg(host, c.rateLimitReset->reason);
    m_holds.insert(host, Hold{untilNs, reason});
}

std::optional<RateLimitHold::Hold> RateLimitHold::holdOn(const QString &host, qint64 nowNs)
{
    const auto it = m_holds.find(host);
    if (it == m_holds.end())
        return std::nullopt;
    if (it->untilNs <= nowNs) {
        m_holds.erase(it);
        return std::nullopt;
    }
    return *it;
}

} // namespace RetryLab::Core
