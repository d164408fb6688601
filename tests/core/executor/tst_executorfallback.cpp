// Fallback endpoints: after the policy gives up on a request's URL, its
// fallbacks are tried in order, one attempt each, without backoff, against two
// real fault servers on loopback (a primary and an alternative service).

#include "core/executor/requestcheck.h"
#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "tests/core/executor/executorcollector.h"

#include <QSignalSpy>
#include <QTest>

#include <algorithm>

using namespace RetryLab::Core;
using RetryLab::Core::Testing::Collector;
using RetryLab::Core::Testing::fastPolicy;

class TestExecutorFallback : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void primaryGivesUp_fallbacksTriedInOrder_firstSuccessAnswers();
    void everyFallbackFails_outcomeIsThePolicys_reasonSaysAll();
    void primarySucceeds_fallbacksNeverCalled();
    void fallbackIsAnotherAttempt_sameRulesDecide_data();
    void fallbackIsAnotherAttempt_sameRulesDecide();
    void deadlinePassed_fallbackStillTried();
    void circuitOpen_goesStraightToTheFallback();
    void cancelDuringFallback_endsTheRequest();
    void invalidFallbacks_refusedWithReason_data();
    void invalidFallbacks_refusedWithReason();
    void fallbackOn_listReplacesTransientFaults_idempotencyStillRules_data();
    void fallbackOn_listReplacesTransientFaults_idempotencyStillRules();
    void fallbackOn_badEntry_refusedNamingIt();

private:
    QUrl primary(const QString &path) const { return m_primary.baseUrl().resolved(QUrl(path)); }
    QUrl alternative(const QString &path) const { return m_alternative.baseUrl().resolved(QUrl(path)); }
    /// Requests the alternative service got, by path.
    int hitsOn(const FaultServer &server, const QString &path) const
    {
        const QList<ServerLogEntry> log = server.log();
        return int(std::count_if(log.cbegin(), log.cend(), [&](const ServerLogEntry &e) { return e.target == path; }));
    }

    FaultServer m_primary;
    FaultServer m_alternative;
};

void TestExecutorFallback::initTestCase()
{
    QVERIFY(m_primary.listen());
    QVERIFY(m_alternative.listen());
    QVERIFY(m_primary.serverPort() != m_alternative.serverPort());
}

void TestExecutorFallback::init()
{
    m_primary.reset();
    m_alternative.reset();
}

