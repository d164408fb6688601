#include "core/assertions/jsonschema.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;

class TestJsonSchema : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validate_eachKeyword_data();
    void validate_eachKeyword();
    void validate_nestedObjectsAndArrays_namesEveryFailureWhereItIs();
    void validate_additionalPropertiesSchema_checksTheRest();
    void validate_ref_followsDefs();
    void validate_booleanSchemas();
    void validate_unsupportedKeyword_isReportedOnceAsNotChecked();
    void validate_annotations_areNeitherCheckedNorReported();
    void parse_badSchema_saysWhereAndWhat_data();
    void parse_badSchema_saysWhereAndWhat();
    void failureText_namesPointerKeywordAndWhy();
};

namespace {

QJsonValue json(const QByteArray &text)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson("[" + text + "]", &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad JSON in the test: %s", text.constData());
    return document.array().at(0);
}

JsonSchema schemaOf(const QByteArray &text)
{
    auto schema = JsonSchema::parse(json(text));
    if (!schema)
        qFatal("schema refused: %s", qPrintable(schema.error()));
    return *schema;
}

QStringList failureTexts(const JsonSchema::Validation &validation)
{
    QStringList out;
    for (const JsonSchema::Failure &failure : validation.failures)
        out.append(failure.text());
    return out;
}

} // namespace

void TestJsonSchema::validate_eachKeyword_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("instance");
    QTest::addColumn<QString>("failure"); ///< empty: valid

    QTest::addRow("type string") << QByteArray(R"({"type": "string"})") << QByteArray(R"("a")") << QString();
    QTest::addRow("type string, number came")
        << QByteArray(R"({"type": "string"})") << QByteArray("3") << "(root): 'type' string: 3 is integer";
    QTest::addRow("integer takes 3") << QByteArray(R"({"type": "integer"})") << QByteArray("3") << QString();
    QTest::addRow("integer takes 3.0") << QByteArray(R"({"type": "integer"})") << QByteArray("3.0") << QString();
    QTest::addRow("integer refuses 2.5") << QByteArray(R"({"type": "integer"})") << QByteArray("2.5")
                                         << "(root): 'type' integer: 2.5 is number";
    QTest::addRow("number takes 2") << QByteArray(R"({"type": "number"})") << QByteArray("2") << QString();
    QTest::addRow("type list") << QByteArray(R"({"type": ["string", "null"]})") << QByteArray("null") << QString();
    QTest::addRow("type list refuses") << QByteArray(R"({"type": ["string", "null"]})") << QByteArray("true")
                                       << "(root): 'type' string|null: true is boolean";
    QTest::addRow("type object") << QByteArray(R"({"type": "object"})") << QByteArray("[]")
                                 << "(root): 'type' object: [] is array";
    QTest::addRow("enum") << QByteArray(R"({"enum": ["a", 1, null]})") << QByteArray("1") << QString();
    QTest::addRow("enum refuses") << QByteArray(R"({"enum": ["a", 1]})") << QByteArray(R"("b")")
                                  << R"((root): 'enum' ["a",1]: "b" is none of them)";
    QTest::addRow("enum of objects") << QByteArray(R"({"enum": [{"a": [1]}]})") << QByteArray(R"({"a": [1]})")
                                     << QString();
    QTest::addRow("const") << QByteArray(R"({"const": {"v": 2}})") << QByteArray(R"({"v": 2})") << QString();
    QTest::addRow("const refuses") << QByteArray(R"({"const": 2})") << QByteArray("3")
                                   << "(root): 'const' 2: 3 differs";
    QTest::addRow("minimum holds at the bound") << QByteArray(R"({"minimum": 0})") << QByteArray("0") << QString();
    QTest::addRow("minimum") << QByteArray(R"({"minimum": 0})") << QByteArray("-5")
                             << "(root): 'minimum' 0: -5 is less";
    QTest::addRow("maximum") << QByteArray(R"({"maximum": 10})") << QByteArray("10.5")
                             << "(root): 'maximum' 10: 10.5 is more";
    QTest::addRow("exclusiveMinimum at the bound")
        << QByteArray(R"({"exclusiveMinimum": 0})") << QByteArray("0") << "(root): 'exclusiveMinimum' 0: 0 is not more";
    QTest::addRow("exclusiveMaximum at the bound")
        << QByteArray(R"({"exclusiveMaximum": 1})") << QByteArray("1") << "(root): 'exclusiveMaximum' 1: 1 is not less";
    QTest::addRow("exclusiveMaximum below")
        << QByteArray(R"({"exclusiveMaximum": 1})") << QByteArray("0.99") << QString();
    QTest::addRow("bounds ignore strings") << QByteArray(R"({"minimum": 5})") << QByteArray(R"("a")") << QString();
    QTest::addRow("minLength") << QByteArray(R"({"minLength": 3})") << QByteArray(R"("ab")")
                               << R"((root): 'minLength' 3: "ab" has 2 characters)";
    QTest::addRow("maxLength counts characters, not bytes")
        << QByteArray(R"({"maxLength": 2})") << QByteArray(R"("é😀")") << QString();
    QTest::addRow("maxLength") << QByteArray(R"({"maxLength": 2})") << QByteArray(R"("abc")")
                               << R"((root): 'maxLength' 2: "abc" has 3 characters)";
    QTest::addRow("pattern searches") << QByteArray(R"({"pattern": "[0-9]+"})") << QByteArray(R"("ab12")") << QString();
    QTest::addRow("pattern") << QByteArray(R"({"pattern": "^[a-z]+$"})") << QByteArray(R"("ab1")")
                             << R"((root): 'pattern' ^[a-z]+$: "ab1" does not match)";
    QTest::addRow("minItems") << QByteArray(R"({"minItems": 2})") << QByteArray("[1]")
                              << "(root): 'minItems' 2: 1 items";
    QTest::addRow("maxItems") << QByteArray(R"({"maxItems": 1})") << QByteArray("[1, 2]")
                              << "(root): 'maxItems' 1: 2 items";
    QTest::addRow("required") << QByteArray(R"({"required": ["id", "name"]})") << QByteArray(R"({"id": 1})")
                              << "(root): 'required' name: missing";
    QTest::addRow("additionalProperties false")
        << QByteArray(R"({"properties": {"a": {}}, "additionalProperties": false})")
        << QByteArray(R"({"a": 1, "b": 2})") << "/b: 'additionalProperties' false: b is not one of the properties";
    QTest::addRow("items") << QByteArray(R"({"items": {"type": "integer"}})") << QByteArray(R"([1, "x"])")
                           << R"(/1: 'type' integer: "x" is string)";
}

