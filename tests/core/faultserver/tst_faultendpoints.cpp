#include "core/faultserver/endpointcatalog.h"
#include "core/faultserver/faultendpoints.h"
#include "core/faultserver/faultinstruction.h"
#include "core/faultserver/requesttarget.h"
#include "core/faultserver/responseplan.h"
#include "core/http/httprequestparser.h"
#include "core/http/ratelimitheaders.h"
#include "core/util/clock.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QUrl>

#include <algorithm>
#include <functional>

using namespace RetryLab::Core;

namespace {

/// A request as the server's parser makes it from the wire.
HttpRequest request(const QByteArray &method, const QByteArray &target, const QByteArray &body = {},
    const QList<QByteArray> &headers = {})
{
    QByteArray raw = method + ' ' + target + " HTTP/1.1\r\nHost: test\r\n";
    for (const QByteArray &header : headers)
        raw += header + "\r\n";
    if (!body.isEmpty())
        raw += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    raw += "\r\n" + body;
    HttpRequestParser parser;
    if (parser.feed(raw) != HttpRequestParser::Status::Complete)
        qFatal("not a complete request: %s", raw.constData());
    return parser.takeRequest();
}

QJsonObject json(const ResponsePlan &plan)
{
    return QJsonDocument::fromJson(plan.body).object();
}

QByteArray header(const ResponsePlan &plan, QByteArrayView name)
{
    return plan.header(name).value_or(QByteArray("(none)"));
}

} // namespace

Q_DECLARE_METATYPE(ResponsePlan::Kind)

class TestFaultEndpoints : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void requestTarget_segmentsAndQuery_data();
    void requestTarget_segmentsAndQuery();
    void index_listsTheEndpoints();
    void status_answersAsAsked_data();
    void status_answersAsAsked();
    void fail_countsPerKey();
    void fail_bodyIsWhatQJsonDocumentWrites_data();
    void fail_bodyIsWhatQJsonDocumentWrites();
    void fail_probability_isSeededAndReplaysAfterReset();
    void delay_waitsThenAnswers_data();
    void delay_waitsThenAnswers();
    void delay_distributions_areSeeded();
    void rateLimit_bucketsRefillOnTheClock();
    void rateLimit_tellsTheLimitInEachStyle();
    void operation_pollsUntilDone_withAResponseOrAnError();
    void occ_etagAndIfMatch();
    void occ_delay_checksWhenTheWaitIsOver();
    void occ_etagInTheBody_asAnIamPolicy();
    void occ_iamVerbs_getAndSetIamPolicy();
    void eventual_visibleAfterHiddenMsOnTheClock();
    void eventual_storageIsBoundedByBodies();
    void redirect_onlyToPathsAndLoopback_data();
    void redirect_onlyToPathsAndLoopback();
    void fault_plans_data();
    void fault_plans();
    void stepPlans_shareTheFaultTable_data();
    void stepPlans_shareTheFaultTable();
    void unknownPaths_get404_data();
    void unknownPaths_get404();
    void wrongMethod_gets405WithAllow_data();
    void wrongMethod_gets405WithAllow();
    void numericParameters_outOfBounds_get400_data();
    void numericParameters_outOfBounds_get400();
    void badNumbers_messageNamesTheValueAndItsRange_data();
    void badNumbers_messageNamesTheValueAndItsRange();
    void failKeys_areBounded();
};

void TestFaultEndpoints::requestTarget_segmentsAndQuery_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QStringList>("segments");
    QTest::addColumn<QString>("x");
    const auto text = [](const char *utf8) { return QString::fromUtf8(utf8); };
    const auto list = [&text](std::initializer_list<const char *> parts) {
        QStringList out;
        for (const char *part : parts)
            out.append(text(part));
        return out;
    };
    QTest::addRow("root") << QByteArray("/") << text("/") << list({}) << QString();
    QTest::addRow("two segments") << QByteArray("/status/503") << text("/status/503") << list({"status", "503"})
                                  << QString();
    QTest::addRow("trailing slash") << QByteArray("/status/503/") << text("/status/503/") << list({"status", "503"})
                                    << QString();
    QTest::addRow("empty segment inside")
        << QByteArray("/a//b/") << text("/a//b/") << list({"a", "", "b"}) << QString();
    QTest::addRow("two slashes") << QByteArray("//") << text("//") << list({""}) << QString();
    QTest::addRow("three slashes") << QByteArray("///") << text("///") << list({"", ""}) << QString();
    QTest::addRow("percent-encoded slash splits")
        << QByteArray("/a%2Fb") << text("/a/b") << list({"a", "b"}) << QString();
    QTest::addRow("UTF-8") << QByteArray("/fail/%C3%A9t%C3%A9") << text("/fail/\xc3\xa9t\xc3\xa9")
                           << list({"fail", "\xc3\xa9t\xc3\xa9"}) << QString();
    QTest::addRow("query") << QByteArray("/status/200?y=1&x=a%20b&&z") << text("/status/200") << list({"status", "200"})
                           << text("a b");
}

void TestFaultEndpoints::requestTarget_segmentsAndQuery()
{
    QFETCH(QByteArray, target);
    QFETCH(QString, path);
    QFETCH(QStringList, segments);
    QFETCH(QString, x);
    const RequestTarget parsed(request("GET", target));
    QCOMPARE(parsed.path(), path);
    QCOMPARE(parsed.segments(), segments);
    QCOMPARE(parsed.query(QLatin1StringView("x")).value_or(QString()), x);
    // What the segments always were: the path split at every slash, less an empty first and last.
    QStringList split = path.split(QLatin1Char('/'));
    if (!split.isEmpty() && split.first().isEmpty())
        split.removeFirst();
    if (!split.isEmpty() && split.last().isEmpty())
        split.removeLast();
    QCOMPARE(parsed.segments(), split);
}

void TestFaultEndpoints::index_listsTheEndpoints()
{
    FaultEndpoints endpoints;
    const ResponsePlan plan = endpoints.handle(request("GET", "/"));
    QCOMPARE(plan.kind, ResponsePlan::Kind::Respond);
    QCOMPARE(plan.status, 200);
    QCOMPARE(plan.contentType, QByteArray("text/plain; charset=utf-8"));
    QCOMPARE(QString::fromUtf8(plan.body), EndpointCatalog::usageText());
    for (const FaultServerEndpoint &endpoint : EndpointCatalog::endpoints())
        QVERIFY2(EndpointCatalog::usageText().contains(endpoint.path), qPrintable(endpoint.path));
}

