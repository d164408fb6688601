#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "ui/session/requestrunner.h"
#include "ui/session/runsession.h"

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
};

void TestRequestRunner::perRequestScenario_testDeletedWhenItsRequestFinishes()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    Core::RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&server);
    QVERIFY(runner.setScenario(oneFailure()));

    Ui::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    draft.batchCount = 5;
    QSignalSpy finished(&executor, &Core::RetryExecutor::requestFinished);
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
    Core::RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&server);
    QVERIFY(runner.setScenario(oneFailure()));

    Ui::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    QSignalSpy finished(&executor, &Core::RetryExecutor::requestFinished);
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
    Core::RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    Ui::RunSession session;
    session.attach(&executor);
    RequestRunner runner(&executor, &session);
    runner.setServer(&embedded);
    QVERIFY(runner.setScenario(oneFailure()));

    QSignalSpy finished(&executor, &Core::RetryExecutor::requestFinished);
    Ui::RequestDraft draft;
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

QTEST_MAIN(TestRequestRunner)
#include "tst_requestrunner.moc"
