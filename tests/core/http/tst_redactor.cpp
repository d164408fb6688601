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
    void precision_bothWays_data();
    void precision_bothWays();
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
    QTest::addRow("RetryLab's own {id} key") << QStringLiteral("http://h/fail/3?key=g3uv-17&api_key=k")
                                             << QStringLiteral("http://h/fail/3?key=g3uv-17&api_key=REDACTED");
    QTest::addRow("a real key, not the {id} shape")
        << QStringLiteral("http://h/maps?key=AIzaSyD-93") << QStringLiteral("http://h/maps?key=REDACTED");
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
    QTest::addRow("bearer in mixed case")
        << QStringLiteral("sent BeArEr abc123def456 again") << QStringLiteral("sent BeArEr REDACTED again");
    QTest::addRow("a scheme's first letter last")
        << QStringLiteral("the upstream answered 200 b") << QStringLiteral("the upstream answered 200 b");
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
    // The fault server's answer names the request's own {id} key: no secret.
    const HeaderList answer{{"Content-Type", "application/json"}};
    QCOMPARE(r.body(R"({"failure":1,"key":"24wm-17","of":3})", answer),
        QByteArray(R"({"failure":1,"key":"24wm-17","of":3})"));
    QCOMPARE(r.text(QStringLiteral("GET /fail/3?key=24wm-17 \"key\": \"24wm-17\"")),
        QStringLiteral("GET /fail/3?key=24wm-17 \"key\": \"24wm-17\""));
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

