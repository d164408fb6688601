#include "core/executor/runrecorder.h"

#include "core/executor/retryexecutor.h"
#include "core/util/clock.h"

#include <algorithm>

namespace RetryLab::Core {

namespace {

// Two byte arrays that share one buffer cost its bytes once.
bool sameBuffer(const QByteArray &a, const QByteArray &b)
{
    return !a.isEmpty() && a.constData() == b.constData();
}

} // namespace

RunRecorder::RunRecorder(RetryExecutor *executor, QObject *parent) : QObject(parent), m_executor(executor)
{
    clear();
    connect(executor, &RetryExecutor::attemptFinished, this, &RunRecorder::handleAttemptFinished);
    connect(executor, &RetryExecutor::requestFinished, this, &RunRecorder::handleRequestFinished);
}

quint64 RunRecorder::submit(const RequestSpec &request)
{
    return submit(request, m_executor->policy());
}

quint64 RunRecorder::submit(const RequestSpec &request, const BackoffPolicy &requestPolicy)
{
    if (m_record.requests.isEmpty())
        m_record.policy = m_executor->policy();
    // Remember the spec before submitting: an invalid request finishes at once. The executor is
    // handed the caller's policy itself, so that its own policy is not validated again.
    const BackoffPolicy policy = requestPolicy;
    const quint64 id = m_executor->submit(request, requestPolicy);
    m_record.requests.insert(id, request);
    m_record.notePolicy(id, policy);
    return id;
}

void RunRecorder::handleAttemptFinished(const AttemptRecord &record)
{
    m_record.attempts.append(record);
    const qsizetype index = m_record.attempts.size() - 1;
    m_lastAttempt.insert(record.requestId, index);
    const auto spec = m_record.requests.constFind(record.requestId);
    const bool specBody = spec != m_record.requests.cend() && sameBuffer(record.requestBody, spec->body);
    if (!specBody)
        hold(HeldBody::Kind::AttemptRequest, index, record.requestBody.size());
    hold(HeldBody::Kind::AttemptResponse, index, record.responseBody.size());
}

void RunRecorder::handleRequestFinished(const RequestResult &result)
{
    m_record.results.append(result);
    const qsizetype index = m_record.results.size() - 1;
    m_resultOf.insert(result.requestId, index);
    const qsizetype last = m_lastAttempt.value(result.requestId, -1);
    if (last < 0 || !sameBuffer(result.body, m_record.attempts.at(last).responseBody))
        hold(HeldBody::Kind::Result, index, result.body.size());
}

void RunRecorder::hold(HeldBody::Kind kind, qsizetype index, qsizetype bytes)
{
    if (bytes <= 0)
        return;
    m_heldBodies.push_back({kind, index});
    m_bodyBytes += bytes;
    enforceBodyBudget();
}

void RunRecorder::setBodyBudget(qint64 bytes)
{
    m_bodyBudget = std::max<qint64>(0, bytes);
    enforceBodyBudget();
}

void RunRecorder::enforceBodyBudget()
{
    while (m_bodyBytes > m_bodyBudget && !m_heldBodies.empty()) {
        const HeldBody held = m_heldBodies.front();
        m_heldBodies.pop_front();
        QByteArray *body = nullptr;
        if (held.kind == HeldBody::Kind::Result) {
            body = &m_record.results[held.index].body;
        } else {
            AttemptRecord &a = m_record.attempts[held.index];
            if (held.kind == HeldBody::Kind::AttemptRequest) {
                body = &a.requestBody;
                a.requestBodyDropped = !body->isEmpty();
            } else {
                body = &a.responseBody;
                a.responseBodyDropped = !body->isEmpty();
                // The result shares this buffer (it was not counted): it goes too,
                // or the memory would stay held.
                const qsizetype result = m_resultOf.value(a.requestId, -1);
                if (result >= 0 && sameBuffer(m_record.results[result].body, *body))
                    m_record.results[result].body = QByteArray();
            }
        }
        if (body->isEmpty())
            continue;
        m_bodyBytes -= body->size();
        *body = QByteArray(); // clear() could keep the capacity
        ++m_droppedBodies;
    }
}

RunRecord RunRecorder::takeRecord()
{
    RunRecord taken = std::move(m_record);
    clear();
    return taken;
}

void RunRecorder::clear()
{
    const std::optional<quint64> seed = m_record.seed;
    m_record = RunRecord{};
    m_record.seed = seed;
    m_record.policy = m_executor->policy();
    m_record.epochNs = m_executor->nowNs();
    m_record.startedAt = m_executor->clock().wallTime();
    m_lastAttempt.clear();
    m_resultOf.clear();
    m_heldBodies.clear();
    m_bodyBytes = 0;
    m_droppedBodies = 0;
}

} // namespace RetryLab::Core
