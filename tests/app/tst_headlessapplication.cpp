#include "app/cli/headlessapplication.h"
#include "app/cli/interruptwatcher.h"
#include "core/runtime/memorylimit.h"

#include <QEvent>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <csignal>
#include <limits>
#include <new>

using namespace RetryLab;

namespace {

/// Throws std::bad_alloc for a "fail" event, counts the others.
class Allocator final : public QObject
{
public:
    static constexpr QEvent::Type failType = QEvent::Type(QEvent::User + 1);
    static constexpr QEvent::Type countType = QEvent::Type(QEvent::User + 2);

    std::atomic<int> counted{0};

    bool event(QEvent *e) override
    {
        if (e->type() == failType)
            throw std::bad_alloc();
        if (e->type() == countType) {
            ++counted;
            return true;
        }
        return QObject::event(e);
    }
};

} // namespace

// A headless command's application, as retrylab-cli runs one: an allocation that
// fails in an event handler, on the main thread or another, interrupts the command
// through its InterruptWatcher (as out of memory) and gives back the reserve, and
// the threads go on; a signal is still an interruption of its own kind.
class TestHeadlessApplication : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void failedAllocation_interruptsAsOutOfMemory();
    void failedAllocation_onAWorkerThread_leavesItRunning();
    void signal_isNotOutOfMemory();
    void memoryLimit_readsTheProcess();
    void attemptsThatFit_halfOfWhatIsLeft();
};

void TestHeadlessApplication::failedAllocation_interruptsAsOutOfMemory()
{
    QVERIFY(!Core::MemoryLimit::exhausted());
    Core::MemoryLimit::setReserve(1024 * 1024);
    QCOMPARE(Core::MemoryLimit::reserve(), 1024 * 1024);

    Cli::InterruptWatcher watcher;
    QVERIFY(watcher.isActive());
    QSignalSpy interrupted(&watcher, &Cli::InterruptWatcher::interrupted);
    Allocator allocator;
    QCoreApplication::postEvent(&allocator, new QEvent(Allocator::failType));
    QCoreApplication::postEvent(&allocator, new QEvent(Allocator::countType));
    QTRY_COMPARE(interrupted.count(), 1);
    QVERIFY(watcher.outOfMemory());
    QVERIFY(Core::MemoryLimit::exhausted());
    QCOMPARE(Core::MemoryLimit::reserve(), 0);
    QTRY_COMPARE(allocator.counted.load(), 1); // the loop went on

    // Once given back, the reserve is not set aside again.
    Core::MemoryLimit::setReserve(1024 * 1024);
    QCOMPARE(Core::MemoryLimit::reserve(), 0);
}

void TestHeadlessApplication::failedAllocation_onAWorkerThread_leavesItRunning()
{
    QThread thread;
    Allocator allocator;
    allocator.moveToThread(&thread);
    thread.start();
    QCoreApplication::postEvent(&allocator, new QEvent(Allocator::failType));
    QCoreApplication::postEvent(&allocator, new QEvent(Allocator::countType));
    QTRY_COMPARE(allocator.counted.load(), 1);
    QVERIFY(thread.isRunning());
    thread.quit();
    QVERIFY(thread.wait(10'000));
}

void TestHeadlessApplication::signal_isNotOutOfMemory()
{
    Cli::InterruptWatcher watcher;
    QVERIFY(watcher.isActive());
    QSignalSpy interrupted(&watcher, &Cli::InterruptWatcher::interrupted);
    ::raise(SIGHUP);
    QTRY_COMPARE(interrupted.count(), 1);
    QVERIFY(!watcher.outOfMemory());
}

void TestHeadlessApplication::memoryLimit_readsTheProcess()
{
    const qint64 inUse = Core::MemoryLimit::addressSpaceInUse();
    QVERIFY2(inUse > 1024 * 1024, qPrintable(QString::number(inUse)));
    if (Core::MemoryLimit::addressSpaceLimit() < 0)
        QCOMPARE(Core::MemoryLimit::available(), std::numeric_limits<qint64>::max());
    else
        QVERIFY(Core::MemoryLimit::available() <= Core::MemoryLimit::addressSpaceLimit());
}

void TestHeadlessApplication::attemptsThatFit_halfOfWhatIsLeft()
{
    constexpr qint64 mib = 1024 * 1024;
    QCOMPARE(Core::MemoryLimit::attemptsThatFit(2048 * mib, 8 * mib), 128);
    QCOMPARE(Core::MemoryLimit::attemptsThatFit(0, 8 * mib), 1);
    QCOMPARE(Core::MemoryLimit::attemptsThatFit(mib, 0), std::numeric_limits<qint64>::max());
}

int main(int argc, char **argv)
{
    Cli::HeadlessApplication app(argc, argv);
    TestHeadlessApplication test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_headlessapplication.moc"
