#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"

#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Ui::RequestRunner;

namespace {

Core::BackoffPolicy fastPolicy()
{
    Core::BackoffPolicy policy;
    policy.algorithm = Core::BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 5.0;
    policy.maxBackoffMs = 20.0;
    policy.maxAttempts = 4;
    policy.attemptTimeoutMs = 5000.0;
    return policy;
}

Ui::ServerScenario oneFailure()
{
    Ui::ServerScenario scenario;
    scenario.instructions = {QStringLiteral("return-503"), QStringLiteral("return-200")};
    return scenario;
}

} // namespace

class TestRequestRunner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void perRequestScenario_testDeletedWhenItsRequestFinishes();
    void perRequestScenario_moreSequentialRequestsThanTheServerHoldsTests_allServed();
    void scenario_requestToAnotherHost_carriesNoTestId();
    void seed_freshForEachSend_andTheDraftsSeedReplaysABatch();
    void seed_alsoReplaysTheEmbeddedServersRandomAnswers();
    void endpointPolicies_theFirstMatchRunsTheRequest();
    void operation_pollsUntilDone_eachPollALaneWithItsRetries();
};

void TestRequestRunner::perRequestScenario_testDeletedWhenItsRequestFinishes()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    Core::ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&server);
    QVERIFY(runner.setScenario(oneFailure()));

    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    draft.batchCount = 5;
    QSignalSpy finished(&executor, &Core::ThreadedExecutor::requestFinished);
    QVERIFY(runner.startBatch(draft));
    QCOMPARE(server.testCount(), 5);
    QTRY_COMPARE(finished.size(), 5);
    for (const auto &arguments : std::as_const(finished))
        QCOMPARE(arguments.at(0).value<Core::RequestResult>().attempts, 2);
    QCOMPARE(server.testCount(), 0);
}

void TestRequestRunner::perRequestScenario_moreSequentialRequestsThanTheServerHoldsTests_allServed()
{
    Core::FaultServerOptions options;
    options.maxTests = 3;
    Core::FaultServer server(options);
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    Core::ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&server);
    QVERIFY(runner.setScenario(oneFailure()));

    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    QSignalSpy finished(&executor, &Core::ThreadedExecutor::requestFinished);
    for (int i = 0; i < 10; ++i) {
        const auto id = runner.send(draft);
        QVERIFY2(id, qPrintable(id.error()));
        QTRY_COMPARE(finished.size(), i + 1);
        const auto result = finished.constLast().at(0).value<Core::RequestResult>();
        QCOMPARE(result.outcome, Core::RequestOutcome::Succeeded);
        QCOMPARE(result.attempts, 2); // the script answered: 503, then 200
    }
    QCOMPARE(server.testCount(), 0);
}

void TestRequestRunner::scenario_requestToAnotherHost_carriesNoTestId()
{
    Core::FaultServer embedded;
    Core::FaultServer other;
    QVERIFY2(embedded.listen(), qPrintable(embedded.errorString()));
    QVERIFY2(other.listen(), qPrintable(other.errorString()));
    Core::ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&embedded);
    QVERIFY(runner.setScenario(oneFailure()));

    QSignalSpy finished(&executor, &Core::ThreadedExecutor::requestFinished);
    Core::RequestDraft draft;
    draft.urlTemplate = other.baseUrl().toString() + QStringLiteral("/status/200");
    QVERIFY(runner.send(draft));
    QTRY_COMPARE(finished.size(), 1);
    QCOMPARE(other.log().size(), 1);
    QCOMPARE(other.log().constFirst().testId, QString());
    QCOMPARE(other.log().constFirst().status, 200);
    QCOMPARE(embedded.testCount(), 0);
    QCOMPARE(embedded.log().size(), 0);

    // The embedded server reached as "localhost" is still the embedded server.
    draft.urlTemplate = QStringLiteral("http://localhost:%1/status/200").arg(embedded.serverPort());
    QVERIFY(runner.send(draft));
    QTRY_COMPARE(finished.size(), 2);
    QVERIFY(!embedded.log().isEmpty());
    QVERIFY(!embedded.log().constFirst().testId.isEmpty());
}

