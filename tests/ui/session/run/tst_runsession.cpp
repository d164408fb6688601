#include "core/util/clock.h"
#include "tests/ui/session/sessionfixtures.h"
#include "ui/session/run/runsession.h"

#include <QSignalSpy>
#include <QTest>

#include <limits>

using namespace RetryLab;
using namespace RetryLab::Fixtures;
using Ui::RunSession;

class TestRunSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void row_isCompact();
    void recordAttempt_compactRowHoldsWhatViewsShow();
    void attemptStarted_thenFinished_fillsTheSameRow();
    void lanes_linkTheirAttemptsInOrder();
    void retryScheduled_marksLaneSleepingUntilNextStart();
    void result_closesLaneAndAnAttemptLeftOpen();
    void updates_manyRecords_coalescedIntoOneSignal();
    void statistics_fedAsRecordsArrive();
    void retainedLimit_olderRecordsRebuiltFromRows();
    void bodyBudget_batchBeyondIt_dropsOldestBodiesKeepsRecordsAndStatistics();
    void runRecord_loadThenExport_roundTrips();
    void runRecord_ofSomeAttempts_carriesTheirRequestsOnly();
    void noteRequest_batchSharesOneSpec_labelsStayApart();
    void laneTitle_neverShowsCredentials();
    void statusText_data();
    void statusText();
    void garbage_clampedNotCrashing();
    void clear_forgetsEverythingAndSignals();
    void nowNs_followsInjectedClock();
};

void TestRunSession::row_isCompact()
{
    QCOMPARE(sizeof(RunSession::AttemptRow), std::size_t(88));
}

void TestRunSession::recordAttempt_compactRowHoldsWhatViewsShow()
{
    RunSession session;
    AttemptRecord r = httpAttempt(7, 1, 1000, 1012.5, 503, 2000);
    r.plannedDelayMs = 1000;
    r.actualDelayMs = 1001.5;
    r.queuedNs = 250'000;
    r.firstByteNs = r.startNs + 10 * ms;
    r.retryAfterMs = 3000;
    r.retryAfterRaw = "3";
    r.bytesReceived = 42;
    session.recordAttempt(r);

    QCOMPARE(session.attemptRowCount(), 1);
    QCOMPARE(session.finishedCount(), 1);
    QCOMPARE(session.laneCount(), 1);
    const RunSession::AttemptRow &row = session.attemptRow(0);
    QCOMPARE(row.startNs, 1000 * ms);
    QCOMPARE(row.endNs, qint64(1012.5 * ms));
    QCOMPARE(row.attemptIndex, 1u);
    QCOMPARE(row.httpStatus, qint16(503));
    QCOMPARE(row.outcome, Core::AttemptOutcome::Retried);
    QCOMPARE(row.plannedDelayMs, 1000.0F);
    QCOMPARE(row.actualDelayMs, 1001.5F);
    QCOMPARE(row.nextDelayMs, 2000.0F);
    QCOMPARE(row.retryAfterMs, 3000.0F);
    QCOMPARE(row.queuedMs, 0.25F);
    QCOMPARE(row.firstByteMs, 10.0F);
    QCOMPARE(row.bytesReceived, 42u);
    QCOMPARE(session.string(row.cause), QStringLiteral("http-503"));
    QCOMPARE(session.string(row.reason), r.reason);
    QCOMPARE(session.reasonPhraseOf(row), QByteArray("Service Unavailable"));
    QCOMPARE(session.methodOf(row), QByteArray("GET"));
    QCOMPARE(session.lane(0).requestId, 7u);
    QCOMPARE(session.laneOf(7), 0);
    QCOMPARE(session.laneOf(8), -1);

    // The same strings again are not stored again.
    const qsizetype strings = session.strings().size();
    session.recordAttempt(httpAttempt(8, 0, 1100, 1110, 503, 100));
    QCOMPARE(session.strings().size(), strings);
}

