#include "core/assertions/assertionjson.h"
#include "core/assertions/assertionresult.h"
#include "core/record/attemptrecord.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace RetryLab::Core;

class TestAssertions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void evaluate_eachKind_data();
    void evaluate_eachKind();
    void evaluate_noStatus_failsEvenNegated();
    void evaluate_bodyNotJson_failsEvenNegated();
    void evaluate_truncatedBody_saysSo();
    void evaluate_schemaWithUncheckedKeywords_namesThemInThePass();
    void evaluate_bodyGivenApart_isTheOneChecked();
    void evaluateAll_keepsOrderAndNames();
};

namespace {

Assertion assertionOf(const QByteArray &json)
{
    const auto read = AssertionJson::read(QJsonDocument::fromJson("[" + json + "]").array());
    if (!read || read->size() != 1)
        qFatal("bad assertion %s: %s", json.constData(), qPrintable(read.error()));
    return read->constFirst();
}

AttemptRecord answer(int status, double ms, const QByteArray &body)
{
    AttemptRecord r;
    r.httpStatus = status;
    r.startNs = 1'000;
    r.endNs = 1'000 + static_cast<qint64>(ms * 1e6);
    r.responseHeaders = {{QByteArray("Content-Type"), QByteArray("application/json; charset=utf-8")},
        {QByteArray("ETag"), QByteArray("\"v7\"")}};
    r.responseBody = body;
    r.bytesReceived = body.size();
    return r;
}

const QByteArray order = R"({"id": 7, "name": "Widget", "price": 2.5, "tags": ["a"], "owner": null})";

} // namespace

