#include "core/assertions/assertionjson.h"
#include "ui/request/assertiontablemodel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Core::Assertion;
using Model = Ui::AssertionTableModel;

namespace {

QList<Assertion> fromJson(const char *json)
{
    const auto read = Core::AssertionJson::read(QJsonDocument::fromJson(QByteArray(json)).array());
    if (!read)
        qFatal("fixture does not read: %s", qPrintable(read.error()));
    return *read;
}

} // namespace

class TestAssertionTableModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyKindOfTheFile_roundTripsThroughTheRows();
    void typedRow_readsAsTheFileWould_data();
    void typedRow_readsAsTheFileWould();
    void invalidRow_isMarkedWithWhy_andLeftOut();
    void kind_changedByIndexOrTitle_keepsTheTexts();
    void unusedColumns_areNotEditable_andShowADash();
    void rows_insertAndRemove_underTheTester();
};

void TestAssertionTableModel::everyKindOfTheFile_roundTripsThroughTheRows()
{
    const QList<Assertion> all = fromJson(R"([
        {"kind": "status", "equals": 200},
        {"kind": "status", "class": "2xx"},
        {"kind": "status", "in": "200,204", "name": "created or empty"},
        {"kind": "responseTime", "underMs": 800},
        {"kind": "header", "header": "ETag", "exists": true},
        {"kind": "header", "header": "Content-Type", "equals": "application/json"},
        {"kind": "header", "header": "Cache-Control", "matches": "max-age=[0-9]+"},
        {"kind": "body", "contains": "error", "not": true},
        {"kind": "jsonPointer", "pointer": "/id", "equals": 7},
        {"kind": "jsonPointer", "pointer": "/code", "equals": "7"},
        {"kind": "jsonPointer", "pointer": "/state", "equals": "ready"},
        {"kind": "jsonPointer", "pointer": "/error", "exists": true, "not": true},
        {"kind": "jsonPointer", "pointer": "/name", "matches": "^[A-Z]"},
        {"kind": "schema", "schema": {"type": "object", "required": ["id"]}}
    ])");
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAssertions(all);
    QCOMPARE(model.rowCount(), all.size());
    QCOMPARE(model.invalidCount(), 0);
    QCOMPARE(model.assertions(), all);
    // What a person reads in the cells.
    QCOMPARE(model.index(0, Model::Target).data().toString(), QStringLiteral("200"));
    QCOMPARE(model.index(2, Model::Name).data().toString(), QStringLiteral("created or empty"));
    QCOMPARE(model.index(7, Model::Not).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QCOMPARE(model.index(8, Model::Expected).data().toString(), QStringLiteral("7"));
    // A string that reads as another JSON value keeps its quotes; any other is bare.
    QCOMPARE(model.index(9, Model::Expected).data().toString(), QStringLiteral("\"7\""));
    QCOMPARE(model.index(10, Model::Expected).data().toString(), QStringLiteral("ready"));
    QCOMPARE(model.index(13, Model::Expected).data().toString(),
        QStringLiteral("{\"required\":[\"id\"],\"type\":\"object\"}"));
    QCOMPARE(model.index(1, Model::Check).data().toString(), all.at(1).describe());
}

void TestAssertionTableModel::typedRow_readsAsTheFileWould_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("file");

    QTest::addRow("status") << int(Assertion::Kind::StatusEquals) << QStringLiteral(" 201 ") << QString()
                            << QStringLiteral(R"({"kind": "status", "equals": 201})");
    QTest::addRow("status set") << int(Assertion::Kind::StatusIn) << QStringLiteral("200, 500-504") << QString()
                                << QStringLiteral(R"({"kind": "status", "in": "200, 500-504"})");
    QTest::addRow("time") << int(Assertion::Kind::ResponseTimeUnder) << QStringLiteral("250") << QString()
                          << QStringLiteral(R"({"kind": "responseTime", "underMs": 250})");
    QTest::addRow("pointer equals a number")
        << int(Assertion::Kind::JsonPointerEquals) << QStringLiteral("/n") << QStringLiteral("1.5")
        << QStringLiteral(R"({"kind": "jsonPointer", "pointer": "/n", "equals": 1.5})");
    QTest::addRow("pointer equals plain text")
        << int(Assertion::Kind::JsonPointerEquals) << QStringLiteral("/s") << QStringLiteral("ok then")
        << QStringLiteral(R"({"kind": "jsonPointer", "pointer": "/s", "equals": "ok then"})");
    QTest::addRow("schema") << int(Assertion::Kind::Schema) << QString() << QStringLiteral(R"({"type": "array"})")
                            << QStringLiteral(R"({"kind": "schema", "schema": {"type": "array"}})");
}

