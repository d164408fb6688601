#include "core/policy/presets.h"
#include "ui/monitor/whatifpanel.h"
#include "ui/widgets/fieldmessage.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Ui::WhatIfPanel;

class TestWhatIfPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void choices_noneEveryPresetAndTheDock();
    void replay_emitsTheChosenPolicyAndItsLabel();
    void busy_disablesReplay_resultEnablesIt();
    void result_estimateBesideRecorded_withTheMethod();
    void error_saysTheReplayFailed();

private:
    WhatIfPanel *m_panel = nullptr;
};

void TestWhatIfPanel::init()
{
    QLocale::setDefault(QLocale::c());
    m_panel = new WhatIfPanel;
    m_panel->resize(600, 320);
    m_panel->show();
    m_panel->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_panel));
}

void TestWhatIfPanel::cleanup()
{
    delete m_panel;
    m_panel = nullptr;
}

void TestWhatIfPanel::choices_noneEveryPresetAndTheDock()
{
    QComboBox *chooser = m_panel->policyChooser();
    QCOMPARE(chooser->count(), int(Core::Presets::all().size()) + 1);
    QCOMPARE(chooser->itemText(0), QStringLiteral("None (one attempt per check)"));
    for (const Core::Presets::Preset &preset : Core::Presets::all())
        QVERIFY2(chooser->findText(QStringLiteral("Preset: ") + preset.policy.name) >= 0, qPrintable(preset.id));
    Core::BackoffPolicy dock;
    dock.name = QStringLiteral("Mine");
    m_panel->setCurrentPolicy(dock);
    QCOMPARE(chooser->count(), int(Core::Presets::all().size()) + 2);
    QCOMPARE(chooser->itemText(0), QStringLiteral("The policy dock's (Mine)"));
}

void TestWhatIfPanel::replay_emitsTheChosenPolicyAndItsLabel()
{
    QSignalSpy requested(m_panel, &WhatIfPanel::whatIfRequested);
    m_panel->replayButton()->click();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.first().at(0).value<Core::BackoffPolicy>().maxAttempts, 1);
    QCOMPARE(requested.first().at(1).toString(), QStringLiteral("None (one attempt per check)"));

    const Core::Presets::Preset &preset = Core::Presets::all().last();
    m_panel->policyChooser()->setCurrentIndex(m_panel->policyChooser()->count() - 1);
    m_panel->replayButton()->click();
    QCOMPARE(requested.last().at(0).value<Core::BackoffPolicy>(), preset.policy);

    Core::BackoffPolicy dock;
    dock.name = QStringLiteral("Mine");
    dock.maxAttempts = 7;
    m_panel->setCurrentPolicy(dock);
    // The preset stays chosen when the dock's policy arrives.
    QCOMPARE(m_panel->chosenPolicy(), preset.policy);
    m_panel->policyChooser()->setCurrentIndex(0);
    m_panel->replayButton()->setFocus();
    QTest::keyClick(m_panel->replayButton(), Qt::Key_Space);
    QCOMPARE(requested.size(), 3);
    QCOMPARE(requested.last().at(0).value<Core::BackoffPolicy>().maxAttempts, 7);
}

void TestWhatIfPanel::busy_disablesReplay_resultEnablesIt()
{
    m_panel->setBusy(true);
    QVERIFY(!m_panel->replayButton()->isEnabled());
    QCOMPARE(m_panel->message()->kind(), Ui::FieldMessage::Kind::Note);
    m_panel->setResult(Core::WhatIf{}, Core::MonitorSummary{});
    QVERIFY(m_panel->replayButton()->isEnabled());
    QVERIFY(!m_panel->isBusy());
    QCOMPARE(m_panel->message()->kind(), Ui::FieldMessage::Kind::None);
}

void TestWhatIfPanel::result_estimateBesideRecorded_withTheMethod()
{
    m_panel->replayButton()->click();
    Core::MonitorSummary actual;
    actual.checks = 1000;
    actual.checkAvailability = 0.995;
    actual.attemptsPerCheck = 1.25;
    actual.incidents = 2;
    actual.hiddenIncidents = 5;
    Core::WhatIf whatIf;
    whatIf.policyName = QStringLiteral("none");
    whatIf.checksSimulated = 990;
    whatIf.unknownChecks = 10;
    whatIf.checkAvailability = 0.97;
    whatIf.attemptsPerCheck = 1.0;
    whatIf.incidents = 7;
    whatIf.hiddenIncidents = 0;
    whatIf.gapMs = 60'000;
    m_panel->setResult(whatIf, actual);
    QVERIFY(m_panel->hasResult());
    QCOMPARE(m_panel->resultText(0, 1), QStringLiteral("Recorded"));
    QCOMPARE(m_panel->resultText(0, 2), QStringLiteral("Estimate: None (one attempt per check)"));
    QCOMPARE(m_panel->resultText(1, 0), QStringLiteral("Availability of checks"));
    QCOMPARE(m_panel->resultText(1, 1), QStringLiteral("99.5 %"));
    QCOMPARE(m_panel->resultText(1, 2), QStringLiteral("97 %"));
    QCOMPARE(m_panel->resultText(2, 1), QStringLiteral("1.25"));
    QCOMPARE(m_panel->resultText(2, 2), QStringLiteral("1.00"));
    QCOMPARE(m_panel->resultText(3, 2), QStringLiteral("7"));
    QCOMPARE(m_panel->resultText(4, 1), QStringLiteral("5"));
    QCOMPARE(m_panel->resultText(5, 2), QStringLiteral("990 (10 unknown)"));
    const QString method = m_panel->methodLabel()->text();
    QVERIFY2(method.startsWith(QLatin1String("Estimate")), qPrintable(method));
    QVERIFY(method.contains(QLatin1String("nearest t")));
    QVERIFY(method.contains(QLatin1String("1 min")));
    m_panel->clearResult();
    QCOMPARE(m_panel->resultRows(), 0);
}

void TestWhatIfPanel::error_saysTheReplayFailed()
{
    m_panel->setBusy(true);
    m_panel->setError(QStringLiteral("the history is locked"));
    QVERIFY(m_panel->replayButton()->isEnabled());
    QCOMPARE(m_panel->message()->kind(), Ui::FieldMessage::Kind::Error);
    QVERIFY(m_panel->message()->text().contains(QLatin1String("the history is locked")));
}

QTEST_MAIN(TestWhatIfPanel)
#include "tst_whatifpanel.moc"
