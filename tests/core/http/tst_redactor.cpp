#include "core/http/redactor.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;

class TestRedactor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nameRule_data();
    void nameRule();
    void headers_data();
    void headers();
    void headers_keepOrderAndHarmlessOnes();
    void url_data();
    void url();
    void url_keepsEverythingElseByteForByte();
    void text_data();
    void text();
    void text_isIdempotent();
    void body_formAndJsonAndText();
    void body_binaryComesBackUnchanged();
    void disabled_returnsInputUnchanged();
    void logLine_alwaysRedacts();
};

void TestRedactor::nameRule_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("sensitive");

    const QStringList sensitive{QStringLiteral("access_token"), QStringLiteral("api_key"), QStringLiteral("apikey"),
        QStringLiteral("APIKEY"), QStringLiteral("apiKey"), QStringLiteral("ApiKey"), QStringLiteral("XApiKey"),
        QStringLiteral("client_secret"), QStringLiteral("clientSecret"), QStringLiteral("clientsecret"),
        QStringLiteral("passwd"), QStringLiteral("password"), QStringLiteral("Password2"), QStringLiteral("pwd"),
        QStringLiteral("pass"), QStringLiteral("db-password"), QStringLiteral("dbpassword"), QStringLiteral("token"),
        QStringLiteral("id_token"), QStringLiteral("refreshToken"), QStringLiteral("accesstoken"),
        QStringLiteral("X-Auth-Token"), QStringLiteral("X-Amz-Signature"), QStringLiteral("X-Amz-Credential"),
        QStringLiteral("X-Amz-Security-Token"), QStringLiteral("sig"), QStringLiteral("key"), QStringLiteral("keys"),
        QStringLiteral("sessionid"), QStringLiteral("JSESSIONID"), QStringLiteral("auth"),
        QStringLiteral("oauth_signature"), QStringLiteral("private.key"), QStringLiteral("user[password]"),
        QStringLiteral("secret"), QStringLiteral("SECRETS"), QStringLiteral("passphrase"), QStringLiteral("key2")};
    const QStringList harmless{QStringLiteral("page"), QStringLiteral("keyword"), QStringLiteral("monkey"),
        QStringLiteral("hockey"), QStringLiteral("secretary"), QStringLiteral("tokenizer"), QStringLiteral("passage"),
        QStringLiteral("author"), QStringLiteral("sort"), QStringLiteral("q"), QStringLiteral("name"),
        QStringLiteral("compass"), QStringLiteral(""), QStringLiteral("_"), QStringLiteral("123"),
        QStringLiteral("Content-Type"), QStringLiteral("signal")};
    for (const QString &name : sensitive)
        QTest::addRow("sensitive %s", qPrintable(name)) << name << true;
    for (const QString &name : harmless)
        QTest::addRow("harmless '%s'", qPrintable(name)) << name << false;
}

void TestRedactor::nameRule()
{
    QFETCH(QString, name);
    QFETCH(bool, sensitive);
    QCOMPARE(Redactor::isSensitiveName(name), sensitive);
}

void TestRedactor::headers_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QByteArray>("expected");

    QTest::addRow("bearer") << QByteArray("Authorization") << QByteArray("Bearer abc.def.ghi")
                            << QByteArray("Bearer REDACTED");
    QTest::addRow("lower case") << QByteArray("authorization") << QByteArray("Basic dXNlcjpwYXNz")
                                << QByteArray("Basic REDACTED");
    QTest::addRow("raw token") << QByteArray("AUTHORIZATION") << QByteArray("abcdef") << QByteArray("REDACTED");
    QTest::addRow("proxy") << QByteArray("Proxy-Authorization") << QByteArray("Basic Zm9vOmJhcg==")
                           << QByteArray("Basic REDACTED");
    QTest::addRow("cookie pairs") << QByteArray("Cookie") << QByteArray("a=1; b=two; flag")
                                  << QByteArray("a=REDACTED; b=REDACTED; REDACTED");
    QTest::addRow("set-cookie keeps attributes")
        << QByteArray("set-cookie") << QByteArray("sid=xyz; Path=/; HttpOnly; Secure")
        << QByteArray("sid=REDACTED; Path=/; HttpOnly; Secure");
    QTest::addRow("x-api-key") << QByteArray("X-API-KEY") << QByteArray("k-123") << QByteArray("REDACTED");
    QTest::addRow("name rule") << QByteArray("X-Auth-Token") << QByteArray("t-1") << QByteArray("REDACTED");
    QTest::addRow("azure key") << QByteArray("Ocp-Apim-Subscription-Key") << QByteArray("k") << QByteArray("REDACTED");
    QTest::addRow("idempotency key is kept")
        << QByteArray("Idempotency-Key") << QByteArray("idem-1") << QByteArray("idem-1");
    QTest::addRow("websocket key is kept")
        << QByteArray("Sec-WebSocket-Key") << QByteArray("dGhlIHNhbXBsZQ==") << QByteArray("dGhlIHNhbXBsZQ==");
    QTest::addRow("plain header") << QByteArray("Accept") << QByteArray("application/json, text/*;q=0.5")
                                  << QByteArray("application/json, text/*;q=0.5");
    QTest::addRow("location with token") << QByteArray("Location")
                                         << QByteArray("https://h/next?page=2&access_token=abc")
                                         << QByteArray("https://h/next?page=2&access_token=REDACTED");
    QTest::addRow("non-UTF-8 value kept")
        << QByteArray("X-Raw") << QByteArray("\xff\xfe plain") << QByteArray("\xff\xfe plain");
    QTest::addRow("non-UTF-8 value redacted inside")
        << QByteArray("X-Raw") << QByteArray("\xff token=abc") << QByteArray("\xff token=REDACTED");
}

