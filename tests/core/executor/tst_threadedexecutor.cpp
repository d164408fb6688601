// ThreadedExecutor: a RetryExecutor on a thread of its own, its reports delivered in
// batches on the caller's thread, against the fault server on a thread of its own too
// (so that the test's thread can be kept busy without keeping the server from answering).
#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/runtime/workerthread.h"
#include "tests/core/executor/executorcollector.h"

#include <QScopeGuard>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <limits>
#include <memory>

using namespace RetryLab::Core;
using RetryLab::Core::Testing::Collector;
using RetryLab::Core::Testing::fastPolicy;
using RetryLab::Core::Testing::getSpec;

namespace {

/// A fault server listening on 127.0.0.1 from a thread of its own.
class ServerThread
{
public:
    ServerThread()
    {
        m_thread.setObjectName(QStringLiteral("test fault server"));
        m_server = new FaultServer;
        m_server->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_server, &QObject::deleteLater);
        m_thread.start();
        QMetaObject::invokeMethod(
            m_server, [this] { m_listening = m_server->listen(); }, Qt::BlockingQueuedConnection);
    }
    ~ServerThread()
    {
        m_thread.quit();
        m_thread.wait();
    }
    bool isListening() const { return m_listening; }
    FaultServer &server() { return *m_server; }
    QUrl url(const QString &path) const { return QUrl(m_server->baseUrl().toString() + path); }
    /// Connections open now (asked on the server's thread).
    int connectionCount()
    {
        int count = -1;
        QMetaObject::invokeMethod(
            m_server, [this, &count] { count = m_server->connectionCount(); }, Qt::BlockingQueuedConnection);
        return count;
    }

private:
    QThread m_thread;
    FaultServer *m_server = nullptr;
    bool m_listening = false;
};

} // namespace

class TestThreadedExecutor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_server.isListening()); }
    void reportsArriveOnTheCallersThreadInOrder();
    void idIsKnownAtOnce_activeUntilItsResultArrives();
    void inFlight_followsTheDeliveredStartsAndEnds();
    void retriesGoOn_whileTheCallersThreadIsBusy();
    void refusals_areReportedAsResults();
    void policyAndLimit_applyToRequestsSubmittedAfterThem();
    void cancelAll_endsEveryRequest();
    void breakerAndBudget_areMirrored();
    void handlerSpinningTheLoop_keepsTheOrder();
    void destroyedWithRequestsRunning_isQuiet();
    void batchSubmittedInOneGo_itsStartsComeInOneEvent();
    void callBatch_startsEveryRequestBeforeAnAnswer_inTheOrderOfTheCalls();
    void whenSubmissionsArrived_waitsForTheBatch_notForEver();

private:
    ServerThread m_server;
};

