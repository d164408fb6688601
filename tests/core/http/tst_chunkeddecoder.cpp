#include "core/http/chunkeddecoder.h"

#include <QByteArray>
#include <QTest>

using namespace RetryLab::Core;

namespace {

/// What a decoder made of a whole body: the content, the framing bytes, and
/// the error it stopped at (None when it read up to the last chunk).
struct Decoded
{
    QByteArray content;
    qsizetype framing = 0;
    QList<qint64> sizes;
    ChunkedDecoder::Error error = ChunkedDecoder::Error::None;
    bool done = false;
    qsizetype consumed = 0;
};

/// Feeds `wire` in pieces of `piece` bytes, as a caller with a buffer does.
Decoded decode(ChunkedDecoder::Grammar grammar, const QByteArray &wire, qsizetype piece)
{
    ChunkedDecoder decoder(grammar);
    Decoded out;
    QByteArray buffer;
    qsizetype pos = 0;
    for (qsizetype fed = 0; fed < wire.size() && !out.done;) {
        buffer += wire.mid(fed, piece);
        fed += piece;
        for (;;) {
            const ChunkedDecoder::Step step = decoder.next(QByteArrayView(buffer).sliced(pos));
            using Kind = ChunkedDecoder::Step::Kind;
            if (step.kind == Kind::NeedMore)
                break;
            if (step.kind == Kind::Failed) {
                out.error = decoder.error();
                out.consumed = pos;
                return out;
            }
            if (step.kind == Kind::Data)
                out.content += buffer.mid(pos, step.consumed);
            else
                out.framing += step.consumed;
            if (step.kind == Kind::Size)
                out.sizes.append(step.size);
            pos += step.consumed;
            if (decoder.isDone()) {
                out.done = true;
                break;
            }
        }
    }
    out.consumed = pos;
    return out;
}

} // namespace

// The chunked framing alone, in both grammars, fed whole and a byte at a time.
class TestChunkedDecoder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void wellFormedBody_isDecodedAtEverySplit_data();
    void wellFormedBody_isDecodedAtEverySplit();
    void malformedBody_isRefusedWithItsKind_data();
    void malformedBody_isRefusedWithItsKind();
    void longSizeLine_isRefusedBeforeItsEndArrives_data();
    void longSizeLine_isRefusedBeforeItsEndArrives();
    void bytesAfterTheLastChunk_areLeftToTheCaller();
    void reset_startsOnANewBody();
};

void TestChunkedDecoder::wellFormedBody_isDecodedAtEverySplit_data()
{
    QTest::addColumn<int>("grammar");
    QTest::addColumn<QByteArray>("wire");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QList<qint64>>("sizes");
    const auto both
        = [](const char *name, const QByteArray &wire, const QByteArray &content, const QList<qint64> &sizes) {
              QTest::addRow("%s, strict", name) << int(ChunkedDecoder::Grammar::Strict) << wire << content << sizes;
              QTest::addRow("%s, tolerant", name) << int(ChunkedDecoder::Grammar::Tolerant) << wire << content << sizes;
          };
    both("two chunks", "5\r\nhello\r\n6\r\n world\r\n0\r\n", "hello world", {5, 6, 0});
    both("bare LF", "3\nabc\n0\n", "abc", {3, 0});
    both("upper and lower hex", "A\r\n0123456789\r\nb\r\n0123456789a\r\n0\r\n", "01234567890123456789a", {10, 11, 0});
    both("extension", "4;name=\"v\"\r\nwxyz\r\n0;last\r\n", "wxyz", {4, 0});
    both("white space before the extension", "2 \t;x\r\nab\r\n0\r\n", "ab", {2, 0});
    both("empty body", "0\r\n", "", {0});
    both("fifteen digits", "000000000000003\r\nabc\r\n0\r\n", "abc", {3, 0});
    // What only an upstream gets away with.
    QTest::addRow("white space before the size, tolerant")
        << int(ChunkedDecoder::Grammar::Tolerant) << QByteArray(" 3 \r\nabc\r\n0\r\n") << QByteArray("abc")
        << QList<qint64>{3, 0};
    QTest::addRow("extension with a control character, tolerant")
        << int(ChunkedDecoder::Grammar::Tolerant) << QByteArray("3;\x01\r\nabc\r\n0\r\n") << QByteArray("abc")
        << QList<qint64>{3, 0};
}

