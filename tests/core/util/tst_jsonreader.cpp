#include "core/util/jsonreader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <limits>

using namespace RetryLab::Core;

namespace {

QJsonObject parse(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        qFatal("bad test JSON: %s", json.constData());
    return document.object();
}

// A small strict format for the salvage tests: "limit" 0..10, "nested": {"flag": bool},
// "list": whole numbers, and "low" not above "limit".
struct Sample
{
    qint64 limit = 5;
    bool flag = false;
    QList<qint64> list;
    qint64 low = 0;

    friend bool operator==(const Sample &, const Sample &) = default;
};

Result<Sample> readSample(const QJsonObject &object)
{
    Sample sample;
    JsonReader r(object);
    r.rejectUnknown({QStringLiteral("limit"), QStringLiteral("nested"), QStringLiteral("list"), QStringLiteral("low")});
    sample.limit = r.integer(QStringLiteral("limit"), 0, 10).value_or(sample.limit);
    if (auto nested = r.object(QStringLiteral("nested")))
        sample.flag = nested->boolean(QStringLiteral("flag")).value_or(sample.flag);
    sample.list = r.integers(QStringLiteral("list"), 0, 100).value_or(sample.list);
    sample.low = r.integer(QStringLiteral("low"), 0, 100).value_or(sample.low);
    if (!r.failed() && sample.low > sample.limit)
        r.fail(QStringLiteral("low"), QStringLiteral("above the limit"));
    return r.result(sample);
}

} // namespace

class TestJsonReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void path_nestsObjectsAndArrayIndices();
    void pathOf_joinsNamesAndIndices_data();
    void pathOf_joinsNamesAndIndices();
    void wrongType_namesWhatWasFound_data();
    void wrongType_namesWhatWasFound();
    void integer_boundsAndWholeness_data();
    void integer_boundsAndWholeness();
    void number_finiteAndWithinBounds_data();
    void number_finiteAndWithinBounds();
    void requiredAndOptional_missingOnlyFailsWhenRequired();
    void named_unknownListsTheKnownNames();
    void arrays_badElementIsNamedByIndex();
    void rejectUnknown_suggestsCloseName_data();
    void rejectUnknown_suggestsCloseName();
    void rejectUnknown_hugeKey_costsALine();
    void rejectUnknown_manyKeys_nameTheFirstAndCountTheRest();
    void closestName_withinTwoEdits_data();
    void closestName_withinTwoEdits();
    void firstErrorMode_keepsTheFirst_salvageKeepsAll();
    void nestedError_isPutUnderThePath();
    void result_isValueOrFirstError();
    void salvage_leavesOutOnlyTheFieldsAtFault_data();
    void salvage_leavesOutOnlyTheFieldsAtFault();
    void salvage_nothingReadable_givesTheWholeError();
    void lineAndColumn_countsCharactersNotBytes();
    void syntaxError_saysWhereAndGivesTheOffset_data();
    void syntaxError_saysWhereAndGivesTheOffset();
};

void TestJsonReader::path_nestsObjectsAndArrayIndices()
{
    const QJsonObject root
        = parse(R"({"requests": [{}, {}, {"policy": {"classification": {"maxRetryAfterMs": "x"}}}]})");
    JsonReader r(root);
    auto requests = r.array(QStringLiteral("requests"));
    QVERIFY(requests);
    QCOMPARE(requests->size(), 3);
    auto request = requests->object(2);
    QVERIFY(request);
    auto classification
        = request->object(QStringLiteral("policy"))->object(QStringLiteral("classification"), Presence::Required);
    QVERIFY(classification);
    QCOMPARE(classification->path(), QStringLiteral("requests[2].policy.classification"));
    QVERIFY(!classification->number(QStringLiteral("maxRetryAfterMs")));
    QVERIFY(r.failed()); // a nested reader reports to the reader it came from
    const Error error = r.firstError();
    QCOMPARE(error.path, QStringLiteral("requests[2].policy.classification.maxRetryAfterMs"));
    QCOMPARE(error.message, QStringLiteral("expected a number, got a string"));
    QCOMPARE(error.text(),
        QStringLiteral("requests[2].policy.classification.maxRetryAfterMs: expected a number, got a string"));
}

