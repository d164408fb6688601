#include "tests/ui/session/sessionfixtures.h"
#include "ui/session/run/runsession.h"

#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Fixtures;
using RetryLab::Ui::RunSession;

namespace {

Core::RequestSpec putSpec(int i, qsizetype bodyBytes)
{
    Core::RequestSpec spec;
    spec.method = "PUT";
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/items/%1").arg(i));
    spec.body = QByteArray(bodyBytes, char('a' + i % 26));
    return spec;
}

// Two attempts of request `i`: a 503 and a 200, each with a response body of its own,
// both sending the spec's body; the result carries the last attempt's body, as the
// executor's does (one buffer).
void feedRequest(RunSession &session, int i, const Core::RequestSpec &spec, qsizetype responseBytes)
{
    session.noteRequest(quint64(i), spec);
    AttemptRecord failed = httpAttempt(quint64(i), 0, i * 10.0, i * 10.0 + 4.0, 503, 5.0);
    failed.requestBody = spec.body;
    failed.responseBody = QByteArray(responseBytes, 'F');
    failed.bytesReceived = responseBytes;
    session.recordAttempt(failed);
    AttemptRecord passed = httpAttempt(quint64(i), 1, i * 10.0 + 9.0, i * 10.0 + 12.0, 200);
    passed.requestBody = spec.body;
    passed.responseBody = QByteArray(responseBytes, 'P');
    passed.bytesReceived = responseBytes;
    session.recordAttempt(passed);
    RequestResult r = result(quint64(i), RequestOutcome::Succeeded, 2, i * 10.0, i * 10.0 + 12.0);
    r.body = passed.responseBody;
    session.recordResult(r);
}

} // namespace

// The bodies of each attempt in a RunSession: kept within the session's body budget, each
// counted once, and each record saying which of its bodies went.
class TestRunSessionBodies : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void attemptBodies_areKeptAndCountedOnce();
    void budget_dropsOldestAttemptBodiesAndMarksThem();
    void specBodyDropped_attemptSaysItsRequestBodyWent();
    void ownRequestBody_isCountedAndDropped();
    void retainLimit_givesTheBytesBack();
    void rebuiltRecord_saysItsResponseBodyIsGone();
    void loadRunRecord_keepsEveryAttemptsBodies();
};

void TestRunSessionBodies::attemptBodies_areKeptAndCountedOnce()
{
    RunSession session;
    const Core::RequestSpec spec = putSpec(1, 1000);
    feedRequest(session, 1, spec, 300);

    const AttemptRecord first = session.attemptRecord(0);
    const AttemptRecord second = session.attemptRecord(1);
    QCOMPARE(first.requestBody, spec.body);
    QCOMPARE(second.requestBody, spec.body);
    QCOMPARE(first.responseBody, QByteArray(300, 'F'));
    QCOMPARE(second.responseBody, QByteArray(300, 'P'));
    QVERIFY(!first.requestBodyDropped && !first.responseBodyDropped);
    QCOMPARE(session.requestResult(0).body, second.responseBody);
    // The spec's body once, each response once; neither the attempts' request bodies
    // (the spec's) nor the result's body (the last attempt's) again.
    QCOMPARE(session.bodyBytesHeld(), qint64(1000 + 300 + 300));
    QCOMPARE(session.runRecord().attempts.at(1).responseBody, second.responseBody);
}

void TestRunSessionBodies::budget_dropsOldestAttemptBodiesAndMarksThem()
{
    RunSession session;
    constexpr qsizetype responseBytes = 10'000;
    session.setBodyBudget(5 * responseBytes);
    for (int i = 1; i <= 10; ++i) {
        feedRequest(session, i, Core::RequestSpec{}, responseBytes);
        QVERIFY(session.bodyBytesHeld() <= session.bodyBudget());
    }
    QCOMPARE(session.finishedCount(), qsizetype(20));
    QCOMPARE(session.bodyBytesHeld(), qint64(5 * responseBytes));
    QCOMPARE(session.droppedBodyCount(), qsizetype(15));
    for (qsizetype f = 0; f < 20; ++f) {
        const AttemptRecord a = session.attemptRecord(f);
        const bool dropped = f < 15;
        QCOMPARE(a.responseBodyDropped, dropped);
        QCOMPARE(a.responseBody.size(), dropped ? 0 : responseBytes);
        QCOMPARE(a.bytesReceived, responseBytes);
    }
    // A result's body is its last attempt's: it went with it.
    QVERIFY(session.requestResult(0).body.isEmpty());
    QCOMPARE(session.requestResult(9).body.size(), responseBytes);
    QCOMPARE(session.requestResult(9).outcome, RequestOutcome::Succeeded);
}

