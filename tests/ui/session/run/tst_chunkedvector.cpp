#include "ui/session/run/chunkedvector.h"

#include <QTest>

#include <string>

using RetryLab::Ui::ChunkedVector;

class TestChunkedVector : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void empty_hasNoChunks();
    void append_acrossChunkBoundaries_keepsOrderAndValues();
    void growing_neverMovesWhatIsStored();
    void capacity_growsOneChunkAtATime();
    void clear_releasesEverything();
    void nonTrivialElements_areCopiedIn();
};

void TestChunkedVector::empty_hasNoChunks()
{
    ChunkedVector<int, 2> v;
    QVERIFY(v.isEmpty());
    QCOMPARE(v.size(), 0);
    QCOMPARE(v.capacityBytes(), 0);
}

void TestChunkedVector::append_acrossChunkBoundaries_keepsOrderAndValues()
{
    ChunkedVector<int, 2> v; // chunks of 4
    QCOMPARE(v.chunkSize, 4);
    for (int i = 0; i < 19; ++i)
        QCOMPARE(v.append(i * 10), i * 10);
    QCOMPARE(v.size(), 19);
    for (int i = 0; i < 19; ++i)
        QCOMPARE(v[i], i * 10);
    v[7] = -1;
    QCOMPARE(std::as_const(v)[7], -1);
    QCOMPARE(v[8], 80);
}

void TestChunkedVector::growing_neverMovesWhatIsStored()
{
    ChunkedVector<double, 3> v;
    const double *first = &v.append(1.5);
    const double *ninth = nullptr;
    for (int i = 1; i < 1000; ++i) {
        const double &slot = v.append(i);
        if (i == 8)
            ninth = &slot;
    }
    QCOMPARE(&v[0], first);
    QCOMPARE(&v[8], ninth);
    QCOMPARE(*first, 1.5);
}

void TestChunkedVector::capacity_growsOneChunkAtATime()
{
    ChunkedVector<qint64, 4> v; // chunks of 16 x 8 bytes
    v.append(1);
    QCOMPARE(v.capacityBytes(), 16 * 8);
    for (int i = 1; i < 16; ++i)
        v.append(i);
    QCOMPARE(v.capacityBytes(), 16 * 8);
    v.append(16);
    QCOMPARE(v.capacityBytes(), 2 * 16 * 8);
}

void TestChunkedVector::clear_releasesEverything()
{
    ChunkedVector<int, 2> v;
    for (int i = 0; i < 10; ++i)
        v.append(i);
    v.clear();
    QVERIFY(v.isEmpty());
    QCOMPARE(v.capacityBytes(), 0);
    v.append(42);
    QCOMPARE(v.size(), 1);
    QCOMPARE(v[0], 42);
}

void TestChunkedVector::nonTrivialElements_areCopiedIn()
{
    ChunkedVector<std::string, 1> v;
    std::string text = "a longer string than the small-string buffer holds";
    v.append(text);
    text.clear();
    v.append("b");
    v.append("c");
    QCOMPARE(v.size(), 3);
    QCOMPARE(QString::fromStdString(v[0]), QStringLiteral("a longer string than the small-string buffer holds"));
    QCOMPARE(QString::fromStdString(v[2]), QStringLiteral("c"));
}

QTEST_GUILESS_MAIN(TestChunkedVector)
#include "tst_chunkedvector.moc"
