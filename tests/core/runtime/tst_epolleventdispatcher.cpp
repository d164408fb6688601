// EpollEventDispatcher on a worker thread: what Qt's own dispatcher does for a thread
// without windows (posted events, timers, socket notifiers through real loopback
// sockets, nested loops, quit from another thread), and what it adds (sockets kept
// registered, deadlines finer than a millisecond).
#include "core/runtime/epolleventdispatcher.h"
#include "core/runtime/workerthread.h"

#include <QAbstractEventDispatcher>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QMutex>
#include <QPointer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>

using namespace RetryLab::Core;

namespace {

/// A worker thread on the epoll dispatcher, with an object living on it to run code there.
class Worker
{
public:
    Worker()
    {
        m_resident = new QObject;
        m_resident->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_resident, &QObject::deleteLater);
        startWorkerThread(m_thread, m_resident, [] {});
    }
    ~Worker()
    {
        m_thread.quit();
        m_thread.wait();
    }
    /// Runs `work` on the worker and waits for it.
    void run(const std::function<void()> &work)
    {
        QMetaObject::invokeMethod(m_resident, work, Qt::BlockingQueuedConnection);
    }
    QThread &thread() { return m_thread; }
    QObject *resident() { return m_resident; }

private:
    QThread m_thread;
    QObject *m_resident = nullptr;
};

} // namespace

class TestEpollDispatcher : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void joinedThreads_areAwaitedUntilTheyEnd(); // first: no worker before it
    void workerThreads_getIt();
    void postedEvents_andQuit();
    void timers_fireInOrder_repeat_andStop();
    void preciseTimer_isNeverEarly();
    void timerKilledInItsHandler_orRestarted();
    void nestedLoop_doesNotRefireTheTimerInItsHandler();
    void sockets_echoOverLoopback();
    void manyIdleSockets_stayRegistered_whileOneTalks();
    void remainingTime_andRegisteredTimers();
    void deleteLater_isCarriedOut();
};

void TestEpollDispatcher::joinedThreads_areAwaitedUntilTheyEnd()
{
    const int before = runningThreadCount(); // this one and the test library's watchdog
    QVERIFY(before >= 1);
    {
        Worker worker;
        QCOMPARE(runningThreadCount(), before + 1);
        QVERIFY(!awaitThreadCount(before, std::chrono::milliseconds(20)));
    } // joined: it may still be ending
    QVERIFY(awaitThreadCount(before, std::chrono::seconds(10)));
    QCOMPARE(runningThreadCount(), before);
}

void TestEpollDispatcher::workerThreads_getIt()
{
    Worker worker;
    QCOMPARE(dispatcherName(&worker.thread()), QStringLiteral("RetryLab::Core::EpollEventDispatcher"));
    EpollEventDispatcher dispatcher;
    QVERIFY(dispatcher.isValid());
}

