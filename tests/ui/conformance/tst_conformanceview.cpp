#include "ui/conformance/conformancemodel.h"
#include "ui/conformance/conformanceview.h"
#include "ui/conformance/storageconformanceview.h"
#include "ui/widgets/outcomestyle.h"

#include "core/faultserver/faultserver.h"
#include "core/policy/presets.h"
#include "core/scenario/conformancerunner.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QIcon>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace RetryLab;
using Core::ConformanceCellResult;
using State = Ui::ConformanceModel::CellState;

namespace {

QList<ConformanceCellResult> plannedCells(const Core::BackoffPolicy &policy)
{
    QList<ConformanceCellResult> cells;
    for (const Core::ConformanceCase &c : Core::Conformance::cases(Core::Conformance::compressed(policy))) {
        ConformanceCellResult cell;
        cell.cell = c;
        cells.append(cell);
    }
    return cells;
}

} // namespace

namespace {
QString tooltip0(const QAbstractItemModel &model, const QModelIndex &index)
{
    return model.data(index, Qt::ToolTipRole).toString();
}
} // namespace

class TestConformanceView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void model_passesTheModelTester();
    void model_showsPlanThenVerdicts();
    void view_editedPolicyIsOfferedFirst();
    void view_unusablePolicy_cannotRun();
    void view_runOnTheGivenServer_fillsTheMatrix();
    void view_cancel_endsTheRun();
    void view_policyChangedDuringRun_resultsKeepTheRunPolicy();
    void storageCases_planThenEveryRunAsTheCasesExpect();
    void storageCases_cancelEndsTheRun();
};

void TestConformanceView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestConformanceView::model_passesTheModelTester()
{
    Ui::ConformanceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setCells(plannedCells(*Core::Presets::find(QStringLiteral("iam"))));
    QCOMPARE(model.rowCount(), 13);
    QCOMPARE(model.columnCount(), 4);
    model.setRunning(true);
    ConformanceCellResult done = model.cells().at(4);
    done.done = true;
    done.verdict.passed = true;
    done.result.outcome = Core::RequestOutcome::Succeeded;
    done.result.attempts = 5;
    model.updateCell(4, done);
    model.updateCell(99, done); // ignored
    model.setRunning(false);
    model.setCells({});
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.cellAt(model.index(0, 0)));
}

void TestConformanceView::model_showsPlanThenVerdicts()
{
    Ui::ConformanceModel model;
    model.setCells(plannedCells(*Core::Presets::find(QStringLiteral("google-cloud-storage"))));
    const QModelIndex first = model.index(0, 0);
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("always idempotent\n(GET)"));
    QCOMPARE(model.headerData(2, Qt::Vertical).toString(), QStringLiteral("connection reset twice, then OK"));
    QVERIFY(model.headerData(11, Qt::Vertical, Qt::ToolTipRole).toString().contains(QLatin1String("answers 503")));
    QVERIFY(
        model.headerData(9, Qt::Vertical, Qt::ToolTipRole)
            .toString()
            .contains(QLatin1String("read-modify-write of a resource on /occ; server steps for its reads and writes "
                                    "in turn: pass, aborted")));
    QCOMPARE(model.data(model.index(9, 0)).toString(), QStringLiteral("n/a"));
    QVERIFY(!model.data(model.index(9, 0), Ui::ConformanceModel::OutcomeRole).isValid());
    QVERIFY(model.data(model.index(9, 1)).toString().startsWith(QLatin1String("expect succeeded after 4 attempt(s)")));
    QCOMPARE(model.data(first, Ui::ConformanceModel::StateRole).toInt(), int(State::Planned));
    QCOMPARE(model.data(first).toString(), QStringLiteral("expect succeeded after 2 attempt(s), status 200"));
    QVERIFY(model.data(first, Qt::ToolTipRole).toString().contains(QLatin1String("attempt 1: HTTP 503")));
    QVERIFY(!model.data(first, Qt::BackgroundRole).isValid());

    model.setRunning(true);
    QCOMPARE(model.data(first).toString(), QStringLiteral("running..."));

    ConformanceCellResult failed = model.cells().at(2);
    failed.done = true;
    failed.verdict.passed = false;
    failed.verdict.message = QStringLiteral("expected gave-up; sent to http://u:pw@127.0.0.1/?token=s3cr3t");
    failed.result.outcome = Core::RequestOutcome::Succeeded;
    failed.result.attempts = 2;
    model.updateCell(2, failed);
    const QModelIndex cell = model.index(0, 2);
    // The outcome is the content, in its own colour; the unmet expectation a mark beside it.
    QCOMPARE(model.data(cell).toString(), QStringLiteral("succeeded (2)"));
    QVERIFY(tooltip0(model, cell).startsWith(QLatin1String("Succeeded after 2 attempt(s), NOT as expected")));
    QCOMPARE(model.data(cell, Ui::ConformanceModel::ExpectationRole).toString(), QStringLiteral("NOT as expected"));
    QCOMPARE(model.data(cell, Qt::DecorationRole).value<QIcon>().cacheKey(),
        Ui::ConformanceModel::expectationMark(false).cacheKey());
    QCOMPARE(model.data(cell, Qt::BackgroundRole).value<QColor>(),
        Ui::requestOutcomeColor(Core::RequestOutcome::Succeeded).lighter(165));
    // Dark text on the light outcome colour: readable on a projector (WCAG AA, 4.5:1).
    QVERIFY(Ui::contrastRatio(model.data(cell, Qt::ForegroundRole).value<QColor>(),
                model.data(cell, Qt::BackgroundRole).value<QColor>())
        >= 4.5);
    for (auto outcome :
        {Core::RequestOutcome::GaveUp, Core::RequestOutcome::AttemptsExhausted, Core::RequestOutcome::DeadlineExceeded,
            Core::RequestOutcome::CircuitOpen, Core::RequestOutcome::BudgetExhausted})
        QVERIFY(Ui::contrastRatio(QColor(Qt::black), Ui::requestOutcomeColor(outcome).lighter(165)) >= 4.5);
    QCOMPARE(model.data(cell, Ui::ConformanceModel::StateRole).toInt(), int(State::Failed));
    QCOMPARE(model.data(cell, Ui::ConformanceModel::OutcomeRole).toString(), QStringLiteral("succeeded"));
    QCOMPARE(model.data(cell, Ui::ConformanceModel::AttemptsRole).toInt(), 2);
    QVERIFY(model.data(cell, Qt::BackgroundRole).value<QColor>().isValid());
    const QString tooltip = model.data(cell, Qt::ToolTipRole).toString();
    QVERIFY2(
        !tooltip.contains(QLatin1String("s3cr3t")) && !tooltip.contains(QLatin1String("pw@")), qPrintable(tooltip));
    QVERIFY(tooltip.contains(QLatin1String("expected gave-up")));
}

