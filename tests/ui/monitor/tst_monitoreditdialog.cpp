#include "core/monitor/monitorcondition.h"
#include "core/policy/presets.h"
#include "ui/monitor/monitoreditdialog.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/unitspinbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

using namespace RetryLab;
using Core::MonitorCondition;
using Ui::MonitorEditDialog;

namespace {

Core::Monitor sampleMonitor()
{
    Core::Monitor monitor;
    monitor.name = QStringLiteral("shop-health");
    monitor.request.method = "GET";
    monitor.urlTemplate = QStringLiteral("https://shop.test/health");
    monitor.request.url = QUrl(monitor.urlTemplate);
    monitor.request.headers.append(qMakePair(QByteArray("Accept"), QByteArray("application/json")));
    monitor.intervalMs = 30'000.0;
    monitor.downIntervalMs = 5'000.0;
    monitor.timeoutMs = 10'000.0;
    monitor.policy.name = QStringLiteral("Mine");
    monitor.policy.maxAttempts = 4;
    monitor.policyOrigin = QStringLiteral("inline");
    monitor.downAfter = 3;
    monitor.upAfter = 2;
    MonitorCondition status;
    status.kind = MonitorCondition::Kind::Status;
    status.statuses = {200, 201, 202};
    status.statusText = QStringLiteral("2xx");
    MonitorCondition pointer;
    pointer.kind = MonitorCondition::Kind::JsonPointerEquals;
    pointer.pointer = QStringLiteral("/status");
    pointer.expected = QStringLiteral("ok");
    MonitorCondition body;
    body.kind = MonitorCondition::Kind::BodyContains;
    body.text = QStringLiteral("healthy");
    MonitorCondition secondBody = body;
    secondBody.text = QStringLiteral("db");
    monitor.conditions = {status, pointer, body, secondBody};
    return monitor;
}

template<typename T>
T *field(const QWidget &dialog, const char *name)
{
    auto *widget = dialog.findChild<T *>(QLatin1String(name));
    if (!widget)
        qFatal("no field %s", name);
    return widget;
}

bool okEnabled(const MonitorEditDialog &dialog)
{
    return dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled();
}

QString shownMessage(const MonitorEditDialog &dialog)
{
    const auto *message = dialog.findChild<Ui::FieldMessage *>();
    return message->kind() == Ui::FieldMessage::Kind::Error ? message->text() : QString();
}

} // namespace

class TestMonitorEditDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void load_showsTheMonitor();
    void unchanged_givesTheSameMonitorBack_keepingWhatItDoesNotShow();
    void invalid_disablesOkWithAMessage_data();
    void invalid_disablesOkWithAMessage();
    void serverPlaceholder_isAValidUrl_keptAsTyped();
    void conditions_readAsAMonitorsFileReadsThem();
    void policy_noneAPresetOrTheCurrentOne();
    void minimumSize_fitsTheSmallestWindowAtScaleOneAndAHalf();
};

void TestMonitorEditDialog::load_showsTheMonitor()
{
    MonitorEditDialog dialog(sampleMonitor(), {});
    QCOMPARE(field<QLineEdit>(dialog, "monitorName")->text(), QStringLiteral("shop-health"));
    QCOMPARE(field<QComboBox>(dialog, "monitorMethod")->currentText(), QStringLiteral("GET"));
    QCOMPARE(field<QLineEdit>(dialog, "monitorUrl")->text(), QStringLiteral("https://shop.test/health"));
    QCOMPARE(field<Ui::UnitSpinBox>(dialog, "monitorInterval")->value(), 30.0);
    QCOMPARE(field<Ui::UnitSpinBox>(dialog, "monitorDownInterval")->value(), 5.0);
    QCOMPARE(field<Ui::UnitSpinBox>(dialog, "monitorTimeout")->value(), 10.0);
    QCOMPARE(field<QSpinBox>(dialog, "monitorDownAfter")->value(), 3);
    QCOMPARE(field<QSpinBox>(dialog, "monitorUpAfter")->value(), 2);
    QCOMPARE(field<QLineEdit>(dialog, "conditionStatus")->text(), QStringLiteral("2xx"));
    QCOMPARE(field<QLineEdit>(dialog, "conditionJsonPointer")->text(), QStringLiteral("/status"));
    QCOMPARE(field<QLineEdit>(dialog, "conditionJsonEquals")->text(), QStringLiteral("ok"));
    QCOMPARE(field<QLineEdit>(dialog, "conditionBody")->text(), QStringLiteral("healthy"));
    QVERIFY(field<QComboBox>(dialog, "monitorPolicy")->currentText().contains(QStringLiteral("inline")));
    QVERIFY(okEnabled(dialog));
    QCOMPARE(dialog.problem(), QString());
}

