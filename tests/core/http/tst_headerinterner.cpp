#include "core/http/headerinterner.h"

#include <QTest>

using namespace RetryLab::Core;

class TestHeaderInterner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void intern_equalArrays_shareOneBuffer();
    void intern_view_keepsACopyOfItsBytes();
    void intern_list_namesAndValues();
    void full_keepsWhatComesAsItIs();
};

void TestHeaderInterner::intern_equalArrays_shareOneBuffer()
{
    HeaderInterner interner;
    const QByteArray first(1000, 'a');
    const QByteArray second(first.constData(), first.size()); // equal, a buffer of its own
    QVERIFY(first.constData() != second.constData());
    const QByteArray a = interner.intern(first);
    const QByteArray b = interner.intern(second);
    QCOMPARE(a, first);
    QCOMPARE(b, second);
    QCOMPARE(a.constData(), b.constData());
    QCOMPARE(interner.entries(), 1);
    QCOMPARE(interner.bytes(), 1000);
    QCOMPARE(interner.intern(QByteArray("b")), QByteArray("b"));
    QCOMPARE(interner.entries(), 2);
    QVERIFY(interner.intern(QByteArray()).isEmpty()); // nothing to keep
    QCOMPARE(interner.entries(), 2);
}

void TestHeaderInterner::intern_view_keepsACopyOfItsBytes()
{
    // A value that views part of a large buffer is kept as a copy of its own bytes.
    HeaderInterner interner;
    const QByteArray section = "Server: retrylab\r\n" + QByteArray(100'000, 'x');
    const QByteArray slice = QByteArray::fromRawData(section.constData() + 8, 8);
    QCOMPARE(slice, QByteArray("retrylab"));
    const QByteArray kept = interner.intern(slice);
    QCOMPARE(kept, QByteArray("retrylab"));
    const bool inside
        = kept.constData() >= section.constData() && kept.constData() < section.constData() + section.size();
    QVERIFY(!inside);
    QCOMPARE(interner.bytes(), 8);
}

void TestHeaderInterner::intern_list_namesAndValues()
{
    HeaderInterner interner;
    HeaderList one{{QByteArray("Content-Type"), QByteArray("text/plain")}, {QByteArray("X-Id"), QByteArray("1")}};
    HeaderList two{{QByteArray("Content-Type"), QByteArray("text/plain")}, {QByteArray("X-Id"), QByteArray("2")}};
    const HeaderList before = two;
    interner.intern(one);
    interner.intern(two);
    QCOMPARE(two, before); // equal content, order and repeats kept
    QCOMPARE(one.at(0).first.constData(), two.at(0).first.constData());
    QCOMPARE(one.at(0).second.constData(), two.at(0).second.constData());
    QCOMPARE(one.at(1).first.constData(), two.at(1).first.constData());
    QCOMPARE(interner.entries(), 5); // Content-Type, text/plain, X-Id, 1, 2
}

void TestHeaderInterner::full_keepsWhatComesAsItIs()
{
    // Values that never repeat (dates, ids) fill the table; then new ones pass through unchanged.
    HeaderInterner interner(3, 1'000);
    for (int i = 0; i < 10; ++i)
        QCOMPARE(interner.intern(QByteArray::number(i)), QByteArray::number(i));
    QCOMPARE(interner.entries(), 3);
    const QByteArray big(2'000, 'b'); // over the byte bound
    HeaderInterner small(100, 1'000);
    QCOMPARE(small.intern(big).constData(), big.constData());
    QCOMPARE(small.entries(), 0);
    // What is in the table is still shared.
    const QByteArray zero = QByteArray::number(0);
    QCOMPARE(interner.intern(zero).constData(), interner.intern(QByteArray::number(0)).constData());
}

QTEST_GUILESS_MAIN(TestHeaderInterner)
#include "tst_headerinterner.moc"