void TestRedactor::precision_bothWays_data()
{
    // By structure, both ways: every secret goes, and what only looks like one stays as it was.
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("secret"); ///< empty: the input must come back unchanged
    QTest::addRow("redact 1: %s", "header:Authorization")
        << QStringLiteral("header:Authorization") << QStringLiteral("Bearer abc.def-SECRET1")
        << QStringLiteral("SECRET1");
    QTest::addRow("redact 2: %s", "header:Proxy-Authorization")
        << QStringLiteral("header:Proxy-Authorization") << QStringLiteral("Basic SECRET2xyz")
        << QStringLiteral("SECRET2");
    QTest::addRow("redact 3: %s", "header:Cookie")
        << QStringLiteral("header:Cookie") << QStringLiteral("sid=SECRET3; theme=dark") << QStringLiteral("SECRET3");
    QTest::addRow("redact 4: %s", "header:Set-Cookie")
        << QStringLiteral("header:Set-Cookie") << QStringLiteral("sid=SECRET4; Path=/") << QStringLiteral("SECRET4");
    QTest::addRow("redact 5: %s", "header:X-Api-Key")
        << QStringLiteral("header:X-Api-Key") << QStringLiteral("SECRET5") << QStringLiteral("SECRET5");
    QTest::addRow("redact 6: %s", "header:X-Auth-Token")
        << QStringLiteral("header:X-Auth-Token") << QStringLiteral("SECRET6") << QStringLiteral("SECRET6");
    QTest::addRow("redact 7: %s", "header:X-Access-Token")
        << QStringLiteral("header:X-Access-Token") << QStringLiteral("SECRET7") << QStringLiteral("SECRET7");
    QTest::addRow("redact 8: %s", "header:X-Client-Secret")
        << QStringLiteral("header:X-Client-Secret") << QStringLiteral("SECRET8") << QStringLiteral("SECRET8");
    QTest::addRow("redact 9: %s", "header:X-Amz-Security-Token")
        << QStringLiteral("header:X-Amz-Security-Token") << QStringLiteral("SECRET9") << QStringLiteral("SECRET9");
    QTest::addRow("redact 10: %s", "header:Private-Token")
        << QStringLiteral("header:Private-Token") << QStringLiteral("SECRET10") << QStringLiteral("SECRET10");
    QTest::addRow("redact 11: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?access_token=SECRET11") << QStringLiteral("SECRET11");
    QTest::addRow("redact 12: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/cb?code=SECRET12&state=s") << QStringLiteral("SECRET12");
    QTest::addRow("redact 13: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?jwt=SECRET13") << QStringLiteral("SECRET13");
    QTest::addRow("redact 14: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?session=SECRET14") << QStringLiteral("SECRET14");
    QTest::addRow("redact 15: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?api_key=SECRET15") << QStringLiteral("SECRET15");
    QTest::addRow("redact 16: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?sig=SECRET16") << QStringLiteral("SECRET16");
    QTest::addRow("redact 17: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?signature=SECRET17") << QStringLiteral("SECRET17");
    QTest::addRow("redact 18: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?client_secret=SECRET18") << QStringLiteral("SECRET18");
    QTest::addRow("redact 19: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://bob:SECRET19@h/p") << QStringLiteral("SECRET19");
    QTest::addRow("redact 20: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/r?to=http%3A%2F%2Fbob%3ASECRET20%40h2%2F")
        << QStringLiteral("SECRET20");
    QTest::addRow("redact 21: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/r?to=http%3A%2F%2Fh2%2Fx%3Faccess_token%3DSECRET21")
        << QStringLiteral("SECRET21");
    QTest::addRow("redact 22: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?password=SECRET22") << QStringLiteral("SECRET22");
    QTest::addRow("redact 23: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p#access_token=SECRET23&x=1")
        << QStringLiteral("SECRET23");
    QTest::addRow("redact 24: %s", "url")
        << QStringLiteral("url") << QStringLiteral("http://h/p?id_token=SECRET24") << QStringLiteral("SECRET24");
    QTest::addRow("redact 25: %s", "form")
        << QStringLiteral("form") << QStringLiteral("code=SECRET25&state=x") << QStringLiteral("SECRET25");
    QTest::addRow("redact 26: %s", "form")
        << QStringLiteral("form") << QStringLiteral("assertion=SECRET26&grant_type=x") << QStringLiteral("SECRET26");
    QTest::addRow("redact 27: %s", "form")
        << QStringLiteral("form") << QStringLiteral("password=SECRET27&user=u") << QStringLiteral("SECRET27");
    QTest::addRow("redact 28: %s", "form")
        << QStringLiteral("form") << QStringLiteral("client_secret=SECRET28") << QStringLiteral("SECRET28");
    QTest::addRow("redact 29: %s", "json")
        << QStringLiteral("json") << QStringLiteral("{\"token\":\"SECRET29\"}") << QStringLiteral("SECRET29");
    QTest::addRow("redact 30: %s", "json")
        << QStringLiteral("json") << QStringLiteral("{\"password\":\"SECRET30\"}") << QStringLiteral("SECRET30");
    QTest::addRow("redact 31: %s", "json")
        << QStringLiteral("json") << QStringLiteral("{\"a\":{\"apiKey\":\"SECRET31\"}}") << QStringLiteral("SECRET31");
    QTest::addRow("redact 32: %s", "json")
        << QStringLiteral("json") << QStringLiteral("{\"jwt\":\"SECRET32\"}") << QStringLiteral("SECRET32");
    QTest::addRow("redact 33: %s", "text")
        << QStringLiteral("text") << QStringLiteral("Authorization: Bearer SECRET33abc") << QStringLiteral("SECRET33");
    QTest::addRow("redact 34: %s", "text")
        << QStringLiteral("text") << QStringLiteral("GET https://h/?access_token=SECRET34 failed")
        << QStringLiteral("SECRET34");
    QTest::addRow("redact 35: %s", "text")
        << QStringLiteral("text") << QStringLiteral("retry https://u:SECRET35@h/x in 2 s")
        << QStringLiteral("SECRET35");
    QTest::addRow("redact 36: %s", "text")
        << QStringLiteral("text") << QStringLiteral("token=SECRET36 and more") << QStringLiteral("SECRET36");
    QTest::addRow("redact 37: %s", "text")
        << QStringLiteral("text") << QStringLiteral("password: SECRET37") << QStringLiteral("SECRET37");
    QTest::addRow("redact 38: %s", "text")
        << QStringLiteral("text") << QStringLiteral("{\"secret\": \"SECRET38\"}") << QStringLiteral("SECRET38");
    QTest::addRow("redact 39: %s", "text")
        << QStringLiteral("text") << QStringLiteral("X-Api-Key: SECRET39") << QStringLiteral("SECRET39");
    QTest::addRow("redact 40: %s", "text")
        << QStringLiteral("text") << QStringLiteral("Cookie: a=SECRET40") << QStringLiteral("SECRET40");
    QTest::addRow("redact 41: %s", "text")
        << QStringLiteral("text") << QStringLiteral("see http://h/r?to=http%3A%2F%2Fbob%3ASECRET41%40h2%2F now")
        << QStringLiteral("SECRET41");
    QTest::addRow("redact 42: %s", "json")
        << QStringLiteral("json") << QStringLiteral("{\"assertion\":\"SECRET42\",\"code\":\"SECRET42\"}")
        << QStringLiteral("SECRET42");
    QTest::addRow("keep 1: %s", "header:Access-Control-Allow-Credentials")
        << QStringLiteral("header:Access-Control-Allow-Credentials") << QStringLiteral("true") << QString();
    QTest::addRow("keep 2: %s", "header:Access-Control-Allow-Headers")
        << QStringLiteral("header:Access-Control-Allow-Headers") << QStringLiteral("Authorization, X-Api-Key")
        << QString();
    QTest::addRow("keep 3: %s", "header:Idempotency-Key")
        << QStringLiteral("header:Idempotency-Key") << QStringLiteral("abc-123") << QString();
    QTest::addRow("keep 4: %s", "header:Content-Type")
        << QStringLiteral("header:Content-Type") << QStringLiteral("application/json") << QString();
    QTest::addRow("keep 5: %s", "header:X-Error-Code")
        << QStringLiteral("header:X-Error-Code") << QStringLiteral("E42") << QString();
    QTest::addRow("keep 6: %s", "header:Cache-Control")
        << QStringLiteral("header:Cache-Control") << QStringLiteral("no-store") << QString();
    QTest::addRow("keep 7: %s", "header:X-RateLimit-Remaining")
        << QStringLiteral("header:X-RateLimit-Remaining") << QStringLiteral("5") << QString();
    QTest::addRow("keep 8: %s", "header:Retry-After")
        << QStringLiteral("header:Retry-After") << QStringLiteral("10") << QString();
    QTest::addRow("keep 9: %s", "url") << QStringLiteral("url") << QStringLiteral("http://h/p?page=2&sort=asc")
                                       << QString();
    QTest::addRow("keep 10: %s", "url") << QStringLiteral("url") << QStringLiteral("http://h/p?error_code=5")
                                        << QString();
    QTest::addRow("keep 11: %s", "url") << QStringLiteral("url") << QStringLiteral("http://h/p?session_count=3")
                                        << QString();
    QTest::addRow("keep 12: %s", "url") << QStringLiteral("url") << QStringLiteral("http://h/r?to=http%3A%2F%2Fh2%2Fok")
                                        << QString();
    QTest::addRow("keep 13: %s", "url") << QStringLiteral("url")
                                        << QStringLiteral("http://h/oauth?state=xyz&scope=read") << QString();
    QTest::addRow("keep 14: %s", "text") << QStringLiteral("text")
                                         << QStringLiteral("cannot write /etc/passwd: Permission denied") << QString();
    QTest::addRow("keep 15: %s", "text") << QStringLiteral("text") << QStringLiteral("basic authentication is off")
                                         << QString();
    QTest::addRow("keep 16: %s", "text") << QStringLiteral("text") << QStringLiteral("host:8080 refused") << QString();
    QTest::addRow("keep 17: %s", "text") << QStringLiteral("text")
                                         << QStringLiteral("connection refused (nothing listens)") << QString();
    QTest::addRow("keep 18: %s", "text") << QStringLiteral("text")
                                         << QStringLiteral("see https://example.com/docs?page=2") << QString();
    QTest::addRow("keep 19: %s", "text") << QStringLiteral("text") << QStringLiteral("status code: 503") << QString();
    QTest::addRow("keep 20: %s", "text") << QStringLiteral("text") << QStringLiteral("the retry budget is exhausted")
                                         << QString();
    QTest::addRow("keep 21: %s", "text") << QStringLiteral("text")
                                         << QStringLiteral("attempt 2: HTTP 503 - a retryable status") << QString();
    QTest::addRow("keep 22: %s", "text") << QStringLiteral("text") << QStringLiteral("session: 3 requests")
                                         << QString();
    QTest::addRow("keep 23: %s", "form") << QStringLiteral("form")
                                         << QStringLiteral("grant_type=authorization_code&redirect_uri=x") << QString();
    QTest::addRow("keep 24: %s", "json") << QStringLiteral("json")
                                         << QStringLiteral("{\"code_version\":\"1\",\"status\":\"ok\"}") << QString();
    QTest::addRow("keep 25: %s", "json") << QStringLiteral("json") << QStringLiteral("{\"items\":[1,2]}") << QString();
}

