#include "core/faultserver/faultserver.h"
#include "core/http/httpheaders.h"
#include "core/record/runrecord.h"
#include "core/scenario/scenarioreader.h"
#include "core/scenario/scenariorunner.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QUrlQuery>

using namespace RetryLab::Core;

namespace {

// Fast waits, so that the suite stays quick; the rules are the Cloud Storage preset's.
const QByteArray fastPolicy = R"({"preset": "google-cloud-storage",
    "overrides": {"baseDelayMs": 5, "maxBackoffMs": 40, "jitterMs": 5, "maxAttempts": 4, "attemptTimeoutMs": 3000}})";

QByteArray scenario(const QByteArray &requests, const QByteArray &expectations = "[]", const QByteArray &extra = {})
{
    return R"({"format": "retrylab-scenario", "name": "test", "policy": )" + fastPolicy + R"(, "requests": )" + requests
        + R"(, "expectations": )" + expectations + extra + "}";
}

Scenario read(const QByteArray &json)
{
    auto result = ScenarioReader::fromJson(json);
    if (!result)
        qFatal("test scenario is invalid: %s", qPrintable(result.error()));
    return std::move(result).value();
}

// Runs to the end; false if it failed or did not finish in time.
bool runToEnd(ScenarioRunner &runner, int timeoutMs = 20'000)
{
    QSignalSpy finished(&runner, &ScenarioRunner::finished);
    QSignalSpy failed(&runner, &ScenarioRunner::failed);
    runner.start();
    return QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, timeoutMs) && failed.isEmpty();
}

RunRecord sampleRecord()
{
    // Three requests of "a" and one of "b", without a network.
    RunRecord run;
    run.epochNs = 0;
    const auto result = [](quint64 id, RequestOutcome outcome, int attempts, std::optional<int> status, double ms) {
        RequestResult r;
        r.requestId = id;
        r.outcome = outcome;
        r.attempts = attempts;
        r.finalStatus = status;
        r.startNs = 0;
        r.endNs = qint64(ms * 1e6);
        r.reason = QStringLiteral("reason %1").arg(id);
        return r;
    };
    run.results = {result(1, RequestOutcome::Succeeded, 2, 200, 40), result(2, RequestOutcome::Succeeded, 1, 200, 5),
        result(3, RequestOutcome::GaveUp, 1, 503, 8),
        result(4, RequestOutcome::AttemptsExhausted, 3, std::nullopt, 90)};
    AttemptRecord last;
    last.requestId = 4;
    last.attemptIndex = 2;
    last.cause = QStringLiteral("connection-reset");
    AttemptRecord earlier = last;
    earlier.attemptIndex = 1;
    earlier.cause = QStringLiteral("http-503");
    run.attempts = {last, earlier};
    return run;
}

} // namespace

class TestScenarioRunner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void flakyServiceScenario_everyExpectationHolds();
    void fallbackScenario_everyOrderAnsweredByTheSecondFallback();
    void wrongExpectation_failsWithTheReason();
    void perRequestScript_everyRequestSeesTheWholeSequence();
    void endpointPolicies_eachRequestRunsUnderItsOwn();
    void sharedScript_requestsTakeStepsInTurn();
    void groupConcurrency_boundsRequestsInProgress();
    void givenServer_isUsedAndKeepsRunning();
    void noPlaceholder_startsNoServer();
    void idPlaceholder_givesEveryRequestItsOwnKey();
    void idPlaceholder_sameSeedSameKeys();
    void timeLimit_cancelsAndSaysSo();
    void timeLimit_runFailsAndUnsentRequestsMiss();
    void cancel_finishesWithWhatWasRecorded();
    void openBreaker_runStillFinishes();
    void cancel_whileBreakerRefuses_concludesOnce();
    void readModifyWriteScenario_everyIncrementLands();
    void evaluate_eachCriterion_data();
    void evaluate_eachCriterion();
    void evaluate_listsTheRequestsThatMissed();
};

void TestScenarioRunner::initTestCase()
{
    qRegisterMetaType<RetryLab::Core::AttemptRecord>();
    qRegisterMetaType<RetryLab::Core::RequestResult>();
}

