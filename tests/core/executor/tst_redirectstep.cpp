#include "core/executor/redirectstep.h"

#include <QTest>

using namespace RetryLab::Core;

Q_DECLARE_METATYPE(RetryLab::Core::RedirectHop)

namespace {

const HeaderList credentials{{"Authorization", "Bearer secret-token"}, {"cookie", "session=abc"},
    {"Proxy-Authorization", "Basic cHJveHk6cHc="}, {"X-Custom", "kept"}};

HopRequest request(const char *url, const QByteArray &method = "GET", const QByteArray &body = {},
    const HeaderList &headers = credentials)
{
    return HopRequest{QUrl(QString::fromLatin1(url)), method, body, headers};
}

QStringList names(const QList<QByteArray> &list)
{
    QStringList out;
    for (const QByteArray &name : list)
        out.append(QString::fromLatin1(name));
    return out;
}

} // namespace

class TestRedirectStep : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void notARedirect_isAnAnswer_data();
    void notARedirect_isAnAnswer();
    void location_resolvedAgainstTheHop_data();
    void location_resolvedAgainstTheHop();
    void crossOrigin_dropsCredentials_data();
    void crossOrigin_dropsCredentials();
    void refused_saysWhy_data();
    void refused_saysWhy();
    void method_changesLikeBrowsers_data();
    void method_changesLikeBrowsers();
    void hostKey_usesTheDefaultPort_data();
    void hostKey_usesTheDefaultPort();
    void describeRedirects_forTheReason_data();
    void describeRedirects_forTheReason();
};

void TestRedirectStep::notARedirect_isAnAnswer_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("location");
    QTest::addRow("200 with a Location") << 200 << QByteArray("/elsewhere");
    QTest::addRow("300 multiple choices") << 300 << QByteArray("/elsewhere");
    QTest::addRow("304 not modified") << 304 << QByteArray("/elsewhere");
    QTest::addRow("302 without a Location") << 302 << QByteArray();
    QTest::addRow("307 without a Location") << 307 << QByteArray();
}

void TestRedirectStep::notARedirect_isAnAnswer()
{
    QFETCH(int, status);
    QFETCH(QByteArray, location);
    QVERIFY(!nextHop(request("http://a.test/x"), status, location, 0));
}

void TestRedirectStep::location_resolvedAgainstTheHop_data()
{
    QTest::addColumn<QByteArray>("location");
    QTest::addColumn<QUrl>("to");
    QTest::addRow("absolute path") << QByteArray("/b") << QUrl(QStringLiteral("http://a.test/b"));
    QTest::addRow("relative path") << QByteArray("../c?x=1") << QUrl(QStringLiteral("http://a.test/c?x=1"));
    QTest::addRow("absolute URL, same origin")
        << QByteArray("http://a.test:80/d") << QUrl(QStringLiteral("http://a.test:80/d"));
    QTest::addRow("surrounding spaces") << QByteArray("  /e  ") << QUrl(QStringLiteral("http://a.test/e"));
}

void TestRedirectStep::location_resolvedAgainstTheHop()
{
    QFETCH(QByteArray, location);
    QFETCH(QUrl, to);
    const HopRequest current = request("http://a.test/dir/x");
    const auto step = nextHop(current, 307, location, 0);
    QVERIFY(step);
    QCOMPARE(step->hop.status, 307);
    QCOMPARE(step->hop.from, current.url);
    QCOMPARE(step->hop.to, to);
    QVERIFY(step->hop.followed);
    QVERIFY(!step->hop.crossOrigin);
    QVERIFY(step->hop.note.isEmpty());
    QVERIFY(step->hop.droppedHeaders.isEmpty());
    // Within the origin the request goes on as it was, credentials included.
    QCOMPARE(step->next.url, to);
    QCOMPARE(step->next.method, current.method);
    QCOMPARE(step->next.headers, current.headers);
}

void TestRedirectStep::crossOrigin_dropsCredentials_data()
{
    QTest::addColumn<QByteArray>("location");
    QTest::addRow("another host") << QByteArray("http://b.test/landing");
    QTest::addRow("another port") << QByteArray("http://a.test:8080/landing");
    QTest::addRow("http to https") << QByteArray("https://a.test/landing");
}

void TestRedirectStep::crossOrigin_dropsCredentials()
{
    QFETCH(QByteArray, location);
    const auto step = nextHop(request("http://a.test/x"), 302, location, 0);
    QVERIFY(step);
    QVERIFY(step->hop.followed);
    QVERIFY(step->hop.crossOrigin);
    QCOMPARE(step->hop.to, QUrl::fromEncoded(location));
    // Named as the request spelled them, in its order.
    QCOMPARE(names(step->hop.droppedHeaders),
        (QStringList{
            QStringLiteral("Authorization"), QStringLiteral("cookie"), QStringLiteral("Proxy-Authorization")}));
    QCOMPARE(step->next.headers, (HeaderList{{"X-Custom", "kept"}}));
}

void TestRedirectStep::refused_saysWhy_data()
{
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("location");
    QTest::addColumn<int>("redirectsSoFar");
    QTest::addColumn<QString>("note");
    QTest::addRow("https to http") << QByteArray("https://a.test/x") << QByteArray("http://a.test/y") << 0
                                   << QStringLiteral("it leads from https to plain http");
    QTest::addRow("another scheme") << QByteArray("http://a.test/x") << QByteArray("ftp://a.test/y") << 0
                                    << QStringLiteral("only http and https redirects are followed (got \"ftp\")");
    QTest::addRow("no host") << QByteArray("http://a.test/x") << QByteArray("http://") << 0
                             << QStringLiteral("the Location \"http://\" is not a valid URL");
    QTest::addRow("one too many") << QByteArray("http://a.test/x") << QByteArray("/y") << maxRedirectsPerAttempt
                                  << QStringLiteral("more than 10 redirect(s) in one attempt");
}