void TestConformanceView::view_editedPolicyIsOfferedFirst()
{
    Ui::ConformanceView view;
    auto *box = view.findChild<QComboBox *>(QStringLiteral("policyBox"));
    QVERIFY(box);
    QCOMPARE(box->count(), Core::Presets::all().size());
    QCOMPARE(view.policy().name, QStringLiteral("Google Cloud Storage"));
    QCOMPARE(view.model()->rowCount(), 13);

    Core::BackoffPolicy edited = *Core::Presets::find(QStringLiteral("curl-retry"));
    edited.name = QStringLiteral("My client");
    view.setPolicy(edited);
    QCOMPARE(box->count(), Core::Presets::all().size() + 1);
    QCOMPARE(box->currentIndex(), 0);
    QVERIFY(box->currentText().contains(QLatin1String("My client")));
    QCOMPARE(view.policy(), edited);
    QCOMPARE(view.runner().policy(), edited);
    // curl does not retry resets: the plan says so before anything runs.
    QVERIFY(view.model()->data(view.model()->index(2, 0)).toString().startsWith(QLatin1String("expect gave-up")));

    edited.name = QStringLiteral("My client, v2");
    view.setPolicy(edited);
    QCOMPARE(box->count(), Core::Presets::all().size() + 1);
    QVERIFY(box->currentText().contains(QLatin1String("v2")));

    // A preset chosen on purpose stays chosen when the dock's policy changes (or is saved).
    QVERIFY(view.setPolicyChoice(QStringLiteral("aws-standard")));
    edited.name = QStringLiteral("My client, v3");
    view.setPolicy(edited);
    QCOMPARE(view.policyChoice(), QStringLiteral("aws-standard"));
    QVERIFY(box->itemText(0).contains(QLatin1String("v3"))); // still offered, up to date
    // Back on the edited policy, it follows the dock again.
    QVERIFY(view.setPolicyChoice(Ui::ConformanceView::editedChoice()));
    edited.name = QStringLiteral("My client, v4");
    view.setPolicy(edited);
    QVERIFY(box->currentText().contains(QLatin1String("v4")));
    QCOMPARE(view.policy(), edited);
}

void TestConformanceView::view_unusablePolicy_cannotRun()
{
    Ui::ConformanceView view;
    Core::BackoffPolicy broken;
    broken.maxAttempts = 0;
    broken.deadlineMs = 0;
    view.setPolicy(broken);
    auto *run = view.findChild<QPushButton *>(QStringLiteral("runButton"));
    auto *status = view.findChild<QLabel *>(QStringLiteral("statusLabel"));
    QVERIFY(run && status);
    QVERIFY(!run->isEnabled());
    QVERIFY2(status->text().contains(QLatin1String("cannot run")), qPrintable(status->text()));
    QVERIFY(status->text().contains(QLatin1String("retry forever")));
}

