// Hedging (BackoffPolicy::hedging) against the project's fault server on
// loopback with real timers: a further attempt goes out while the first is
// still in flight, the first acceptable answer wins and the others are cut; an
// answer the policy would retry sends the next attempt at once, any other ends
// the request; the attempt limit, the deadline, a cancel, the retry budget and
// the idempotency rules bound it as they bound retries.

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/http/serverlogentry.h"
#include "tests/core/executor/executorcollector.h"

#include <QSignalSpy>
#include <QTest>

#include <algorithm>

using namespace RetryLab::Core;
using RetryLab::Core::Testing::Collector;

class TestExecutorHedging final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void slowFirstAttempt_theHedgeWinsAndTheFirstIsCancelled();
    void quickAnswer_sendsNoHedge();
    void nonFatalAnswer_sendsTheNextAttemptAtOnce();
    void fatalAnswer_endsTheRequestAndCutsTheOthers();
    void everyAttemptFails_attemptsExhausted();
    void attemptLimitAndDeadline_boundTheHedges();
    void cancel_cutsEveryAttemptInFlight();
    void retryBudget_refusesFurtherHedges();
    void notIdempotent_isNotHedged();
    void openBreaker_stopsTheHedges();
    void cancelAll_cutsEveryHedge_andNothingStartsMeanwhile();
    void lognormalAnswers_hedgingTradesLoadForTheTail();
    void unusablePolicy_isRefusedWithTheReason_data();
    void unusablePolicy_isRefusedWithTheReason();

private:
    QUrl url(const QString &pathAndQuery) const { return m_server.baseUrl().resolved(QUrl(pathAndQuery)); }
    /// A GET of /status/200 whose answers follow `steps` (a scripted test of the fault server).
    RequestSpec scripted(const QStringList &steps);
    /// Requests the server has read, control requests aside.
    int requestsSeen() const;

    FaultServer m_server;
};

namespace {

BackoffPolicy hedging(int attempts, double delayMs)
{
    BackoffPolicy p = Testing::fastPolicy(attempts);
    p.hedging = {true, attempts, delayMs};
    p.attemptTimeoutMs = 20'000;
    return p;
}

const AttemptRecord *attemptAt(const QList<AttemptRecord> &records, int index)
{
    const auto it = std::find_if(
        records.cbegin(), records.cend(), [index](const AttemptRecord &a) { return a.attemptIndex == index; });
    return it == records.cend() ? nullptr : &*it;
}

QByteArray headerOf(const AttemptRecord &record, const QByteArray &name)
{
    for (const auto &[key, value] : record.requestHeaders) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

} // namespace

void TestExecutorHedging::initTestCase()
{
    QVERIFY(m_server.listen());
}

void TestExecutorHedging::init()
{
    m_server.reset();
}

RequestSpec TestExecutorHedging::scripted(const QStringList &steps)
{
    const Result<QString> created = m_server.createTest(steps);
    RequestSpec spec = Testing::getSpec(url(QStringLiteral("/status/200")));
    if (created)
        spec.headers.append({QByteArray("X-Retry-Test-Id"), created->toLatin1()});
    else
        qWarning() << created.error();
    return spec;
}

int TestExecutorHedging::requestsSeen() const
{
    const QList<ServerLogEntry> log = m_server.log();
    return int(std::count_if(log.cbegin(), log.cend(),
        [](const ServerLogEntry &e) { return !e.target.startsWith(QLatin1String("/_control")); }));
}

void TestExecutorHedging::slowFirstAttempt_theHedgeWinsAndTheFirstIsCancelled()
{
    RetryExecutor executor;
    executor.setPolicy(hedging(3, 150));
    Collector c(&executor);
    QSignalSpy started(&executor, &RetryExecutor::attemptStarted);
    const quint64 id = executor.submit(scripted({QStringLiteral("stall"), QStringLiteral("return-200")}));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);

    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.finalStatus, std::optional<int>(200));
    QCOMPARE(result.attempts, 2);
    // The hedge went out after its delay, while the first stalled, and its answer ended the request.
    QVERIFY2(result.totalMs() >= 140.0 && result.totalMs() < 15'000.0, qPrintable(QString::number(result.totalMs())));
    QCOMPARE(started.size(), 2);
    QCOMPARE(started.at(0).at(0).toULongLong(), id);
    QCOMPARE(started.at(1).at(1).toInt(), 1);

    const QList<AttemptRecord> records = c.attemptsOf(id);
    QCOMPARE(records.size(), 2);
    // The winner is told first, then the attempt it beat.
    QCOMPARE(records.at(0).attemptIndex, 1);
    const AttemptRecord *first = attemptAt(records, 0);
    const AttemptRecord *hedge = attemptAt(records, 1);
    QVERIFY(first && hedge);
    QVERIFY(hedge->hedged);
    QVERIFY(hedge->hedgeWinner);
    QCOMPARE(hedge->httpStatus, std::optional<int>(200));
    QCOMPARE(hedge->decision, Classification::Decision::Success);
    QVERIFY2(hedge->reason.contains(QStringLiteral("it answered first: 1 other attempt(s) cancelled")),
        qPrintable(hedge->reason));
    QCOMPARE(hedge->plannedDelayMs, 150.0);
    QVERIFY2(hedge->actualDelayMs >= 140.0, qPrintable(QString::number(hedge->actualDelayMs)));
    QVERIFY(hedge->startNs < first->endNs); // in flight together

    QVERIFY(!first->hedged);
    QVERIFY(!first->hedgeWinner);
    QCOMPARE(first->end, AttemptEnd::Cancelled);
    QCOMPARE(first->decision, Classification::Decision::GiveUp);
    QVERIFY2(first->reason.contains(QStringLiteral("attempt 2 answered first")), qPrintable(first->reason));

    // One logical request on the wire: the same request id, attempts 1 and 2.
    QCOMPARE(headerOf(*first, "X-Retry-Request-Id"), headerOf(*hedge, "X-Retry-Request-Id"));
    QCOMPARE(headerOf(*first, "X-Retry-Attempt"), QByteArray("1"));
    QCOMPARE(headerOf(*hedge, "X-Retry-Attempt"), QByteArray("2"));
    QCOMPARE(requestsSeen(), 2);
    QCOMPARE(executor.activeCount(), 0);
    QCOMPARE(executor.inFlightCount(), 0);
}