void TestRunSession::attemptStarted_thenFinished_fillsTheSameRow()
{
    RunSession session;
    session.recordAttemptStarted(3, 0, 50 * ms);
    QCOMPARE(session.attemptRowCount(), 1);
    QCOMPARE(session.finishedCount(), 0);
    QCOMPARE(session.inFlightCount(), 1);
    QVERIFY(session.attemptRow(0).inFlight());
    QCOMPARE(session.statusText(session.attemptRow(0)), QStringLiteral("in flight"));
    QCOMPARE(session.lane(0).openRow, 0u);

    session.recordAttempt(httpAttempt(3, 0, 50.2, 80, 200));
    QCOMPARE(session.attemptRowCount(), 1);
    QCOMPARE(session.finishedCount(), 1);
    QCOMPARE(session.inFlightCount(), 0);
    QCOMPARE(session.attemptRow(0).outcome, Core::AttemptOutcome::Success);
    // The record's exact start replaces the moment the start signal arrived.
    QCOMPARE(session.attemptRow(0).startNs, qint64(50.2 * ms));
    QCOMPARE(session.lane(0).openRow, RunSession::noRow);
}

void TestRunSession::lanes_linkTheirAttemptsInOrder()
{
    RunSession session;
    session.recordAttempt(httpAttempt(1, 0, 0, 10, 503, 100));
    session.recordAttempt(httpAttempt(2, 0, 5, 15, 200));
    session.recordAttempt(httpAttempt(1, 1, 110, 120, 503, 200));
    session.recordAttempt(httpAttempt(1, 2, 320, 330, 200));
    const RunSession::Lane &lane = session.lane(session.laneOf(1));
    QCOMPARE(lane.attempts, 3u);
    QList<quint32> rows;
    for (quint32 row = lane.firstRow; row != RunSession::noRow; row = session.attemptRow(row).nextInLane)
        rows.append(row);
    QCOMPARE(rows, (QList<quint32>{0, 2, 3}));
    QCOMPARE(lane.lastRow, 3u);
    QCOMPARE(lane.firstStartNs, 0);
}

void TestRunSession::retryScheduled_marksLaneSleepingUntilNextStart()
{
    RunSession session;
    session.recordAttemptStarted(1, 0, 0);
    session.recordAttempt(httpAttempt(1, 0, 0, 10, 503, 400));
    session.recordRetryScheduled(1, 1, 400, QStringLiteral("HTTP 503 (Exponential backoff)"), 3, qint64(10.1 * ms));
    const RunSession::Lane &lane = session.lane(0);
    QVERIFY(lane.sleeping());
    QCOMPARE(lane.pendingDelayMs, 400.0F);
    QCOMPARE(lane.pendingSinceNs, qint64(10.1 * ms));
    QCOMPARE(lane.attemptsLeft, 3);
    QCOMPARE(session.string(session.attemptRow(0).retryNote), QStringLiteral("HTTP 503 (Exponential backoff)"));
    QVERIFY(session.hasActivity());

    session.recordAttemptStarted(1, 1, 411 * ms);
    QVERIFY(!session.lane(0).sleeping());
    QCOMPARE(session.lane(0).pendingDelayMs, -1.0F);
}

void TestRunSession::result_closesLaneAndAnAttemptLeftOpen()
{
    RunSession session;
    session.recordAttemptStarted(1, 0, 0);
    QCOMPARE(session.runningRequestCount(), 1);
    session.recordResult(result(1, RequestOutcome::Cancelled, 1, 0, 30));
    QCOMPARE(session.runningRequestCount(), 0);
    QCOMPARE(session.inFlightCount(), 0);
    QVERIFY(!session.hasActivity());
    QCOMPARE(session.attemptRow(0).outcome, Core::AttemptOutcome::Cancelled);
    QCOMPARE(session.attemptRow(0).endNs, 30 * ms);
    QVERIFY(session.lane(0).finished);
    QCOMPARE(session.lane(0).outcome, quint8(RequestOutcome::Cancelled));
    // A second result for the same request is refused, not counted twice.
    QTest::ignoreMessage(QtWarningMsg, "second result for request 1 ignored");
    session.recordResult(result(1, RequestOutcome::Succeeded, 1, 0, 40));
    QCOMPARE(session.resultCount(), 1);
    QCOMPARE(session.statistics().requestCount(), 1);
}

