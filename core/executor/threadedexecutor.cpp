#include "core/executor/threadedexecutor.h"

#include "core/executor/redirectstep.h"
#include "core/executor/retryexecutor.h"
#include "core/policy/retrybudget.h"
#include "core/runtime/workerthread.h"

#include <QMutexLocker>

#include <algorithm>
#include <utility>

namespace RetryLab::Core {

namespace {

template<typename... Handlers>
struct Overloaded : Handlers...
{
    using Handlers::operator()...;
};
template<typename... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;

} // namespace

ThreadedExecutor::ThreadedExecutor(QObject *parent) : QObject(parent)
{
    m_thread.setObjectName(QStringLiteral("RetryLab executor"));
    m_arrivalLimit.setSingleShot(true);
    connect(&m_arrivalLimit, &QTimer::timeout, this, [this] { runAfterArrival(true); });
    m_executorContext = new QObject;
    m_executorContext->moveToThread(&m_thread);
    // Qt's pattern for a worker: it goes when its thread's loop has ended, on that thread.
    connect(&m_thread, &QThread::finished, m_executorContext, &QObject::deleteLater);
    // The executor makes its managers in its constructor: build it on its thread.
    startWorkerThread(m_thread, m_executorContext, [this] {
        m_executor = new RetryExecutor(nullptr, m_executorContext);
        QObject *context = m_executorContext;
        connect(m_executor, &RetryExecutor::attemptStarted, context, [this](quint64 id, int index) {
            post(Started{id, index, m_executor->nowNs()});
        });
        connect(m_executor, &RetryExecutor::attemptFinished, context,
            [this](const AttemptRecord &record) { post(record); });
        connect(m_executor, &RetryExecutor::retryScheduled, context,
            [this](quint64 id, int next, double delayMs, const QString &reason, int left) {
                post(Retry{id, next, delayMs, reason, left, m_executor->nowNs()});
            });
        connect(m_executor, &RetryExecutor::requestFinished, context,
            [this](const RequestResult &result) { post(result); });
        connect(m_executor, &RetryExecutor::circuitStateChanged, context,
            [this](const QString &host, CircuitBreaker::State state) {
                post(Circuit{host, state});
            });
        connect(m_executor, &RetryExecutor::budgetChanged, context, [this](double tokens, double capacity) {
            post(Budget{tokens, capacity});
        });
        // The executor says it is idle before it reports the breaker and the budget
        // that the last result moved: tell the caller once those are in too.
        connect(m_executor, &RetryExecutor::idle, context, [this] {
            QMetaObject::invokeMethod(
                m_executorContext,
                [this] {
                    if (m_executor->activeCount() == 0)
                        post(Idle{});
                },
                Qt::QueuedConnection);
        });

        m_policy = m_executor->policy();
        m_concurrencyLimit = m_executor->concurrencyLimit();
        m_seed = m_executor->seed();
        m_responseBodyLimit = m_executor->responseBodyLimit();
        m_attemptHeaders = m_executor->attemptHeadersEnabled();
        m_budgetTokens = m_executor->budgetTokens();
        m_budgetCapacity = m_executor->budgetCapacity();
    });
}

ThreadedExecutor::~ThreadedExecutor()
{
    // The executor goes with its thread's end and tears down quietly; what it
    // reported before and this thread did not take yet is dropped with m_pending.
    m_thread.quit();
    m_thread.wait();
}

template<typename Call>
void ThreadedExecutor::onExecutorThread(Call &&call)
{
    bool first = false;
    {
        QMutexLocker lock(&m_callsMutex);
        first = m_calls.empty();
        m_calls.emplace_back(std::forward<Call>(call));
    }
    if (m_callBatches > 0) {
        m_runOwed = true;
        return;
    }
    // A run already on its way, or under way, takes this call too.
    if (first)
        QMetaObject::invokeMethod(
            m_executorContext, [this] { runCalls(); }, Qt::QueuedConnection);
}

ThreadedExecutor::CallBatch::CallBatch(ThreadedExecutor *executor) : m_executor(executor)
{
    if (m_executor)
        ++m_executor->m_callBatches;
}

ThreadedExecutor::CallBatch::~CallBatch()
{
    if (!m_executor || --m_executor->m_callBatches > 0 || !std::exchange(m_executor->m_runOwed, false))
        return;
    ThreadedExecutor *executor = m_executor;
    QMetaObject::invokeMethod(
        executor->m_executorContext, [executor] { executor->runCalls(); }, Qt::QueuedConnection);
}

void ThreadedExecutor::runCalls()
{
    for (;;) {
        std::vector<std::function<void()>> calls; // its own, should a call run a nested loop
        {
            QMutexLocker lock(&m_callsMutex);
            if (m_calls.empty())
                return;
            calls.swap(m_calls);
        }
        for (std::function<void()> &call : calls)
            call();
    }
}

void ThreadedExecutor::setPolicy(const BackoffPolicy &policy)
{
    if (!(policy.retryBudget == m_policy.retryBudget)) {
        // The executor starts a new, full budget; the caller sees it now, the snapshot confirms it.
        const RetryBudget fresh(policy.retryBudget);
        m_budgetTokens = fresh.tokens();
        m_budgetCapacity = fresh.capacity();
    }
    m_policy = policy;
    onExecutorThread([this, policy] {
        m_executor->setPolicy(policy);
        // Breakers dropped, a new budget: reports made before this are overruled.
        postSnapshot();
    });
}

void ThreadedExecutor::setConcurrencyLimit(int limit)
{
    // The window sets it with every request it sends: the same limit is not sent again.
    const int clamped = std::clamp(limit, 1, 1000);
    if (clamped == m_concurrencyLimit)
        return;
    m_concurrencyLimit = clamped;
    onExecutorThread([this, clamped] { m_executor->setConcurrencyLimit(clamped); });
}

void ThreadedExecutor::setSeed(quint64 seed)
{
    m_seed = seed;
    onExecutorThread([this, seed] { m_executor->setSeed(seed); });
}

void ThreadedExecutor::setResponseBodyLimit(qint64 bytes)
{
    m_responseBodyLimit
        = std::clamp<qint64>(bytes, RetryExecutor::minResponseBodyLimit, RetryExecutor::maxResponseBodyLimit);
    onExecutorThread([this, bytes] { m_executor->setResponseBodyLimit(bytes); });
}

void ThreadedExecutor::setAttemptHeadersEnabled(bool enabled)
{
    m_attemptHeaders = enabled;
    onExecutorThread([this, enabled] { m_executor->setAttemptHeadersEnabled(enabled); });
}

quint64 ThreadedExecutor::submit(const RequestSpec &request)
{
    return submitWith(request, std::nullopt);
}

quint64 ThreadedExecutor::submit(const RequestSpec &request, const BackoffPolicy &policy)
{
    return submitWith(request, policy);
}

quint64 ThreadedExecutor::submitWith(const RequestSpec &request, std::optional<BackoffPolicy> policy)
{
    const quint64 id = m_executor->reserveId();
    m_active.insert(id, hostKey(request.url));
    m_submissionsOnTheirWay.fetch_add(1);
    onExecutorThread([this, id, request, policy = std::move(policy)] {
        m_executor->submitAs(id, request, policy ? &*policy : nullptr);
        submissionArrived();
    });
    return id;
}

void ThreadedExecutor::submissionArrived()
{
    if (m_submissionsOnTheirWay.fetch_sub(1) != 1)
        return;
    if (m_arrivalAwaited.exchange(false))
        QMetaObject::invokeMethod(
            this, [this] { runAfterArrival(false); }, Qt::QueuedConnection);
    bool owed = false;
    {
        QMutexLocker lock(&m_mutex);
        owed = std::exchange(m_wakeOwed, false);
    }
    if (owed)
        QMetaObject::invokeMethod(this, &ThreadedExecutor::deliverPending, Qt::QueuedConnection);
}

void ThreadedExecutor::whenSubmissionsArrived(QObject *context, std::function<void()> then)
{
    m_afterArrival.emplace_back(context, std::move(then));
    if (!m_arrivalLimit.isActive())
        m_arrivalLimit.start(int(std::min<qint64>(reportHoldLimitMs(), 60'000)));
    awaitArrival();
}

void ThreadedExecutor::awaitArrival()
{
    m_arrivalAwaited.store(true);
    // The last submission may have arrived before the flag was up, and will not post.
    if (!hasSubmissionsOnTheirWay() && m_arrivalAwaited.exchange(false))
        QMetaObject::invokeMethod(
            this, [this] { runAfterArrival(false); }, Qt::QueuedConnection);
}

void ThreadedExecutor::runAfterArrival(bool anyway)
{
    if (m_afterArrival.empty())
        return;
    if (!anyway && hasSubmissionsOnTheirWay()) {
        awaitArrival(); // another batch is on its way already
        return;
    }
    m_arrivalLimit.stop();
    const auto waiting = std::exchange(m_afterArrival, {});
    for (const auto &[context, then] : waiting) {
        if (context)
            then();
    }
}

void ThreadedExecutor::cancel(quint64 requestId)
{
    onExecutorThread([this, requestId] { m_executor->cancel(requestId); });
}

void ThreadedExecutor::cancelAll()
{
    // As RetryExecutor::cancelAll(): every result is in when it returns, so that a
    // caller that clears its records next does not get the cancelled ones after.
    // The executor's thread never waits for this one, so this wait ends.
    // Calls made before it run before it.
    QMetaObject::invokeMethod(
        m_executorContext,
        [this] {
            runCalls();
            m_executor->cancelAll();
        },
        Qt::BlockingQueuedConnection);
    deliverPending();
}

void ThreadedExecutor::postSnapshot()
{
    Snapshot snapshot;
    for (const QString &host : m_executor->hosts())
        snapshot.circuits.insert(host, m_executor->circuitState(host));
    snapshot.tokens = m_executor->budgetTokens();
    snapshot.capacity = m_executor->budgetCapacity();
    post(std::move(snapshot));
}

qint64 ThreadedExecutor::reportedAtNs() const
{
    return m_reportedAtNs >= 0 ? m_reportedAtNs : nowNs();
}

CircuitBreaker::State ThreadedExecutor::circuitState(const QString &host) const
{
    return m_circuits.value(host, CircuitBreaker::State::Closed);
}

QStringList ThreadedExecutor::hosts() const
{
    QStringList list(m_hosts.cbegin(), m_hosts.cend());
    list.sort();
    return list;
}

qint64 ThreadedExecutor::nowNs() const
{
    return m_executor->nowNs();
}

const Clock &ThreadedExecutor::clock() const
{
    return m_executor->clock();
}

void ThreadedExecutor::post(Report &&report)
{
    bool wake = false;
    {
        QMutexLocker lock(&m_mutex);
        const bool first = m_pending.empty();
        m_pending.push_back(std::move(report));
        if (m_submissionsOnTheirWay.load() > 0) {
            // Held while a batch is still arriving, but not for ever.
            const qint64 now = m_executor->nowNs();
            if (first && !m_wakeOwed) {
                m_wakeOwed = true;
                m_heldSinceNs = now;
            }
            if (m_wakeOwed && now - m_heldSinceNs >= m_reportHoldLimitMs.load() * 1'000'000) {
                m_wakeOwed = false;
                wake = true;
            }
        } else {
            wake = first || std::exchange(m_wakeOwed, false);
        }
    }
    if (wake)
        QMetaObject::invokeMethod(this, &ThreadedExecutor::deliverPending, Qt::QueuedConnection);
}

void ThreadedExecutor::deliverPending()
{
    // A handler that spins an event loop must not deliver later reports before
    // the rest of this batch: the outer call takes them when it is done.
    if (m_delivering) {
        m_deferred = true;
        return;
    }
    m_delivering = true;
    // One batch per call: while it is delivered the executor's thread starts the
    // next list and posts for it, so this thread gets back to its own events
    // (painting, input) between batches however fast reports come.
    {
        QMutexLocker lock(&m_mutex);
        m_delivered.swap(m_pending); // the executor's thread gets an empty list that keeps its room
        m_wakeOwed = false; // what was held is taken now (a queued call, cancelAll())
    }
    if (!m_delivered.empty()) {
        ++m_batches;
        m_reports += static_cast<qint64>(m_delivered.size());
        for (Report &report : m_delivered)
            deliver(report);
        m_delivered.clear();
    }
    m_reportedAtNs = -1;
    m_delivering = false;
    if (std::exchange(m_deferred, false)) {
        // A nested call took the event meant for reports that came meanwhile.
        QMetaObject::invokeMethod(this, &ThreadedExecutor::deliverPending, Qt::QueuedConnection);
    }
}

void ThreadedExecutor::deliver(Report &report)
{
    std::visit(Overloaded{
                   [this](const Started &s) {
                       if (const QString host = m_active.value(s.requestId); !host.isEmpty())
                           m_hosts.insert(host);
                       ++m_inFlight;
                       m_reportedAtNs = s.atNs;
                       Q_EMIT attemptStarted(s.requestId, s.attemptIndex);
                   },
                   [this](const AttemptRecord &record) {
                       m_inFlight = std::max(0, m_inFlight - 1);
                       if (record.fallback > 0)
                           m_hosts.insert(hostKey(record.url)); // the start listed the request's own host
                       m_reportedAtNs = record.endNs;
                       Q_EMIT attemptFinished(record);
                   },
                   [this](const Retry &r) {
                       m_reportedAtNs = r.atNs;
                       Q_EMIT retryScheduled(r.requestId, r.nextAttemptIndex, r.delayMs, r.reason, r.attemptsLeft);
                   },
                   [this](const RequestResult &result) {
                       m_active.remove(result.requestId);
                       Q_EMIT requestFinished(result);
                   },
                   [this](const Circuit &c) {
                       m_circuits.insert(c.host, c.state);
                       if (c.state != CircuitBreaker::State::Closed)
                           m_hosts.insert(c.host);
                       Q_EMIT circuitStateChanged(c.host, c.state);
                   },
                   [this](const Budget &b) {
                       m_budgetTokens = b.tokens;
                       m_budgetCapacity = b.capacity;
                       Q_EMIT budgetChanged(b.tokens, b.capacity);
                   },
                   [this](const Snapshot &snapshot) {
                       m_circuits = snapshot.circuits;
                       m_hosts = QSet<QString>(snapshot.circuits.keyBegin(), snapshot.circuits.keyEnd());
                       if (m_budgetTokens != snapshot.tokens || m_budgetCapacity != snapshot.capacity) {
                           m_budgetTokens = snapshot.tokens;
                           m_budgetCapacity = snapshot.capacity;
                           Q_EMIT budgetChanged(snapshot.tokens, snapshot.capacity);
                       }
                   },
                   [this](const Idle &) {
                       // Requests submitted since may not have reached the executor yet.
                       if (m_active.isEmpty())
                           Q_EMIT idle();
                   },
               },
        report);
}

} // namespace RetryLab::Core
