// The Monitors tab in the whole window: monitors run against the embedded
// server, their checks reach the table's beat bars and availabilities, a
// monitor's history is read off the window's thread and a click on a check
// opens its attempts in the run views; the incidents of all monitors; a
// history that cannot be opened; a change of state told without a tray; and
// closing to the tray, asked once, then quitting.

#include "core/monitor/monitorsfilewriter.h"
#include "tests/core/history/historyfixtures.h"
#include "tests/ui/session/monitor/monitorfixtures.h"
#include "tests/ui/windowparts.h"
#include "ui/monitor/incidentlistmodel.h"
#include "ui/monitor/incidentsview.h"
#include "ui/monitor/monitoreditdialog.h"
#include "ui/monitor/monitorhistorypage.h"
#include "ui/monitor/monitorhistoryview.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/monitor/monitorsview.h"
#include "ui/monitorcontroller.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/monitor/monitorhost.h"

#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace RetryLab;
using namespace RetryLab::Ui;
using RetryLab::Testing::monitorOf;

namespace {

MonitorController *controllerOf(const QObject &window)
{
    return windowPart<MonitorController>(window, "monitorController");
}

QString cellText(const MonitorListModel &model, const QString &monitor, int column)
{
    return model.index(model.rowOf(monitor), column).data().toString();
}

} // namespace

