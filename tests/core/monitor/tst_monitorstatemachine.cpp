#include "core/monitor/monitorschedule.h"
#include "core/monitor/monitorstatemachine.h"

#include <QTest>

using namespace RetryLab::Core;

class TestMonitorStateMachine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void firstSuccess_isUp();
    void downAfterN_upAfterM();
    void oneFailureBelowN_isPendingThenUpAgain();
    void maintenanceFailure_changesNothing();
    void pauseAndResume();
    void schedule_spreadsMonitorsOverTheInterval();
    void schedule_nextDueIsOnTheGrid();
};

void TestMonitorStateMachine::firstSuccess_isUp()
{
    MonitorStateMachine m;
    QCOMPARE(m.state(), MonitorState::Pending);
    const auto change = m.checkFinished(true, false, {});
    QVERIFY(change);
    QCOMPARE(change->from, MonitorState::Pending);
    QCOMPARE(change->to, MonitorState::Up);
    QVERIFY(!m.checkFinished(true, false, {}));
}

void TestMonitorStateMachine::downAfterN_upAfterM()
{
    MonitorStateMachine m(3, 2);
    QVERIFY(!m.checkFinished(true, false, {})); // 1 of 2 good ones
    QCOMPARE(m.checkFinished(true, false, {})->to, MonitorState::Up);
    QCOMPARE(m.checkFinished(false, false, QStringLiteral("HTTP 503"))->to, MonitorState::Pending);
    QVERIFY(!m.checkFinished(false, false, QStringLiteral("HTTP 503")));
    const auto down = m.checkFinished(false, false, QStringLiteral("HTTP 503"));
    QVERIFY(down);
    QCOMPARE(down->to, MonitorState::Down);
    QVERIFY2(down->reason.contains(QStringLiteral("3 checks in a row failed")), qPrintable(down->reason));
    QVERIFY2(down->reason.contains(QStringLiteral("HTTP 503")), qPrintable(down->reason));
    QVERIFY(!m.checkFinished(false, false, QStringLiteral("x")));
    QVERIFY(!m.checkFinished(true, false, {})); // one good check is not enough
    QVERIFY(!m.checkFinished(false, false, QStringLiteral("x"))); // and the count starts again
    QVERIFY(!m.checkFinished(true, false, {}));
    const auto up = m.checkFinished(true, false, {});
    QVERIFY(up);
    QCOMPARE(up->from, MonitorState::Down);
    QCOMPARE(up->to, MonitorState::Up);
    QVERIFY2(up->reason.contains(QStringLiteral("2 checks")), qPrintable(up->reason));
}

void TestMonitorStateMachine::oneFailureBelowN_isPendingThenUpAgain()
{
    MonitorStateMachine m(2, 3);
    QVERIFY(!m.checkFinished(true, false, {}));
    QVERIFY(!m.checkFinished(true, false, {}));
    QCOMPARE(m.checkFinished(true, false, {})->to, MonitorState::Up);
    QCOMPARE(m.checkFinished(false, false, QStringLiteral("reset"))->to, MonitorState::Pending);
    // Never down: one good check brings it back, whatever upAfter says.
    QCOMPARE(m.checkFinished(true, false, {})->to, MonitorState::Up);
}

void TestMonitorStateMachine::maintenanceFailure_changesNothing()
{
    MonitorStateMachine m;
    m.checkFinished(true, false, {});
    QVERIFY(!m.checkFinished(false, true, QStringLiteral("deploy")));
    QCOMPARE(m.state(), MonitorState::Up);
    QCOMPARE(m.checkFinished(false, false, QStringLiteral("after"))->to, MonitorState::Down);
}

void TestMonitorStateMachine::pauseAndResume()
{
    MonitorStateMachine m;
    m.checkFinished(true, false, {});
    QCOMPARE(m.pause()->to, MonitorState::Paused);
    QVERIFY(!m.checkFinished(false, false, QStringLiteral("x")));
    QCOMPARE(m.state(), MonitorState::Paused);
    QCOMPARE(m.resume()->to, MonitorState::Pending);
    QVERIFY(!m.resume());
}

void TestMonitorStateMachine::schedule_spreadsMonitorsOverTheInterval()
{
    const qint64 interval = 10'000;
    QList<int> perSecond(10, 0);
    for (int i = 0; i < 1000; ++i) {
        const qint64 phase = MonitorSchedule::phaseMs(QStringLiteral("endpoint-%1").arg(i), interval);
        QVERIFY(phase >= 0 && phase < interval);
        ++perSecond[static_cast<int>(phase / 1000)];
    }
    // A hundred per second on average; a herd at second 0 would put all of them in one.
    for (int count : perSecond)
        QVERIFY2(count > 60 && count < 140, qPrintable(QString::number(count)));
    QCOMPARE(MonitorSchedule::phaseMs(QStringLiteral("a"), interval),
        MonitorSchedule::phaseMs(QStringLiteral("a"), interval));
}

void TestMonitorStateMachine::schedule_nextDueIsOnTheGrid()
{
    QCOMPARE(MonitorSchedule::nextDueMs(1000, 300, 50), 1250);
    QCOMPARE(MonitorSchedule::nextDueMs(1250, 300, 50), 1250);
    QCOMPARE(MonitorSchedule::nextDueMs(1251, 300, 50), 1550);
    QCOMPARE(MonitorSchedule::nextDueMs(10, 300, 50), 50);
}

QTEST_GUILESS_MAIN(TestMonitorStateMachine)
#include "tst_monitorstatemachine.moc"
