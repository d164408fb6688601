#include "core/executor/runrecorder.h"

#include "core/executor/retryexecutor.h"
#include "core/util/clock.h"

namespace RetryLab::Core {

RunRecorder::RunRecorder(RetryExecutor *executor, QObject *parent) : QObject(parent), m_executor(executor)
{
    clear();
    connect(executor, &RetryExecutor::attemptFinished, this,
        [this](const AttemptRecord &record) { m_record.attempts.append(record); });
    connect(executor, &RetryExecutor::requestFinished, this,
        [this](const RequestResult &result) { m_record.results.append(result); });
}

quint64 RunRecorder::submit(const RequestSpec &request)
{
    if (m_record.requests.isEmpty())
        m_record.policy = m_executor->policy();
    // Remember the spec before submitting: an invalid request finishes at once.
    const BackoffPolicy policy = m_executor->policy();
    const quint64 id = m_executor->submit(request);
    m_record.requests.insert(id, request);
    m_record.notePolicy(id, policy);
    return id;
}

RunRecord RunRecorder::takeRecord()
{
    RunRecord taken = std::move(m_record);
    clear();
    return taken;
}

void RunRecorder::clear()
{
    m_record = RunRecord{};
    m_record.policy = m_executor->policy();
    m_record.epochNs = m_executor->nowNs();
    m_record.startedAt = m_executor->clock().wallTime();
}

} // namespace RetryLab::Core
