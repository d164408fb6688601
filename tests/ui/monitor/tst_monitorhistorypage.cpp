#include "ui/monitor/monitorhistorypage.h"
#include "ui/monitor/monitorhistoryview.h"
#include "ui/monitor/objectivepanel.h"
#include "ui/monitor/whatifpanel.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

using namespace RetryLab;
using Ui::MonitorHistoryPage;

namespace {

constexpr qint64 hourMs = 3600LL * 1000;
const qint64 now = QDateTime(QDate(2026, 11, 29), QTime(12, 0), QTimeZone::utc()).toMSecsSinceEpoch();

} // namespace

class TestMonitorHistoryPage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void choosingAMonitor_asksForTheLast24Hours();
    void windowButtons_askForTheirWindow_andSetTheView();
    void monitorsRelisted_keepTheChoice_withoutAsking();
    void summary_readsAvailabilityAttemptsIncidentsMtbfMttr();
    void forwards_checkActivatedAndWhatIf_withTheMonitorAndWindow();
    void objective_noneOrStatus();
    void logScaleBox_switchesTheView();
    void fits1024x640_atScale1point5();

private:
    MonitorHistoryPage *m_page = nullptr;
};

void TestMonitorHistoryPage::init()
{
    QLocale::setDefault(QLocale::c());
    m_page = new MonitorHistoryPage;
    m_page->setNowSource([] { return now; });
    m_page->resize(1000, 600);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page));
}

void TestMonitorHistoryPage::cleanup()
{
    delete m_page;
    m_page = nullptr;
}

void TestMonitorHistoryPage::choosingAMonitor_asksForTheLast24Hours()
{
    QSignalSpy requested(m_page, &MonitorHistoryPage::windowRequested);
    m_page->setMonitors({QStringLiteral("api"), QStringLiteral("billing")});
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.last().at(0).toString(), QStringLiteral("api"));
    QCOMPARE(requested.last().at(1).toLongLong(), now - 24 * hourMs);
    QCOMPARE(requested.last().at(2).toLongLong(), now);
    m_page->monitorChooser()->setCurrentIndex(1);
    QCOMPARE(requested.size(), 2);
    QCOMPARE(requested.last().at(0).toString(), QStringLiteral("billing"));
    QCOMPARE(m_page->summaryLabel()->text(), QStringLiteral("Reading\u2026"));
}

void TestMonitorHistoryPage::windowButtons_askForTheirWindow_andSetTheView()
{
    m_page->setMonitors({QStringLiteral("api")});
    QSignalSpy requested(m_page, &MonitorHistoryPage::windowRequested);
    m_page->windowButton(7 * 24 * hourMs)->click();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.last().at(1).toLongLong(), now - 7 * 24 * hourMs);
    QCOMPARE(m_page->windowMs(), 7 * 24 * hourMs);
    QCOMPARE(m_page->historyView()->windowSinceMs(), now - 7 * 24 * hourMs);
    QCOMPARE(m_page->historyView()->timeScale().spanMs(), 7.0 * 24 * hourMs);
    m_page->setWindowMs(hourMs);
    QCOMPARE(requested.last().at(1).toLongLong(), now - hourMs);
    QVERIFY(m_page->windowButton(hourMs)->isChecked());
    QVERIFY(m_page->windowButton(30 * 24 * hourMs)->focusPolicy() & Qt::TabFocus);
}

void TestMonitorHistoryPage::monitorsRelisted_keepTheChoice_withoutAsking()
{
    m_page->setMonitors({QStringLiteral("api"), QStringLiteral("billing")});
    m_page->setCurrentMonitor(QStringLiteral("billing"));
    QSignalSpy requested(m_page, &MonitorHistoryPage::windowRequested);
    m_page->setMonitors({QStringLiteral("billing"), QStringLiteral("cache")});
    QCOMPARE(m_page->currentMonitor(), QStringLiteral("billing"));
    QCOMPARE(requested.size(), 0);
    m_page->setMonitors({QStringLiteral("cache")});
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.last().at(0).toString(), QStringLiteral("cache"));
}

