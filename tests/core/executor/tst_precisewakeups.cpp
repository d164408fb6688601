// PreciseWakeups: deadlines kept in order on one timerfd, never fired early, each key once.
#include "core/executor/precisewakeups.h"
#include "core/util/clock.h"

#include <QSet>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab::Core;

class TestPreciseWakeups : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void firesInDeadlineOrder_neverEarly();
    void cancelAndReschedule();
    void handlerMaySchedule_andCancelOthers();
    void destroyedWithDeadlinesPending_firesNothing();
};

void TestPreciseWakeups::firesInDeadlineOrder_neverEarly()
{
    QList<quint64> fired;
    QHash<quint64, qint64> due;
    bool early = false;
    PreciseWakeups wakeups([&](quint64 key) {
        fired.append(key);
        early = early || monotonicNowNs() < due.value(key);
    });
#ifdef Q_OS_LINUX
    QVERIFY(wakeups.usesTimerFd());
#endif
    // Submitted out of order, some a fraction of a millisecond apart.
    const QList<QPair<quint64, qint64>> plan{qMakePair(1ULL, 30'000'000LL), qMakePair(2ULL, 10'300'000LL),
        qMakePair(3ULL, 10'100'000LL), qMakePair(4ULL, 0LL), qMakePair(5ULL, 20'000'000LL)};
    // Each key's deadline lies between the clock before and after its schedule()
    // (a busy machine may stall between two calls, and reorder close deadlines).
    QHash<quint64, qint64> latest;
    for (const auto &[key, delayNs] : plan) {
        due.insert(key, monotonicNowNs() + delayNs);
        wakeups.schedule(key, delayNs);
        latest.insert(key, monotonicNowNs() + delayNs);
    }
    QCOMPARE(wakeups.pendingCount(), 5);
    QTRY_COMPARE_WITH_TIMEOUT(fired.size(), 5, 5'000);
    // Every pair whose deadlines cannot overlap fired in deadline order: on a
    // machine without stalls, that is 4, 3, 2, 5, 1.
    for (const quint64 a : std::as_const(fired)) {
        for (const quint64 b : std::as_const(fired)) {
            if (latest.value(a) < due.value(b))
                QVERIFY2(fired.indexOf(a) < fired.indexOf(b), qPrintable(QStringLiteral("%1 before %2").arg(a).arg(b)));
        }
    }
    QCOMPARE(QSet<quint64>(fired.cbegin(), fired.cend()), (QSet<quint64>{1, 2, 3, 4, 5}));
    QVERIFY(!early);
    QCOMPARE(wakeups.pendingCount(), 0); // each fired once, and forgotten
}

void TestPreciseWakeups::cancelAndReschedule()
{
    QList<quint64> fired;
    PreciseWakeups wakeups([&](quint64 key) { fired.append(key); });
    wakeups.schedule(1, 5'000'000);
    wakeups.schedule(2, 10'000'000);
    wakeups.schedule(3, 15'000'000);
    wakeups.cancel(1); // the armed one
    wakeups.schedule(2, 40'000'000); // moved after 3
    wakeups.cancel(99); // unknown: nothing
    QVERIFY(!wakeups.isScheduled(1));
    QVERIFY(wakeups.isScheduled(2));
    QTRY_COMPARE_WITH_TIMEOUT(fired.size(), 2, 5'000);
    QCOMPARE(fired, (QList<quint64>{3, 2}));
}

void TestPreciseWakeups::handlerMaySchedule_andCancelOthers()
{
    QList<quint64> fired;
    PreciseWakeups *self = nullptr;
    PreciseWakeups wakeups([&](quint64 key) {
        fired.append(key);
        if (key == 1) {
            self->cancel(2);
            self->schedule(10, 0); // due at once, after this round
            self->schedule(1'000, 2'000'000);
        }
    });
    self = &wakeups;
    wakeups.schedule(1, 1'000'000);
    wakeups.schedule(2, 1'000'000);
    QTRY_COMPARE_WITH_TIMEOUT(fired.size(), 3, 5'000);
    QCOMPARE(fired, (QList<quint64>{1, 10, 1'000}));
}

void TestPreciseWakeups::destroyedWithDeadlinesPending_firesNothing()
{
    int fired = 0;
    {
        PreciseWakeups wakeups([&](quint64) { ++fired; });
        wakeups.schedule(1, 1'000'000);
        wakeups.schedule(2, 0);
    }
    QCoreApplication::processEvents(); // its descriptor closed with it: no stale wake-up
    QCOMPARE(fired, 0);
}

QTEST_GUILESS_MAIN(TestPreciseWakeups)
#include "tst_precisewakeups.moc"