void TestRunSessionBodies::specBodyDropped_attemptSaysItsRequestBodyWent()
{
    RunSession session;
    session.setBodyBudget(30'000);
    feedRequest(session, 1, putSpec(1, 20'000), 100);
    QCOMPARE(session.attemptRecord(0).requestBody.size(), 20'000);
    // The next request's spec pushes the first spec's body out.
    feedRequest(session, 2, putSpec(2, 20'000), 100);
    const AttemptRecord first = session.attemptRecord(0);
    QVERIFY(first.requestBody.isEmpty());
    QVERIFY(first.requestBodyDropped);
    QCOMPARE(session.attemptRecord(2).requestBody.size(), 20'000);
    QVERIFY(!session.attemptRecord(2).requestBodyDropped);
}

void TestRunSessionBodies::ownRequestBody_isCountedAndDropped()
{
    RunSession session;
    Core::RequestSpec rmw;
    rmw.kind = Core::RequestSpec::Kind::ReadModifyWrite;
    rmw.method = "PUT";
    rmw.url = QUrl(QStringLiteral("http://127.0.0.1:8080/occ/x"));
    session.noteRequest(1, rmw);
    AttemptRecord write = httpAttempt(1, 1, 0.0, 4.0, 200);
    write.step = QStringLiteral("write");
    write.requestBody = R"({"value":8})";
    session.recordAttempt(write);
    QCOMPARE(session.attemptRecord(0).requestBody, write.requestBody);
    QCOMPARE(session.bodyBytesHeld(), qint64(write.requestBody.size()));
    session.setBodyBudget(0);
    QVERIFY(session.attemptRecord(0).requestBody.isEmpty());
    QVERIFY(session.attemptRecord(0).requestBodyDropped);
    QCOMPARE(session.droppedBodyCount(), qsizetype(1));
}

void TestRunSessionBodies::retainLimit_givesTheBytesBack()
{
    RunSession session;
    session.setRetainedRecordLimit(2);
    for (int i = 1; i <= 3; ++i)
        feedRequest(session, i, Core::RequestSpec{}, 1000);
    // Two attempts and their bodies kept whole; the rest rebuilt from rows, without bodies.
    QCOMPARE(session.bodyBytesHeld(), qint64(2 * 1000));
    QVERIFY(session.attemptRecord(0).responseBody.isEmpty());
    QCOMPARE(session.attemptRecord(5).responseBody.size(), 1000);
}

void TestRunSessionBodies::rebuiltRecord_saysItsResponseBodyIsGone()
{
    RunSession session;
    session.setRetainedRecordLimit(0);
    const Core::RequestSpec spec = putSpec(1, 50);
    feedRequest(session, 1, spec, 100);
    const AttemptRecord rebuilt = session.attemptRecord(0);
    QVERIFY(rebuilt.responseBody.isEmpty());
    QVERIFY(rebuilt.responseBodyDropped);
    QCOMPARE(rebuilt.requestBody, spec.body); // a single request sent its spec's
}

void TestRunSessionBodies::loadRunRecord_keepsEveryAttemptsBodies()
{
    RunSession live;
    feedRequest(live, 1, putSpec(1, 10), 40);
    feedRequest(live, 2, putSpec(2, 10), 50);
    RunSession loaded;
    loaded.loadRunRecord(live.runRecord());
    QCOMPARE(loaded.finishedCount(), qsizetype(4));
    for (qsizetype f = 0; f < 4; ++f) {
        QCOMPARE(loaded.attemptRecord(f).responseBody, live.attemptRecord(f).responseBody);
        QCOMPARE(loaded.attemptRecord(f).requestBody, live.attemptRecord(f).requestBody);
    }
    QCOMPARE(loaded.bodyBytesHeld(), live.bodyBytesHeld());
}

QTEST_GUILESS_MAIN(TestRunSessionBodies)
#include "tst_runsessionbodies.moc"
