#include "core/monitor/checkrun.h"

#include "core/monitor/monitor.h"
#include "core/policy/classifier.h"

#include <QLoggingCategory>

#include <algorithm>
#include <array>
#include <cmath>

namespace RetryLab::Core {

namespace {

Q_LOGGING_CATEGORY(lcCheckRun, "retrylab.core.checkrun")

constexpr quint64 checkRequestId = 1;

qint64 checkRunNsOf(double ms)
{
    return static_cast<qint64>(std::llround(ms * 1e6));
}

std::optional<Classification::Decision> checkRunDecisionOf(const QString &word)
{
    static constexpr std::array decisions{Classification::Decision::Success, Classification::Decision::RetryAfterDelay,
        Classification::Decision::RetryImmediately, Classification::Decision::GiveUp};
    for (const Classification::Decision decision : decisions) {
        if (decisionName(decision) == word)
            return decision;
    }
    return std::nullopt;
}

// The executor's own words for the attempts it cut; every other fault of the
// network (a Qt timeout included: "timeout" is Qt's, "attempt-timeout" the
// executor's) ended the attempt as a network error, with or without a status.
AttemptEnd checkRunEndOf(const StoredAttempt &stored)
{
    // "/not-idempotent" follows the fault when the request could not be repeated.
    const QString fault = stored.cause.section(QLatin1Char('/'), 0, 0);
    if (fault == QLatin1String("attempt-timeout"))
        return AttemptEnd::AttemptTimeout;
    if (fault == QLatin1String("deadline"))
        return AttemptEnd::Deadline;
    if (fault == QLatin1String("cancelled"))
        return AttemptEnd::Cancelled;
    if (networkFaultClassFromName(fault))
        return AttemptEnd::NetworkError;
    if (stored.status || stored.success)
        return AttemptEnd::Response;
    return AttemptEnd::NetworkError; // no answer came, and the word does not say why
}

AttemptRecord checkRunAttemptOf(const StoredAttempt &stored, const RequestSpec &spec, qint64 startNs)
{
    AttemptRecord a;
    a.requestId = checkRequestId;
    a.attemptIndex = stored.index;
    a.method = spec.method;
    a.url = spec.url;
    a.requestHeaders = spec.headers;
    a.requestBody = spec.body;

    a.queuedNs = checkRunNsOf(stored.queuedMs);
    a.startNs = startNs;
    if (startNs >= 0) {
        a.endNs = startNs + checkRunNsOf(stored.totalMs);
        a.finishedNs = a.endNs;
        a.startWall = QDateTime::fromMSecsSinceEpoch(stored.startMs, Qt::UTC);
        const bool measured = stored.dnsMs >= 0.0 || stored.sendMs >= 0.0 || stored.downloadMs >= 0.0;
        if (!measured) {
            // A row written before schema version 3: connect ran to the request sent.
            if (stored.connectMs >= 0.0) {
                a.connectionStartedNs = startNs;
                a.requestSentNs = startNs + checkRunNsOf(stored.connectMs);
            }
        } else {
            // The points the stored phases were taken between (AttemptPhases), in their order.
            qint64 at = startNs;
            if (stored.dnsMs >= 0.0) {
                // A lookup is kept only for a connection that was opened.
                a.lookupStartNs = startNs;
                a.lookupEndNs = at = startNs + checkRunNsOf(stored.dnsMs);
                a.connectionStartedNs = at;
            } else if (stored.connectMs < 0.0) {
                a.lookupStartNs = a.lookupEndNs = startNs; // a reused connection: ready at the start
            }
            if (stored.connectMs >= 0.0) {
                a.connectionStartedNs = at;
                at += checkRunNsOf(stored.connectMs);
                // Over TLS the stored connect holds the handshake.
                if (spec.url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0)
                    a.encryptedNs = at;
                else
                    a.connectedNs = at;
            }
            if (stored.sendMs >= 0.0)
                a.requestSentNs = at + checkRunNsOf(stored.sendMs);
        }
        if (stored.firstByteMs >= 0.0)
            a.firstByteNs = startNs + checkRunNsOf(stored.firstByteMs);
        if (measured && stored.downloadMs >= 0.0 && a.firstByteNs >= 0)
            a.finishedNs = a.firstByteNs + checkRunNsOf(stored.downloadMs);
    }
    a.plannedDelayMs = stored.delayBeforeMs;
    a.actualDelayMs = stored.delayBeforeMs;

    a.end = checkRunEndOf(stored);
    a.httpStatus = stored.status;
    a.bytesReceived = stored.bytes;
    a.responseBody = stored.failureBody;
    // A failure's body is kept up to a bound, a success's not at all.
    a.responseBodyTruncated = !stored.failureBody.isEmpty() && stored.bytes > stored.failureBody.size();
    a.responseBodyDropped = stored.failureBody.isEmpty() && stored.bytes > 0;

    const std::optional<Classification::Decision> decision = checkRunDecisionOf(stored.decision);
    if (!decision)
        qCDebug(lcCheckRun) << "unknown retry decision" << stored.decision << "of attempt" << stored.index;
    a.decision
        = decision.value_or(stored.success ? Classification::Decision::Success : Classification::Decision::GiveUp);
    a.cause = stored.cause;
    a.reason = stored.reason;
    return a;
}

} // namespace

RunRecord runRecordOf(const StoredCheck &check, const Monitor *monitor)
{
    RunRecord run;
    RequestSpec spec;
    if (monitor) {
        spec = monitor->request;
        // The engine sends the template resolved with a key of the check's own,
        // which the history does not keep: a {id} in it stays as written.
        spec.url = QUrl(monitor->urlTemplate);
        run.policy = monitor->checkPolicy();
    } else {
        run.policy = singleAttemptPolicy();
    }
    // As the engine names the request it sends.
    if (spec.label.isEmpty())
        spec.label = check.monitor;
    run.requests.insert(checkRequestId, spec);

    // The epoch is the check's start; an attempt the wall clock put before it
    // (the clock was set back) still gets an instant of its own, not -1.
    qint64 earliestMs = check.startMs;
    for (const StoredAttempt &stored : check.attempts) {
        if (stored.startMs > 0)
            earliestMs = std::min(earliestMs, stored.startMs);
    }
    run.startedAt = QDateTime::fromMSecsSinceEpoch(check.startMs, Qt::UTC);
    run.epochNs = (check.startMs - earliestMs) * 1'000'000;
    const auto nsOfWall = [&run, &check](qint64 wallMs) { return run.epochNs + (wallMs - check.startMs) * 1'000'000; };

    run.attempts.reserve(check.attempts.size());
    for (qsizetype i = 0; i < check.attempts.size(); ++i) {
        const StoredAttempt &stored = check.attempts.at(i);
        // The engine stores 0 for an attempt without a wall time: its instant is unknown.
        AttemptRecord a = checkRunAttemptOf(stored, spec, stored.startMs > 0 ? nsOfWall(stored.startMs) : -1);
        if (i + 1 < check.attempts.size())
            a.nextDelayMs = check.attempts.at(i + 1).delayBeforeMs;
        run.attempts.append(std::move(a));
    }

    RequestResult result;
    result.requestId = checkRequestId;
    const std::optional<RequestOutcome> outcome = requestOutcomeFromName(check.outcome);
    if (!outcome)
        qCDebug(lcCheckRun) << "unknown outcome" << check.outcome << "of a check of" << check.monitor;
    result.outcome = outcome.value_or(check.success ? RequestOutcome::Succeeded : RequestOutcome::GaveUp);
    result.attempts = static_cast<int>(check.attempts.size());
    result.reason = check.reason;
    result.finalStatus = check.finalStatus;
    result.startNs = !run.attempts.isEmpty() && run.attempts.constFirst().startNs >= 0
        ? run.attempts.constFirst().startNs
        : run.epochNs;
    result.endNs = std::max(result.startNs, nsOfWall(check.endMs));
    if (!check.attempts.isEmpty())
        result.body = check.attempts.constLast().failureBody;
    run.results.append(result);
    return run;
}

} // namespace RetryLab::Core