void TestChunkedDecoder::wellFormedBody_isDecodedAtEverySplit()
{
    QFETCH(int, grammar);
    QFETCH(QByteArray, wire);
    QFETCH(QByteArray, content);
    QFETCH(QList<qint64>, sizes);
    for (qsizetype piece = 1; piece <= wire.size(); ++piece) {
        const Decoded d = decode(ChunkedDecoder::Grammar(grammar), wire, piece);
        QVERIFY2(d.done, qPrintable(QStringLiteral("pieces of %1").arg(piece)));
        QCOMPARE(d.error, ChunkedDecoder::Error::None);
        QCOMPARE(d.content, content);
        QCOMPARE(d.sizes, sizes);
        QCOMPARE(d.framing + d.content.size(), wire.size());
        QCOMPARE(d.consumed, wire.size());
    }
}

void TestChunkedDecoder::malformedBody_isRefusedWithItsKind_data()
{
    QTest::addColumn<int>("grammar");
    QTest::addColumn<QByteArray>("wire");
    QTest::addColumn<ChunkedDecoder::Error>("error");
    const int strict = int(ChunkedDecoder::Grammar::Strict);
    const int tolerant = int(ChunkedDecoder::Grammar::Tolerant);
    using E = ChunkedDecoder::Error;
    QTest::addRow("not hex, strict") << strict << QByteArray("zz\r\n") << E::BadSize;
    QTest::addRow("not hex, tolerant") << tolerant << QByteArray("zz\r\n") << E::BadSize;
    QTest::addRow("empty size line, strict") << strict << QByteArray("\r\n") << E::BadSize;
    QTest::addRow("empty size line, tolerant") << tolerant << QByteArray("\r\n") << E::BadSize;
    QTest::addRow("negative, strict") << strict << QByteArray("-5\r\n") << E::BadSize;
    QTest::addRow("negative, tolerant") << tolerant << QByteArray("-5\r\n") << E::BadSize;
    QTest::addRow("junk after the size, strict") << strict << QByteArray("5 x\r\n") << E::BadSize;
    QTest::addRow("junk after the size, tolerant") << tolerant << QByteArray("5 x\r\n") << E::BadSize;
    QTest::addRow("white space before the size, strict") << strict << QByteArray(" 5\r\n") << E::BadSize;
    QTest::addRow("sixteen digits, strict") << strict << QByteArray("FFFFFFFFFFFFFFFF\r\n") << E::TooManyDigits;
    QTest::addRow("sixteen digits, tolerant") << tolerant << QByteArray("FFFFFFFFFFFFFFFF\r\n") << E::BadSize;
    QTest::addRow("control character in an extension, strict") << strict << QByteArray("3;\x01\r\n") << E::BadExtension;
    QTest::addRow("data longer than its size, strict") << strict << QByteArray("2\r\nabc\r\n") << E::DataTooLong;
    QTest::addRow("data longer than its size, tolerant") << tolerant << QByteArray("2\r\nabc\r\n") << E::DataTooLong;
    QTest::addRow("CR without LF after the data, strict")
        << strict << QByteArray("2\r\nab\rx") << E::BareCarriageReturn;
    QTest::addRow("CR without LF after the data, tolerant")
        << tolerant << QByteArray("2\r\nab\rx") << E::BareCarriageReturn;
    const QByteArray longExtension = "1;" + QByteArray(ChunkedDecoder::maxChunkLineBytes, 'x') + "\r\na\r\n0\r\n";
    QTest::addRow("long line that ends, strict") << strict << longExtension << E::LineTooLong;
}

