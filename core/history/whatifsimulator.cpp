#include "core/history/whatifsimulator.h"

#include "core/history/incidentfinder.h"
#include "core/policy/backoff.h"
#include "core/util/randomsource.h"

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

constexpr qint64 minimumGapMs = 60'000;
constexpr qint64 maxReachMs = 24LL * 3600 * 1000;
// An attempt with no timeout of its own is assumed to end within this, for reachMs().
constexpr double assumedAttemptMs = 60'000.0;

QNetworkReply::NetworkError networkErrorFor(NetworkFaultClass fault)
{
    switch (fault) {
    case NetworkFaultClass::ConnectionRefused:
        return QNetworkReply::ConnectionRefusedError;
    case NetworkFaultClass::ConnectionReset:
        return QNetworkReply::RemoteHostClosedError;
    case NetworkFaultClass::Timeout:
        return QNetworkReply::TimeoutError;
    case NetworkFaultClass::HostNotFound:
        return QNetworkReply::HostNotFoundError;
    case NetworkFaultClass::TlsFailure:
        return QNetworkReply::SslHandshakeFailedError;
    case NetworkFaultClass::ProtocolFailure:
        return QNetworkReply::ProtocolFailure;
    case NetworkFaultClass::BrokenStream:
    case NetworkFaultClass::Other:
        break;
    }
    return QNetworkReply::UnknownNetworkError;
}

} // namespace

WhatIfSimulator::WhatIfSimulator(const BackoffPolicy &policy, quint64 seed) : m_policy(policy), m_seed(seed)
{ }

qint64 WhatIfSimulator::defaultGapMs(const QList<qint64> &sortedCheckStartsMs)
{
    if (sortedCheckStartsMs.size() < 2)
        return minimumGapMs;
    QList<qint64> intervals;
    intervals.reserve(sortedCheckStartsMs.size() - 1);
    for (qsizetype i = 1; i < sortedCheckStartsMs.size(); ++i)
        intervals.append(sortedCheckStartsMs.at(i) - sortedCheckStartsMs.at(i - 1));
    const auto middle = intervals.begin() + intervals.size() / 2;
    std::nth_element(intervals.begin(), middle, intervals.end());
    return std::max(minimumGapMs, 2 * *middle);
}

qint64 WhatIfSimulator::reachMs(const BackoffPolicy &policy)
{
    if (policy.deadlineMs > 0.0)
        return std::min<qint64>(maxReachMs, std::llround(policy.deadlineMs));
    const int retries = policy.maxAttempts > 0 ? policy.maxAttempts - 1 : maxPreviewRetries;
    const double attemptMs = policy.attemptTimeoutMs > 0.0 ? policy.attemptTimeoutMs : assumedAttemptMs;
    double reach = attemptMs;
    for (int retry = 0; retry < retries && reach < static_cast<double>(maxReachMs); ++retry)
        reach += Backoff::delayRange(policy, retry).maxMs * PolicyLimits::maxDelayFactor + attemptMs;
    return std::min<qint64>(maxReachMs, std::llround(reach));
}

AttemptObservation WhatIfSimulator::observationOf(std::optional<int> status, const QString &cause)
{
    AttemptObservation observation;
    observation.method = "GET";
    QString word = cause;
    // The recorded request may not have been repeatable; a monitor's GET is.
    if (const qsizetype slash = word.indexOf(QLatin1Char('/')); slash >= 0)
        word.truncate(slash);
    if (word == QLatin1String("condition")) {
        observation.httpStatus = 503;
    } else if (word == QLatin1String("attempt-timeout") || word == QLatin1String("deadline")) {
        observation.cutBy = AttemptObservation::CutBy::AttemptTimeout;
    } else if (word == QLatin1String("cancelled")) {
        observation.cutBy = AttemptObservation::CutBy::User;
    } else if (word == QLatin1String("broken-stream")) {
        observation.brokenStream = true;
        observation.httpStatus = status;
    } else if (const auto fault = networkFaultClassFromName(word)) {
        observation.networkError = networkErrorFor(*fault);
    } else if (status) {
        observation.httpStatus = status;
        if (word == QLatin1String("http-409-aborted"))
            observation.bodyPrefix = R"({"error":{"status":"ABORTED"}})";
        observation.redirectRefused = word == QLatin1String("redirect-not-followed");
    } else {
        observation.networkError = QNetworkReply::UnknownNetworkError;
    }
    return observation;
}

const Classification &WhatIfSimulator::classificationOf(const ReplayAttempt &attempt, bool timedOut)
{
    const QString key = timedOut ? QStringLiteral("timeout")
                                 : QString::number(attempt.status.value_or(0)) + QLatin1Char(' ') + attempt.cause;
    auto it = m_classifications.find(key);
    if (it == m_classifications.end()) {
        AttemptObservation observation = observationOf(attempt.status, attempt.cause);
        if (timedOut) {
            observation = AttemptObservation();
            observation.cutBy = AttemptObservation::CutBy::AttemptTimeout;
        }
        it = m_classifications.insert(key, classify(observation, m_policy.classification));
    }
    return it.value();
}

