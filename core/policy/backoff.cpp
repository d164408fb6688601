#include "core/policy/backoff.h"

#include "core/util/randomsource.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace RetryLab::Core::Backoff {

namespace {

// Clamps into [0, cap] and maps NaN to 0, so no formula can leak a bad value.
double clampDelay(double value, double cap)
{
    if (!(value > 0.0))
        return 0.0;
    return std::min(value, cap);
}

double safeCap(const BackoffPolicy &p)
{
    if (!(p.maxBackoffMs > 0.0))
        return 0.0;
    return std::isfinite(p.maxBackoffMs) ? p.maxBackoffMs : PolicyLimits::maxDelayMs;
}

double safeBase(const BackoffPolicy &p)
{
    return (p.baseDelayMs > 0.0 && std::isfinite(p.baseDelayMs)) ? p.baseDelayMs : 0.0;
}

double safeJitterMs(const BackoffPolicy &p)
{
    return (p.jitterMs > 0.0 && std::isfinite(p.jitterMs)) ? std::min(p.jitterMs, PolicyLimits::maxDelayMs) : 0.0;
}

double safeFraction(const BackoffPolicy &p)
{
    return (p.jitterFraction > 0.0) ? std::min(p.jitterFraction, 1.0) : 0.0;
}

// base * multiplier^n without ever overflowing: past the cap the exponent stops.
double growth(double base, double multiplier, qint64 n, double cap)
{
    if (base <= 0.0)
        return 0.0;
    if (n <= 0)
        return std::min(base, cap);
    if (!(multiplier > 1.0) || !std::isfinite(multiplier))
        return std::min(base, cap);
    // log-space test first: base * m^n > cap  <=>  log(base) + n*log(m) > log(cap)
    const double logValue = std::log(base) + static_cast<double>(n) * std::log(multiplier);
    if (cap <= 0.0 || logValue >= std::log(cap))
        return cap;
    return std::min(cap, base * std::pow(multiplier, static_cast<double>(n)));
}

// The constant or linear interval v, randomised as the policy's interval jitter says.
double jitteredInterval(const BackoffPolicy &p, double v, double cap, RandomSource &random)
{
    switch (p.intervalJitter) {
    case IntervalJitter::None:
        break;
    case IntervalJitter::Full:
        return clampDelay(random.uniform(0.0, v), cap);
    case IntervalJitter::Equal:
        return clampDelay(v / 2.0 + random.uniform(0.0, v / 2.0), cap);
    case IntervalJitter::Proportional: {
        const double f = safeFraction(p);
        return clampDelay(v * random.uniform(1.0 - f, 1.0 + f), cap);
    }
    }
    return clampDelay(v, cap);
}

Range intervalRange(const BackoffPolicy &p, double v, double cap)
{
    v = clampDelay(v, cap);
    switch (p.intervalJitter) {
    case IntervalJitter::None:
        break;
    case IntervalJitter::Full:
        return {0.0, v};
    case IntervalJitter::Equal:
        return {v / 2.0, v};
    case IntervalJitter::Proportional: {
        const double f = safeFraction(p);
        return {clampDelay(v * (1.0 - f), cap), clampDelay(v * (1.0 + f), cap)};
    }
    }
    return {v, v};
}

} // namespace

double exponentialTermMs(const BackoffPolicy &p, qint64 retryIndex)
{
    const double cap = safeCap(p);
    return growth(safeBase(p), p.multiplier, std::max<qint64>(0, retryIndex), cap);
}

double delayMs(const BackoffPolicy &p, qint64 retryIndex, double previousDelayMs, RandomSource &random)
{
    const qint64 n = std::max<qint64>(0, retryIndex);
    const double cap = safeCap(p);
    const double base = safeBase(p);

    switch (p.algorithm) {
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential: {
        // The exponential term itself is not capped first: the cap applies to the sum,
        // exactly as min(2^n + random, maximum_backoff) in the seeds.
        const double term = growth(base, p.multiplier, n, cap);
        return clampDelay(term + random.uniform(0.0, safeJitterMs(p)), cap);
    }
    case BackoffAlgorithm::Exponential:
        return clampDelay(growth(base, p.multiplier, n, cap), cap);
    case BackoffAlgorithm::FullJitter:
        return clampDelay(random.uniform(0.0, growth(base, p.multiplier, n, cap)), cap);
    case BackoffAlgorithm::EqualJitter: {
        const double v = growth(base, p.multiplier, n, cap);
        return clampDelay(v / 2.0 + random.uniform(0.0, v / 2.0), cap);
    }
    case BackoffAlgorithm::DecorrelatedJitter: {
        const double previous = (previousDelayMs >= base && std::isfinite(previousDelayMs)) ? previousDelayMs : base;
        const double upper = std::min(previous * 3.0, std::max(cap, base) * 3.0);
        return clampDelay(random.uniform(base, upper), cap);
    }
    case BackoffAlgorithm::ProportionalJitter: {
        const double v = growth(base, p.multiplier, n, cap);
        const double f = safeFraction(p);
        return clampDelay(v * random.uniform(1.0 - f, 1.0 + f), cap);
    }
    case BackoffAlgorithm::Constant:
        return jitteredInterval(p, clampDelay(base, cap), cap, random);
    case BackoffAlgorithm::Linear: {
        // (n + 1) * base, computed in double: n up to 2^63 stays finite.
        const double v = (static_cast<double>(n) + 1.0) * base;
        return jitteredInterval(p, clampDelay(v, cap), cap, random);
    }
    case BackoffAlgorithm::Immediate:
        return 0.0;
    }
    return 0.0;
}

