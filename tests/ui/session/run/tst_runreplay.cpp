#include "tests/ui/session/sessionfixtures.h"
#include "ui/session/run/runreplay.h"
#include "ui/session/run/runsession.h"

#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Fixtures;
using Ui::RunReplay;
using Ui::RunSession;

namespace {

// The hand-computed run of tst_runstatistics, as a record.
Core::RunRecord handComputedRun()
{
    RunSession session;
    feedHandComputedRun(session);
    return session.runRecord();
}

} // namespace

class TestRunReplay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsAtTheEnd_likeAnOpenedReport();
    void seek_showsTheRunAsItWas();
    void seekBack_playsFromTheStartAgain();
    void speed_isClampedToItsRange();
    void play_reachesTheEnd_andStops();
    void pause_holdsThePlayhead();
    void emptyRecord_playsAndStops();
    void idleStretch_isSkipped_andSaidSo();
};

void TestRunReplay::startsAtTheEnd_likeAnOpenedReport()
{
    const Core::RunRecord record = handComputedRun();
    RunReplay replay(record);
    RunSession loaded;
    loaded.loadRunRecord(record);
    QVERIFY(replay.atEnd());
    QVERIFY(!replay.isPlaying());
    QCOMPARE(replay.durationMs(), 1040.0);
    QCOMPARE(replay.positionMs(), 1040.0);
    RunSession *shown = replay.session();
    QCOMPARE(shown->laneCount(), loaded.laneCount());
    QCOMPARE(shown->finishedCount(), loaded.finishedCount());
    QCOMPARE(shown->statistics().requestCount(), 4);
    QCOMPARE(shown->statistics().attemptCount(), 7);
    QVERIFY(!shown->hasActivity());
}

void TestRunReplay::seek_showsTheRunAsItWas()
{
    RunReplay replay(handComputedRun());
    QSignalSpy moved(&replay, &RunReplay::positionChanged);
    RunSession *s = replay.session();

    replay.seek(0.0); // request 1's first attempt starts at 0
    QCOMPARE(replay.positionMs(), 0.0);
    QCOMPARE(moved.size(), 1);
    QCOMPARE(s->laneCount(), 1);
    QCOMPARE(s->inFlightCount(), 1);
    QCOMPARE(s->finishedCount(), 0);
    QCOMPARE(s->nowNs(), s->originNs()); // the session's clock is the playhead

    replay.seek(150.0);
    // Started: 1, 2, 3, 4. Finished: 2 (60), 3's first (30), 1's first (100).
    QCOMPARE(s->laneCount(), 4);
    QCOMPARE(s->finishedCount(), 3);
    QCOMPARE(s->statistics().requestCount(), 1); // request 2
    QCOMPARE(s->runningRequestCount(), 3);
    QCOMPARE(s->inFlightCount(), 1); // request 4; 1 and 3 wait for their retries
    const RunSession::Lane &first = s->lane(s->laneOf(1));
    QVERIFY(first.sleeping());
    QCOMPARE(first.pendingDelayMs, 200.0F);
    QCOMPARE(s->toRunMs(s->nowNs()), 150.0);

    replay.seek(2000.0); // beyond the end: the end
    QVERIFY(replay.atEnd());
    QCOMPARE(s->statistics().requestCount(), 4);
    QVERIFY(!s->hasActivity());
}

void TestRunReplay::seekBack_playsFromTheStartAgain()
{
    RunReplay replay(handComputedRun());
    replay.seek(600.0);
    QCOMPARE(replay.session()->statistics().requestCount(), 2); // 2 at 60, 3 at 540
    replay.seek(50.0);
    QCOMPARE(replay.session()->statistics().requestCount(), 0);
    QCOMPARE(replay.session()->finishedCount(), 1); // 3's first attempt, at 30
    QCOMPARE(replay.eventsPlayed(), 6); // four starts, one end, one retry planned
    replay.seek(std::numeric_limits<double>::quiet_NaN()); // ignored
    QCOMPARE(replay.positionMs(), 50.0);
    replay.seek(-5.0);
    QCOMPARE(replay.positionMs(), 0.0);
}

void TestRunReplay::speed_isClampedToItsRange()
{
    RunReplay replay(handComputedRun());
    QCOMPARE(replay.speed(), 1.0);
    replay.setSpeed(0.25);
    QCOMPARE(replay.speed(), 0.25);
    replay.setSpeed(100.0);
    QCOMPARE(replay.speed(), RunReplay::maxSpeed);
    replay.setSpeed(0.0);
    QCOMPARE(replay.speed(), RunReplay::minSpeed);
    replay.setSpeed(-3.0);
    QCOMPARE(replay.speed(), RunReplay::minSpeed);
    replay.setSpeed(std::numeric_limits<double>::quiet_NaN());
    QCOMPARE(replay.speed(), RunReplay::minSpeed);
}

