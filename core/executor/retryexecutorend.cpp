#include "core/executor/executorrequest.h"
#include "core/executor/precisewakeups.h"
#include "core/executor/redirectstep.h"
#include "core/executor/retryexecutor.h"
#include "core/executor/retryplanner.h"
#include "core/policy/retrybudget.h"
#include "core/util/clock.h"
#include "core/util/randomsource.h"

#include <algorithm>
#include <cmath>

// How a request goes on after an attempt and how it ends: the decision
// (RetryPlanner's), the move to a fallback endpoint, cancelling, the result.

namespace RetryLab::Core {

void RetryExecutor::decideNext(const RequestPtr &r, AttemptRecord &record, const Classification &c)
{
    record.cause = c.cause;
    ++r->attemptIndex;
    if (r->fallback > 0) {
        // A fallback endpoint: one attempt, no backoff.
        const RetryPlanner::Decision decision
            = RetryPlanner::decideFallback(r->plan, r->spec, r->fallback, record.end, c);
        record.decision = decision.recordDecision;
        record.reason = decision.recordReason;
        record.nextDelayMs = -1.0;
        const AttemptRecord copy = record;
        Q_EMIT attemptFinished(copy);
        finishRequest(r, decision.outcome, decision.reason);
        return;
    }
    const RetryPlanner::Attempt attempt{record.end, record.responseHeaders, r->body, (nowNs() - r->firstStartNs) / 1e6};
    // The draws for a retry depend on the request's seed and the attempt alone.
    const quint64 requestSeed
        = r->spec.seed ? RandomSource::derive(*r->spec.seed, r->spec.seedStream) : RandomSource::derive(m_seed, r->id);
    RandomSource random(RandomSource::derive(requestSeed, quint64(r->attemptIndex)));
    const RetryPlanner::Decision decision
        = RetryPlanner::decide(r->plan, r->spec, attempt, c, r->policy, *m_budget, random);
    r->plan = decision.state;
    record.decision = decision.recordDecision;
    record.reason = decision.recordReason;
    record.nextDelayMs = decision.nextDelayMs;

    const auto emitRecord = [this, &record] {
        const AttemptRecord copy = record;
        Q_EMIT attemptFinished(copy);
    };

    switch (decision.action) {
    case RetryPlanner::Decision::Action::Finish:
        emitRecord();
        finishRequest(r, decision.outcome, decision.reason);
        return;
    case RetryPlanner::Decision::Action::NextStep:
        emitRecord();
        if (r->phase == Request::Phase::Done)
            return; // a handler of attemptFinished cancelled it
        r->plannedDelayMs = 0.0;
        r->actualDelayMs = 0.0;
        enqueue(r, true);
        dispatchQueued();
        return;
    case RetryPlanner::Decision::Action::Retry:
        break;
    }

    // Paid before anyone hears of the retry: finishRequest() refunds it if a
    // handler cancels the request before it goes out.
    r->lastRetryCost = m_budget->tryAcquireRetry(decision.retryAfterTimeout);
    Q_ASSERT(r->lastRetryCost == decision.retryCost);
    r->retryPaid = true;

    const double delay = decision.nextDelayMs;
    emitRecord();
    if (decision.attemptsLeft >= 0) {
        qCInfo(lcExecutor).noquote() << QStringLiteral(
            "request %1 attempt %2 failed: %3; retrying in %4 ms, %5 attempt(s) left")
                                            .arg(r->id)
                                            .arg(record.attemptIndex + 1)
                                            .arg(c.reason)
                                            .arg(std::round(delay))
                                            .arg(decision.attemptsLeft);
    } else {
        qCInfo(lcExecutor).noquote() << QStringLiteral("request %1 attempt %2 failed: %3; retrying in %4 ms")
                                            .arg(r->id)
                                            .arg(record.attemptIndex + 1)
                                            .arg(c.reason)
                                            .arg(std::round(delay));
    }

    if (r->phase == Request::Phase::Done)
        return; // a handler of attemptFinished cancelled it; finishRequest() refunded the retry
    r->phase = Request::Phase::Sleeping;
    r->plannedDelayMs = delay;
    r->sleepStartNs = nowNs();
    // The planner's delays are finite and >= 0; should one not be, the retry goes at once.
    wakeAfter(Wakeup::Retry, r->id, timerNs(delay));
    Q_EMIT retryScheduled(r->id, r->attemptIndex, delay, decision.reason, decision.attemptsLeft);
    // The sleeping request holds no slot: let a queued one have it now.
    dispatchQueued();
}

void RetryExecutor::cancel(quint64 requestId)
{
    const RequestPtr r = find(requestId);
    if (!r || r->phase == Request::Phase::Done)
        return;
    if (r->phase == Request::Phase::InFlight) {
        cutAttempt(r, AttemptEnd::Cancelled);
        return;
    }
    finishRequest(r, RequestOutcome::Cancelled, tr("cancelled by the user"));
}

void RetryExecutor::cancelAll()
{
    // Queued ones first, so that cancelling in-flight attempts frees no slot for them.
    const QList<quint64> ids = m_requests.keys();
    for (quint64 id : ids) {
        if (const RequestPtr r = find(id); r && r->phase != Request::Phase::InFlight)
            cancel(id);
    }
    for (quint64 id : ids)
        cancel(id);
}

bool RetryExecutor::takeFallback(const RequestPtr &r, RequestOutcome &outcome, QString &reason)
{
    if (r->fallback == 0) {
        r->primaryOutcome = outcome;
        r->primaryReason = reason;
    } else if (outcome != RequestOutcome::Succeeded && outcome != RequestOutcome::Cancelled) {
        r->fallbackFailures.append(reason);
    }
    if (!RetryPlanner::takesFallback(r->spec, r->fallback, outcome)) {
        if (r->fallback > 0 && outcome != RequestOutcome::Succeeded && outcome != RequestOutcome::Cancelled) {
            // Every fallback failed too: the request ends as the policy ended it, and says what the fallbacks got.
            outcome = r->primaryOutcome;
            reason = tr("%1; then %2").arg(r->primaryReason, r->fallbackFailures.join(QStringLiteral("; ")));
        }
        return false;
    }
    ++r->fallback;
    const QString next = RetryPlanner::fallbackName(r->spec, r->fallback);
    const QString why = r->fallback == 1 ? tr("the policy gave up (%1): trying %2").arg(r->primaryReason, next)
                                         : tr("%1: trying %2").arg(reason, next);
    qCInfo(lcExecutor).noquote() << "request" << r->id << why;
    // The fallback's attempt goes out at once and is bounded by its own timeout, not by the deadline that passed.
    cancelWakeup(Wakeup::Deadline, r->id);
    r->spec.url = r->spec.fallbackUrls.at(r->fallback - 1);
    r->host = hostKey(r->spec.url);
    r->plannedDelayMs = 0.0;
    r->actualDelayMs = 0.0;
    enqueue(r, true);
    Q_EMIT retryScheduled(r->id, r->attemptIndex, 0.0, why, int(r->spec.fallbackUrls.size()) - r->fallback + 1);
    if (r->phase == Request::Phase::Queued) // a handler may have cancelled it
        dispatchQueued();
    return true;
}

void RetryExecutor::finishRequest(const RequestPtr &r, RequestOutcome outcome, QString reason)
{
    if (r->phase == Request::Phase::Done)
        return;
    releaseSlot(*r);
    cancelWakeup(Wakeup::Retry, r->id);
    const bool refunded = r->retryPaid && r->lastRetryCost > 0.0;
    if (r->retryPaid) {
        // Cancelled or out of time while waiting to retry: the retry it paid for never went out.
        m_budget->refund(r->lastRetryCost);
        r->lastRetryCost = 0.0;
        r->retryPaid = false;
    }
    if (takeFallback(r, outcome, reason)) {
        if (refunded && m_budget->enabled())
            noteBudget();
        return;
    }
    r->phase = Request::Phase::Done;
    cancelWakeup(Wakeup::Deadline, r->id);
    // A queued id stays in m_queue: dispatchQueued() skips ids that are gone,
    // which keeps finishing a request O(1) when thousands wait.

    RequestResult result;
    result.requestId = r->id;
    result.outcome = outcome;
    result.attempts = r->attemptIndex;
    result.reason = reason;
    result.finalStatus = r->attemptIndex > 0 ? r->current.httpStatus : std::nullopt;
    result.startNs = r->firstStartNs >= 0 ? r->firstStartNs : r->submittedNs;
    result.endNs = nowNs();
    result.body = r->body;
    result.fallback = r->fallback;

    if (outcome == RequestOutcome::Succeeded) {
        qCDebug(lcExecutor).noquote() << "request" << r->id << "succeeded after" << result.attempts << "attempt(s)";
    } else if (outcome != RequestOutcome::Cancelled) {
        qCWarning(lcExecutor).noquote() << QStringLiteral("request %1 failed (%2) after %3 attempt(s): %4")
                                               .arg(r->id)
                                               .arg(requestOutcomeName(outcome))
                                               .arg(result.attempts)
                                               .arg(reason);
    }

    m_requests.remove(r->id);
    Q_EMIT requestFinished(result);
    if (refunded && m_budget->enabled())
        noteBudget();
    dispatchQueued();
    if (m_requests.isEmpty()) {
        // Containers keep the room of their largest size: after 100,000 requests
        // that is megabytes the executor would hold for nothing once idle.
        m_requests.squeeze();
        m_queue.squeeze();
        Q_EMIT idle();
    }
}

} // namespace RetryLab::Core
