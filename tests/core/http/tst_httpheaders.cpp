#include "core/http/httpheaders.h"

#include <QTest>

using namespace RetryLab::Core;

// The header vocabulary: RFC 9110 tokens and field-value characters, the first
// value of a header, reason phrases.
class TestHttpHeaders : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void isToken_acceptsTcharsOnly_data();
    void isToken_acceptsTcharsOnly();
    void isTokenChar_isExactlyRfc9110sSet();
    void isFieldValueChar_refusesControlsButTab();
    void headerValue_firstOfThatNameInAnyCase();
    void reasonPhrase_namedOrItsClass();
};

void TestHttpHeaders::isToken_acceptsTcharsOnly_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("token");
    QTest::addRow("method") << QStringLiteral("GET") << true;
    QTest::addRow("custom method") << QStringLiteral("M-SEARCH") << true;
    QTest::addRow("header name") << QStringLiteral("X-Retry-Attempt") << true;
    QTest::addRow("digits") << QStringLiteral("123") << true;
    QTest::addRow("every symbol") << QStringLiteral("!#$%&'*+-.^_`|~") << true;
    QTest::addRow("empty") << QString() << false;
    QTest::addRow("space") << QStringLiteral("X Header") << false;
    QTest::addRow("colon") << QStringLiteral("Host:") << false;
    QTest::addRow("tab") << QStringLiteral("A\tB") << false;
    QTest::addRow("separators") << QStringLiteral("a(b)") << false;
    QTest::addRow("quote") << QStringLiteral("\"a\"") << false;
    QTest::addRow("slash") << QStringLiteral("a/b") << false;
    QTest::addRow("comma") << QStringLiteral("a,b") << false;
    QTest::addRow("DEL") << QStringLiteral("a\x7f") << false;
    QTest::addRow("Latin-1 letter") << QStringLiteral("caf\u00e9") << false;
    QTest::addRow("beyond Latin-1") << QStringLiteral("\u0413ET") << false;
}

void TestHttpHeaders::isToken_acceptsTcharsOnly()
{
    QFETCH(QString, text);
    QFETCH(bool, token);
    QCOMPARE(isToken(QStringView(text)), token);
    // The bytes a server reads: UTF-8, whose bytes beyond ASCII are no tchars either.
    QCOMPARE(isToken(QByteArrayView(text.toUtf8())), token);
}

void TestHttpHeaders::isTokenChar_isExactlyRfc9110sSet()
{
    const QByteArray symbols = "!#$%&'*+-.^_`|~";
    for (int c = 0; c < 256; ++c) {
        const char ch = char(c);
        const bool expected = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
            || (c != 0 && symbols.contains(ch));
        QVERIFY2(isTokenChar(ch) == expected, qPrintable(QStringLiteral("byte %1").arg(c)));
    }
}

void TestHttpHeaders::isFieldValueChar_refusesControlsButTab()
{
    for (int c = 0; c < 256; ++c) {
        const bool expected = c == '\t' || c == ' ' || (c >= 0x21 && c != 0x7f);
        QVERIFY2(isFieldValueChar(char(c)) == expected, qPrintable(QStringLiteral("byte %1").arg(c)));
    }
}

void TestHttpHeaders::headerValue_firstOfThatNameInAnyCase()
{
    const HeaderList headers = {{"Accept", "a"}, {"content-type", "text/plain"}, {"Content-Type", "application/json"}};
    QCOMPARE(headerValue(headers, "Content-Type").value_or(QByteArray()), QByteArray("text/plain"));
    QCOMPARE(headerValue(headers, "ACCEPT").value_or(QByteArray()), QByteArray("a"));
    QVERIFY(!headerValue(headers, "Accept-Encoding"));
    QVERIFY(!headerValue(headers, "Accep"));
}

void TestHttpHeaders::reasonPhrase_namedOrItsClass()
{
    QCOMPARE(reasonPhrase(503), QByteArray("Service Unavailable"));
    QCOMPARE(reasonPhrase(200), QByteArray("OK"));
    QCOMPARE(reasonPhrase(599), QByteArray("Server Error"));
}

QTEST_GUILESS_MAIN(TestHttpHeaders)
#include "tst_httpheaders.moc"
