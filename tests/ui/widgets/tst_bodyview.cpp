#include "ui/widgets/bodyview.h"

#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QComboBox>
#include <QImage>
#include <QImageReader>
#include <QImageWriter>
#include <QLabel>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

using RetryLab::Ui::BodyView;
using Kind = BodyView::Kind;

namespace {

// An image of `size` written by Qt in `format`; empty when Qt cannot write it.
QByteArray imageBytes(const char *format, QSize size = QSize(16, 12))
{
    QImage image(size, QImage::Format_RGB32);
    image.fill(QColor(0x42, 0x8b, 0xe6));
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, format);
    return writer.write(image) ? bytes : QByteArray();
}

// A 1x1 GIF (Qt reads GIF but does not write it).
QByteArray gifBytes()
{
    return QByteArray::fromHex(
        "47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b");
}

QByteArray svgBytes()
{
    return QByteArrayLiteral(R"(<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="20" height="10">)"
                             R"(<rect width="20" height="10" fill="#428be6"/></svg>)");
}

// Image plugins that are packages of their own on Debian; a test without them must say which.
QString missingPlugin(const QByteArray &format)
{
    if (QImageReader::supportedImageFormats().contains(format))
        return {};
    if (format == "webp")
        return QStringLiteral("Qt's WebP image plugin is missing: install the Debian package qt6-image-formats-plugins "
                              "(scripts/deps.sh does)");
    if (format == "svg")
        return QStringLiteral(
            "Qt's SVG image plugin is missing: install the Debian package libqt6svg6 (scripts/deps.sh does)");
    return QStringLiteral("Qt cannot read %1 images").arg(QString::fromLatin1(format));
}

BodyView::Body body(const QByteArray &bytes, const QByteArray &contentType = {})
{
    BodyView::Body b;
    b.bytes = bytes;
    b.contentType = contentType;
    return b;
}

} // namespace

// The body viewer: what each kind of body looks like, how much of a large one is shown,
// and what Copy puts on the clipboard.
class TestBodyView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void detect_data();
    void detect();
    void charsetOf_data();
    void charsetOf();
    void json_isATreeThatFolds();
    void json_textMode_isPrettyPrinted();
    void json_cutShort_isShownAsTextAndSaysSo();
    void text_isDecodedInItsCharset();
    void text_unknownCharset_saysSo();
    void binary_isAHexDumpWithItsSize();
    void hexDump_format();
    void image_isShown_data();
    void image_isShown();
    void image_thatDoesNotDecode_isAHexDump();
    void large_isShownInPart_copyTakesAll();
    void truncated_saysHowMuchWasKept();
    void dropped_saysSo();
    void empty_showsTheAbsentNote();
    void copyButton_putsTheRightTextOnTheClipboard_data();
    void copyButton_putsTheRightTextOnTheClipboard();
    void copyButton_image_putsTheImageOnTheClipboard();

private:
    std::unique_ptr<BodyView> m_view;
};

void TestBodyView::init()
{
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    m_view = std::make_unique<BodyView>();
    m_view->resize(600, 400);
    m_view->show();
}

