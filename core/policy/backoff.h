#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>

namespace RetryLab::Core {

class RandomSource;

/// The delay formulas (README, "Backoff algorithms") as pure functions. Every other part of
/// RetryLab (executor, simulator, preview) calls these; none has its own copy.
namespace Backoff {

/// The smallest and largest delay that retry `retryIndex` can draw.
struct Range
{
    double minMs = 0.0;
    double maxMs = 0.0;
};

/// Delay in milliseconds before retry `retryIndex` (0 for the first retry).
/// `previousDelayMs` is the delay drawn before the previous retry (decorrelated
/// jitter uses it; pass a negative value or nothing for the first retry).
/// The result is finite, never negative and never above the policy's cap, for
/// any retry index, including 1024 and 10^6.
double delayMs(const BackoffPolicy &policy, qint64 retryIndex, double previousDelayMs, RandomSource &random);

/// The un-jittered exponential term min(cap, base * multiplier^n), overflow-safe.
double exponentialTermMs(const BackoffPolicy &policy, qint64 retryIndex);

/// Bounds that delayMs() can reach for this retry index, whatever came before.
Range delayRange(const BackoffPolicy &policy, qint64 retryIndex);

/// A delay times a fault class's factor (ClassificationRules::networkDelayFactors),
/// still never above the cap.
double scaledDelayMs(const BackoffPolicy &policy, double delayMs, double factor);

/// Stateful helper that remembers the previous delay for decorrelated jitter.
class Sequence
{
public:
    explicit Sequence(const BackoffPolicy &policy) : m_policy(&policy) { }

    double next(RandomSource &random);
    qint64 retryIndex() const { return m_retryIndex; }
    double previousDelayMs() const { return m_previousMs; }

private:
    const BackoffPolicy *m_policy;
    qint64 m_retryIndex = 0;
    double m_previousMs = -1.0;
};

} // namespace Backoff

/// What the GUI draws before anything is sent: per retry index the band jitter
/// can reach, its cumulative sum, and a few sampled schedules.
struct SchedulePreview
{
    struct Point
    {
        qint64 retryIndex = 0;
        double minMs = 0.0;
        double maxMs = 0.0;
        double cumulativeMinMs = 0.0;
        double cumulativeMaxMs = 0.0;
    };
    QList<Point> envelope;
    QList<QList<double>> samples; ///< samples[k][n]: delay before retry n of sample k
    /// Retries that can be planned under the deadline at best (the minimum delays).
    qint64 retriesWithinDeadline = -1;
    bool truncatedByDisplayLimit = false;
};

/// Builds the preview for `retries` retry indexes (at most maxPreviewRetries),
/// with `sampleCount` schedules drawn from generators seeded seed, seed+1, ...
SchedulePreview previewSchedule(const BackoffPolicy &policy, int retries, int sampleCount, quint64 seed);

/// Retries a policy allows: maxAttempts - 1, or a display limit when only a deadline bounds it.
int plannedRetries(const BackoffPolicy &policy, int displayLimit = 64);

inline constexpr int maxPreviewRetries = 1000;

} // namespace RetryLab::Core
