#include "core/util/jsonpointer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;

namespace {

QJsonValue parse(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

} // namespace

class TestJsonPointer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void get_rfc6901Examples_data();
    void get_rfc6901Examples();
    void invalidPointers_areRefused_data();
    void invalidPointers_areRefused();
    void set_replacesNestedValues_andRefusesWhatDoesNotFit();
};

void TestJsonPointer::get_rfc6901Examples_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QJsonValue>("expected");
    // The document of RFC 6901, section 5.
    QTest::newRow("whole") << QString() << parse(R"({"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3,
        "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8})");
    QTest::newRow("/foo") << QStringLiteral("/foo")
                          << QJsonValue(QJsonArray{QStringLiteral("bar"), QStringLiteral("baz")});
    QTest::newRow("/foo/0") << QStringLiteral("/foo/0") << QJsonValue(QStringLiteral("bar"));
    QTest::newRow("/") << QStringLiteral("/") << QJsonValue(0);
    QTest::newRow("/a~1b") << QStringLiteral("/a~1b") << QJsonValue(1);
    QTest::newRow("/c%d") << QStringLiteral("/c%d") << QJsonValue(2);
    QTest::newRow("/ ") << QStringLiteral("/ ") << QJsonValue(7);
    QTest::newRow("/m~0n") << QStringLiteral("/m~0n") << QJsonValue(8);
}

void TestJsonPointer::get_rfc6901Examples()
{
    QFETCH(QString, pointer);
    QFETCH(QJsonValue, expected);
    const QJsonValue document = parse(R"({"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3,
        "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8})");
    const auto value = JsonPointer::get(document, pointer);
    QVERIFY(value);
    QCOMPARE(*value, expected);
}

void TestJsonPointer::invalidPointers_areRefused_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::newRow("no slash") << QStringLiteral("value");
    QTest::newRow("lone tilde") << QStringLiteral("/a~");
    QTest::newRow("tilde 2") << QStringLiteral("/a~2");
}

void TestJsonPointer::invalidPointers_areRefused()
{
    QFETCH(QString, pointer);
    QVERIFY(!JsonPointer::isValid(pointer));
    QVERIFY(!JsonPointer::get(parse(R"({"value": 1})"), pointer));
    QJsonValue document = parse(R"({"value": 1})");
    QVERIFY(!JsonPointer::set(document, pointer, 2));
}

void TestJsonPointer::set_replacesNestedValues_andRefusesWhatDoesNotFit()
{
    QJsonValue document = parse(R"({"spec": {"replicas": 3, "tags": [1, 2]}, "etag": "BwW"})");
    QVERIFY(JsonPointer::set(document, QStringLiteral("/spec/replicas"), 4));
    QVERIFY(JsonPointer::set(document, QStringLiteral("/spec/tags/1"), 7));
    QVERIFY(JsonPointer::set(document, QStringLiteral("/spec/new"), true)); // a new member of an existing object
    QCOMPARE(document, parse(R"({"spec": {"replicas": 4, "tags": [1, 7], "new": true}, "etag": "BwW"})"));
    const QJsonValue before = document;
    QVERIFY(!JsonPointer::set(document, QStringLiteral("/missing/replicas"), 1)); // no parent
    QVERIFY(!JsonPointer::set(document, QStringLiteral("/spec/tags/2"), 1)); // past the end
    QVERIFY(!JsonPointer::set(document, QStringLiteral("/spec/tags/01"), 1)); // leading zero
    QVERIFY(!JsonPointer::set(document, QStringLiteral("/etag/x"), 1)); // inside a string
    QCOMPARE(document, before);
    QVERIFY(!JsonPointer::get(document, QStringLiteral("/spec/tags/-")));
}

QTEST_GUILESS_MAIN(TestJsonPointer)
#include "tst_jsonpointer.moc"
