#include "core/collections/responsevariables.h"
#include "core/record/attemptrecord.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab;
using Core::HeaderList;
using Core::ResponseVariables;
using Rule = Core::ResponseVariables::Rule;

namespace {

ResponseVariables rulesOf(const char *json)
{
    const auto rules = ResponseVariables::fromJson(QJsonDocument::fromJson(QByteArray(json)).array());
    if (!rules)
        qFatal("rules refused: %s", qPrintable(rules.error()));
    return *rules;
}

const QByteArray loginBody = R"({"access_token": "abc.def", "expires_in": 3600, "ok": true, "none": null,
    "user": {"id": 7, "roles": ["a", "b"]}, "items": [{"id": "first"}, {"id": "second"}], "a/b": "slash", "m~n": "tilde"})";

} // namespace

class TestResponseVariables final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void jsonPointer_takesStringsAsTheyAreAndOthersAsCompactJson();
    void jsonPointer_nothingFound_saysWhich();
    void jsonPointer_bodyNotJsonOrEmpty_saysSo();
    void header_firstValueWhateverTheCase();
    void header_missing_saysWhich();
    void regex_takesTheFirstGroupElseTheWholeMatch();
    void regex_noMatch_saysSo();
    void status_isTheNumberOrAProblem();
    void attempt_usesItsResponseAndSaysWhenTheBodyWasCut();
    void laterRule_replacesAnEarlierValue();
    void json_roundTripsEveryKind();
    void json_badRule_namesItsPath_data();
    void json_badRule_namesItsPath();
};

void TestResponseVariables::jsonPointer_takesStringsAsTheyAreAndOthersAsCompactJson()
{
    const ResponseVariables rules = rulesOf(R"json([
        {"name": "token", "from": "jsonPointer", "pointer": "/access_token"},
        {"name": "expires", "from": "jsonPointer", "pointer": "/expires_in"},
        {"name": "ok", "from": "jsonPointer", "pointer": "/ok"},
        {"name": "none", "from": "jsonPointer", "pointer": "/none"},
        {"name": "user", "from": "jsonPointer", "pointer": "/user"},
        {"name": "roles", "from": "jsonPointer", "pointer": "/user/roles"},
        {"name": "second", "from": "jsonPointer", "pointer": "/items/1/id"},
        {"name": "slash", "from": "jsonPointer", "pointer": "/a~1b"},
        {"name": "tilde", "from": "jsonPointer", "pointer": "/m~0n"}
    ])json");
    const auto outcome = rules.apply(200, {}, loginBody);
    QVERIFY2(outcome.complete(), qPrintable(outcome.problems.join(u'\n')));
    QCOMPARE(outcome.values.value(QStringLiteral("token")), QStringLiteral("abc.def"));
    QCOMPARE(outcome.values.value(QStringLiteral("expires")), QStringLiteral("3600"));
    QCOMPARE(outcome.values.value(QStringLiteral("ok")), QStringLiteral("true"));
    QCOMPARE(outcome.values.value(QStringLiteral("none")), QStringLiteral("null"));
    QCOMPARE(outcome.values.value(QStringLiteral("user")), QStringLiteral(R"({"id":7,"roles":["a","b"]})"));
    QCOMPARE(outcome.values.value(QStringLiteral("roles")), QStringLiteral(R"json(["a","b"])json"));
    QCOMPARE(outcome.values.value(QStringLiteral("second")), QStringLiteral("second"));
    QCOMPARE(outcome.values.value(QStringLiteral("slash")), QStringLiteral("slash"));
    QCOMPARE(outcome.values.value(QStringLiteral("tilde")), QStringLiteral("tilde"));
    QCOMPARE(outcome.values.size(), 9);

    const auto whole
        = rulesOf(R"json([{"name": "all", "from": "jsonPointer", "pointer": ""}])json").apply(200, {}, "[1, 2]");
    QCOMPARE(whole.values.value(QStringLiteral("all")), QStringLiteral("[1,2]"));
}

void TestResponseVariables::jsonPointer_nothingFound_saysWhich()
{
    const ResponseVariables rules = rulesOf(R"json([
        {"name": "token", "from": "jsonPointer", "pointer": "/refresh_token"},
        {"name": "third", "from": "jsonPointer", "pointer": "/items/2/id"},
        {"name": "kept", "from": "jsonPointer", "pointer": "/access_token"}
    ])json");
    const auto outcome = rules.apply(200, {}, loginBody);
    QCOMPARE(outcome.problems,
        (QStringList{QStringLiteral("token: /refresh_token is not in the body"),
            QStringLiteral("third: /items/2/id is not in the body")}));
    // Nothing is set for a rule that found nothing, not even an empty value.
    QCOMPARE(outcome.values.keys(), QStringList{QStringLiteral("kept")});
}

