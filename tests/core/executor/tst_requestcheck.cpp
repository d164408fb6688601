#include "core/executor/requestcheck.h"
#include "core/policy/backoffpolicy.h"

#include <QTest>

#include <cmath>

using namespace RetryLab::Core;

class TestRequestCheck : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sendable_data();
    void sendable();
    void brokenUrl_neverShowsItsSecrets_data();
    void brokenUrl_neverShowsItsSecrets();
    void transport_data();
    void transport();
    void headers_data();
    void headers();
    void badHeader_neverShowsItsValue();
};

void TestRequestCheck::sendable_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QVariant>("attemptTimeoutMs"); // null: none of its own
    QTest::addColumn<QString>("error"); // empty: sendable

    const QString ok = QStringLiteral("http://127.0.0.1:8080/status/200");
    QTest::addRow("http") << ok << QByteArray("GET") << QVariant() << QString();
    QTest::addRow("https, lower-case method")
        << QStringLiteral("https://example.test/x") << QByteArray("post") << QVariant() << QString();
    QTest::addRow("its own timeout") << ok << QByteArray("GET") << QVariant(0.0) << QString();
    QTest::addRow("no host") << QStringLiteral("http://") << QByteArray("GET") << QVariant()
                             << QStringLiteral("the URL \"http://\" is not valid: no host");
    QTest::addRow("ftp") << QStringLiteral("ftp://127.0.0.1/x") << QByteArray("GET") << QVariant()
                         << QStringLiteral("only http and https URLs can be sent (got \"ftp\")");
    QTest::addRow("no method") << ok << QByteArray(" ") << QVariant() << QStringLiteral("\" \" is not an HTTP method");
    QTest::addRow("two words") << ok << QByteArray("GET /x") << QVariant()
                               << QStringLiteral("\"GET /x\" is not an HTTP method");
    QTest::addRow("line feed in the method")
        << ok << QByteArray("GET\nHost:") << QVariant()
        << QStringLiteral("the method is not an HTTP method: a line feed (LF) at byte 4 cannot stand in a method or "
                          "header name");
    const QString timeout = QStringLiteral("the per-attempt timeout must lie between 0 and 604800000 ms (7 days)");
    QTest::addRow("negative timeout") << ok << QByteArray("GET") << QVariant(-0.5) << timeout;
    QTest::addRow("timeout beyond a week")
        << ok << QByteArray("GET") << QVariant(PolicyLimits::maxDeadlineMs + 1) << timeout;
    QTest::addRow("timeout not a number") << ok << QByteArray("GET") << QVariant(std::nan("")) << timeout;
}

void TestRequestCheck::sendable()
{
    QFETCH(QString, url);
    QFETCH(QByteArray, method);
    QFETCH(QVariant, attemptTimeoutMs);
    QFETCH(QString, error);
    RequestSpec spec;
    spec.url = QUrl(url);
    spec.method = method;
    if (!attemptTimeoutMs.isNull())
        spec.attemptTimeoutMs = attemptTimeoutMs.toDouble();
    const Result<void> check = checkRequest(spec);
    QCOMPARE(check.ok(), error.isEmpty());
    QCOMPARE(check.error(), error);
}

void TestRequestCheck::brokenUrl_neverShowsItsSecrets_data()
{
    QTest::addColumn<QString>("url");
    QTest::addRow("port out of range") << QStringLiteral("http://user:pw-secret@host:99999/x");
    QTest::addRow("no host") << QStringLiteral("http://user:pw-secret@/path");
    QTest::addRow("space in the host") << QStringLiteral("http://user:pw-secret@ho st/x?token=tok-secret");
    QTest::addRow("encoded password") << QStringLiteral("http://user:pw%2Dsecret@host:99999/x");
}

void TestRequestCheck::brokenUrl_neverShowsItsSecrets()
{
    QFETCH(QString, url);
    RequestSpec spec;
    spec.url = QUrl(url);
    const QString error = checkRequest(spec).error();
    QVERIFY2(error.startsWith(QLatin1String("the URL \"")), qPrintable(error));
    QVERIFY2(error.contains(QLatin1String("not valid")), qPrintable(error));
    // Known gap: the mask replaces the password as QUrl decodes and encodes
    // it, not as it was typed, so an escape the user wrote ("%2D" for "-")
    // survives in QUrl's quote of the input.
    QEXPECT_FAIL("encoded password", "the password as typed is not masked", Continue);
    QVERIFY2(!error.contains(QLatin1String("secret")), qPrintable(error));
}