void TestJsonSchema::validate_eachKeyword()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, instance);
    QFETCH(QString, failure);
    const auto validation = schemaOf(schema).validate(json(instance));
    const QStringList texts = failureTexts(validation);
    if (failure.isEmpty()) {
        QVERIFY2(validation.valid(), qPrintable(texts.join(QLatin1Char('\n'))));
    } else {
        QCOMPARE(texts, QStringList{failure});
    }
}

void TestJsonSchema::validate_nestedObjectsAndArrays_namesEveryFailureWhereItIs()
{
    const JsonSchema schema = schemaOf(R"({
        "type": "object",
        "required": ["items", "total"],
        "properties": {
            "items": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "required": ["sku", "price"],
                "properties": {
                    "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
                    "price": {"type": "number", "minimum": 0},
                    "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}}
                }
            }},
            "a/b": {"type": "boolean"}
        }
    })");
    const QJsonValue good = json(R"({"total": 3, "items": [{"sku": "ABC-1", "price": 2, "tags": ["x"]}]})");
    QVERIFY2(schema.validate(good).valid(), qPrintable(failureTexts(schema.validate(good)).join(QLatin1Char('\n'))));

    const QJsonValue bad = json(R"({"a/b": 1, "items": [
        {"sku": "ABC-1", "price": 2},
        {"sku": "abc", "price": 3, "tags": ["ok", "toolong"]},
        {"sku": "XYZ-9", "price": -5},
        {"price": "free"}
    ]})");
    const QStringList texts = failureTexts(schema.validate(bad));
    const QStringList expected{
        QStringLiteral("(root): 'required' total: missing"),
        QStringLiteral("/a~1b: 'type' boolean: 1 is integer"),
        QStringLiteral(R"(/items/1/sku: 'pattern' ^[A-Z]{3}-[0-9]+$: "abc" does not match)"),
        QStringLiteral(R"(/items/1/tags/1: 'maxLength' 5: "toolong" has 7 characters)"),
        QStringLiteral("/items/2/price: 'minimum' 0: -5 is less"),
        QStringLiteral("/items/3: 'required' sku: missing"),
        QStringLiteral(R"(/items/3/price: 'type' number: "free" is string)"),
    };
    QCOMPARE(texts, expected);
    const auto validation = schema.validate(bad);
    QCOMPARE(validation.failures.at(4).instancePath, QStringLiteral("/items/2/price"));
    QCOMPARE(validation.failures.at(4).keyword, QStringLiteral("minimum"));
}

