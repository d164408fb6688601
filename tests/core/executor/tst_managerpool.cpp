#include "core/executor/managerpool.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QTest>

#include <memory>

using namespace RetryLab::Core;

class TestManagerPool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sixAttemptsPerManager_thenAnotherManager();
    void extraManagers_copyTheSharedConfiguration();
    void release_leastBusyManagerIsReused();
    void sharedManagerDestroyed_isForgotten();
};

void TestManagerPool::sixAttemptsPerManager_thenAnotherManager()
{
    QNetworkAccessManager shared;
    QObject owner;
    ManagerPool pool(&shared, &owner);
    for (int i = 0; i < ManagerPool::connectionsPerManager; ++i)
        QCOMPARE(pool.acquire(), &shared);
    QCOMPARE(pool.load(&shared), 6);

    QNetworkAccessManager *extra = pool.acquire();
    QVERIFY(extra != &shared);
    QCOMPARE(extra->parent(), &owner);
    QCOMPARE(pool.managers(), (QList<QNetworkAccessManager *>{&shared, extra}));
    // The new one takes the next attempts until it is as busy as the first.
    for (int i = 1; i < ManagerPool::connectionsPerManager; ++i)
        QCOMPARE(pool.acquire(), extra);
    QCOMPARE(pool.managers().size(), 2);
    QVERIFY(pool.acquire() != extra);
    QCOMPARE(pool.managers().size(), 3);
}

void TestManagerPool::extraManagers_copyTheSharedConfiguration()
{
    QNetworkAccessManager shared;
    shared.setProxy(QNetworkProxy::NoProxy);
    shared.setTransferTimeout(1234);
    shared.setRedirectPolicy(QNetworkRequest::NoLessSafeRedirectPolicy);
    shared.setStrictTransportSecurityEnabled(true);
    QObject owner;
    ManagerPool pool(&shared, &owner);
    for (int i = 0; i < ManagerPool::connectionsPerManager; ++i)
        pool.acquire();
    QNetworkAccessManager *extra = pool.acquire();
    QCOMPARE(extra->proxy().type(), QNetworkProxy::NoProxy);
    QCOMPARE(extra->transferTimeout(), 1234);
    QCOMPARE(extra->redirectPolicy(), QNetworkRequest::NoLessSafeRedirectPolicy);
    QVERIFY(extra->isStrictTransportSecurityEnabled());
    // The shared one is used as it was configured.
    QCOMPARE(shared.transferTimeout(), 1234);
}

void TestManagerPool::release_leastBusyManagerIsReused()
{
    QNetworkAccessManager shared;
    QObject owner;
    ManagerPool pool(&shared, &owner);
    for (int i = 0; i <= ManagerPool::connectionsPerManager; ++i)
        pool.acquire();
    QNetworkAccessManager *extra = pool.managers().value(1);
    QCOMPARE(pool.load(extra), 1);
    pool.release(&shared);
    pool.release(&shared);
    QCOMPARE(pool.load(&shared), 4);
    QCOMPARE(pool.acquire(), extra); // 1 < 4
    pool.release(nullptr); // an attempt whose manager is gone: nothing to count
    QCOMPARE(pool.load(&shared), 4);
    QCOMPARE(pool.managers().size(), 2);
}

void TestManagerPool::sharedManagerDestroyed_isForgotten()
{
    auto shared = std::make_unique<QNetworkAccessManager>();
    shared->setTransferTimeout(1234);
    QObject owner;
    ManagerPool pool(shared.get(), &owner);
    pool.acquire();
    const void *gone = shared.get();
    shared.reset();
    pool.forget(gone);
    QVERIFY(pool.managers().isEmpty());

    // A new manager of the pool's own, with Qt's defaults: there is nothing left to copy.
    QNetworkAccessManager *next = pool.acquire();
    QVERIFY(next);
    QCOMPARE(next->parent(), &owner);
    QCOMPARE(next->transferTimeout(), 0);
    QCOMPARE(pool.load(next), 1);
}

QTEST_GUILESS_MAIN(TestManagerPool)
#include "tst_managerpool.moc"