void TestRequestCheck::transport_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QStringList>("insecureHosts");
    QTest::addColumn<QString>("error");
    const int http = int(TransportOptions::ProxyMode::Http);
    const int socks = int(TransportOptions::ProxyMode::Socks5);
    const QString local = QStringLiteral("127.0.0.1");
    QTest::addRow("default") << int(TransportOptions::ProxyMode::None) << QString() << 0 << QStringList() << QString();
    QTest::addRow("system") << int(TransportOptions::ProxyMode::System) << QString() << 0 << QStringList() << QString();
    QTest::addRow("HTTP proxy") << http << local << 3128 << QStringList() << QString();
    QTest::addRow("no host") << socks << QStringLiteral(" ") << 1080 << QStringList()
                             << QStringLiteral("the SOCKS5 proxy needs a host name or address");
    QTest::addRow("no port") << http << local << 0 << QStringList()
                             << QStringLiteral("the HTTP proxy needs a port (1-65535)");
    QTest::addRow("credentials in the host")
        << http << QStringLiteral("user:pw-secret@proxy") << 3128 << QStringList()
        << QStringLiteral("the HTTP proxy's host must be a bare host name or address, without scheme, credentials or "
                          "path");
    QTest::addRow("empty exempt host") << int(TransportOptions::ProxyMode::None) << QString() << 0
                                       << QStringList{QStringLiteral("a.example"), QString()}
                                       << QStringLiteral("a host whose certificate errors are to be ignored is empty");
}

void TestRequestCheck::transport()
{
    QFETCH(int, mode);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QStringList, insecureHosts);
    QFETCH(QString, error);
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("https://127.0.0.1/x"));
    spec.transport.proxyMode = TransportOptions::ProxyMode(mode);
    spec.transport.proxyHost = host;
    spec.transport.proxyPort = quint16(port);
    spec.transport.insecureHosts = insecureHosts;
    const Result<void> check = checkRequest(spec);
    QCOMPARE(check.error(), error);
    QVERIFY(!check.error().contains(QLatin1String("secret")));
}

QTEST_GUILESS_MAIN(TestRequestCheck)

void TestRequestCheck::headers_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("error"); // empty: sendable
    QTest::addRow("plain") << QByteArray("User-Agent") << QByteArray("curl/8.0 (x86_64)") << QString();
    QTest::addRow("empty value") << QByteArray("X-Empty") << QByteArray() << QString();
    QTest::addRow("tab and obs-text") << QByteArray("X-T") << QByteArray("a\tb \xe9") << QString();
    QTest::addRow("request splitting")
        << QByteArray("User-Agent") << QByteArray("x\r\n\r\nGET /SMUGGLED HTTP/1.1\r\nHost: victim")
        << QStringLiteral("the header \"User-Agent\": a carriage return (CR) at byte 2 cannot stand in a header value");
    QTest::addRow("bare line feed") << QByteArray("Cookie") << QByteArray("a=1\nSet-Cookie: b=2")
                                    << QStringLiteral("the header \"Cookie\": a line feed (LF) at byte 4 cannot stand "
                                                      "in a header value");
    QTest::addRow("NUL") << QByteArray("Referer") << QByteArray("http://a/\0x", 11)
                         << QStringLiteral(
                                "the header \"Referer\": a NUL byte at byte 10 cannot stand in a header value");
    QTest::addRow("DEL") << QByteArray("X-D") << QByteArray("a\x7f")
                         << QStringLiteral(
                                "the header \"X-D\": the byte 0x7f at byte 2 cannot stand in a header value");
    QTest::addRow("name with a colon")
        << QByteArray("Host: victim\r\nX") << QByteArray("1")
        << QStringLiteral("a header name is not a token: \":\" at byte 5 cannot stand in a method or header name");
    QTest::addRow("empty name") << QByteArray() << QByteArray("1")
                                << QStringLiteral("a header name is not a token: it is empty");
}

void TestRequestCheck::headers()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, value);
    QFETCH(QString, error);
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/"));
    spec.method = "GET";
    spec.headers = {{"Accept", "*/*"}, {name, value}};
    const Result<void> check = checkRequest(spec);
    QCOMPARE(check.ok(), error.isEmpty());
    QCOMPARE(check.error(), error);
    QCOMPARE(checkHeaders(spec.headers).error(), error);
}

// The value may be a token or a password: the error places the bad byte instead of quoting it.
void TestRequestCheck::badHeader_neverShowsItsValue()
{
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/"));
    spec.method = "GET";
    spec.headers = {{"Authorization", "Bearer tok-secret\r\nX-Injected: 1"}};
    const QString error = checkRequest(spec).error();
    QVERIFY2(error.contains(QLatin1String("\"Authorization\"")), qPrintable(error));
    QVERIFY2(!error.contains(QLatin1String("tok-secret")), qPrintable(error));
    QVERIFY2(!error.contains(QLatin1String("Injected")), qPrintable(error));
}

#include "tst_requestcheck.moc"
