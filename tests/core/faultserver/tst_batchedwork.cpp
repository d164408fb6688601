#include "core/faultserver/batchedwork.h"

#include <QObject>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace RetryLab::Core;

class TestBatchedWork : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void post_runsLaterInOrder_aBatchAtATime();
    void post_otherEventsRunBetweenBatches();
    void clear_dropsWhatHasNotRun();
    void destroyed_beforeItsContext_runsNothing();
};

void TestBatchedWork::post_runsLaterInOrder_aBatchAtATime()
{
    QObject context;
    BatchedWork work(&context, 10);
    QList<int> ran;
    for (int i = 0; i < 35; ++i)
        work.post([&ran, i] { ran.append(i); });
    QVERIFY(ran.isEmpty()); // never at once
    QCOMPARE(work.pending(), 35);
    QTRY_COMPARE(ran.size(), 35);
    for (int i = 0; i < 35; ++i)
        QCOMPARE(ran.at(i), i);
    QCOMPARE(work.pending(), 0);
}

void TestBatchedWork::post_otherEventsRunBetweenBatches()
{
    // A burst of 200 posted before another client's event: that event runs
    // before the burst is done, after one batch or a few, not after all 200.
    QObject context;
    BatchedWork work(&context, 20);
    int ran = 0;
    for (int i = 0; i < 200; ++i)
        work.post([&ran] { ++ran; });
    int ranBeforeOther = -1;
    QTimer::singleShot(0, &context, [&] { ranBeforeOther = ran; });
    QTRY_COMPARE(ran, 200);
    QVERIFY(ranBeforeOther >= 0);
    QVERIFY2(ranBeforeOther <= 3 * 20, qPrintable(QString::number(ranBeforeOther)));
    QCOMPARE(ranBeforeOther % 20, 0); // between two batches, never inside one
}

void TestBatchedWork::clear_dropsWhatHasNotRun()
{
    QObject context;
    BatchedWork work(&context, 5);
    int ran = 0;
    for (int i = 0; i < 12; ++i)
        work.post([&ran] { ++ran; });
    QTRY_VERIFY(ran >= 5);
    work.clear();
    const int atClear = ran;
    QCOMPARE(work.pending(), 0);
    // Work posted after the clear runs as usual; the cleared work never does.
    bool after = false;
    work.post([&after] { after = true; });
    QTRY_VERIFY(after);
    QCOMPARE(ran, atClear);
}

void TestBatchedWork::destroyed_beforeItsContext_runsNothing()
{
    QObject context;
    int ran = 0;
    {
        BatchedWork work(&context);
        work.post([&ran] { ++ran; });
    }
    QCOMPARE(context.findChildren<QTimer *>().size(), 0); // its timer went with it
    bool later = false;
    QTimer::singleShot(0, &context, [&later] { later = true; });
    QTRY_VERIFY(later);
    QCOMPARE(ran, 0);
    // And a context destroyed first takes the timer along, which the work then does not touch.
    auto early = std::make_unique<QObject>();
    BatchedWork orphan(early.get());
    early.reset();
    orphan.post([&ran] { ++ran; });
    orphan.clear();
    QCOMPARE(ran, 0);
}

QTEST_GUILESS_MAIN(TestBatchedWork)
#include "tst_batchedwork.moc"
