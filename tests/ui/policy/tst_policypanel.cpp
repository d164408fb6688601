#include "core/policy/presets.h"
#include "ui/policy/policyeditor.h"
#include "ui/policy/policypanel.h"
#include "ui/policy/schedulepreviewchart.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/unitspinbox.h"

#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace RetryLab;
using Core::BackoffPolicy;
using Ui::PolicyPanel;
using Ui::SchedulePreviewChart;
using Ui::Settings;

class TestPolicyPanel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void startsFromTheSavedPolicy_andPreviewsIt();
    void firstLaunch_startsFromTheDefaultsPreset_byName();
    void usableEdits_areSaved_invalidOnesAreNot();
    void edits_reachThePreviewAndTheOutside();
    void orientation_followsTheShapeOfTheDock();
};

void TestPolicyPanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_policypanel"));
}

void TestPolicyPanel::init()
{
    QFile::remove(QSettings().fileName());
}

void TestPolicyPanel::startsFromTheSavedPolicy_andPreviewsIt()
{
    const BackoffPolicy saved = *Core::Presets::find(QStringLiteral("memorystore"));
    {
        Settings settings;
        settings.setCurrentPolicy(saved);
    }
    Settings settings;
    PolicyPanel panel(&settings);
    QCOMPARE(panel.policy(), saved);
    QVERIFY(panel.isUsable());
    QCOMPARE(panel.editor()->presetBar()->presetKey(), QStringLiteral("builtin:memorystore"));
    QCOMPARE(panel.preview()->policy(), saved);
    QCOMPARE(panel.preview()->shownRetries(), saved.maxAttempts - 1);
}

void TestPolicyPanel::firstLaunch_startsFromTheDefaultsPreset_byName()
{
    Settings settings;
    QVERIFY(!settings.hasCurrentPolicy());
    PolicyPanel panel(&settings);
    // The defaults are a preset's numbers: the combo names it, nothing reads "Custom policy".
    QVERIFY2(panel.editor()->presetBar()->presetKey().startsWith(QLatin1String("builtin:")),
        qPrintable(panel.editor()->presetBar()->presetKey()));
    QVERIFY(!panel.editor()->presetBar()->isModified());
    const auto *combo = panel.findChild<QComboBox *>(QStringLiteral("presetCombo"));
    QVERIFY(combo->currentIndex() >= 0);
    QVERIFY(combo->currentText() != QLatin1String("Custom policy"));
    QCOMPARE(panel.editor()->presetBar()->presetKey(), QStringLiteral("builtin:google-cloud-storage"));
    QCOMPARE(panel.policy(), *Core::Presets::find(QStringLiteral("google-cloud-storage")));
    QCOMPARE(panel.policy().algorithm, Core::BackoffPolicy{}.algorithm);

    // A saved policy, even a custom one, is what the next launch shows.
    Core::BackoffPolicy custom;
    custom.baseDelayMs = 250.0;
    settings.setCurrentPolicy(custom);
    PolicyPanel again(&settings);
    QCOMPARE(again.policy(), custom);
}

void TestPolicyPanel::usableEdits_areSaved_invalidOnesAreNot()
{
    Settings settings;
    PolicyPanel panel(&settings);
    QSignalSpy validity(&panel, &PolicyPanel::validityChanged);
    auto *base = panel.findChild<Ui::UnitSpinBox *>(QStringLiteral("baseDelayMs"));
    QVERIFY(base);

    base->setValue(400);
    QCOMPARE(Settings().currentPolicy().baseDelayMs, 400.0);

    base->setValue(-3);
    QVERIFY(!panel.isUsable());
    QCOMPARE(validity.constLast().at(0).toBool(), false);
    QCOMPARE(Settings().currentPolicy().baseDelayMs, 400.0);
    panel.preview()->flush();
    QVERIFY2(panel.preview()->note().contains(QLatin1String("errors")), qPrintable(panel.preview()->note()));

    base->setValue(600);
    QCOMPARE(validity.constLast().at(0).toBool(), true);
    QCOMPARE(Settings().currentPolicy().baseDelayMs, 600.0);
    panel.preview()->flush();
    QVERIFY(!panel.preview()->note().contains(QLatin1String("errors")));
}

void TestPolicyPanel::edits_reachThePreviewAndTheOutside()
{
    PolicyPanel panel;
    QSignalSpy changed(&panel, &PolicyPanel::policyChanged);
    QSignalSpy redrawn(panel.preview(), &SchedulePreviewChart::previewUpdated);
    BackoffPolicy policy = panel.policy();
    policy.maxAttempts = 9;
    panel.setPolicy(policy);
    QCOMPARE(changed.count(), 1);
    QVERIFY(redrawn.wait(2000));
    QCOMPARE(panel.preview()->policy(), policy);
    QCOMPARE(panel.preview()->shownRetries(), 8);
}

void TestPolicyPanel::orientation_followsTheShapeOfTheDock()
{
    PolicyPanel panel;
    panel.resize(1400, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTRY_COMPARE(panel.orientation(), Qt::Horizontal);
    panel.resize(500, 1000);
    QTRY_COMPARE(panel.orientation(), Qt::Vertical);
}

QTEST_MAIN(TestPolicyPanel)
#include "tst_policypanel.moc"
