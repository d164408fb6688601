#include "incidentfixtures.h"
#include "ui/monitor/incidentfilter.h"
#include "ui/monitor/incidentlistmodel.h"
#include "ui/monitor/incidentsview.h"
#include "ui/widgets/fieldmessage.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using Ui::IncidentListModel;
using Ui::IncidentsView;

namespace {

const qint64 dayStart = QDateTime(QDate(2026, 11, 1), QTime(0, 0), QTimeZone::utc()).toMSecsSinceEpoch();

} // namespace

class TestIncidentsView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void filterBar_narrowsTheTable();
    void monitorChooser_listsTheMonitors_andKeepsTheChoice();
    void activating_aRow_emitsItsIncident();
    void ctrlK_togglesTheAcknowledgement_andTellsTheOwner();
    void exportButton_writesTheShownRowsAsCsv();
    void exportButton_unwritablePath_showsTheError();
    void fitsTheSmallWindow();

private:
    IncidentsView *m_view = nullptr;
    QTemporaryDir m_dir;
};

void TestIncidentsView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestIncidentsView::init()
{
    m_view = new IncidentsView;
    m_view->model()->setTimeZone(QTimeZone::utc());
    m_view->setIncidents(Fixtures::threeIncidents(dayStart));
    m_view->resize(900, 400);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
}

void TestIncidentsView::cleanup()
{
    delete m_view;
    m_view = nullptr;
}

void TestIncidentsView::filterBar_narrowsTheTable()
{
    QAbstractItemModelTester tester(m_view->table()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m_view->table()->model()->rowCount(), 3);
    QTest::keyClicks(m_view->filterText(), QStringLiteral("503"));
    QCOMPARE(m_view->table()->model()->rowCount(), 1);
    m_view->filterText()->clear();
    m_view->hiddenOnly()->click();
    QCOMPARE(m_view->shownIncidents().size(), 1);
    QVERIFY(m_view->shownIncidents().first().hidden);
    m_view->hiddenOnly()->click();
    m_view->setAcknowledged({IncidentListModel::key(m_view->model()->incidents().at(1))});
    m_view->unacknowledgedOnly()->click();
    QCOMPARE(m_view->shownIncidents().size(), 2);
    // The newest first by default.
    QCOMPARE(m_view->shownIncidents().first().monitor, QStringLiteral("billing"));
}

void TestIncidentsView::monitorChooser_listsTheMonitors_andKeepsTheChoice()
{
    QComboBox *chooser = m_view->monitorChooser();
    QCOMPARE(chooser->count(), 3); // all, api, billing
    chooser->setCurrentIndex(chooser->findData(QStringLiteral("api")));
    QCOMPARE(m_view->shownIncidents().size(), 2);
    QList<Core::Incident> more = Fixtures::threeIncidents(dayStart);
    more.first().monitor = QStringLiteral("cache");
    m_view->setIncidents(more);
    QCOMPARE(chooser->count(), 4);
    QCOMPARE(chooser->currentData().toString(), QStringLiteral("api"));
    QCOMPARE(m_view->shownIncidents().size(), 1);
}

void TestIncidentsView::activating_aRow_emitsItsIncident()
{
    QSignalSpy activated(m_view, &IncidentsView::incidentActivated);
    m_view->table()->setFocus();
    m_view->table()->setCurrentIndex(m_view->table()->model()->index(0, 0));
    QTest::keyClick(m_view->table(), Qt::Key_Return);
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.first().first().value<Core::Incident>().monitor, QStringLiteral("billing"));
}

void TestIncidentsView::ctrlK_togglesTheAcknowledgement_andTellsTheOwner()
{
    QSignalSpy changed(m_view, &IncidentsView::acknowledgementChanged);
    m_view->table()->setFocus();
    m_view->table()->setCurrentIndex(m_view->table()->model()->index(0, 0));
    QTest::keyClick(m_view->table(), Qt::Key_K, Qt::ControlModifier);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toString(), IncidentListModel::key(m_view->shownIncidents().first()));
    QCOMPARE(changed.first().at(1).toBool(), true);
    QVERIFY(m_view->acknowledged().contains(changed.first().at(0).toString()));
    QTest::keyClick(m_view->table(), Qt::Key_K, Qt::ControlModifier);
    QCOMPARE(changed.size(), 2);
    QCOMPARE(changed.last().at(1).toBool(), false);
}

void TestIncidentsView::exportButton_writesTheShownRowsAsCsv()
{
    const QString path = m_dir.filePath(QStringLiteral("incidents.csv"));
    m_view->setSaveChooser([&path](const QString &) { return path; });
    m_view->hiddenOnly()->click();
    m_view->exportButton()->click();
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray csv = file.readAll();
    QCOMPARE(csv, IncidentListModel::toCsv(m_view->shownIncidents(), m_view->acknowledged()));
    QCOMPARE(csv.count('\n'), 2);
    QCOMPARE(m_view->message()->kind(), Ui::FieldMessage::Kind::Success);
}

void TestIncidentsView::exportButton_unwritablePath_showsTheError()
{
    const QString path = m_dir.filePath(QStringLiteral("no/such/folder/incidents.csv"));
    m_view->setSaveChooser([&path](const QString &) { return path; });
    m_view->exportButton()->click();
    QCOMPARE(m_view->message()->kind(), Ui::FieldMessage::Kind::Error);
    QVERIFY(!QFile::exists(path));
    QVERIFY(!m_view->exportCsv(path).ok());
}

void TestIncidentsView::fitsTheSmallWindow()
{
    QVERIFY(m_view->minimumSizeHint().width() <= 1024 / 1.5);
    QVERIFY(m_view->minimumSizeHint().height() <= 640 / 2);
}

QTEST_MAIN(TestIncidentsView)
#include "tst_incidentsview.moc"