void TestFaultEndpoints::status_answersAsAsked_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("headerName");
    QTest::addColumn<QByteArray>("headerValue"); // "(none)": the plan has no such header
    QTest::addColumn<QByteArray>("body");

    QTest::addRow("plain") << QByteArray("/status/200") << 200 << QByteArray("Retry-After") << QByteArray("(none)")
                           << QByteArray("{\"status\":200}\n");
    QTest::addRow("no content") << QByteArray("/status/204") << 204 << QByteArray("Retry-After") << QByteArray("(none)")
                                << QByteArray("{\"status\":204}\n");
    QTest::addRow("retry_after seconds") << QByteArray("/status/429?retry_after=7") << 429 << QByteArray("Retry-After")
                                         << QByteArray("7") << QByteArray("{\"status\":429}\n");
    QTest::addRow("retry_after zero") << QByteArray("/status/503?retry_after=0") << 503 << QByteArray("Retry-After")
                                      << QByteArray("0") << QByteArray("{\"status\":503}\n");
    QTest::addRow("retry_after_date passed through")
        << QByteArray("/status/503?retry_after_date=Sun,%2006%20Nov%201994%2008:49:37%20GMT") << 503
        << QByteArray("Retry-After") << QByteArray("Sun, 06 Nov 1994 08:49:37 GMT") << QByteArray("{\"status\":503}\n");
    // Seconds from now, on the endpoints' clock (5 s after its origin).
    QTest::addRow("retry_after_date from seconds")
        << QByteArray("/status/503?retry_after_date=120") << 503 << QByteArray("Retry-After")
        << QByteArray("Fri, 17 May 2030 12:02:05 GMT") << QByteArray("{\"status\":503}\n");
    QTest::addRow("ratelimit_reset") << QByteArray("/status/429?ratelimit_reset=30") << 429
                                     << QByteArray("X-RateLimit-Reset") << QByteArray("30")
                                     << QByteArray("{\"status\":429}\n");
    QTest::addRow("bad retry_after_date")
        << QByteArray("/status/503?retry_after_date=soon") << 400 << QByteArray("Retry-After") << QByteArray("(none)")
        << QByteArray(
               "{\"error\":\"retry_after_date must be an HTTP-date (\\\"Sun, 06 Nov 1994 08:49:37 GMT\\\") or seconds "
               "from now (got \\\"soon\\\")\",\"status\":400}\n");
}

void TestFaultEndpoints::status_answersAsAsked()
{
    QFETCH(QByteArray, target);
    QFETCH(int, status);
    QFETCH(QByteArray, headerName);
    QFETCH(QByteArray, headerValue);
    QFETCH(QByteArray, body);
    ManualClock clock(QDateTime(QDate(2030, 5, 17), QTime(12, 0), Qt::UTC));
    clock.advanceMs(5000);
    FaultEndpoints endpoints;
    endpoints.setClock(&clock);
    const ResponsePlan plan = endpoints.handle(request("GET", target));
    QCOMPARE(plan.kind, ResponsePlan::Kind::Respond);
    QCOMPARE(plan.action, QStringLiteral("respond"));
    QCOMPARE(plan.status, status);
    QCOMPARE(header(plan, headerName), headerValue);
    QCOMPARE(plan.body, body);
    QCOMPARE(plan.contentType, QByteArray("application/json"));
    if (status != 400)
        QCOMPARE(plan.detail, QStringLiteral("status %1 as asked").arg(status));
}

void TestFaultEndpoints::fail_countsPerKey()
{
    FaultEndpoints endpoints;
    const auto fail = [&](const QByteArray &target) { return endpoints.handle(request("GET", target)); };
    QCOMPARE(fail("/fail/2?key=a").status, 503);
    QCOMPARE(fail("/fail/2?key=b").status, 503); // keys are separate
    const ResponsePlan second = fail("/fail/2?key=a");
    QCOMPARE(second.status, 503);
    QCOMPARE(second.detail, QStringLiteral("failure 2 of 2 for key \"a\""));
    QCOMPARE(json(second),
        (QJsonObject{{QStringLiteral("status"), 503}, {QStringLiteral("key"), QStringLiteral("a")},
            {QStringLiteral("failure"), 2}, {QStringLiteral("of"), 2}}));
    const ResponsePlan passed = fail("/fail/2?key=a");
    QCOMPARE(passed.status, 200);
    QCOMPARE(json(passed).value(QStringLiteral("request")).toInt(), 3);
    QCOMPARE(json(passed).value(QStringLiteral("failures")).toInt(), 2);
    QVERIFY2(passed.detail.startsWith(QLatin1String("request 3 for key \"a\" passed after 2 failure")),
        qPrintable(passed.detail));
    QCOMPARE(fail("/fail/2?key=a").status, 200);

    // Without a key the key is "default"; another status and a Retry-After.
    const ResponsePlan failed = fail("/fail/1?code=500&retry_after=3");
    QCOMPARE(failed.status, 500);
    QCOMPARE(header(failed, "Retry-After"), QByteArray("3"));
    QCOMPARE(json(failed).value(QStringLiteral("key")).toString(), QStringLiteral("default"));
    QCOMPARE(fail("/fail/1?code=500").status, 200);
    QCOMPARE(fail("/fail/0?key=never").status, 200);

    endpoints.reset(); // forgets the counters
    QCOMPARE(fail("/fail/1?key=a").status, 503);
    QCOMPARE(fail("/fail/1?key=").status, 400);
    QCOMPARE(fail("/fail/1?key=" + QByteArray(201, 'k')).status, 400);
}

void TestFaultEndpoints::fail_bodyIsWhatQJsonDocumentWrites_data()
{
    QTest::addColumn<QString>("key");
    QTest::newRow("RetryLab's {id}") << QStringLiteral("k3x9-1204");
    QTest::newRow("unreserved") << QStringLiteral("A.b_c~d-0");
    QTest::newRow("quote and backslash") << QStringLiteral("a\"b\\c");
    QTest::newRow("space and slash") << QStringLiteral("a b/c");
    QTest::newRow("control") << QStringLiteral("a\tb\u0001");
    QTest::newRow("not ASCII") << QStringLiteral("\u00e9t\u00e9-\u4e2d");
}

void TestFaultEndpoints::fail_bodyIsWhatQJsonDocumentWrites()
{
    // A body written directly for a plain key, through QJsonObject for another: the
    // same bytes either way, failing and then passing.
    QFETCH(QString, key);
    FaultEndpoints endpoints;
    const QByteArray target = "/fail/1?code=502&key=" + QUrl::toPercentEncoding(key);
    const auto document = [](const QJsonObject &object) -> QByteArray {
        return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
    };
    const ResponsePlan failed = endpoints.handle(request("GET", target));
    QCOMPARE(failed.status, 502);
    QCOMPARE(failed.body,
        document(QJsonObject{{QStringLiteral("status"), 502}, {QStringLiteral("key"), key},
            {QStringLiteral("failure"), 1}, {QStringLiteral("of"), 1}}));
    const ResponsePlan passed = endpoints.handle(request("GET", target));
    QCOMPARE(passed.status, 200);
    QCOMPARE(passed.body,
        document(QJsonObject{
            {QStringLiteral("key"), key}, {QStringLiteral("request"), 2}, {QStringLiteral("failures"), 1}}));
}

void TestFaultEndpoints::fail_probability_isSeededAndReplaysAfterReset()
{
    const auto run = [](FaultEndpoints &endpoints) {
        QList<int> statuses;
        for (int i = 0; i < 60; ++i)
            statuses.append(endpoints.handle(request("GET", "/fail/25?p=0.3&key=k")).status);
        return statuses;
    };
    FaultEndpoints a(1234);
    FaultEndpoints b(1234);
    const QList<int> first = run(a);
    QCOMPARE(run(b), first); // same seed, same sequence
    a.reset(); // forgets the key and reseeds
    QCOMPARE(run(a), first);
    const auto failures = first.count(503);
    QCOMPARE(first.count(200) + failures, 60);
    QVERIFY2(failures >= 6 && failures <= 25, qPrintable(QString::number(failures))); // p = 0.3, at most n = 25

    FaultEndpoints c(99);
    QVERIFY(run(c) != first);
    c.setSeed(1234);
    c.reset();
    QCOMPARE(run(c), first);

    // p = 1 fails exactly n times, p = 0 never.
    for (int i = 0; i < 3; ++i)
        QCOMPARE(a.handle(request("GET", "/fail/3?p=1&key=always")).status, 503);
    QCOMPARE(a.handle(request("GET", "/fail/3?p=1&key=always")).status, 200);
    QCOMPARE(a.handle(request("GET", "/fail/3?p=0&key=never")).status, 200);
}