void TestBodyView::detect_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<Kind>("kind");
    QTest::addRow("empty") << QByteArray() << QByteArray("application/json") << Kind::None;
    QTest::addRow("JSON by type") << QByteArray(R"({"a":1})") << QByteArray("application/json") << Kind::Json;
    QTest::addRow("JSON +json type") << QByteArray(R"([1,2])") << QByteArray("application/problem+json; charset=utf-8")
                                     << Kind::Json;
    QTest::addRow("JSON sniffed") << QByteArray(R"( {"a": [1, 2]} )") << QByteArray() << Kind::Json;
    QTest::addRow("JSON cut short") << QByteArray(R"({"a": [1, 2)") << QByteArray("application/json") << Kind::Text;
    QTest::addRow("text/plain") << QByteArray("hello\nworld") << QByteArray("text/plain") << Kind::Text;
    QTest::addRow("html") << QByteArray("<p>hi</p>") << QByteArray("text/html; charset=utf-8") << Kind::Text;
    QTest::addRow("xml") << QByteArray("<a/>") << QByteArray("application/xml") << Kind::Text;
    QTest::addRow("form") << QByteArray("a=1&b=2") << QByteArray("application/x-www-form-urlencoded") << Kind::Text;
    QTest::addRow("text sniffed") << QByteArray("plain words, Grüße") << QByteArray() << Kind::Text;
    QTest::addRow("octet-stream") << QByteArray("looks like text") << QByteArray("application/octet-stream")
                                  << Kind::Binary;
    QTest::addRow("binary sniffed") << QByteArray("\x00\x01\x02\xff\xfe", 5) << QByteArray() << Kind::Binary;
    QTest::addRow("PNG by type") << imageBytes("png") << QByteArray("image/png") << Kind::Image;
    QTest::addRow("PNG sniffed") << imageBytes("png") << QByteArray() << Kind::Image;
    QTest::addRow("PNG as octet-stream") << imageBytes("png") << QByteArray("application/octet-stream") << Kind::Image;
    QTest::addRow("JPEG") << imageBytes("jpeg") << QByteArray("image/jpeg") << Kind::Image;
    QTest::addRow("GIF") << gifBytes() << QByteArray("image/gif") << Kind::Image;
    QTest::addRow("not an image") << QByteArray("nope") << QByteArray("image/png") << Kind::Binary;
}

void TestBodyView::detect()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QByteArray, contentType);
    QFETCH(Kind, kind);
    QCOMPARE(BodyView::detect(bytes, contentType), kind);
}

void TestBodyView::charsetOf_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QString>("charset");
    QTest::addRow("none") << QByteArray("text/plain") << QStringLiteral("utf-8");
    QTest::addRow("plain") << QByteArray("text/plain; charset=ISO-8859-1") << QStringLiteral("iso-8859-1");
    QTest::addRow("quoted") << QByteArray("text/plain;charset=\"utf-16\"") << QStringLiteral("utf-16");
    QTest::addRow("among others") << QByteArray("text/html; q=1; Charset=UTF-8") << QStringLiteral("utf-8");
}

void TestBodyView::charsetOf()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QString, charset);
    QCOMPARE(BodyView::charsetOf(contentType), charset);
}

void TestBodyView::json_isATreeThatFolds()
{
    m_view->setBody(body(
        R"({"status":503,"error":{"code":"overloaded","retry":[1,2,3]},"ok":false,"none":null})", "application/json"));
    QCOMPARE(m_view->kind(), Kind::Json);
    QTreeView *tree = m_view->jsonTree();
    QVERIFY(tree->isVisible());
    const QAbstractItemModel *model = tree->model();
    QCOMPARE(model->rowCount(), 4);
    QStringList keys;
    for (int r = 0; r < 4; ++r)
        keys.append(model->index(r, 0).data().toString());
    QCOMPARE(keys,
        (QStringList{QStringLiteral("error"), QStringLiteral("none"), QStringLiteral("ok"), QStringLiteral("status")}));
    const QModelIndex error = model->index(0, 0);
    QCOMPARE(model->index(0, 1).data().toString(), QStringLiteral("{2 keys}"));
    QCOMPARE(model->rowCount(error), 2);
    QCOMPARE(model->index(0, 1, error).data().toString(), QStringLiteral("\"overloaded\""));
    const QModelIndex retry = model->index(1, 0, error);
    QCOMPARE(model->index(1, 1, error).data().toString(), QStringLiteral("[3 items]"));
    QCOMPARE(model->index(2, 1, retry).data().toString(), QStringLiteral("3"));
    QCOMPARE(model->index(1, 1).data().toString(), QStringLiteral("null"));
    QCOMPARE(model->index(2, 1).data().toString(), QStringLiteral("false"));
    QCOMPARE(model->index(3, 1).data().toString(), QStringLiteral("503"));
    // Small documents open whole; each object and array folds.
    QVERIFY(tree->isExpanded(error));
    QVERIFY(tree->isExpanded(retry));
    tree->collapse(error);
    QVERIFY(!tree->isExpanded(error));
    QVERIFY(m_view->summary().startsWith(QLatin1String("JSON (application/json)")));
}

