#include "ui/session/run/runsession.h"

#include "core/executor/threadedexecutor.h"
#include "core/util/clock.h"

#include <algorithm>
#include <utility>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

namespace {
constexpr int defaultUpdateIntervalMs = 33; // about 30 updates per second at most
} // namespace

RunSession::RunSession(QObject *parent) : QObject(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(defaultUpdateIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &RunSession::flushWhenDue);
    resetOrigin();
}

RunSession::~RunSession() = default;

void RunSession::attach(ThreadedExecutor *executor)
{
    if (m_executor)
        disconnect(m_executor, nullptr, this, nullptr);
    m_executor = executor;
    m_flushAwaits = false; // a call waiting on the executor before is not this one's
    clear();
    if (!executor)
        return;
    connect(executor, &ThreadedExecutor::attemptStarted, this, &RunSession::handleAttemptStarted);
    connect(executor, &ThreadedExecutor::attemptFinished, this, &RunSession::recordAttempt);
    connect(executor, &ThreadedExecutor::retryScheduled, this, &RunSession::handleRetryScheduled);
    connect(executor, &ThreadedExecutor::requestFinished, this, &RunSession::recordResult);
    // The breakers and the budget are read from the executor while it is attached: its
    // reports only say that the views have something new to show.
    connect(executor, &ThreadedExecutor::circuitStateChanged, this, &RunSession::markDirty);
    connect(executor, &ThreadedExecutor::budgetChanged, this, &RunSession::markDirty);
}

quint64 RunSession::submit(const RequestSpec &spec)
{
    if (!m_executor)
        return 0;
    return submit(spec, m_executor->policy());
}

quint64 RunSession::submit(const RequestSpec &spec, const BackoffPolicy &policy)
{
    if (!m_executor)
        return 0;
    if (m_store.laneCount() == 0)
        m_policy = m_executor->policy();
    // The lane gets the spec before the executor's thread reports its first attempt.
    const quint64 id = m_executor->submit(spec, policy);
    noteRequest(id, spec);
    m_store.setPolicy(id, policy);
    return id;
}

void RunSession::noteRequest(quint64 requestId, const RequestSpec &spec)
{
    const qsizetype added = m_store.noteRequest(requestId, spec);
    if (added >= 0)
        m_records.holdSpecBody(added, m_store.specAt(quint32(added)).body.size());
    // The policy in force now is the one the request was submitted with.
    if (m_executor)
        m_store.setPolicy(requestId, m_executor->policy());
    markDirty();
}

void RunSession::noteRequest(quint64 requestId, const RequestSpec &spec, const BackoffPolicy &policy)
{
    noteRequest(requestId, spec);
    m_store.setPolicy(requestId, policy);
}

void RunSession::clear()
{
    m_store.clear();
    m_records.clear();
    m_spans.clear();
    m_checked.clear();
    m_circuitStates.clear();
    m_policy = m_executor ? m_executor->policy() : BackoffPolicy{};
    resetOrigin();
    m_statistics.clear();
    m_statistics.setOriginNs(originNs());
    m_flushTimer.stop();
    m_dirty = false;
    ++m_revision;
    Q_EMIT cleared();
}

void RunSession::resetOrigin()
{
    if (m_executor)
        m_store.setOrigin(m_executor->nowNs(), m_executor->clock().wallTime());
    else if (m_clock)
        m_store.setOrigin(m_clock->nowNs(), m_clock->wallTime());
    else
        m_store.setOrigin(0, QDateTime::currentDateTimeUtc());
    m_latestNs = originNs();
}

void RunSession::loadRunRecord(const RunRecord &record)
{
    attach(nullptr);
    m_store.setOrigin(record.epochNs, record.startedAt);
    m_latestNs = record.epochNs;
    m_policy = record.policy;
    m_statistics.setOriginNs(originNs());

    QList<quint64> ids = record.requests.keys();
    std::sort(ids.begin(), ids.end());
    for (quint64 id : std::as_const(ids)) {
        noteRequest(id, record.requests.value(id));
        if (record.requestPolicies.contains(id))
            m_store.setPolicy(id, record.policyOf(id));
    }
    for (const AttemptRecord &attempt : record.attempts)
        recordAttempt(attempt);
    for (const RequestResult &result : record.results)
        recordResult(result);
    markDirty();
}

