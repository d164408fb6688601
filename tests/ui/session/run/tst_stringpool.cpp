#include "ui/session/run/stringpool.h"

#include <QTest>

using RetryLab::Ui::StringPool;

class TestStringPool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptyString_isIdZero();
    void sameText_sameId_distinctTexts_distinctIds();
    void lastHitShortcut_doesNotConfuseAlternatingTexts();
    void unknownId_readsAsTheEmptyString();
    void clear_forgetsEverythingButTheEmptyString();
    void manyStrings_eachStoredOnce();
};

void TestStringPool::emptyString_isIdZero()
{
    StringPool pool;
    QCOMPARE(pool.size(), 1);
    QCOMPARE(pool.intern(QString()), 0u);
    QCOMPARE(pool.intern(QStringLiteral("")), 0u);
    QCOMPARE(pool.at(0), QString());
    QCOMPARE(pool.size(), 1);
}

void TestStringPool::sameText_sameId_distinctTexts_distinctIds()
{
    StringPool pool;
    const quint32 a = pool.intern(QStringLiteral("http-503"));
    const quint32 b = pool.intern(QStringLiteral("connection-reset"));
    QVERIFY(a != 0 && b != 0 && a != b);
    QCOMPARE(pool.intern(QStringLiteral("http-503")), a);
    QCOMPARE(pool.intern(QStringLiteral("connection-reset")), b);
    QCOMPARE(pool.at(a), QStringLiteral("http-503"));
    QCOMPARE(pool.at(b), QStringLiteral("connection-reset"));
    QCOMPARE(pool.size(), 3);
}

void TestStringPool::lastHitShortcut_doesNotConfuseAlternatingTexts()
{
    StringPool pool;
    QList<quint32> ids;
    for (int i = 0; i < 6; ++i)
        ids.append(pool.intern(i % 2 ? QStringLiteral("odd") : QStringLiteral("even")));
    QCOMPARE(ids, (QList<quint32>{1, 2, 1, 2, 1, 2}));
    // An empty string between two equal texts is still 0, and the text after it keeps its id.
    QCOMPARE(pool.intern(QString()), 0u);
    QCOMPARE(pool.intern(QStringLiteral("even")), 1u);
}

void TestStringPool::unknownId_readsAsTheEmptyString()
{
    StringPool pool;
    pool.intern(QStringLiteral("x"));
    QCOMPARE(pool.at(2), QString());
    QCOMPARE(pool.at(0xffffffffu), QString());
}

void TestStringPool::clear_forgetsEverythingButTheEmptyString()
{
    StringPool pool;
    const quint32 first = pool.intern(QStringLiteral("first"));
    pool.intern(QStringLiteral("second"));
    pool.clear();
    QCOMPARE(pool.size(), 1);
    QCOMPARE(pool.at(first), QString());
    // After a clear, the shortcut for the last text must not return a stale id.
    QCOMPARE(pool.intern(QStringLiteral("second")), 1u);
    QCOMPARE(pool.at(1), QStringLiteral("second"));
}

void TestStringPool::manyStrings_eachStoredOnce()
{
    StringPool pool;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 1000; ++i)
            QCOMPARE(pool.intern(QStringLiteral("cause-%1").arg(i)), quint32(i + 1));
    }
    QCOMPARE(pool.size(), 1001);
}

QTEST_GUILESS_MAIN(TestStringPool)
#include "tst_stringpool.moc"
