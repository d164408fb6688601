#include "core/executor/retryexecutor.h"
#include "core/executor/runrecorder.h"
#include "core/faultserver/faultserver.h"
#include "core/policy/backoffpolicy.h"

#include <QSignalSpy>
#include <QTest>

using namespace RetryLab::Core;

// RunRecorder against a real executor and the fault server on loopback.
class TestRunRecorder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void submit_recordsRequestsAttemptsAndResults();
    void policyChangedBetweenRequests_eachRequestKeepsItsPolicy();
    void invalidRequest_isRecordedBeforeItsResult();
    void takeRecord_handsTheRunOverAndStartsAnEmptyOne();
    void clear_startsAtTheExecutorsClock();

private:
    static BackoffPolicy fastPolicy(int maxAttempts, double baseMs);
    QUrl url(const QString &path) const { return QUrl(m_server.baseUrl().toString() + path); }
    RequestSpec get(const QString &path) const
    {
        RequestSpec spec;
        spec.url = url(path);
        return spec;
    }

    FaultServer m_server;
    int m_keys = 0;
};

BackoffPolicy TestRunRecorder::fastPolicy(int maxAttempts, double baseMs)
{
    BackoffPolicy policy;
    policy.name = QStringLiteral("fast %1").arg(maxAttempts);
    policy.algorithm = BackoffAlgorithm::Exponential;
    policy.baseDelayMs = baseMs;
    policy.multiplier = 2.0;
    policy.maxBackoffMs = 100.0;
    policy.maxAttempts = maxAttempts;
    policy.attemptTimeoutMs = 5000.0;
    return policy;
}

void TestRunRecorder::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
}

void TestRunRecorder::submit_recordsRequestsAttemptsAndResults()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(4, 5));
    RunRecorder recorder(&executor);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    const quint64 a = recorder.submit(get(QStringLiteral("/fail/2?key=rr-%1").arg(++m_keys)));
    const quint64 b = recorder.submit(get(QStringLiteral("/status/200")));
    QVERIFY(idle.wait(10'000));

    const RunRecord &run = recorder.record();
    QCOMPARE(run.requests.size(), 2);
    QCOMPARE(run.requests.value(a).url.path(), QStringLiteral("/fail/2"));
    QCOMPARE(run.attempts.size(), 4); // three for a (503, 503, 200), one for b
    QCOMPARE(run.results.size(), 2);
    for (const RequestResult &result : run.results)
        QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    int attemptsOfA = 0;
    for (const AttemptRecord &attempt : run.attempts)
        attemptsOfA += attempt.requestId == a ? 1 : 0;
    QCOMPARE(attemptsOfA, 3);
    QCOMPARE(run.policy.name, QStringLiteral("fast 4"));
    QCOMPARE(run.policyOf(a).name, QStringLiteral("fast 4"));
    QCOMPARE(run.policyOf(b).name, QStringLiteral("fast 4"));
    QVERIFY(run.policies.size() == 1);
}

void TestRunRecorder::policyChangedBetweenRequests_eachRequestKeepsItsPolicy()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3, 5));
    RunRecorder recorder(&executor);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    const quint64 first = recorder.submit(get(QStringLiteral("/status/200")));
    executor.setPolicy(fastPolicy(5, 5));
    const quint64 second = recorder.submit(get(QStringLiteral("/status/200")));
    executor.setPolicy(fastPolicy(3, 5));
    const quint64 third = recorder.submit(get(QStringLiteral("/status/200")));
    QTRY_COMPARE_WITH_TIMEOUT(recorder.record().results.size(), 3, 10'000);

    const RunRecord &run = recorder.record();
    QCOMPARE(run.policy.name, QStringLiteral("fast 3")); // the policy the run started with
    QCOMPARE(run.policies.size(), 2); // the third request reuses the first policy
    QCOMPARE(run.policyOf(first).maxAttempts, 3);
    QCOMPARE(run.policyOf(second).maxAttempts, 5);
    QCOMPARE(run.policyOf(third).maxAttempts, 3);
    QCOMPARE(run.requestPolicies.value(first), run.requestPolicies.value(third));
}

void TestRunRecorder::invalidRequest_isRecordedBeforeItsResult()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3, 5));
    RunRecorder recorder(&executor);
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("ftp://example.invalid/x"));
    const quint64 id = recorder.submit(spec);
    QVERIFY(recorder.record().requests.contains(id));
    QTRY_COMPARE_WITH_TIMEOUT(recorder.record().results.size(), 1, 5'000);
    QCOMPARE(recorder.record().results.first().outcome, RequestOutcome::InvalidRequest);
    QVERIFY(recorder.record().attempts.isEmpty());
}

void TestRunRecorder::takeRecord_handsTheRunOverAndStartsAnEmptyOne()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3, 5));
    RunRecorder recorder(&executor);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    recorder.submit(get(QStringLiteral("/status/200")));
    QVERIFY(idle.wait(10'000));

    const RunRecord taken = recorder.takeRecord();
    QCOMPARE(taken.results.size(), 1);
    QCOMPARE(taken.attempts.size(), 1);
    QVERIFY(recorder.record().requests.isEmpty());
    QVERIFY(recorder.record().attempts.isEmpty());
    QVERIFY(recorder.record().results.isEmpty());

    // The recorder keeps listening after a take.
    recorder.submit(get(QStringLiteral("/status/200")));
    QVERIFY(idle.wait(10'000));
    QCOMPARE(recorder.record().results.size(), 1);
}

void TestRunRecorder::clear_startsAtTheExecutorsClock()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(2, 5));
    RunRecorder recorder(&executor);
    const qint64 before = executor.nowNs();
    const QDateTime wallBefore = QDateTime::currentDateTimeUtc();
    recorder.clear();
    const RunRecord &run = recorder.record();
    QVERIFY(run.epochNs >= before);
    QVERIFY(run.epochNs <= executor.nowNs());
    QVERIFY(qAbs(run.startedAt.msecsTo(wallBefore)) < 5'000);
    QCOMPARE(run.policy.name, QStringLiteral("fast 2"));
    QVERIFY(run.policies.isEmpty());
}

QTEST_GUILESS_MAIN(TestRunRecorder)
#include "tst_runrecorder.moc"
