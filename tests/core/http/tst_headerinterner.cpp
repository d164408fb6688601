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
    void internRepeating_comparedWithTheLastList_sharesAndStaysEqual();
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

void TestHeaderInterner::internRepeating_comparedWithTheLastList_sharesAndStaysEqual()
{
    // Each header is compared with the one at its place in the list before: a
    // repeat shares that one's buffer, anything else goes through the table.
    HeaderInterner interner(4, 1'000); // full after the first answer
    HeaderList first{{QByteArray("Server"), QByteArray("s")}, {QByteArray("Date"), QByteArray("d1")}};
    interner.internRepeating(first);
    QCOMPARE(interner.entries(), 4);
    HeaderList second{{QByteArray("Server"), QByteArray("s")}, {QByteArray("Date"), QByteArray("d2")},
        {QByteArray("Extra"), QByteArray("e")}};
    const HeaderList secondBefore = second;
    interner.internRepeating(second);
    QCOMPARE(second, secondBefore);
    QCOMPARE(second.at(0).first.constData(), first.at(0).first.constData());
    QCOMPARE(second.at(0).second.constData(), first.at(0).second.constData());
    QCOMPARE(second.at(1).first.constData(), first.at(1).first.constData());
    QCOMPARE(interner.entries(), 4); // the table was full: "d2" and "Extra" pass as they came

    // A value outside the table still shares the buffer of an equal one at its place just before.
    HeaderList third{{QByteArray("Server"), QByteArray("s")}, {QByteArray("Date"), QByteArray("d2")}};
    interner.internRepeating(third);
    QCOMPARE(third.at(1).second, QByteArray("d2"));
    QCOMPARE(third.at(1).second.constData(), second.at(1).second.constData());

    // The same headers in another order: equal content, shared through the table.
    HeaderList swapped{{QByteArray("Date"), QByteArray("d1")}, {QByteArray("Server"), QByteArray("s")}};
    const HeaderList swappedBefore = swapped;
    interner.internRepeating(swapped);
    QCOMPARE(swapped, swappedBefore);
    QCOMPARE(swapped.at(0).first.constData(), first.at(1).first.constData());
    QCOMPARE(swapped.at(0).second.constData(), first.at(1).second.constData());
    QCOMPARE(swapped.at(1).second.constData(), first.at(0).second.constData());
    QCOMPARE(interner.entries(), 4);

    // The very same list again (one answer after another): the last list, shared whole.
    HeaderList again{{QByteArray("Date"), QByteArray("d1")}, {QByteArray("Server"), QByteArray("s")}};
    interner.internRepeating(again);
    QCOMPARE(again, swappedBefore);
    QCOMPARE(again.constData(), swapped.constData());
    // One header shorter is not the same list: compared pair by pair, still equal.
    HeaderList shorter{{QByteArray("Date"), QByteArray("d1")}};
    interner.internRepeating(shorter);
    QCOMPARE(shorter, HeaderList({{QByteArray("Date"), QByteArray("d1")}}));
    QVERIFY(shorter.constData() != swapped.constData());
    QCOMPARE(shorter.at(0).second.constData(), first.at(1).second.constData());
}

QTEST_GUILESS_MAIN(TestHeaderInterner)
#include "tst_headerinterner.moc"