void TestAssertions::evaluate_eachKind_data()
{
    QTest::addColumn<QByteArray>("assertion");
    QTest::addColumn<int>("status");
    QTest::addColumn<double>("ms");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("passed");
    QTest::addColumn<QString>("message");

    QTest::addRow("status equals") << QByteArray(R"({"kind": "status", "equals": 200})") << 200 << 5.0 << order << true
                                   << "status 200 expected, 200 came";
    QTest::addRow("status differs") << QByteArray(R"({"kind": "status", "equals": 200})") << 503 << 5.0 << order
                                    << false << "status 200 expected, 503 came";
    QTest::addRow("not status") << QByteArray(R"({"kind": "status", "equals": 500, "not": true})") << 500 << 5.0
                                << order << false << "not status 500 expected, 500 came";
    QTest::addRow("not status holds") << QByteArray(R"({"kind": "status", "equals": 500, "not": true})") << 200 << 5.0
                                      << order << true << "not status 500 expected, 200 came";
    QTest::addRow("status class") << QByteArray(R"({"kind": "status", "class": "2xx"})") << 204 << 5.0 << order << true
                                  << "status 2xx expected, 204 came";
    QTest::addRow("status class differs") << QByteArray(R"({"kind": "status", "class": "2xx"})") << 302 << 5.0 << order
                                          << false << "status 2xx expected, 302 came";
    QTest::addRow("status in") << QByteArray(R"({"kind": "status", "in": "200,204"})") << 204 << 5.0 << order << true
                               << "status in 200,204 expected, 204 came";
    QTest::addRow("status not in") << QByteArray(R"({"kind": "status", "in": "200,204"})") << 201 << 5.0 << order
                                   << false << "HTTP 201 is not in 200,204";
    QTest::addRow("fast") << QByteArray(R"({"kind": "responseTime", "underMs": 800})") << 200 << 120.0 << order << true
                          << "response time under 800 ms expected, 120.0 ms came";
    QTest::addRow("slow") << QByteArray(R"({"kind": "responseTime", "underMs": 800})") << 200 << 812.25 << order
                          << false << "the response took 812.3 ms, not under 800 ms";
    QTest::addRow("header present") << QByteArray(R"({"kind": "header", "header": "etag", "exists": true})") << 200
                                    << 5.0 << order << true << R"(header etag present expected, ""v7"" came)";
    QTest::addRow("header absent") << QByteArray(R"({"kind": "header", "header": "X-Id", "exists": true})") << 200
                                   << 5.0 << order << false << "the answer has no X-Id header";
    QTest::addRow("not header, absent") << QByteArray(R"({"kind": "header", "header": "X-Id", "exists": true,
                                                      "not": true})")
                                        << 200 << 5.0 << order << true
                                        << "not header X-Id present expected, no X-Id header came";
    QTest::addRow("header equals") << QByteArray(R"({"kind": "header", "header": "ETag", "equals": "\"v7\""})") << 200
                                   << 5.0 << order << true << R"(header ETag equals ""v7"" expected, ""v7"" came)";
    QTest::addRow("header differs") << QByteArray(R"({"kind": "header", "header": "Content-Type",
                                                  "equals": "application/json"})")
                                    << 200 << 5.0 << order << false
                                    << R"(header Content-Type equals "application/json" expected, )"
                                       R"("application/json; charset=utf-8" came)";
    QTest::addRow("header matches") << QByteArray(R"({"kind": "header", "header": "Content-Type",
                                                  "matches": "^application/json"})")
                                    << 200 << 5.0 << order << true
                                    << R"(header Content-Type matches ^application/json expected, )"
                                       R"("application/json; charset=utf-8" came)";
    QTest::addRow("header does not match") << QByteArray(R"({"kind": "header", "header": "Content-Type",
                                                         "matches": "^text/"})")
                                           << 200 << 5.0 << order << false
                                           << R"(the Content-Type header does not match ^text/: it is )"
                                              R"("application/json; charset=utf-8")";
    QTest::addRow("body contains") << QByteArray(R"({"kind": "body", "contains": "Widget"})") << 200 << 5.0 << order
                                   << true << "body contains \"Widget\" expected, a body that contains it came";
    QTest::addRow("body lacks") << QByteArray(R"({"kind": "body", "contains": "error"})") << 200 << 5.0 << order
                                << false << "the body does not contain \"error\"";
    QTest::addRow("not body contains") << QByteArray(R"({"kind": "body", "contains": "Widget", "not": true})") << 200
                                       << 5.0 << order << false
                                       << "not body contains \"Widget\" expected, a body that contains it came";
    QTest::addRow("pointer equals") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/id", "equals": 7})") << 200
                                    << 5.0 << order << true << "/id equals 7 expected, 7 came";
    QTest::addRow("pointer equals array")
        << QByteArray(R"({"kind": "jsonPointer", "pointer": "/tags",
                                                        "equals": ["a"]})")
        << 200 << 5.0 << order << true << R"(/tags equals ["a"] expected, ["a"] came)";
    QTest::addRow("pointer differs") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/id", "equals": 8})") << 200
                                     << 5.0 << order << false << "/id is 7, not 8";
    QTest::addRow("pointer type differs") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/id", "equals": "7"})")
                                          << 200 << 5.0 << order << false << "/id is 7, not \"7\"";
    QTest::addRow("pointer finds nothing") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/x", "equals": 1})")
                                           << 200 << 5.0 << order << false << "the body has nothing at /x (expected 1)";
    QTest::addRow("pointer exists, null") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/owner",
                                                        "exists": true})")
                                          << 200 << 5.0 << order << true << "/owner exists expected, null came";
    QTest::addRow("pointer missing") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/tags/1",
                                                   "exists": true})")
                                     << 200 << 5.0 << order << false << "the body has nothing at /tags/1";
    QTest::addRow("not pointer exists") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/error",
                                                      "exists": true, "not": true})")
                                        << 200 << 5.0 << order << true
                                        << "not /error exists expected, nothing at /error came";
    QTest::addRow("pointer matches") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/name",
                                                   "matches": "^W"})")
                                     << 200 << 5.0 << order << true << R"(/name matches ^W expected, "Widget" came)";
    QTest::addRow("pointer does not match")
        << QByteArray(R"({"kind": "jsonPointer", "pointer": "/name",
                                                          "matches": "^w"})")
        << 200 << 5.0 << order << false << R"(/name is "Widget", which does not match ^w)";
    QTest::addRow("pointer not a string") << QByteArray(R"({"kind": "jsonPointer", "pointer": "/id",
                                                        "matches": "7"})")
                                          << 200 << 5.0 << order << false << "/id is a number, not a string to match 7";
    QTest::addRow("pointer into a scalar body")
        << QByteArray(R"({"kind": "jsonPointer", "pointer": "",
                                                              "equals": 42})")
        << 200 << 5.0 << QByteArray("42") << true << "the whole body equals 42 expected, 42 came";
    QTest::addRow("schema holds") << QByteArray(R"({"kind": "schema", "schema": {"type": "object",
                                                "required": ["id"], "properties": {"price": {"minimum": 0}}}})")
                                  << 200 << 5.0 << order << true
                                  << "body valid against the schema expected, a valid body came";
    QTest::addRow("schema fails") << QByteArray(R"({"kind": "schema", "schema": {"properties": {
                                                "price": {"minimum": 3}, "tags": {"minItems": 2}}}})")
                                  << 200 << 5.0 << order << false
                                  << "the body is not valid against the schema: /price: 'minimum' 3: 2.5 is less; "
                                     "/tags: 'minItems' 2: 1 items";
    QTest::addRow("not schema") << QByteArray(R"({"kind": "schema", "schema": {"type": "array"}, "not": true})") << 200
                                << 5.0 << order << true
                                << "not body valid against the schema expected, a body with 1 failure(s) came";
    QTest::addRow("schema, not JSON") << QByteArray(R"({"kind": "schema", "schema": {}})") << 200 << 5.0
                                      << QByteArray("<html>") << false << "the body is not JSON (";
}