void TestScenarioRunner::fallbackScenario_everyOrderAnsweredByTheSecondFallback()
{
    const auto scenario = ScenarioReader::readFile(QStringLiteral(":/scenarios/fallback.json"));
    QVERIFY2(scenario.ok(), qPrintable(scenario.error()));
    ScenarioRunner runner;
    runner.setScenario(*scenario);
    QVERIFY(runToEnd(runner));
    const RunRecord &run = runner.record();
    QCOMPARE(run.results.size(), 10);
    QCOMPARE(run.attempts.size(), 50);
    for (const RequestResult &r : run.results) {
        QCOMPARE(r.outcome, RequestOutcome::Succeeded);
        QCOMPARE(r.fallback, 2);
    }
    // The {server} of each fallback is the embedded server's address, as the URL's.
    const RequestSpec spec = run.requests.value(run.results.first().requestId);
    QCOMPARE(spec.fallbackUrls.size(), 2);
    QCOMPARE(spec.fallbackUrls.at(1).host(), QStringLiteral("127.0.0.1"));
    QCOMPARE(spec.fallbackUrls.at(1).port(), spec.url.port());
    QCOMPARE(spec.fallbackUrls.at(1).query(), QStringLiteral("service=orders-degraded"));
    for (const ExpectationResult &verdict : runner.expectationResults())
        QVERIFY2(verdict.passed, qPrintable(verdict.name + QStringLiteral(": ") + verdict.message));
}

void TestScenarioRunner::flakyServiceScenario_everyExpectationHolds()
{
    const auto scenario = ScenarioReader::readFile(QStringLiteral(":/scenarios/flaky-service.json"));
    QVERIFY2(scenario.ok(), qPrintable(scenario.error()));
    ScenarioRunner runner;
    runner.setScenario(*scenario);
    QSignalSpy started(&runner, &ScenarioRunner::started);
    QSignalSpy retries(&runner, &ScenarioRunner::retryScheduled);
    QSignalSpy progress(&runner, &ScenarioRunner::progress);
    QVERIFY(runToEnd(runner));

    QCOMPARE(started.size(), 1);
    const QUrl server = started.first().first().toUrl();
    QCOMPARE(server.host(), QStringLiteral("127.0.0.1"));
    QVERIFY(server.port() > 0);
    QCOMPARE(progress.size(), 5);
    QCOMPARE(progress.last().at(0).toInt(), 5);
    QCOMPARE(progress.last().at(1).toInt(), 5);
    // read: 2 retries; create-order-with-key: 1; rate-limited: 1.
    QCOMPARE(retries.size(), 4);

    const RunRecord &run = runner.record();
    QCOMPARE(run.requests.size(), 5);
    QCOMPARE(run.results.size(), 5);
    QCOMPARE(run.attempts.size(), 9);
    QCOMPARE(run.policy, scenario->policy);
    QCOMPARE(runner.expectationResults().size(), 5);
    for (const ExpectationResult &verdict : runner.expectationResults())
        QVERIFY2(verdict.passed, qPrintable(verdict.name + QStringLiteral(": ") + verdict.message));
    QVERIFY(runner.allExpectationsHold());
    QVERIFY(!runner.isRunning());
    QVERIFY(!runner.timedOut());
    // The scripts went to the server in the test-id header.
    for (const AttemptRecord &a : run.attempts) {
        if (runner.requestName(a.requestId) == QLatin1String("read"))
            QVERIFY(headerValue(a.requestHeaders, "X-Retry-Test-Id"));
    }
}