void TestRunSession::updates_manyRecords_coalescedIntoOneSignal()
{
    RunSession session;
    QSignalSpy updated(&session, &RunSession::updated);
    syntheticRun(session, 1000);
    QCOMPARE(updated.count(), 0); // nothing until the event loop runs
    QTRY_COMPARE(updated.count(), 1);
    const quint64 revision = session.revision();
    session.flush(); // nothing new: no signal
    QCOMPARE(updated.count(), 1);
    QCOMPARE(session.revision(), revision);
    session.recordAttempt(httpAttempt(5000, 0, 1, 2, 200));
    session.flush();
    QCOMPARE(updated.count(), 2);
    QCOMPARE(session.updateInterval(), 33);
}

void TestRunSession::statistics_fedAsRecordsArrive()
{
    RunSession session;
    const SyntheticCounts counts = syntheticRun(session, 500);
    const Core::RunStatistics &stats = session.statistics();
    QCOMPARE(stats.attemptCount(), counts.attempts);
    QCOMPARE(stats.requestCount(), counts.requests);
    QCOMPARE(stats.attemptCount(Core::AttemptOutcome::Retried), counts.retried);
    QCOMPARE(stats.attemptCount(Core::AttemptOutcome::Failed), counts.failed);
    QCOMPARE(stats.retryAmplification(), std::optional<double>(double(counts.attempts) / double(counts.requests)));
}

void TestRunSession::retainedLimit_olderRecordsRebuiltFromRows()
{
    RunSession session;
    session.setRetainedRecordLimit(2);
    Core::RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/fail/2"));
    spec.headers = {{"X-Trace", "abc"}};
    session.noteRequest(1, spec);
    QList<AttemptRecord> originals;
    for (int i = 0; i < 5; ++i) {
        AttemptRecord r = httpAttempt(1, i, i * 100.0, i * 100.0 + 10.0, i < 4 ? 503 : 200, i < 4 ? 90.0 : -1.0);
        r.requestHeaders = {{"X-Trace", "abc"}, {"If-Match", "\"e1\""}};
        r.responseHeaders = {{"Server", "test"}};
        r.plannedDelayMs = i * 90.0;
        r.step = i % 2 ? QStringLiteral("write") : QStringLiteral("read");
        r.sequenceRound = i;
        r.retryAfterRaw = "1";
        r.retryAfterMs = 1000.0;
        originals.append(r);
        session.recordAttempt(r);
    }
    QVERIFY(!session.isRecordComplete());

    // The last two are the originals, headers and all.
    QCOMPARE(session.attemptRecord(4).responseHeaders, originals.at(4).responseHeaders);
    QCOMPARE(session.attemptRecord(3).requestHeaders, originals.at(3).requestHeaders);
    // Older ones come back from the compact rows: everything but headers and timing points.
    for (int i = 0; i < 3; ++i) {
        const AttemptRecord rebuilt = session.attemptRecord(i);
        const AttemptRecord &o = originals.at(i);
        QCOMPARE(rebuilt.requestId, o.requestId);
        QCOMPARE(rebuilt.attemptIndex, o.attemptIndex);
        QCOMPARE(rebuilt.startNs, o.startNs);
        QCOMPARE(rebuilt.endNs, o.endNs);
        QCOMPARE(rebuilt.httpStatus, o.httpStatus);
        QCOMPARE(rebuilt.reasonPhrase, o.reasonPhrase);
        QCOMPARE(rebuilt.cause, o.cause);
        QCOMPARE(rebuilt.reason, o.reason);
        QCOMPARE(rebuilt.decision, o.decision);
        QCOMPARE(rebuilt.nextDelayMs, o.nextDelayMs);
        QCOMPARE(rebuilt.plannedDelayMs, o.plannedDelayMs);
        QCOMPARE(rebuilt.step, o.step);
        QCOMPARE(rebuilt.sequenceRound, o.sequenceRound);
        QCOMPARE(rebuilt.method, o.method);
        QCOMPARE(rebuilt.retryAfterRaw, o.retryAfterRaw);
        QCOMPARE(rebuilt.retryAfterMs, o.retryAfterMs);
        QCOMPARE(rebuilt.url, spec.url);
        QCOMPARE(rebuilt.requestHeaders, spec.headers); // the spec's, not the attempt's
        QVERIFY(rebuilt.responseHeaders.isEmpty());
    }
    QCOMPARE(session.attemptRecord(-1).requestId, 0u);
    QCOMPARE(session.attemptRecord(99).requestId, 0u);

    session.setRetainedRecordLimit(100);
    session.clear();
    session.recordAttempt(originals.at(0));
    QVERIFY(session.isRecordComplete());
}

