#include "core/policy/adaptiveratelimiter.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace RetryLab::Core {

namespace {

constexpr double bucketSeconds = 0.5; // the measured rate's time buckets
constexpr double smoothing = 0.8; // the weight of the newest bucket
constexpr double maxRateScale = 2.0; // the fill rate stays below twice the measured rate

} // namespace

AdaptiveRateLimiter::AdaptiveRateLimiter(RateLimiterSettings settings, double startMs)
    : m_settings(settings), m_lastRefillS(startMs / 1000.0), m_lastBucketS(std::floor(startMs / 1000.0)),
      m_lastThrottleS(startMs / 1000.0)
{
    m_fillRate = std::max(m_fillRate, m_settings.minRate);
}

bool AdaptiveRateLimiter::isThrottling(std::optional<int> status, QByteArrayView body)
{
    if (!status || *status < 400)
        return false;
    if (*status == 429)
        return true;
    static constexpr std::array<const char *, 12> codes{"Throttling", "ThrottledException", "RequestThrottled",
        "TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
        "RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "SlowDown",
        "PriorRequestNotComplete", "EC2ThrottledException"};
    const QByteArrayView head = body.first(std::min<qsizetype>(body.size(), 4096));
    return std::any_of(codes.cbegin(), codes.cend(), [head](const char *code) { return head.contains(code); });
}

double AdaptiveRateLimiter::acquireDelayMs(double nowMs)
{
    if (!active() || !m_enabled)
        return 0.0;
    refill(nowMs / 1000.0);
    m_tokens -= 1.0;
    return m_tokens >= 0.0 ? 0.0 : -m_tokens / m_fillRate * 1000.0;
}

void AdaptiveRateLimiter::onResponse(double nowMs, bool throttled)
{
    if (!active())
        return;
    const double now = nowMs / 1000.0;
    const double measured = measure(now);
    double rate = 0.0;
    if (throttled) {
        const double rateToUse = m_enabled ? std::min(measured, m_fillRate) : measured;
        m_lastMax = rateToUse;
        m_k = std::cbrt(m_lastMax * (1.0 - m_settings.beta) / m_settings.scale);
        m_lastThrottleS = now;
        rate = rateToUse * m_settings.beta;
        m_enabled = true;
    } else {
        rate = m_settings.scale * std::pow(now - m_lastThrottleS - m_k, 3.0) + m_lastMax;
    }
    setFillRate(std::min(rate, maxRateScale * measured), now);
}

double AdaptiveRateLimiter::measure(double nowS)
{
    const double bucket = std::floor(nowS / bucketSeconds) * bucketSeconds;
    ++m_count;
    if (bucket > m_lastBucketS) {
        const double current = m_count / (bucket - m_lastBucketS);
        m_measured = current * smoothing + m_measured * (1.0 - smoothing);
        m_count = 0;
        m_lastBucketS = bucket;
    }
    return m_measured;
}

void AdaptiveRateLimiter::refill(double nowS)
{
    // Time going backwards (another clock's origin) adds nothing.
    const double elapsed = std::max(0.0, nowS - m_lastRefillS);
    m_tokens = std::min(m_capacity, m_tokens + elapsed * m_fillRate);
    m_lastRefillS = std::max(m_lastRefillS, nowS);
}

void AdaptiveRateLimiter::setFillRate(double rate, double nowS)
{
    // What accumulated so far, at the rate it accumulated at.
    refill(nowS);
    m_fillRate = std::max(rate, m_settings.minRate);
    m_capacity = std::max(rate, 1.0);
    m_tokens = std::min(m_tokens, m_capacity);
}

} // namespace RetryLab::Core