void TestScenarioRunner::wrongExpectation_failsWithTheReason()
{
    ScenarioRunner runner;
    runner.setScenario(read(scenario(R"([{"name": "read", "url": "{server}/status/200", "script": ["return-503"]}])",
        R"([{"request": "read", "outcome": "succeeded", "attempts": 1}, {"request": "read", "finalStatus": 200}])")));
    QVERIFY(runToEnd(runner));
    const QList<ExpectationResult> verdicts = runner.expectationResults();
    QCOMPARE(verdicts.size(), 2);
    QVERIFY(!verdicts[0].passed);
    QCOMPARE(verdicts[0].name, QStringLiteral("read (succeeded, 1 attempt(s))"));
    QVERIFY2(verdicts[0].message.contains(QLatin1String("read made 2 attempt(s)")), qPrintable(verdicts[0].message));
    QVERIFY(verdicts[1].passed);
    QVERIFY(!runner.allExpectationsHold());
    QCOMPARE(verdicts[0].requestIds.size(), 1);
}

void TestScenarioRunner::perRequestScript_everyRequestSeesTheWholeSequence()
{
    ScenarioRunner runner;
    runner.setScenario(read(scenario(
        R"([{"name": "r", "url": "{server}/status/200", "count": 3, "concurrency": 3, "script": ["return-503*2"]}])",
        R"([{"request": "r", "outcome": "succeeded", "attempts": 3}])")));
    QVERIFY(runToEnd(runner));
    QVERIFY2(runner.allExpectationsHold(), qPrintable(runner.expectationResults().first().message));
    QSet<QByteArray> testIds;
    for (const AttemptRecord &a : runner.record().attempts)
        testIds.insert(headerValue(a.requestHeaders, "X-Retry-Test-Id").value_or(QByteArray()));
    QCOMPARE(testIds.size(), 3);
}