void TestRequestRunner::operation_pollsUntilDone_eachPollALaneWithItsRetries()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    Core::ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&server);
    // The operation's requests share one copy of the script: the start passes, the first poll
    // meets a 503 and is retried within its own lane, the rest pass.
    Ui::ServerScenario scenario;
    scenario.instructions = {QStringLiteral("pass"), QStringLiteral("return-503")};
    QVERIFY(runner.setScenario(scenario));
    // The operation's endpoint has a policy of its own, which its polls run and record.
    Core::EndpointPolicy operations;
    operations.path = QStringLiteral("/operation/**");
    operations.policy = fastPolicy();
    operations.policy.name = QStringLiteral("operations");
    runner.setEndpointPolicies({operations});

    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/operation/build-7?done_after_ms=600");
    Core::PollingPolicy policy;
    policy.initialDelayMs = 100.0;
    policy.multiplier = 1.5;
    policy.maxDelayMs = 200.0;
    policy.totalTimeoutMs = 20'000.0;
    QSignalSpy finished(&runner, &RequestRunner::operationFinished);
    QVERIFY(runner.startOperation(draft, policy));
    QVERIFY(runner.isPolling());
    const auto twice = runner.startOperation(draft, policy);
    QVERIFY(!twice);
    QVERIFY2(twice.error().contains(QStringLiteral("polled already")), qPrintable(twice.error()));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20'000);
    const auto result = finished.at(0).at(0).value<Core::OperationResult>();
    QVERIFY2(result.succeeded(), qPrintable(result.reason));
    QVERIFY(!runner.isPolling());
    QVERIFY2(result.pollCount() >= 3, qPrintable(QString::number(result.pollCount()))); // 600 ms at 100-200 ms a poll
    QCOMPARE(server.testCount(), 0); // the operation's copy of the script is gone with it

    // One lane per request: the start, then each poll; the retry stays inside its poll's lane.
    session.flush();
    QCOMPARE(session.laneCount(), qsizetype(result.polls.size()));
    QVERIFY2(session.laneTitle(0).contains(QStringLiteral("operation start")), qPrintable(session.laneTitle(0)));
    QVERIFY2(session.laneTitle(1).contains(QStringLiteral("poll 1")), qPrintable(session.laneTitle(1)));
    QCOMPARE(session.lane(0).attempts, quint32(1));
    QCOMPARE(session.lane(1).attempts, quint32(2)); // the 503, then its retry
    for (qsizetype lane = 0; lane < session.laneCount(); ++lane) {
        QVERIFY(session.policy(lane));
        QCOMPARE(session.policy(lane)->name, QStringLiteral("operations"));
    }
    for (qsizetype lane = 2; lane < session.laneCount(); ++lane) {
        QCOMPARE(session.lane(lane).attempts, quint32(1));
        QVERIFY2(
            session.laneTitle(lane).contains(QStringLiteral("poll %1").arg(lane)), qPrintable(session.laneTitle(lane)));
    }
}

