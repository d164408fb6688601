#include "core/observe/policyinference.h"

#include "core/observe/delayfit.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QHash>
#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

using DelayFit::confidenceFromCount;

bool isMethodIdempotent(const QByteArray &method)
{
    return method != "POST" && method != "PATCH";
}

bool isConnectionCut(const QString &action)
{
    return action == QLatin1String("reset") || action == QLatin1String("reset-after-headers")
        || action == QLatin1String("empty") || action == QLatin1String("broken-stream")
        || action == QLatin1String("garbage");
}

Finding finding(std::optional<bool> value, int evidenceCount, QString evidence)
{
    Finding f;
    f.value = value;
    f.evidence = evidence;
    f.confidence.value = value ? confidenceFromCount(evidenceCount) : 0.0;
    f.confidence.evidence = std::move(evidence);
    return f;
}

/// Where the client gave up: logical requests that never succeeded and that it left.
void inferLimit(const QList<LogicalRequest> &requests, InferredPolicy &p)
{
    QHash<int, int> announced;
    for (const LogicalRequest &r : requests) {
        for (const ObservedAttempt &a : r.attempts) {
            if (a.sdkMaxAttempts && *a.sdkMaxAttempts > 0)
                ++announced[*a.sdkMaxAttempts];
        }
    }
    if (!announced.isEmpty()) {
        int best = 0;
        int count = 0;
        for (auto it = announced.cbegin(); it != announced.cend(); ++it) {
            if (it.value() > count) {
                best = it.key();
                count = it.value();
            }
        }
        p.maxAttempts = best;
        p.maxAttemptsConfidence = {0.95, Tr::tr("announced by the client: max=%1 in %2 attempts").arg(best).arg(count)};
        return;
    }

    // A logical request the client left without success: closed by the grouping,
    // or followed by a later one of the same client. The last one counts too
    // when its last attempt was answered, with less weight.
    QHash<int, int> gaveUpAt;
    int gaveUp = 0;
    int longestSucceeded = 0;
    double longestElapsed = 0.0;
    double shortestElapsed = -1.0;
    QList<double> elapsedTimes;
    for (qsizetype i = 0; i < requests.size(); ++i) {
        const LogicalRequest &r = requests[i];
        if (r.attempts.isEmpty())
            continue;
        if (r.succeeded()) {
            longestSucceeded = std::max(longestSucceeded, int(r.attempts.size()));
            continue;
        }
        const bool left = !r.closedBy.isEmpty() || i + 1 < requests.size();
        if (!left || !r.attempts.last().complete || r.attempts.last().permanentFault())
            continue;
        ++gaveUpAt[int(r.attempts.size())];
        ++gaveUp;
        const double elapsed = r.attempts.last().endMs - r.attempts.first().arrivalMs;
        elapsedTimes.append(elapsed);
        longestElapsed = std::max(longestElapsed, elapsed);
        shortestElapsed = shortestElapsed < 0 ? elapsed : std::min(shortestElapsed, elapsed);
    }
    if (gaveUp == 0) {
        if (longestSucceeded > 1) {
            p.maxAttemptsConfidence = {0.0,
                Tr::tr("never seen giving up; it made up to %1 attempts and then succeeded").arg(longestSucceeded)};
        } else {
            p.maxAttemptsConfidence = {0.0, Tr::tr("never seen giving up")};
        }
        return;
    }
    std::sort(elapsedTimes.begin(), elapsedTimes.end());
    p.giveUpElapsedMs = elapsedTimes[elapsedTimes.size() / 2];
    int mode = 0;
    int modeCount = 0;
    for (auto it = gaveUpAt.cbegin(); it != gaveUpAt.cend(); ++it) {
        if (it.value() > modeCount || (it.value() == modeCount && it.key() > mode)) {
            mode = it.key();
            modeCount = it.value();
        }
    }
    const double agreement = double(modeCount) / gaveUp;
    if (agreement >= 0.75) {
        p.maxAttempts = mode;
        p.maxAttemptsConfidence = {confidenceFromCount(gaveUp, agreement),
            Tr::tr("gave up after %1 attempts in %2 of %3 logical requests that never succeeded")
                .arg(mode)
                .arg(modeCount)
                .arg(gaveUp)};
        return;
    }
    // The attempt counts differ: a deadline decides, if the time spent agrees.
    if (shortestElapsed > 0 && longestElapsed <= shortestElapsed * 1.5 + 50.0) {
        p.deadlineMs = longestElapsed;
        p.maxAttemptsConfidence = {0.0,
            Tr::tr("gave up after different numbers of attempts but after %1 to %2 each: a deadline, not a count")
                .arg(DurationText::format(shortestElapsed), DurationText::format(longestElapsed))};
        return;
    }
    int most = 0;
    for (auto it = gaveUpAt.cbegin(); it != gaveUpAt.cend(); ++it)
        most = std::max(most, it.key());
    p.maxAttempts = most;
    p.maxAttemptsConfidence = {0.3 * agreement,
        Tr::tr("gave up after different numbers of attempts (most often %1, at most %2)").arg(mode).arg(most)};
}