void TestScenarioRunner::endpointPolicies_eachRequestRunsUnderItsOwn()
{
    // /status/* fails for ever; uploads give up after 2 attempts, the rest after the default 4.
    ScenarioRunner runner;
    runner.setScenario(read(scenario(
        R"([{"name": "read", "url": "{server}/status/503"}, {"name": "upload", "url": "{server}/status/503?upload=1"},
            {"name": "other", "url": "{server}/fail/9?key=endpoint-policies"}])",
        "[]",
        R"(, "endpointPolicies": [{"path": "/status/*", "policy": {"preset": "google-cloud-storage",
            "overrides": {"name": "statuses", "baseDelayMs": 5, "maxBackoffMs": 10, "jitterMs": 1, "maxAttempts": 2}}}])")));
    QVERIFY(runToEnd(runner));
    QMap<QString, int> attempts;
    for (const RequestResult &r : runner.record().results)
        attempts.insert(runner.requestName(r.requestId), r.attempts);
    QCOMPARE(attempts.value(QStringLiteral("read")), 2);
    QCOMPARE(attempts.value(QStringLiteral("upload")), 2);
    QCOMPARE(attempts.value(QStringLiteral("other")), 4);
    // The record files each request under its policy.
    const RunRecord &record = runner.record();
    QCOMPARE(record.policies.size(), 2);
    for (auto it = record.requests.cbegin(); it != record.requests.cend(); ++it) {
        const bool status = it->url.path().startsWith(QLatin1String("/status/"));
        QCOMPARE(record.policyOf(it.key()).name == QLatin1String("statuses"), status);
    }
}

void TestScenarioRunner::sharedScript_requestsTakeStepsInTurn()
{
    // One after the other: the first request meets both 503s, the others none.
    ScenarioRunner runner;
    runner.setScenario(read(scenario(R"([{"name": "r", "url": "{server}/status/200", "count": 3, "concurrency": 1,
        "script": {"steps": ["return-503*2"], "shared": true}}])")));
    QVERIFY(runToEnd(runner));
    QList<quint64> ids = runner.requestNames().keys();
    std::sort(ids.begin(), ids.end());
    QCOMPARE(ids.size(), 3);
    QMap<quint64, int> attempts;
    for (const RequestResult &r : runner.record().results) {
        QCOMPARE(r.outcome, RequestOutcome::Succeeded);
        attempts.insert(r.requestId, r.attempts);
    }
    QCOMPARE(attempts.value(ids[0]), 3);
    QCOMPARE(attempts.value(ids[1]), 1);
    QCOMPARE(attempts.value(ids[2]), 1);
    QCOMPARE(runner.requestLabel(ids[1]), QStringLiteral("r #2"));
    QCOMPARE(runner.record().requests.value(ids[2]).label, QStringLiteral("r #3"));
}

void TestScenarioRunner::groupConcurrency_boundsRequestsInProgress()
{
    ScenarioRunner runner;
    runner.setScenario(read(scenario(R"([{"name": "slow", "url": "{server}/delay/30", "count": 7, "concurrency": 2},
        {"name": "fast", "url": "{server}/status/200", "count": 3}])",
        "[]", R"(, "concurrency": 10)")));
    int inProgress = 0;
    int most = 0;
    QSet<quint64> slowStarted;
    connect(&runner, &ScenarioRunner::attemptStarted, this, [&](quint64 id, int attempt) {
        if (attempt == 0 && runner.requestName(id) == QLatin1String("slow")) {
            slowStarted.insert(id);
            most = std::max(most, ++inProgress);
        }
    });
    connect(&runner, &ScenarioRunner::requestFinished, this, [&](const RequestResult &r) {
        if (slowStarted.contains(r.requestId))
            --inProgress;
    });
    QVERIFY(runToEnd(runner));
    QCOMPARE(slowStarted.size(), 7);
    QCOMPARE(most, 2);
    QCOMPARE(runner.record().results.size(), 10);
}

void TestScenarioRunner::givenServer_isUsedAndKeepsRunning()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    ScenarioRunner runner;
    runner.setFaultServer(&server);
    runner.setScenario(read(scenario(R"([{"name": "r", "url": "{server}/status/200", "script": ["return-500"]}])")));
    QVERIFY(runToEnd(runner));
    QCOMPARE(runner.serverUrl(), server.baseUrl());
    QCOMPARE(runner.record().attempts.first().url.port(), int(server.serverPort()));
    QCOMPARE(server.handledCount(), 2u);
    QVERIFY(server.isListening());
}

void TestScenarioRunner::noPlaceholder_startsNoServer()
{
    FaultServer elsewhere;
    QVERIFY(elsewhere.listen());
    const QByteArray url = elsewhere.baseUrl().toString().toUtf8() + "/status/204";
    ScenarioRunner runner;
    runner.setScenario(read(scenario(R"([{"name": "r", "url": ")" + url + R"("}])",
        R"([{"request": "r", "outcome": "succeeded", "finalStatus": 204}])")));
    QSignalSpy started(&runner, &ScenarioRunner::started);
    QVERIFY(runToEnd(runner));
    QVERIFY(!started.first().first().toUrl().isValid());
    QVERIFY(runner.allExpectationsHold());
}

// {id} is a key of its own for every logical request, as in the window: with count
// 4, /fail/2?key={id} fails twice for each of them, not only for the first. The
// header value and the body carry the same key as the URL.
void TestScenarioRunner::idPlaceholder_givesEveryRequestItsOwnKey()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    ScenarioRunner runner;
    runner.setFaultServer(&server);
    runner.setScenario(read(scenario(R"([{"name": "r", "url": "{server}/fail/2?key={id}", "count": 4,
        "concurrency": 1, "method": "PUT", "idempotent": true, "headers": {"X-Order": "order-{id}"},
        "body": "{\"key\": \"{id}\"}"}])",
        R"([{"request": "r", "outcome": "succeeded", "attempts": {"max": 3}}])")));
    QVERIFY(runToEnd(runner));
    QVERIFY(runner.allExpectationsHold());
    const RunRecord run = runner.record();
    QCOMPARE(run.results.size(), 4);
    QSet<QString> keys;
    for (const RequestResult &r : run.results)
        QCOMPARE(r.attempts, 3);
    for (const AttemptRecord &a : run.attempts) {
        const QString key = QUrlQuery(a.url).queryItemValue(QStringLiteral("key"));
        QVERIFY2(!key.isEmpty() && !key.contains(QLatin1Char('{')), qPrintable(a.url.toString()));
        keys.insert(key);
        QCOMPARE(headerValue(a.requestHeaders, "X-Order").value_or(QByteArray()), "order-" + key.toUtf8());
        QCOMPARE(a.requestBody, "{\"key\": \"" + key.toUtf8() + "\"}");
    }
    QCOMPARE(keys.size(), 4);
    QCOMPARE(server.handledCount(), 12u);
}

void TestScenarioRunner::idPlaceholder_sameSeedSameKeys()
{
    const auto keysOf = [](quint64 seed) {
        ScenarioRunner runner;
        runner.setScenario(read(scenario(R"([{"name": "r", "url": "{server}/status/200?key={id}", "count": 3,
            "concurrency": 1}])",
            "[]", ", \"seed\": " + QByteArray::number(seed))));
        QStringList keys;
        if (!runToEnd(runner))
            return keys;
        for (const AttemptRecord &a : runner.record().attempts)
            keys.append(QUrlQuery(a.url).queryItemValue(QStringLiteral("key")));
        keys.sort();
        return keys;
    };
    const QStringList first = keysOf(41);
    QCOMPARE(first.size(), 3);
    QCOMPARE(keysOf(41), first);
    QVERIFY(keysOf(42) != first);
}

void TestScenarioRunner::timeLimit_cancelsAndSaysSo()
{
    ScenarioRunner runner;
    runner.setScenario(read(scenario(R"([{"name": "stuck", "url": "{server}/fault/stall", "count": 2},
        {"name": "later", "url": "{server}/status/200", "count": 3, "concurrency": 1}])",
        R"([{"request": "stuck", "outcome": "succeeded"}])", R"(, "timeoutMs": 300, "concurrency": 2)")));
    QVERIFY(runToEnd(runner, 10'000));
    QVERIFY(runner.timedOut());
    const ExpectationResult verdict = runner.expectationResults().first();
    QVERIFY(!verdict.passed);
    QVERIFY2(verdict.message.contains(QLatin1String("cancelled")), qPrintable(verdict.message));
    QVERIFY2(verdict.message.contains(QLatin1String("time limit of 300 ms")), qPrintable(verdict.message));
    for (const RequestResult &r : runner.record().results) {
        if (runner.requestName(r.requestId) == QLatin1String("stuck"))
            QCOMPARE(r.outcome, RequestOutcome::Cancelled);
    }
    QVERIFY(!runner.allExpectationsHold());
    const ExpectationResult limit = runner.expectationResults().last();
    QCOMPARE(limit.name, QStringLiteral("time limit"));
    QVERIFY(!limit.passed);
}

void TestScenarioRunner::timeLimit_runFailsAndUnsentRequestsMiss()
{
    // Both slots stall: one "later" request waits in the queue, two are never sent.
    ScenarioRunner runner;
    runner.setScenario(read(scenario(R"([{"name": "stuck", "url": "{server}/fault/stall", "count": 2},
        {"name": "later", "url": "{server}/status/200", "count": 3, "concurrency": 1}])",
        R"([{"request": "later", "minSuccessRate": 0}])", R"(, "timeoutMs": 300, "concurrency": 2)")));
    QVERIFY(runToEnd(runner, 10'000));
    QVERIFY(runner.timedOut());
    const QList<ExpectationResult> verdicts = runner.expectationResults();
    QCOMPARE(verdicts.size(), 2);
    // Even an expectation that asks for nothing misses the requests that never went out.
    QVERIFY(!verdicts[0].passed);
    QVERIFY2(verdicts[0].message.contains(QLatin1String("2 request")), qPrintable(verdicts[0].message));
    QVERIFY2(verdicts[0].message.contains(QLatin1String("never sent")), qPrintable(verdicts[0].message));
    QVERIFY(!verdicts[1].passed);
    QVERIFY2(verdicts[1].message.contains(QLatin1String("time limit of 300 ms")), qPrintable(verdicts[1].message));
    QVERIFY(!runner.allExpectationsHold());
}

void TestScenarioRunner::cancel_finishesWithWhatWasRecorded()
{
    ScenarioRunner runner;
    runner.setScenario(read(scenario(R"([{"name": "stuck", "url": "{server}/fault/stall", "count": 3}])")));
    QSignalSpy finished(&runner, &ScenarioRunner::finished);
    QSignalSpy attempts(&runner, &ScenarioRunner::attemptStarted);
    runner.start();
    QTRY_COMPARE_WITH_TIMEOUT(attempts.size(), 3, 5000);
    runner.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
    QCOMPARE(runner.record().results.size(), 3);
    for (const RequestResult &r : runner.record().results)
        QCOMPARE(r.outcome, RequestOutcome::Cancelled);
}

Scenario breakerScenario()
{
    // One request fails and opens the breaker for a minute; the three after it are refused.
    Scenario s = read(scenario(R"([{"name": "down", "url": "{server}/status/503"},
        {"name": "after", "url": "{server}/status/200", "count": 3, "concurrency": 1}])",
        "[]", R"(, "concurrency": 1)"));
    s.policy.maxAttempts = 1;
    s.policy.circuitBreaker.enabled = true;
    s.policy.circuitBreaker.consecutiveFailures = 1;
    s.policy.circuitBreaker.openMs = 60'000;
    return s;
}

void TestScenarioRunner::openBreaker_runStillFinishes()
{
    ScenarioRunner runner;
    runner.setScenario(breakerScenario());
    QSignalSpy progress(&runner, &ScenarioRunner::progress);
    QVERIFY(runToEnd(runner, 10'000));
    QCOMPARE(runner.record().results.size(), 4);
    int refused = 0;
    for (const RequestResult &r : runner.record().results) {
        if (r.outcome == RequestOutcome::CircuitOpen) {
            ++refused;
            QCOMPARE(runner.requestName(r.requestId), QStringLiteral("after"));
        }
    }
    QCOMPARE(refused, 3);
    QCOMPARE(progress.last().at(0).toInt(), 4);
}

void TestScenarioRunner::cancel_whileBreakerRefuses_concludesOnce()
{
    ScenarioRunner runner;
    runner.setScenario(breakerScenario());
    QSignalSpy finished(&runner, &ScenarioRunner::finished);
    // Cancel as soon as the breaker has opened, with the refusals still on their way.
    connect(&runner, &ScenarioRunner::requestFinished, this, [&runner](const RequestResult &result) {
        if (runner.requestName(result.requestId) == QLatin1String("down"))
            runner.cancel();
    });
    runner.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
    QVERIFY(!runner.isRunning());
    runner.cancel(); // nothing is running: no second finished()
    QCoreApplication::processEvents();
    QCOMPARE(finished.size(), 1);
}

void TestScenarioRunner::readModifyWriteScenario_everyIncrementLands()
{
    const auto scenario = ScenarioReader::readFile(QStringLiteral(":/scenarios/read-modify-write.json"));
    QVERIFY2(scenario.ok(), qPrintable(scenario.error()));
    FaultServer server;
    QVERIFY(server.listen());
    ScenarioRunner runner;
    runner.setFaultServer(&server);
    runner.setScenario(*scenario);
    QVERIFY(runToEnd(runner));
    for (const ExpectationResult &verdict : runner.expectationResults())
        QVERIFY2(verdict.passed, qPrintable(verdict.message));
    // The writes answer with the value they stored: the last one holds every increment.
    qint64 highest = 0;
    for (const RequestResult &r : runner.record().results)
        highest
            = std::max(highest, QJsonDocument::fromJson(r.body).object().value(QStringLiteral("value")).toInteger());
    QCOMPARE(highest, 5);
}

void TestScenarioRunner::evaluate_eachCriterion_data()
{
    QTest::addColumn<QByteArray>("expectation");
    QTest::addColumn<bool>("passes");
    QTest::addColumn<QString>("mentions");

    QTest::addRow("outcome holds") << QByteArray(R"({"request": "a", "outcome": ["succeeded", "gave-up"]})") << true
                                   << QStringLiteral("3 request(s): succeeded or gave-up");
    QTest::addRow("outcome misses") << QByteArray(R"({"request": "a", "outcome": "succeeded"})") << false
                                    << QStringLiteral("a #3 ended gave-up (reason 3)");
    QTest::addRow("attempts range holds") << QByteArray(R"({"request": "a", "attempts": {"min": 1, "max": 2}})") << true
                                          << QStringLiteral("1-2 attempts");
    QTest::addRow("attempts misses") << QByteArray(R"({"request": "a", "attempts": 1})") << false
                                     << QStringLiteral("a #1 made 2 attempt(s)");
    QTest::addRow("status misses") << QByteArray(R"({"request": "a", "finalStatus": 200})") << false
                                   << QStringLiteral("a #3 ended with status 503");
    QTest::addRow("no status holds") << QByteArray(R"({"request": "b", "finalStatus": null})") << true
                                     << QStringLiteral("no HTTP status");
    QTest::addRow("too slow") << QByteArray(R"({"request": "a", "maxTotalMs": 10})") << false
                              << QStringLiteral("a #1 took 40 ms");
    QTest::addRow("too quick") << QByteArray(R"({"request": "a", "minTotalMs": 6})") << false
                               << QStringLiteral("a #2 took only 5 ms");
    QTest::addRow("success rate misses") << QByteArray(R"({"request": "a", "minSuccessRate": 0.9})") << false
                                         << QStringLiteral("success rate 66.7 % (2 of 3)");
    QTest::addRow("success rate holds") << QByteArray(R"({"request": "a", "minSuccessRate": 0.6})") << true
                                        << QStringLiteral("success rate at least 60 %");
    QTest::addRow("last cause holds") << QByteArray(R"({"request": "b", "lastCause": "connection-reset"})") << true
                                      << QStringLiteral("last cause connection-reset");
    QTest::addRow("last cause misses") << QByteArray(R"({"request": "b", "lastCause": "http-503"})") << false
                                       << QStringLiteral("b ended on cause connection-reset");
}

void TestScenarioRunner::evaluate_eachCriterion()
{
    QFETCH(QByteArray, expectation);
    QFETCH(bool, passes);
    QFETCH(QString, mentions);
    const Scenario s
        = read(scenario(R"([{"name": "a", "url": "{server}/", "count": 3}, {"name": "b", "url": "{server}/"}])",
            "[" + expectation + "]"));
    const QHash<quint64, QString> names{
        {1, QStringLiteral("a")}, {2, QStringLiteral("a")}, {3, QStringLiteral("a")}, {4, QStringLiteral("b")}};
    const QList<ExpectationResult> verdicts = evaluateExpectations(s, sampleRecord(), names);
    QCOMPARE(verdicts.size(), 1);
    QCOMPARE(verdicts[0].passed, passes);
    QVERIFY2(verdicts[0].message.contains(mentions), qPrintable(verdicts[0].message));
}

void TestScenarioRunner::evaluate_listsTheRequestsThatMissed()
{
    const Scenario s = read(
        scenario(R"([{"name": "a", "url": "{server}/", "count": 9}])", R"([{"request": "a", "outcome": "gave-up"}])"));
    RunRecord run;
    QHash<quint64, QString> names;
    for (quint64 id = 1; id <= 8; ++id) {
        RequestResult r;
        r.requestId = id;
        r.outcome = RequestOutcome::Succeeded;
        r.attempts = 1;
        run.results.append(r);
        names.insert(id, QStringLiteral("a"));
    }
    names.insert(9, QStringLiteral("a")); // submitted, never finished
    const ExpectationResult verdict = evaluateExpectations(s, run, names).first();
    QVERIFY(!verdict.passed);
    QCOMPARE(verdict.requestIds.size(), 9);
    QVERIFY2(verdict.message.contains(QLatin1String("(and 4 more)")), qPrintable(verdict.message));
    QVERIFY2(verdict.message.contains(QLatin1String("a #1 ended succeeded")), qPrintable(verdict.message));

    const ExpectationResult none = evaluateExpectations(s, RunRecord{}, {}).first();
    QVERIFY(!none.passed);
    QVERIFY2(none.message.contains(QLatin1String("no request named \"a\" ran")), qPrintable(none.message));
}

QTEST_GUILESS_MAIN(TestScenarioRunner)
#include "tst_scenariorunner.moc"
