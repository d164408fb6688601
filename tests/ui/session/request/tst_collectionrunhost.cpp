#include "core/faultserver/faultserver.h"
#include "core/runner/collectionrunner.h"
#include "ui/session/request/collectionrunhost.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace RetryLab;
using Ui::CollectionRunHost;

namespace {

Core::RunItem hostRequest(const QString &name, const QString &url)
{
    Core::RunItem item;
    item.kind = Core::RunItem::Kind::Request;
    item.name = name;
    item.id = name;
    item.request.urlTemplate = url;
    return item;
}

Core::BackoffPolicy hostRetries(int attempts)
{
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("quick");
    policy.maxAttempts = attempts;
    policy.baseDelayMs = 5;
    policy.maxBackoffMs = 20;
    policy.jitterMs = 5;
    policy.circuitBreaker = {};
    policy.retryBudget = {};
    return policy;
}

} // namespace

class TestCollectionRunHost : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_server.listen(), qPrintable(m_server.errorString())); }
    void run_goesOnAnotherThread_andItsRequestsArriveOnThisOne();
    void start_whileARunGoesOn_isRefusedWithAReason();
    void stop_cancelsTheRequestInFlight_andFinishedFollows();
    void destructor_duringARequest_endsTheRunAndTheThread();

private:
    Core::CollectionRunOptions options() const
    {
        Core::CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.defaultPolicy = hostRetries(4);
        options.defaultPolicyName = QStringLiteral("quick");
        return options;
    }

    Core::FaultServer m_server;
};

void TestCollectionRunHost::run_goesOnAnotherThread_andItsRequestsArriveOnThisOne()
{
    Core::RunCollection collection;
    collection.name = QStringLiteral("two");
    collection.items = {hostRequest(QStringLiteral("flaky"), QStringLiteral("{server}/fail/2?key={id}")),
        hostRequest(QStringLiteral("ok"), QStringLiteral("{server}/status/204"))};
    Core::CollectionRunOptions twice = options();
    twice.iterations = 2;

    CollectionRunHost host;
    QSignalSpy started(&host, &CollectionRunHost::started);
    QSignalSpy requestStarted(&host, &CollectionRunHost::requestStarted);
    QSignalSpy requestFinished(&host, &CollectionRunHost::requestFinished);
    QSignalSpy finished(&host, &CollectionRunHost::finished);
    QList<QThread *> threads;
    connect(&host, &CollectionRunHost::requestFinished, this,
        [&threads](const Core::CollectionRequestRun &) { threads.append(QThread::currentThread()); });
    const auto ok = host.start(collection, twice);
    QVERIFY2(ok, qPrintable(ok.error()));
    QVERIFY(host.isRunning());
    QCOMPARE(started.size(), 1);
    QCOMPARE(started.at(0).at(0).toString(), QStringLiteral("two"));
    QCOMPARE(started.at(0).at(1).toInt(), 4);
    QCOMPARE(started.at(0).at(2).toInt(), 2);
    QCOMPARE(host.plannedRequests(), 4);
    const auto *runThread = host.findChild<QThread *>();
    QVERIFY(runThread && runThread->isRunning() && runThread != QThread::currentThread());

    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);
    QVERIFY(!host.isRunning());
    QCOMPARE(requestStarted.size(), 4);
    QCOMPARE(requestFinished.size(), 4);
    QCOMPARE(requestStarted.at(2).at(1).toString(), QStringLiteral("flaky"));
    QCOMPARE(requestStarted.at(2).at(2).toInt(), 1);
    for (QThread *receivedOn : std::as_const(threads))
        QCOMPARE(receivedOn, QThread::currentThread());

    const auto first = requestFinished.at(0).at(0).value<Core::CollectionRequestRun>();
    QCOMPARE(first.path, QStringLiteral("flaky"));
    QCOMPARE(first.attempts.size(), 3);
    QVERIFY(first.retried());
    const auto result = finished.at(0).at(0).value<Core::CollectionRunResult>();
    QCOMPARE(result.collectionName, QStringLiteral("two"));
    QCOMPARE(result.requests.size(), 4);
    QCOMPARE(result.passedAfterRetries(), 2);
    QCOMPARE(result.record.attempts.size(), 8);
    QVERIFY(result.passed());
}

void TestCollectionRunHost::start_whileARunGoesOn_isRefusedWithAReason()
{
    Core::RunCollection slow;
    slow.name = QStringLiteral("slow");
    slow.items = {hostRequest(QStringLiteral("wait"), QStringLiteral("{server}/delay/300"))};
    CollectionRunHost host;
    QSignalSpy finished(&host, &CollectionRunHost::finished);
    QVERIFY(host.start(slow, options()));
    const auto second = host.start(slow, options());
    QVERIFY(!second);
    QVERIFY2(second.error().contains(QLatin1String("going on")), qPrintable(second.error()));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);
    // Once it ended, the next may start.
    QVERIFY(host.start(slow, options()));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 30'000);
    QCOMPARE(finished.at(1).at(0).value<Core::CollectionRunResult>().requests.size(), 1);
}

void TestCollectionRunHost::stop_cancelsTheRequestInFlight_andFinishedFollows()
{
    Core::RunCollection slow;
    slow.name = QStringLiteral("slow");
    slow.items = {hostRequest(QStringLiteral("hang"), QStringLiteral("{server}/delay/60000")),
        hostRequest(QStringLiteral("never"), QStringLiteral("{server}/status/200"))};
    CollectionRunHost host;
    QSignalSpy requestStarted(&host, &CollectionRunHost::requestStarted);
    QSignalSpy finished(&host, &CollectionRunHost::finished);
    QVERIFY(host.start(slow, options()));
    QTRY_COMPARE_WITH_TIMEOUT(requestStarted.size(), 1, 10'000);
    QElapsedTimer clock;
    clock.start();
    host.stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10'000);
    QVERIFY2(clock.elapsed() < 10'000, "the stop waited for the answer");
    const auto result = finished.at(0).at(0).value<Core::CollectionRunResult>();
    QCOMPARE(result.stoppedEarly, QStringLiteral("stopped"));
    QCOMPARE(result.requests.size(), 1);
    QCOMPARE(requestStarted.size(), 1);
    QVERIFY(!host.isRunning());
}

void TestCollectionRunHost::destructor_duringARequest_endsTheRunAndTheThread()
{
    Core::RunCollection slow;
    slow.items = {hostRequest(QStringLiteral("hang"), QStringLiteral("{server}/delay/60000"))};
    QElapsedTimer clock;
    {
        CollectionRunHost host;
        QSignalSpy requestStarted(&host, &CollectionRunHost::requestStarted);
        QVERIFY(host.start(slow, options()));
        QTRY_COMPARE_WITH_TIMEOUT(requestStarted.size(), 1, 10'000);
        clock.start();
    }
    QVERIFY2(clock.elapsed() < 10'000, "the destructor waited for the answer");
}

QTEST_GUILESS_MAIN(TestCollectionRunHost)
#include "tst_collectionrunhost.moc"