void TestFaultEndpoints::delay_waitsThenAnswers_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("waitMs");
    QTest::addColumn<QString>("distribution");

    QTest::addRow("fixed") << QByteArray("/delay/80") << 80 << QStringLiteral("fixed");
    QTest::addRow("zero") << QByteArray("/delay/0") << 0 << QStringLiteral("fixed");
    QTest::addRow("uniform of nothing") << QByteArray("/delay/30?dist=uniform&min=30") << 30
                                        << QStringLiteral("uniform in [30, 30] ms");
    QTest::addRow("lognormal of zero") << QByteArray("/delay/0?dist=lognormal") << 0
                                       << QStringLiteral("lognormal, median 0 ms, sigma 0.5");
}

void TestFaultEndpoints::delay_waitsThenAnswers()
{
    QFETCH(QByteArray, target);
    QFETCH(int, waitMs);
    QFETCH(QString, distribution);
    FaultEndpoints endpoints;
    const ResponsePlan plan = endpoints.handle(request("GET", target));
    QCOMPARE(plan.kind, ResponsePlan::Kind::Wait);
    QCOMPARE(plan.waitMs, waitMs);
    const ResponsePlan answer = plan.then();
    QCOMPARE(answer.status, 200);
    QCOMPARE(json(answer).value(QStringLiteral("delay_ms")).toInt(), waitMs);
    QCOMPARE(json(answer).value(QStringLiteral("distribution")).toString(), distribution);
    QCOMPARE(answer.detail, QStringLiteral("answered after %1 ms (%2)").arg(waitMs).arg(distribution));
}

void TestFaultEndpoints::delay_distributions_areSeeded()
{
    const auto draw = [](FaultEndpoints &endpoints) {
        QList<int> delays;
        for (int i = 0; i < 5; ++i) {
            delays.append(endpoints.handle(request("GET", "/delay/40?dist=uniform&min=10")).waitMs);
            delays.append(endpoints.handle(request("GET", "/delay/10?dist=lognormal&sigma=0.5")).waitMs);
        }
        return delays;
    };
    FaultEndpoints a(7);
    FaultEndpoints b(7);
    const QList<int> first = draw(a);
    QCOMPARE(draw(b), first);
    a.reset();
    QCOMPARE(draw(a), first);
    for (qsizetype i = 0; i < first.size(); i += 2)
        QVERIFY2(first[i] >= 10 && first[i] <= 40, qPrintable(QString::number(first[i])));
    QVERIFY(std::adjacent_find(first.cbegin(), first.cend(), std::not_equal_to<>()) != first.cend());
}