void TestConformanceView::view_runOnTheGivenServer_fillsTheMatrix()
{
    Core::FaultServer server;
    QVERIFY(server.listen());
    Ui::ConformanceView view;
    view.setFaultServer(&server);
    view.setPolicy(*Core::Presets::find(QStringLiteral("polly-default")));
    view.resize(1000, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    auto *run = view.findChild<QPushButton *>(QStringLiteral("runButton"));
    auto *cancel = view.findChild<QPushButton *>(QStringLiteral("cancelButton"));
    auto *status = view.findChild<QLabel *>(QStringLiteral("statusLabel"));
    auto *table = view.findChild<QTableView *>(QStringLiteral("matrix"));
    auto *details = view.findChild<QPlainTextEdit *>(QStringLiteral("details"));
    QVERIFY(run && cancel && status && table && details);

    QSignalSpy finished(&view, &Ui::ConformanceView::finished);
    QTest::mouseClick(run, Qt::LeftButton);
    QVERIFY(view.isRunning());
    QVERIFY(!run->isEnabled());
    QVERIFY(cancel->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);
    QCOMPARE(finished.first().at(0).toInt(), 46);
    QCOMPARE(finished.first().at(1).toInt(), 46);
    QVERIFY(run->isEnabled());
    QVERIFY(!cancel->isEnabled());
    QVERIFY2(status->text().contains(QLatin1String("All 46 cells")), qPrintable(status->text()));
    QVERIFY(server.handledCount() >= 32);

    int notPlayed = 0;
    for (int row = 0; row < view.model()->rowCount(); ++row) {
        for (int column = 0; column < view.model()->columnCount(); ++column) {
            const QModelIndex index = view.model()->index(row, column);
            if (view.model()->data(index, Ui::ConformanceModel::StateRole).toInt() == int(State::NotApplicable)) {
                // A read-modify-write row outside the conditional column.
                QCOMPARE(view.model()->data(index).toString(), QStringLiteral("n/a"));
                QVERIFY(view.model()->data(index, Qt::ToolTipRole).toString().startsWith(QLatin1String("not played")));
                QVERIFY(column != 1);
                ++notPlayed;
                continue;
            }
            QCOMPARE(view.model()->data(index, Ui::ConformanceModel::StateRole).toInt(), int(State::Passed));
            QCOMPARE(view.model()->data(index, Ui::ConformanceModel::ExpectationRole).toString(),
                QStringLiteral("as expected"));
            QVERIFY(view.model()->data(index).toString().endsWith(QLatin1Char(')')));
        }
    }
    QCOMPARE(notPlayed, 6);
    table->setCurrentIndex(view.model()->index(3, 0));
    QVERIFY2(details->toPlainText().contains(QLatin1String("429 with Retry-After: 1, then OK")),
        qPrintable(details->toPlainText()));
    QVERIFY(details->toPlainText().contains(QLatin1String("as expected")));
}

void TestConformanceView::view_cancel_endsTheRun()
{
    Ui::ConformanceView view;
    QSignalSpy finished(&view, &Ui::ConformanceView::finished);
    QSignalSpy started(&view, &Ui::ConformanceView::started);
    view.run();
    QCOMPARE(started.size(), 1);
    view.run(); // ignored while running
    QCOMPARE(started.size(), 1);
    view.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10'000);
    QVERIFY(finished.first().at(0).toInt() < 46);
    QVERIFY(!view.isRunning());
}

void TestConformanceView::view_policyChangedDuringRun_resultsKeepTheRunPolicy()
{
    Core::FaultServer server;
    QVERIFY(server.listen());
    Ui::ConformanceView view;
    view.setFaultServer(&server);
    Core::BackoffPolicy first = *Core::Presets::find(QStringLiteral("polly-default"));
    first.name = QStringLiteral("First policy");
    view.setPolicy(first);
    auto *box = view.findChild<QComboBox *>(QStringLiteral("policyBox"));
    auto *status = view.findChild<QLabel *>(QStringLiteral("statusLabel"));
    QVERIFY(box && status);

    QSignalSpy finished(&view, &Ui::ConformanceView::finished);
    view.run();
    QVERIFY(view.isRunning());
    Core::BackoffPolicy second = *Core::Presets::find(QStringLiteral("curl-retry"));
    second.name = QStringLiteral("Second policy");
    view.setPolicy(second);

    // The running suite still says what it runs.
    QCOMPARE(view.runner().policy().name, first.name);
    QVERIFY(box->currentText().contains(first.name));
    QVERIFY(view.pendingPolicy().has_value());
    QVERIFY2(status->text().contains(QLatin1String("First policy")), qPrintable(status->text()));
    QVERIFY2(status->text().contains(QLatin1String("next run uses it")), qPrintable(status->text()));

    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);
    QCOMPARE(finished.first().at(0).toInt(), 46); // Polly's rules, not curl's
    QVERIFY2(status->text().contains(QStringLiteral("\u201cFirst policy\u201d")), qPrintable(status->text()));
    QVERIFY2(status->text().contains(QLatin1String("Second policy")), qPrintable(status->text()));
    for (int row = 0; row < view.model()->rowCount(); ++row)
        QCOMPARE(view.model()->data(view.model()->index(row, 1), Ui::ConformanceModel::StateRole).toInt(),
            int(State::Passed));
    // Now offered for the next run.
    QVERIFY(!view.pendingPolicy().has_value());
    QVERIFY(box->currentText().contains(second.name));
    QCOMPARE(view.policy(), second);

    view.run();
    QCOMPARE(view.runner().policy(), second);
    view.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 10'000);
}