qsizetype WhatIfSimulator::nearest(const QList<ReplayAttempt> &recorded, qint64 atMs) const
{
    if (recorded.isEmpty())
        return -1;
    const auto after = std::lower_bound(recorded.cbegin(), recorded.cend(), atMs,
        [](const ReplayAttempt &attempt, qint64 value) { return attempt.startMs < value; });
    if (after == recorded.cbegin())
        return 0;
    if (after == recorded.cend())
        return recorded.size() - 1;
    const auto before = after - 1;
    return (atMs - before->startMs <= after->startMs - atMs) ? before - recorded.cbegin() : after - recorded.cbegin();
}

WhatIf WhatIfSimulator::run(QList<qint64> checkStartsMs, QList<ReplayAttempt> recorded, qint64 gapMs)
{
    std::sort(checkStartsMs.begin(), checkStartsMs.end());
    std::stable_sort(recorded.begin(), recorded.end(),
        [](const ReplayAttempt &a, const ReplayAttempt &b) { return a.startMs < b.startMs; });
    WhatIf result;
    result.policyName = m_policy.maxAttempts == 1 ? QStringLiteral("none") : m_policy.name;
    result.gapMs = gapMs;
    RandomSource random(m_seed);
    IncidentFinder finder{QString(), QString()};
    const double deadline = m_policy.deadlineMs;

    for (const qint64 checkStart : std::as_const(checkStartsMs)) {
        const double t = static_cast<double>(checkStart);
        double at = t;
        double end = t;
        int attempts = 0;
        bool success = false;
        bool unknown = false;
        qint64 retryIndex = 0;
        double previousDelay = -1.0;
        bool usedImmediate = false;
        IncidentCheck seen;
        seen.startMs = checkStart;
        for (;;) {
            const qint64 atMs = std::llround(at);
            const qsizetype index = nearest(recorded, atMs);
            if (index < 0 || std::abs(recorded.at(index).startMs - atMs) > gapMs) {
                unknown = true;
                break;
            }
            const ReplayAttempt &borrowed = recorded.at(index);
            ++attempts;
            double duration = std::max(0.0, borrowed.totalMs);
            bool ok = borrowed.success;
            bool timedOut = false;
            if (m_policy.attemptTimeoutMs > 0.0 && duration > m_policy.attemptTimeoutMs) {
                duration = m_policy.attemptTimeoutMs;
                ok = false;
                timedOut = true;
            }
            bool cutByDeadline = false;
            if (deadline > 0.0 && at + duration - t > deadline) {
                duration = std::max(0.0, t + deadline - at);
                ok = false;
                cutByDeadline = true;
            }
            end = at + duration;
            if (ok) {
                success = true;
                break;
            }
            const QString why = timedOut ? QStringLiteral("attempt-timeout")
                                         : (borrowed.reason.isEmpty() ? borrowed.cause : borrowed.reason);
            if (seen.failedAttempts++ == 0) {
                seen.firstFailedAttemptStartMs = atMs;
                seen.firstFailedReason = why;
            }
            seen.lastFailedReason = why;
            seen.reason = why;
            if (cutByDeadline)
                break;
            const Classification &c = classificationOf(borrowed, timedOut);
            if (!c.isRetry() || (m_policy.maxAttempts > 0 && attempts >= m_policy.maxAttempts))
                break;
            // The Azure Retry pattern's Immediate retries once, as the executor's planner has it.
            if (m_policy.algorithm == BackoffAlgorithm::Immediate && seen.failedAttempts >= 2)
                break;
            double delay = 0.0;
            if (c.decision == Classification::Decision::RetryImmediately && !usedImmediate) {
                usedImmediate = true;
            } else {
                delay = Backoff::delayMs(m_policy, retryIndex++, previousDelay, random);
                previousDelay = delay;
                double factor = 1.0;
                if (c.networkFault)
                    factor = m_policy.classification.delayFactor(*c.networkFault);
                else if (c.httpStatus)
                    factor = m_policy.classification.statusDelayFactor(*c.httpStatus);
                if (factor != 1.0)
                    delay = Backoff::scaledDelayMs(m_policy, delay, factor);
            }
            if (deadline > 0.0 && end + delay - t >= deadline)
                break;
            at = end + delay;
        }
        if (unknown) {
            ++result.unknownChecks;
            continue;
        }
        ++result.checksSimulated;
        result.attempts += attempts;
        result.checksSucceeded += success ? 1 : 0;
        seen.endMs = std::llround(end);
        seen.success = success;
        seen.attempts = attempts;
        finder.add(seen);
    }
    for (const Incident &incident : finder.finish()) {
        if (incident.hidden)
            ++result.hiddenIncidents;
        else
            ++result.incidents;
    }
    if (result.checksSimulated > 0) {
        const auto simulated = static_cast<double>(result.checksSimulated);
        result.checkAvailability = static_cast<double>(result.checksSucceeded) / simulated;
        result.attemptsPerCheck = static_cast<double>(result.attempts) / simulated;
    }
    return result;
}

} // namespace RetryLab::Core