void inferBehaviour(const QList<LogicalRequest> &requests, InferredPolicy &p)
{
    // Retry-After: every retry that followed one waits at least as long.
    int retryAfterSeen = 0;
    int retryAfterKept = 0;
    double shortestRatio = -1.0;
    QString retryAfterExample;
    // Faults served, and whether another attempt followed.
    int unsafeServed = 0;
    int unsafeRetried = 0;
    int permanentServed = 0;
    int permanentRetried = 0;
    int notFoundRetried = 0;
    int cutServed = 0;
    int cutRetried = 0;
    int stallServed = 0;
    int stallRetried = 0;
    QList<double> stallWaits;
    QString permanentExample;

    for (const LogicalRequest &r : requests) {
        const bool keyed = r.rule == GroupingRule::IdempotencyKey;
        for (qsizetype i = 0; i < r.attempts.size(); ++i) {
            const ObservedAttempt &a = r.attempts[i];
            if (!a.complete)
                continue;
            const bool followed = i + 1 < r.attempts.size();
            const ObservedAttempt *next = followed ? &r.attempts[i + 1] : nullptr;
            if (a.retryAfterMs && next && next->delayMs) {
                ++retryAfterSeen;
                const double needed = *a.retryAfterMs;
                if (*next->delayMs + 50.0 >= needed)
                    ++retryAfterKept;
                else if (retryAfterExample.isEmpty())
                    retryAfterExample = Tr::tr("retried %1 after Retry-After: %2 s")
                                            .arg(DurationText::format(*next->delayMs))
                                            .arg(needed / 1000.0);
                const double ratio = needed > 0 ? *next->delayMs / needed : 1.0;
                shortestRatio = shortestRatio < 0 ? ratio : std::min(shortestRatio, ratio);
            }
            const bool failed = a.transientFault() || a.permanentFault();
            if (failed && !isMethodIdempotent(r.method) && !keyed && (followed || r.closedBy.size() > 0)) {
                ++unsafeServed;
                unsafeRetried += followed ? 1 : 0;
            }
            // 404 is not counted as permanent: IAM retries it on purpose (reads are
            // eventually consistent: a resource may not be visible right after it was made).
            if (a.status == 404 && followed)
                ++notFoundRetried;
            if (a.permanentFault() && a.status != 404 && (followed || !r.closedBy.isEmpty())) {
                ++permanentServed;
                if (followed) {
                    ++permanentRetried;
                    if (permanentExample.isEmpty())
                        permanentExample = Tr::tr("%1 %2 was retried after %3")
                                               .arg(QString::fromLatin1(r.method), r.target)
                                               .arg(*a.status);
                }
            }
            if (isConnectionCut(a.action) && (followed || !r.closedBy.isEmpty())) {
                ++cutServed;
                cutRetried += followed ? 1 : 0;
            }
            if (a.action == QLatin1String("stall") && (followed || !r.closedBy.isEmpty())) {
                ++stallServed;
                if (followed) {
                    ++stallRetried;
                    stallWaits.append(next->arrivalMs - a.arrivalMs);
                }
            }
        }
    }

    if (retryAfterSeen == 0) {
        p.honoursRetryAfter = finding(std::nullopt, 0, Tr::tr("no retry followed a Retry-After"));
    } else if (retryAfterKept == retryAfterSeen) {
        p.honoursRetryAfter = finding(true, retryAfterSeen,
            Tr::tr("%1 of %1 retries after a Retry-After waited at least as long (shortest: %2 of the value)")
                .arg(retryAfterSeen)
                .arg(shortestRatio, 0, 'f', 2));
    } else {
        p.honoursRetryAfter = finding(false, retryAfterSeen,
            Tr::tr("%1 of %2 retries after a Retry-After came sooner: %3")
                .arg(retryAfterSeen - retryAfterKept)
                .arg(retryAfterSeen)
                .arg(retryAfterExample));
    }

    if (unsafeServed == 0)
        p.retriesNonIdempotent = finding(std::nullopt, 0, Tr::tr("no POST or PATCH without an Idempotency-Key failed"));
    else
        p.retriesNonIdempotent = finding(unsafeRetried > 0, unsafeServed,
            Tr::tr("%1 of %2 failed POST/PATCH attempts without an Idempotency-Key were retried")
                .arg(unsafeRetried)
                .arg(unsafeServed));

    const QString notFound = notFoundRetried == 0
        ? QString()
        : Tr::tr(
            "; 404 was retried %n time(s), which IAM allows for eventually consistent reads", nullptr, notFoundRetried);
    if (permanentServed == 0)
        p.retriesPermanentErrors
            = finding(std::nullopt, 0, Tr::tr("no permanent error (400, 401, 403, ...) was served") + notFound);
    else
        p.retriesPermanentErrors = finding(permanentRetried > 0, permanentServed,
            (permanentRetried > 0 ? Tr::tr("%1 of %2 permanent errors were retried; %3")
                                        .arg(permanentRetried)
                                        .arg(permanentServed)
                                        .arg(permanentExample)
                                  : Tr::tr("none of %1 permanent errors was retried").arg(permanentServed))
                + notFound);

    if (cutServed == 0)
        p.retriesAfterReset = finding(std::nullopt, 0, Tr::tr("no connection was reset or closed without an answer"));
    else
        p.retriesAfterReset = finding(cutRetried > 0, cutServed,
            Tr::tr("retried after %1 of %2 resets or empty replies").arg(cutRetried).arg(cutServed));

    if (stallServed == 0) {
        p.retriesAfterStall = finding(std::nullopt, 0, Tr::tr("no answer was stalled"));
    } else {
        std::sort(stallWaits.begin(), stallWaits.end());
        if (!stallWaits.isEmpty())
            p.stallGiveUpMs = stallWaits[stallWaits.size() / 2];
        p.retriesAfterStall = finding(stallRetried > 0, stallServed,
            stallRetried > 0 ? Tr::tr("retried after %1 of %2 stalls, the next attempt %3 after the stalled one "
                                      "(its timeout and its delay)")
                                   .arg(stallRetried)
                                   .arg(stallServed)
                                   .arg(DurationText::format(*p.stallGiveUpMs))
                             : Tr::tr("did not retry after %1 stalls").arg(stallServed));
    }
}

