#include "core/assertions/assertionjson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;

class TestAssertionJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void read_eachKind_data();
    void read_eachKind();
    void roundTrip_everyKind_readsBackTheSame();
    void read_refused_namesThePath_data();
    void read_refused_namesThePath();
    void read_underAKey_nestsThePath();
    void read_noKey_isAnEmptyList();
};

namespace {

QJsonArray arrayOf(const QByteArray &text)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError || !document.isArray())
        qFatal("bad JSON in the test: %s", text.constData());
    return document.array();
}

const QByteArray everyKind = R"([
    {"kind": "status", "equals": 200, "name": "created"},
    {"kind": "status", "class": "2xx"},
    {"kind": "status", "in": "200,204", "not": true},
    {"kind": "status", "in": [201, 202]},
    {"kind": "responseTime", "underMs": 800},
    {"kind": "header", "header": "ETag", "exists": true},
    {"kind": "header", "header": "Content-Type", "equals": "application/json"},
    {"kind": "header", "header": "Cache-Control", "matches": "max-age=[0-9]+", "not": true},
    {"kind": "body", "contains": "ok"},
    {"kind": "jsonPointer", "pointer": "/id", "equals": 7},
    {"kind": "jsonPointer", "pointer": "/tags", "equals": ["a", {"b": null}]},
    {"kind": "jsonPointer", "pointer": "/error", "exists": true, "not": true},
    {"kind": "jsonPointer", "pointer": "/name", "matches": "^[A-Z]"},
    {"kind": "schema", "schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}
])";

} // namespace

void TestAssertionJson::read_eachKind_data()
{
    QTest::addColumn<int>("index");
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("negate");
    QTest::addColumn<QString>("describe");

    using K = Assertion::Kind;
    QTest::addRow("status equals") << 0 << int(K::StatusEquals) << false << "status 200";
    QTest::addRow("status class") << 1 << int(K::StatusClass) << false << "status 2xx";
    QTest::addRow("status in text") << 2 << int(K::StatusIn) << true << "not status in 200,204";
    QTest::addRow("status in array") << 3 << int(K::StatusIn) << false << "status in 201, 202";
    QTest::addRow("response time") << 4 << int(K::ResponseTimeUnder) << false << "response time under 800 ms";
    QTest::addRow("header present") << 5 << int(K::HeaderPresent) << false << "header ETag present";
    QTest::addRow("header equals") << 6 << int(K::HeaderEquals) << false
                                   << "header Content-Type equals \"application/json\"";
    QTest::addRow("header matches") << 7 << int(K::HeaderMatches) << true
                                    << "not header Cache-Control matches max-age=[0-9]+";
    QTest::addRow("body contains") << 8 << int(K::BodyContains) << false << "body contains \"ok\"";
    QTest::addRow("pointer equals") << 9 << int(K::JsonPointerEquals) << false << "/id equals 7";
    QTest::addRow("pointer equals JSON") << 10 << int(K::JsonPointerEquals) << false
                                         << R"(/tags equals ["a",{"b":null}])";
    QTest::addRow("pointer exists") << 11 << int(K::JsonPointerExists) << true << "not /error exists";
    QTest::addRow("pointer matches") << 12 << int(K::JsonPointerMatches) << false << "/name matches ^[A-Z]";
    QTest::addRow("schema") << 13 << int(K::Schema) << false << "body valid against the schema";
}

void TestAssertionJson::read_eachKind()
{
    QFETCH(int, index);
    QFETCH(int, kind);
    QFETCH(bool, negate);
    QFETCH(QString, describe);
    const auto read = AssertionJson::read(arrayOf(everyKind));
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->size(), 14);
    const Assertion &a = read->at(index);
    QCOMPARE(int(a.kind), kind);
    QCOMPARE(a.negate, negate);
    QCOMPARE(a.describe(), describe);
    QCOMPARE(a.displayName(), index == 0 ? QStringLiteral("created") : describe);
}

void TestAssertionJson::roundTrip_everyKind_readsBackTheSame()
{
    const auto read = AssertionJson::read(arrayOf(everyKind));
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->at(1).statuses.size(), 100);
    QVERIFY(read->at(3).statuses == (QSet<int>{201, 202}));
    const QJsonArray written = AssertionJson::write(*read);
    const auto again = AssertionJson::read(written);
    QVERIFY2(again, qPrintable(again.error()));
    QCOMPARE(*again, *read);
    QCOMPARE(AssertionJson::write(*again), written);
    // What is written is the documented shape, field for field.
    QCOMPARE(written.at(0).toObject(),
        (QJsonObject{{QStringLiteral("kind"), QStringLiteral("status")}, {QStringLiteral("equals"), 200},
            {QStringLiteral("name"), QStringLiteral("created")}}));
    QCOMPARE(written.at(11).toObject(),
        (QJsonObject{{QStringLiteral("kind"), QStringLiteral("jsonPointer")},
            {QStringLiteral("pointer"), QStringLiteral("/error")}, {QStringLiteral("exists"), true},
            {QStringLiteral("not"), true}}));
    QCOMPARE(
        written.at(13).toObject().value(QStringLiteral("schema")), arrayOf(everyKind).at(13)[QStringLiteral("schema")]);
}