void TestFaultEndpoints::rateLimit_bucketsRefillOnTheClock()
{
    ManualClock clock;
    FaultEndpoints endpoints;
    endpoints.setClock(&clock);
    const auto limited = [&] { return endpoints.handle(request("GET", "/ratelimit?rps=2&burst=3&key=a")); };

    for (int i = 0; i < 3; ++i) {
        const ResponsePlan ok = limited();
        QCOMPARE(ok.status, 200);
        QCOMPARE(header(ok, "X-RateLimit-Limit"), QByteArray("3"));
        QCOMPARE(header(ok, "X-RateLimit-Remaining"), QByteArray::number(2 - i));
    }
    const ResponsePlan over = limited();
    QCOMPARE(over.status, 429);
    QCOMPARE(header(over, "Retry-After"), QByteArray("1")); // one token takes 0.5 s: at least 1 s
    QCOMPARE(header(over, "X-RateLimit-Remaining"), QByteArray("0"));
    QCOMPARE(json(over).value(QStringLiteral("retry_after")).toInt(), 1);
    QCOMPARE(over.detail, QStringLiteral("rate limited: key \"a\" has 0.00 of 3 tokens at 2/s"));
    // Another key has its own bucket.
    QCOMPARE(endpoints.handle(request("GET", "/ratelimit?rps=2&burst=3&key=b")).status, 200);

    clock.advanceMs(499);
    QCOMPARE(limited().status, 429);
    clock.advanceMs(1);
    QCOMPARE(limited().status, 200); // one token refilled after 0.5 s
    QCOMPARE(limited().status, 429);

    clock.advanceMs(60'000); // refills to the burst, not beyond
    for (int i = 0; i < 3; ++i)
        QCOMPARE(limited().status, 200);
    const ResponsePlan again = limited();
    QCOMPARE(again.status, 429);
    QCOMPARE(header(again, "X-RateLimit-Reset"), QByteArray("2")); // 3 tokens at 2/s

    // A slow rate asks for a longer wait; a reset forgets the buckets.
    const auto slow = [&] { return endpoints.handle(request("GET", "/ratelimit?rps=0.1&burst=1&key=slow")); };
    QCOMPARE(slow().status, 200);
    QCOMPARE(header(slow(), "Retry-After"), QByteArray("10"));
    endpoints.reset();
    QCOMPARE(slow().status, 200);
}

void TestFaultEndpoints::rateLimit_tellsTheLimitInEachStyle()
{
    ManualClock clock;
    FaultEndpoints endpoints;
    endpoints.setClock(&clock);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto limited = [&](const char *style) {
        return endpoints.handle(
            request("GET", QByteArray("/ratelimit?rps=2&burst=3&key=") + style + "&headers=" + style));
    };

    // The IETF draft's fields, read back by the client's own parser.
    ResponsePlan ok = limited("ietf");
    QCOMPARE(ok.status, 200);
    QCOMPARE(header(ok, "RateLimit"), QByteArray(R"("default";r=2;t=1)"));
    QCOMPARE(header(ok, "RateLimit-Policy"), QByteArray(R"("default";q=3;w=2)"));
    QCOMPARE(header(ok, "X-RateLimit-Remaining"), QByteArray("(none)"));
    limited("ietf");
    limited("ietf");
    const ResponsePlan over = limited("ietf");
    QCOMPARE(over.status, 429);
    QCOMPARE(header(over, "Retry-After"), QByteArray("1"));
    const RateLimitHeaders parsed = RateLimitHeaders::parse(over.headers, now);
    QCOMPARE(parsed.style, RateLimitHeaders::Style::Ietf);
    QVERIFY(parsed.exhausted());
    QCOMPARE(parsed.limit, 3);
    QCOMPARE(parsed.windowSeconds, 2);
    QCOMPARE(parsed.resetMs, 2000.0);

    // Retry-After alone: nothing else says how many are left.
    for (int i = 0; i < 3; ++i)
        QVERIFY(!RateLimitHeaders::parse(limited("retry-after").headers, now).isPresent());
    const ResponsePlan bare = limited("retry-after");
    QCOMPARE(bare.status, 429);
    QCOMPARE(header(bare, "Retry-After"), QByteArray("1"));

    // The default, spelt out, is what the endpoint always sent.
    const RateLimitHeaders x = RateLimitHeaders::parse(limited("x-ratelimit").headers, now);
    QCOMPARE(x.style, RateLimitHeaders::Style::XRateLimit);
    QCOMPARE(x.remaining, 2);

    // As Amazon S3 throttles: a 503 whose XML error code is SlowDown, and no limit headers.
    for (int i = 0; i < 3; ++i)
        QCOMPARE(limited("s3").status, 200);
    const ResponsePlan slowDown = limited("s3");
    QCOMPARE(slowDown.status, 503);
    QCOMPARE(slowDown.contentType, QByteArray("application/xml"));
    QVERIFY(slowDown.body.contains("<Code>SlowDown</Code>"));
    QVERIFY(!RateLimitHeaders::parse(slowDown.headers, now).isPresent());
    QCOMPARE(header(slowDown, "Retry-After"), QByteArray("(none)"));

    const ResponsePlan wrong = endpoints.handle(request("GET", "/ratelimit?headers=draft"));
    QCOMPARE(wrong.status, 400);
    QVERIFY(wrong.detail.contains(QStringLiteral("x-ratelimit, ietf, retry-after or s3")));
}

void TestFaultEndpoints::operation_pollsUntilDone_withAResponseOrAnError()
{
    ManualClock clock;
    FaultEndpoints endpoints;
    endpoints.setClock(&clock);
    const auto poll = [&](const QByteArray &target) { return endpoints.handle(request("GET", target)); };

    ResponsePlan first = poll("/operation/build-1?done_after_ms=3000");
    QCOMPARE(first.status, 200);
    QCOMPARE(json(first).value(QStringLiteral("done")).toBool(), false);
    QCOMPARE(json(first).value(QStringLiteral("name")).toString(), QStringLiteral("operations/build-1"));
    clock.advanceMs(1500);
    // Later polls keep the operation's first parameters.
    const ResponsePlan halfway = poll("/operation/build-1?done_after_ms=1");
    QCOMPARE(json(halfway).value(QStringLiteral("done")).toBool(), false);
    QCOMPARE(
        json(halfway).value(QStringLiteral("metadata")).toObject().value(QStringLiteral("progressPercent")).toInt(),
        50);
    clock.advanceMs(1500);
    const ResponsePlan done = poll("/operation/build-1");
    QCOMPARE(json(done).value(QStringLiteral("done")).toBool(), true);
    QCOMPARE(json(done).value(QStringLiteral("response")).toObject().value(QStringLiteral("name")).toString(),
        QStringLiteral("build-1"));
    QVERIFY(!json(done).contains(QStringLiteral("error")));

    QCOMPARE(json(poll("/operation/bad?done_after_ms=0&error=4"))
                 .value(QStringLiteral("error"))
                 .toObject()
                 .value(QStringLiteral("code"))
                 .toInt(),
        4);
    QCOMPARE(poll("/operation/x?error=0").status, 400);
    QCOMPARE(poll("/operation/x?done_after_ms=-1").status, 400);
    QCOMPARE(endpoints.handle(request("PUT", "/operation/x")).status, 405);
    endpoints.reset();
    QCOMPARE(json(poll("/operation/build-1?done_after_ms=3000")).value(QStringLiteral("done")).toBool(), false);
}

void TestFaultEndpoints::occ_etagAndIfMatch()
{
    FaultEndpoints endpoints;
    const auto put = [&](const QByteArray &body, const QList<QByteArray> &headers) {
        return endpoints.handle(request("PUT", "/occ/doc", body, headers));
    };
    const ResponsePlan read = endpoints.handle(request("GET", "/occ/doc"));
    QCOMPARE(read.status, 200);
    QCOMPARE(json(read).value(QStringLiteral("value")).toInt(), 0);
    QCOMPARE(header(read, "ETag"), QByteArray("\"v1\""));
    QCOMPARE(read.detail, QStringLiteral("read \"doc\": value 0, ETag \"v1\""));

    QCOMPARE(put(R"({"value":1})", {}).status, 428);
    QCOMPARE(put(R"({"value":"one"})", {"If-Match: \"v1\""}).status, 400);
    QCOMPARE(put(R"({"value":1.5})", {"If-Match: \"v1\""}).status, 400);
    QCOMPARE(put("not json", {"If-Match: \"v1\""}).status, 400);

    const ResponsePlan written = put(R"({"value":5})", {"If-Match: \"v1\""});
    QCOMPARE(written.status, 200);
    QCOMPARE(json(written).value(QStringLiteral("value")).toInt(), 5);
    QCOMPARE(header(written, "ETag"), QByteArray("\"v2\""));
    QCOMPARE(written.detail, QStringLiteral("wrote \"doc\": 0 -> 5, ETag now \"v2\""));

    const ResponsePlan stale = put(R"({"value":6})", {"If-Match: \"v1\""});
    QCOMPARE(stale.status, 409);
    QCOMPARE(json(stale).value(QStringLiteral("status")).toString(), QStringLiteral("ABORTED"));
    QCOMPARE(json(stale).value(QStringLiteral("message")).toString(),
        QStringLiteral("the resource changed: If-Match \"v1\", current ETag \"v2\""));
    QCOMPARE(header(stale, "ETag"), QByteArray("\"v2\""));

    QCOMPARE(put(R"({"value":7})", {"If-Match: \"v9\", \"v2\""}).status, 200); // any listed tag
    QCOMPARE(put(R"({"value":8})", {"If-Match: *"}).status, 200);
    const ResponsePlan after = endpoints.handle(request("HEAD", "/occ/doc"));
    QCOMPARE(json(after).value(QStringLiteral("value")).toInt(), 8);
    QCOMPARE(header(after, "ETag"), QByteArray("\"v4\""));

    endpoints.reset();
    QCOMPARE(header(endpoints.handle(request("GET", "/occ/doc")), "ETag"), QByteArray("\"v1\""));
}

void TestFaultEndpoints::occ_etagInTheBody_asAnIamPolicy()
{
    FaultEndpoints endpoints;
    const ResponsePlan read = endpoints.handle(request("GET", "/occ/policy?etag=body&envelope=policy"));
    QCOMPARE(read.status, 200);
    QCOMPARE(
        json(read), (QJsonObject{{QStringLiteral("value"), 0}, {QStringLiteral("etag"), QStringLiteral("\"v1\"")}}));
    QCOMPARE(header(read, "ETag"), QByteArray("(none)")); // the body carries the version, not a header
    const auto write = [&](const QByteArray &body) {
        return endpoints.handle(request("POST", "/occ/policy?etag=body&envelope=policy", body));
    };
    const ResponsePlan written = write(R"({"policy": {"value": 5, "etag": "\"v1\""}})");
    QCOMPARE(written.status, 200);
    QCOMPARE(json(written).value(QStringLiteral("etag")).toString(), QStringLiteral("\"v2\""));
    // The same etag again is stale: 409 ABORTED, as IAM answers, and nothing changes.
    const ResponsePlan stale = write(R"({"policy": {"value": 9, "etag": "\"v1\""}})");
    QCOMPARE(stale.status, 409);
    QCOMPARE(json(stale).value(QStringLiteral("error")).toObject().value(QStringLiteral("status")).toString(),
        QStringLiteral("ABORTED"));
    // Without the envelope, or without an etag, the write is refused as malformed.
    QCOMPARE(write(R"({"value": 9, "etag": "\"v2\""})").status, 400);
    QCOMPARE(write(R"({"policy": {"value": 9}})").status, 400);
    QCOMPARE(json(endpoints.handle(request("GET", "/occ/policy?etag=body"))).value(QStringLiteral("value")).toInt(), 5);
    QCOMPARE(endpoints.handle(request("GET", "/occ/policy?etag=nope")).status, 400);
}

