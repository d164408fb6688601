#include "core/export/randomizedbackoff.h"

#include "core/export/sourcetext.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcRandomizedBackOff, "retrylab.core.randomizedbackoff")
} // namespace

namespace RetryLab::Core::RandomizedBackOff {

namespace {

using SourceText::number;

// A draw from v * [1 - r, 1 + r] with v scaled by `scale` and r = `factor`.
void scaled(Parameters &out, double baseMs, double capMs, double scale, double factor)
{
    out.initialMs = baseMs * scale;
    out.maxIntervalMs = capMs * scale;
    out.randomizationFactor = factor;
}

void intervalJitter(Parameters &out, const BackoffPolicy &p, double v, const QString &library)
{
    switch (p.intervalJitter) {
    case IntervalJitter::None:
        scaled(out, v, v, 1.0, 0.0);
        break;
    case IntervalJitter::Full:
        scaled(out, v, v, 0.5, 1.0);
        break;
    case IntervalJitter::Equal:
        scaled(out, v, v, 0.75, 1.0 / 3.0);
        break;
    case IntervalJitter::Proportional:
        scaled(out, v, v, 1.0, std::clamp(p.jitterFraction, 0.0, 1.0));
        if (v * (1.0 + p.jitterFraction) > p.maxBackoffMs) {
            out.notes.append(Tr::tr("%1 does not cap the jittered wait at %2 ms as the policy does.")
                                 .arg(library, number(p.maxBackoffMs)));
        }
        break;
    }
}

} // namespace

Parameters fromPolicy(const BackoffPolicy &p, const Limits &limits, const QString &library)
{
    Parameters out;
    out.multiplier = p.multiplier;
    switch (p.algorithm) {
    case BackoffAlgorithm::Exponential:
        scaled(out, p.baseDelayMs, p.maxBackoffMs, 1.0, 0.0);
        break;
    case BackoffAlgorithm::DecorrelatedJitter:
        out.notes.append(Tr::tr("%1 has no decorrelated jitter; the export waits U[0, min(cap, base * "
                                "multiplier^n)] with the policy's base and cap.")
                             .arg(library));
        [[fallthrough]];
    case BackoffAlgorithm::FullJitter:
        scaled(out, p.baseDelayMs, p.maxBackoffMs, 0.5, 1.0);
        break;
    case BackoffAlgorithm::EqualJitter:
        scaled(out, p.baseDelayMs, p.maxBackoffMs, 0.75, 1.0 / 3.0);
        break;
    case BackoffAlgorithm::ProportionalJitter:
        scaled(out, p.baseDelayMs, p.maxBackoffMs, 1.0, std::clamp(p.jitterFraction, 0.0, 1.0));
        out.notes.append(Tr::tr("%1 caps the wait before it draws the jitter, so a wait near the cap may pass it by up "
                                "to %2 %.")
                             .arg(library, number(out.randomizationFactor * 100.0)));
        break;
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
        scaled(out, p.baseDelayMs, p.maxBackoffMs, 1.0, 0.0);
        out.notes.append(Tr::tr("%1 cannot add the policy's random 0-%2 ms to the exponential wait; it waits the "
                                "exponential term alone.")
                             .arg(library, number(p.jitterMs)));
        break;
    case BackoffAlgorithm::Linear:
        out.notes.append(Tr::tr("%1 cannot grow the wait linearly; every wait is %2 ms.")
                             .arg(library, number(std::min(p.baseDelayMs, p.maxBackoffMs))));
        [[fallthrough]];
    case BackoffAlgorithm::Constant:
        out.multiplier = 1.0;
        intervalJitter(out, p, std::min(p.baseDelayMs, p.maxBackoffMs), library);
        break;
    case BackoffAlgorithm::Immediate:
        out.multiplier = 1.0;
        scaled(out, 0.0, 0.0, 1.0, 0.0);
        break;
    }

    if (out.randomizationFactor > limits.largestFactor) {
        out.notes.append(Tr::tr("%1 needs a randomization factor below 1: %2 became %3, so the shortest wait is a "
                                "little above zero.")
                             .arg(library, number(out.randomizationFactor), number(limits.largestFactor)));
        out.randomizationFactor = limits.largestFactor;
    }
    if (out.initialMs < limits.smallestInitialMs) {
        out.notes.append(Tr::tr("%1 needs an initial interval of at least %2 ms; it was written.")
                             .arg(library, number(limits.smallestInitialMs)));
        out.initialMs = limits.smallestInitialMs;
    }
    out.maxIntervalMs = std::max(out.maxIntervalMs, out.initialMs);
    if (out.multiplier < limits.smallestMultiplier) {
        out.notes.append(Tr::tr("%1 needs a multiplier of at least %2: %3 became %2.")
                             .arg(library, number(limits.smallestMultiplier), number(out.multiplier)));
        out.multiplier = limits.smallestMultiplier;
    }
    qCDebug(lcRandomizedBackOff) << p.name << library << out.initialMs << out.randomizationFactor << out.multiplier
                                 << out.maxIntervalMs;
    return out;
}

} // namespace RetryLab::Core::RandomizedBackOff
