// What an answer says besides its status, against the project's fault server on
// loopback with real timers: a policy that retries on a JSON value, a body text
// (ClassificationRules::retryOnResponse), and one that waits for a spent rate
// limit's reset, before a retry and before the next request to the same host
// (ClassificationRules::honourRateLimitReset); and the AWS SDKs' adaptive rate
// limiter, which slows the whole client down after throttling answers.

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "tests/core/executor/executorcollector.h"

#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace RetryLab::Core;
using RetryLab::Core::Testing::Collector;
using RetryLab::Core::Testing::fastPolicy;

class TestExecutorResponse final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void jsonPointer_retriesUntilTheOperationIsDone();
    void bodyContains_retriesRunOut_requestFailsWithTheReason();
    void bodyContains_postIsNotRetried();
    void rateLimitReset_retryWaitsForTheReset_data();
    void rateLimitReset_retryWaitsForTheReset();
    void rateLimitReset_beyondTheDeadline_givesUpAtOnce();
    void rateLimitSpent_nextRequestToTheHostWaitsForTheReset();
    void rateLimitSpent_holdIsBoundedByMaxRetryAfter();
    void adaptiveLimiter_slowsTheClientToTheServersRate();

private:
    QUrl url(const QString &pathAndQuery) const { return m_server.baseUrl().resolved(QUrl(pathAndQuery)); }
    /// Spends the one token of `key` (1 a second, a burst of 1) from an executor of its own.
    void spendRateLimit(const QString &key, const QString &headers);

    FaultServer m_server;
};

namespace {

// A constant backoff of 20 ms: any longer wait is the server's doing.
BackoffPolicy quickConstant(int attempts)
{
    BackoffPolicy p = fastPolicy(attempts);
    p.algorithm = BackoffAlgorithm::Constant;
    p.baseDelayMs = 20;
    return p;
}

BackoffPolicy waitingForResets(int attempts)
{
    BackoffPolicy p = quickConstant(attempts);
    p.classification.honourRetryAfter = false; // /ratelimit sends both: the reset alone decides here
    p.classification.honourRateLimitReset = true;
    return p;
}

} // namespace

void TestExecutorResponse::initTestCase()
{
    QVERIFY(m_server.listen());
}

void TestExecutorResponse::init()
{
    m_server.reset();
}