void TestExecutorFallback::primaryGivesUp_fallbacksTriedInOrder_firstSuccessAnswers()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3));
    Collector c(&executor);
    QSignalSpy scheduled(&executor, &RetryExecutor::retryScheduled);
    RequestSpec spec;
    spec.url = primary(QStringLiteral("/status/503"));
    spec.fallbackUrls = {alternative(QStringLiteral("/status/500")), alternative(QStringLiteral("/status/200")),
        alternative(QStringLiteral("/status/201"))};
    const quint64 id = executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 15'000);

    const RequestResult &result = c.results.constFirst();
    QCOMPARE(result.requestId, id);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.fallback, 2);
    QCOMPARE(result.attempts, 5); // three at the URL, one at each of the first two fallbacks
    QCOMPARE(result.finalStatus, 200);
    QVERIFY2(result.reason.contains(QLatin1String("fallback 2 of 3")), qPrintable(result.reason));

    QCOMPARE(c.attempts.size(), 5);
    const QList<int> fallbacks{0, 0, 0, 1, 2};
    for (int i = 0; i < 5; ++i) {
        const AttemptRecord &a = c.attempts.at(i);
        QCOMPARE(a.attemptIndex, i);
        QCOMPARE(a.fallback, fallbacks.at(i));
        QCOMPARE(a.url, i < 3 ? spec.url : spec.fallbackUrls.at(i - 3));
    }
    // The primary's last attempt gave up (no retry follows it); the first fallback failed and was not retried.
    QVERIFY(c.attempts.at(2).decision != Classification::Decision::Success);
    QCOMPARE(c.attempts.at(2).nextDelayMs, -1.0);
    QVERIFY2(
        c.attempts.at(2).reason.contains(QLatin1String("attempt limit reached")), qPrintable(c.attempts.at(2).reason));
    QCOMPARE(c.attempts.at(3).httpStatus, 500);
    QCOMPARE(c.attempts.at(3).decision, Classification::Decision::GiveUp);
    QVERIFY(c.attempts.at(3).reason.contains(QLatin1String("one attempt")));
    QCOMPARE(c.attempts.at(4).decision, Classification::Decision::Success);
    // No backoff before a fallback: it goes out at once.
    QCOMPARE(c.attempts.at(3).plannedDelayMs, 0.0);
    QVERIFY(c.attempts.at(3).startNs - c.attempts.at(2).endNs < qint64(1'000) * 1'000'000);
    // Two retries at the URL, then the two moves to a fallback, each announced with its reason.
    QCOMPARE(scheduled.size(), 4);
    QCOMPARE(scheduled.at(2).at(2).toDouble(), 0.0);
    QVERIFY2(scheduled.at(2).at(3).toString().contains(QLatin1String("trying fallback 1 of 3")),
        qPrintable(scheduled.at(2).at(3).toString()));
    QVERIFY(scheduled.at(3).at(3).toString().contains(QLatin1String("trying fallback 2 of 3")));

    // The servers saw exactly that: three at the URL, one at each fallback tried, none at the third.
    QCOMPARE(hitsOn(m_primary, QStringLiteral("/status/503")), 3);
    QCOMPARE(hitsOn(m_alternative, QStringLiteral("/status/500")), 1);
    QCOMPARE(hitsOn(m_alternative, QStringLiteral("/status/200")), 1);
    QCOMPARE(hitsOn(m_alternative, QStringLiteral("/status/201")), 0);
}

void TestExecutorFallback::everyFallbackFails_outcomeIsThePolicys_reasonSaysAll()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(2));
    Collector c(&executor);
    RequestSpec spec;
    spec.url = primary(QStringLiteral("/status/503"));
    spec.fallbackUrls = {alternative(QStringLiteral("/status/502")), alternative(QStringLiteral("/status/404"))};
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 15'000);
    const RequestResult &result = c.results.constFirst();
    QCOMPARE(result.outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(result.attempts, 4);
    QCOMPARE(result.fallback, 2);
    QCOMPARE(result.finalStatus, 404);
    QVERIFY2(result.reason.contains(QLatin1String("gave up after 2 attempt")), qPrintable(result.reason));
    QVERIFY2(result.reason.contains(QLatin1String("fallback 1 of 2")), qPrintable(result.reason));
    QVERIFY2(result.reason.contains(QLatin1String("fallback 2 of 2")), qPrintable(result.reason));
    QVERIFY2(result.reason.contains(QLatin1String("404")), qPrintable(result.reason));
}

void TestExecutorFallback::primarySucceeds_fallbacksNeverCalled()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(4));
    Collector c(&executor);
    RequestSpec spec;
    // A fresh key fails twice, then answers 200: the policy's retries do the job.
    spec.url = primary(QStringLiteral("/fail/2?key=fallback-unused"));
    spec.fallbackUrls = {alternative(QStringLiteral("/status/200"))};
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 15'000);
    QCOMPARE(c.results.constFirst().outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.results.constFirst().fallback, 0);
    QCOMPARE(c.results.constFirst().attempts, 3);
    QCOMPARE(m_alternative.log().size(), 0);
}

// A fallback is one more attempt: the rules that decide a retry decide it. A POST whose
// outcome is unknown, or a fault the policy does not retry, never goes to a fallback.
void TestExecutorFallback::fallbackIsAnotherAttempt_sameRulesDecide_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("header"); // "Name: value", or empty
    QTest::addColumn<bool>("fallsBack");
    QTest::addColumn<QString>("reason"); // part of the result's reason
    QTest::addRow("GET 503") << QByteArray("GET") << QStringLiteral("/status/503") << QByteArray() << true
                             << QStringLiteral("fallback 1 of 2");
    QTest::addRow("GET reset") << QByteArray("GET") << QStringLiteral("/fault/reset") << QByteArray() << true
                               << QStringLiteral("fallback 1 of 2");
    QTest::addRow("GET 400") << QByteArray("GET") << QStringLiteral("/status/400") << QByteArray() << false
                             << QStringLiteral("no fallback asked");
    QTest::addRow("GET 401") << QByteArray("GET") << QStringLiteral("/status/401") << QByteArray() << false
                             << QStringLiteral("no fallback asked");
    QTest::addRow("PUT stale 409 ABORTED")
        << QByteArray("PUT") << QStringLiteral("/occ/fallback-stale") << QByteArray("If-Match: \"v0\"") << false
        << QStringLiteral("stale version");
    QTest::addRow("POST 503") << QByteArray("POST") << QStringLiteral("/status/503") << QByteArray() << false
                              << QStringLiteral("not idempotent");
    QTest::addRow("POST reset, outcome unknown") << QByteArray("POST") << QStringLiteral("/fault/reset") << QByteArray()
                                                 << false << QStringLiteral("outcome is unknown");
    QTest::addRow("POST with an Idempotency-Key")
        << QByteArray("POST") << QStringLiteral("/fault/reset") << QByteArray("Idempotency-Key: k-1") << true
        << QStringLiteral("fallback 1 of 2");
}