void TestRedactor::precision_bothWays()
{
    QFETCH(QString, kind);
    QFETCH(QString, input);
    QFETCH(QString, secret);
    const Redactor redactor;
    QString output;
    if (kind.startsWith(QLatin1String("header:"))) {
        output = QString::fromUtf8(redactor.headerValue(kind.mid(7).toLatin1(), input.toUtf8()));
    } else if (kind == QLatin1String("url")) {
        output = redactor.urlString(QUrl(input, QUrl::StrictMode));
        if (secret.isEmpty())
            output = QUrl(output, QUrl::StrictMode).toString(QUrl::FullyEncoded);
        if (secret.isEmpty())
            input = QUrl(input, QUrl::StrictMode).toString(QUrl::FullyEncoded);
    } else if (kind == QLatin1String("text")) {
        output = redactor.text(input);
    } else {
        const QByteArray type
            = kind == QLatin1String("form") ? "application/x-www-form-urlencoded" : "application/json";
        output = QString::fromUtf8(redactor.body(input.toUtf8(), {{"Content-Type", type}}));
        if (secret.isEmpty() && kind == QLatin1String("json"))
            input = QString::fromUtf8(QJsonDocument::fromJson(input.toUtf8()).toJson(QJsonDocument::Compact));
    }
    if (secret.isEmpty()) {
        QCOMPARE(output, input);
    } else {
        QVERIFY2(!output.contains(secret), qPrintable(output));
        QVERIFY2(output.contains(QLatin1String("REDACTED")), qPrintable(output));
    }
}

QTEST_GUILESS_MAIN(TestRedactor)
#include "tst_redactor.moc"