void TestJsonReader::pathOf_joinsNamesAndIndices_data()
{
    QTest::addColumn<QString>("base");
    QTest::addColumn<bool>("isIndex");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("expected");

    QTest::addRow("top-level name") << QString() << false << "url" << -1 << "url";
    QTest::addRow("nested name") << "requests[2]" << false << "url" << -1 << "requests[2].url";
    QTest::addRow("index") << "requests" << true << QString() << 2 << "requests[2]";
    QTest::addRow("index of an index") << "matrix[1]" << true << QString() << 0 << "matrix[1][0]";
    QTest::addRow("index at the top") << QString() << true << QString() << 4 << "[4]";
    QTest::addRow("empty name is the reader itself") << "policy" << false << QString() << -1 << "policy";
    QTest::addRow("name with a dot") << "headers" << false << "X.Y" << -1 << "headers.X.Y";
}

void TestJsonReader::pathOf_joinsNamesAndIndices()
{
    QFETCH(QString, base);
    QFETCH(bool, isIndex);
    QFETCH(QString, name);
    QFETCH(int, index);
    QFETCH(QString, expected);
    const JsonReader r(QJsonObject{}, base);
    QCOMPARE(r.pathOf(isIndex ? JsonReader::Key(index) : JsonReader::Key(name)), expected);
}

void TestJsonReader::wrongType_namesWhatWasFound_data()
{
    QTest::addColumn<QString>("getter");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("message");

    QTest::addRow("string got number") << "string" << QByteArray("5") << "expected a string, got a number";
    QTest::addRow("string got null") << "string" << QByteArray("null") << "expected a string, got null";
    QTest::addRow("boolean got string") << "boolean" << QByteArray(R"("yes")")
                                        << "expected true or false, got a string";
    QTest::addRow("integer got bool") << "integer" << QByteArray("true")
                                      << "expected a whole number, got true or false";
    QTest::addRow("number got array") << "number" << QByteArray("[1]") << "expected a number, got an array";
    QTest::addRow("object got string") << "object" << QByteArray(R"("x")") << "expected an object, got a string";
    QTest::addRow("array got object") << "array" << QByteArray("{}") << "expected an array, got an object";
    QTest::addRow("strings got string") << "strings" << QByteArray(R"("a")") << "expected an array, got a string";
}

void TestJsonReader::wrongType_namesWhatWasFound()
{
    QFETCH(QString, getter);
    QFETCH(QByteArray, value);
    QFETCH(QString, message);
    JsonReader r(parse("{\"field\": " + value + "}"), QStringLiteral("outer"));
    const QString key = QStringLiteral("field");
    bool read = true;
    if (getter == QLatin1String("string"))
        read = r.string(key).has_value();
    else if (getter == QLatin1String("boolean"))
        read = r.boolean(key).has_value();
    else if (getter == QLatin1String("integer"))
        read = r.integer(key).has_value();
    else if (getter == QLatin1String("number"))
        read = r.number(key).has_value();
    else if (getter == QLatin1String("object"))
        read = r.object(key).has_value();
    else if (getter == QLatin1String("array"))
        read = r.array(key).has_value();
    else if (getter == QLatin1String("strings"))
        read = r.strings(key).has_value();
    QVERIFY(!read);
    QCOMPARE(r.firstError(), (Error{QStringLiteral("outer.field"), message}));
}