qint64 RunSession::nowNs() const
{
    if (m_executor)
        return m_executor->nowNs();
    if (m_clock)
        return m_clock->nowNs();
    return m_latestNs;
}

qint64 RunSession::latestNs() const
{
    return hasActivity() ? std::max(m_latestNs, nowNs()) : m_latestNs;
}

void RunSession::noteTime(qint64 ns)
{
    m_latestNs = std::max(m_latestNs, ns);
}

void RunSession::markDirty()
{
    m_dirty = true;
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void RunSession::flushWhenDue()
{
    if (!m_dirty)
        return;
    // A batch's requests are still on their way to the executor's thread: the views
    // are drawn once its first attempts are out (its reports wait as long), so that
    // drawing a thousand new lanes does not take the cores they go out on.
    if (m_executor && m_executor->hasSubmissionsOnTheirWay()) {
        if (!std::exchange(m_flushAwaits, true))
            m_executor->whenSubmissionsArrived(this, [this] {
                m_flushAwaits = false;
                flush();
            });
        return;
    }
    flush();
}

void RunSession::flush()
{
    m_flushTimer.stop();
    if (!m_dirty)
        return;
    m_dirty = false;
    ++m_revision;
    Q_EMIT updated();
}

void RunSession::handleAttemptStarted(quint64 requestId, int attemptIndex)
{
    recordAttemptStarted(requestId, attemptIndex, reportedAtNs());
}

void RunSession::recordAttemptStarted(quint64 requestId, int attemptIndex, qint64 startNs)
{
    if (m_store.startAttempt(requestId, attemptIndex, startNs) == noRow)
        return;
    noteTime(startNs);
    markDirty();
}

void RunSession::recordAttempt(const AttemptRecord &record)
{
    const qsizetype finishedIndex = m_store.finishAttempt(record);
    m_records.keepAttempt(record, finishedIndex);
    m_statistics.addAttempt(record);
    m_checked.noteAttempt(record);
    noteTime(std::max(record.startNs, record.endNs));
    markDirty();
}

void RunSession::handleRetryScheduled(
    quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft)
{
    recordRetryScheduled(requestId, nextAttemptIndex, delayMs, reason, attemptsLeft, reportedAtNs());
}

void RunSession::recordRetryScheduled(
    quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft, qint64 atNs)
{
    Q_UNUSED(nextAttemptIndex)
    m_store.scheduleRetry(requestId, delayMs, reason, attemptsLeft, atNs);
    noteTime(atNs);
    markDirty();
}

void RunSession::recordResult(const RequestResult &result)
{
    if (m_store.finishRequest(result) == noRow)
        return;
    m_records.keepResult(result);
    m_statistics.addResult(result);
    noteTime(result.endNs);
    markDirty();
    if (m_checked.finish(result))
        Q_EMIT checksEvaluated(result.requestId);
}

QHash<QString, CircuitBreaker::State> RunSession::circuitStates() const
{
    if (!m_executor)
        return m_circuitStates;
    QHash<QString, CircuitBreaker::State> states;
    for (const QString &host : m_executor->hosts())
        states.insert(host, m_executor->circuitState(host));
    return states;
}

double RunSession::budgetTokens() const
{
    return m_executor ? m_executor->budgetTokens() : m_budgetTokens;
}

double RunSession::budgetCapacity() const
{
    return m_executor ? m_executor->budgetCapacity() : m_budgetCapacity;
}

void RunSession::recordCircuitState(const QString &host, CircuitBreaker::State state)
{
    m_circuitStates.insert(host, state);
    markDirty();
}

void RunSession::recordBudget(double tokens, double capacity)
{
    m_budgetTokens = tokens;
    m_budgetCapacity = capacity;
    markDirty();
}

} // namespace RetryLab::Ui