QTEST_MAIN(TestRequestRunner)
void TestRequestRunner::seed_freshForEachSend_andTheDraftsSeedReplaysABatch()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    Core::ThreadedExecutor executor;
    Core::BackoffPolicy policy = fastPolicy();
    policy.algorithm = Core::BackoffAlgorithm::FullJitter;
    executor.setPolicy(policy);
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&server);

    // Planned delays of each request, in the order the requests were sent.
    QMap<quint64, QList<double>> delays;
    connect(&executor, &Core::ThreadedExecutor::attemptFinished, this,
        [&delays](const Core::AttemptRecord &a) { delays[a.requestId].append(a.nextDelayMs); });
    QSignalSpy seeds(&runner, &RequestRunner::seedChosen);
    QSignalSpy finished(&executor, &Core::ThreadedExecutor::requestFinished);
    const auto batch = [&](const Core::RequestDraft &draft) {
        delays.clear();
        const qsizetype before = finished.size();
        const auto started = runner.startBatch(draft);
        if (!started || !QTest::qWaitFor([&] { return finished.size() == before + draft.batchCount; }, 20'000))
            return QList<QList<double>>();
        return delays.values(); // QMap: in request id order, which is the order sent
    };

    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/status/503");
    draft.batchCount = 3;
    draft.concurrency = 3;
    const QList<QList<double>> first = batch(draft);
    QCOMPARE(first.size(), 3);
    QCOMPARE(seeds.size(), 1);
    const quint64 firstSeed = seeds.at(0).at(0).toULongLong();
    QVERIFY(seeds.at(0).at(1).toBool()); // drawn
    QCOMPARE(runner.lastSeed(), firstSeed);
    QVERIFY(first[0] != first[1]); // each request its own stream

    const QList<QList<double>> second = batch(draft);
    QCOMPARE(seeds.size(), 2);
    QVERIFY(seeds.at(1).at(0).toULongLong() != firstSeed);
    QVERIFY(second != first);

    // The first batch's seed in the draft: the same delays, request by request.
    draft.seed = firstSeed;
    QCOMPARE(batch(draft), first);
    QCOMPARE(seeds.size(), 3);
    QCOMPARE(seeds.at(2).at(0).toULongLong(), firstSeed);
    QVERIFY(!seeds.at(2).at(1).toBool());

    // The recorded requests name their seed and stream.
    const Core::RunRecord run = session.runRecord();
    const auto ids = run.requests.keys();
    QVERIFY(std::all_of(ids.cbegin(), ids.cend(), [&run](quint64 id) { return run.requests[id].seed.has_value(); }));
}

// /fail?p= answers at random: the run's seed reseeds the embedded server, so a replay with
// that seed meets the same answers, attempt by attempt.
void TestRequestRunner::seed_alsoReplaysTheEmbeddedServersRandomAnswers()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    Core::ThreadedExecutor executor;
    Core::BackoffPolicy policy = fastPolicy();
    policy.maxAttempts = 16;
    executor.setPolicy(policy);
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&server);

    QList<int> statuses;
    connect(&executor, &Core::ThreadedExecutor::attemptFinished, this,
        [&statuses](const Core::AttemptRecord &a) { statuses.append(a.httpStatus.value_or(0)); });
    QSignalSpy seeds(&runner, &RequestRunner::seedChosen);
    QSignalSpy finished(&executor, &Core::ThreadedExecutor::requestFinished);
    const auto send = [&](const Core::RequestDraft &draft) {
        statuses.clear();
        const qsizetype before = finished.size();
        if (!runner.send(draft) || !QTest::qWaitFor([&] { return finished.size() == before + 1; }, 20'000))
            return QList<int>();
        return statuses;
    };

    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/fail/15?p=0.5&key={id}");
    const QList<int> first = send(draft);
    QVERIFY(!first.isEmpty());
    const quint64 firstSeed = seeds.constLast().at(0).toULongLong();
    // Another run in between draws from the server's generator too.
    QVERIFY(!send(draft).isEmpty());

    draft.seed = firstSeed;
    QCOMPARE(send(draft), first);
    QCOMPARE(send(draft), first);
}

void TestRequestRunner::endpointPolicies_theFirstMatchRunsTheRequest()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    Core::ThreadedExecutor executor;
    executor.setPolicy(fastPolicy()); // 4 attempts
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&server);
    Core::EndpointPolicy statuses;
    statuses.path = QStringLiteral("/status/*");
    statuses.policy = fastPolicy();
    statuses.policy.name = QStringLiteral("statuses");
    statuses.policy.maxAttempts = 2;
    runner.setEndpointPolicies({statuses});

    QSignalSpy finished(&executor, &Core::ThreadedExecutor::requestFinished);
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/status/503");
    QVERIFY(runner.send(draft));
    draft.urlTemplate = QStringLiteral("{server}/fail/9?key={id}");
    QVERIFY(runner.send(draft));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 10'000);
    QMap<QString, int> attempts;
    const Core::RunRecord run = session.runRecord();
    for (const auto &arguments : std::as_const(finished)) {
        const auto result = arguments.at(0).value<Core::RequestResult>();
        attempts.insert(run.requests.value(result.requestId).url.path(), result.attempts);
        QCOMPARE(run.policyOf(result.requestId).name == QLatin1String("statuses"),
            run.requests.value(result.requestId).url.path().startsWith(QLatin1String("/status/")));
    }
    QCOMPARE(attempts.value(QStringLiteral("/status/503")), 2);
    QCOMPARE(attempts.value(QStringLiteral("/fail/9")), 4);
}

#include "tst_requestrunner.moc"