/// Retries of logical requests that started together: do they come back together?
void inferWaves(const QList<LogicalRequest> &requests, InferredPolicy &p)
{
    // Bursts: logical requests whose first attempts arrived within 50 ms of the burst's first.
    QList<const LogicalRequest *> ordered;
    ordered.reserve(requests.size());
    for (const LogicalRequest &r : requests) {
        if (r.attempts.size() >= 2)
            ordered.append(&r);
    }
    std::sort(ordered.begin(), ordered.end(),
        [](const LogicalRequest *a, const LogicalRequest *b) { return a->firstArrivalMs() < b->firstArrivalMs(); });
    int aligned = 0;
    int spread = 0;
    int bursts = 0;
    double widest = 0.0;
    for (qsizetype start = 0; start < ordered.size();) {
        qsizetype end = start + 1;
        while (end < ordered.size() && ordered[end]->firstArrivalMs() - ordered[start]->firstArrivalMs() <= 50.0)
            ++end;
        if (end - start >= 3) {
            ++bursts;
            // Compare the arrival of each retry across the burst with its typical delay.
            for (int n = 1;; ++n) {
                double first = -1.0;
                double last = -1.0;
                double typicalDelay = 0.0;
                int count = 0;
                for (qsizetype k = start; k < end; ++k) {
                    const auto &attempts = ordered[k]->attempts;
                    if (n >= attempts.size())
                        continue;
                    const double t = attempts[n].arrivalMs - ordered[start]->firstArrivalMs();
                    first = count == 0 ? t : std::min(first, t);
                    last = count == 0 ? t : std::max(last, t);
                    typicalDelay += attempts[n].delayMs.value_or(0.0);
                    ++count;
                }
                if (count < 3)
                    break;
                typicalDelay /= count;
                const double width = last - first;
                widest = std::max(widest, width);
                if (width <= std::max(10.0, 0.1 * typicalDelay) + 50.0 && typicalDelay > 0.0)
                    ++aligned;
                else
                    ++spread;
            }
        }
        start = end;
    }
    if (bursts == 0 || aligned + spread == 0) {
        p.waves = finding(std::nullopt, 0, Tr::tr("no logical requests started together, so no wave could form"));
        return;
    }
    const bool waves = aligned > spread;
    p.waves = finding(waves, aligned + spread,
        waves ? Tr::tr("in %1 of %2 retry rounds of requests that started together the retries arrived together: "
                       "a herd")
                    .arg(aligned)
                    .arg(aligned + spread)
              : Tr::tr("retries of requests that started together spread out (%1 of %2 rounds, widest %3)")
                    .arg(spread)
                    .arg(aligned + spread)
                    .arg(DurationText::format(widest)));
}

} // namespace