void TestFaultEndpoints::occ_iamVerbs_getAndSetIamPolicy()
{
    // POST NAME:getIamPolicy reads, POST NAME:setIamPolicy writes: the same resource as NAME.
    FaultEndpoints endpoints;
    const ResponsePlan read = endpoints.handle(request("POST", "/occ/p:getIamPolicy?etag=body&envelope=policy", "{}"));
    QCOMPARE(read.status, 200);
    QCOMPARE(
        json(read), (QJsonObject{{QStringLiteral("value"), 0}, {QStringLiteral("etag"), QStringLiteral("\"v1\"")}}));
    const ResponsePlan written = endpoints.handle(request(
        "POST", "/occ/p:setIamPolicy?etag=body&envelope=policy", R"({"policy": {"value": 2, "etag": "\"v1\""}})"));
    QCOMPARE(written.status, 200);
    QCOMPARE(json(endpoints.handle(request("GET", "/occ/p?etag=body"))).value(QStringLiteral("value")).toInt(), 2);
    QCOMPARE(endpoints
                 .handle(request("POST", "/occ/p:setIamPolicy?etag=body&envelope=policy",
                     R"({"policy": {"value": 3, "etag": "\"v1\""}})"))
                 .status,
        409);
    // IAM's verbs take POST only; another verb is no endpoint.
    const ResponsePlan get = endpoints.handle(request("GET", "/occ/p:getIamPolicy?etag=body"));
    QCOMPARE(get.status, 405);
    QCOMPARE(header(get, "Allow"), QByteArray("POST"));
    QCOMPARE(endpoints.handle(request("POST", "/occ/p:testIamPermissions")).status, 404);
    QCOMPARE(endpoints.handle(request("POST", "/occ/:getIamPolicy")).status, 400);
}

void TestFaultEndpoints::occ_delay_checksWhenTheWaitIsOver()
{
    // Two writers read v1; the slow one's check happens after the fast one wrote.
    FaultEndpoints endpoints;
    QCOMPARE(header(endpoints.handle(request("GET", "/occ/race")), "ETag"), QByteArray("\"v1\""));
    const ResponsePlan slow
        = endpoints.handle(request("PUT", "/occ/race?delay_ms=60", R"({"value":1})", {"If-Match: \"v1\""}));
    QCOMPARE(slow.kind, ResponsePlan::Kind::Wait);
    QCOMPARE(slow.waitMs, 60);
    QCOMPARE(endpoints.handle(request("PUT", "/occ/race", R"({"value":2})", {"If-Match: \"v1\""})).status, 200);
    const ResponsePlan late = slow.then();
    QCOMPARE(late.status, 409);
    QCOMPARE(header(late, "ETag"), QByteArray("\"v2\""));
    // Reads wait too.
    const ResponsePlan read = endpoints.handle(request("GET", "/occ/race?delay_ms=5"));
    QCOMPARE(read.kind, ResponsePlan::Kind::Wait);
    QCOMPARE(json(read.then()).value(QStringLiteral("value")).toInt(), 2);
}

void TestFaultEndpoints::eventual_visibleAfterHiddenMsOnTheClock()
{
    ManualClock clock;
    FaultEndpoints endpoints;
    endpoints.setClock(&clock);
    const ResponsePlan created
        = endpoints.handle(request("PUT", "/eventual/doc?hidden_ms=1000", "hello", {"Content-Type: text/plain"}));
    QCOMPARE(created.status, 201);
    QCOMPARE(json(created).value(QStringLiteral("visible_in_ms")).toInt(), 1000);
    QCOMPARE(created.detail, QStringLiteral("created \"doc\", invisible for 1000 ms"));

    const ResponsePlan hidden = endpoints.handle(request("GET", "/eventual/doc"));
    QCOMPARE(hidden.status, 404);
    QCOMPARE(header(hidden, "X-RetryLab-Visible-In-Ms"), QByteArray("1000"));
    QCOMPARE(json(hidden).value(QStringLiteral("error")).toString(), QStringLiteral("no resource \"doc\""));
    QCOMPARE(hidden.detail, QStringLiteral("\"doc\" exists but stays invisible for another 1000 ms"));
    clock.advanceMs(999);
    QCOMPARE(header(endpoints.handle(request("GET", "/eventual/doc")), "X-RetryLab-Visible-In-Ms"), QByteArray("1"));
    clock.advanceMs(1);
    const ResponsePlan visible = endpoints.handle(request("GET", "/eventual/doc"));
    QCOMPARE(visible.status, 200);
    QCOMPARE(visible.body, QByteArray("hello"));
    QCOMPARE(visible.contentType, QByteArray("text/plain"));

    const ResponsePlan updated = endpoints.handle(request("PUT", "/eventual/doc", "again"));
    QCOMPARE(updated.status, 200);
    QCOMPARE(json(updated).value(QStringLiteral("updated")).toBool(), true);
    const ResponsePlan reread = endpoints.handle(request("GET", "/eventual/doc"));
    QCOMPARE(reread.body, QByteArray("again"));
    QCOMPARE(reread.contentType, QByteArray("application/octet-stream"));

    QCOMPARE(endpoints.handle(request("GET", "/eventual/never-made")).status, 404);
    endpoints.reset();
    QCOMPARE(endpoints.handle(request("GET", "/eventual/doc")).status, 404);
}

void TestFaultEndpoints::eventual_storageIsBoundedByBodies()
{
    FaultEndpoints endpoints;
    endpoints.setMaxBodyBytes(1024);
    const auto put = [&](const QByteArray &name, qsizetype bytes) {
        return endpoints.handle(request("PUT", "/eventual/" + name + "?hidden_ms=0", QByteArray(bytes, 'e'))).status;
    };
    for (int i = 0; i < 8; ++i)
        QCOMPARE(put("r" + QByteArray::number(i), 1024), 201);
    const ResponsePlan full = endpoints.handle(request("PUT", "/eventual/r8", "x"));
    QCOMPARE(full.status, 507);
    QCOMPARE(json(full).value(QStringLiteral("error")).toString(),
        QStringLiteral(
            "/eventual already stores 8192 bytes, at most 8192 in all; reset the server (POST /_control/reset)"));
    QCOMPARE(put("r0", 24), 200); // a smaller body frees room
    QCOMPARE(put("r8", 1000), 201);
    endpoints.reset();
    QCOMPARE(put("r9", 1024), 201);
}