void TestBodyView::json_textMode_isPrettyPrinted()
{
    m_view->setBody(body(R"({"a":{"b":[1,2]}})", "application/json"));
    m_view->setMode(BodyView::Mode::Text);
    QVERIFY(m_view->textView()->isVisible());
    QCOMPARE(m_view->textView()->toPlainText(),
        QStringLiteral("{\n    \"a\": {\n        \"b\": [\n            1,\n            2\n        ]\n    }\n}\n"));
    QCOMPARE(m_view->modeChooser()->currentData().toInt(), int(BodyView::Mode::Text));
    m_view->setMode(BodyView::Mode::Hex);
    QVERIFY(m_view->textView()->toPlainText().startsWith(QLatin1String("00000000  7b 22 61 22")));
}

void TestBodyView::json_cutShort_isShownAsTextAndSaysSo()
{
    m_view->setBody(body(R"({"items":[1,2,3)", "application/json"));
    QCOMPARE(m_view->kind(), Kind::Text);
    QCOMPARE(m_view->textView()->toPlainText(), QStringLiteral(R"({"items":[1,2,3)"));
    QVERIFY2(m_view->note().contains(QLatin1String("Not valid JSON")), qPrintable(m_view->note()));
}

void TestBodyView::text_isDecodedInItsCharset()
{
    m_view->setBody(body(QByteArray("caf\xe9 cr\xe8me"), "text/plain; charset=iso-8859-1"));
    QCOMPARE(m_view->kind(), Kind::Text);
    QCOMPARE(m_view->textView()->toPlainText(), QStringLiteral("café crème"));
    QVERIFY2(m_view->summary().startsWith(QLatin1String("Text, ISO-8859-1")), qPrintable(m_view->summary()));
    QVERIFY(m_view->note().isEmpty());
}

void TestBodyView::text_unknownCharset_saysSo()
{
    m_view->setBody(body("plain", "text/plain; charset=x-martian"));
    QCOMPARE(m_view->textView()->toPlainText(), QStringLiteral("plain"));
    QVERIFY2(m_view->note().contains(QLatin1String("x-martian")), qPrintable(m_view->note()));
}

void TestBodyView::binary_isAHexDumpWithItsSize()
{
    QByteArray bytes;
    for (int i = 0; i < 300; ++i)
        bytes.append(char(i));
    m_view->setBody(body(bytes, "application/octet-stream"));
    QCOMPARE(m_view->kind(), Kind::Binary);
    QCOMPARE(m_view->summary(), QStringLiteral("Binary (application/octet-stream) \u00b7 300 bytes"));
    const QString dump = m_view->textView()->toPlainText();
    QCOMPARE(dump.count(QLatin1Char('\n')), 19); // 300 bytes, 16 a line
    QVERIFY(dump.startsWith(QLatin1String("00000000  00 01 02 03")));
}

void TestBodyView::hexDump_format()
{
    QCOMPARE(BodyView::hexDump(QByteArray("{\"status\":503}\n\x01"), 100),
        QStringLiteral("00000000  7b 22 73 74 61 74 75 73  22 3a 35 30 33 7d 0a 01  |{\"status\":503}..|\n"));
    QCOMPARE(BodyView::hexDump("AB", 100),
        QStringLiteral("00000000  41 42                                             |AB|\n"));
    QCOMPARE(BodyView::hexDump(QByteArray(40, 'x'), 16).count(QLatin1Char('\n')), 1);
}

