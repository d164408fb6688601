#include "core/policy/retrylayers.h"

#include "core/policy/backoff.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core::RetryLayers {

namespace {

struct Pass
{
    qint64 attempts = 0;
    double elapsedMs = 0.0;
    bool boundByDeadline = false;
};

// One layer whose every call below fails after `callMs`: the attempts it makes
// and when it gives up, with the delays at their least (`fast`) or most.
Pass giveUp(const BackoffPolicy &p, double callMs, bool fast)
{
    if (p.attemptTimeoutMs > 0.0)
        callMs = std::min(callMs, p.attemptTimeoutMs);
    const qint64 limit = p.maxAttempts > 0 ? p.maxAttempts : maxCountedAttempts;
    const qint64 retries = p.algorithm == BackoffAlgorithm::Immediate ? 1 : limit - 1;
    Pass pass;
    for (qint64 n = 0;; ++n) {
        ++pass.attempts;
        pass.elapsedMs += callMs;
        if (p.deadlineMs > 0.0 && pass.elapsedMs >= p.deadlineMs) {
            // The deadline cuts the attempt in flight.
            pass.elapsedMs = p.deadlineMs;
            pass.boundByDeadline = true;
            break;
        }
        if (n >= retries || pass.attempts >= maxCountedAttempts)
            break;
        const Backoff::Range range = Backoff::delayRange(p, n);
        const double wait = fast ? range.minMs : range.maxMs;
        // The planner gives up rather than sleep past the deadline.
        if (p.deadlineMs > 0.0 && pass.elapsedMs + wait >= p.deadlineMs) {
            pass.boundByDeadline = true;
            break;
        }
        pass.elapsedMs += wait;
    }
    return pass;
}

QString count(double n)
{
    return n == std::floor(n) && n < 1e15 ? QString::number(qint64(n)) : QString::number(n, 'g', 6);
}

} // namespace

Result compute(const QList<BackoffPolicy> &layers, const Assumptions &a)
{
    Result result;
    const double p = std::clamp(std::isfinite(a.failureProbability) ? a.failureProbability : 1.0, 0.0, 1.0);
    double fastCall = std::max(0.0, a.failureMs);
    double slowCall = fastCall;
    double expected = 1.0; // server attempts per call into the layer below
    double failing = p; // probability that a call into the layer below fails
    double worst = 1.0;
    qint64 mostAlone = 1;
    result.layers.resize(layers.size());
    // From the server outwards: each layer's calls are the whole sequence below.
    for (qsizetype i = layers.size() - 1; i >= 0; --i) {
        const BackoffPolicy &policy = layers.at(i);
        const Pass fast = giveUp(policy, fastCall, true);
        const Pass slow = giveUp(policy, slowCall, false);
        LayerFigures &figures = result.layers[i];
        figures.name = policy.name;
        figures.maxAttempts = fast.attempts;
        figures.boundByDeadline = fast.boundByDeadline || policy.maxAttempts <= 0;
        figures.minGiveUpMs = fast.elapsedMs;
        figures.maxGiveUpMs = slow.elapsedMs;
        mostAlone = std::max(mostAlone, fast.attempts);

        worst *= double(fast.attempts);
        // A call into this layer makes attempt k (k = 0, 1, ...) only when the k before failed.
        double calls = 0.0;
        double term = 1.0;
        for (qint64 k = 0; k < fast.attempts && term > 0.0; ++k) {
            calls += term;
            term *= failing;
        }
        expected *= calls;
        failing = std::pow(failing, double(fast.attempts));
        fastCall = fast.elapsedMs;
        slowCall = slow.elapsedMs;
    }
    result.worstCaseServerAttempts = worst;
    result.expectedServerAttempts = expected;
    result.failureProbability = failing;
    result.worstCaseGiveUpMs = slowCall;
    result.amplification = worst / double(mostAlone);
    result.exceedsThreshold = worst > a.threshold;
    if (result.exceedsThreshold) {
        result.warning = Tr::tr("When the server fails, one user action sends up to %1 attempts, %2 times what the "
                                "busiest layer alone would send: the layers multiply. Retry in one layer (usually "
                                "the one closest to the user) and let the others fail fast.")
                             .arg(count(worst), QString::number(result.amplification, 'f', 1));
    }
    return result;
}

QString describe(const Result &result, const Assumptions &a)
{
    QStringList lines;
    for (qsizetype i = 0; i < result.layers.size(); ++i) {
        const LayerFigures &l = result.layers.at(i);
        lines.append(
            Tr::tr("layer %1 %2: up to %3 attempts%4, gives up after %5 to %6")
                .arg(i + 1)
                .arg(l.name, count(double(l.maxAttempts)), l.boundByDeadline ? Tr::tr(" (its deadline)") : QString(),
                    DurationText::format(l.minGiveUpMs), DurationText::format(l.maxGiveUpMs)));
    }
    lines.append(Tr::tr("attempts at the server per user action: at most %1; expected %2 when each attempt fails "
                        "with probability %3")
                     .arg(count(result.worstCaseServerAttempts))
                     .arg(result.expectedServerAttempts, 0, 'f', 3)
                     .arg(a.failureProbability));
    lines.append(Tr::tr("the user action still fails with probability %1; the longest wait before it gives up: %2")
                     .arg(result.failureProbability, 0, 'g', 4)
                     .arg(DurationText::format(result.worstCaseGiveUpMs)));
    if (!result.warning.isEmpty())
        lines.append(Tr::tr("warning: %1").arg(result.warning));
    return lines.join(QLatin1Char('\n'));
}

} // namespace RetryLab::Core::RetryLayers