void TestFaultEndpoints::redirect_onlyToPathsAndLoopback_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("location"); // "(none)" for a refusal
    QTest::addColumn<QString>("error");

    QTest::addRow("path") << QByteArray("/redirect?to=/status/204&code=307") << 307 << QByteArray("/status/204")
                          << QString();
    QTest::addRow("default code") << QByteArray("/redirect?to=http://127.0.0.1:9/x") << 302
                                  << QByteArray("http://127.0.0.1:9/x") << QString();
    QTest::addRow("localhost") << QByteArray("/redirect?to=https://LOCALHOST/x&code=308") << 308
                               << QByteArray("https://localhost/x") << QString();
    QTest::addRow("ipv6 loopback") << QByteArray("/redirect?to=http://%5B::1%5D:8080/&code=301") << 301
                                   << QByteArray("http://[::1]:8080/") << QString();
    QTest::addRow("off loopback") << QByteArray("/redirect?to=http://example.com/") << 400 << QByteArray("(none)")
                                  << QStringLiteral("to must point to a loopback address (got \"example.com\")");
    QTest::addRow("protocol-relative") << QByteArray("/redirect?to=//example.com/x") << 400 << QByteArray("(none)")
                                       << QStringLiteral("to must be a path starting with / or an http(s) URL");
    QTest::addRow("relative without slash") << QByteArray("/redirect?to=status/200") << 400 << QByteArray("(none)")
                                            << QStringLiteral("to must be a path starting with / or an http(s) URL");
    QTest::addRow("not http") << QByteArray("/redirect?to=ftp://127.0.0.1/x") << 400 << QByteArray("(none)")
                              << QStringLiteral("to must be an http or https URL (got \"ftp\")");
    QTest::addRow("code 304") << QByteArray("/redirect?to=/x&code=304") << 400 << QByteArray("(none)")
                              << QStringLiteral("code must be 301, 302, 303, 307 or 308 (got 304)");
    QTest::addRow("code 200") << QByteArray("/redirect?to=/x&code=200") << 400 << QByteArray("(none)")
                              << QStringLiteral("code must be a whole number from 300 to 399 (got \"200\")");
    QTest::addRow("no target") << QByteArray("/redirect") << 400 << QByteArray("(none)")
                               << QStringLiteral("to is missing: /redirect?to=URL&code=302");
}

void TestFaultEndpoints::redirect_onlyToPathsAndLoopback()
{
    QFETCH(QByteArray, target);
    QFETCH(int, status);
    QFETCH(QByteArray, location);
    QFETCH(QString, error);
    FaultEndpoints endpoints;
    const ResponsePlan plan = endpoints.handle(request("GET", target));
    QCOMPARE(plan.status, status);
    QCOMPARE(header(plan, "Location"), location);
    if (!error.isEmpty())
        QCOMPARE(json(plan).value(QStringLiteral("error")).toString(), error);
    else
        QCOMPARE(json(plan), (QJsonObject{{QStringLiteral("status"), status}}));
}

void TestFaultEndpoints::fault_plans_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<ResponsePlan::Kind>("kind");
    QTest::addColumn<QString>("action");
    QTest::addColumn<qint64>("announced");
    QTest::addColumn<qint64>("sent");
    QTest::addColumn<bool>("chunked");
    QTest::addColumn<qint64>("dripBytes");
    QTest::addColumn<int>("dripIntervalMs");
    QTest::addColumn<QString>("detail");

    using K = ResponsePlan::Kind;
    QTest::addRow("reset") << QByteArray("/fault/reset") << K::Reset << "reset" << 0LL << 0LL << false << 0LL << 0
                           << "reset before any response";
    QTest::addRow("reset before") << QByteArray("/fault/reset?when=before") << K::Reset << "reset" << 0LL << 0LL
                                  << false << 0LL << 0 << "reset before any response";
    QTest::addRow("reset after headers") << QByteArray("/fault/reset?when=after-headers") << K::ResetAfterHeaders
                                         << "reset-after-headers" << 1024LL << 0LL << false << 0LL << 0
                                         << "reset after the headers";
    QTest::addRow("reset after") << QByteArray("/fault/reset?when=after") << K::ResetAfterHeaders
                                 << "reset-after-headers" << 1024LL << 0LL << false << 0LL << 0
                                 << "reset after the headers";
    QTest::addRow("empty") << QByteArray("/fault/empty") << K::Empty << "empty" << 0LL << 0LL << false << 0LL << 0
                           << "closed without a response";
    QTest::addRow("stall") << QByteArray("/fault/stall") << K::Stall << "stall" << 0LL << 0LL << false << 0LL << 0
                           << "holding the connection without answering";
    QTest::addRow("garbage")
        << QByteArray("/fault/garbage") << K::Garbage << "garbage" << 0LL << 0LL << false << 0LL << 0
        << QStringLiteral("sent %1 bytes that are not HTTP").arg(ResponsePlan::garbageBytes().size());
    QTest::addRow("broken") << QByteArray("/fault/broken") << K::BrokenStream << "broken-stream" << 1024LL << 512LL
                            << false << 0LL << 0 << "announced 1024 bytes, sent 512, closed";
    QTest::addRow("broken sized") << QByteArray("/fault/broken?total=100&sent=0") << K::BrokenStream << "broken-stream"
                                  << 100LL << 0LL << false << 0LL << 0 << "announced 100 bytes, sent 0, closed";
    QTest::addRow("broken chunked") << QByteArray("/fault/broken?total=100&sent=10&chunked=1") << K::BrokenStream
                                    << "broken-stream" << 100LL << 10LL << true << 0LL << 0
                                    << "chunked: sent 10 bytes, closed before the last chunk";
    QTest::addRow("drip") << QByteArray("/fault/drip") << K::Drip << "drip" << 0LL << 0LL << false << 16LL << 100
                          << "sent 16 bytes, one every 100 ms";
    QTest::addRow("drip sized") << QByteArray("/fault/drip?bytes=4&ms=5") << K::Drip << "drip" << 0LL << 0LL << false
                                << 4LL << 5 << "sent 4 bytes, one every 5 ms";
}

void TestFaultEndpoints::fault_plans()
{
    QFETCH(QByteArray, target);
    QFETCH(ResponsePlan::Kind, kind);
    QFETCH(QString, action);
    QFETCH(qint64, announced);
    QFETCH(qint64, sent);
    QFETCH(bool, chunked);
    QFETCH(qint64, dripBytes);
    QFETCH(int, dripIntervalMs);
    QFETCH(QString, detail);
    FaultEndpoints endpoints;
    const ResponsePlan plan = endpoints.handle(request("GET", target));
    QCOMPARE(plan.kind, kind);
    QCOMPARE(plan.action, action);
    QCOMPARE(plan.announcedBytes, announced);
    QCOMPARE(plan.sentBytes, sent);
    QCOMPARE(plan.chunked, chunked);
    QCOMPARE(plan.dripBytes, dripBytes);
    QCOMPARE(plan.dripIntervalMs, dripIntervalMs);
    QCOMPARE(plan.detail, detail);
    QVERIFY(plan.headers.isEmpty());
}