void TestJsonReader::integer_boundsAndWholeness_data()
{
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<qint64>("min");
    QTest::addColumn<qint64>("max");
    QTest::addColumn<qint64>("expected");
    QTest::addColumn<QString>("message");

    const qint64 lowest = std::numeric_limits<qint64>::min();
    const qint64 highest = std::numeric_limits<qint64>::max();
    QTest::addRow("inside") << QJsonValue(7) << qint64(1) << qint64(10) << qint64(7) << QString();
    QTest::addRow("at the minimum") << QJsonValue(1) << qint64(1) << qint64(10) << qint64(1) << QString();
    QTest::addRow("at the maximum") << QJsonValue(10) << qint64(1) << qint64(10) << qint64(10) << QString();
    QTest::addRow("below") << QJsonValue(0) << qint64(1) << qint64(10) << qint64(0) << "0 is out of range (1 to 10)";
    QTest::addRow("negative") << QJsonValue(-4) << qint64(1) << qint64(100000) << qint64(0)
                              << "-4 is out of range (1 to 100000)";
    QTest::addRow("fraction") << QJsonValue(1.5) << lowest << highest << qint64(0)
                              << "expected a whole number, got 1.5";
    QTest::addRow("huge") << QJsonValue(1e300) << lowest << highest << qint64(0) << "1e+300 is out of range";
    QTest::addRow("two to the 63") << QJsonValue(9223372036854775808.0) << lowest << highest << qint64(0)
                                   << "9223372036854776000 is out of range";
    QTest::addRow("two to the 53") << QJsonValue(9007199254740992.0) << lowest << highest << qint64(9007199254740992)
                                   << QString();
    QTest::addRow("not a number") << QJsonValue(std::nan("")) << lowest << highest << qint64(0)
                                  << "expected a whole number, got nan";
    QTest::addRow("infinite") << QJsonValue(std::numeric_limits<double>::infinity()) << lowest << highest << qint64(0)
                              << "expected a whole number, got inf";
}

void TestJsonReader::integer_boundsAndWholeness()
{
    QFETCH(QJsonValue, value);
    QFETCH(qint64, min);
    QFETCH(qint64, max);
    QFETCH(qint64, expected);
    QFETCH(QString, message);
    JsonReader r(QJsonObject{{QStringLiteral("n"), value}});
    const auto n = r.integer(QStringLiteral("n"), min, max);
    if (message.isEmpty()) {
        QVERIFY2(!r.failed(), qPrintable(r.firstError().text()));
        QCOMPARE(n, std::optional<qint64>(expected));
        return;
    }
    QVERIFY(!n);
    QCOMPARE(r.firstError().path, QStringLiteral("n"));
    QVERIFY2(r.firstError().message.startsWith(message), qPrintable(r.firstError().message));
}

void TestJsonReader::number_finiteAndWithinBounds_data()
{
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<QString>("message");

    const double lowest = -std::numeric_limits<double>::max();
    const double highest = std::numeric_limits<double>::max();
    QTest::addRow("any finite") << QJsonValue(-1e300) << lowest << highest << QString();
    QTest::addRow("fraction inside") << QJsonValue(0.5) << 0.0 << 1.0 << QString();
    QTest::addRow("above") << QJsonValue(1.5) << 0.0 << 1.0 << "1.5 is out of range (0 to 1)";
    QTest::addRow("huge") << QJsonValue(1e300) << 0.0 << 6e8 << "1e+300 is out of range (0 to 6e+08)";
    QTest::addRow("not a number") << QJsonValue(std::nan("")) << lowest << highest
                                  << "expected a finite number, got nan";
    QTest::addRow("infinite") << QJsonValue(-std::numeric_limits<double>::infinity()) << lowest << highest
                              << "expected a finite number, got -inf";
    QTest::addRow("text") << QJsonValue(QStringLiteral("3")) << lowest << highest << "expected a number, got a string";
}

void TestJsonReader::number_finiteAndWithinBounds()
{
    QFETCH(QJsonValue, value);
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(QString, message);
    JsonReader r(QJsonObject{{QStringLiteral("x"), value}}, QStringLiteral("top"));
    const auto x = r.number(QStringLiteral("x"), min, max);
    if (message.isEmpty()) {
        QVERIFY2(!r.failed(), qPrintable(r.firstError().text()));
        QCOMPARE(x, std::optional<double>(value.toDouble()));
        return;
    }
    QVERIFY(!x);
    QCOMPARE(r.firstError(), (Error{QStringLiteral("top.x"), message}));
}