void TestBodyView::image_isShown_data()
{
    QTest::addColumn<QByteArray>("format");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QSize>("size");
    QTest::addRow("PNG") << QByteArray("png") << QByteArray("image/png") << QSize(16, 12);
    QTest::addRow("JPEG") << QByteArray("jpeg") << QByteArray("image/jpeg") << QSize(16, 12);
    QTest::addRow("GIF") << QByteArray("gif") << QByteArray("image/gif") << QSize(1, 1);
    QTest::addRow("WebP") << QByteArray("webp") << QByteArray("image/webp") << QSize(16, 12);
    QTest::addRow("SVG") << QByteArray("svg") << QByteArray("image/svg+xml") << QSize(20, 10);
}

void TestBodyView::image_isShown()
{
    QFETCH(QByteArray, format);
    QFETCH(QByteArray, contentType);
    QFETCH(QSize, size);
    const QString missing = missingPlugin(format);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    const QByteArray bytes = format == "gif" ? gifBytes()
        : format == "svg"                    ? svgBytes()
                                             : imageBytes(format.constData());
    QVERIFY2(!bytes.isEmpty(), "Qt could not write the test image");
    m_view->setBody(body(bytes, contentType));
    QCOMPARE(m_view->kind(), Kind::Image);
    QVERIFY(m_view->imageLabel()->isVisible());
    QCOMPARE(m_view->imageLabel()->pixmap().size(), size);
    const QString expected = QStringLiteral("%1 image, %2 \u00d7 %3 px")
                                 .arg(QString::fromLatin1(format.toUpper()))
                                 .arg(size.width())
                                 .arg(size.height());
    QVERIFY2(m_view->summary().startsWith(expected), qPrintable(m_view->summary()));
}

void TestBodyView::image_thatDoesNotDecode_isAHexDump()
{
    // A PNG cut after its header: Qt knows the format, cannot read the picture.
    m_view->setBody(body(imageBytes("png").left(40), "image/png"));
    QCOMPARE(m_view->kind(), Kind::Binary);
    QVERIFY(m_view->textView()->isVisible());
    QVERIFY2(m_view->note().contains(QLatin1String("could not be decoded")), qPrintable(m_view->note()));
}

void TestBodyView::large_isShownInPart_copyTakesAll()
{
    QByteArray big;
    while (big.size() < BodyView::maxShownChars + 1000)
        big += "retry after a delay\n";
    m_view->setBody(body(big, "text/plain"));
    QCOMPARE(m_view->textView()->toPlainText().size(), BodyView::maxShownChars);
    QVERIFY2(m_view->note().contains(
                 QStringLiteral("Showing the first 65,536 of %1 characters").arg(QLocale().toString(big.size()))),
        qPrintable(m_view->note()));
    QCOMPARE(m_view->copyText().size(), big.size());

    const QByteArray binary(BodyView::maxHexBytes * 2, '\x01');
    m_view->setBody(body(binary, "application/octet-stream"));
    QCOMPARE(m_view->textView()->toPlainText().count(QLatin1Char('\n')), BodyView::maxHexBytes / 16);
    QVERIFY2(m_view->note().contains(QLatin1String("Showing the first 64.0 KiB")), qPrintable(m_view->note()));
    QCOMPARE(m_view->copyText().count(QLatin1Char('\n')), binary.size() / 16);

    // A JSON tree stops at its node limit and says where the rest is.
    QByteArray array = "[";
    for (int i = 0; i < BodyView::maxJsonNodes + 10; ++i)
        array += (i ? "," : "") + QByteArray::number(i);
    array += "]";
    m_view->setBody(body(array, "application/json"));
    QCOMPARE(m_view->jsonTree()->model()->rowCount(), BodyView::maxJsonNodes);
    QVERIFY2(m_view->note().contains(QLatin1String("Text shows all of it")), qPrintable(m_view->note()));
}