void TestFaultEndpoints::stepPlans_shareTheFaultTable_data()
{
    QTest::addColumn<QString>("step");
    QTest::addColumn<QByteArray>("twin"); // the /fault/* path that plans the same fault; empty for none

    QTest::addRow("reset") << "reset" << QByteArray("/fault/reset");
    QTest::addRow("reset-after-headers") << "reset-after-headers" << QByteArray("/fault/reset?when=after-headers");
    QTest::addRow("empty") << "empty" << QByteArray("/fault/empty");
    QTest::addRow("stall") << "stall" << QByteArray("/fault/stall");
    QTest::addRow("broken-stream") << "broken-stream" << QByteArray("/fault/broken");
    QTest::addRow("garbage") << "garbage" << QByteArray("/fault/garbage");
    QTest::addRow("drip") << "drip" << QByteArray("/fault/drip");
    QTest::addRow("drip-5ms") << "drip-5ms" << QByteArray("/fault/drip?ms=5");
    QTest::addRow("return-503") << "return-503" << QByteArray();
    QTest::addRow("return-429-after-2s") << "return-429-after-2s" << QByteArray();
    QTest::addRow("delay-60ms") << "delay-60ms" << QByteArray();
    QTest::addRow("pass") << "pass" << QByteArray();
}

void TestFaultEndpoints::stepPlans_shareTheFaultTable()
{
    QFETCH(QString, step);
    QFETCH(QByteArray, twin);
    const auto instruction = FaultInstruction::parse(step);
    QVERIFY2(instruction, qPrintable(instruction.error()));
    int byPathCalls = 0;
    const auto byPath = [&byPathCalls] {
        ++byPathCalls;
        ResponsePlan p;
        p.status = 299;
        p.detail = QStringLiteral("by path");
        return p;
    };
    const ResponsePlan plan = ResponsePlan::forStep(*instruction, byPath);

    if (!twin.isEmpty()) {
        FaultEndpoints endpoints;
        const ResponsePlan expected = endpoints.handle(request("GET", twin));
        QCOMPARE(plan.kind, expected.kind);
        QCOMPARE(plan.action, expected.action);
        QCOMPARE(plan.announcedBytes, expected.announcedBytes);
        QCOMPARE(plan.sentBytes, expected.sentBytes);
        QCOMPARE(plan.chunked, expected.chunked);
        QCOMPARE(plan.dripBytes, expected.dripBytes);
        QCOMPARE(plan.dripIntervalMs, expected.dripIntervalMs);
        QVERIFY(plan.detail.isEmpty()); // the server says which step it was
        QCOMPARE(byPathCalls, 0);
        return;
    }
    if (step == QLatin1String("pass")) {
        QCOMPARE(byPathCalls, 1);
        QCOMPARE(plan.status, 299);
    } else if (step.startsWith(QLatin1String("delay"))) {
        QCOMPARE(plan.kind, ResponsePlan::Kind::Wait);
        QCOMPARE(plan.waitMs, 60);
        QCOMPARE(byPathCalls, 0); // decided when the wait is over
        QCOMPARE(plan.then().detail, QStringLiteral("by path"));
        QCOMPARE(byPathCalls, 1);
    } else {
        QCOMPARE(plan.kind, ResponsePlan::Kind::Respond);
        QCOMPARE(plan.status, instruction->status);
        QCOMPARE(plan.body, "{\"status\":" + QByteArray::number(instruction->status) + "}\n");
        QCOMPARE(header(plan, "Retry-After"),
            instruction->retryAfterSeconds ? QByteArray::number(*instruction->retryAfterSeconds)
                                           : QByteArray("(none)"));
        QCOMPARE(byPathCalls, 0);
    }
}

void TestFaultEndpoints::unknownPaths_get404_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QString>("error");

    QTest::addRow("nowhere") << QByteArray("/nowhere/at/all")
                             << QStringLiteral("no endpoint at /nowhere/at/all; GET / lists them");
    QTest::addRow("status without code") << QByteArray("/status")
                                         << QStringLiteral("no endpoint at /status; GET / lists them");
    QTest::addRow("status with more") << QByteArray("/status/200/more")
                                      << QStringLiteral("no endpoint at /status/200/more; GET / lists them");
    QTest::addRow("ratelimit with more") << QByteArray("/ratelimit/x")
                                         << QStringLiteral("no endpoint at /ratelimit/x; GET / lists them");
    QTest::addRow("percent-decoded") << QByteArray("/no%20such")
                                     << QStringLiteral("no endpoint at /no such; GET / lists them");
    QTest::addRow("long path is shortened")
        << "/" + QByteArray(100, 'p')
        << QStringLiteral("no endpoint at /%1...; GET / lists them").arg(QString(59, QLatin1Char('p')));
    QTest::addRow("unknown fault") << QByteArray("/fault/explode")
                                   << QStringLiteral("no fault \"explode\"; known: reset, empty, stall, broken, "
                                                     "garbage, drip");
    QTest::addRow("the control API is not here")
        << QByteArray("/_control/log") << QStringLiteral("no endpoint at /_control/log; GET / lists them");
}

void TestFaultEndpoints::unknownPaths_get404()
{
    QFETCH(QByteArray, target);
    QFETCH(QString, error);
    FaultEndpoints endpoints;
    const ResponsePlan plan = endpoints.handle(request("GET", target));
    QCOMPARE(plan.kind, ResponsePlan::Kind::Respond);
    QCOMPARE(plan.status, 404);
    QCOMPARE(json(plan), (QJsonObject{{QStringLiteral("status"), 404}, {QStringLiteral("error"), error}}));
    QCOMPARE(plan.detail, error);
}

void TestFaultEndpoints::wrongMethod_gets405WithAllow_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QString>("error");

    QTest::addRow("occ DELETE") << QByteArray("DELETE") << QByteArray("/occ/x")
                                << QStringLiteral("/occ/{name} takes GET, HEAD, PUT and POST");
    QTest::addRow("occ PATCH") << QByteArray("PATCH") << QByteArray("/occ/x")
                               << QStringLiteral("/occ/{name} takes GET, HEAD, PUT and POST");
    QTest::addRow("eventual POST") << QByteArray("POST") << QByteArray("/eventual/x")
                                   << QStringLiteral("/eventual/{name} takes GET, HEAD and PUT");
}

void TestFaultEndpoints::wrongMethod_gets405WithAllow()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, target);
    QFETCH(QString, error);
    FaultEndpoints endpoints;
    const ResponsePlan plan = endpoints.handle(request(method, target, "x"));
    QCOMPARE(plan.status, 405);
    QCOMPARE(header(plan, "Allow"),
        target.startsWith("/occ") ? QByteArray("GET, HEAD, PUT, POST") : QByteArray("GET, HEAD, PUT"));
    QCOMPARE(json(plan).value(QStringLiteral("error")).toString(), error);
}