void TestExecutorFallback::fallbackIsAnotherAttempt_sameRulesDecide()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, header);
    QFETCH(bool, fallsBack);
    QFETCH(QString, reason);
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(2));
    Collector c(&executor);
    RequestSpec spec;
    spec.method = method;
    if (method != "GET") {
        spec.body = R"({"value": 1})";
        spec.headers.append({QByteArray("Content-Type"), QByteArray("application/json")});
    }
    if (!header.isEmpty()) {
        const qsizetype colon = header.indexOf(':');
        spec.headers.append({header.left(colon), header.mid(colon + 1).trimmed()});
    }
    spec.url = primary(path);
    spec.fallbackUrls = {alternative(QStringLiteral("/status/200")), alternative(QStringLiteral("/status/201"))};
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 15'000);
    const RequestResult &result = c.results.constFirst();
    QVERIFY2(result.reason.contains(reason), qPrintable(result.reason));
    QCOMPARE(result.outcome == RequestOutcome::Succeeded, fallsBack);
    QCOMPARE(result.fallback, fallsBack ? 1 : 0);
    QCOMPARE(m_alternative.log().size(), fallsBack ? 1 : 0);
    if (fallsBack)
        QCOMPARE(c.attempts.constLast().method, method);
}

void TestExecutorFallback::deadlinePassed_fallbackStillTried()
{
    // The URL stalls past the total deadline; the fallback's attempt is bounded by its own timeout, not by the
    // deadline that already passed.
    BackoffPolicy policy = fastPolicy(0);
    policy.deadlineMs = 300;
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    RequestSpec spec;
    spec.url = primary(QStringLiteral("/delay/5000"));
    spec.fallbackUrls = {alternative(QStringLiteral("/status/200"))};
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 15'000);
    QCOMPARE(c.results.constFirst().outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.results.constFirst().fallback, 1);
    QCOMPARE(c.attempts.constFirst().end, AttemptEnd::Deadline);
    QCOMPARE(c.attempts.constLast().httpStatus, 200);
}

void TestExecutorFallback::circuitOpen_goesStraightToTheFallback()
{
    BackoffPolicy policy = fastPolicy(1);
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 2;
    policy.circuitBreaker.openMs = 60'000;
    RetryExecutor executor;
    executor.setPolicy(policy);
    executor.setConcurrencyLimit(1);
    Collector c(&executor);
    for (int i = 0; i < 2; ++i) {
        RequestSpec failing;
        failing.url = primary(QStringLiteral("/status/503"));
        executor.submit(failing);
    }
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 2, 15'000);
    const int primaryHits = int(m_primary.log().size());

    RequestSpec spec;
    spec.url = primary(QStringLiteral("/status/200"));
    spec.fallbackUrls = {alternative(QStringLiteral("/status/200"))};
    const quint64 id = executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 3, 15'000);
    const RequestResult &result = c.results.constLast();
    QCOMPARE(result.requestId, id);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.fallback, 1);
    QCOMPARE(result.attempts, 1); // none at the URL: its circuit is open
    QCOMPARE(int(m_primary.log().size()), primaryHits);
    QCOMPARE(hitsOn(m_alternative, QStringLiteral("/status/200")), 1);
}

void TestExecutorFallback::cancelDuringFallback_endsTheRequest()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(1));
    Collector c(&executor);
    QSignalSpy started(&executor, &RetryExecutor::attemptStarted);
    RequestSpec spec;
    spec.url = primary(QStringLiteral("/status/503"));
    spec.fallbackUrls = {alternative(QStringLiteral("/delay/5000")), alternative(QStringLiteral("/status/200"))};
    const quint64 id = executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(started.size(), 2, 10'000); // the first fallback's attempt is on its way
    executor.cancel(id);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 10'000);
    QCOMPARE(c.results.constFirst().outcome, RequestOutcome::Cancelled);
    QCOMPARE(c.attempts.size(), 2);
    QCOMPARE(c.attempts.constLast().fallback, 1);
    QCOMPARE(c.attempts.constLast().end, AttemptEnd::Cancelled);
    QTest::qWait(100);
    QCOMPARE(started.size(), 2); // the second fallback is never asked
    QCOMPARE(hitsOn(m_alternative, QStringLiteral("/status/200")), 0);
}