void TestChunkedDecoder::malformedBody_isRefusedWithItsKind()
{
    QFETCH(int, grammar);
    QFETCH(QByteArray, wire);
    QFETCH(ChunkedDecoder::Error, error);
    for (const qsizetype piece : {qsizetype(1), wire.size()}) {
        const Decoded d = decode(ChunkedDecoder::Grammar(grammar), wire, piece);
        QVERIFY(!d.done);
        QCOMPARE(d.error, error);
    }
}

void TestChunkedDecoder::longSizeLine_isRefusedBeforeItsEndArrives_data()
{
    QTest::addColumn<int>("grammar");
    QTest::addRow("strict") << int(ChunkedDecoder::Grammar::Strict);
    QTest::addRow("tolerant") << int(ChunkedDecoder::Grammar::Tolerant);
}

void TestChunkedDecoder::longSizeLine_isRefusedBeforeItsEndArrives()
{
    QFETCH(int, grammar);
    ChunkedDecoder decoder{ChunkedDecoder::Grammar(grammar)};
    QByteArray line = "1;";
    line += QByteArray(ChunkedDecoder::maxChunkLineBytes - line.size(), 'x');
    QCOMPARE(decoder.next(line).kind, ChunkedDecoder::Step::Kind::NeedMore);
    line += 'x';
    QCOMPARE(decoder.next(line).kind, ChunkedDecoder::Step::Kind::Failed);
    QCOMPARE(decoder.error(), ChunkedDecoder::Error::LineTooLong);
    // It stays failed.
    QCOMPARE(decoder.next("0\r\n").kind, ChunkedDecoder::Step::Kind::Failed);

    // A tolerant decoder takes a long line whose end has arrived: an upstream's is passed on.
    if (ChunkedDecoder::Grammar(grammar) == ChunkedDecoder::Grammar::Tolerant) {
        const QByteArray wire = "1;" + QByteArray(2 * ChunkedDecoder::maxChunkLineBytes, 'x') + "\r\na\r\n0\r\n";
        const Decoded d = decode(ChunkedDecoder::Grammar::Tolerant, wire, wire.size());
        QVERIFY(d.done);
        QCOMPARE(d.content, QByteArray("a"));
    }
}

void TestChunkedDecoder::bytesAfterTheLastChunk_areLeftToTheCaller()
{
    ChunkedDecoder decoder(ChunkedDecoder::Grammar::Strict);
    const QByteArray wire = "0\r\nTrailer: x\r\n\r\n";
    const ChunkedDecoder::Step step = decoder.next(wire);
    QCOMPARE(step.kind, ChunkedDecoder::Step::Kind::Size);
    QCOMPARE(step.size, 0);
    QCOMPARE(step.consumed, 3);
    QCOMPARE(step.line.toByteArray(), QByteArray("0"));
    QVERIFY(decoder.isDone());
    QCOMPARE(decoder.next(QByteArrayView(wire).sliced(3)).kind, ChunkedDecoder::Step::Kind::NeedMore);
}

void TestChunkedDecoder::reset_startsOnANewBody()
{
    ChunkedDecoder decoder(ChunkedDecoder::Grammar::Strict);
    QCOMPARE(decoder.next("zz\r\n").kind, ChunkedDecoder::Step::Kind::Failed);
    decoder.reset();
    QCOMPARE(decoder.error(), ChunkedDecoder::Error::None);
    const ChunkedDecoder::Step step = decoder.next("3\r\n");
    QCOMPARE(step.kind, ChunkedDecoder::Step::Kind::Size);
    QCOMPARE(step.size, 3);
    QVERIFY(!decoder.isDone());
}

QTEST_GUILESS_MAIN(TestChunkedDecoder)
#include "tst_chunkeddecoder.moc"