Range delayRange(const BackoffPolicy &p, qint64 retryIndex)
{
    const qint64 n = std::max<qint64>(0, retryIndex);
    const double cap = safeCap(p);
    const double base = safeBase(p);
    switch (p.algorithm) {
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential: {
        const double term = growth(base, p.multiplier, n, cap);
        return {clampDelay(term, cap), clampDelay(term + safeJitterMs(p), cap)};
    }
    case BackoffAlgorithm::Exponential: {
        const double v = clampDelay(growth(base, p.multiplier, n, cap), cap);
        return {v, v};
    }
    case BackoffAlgorithm::FullJitter:
        return {0.0, clampDelay(growth(base, p.multiplier, n, cap), cap)};
    case BackoffAlgorithm::EqualJitter: {
        const double v = clampDelay(growth(base, p.multiplier, n, cap), cap);
        return {v / 2.0, v};
    }
    case BackoffAlgorithm::DecorrelatedJitter: {
        // The upper bound grows as base * 3^(n+1): the largest previous value times 3.
        // n + 1 would overflow at the largest index; far beyond the cap either way.
        const qint64 exponent = n < std::numeric_limits<qint64>::max() ? n + 1 : n;
        const double upper = growth(base, 3.0, exponent, std::max(cap, base) * 3.0);
        return {clampDelay(base, cap), clampDelay(upper, cap)};
    }
    case BackoffAlgorithm::ProportionalJitter: {
        const double v = growth(base, p.multiplier, n, cap);
        const double f = safeFraction(p);
        return {clampDelay(v * (1.0 - f), cap), clampDelay(v * (1.0 + f), cap)};
    }
    case BackoffAlgorithm::Constant:
        return intervalRange(p, base, cap);
    case BackoffAlgorithm::Linear:
        return intervalRange(p, (static_cast<double>(n) + 1.0) * base, cap);
    case BackoffAlgorithm::Immediate:
        return {0.0, 0.0};
    }
    return {};
}

double scaledDelayMs(const BackoffPolicy &p, double delayMs, double factor)
{
    if (!(factor >= 0.0) || !std::isfinite(factor))
        return delayMs;
    return clampDelay(delayMs * factor, std::max(safeCap(p), delayMs));
}

double Sequence::next(RandomSource &random)
{
    const double d = delayMs(*m_policy, m_retryIndex, m_previousMs, random);
    m_previousMs = d;
    ++m_retryIndex;
    return d;
}

} // namespace RetryLab::Core::Backoff

namespace RetryLab::Core {

int plannedRetries(const BackoffPolicy &policy, int displayLimit)
{
    if (policy.maxAttempts > 0)
        return std::clamp(policy.maxAttempts - 1, 0, std::min(displayLimit, maxPreviewRetries));
    return std::clamp(displayLimit, 0, maxPreviewRetries);
}

SchedulePreview previewSchedule(const BackoffPolicy &policy, int retries, int sampleCount, quint64 seed)
{
    SchedulePreview preview;
    const int count = std::clamp(retries, 0, maxPreviewRetries);
    preview.truncatedByDisplayLimit = retries > maxPreviewRetries;
    preview.envelope.reserve(count);

    double cumMin = 0.0;
    double cumMax = 0.0;
    for (int n = 0; n < count; ++n) {
        const auto range = Backoff::delayRange(policy, n);
        cumMin += range.minMs;
        cumMax += range.maxMs;
        preview.envelope.append({n, range.minMs, range.maxMs, cumMin, cumMax});
        if (policy.deadlineMs > 0.0 && cumMin <= policy.deadlineMs)
            preview.retriesWithinDeadline = n + 1;
    }
    if (policy.deadlineMs > 0.0 && preview.retriesWithinDeadline < 0)
        preview.retriesWithinDeadline = 0;

    const int samples = std::clamp(sampleCount, 0, 100);
    for (int k = 0; k < samples; ++k) {
        RandomSource random(seed + static_cast<quint64>(k));
        Backoff::Sequence sequence(policy);
        QList<double> schedule;
        schedule.reserve(count);
        for (int n = 0; n < count; ++n)
            schedule.append(sequence.next(random));
        preview.samples.append(schedule);
    }
    return preview;
}

} // namespace RetryLab::Core
