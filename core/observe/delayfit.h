#pragma once

#include "core/observe/policyinference.h"

#include <QList>
#include <QPair>
#include <QString>

namespace RetryLab::Core {

/// The numeric half of PolicyInference: from the delays a client waited before
/// each retry (across its logical requests), the growth, base, multiplier, cap
/// and jitter kind. Jitter is read from how the delays of one retry index spread
/// across logical requests; the growth from a robust level per index that
/// depends on the jitter (the top of the band for full and equal jitter, its
/// bottom for additive, its middle for proportional), so that full jitter's
/// median at half the term does not halve the base.
namespace DelayFit {

struct Samples
{
    /// byIndex[n]: the delays before retry n (n = 0 for the second attempt).
    QList<QList<double>> byIndex;
    /// (delay before retry n, delay before retry n+1) of the same logical request.
    QList<QPair<double, double>> consecutive;
    int total = 0;
    /// How far this machine's timers and scheduling move a delay (ms): delays
    /// of one retry index that differ by no more than this are not jitter.
    double timingNoiseMs = 0.0;

    void add(int retryIndex, double delayMs, double previousDelayMs);
};

/// Fills delays, growth, base, multiplier, cap, jitter (with confidences),
/// additiveJitterMs, jitterFraction and firstRetryImmediate. Linear in the
/// samples apart from sorting each index.
void fit(const Samples &samples, InferredPolicy &policy);

/// How sure a finding from `count` samples is (0 to 1), scaled by how well they fit (`quality`).
double confidenceFromCount(int count, double quality = 1.0);

} // namespace DelayFit

} // namespace RetryLab::Core