void TestEpollDispatcher::postedEvents_andQuit()
{
    Worker worker;
    std::atomic<int> ran{0};
    for (int i = 0; i < 1000; ++i)
        QMetaObject::invokeMethod(
            worker.resident(), [&ran] { ++ran; }, Qt::QueuedConnection);
    QTRY_COMPARE_WITH_TIMEOUT(ran.load(), 1000, 5'000);
    // quit() from this thread ends the worker's loop (interrupt and wake-up).
    worker.thread().quit();
    QVERIFY(worker.thread().wait(5'000));
}

void TestEpollDispatcher::timers_fireInOrder_repeat_andStop()
{
    Worker worker;
    QList<int> order;
    QMutex mutex;
    std::atomic<int> repeats{0};
    std::unique_ptr<QTimer> repeating;
    worker.run([&] {
        for (int ms : {400, 100, 250, 0}) { // far apart: a stall between two calls cannot reorder them
            QTimer::singleShot(ms, worker.resident(), [&, ms] {
                QMutexLocker lock(&mutex);
                order.append(ms);
            });
        }
        repeating = std::make_unique<QTimer>();
        repeating->setInterval(5);
        QObject::connect(repeating.get(), &QTimer::timeout, [&] {
            if (++repeats == 5)
                repeating->stop();
        });
        repeating->start();
    });
    QTRY_VERIFY_WITH_TIMEOUT(
        repeats.load() == 5 &&
            [&] {
                QMutexLocker lock(&mutex);
                return order.size() == 4;
            }(),
        5'000);
    QMutexLocker lock(&mutex);
    QCOMPARE(order, (QList<int>{0, 100, 250, 400}));
    lock.unlock();
    bool active = true;
    worker.run([&] {
        active = repeating->isActive();
        repeating.reset();
    });
    QVERIFY(!active);
    QCOMPARE(repeats.load(), 5);
}

void TestEpollDispatcher::preciseTimer_isNeverEarly()
{
    Worker worker;
    std::atomic<int> done{0};
    std::atomic<bool> early{false};
    worker.run([&] {
        for (int i = 1; i <= 20; ++i) {
            auto *clock = new QElapsedTimer;
            clock->start();
            QTimer::singleShot(i, Qt::PreciseTimer, worker.resident(), [&, clock, i] {
                if (clock->nsecsElapsed() < qint64(i) * 1'000'000)
                    early = true;
                delete clock;
                ++done;
            });
        }
    });
    QTRY_COMPARE_WITH_TIMEOUT(done.load(), 20, 5'000);
    QVERIFY(!early);
}

void TestEpollDispatcher::timerKilledInItsHandler_orRestarted()
{
    Worker worker;
    std::atomic<int> once{0};
    std::atomic<int> restarted{0};
    std::unique_ptr<QTimer> a;
    std::unique_ptr<QTimer> b;
    worker.run([&] {
        a = std::make_unique<QTimer>();
        a->setInterval(1);
        QObject::connect(a.get(), &QTimer::timeout, [&] {
            ++once;
            a->stop();
        });
        a->start();
        b = std::make_unique<QTimer>();
        b->setInterval(1);
        QObject::connect(b.get(), &QTimer::timeout, [&] {
            if (++restarted < 3)
                b->start(2); // a new deadline (and maybe a new id) from inside the handler
            else
                b->stop();
        });
        b->start();
    });
    QTRY_COMPARE_WITH_TIMEOUT(restarted.load(), 3, 5'000);
    bool active = true;
    worker.run([&] {
        active = a->isActive() || b->isActive();
        a.reset();
        b.reset();
    });
    QCOMPARE(once.load(), 1);
    QVERIFY(!active);
}

void TestEpollDispatcher::nestedLoop_doesNotRefireTheTimerInItsHandler()
{
    Worker worker;
    std::atomic<int> entries{0};
    std::atomic<int> maxDepth{0};
    std::atomic<int> depth{0};
    std::atomic<bool> innerRan{false};
    std::atomic<int> nestedTurns{0};
    worker.run([&] {
        auto *timer = new QTimer(worker.resident());
        timer->setInterval(1);
        QObject::connect(timer, &QTimer::timeout, [&, timer] {
            ++entries;
            maxDepth = std::max(maxDepth.load(), ++depth);
            if (entries == 1) {
                // A nested loop (a dialog would run one) while this handler runs. The
                // timer falls due again meanwhile: the loop must sleep, not spin on it.
                QEventLoop loop;
                const auto turning = QObject::connect(QAbstractEventDispatcher::instance(),
                    &QAbstractEventDispatcher::awake, &loop, [&] { ++nestedTurns; });
                QTimer::singleShot(20, &loop, [&] {
                    innerRan = true;
                    loop.quit();
                });
                loop.exec();
                QObject::disconnect(turning);
            } else if (entries == 3) {
                timer->stop();
            }
            --depth;
        });
        timer->start();
    });
    QTRY_COMPARE_WITH_TIMEOUT(entries.load(), 3, 5'000);
    QVERIFY(innerRan);
    QCOMPARE(maxDepth.load(), 1);
    // A few turns (the single shot, wake-ups); spinning on the timer's deadline made thousands.
    QVERIFY2(nestedTurns.load() < 50, qPrintable(QString::number(nestedTurns.load())));
}

void TestEpollDispatcher::sockets_echoOverLoopback()
{
    Worker worker;
    std::unique_ptr<QTcpServer> server;
    quint16 port = 0;
    worker.run([&] {
        server = std::make_unique<QTcpServer>();
        if (server->listen(QHostAddress::LocalHost))
            port = server->serverPort();
        QObject::connect(server.get(), &QTcpServer::newConnection, [&] {
            while (QTcpSocket *socket = server->nextPendingConnection()) {
                QObject::connect(
                    socket, &QTcpSocket::readyRead, socket, [socket] { socket->write(socket->readAll()); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    });
    QVERIFY(port != 0);
    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, port);
    QVERIFY(client.waitForConnected(5'000));
    QByteArray echoed;
    QByteArray sent;
    for (int i = 0; i < 50; ++i) {
        const QByteArray line = "line " + QByteArray::number(i) + '\n';
        sent += line;
        client.write(line);
        while (echoed.size() < sent.size() && client.waitForReadyRead(5'000))
            echoed += client.readAll();
    }
    QCOMPARE(echoed, sent);
    QCOMPARE(echoed.count('\n'), 50);
    QVERIFY(echoed.endsWith("line 49\n"));
    client.disconnectFromHost();
    worker.run([&] { server.reset(); });
}

void TestEpollDispatcher::manyIdleSockets_stayRegistered_whileOneTalks()
{
    // 300 connections held open and idle; each of them still answers afterwards.
    Worker worker;
    std::unique_ptr<QTcpServer> server;
    std::atomic<int> accepted{0};
    quint16 port = 0;
    worker.run([&] {
        server = std::make_unique<QTcpServer>();
        server->setMaxPendingConnections(1000);
        if (server->listen(QHostAddress::LocalHost))
            port = server->serverPort();
        QObject::connect(server.get(), &QTcpServer::newConnection, [&] {
            while (QTcpSocket *socket = server->nextPendingConnection()) {
                ++accepted;
                socket->setParent(server.get());
                QObject::connect(
                    socket, &QTcpSocket::readyRead, socket, [socket] { socket->write(socket->readAll()); });
            }
        });
    });
    QVERIFY(port != 0);
    std::vector<std::unique_ptr<QTcpSocket>> clients;
    for (int i = 0; i < 300; ++i) {
        auto client = std::make_unique<QTcpSocket>();
        client->connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(client->waitForConnected(5'000));
        clients.push_back(std::move(client));
    }
    QTRY_COMPARE_WITH_TIMEOUT(accepted.load(), 300, 10'000);
    for (int i = 0; i < 100; ++i) {
        QTcpSocket &talker = *clients.front();
        talker.write("ping");
        QByteArray got;
        while (got.size() < 4 && talker.waitForReadyRead(5'000))
            got += talker.readAll();
        QCOMPARE(got, QByteArray("ping"));
    }
    for (auto &client : clients) {
        client->write("x");
        QVERIFY(client->waitForReadyRead(5'000));
        QCOMPARE(client->readAll(), QByteArray("x"));
    }
    clients.clear();
    worker.run([&] { server.reset(); });
}

void TestEpollDispatcher::remainingTime_andRegisteredTimers()
{
    EpollEventDispatcher dispatcher;
    QObject owner;
    dispatcher.registerTimer(1001, 10'000, Qt::PreciseTimer, &owner);
    dispatcher.registerTimer(1002, 20, Qt::CoarseTimer, &owner);
    const int left = dispatcher.remainingTime(1001);
    QVERIFY2(left > 9'000 && left <= 10'000, qPrintable(QString::number(left)));
    QCOMPARE(dispatcher.remainingTime(4242), -1);
    auto timers = dispatcher.registeredTimers(&owner);
    QCOMPARE(timers.size(), 2);
    QVERIFY(dispatcher.unregisterTimer(1002));
    QVERIFY(!dispatcher.unregisterTimer(1002));
    QCOMPARE(dispatcher.registeredTimers(&owner).size(), 1);
    QCOMPARE(dispatcher.registeredTimers(&owner).first().interval, 10'000);
    QVERIFY(dispatcher.unregisterTimers(&owner));
    QVERIFY(dispatcher.registeredTimers(&owner).isEmpty());
}

void TestEpollDispatcher::deleteLater_isCarriedOut()
{
    Worker worker;
    QPointer<QObject> doomed;
    worker.run([&] {
        doomed = new QObject;
        doomed->deleteLater();
    });
    QTRY_VERIFY_WITH_TIMEOUT(doomed.isNull(), 5'000);
}

QTEST_GUILESS_MAIN(TestEpollDispatcher)
#include "tst_epolleventdispatcher.moc"