void TestAssertionTableModel::typedRow_readsAsTheFileWould()
{
    QFETCH(int, kind);
    QFETCH(QString, target);
    QFETCH(QString, expected);
    QFETCH(QString, file);

    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.insertRows(0, 1));
    QVERIFY(model.setData(model.index(0, Model::Kind), int(Model::kinds().indexOf(Assertion::Kind(kind)))));
    if (model.index(0, Model::Target).flags() & Qt::ItemIsEditable)
        QVERIFY(model.setData(model.index(0, Model::Target), target));
    if (!expected.isEmpty())
        QVERIFY(model.setData(model.index(0, Model::Expected), expected));
    QVERIFY2(model.index(0, 0).data(Model::ValidRole).toBool(), qPrintable(model.problem(0)));

    const auto wanted = Core::AssertionJson::read(QJsonArray{QJsonDocument::fromJson(file.toUtf8()).object()});
    QVERIFY(wanted);
    QCOMPARE(model.assertions(), *wanted);
}

void TestAssertionTableModel::invalidRow_isMarkedWithWhy_andLeftOut()
{
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAssertions(fromJson(R"([{"kind": "status", "equals": 200}, {"kind": "body", "contains": "ok"}])"));
    QSignalSpy changed(&model, &Model::assertionsChanged);

    // A status out of range: the file's reader says so, in the file's words, at the Target cell.
    QVERIFY(model.setData(model.index(0, Model::Target), QStringLiteral("700")));
    QCOMPARE(changed.count(), 1);
    QVERIFY(!model.index(0, Model::Kind).data(Model::ValidRole).toBool());
    QCOMPARE(model.problemColumn(0), int(Model::Target));
    QVERIFY2(model.problem(0).contains(QStringLiteral("599")), qPrintable(model.problem(0)));
    const QString check = model.index(0, Model::Check).data().toString();
    QVERIFY2(check.startsWith(QStringLiteral("\u26a0 not used")), qPrintable(check));
    QVERIFY(model.index(0, Model::Target).data(Qt::ToolTipRole).toString().contains(model.problem(0)));
    QCOMPARE(model.invalidCount(), 1);
    QCOMPARE(model.assertions().size(), 1);
    QCOMPARE(model.assertions().constFirst().kind, Assertion::Kind::BodyContains);

    // Text where a number goes, a broken expression, a header name with a space, a schema not JSON.
    QVERIFY(model.setData(model.index(0, Model::Target), QStringLiteral("ok")));
    QCOMPARE(model.problem(0), QStringLiteral("\"ok\" is not a number"));
    QVERIFY(model.setData(model.index(1, Model::Kind), int(Model::kinds().indexOf(Assertion::Kind::HeaderMatches))));
    QVERIFY(model.setData(model.index(1, Model::Target), QStringLiteral("Content Type")));
    QCOMPARE(model.problemColumn(1), int(Model::Target));
    QVERIFY(model.setData(model.index(1, Model::Target), QStringLiteral("Content-Type")));
    QVERIFY(model.setData(model.index(1, Model::Expected), QStringLiteral("json(")));
    QCOMPARE(model.problemColumn(1), int(Model::Expected));
    QVERIFY2(model.problem(1).startsWith(QStringLiteral("not a regular expression")), qPrintable(model.problem(1)));
    QVERIFY(model.setData(model.index(1, Model::Kind), int(Model::kinds().indexOf(Assertion::Kind::Schema))));
    QVERIFY(model.setData(model.index(1, Model::Expected), QStringLiteral(R"({"minimum": "x"})")));
    QCOMPARE(model.problemColumn(1), int(Model::Expected));
    QVERIFY2(model.problem(1).startsWith(QStringLiteral("minimum: ")), qPrintable(model.problem(1)));
    QVERIFY(model.assertions().isEmpty());

    // Corrected, it is used again.
    QVERIFY(model.setData(model.index(1, Model::Expected), QStringLiteral(R"({"minimum": 0})")));
    QVERIFY(model.index(1, 0).data(Model::ValidRole).toBool());
    QCOMPARE(model.assertions().size(), 1);
}

