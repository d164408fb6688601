#include "core/monitor/incidenttracker.h"

#include <QTest>

using namespace RetryLab::Core;

class TestIncidentTracker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void failedChecks_openAndCloseAnIncident();
    void retriedChecks_makeAHiddenIncident();
    void hiddenThenFailed_closesTheHiddenOneAndOpensAnIncident();
    void maintenance_isLeftOut();
    void monitorsAndAgents_areTrackedApart();
};

namespace {

// A check at `startMs` whose attempts are `pattern`: 'x' failed, 'o' succeeded; it succeeded when the last did.
StoredCheck check(qint64 startMs, const QByteArray &pattern, const QString &monitor = QStringLiteral("m"),
    const QString &agent = QString())
{
    StoredCheck c;
    c.monitor = monitor;
    c.agent = agent;
    c.startMs = startMs;
    qint64 at = startMs;
    for (int i = 0; i < pattern.size(); ++i) {
        StoredAttempt a;
        a.index = i;
        a.startMs = at;
        a.success = pattern[i] == 'o';
        a.reason = a.success ? QString() : QStringLiteral("fault at %1").arg(at);
        a.totalMs = 10;
        c.attempts.append(a);
        at += 100;
    }
    c.endMs = at;
    c.success = pattern.endsWith('o');
    c.reason = c.success ? QString() : c.attempts.constLast().reason;
    return c;
}

} // namespace

void TestIncidentTracker::failedChecks_openAndCloseAnIncident()
{
    IncidentTracker t;
    QVERIFY(!t.checkFinished(check(0, "o")).opened);
    const auto opened = t.checkFinished(check(1000, "xx"));
    QVERIFY(opened.opened);
    QCOMPARE(opened.opened->startMs, 1000);
    QCOMPARE(opened.opened->firstError, QStringLiteral("fault at 1100")); // the failed check's reason
    QVERIFY(!t.checkFinished(check(2000, "xx")).opened);
    QVERIFY(t.open(QStringLiteral("m")));
    const auto closed = t.checkFinished(check(3000, "o"));
    QCOMPARE(closed.ended.size(), 1);
    const Incident &incident = closed.ended.constFirst();
    QCOMPARE(incident.startMs, 1000);
    QCOMPARE(incident.endMs, std::optional<qint64>(3000));
    QCOMPARE(incident.durationMs, 2000);
    QCOMPARE(incident.checks, 2);
    QCOMPARE(incident.attempts, 4);
    QCOMPARE(incident.failedAttempts, 4);
    QCOMPARE(incident.lastError, QStringLiteral("fault at 2100"));
    QVERIFY(!incident.hidden);
    QVERIFY(!t.open(QStringLiteral("m")));
}

void TestIncidentTracker::retriedChecks_makeAHiddenIncident()
{
    IncidentTracker t;
    QVERIFY(t.checkFinished(check(0, "xo")).ended.isEmpty());
    QVERIFY(t.checkFinished(check(1000, "xxo")).ended.isEmpty());
    const auto closed = t.checkFinished(check(2000, "o"));
    QCOMPARE(closed.ended.size(), 1);
    const Incident &hidden = closed.ended.constFirst();
    QVERIFY(hidden.hidden);
    QCOMPARE(hidden.startMs, 0);
    QCOMPARE(hidden.endMs, std::optional<qint64>(1300));
    QCOMPARE(hidden.checks, 2);
    QCOMPARE(hidden.failedAttempts, 3);
    QCOMPARE(hidden.attempts, 5);
    QCOMPARE(hidden.firstError, QStringLiteral("fault at 0"));
    QVERIFY(!closed.opened);
}

void TestIncidentTracker::hiddenThenFailed_closesTheHiddenOneAndOpensAnIncident()
{
    IncidentTracker t;
    t.checkFinished(check(0, "xo"));
    const auto update = t.checkFinished(check(1000, "xxx"));
    QCOMPARE(update.ended.size(), 1);
    QVERIFY(update.ended.constFirst().hidden);
    QCOMPARE(update.ended.constFirst().endMs, std::optional<qint64>(200));
    QVERIFY(update.opened);
    QCOMPARE(update.opened->startMs, 1000);
}

void TestIncidentTracker::maintenance_isLeftOut()
{
    IncidentTracker t;
    StoredCheck failed = check(0, "x");
    failed.maintenance = true;
    QVERIFY(!t.checkFinished(failed).opened);
    QVERIFY(!t.open(QStringLiteral("m")));
}

void TestIncidentTracker::monitorsAndAgents_areTrackedApart()
{
    IncidentTracker t;
    QVERIFY(t.checkFinished(check(0, "x", QStringLiteral("a"), QStringLiteral("east"))).opened);
    QVERIFY(t.checkFinished(check(0, "x", QStringLiteral("a"), QStringLiteral("west"))).opened);
    QVERIFY(t.checkFinished(check(0, "x", QStringLiteral("b"), QStringLiteral("east"))).opened);
    const auto closed = t.checkFinished(check(500, "o", QStringLiteral("a"), QStringLiteral("east")));
    QCOMPARE(closed.ended.size(), 1);
    QCOMPARE(closed.ended.constFirst().agent, QStringLiteral("east"));
    QVERIFY(t.open(QStringLiteral("b")));
}

QTEST_GUILESS_MAIN(TestIncidentTracker)
#include "tst_incidenttracker.moc"
