#include "ui/policy/faultactionmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Core::FaultAction;
using Core::NetworkFaultClass;
using Ui::FaultActionModel;

class TestFaultActionModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void model_passesTheModelTester();
    void rows_coverEveryFaultClassWithTitleAndExplanation();
    void setActions_showsThemAndRoundTrips();
    void setActions_missingClass_showsGiveUp();
    void setData_byEnumOrName_editsAndSignals_data();
    void setData_byEnumOrName_editsAndSignals();
    void setData_refusesNonsenseAndReadOnlyColumns();
};

void TestFaultActionModel::model_passesTheModelTester()
{
    FaultActionModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.setData(model.index(0, FaultActionModel::ActionColumn), static_cast<int>(FaultAction::GiveUp)));
    QMap<NetworkFaultClass, FaultAction> all;
    for (NetworkFaultClass fault : Core::allNetworkFaultClasses())
        all.insert(fault, FaultAction::RetryImmediately);
    model.setActions(all);
    model.setActions(Core::ClassificationRules::defaultNetworkActions());
}

void TestFaultActionModel::rows_coverEveryFaultClassWithTitleAndExplanation()
{
    FaultActionModel model;
    QCOMPARE(model.rowCount(), static_cast<int>(Core::allNetworkFaultClasses().size()));
    QCOMPARE(model.columnCount(), static_cast<int>(FaultActionModel::ColumnCount));
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex fault = model.index(row, FaultActionModel::FaultColumn);
        QCOMPARE(
            fault.data(FaultActionModel::FaultRole).toInt(), static_cast<int>(Core::allNetworkFaultClasses().at(row)));
        QVERIFY(!fault.data().toString().isEmpty());
        QVERIFY(fault.data(Qt::ToolTipRole).toString().size() > 30);
        QVERIFY(!(fault.flags() & Qt::ItemIsEditable));
        const QModelIndex action = model.index(row, FaultActionModel::ActionColumn);
        QVERIFY(action.flags() & Qt::ItemIsEditable);
        QVERIFY(!action.data(Qt::ToolTipRole).toString().isEmpty());
    }
    QVERIFY(!model.headerData(FaultActionModel::ActionColumn, Qt::Horizontal).toString().isEmpty());
}

void TestFaultActionModel::setActions_showsThemAndRoundTrips()
{
    FaultActionModel model;
    QCOMPARE(model.actions(), Core::ClassificationRules::defaultNetworkActions());

    auto actions = Core::ClassificationRules::defaultNetworkActions();
    actions[NetworkFaultClass::TlsFailure] = FaultAction::RetryAfterDelay;
    actions[NetworkFaultClass::Timeout] = FaultAction::GiveUp;
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy edited(&model, &FaultActionModel::actionsEdited);
    model.setActions(actions);
    QCOMPARE(model.actions(), actions);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(edited.count(), 0);

    const int tlsRow = static_cast<int>(Core::allNetworkFaultClasses().indexOf(NetworkFaultClass::TlsFailure));
    QCOMPARE(model.index(tlsRow, FaultActionModel::ActionColumn).data().toString(),
        FaultActionModel::actionTitle(FaultAction::RetryAfterDelay));

    model.setActions(actions);
    QCOMPARE(changed.count(), 1); // nothing changed, nothing signalled
}

void TestFaultActionModel::setActions_missingClass_showsGiveUp()
{
    FaultActionModel model;
    model.setActions({{NetworkFaultClass::ConnectionRefused, FaultAction::RetryImmediately}});
    const auto shown = model.actions();
    QCOMPARE(shown.value(NetworkFaultClass::ConnectionRefused), FaultAction::RetryImmediately);
    QCOMPARE(shown.value(NetworkFaultClass::Timeout), FaultAction::GiveUp);
    QCOMPARE(shown.size(), Core::allNetworkFaultClasses().size());
}

void TestFaultActionModel::setData_byEnumOrName_editsAndSignals_data()
{
    QTest::addColumn<QVariant>("value");
    QTest::addColumn<int>("role");
    QTest::addRow("enum, edit role") << QVariant(static_cast<int>(FaultAction::RetryImmediately))
                                     << static_cast<int>(Qt::EditRole);
    QTest::addRow("enum, action role") << QVariant(static_cast<int>(FaultAction::RetryImmediately))
                                       << static_cast<int>(FaultActionModel::ActionRole);
    QTest::addRow("name") << QVariant(QStringLiteral("retry-immediately")) << static_cast<int>(Qt::EditRole);
}

void TestFaultActionModel::setData_byEnumOrName_editsAndSignals()
{
    QFETCH(QVariant, value);
    QFETCH(int, role);
    FaultActionModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy edited(&model, &FaultActionModel::actionsEdited);
    const int row = static_cast<int>(Core::allNetworkFaultClasses().indexOf(NetworkFaultClass::HostNotFound));
    QVERIFY(model.setData(model.index(row, FaultActionModel::ActionColumn), value, role));
    QCOMPARE(model.actions().value(NetworkFaultClass::HostNotFound), FaultAction::RetryImmediately);
    QCOMPARE(edited.count(), 1);
}

void TestFaultActionModel::setData_refusesNonsenseAndReadOnlyColumns()
{
    FaultActionModel model;
    QSignalSpy edited(&model, &FaultActionModel::actionsEdited);
    const QModelIndex action = model.index(0, FaultActionModel::ActionColumn);
    QVERIFY(!model.setData(action, 42));
    QVERIFY(!model.setData(action, QStringLiteral("retry-forever")));
    QVERIFY(!model.setData(action, QVariant()));
    QVERIFY(!model.setData(model.index(0, FaultActionModel::FaultColumn), QStringLiteral("give-up")));
    QVERIFY(!model.setData(action, QStringLiteral("give-up"), Qt::DisplayRole));
    QVERIFY(!model.setData(QModelIndex(), QStringLiteral("give-up")));
    QCOMPARE(edited.count(), 0);
    QCOMPARE(model.actions(), Core::ClassificationRules::defaultNetworkActions());
}

QTEST_GUILESS_MAIN(TestFaultActionModel)
#include "tst_faultactionmodel.moc"