void TestThreadedExecutor::batchSubmittedInOneGo_itsStartsComeInOneEvent()
{
    // A batch submitted in one go reaches the executor's thread over some milliseconds.
    // Its reports wait until the last request has reached the executor, so that this
    // thread does not take its turns on the cores while first attempts go out. The
    // executor's thread is held until the whole batch is queued for it (from before the
    // first call, which would take in every call made while it runs), and the hold's
    // limit is lifted: what is checked is the order, not the time.
    ThreadedExecutor executor;
    QCOMPARE(executor.reportHoldLimitMs(), 250);
    executor.setReportHoldLimitMs(600'000);
    QSemaphore gate;
    auto *onExecutorThread = new QObject;
    onExecutorThread->moveToThread(executor.executorThread());
    bool released = false;
    const auto release = qScopeGuard([&gate, &released, onExecutorThread] {
        if (!released)
            gate.release(); // never left waiting, whatever fails
        onExecutorThread->deleteLater();
    });
    QMetaObject::invokeMethod(
        onExecutorThread, [&gate] { gate.acquire(); }, Qt::QueuedConnection);
    executor.setPolicy(fastPolicy());
    executor.setConcurrencyLimit(1000);

    constexpr int count = 100;
    qint64 firstBatch = -1;
    int startsInFirstBatch = 0;
    connect(&executor, &ThreadedExecutor::attemptStarted, this, [&](quint64, int) {
        if (firstBatch < 0)
            firstBatch = executor.batchesDelivered();
        if (executor.batchesDelivered() == firstBatch)
            ++startsInFirstBatch;
    });
    int finished = 0;
    connect(&executor, &ThreadedExecutor::requestFinished, this, [&finished](const RequestResult &) { ++finished; });
    for (int i = 0; i < count; ++i)
        executor.submit(getSpec(m_server.url(QStringLiteral("/delay/50?key=batch-%1").arg(i))));
    gate.release();
    released = true;
    QTRY_COMPARE_WITH_TIMEOUT(finished, count, 30'000);
    QCOMPARE(startsInFirstBatch, count);

    // Once the batch is in, reports come as they are made again: a slow request's start
    // arrives while it is still running.
    QSignalSpy started(&executor, &ThreadedExecutor::attemptStarted);
    QSignalSpy ended(&executor, &ThreadedExecutor::requestFinished);
    executor.submit(getSpec(m_server.url(QStringLiteral("/delay/3000?key=after-batch"))));
    QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 2'500);
    QCOMPARE(ended.count(), 0);
    QVERIFY(ended.wait(10'000));
}

void TestThreadedExecutor::callBatch_startsEveryRequestBeforeAnAnswer_inTheOrderOfTheCalls()
{
    // Calls made while a CallBatch lives reach the executor's thread together, and one
    // event runs them all: every request starts before the executor takes in any answer
    // (as a headless batch does), and a cancel made after a submit still comes after it.
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    executor.setConcurrencyLimit(1000);
    Collector collector(&executor);
    constexpr int count = 60;
    quint64 cancelled = 0;
    {
        const ThreadedExecutor::CallBatch together(&executor);
        for (int i = 0; i < count; ++i)
            executor.submit(getSpec(m_server.url(QStringLiteral("/status/200?key=together-%1").arg(i))));
        cancelled = executor.submit(getSpec(m_server.url(QStringLiteral("/delay/5000?key=together-cancelled"))));
        executor.cancel(cancelled);
    }
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), count + 1, 20'000);
    QCOMPARE(collector.resultOf(cancelled)->outcome, RequestOutcome::Cancelled);
    qint64 lastStart = -1;
    qint64 firstEnd = std::numeric_limits<qint64>::max();
    int answered = 0;
    for (const AttemptRecord &record : std::as_const(collector.attempts)) {
        if (record.requestId == cancelled)
            continue;
        QCOMPARE(record.httpStatus, std::optional<int>(200));
        ++answered;
        lastStart = std::max(lastStart, record.startNs);
        firstEnd = std::min(firstEnd, record.endNs);
    }
    QCOMPARE(answered, count);
    QVERIFY2(lastStart < firstEnd,
        qPrintable(QStringLiteral("last start %1 ns, first end %2 ns").arg(lastStart).arg(firstEnd)));
}

void TestThreadedExecutor::whenSubmissionsArrived_waitsForTheBatch_notForEver()
{
    // Work put off until a batch's first attempts are out runs from the event loop once
    // the last submission has reached the executor: not while a CallBatch still holds
    // them, not for a context that is gone, and not later than the hold's limit.
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    executor.setConcurrencyLimit(1000);
    executor.setReportHoldLimitMs(600'000);
    Collector collector(&executor);

    // Nothing on its way: from the event loop, not at once.
    bool idleRan = false;
    executor.whenSubmissionsArrived(this, [&idleRan] { idleRan = true; });
    QVERIFY(!idleRan);
    QTRY_VERIFY(idleRan);

    constexpr int count = 40;
    int ran = 0;
    bool allArrived = false;
    bool goneRan = false;
    {
        const ThreadedExecutor::CallBatch together(&executor);
        for (int i = 0; i < count; ++i)
            executor.submit(getSpec(m_server.url(QStringLiteral("/status/200?key=arrive-%1").arg(i))));
        executor.whenSubmissionsArrived(this, [&] {
            ++ran;
            allArrived = !executor.hasSubmissionsOnTheirWay();
        });
        auto gone = std::make_unique<QObject>();
        executor.whenSubmissionsArrived(gone.get(), [&goneRan] { goneRan = true; });
        gone.reset();
        QVERIFY(executor.hasSubmissionsOnTheirWay());
        QCoreApplication::processEvents();
        QCOMPARE(ran, 0);
    }
    QTRY_COMPARE(ran, 1);
    QVERIFY(allArrived);
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), count, 20'000);
    QVERIFY(!goneRan);
    QCOMPARE(ran, 1);

    // Held for ever (a CallBatch that does not end): the limit lets the work run anyway.
    executor.setReportHoldLimitMs(100);
    bool late = false;
    {
        const ThreadedExecutor::CallBatch held(&executor);
        executor.submit(getSpec(m_server.url(QStringLiteral("/status/200?key=arrive-held"))));
        executor.whenSubmissionsArrived(this, [&late] { late = true; });
        QTRY_VERIFY_WITH_TIMEOUT(late, 10'000);
        QVERIFY(executor.hasSubmissionsOnTheirWay());
    }
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), count + 1, 20'000);
}

void TestThreadedExecutor::reportsArriveOnTheCallersThreadInOrder()
{
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    QVERIFY(executor.executorThread() != QThread::currentThread());
    QVERIFY(executor.executorThread()->isRunning());
    // A worker thread's dispatcher, not GLib's.
#ifdef Q_OS_LINUX
    QCOMPARE(dispatcherName(executor.executorThread()), QStringLiteral("RetryLab::Core::EpollEventDispatcher"));
#endif

    QStringList events;
    bool allOnThisThread = true;
    const auto here
        = [&allOnThisThread] { allOnThisThread = allOnThisThread && QThread::currentThread() == qApp->thread(); };
    connect(&executor, &ThreadedExecutor::attemptStarted, this, [&](quint64, int index) {
        here();
        events.append(QStringLiteral("start %1").arg(index));
    });
    connect(&executor, &ThreadedExecutor::attemptFinished, this, [&](const AttemptRecord &record) {
        here();
        events.append(QStringLiteral("end %1 %2").arg(record.attemptIndex).arg(record.httpStatus.value_or(0)));
    });
    connect(&executor, &ThreadedExecutor::retryScheduled, this, [&](quint64, int next, double delayMs) {
        here();
        events.append(QStringLiteral("retry %1 %2").arg(next).arg(delayMs > 0.0));
    });
    connect(&executor, &ThreadedExecutor::requestFinished, this, [&](const RequestResult &result) {
        here();
        events.append(QStringLiteral("result %1").arg(requestOutcomeName(result.outcome)));
    });
    QSignalSpy idle(&executor, &ThreadedExecutor::idle);
    executor.submit(getSpec(m_server.url(QStringLiteral("/fail/2?key=order"))));
    QVERIFY(idle.wait(10'000));
    QVERIFY(allOnThisThread);
    QCOMPARE(events,
        (QStringList{QStringLiteral("start 0"), QStringLiteral("end 0 503"), QStringLiteral("retry 1 1"),
            QStringLiteral("start 1"), QStringLiteral("end 1 503"), QStringLiteral("retry 2 1"),
            QStringLiteral("start 2"), QStringLiteral("end 2 200"), QStringLiteral("result succeeded")}));
    QVERIFY(executor.reportsDelivered() >= events.size() + 1); // and idle
    QVERIFY(executor.batchesDelivered() >= 1);
}

void TestThreadedExecutor::idIsKnownAtOnce_activeUntilItsResultArrives()
{
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    Collector collector(&executor);
    const quint64 first = executor.submit(getSpec(m_server.url(QStringLiteral("/status/200"))));
    const quint64 second = executor.submit(getSpec(m_server.url(QStringLiteral("/status/200"))));
    QVERIFY(first > 0);
    QCOMPARE(second, first + 1);
    // Counted before the executor's thread has even seen them.
    QCOMPARE(executor.activeCount(), 2);
    QVERIFY(collector.results.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), 2, 10'000);
    QCOMPARE(executor.activeCount(), 0);
    QCOMPARE(executor.inFlightCount(), 0);
    QVERIFY(collector.resultOf(first).has_value());
    QCOMPARE(collector.resultOf(second)->outcome, RequestOutcome::Succeeded);
    QCOMPARE(executor.hosts(), QStringList{QStringLiteral("127.0.0.1:%1").arg(m_server.server().baseUrl().port())});
}

void TestThreadedExecutor::inFlight_followsTheDeliveredStartsAndEnds()
{
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    executor.setConcurrencyLimit(2);
    QCOMPARE(executor.concurrencyLimit(), 2);
    int peak = 0;
    int starts = 0;
    int activeAtSecondStart = -1;
    connect(&executor, &ThreadedExecutor::attemptStarted, this, [&] {
        peak = std::max(peak, executor.inFlightCount());
        if (++starts == 2)
            activeAtSecondStart = executor.activeCount(); // the first end comes after it, in order
    });
    QSignalSpy idle(&executor, &ThreadedExecutor::idle);
    for (int i = 0; i < 3; ++i)
        executor.submit(getSpec(m_server.url(QStringLiteral("/delay/300"))));
    QVERIFY(idle.wait(10'000));
    QCOMPARE(starts, 3);
    QCOMPARE(activeAtSecondStart, 3); // two in flight, the third waiting for a slot
    QCOMPARE(peak, 2);
    QCOMPARE(executor.inFlightCount(), 0);
    QCOMPARE(executor.activeCount(), 0);
}

void TestThreadedExecutor::retriesGoOn_whileTheCallersThreadIsBusy()
{
    // This thread takes no event while the request fails three times and then
    // succeeds: every backoff timer fires on the executor's thread. What it
    // reported meanwhile arrives afterwards, in one batch.
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy(5, 30));
    Collector collector(&executor);
    // The batch in which each start, each planned retry and the end of each of the
    // first three attempts came: all of them were made while this thread was busy.
    QList<qint64> batchOfEarlyReports;
    connect(&executor, &ThreadedExecutor::attemptStarted, this, [&](quint64, int attemptIndex) {
        // The fourth start may be posted after its request reached the server: Qt's HTTP
        // thread can send the bytes before the executor's thread reports the start.
        if (attemptIndex < 3)
            batchOfEarlyReports.append(executor.batchesDelivered());
    });
    connect(&executor, &ThreadedExecutor::retryScheduled, this,
        [&] { batchOfEarlyReports.append(executor.batchesDelivered()); });
    connect(&executor, &ThreadedExecutor::attemptFinished, this, [&](const AttemptRecord &record) {
        if (record.attemptIndex < 3)
            batchOfEarlyReports.append(executor.batchesDelivered());
    });
    const quint64 before = m_server.server().handledCount();
    const qint64 batchesBefore = executor.batchesDelivered();
    executor.submit(getSpec(m_server.url(QStringLiteral("/fail/3?key=busy"))));
    QElapsedTimer busy;
    busy.start();
    while (m_server.server().handledCount() < before + 4 && busy.elapsed() < 20'000)
        QThread::yieldCurrentThread(); // no events: as if a redraw held the thread
    QCOMPARE(m_server.server().handledCount(), before + 4);
    QVERIFY(collector.attempts.isEmpty()); // nothing delivered yet
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), 1, 5'000);
    QCOMPARE(collector.results.first().outcome, RequestOutcome::Succeeded);
    QCOMPARE(collector.attempts.size(), 4);
    for (const AttemptRecord &a : std::as_const(collector.attempts)) {
        if (a.attemptIndex > 0) {
            // Each retry waited its planned delay, not the busy thread.
            QVERIFY2(a.actualDelayMs >= a.plannedDelayMs, qPrintable(QString::number(a.actualDelayMs)));
        }
    }
    // The first three starts, ends and retries were all made before the fourth
    // request reached the server, so while this thread took no events: they came
    // in its first batch. The fourth start, the last end, the result and idle may
    // each come in a later one.
    QCOMPARE(batchOfEarlyReports.size(), 3 + 3 + 3);
    for (const qint64 batch : std::as_const(batchOfEarlyReports))
        QCOMPARE(batch, batchesBefore + 1);
    QTRY_VERIFY_WITH_TIMEOUT(executor.reportsDelivered() >= 4 + 4 + 3 + 1 + 1, 5'000);
}

void TestThreadedExecutor::refusals_areReportedAsResults()
{
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    Collector collector(&executor);
    const quint64 invalid = executor.submit(getSpec(QUrl(QStringLiteral("ftp://127.0.0.1/x"))));
    BackoffPolicy unusable = fastPolicy();
    unusable.maxAttempts = -3;
    const quint64 badPolicy = executor.submit(getSpec(m_server.url(QStringLiteral("/status/200"))), unusable);
    QCOMPARE(executor.activeCount(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), 2, 5'000);
    QCOMPARE(collector.resultOf(invalid)->outcome, RequestOutcome::InvalidRequest);
    QCOMPARE(collector.resultOf(badPolicy)->outcome, RequestOutcome::InvalidRequest);
    QVERIFY(collector.attempts.isEmpty());
    QCOMPARE(executor.activeCount(), 0);
}

void TestThreadedExecutor::policyAndLimit_applyToRequestsSubmittedAfterThem()
{
    ThreadedExecutor executor;
    Collector collector(&executor);
    executor.setPolicy(fastPolicy(2, 5));
    const quint64 two = executor.submit(getSpec(m_server.url(QStringLiteral("/status/503"))));
    executor.setPolicy(fastPolicy(3, 5));
    QCOMPARE(executor.policy().maxAttempts, 3);
    const quint64 three = executor.submit(getSpec(m_server.url(QStringLiteral("/status/503"))));
    executor.setResponseBodyLimit(1);
    QCOMPARE(executor.responseBodyLimit(), RetryExecutor::minResponseBodyLimit);
    executor.setAttemptHeadersEnabled(false);
    QVERIFY(!executor.attemptHeadersEnabled());
    const quint64 bare = executor.submit(getSpec(m_server.url(QStringLiteral("/status/200"))));
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), 3, 10'000);
    QCOMPARE(collector.resultOf(two)->attempts, 2);
    QCOMPARE(collector.resultOf(three)->attempts, 3);
    for (const auto &header : collector.attemptsOf(bare).value(0).requestHeaders)
        QVERIFY(!header.first.startsWith("X-Retry-"));
}

void TestThreadedExecutor::cancelAll_endsEveryRequest()
{
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    Collector collector(&executor);
    for (int i = 0; i < 5; ++i)
        executor.submit(getSpec(m_server.url(QStringLiteral("/delay/20000"))));
    QTRY_VERIFY_WITH_TIMEOUT(executor.inFlightCount() > 0, 5'000);
    executor.cancelAll();
    // As with RetryExecutor: the results are in when cancelAll() returns.
    QCOMPARE(collector.results.size(), 5);
    for (const RequestResult &r : std::as_const(collector.results))
        QCOMPARE(r.outcome, RequestOutcome::Cancelled);
    QCOMPARE(executor.activeCount(), 0);
    QCOMPARE(executor.inFlightCount(), 0);
}

void TestThreadedExecutor::breakerAndBudget_areMirrored()
{
    ThreadedExecutor executor;
    BackoffPolicy guarded = fastPolicy(1, 5);
    guarded.circuitBreaker.enabled = true;
    guarded.circuitBreaker.consecutiveFailures = 1;
    guarded.circuitBreaker.openMs = 60'000.0;
    guarded.retryBudget.kind = RetryBudgetKind::AwsStandard;
    executor.setPolicy(guarded);
    // The new budget shows at once: the window's status bar reads it right after.
    QCOMPARE(executor.budgetCapacity(), 500.0);
    QCOMPARE(executor.budgetTokens(), 500.0);
    Collector collector(&executor);
    QSignalSpy circuits(&executor, &ThreadedExecutor::circuitStateChanged);
    QSignalSpy budget(&executor, &ThreadedExecutor::budgetChanged);
    executor.submit(getSpec(m_server.url(QStringLiteral("/status/503"))));
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), 1, 5'000);
    const QString host = QStringLiteral("127.0.0.1:%1").arg(m_server.server().baseUrl().port());
    QTRY_COMPARE_WITH_TIMEOUT(executor.circuitState(host), CircuitBreaker::State::Open, 5'000);
    QCOMPARE(executor.hosts(), QStringList{host});
    QVERIFY(!circuits.isEmpty());
    QVERIFY(!budget.isEmpty());
    QCOMPARE(budget.constLast().at(0).toDouble(), executor.budgetTokens());

    // Refused by the open breaker, reported as a result like any other.
    const quint64 refused = executor.submit(getSpec(m_server.url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(collector.resultOf(refused).has_value(), 5'000);
    QCOMPARE(collector.resultOf(refused)->outcome, RequestOutcome::CircuitOpen);

    // New breaker settings drop the breakers: the open one is reported closed.
    guarded.circuitBreaker.consecutiveFailures = 5;
    executor.setPolicy(guarded);
    QTRY_COMPARE_WITH_TIMEOUT(executor.circuitState(host), CircuitBreaker::State::Closed, 5'000);
    QTRY_VERIFY_WITH_TIMEOUT(executor.hosts().isEmpty(), 5'000); // as the executor's own list
}

void TestThreadedExecutor::handlerSpinningTheLoop_keepsTheOrder()
{
    ThreadedExecutor executor;
    executor.setPolicy(fastPolicy(3, 5));
    QList<QPair<quint64, int>> ends;
    QSet<quint64> finished;
    bool outOfOrder = false;
    connect(&executor, &ThreadedExecutor::attemptFinished, this, [&](const AttemptRecord &record) {
        if (finished.contains(record.requestId))
            outOfOrder = true;
        for (const auto &[id, index] : std::as_const(ends)) {
            if (id == record.requestId && index >= record.attemptIndex)
                outOfOrder = true;
        }
        ends.append(qMakePair(record.requestId, record.attemptIndex));
        // A handler that runs a nested loop (a dialog would) while later reports come in.
        QElapsedTimer spin;
        spin.start();
        while (spin.elapsed() < 10)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    });
    connect(&executor, &ThreadedExecutor::requestFinished, this,
        [&](const RequestResult &result) { finished.insert(result.requestId); });
    for (int i = 0; i < 6; ++i)
        executor.submit(getSpec(m_server.url(QStringLiteral("/status/503"))));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 6, 10'000);
    QVERIFY(!outOfOrder);
    QCOMPARE(ends.size(), 18);
}

void TestThreadedExecutor::destroyedWithRequestsRunning_isQuiet()
{
    auto executor = std::make_unique<ThreadedExecutor>();
    executor->setPolicy(fastPolicy());
    Collector collector(executor.get());
    for (int i = 0; i < 4; ++i)
        executor->submit(getSpec(m_server.url(QStringLiteral("/delay/20000"))));
    QTRY_VERIFY_WITH_TIMEOUT(executor->inFlightCount() > 0, 5'000);
    QThread *thread = executor->executorThread();
    QVERIFY(thread->isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(m_server.connectionCount() >= 4, 5'000);
    executor.reset();
    QCoreApplication::processEvents();
    QVERIFY(collector.results.isEmpty());
    // Its requests went with it: the server sees their connections close.
    QTRY_COMPARE_WITH_TIMEOUT(m_server.connectionCount(), 0, 10'000);
}

QTEST_GUILESS_MAIN(TestThreadedExecutor)
#include "tst_threadedexecutor.moc"
