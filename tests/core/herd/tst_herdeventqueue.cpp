#include "core/herd/herdeventqueue.h"

#include <QTest>

#include <queue>
#include <random>

using namespace RetryLab::Core::HerdDetail;

// The bucketed queue gives events in exactly the order of one binary heap of them:
// (time, insertion order), across buckets, the far list and its re-spreading.
class TestHerdEventQueue : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matchesAHeap_data();
    void matchesAHeap();
    void replaceTop_keepsTheOrder();
    void nonFiniteTimes_comeLastAndEnd();
};

namespace {

struct Later
{
    bool operator()(const Event &a, const Event &b) const { return earlier(b, a); }
};
using ReferenceQueue = std::priority_queue<Event, std::vector<Event>, Later>;

} // namespace

void TestHerdEventQueue::matchesAHeap_data()
{
    QTest::addColumn<double>("spanMs");
    QTest::addColumn<int>("ties");
    QTest::addRow("within the buckets") << 5'000.0 << 0;
    QTest::addRow("beyond them: far events, re-spread") << 1'000'000.0 << 0;
    QTest::addRow("many equal times") << 200'000.0 << 50;
    QTest::addRow("sub-millisecond steps") << 3.0 << 0;
}

void TestHerdEventQueue::matchesAHeap()
{
    QFETCH(double, spanMs);
    QFETCH(int, ties);
    std::mt19937_64 random(20261128);
    std::uniform_real_distribution<double> delay(0.0, spanMs);
    EventQueue queue;
    ReferenceQueue reference;
    quint64 order = 0;
    const auto push = [&](double timeMs) {
        const Event e{timeMs, order++, static_cast<qint32>(order % 1000), 0, EventKind::RequestArrives};
        queue.push(e);
        reference.push(e);
    };
    for (int i = 0; i < 5'000; ++i)
        push(ties > 0 && i % 2 == 0 ? static_cast<double>(i % ties) * 100.0 : delay(random));
    // Handling an event schedules up to two more, never before it (as the simulation does).
    int handled = 0;
    while (!queue.empty()) {
        QVERIFY(!reference.empty());
        const Event got = queue.top();
        const Event want = reference.top();
        QCOMPARE(got.order, want.order);
        QCOMPARE(got.timeMs, want.timeMs);
        queue.pop();
        reference.pop();
        if (++handled < 20'000) {
            push(got.timeMs + delay(random) / 10.0);
            if (handled % 3 == 0)
                push(got.timeMs); // at the same instant
        }
    }
    QVERIFY(reference.empty());
    QVERIFY(handled > 20'000);
}

void TestHerdEventQueue::replaceTop_keepsTheOrder()
{
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> delay(0.0, 150'000.0);
    EventQueue queue;
    ReferenceQueue reference;
    quint64 order = 0;
    for (int i = 0; i < 2'000; ++i) {
        const Event e{delay(random), order++, i, 0, EventKind::WriteArrives};
        queue.push(e);
        reference.push(e);
    }
    for (int i = 0; i < 30'000; ++i) {
        const Event got = queue.top();
        QCOMPARE(got.order, reference.top().order);
        reference.pop();
        // The next event of the same client, sometimes within the same millisecond.
        const Event next{
            got.timeMs + (i % 4 == 0 ? 0.25 : delay(random) / 20.0), order++, got.client, 0, EventKind::WriteArrives};
        queue.replaceTop(next);
        reference.push(next);
    }
    while (!queue.empty()) {
        QCOMPARE(queue.top().order, reference.top().order);
        queue.pop();
        reference.pop();
    }
    QVERIFY(reference.empty());
}

void TestHerdEventQueue::nonFiniteTimes_comeLastAndEnd()
{
    EventQueue queue;
    queue.push(Event{std::numeric_limits<double>::infinity(), 0, 1, 0, EventKind::OutageEnds});
    queue.push(Event{10.0, 1, 2, 0, EventKind::OutageStarts});
    queue.push(Event{std::numeric_limits<double>::infinity(), 2, 3, 0, EventKind::OutageEnds});
    QCOMPARE(queue.top().client, 2);
    queue.pop();
    QCOMPARE(queue.top().client, 1);
    queue.pop();
    QCOMPARE(queue.top().client, 3);
    queue.pop();
    QVERIFY(queue.empty());
}

QTEST_GUILESS_MAIN(TestHerdEventQueue)
#include "tst_herdeventqueue.moc"
