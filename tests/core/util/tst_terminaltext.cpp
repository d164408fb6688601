#include "core/util/terminaltext.h"

#include <QTest>

using namespace RetryLab::Core;

class TestTerminalText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void escaped_data();
    void escaped();
    void keepingLines_keepsOnlyLineFeeds();
};

void TestTerminalText::escaped_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << QStringLiteral("GET /status/200?a=%1") << QStringLiteral("GET /status/200?a=%1");
    QTest::newRow("clear screen") << QStringLiteral("a\x1b[2Jb") << QStringLiteral("a\\e[2Jb");
    QTest::newRow("title") << QStringLiteral("\x1b]0;owned\x07") << QStringLiteral("\\e]0;owned\\x07");
    QTest::newRow("carriage return") << QStringLiteral("ok\rFAIL") << QStringLiteral("ok\\rFAIL");
    QTest::newRow("forged line") << QStringLiteral("x\nPASS  all") << QStringLiteral("x\\nPASS  all");
    QTest::newRow("tab") << QStringLiteral("a\tb") << QStringLiteral("a\\tb");
    QTest::newRow("nul") << QString(QChar(0)) << QStringLiteral("\\x00");
    QTest::newRow("delete") << QString(QChar(0x7f)) << QStringLiteral("\\x7f");
    QTest::newRow("C1 CSI") << QString(QChar(0x9b)) + QStringLiteral("2J") << QStringLiteral("\\x9b2J");
    QTest::newRow("next line") << QString(QChar(0x85)) << QStringLiteral("\\x85");
    QTest::newRow("bidi override") << QStringLiteral("a") + QChar(0x202e) + QStringLiteral("cba")
                                   << QStringLiteral("a\\u202ecba");
    QTest::newRow("isolate") << QString(QChar(0x2066)) << QStringLiteral("\\u2066");
    QTest::newRow("line separator") << QString(QChar(0x2028)) << QStringLiteral("\\u2028");
    QTest::newRow("backslash kept") << QStringLiteral("C:\\temp\\n") << QStringLiteral("C:\\temp\\n");
    QTest::newRow("letters kept") << QStringLiteral("Grüße, 日本, é") << QStringLiteral("Grüße, 日本, é");
    QTest::newRow("zero-width joiner kept") << QStringLiteral("a") + QChar(0x200d) + QStringLiteral("b")
                                            << QStringLiteral("a") + QChar(0x200d) + QStringLiteral("b");
    QTest::newRow("empty") << QString() << QString();
}

void TestTerminalText::escaped()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(TerminalText::escaped(input), expected);
}

void TestTerminalText::keepingLines_keepsOnlyLineFeeds()
{
    QCOMPARE(TerminalText::escapedKeepingLines(QStringLiteral("one\ntwo\r\nthree\x1b[1A")),
        QStringLiteral("one\ntwo\\r\nthree\\e[1A"));
}

QTEST_APPLESS_MAIN(TestTerminalText)
#include "tst_terminaltext.moc"