void TestExecutorFallback::invalidFallbacks_refusedWithReason_data()
{
    QTest::addColumn<QString>("fallback");
    QTest::addColumn<bool>("readModifyWrite");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no host") << QStringLiteral("http:///x") << false << QStringLiteral("fallback 1");
    QTest::newRow("ftp") << QStringLiteral("ftp://127.0.0.1/x") << false << QStringLiteral("only http and https");
    QTest::newRow("read-modify-write") << QStringLiteral("http://127.0.0.1:1/x") << true
                                       << QStringLiteral("single requests");
}

void TestExecutorFallback::invalidFallbacks_refusedWithReason()
{
    QFETCH(QString, fallback);
    QFETCH(bool, readModifyWrite);
    QFETCH(QString, expected);
    RequestSpec spec;
    spec.url = primary(QStringLiteral("/status/200"));
    if (readModifyWrite)
        spec.kind = RequestSpec::Kind::ReadModifyWrite;
    spec.fallbackUrls = {QUrl(fallback)};
    RetryExecutor executor;
    Collector c(&executor);
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 5000);
    QCOMPARE(c.results.constFirst().outcome, RequestOutcome::InvalidRequest);
    QVERIFY2(c.results.constFirst().reason.contains(expected), qPrintable(c.results.constFirst().reason));
    QCOMPARE(m_primary.log().size(), 0);

    // More than the bound is refused too.
    RequestSpec many;
    many.url = primary(QStringLiteral("/status/200"));
    for (int i = 0; i <= maxFallbacks; ++i)
        many.fallbackUrls.append(alternative(QStringLiteral("/status/200")));
    QVERIFY(!checkRequest(many));
}

// A request's own list (RequestSpec::fallbackOn) replaces the faults the policy calls
// transient as what leads to a fallback; whether the request may be repeated is still
// the idempotency rules' to say.
void TestExecutorFallback::fallbackOn_listReplacesTransientFaults_idempotencyStillRules_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("header"); // "Name: value", or empty
    QTest::addColumn<QStringList>("fallbackOn");
    QTest::addColumn<double>("attemptTimeoutMs"); // 0: the policy's
    QTest::addColumn<double>("deadlineMs"); // 0: none
    QTest::addColumn<QString>("trigger"); // the entry that sent it to the fallback; empty: none did
    QTest::addColumn<QString>("reason"); // part of the result's reason, or of the move's
    const QStringList only503{QStringLiteral("503")};
    const QStringList onlyTimeout{QStringLiteral("timeout")};
    QTest::addRow("503 listed") << QByteArray("GET") << QStringLiteral("/status/503") << QByteArray() << only503 << 0.0
                                << 0.0 << QStringLiteral("503")
                                << QStringLiteral("\"503\" is in the request's fallback list");
    QTest::addRow("500 transient but not listed")
        << QByteArray("GET") << QStringLiteral("/status/500") << QByteArray() << only503 << 0.0 << 0.0 << QString()
        << QStringLiteral("no fallback asked: http-500 is not in the request's fallback list (503)");
    QTest::addRow("502 by its class") << QByteArray("GET") << QStringLiteral("/status/502") << QByteArray()
                                      << QStringList({QStringLiteral("5xx")}) << 0.0 << 0.0 << QStringLiteral("5xx")
                                      << QStringLiteral("\"5xx\" is in");
    QTest::addRow("400, not transient, listed")
        << QByteArray("GET") << QStringLiteral("/status/400") << QByteArray() << QStringList({QStringLiteral("4xx")})
        << 0.0 << 0.0 << QStringLiteral("4xx") << QStringLiteral("\"4xx\" is in");
    QTest::addRow("attempt timeout listed")
        << QByteArray("GET") << QStringLiteral("/delay/5000") << QByteArray() << onlyTimeout << 200.0 << 0.0
        << QStringLiteral("timeout") << QStringLiteral("\"timeout\" is in");
    QTest::addRow("deadline cut, timeout listed")
        << QByteArray("GET") << QStringLiteral("/delay/5000") << QByteArray() << onlyTimeout << 0.0 << 300.0
        << QStringLiteral("timeout") << QStringLiteral("\"timeout\" is in");
    QTest::addRow("503 with only timeout listed")
        << QByteArray("GET") << QStringLiteral("/status/503") << QByteArray() << onlyTimeout << 0.0 << 0.0 << QString()
        << QStringLiteral("http-503 is not in the request's fallback list (timeout)");
    QTest::addRow("timeout with only 503 listed")
        << QByteArray("GET") << QStringLiteral("/delay/5000") << QByteArray() << only503 << 200.0 << 0.0 << QString()
        << QStringLiteral("attempt-timeout is not in the request's fallback list (503)");
    QTest::addRow("POST reset listed, outcome unknown")
        << QByteArray("POST") << QStringLiteral("/fault/reset") << QByteArray()
        << QStringList({QStringLiteral("connection-reset")}) << 0.0 << 0.0 << QString()
        << QStringLiteral("\"connection-reset\" is in the request's fallback list, but a fallback is another "
                          "attempt");
    QTest::addRow("POST 503 listed") << QByteArray("POST") << QStringLiteral("/status/503") << QByteArray() << only503
                                     << 0.0 << 0.0 << QString() << QStringLiteral("this request is not one to repeat");
    QTest::addRow("POST reset listed, with an Idempotency-Key")
        << QByteArray("POST") << QStringLiteral("/fault/reset") << QByteArray("Idempotency-Key: k-2")
        << QStringList({QStringLiteral("connection-reset")}) << 0.0 << 0.0 << QStringLiteral("connection-reset")
        << QStringLiteral("\"connection-reset\" is in");
}