void TestJsonSchema::validate_additionalPropertiesSchema_checksTheRest()
{
    const JsonSchema schema
        = schemaOf(R"({"properties": {"id": {"type": "string"}}, "additionalProperties": {"type": "integer"}})");
    QVERIFY(schema.validate(json(R"({"id": "x", "a": 1, "b": 2})")).valid());
    QCOMPARE(failureTexts(schema.validate(json(R"({"id": "x", "a": 1.5})"))),
        QStringList{QStringLiteral("/a: 'type' integer: 1.5 is number")});
    // Without additionalProperties, any other property is allowed.
    QVERIFY(schemaOf(R"({"properties": {"id": {"type": "string"}}})").validate(json(R"({"z": [1]})")).valid());
}

void TestJsonSchema::validate_ref_followsDefs()
{
    const JsonSchema schema = schemaOf(R"({
        "$defs": {
            "money": {"type": "number", "minimum": 0},
            "line": {"type": "object", "properties": {"price": {"$ref": "#/$defs/money"}}},
            "node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                                                      "v": {"type": "integer"}}}
        },
        "type": "object",
        "properties": {"lines": {"type": "array", "items": {"$ref": "#/$defs/line"}},
                       "tree": {"$ref": "#/$defs/node"}}
    })");
    QVERIFY(schema.validate(json(R"({"lines": [{"price": 1}], "tree": {"children": [{"v": 1}]}})")).valid());
    QCOMPARE(failureTexts(schema.validate(json(
                 R"({"lines": [{"price": 1}, {"price": -1}], "tree": {"children": [{"children": [{"v": 0.5}]}]}})"))),
        (QStringList{QStringLiteral("/lines/1/price: 'minimum' 0: -1 is less"),
            QStringLiteral("/tree/children/0/children/0/v: 'type' integer: 0.5 is number")}));
    // A $ref's siblings apply as well (draft 2020-12).
    const JsonSchema both = schemaOf(R"({"$defs": {"n": {"type": "number"}}, "$ref": "#/$defs/n", "maximum": 3})");
    QCOMPARE(failureTexts(both.validate(json("4"))), QStringList{QStringLiteral("(root): 'maximum' 3: 4 is more")});
    QCOMPARE(failureTexts(both.validate(json(R"("4")"))).size(), 1);
}

void TestJsonSchema::validate_booleanSchemas()
{
    QVERIFY(schemaOf("true").validate(json(R"({"anything": 1})")).valid());
    QCOMPARE(failureTexts(schemaOf("false").validate(json("1"))),
        QStringList{QStringLiteral("(root): the schema false allows nothing here")});
    QCOMPARE(failureTexts(schemaOf(R"({"items": false})").validate(json("[1]"))),
        QStringList{QStringLiteral("/0: the schema false allows nothing here")});
    QVERIFY(schemaOf(R"({"items": false})").validate(json("[]")).valid());
}