void TestRedactor::headers()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, value);
    QFETCH(QByteArray, expected);
    QCOMPARE(Redactor().headerValue(name, value), expected);
}

void TestRedactor::headers_keepOrderAndHarmlessOnes()
{
    const HeaderList in{{"Accept", "*/*"}, {"Cookie", "s=1"}, {"X-Api-Key", "k"}, {"X-Trace", "t"}};
    const HeaderList out = Redactor().headers(in);
    QCOMPARE(out.size(), in.size());
    QCOMPARE(out.at(0), in.at(0));
    QCOMPARE(out.at(1), (QPair<QByteArray, QByteArray>{"Cookie", "s=REDACTED"}));
    QCOMPARE(out.at(2), (QPair<QByteArray, QByteArray>{"X-Api-Key", "REDACTED"}));
    QCOMPARE(out.at(3), in.at(3));
}

void TestRedactor::url_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");

    QTest::addRow("user info") << QStringLiteral("https://bob:hunter2@example.com/x")
                               << QStringLiteral("https://REDACTED:REDACTED@example.com/x");
    QTest::addRow("user only") << QStringLiteral("https://ghp_token123@github.com/repo.git")
                               << QStringLiteral("https://REDACTED@github.com/repo.git");
    QTest::addRow("query") << QStringLiteral("http://h/p?a=1&access_token=xyz&apikey=k&b=2")
                           << QStringLiteral("http://h/p?a=1&access_token=REDACTED&apikey=REDACTED&b=2");
    QTest::addRow("encoded name")
        << QStringLiteral("http://h/?client%5Fsecret=s&user%5Bpassword%5D=p")
        << QStringLiteral("http://h/?client_secret=REDACTED&user%5Bpassword%5D=REDACTED"); // QUrl decodes %5F
    QTest::addRow("plus in name") << QStringLiteral("http://h/?api+key=s")
                                  << QStringLiteral("http://h/?api+key=REDACTED");
    QTest::addRow("fragment") << QStringLiteral("https://h/cb#access_token=abc&state=1")
                              << QStringLiteral("https://h/cb#access_token=REDACTED&state=1");
    QTest::addRow("bare name kept") << QStringLiteral("http://h/?token") << QStringLiteral("http://h/?token");
    QTest::addRow("nothing to do") << QStringLiteral("http://127.0.0.1:8080/a?b=c")
                                   << QStringLiteral("http://127.0.0.1:8080/a?b=c");
}

void TestRedactor::url()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    const QUrl url(input, QUrl::StrictMode);
    QVERIFY(url.isValid());
    QCOMPARE(Redactor().urlString(url), expected);
}

void TestRedactor::url_keepsEverythingElseByteForByte()
{
    const QUrl url(QStringLiteral("https://h:8443/a%2Fb/%E6%9D%B1?x=%22q%22&token=t&y=a+b#frag"), QUrl::StrictMode);
    const QString out = Redactor().urlString(url);
    QCOMPARE(out, QStringLiteral("https://h:8443/a%2Fb/%E6%9D%B1?x=%22q%22&token=REDACTED&y=a+b#frag"));
}