void TestRunReplay::play_reachesTheEnd_andStops()
{
    RunReplay replay(handComputedRun());
    QSignalSpy playing(&replay, &RunReplay::playingChanged);
    QSignalSpy finished(&replay, &RunReplay::finished);
    QSignalSpy moved(&replay, &RunReplay::positionChanged);
    replay.setSpeed(1.0); // 1040 ms of run in as long: many ticks however slow the machine
    replay.play(); // at the end: from the start
    QVERIFY(replay.isPlaying());
    QCOMPARE(playing.size(), 1);
    QVERIFY(replay.positionMs() < 1040.0);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10'000);
    QVERIFY(!replay.isPlaying());
    QCOMPARE(playing.size(), 2);
    QCOMPARE(playing.last().at(0).toBool(), false);
    QVERIFY(replay.atEnd());
    QVERIFY2(moved.size() > 2, qPrintable(QString::number(moved.size()))); // moved in steps, not at once
    const RunSession *s = replay.session();
    QCOMPARE(s->statistics().requestCount(), 4);
    QCOMPARE(s->statistics().attemptCount(), 7);
    QCOMPARE(replay.eventsPlayed(), replay.eventCount());
    QVERIFY(!s->hasActivity());
}

void TestRunReplay::pause_holdsThePlayhead()
{
    RunReplay replay(handComputedRun());
    replay.setSpeed(RunReplay::minSpeed); // 1040 ms of run in 10.4 s
    replay.seek(0.0);
    replay.play();
    QTRY_VERIFY_WITH_TIMEOUT(replay.positionMs() >= 5.0, 10'000);
    replay.pause();
    QVERIFY(!replay.isPlaying());
    const double held = replay.positionMs();
    QVERIFY(held < 1040.0);
    QCoreApplication::processEvents(); // no tick moves a paused playhead
    QCOMPARE(replay.positionMs(), held);
    replay.play(); // from where it was
    QVERIFY(replay.positionMs() >= held);
    replay.pause();
}

void TestRunReplay::emptyRecord_playsAndStops()
{
    Core::RunRecord empty;
    empty.epochNs = 5'000'000;
    RunReplay replay(empty);
    QCOMPARE(replay.durationMs(), 0.0);
    QCOMPARE(replay.eventCount(), 0);
    QSignalSpy finished(&replay, &RunReplay::finished);
    replay.play();
    QTRY_COMPARE(finished.size(), 1);
    QCOMPARE(replay.session()->laneCount(), 0);
}

void TestRunReplay::idleStretch_isSkipped_andSaidSo()
{
    // Two short requests a minute apart: at 10x the minute alone would take six seconds.
    RunSession session;
    session.recordAttempt(httpAttempt(1, 0, 0.0, 40.0, 200));
    session.recordResult(result(1, Core::RequestOutcome::Succeeded, 1, 0.0, 40.0));
    session.recordAttempt(httpAttempt(2, 0, 60'040.0, 60'080.0, 503, 100.0));
    session.recordAttempt(httpAttempt(2, 1, 60'180.0, 60'220.0, 200));
    session.recordResult(result(2, Core::RequestOutcome::Succeeded, 2, 60'040.0, 60'220.0));
    session.flush();
    RunReplay replay(session.runRecord());
    QSignalSpy finished(&replay, &RunReplay::finished);
    QSignalSpy skipped(&replay, &RunReplay::idleSkipped);
    replay.setSpeed(RunReplay::maxSpeed);
    replay.play();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 3'000);
    QCOMPARE(skipped.size(), 1);
    // All of the minute but the part kept before the next attempt (and what the playhead had
    // passed of it at the tick that jumped, a tick at 10x being 160 ms of run).
    QVERIFY2(replay.idleSkippedMs() > 59'000.0 && replay.idleSkippedMs() <= 60'000.0 - RunReplay::idleKeptMs,
        qPrintable(QString::number(replay.idleSkippedMs())));
    QCOMPARE(skipped.first().at(1).toDouble(), replay.idleSkippedMs());
    // The retry's wait of 100 ms is no idle stretch: both requests were played whole.
    QCOMPARE(replay.session()->statistics().attemptCount(), 3);
    QCOMPARE(replay.eventsPlayed(), replay.eventCount());
    // Played again from the start, the count starts again.
    replay.play();
    QVERIFY(replay.idleSkippedMs() < 1.0);
}

QTEST_GUILESS_MAIN(TestRunReplay)
#include "tst_runreplay.moc"