void TestAssertions::evaluate_eachKind()
{
    QFETCH(QByteArray, assertion);
    QFETCH(int, status);
    QFETCH(double, ms);
    QFETCH(QByteArray, body);
    QFETCH(bool, passed);
    QFETCH(QString, message);
    const Assertion a = assertionOf(assertion);
    const AssertionResult result = evaluate(a, answer(status, ms, body));
    QCOMPARE(result.passed, passed);
    QCOMPARE(result.name, a.describe());
    if (message.endsWith(QLatin1Char('(')))
        QVERIFY2(result.message.startsWith(message), qPrintable(result.message));
    else
        QCOMPARE(result.message, message);
}

void TestAssertions::evaluate_noStatus_failsEvenNegated()
{
    AttemptRecord refused;
    refused.end = AttemptEnd::NetworkError;
    for (const QByteArray &json : {QByteArray(R"({"kind": "status", "equals": 200})"),
             QByteArray(R"({"kind": "status", "equals": 200, "not": true})")}) {
        const AssertionResult result = evaluate(assertionOf(json), refused);
        QVERIFY(!result.passed);
        QCOMPARE(result.message, QStringLiteral("no HTTP status (expected 200)"));
    }
}

void TestAssertions::evaluate_bodyNotJson_failsEvenNegated()
{
    // Neither "/id equals 7" nor its negation can be said of a page of HTML.
    const AssertionResult result
        = evaluate(assertionOf(R"({"kind": "jsonPointer", "pointer": "/id", "equals": 7, "not": true})"),
            answer(200, 1, "<html>"));
    QVERIFY(!result.passed);
    QVERIFY2(result.message.startsWith(QLatin1String("the body is not JSON")), qPrintable(result.message));
    QVERIFY(result.message.endsWith(QLatin1String("so /id cannot be read")));
}

void TestAssertions::evaluate_truncatedBody_saysSo()
{
    AttemptRecord cut = answer(200, 1, R"({"id": 7, "na)");
    cut.responseBodyTruncated = true;
    cut.bytesReceived = 4096;
    const AssertionResult pointer
        = evaluate(assertionOf(R"({"kind": "jsonPointer", "pointer": "/id", "exists": true})"), cut);
    QVERIFY(!pointer.passed);
    QVERIFY2(
        pointer.message.endsWith(QLatin1String("(only its first 13 bytes were kept)")), qPrintable(pointer.message));
    const AssertionResult body = evaluate(assertionOf(R"({"kind": "body", "contains": "price"})"), cut);
    QCOMPARE(body.message, QStringLiteral("the first 13 bytes of the body do not contain \"price\""));
}

void TestAssertions::evaluate_schemaWithUncheckedKeywords_namesThemInThePass()
{
    const AssertionResult result = evaluate(
        assertionOf(R"({"kind": "schema", "schema": {"properties": {"name": {"format": "email"}}, "anyOf": []}})"),
        answer(200, 1, order));
    QVERIFY(result.passed);
    QCOMPARE(result.notChecked, (QStringList{QStringLiteral("anyOf"), QStringLiteral("format")}));
    QCOMPARE(result.message,
        QStringLiteral("body valid against the schema expected, a valid body came (not checked: anyOf, format)"));
}

void TestAssertions::evaluate_bodyGivenApart_isTheOneChecked()
{
    const Assertion a = assertionOf(R"({"kind": "body", "contains": "ready"})");
    const AttemptRecord record = answer(200, 1, "nothing here");
    QVERIFY(!evaluate(a, record).passed);
    QVERIFY(evaluate(a, record, "ready").passed);
}

void TestAssertions::evaluateAll_keepsOrderAndNames()
{
    const auto list = AssertionJson::read(QJsonDocument::fromJson(R"([
        {"kind": "status", "class": "2xx", "name": "succeeds"},
        {"kind": "jsonPointer", "pointer": "/id", "equals": 8},
        {"kind": "responseTime", "underMs": 50}])")
                                              .array());
    QVERIFY2(list, qPrintable(list.error()));
    const QList<AssertionResult> results = evaluateAll(*list, answer(201, 10, order));
    QCOMPARE(results.size(), 3);
    QCOMPARE(results.at(0),
        (AssertionResult{QStringLiteral("succeeds"), true, QStringLiteral("status 2xx expected, 201 came"), {}}));
    QCOMPARE(results.at(1).name, QStringLiteral("/id equals 8"));
    QVERIFY(!results.at(1).passed);
    QVERIFY(results.at(2).passed);
}

QTEST_GUILESS_MAIN(TestAssertions)
#include "tst_assertions.moc"