void TestRedactor::text_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");

    QTest::addRow("qt error string")
        << QStringLiteral("Error transferring https://u:p@h/x?api_key=k1 - server replied: Forbidden")
        << QStringLiteral(
               "Error transferring https://REDACTED:REDACTED@h/x?api_key=REDACTED - server replied: Forbidden");
    QTest::addRow("header line") << QStringLiteral("> Authorization: Bearer eyJhbGciOi.x.y\n> Accept: */*")
                                 << QStringLiteral("> Authorization: Bearer REDACTED\n> Accept: */*");
    QTest::addRow("cookie line") << QStringLiteral("cookie: a=1; b=2")
                                 << QStringLiteral("cookie: a=REDACTED; b=REDACTED");
    QTest::addRow("bare bearer") << QStringLiteral("sent bearer abc123def456 again")
                                 << QStringLiteral("sent bearer REDACTED again");
    QTest::addRow("prose kept") << QStringLiteral("basic authentication failed; the token expired")
                                << QStringLiteral("basic authentication failed; the token expired");
    QTest::addRow("assignment") << QStringLiteral("retrying with password=hunter2, user=bob")
                                << QStringLiteral("retrying with password=REDACTED, user=bob");
    QTest::addRow("json pair") << QStringLiteral(R"({"user":"bob","client_secret" : "s\"x","n":1})")
                               << QStringLiteral(R"({"user":"bob","client_secret" : "REDACTED","n":1})");
    QTest::addRow("colon pair") << QStringLiteral("x-auth-token: abc rest")
                                << QStringLiteral("x-auth-token: REDACTED rest");
    QTest::addRow("sensitive word before a colon")
        << QStringLiteral("connect to key:443 failed") << QStringLiteral("connect to key:REDACTED failed");
    QTest::addRow("scheme kept") << QStringLiteral("see http://h/ for details")
                                 << QStringLiteral("see http://h/ for details");
    QTest::addRow("idempotency key kept")
        << QStringLiteral("Idempotency-Key: idem-1") << QStringLiteral("Idempotency-Key: idem-1");
    QTest::addRow("non-ASCII") << QStringLiteral("Grüße token=東京 ok") << QStringLiteral("Grüße token=REDACTED ok");
}

void TestRedactor::text()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(Redactor().text(input), expected);
}

void TestRedactor::text_isIdempotent()
{
    const QString input = QStringLiteral("GET https://u:p@h/?token=t Authorization: Bearer abcdefgh1 password=x");
    const QString once = Redactor().text(input);
    QCOMPARE(Redactor().text(once), once);
    QVERIFY(!once.contains(QLatin1String("abcdefgh1")));
    QVERIFY(!once.contains(QLatin1String("u:p@")));
}

void TestRedactor::body_formAndJsonAndText()
{
    const Redactor r;
    const HeaderList form{{"content-type", "application/x-www-form-urlencoded; charset=UTF-8"}};
    QCOMPARE(r.body("grant_type=refresh&refresh_token=abc&client_secret=s%20t", form),
        QByteArray("grant_type=refresh&refresh_token=REDACTED&client_secret=REDACTED"));

    const HeaderList json{{"Content-Type", "application/json"}};
    const QByteArray redacted
        = r.body(R"({"user":"bob","credentials":{"password":"p","otp":1},"list":[{"api_key":"k"}],"n":2})", json);
    const QJsonObject o = QJsonDocument::fromJson(redacted).object();
    QCOMPARE(o.value(QStringLiteral("user")).toString(), QStringLiteral("bob"));
    QCOMPARE(o.value(QStringLiteral("credentials")).toString(), QStringLiteral("REDACTED"));
    QCOMPARE(o.value(QStringLiteral("list")).toArray().at(0).toObject().value(QStringLiteral("api_key")).toString(),
        QStringLiteral("REDACTED"));
    QCOMPARE(o.value(QStringLiteral("n")).toInt(), 2);

    // JSON without a Content-Type is recognised; a body without secrets keeps its formatting.
    const QByteArray pretty = "{\n  \"a\": 1\n}";
    QCOMPARE(r.body(pretty, {}), pretty);
    QVERIFY(!r.body(R"([{"token":"t1"}])", {}).contains("t1"));

    // Text bodies get the text rules.
    QCOMPARE(r.body("callback https://h/?sig=abc", {{"Content-Type", "text/plain"}}),
        QByteArray("callback https://h/?sig=REDACTED"));
}

void TestRedactor::body_binaryComesBackUnchanged()
{
    QByteArray binary("token=abc\x00\xff\xfe", 12);
    QCOMPARE(Redactor().body(binary, {{"Content-Type", "application/octet-stream"}}), binary);
}

void TestRedactor::disabled_returnsInputUnchanged()
{
    const Redactor off(false);
    QVERIFY(!off.isEnabled());
    const QUrl url(QStringLiteral("https://u:p@h/?token=t"));
    QCOMPARE(off.url(url), url);
    QCOMPARE(off.headerValue("Authorization", "Bearer x"), QByteArray("Bearer x"));
    QCOMPARE(off.text(QStringLiteral("password=x")), QStringLiteral("password=x"));
    QCOMPARE(off.body("password=x", {{"Content-Type", "application/x-www-form-urlencoded"}}), QByteArray("password=x"));
}

void TestRedactor::logLine_alwaysRedacts()
{
    QCOMPARE(Redactor::logLine(QStringLiteral("request 3 to https://h/?apikey=123 failed")),
        QStringLiteral("request 3 to https://h/?apikey=REDACTED failed"));
}

QTEST_GUILESS_MAIN(TestRedactor)
#include "tst_redactor.moc"