void TestFaultEndpoints::numericParameters_outOfBounds_get400_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QString>("mentions");

    // Each template gets every bad value in place of {}.
    const QList<QPair<QByteArray, QString>> templates{
        {"/status/{}", QStringLiteral("/status/{code}")},
        {"/status/503?retry_after={}", QStringLiteral("retry_after")},
        {"/status/503?ratelimit_reset={}", QStringLiteral("ratelimit_reset")},
        {"/delay/{}", QStringLiteral("/delay/{ms}")},
        {"/delay/100?dist=uniform&min={}", QStringLiteral("min")},
        {"/delay/100?dist=lognormal&sigma={}", QStringLiteral("sigma")},
        {"/fail/{}", QStringLiteral("/fail/{n}")},
        {"/fail/1?code={}", QStringLiteral("code")},
        {"/fail/1?p={}", QStringLiteral("p must")},
        {"/fail/1?retry_after={}", QStringLiteral("retry_after")},
        {"/fault/broken?total={}", QStringLiteral("total")},
        {"/fault/broken?total=100&sent={}", QStringLiteral("sent")},
        {"/fault/broken?chunked={}", QStringLiteral("chunked")},
        {"/fault/drip?bytes={}", QStringLiteral("bytes")},
        {"/fault/drip?ms={}", QStringLiteral("ms")},
        {"/ratelimit?rps={}", QStringLiteral("rps")},
        {"/ratelimit?burst={}", QStringLiteral("burst")},
        {"/redirect?to=/x&code={}", QStringLiteral("code")},
        {"/occ/x?delay_ms={}", QStringLiteral("delay_ms")},
        {"/eventual/x?hidden_ms={}", QStringLiteral("hidden_ms")},
    };
    const QList<QByteArray> bad{"1e12", "-1", "nan", "99999999999999999999999", "inf", "%20", "0x10", "12abc"};
    for (const auto &[pattern, mentions] : templates) {
        for (const QByteArray &value : bad) {
            QByteArray target = pattern;
            target.replace("{}", value);
            QTest::addRow("%s", target.constData()) << target << mentions;
        }
    }
    // Values that are numbers but out of range.
    QTest::addRow("delay over five minutes") << QByteArray("/delay/300001") << QStringLiteral("/delay/{ms}");
    QTest::addRow("status 199") << QByteArray("/status/199") << QStringLiteral("/status/{code}");
    QTest::addRow("fail code 399") << QByteArray("/fail/1?code=399") << QStringLiteral("code");
    QTest::addRow("p above 1") << QByteArray("/fail/1?p=1.5") << QStringLiteral("p must");
    QTest::addRow("sigma above 3") << QByteArray("/delay/100?dist=lognormal&sigma=3.5") << QStringLiteral("sigma");
    QTest::addRow("sigma zero") << QByteArray("/delay/100?dist=lognormal&sigma=0") << QStringLiteral("above 0");
    QTest::addRow("min above ms") << QByteArray("/delay/100?dist=uniform&min=101") << QStringLiteral("min");
    QTest::addRow("sent equals total") << QByteArray("/fault/broken?total=100&sent=100") << QStringLiteral("sent");
    // A bucket this slow would announce a wait beyond any integer.
    QTest::addRow("rps tiny") << QByteArray("/ratelimit?rps=1e-300") << QStringLiteral("rps");
    QTest::addRow("rps zero") << QByteArray("/ratelimit?rps=0") << QStringLiteral("rps");
    QTest::addRow("rps below a thousandth") << QByteArray("/ratelimit?rps=0.0009") << QStringLiteral("rps");
    QTest::addRow("eventual hidden too long")
        << QByteArray("/eventual/x?hidden_ms=3600001") << QStringLiteral("hidden_ms");
    QTest::addRow("drip too long") << QByteArray("/fault/drip?bytes=100000&ms=100")
                                   << QStringLiteral("longer than 600 s");
    QTest::addRow("unknown distribution")
        << QByteArray("/delay/20?dist=pareto") << QStringLiteral("dist must be \"uniform\" or \"lognormal\"");
    QTest::addRow("reset when unknown") << QByteArray("/fault/reset?when=later")
                                        << QStringLiteral("when must be \"before-headers\"");
    QTest::addRow("occ bad name") << QByteArray("/occ/bad%20name") << QStringLiteral("resource name");
    QTest::addRow("eventual name too long") << "/eventual/" + QByteArray(129, 'n') << QStringLiteral("resource name");
}

void TestFaultEndpoints::numericParameters_outOfBounds_get400()
{
    QFETCH(QByteArray, target);
    QFETCH(QString, mentions);
    FaultEndpoints endpoints;
    const QByteArray method = target.startsWith("/eventual") ? "PUT" : "GET";
    const ResponsePlan plan
        = endpoints.handle(request(method, target, method == "PUT" ? QByteArray("{}") : QByteArray()));
    QCOMPARE(plan.kind, ResponsePlan::Kind::Respond);
    QCOMPARE(plan.status, 400);
    QCOMPARE(plan.action, QStringLiteral("respond"));
    const QString error = json(plan).value(QStringLiteral("error")).toString();
    QVERIFY2(error.contains(mentions), qPrintable(error));
    QCOMPARE(plan.detail, error);
}

void TestFaultEndpoints::badNumbers_messageNamesTheValueAndItsRange_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QString>("error");

    QTest::addRow("path segment") << QByteArray("/status/700")
                                  << QStringLiteral("the status in /status/{code} must be a whole number from 200 to "
                                                    "599 (got \"700\")");
    QTest::addRow("parameter") << QByteArray("/fail/1?code=12abc")
                               << QStringLiteral("code must be a whole number from 400 to 599 (got \"12abc\")");
    QTest::addRow("real") << QByteArray("/fail/1?p=2") << QStringLiteral("p must be a number from 0 to 1 (got \"2\")");
    QTest::addRow("real, open below") << QByteArray("/delay/10?dist=lognormal&sigma=-1")
                                      << QStringLiteral("sigma must be a number above 0 and at most 3 (got \"-1\")");
    QTest::addRow("long value is shortened")
        << "/delay/" + QByteArray(50, '9')
        << QStringLiteral("the delay in /delay/{ms} must be a whole number from 0 to 300000 (got \"%1...\")")
               .arg(QString(40, QLatin1Char('9')));
}

void TestFaultEndpoints::badNumbers_messageNamesTheValueAndItsRange()
{
    QFETCH(QByteArray, target);
    QFETCH(QString, error);
    FaultEndpoints endpoints;
    const ResponsePlan plan = endpoints.handle(request("GET", target));
    QCOMPARE(plan.status, 400);
    QCOMPARE(json(plan), (QJsonObject{{QStringLiteral("status"), 400}, {QStringLiteral("error"), error}}));
}

void TestFaultEndpoints::failKeys_areBounded()
{
    // Keys are made by clients: beyond the bound (100,000; 2,000 here, the same code at a
    // fiftieth of the sanitizers' CPU) a new one is refused until a reset.
    FaultEndpoints endpoints;
    QCOMPARE(endpoints.maxStateEntries(), 100'000);
    endpoints.setMaxStateEntries(2'000);
    for (int i = 0; i < 2'000; ++i) {
        if (endpoints.handle(request("GET", "/fail/0?key=k" + QByteArray::number(i))).status != 200)
            QFAIL(qPrintable(QStringLiteral("key %1 refused").arg(i)));
    }
    const ResponsePlan refused = endpoints.handle(request("GET", "/fail/0?key=one-more"));
    QCOMPARE(refused.status, 503);
    QCOMPARE(json(refused).value(QStringLiteral("error")).toString(),
        QStringLiteral("too many /fail keys; reset the server (POST /_control/reset)"));
    QCOMPARE(endpoints.handle(request("GET", "/fail/0?key=k7")).status, 200); // known keys go on
    endpoints.reset();
    QCOMPARE(endpoints.handle(request("GET", "/fail/0?key=one-more")).status, 200);
}

QTEST_GUILESS_MAIN(TestFaultEndpoints)
#include "tst_faultendpoints.moc"