void TestRunSession::bodyBudget_batchBeyondIt_dropsOldestBodiesKeepsRecordsAndStatistics()
{
    RunSession session;
    constexpr qint64 budget = 1024 * 1024;
    constexpr qsizetype bodySize = 64 * 1024;
    constexpr int requests = 200; // 2 x 200 x 64 KiB = 25 MiB of bodies offered
    session.setBodyBudget(budget);
    for (int i = 1; i <= requests; ++i) {
        Core::RequestSpec spec;
        spec.method = "PUT";
        spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/items/%1").arg(i));
        spec.body = QByteArray(bodySize, char('a' + i % 26)); // each request its own body: no sharing
        session.noteRequest(quint64(i), spec);
        session.recordAttempt(httpAttempt(quint64(i), 0, i * 10.0, i * 10.0 + 4.0, 503, 5.0));
        session.recordAttempt(httpAttempt(quint64(i), 1, i * 10.0 + 9.0, i * 10.0 + 12.0, 200));
        RequestResult r = result(quint64(i), RequestOutcome::Succeeded, 2, i * 10.0, i * 10.0 + 12.0);
        r.body = QByteArray(bodySize, char('A' + i % 26));
        session.recordResult(r);
        QVERIFY(session.bodyBytesHeld() <= budget);
    }

    // Every record and every number is still there.
    QCOMPARE(session.finishedCount(), qsizetype(2 * requests));
    QCOMPARE(session.resultCount(), qsizetype(requests));
    QCOMPARE(session.specCount(), qsizetype(requests));
    QCOMPARE(session.statistics().requestCount(), qint64(requests));
    QCOMPARE(session.statistics().attemptCount(), qint64(2 * requests));
    QVERIFY(session.isRecordComplete()); // the records themselves are the originals

    // Only the bodies went, oldest first, and the user can be told how many.
    QVERIFY(session.bodyBytesHeld() > budget - 2 * bodySize);
    QCOMPARE(session.droppedBodyCount(), qsizetype(2 * requests - session.bodyBytesHeld() / bodySize));
    QCOMPARE(session.requestResult(requests - 1).body.size(), bodySize);
    QCOMPARE(session.specAt(quint32(requests - 1)).body.size(), bodySize);
    QCOMPARE(session.runRecord().requests.value(quint64(requests)).body.size(), bodySize);
    QVERIFY(session.requestResult(0).body.isEmpty());
    QVERIFY(session.specAt(0).body.isEmpty());
    QCOMPARE(session.requestResult(0).outcome, RequestOutcome::Succeeded);
    QCOMPARE(session.runRecord().results.size(), qsizetype(requests));

    // A smaller budget later drops more at once; clearing forgets the count.
    session.setBodyBudget(bodySize);
    QVERIFY(session.bodyBytesHeld() <= bodySize);
    session.clear();
    QCOMPARE(session.bodyBytesHeld(), qint64(0));
    QCOMPARE(session.droppedBodyCount(), qsizetype(0));
}

