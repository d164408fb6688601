#include "ui/session/run/observedlanes.h"

#include "core/record/attemptrecord.h"
#include "ui/session/run/runsession.h"
#include "ui/session/uitr.h"

namespace RetryLab::Ui {

using namespace RetryLab::Core;

QUrl ObservedLanes::urlOf(const QString &target) const
{
    return m_baseUrl.isValid() ? m_baseUrl.resolved(QUrl(target)) : QUrl(target);
}

void ObservedLanes::started(const ObservedAttempt &a)
{
    // Logical requests the observer dropped never close here: forget the oldest
    // lanes' state once there are more than it keeps (ids grow with time).
    if (m_lanes.size() > 2 * qsizetype(m_maxLogicalRequests) && a.logicalId > quint64(m_maxLogicalRequests)) {
        const quint64 oldest = a.logicalId - quint64(m_maxLogicalRequests);
        m_lanes.removeIf([oldest](const auto &entry) { return entry.key() < oldest; });
    }
    LaneState &lane = m_lanes[a.logicalId];
    if (lane.attempts == 0) {
        RequestSpec spec;
        spec.method = a.method;
        spec.url = urlOf(a.target);
        spec.label = a.userAgent.isEmpty() ? a.address : a.userAgent;
        m_session->noteRequest(a.logicalId, spec);
        lane.firstStartNs = a.receivedNs;
    }
    ++lane.attempts;
    if (lane.pending) {
        // The client retried: the attempt before this one was "failed, retried".
        lane.pending->nextDelayMs = a.delayMs.value_or(0.0);
        m_session->recordAttempt(*lane.pending);
        lane.pending.reset();
    }
    m_session->recordAttemptStarted(a.logicalId, a.attemptIndex - 1, a.receivedNs);
}

void ObservedLanes::finished(const ObservedAttempt &a)
{
    AttemptRecord r;
    r.requestId = a.logicalId;
    r.attemptIndex = a.attemptIndex - 1;
    r.method = a.method;
    r.url = urlOf(a.target);
    r.startNs = a.receivedNs;
    r.endNs = a.receivedNs + qint64((a.endMs - a.arrivalMs) * 1e6);
    r.finishedNs = r.endNs;
    r.startWall = a.time;
    r.plannedDelayMs = a.delayMs.value_or(0.0);
    r.actualDelayMs = a.delayMs.value_or(0.0);
    r.httpStatus = a.status;
    r.retryAfterMs = a.retryAfterMs;
    r.end = a.status ? AttemptEnd::Response : AttemptEnd::NetworkError;
    if (a.succeeded())
        r.decision = Classification::Decision::Success;
    else if (a.transientFault())
        r.decision = Classification::Decision::RetryAfterDelay;
    else
        r.decision = Classification::Decision::GiveUp;
    r.cause = a.status ? QStringLiteral("http-%1").arg(*a.status) : a.action;
    if (!m_answeredBy.isEmpty())
        r.reason = Tr::tr("%1 %2; grouped: %3").arg(m_answeredBy, a.served(), a.ruleDetail);
    else if (a.planStep.isEmpty())
        r.reason = Tr::tr("served %1 by the path; grouped: %2").arg(a.served(), a.ruleDetail);
    else
        r.reason = Tr::tr("served %1 (plan step %2); grouped: %3").arg(a.served(), a.planStep, a.ruleDetail);
    if (!a.status)
        r.errorString = Tr::tr("the server's fault: %1").arg(a.action);
    LaneState &lane = m_lanes[a.logicalId];
    if (a.succeeded()) {
        m_session->recordAttempt(r);
    } else {
        lane.pending = r; // until the client retries or the logical request closes
    }
    lane.lastEndNs = r.endNs;
    lane.lastStatus = a.status;
    lane.succeeded = a.succeeded();
}

void ObservedLanes::closed(quint64 logicalId)
{
    const auto found = m_lanes.find(logicalId);
    if (found == m_lanes.end())
        return;
    if (found->pending) {
        m_session->recordAttempt(*found->pending); // no retry followed: the final failure
        found->pending.reset();
    }
    RequestResult result;
    result.requestId = logicalId;
    result.attempts = found->attempts;
    result.outcome = found->succeeded ? RequestOutcome::Succeeded : RequestOutcome::AttemptsExhausted;
    result.finalStatus = found->lastStatus;
    result.startNs = found->firstStartNs;
    result.endNs = found->lastEndNs;
    result.reason = found->succeeded
        ? Tr::tr("the client got its answer")
        : Tr::tr("the client stopped retrying after %n attempt(s)", nullptr, found->attempts);
    m_session->recordResult(result);
    m_lanes.erase(found);
}

} // namespace RetryLab::Ui
