#include "core/util/englishplurals.h"
#include "tests/ui/session/sessionfixtures.h"
#include "ui/run/errorlogview.h"
#include "ui/session/run/runsession.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Fixtures;
using Ui::AttemptLogModel;
using Ui::ErrorLogView;
using Ui::RunSession;

class TestErrorLogView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void outcomeChooser_filtersTheModel();
    void textField_appliesAfterTypingPause();
    void textField_returnAndClear_applyAtOnce();
    void rowCount_saysShownAndTotal();
    void exportActions_emitFormatAndScope_data();
    void exportActions_emitFormatAndScope();
    void exportActions_disabledWithoutRows();
    void followNewest_keepsLastRowInSight();
    void activatedRow_reportsSessionRow();
    void headerClicks_sortThenRestoreFinishOrder();
    void selectedRows_inDisplayOrder();
    void showAttempt_selectsItsRow();

private:
    RunSession *m_session = nullptr;
    ErrorLogView *m_view = nullptr;
    SyntheticCounts m_counts;
    QAbstractItemModelTester *m_tester = nullptr;
};

void TestErrorLogView::initTestCase()
{
    Core::EnglishPlurals::install();
    QLocale::setDefault(QLocale::c());
}

void TestErrorLogView::init()
{
    m_session = new RunSession;
    m_counts = syntheticRun(*m_session, 300);
    m_session->flush();
    m_view = new ErrorLogView;
    m_view->resize(1200, 500);
    m_view->setSession(m_session);
    m_tester = new QAbstractItemModelTester(m_view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
}

void TestErrorLogView::cleanup()
{
    delete m_tester;
    delete m_view;
    delete m_session;
}

void TestErrorLogView::outcomeChooser_filtersTheModel()
{
    auto *chooser = m_view->findChild<QComboBox *>(QStringLiteral("outcomeFilter"));
    QVERIFY(chooser);
    QCOMPARE(chooser->currentText(), QStringLiteral("All attempts"));
    chooser->setCurrentIndex(chooser->findText(QStringLiteral("Final failures")));
    QCOMPARE(m_view->model()->outcomeFilter(), AttemptLogModel::OutcomeFilter(AttemptLogModel::ShowFailed));
    QCOMPARE(qint64(m_view->model()->rowCount()), m_counts.failed);
    chooser->setCurrentIndex(chooser->findText(QStringLiteral("Failures")));
    QCOMPARE(qint64(m_view->model()->rowCount()), m_counts.failed + m_counts.retried);
    chooser->setCurrentIndex(chooser->findText(QStringLiteral("Successes")));
    QCOMPARE(qint64(m_view->model()->rowCount()), m_counts.succeeded);
}

void TestErrorLogView::textField_appliesAfterTypingPause()
{
    auto *field = m_view->findChild<QLineEdit *>(QStringLiteral("textFilter"));
    QVERIFY(field);
    QTest::keyClicks(field, QStringLiteral("429"));
    QCOMPARE(m_view->model()->textFilter(), QString()); // not per keystroke
    QTRY_COMPARE(m_view->model()->textFilter(), QStringLiteral("429"));
    for (int row = 0; row < m_view->model()->rowCount(); ++row)
        QCOMPARE(m_view->model()->index(row, AttemptLogModel::Cause).data().toString(), QStringLiteral("http-429"));
    QVERIFY(m_view->model()->rowCount() > 0);
}

void TestErrorLogView::textField_returnAndClear_applyAtOnce()
{
    auto *field = m_view->findChild<QLineEdit *>(QStringLiteral("textFilter"));
    QTest::keyClicks(field, QStringLiteral("refused"));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(m_view->model()->textFilter(), QStringLiteral("refused"));
    QCOMPARE(qint64(m_view->model()->rowCount()), 3 * m_counts.failed);
    field->clear(); // what the clear button does
    QCOMPARE(m_view->model()->textFilter(), QString());
    QCOMPARE(qint64(m_view->model()->rowCount()), m_counts.attempts);
}

void TestErrorLogView::rowCount_saysShownAndTotal()
{
    auto *count = m_view->findChild<QLabel *>(QStringLiteral("rowCount"));
    QVERIFY(count);
    QCOMPARE(count->text(), QStringLiteral("%1 attempts").arg(QLocale().toString(m_counts.attempts)));
    m_view->model()->setOutcomeFilter(AttemptLogModel::ShowFailed);
    QCOMPARE(count->text(),
        QStringLiteral("%1 of %2 attempts")
            .arg(QLocale().toString(m_counts.failed), QLocale().toString(m_counts.attempts)));
    m_session->clear();
    m_session->recordAttempt(httpAttempt(1, 0, 0, 1, 200));
    m_session->flush();
    m_view->model()->setOutcomeFilter(AttemptLogModel::ShowAll);
    QCOMPARE(count->text(), QStringLiteral("1 attempt"));
}

void TestErrorLogView::exportActions_emitFormatAndScope_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<ErrorLogView::ExportFormat>("format");
    QTest::addColumn<bool>("onlyVisible");
    QTest::addRow("all as CSV") << 0 << ErrorLogView::ExportFormat::Csv << false;
    QTest::addRow("shown as CSV") << 1 << ErrorLogView::ExportFormat::Csv << true;
    QTest::addRow("all as JSON") << 2 << ErrorLogView::ExportFormat::Json << false;
    QTest::addRow("shown as JSON") << 3 << ErrorLogView::ExportFormat::Json << true;
}