void TestExecutorFallback::fallbackOn_listReplacesTransientFaults_idempotencyStillRules()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, header);
    QFETCH(QStringList, fallbackOn);
    QFETCH(double, attemptTimeoutMs);
    QFETCH(double, deadlineMs);
    QFETCH(QString, trigger);
    QFETCH(QString, reason);
    BackoffPolicy policy = fastPolicy(deadlineMs > 0.0 ? 0 : 2);
    policy.deadlineMs = deadlineMs;
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    QSignalSpy scheduled(&executor, &RetryExecutor::retryScheduled);
    RequestSpec spec;
    spec.method = method;
    if (method != "GET") {
        spec.body = R"({"value": 1})";
        spec.headers.append({QByteArray("Content-Type"), QByteArray("application/json")});
    }
    if (!header.isEmpty()) {
        const qsizetype colon = header.indexOf(':');
        spec.headers.append({header.left(colon), header.mid(colon + 1).trimmed()});
    }
    if (attemptTimeoutMs > 0.0)
        spec.attemptTimeoutMs = attemptTimeoutMs;
    spec.url = primary(path);
    spec.fallbackUrls = {alternative(QStringLiteral("/status/200"))};
    spec.fallbackOn = fallbackOn;
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 15'000);
    const RequestResult &result = c.results.constFirst();
    const bool fallsBack = !trigger.isEmpty();
    QCOMPARE(result.outcome == RequestOutcome::Succeeded, fallsBack);
    QCOMPARE(result.fallback, fallsBack ? 1 : 0);
    QCOMPARE(m_alternative.log().size(), fallsBack ? 1 : 0);
    QCOMPARE(result.fallbackTriggers, fallsBack ? QStringList{trigger} : QStringList());
    if (fallsBack) {
        // The move to the fallback says which entry sent it there.
        const QString move = scheduled.constLast().at(3).toString();
        QVERIFY2(move.contains(QLatin1String("trying fallback 1 of 1")), qPrintable(move));
        QVERIFY2(move.contains(reason), qPrintable(move));
    } else {
        QVERIFY2(result.reason.contains(reason), qPrintable(result.reason));
    }
}

void TestExecutorFallback::fallbackOn_badEntry_refusedNamingIt()
{
    RequestSpec spec;
    spec.url = primary(QStringLiteral("/status/503"));
    spec.fallbackUrls = {alternative(QStringLiteral("/status/200"))};
    spec.fallbackOn = {QStringLiteral("503"), QStringLiteral("6xx")};
    RetryExecutor executor;
    Collector c(&executor);
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 5000);
    QCOMPARE(c.results.constFirst().outcome, RequestOutcome::InvalidRequest);
    QVERIFY2(
        c.results.constFirst().reason.contains(QLatin1String("\"6xx\"")), qPrintable(c.results.constFirst().reason));
    QCOMPARE(m_primary.log().size(), 0);
    QCOMPARE(m_alternative.log().size(), 0);
}

QTEST_GUILESS_MAIN(TestExecutorFallback)
#include "tst_executorfallback.moc"