void TestResponseVariables::jsonPointer_bodyNotJsonOrEmpty_saysSo()
{
    const ResponseVariables rules
        = rulesOf(R"json([{"name": "token", "from": "jsonPointer", "pointer": "/access_token"}])json");
    const auto html = rules.apply(502, {}, "<html>Bad gateway</html>");
    QCOMPARE(html.problems.size(), 1);
    QVERIFY2(html.problems.at(0).startsWith(QLatin1String("token: the body is not JSON (line 1, column ")),
        qPrintable(html.problems.at(0)));
    QVERIFY(html.problems.at(0).endsWith(QLatin1String("), so /access_token is not in it")));
    QVERIFY(html.values.isEmpty());

    const auto empty = rules.apply(204, {}, QByteArray());
    QCOMPARE(empty.problems, QStringList{QStringLiteral("token: the body is empty, so /access_token is not in it")});
}

void TestResponseVariables::header_firstValueWhateverTheCase()
{
    const ResponseVariables rules = rulesOf(R"json([
        {"name": "etag", "from": "header", "header": "etag"},
        {"name": "cookie", "from": "header", "header": "Set-Cookie"}
    ])json");
    const HeaderList headers{
        {"Content-Type", "application/json"}, {"ETag", "\"v12\""}, {"set-cookie", "a=1"}, {"Set-Cookie", "b=2"}};
    const auto outcome = rules.apply(200, headers, {});
    QVERIFY(outcome.complete());
    QCOMPARE(outcome.values.value(QStringLiteral("etag")), QStringLiteral("\"v12\""));
    QCOMPARE(outcome.values.value(QStringLiteral("cookie")), QStringLiteral("a=1"));
}

void TestResponseVariables::header_missing_saysWhich()
{
    const auto outcome = rulesOf(R"json([{"name": "location", "from": "header", "header": "Location"}])json")
                             .apply(200, {{"Content-Type", "text/plain"}}, "ok");
    QCOMPARE(outcome.problems, QStringList{QStringLiteral("location: the response has no Location header")});
    QVERIFY(outcome.values.isEmpty());
}

void TestResponseVariables::regex_takesTheFirstGroupElseTheWholeMatch()
{
    const ResponseVariables rules = rulesOf(R"json([
        {"name": "id", "from": "regex", "pattern": "order (\\d+) of (\\d+)"},
        {"name": "whole", "from": "regex", "pattern": "\\d+ of"},
        {"name": "city", "from": "regex", "pattern": "city=([^&]*)"},
        {"name": "empty", "from": "regex", "pattern": "note=([^&]*)"}
    ])json");
    const auto outcome = rules.apply(200, {}, QStringLiteral("order 42 of 50, city=Zürich&note=&x").toUtf8());
    QVERIFY2(outcome.complete(), qPrintable(outcome.problems.join(u'\n')));
    QCOMPARE(outcome.values.value(QStringLiteral("id")), QStringLiteral("42"));
    QCOMPARE(outcome.values.value(QStringLiteral("whole")), QStringLiteral("42 of"));
    QCOMPARE(outcome.values.value(QStringLiteral("city")), QStringLiteral("Zürich"));
    // The group matched, and matched nothing: that is a value the body holds.
    QVERIFY(outcome.values.contains(QStringLiteral("empty")));
    QCOMPARE(outcome.values.value(QStringLiteral("empty")), QString());
}

void TestResponseVariables::regex_noMatch_saysSo()
{
    const ResponseVariables rules = rulesOf(R"json([
        {"name": "id", "from": "regex", "pattern": "order (\\d+)"},
        {"name": "maybe", "from": "regex", "pattern": "(x)?done"}
    ])json");
    const auto outcome = rules.apply(200, {}, "nothing here, done");
    QCOMPARE(outcome.problems,
        (QStringList{QStringLiteral("id: order (\\d+) does not match the body"),
            QStringLiteral("maybe: (x)?done matches the body, but its first group takes no part")}));
    QVERIFY(outcome.values.isEmpty());
}

void TestResponseVariables::status_isTheNumberOrAProblem()
{
    const ResponseVariables rules = rulesOf(R"json([{"name": "code", "from": "status"}])json");
    QCOMPARE(rules.apply(503, {}, {}).values.value(QStringLiteral("code")), QStringLiteral("503"));
    QCOMPARE(rules.apply(std::nullopt, {}, {}).problems,
        QStringList{QStringLiteral("code: no response came, so there is no status")});
}