void TestRedirectStep::refused_saysWhy()
{
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, location);
    QFETCH(int, redirectsSoFar);
    QFETCH(QString, note);
    const auto step = nextHop(request(from.constData()), 301, location, redirectsSoFar);
    QVERIFY(step);
    QVERIFY(!step->hop.followed);
    QCOMPARE(step->hop.status, 301);
    QCOMPARE(step->hop.note, note);
    QVERIFY(step->hop.droppedHeaders.isEmpty());

    // One redirect fewer is still followed.
    if (redirectsSoFar > 0)
        QVERIFY(nextHop(request(from.constData()), 301, location, redirectsSoFar - 1)->hop.followed);
}

void TestRedirectStep::method_changesLikeBrowsers_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("nextMethod");
    QTest::addRow("303 POST") << 303 << QByteArray("POST") << QByteArray("GET");
    QTest::addRow("303 PUT") << 303 << QByteArray("PUT") << QByteArray("GET");
    QTest::addRow("303 HEAD") << 303 << QByteArray("HEAD") << QByteArray("HEAD");
    QTest::addRow("301 POST") << 301 << QByteArray("POST") << QByteArray("GET");
    QTest::addRow("302 POST") << 302 << QByteArray("POST") << QByteArray("GET");
    QTest::addRow("301 PUT") << 301 << QByteArray("PUT") << QByteArray("PUT");
    QTest::addRow("302 DELETE") << 302 << QByteArray("DELETE") << QByteArray("DELETE");
    QTest::addRow("307 POST") << 307 << QByteArray("POST") << QByteArray("POST");
    QTest::addRow("308 PATCH") << 308 << QByteArray("PATCH") << QByteArray("PATCH");
}

void TestRedirectStep::method_changesLikeBrowsers()
{
    QFETCH(int, status);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, nextMethod);
    const HeaderList headers{{"Content-Type", "application/json"}, {"content-length", "2"}, {"X-Custom", "kept"}};
    const HopRequest current = request("http://a.test/x", method, "{}", headers);
    const auto step = nextHop(current, status, "/y", 0);
    QVERIFY(step && step->hop.followed);
    QCOMPARE(step->next.method, nextMethod);
    if (nextMethod == method) {
        QCOMPARE(step->next.body, current.body);
        QCOMPARE(step->next.headers, headers);
    } else {
        // A GET carries no body, and nothing that describes one.
        QVERIFY(step->next.body.isEmpty());
        QCOMPARE(step->next.headers, (HeaderList{{"X-Custom", "kept"}}));
    }
}

void TestRedirectStep::hostKey_usesTheDefaultPort_data()
{
    QTest::addColumn<QUrl>("url");
    QTest::addColumn<QString>("key");
    QTest::addRow("http") << QUrl(QStringLiteral("http://a.test/x")) << QStringLiteral("a.test:80");
    QTest::addRow("https") << QUrl(QStringLiteral("https://a.test")) << QStringLiteral("a.test:443");
    QTest::addRow("explicit port") << QUrl(QStringLiteral("http://127.0.0.1:8080/x"))
                                   << QStringLiteral("127.0.0.1:8080");
    QTest::addRow("explicit default port") << QUrl(QStringLiteral("http://a.test:80/")) << QStringLiteral("a.test:80");
}

void TestRedirectStep::hostKey_usesTheDefaultPort()
{
    QFETCH(QUrl, url);
    QFETCH(QString, key);
    QCOMPARE(hostKey(url), key);
}

void TestRedirectStep::describeRedirects_forTheReason_data()
{
    QTest::addColumn<QList<RedirectHop>>("hops");
    QTest::addColumn<QString>("text");

    RedirectHop same;
    same.status = 302;
    same.to = QUrl(QStringLiteral("http://a.test/b"));
    RedirectHop other = same;
    other.crossOrigin = true;
    other.to = QUrl(QStringLiteral("http://user:pw@b.test/landing?token=abc"));
    other.droppedHeaders = {"Authorization", "Cookie"};
    RedirectHop refused;
    refused.status = 301;
    refused.to = QUrl(QStringLiteral("http://a.test/plain"));
    refused.followed = false;
    refused.note = QStringLiteral("it leads from https to plain http");

    QTest::addRow("none") << QList<RedirectHop>{} << QString();
    QTest::addRow("one within the origin") << QList<RedirectHop>{same} << QStringLiteral("; followed 1 redirect(s)");
    // The URL is shown as the exports show it: without its secrets.
    QTest::addRow("credentials left out")
        << QList<RedirectHop>{same, other}
        << QStringLiteral("; followed 2 redirect(s); Authorization, Cookie not sent to "
                          "http://REDACTED:REDACTED@b.test/landing?token=REDACTED (another origin)");
    QTest::addRow("not followed") << QList<RedirectHop>{refused}
                                  << QStringLiteral("; the 301 redirect to http://a.test/plain was not followed: "
                                                    "it leads from https to plain http");
}

void TestRedirectStep::describeRedirects_forTheReason()
{
    QFETCH(QList<RedirectHop>, hops);
    QFETCH(QString, text);
    QCOMPARE(describeRedirects(hops), text);
}

QTEST_GUILESS_MAIN(TestRedirectStep)
#include "tst_redirectstep.moc"