void TestMonitorEditDialog::unchanged_givesTheSameMonitorBack_keepingWhatItDoesNotShow()
{
    const Core::Monitor original = sampleMonitor();
    MonitorEditDialog dialog(original, {QStringLiteral("other")});
    const Core::Monitor back = dialog.monitor();
    QCOMPARE(back.name, original.name);
    QCOMPARE(back.request.method, original.request.method);
    QCOMPARE(back.urlTemplate, original.urlTemplate);
    QCOMPARE(back.request.url, original.request.url);
    QCOMPARE(back.request.headers, original.request.headers);
    QCOMPARE(back.intervalMs, original.intervalMs);
    QCOMPARE(back.downIntervalMs, original.downIntervalMs);
    QCOMPARE(back.timeoutMs, original.timeoutMs);
    QCOMPARE(back.policy.maxAttempts, 4);
    QCOMPARE(back.policyOrigin, QStringLiteral("inline"));
    QCOMPARE(back.downAfter, 3);
    QCOMPARE(back.upAfter, 2);
    QCOMPARE(back.conditions.size(), 4);
    QStringList described;
    for (const MonitorCondition &c : back.conditions)
        described.append(c.describe());
    QStringList expected;
    for (const MonitorCondition &c : original.conditions)
        expected.append(c.describe());
    described.sort();
    expected.sort();
    QCOMPARE(described, expected);
    QVERIFY(back.request.responseCheck);
}

void TestMonitorEditDialog::invalid_disablesOkWithAMessage_data()
{
    QTest::addColumn<QString>("fieldName");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::addRow("no name") << "monitorName"
                             << ""
                             << "name";
    QTest::addRow("name taken") << "monitorName"
                                << "taken"
                                << "Another monitor is called \"taken\"";
    QTest::addRow("no url") << "monitorUrl"
                            << ""
                            << "Give the URL";
    QTest::addRow("not http") << "monitorUrl"
                              << "ftp://files.test/x"
                              << "http:// or https://";
    QTest::addRow("no host") << "monitorUrl"
                             << "https://"
                             << "http:// or https://";
    QTest::addRow("variable left") << "monitorUrl"
                                   << "https://{{host}}/health"
                                   << "http:// or https://";
    QTest::addRow("interval 0") << "monitorInterval"
                                << "0"
                                << "interval must be at least";
    QTest::addRow("down interval too long") << "monitorDownInterval"
                                            << "700000"
                                            << "interval while down";
    QTest::addRow("timeout 0") << "monitorTimeout"
                               << "0"
                               << "timeout must be more than 0";
    QTest::addRow("bad status") << "conditionStatus"
                                << "abc"
                                << "Status: ";
    QTest::addRow("pointer without slash") << "conditionJsonPointer"
                                           << "status"
                                           << "JSON at: ";
    QTest::addRow("header pattern") << "conditionHeaderMatches"
                                    << "("
                                    << "Header: ";
}

void TestMonitorEditDialog::invalid_disablesOkWithAMessage()
{
    QFETCH(QString, fieldName);
    QFETCH(QString, value);
    QFETCH(QString, message);
    MonitorEditDialog dialog(sampleMonitor(), {QStringLiteral("taken")});
    QVERIFY(okEnabled(dialog));
    QWidget *widget = dialog.findChild<QWidget *>(fieldName);
    QVERIFY(widget);
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        edit->setText(value);
        if (fieldName == QLatin1String("conditionHeaderMatches"))
            field<QLineEdit>(dialog, "conditionHeader")->setText(QStringLiteral("Content-Type"));
    } else if (auto *spin = qobject_cast<Ui::UnitSpinBox *>(widget)) {
        spin->setValue(value.toDouble());
    }
    QVERIFY(!okEnabled(dialog));
    QVERIFY2(dialog.problem().contains(message), qPrintable(dialog.problem()));
    QCOMPARE(shownMessage(dialog), dialog.problem());
}

void TestMonitorEditDialog::serverPlaceholder_isAValidUrl_keptAsTyped()
{
    MonitorEditDialog dialog(sampleMonitor(), {});
    auto *url = field<QLineEdit>(dialog, "monitorUrl");
    url->setText(QStringLiteral("{server}/fail/3?key={id}"));
    QVERIFY(okEnabled(dialog));
    QCOMPARE(dialog.monitor().urlTemplate, QStringLiteral("{server}/fail/3?key={id}"));
    // A typo is caught all the same.
    url->setText(QStringLiteral("{server}"));
    QVERIFY(okEnabled(dialog));
    url->setText(QStringLiteral("server}/status/200"));
    QVERIFY(!okEnabled(dialog));
}

