#include "core/policy/presets.h"
#include "ui/policy/comparedialog.h"
#include "ui/policy/comparisontimeline.h"
#include "ui/policy/policystackchooser.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using Ui::CompareDialog;

class TestCompareDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void twoPolicies_runTheSameFaults_summaryAndTimeline();
    void badScenario_saysWhyAndRunsNothing();
    void policyB_startsDifferentFromA();
    void verdict_saysFewerAttemptsAndSooner();
};

void TestCompareDialog::policyB_startsDifferentFromA()
{
    // The current policy is the first preset, unchanged: B must not be that preset again.
    const Core::BackoffPolicy first = Core::Presets::all().constFirst().policy;
    CompareDialog dialog;
    dialog.setCurrentPolicy(first);
    const QList<Core::BackoffPolicy> policies = dialog.chooser()->policies();
    QVERIFY(policies.size() >= 2);
    QCOMPARE(policies.at(0), first);
    QVERIFY(!(policies.at(1) == first));
    QVERIFY(policies.at(1).name != first.name);
    // Any other current policy keeps the first preset as B.
    Core::BackoffPolicy own = first;
    own.name = QStringLiteral("My own");
    own.maxAttempts = 9;
    CompareDialog other;
    other.setCurrentPolicy(own);
    QCOMPARE(other.chooser()->policies().at(1), first);
}

void TestCompareDialog::verdict_saysFewerAttemptsAndSooner()
{
    Core::ComparisonRow a;
    a.policy.name = QStringLiteral("Greedy");
    a.requests = 20;
    a.succeeded = 20;
    a.attempts = 50;
    a.runMs = 3'000.0;
    Core::ComparisonRow b = a;
    b.policy.name = QStringLiteral("Patient");
    b.attempts = 30;
    b.runMs = 1'800.0;
    QCOMPARE(CompareDialog::verdictText({a, b}),
        QStringLiteral("B (Patient) sent 40 % fewer attempts than A (Greedy) and finished 1.2 s sooner; both "
                       "succeeded 20 of 20."));
    b.succeeded = 17;
    b.runMs = 3'500.0;
    QCOMPARE(CompareDialog::verdictText({a, b}),
        QStringLiteral("B (Patient) sent 40 % fewer attempts than A (Greedy) and finished 500 ms later; B "
                       "succeeded 17 of 20, A 20."));
    QCOMPARE(CompareDialog::verdictText({a}), QString());
}

void TestCompareDialog::twoPolicies_runTheSameFaults_summaryAndTimeline()
{
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("flaky.json"));
    QFile file(scenario);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "retrylab-scenario", "name": "flaky", "policy": "iam", "concurrency": 2,
        "requests": [{"name": "r", "url": "{server}/status/200", "count": 2, "script": ["return-503*2"]}]})");
    file.close();

    Core::BackoffPolicy fast;
    fast.name = QStringLiteral("Fast, 4 attempts");
    fast.algorithm = Core::BackoffAlgorithm::Exponential;
    fast.baseDelayMs = 5;
    fast.maxBackoffMs = 20;
    fast.maxAttempts = 4;

    CompareDialog dialog;
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.setCurrentPolicy(fast);
    dialog.chooser()->setChoice(0, 0); // the current policy
    const int interactive = int(Core::Presets::ids().indexOf(QStringLiteral("azure-interactive")));
    dialog.chooser()->setChoice(1, interactive + 1);
    dialog.setScenarioPath(scenario);
    dialog.setSeed(12);
    QSignalSpy finished(&dialog, &CompareDialog::comparisonFinished);
    QVERIFY(dialog.run());
    QVERIFY(!dialog.run()); // one at a time
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20'000);

    const QList<Core::ComparisonRow> &rows = dialog.rows();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].policy, fast);
    QCOMPARE(rows[0].origin, QStringLiteral("current policy"));
    QCOMPARE(rows[0].succeeded, 2);
    QCOMPARE(rows[0].attempts, 6);
    QCOMPARE(rows[1].origin, QStringLiteral("preset azure-interactive"));
    QCOMPARE(rows[1].attempts, 6); // the same faults: two 503s, then 200
    QVERIFY(*rows[1].medianSuccessMs > *rows[0].medianSuccessMs); // waits of 250-500 ms against 5-10 ms
    auto *summary = dialog.findChild<QTableWidget *>(QStringLiteral("compareSummary"));
    QCOMPARE(summary->rowCount(), 2);
    QCOMPARE(summary->item(1, 0)->text(), QStringLiteral("B: Azure Retry pattern, interactive"));
    QVERIFY(summary->item(0, 0)->text().startsWith(QLatin1String("A: ")));
    for (int column = 0; column < summary->columnCount(); ++column)
        QVERIFY(!summary->horizontalHeaderItem(column)->toolTip().isEmpty());
    // The take-away in one line: the same attempts, B slower to succeed.
    auto *verdict = dialog.findChild<QLabel *>(QStringLiteral("compareVerdict"));
    QVERIFY(verdict && verdict->isVisible());
    QVERIFY2(verdict->text().startsWith(QLatin1String("B (Azure Retry pattern, interactive) sent as many attempts as "
                                                      "A (Fast, 4 attempts) and finished ")),
        qPrintable(verdict->text()));
    QVERIFY2(verdict->text().contains(QLatin1String("later; both succeeded 2 of 2.")), qPrintable(verdict->text()));
    QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("compareLegend"))->text().contains(QLatin1String("retried")));
    QCOMPARE(summary->item(0, 4)->text(), QStringLiteral("6"));
    QVERIFY(dialog.statusText().contains(QLatin1String("Seed 12")));
    auto *timeline = dialog.findChild<Ui::ComparisonTimeline *>(QStringLiteral("comparisonTimeline"));
    QVERIFY(timeline->sizeHint().height() > 4 * 14);
    QVERIFY(!timeline->grab().isNull());
}

void TestCompareDialog::badScenario_saysWhyAndRunsNothing()
{
    CompareDialog dialog;
    dialog.setScenarioPath(QStringLiteral("/nonexistent/scenario.json"));
    QVERIFY(!dialog.run());
    QVERIFY2(dialog.statusText().startsWith(QLatin1String("Cannot compare:")), qPrintable(dialog.statusText()));
    QVERIFY(dialog.rows().isEmpty());
}

QTEST_MAIN(TestCompareDialog)
#include "tst_comparedialog.moc"