InferredPolicy PolicyInference::infer(const QList<LogicalRequest> &requests, double timingNoiseMs)
{
    InferredPolicy p;
    p.logicalRequests = int(requests.size());

    // Delays per retry index, leaving out those that measure something else: after
    // a Retry-After (the server chose the wait) and after a stall (the client's timeout).
    DelayFit::Samples samples;
    samples.timingNoiseMs = std::max(0.0, timingNoiseMs);
    for (const LogicalRequest &r : requests) {
        if (r.attempts.size() > 1)
            ++p.retriedLogicalRequests;
        double previous = -1.0;
        for (qsizetype i = 1; i < r.attempts.size(); ++i) {
            const ObservedAttempt &before = r.attempts[i - 1];
            const ObservedAttempt &a = r.attempts[i];
            if (!a.delayMs || before.retryAfterMs || before.action == QLatin1String("stall") || !before.complete
                || !std::isfinite(*a.delayMs)) {
                previous = -1.0;
                continue;
            }
            samples.add(int(i - 1), *a.delayMs, previous);
            previous = *a.delayMs;
        }
    }
    DelayFit::fit(samples, p);
    if (p.delays.isEmpty() && p.retriedLogicalRequests > 0) {
        const QString why = Tr::tr("every retry seen followed a Retry-After or a stall, so its wait was the server's "
                                   "or the client's timeout, not its backoff");
        p.growthConfidence.evidence = why;
        p.jitterConfidence.evidence = why;
    }
    inferLimit(requests, p);
    inferBehaviour(requests, p);
    inferWaves(requests, p);
    return p;
}

QString PolicyInference::growthName(Growth growth)
{
    switch (growth) {
    case Growth::Unknown:
        return QStringLiteral("unknown");
    case Growth::None:
        return QStringLiteral("none");
    case Growth::Constant:
        return QStringLiteral("constant");
    case Growth::Linear:
        return QStringLiteral("linear");
    case Growth::Exponential:
        return QStringLiteral("exponential");
    }
    return QStringLiteral("unknown");
}

QString PolicyInference::jitterName(JitterKind jitter)
{
    switch (jitter) {
    case JitterKind::Unclear:
        return QStringLiteral("unclear");
    case JitterKind::None:
        return QStringLiteral("none");
    case JitterKind::Full:
        return QStringLiteral("full");
    case JitterKind::Equal:
        return QStringLiteral("equal");
    case JitterKind::Additive:
        return QStringLiteral("additive");
    case JitterKind::Proportional:
        return QStringLiteral("proportional");
    case JitterKind::Decorrelated:
        return QStringLiteral("decorrelated");
    }
    return QStringLiteral("unclear");
}

std::optional<BackoffAlgorithm> InferredPolicy::algorithm() const
{
    if (jitter == JitterKind::Decorrelated)
        return BackoffAlgorithm::DecorrelatedJitter;
    switch (growth) {
    case Growth::None:
        return BackoffAlgorithm::Immediate;
    case Growth::Constant:
        return BackoffAlgorithm::Constant;
    case Growth::Linear:
        return BackoffAlgorithm::Linear;
    case Growth::Exponential:
        switch (jitter) {
        case JitterKind::None:
        case JitterKind::Unclear:
            return BackoffAlgorithm::Exponential;
        case JitterKind::Full:
            return BackoffAlgorithm::FullJitter;
        case JitterKind::Equal:
            return BackoffAlgorithm::EqualJitter;
        case JitterKind::Additive:
            return BackoffAlgorithm::GoogleTruncatedExponential;
        case JitterKind::Proportional:
            return BackoffAlgorithm::ProportionalJitter;
        case JitterKind::Decorrelated:
            return BackoffAlgorithm::DecorrelatedJitter;
        }
        break;
    case Growth::Unknown:
        break;
    }
    return std::nullopt;
}