void TestResponseVariables::attempt_usesItsResponseAndSaysWhenTheBodyWasCut()
{
    const ResponseVariables rules = rulesOf(R"json([
        {"name": "token", "from": "jsonPointer", "pointer": "/access_token"},
        {"name": "type", "from": "header", "header": "content-type"},
        {"name": "code", "from": "status"},
        {"name": "tail", "from": "regex", "pattern": "END"}
    ])json");
    Core::AttemptRecord attempt;
    attempt.httpStatus = 201;
    attempt.responseHeaders = {{"Content-Type", "application/json"}};
    attempt.responseBody = R"({"access_token": "t0k"})";
    attempt.responseBodyTruncated = true;
    const auto outcome = rules.apply(attempt);
    QCOMPARE(outcome.values.value(QStringLiteral("token")), QStringLiteral("t0k"));
    QCOMPARE(outcome.values.value(QStringLiteral("type")), QStringLiteral("application/json"));
    QCOMPARE(outcome.values.value(QStringLiteral("code")), QStringLiteral("201"));
    QCOMPARE(outcome.problems,
        QStringList{
            QStringLiteral("tail: END does not match the body (only the first 23 bytes of the body were kept)")});
}

void TestResponseVariables::laterRule_replacesAnEarlierValue()
{
    const ResponseVariables rules = rulesOf(R"json([
        {"name": "id", "from": "jsonPointer", "pointer": "/items/0/id"},
        {"name": "id", "from": "jsonPointer", "pointer": "/items/1/id"},
        {"name": "id", "from": "jsonPointer", "pointer": "/items/9/id"}
    ])json");
    const auto outcome = rules.apply(200, {}, loginBody);
    QCOMPARE(outcome.values.value(QStringLiteral("id")), QStringLiteral("second"));
    QCOMPARE(outcome.problems, QStringList{QStringLiteral("id: /items/9/id is not in the body")});
}

void TestResponseVariables::json_roundTripsEveryKind()
{
    const ResponseVariables rules({
        Rule{QStringLiteral("token"), Rule::Source::JsonPointer, QStringLiteral("/a/0"), {}, {}},
        Rule{QStringLiteral("etag"), Rule::Source::Header, {}, QStringLiteral("ETag"), {}},
        Rule{QStringLiteral("id"), Rule::Source::Regex, {}, {}, QStringLiteral("id=(\\d+)")},
        Rule{QStringLiteral("code"), Rule::Source::Status, {}, {}, {}},
    });
    const QJsonArray json = rules.toJson();
    QCOMPARE(json.at(0).toObject(),
        (QJsonObject{{QStringLiteral("name"), QStringLiteral("token")},
            {QStringLiteral("from"), QStringLiteral("jsonPointer")},
            {QStringLiteral("pointer"), QStringLiteral("/a/0")}}));
    const auto back = ResponseVariables::fromJson(json);
    QVERIFY2(back, qPrintable(back.error()));
    QCOMPARE(back->rules(), rules.rules());
}

void TestResponseVariables::json_badRule_namesItsPath_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::addRow("not an object") << QByteArray(R"json([{"name": "a", "from": "status"}, 3])json") << "set[1]"
                                   << "must be an object";
    QTest::addRow("no name") << QByteArray(R"json([{"from": "status"}])json") << "set[0].name"
                             << "missing";
    QTest::addRow("bad name") << QByteArray(R"json([{"name": "a b", "from": "status"}])json") << "set[0].name"
                              << "\"a b\" is not a variable name";
    QTest::addRow("no source") << QByteArray(R"json([{"name": "a"}])json") << "set[0].from"
                               << "missing";
    QTest::addRow("unknown source") << QByteArray(R"json([{"name": "a", "from": "cookie"}])json") << "set[0].from"
                                    << "unknown source \"cookie\" (known: jsonPointer, header, regex, status)";
    QTest::addRow("no pointer") << QByteArray(R"json([{"name": "a", "from": "jsonPointer"}])json") << "set[0].pointer"
                                << "missing";
    QTest::addRow("bad pointer") << QByteArray(R"json([{"name": "a", "from": "jsonPointer", "pointer": "token"}])json")
                                 << "set[0].pointer"
                                 << "\"token\" is not a JSON pointer";
    QTest::addRow("field of another source")
        << QByteArray(R"json([{"name": "a", "from": "header", "header": "ETag", "pointer": "/x"}])json")
        << "set[0].pointer"
        << "unknown field";
    QTest::addRow("bad header") << QByteArray(R"json([{"name": "a", "from": "header", "header": "E Tag"}])json")
                                << "set[0].header"
                                << "\"E Tag\" is not a header name";
    QTest::addRow("bad regex") << QByteArray(R"json([{"name": "a", "from": "regex", "pattern": "id=(\\d+"}])json")
                               << "set[0].pattern"
                               << "not a valid regular expression: ";
}

void TestResponseVariables::json_badRule_namesItsPath()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto rules = ResponseVariables::fromJson(QJsonDocument::fromJson(json).array(), QStringLiteral("set"));
    QVERIFY(!rules);
    QCOMPARE(rules.errorDetail().path, path);
    QVERIFY2(rules.errorDetail().message.startsWith(message), qPrintable(rules.errorDetail().message));
}

QTEST_GUILESS_MAIN(TestResponseVariables)
#include "tst_responsevariables.moc"