void TestRunSession::runRecord_loadThenExport_roundTrips()
{
    Core::RunRecord run;
    run.epochNs = 1000 * ms;
    run.startedAt = QDateTime(QDate(2025, 3, 1), QTime(12, 0), Qt::UTC);
    run.policy.name = QStringLiteral("Test policy");
    Core::RequestSpec a;
    a.url = QUrl(QStringLiteral("http://127.0.0.1:1/a"));
    a.label = QStringLiteral("first");
    a.fallbackUrls = {QUrl(QStringLiteral("http://127.0.0.1:1/alt"))};
    a.fallbackOn = {QStringLiteral("503"), QStringLiteral("timeout")};
    Core::RequestSpec b = a;
    b.label = QStringLiteral("second");
    run.requests = {{1, a}, {2, b}};
    run.attempts = {httpAttempt(1, 0, 1000, 1010, 503, 100), httpAttempt(2, 0, 1005, 1020, 200),
        httpAttempt(1, 1, 1110, 1120, 200)};
    run.results
        = {result(2, RequestOutcome::Succeeded, 1, 1005, 1020), result(1, RequestOutcome::Succeeded, 2, 1000, 1120)};
    run.results[1].fallbackTriggers = {QStringLiteral("503")};

    RunSession session;
    session.loadRunRecord(run);
    QCOMPARE(session.originNs(), run.epochNs);
    QCOMPARE(session.startedAt(), run.startedAt);
    QCOMPARE(session.laneTitle(0), QStringLiteral("#1 first"));
    QCOMPARE(session.laneTitle(1), QStringLiteral("#2 second"));
    QCOMPARE(session.specCount(), 1); // a and b differ only in their label
    QCOMPARE(session.toRunMs(run.attempts.at(0).startNs), 0.0);
    QCOMPARE(session.wallTimeOf(1500 * ms), run.startedAt.addMSecs(500));

    const Core::RunRecord back = session.runRecord();
    QCOMPARE(back.policy.name, run.policy.name);
    QCOMPARE(back.epochNs, run.epochNs);
    QCOMPARE(back.startedAt, run.startedAt);
    QCOMPARE(back.requests.size(), 2);
    QCOMPARE(back.requests.value(2).label, QStringLiteral("second"));
    QCOMPARE(back.requests.value(2).url, b.url);
    QCOMPARE(back.attempts.size(), 3);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(back.attempts.at(i).requestId, run.attempts.at(i).requestId);
        QCOMPARE(back.attempts.at(i).attemptIndex, run.attempts.at(i).attemptIndex);
        QCOMPARE(back.attempts.at(i).endNs, run.attempts.at(i).endNs);
    }
    QCOMPARE(back.results.size(), 2);
    QCOMPARE(back.results.at(0).requestId, 2u);
    QCOMPARE(back.results.at(1).attempts, 2);
    // What sent a request to its fallback stays with its result, and its list with its spec.
    QCOMPARE(back.results.at(1).fallbackTriggers, QStringList{QStringLiteral("503")});
    QVERIFY(back.results.at(0).fallbackTriggers.isEmpty());
    QCOMPARE(back.requests.value(1).fallbackOn, a.fallbackOn);
    QVERIFY(session.isRecordComplete());
}