void TestErrorLogView::exportActions_emitFormatAndScope()
{
    QFETCH(int, action);
    QFETCH(ErrorLogView::ExportFormat, format);
    QFETCH(bool, onlyVisible);
    QSignalSpy requested(m_view, &ErrorLogView::exportRequested);
    QCOMPARE(m_view->exportActions().size(), 4);
    m_view->exportActions().at(action)->trigger();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.first().at(0).value<ErrorLogView::ExportFormat>(), format);
    QCOMPARE(requested.first().at(1).toBool(), onlyVisible);

    // What a receiver does with it: the shown rows become a RunRecord for the writers.
    m_view->model()->setTextFilter(QStringLiteral("503"));
    const Core::RunRecord record = m_session->runRecord(m_view->visibleFinishedIndexes());
    QCOMPARE(record.attempts.size(), m_view->model()->rowCount());
    for (const AttemptRecord &a : record.attempts)
        QVERIFY(a.httpStatus == 503 || a.reason.contains(QLatin1String("503")));
}

void TestErrorLogView::exportActions_disabledWithoutRows()
{
    m_view->model()->setTextFilter(QStringLiteral("no such text"));
    QVERIFY(m_view->exportActions().at(0)->isEnabled()); // all rows: there are some
    QVERIFY(!m_view->exportActions().at(1)->isEnabled()); // shown rows: none
    m_session->clear();
    for (QAction *action : m_view->exportActions())
        QVERIFY(!action->isEnabled());
}

void TestErrorLogView::followNewest_keepsLastRowInSight()
{
    QTableView *table = m_view->tableView();
    QVERIFY(m_view->followNewest());
    syntheticRun(*m_session, 200, 9, 5.0, 10'000);
    m_session->flush();
    QTRY_COMPARE(table->verticalScrollBar()->value(), table->verticalScrollBar()->maximum());
    QVERIFY(table->verticalScrollBar()->maximum() > 0);

    m_view->setFollowNewest(false);
    table->scrollToTop();
    syntheticRun(*m_session, 200, 10, 5.0, 20'000);
    m_session->flush();
    QCoreApplication::processEvents();
    QCOMPARE(table->verticalScrollBar()->value(), 0);
}

void TestErrorLogView::activatedRow_reportsSessionRow()
{
    QSignalSpy activated(m_view, &ErrorLogView::attemptActivated);
    QTableView *table = m_view->tableView();
    const QModelIndex index = m_view->model()->index(5, AttemptLogModel::Reason);
    table->scrollTo(index);
    // Enter on the current row (a double-click does the same, by the platform's rule).
    table->setFocus();
    table->setCurrentIndex(index);
    QTest::keyClick(table, Qt::Key_Return);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.first().first().toLongLong(), qlonglong(m_session->finishedRow(5)));
}

void TestErrorLogView::headerClicks_sortThenRestoreFinishOrder()
{
    QTableView *table = m_view->tableView();
    QHeaderView *header = table->horizontalHeader();
    QCOMPARE(header->sortIndicatorSection(), -1); // starts in the order attempts finished
    const int x = header->sectionViewportPosition(AttemptLogModel::Duration) + 5;
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, 5));
    QCOMPARE(header->sortIndicatorSection(), int(AttemptLogModel::Duration));
    const double first
        = m_view->model()->index(0, AttemptLogModel::Duration).data(AttemptLogModel::SortRole).toDouble();
    const double last = m_view->model()
                            ->index(m_view->model()->rowCount() - 1, AttemptLogModel::Duration)
                            .data(AttemptLogModel::SortRole)
                            .toDouble();
    QVERIFY(first != last);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, 5));
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, 5));
    QCOMPARE(header->sortIndicatorSection(), -1);
    for (int row = 0; row < 50; ++row)
        QCOMPARE(m_view->model()->finishedIndexAt(row), row);
}

void TestErrorLogView::selectedRows_inDisplayOrder()
{
    QTableView *table = m_view->tableView();
    table->selectionModel()->select(
        m_view->model()->index(7, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    table->selectionModel()->select(
        m_view->model()->index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(m_view->selectedFinishedIndexes(), (QList<qsizetype>{2, 7}));
}

void TestErrorLogView::showAttempt_selectsItsRow()
{
    m_view->model()->sort(AttemptLogModel::Duration, Qt::DescendingOrder);
    const qsizetype finished = 123;
    const qsizetype sessionRow = m_session->finishedRow(finished);
    QCOMPARE(m_session->finishedIndexOfRow(sessionRow), finished);
    QVERIFY(m_view->showAttempt(sessionRow));
    QCOMPARE(m_view->selectedFinishedIndexes(), (QList<qsizetype>{finished}));
    QCOMPARE(m_view->tableView()->currentIndex().data(AttemptLogModel::SessionRowRole).toLongLong(), sessionRow);

    // Hidden by the filter, in flight, or unknown: nothing to show.
    m_view->model()->setOutcomeFilter(AttemptLogModel::ShowCancelled);
    QVERIFY(!m_view->showAttempt(sessionRow));
    m_session->recordAttemptStarted(99'999, 0, 0);
    QVERIFY(!m_view->showAttempt(m_session->attemptRowCount() - 1));
    QVERIFY(!m_view->showAttempt(-1));
}

QTEST_MAIN(TestErrorLogView)
#include "tst_errorlogview.moc"