void TestAssertionJson::read_refused_namesThePath_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    QTest::addRow("not an object") << QByteArray(R"([{"kind": "body", "contains": "a"}, 3])") << "[1]"
                                   << "";
    QTest::addRow("no kind") << QByteArray(R"([{"equals": 200}])") << "[0].kind"
                             << "missing";
    QTest::addRow("misspelt kind") << QByteArray(R"([{"kind": "stauts", "equals": 200}])") << "[0].kind"
                                   << "did you mean \"status\"";
    QTest::addRow("unknown kind") << QByteArray(R"([{"kind": "xpath"}])") << "[0].kind"
                                  << "known: status";
    QTest::addRow("status without operator") << QByteArray(R"([{"kind": "status"}])") << "[0]"
                                             << "has one of equals, class, in";
    QTest::addRow("status with two operators")
        << QByteArray(R"([{"kind": "status", "equals": 200, "in": "2xx"}])") << "[0]"
        << "not several (equals, in)";
    QTest::addRow("status out of range") << QByteArray(R"([{"kind": "status", "equals": 700}])") << "[0].equals"
                                         << "";
    QTest::addRow("bad status class") << QByteArray(R"([{"kind": "status", "class": "6xx"}])") << "[0].class"
                                      << "not a status class";
    QTest::addRow("bad status list") << QByteArray(R"([{"kind": "status", "in": "200,abc"}])") << "[0].in"
                                     << "abc";
    QTest::addRow("misspelt field") << QByteArray(R"([{"kind": "responseTime", "underMS": 5}])") << "[0].underMS"
                                    << "did you mean \"underMs\"";
    QTest::addRow("time not positive") << QByteArray(R"([{"kind": "responseTime", "underMs": 0}])") << "[0].underMs"
                                       << "";
    QTest::addRow("bad header name") << QByteArray(R"([{"kind": "header", "header": "a b", "exists": true}])")
                                     << "[0].header"
                                     << "not a header name";
    QTest::addRow("exists false") << QByteArray(R"([{"kind": "header", "header": "ETag", "exists": false}])")
                                  << "[0].exists"
                                  << "\"not\": true";
    QTest::addRow("bad pattern") << QByteArray(R"([{"kind": "header", "header": "X", "matches": "(a"}])")
                                 << "[0].matches"
                                 << "not a regular expression";
    QTest::addRow("empty body text") << QByteArray(R"([{"kind": "body", "contains": ""}])") << "[0].contains"
                                     << "empty";
    QTest::addRow("bad pointer") << QByteArray(R"([{"kind": "jsonPointer", "pointer": "id", "exists": true}])")
                                 << "[0].pointer"
                                 << "not a JSON pointer";
    QTest::addRow("pointer without operator") << QByteArray(R"([{"kind": "jsonPointer", "pointer": "/id"}])") << "[0]"
                                              << "has one of equals, exists, matches";
    QTest::addRow("not not a boolean") << QByteArray(R"([{"kind": "body", "contains": "a", "not": "yes"}])")
                                       << "[0].not"
                                       << "";
    QTest::addRow("schema missing") << QByteArray(R"([{"kind": "schema"}])") << "[0].schema"
                                    << "missing";
    QTest::addRow("bad schema deep") << QByteArray(R"([{"kind": "body", "contains": "a"},
                          {"kind": "schema", "schema": {"properties": {"price": {"minimum": "0"}}}}])")
                                     << "[1].schema.properties.price.minimum"
                                     << "";
}

void TestAssertionJson::read_refused_namesThePath()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto read = AssertionJson::read(arrayOf(json));
    QVERIFY(!read);
    QCOMPARE(read.errorDetail().path, path);
    QVERIFY2(read.errorDetail().message.contains(message), qPrintable(read.error()));
}

void TestAssertionJson::read_underAKey_nestsThePath()
{
    const QJsonObject request{{QStringLiteral("assertions"),
        arrayOf(R"([{"kind": "status", "equals": 200}, {"kind": "jsonPointer", "pointer": "x", "exists": true}])")}};
    JsonReader r(request, QStringLiteral("requests[3]"));
    QVERIFY(!AssertionJson::read(r, QStringLiteral("assertions")));
    QCOMPARE(r.firstError().path, QStringLiteral("requests[3].assertions[1].pointer"));
}

void TestAssertionJson::read_noKey_isAnEmptyList()
{
    JsonReader r(QJsonObject{});
    const auto read = AssertionJson::read(r, QStringLiteral("assertions"));
    QVERIFY(read);
    QVERIFY(read->isEmpty());
    QVERIFY(!r.failed());
    QVERIFY(AssertionJson::read(QJsonArray{})->isEmpty());
}

QTEST_GUILESS_MAIN(TestAssertionJson)
#include "tst_assertionjson.moc"
