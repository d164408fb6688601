#include "core/executor/managerpool.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QPointer>
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
    void managerDeletedBehindThePoolsBack_isNeverHandedOut();
    void added_hearsOfEveryManagerOnce();
    void groups_haveManagersOfTheirOwn_configuredOnce();
    void idleGroups_areFreedBeyondTheLimit();
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

void TestManagerPool::managerDeletedBehindThePoolsBack_isNeverHandedOut()
{
    QNetworkAccessManager shared;
    QObject owner;
    ManagerPool pool(&shared, &owner);
    for (int i = 0; i < ManagerPool::connectionsPerManager; ++i)
        QCOMPARE(pool.acquire(), &shared);
    QNetworkAccessManager *extra = pool.acquire();
    QVERIFY(extra != &shared);
    // Deleted without forget(): its entry (the least busy) must not be chosen.
    delete extra;
    QNetworkAccessManager *next = pool.acquire();
    QVERIFY(next);
    QVERIFY(next != &shared);
    QCOMPARE(next->parent(), &owner);
    QCOMPARE(pool.managers().size(), 2);
    QVERIFY(!pool.managers().contains(nullptr));
    QCOMPARE(pool.load(next), 1);
    QCOMPARE(pool.load(&shared), ManagerPool::connectionsPerManager);
    pool.release(&shared);
    QCOMPARE(pool.load(&shared), ManagerPool::connectionsPerManager - 1);
}

void TestManagerPool::added_hearsOfEveryManagerOnce()
{
    QNetworkAccessManager shared;
    QObject owner;
    QList<QNetworkAccessManager *> heard;
    ManagerPool pool(&shared, &owner, [&heard](QNetworkAccessManager &m) { heard.append(&m); });
    QCOMPARE(heard, QList<QNetworkAccessManager *>{&shared});
    QList<QNetworkAccessManager *> handed;
    for (int i = 0; i < 3 * ManagerPool::connectionsPerManager; ++i)
        handed.append(pool.acquire());
    handed.append(pool.acquire(QByteArrayLiteral("proxy"), [](QNetworkAccessManager &) {}));
    handed.append(pool.acquire(QByteArrayLiteral("proxy"), [](QNetworkAccessManager &) {}));
    QCOMPARE(heard.size(), 4); // the shared one, two extras, one of the group
    for (QNetworkAccessManager *m : std::as_const(handed))
        QCOMPARE(heard.count(m), 1);
}

void TestManagerPool::groups_haveManagersOfTheirOwn_configuredOnce()
{
    QNetworkAccessManager shared;
    shared.setTransferTimeout(1234);
    QObject owner;
    ManagerPool pool(&shared, &owner);
    int configured = 0;
    const ManagerPool::Configure viaProxy = [&configured](QNetworkAccessManager &manager) {
        ++configured;
        manager.setProxy(QNetworkProxy(QNetworkProxy::Socks5Proxy, QStringLiteral("127.0.0.1"), 1080));
    };
    QNetworkAccessManager *proxied = pool.acquire("socks", viaProxy);
    QVERIFY(proxied != &shared);
    QCOMPARE(proxied->proxy().type(), QNetworkProxy::Socks5Proxy);
    QCOMPARE(proxied->transferTimeout(), 1234); // the shared one's settings, then the group's own
    for (int i = 1; i < ManagerPool::connectionsPerManager; ++i)
        QCOMPARE(pool.acquire("socks", viaProxy), proxied);
    QCOMPARE(configured, 1);
    // The default group never gets a group's manager, nor the other way round.
    QCOMPARE(pool.acquire(), &shared);
    QNetworkAccessManager *second = pool.acquire("socks", viaProxy);
    QVERIFY(second != proxied && second != &shared);
    QCOMPARE(configured, 2);
    QCOMPARE(pool.managers("socks"), (QList<QNetworkAccessManager *>{proxied, second}));
    QCOMPARE(pool.managers(QByteArray()), (QList<QNetworkAccessManager *>{&shared}));
    QCOMPARE(pool.managers(), (QList<QNetworkAccessManager *>{&shared, proxied, second}));
    QCOMPARE(pool.groupCount(), 2);
}

void TestManagerPool::idleGroups_areFreedBeyondTheLimit()
{
    QNetworkAccessManager shared;
    QObject owner;
    ManagerPool pool(&shared, &owner);
    QList<QPointer<QNetworkAccessManager>> made;
    for (int i = 0; i < ManagerPool::maxIdleGroups; ++i) {
        QNetworkAccessManager *manager = pool.acquire("group-" + QByteArray::number(i), {});
        made.append(manager);
        if (i > 0)
            pool.release(manager); // group-0 stays busy
    }
    QCOMPARE(pool.groupCount(), ManagerPool::maxIdleGroups + 1);
    // One more group: the idle ones go, the busy one and the default group stay.
    QNetworkAccessManager *newest = pool.acquire("one-more", {});
    QCOMPARE(pool.groupCount(), 3);
    QCOMPARE(pool.managers("group-0"), (QList<QNetworkAccessManager *>{made.at(0).data()}));
    QVERIFY(pool.managers("group-1").isEmpty());
    QCOMPARE(pool.managers("one-more"), (QList<QNetworkAccessManager *>{newest}));
    QTRY_VERIFY(made.at(1).isNull()); // deleted later
    QVERIFY(!made.at(0).isNull());
}

QTEST_GUILESS_MAIN(TestManagerPool)
#include "tst_managerpool.moc"
