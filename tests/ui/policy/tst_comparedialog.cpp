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
};

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
    QCOMPARE(summary->item(1, 0)->text(), QStringLiteral("Azure Retry pattern, interactive"));
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