BackoffPolicy InferredPolicy::toPolicy(const QString &clientName) const
{
    BackoffPolicy policy;
    policy.name = Tr::tr("Like %1").arg(clientName);
    policy.source = Tr::tr("inferred from %1 logical requests").arg(logicalRequests);
    policy.description = summary();
    policy.algorithm = algorithm().value_or(BackoffAlgorithm::Exponential);
    const double limit = PolicyLimits::maxDelayMs;
    policy.baseDelayMs = std::clamp(baseMs.value_or(policy.baseDelayMs), 0.0, limit);
    policy.multiplier = std::clamp(multiplier.value_or(1.0), 1.0, PolicyLimits::maxMultiplier);
    if (growth == Growth::Exponential && !multiplier)
        policy.multiplier = 2.0;
    if (capMs) {
        policy.maxBackoffMs = std::clamp(*capMs, policy.baseDelayMs, limit);
    } else {
        // No cap was reached: keep the delays seen, and let the policy grow a little past them.
        double largest = policy.baseDelayMs;
        for (const DelayStats &d : delays)
            largest = std::max(largest, d.maxMs);
        policy.maxBackoffMs = std::clamp(std::max(largest * policy.multiplier, policy.baseDelayMs), 1.0, limit);
    }
    if (jitter == JitterKind::Additive && additiveJitterMs)
        policy.jitterMs = std::clamp(*additiveJitterMs, 0.0, limit);
    else if (policy.algorithm != BackoffAlgorithm::GoogleTruncatedExponential)
        policy.jitterMs = 0.0;
    if (jitterFraction)
        policy.jitterFraction = std::clamp(*jitterFraction, 0.0, 1.0);
    policy.maxAttempts = std::clamp(maxAttempts.value_or(deadlineMs ? 0 : 5), 0, PolicyLimits::maxAttempts);
    policy.deadlineMs = deadlineMs ? std::clamp(*deadlineMs, 1.0, PolicyLimits::maxDeadlineMs) : 0.0;
    if (policy.maxAttempts == 0 && policy.deadlineMs <= 0.0)
        policy.maxAttempts = 5;
    if (honoursRetryAfter.value)
        policy.classification.honourRetryAfter = *honoursRetryAfter.value;
    if (retriesNonIdempotent.value)
        policy.classification.retryNonIdempotent = *retriesNonIdempotent.value;
    return policy;
}

