#include "core/faultserver/faultserver.h"
#include "core/monitor/checkrun.h"
#include "core/monitor/monitorengine.h"
#include "core/monitor/monitorsfile.h"
#include "core/record/runstatistics.h"

#include <QSignalSpy>
#include <QTest>

using namespace RetryLab::Core;

// A stored check as a run for the run views: mapped back from what the history
// keeps, it must give the attempts the executor made, as far as they were kept.
class TestCheckRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void realCheck_503ResetThen200_givesBackTheExecutorsAttempts();
    void realCheck_statistics_countItAsTheRunViewsWould();
    void checkWithoutMonitor_isAGetNamedAfterIt_underOneAttempt();
    void maintenanceCheckThatFailed_keepsItsFailuresAndBodies();
    void causeWord_endsTheAttemptAsTheExecutorDid_data();
    void causeWord_endsTheAttemptAsTheExecutorDid();
    void attemptBeforeTheCheckStart_keepsItsOwnWallTime();

private:
    struct RealCheck
    {
        Monitor monitor;
        StoredCheck check;
        QList<AttemptRecord> records; ///< what the executor reported
    };
    /// One check of a monitor against the fault server: 503, a reset, then 200.
    bool runRealCheck(RealCheck &real);

    FaultServer m_server;
};

namespace {

const QByteArray checkRunMonitors = R"({"format": "retrylab-monitors", "version": 1, "monitors": [
    {"name": "api", "url": "BASE/status/200", "headers": {"X-Retry-Test-Id": "TEST"},
     "intervalMs": 60000, "timeoutMs": 10000, "policy": {"name": "fast", "algorithm": "constant",
     "baseDelayMs": 30, "maxAttempts": 4, "attemptTimeoutMs": 5000, "jitterMs": 0, "intervalJitter": "none"}}]})";

// 2026-11-29 03:12:07.123 UTC
constexpr qint64 checkRunStartMs = 1'795'921'927'123;

} // namespace

void TestCheckRun::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
}