void TestJsonReader::requiredAndOptional_missingOnlyFailsWhenRequired()
{
    JsonReader r(parse(R"({"present": "here"})"));
    QVERIFY(!r.string(QStringLiteral("absent")));
    QVERIFY(!r.integer(QStringLiteral("absent"), 0, 10));
    QVERIFY(!r.object(QStringLiteral("absent")));
    QVERIFY(!r.failed());
    QCOMPARE(r.string(QStringLiteral("present"), Presence::Required), std::optional<QString>(QStringLiteral("here")));
    QVERIFY(r.require(QStringLiteral("present")));
    QVERIFY(!r.failed());

    QVERIFY(!r.number(QStringLiteral("absent"), 0.0, 1.0, Presence::Required));
    QCOMPARE(r.firstError(), (Error{QStringLiteral("absent"), QStringLiteral("missing")}));

    JsonReader other(parse("{}"));
    QVERIFY(!other.require(QStringLiteral("id")));
    QCOMPARE(other.firstError().text(), QStringLiteral("id: missing"));
}

void TestJsonReader::named_unknownListsTheKnownNames()
{
    enum class Colour { Red, Green };
    const auto name = [](Colour c) { return c == Colour::Red ? QStringLiteral("red") : QStringLiteral("green"); };
    QString (*nameOf)(Colour) = name;
    const QList<Colour> all{Colour::Red, Colour::Green};

    JsonReader r(parse(R"({"a": "green", "b": "blue", "c": "pink"})"));
    QCOMPARE(r.named(QStringLiteral("a"), all, nameOf), std::optional<Colour>(Colour::Green));
    QVERIFY(!r.named(QStringLiteral("absent"), all, nameOf));
    QVERIFY(!r.failed());
    QVERIFY(!r.named(QStringLiteral("b"), all, nameOf));
    QCOMPARE(
        r.firstError(), (Error{QStringLiteral("b"), QStringLiteral("unknown value \"blue\" (known: red, green)")}));

    JsonReader custom(parse(R"({"c": "pink"})"));
    QVERIFY(!custom.named(
        QStringLiteral("c"), all, nameOf, Presence::Optional, QStringLiteral("unknown colour \"%1\" (known: %2)")));
    QCOMPARE(custom.firstError().message, QStringLiteral("unknown colour \"pink\" (known: red, green)"));
}