void TestBodyView::truncated_saysHowMuchWasKept()
{
    QByteArray kept;
    while (kept.size() < 1024 * 1024)
        kept += "0123456789abcdef";
    BodyView::Body b = body(kept, "text/plain");
    b.totalBytes = 3 * 1024 * 1024;
    b.truncated = true;
    m_view->setBody(b);
    QVERIFY2(m_view->summary().endsWith(QLatin1String("3.0 MiB (3,145,728 bytes)")), qPrintable(m_view->summary()));
    QVERIFY2(m_view->note().startsWith(
                 QLatin1String("Only the first 1.0 MiB (1,048,576 bytes) of 3.0 MiB (3,145,728 bytes) were kept.")),
        qPrintable(m_view->note()));
    QVERIFY(m_view->noteLabel()->isVisible());
}

void TestBodyView::dropped_saysSo()
{
    BodyView::Body b;
    b.contentType = "application/json";
    b.totalBytes = 2048;
    b.dropped = true;
    m_view->setBody(b);
    QVERIFY2(m_view->note().startsWith(QLatin1String("Body dropped to bound memory")), qPrintable(m_view->note()));
    QVERIFY(m_view->findChild<QLabel *>(QStringLiteral("bodyEmpty"))->text().contains(QLatin1String("dropped")));
    QVERIFY(!m_view->copyButton()->isEnabled());
}

void TestBodyView::empty_showsTheAbsentNote()
{
    BodyView::Body b;
    b.absentNote = QStringLiteral("No response");
    m_view->setBody(b);
    QCOMPARE(m_view->kind(), Kind::None);
    QCOMPARE(m_view->summary(), QStringLiteral("No response"));
    QCOMPARE(m_view->findChild<QLabel *>(QStringLiteral("bodyEmpty"))->text(), QStringLiteral("No response"));
    QVERIFY(!m_view->copyButton()->isEnabled());
    QVERIFY(m_view->note().isEmpty());
}

void TestBodyView::copyButton_putsTheRightTextOnTheClipboard_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("expected");
    QTest::addRow("JSON, indented") << QByteArray(R"({"a":1})") << QByteArray("application/json")
                                    << int(BodyView::Mode::Auto) << QStringLiteral("{\n    \"a\": 1\n}\n");
    QTest::addRow("text, decoded") << QByteArray("caf\xe9") << QByteArray("text/plain; charset=iso-8859-1")
                                   << int(BodyView::Mode::Auto) << QStringLiteral("café");
    QTest::addRow("binary, hex") << QByteArray("\x00\xff", 2) << QByteArray() << int(BodyView::Mode::Auto)
                                 << BodyView::hexDump(QByteArray("\x00\xff", 2), 16);
    QTest::addRow("text as hex") << QByteArray("AB") << QByteArray("text/plain") << int(BodyView::Mode::Hex)
                                 << BodyView::hexDump("AB", 16);
}

void TestBodyView::copyButton_putsTheRightTextOnTheClipboard()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QByteArray, contentType);
    QFETCH(int, mode);
    QFETCH(QString, expected);
    m_view->setBody(body(bytes, contentType));
    m_view->setMode(BodyView::Mode(mode));
    QApplication::clipboard()->clear();
    QSignalSpy copied(m_view.get(), &BodyView::copied);
    QTest::mouseClick(m_view->copyButton(), Qt::LeftButton);
    QCOMPARE(copied.size(), 1);
    QCOMPARE(QApplication::clipboard()->text(), expected);
}

void TestBodyView::copyButton_image_putsTheImageOnTheClipboard()
{
    m_view->setBody(body(imageBytes("png"), "image/png"));
    QApplication::clipboard()->clear();
    QTest::mouseClick(m_view->copyButton(), Qt::LeftButton);
    const QImage copied = QApplication::clipboard()->image();
    QCOMPARE(copied.size(), QSize(16, 12));
    QCOMPARE(QApplication::clipboard()->mimeData()->data(QStringLiteral("image/png")), imageBytes("png"));
}

QTEST_MAIN(TestBodyView)
#include "tst_bodyview.moc"