class TestMonitorWindow : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;

    std::unique_ptr<MainWindow> makeWindow(std::optional<bool> tray = false)
    {
        MainWindow::Options options;
        options.dataDirectory = m_dir->path();
        options.systemTray = tray;
        auto window = std::make_unique<MainWindow>(options);
        window->resize(1024, 640);
        window->show();
        return window;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_monitorwindow"));
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        // The settings file outlives a test (and a run): what the last one chose goes.
        Settings settings;
        settings.setCloseWithMonitors(Settings::CloseWithMonitors::Ask);
        settings.setMonitorDatabase(QString());
    }

    void monitors_checksReachTheTable_andTheHistoryOpensACheck()
    {
        auto window = makeWindow();
        MonitorController *controller = controllerOf(*window);
        auto *label = windowPart<QLabel>(*window, "monitorDatabase");
        QVERIFY2(label->text().contains(QLatin1String("opened with the first monitor")), qPrintable(label->text()));
        QVERIFY(!QFile::exists(m_dir->filePath(QStringLiteral("history.sqlite"))));

        // View > Monitors, Alt+9, shows the Monitors tab.
        auto *showMonitors = windowPart<QAction>(*window, "showTab9");
        QCOMPARE(showMonitors->shortcut(), QKeySequence(Qt::ALT | Qt::Key_9));
        showMonitors->trigger();
        QCOMPARE(window->currentTab(), MainWindow::Tab::Monitors);

        const QUrl server = window->server()->baseUrl();
        QVERIFY(controller->host()->addMonitor(monitorOf(server,
            R"({"name": "flaky", "url": "{{server}}/fail/1?key={id}", "intervalMs": 400, "policy": {"preset":
            "google-cloud-storage", "overrides": {"baseDelayMs": 20, "maxBackoffMs": 40, "jitterMs": 0}}})")));
        QTRY_VERIFY_WITH_TIMEOUT(controller->host()->isOpen(), 20'000);
        QTRY_VERIFY(label->text().contains(m_dir->filePath(QStringLiteral("history.sqlite"))));
        QVERIFY(!label->text().contains(QLatin1String("opened with")));

        MonitorListModel *model = windowPart<MonitorsView>(*window, "monitors")->model();
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 1, 5000);
        // Two checks, each a failed attempt then a good one: beats with two attempts.
        QTRY_VERIFY_WITH_TIMEOUT(model->index(0, MonitorListModel::RecentChecks)
                                     .data(MonitorListModel::BeatsRole)
                                     .value<QList<MonitorBeat>>()
                                     .size()
                >= 2,
            20'000);
        const auto beats = model->index(0, MonitorListModel::RecentChecks)
                               .data(MonitorListModel::BeatsRole)
                               .value<QList<MonitorBeat>>();
        QCOMPARE(beats.constFirst().attempts, 2);
        QCOMPARE(beats.constFirst().failedAttempts, 1);
        QVERIFY(beats.constFirst().success);

        // The day's figures: every check good, half the attempts. Checks reach the
        // history in batches, a second apart: read again until they are there.
        QTimer again;
        connect(&again, &QTimer::timeout, controller, &MonitorController::refresh);
        again.start(1000);
        QTRY_COMPARE_WITH_TIMEOUT(
            cellText(*model, QStringLiteral("flaky"), MonitorListModel::Checks24h), QStringLiteral("100.00 %"), 20'000);
        QVERIFY2(
            cellText(*model, QStringLiteral("flaky"), MonitorListModel::Attempts24h).startsWith(QLatin1String("5")),
            qPrintable(cellText(*model, QStringLiteral("flaky"), MonitorListModel::Attempts24h)));

        // Every check hid a fault: the incidents list says so.
        auto *incidents = windowPart<IncidentsView>(*window, "incidents");
        QTRY_VERIFY_WITH_TIMEOUT(incidents->findChild<IncidentListModel *>()->rowCount() >= 1, 20'000);

        // Its history, read off the window's thread; a click on a check opens it.
        auto *monitors = windowPart<MonitorsView>(*window, "monitors");
        QVERIFY(monitors->selectMonitor(QStringLiteral("flaky")));
        QSignalSpy windows(
            windowPart<MonitorHistoryPage>(*window, "monitorHistory"), &MonitorHistoryPage::windowRequested);
        Q_EMIT monitors->historyRequested(QStringLiteral("flaky"));
        QCOMPARE(window->currentTab(), MainWindow::Tab::MonitorHistory);
        auto *page = windowPart<MonitorHistoryPage>(*window, "monitorHistory");
        QTRY_VERIFY_WITH_TIMEOUT(!page->historyView()->checkPoints().isEmpty(), 20'000);
        const qint64 first = page->historyView()->checkPoints().constFirst().startMs;
        Q_EMIT page->checkActivated(QStringLiteral("flaky"), first);
        auto *opened = windowPart<OpenedRun>(*window, "openedRun");
        QTRY_VERIFY_WITH_TIMEOUT(opened->isOpen(), 20'000);
        QVERIFY2(opened->title().startsWith(QLatin1String("Check of flaky at ")), qPrintable(opened->title()));
        QCOMPARE(window->currentTab(), MainWindow::Tab::Timeline);
        QCOMPARE(sessionOf(*window)->attemptRowCount(), 0); // the live run is untouched
        // The inspector shows the check's failed attempt.
        QTRY_VERIFY(inspectorDockOf(*window)->isVisible());
        QCOMPARE(inspectorOf(*window)->currentRow(), 0);
        QVERIFY(window->windowTitle().contains(QLatin1String("Check of flaky")));
    }

    void aStoredHistory_isShown_incidentsAndTheMonth()
    {
        // A history as the engine writes it, of a monitor that is paused now:
        // an hour of checks a minute, with an outage (checks 10-12 failed) and a
        // stretch the retries hid (checks 30-31 needed a second attempt).
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const qint64 start = now - 3'600'000;
        QList<Core::StoredCheck> checks;
        for (int i = 0; i < 60; ++i) {
            QList<bool> outcomes{true};
            if (i >= 10 && i <= 12)
                outcomes = {false, false};
            else if (i == 30 || i == 31)
                outcomes = {false, true};
            checks.append(
                Testing::checkOf(QStringLiteral("api"), QStringLiteral("here"), start + i * 60'000, outcomes));
        }
        QVERIFY(Testing::writeHistory(m_dir->filePath(QStringLiteral("history.sqlite")), checks));
        Core::Monitor paused
            = monitorOf(QUrl(QStringLiteral("http://127.0.0.1:9")), R"({"name": "api", "url": "{{server}}/",
            "intervalMs": 60000, "policy": "none", "paused": true})");
        QVERIFY(Core::MonitorsFileWriter::writeFile(m_dir->filePath(QStringLiteral("monitors.json")), {paused}));

        auto window = makeWindow();
        MonitorController *controller = controllerOf(*window);
        QTRY_VERIFY_WITH_TIMEOUT(controller->host()->isOpen(), 20'000);
        auto *incidents = windowPart<IncidentsView>(*window, "incidents");
        QTRY_COMPARE_WITH_TIMEOUT(incidents->model()->rowCount(), 2, 20'000);
        QStringList kinds;
        for (int row = 0; row < 2; ++row) {
            for (int column = 0; column < incidents->model()->columnCount(); ++column)
                kinds.append(incidents->model()->index(row, column).data().toString());
        }
        QVERIFY2(
            kinds.contains(QStringLiteral("hidden")) || kinds.join(QLatin1Char(' ')).contains(QLatin1String("Hidden")),
            qPrintable(kinds.join(QLatin1Char('|'))));

        // The beat bar starts from the history; the month shows all sixty checks.
        MonitorListModel *model = windowPart<MonitorsView>(*window, "monitors")->model();
        QTRY_VERIFY_WITH_TIMEOUT(!model->index(0, MonitorListModel::RecentChecks)
                                      .data(MonitorListModel::BeatsRole)
                                      .value<QList<MonitorBeat>>()
                                      .isEmpty(),
            20'000);
        auto *page = windowPart<MonitorHistoryPage>(*window, "monitorHistory");
        page->setCurrentMonitor(QStringLiteral("api"));
        page->setWindowMs(30LL * 86'400'000);
        QTRY_COMPARE_WITH_TIMEOUT(page->historyView()->checkPoints().size(), 60, 20'000);
        QTRY_VERIFY_WITH_TIMEOUT(page->summaryLabel()->text().contains(QLatin1String("95")), 20'000);
    }

    void theCurrentRequest_becomesAMonitor_keepingServer()
    {
        auto window = makeWindow();
        Core::RequestDraft draft = composerOf(*window)->draft();
        draft.urlTemplate = QStringLiteral("{server}/fail/1?key={id}");
        composerOf(*window)->setDraft(draft);
        auto *monitors = windowPart<MonitorsView>(*window, "monitors");
        Q_EMIT monitors->addFromCurrentRequestRequested();
        MonitorEditDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = monitors->findChild<MonitorEditDialog *>()) != nullptr);
        QCOMPARE(dialog->monitor().urlTemplate, QStringLiteral("{server}/fail/1?key={id}"));
        dialog->accept();
        MonitorController *controller = controllerOf(*window);
        QTRY_COMPARE(controller->host()->monitors().size(), 1);
        QCOMPARE(controller->host()->monitors().constFirst().urlTemplate, QStringLiteral("{server}/fail/1?key={id}"));
        // Its checks reach this start's server: a 503 first, then the retry's answer.
        QSignalSpy checks(controller->host(), &MonitorHost::checkFinished);
        QTRY_VERIFY_WITH_TIMEOUT(controller->host()->isOpen(), 20'000);
        const QString name = controller->host()->monitors().constFirst().name;
        QTRY_VERIFY_WITH_TIMEOUT(controller->host()->checkNow(name) || !checks.isEmpty(), 20'000);
        QTRY_VERIFY_WITH_TIMEOUT(!checks.isEmpty(), 20'000);
        const auto check = checks.constFirst().constFirst().value<Core::StoredCheck>();
        QVERIFY(!check.attempts.isEmpty());
        QCOMPARE(check.attempts.constFirst().status, std::optional<int>(503));
    }

    void aDownMonitor_isToldInTheMessageBar_withoutATray()
    {
        auto window = makeWindow(false);
        MonitorController *controller = controllerOf(*window);
        QVERIFY(!controller->trayIcon());
        QVERIFY(controller->host()->addMonitor(monitorOf(window->server()->baseUrl(),
            R"({"name": "broken", "url": "{{server}}/status/503", "intervalMs": 300, "policy": "none"})")));
        auto *messages = windowPart<MessageBar>(*window, "messages");
        QTRY_VERIFY_WITH_TIMEOUT(
            messages->messages().join(QLatin1Char('\n')).contains(QLatin1String("broken is down")), 20'000);
    }

    void aHistoryThatCannotOpen_isNamed_andSwitchingKeepsTheOldOne()
    {
        {
            auto window = makeWindow();
            settingsOf(*window)->setMonitorDatabase(m_dir->filePath(QStringLiteral("missing/folder/h.sqlite")));
        }
        auto window = makeWindow();
        MonitorController *controller = controllerOf(*window);
        QVERIFY(controller->host()->addMonitor(monitorOf(window->server()->baseUrl(),
            R"({"name": "ok", "url": "{{server}}/status/200", "intervalMs": 1000, "policy": "none"})")));
        auto *messages = windowPart<MessageBar>(*window, "messages");
        QTRY_VERIFY_WITH_TIMEOUT(
            messages->messages().join(QLatin1Char('\n')).contains(QLatin1String("could not be opened")), 20'000);
        QVERIFY(messages->messages().join(QLatin1Char('\n')).contains(QLatin1String("does not exist")));
        QVERIFY(!controller->host()->isOpen());

        // Preferences choose a good one: it opens, and the settings keep it.
        const QString good = m_dir->filePath(QStringLiteral("good.sqlite"));
        controller->switchDatabase(good);
        QTRY_VERIFY_WITH_TIMEOUT(controller->host()->isOpen(), 20'000);
        QCOMPARE(controller->host()->database(), good);
        QCOMPARE(settingsOf(*window)->monitorDatabase(), good);

        // A bad one while running: named, and nothing switches.
        controller->switchDatabase(m_dir->filePath(QStringLiteral("nowhere/x.sqlite")));
        QTRY_VERIFY_WITH_TIMEOUT(
            messages->messages().join(QLatin1Char('\n')).contains(QLatin1String("was not switched")), 20'000);
        QCOMPARE(controller->host()->database(), good);
        QCOMPARE(settingsOf(*window)->monitorDatabase(), good);
    }

    void closing_asksOnce_keepsMonitoringInTheTray_thenQuits()
    {
        auto window = makeWindow(true);
        MonitorController *controller = controllerOf(*window);
        QVERIFY(controller->trayIcon());
        QVERIFY(controller->host()->addMonitor(monitorOf(window->server()->baseUrl(),
            R"({"name": "ok", "url": "{{server}}/status/200", "intervalMs": 300, "policy": "none"})")));
        QTRY_VERIFY_WITH_TIMEOUT(controller->host()->isOpen(), 20'000);
        QTRY_VERIFY(controller->trayIcon()->isVisible());

        // The first close asks; keeping goes on monitoring with the window hidden.
        bool asked = false;
        QTimer::singleShot(0, this, [&asked] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            QVERIFY(box);
            QCOMPARE(box->objectName(), QStringLiteral("keepMonitoring"));
            asked = true;
            for (QAbstractButton *button : box->buttons()) {
                if (button->text().contains(QLatin1String("Keep monitoring")))
                    button->click();
            }
        });
        QVERIFY(!window->close());
        QVERIFY(asked);
        QVERIFY(!window->isVisible());
        QCOMPARE(settingsOf(*window)->closeWithMonitors(), Settings::CloseWithMonitors::KeepMonitoring);
        QSignalSpy checks(controller->host(), &MonitorHost::checkFinished);
        QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 2, 20'000);

        // The tray brings it back; a second close does not ask again.
        Q_EMIT controller->showWindowRequested();
        QVERIFY(window->isVisible());
        QVERIFY(!window->close());
        QVERIFY(!window->isVisible());

        // The tray's Quit ends monitoring and closes the window.
        QSignalSpy quit(controller, &MonitorController::quitRequested);
        controller->setQuitting();
        QVERIFY(window->close());
        QTRY_VERIFY_WITH_TIMEOUT(!controller->host()->isOpen() || !controller->trayIcon()->isVisible(), 20'000);
        QApplication::setQuitOnLastWindowClosed(true);
    }
};

QTEST_MAIN(TestMonitorWindow)
#include "tst_monitorwindow.moc"
