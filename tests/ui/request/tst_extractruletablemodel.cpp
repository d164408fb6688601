#include "ui/request/extractruletablemodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Model = Ui::ExtractRuleTableModel;
using Rule = Core::ResponseVariables::Rule;

class TestExtractRuleTableModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everySource_roundTripsThroughTheRows();
    void newRow_needsAName_thenReads();
    void invalidRow_isMarkedWithWhy_andLeftOut_data();
    void invalidRow_isMarkedWithWhy_andLeftOut();
    void status_needsNoWhere();
    void rows_insertAndRemove_underTheTester();
};

void TestExtractRuleTableModel::everySource_roundTripsThroughTheRows()
{
    const QList<Rule> rules{
        {QStringLiteral("token"), Rule::Source::JsonPointer, QStringLiteral("/access_token"), {}, {}},
        {QStringLiteral("etag"), Rule::Source::Header, {}, QStringLiteral("ETag"), {}},
        {QStringLiteral("id"), Rule::Source::Regex, {}, {}, QStringLiteral("id=(\\d+)")},
        {QStringLiteral("code"), Rule::Source::Status, {}, {}, {}}};
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRules(rules);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.invalidCount(), 0);
    QCOMPARE(model.rules(), rules);
    QCOMPARE(model.index(0, Model::Source).data().toString(), QStringLiteral("JSON pointer"));
    QCOMPARE(model.index(1, Model::Where).data().toString(), QStringLiteral("ETag"));
    QCOMPARE(
        model.index(0, Model::Check).data().toString(), QStringLiteral("{{token}} \u2190 json pointer /access_token"));
    QCOMPARE(model.index(3, Model::Check).data().toString(), QStringLiteral("{{code}} \u2190 the status"));
}

void TestExtractRuleTableModel::newRow_needsAName_thenReads()
{
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&model, &Model::rulesChanged);
    QVERIFY(model.insertRows(0, 1));
    QVERIFY(!model.index(0, 0).data(Model::ValidRole).toBool());
    QCOMPARE(model.problemColumn(0), int(Model::Variable));
    QVERIFY(model.rules().isEmpty());
    QVERIFY(model.setData(model.index(0, Model::Variable), QStringLiteral("token")));
    QVERIFY(model.setData(model.index(0, Model::Where), QStringLiteral("/data/token")));
    QVERIFY2(model.index(0, 0).data(Model::ValidRole).toBool(), qPrintable(model.problem(0)));
    QCOMPARE(model.rules(),
        (QList<Rule>{{QStringLiteral("token"), Rule::Source::JsonPointer, QStringLiteral("/data/token"), {}, {}}}));
    QCOMPARE(changed.count(), 3);
}

void TestExtractRuleTableModel::invalidRow_isMarkedWithWhy_andLeftOut_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("source");
    QTest::addColumn<QString>("where");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("words");

    QTest::addRow("name with a space") << QStringLiteral("my token") << int(Rule::Source::JsonPointer)
                                       << QStringLiteral("/a") << int(Model::Variable)
                                       << QStringLiteral("is not a variable name");
    QTest::addRow("pointer without a slash")
        << QStringLiteral("t") << int(Rule::Source::JsonPointer) << QStringLiteral("token") << int(Model::Where)
        << QStringLiteral("is not a JSON pointer");
    QTest::addRow("header with a colon") << QStringLiteral("t") << int(Rule::Source::Header) << QStringLiteral("ETag:")
                                         << int(Model::Where) << QStringLiteral("is not a header name");
    QTest::addRow("broken expression") << QStringLiteral("t") << int(Rule::Source::Regex) << QStringLiteral("id=(")
                                       << int(Model::Where) << QStringLiteral("not a valid regular expression");
}

void TestExtractRuleTableModel::invalidRow_isMarkedWithWhy_andLeftOut()
{
    QFETCH(QString, name);
    QFETCH(int, source);
    QFETCH(QString, where);
    QFETCH(int, column);
    QFETCH(QString, words);

    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.insertRows(0, 1));
    QVERIFY(model.setData(model.index(0, Model::Source), int(Model::sources().indexOf(Rule::Source(source)))));
    QVERIFY(model.setData(model.index(0, Model::Variable), name));
    QVERIFY(model.setData(model.index(0, Model::Where), where));
    QVERIFY(!model.index(0, 0).data(Model::ValidRole).toBool());
    QCOMPARE(model.problemColumn(0), column);
    QVERIFY2(model.problem(0).contains(words), qPrintable(model.problem(0)));
    QVERIFY(model.index(0, Model::Check).data().toString().startsWith(QStringLiteral("\u26a0 not used")));
    QVERIFY(model.index(0, column).data(Qt::ToolTipRole).toString().contains(model.problem(0)));
    QVERIFY(model.rules().isEmpty());
    QCOMPARE(model.invalidCount(), 1);
}

void TestExtractRuleTableModel::status_needsNoWhere()
{
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.insertRows(0, 1));
    QVERIFY(model.setData(model.index(0, Model::Variable), QStringLiteral("code")));
    QVERIFY(model.setData(model.index(0, Model::Source), QStringLiteral("Status")));
    QVERIFY(!(model.index(0, Model::Where).flags() & Qt::ItemIsEditable));
    QCOMPARE(model.index(0, Model::Where).data().toString(), QStringLiteral("\u2014"));
    QVERIFY(!model.setData(model.index(0, Model::Where), QStringLiteral("/x")));
    QCOMPARE(model.rules(), (QList<Rule>{{QStringLiteral("code"), Rule::Source::Status, {}, {}, {}}}));
}

void TestExtractRuleTableModel::rows_insertAndRemove_underTheTester()
{
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.insertRows(0, 2));
    QVERIFY(model.insertRows(1, 1));
    QCOMPARE(model.rowCount(), 3);
    QVERIFY(!model.insertRows(-1, 1));
    QVERIFY(model.removeRows(0, 3));
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.removeRows(0, 1));
}

QTEST_MAIN(TestExtractRuleTableModel)
#include "tst_extractruletablemodel.moc"