void TestJsonReader::arrays_badElementIsNamedByIndex()
{
    JsonReader r(parse(R"({"names": ["a", "b"], "codes": [200, 503, 700], "ratios": [0.5, "x"], "empty": []})"),
        QStringLiteral("config"), JsonReader::Mode::Salvage);
    QCOMPARE(
        r.strings(QStringLiteral("names")), std::optional<QStringList>({QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(r.integers(QStringLiteral("empty")), std::optional<QList<qint64>>(QList<qint64>{}));
    QVERIFY(!r.failed());
    QVERIFY(!r.integers(QStringLiteral("codes"), 100, 599));
    QVERIFY(!r.numbers(QStringLiteral("ratios"), 0.0, 1.0));
    const QList<Error> errors = r.errors();
    QCOMPARE(errors.size(), 2);
    QCOMPARE(
        errors.at(0), (Error{QStringLiteral("config.codes[2]"), QStringLiteral("700 is out of range (100 to 599)")}));
    QCOMPARE(
        errors.at(1), (Error{QStringLiteral("config.ratios[1]"), QStringLiteral("expected a number, got a string")}));

    // An array at the top reads by index; an index past the end is missing.
    JsonReader list(QJsonArray{1, QStringLiteral("two")}, QStringLiteral("list"));
    QVERIFY(list.isArray());
    QCOMPARE(list.integer(0), std::optional<qint64>(1));
    QVERIFY(!list.contains(2));
    QVERIFY(!list.integer(1));
    QCOMPARE(list.firstError().path, QStringLiteral("list[1]"));
}

void TestJsonReader::rejectUnknown_suggestsCloseName_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");

    QTest::addRow("all known") << QByteArray(R"({"idempotent": true, "url": "x"})") << QString();
    QTest::addRow("letters swapped") << QByteArray(R"({"idempotnet": true})")
                                     << "idempotnet: unknown field; did you mean \"idempotent\"?";
    QTest::addRow("case differs") << QByteArray(R"({"URL": "x"})") << "URL: unknown field; did you mean \"url\"?";
    QTest::addRow("one letter short") << QByteArray(R"({"expectation": []})")
                                      << "expectation: unknown field; did you mean \"expectations\"?";
    QTest::addRow("nothing close") << QByteArray(R"({"zzzzzzzz": 1})")
                                   << "zzzzzzzz: unknown field (known: idempotent, url, expectations)";
}

void TestJsonReader::rejectUnknown_suggestsCloseName()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    JsonReader r(parse(json));
    r.rejectUnknown({QStringLiteral("idempotent"), QStringLiteral("url"), QStringLiteral("expectations")});
    QCOMPARE(r.firstError().text(), error);
}

void TestJsonReader::rejectUnknown_hugeKey_costsALine()
{
    // A 15 MB key: named by its start and its size, not copied whole into the error, and not compared letter by
    // letter with every known name (the edit distance is skipped when the lengths alone rule a suggestion out).
    const QString huge(15 * 1024 * 1024, QLatin1Char('k'));
    JsonReader r(QJsonObject{{huge, 1}, {QStringLiteral("maxAtempts"), 3}}, {}, JsonReader::Mode::Salvage);
    r.rejectUnknown({QStringLiteral("maxAttempts"), QStringLiteral("baseDelayMs")});
    const auto errors = r.errors();
    QCOMPARE(errors.size(), 2);
    for (const auto &e : errors)
        QVERIFY2(e.text().size() < 600, qPrintable(e.text().left(600)));
    const QString all = errors.first().text() + QLatin1Char('\n') + errors.last().text();
    QVERIFY2(all.contains(QLatin1String("15728640 characters in all")), qPrintable(all.left(600)));
    QVERIFY2(all.contains(QLatin1String("did you mean \"maxAttempts\"")), qPrintable(all.left(600)));
}

void TestJsonReader::rejectUnknown_manyKeys_nameTheFirstAndCountTheRest()
{
    // A million unknown keys took seconds to refuse: each was compared with every known name.
    QJsonObject many;
    for (int i = 0; i < 100'000; ++i)
        many.insert(QStringLiteral("k%1").arg(i, 6, 10, QLatin1Char('0')), i);
    JsonReader r(many, {}, JsonReader::Mode::Salvage);
    r.rejectUnknown({QStringLiteral("maxAttempts")});
    const QList<Error> errors = r.errors();
    QCOMPARE(errors.size(), 21);
    QCOMPARE(errors.first().text(), QStringLiteral("k000000: unknown field (known: maxAttempts)"));
    QCOMPARE(errors.last().message, QStringLiteral("99980 more unknown fields"));
}

void TestJsonReader::closestName_withinTwoEdits_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("expected");

    QTest::addRow("exact") << "maxAttempts"
                           << "maxAttempts";
    QTest::addRow("one letter left out") << "maxAtempts"
                                         << "maxAttempts";
    QTest::addRow("two edits") << "baseDelay"
                               << "baseDelayMs";
    QTest::addRow("three edits") << "base" << QString();
    QTest::addRow("the nearer of two") << "maxBackofMs"
                                       << "maxBackoffMs";
}

void TestJsonReader::closestName_withinTwoEdits()
{
    QFETCH(QString, name);
    QFETCH(QString, expected);
    const QStringList known{
        QStringLiteral("maxAttempts"), QStringLiteral("baseDelayMs"), QStringLiteral("maxBackoffMs")};
    QCOMPARE(JsonReader::closestName(name, known).value_or(QString()), expected);
}

void TestJsonReader::firstErrorMode_keepsTheFirst_salvageKeepsAll()
{
    const QJsonObject object = parse(R"({"a": "x", "b": 1.5, "c": true})");
    for (const auto mode : {JsonReader::Mode::FirstError, JsonReader::Mode::Salvage}) {
        JsonReader r(object, {}, mode);
        QVERIFY(!r.integer(QStringLiteral("a")));
        QVERIFY(!r.integer(QStringLiteral("b")));
        QCOMPARE(r.boolean(QStringLiteral("c")), std::optional<bool>(true)); // later fields still read
        QCOMPARE(r.firstError().path, QStringLiteral("a"));
        QCOMPARE(r.errors().size(), mode == JsonReader::Mode::Salvage ? 2 : 1);
    }
}

void TestJsonReader::nestedError_isPutUnderThePath()
{
    JsonReader r(parse(R"({"requests": [{"policy": {}}]})"));
    auto request = r.array(QStringLiteral("requests"))->object(0);
    // An error of another format's reader, with a path inside that format.
    request->fail(QStringLiteral("policy"), Error{QStringLiteral("circuitBreaker.openMs"), QStringLiteral("too long")});
    QCOMPARE(r.firstError().text(), QStringLiteral("requests[0].policy.circuitBreaker.openMs: too long"));

    JsonReader steps(QJsonArray{QStringLiteral("explode")}, QStringLiteral("script"));
    steps.fail(0, Error{QString(), QStringLiteral("unknown instruction")});
    QCOMPARE(steps.firstError(), (Error{QStringLiteral("script[0]"), QStringLiteral("unknown instruction")}));

    JsonReader whole(QJsonObject{}, QStringLiteral("attempts"));
    whole.failHere(QStringLiteral("give \"min\", \"max\" or both"));
    QCOMPARE(whole.firstError().path, QStringLiteral("attempts"));
}

void TestJsonReader::result_isValueOrFirstError()
{
    JsonReader good(parse(R"({"n": 3})"));
    const Result<qint64> ok = good.result(good.integer(QStringLiteral("n")).value_or(0));
    QVERIFY(ok);
    QCOMPARE(*ok, 3);

    JsonReader bad(parse(R"({"n": "three"})"));
    const Result<qint64> refused = bad.result(bad.integer(QStringLiteral("n")).value_or(0));
    QVERIFY(!refused);
    QCOMPARE(refused.errorDetail().path, QStringLiteral("n"));
    QCOMPARE(refused.error(), QStringLiteral("n: expected a whole number, got a string"));
}

void TestJsonReader::salvage_leavesOutOnlyTheFieldsAtFault_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("leftOut");
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<bool>("flag");
    QTest::addColumn<QList<qint64>>("list");

    QTest::addRow("clean") << QByteArray(R"({"limit": 8, "nested": {"flag": true}, "list": [1, 2]})") << QStringList()
                           << qint64(8) << true << QList<qint64>{1, 2};
    QTest::addRow("a bad top-level field")
        << QByteArray(R"({"limit": "eight", "nested": {"flag": true}})") << QStringList{QStringLiteral("limit")}
        << qint64(5) << true << QList<qint64>{};
    QTest::addRow("a bad nested field") << QByteArray(R"({"limit": 8, "nested": {"flag": "yes"}})")
                                        << QStringList{QStringLiteral("nested.flag")} << qint64(8) << false
                                        << QList<qint64>{};
    QTest::addRow("a bad element") << QByteArray(R"({"limit": 8, "list": [1, "x", 3]})")
                                   << QStringList{QStringLiteral("list[1]")} << qint64(8) << false
                                   << QList<qint64>{1, 3};
    QTest::addRow("two bad fields") << QByteArray(R"({"limit": 99, "nested": {"flag": 1}, "list": [4]})")
                                    << QStringList{QStringLiteral("limit"), QStringLiteral("nested.flag")} << qint64(5)
                                    << false << QList<qint64>{4};
    QTest::addRow("an unknown field") << QByteArray(R"({"limit": 8, "limt": 3})") << QStringList{QStringLiteral("limt")}
                                      << qint64(8) << false << QList<qint64>{};
    // "low" is valid alone but above the limit, even the default one: the limit
    // is kept, "low" goes.
    QTest::addRow("a field that breaks a rule")
        << QByteArray(R"({"limit": 2, "low": 7})") << QStringList{QStringLiteral("low")} << qint64(2) << false
        << QList<qint64>{};
}