void TestMonitorEditDialog::conditions_readAsAMonitorsFileReadsThem()
{
    Core::Monitor plain = sampleMonitor();
    plain.conditions.clear();
    MonitorEditDialog dialog(plain, {});
    field<QLineEdit>(dialog, "conditionStatus")->setText(QStringLiteral("200,204"));
    field<Ui::UnitSpinBox>(dialog, "conditionMaxResponse")->setValue(800);
    field<QLineEdit>(dialog, "conditionJsonPointer")->setText(QStringLiteral("/code"));
    QVERIFY(!okEnabled(dialog));
    QVERIFY2(dialog.problem().startsWith(QStringLiteral("JSON at: ")), qPrintable(dialog.problem()));
    field<QLineEdit>(dialog, "conditionJsonEquals")->setText(QStringLiteral("200"));
    field<QLineEdit>(dialog, "conditionHeader")->setText(QStringLiteral("X-Served-By"));
    field<QSpinBox>(dialog, "conditionCertificateDays")->setValue(14);
    QVERIFY2(okEnabled(dialog), qPrintable(dialog.problem()));

    const Core::Monitor monitor = dialog.monitor();
    QCOMPARE(monitor.conditions.size(), 5);
    QCOMPARE(monitor.conditions.at(0).kind, MonitorCondition::Kind::Status);
    QCOMPARE(monitor.conditions.at(0).statuses, (QSet<int>{200, 204}));
    QCOMPARE(monitor.conditions.at(1).kind, MonitorCondition::Kind::ResponseTimeUnder);
    QCOMPARE(monitor.conditions.at(1).maxMs, 800.0);
    QCOMPARE(monitor.conditions.at(2).kind, MonitorCondition::Kind::JsonPointerEquals);
    QCOMPARE(monitor.conditions.at(2).expected, QJsonValue(200)); // a number: it reads as JSON
    QCOMPARE(monitor.conditions.at(3).header, QByteArray("X-Served-By"));
    QCOMPARE(monitor.conditions.at(4).days, 14);
    QVERIFY(monitor.request.responseCheck);

    field<QLineEdit>(dialog, "conditionStatus")->clear();
    field<Ui::UnitSpinBox>(dialog, "conditionMaxResponse")->setValue(0);
    field<QLineEdit>(dialog, "conditionJsonPointer")->clear();
    field<QLineEdit>(dialog, "conditionJsonEquals")->clear();
    field<QLineEdit>(dialog, "conditionHeader")->clear();
    field<QSpinBox>(dialog, "conditionCertificateDays")->setValue(0);
    QVERIFY(dialog.monitor().conditions.isEmpty());
    QVERIFY(!dialog.monitor().request.responseCheck);
}

void TestMonitorEditDialog::policy_noneAPresetOrTheCurrentOne()
{
    MonitorEditDialog dialog(sampleMonitor(), {});
    auto *policy = field<QComboBox>(dialog, "monitorPolicy");
    QCOMPARE(policy->count(), 2 + Core::Presets::all().size());
    policy->setCurrentIndex(policy->findData(QStringLiteral("none")));
    QCOMPARE(dialog.monitor().policy.maxAttempts, 1);
    QCOMPARE(dialog.monitor().policyOrigin, QStringLiteral("none"));
    const Core::Presets::Preset &preset = Core::Presets::all().constFirst();
    policy->setCurrentIndex(2);
    QCOMPARE(dialog.monitor().policyOrigin, QStringLiteral("preset %1").arg(preset.id));
    QCOMPARE(dialog.monitor().policy.maxAttempts, preset.policy.maxAttempts);
    policy->setCurrentIndex(0);
    QCOMPARE(dialog.monitor().policy.maxAttempts, 4);
}

void TestMonitorEditDialog::minimumSize_fitsTheSmallestWindowAtScaleOneAndAHalf()
{
    MonitorEditDialog dialog(sampleMonitor(), {});
    // 1024 x 640 device pixels at QT_SCALE_FACTOR=1.5, less a title bar.
    const QSize fits(1024 * 2 / 3, 640 * 2 / 3 - 30);
    const QSize minimum = dialog.minimumSizeHint();
    QVERIFY2(minimum.width() <= fits.width() && minimum.height() <= fits.height(),
        qPrintable(QStringLiteral("%1x%2").arg(minimum.width()).arg(minimum.height())));
}

QTEST_MAIN(TestMonitorEditDialog)
#include "tst_monitoreditdialog.moc"