void TestExecutorResponse::spendRateLimit(const QString &key, const QString &headers)
{
    RetryExecutor spender;
    spender.setPolicy(quickConstant(1));
    Collector c(&spender);
    spender.submit(
        Testing::getSpec(url(QStringLiteral("/ratelimit?rps=1&burst=1&key=%1&headers=%2").arg(key, headers))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 10'000);
    QCOMPARE(c.results.constFirst().finalStatus, std::optional<int>(200));
}

void TestExecutorResponse::jsonPointer_retriesUntilTheOperationIsDone()
{
    BackoffPolicy policy = quickConstant(100);
    policy.baseDelayMs = 50;
    policy.classification.retryOnResponse = {ResponseRetryCondition::jsonEquals(QStringLiteral("/done"), false)};
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    const quint64 id = executor.submit(Testing::getSpec(url(QStringLiteral("/operation/poll-1?done_after_ms=300"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 20'000);

    const RequestResult result = c.results.constFirst();
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.finalStatus, std::optional<int>(200));
    QVERIFY(result.body.contains("\"done\":true"));
    QVERIFY2(result.totalMs() >= 250.0, qPrintable(QString::number(result.totalMs())));
    const QList<AttemptRecord> attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), result.attempts);
    QVERIFY2(attempts.size() >= 3, qPrintable(QString::number(attempts.size()))); // 300 ms at 50 ms a poll
    for (qsizetype i = 0; i + 1 < attempts.size(); ++i) {
        const AttemptRecord &a = attempts.at(i);
        QCOMPARE(a.httpStatus, std::optional<int>(200));
        QCOMPARE(a.decision, Classification::Decision::RetryAfterDelay);
        QCOMPARE(a.cause, QStringLiteral("response-json"));
        QVERIFY2(a.reason.contains(QStringLiteral("HTTP 200, but /done is false (the policy retries on it)")),
            qPrintable(a.reason));
        QVERIFY(a.nextDelayMs >= 0.0);
    }
    QCOMPARE(attempts.constLast().decision, Classification::Decision::Success);
    QCOMPARE(attempts.constLast().cause, QStringLiteral("http-200"));
}

void TestExecutorResponse::bodyContains_retriesRunOut_requestFailsWithTheReason()
{
    BackoffPolicy policy = quickConstant(3);
    policy.classification.retryOnResponse = {ResponseRetryCondition::bodyContains(QStringLiteral("\"done\":false"))};
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    const quint64 id = executor.submit(Testing::getSpec(url(QStringLiteral("/operation/never?done_after_ms=600000"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 20'000);

    const RequestResult result = c.results.constFirst();
    QCOMPARE(result.outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(result.attempts, 3);
    QCOMPARE(result.finalStatus, std::optional<int>(200));
    QVERIFY2(result.reason.contains(QStringLiteral("gave up after 3 attempt")), qPrintable(result.reason));
    QVERIFY2(result.reason.contains(QStringLiteral("HTTP 200, but the body contains \"\"done\":false\"")),
        qPrintable(result.reason));
    const QList<AttemptRecord> attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 3);
    for (const AttemptRecord &a : attempts)
        QCOMPARE(a.cause, QStringLiteral("response-body"));
    QVERIFY2(attempts.constLast().reason.contains(QStringLiteral("attempt limit reached")),
        qPrintable(attempts.constLast().reason));
}

void TestExecutorResponse::bodyContains_postIsNotRetried()
{
    BackoffPolicy policy = quickConstant(3);
    policy.classification.retryOnResponse = {ResponseRetryCondition::bodyContains(QStringLiteral("\"done\":false"))};
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    RequestSpec spec = Testing::getSpec(url(QStringLiteral("/operation/posted?done_after_ms=600000")));
    spec.method = "POST";
    spec.body = "{}";
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 10'000);
    const RequestResult result = c.results.constFirst();
    QCOMPARE(result.outcome, RequestOutcome::GaveUp);
    QCOMPARE(result.attempts, 1);
    QCOMPARE(c.attempts.constFirst().cause, QStringLiteral("response-body/not-idempotent"));
    QVERIFY2(result.reason.contains(QStringLiteral("POST is not idempotent")), qPrintable(result.reason));
}

void TestExecutorResponse::rateLimitReset_retryWaitsForTheReset_data()
{
    QTest::addColumn<QString>("headers");
    QTest::addColumn<QString>("field");
    QTest::addRow("x-ratelimit") << QStringLiteral("x-ratelimit") << QStringLiteral("X-RateLimit-Reset");
    QTest::addRow("ietf") << QStringLiteral("ietf") << QStringLiteral("RateLimit");
}

void TestExecutorResponse::rateLimitReset_retryWaitsForTheReset()
{
    QFETCH(QString, headers);
    QFETCH(QString, field);
    const QString key = QStringLiteral("retry-") + headers;
    spendRateLimit(key, headers);

    RetryExecutor executor;
    executor.setPolicy(waitingForResets(3));
    Collector c(&executor);
    QSignalSpy scheduled(&executor, &RetryExecutor::retryScheduled);
    const quint64 id = executor.submit(
        Testing::getSpec(url(QStringLiteral("/ratelimit?rps=1&burst=1&key=%1&headers=%2").arg(key, headers))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 20'000);

    // The bucket refills in 1 s: the 429 announces a reset of 1 s, and the retry waits it.
    const QList<AttemptRecord> attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.at(0).httpStatus, std::optional<int>(429));
    QVERIFY2(attempts.at(0).nextDelayMs >= 900.0 && attempts.at(0).nextDelayMs <= 1000.0,
        qPrintable(QString::number(attempts.at(0).nextDelayMs)));
    QVERIFY2(attempts.at(1).actualDelayMs >= 800.0 && attempts.at(1).actualDelayMs <= 5000.0,
        qPrintable(QString::number(attempts.at(1).actualDelayMs)));
    QCOMPARE(attempts.at(1).httpStatus, std::optional<int>(200));
    QCOMPARE(c.results.constFirst().outcome, RequestOutcome::Succeeded);

    QCOMPARE(scheduled.size(), 1);
    const QString reason = scheduled.constFirst().at(3).toString();
    QVERIFY2(
        reason.contains(QStringLiteral("waiting for the rate limit reset: %1: the quota resets in 1 s").arg(field)),
        qPrintable(reason));
}

void TestExecutorResponse::rateLimitReset_beyondTheDeadline_givesUpAtOnce()
{
    const QString key = QStringLiteral("deadline");
    spendRateLimit(key, QStringLiteral("x-ratelimit"));
    BackoffPolicy policy = waitingForResets(5);
    policy.deadlineMs = 400;
    policy.attemptTimeoutMs = 300;
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    executor.submit(Testing::getSpec(url(QStringLiteral("/ratelimit?rps=1&burst=1&key=%1").arg(key))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 10'000);
    const RequestResult result = c.results.constFirst();
    QCOMPARE(result.outcome, RequestOutcome::DeadlineExceeded);
    QCOMPARE(result.attempts, 1);
    QVERIFY2(result.reason.contains(QStringLiteral("X-RateLimit-Reset: the quota resets in 1 s, beyond the")),
        qPrintable(result.reason));
    QVERIFY2(result.totalMs() < 350.0, qPrintable(QString::number(result.totalMs()))); // no sleep into the deadline
}

void TestExecutorResponse::rateLimitSpent_nextRequestToTheHostWaitsForTheReset()
{
    RetryExecutor executor;
    executor.setPolicy(waitingForResets(3));
    Collector c(&executor);
    const QUrl limited = url(QStringLiteral("/ratelimit?rps=1&burst=1&key=hold"));
    // The first answer is a success that says nothing is left of the quota.
    const quint64 first = executor.submit(Testing::getSpec(limited));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 10'000);
    QCOMPARE(c.resultOf(first)->outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.attemptsOf(first).constFirst().queuedNs < 500'000'000, true);

    // The second to the same host waits in the queue until the reset, and then is let in.
    const quint64 second = executor.submit(Testing::getSpec(limited));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 2, 10'000);
    const QList<AttemptRecord> attempts = c.attemptsOf(second);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &held = attempts.constFirst();
    QVERIFY2(
        held.queuedNs >= 800'000'000 && held.queuedNs <= 5'000'000'000, qPrintable(QString::number(held.queuedNs)));
    QCOMPARE(held.httpStatus, std::optional<int>(200));
    QVERIFY2(held.reason.contains(QStringLiteral("held back")), qPrintable(held.reason));
    QVERIFY2(
        held.reason.contains(QStringLiteral("X-RateLimit-Reset: the quota resets in 1 s")), qPrintable(held.reason));
    QCOMPARE(c.resultOf(second)->outcome, RequestOutcome::Succeeded);

    // Without the option, nothing waits: the second answer is a 429.
    m_server.reset();
    RetryExecutor plain;
    plain.setPolicy(quickConstant(1));
    Collector p(&plain);
    plain.submit(Testing::getSpec(limited));
    QTRY_COMPARE_WITH_TIMEOUT(p.results.size(), 1, 10'000);
    plain.submit(Testing::getSpec(limited));
    QTRY_COMPARE_WITH_TIMEOUT(p.results.size(), 2, 10'000);
    QCOMPARE(p.attempts.constLast().httpStatus, std::optional<int>(429));
    QVERIFY(p.attempts.constLast().queuedNs < 500'000'000);
}

void TestExecutorResponse::rateLimitSpent_holdIsBoundedByMaxRetryAfter()
{
    BackoffPolicy policy = waitingForResets(1);
    policy.classification.maxRetryAfterMs = 200;
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    const QUrl limited = url(QStringLiteral("/ratelimit?rps=0.5&burst=1&key=bounded"));
    executor.submit(Testing::getSpec(limited));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 10'000);
    const quint64 second = executor.submit(Testing::getSpec(limited));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 2, 10'000);
    const AttemptRecord held = c.attemptsOf(second).constFirst();
    // The reset is 2 s away; the hold ends at the policy's bound.
    QVERIFY2(held.queuedNs >= 150'000'000 && held.queuedNs < 1'500'000'000, qPrintable(QString::number(held.queuedNs)));
    QVERIFY2(held.reason.contains(QStringLiteral("bounded to 200 ms")), qPrintable(held.reason));
}

// Eighty requests, twenty a second for four seconds, at a server that lets ten a second
// through after a burst of ten. Sent as they come, a third or more meet a 429; with the
// adaptive limiter, the first 429s turn its token bucket on at a share of the rate it
// measured, and the attempts after them wait for tokens at about the rate the server
// allows, so far fewer are refused. (Paced, not all at once: the limiter measures the
// client's rate in half-second buckets, and a client throttled before its first half
// second would start from the minimum rate, as botocore's does: the burst lasts a second.)
void TestExecutorResponse::adaptiveLimiter_slowsTheClientToTheServersRate()
{
    const auto run = [this](const BackoffPolicy &policy, const QString &key) {
        RetryExecutor executor;
        executor.setPolicy(policy);
        executor.setConcurrencyLimit(1);
        Collector c(&executor);
        const QUrl limited = url(QStringLiteral("/ratelimit?rps=10&burst=10&key=%1").arg(key));
        int submitted = 0;
        QTimer pace;
        pace.setTimerType(Qt::PreciseTimer);
        pace.setInterval(50);
        QObject::connect(&pace, &QTimer::timeout, &executor, [&] {
            executor.submit(Testing::getSpec(limited));
            if (++submitted == 80)
                pace.stop();
        });
        pace.start();
        [&] { QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 80, 90'000); }();
        return c.attempts;
    };
    const auto refused = [](const QList<AttemptRecord> &attempts) {
        return std::count_if(attempts.cbegin(), attempts.cend(),
            [](const AttemptRecord &a) { return a.httpStatus == std::optional<int>(429); });
    };

    BackoffPolicy fast = quickConstant(1);
    const QList<AttemptRecord> unlimited = run(fast, QStringLiteral("unlimited"));
    QCOMPARE(unlimited.size(), 80);
    const auto refusedUnlimited = refused(unlimited);

    BackoffPolicy adaptive = fast;
    adaptive.rateLimiter.kind = RateLimiterKind::AwsAdaptive;
    const QList<AttemptRecord> limited = run(adaptive, QStringLiteral("adaptive"));
    QCOMPARE(limited.size(), 80);
    const auto refusedLimited = refused(limited);
    qInfo() << "429s without the limiter" << refusedUnlimited << "with it" << refusedLimited;
    QVERIFY2(refusedUnlimited >= 15, qPrintable(QString::number(refusedUnlimited)));
    QVERIFY2(refusedLimited * 2 < refusedUnlimited,
        qPrintable(QStringLiteral("%1 429s with the limiter, %2 without").arg(refusedLimited).arg(refusedUnlimited)));
    // The waits are the limiter's, on record: in the attempts' queued time and their reasons.
    qint64 longestWaitNs = 0;
    for (const AttemptRecord &a : limited) {
        if (a.reason.contains(QStringLiteral("for the adaptive rate limiter")))
            longestWaitNs = std::max(longestWaitNs, a.queuedNs);
    }
    QVERIFY2(longestWaitNs >= 50'000'000, qPrintable(QString::number(longestWaitNs)));
    // Until the first 429, nothing waits: the limiter starts off, as botocore's does.
    QVERIFY(!limited.constFirst().reason.contains(QStringLiteral("adaptive rate limiter")));
}

QTEST_GUILESS_MAIN(TestExecutorResponse)
#include "tst_executorresponse.moc"