QJsonObject InferredPolicy::toJson() const
{
    const auto valued = [](std::optional<double> value, const Confidence &c) {
        return QJsonObject{{QStringLiteral("value"), value ? QJsonValue(*value) : QJsonValue()},
            {QStringLiteral("confidence"), c.value}, {QStringLiteral("evidence"), c.evidence}};
    };
    const auto named = [](const QString &value, const Confidence &c) {
        return QJsonObject{{QStringLiteral("value"), value}, {QStringLiteral("confidence"), c.value},
            {QStringLiteral("evidence"), c.evidence}};
    };
    const auto found = [](const Finding &f) {
        return QJsonObject{{QStringLiteral("value"), f.value ? QJsonValue(*f.value) : QJsonValue()},
            {QStringLiteral("confidence"), f.confidence.value}, {QStringLiteral("evidence"), f.evidence}};
    };
    const auto algo = algorithm();
    QJsonArray delayArray;
    for (const DelayStats &d : delays) {
        delayArray.append(QJsonObject{{QStringLiteral("retryIndex"), d.retryIndex}, {QStringLiteral("count"), d.count},
            {QStringLiteral("minMs"), d.minMs}, {QStringLiteral("medianMs"), d.medianMs},
            {QStringLiteral("maxMs"), d.maxMs}});
    }
    QJsonObject o{
        {QStringLiteral("logicalRequests"), logicalRequests},
        {QStringLiteral("retriedLogicalRequests"), retriedLogicalRequests},
        {QStringLiteral("algorithm"),
            QJsonObject{{QStringLiteral("value"), algo ? QJsonValue(algorithmName(*algo)) : QJsonValue()},
                {QStringLiteral("confidence"), std::min(growthConfidence.value, jitterConfidence.value)},
                {QStringLiteral("evidence"), summary()}}},
        {QStringLiteral("growth"), named(PolicyInference::growthName(growth), growthConfidence)},
        {QStringLiteral("baseMs"), valued(baseMs, baseConfidence)},
        {QStringLiteral("multiplier"), valued(multiplier, multiplierConfidence)},
        {QStringLiteral("capMs"), valued(capMs, capConfidence)},
        {QStringLiteral("jitter"), named(PolicyInference::jitterName(jitter), jitterConfidence)},
        {QStringLiteral("maxAttempts"),
            valued(maxAttempts ? std::optional<double>(*maxAttempts) : std::nullopt, maxAttemptsConfidence)},
        {QStringLiteral("deadlineMs"), deadlineMs ? QJsonValue(*deadlineMs) : QJsonValue()},
        {QStringLiteral("giveUpElapsedMs"), giveUpElapsedMs ? QJsonValue(*giveUpElapsedMs) : QJsonValue()},
        {QStringLiteral("honoursRetryAfter"), found(honoursRetryAfter)},
        {QStringLiteral("retriesNonIdempotent"), found(retriesNonIdempotent)},
        {QStringLiteral("retriesPermanentErrors"), found(retriesPermanentErrors)},
        {QStringLiteral("retriesAfterReset"), found(retriesAfterReset)},
        {QStringLiteral("retriesAfterStall"), found(retriesAfterStall)},
        {QStringLiteral("stallGiveUpMs"), stallGiveUpMs ? QJsonValue(*stallGiveUpMs) : QJsonValue()},
        {QStringLiteral("waves"), found(waves)},
        {QStringLiteral("delays"), delayArray},
    };
    if (additiveJitterMs)
        o.insert(QStringLiteral("jitterMs"), *additiveJitterMs);
    if (jitterFraction)
        o.insert(QStringLiteral("jitterFraction"), *jitterFraction);
    return o;
}

QString InferredPolicy::summary() const
{
    if (logicalRequests == 0)
        return Tr::tr("No logical request seen yet.");
    if (retriedLogicalRequests == 0)
        return Tr::tr("Never retried in %1 logical requests.").arg(logicalRequests);
    QString text;
    switch (growth) {
    case Growth::Unknown:
        text = Tr::tr("Retries, but too few delays to tell how they grow");
        break;
    case Growth::None:
        text = Tr::tr("Retries at once, without waiting");
        break;
    case Growth::Constant:
        text = Tr::tr("Constant delay of %1").arg(DurationText::format(baseMs.value_or(0)));
        break;
    case Growth::Linear:
        text = Tr::tr("Linear backoff: %1, %2, %3, ...")
                   .arg(DurationText::format(baseMs.value_or(0)), DurationText::format(2 * baseMs.value_or(0)),
                       DurationText::format(3 * baseMs.value_or(0)));
        break;
    case Growth::Exponential:
        text = Tr::tr("Exponential backoff from %1, x%2")
                   .arg(DurationText::format(baseMs.value_or(0)))
                   .arg(multiplier.value_or(0), 0, 'f', 2);
        break;
    }
    if (capMs)
        text += Tr::tr(", capped at %1").arg(DurationText::format(*capMs));
    if (jitter != JitterKind::None && jitter != JitterKind::Unclear)
        text += Tr::tr(", %1 jitter").arg(PolicyInference::jitterName(jitter));
    else if (jitter == JitterKind::None)
        text += Tr::tr(", no jitter");
    text += QStringLiteral("; ");
    if (maxAttempts)
        text += Tr::tr("stops after %1 attempts").arg(*maxAttempts);
    else if (deadlineMs)
        text += Tr::tr("stops after about %1").arg(DurationText::format(*deadlineMs));
    else
        text += Tr::tr("never seen giving up");
    if (honoursRetryAfter.value)
        text += *honoursRetryAfter.value ? Tr::tr("; honours Retry-After") : Tr::tr("; ignores Retry-After");
    return text + QLatin1Char('.');
}

} // namespace RetryLab::Core