void TestJsonSchema::validate_unsupportedKeyword_isReportedOnceAsNotChecked()
{
    const JsonSchema schema = schemaOf(R"({"oneOf": [{"type": "string"}], "properties": {
        "a": {"format": "email", "type": "string"}, "b": {"format": "uri"}, "c": {"oneOf": []}}})");
    QCOMPARE(schema.notChecked(), (QStringList{QStringLiteral("oneOf"), QStringLiteral("format")}));
    const auto validation = schema.validate(json(R"({"a": "not an address"})"));
    QVERIFY(validation.valid());
    QCOMPARE(validation.notChecked, schema.notChecked());
    // Keywords it checks are still checked next to those it does not.
    QCOMPARE(schema.validate(json(R"({"a": 1})")).failures.size(), 1);
}

void TestJsonSchema::validate_annotations_areNeitherCheckedNorReported()
{
    const JsonSchema schema = schemaOf(R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/order", "title": "Order", "description": "d", "default": {},
        "examples": [], "$comment": "c", "deprecated": false, "readOnly": true, "writeOnly": false,
        "type": "object"})");
    QVERIFY(schema.notChecked().isEmpty());
    QVERIFY(schema.validate(json("{}")).valid());
}

void TestJsonSchema::parse_badSchema_saysWhereAndWhat_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    QTest::addRow("not a schema") << QByteArray("3") << QString() << "a schema is an object or a boolean";
    QTest::addRow("unknown type") << QByteArray(R"({"type": "float"})") << "type"
                                  << "unknown type \"float\"";
    QTest::addRow("type list of non-strings") << QByteArray(R"({"type": ["string", 1]})") << "type[1]"
                                              << "string";
    QTest::addRow("minimum a string") << QByteArray(R"({"properties": {"price": {"minimum": "0"}}})")
                                      << "properties.price.minimum"
                                      << "number";
    QTest::addRow("negative minLength") << QByteArray(R"({"minLength": -1})") << "minLength"
                                        << "";
    QTest::addRow("property not a schema") << QByteArray(R"({"properties": {"a": 3}})") << "properties.a"
                                           << "a schema is an object or a boolean";
    QTest::addRow("required not strings") << QByteArray(R"({"required": "id"})") << "required"
                                          << "";
    QTest::addRow("items as a list") << QByteArray(R"({"items": [{}]})") << "items"
                                     << "prefixItems";
    QTest::addRow("bad pattern") << QByteArray(R"({"items": {"pattern": "(a"}})") << "items.pattern"
                                 << "not a regular expression";
    QTest::addRow("enum not an array") << QByteArray(R"({"enum": 1})") << "enum"
                                       << "";
    QTest::addRow("remote $ref") << QByteArray(R"({"$ref": "https://example.com/s.json"})") << "$ref"
                                 << "only references to \"#/$defs/...\"";
    QTest::addRow("$ref to nothing") << QByteArray(R"({"$ref": "#/$defs/missing"})") << "$ref"
                                     << "names no schema";
    QTest::addRow("$ref loop") << QByteArray(R"({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        "$ref": "#/$defs/a"})") << "$defs.a.$ref"
                               << "refers to itself";
    QTest::addRow("bad schema in $defs") << QByteArray(R"({"$defs": {"x": {"maxItems": 1.5}}})") << "$defs.x.maxItems"
                                         << "";
}

void TestJsonSchema::parse_badSchema_saysWhereAndWhat()
{
    QFETCH(QByteArray, schema);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto parsed = JsonSchema::parse(json(schema));
    QVERIFY(!parsed);
    QCOMPARE(parsed.errorDetail().path, path);
    QVERIFY2(parsed.errorDetail().message.contains(message), qPrintable(parsed.error()));
}

void TestJsonSchema::failureText_namesPointerKeywordAndWhy()
{
    const JsonSchema::Failure failure{
        QStringLiteral("/items/2/price"), QStringLiteral("minimum"), QStringLiteral("'minimum' 0: -5 is less")};
    QCOMPARE(failure.text(), QStringLiteral("/items/2/price: 'minimum' 0: -5 is less"));
}

QTEST_GUILESS_MAIN(TestJsonSchema)
#include "tst_jsonschema.moc"