// Google's Cloud Storage cases, the tab's second suite: planned, then played under the chosen preset.
void TestConformanceView::storageCases_planThenEveryRunAsTheCasesExpect()
{
    Ui::ConformanceView view;
    Ui::StorageConformanceView *storage = view.storageCases();
    QVERIFY(storage);
    Ui::StorageConformanceModel *model = storage->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // A row per case and instruction list that has a method served, a column per method.
    QCOMPARE(model->columnCount(), 5);
    QCOMPARE(model->rowCount(), 18);
    QCOMPARE(model->runs().size(), 45);
    QCOMPARE(model->headerData(0, Qt::Vertical).toString(), QStringLiteral("1: return-503, return-503"));
    int cells = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        for (int column = 0; column < model->columnCount(); ++column) {
            const QModelIndex index = model->index(row, column);
            if (model->runAt(index) < 0) {
                QCOMPARE(index.data().toString(), QStringLiteral("\u2014"));
                continue;
            }
            ++cells;
            QVERIFY(index.data().toString().startsWith(QStringLiteral("expect ")));
        }
    }
    QCOMPARE(cells, 45);
    auto *notPlayed = storage->findChild<QLabel *>(QStringLiteral("storageNotPlayed"));
    QVERIFY2(notPlayed->text().startsWith(QStringLiteral("42 method")), qPrintable(notPlayed->text()));
    QVERIFY(notPlayed->toolTip().contains(QStringLiteral("storage.hmacKey.get: HMAC keys")));

    // The tab's policy box chooses the policy: the Cloud Storage preset by default.
    auto *status = storage->findChild<QLabel *>(QStringLiteral("storageStatus"));
    QVERIFY2(status->text().contains(QStringLiteral("Google Cloud Storage")), qPrintable(status->text()));
    QSignalSpy finished(storage, &Ui::StorageConformanceView::finished);
    storage->findChild<QPushButton *>(QStringLiteral("storageRun"))->click();
    QVERIFY(storage->isRunning());
    QVERIFY(!storage->findChild<QPushButton *>(QStringLiteral("storageRun"))->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120'000);
    QStringList failures;
    for (const Core::StorageConformanceRun &run : model->runs()) {
        if (run.state != Core::StorageConformanceRun::State::Passed)
            failures << run.name() + QStringLiteral(": ") + run.detail;
    }
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
    QCOMPARE(finished.at(0).at(0).toInt(), 45);
    QVERIFY2(
        status->text().startsWith(QStringLiteral("45 of 45 runs as the cases expect")), qPrintable(status->text()));
    const QModelIndex first = model->index(0, 0);
    QVERIFY2(first.data().toString().startsWith(QStringLiteral("\u2713 pass")), qPrintable(first.data().toString()));
}

void TestConformanceView::storageCases_cancelEndsTheRun()
{
    Ui::ConformanceView view;
    Ui::StorageConformanceView *storage = view.storageCases();
    QSignalSpy finished(storage, &Ui::StorageConformanceView::finished);
    storage->run();
    QVERIFY(storage->isRunning());
    storage->cancel();
    QCOMPARE(finished.size(), 1);
    QVERIFY(!storage->isRunning());
    const auto cancelled = std::count_if(storage->model()->runs().cbegin(), storage->model()->runs().cend(),
        [](const Core::StorageConformanceRun &r) { return r.state == Core::StorageConformanceRun::State::Cancelled; });
    QCOMPARE(cancelled, 45);
    QVERIFY(storage->findChild<QPushButton *>(QStringLiteral("storageRun"))->isEnabled());
}

QTEST_MAIN(TestConformanceView)
#include "tst_conformanceview.moc"