void TestRunSession::runRecord_ofSomeAttempts_carriesTheirRequestsOnly()
{
    RunSession session;
    for (quint64 id = 1; id <= 3; ++id) {
        Core::RequestSpec spec;
        spec.url = QUrl(QStringLiteral("http://127.0.0.1:1/r%1").arg(id));
        session.noteRequest(id, spec);
    }
    syntheticRun(session, 3);
    const Core::RunRecord part = session.runRecord({0, 99, -1});
    QCOMPARE(part.attempts.size(), 1);
    QCOMPARE(part.requests.size(), 1);
    QVERIFY(part.requests.contains(part.attempts.first().requestId));
    QCOMPARE(part.results.size(), 1);
    QCOMPARE(part.results.first().requestId, part.attempts.first().requestId);
}

void TestRunSession::noteRequest_batchSharesOneSpec_labelsStayApart()
{
    RunSession session;
    Core::RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/fail/3"));
    spec.body = QByteArray(1000, 'x');
    for (int i = 1; i <= 100; ++i) {
        spec.label = QStringLiteral("batch %1/100").arg(i);
        session.noteRequest(quint64(i), spec);
    }
    QCOMPARE(session.specCount(), 1);
    QCOMPARE(session.laneTitle(session.laneOf(42)), QStringLiteral("#42 batch 42/100"));
    spec.body = "other";
    session.noteRequest(101, spec);
    QCOMPARE(session.specCount(), 2);
    QCOMPARE(session.spec(session.laneOf(101))->body, QByteArray("other"));
    QCOMPARE(session.spec(session.laneOf(100))->body, QByteArray(1000, 'x'));
}

void TestRunSession::laneTitle_neverShowsCredentials()
{
    RunSession session;
    Core::RequestSpec spec;
    spec.method = "POST";
    spec.url = QUrl(QStringLiteral("http://alice:secret@127.0.0.1:8080/orders?token=abc"));
    session.noteRequest(5, spec);
    const QString title = session.laneTitle(0);
    QCOMPARE(title, QStringLiteral("#5 POST /orders"));
    QVERIFY(!title.contains(QLatin1String("secret")));
    QCOMPARE(session.laneTitle(7), QString());

    // The same host again: still no host. A second host: every title names its own.
    spec.method = "GET";
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/"));
    session.noteRequest(6, spec);
    QCOMPARE(session.laneTitle(1), QStringLiteral("#6 GET /"));
    spec.url = QUrl(QStringLiteral("https://bob:pw@api.example.test/"));
    spec.label = QStringLiteral("batch 1/2");
    session.noteRequest(8, spec);
    QCOMPARE(session.laneTitle(0), QStringLiteral("#5 POST 127.0.0.1:8080/orders"));
    QCOMPARE(session.laneTitle(1), QStringLiteral("#6 GET 127.0.0.1:8080/"));
    QCOMPARE(session.laneTitle(2), QStringLiteral("#8 batch 1/2 @ api.example.test"));
    QVERIFY(!session.laneTitle(0).contains(QLatin1String("secret")));
    QVERIFY(!session.laneTitle(2).contains(QLatin1String("bob")));
    session.clear();
    spec.label.clear();
    session.noteRequest(9, spec);
    QCOMPARE(session.laneTitle(0), QStringLiteral("#9 GET /"));
}

void TestRunSession::statusText_data()
{
    QTest::addColumn<AttemptRecord>("record");
    QTest::addColumn<QString>("expected");
    QTest::addRow("status with phrase") << httpAttempt(1, 0, 0, 1, 503) << QStringLiteral("503 Service Unavailable");
    AttemptRecord bare = httpAttempt(1, 0, 0, 1, 418);
    QTest::addRow("status without phrase") << bare << QStringLiteral("418");
    QTest::addRow("network error") << networkAttempt(
        1, 0, 0, 1, QNetworkReply::ConnectionRefusedError, QStringLiteral("connection-refused"))
                                   << QStringLiteral("Connection refused");
    AttemptRecord unnamed
        = networkAttempt(1, 0, 0, 1, QNetworkReply::RemoteHostClosedError, QStringLiteral("connection-reset"));
    unnamed.errorString.clear();
    QTest::addRow("network error without text") << unnamed << QStringLiteral("RemoteHostClosedError");
    AttemptRecord timeout = httpAttempt(1, 0, 0, 1, 200);
    timeout.end = AttemptEnd::AttemptTimeout;
    timeout.errorString = QStringLiteral("per-attempt timeout of 500 ms expired");
    QTest::addRow("cut by the timeout after headers") << timeout << timeout.errorString;
}