void TestJsonReader::salvage_leavesOutOnlyTheFieldsAtFault()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, leftOut);
    QFETCH(qint64, limit);
    QFETCH(bool, flag);
    QFETCH(QList<qint64>, list);

    const Salvaged<Sample> salvaged = JsonSalvage::salvage<Sample>(parse(json), &readSample, {QStringLiteral("list")});
    QVERIFY(!salvaged.unreadable);
    QStringList paths;
    for (const Error &each : salvaged.leftOut) {
        paths.append(each.path);
        QVERIFY2(!each.message.isEmpty(), qPrintable(each.path));
    }
    QCOMPARE(paths, leftOut);
    QCOMPARE(salvaged.clean(), leftOut.isEmpty());
    QCOMPARE(salvaged.value.limit, limit);
    QCOMPARE(salvaged.value.flag, flag);
    QCOMPARE(salvaged.value.list, list);
}

void TestJsonReader::salvage_nothingReadable_givesTheWholeError()
{
    // A required field cannot be fixed by leaving fields out.
    const auto strict = [](const QJsonObject &object) {
        JsonReader r(object);
        const auto name = r.string(QStringLiteral("name"), Presence::Required);
        return r.result(name.value_or(QString()));
    };
    const Salvaged<QString> salvaged = JsonSalvage::salvage<QString>(parse(R"({"other": 1})"), strict);
    QVERIFY(salvaged.unreadable);
    QCOMPARE(*salvaged.unreadable, (Error{QStringLiteral("name"), QStringLiteral("missing")}));
    QVERIFY(salvaged.leftOut.isEmpty());
    QVERIFY(salvaged.value.isEmpty());
    QVERIFY(!salvaged.clean());

    // The message of a left-out field is what made it go.
    const Salvaged<Sample> sample = JsonSalvage::salvage<Sample>(parse(R"({"limit": true})"), &readSample);
    QCOMPARE(sample.leftOut,
        QList<Error>{(Error{QStringLiteral("limit"), QStringLiteral("expected a whole number, got true or false")})});
}