void TestExecutorHedging::quickAnswer_sendsNoHedge()
{
    RetryExecutor executor;
    executor.setPolicy(hedging(3, 400));
    Collector c(&executor);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    const quint64 id = executor.submit(Testing::getSpec(url(QStringLiteral("/status/200"))));
    QTRY_COMPARE_WITH_TIMEOUT(idle.size(), 1, 20'000);

    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.attempts, 1);
    const QList<AttemptRecord> records = c.attemptsOf(id);
    QCOMPARE(records.size(), 1);
    QVERIFY(!records.constFirst().hedged);
    QVERIFY(records.constFirst().hedgeWinner);

    // The hedge that was due after 400 ms never goes out: a request submitted after it is the second the server sees.
    const quint64 later = executor.submit(Testing::getSpec(url(QStringLiteral("/delay/600"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(later).has_value(), 20'000);
    QCOMPARE(c.resultOf(later)->attempts, 2); // 600 ms outlasts the 400 ms delay: that one was hedged
    QCOMPARE(requestsSeen(), 3);
}

void TestExecutorHedging::nonFatalAnswer_sendsTheNextAttemptAtOnce()
{
    RetryExecutor executor;
    executor.setPolicy(hedging(3, 10'000)); // the delay never passes: only the 503 sends the next
    Collector c(&executor);
    const quint64 id = executor.submit(scripted({QStringLiteral("return-503"), QStringLiteral("return-200")}));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);

    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.attempts, 2);
    QVERIFY2(result.totalMs() < 9'000.0, qPrintable(QString::number(result.totalMs())));
    const QList<AttemptRecord> records = c.attemptsOf(id);
    QCOMPARE(records.size(), 2);
    const AttemptRecord &failed = records.at(0);
    QCOMPARE(failed.attemptIndex, 0);
    QCOMPARE(failed.httpStatus, std::optional<int>(503));
    QCOMPARE(failed.decision, Classification::Decision::RetryAfterDelay);
    QCOMPARE(failed.nextDelayMs, 0.0);
    QVERIFY2(failed.reason.contains(QStringLiteral("not fatal: attempt 2 goes out now")), qPrintable(failed.reason));
    QVERIFY(!failed.hedgeWinner);
    const AttemptRecord &won = records.at(1);
    QVERIFY(!won.hedged); // the first had ended
    QVERIFY(won.hedgeWinner);
    QCOMPARE(won.httpStatus, std::optional<int>(200));
}

void TestExecutorHedging::fatalAnswer_endsTheRequestAndCutsTheOthers()
{
    RetryExecutor executor;
    executor.setPolicy(hedging(4, 100));
    Collector c(&executor);
    const quint64 id = executor.submit(scripted({QStringLiteral("stall"), QStringLiteral("return-404")}));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);

    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::GaveUp);
    QCOMPARE(result.finalStatus, std::optional<int>(404));
    QVERIFY2(result.reason.startsWith(QStringLiteral("attempt 2: ")), qPrintable(result.reason));
    const QList<AttemptRecord> records = c.attemptsOf(id);
    QCOMPARE(records.size(), 2);
    QCOMPARE(attemptAt(records, 1)->decision, Classification::Decision::GiveUp);
    QVERIFY(attemptAt(records, 1)->hedgeWinner);
    QCOMPARE(attemptAt(records, 0)->end, AttemptEnd::Cancelled);
    QCOMPARE(requestsSeen(), 2); // the 404 came before the third attempt was due
}

void TestExecutorHedging::everyAttemptFails_attemptsExhausted()
{
    RetryExecutor executor;
    executor.setPolicy(hedging(3, 5'000));
    Collector c(&executor);
    const quint64 id = executor.submit(Testing::getSpec(url(QStringLiteral("/status/503"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);

    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(result.attempts, 3);
    QCOMPARE(result.finalStatus, std::optional<int>(503));
    QVERIFY2(result.reason.startsWith(QStringLiteral("all 3 hedged attempts failed")), qPrintable(result.reason));
    const QList<AttemptRecord> records = c.attemptsOf(id);
    QCOMPARE(records.size(), 3);
    QVERIFY(records.constLast().reason.contains(QStringLiteral("all 3 hedged attempts failed")));
    QVERIFY(std::none_of(records.cbegin(), records.cend(), [](const AttemptRecord &a) { return a.hedgeWinner; }));
    QCOMPARE(requestsSeen(), 3);
}

void TestExecutorHedging::attemptLimitAndDeadline_boundTheHedges()
{
    BackoffPolicy policy = hedging(3, 50);
    policy.deadlineMs = 1'000;
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    const quint64 id = executor.submit(
        scripted({QStringLiteral("stall"), QStringLiteral("stall"), QStringLiteral("stall"), QStringLiteral("stall")}));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);

    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::DeadlineExceeded);
    QVERIFY2(result.totalMs() >= 990.0, qPrintable(QString::number(result.totalMs())));
    QCOMPARE(result.attempts, 3);
    const QList<AttemptRecord> records = c.attemptsOf(id);
    QCOMPARE(records.size(), 3);
    for (const AttemptRecord &a : records) {
        QCOMPARE(a.end, AttemptEnd::Deadline);
        QVERIFY2(a.reason.contains(QStringLiteral("the total deadline of 1000 ms was reached")), qPrintable(a.reason));
    }
    QVERIFY(attemptAt(records, 1)->hedged);
    QVERIFY(attemptAt(records, 2)->hedged);
    QCOMPARE(requestsSeen(), 3); // three stalls, never a fourth attempt
}

void TestExecutorHedging::cancel_cutsEveryAttemptInFlight()
{
    RetryExecutor executor;
    executor.setPolicy(hedging(5, 50));
    Collector c(&executor);
    QSignalSpy started(&executor, &RetryExecutor::attemptStarted);
    const quint64 id = executor.submit(scripted(QStringList(5, QStringLiteral("stall"))));
    QTRY_VERIFY_WITH_TIMEOUT(started.size() >= 2, 20'000);
    executor.cancel(id);
    QVERIFY(c.resultOf(id).has_value());
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Cancelled);
    const QList<AttemptRecord> records = c.attemptsOf(id);
    QCOMPARE(records.size(), started.size());
    for (const AttemptRecord &a : records)
        QCOMPARE(a.end, AttemptEnd::Cancelled);
    QCOMPARE(executor.activeCount(), 0);
    QCOMPARE(executor.inFlightCount(), 0);
}

void TestExecutorHedging::retryBudget_refusesFurtherHedges()
{
    // gRPC throttling: 2 tokens, a failure costs 1, no retry (no hedge) at or below half.
    BackoffPolicy policy = hedging(5, 5'000);
    policy.retryBudget.kind = RetryBudgetKind::GrpcThrottling;
    policy.retryBudget.grpcMaxTokens = 2;
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    const quint64 id = executor.submit(Testing::getSpec(url(QStringLiteral("/status/503"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);

    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::BudgetExhausted);
    QCOMPARE(result.attempts, 1);
    QVERIFY2(result.reason.contains(QStringLiteral("retry budget exhausted after 1 hedged attempt(s)")),
        qPrintable(result.reason));
    QVERIFY(c.attemptsOf(id).constFirst().reason.contains(QStringLiteral("the retry budget refused")));
    QCOMPARE(requestsSeen(), 1);
}

void TestExecutorHedging::notIdempotent_isNotHedged()
{
    BackoffPolicy policy = hedging(3, 50);
    policy.attemptTimeoutMs = 600;
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    RequestSpec post = scripted({QStringLiteral("stall"), QStringLiteral("return-200")});
    post.method = "POST";
    post.body = "{}";
    const quint64 id = executor.submit(post);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);

    // One attempt, cut by its timeout, and not repeated: POST may have been applied.
    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.attempts, 1);
    QCOMPARE(c.attemptsOf(id).constFirst().end, AttemptEnd::AttemptTimeout);
    QVERIFY(!c.attemptsOf(id).constFirst().hedged);
    QCOMPARE(requestsSeen(), 1);
}

void TestExecutorHedging::openBreaker_stopsTheHedges()
{
    // The breaker opens on the first failure: the hedge that 503 sends at once is refused.
    BackoffPolicy policy = hedging(4, 5'000);
    policy.retryBudget.kind = RetryBudgetKind::AwsStandard;
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 1;
    policy.circuitBreaker.openMs = 60'000;
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    const quint64 id = executor.submit(Testing::getSpec(url(QStringLiteral("/status/503"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);
    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::CircuitOpen);
    QCOMPARE(result.attempts, 1); // the refused hedge never went out
    QCOMPARE(result.finalStatus, std::optional<int>(503)); // the last answer that came
    QCOMPARE(executor.budgetTokens(), executor.budgetCapacity()); // and its cost came back
    QCOMPARE(c.attemptsOf(id).size(), 1);
    QCOMPARE(requestsSeen(), 1);
    QCOMPARE(executor.activeCount(), 0);
}

void TestExecutorHedging::cancelAll_cutsEveryHedge_andNothingStartsMeanwhile()
{
    // Two slots: two hedged requests' first attempts take them, their hedges and a third request wait.
    RetryExecutor executor;
    executor.setPolicy(hedging(3, 1)); // the hedges come due at once, and queue for a slot
    executor.setConcurrencyLimit(2);
    Collector c(&executor);
    QSignalSpy started(&executor, &RetryExecutor::attemptStarted);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    for (int i = 0; i < 3; ++i)
        executor.submit(scripted(QStringList(3, QStringLiteral("stall"))));
    // By the time the server has read both first attempts, the hedges' 1 ms has passed.
    QTRY_COMPARE_WITH_TIMEOUT(requestsSeen(), 2, 20'000);
    QCOMPARE(started.size(), 2);
    executor.cancelAll();
    QCOMPARE(started.size(), 2); // cutting the first two freed slots, and nothing took them
    QCOMPARE(c.results.size(), 3);
    for (const RequestResult &r : std::as_const(c.results))
        QCOMPARE(r.outcome, RequestOutcome::Cancelled);
    QCOMPARE(idle.size(), 1);
    QCOMPARE(executor.activeCount(), 0);
    QCOMPARE(executor.inFlightCount(), 0);
}

void TestExecutorHedging::lognormalAnswers_hedgingTradesLoadForTheTail()
{
    // What the herd's latency model plays on a virtual clock, on the wire: 200 requests to
    // /delay/100?dist=lognormal&sigma=0.8 (a median of 100 ms, a 99th percentile of about 640 ms),
    // once one attempt each, once hedged after 250 ms.
    const auto run = [this](const BackoffPolicy &policy, int *attempts) {
        m_server.reseed(7);
        RetryExecutor executor;
        executor.setPolicy(policy);
        executor.setConcurrencyLimit(200);
        Collector c(&executor);
        for (int i = 0; i < 200; ++i)
            executor.submit(Testing::getSpec(url(QStringLiteral("/delay/100?dist=lognormal&sigma=0.8"))));
        QList<double> ms;
        if (!QTest::qWaitFor([&c] { return c.results.size() == 200; }, 60'000))
            return ms;
        *attempts = int(c.attempts.size());
        for (const RequestResult &r : std::as_const(c.results))
            ms.append(r.totalMs());
        std::sort(ms.begin(), ms.end());
        return ms;
    };
    BackoffPolicy single = Testing::fastPolicy(1);
    single.attemptTimeoutMs = 20'000;
    int singleAttempts = 0;
    const QList<double> alone = run(single, &singleAttempts);
    int hedgedAttempts = 0;
    const QList<double> hedged = run(hedging(3, 250), &hedgedAttempts);
    QCOMPARE(alone.size(), 200);
    QCOMPARE(hedged.size(), 200);
    const auto at = [](const QList<double> &sorted, double q) { return sorted.at(qsizetype(q * (sorted.size() - 1))); };
    const QString record = QStringLiteral("one attempt: %1 attempts, median %2 ms, 99th percentile %3 ms; hedged: %4 "
                                          "attempts, median %5 ms, 99th percentile %6 ms")
                               .arg(singleAttempts)
                               .arg(at(alone, 0.5), 0, 'f', 0)
                               .arg(at(alone, 0.99), 0, 'f', 0)
                               .arg(hedgedAttempts)
                               .arg(at(hedged, 0.5), 0, 'f', 0)
                               .arg(at(hedged, 0.99), 0, 'f', 0);
    qInfo().noquote() << record;
    QCOMPARE(singleAttempts, 200);
    // The load it adds: the answers slower than 250 ms (about 13 %) sent a second attempt, some a third.
    QVERIFY2(hedgedAttempts > 210 && hedgedAttempts < 300, qPrintable(record));
    // The tail it saves, the median unmoved.
    QVERIFY2(at(hedged, 0.99) < 0.8 * at(alone, 0.99), qPrintable(record));
    QVERIFY2(std::abs(at(hedged, 0.5) - at(alone, 0.5)) < 40.0, qPrintable(record));
    // Every attempt reached the server, the cut ones too: their answers come late, and the log has them all.
    QTRY_COMPARE_WITH_TIMEOUT(requestsSeen(), singleAttempts + hedgedAttempts, 30'000);
}

void TestExecutorHedging::unusablePolicy_isRefusedWithTheReason_data()
{
    QTest::addColumn<int>("attempts");
    QTest::addColumn<double>("delayMs");
    QTest::addColumn<QString>("message");
    QTest::addRow("delay of 0") << 3 << 0.0
                                << QStringLiteral("hedging.delayMs: the hedging delay must be above 0 ms (got 0)");
    QTest::addRow("delay not a number") << 3 << std::nan("")
                                        << QStringLiteral("hedging.delayMs: the hedging delay must be a finite number");
    QTest::addRow("one attempt") << 1 << 100.0
                                 << QStringLiteral("hedging.maxAttempts: must lie between 2 and 10 (got 1)");
}

void TestExecutorHedging::unusablePolicy_isRefusedWithTheReason()
{
    QFETCH(int, attempts);
    QFETCH(double, delayMs);
    QFETCH(QString, message);
    BackoffPolicy policy = hedging(3, 100);
    policy.hedging.maxAttempts = attempts;
    policy.hedging.delayMs = delayMs;
    RetryExecutor executor;
    Collector c(&executor);
    const quint64 id = executor.submit(Testing::getSpec(url(QStringLiteral("/status/200"))), policy);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::InvalidRequest);
    QVERIFY2(c.resultOf(id)->reason.contains(message), qPrintable(c.resultOf(id)->reason));
    QCOMPARE(requestsSeen(), 0);
}

QTEST_GUILESS_MAIN(TestExecutorHedging)
#include "tst_executorhedging.moc"