void TestAssertionTableModel::kind_changedByIndexOrTitle_keepsTheTexts()
{
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.insertRows(0, 1));
    QCOMPARE(model.index(0, Model::Kind).data(Model::ChoicesRole).toStringList().size(), Model::kinds().size());
    QVERIFY(model.setData(model.index(0, Model::Kind), QStringLiteral("status class")));
    QCOMPARE(model.index(0, Model::Kind).data(Qt::EditRole).toInt(),
        int(Model::kinds().indexOf(Assertion::Kind::StatusClass)));
    // "200" is not a class: the text stays, the row says why.
    QCOMPARE(model.index(0, Model::Target).data(Qt::EditRole).toString(), QStringLiteral("200"));
    QVERIFY(!model.index(0, 0).data(Model::ValidRole).toBool());
    QVERIFY(model.setData(model.index(0, Model::Target), QStringLiteral("2xx")));
    QVERIFY(model.index(0, 0).data(Model::ValidRole).toBool());
    QVERIFY(!model.setData(model.index(0, Model::Kind), QStringLiteral("no such kind")));
    QVERIFY(!model.setData(model.index(0, Model::Kind), 99));
}

void TestAssertionTableModel::unusedColumns_areNotEditable_andShowADash()
{
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAssertions(fromJson(R"([{"kind": "header", "header": "ETag", "exists": true}])"));
    const QModelIndex expected = model.index(0, Model::Expected);
    QVERIFY(!(expected.flags() & Qt::ItemIsEditable));
    QVERIFY(!expected.data(Model::UsedRole).toBool());
    QCOMPARE(expected.data().toString(), QStringLiteral("\u2014"));
    QVERIFY(!model.setData(expected, QStringLiteral("x")));
    QVERIFY(model.index(0, Model::Not).flags() & Qt::ItemIsUserCheckable);
    QVERIFY(!(model.index(0, Model::Check).flags() & Qt::ItemIsEditable));
    // "not" turns it around: the header must be absent.
    QVERIFY(model.setData(model.index(0, Model::Not), Qt::Checked, Qt::CheckStateRole));
    QVERIFY(model.assertions().constFirst().negate);
}

void TestAssertionTableModel::rows_insertAndRemove_underTheTester()
{
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&model, &Model::assertionsChanged);
    QVERIFY(model.insertRows(0, 3));
    QCOMPARE(model.rowCount(), 3);
    // New rows check for status 200, and read.
    QCOMPARE(model.assertions().size(), 3);
    QVERIFY(!model.insertRows(5, 1));
    QVERIFY(model.removeRows(1, 2));
    QCOMPARE(model.rowCount(), 1);
    QVERIFY(!model.removeRows(0, 2));
    QCOMPARE(changed.count(), 2);
    QVERIFY(!model.index(0, 0).parent().isValid());
    QCOMPARE(model.headerData(Model::Expected, Qt::Horizontal).toString(), QStringLiteral("Expected"));
}

QTEST_MAIN(TestAssertionTableModel)
#include "tst_assertiontablemodel.moc"