bool TestCheckRun::runRealCheck(RealCheck &real)
{
    const Result<QString> test = m_server.createTest({QStringLiteral("return-503"), QStringLiteral("reset")});
    if (!test)
        return false;
    QByteArray json = checkRunMonitors;
    json.replace("BASE", m_server.baseUrl().toString().toUtf8());
    json.replace("TEST", test->toUtf8());
    const auto file = MonitorsFileReader::fromJson(json);
    if (!file)
        return false;
    real.monitor = file->monitors.constFirst();

    MonitorEngine engine;
    engine.setMonitors({real.monitor});
    QSignalSpy attempts(&engine, &MonitorEngine::attemptFinished);
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    engine.start();
    engine.checkNow(real.monitor.name); // unless start() began one already
    if (!QTest::qWaitFor([&checks] { return !checks.isEmpty(); }, 20'000))
        return false;
    engine.stop();
    real.check = checks.constFirst().constFirst().value<StoredCheck>();
    for (const QList<QVariant> &signal : std::as_const(attempts))
        real.records.append(signal.at(1).value<AttemptRecord>());
    return QTest::qWaitFor([&engine] { return !engine.isRunning(); }, 20'000);
}

void TestCheckRun::realCheck_503ResetThen200_givesBackTheExecutorsAttempts()
{
    RealCheck real;
    QVERIFY(runRealCheck(real));
    const StoredCheck &check = real.check;
    QCOMPARE(check.attempts.size(), 3);
    QCOMPARE(real.records.size(), 3);
    QCOMPARE(check.attempts[1].cause, QStringLiteral("connection-reset"));

    const RunRecord run = runRecordOf(check, &real.monitor);

    // One request, as the monitor sends it, under the check's policy.
    QCOMPARE(run.requests.size(), 1);
    const RequestSpec &spec = run.requests.value(1);
    QCOMPARE(spec.method, QByteArray("GET"));
    QCOMPARE(spec.url, QUrl(real.monitor.urlTemplate));
    QCOMPARE(spec.url, real.records[0].url);
    QCOMPARE(spec.headers, real.monitor.request.headers);
    QCOMPARE(spec.label, QStringLiteral("api"));
    QCOMPARE(run.policy, real.monitor.checkPolicy());
    QCOMPARE(run.startedAt.toMSecsSinceEpoch(), check.startMs);
    QCOMPARE(run.startedAt.timeSpec(), Qt::UTC);

    QCOMPARE(run.attempts.size(), 3);
    for (int i = 0; i < 3; ++i) {
        const AttemptRecord &mapped = run.attempts[i];
        const AttemptRecord &sent = real.records[i];
        const StoredAttempt &stored = check.attempts[i];
        QCOMPARE(mapped.requestId, quint64(1));
        QCOMPARE(mapped.attemptIndex, sent.attemptIndex);
        QCOMPARE(mapped.method, sent.method);
        QCOMPARE(mapped.url, sent.url);
        QCOMPARE(mapped.end, sent.end);
        QCOMPARE(mapped.httpStatus, sent.httpStatus);
        QCOMPARE(mapped.decision, sent.decision);
        QCOMPARE(mapped.cause, sent.cause);
        QCOMPARE(mapped.reason, sent.reason);
        QCOMPARE(mapped.actualDelayMs, sent.actualDelayMs);
        QCOMPARE(mapped.bytesReceived, sent.bytesReceived);
        QCOMPARE(mapped.durationMs(), sent.durationMs());
        // Exact wall times, to the millisecond the history keeps.
        QCOMPARE(run.wallTimeOf(mapped.startNs).toMSecsSinceEpoch(), stored.startMs);
        QCOMPARE(mapped.startWall.toMSecsSinceEpoch(), stored.startMs);
        // Nothing lost, nothing invented: the history would keep the same attempt again.
        QCOMPARE(storedAttemptOf(mapped), stored);
    }
    QCOMPARE(run.attempts[0].httpStatus, std::optional<int>(503));
    QCOMPARE(run.attempts[0].end, AttemptEnd::Response);
    QCOMPARE(run.attempts[1].end, AttemptEnd::NetworkError);
    QCOMPARE(run.attempts[1].httpStatus, std::nullopt);
    QCOMPARE(run.attempts[2].httpStatus, std::optional<int>(200));
    QVERIFY(run.attempts[2].succeeded());
    // The 503's body is there for the inspector; the success's was not kept.
    QCOMPARE(run.attempts[0].responseBody, check.attempts[0].failureBody);
    QVERIFY(run.attempts[2].responseBody.isEmpty());
    QCOMPARE(run.attempts[2].responseBodyDropped, check.attempts[2].bytes > 0);
    // The delay after each failed attempt is the one before the next.
    QVERIFY(run.attempts[1].actualDelayMs >= 25.0);
    QCOMPARE(run.attempts[0].nextDelayMs, check.attempts[1].delayBeforeMs);
    QCOMPARE(run.attempts[1].nextDelayMs, check.attempts[2].delayBeforeMs);
    QCOMPARE(run.attempts[2].nextDelayMs, -1.0);

    QCOMPARE(run.results.size(), 1);
    const RequestResult &result = run.results.constFirst();
    QCOMPARE(result.requestId, quint64(1));
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.finalStatus, std::optional<int>(200));
    QCOMPARE(result.attempts, 3);
    QCOMPARE(result.startNs, run.attempts[0].startNs);
    QCOMPARE(run.wallTimeOf(result.endNs).toMSecsSinceEpoch(), check.endMs);
}

void TestCheckRun::realCheck_statistics_countItAsTheRunViewsWould()
{
    RealCheck real;
    QVERIFY(runRealCheck(real));
    const RunRecord run = runRecordOf(real.check, &real.monitor);
    const RunStatistics statistics = RunStatistics::fromRecord(run);

    QCOMPARE(statistics.attemptCount(), 3);
    QCOMPARE(statistics.attemptCount(AttemptOutcome::Success), 1);
    QCOMPARE(statistics.attemptCount(AttemptOutcome::Retried), 2);
    QCOMPARE(statistics.attemptCount(AttemptOutcome::Failed), 0);
    QCOMPARE(statistics.requestCount(), 1);
    QCOMPARE(statistics.requestCount(RequestOutcome::Succeeded), 1);
    QCOMPARE(statistics.successRate(), std::optional<double>(1.0));
    QCOMPARE(statistics.retryAmplification(), std::optional<double>(3.0));
    QCOMPARE(statistics.attemptsHistogram(), (QMap<int, qint64>{{3, 1}}));
    QCOMPARE(statistics.errorCauses(), (QStringList{QStringLiteral("http-503"), QStringLiteral("connection-reset")}));
    QCOMPARE(statistics.errorCount(), 2);
    QCOMPARE(statistics.attemptLatencyCount(), 3);
    QCOMPARE(statistics.requestLatencyCount(), 1);
    QCOMPARE(*statistics.requestLatencyMs(100.0),
        real.check.durationMs() - (real.check.attempts[0].startMs - real.check.startMs));
}

void TestCheckRun::checkWithoutMonitor_isAGetNamedAfterIt_underOneAttempt()
{
    StoredCheck check;
    check.monitor = QStringLiteral("gone");
    check.startMs = checkRunStartMs;
    check.endMs = checkRunStartMs + 48;
    check.success = true;
    check.outcome = QStringLiteral("succeeded");
    check.finalStatus = 204;
    StoredAttempt a;
    a.startMs = checkRunStartMs + 1;
    a.success = true;
    a.status = 204;
    a.cause = QStringLiteral("http-204");
    a.reason = QStringLiteral("HTTP 204: success");
    a.decision = QStringLiteral("success");
    a.queuedMs = 0.25;
    a.connectMs = 1.5;
    a.firstByteMs = 40.125;
    a.totalMs = 46.75;
    check.attempts = {a};

    const RunRecord run = runRecordOf(check);
    QCOMPARE(run.policy, singleAttemptPolicy());
    QCOMPARE(run.policy.maxAttempts, 1);
    const RequestSpec &spec = run.requests.value(1);
    QCOMPARE(spec.method, QByteArray("GET"));
    QVERIFY(spec.url.isEmpty());
    QCOMPARE(spec.label, QStringLiteral("gone"));
    QCOMPARE(run.startedAt, QDateTime(QDate(2026, 11, 29), QTime(3, 12, 7, 123), Qt::UTC));

    QCOMPARE(run.attempts.size(), 1);
    const AttemptRecord &r = run.attempts.constFirst();
    QCOMPARE(r.method, QByteArray("GET"));
    QCOMPARE(r.end, AttemptEnd::Response);
    QCOMPARE(r.decision, Classification::Decision::Success);
    QCOMPARE(run.wallTimeOf(r.startNs), QDateTime(QDate(2026, 11, 29), QTime(3, 12, 7, 124), Qt::UTC));
    QCOMPARE(r.queuedNs, 250'000);
    QCOMPARE(r.connectionStartedNs, r.startNs);
    QCOMPARE(r.requestSentNs - r.startNs, 1'500'000);
    QCOMPARE(r.firstByteNs - r.startNs, 40'125'000);
    QCOMPARE(r.endNs - r.startNs, 46'750'000);
    QCOMPARE(r.finishedNs, r.endNs);
    // Neither a body nor an error that the history never had.
    QVERIFY(!r.responseBodyDropped);
    QVERIFY(r.responseBody.isEmpty());
    QCOMPARE(r.networkError, QNetworkReply::NoError);
    QVERIFY(r.errorString.isEmpty());
    QVERIFY(r.protocol.isEmpty());
    QCOMPARE(storedAttemptOf(r), a);

    const RequestResult &result = run.results.constFirst();
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.finalStatus, std::optional<int>(204));
    QCOMPARE(result.totalMs(), 47.0);
}

void TestCheckRun::maintenanceCheckThatFailed_keepsItsFailuresAndBodies()
{
    StoredCheck check;
    check.monitor = QStringLiteral("api");
    check.startMs = checkRunStartMs;
    check.endMs = checkRunStartMs + 5'300;
    check.maintenance = true;
    check.outcome = QStringLiteral("attempts-exhausted");
    check.finalStatus = 503;
    check.reason = QStringLiteral("HTTP 503: server error; transient, retry after a delay");

    StoredAttempt refused;
    refused.startMs = checkRunStartMs;
    refused.cause = QStringLiteral("connection-refused");
    refused.reason = QStringLiteral("connection refused; the request was not sent; retry after a delay");
    refused.decision = QStringLiteral("retry-after-delay");
    refused.totalMs = 0.5;
    StoredAttempt timedOut;
    timedOut.index = 1;
    timedOut.startMs = checkRunStartMs + 101;
    timedOut.cause = QStringLiteral("attempt-timeout");
    timedOut.reason = QStringLiteral("the per-attempt timeout expired; retry after a delay");
    timedOut.decision = QStringLiteral("retry-after-delay");
    timedOut.delayBeforeMs = 100.25;
    timedOut.connectMs = 0.75; // a new connection; no answer, so no first byte
    timedOut.totalMs = 5'000.0;
    StoredAttempt unavailable;
    unavailable.index = 2;
    unavailable.startMs = checkRunStartMs + 5'201;
    unavailable.status = 503;
    unavailable.cause = QStringLiteral("http-503");
    unavailable.reason = check.reason;
    unavailable.decision = QStringLiteral("give-up");
    unavailable.delayBeforeMs = 100.0;
    unavailable.firstByteMs = 2.0; // a reused connection: no connect phase
    unavailable.totalMs = 3.0;
    unavailable.bytes = 10'000;
    unavailable.failureBody = QByteArray(HistoryLimits::failureBodyBytes, 'x');
    check.attempts = {refused, timedOut, unavailable};

    const RunRecord run = runRecordOf(check);
    QCOMPARE(run.attempts.size(), 3);
    QCOMPARE(run.attempts[0].end, AttemptEnd::NetworkError);
    QCOMPARE(run.attempts[0].connectionStartedNs, -1);
    QCOMPARE(run.attempts[0].firstByteNs, -1);
    QCOMPARE(run.attempts[0].nextDelayMs, 100.25);
    QCOMPARE(run.attempts[1].end, AttemptEnd::AttemptTimeout);
    QCOMPARE(run.attempts[1].plannedDelayMs, 100.25);
    QCOMPARE(run.attempts[1].actualDelayMs, 100.25);
    QCOMPARE(run.attempts[1].requestSentNs - run.attempts[1].connectionStartedNs, 750'000);
    QCOMPARE(run.attempts[1].firstByteNs, -1);
    QCOMPARE(run.attempts[2].end, AttemptEnd::Response);
    QCOMPARE(run.attempts[2].connectionStartedNs, -1);
    QCOMPARE(run.attempts[2].requestSentNs, -1);
    QCOMPARE(run.attempts[2].decision, Classification::Decision::GiveUp);
    QCOMPARE(run.attempts[2].nextDelayMs, -1.0);
    // The body as far as the history kept it, and said to be cut.
    QCOMPARE(run.attempts[2].responseBody, unavailable.failureBody);
    QVERIFY(run.attempts[2].responseBodyTruncated);
    QCOMPARE(run.attempts[2].bytesReceived, 10'000);
    for (qsizetype i = 0; i < check.attempts.size(); ++i) {
        QCOMPARE(run.wallTimeOf(run.attempts[i].startNs).toMSecsSinceEpoch(), check.attempts[i].startMs);
        QCOMPARE(storedAttemptOf(run.attempts[i]), check.attempts[i]);
    }

    const RequestResult &result = run.results.constFirst();
    QCOMPARE(result.outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(result.finalStatus, std::optional<int>(503));
    QCOMPARE(result.reason, check.reason);
    QCOMPARE(result.body, unavailable.failureBody);

    const RunStatistics statistics = RunStatistics::fromRecord(run);
    QCOMPARE(statistics.attemptCount(AttemptOutcome::Retried), 2);
    QCOMPARE(statistics.attemptCount(AttemptOutcome::Failed), 1);
    QCOMPARE(statistics.requestCount(RequestOutcome::AttemptsExhausted), 1);
    QCOMPARE(statistics.successRate(), std::optional<double>(0.0));
    QCOMPARE(statistics.errorCauses(),
        (QStringList{
            QStringLiteral("connection-refused"), QStringLiteral("attempt-timeout"), QStringLiteral("http-503")}));
}

void TestCheckRun::causeWord_endsTheAttemptAsTheExecutorDid_data()
{
    QTest::addColumn<QString>("cause");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("success");
    QTest::addColumn<int>("end");
    QTest::addRow("an answer") << "http-503" << 503 << false << int(AttemptEnd::Response);
    QTest::addRow("a success") << "http-200" << 200 << true << int(AttemptEnd::Response);
    QTest::addRow("a failed condition") << "condition" << 200 << false << int(AttemptEnd::Response);
    QTest::addRow("not an HTTP URL") << "completed" << -1 << true << int(AttemptEnd::Response);
    QTest::addRow("refused") << "connection-refused" << -1 << false << int(AttemptEnd::NetworkError);
    QTest::addRow("reset, not repeatable")
        << "connection-reset/not-idempotent" << -1 << false << int(AttemptEnd::NetworkError);
    // Qt's own timeout (its transfer timeout, TimeoutError) is a network error ...
    QTest::addRow("Qt's timeout") << "timeout" << -1 << false << int(AttemptEnd::NetworkError);
    // ... the executor's per-attempt timer cuts the attempt.
    QTest::addRow("the attempt's timeout") << "attempt-timeout" << -1 << false << int(AttemptEnd::AttemptTimeout);
    QTest::addRow("cut after the headers") << "attempt-timeout" << 200 << false << int(AttemptEnd::AttemptTimeout);
    QTest::addRow("deadline") << "deadline" << -1 << false << int(AttemptEnd::Deadline);
    QTest::addRow("cancelled") << "cancelled" << -1 << false << int(AttemptEnd::Cancelled);
    QTest::addRow("body broken off after a status") << "broken-stream" << 200 << false << int(AttemptEnd::NetworkError);
    QTest::addRow("an unknown word without an answer") << "" << -1 << false << int(AttemptEnd::NetworkError);
}

void TestCheckRun::causeWord_endsTheAttemptAsTheExecutorDid()
{
    QFETCH(QString, cause);
    QFETCH(int, status);
    QFETCH(bool, success);
    QFETCH(int, end);
    StoredCheck check;
    check.monitor = QStringLiteral("api");
    check.startMs = checkRunStartMs;
    check.endMs = checkRunStartMs + 10;
    StoredAttempt a;
    a.startMs = checkRunStartMs;
    a.cause = cause;
    a.success = success;
    if (status >= 0)
        a.status = status;
    a.decision = success ? QStringLiteral("success") : QStringLiteral("give-up");
    check.attempts = {a};
    check.success = success;
    check.outcome = success ? QStringLiteral("succeeded") : QStringLiteral("gave-up");
    const AttemptRecord r = runRecordOf(check).attempts.constFirst();
    QCOMPARE(r.end, AttemptEnd(end));
    QCOMPARE(r.cause, cause);
    QCOMPARE(r.succeeded(), success);
}

void TestCheckRun::attemptBeforeTheCheckStart_keepsItsOwnWallTime()
{
    // The wall clock was set back during the check.
    StoredCheck check;
    check.monitor = QStringLiteral("api");
    check.startMs = checkRunStartMs;
    check.endMs = checkRunStartMs + 20;
    check.outcome = QStringLiteral("gave-up");
    StoredAttempt a;
    a.startMs = checkRunStartMs - 2'000;
    a.status = 401;
    a.cause = QStringLiteral("http-401");
    a.decision = QStringLiteral("give-up");
    a.totalMs = 4.0;
    check.attempts = {a};

    const RunRecord run = runRecordOf(check);
    QCOMPARE(run.startedAt.toMSecsSinceEpoch(), checkRunStartMs);
    const AttemptRecord &r = run.attempts.constFirst();
    QVERIFY(r.startNs >= 0);
    QCOMPARE(run.wallTimeOf(r.startNs).toMSecsSinceEpoch(), a.startMs);
    QCOMPARE(run.wallTimeOf(run.epochNs).toMSecsSinceEpoch(), checkRunStartMs);
    QCOMPARE(run.results.constFirst().outcome, RequestOutcome::GaveUp);
}

QTEST_GUILESS_MAIN(TestCheckRun)
#include "tst_checkrun.moc"