void TestRunSession::statusText()
{
    QFETCH(AttemptRecord, record);
    QFETCH(QString, expected);
    RunSession session;
    session.recordAttempt(record);
    QCOMPARE(session.statusText(session.attemptRow(0)), expected);
}

void TestRunSession::garbage_clampedNotCrashing()
{
    RunSession session;
    AttemptRecord r = httpAttempt(1, -4, 10, 5, 99999, std::numeric_limits<double>::quiet_NaN());
    r.plannedDelayMs = std::numeric_limits<double>::infinity();
    r.actualDelayMs = 1e300;
    r.bytesReceived = -7;
    r.queuedNs = std::numeric_limits<qint64>::max();
    session.recordAttempt(r);
    const RunSession::AttemptRow &row = session.attemptRow(0);
    QCOMPARE(row.attemptIndex, 0u);
    QCOMPARE(row.httpStatus, qint16(32767));
    QCOMPARE(row.nextDelayMs, -1.0F);
    QCOMPARE(row.plannedDelayMs, 0.0F);
    QVERIFY(std::isfinite(row.actualDelayMs));
    QCOMPARE(row.bytesReceived, 0u);
    QCOMPARE(row.endNs, row.startNs); // an end before the start is not drawn backwards
    session.recordResult(result(999, RequestOutcome::InvalidRequest, 0, -1, -1));
    QCOMPARE(session.laneCount(), 2);
    session.recordRetryScheduled(2, 1, -50, QString(), -1, 0);
    QCOMPARE(session.lane(session.laneOf(2)).pendingDelayMs, 0.0F);
}

void TestRunSession::clear_forgetsEverythingAndSignals()
{
    RunSession session;
    syntheticRun(session, 50);
    QSignalSpy cleared(&session, &RunSession::cleared);
    QSignalSpy updated(&session, &RunSession::updated);
    session.clear();
    QCOMPARE(cleared.count(), 1);
    QCOMPARE(session.attemptRowCount(), 0);
    QCOMPARE(session.finishedCount(), 0);
    QCOMPARE(session.laneCount(), 0);
    QCOMPARE(session.resultCount(), 0);
    QCOMPARE(session.strings().size(), 1);
    QCOMPARE(session.statistics().attemptCount(), 0);
    QCOMPARE(session.runRecord().attempts.size(), 0);
    session.flush();
    QCOMPARE(updated.count(), 0); // the pending update died with the data
}

void TestRunSession::nowNs_followsInjectedClock()
{
    Core::ManualClock clock;
    RunSession session;
    session.setClock(&clock);
    clock.advanceMs(250);
    session.clear();
    QCOMPARE(session.originNs(), 250 * ms);
    QCOMPARE(session.startedAt(), clock.wallTime());
    session.recordAttemptStarted(1, 0, 260 * ms);
    clock.advanceMs(100);
    QCOMPARE(session.nowNs(), 350 * ms);
    QCOMPARE(session.latestNs(), 350 * ms); // in flight: the run reaches until now
    session.recordAttempt(httpAttempt(1, 0, 260, 300, 200));
    session.recordResult(result(1, RequestOutcome::Succeeded, 1, 260, 300));
    clock.advanceMs(1000);
    QCOMPARE(session.latestNs(), 300 * ms); // idle: the run ends at its last event
}

QTEST_MAIN(TestRunSession)
#include "tst_runsession.moc"