void TestJsonReader::lineAndColumn_countsCharactersNotBytes()
{
    const QByteArray text = "ab\n\xc3\xa9\xc3\xa9x\nz";
    QCOMPARE(lineAndColumn(text, 0), QStringLiteral("line 1, column 1"));
    QCOMPARE(lineAndColumn(text, 3), QStringLiteral("line 2, column 1"));
    QCOMPARE(lineAndColumn(text, 7), QStringLiteral("line 2, column 3")); // the x after two é
    QCOMPARE(lineAndColumn(text, 9), QStringLiteral("line 3, column 1"));
    QCOMPARE(lineAndColumn(text, 1000), QStringLiteral("line 3, column 2"));
}

void TestJsonReader::syntaxError_saysWhereAndGivesTheOffset_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("place");
    // Where the error is, as the text before it (the offset counts characters, not bytes).
    QTest::addColumn<QString>("before");
    // Qt names the character after the one it could not take.
    QTest::addRow("one line") << QByteArray("{\"a\": 1,, }") << QStringLiteral("line 1, column 10")
                              << QStringLiteral("{\"a\": 1,,");
    QTest::addRow("second line") << QByteArray("{\"a\": 1,\n \"b\" 2}") << QStringLiteral("line 2, column 7")
                                 << QStringLiteral("{\"a\": 1,\n \"b\" 2");
    QTest::addRow("after two-byte characters")
        << QByteArray("{\"\xc3\xa9\xc3\xa9\": tru}") << QStringLiteral("line 1, column 9")
        << QStringLiteral("{\"\u00e9\u00e9\": t");
}

void TestJsonReader::syntaxError_saysWhereAndGivesTheOffset()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, place);
    QFETCH(QString, before);
    QJsonParseError parseError;
    QJsonDocument::fromJson(json, &parseError);
    QVERIFY(parseError.error != QJsonParseError::NoError);
    const Error error = jsonSyntaxError(json, parseError);
    QVERIFY(error.path.isEmpty());
    QVERIFY2(error.message.startsWith(place + QStringLiteral(": not valid JSON: ")), qPrintable(error.message));
    QCOMPARE(QString::fromUtf8(json).left(error.offset), before);
}

QTEST_GUILESS_MAIN(TestJsonReader)
#include "tst_jsonreader.moc"