void TestMonitorHistoryPage::summary_readsAvailabilityAttemptsIncidentsMtbfMttr()
{
    Core::MonitorSummary summary;
    summary.checks = 8640;
    summary.checksSucceeded = 8600;
    summary.checkAvailability = 0.995;
    summary.attemptAvailability = 0.97;
    summary.attemptsPerCheck = 1.04;
    summary.incidents = 2;
    summary.hiddenIncidents = 5;
    summary.mtbfMs = 12.0 * hourMs;
    summary.mttrMs = 4.0 * 60'000;
    m_page->setSummary(summary);
    QCOMPARE(m_page->summaryLabel()->text(),
        QStringLiteral("Checks 99.5 % available (attempts 97 %) \u00b7 1.04 attempts per check \u00b7 2 incident(s), "
                       "5 hidden by retries \u00b7 MTBF 12 h \u00b7 MTTR 4 min"));
    QCOMPARE(MonitorHistoryPage::summaryText(Core::MonitorSummary{}), QStringLiteral("No checks in this window."));
}

void TestMonitorHistoryPage::forwards_checkActivatedAndWhatIf_withTheMonitorAndWindow()
{
    m_page->setMonitors({QStringLiteral("api")});
    QSignalSpy activated(m_page, &MonitorHistoryPage::checkActivated);
    QSignalSpy whatIf(m_page, &MonitorHistoryPage::whatIfRequested);
    QSignalSpy ranges(m_page, &MonitorHistoryPage::rangeChanged);
    Core::CheckPoint point;
    point.startMs = now - 12 * hourMs;
    point.durationMs = 100.0F;
    point.attempts = 1;
    point.success = true;
    m_page->setCheckPoints({point});
    Ui::MonitorHistoryView *view = m_page->historyView();
    const QPoint at(int(std::floor(view->xForTime(point.startMs))), view->plotRect().center().y());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.first().at(0).toString(), QStringLiteral("api"));
    QCOMPARE(activated.first().at(1).toLongLong(), point.startMs);

    m_page->whatIfPanel()->replayButton()->click();
    QCOMPARE(whatIf.size(), 1);
    QCOMPARE(whatIf.first().at(0).toString(), QStringLiteral("api"));
    QCOMPARE(whatIf.first().at(1).toLongLong(), now - 24 * hourMs);
    QCOMPARE(whatIf.first().at(2).toLongLong(), now);
    QCOMPARE(whatIf.first().at(3).value<Core::BackoffPolicy>().maxAttempts, 1);

    view->setFocus();
    QTest::keyClick(view, Qt::Key_Plus);
    QTRY_COMPARE_WITH_TIMEOUT(ranges.size(), 1, 2000);
    QCOMPARE(ranges.first().at(0).toString(), QStringLiteral("api"));
}

void TestMonitorHistoryPage::objective_noneOrStatus()
{
    m_page->setObjective(std::nullopt);
    QVERIFY(!m_page->objectivePanel()->hasObjective());
    Core::ObjectiveStatus status;
    status.target = 0.999;
    m_page->setObjective(status);
    QVERIFY(m_page->objectivePanel()->hasObjective());
}

void TestMonitorHistoryPage::logScaleBox_switchesTheView()
{
    m_page->logScaleBox()->click();
    QVERIFY(m_page->historyView()->logScale());
}

void TestMonitorHistoryPage::fits1024x640_atScale1point5()
{
    // At QT_SCALE_FACTOR=1.5 a 1024x640 window gives the page about 680x420 logical pixels,
    // less the main window's menu, tabs and status bar.
    const QSize needed = m_page->minimumSizeHint();
    QVERIFY2(needed.width() <= 660, qPrintable(QString::number(needed.width())));
    QVERIFY2(needed.height() <= 380, qPrintable(QString::number(needed.height())));
    m_page->resize(660, 380);
    QVERIFY(m_page->historyView()->height() >= 150);
    QVERIFY(m_page->historyView()->plotRect().height() >= 40);
}

QTEST_MAIN(TestMonitorHistoryPage)
#include "tst_monitorhistorypage.moc"
