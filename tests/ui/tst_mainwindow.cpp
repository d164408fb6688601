#include "core/executor/threadedexecutor.h"
#include "core/export/csvexport.h"
#include "core/export/grpcserviceconfig.h"
#include "core/export/reportjson.h"
#include "core/faultserver/faultserver.h"
#include "core/herd/herdparameters.h"
#include "core/policy/presets.h"
#include "tests/ui/offscreenscreen.h"
#include "tests/ui/windowparts.h"
#include "ui/conformance/conformanceview.h"
#include "ui/herd/simulatorview.h"
#include "ui/mainwindow.h"
#include "ui/policy/grpcmethoddialog.h"
#include "ui/policy/policyeditor.h"
#include "ui/policy/policypanel.h"
#include "ui/request/requestcomposer.h"
#include "ui/run/attemptlogmodel.h"
#include "ui/run/errorlogview.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/server/serverview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/messagebar.h"
#include "ui/widgets/serverlogmodel.h"
#include "ui/widgets/wheelguard.h"

#include <QAbstractItemModelTester>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QFile>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTabWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QWheelEvent>

#include <memory>

using namespace RetryLab;
using Ui::MainWindow;

namespace {

// Fast enough for a test, and without jitter so that the schedule is known.
Core::BackoffPolicy fastPolicy()
{
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("Window test");
    policy.algorithm = Core::BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 20.0;
    policy.multiplier = 2.0;
    policy.maxBackoffMs = 200.0;
    policy.maxAttempts = 5;
    policy.attemptTimeoutMs = 5000.0;
    return policy;
}

QList<qint16> statusesOfLane(const Ui::RunSession &session, qsizetype lane)
{
    QList<qint16> statuses;
    for (quint32 row = session.lane(lane).firstRow; row != Ui::RunSession::noRow;
         row = session.attemptRow(row).nextInLane)
        statuses.append(session.attemptRow(row).httpStatus);
    return statuses;
}

// X11's key bindings give a line edit Emacs' Ctrl+E (end of line), and a spin box's line
// edit claims it before the window's shortcuts see it; the offscreen platform has no such
// binding, so the tests claim the key as X11's do.
class ClaimCtrlEAsX11Does final : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == QEvent::ShortcutOverride
            && static_cast<QKeyEvent *>(event)->keyCombination() == QKeyCombination(Qt::ControlModifier, Qt::Key_E))
            event->accept();
        return false;
    }
};

} // namespace

class TestMainWindow final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void startsWithTheServerAndItsAddress();
    void send_againstTheEmbeddedServer_fillsLogTimelineAndStatistics();
    void sendAgain_getsAFreshKeyAndFailsThreeTimesAgain();
    void batch_keepsTheConcurrencyLimitAndShowsProgress();
    void batch_againstAnOpenBreaker_countsEveryRefusal();
    void repeat_untilEscStops();
    void sendActions_recordTheSentUrlOncePerAction_cursorStays();
    void keyboard_ctrlReturnSends_ctrlEExports();
    void keyboard_ctrlEExportsFromASpinBox();
    void invalidUrl_disablesSendWithTheReason();
    void unusablePolicy_disablesSendWithTheReason();
    void serverScenario_perRequestCopy_isApplied();
    void serverScenario_sharedCopy_isUsedUp();
    void serverScenario_invalid_refusesToSend();
    void export_writesFilesThatParseBack();
    void export_policyChangedBetweenRequests_reportNamesEachWithItsRequests();
    void export_fromTheErrorLog_writesShownRows();
    void export_unwritable_saysSoAndKeepsTheRun();
    void copyAsCurl_isRedacted();
    void policy_exportAndImportThroughTheMenu();
    void statusBar_showsBreakerAndBudget();
    void clearRun_forgetsTheAttempts();
    void clearRun_duringABatch_leavesNoLaneBehind();
    void settings_requestLayoutAndRecentUrls_surviveARestart();
    void settings_corruptFile_isReportedInTheWindow();
    void settings_damagedLayout_isRefused_windowKeepsItsDefaultLayout();
    void settings_simulatorAndConformanceChoice_surviveARestart();
    void serverCannotStart_windowStillWorks();
    void conformanceTab_runsTheEditedPolicyOnTheAppServer();
    void presentation_largerTimelineAloneThenRestored();
    void wheel_overUnfocusedFields_changesNoValueAnywhere();
    void keyboard_ctrlLReopensTheRequestDock_altNumberFocusesTheTab();
    void keyboard_tabGoesFromTheUrlToSendToTheResults_andLeavesTheLog();
    void layout_fitsA1024x640Screen();
    void help_listsTheKeyboardShortcutsOfTheMenus();
    void help_guideShowsTheWindowGuide();
    void compareAndReplay_areButtonsUnderSend();
    void clientsAndProxyTimelines_sayHowToFillThem();
    void layout_at1366x768_conformanceShowsEveryRow_herdRunInView();
    void layout_at1286x691_conformanceShowsEveryRow();

private:
    std::unique_ptr<MainWindow> makeWindow(const MainWindow::Options &options = {});
    bool sendAndWait(MainWindow &window, int results);
    static QString settingsPath() { return QSettings().fileName(); }

    QTemporaryDir m_dir;
    QStringList m_chosen; ///< titles the file chooser was asked with
    QString m_nextFile;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QVERIFY(settingsPath().contains(QLatin1String("qttest")));
    QVERIFY(m_dir.isValid());
    QLocale::setDefault(QLocale::c());
}

void TestMainWindow::init()
{
    // Cleared through QSettings too: Qt keeps the file's contents cached in the
    // process, and a file removed and written again within the same second
    // with the same size may be taken for the cached one.
    {
        QSettings settings;
        settings.clear();
        settings.sync();
    }
    QFile::remove(settingsPath());
    m_chosen.clear();
    m_nextFile.clear();
}

void TestMainWindow::cleanup()
{
    QFile::remove(settingsPath());
}

std::unique_ptr<MainWindow> TestMainWindow::makeWindow(const MainWindow::Options &options)
{
    auto window = std::make_unique<MainWindow>(options);
    policyPanelOf(*window)->setPolicy(fastPolicy());
    exportsOf(*window)->setFileChooser(
        [this](QFileDialog::AcceptMode, const QString &title, const QString &, const QString &, QString *) {
            m_chosen.append(title);
            return m_nextFile;
        });
    window->show();
    window->activateWindow();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    return window;
}

bool TestMainWindow::sendAndWait(MainWindow &window, int results)
{
    composerOf(window)->sendAction()->trigger();
    if (!QTest::qWaitFor([&] { return sessionOf(window)->resultCount() >= results; }, 15'000))
        return false;
    sessionOf(window)->flush();
    return true;
}

void TestMainWindow::startsWithTheServerAndItsAddress()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(window->server()->isRunning());
    const QString url = window->server()->baseUrl().toString();
    QVERIFY(url.startsWith(QLatin1String("http://127.0.0.1:")));
    QVERIFY(window->findChild<QLabel *>(QStringLiteral("serverStatus"))->text().contains(url));
    QCOMPARE(policyDockOf(*window)->objectName(), QStringLiteral("policyDock"));
    QCOMPARE(requestDockOf(*window)->objectName(), QStringLiteral("requestDock"));
    QCOMPARE(tabsOf(*window)->count(), 9);
    QVERIFY(composerOf(*window)->canSend());
    QVERIFY(composerOf(*window)->previewUrl().startsWith(url + QStringLiteral("/fail/3?key=")));
    QVERIFY(messagesOf(*window).isEmpty());
}

void TestMainWindow::send_againstTheEmbeddedServer_fillsLogTimelineAndStatistics()
{
    auto window = makeWindow();
    QVERIFY(window);
    QAbstractItemModelTester logTester(
        errorLogViewOf(*window)->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester serverTester(
        serverViewOf(*window)->logModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

    QVERIFY(sendAndWait(*window, 1));
    const Ui::RunSession &session = *sessionOf(*window);
    QCOMPARE(session.laneCount(), 1);
    QCOMPARE(statusesOfLane(session, 0), (QList<qint16>{503, 503, 503, 200}));
    QCOMPARE(session.lane(0).outcome, quint8(Core::RequestOutcome::Succeeded));
    // The backoff between the attempts: 20, 40, 80 ms.
    QCOMPARE(session.attemptRow(1).plannedDelayMs, 20.0F);
    QCOMPARE(session.attemptRow(3).plannedDelayMs, 80.0F);

    // The error log.
    const Ui::AttemptLogModel *log = errorLogViewOf(*window)->model();
    QCOMPARE(log->rowCount(), 4);
    QCOMPARE(log->index(0, Ui::AttemptLogModel::Status).data().toString(), QStringLiteral("503 Service Unavailable"));
    QCOMPARE(log->index(3, Ui::AttemptLogModel::Status).data().toString(), QStringLiteral("200 OK"));

    // The timeline draws a bar for every attempt.
    window->showTab(MainWindow::Tab::Timeline);
    timelineViewOf(*window)->zoomToFit();
    for (qsizetype row = 0; row < 4; ++row)
        QVERIFY2(!timelineViewOf(*window)->attemptRect(row).isEmpty(), qPrintable(QString::number(row)));
    QTRY_VERIFY(timelineViewOf(*window)->paintCount() > 0);

    // The statistics.
    statisticsViewOf(*window)->refresh();
    using Figure = Ui::StatisticsView::Figure;
    QVERIFY(statisticsViewOf(*window)->figureText(Figure::Requests).startsWith(QLatin1String("1")));
    QCOMPARE(statisticsViewOf(*window)->figureText(Figure::Attempts), QStringLiteral("4"));
    QVERIFY(statisticsViewOf(*window)->figureText(Figure::RetryAmplification).contains(QLatin1String("4")));

    // The server saw the same four requests, with the executor's attempt numbers.
    QTRY_COMPARE(serverViewOf(*window)->logModel()->rowCount(), 4);
    const auto *serverLog = serverViewOf(*window)->logModel();
    QCOMPARE(serverLog->entry(3).status, std::optional<int>(200));
    QCOMPARE(serverLog->entry(3).clientAttempt, QStringLiteral("4"));
    QVERIFY(serverLog->entry(0).target.startsWith(QLatin1String("/fail/3?key=")));

    // The recent URLs remember the template, not the expanded URL.
    QCOMPARE(settingsOf(*window)->recentUrlTemplates(), QStringList{Core::RequestDraft::defaultUrlTemplate()});
    QTRY_VERIFY(
        window->findChild<QLabel *>(QStringLiteral("activityStatus"))->text().contains(QLatin1String("In flight: 0")));
}

void TestMainWindow::sendAgain_getsAFreshKeyAndFailsThreeTimesAgain()
{
    auto window = makeWindow();
    QVERIFY(window);
    const QString firstPreview = composerOf(*window)->previewUrl();
    QVERIFY(sendAndWait(*window, 1));
    const QString secondPreview = composerOf(*window)->previewUrl();
    QVERIFY(firstPreview != secondPreview);
    QVERIFY(sendAndWait(*window, 2));
    const Ui::RunSession &session = *sessionOf(*window);
    QCOMPARE(session.laneCount(), 2);
    QCOMPARE(statusesOfLane(session, 1), (QList<qint16>{503, 503, 503, 200}));
    QCOMPARE(session.spec(0)->url.toString(), firstPreview);
    QCOMPARE(session.spec(1)->url.toString(), secondPreview);
}

void TestMainWindow::batch_keepsTheConcurrencyLimitAndShowsProgress()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/delay/40");
    draft.batchCount = 12;
    draft.concurrency = 3;
    composerOf(*window)->setDraft(draft);

    int peak = 0;
    connect(executorOf(*window), &Core::ThreadedExecutor::attemptStarted, this,
        [&] { peak = std::max(peak, executorOf(*window)->inFlightCount()); });
    QSignalSpy progress(runnerOf(*window), &Ui::RequestRunner::batchProgress);
    composerOf(*window)->batchAction()->trigger();
    QCOMPARE(runnerOf(*window)->batchTotal(), 12);
    QTRY_COMPARE_WITH_TIMEOUT(runnerOf(*window)->batchFinished(), 12, 15'000);
    QCOMPARE(peak, 3);
    QCOMPARE(runnerOf(*window)->batchSucceeded(), 12);
    QVERIFY(progress.count() >= 12);
    auto *bar = composerOf(*window)->findChild<QProgressBar *>(QStringLiteral("batchProgress"));
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->value(), 12);
    QCOMPARE(bar->maximum(), 12);
    sessionOf(*window)->flush();
    QCOMPARE(sessionOf(*window)->laneCount(), 12);
    QVERIFY(sessionOf(*window)->laneTitle(0).contains(QLatin1String("batch 1/12")));
}

void TestMainWindow::batch_againstAnOpenBreaker_countsEveryRefusal()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::BackoffPolicy guarded = fastPolicy();
    guarded.maxAttempts = 1;
    guarded.circuitBreaker.enabled = true;
    guarded.circuitBreaker.consecutiveFailures = 1;
    guarded.circuitBreaker.openMs = 60'000.0;
    policyPanelOf(*window)->setPolicy(guarded);
    QVERIFY(policyPanelOf(*window)->isUsable());
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/status/503");
    composerOf(*window)->setDraft(draft);
    QVERIFY(sendAndWait(*window, 1));
    QCOMPARE(
        executorOf(*window)->circuitState(executorOf(*window)->hosts().value(0)), Core::CircuitBreaker::State::Open);

    // Every request of the batch is refused at once; each result still reaches the progress.
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    draft.batchCount = 5;
    composerOf(*window)->setDraft(draft);
    composerOf(*window)->batchAction()->trigger();
    QCOMPARE(runnerOf(*window)->batchTotal(), 5);
    QTRY_COMPARE_WITH_TIMEOUT(runnerOf(*window)->batchFinished(), 5, 5000);
    QCOMPARE(runnerOf(*window)->batchSucceeded(), 0);
    QCOMPARE(executorOf(*window)->activeCount(), 0);
}

void TestMainWindow::repeat_untilEscStops()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/delay/400");
    draft.repeatIntervalMs = 60;
    composerOf(*window)->setDraft(draft);

    composerOf(*window)->repeatAction()->trigger();
    QVERIFY(runnerOf(*window)->isRepeating());
    QTRY_VERIFY_WITH_TIMEOUT(runnerOf(*window)->repeatCount() >= 3, 10'000);
    QTRY_VERIFY(composerOf(*window)->stopAction()->isEnabled());
    QVERIFY(!composerOf(*window)->repeatAction()->isEnabled());

    QTest::keyClick(composerOf(*window)->findChild<QComboBox *>(QStringLiteral("url"))->lineEdit(), Qt::Key_Escape);
    QVERIFY(!runnerOf(*window)->isRepeating());
    const int sent = runnerOf(*window)->repeatCount();
    QTRY_COMPARE(executorOf(*window)->activeCount(), 0);
    sessionOf(*window)->flush();
    QCOMPARE(sessionOf(*window)->laneCount(), sent);
    // The ones still waiting for their answer were cancelled.
    bool anyCancelled = false;
    for (qsizetype lane = 0; lane < sessionOf(*window)->laneCount(); ++lane)
        anyCancelled
            = anyCancelled || sessionOf(*window)->lane(lane).outcome == quint8(Core::RequestOutcome::Cancelled);
    QVERIFY(anyCancelled);
    QTRY_VERIFY(!composerOf(*window)->stopAction()->isEnabled());
    QVERIFY(composerOf(*window)->repeatAction()->isEnabled());
}

void TestMainWindow::sendActions_recordTheSentUrlOncePerAction_cursorStays()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/status/200?key={id}");
    draft.batchCount = 8;
    composerOf(*window)->setDraft(draft);
    auto *url = composerOf(*window)->findChild<QComboBox *>(QStringLiteral("url"));
    QVERIFY(url && url->lineEdit());
    QLineEdit *edit = url->lineEdit();
    QSignalSpy recent(settingsOf(*window), &Ui::Settings::recentUrlsChanged);

    // A batch of 8 is one entry, recorded once.
    edit->setSelection(3, 6);
    runActionsOf(*window)->sendBatch();
    QCOMPARE(runnerOf(*window)->batchTotal(), 8);
    QCOMPARE(recent.size(), 1);
    QCOMPARE(settingsOf(*window)->recentUrlTemplates(), QStringList{draft.urlTemplate});
    QCOMPARE(url->count(), 1);
    // The user's text, selection and cursor are where they were.
    QCOMPARE(edit->text(), draft.urlTemplate);
    QCOMPARE(edit->selectionStart(), 3);
    QCOMPARE(edit->selectionLength(), 6);
    QTRY_COMPARE_WITH_TIMEOUT(runnerOf(*window)->batchFinished(), 8, 15'000);

    // Sending the same URL again changes nothing in the list.
    edit->setCursorPosition(5);
    QVERIFY(sendAndWait(*window, 9));
    QCOMPARE(recent.size(), 1);
    QCOMPARE(edit->cursorPosition(), 5);

    // Repeating records the URL it sends when it starts, not what is typed while it runs.
    const QString repeated = QStringLiteral("{server}/status/200?key={id}&r=1");
    draft.urlTemplate = repeated;
    draft.repeatIntervalMs = 50;
    composerOf(*window)->setDraft(draft);
    runActionsOf(*window)->startRepeat();
    QVERIFY(runnerOf(*window)->isRepeating());
    QCOMPARE(recent.size(), 2);
    edit->setText(QStringLiteral("{server}/typed-while-repeating"));
    edit->setCursorPosition(9);
    QTRY_VERIFY_WITH_TIMEOUT(runnerOf(*window)->repeatCount() >= 3, 10'000);
    runActionsOf(*window)->stop();
    QCOMPARE(recent.size(), 2);
    QCOMPARE(settingsOf(*window)->recentUrlTemplates(),
        (QStringList{repeated, QStringLiteral("{server}/status/200?key={id}")}));
    QCOMPARE(edit->text(), QStringLiteral("{server}/typed-while-repeating"));
    QCOMPARE(edit->cursorPosition(), 9);
}

void TestMainWindow::keyboard_ctrlReturnSends_ctrlEExports()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    QLineEdit *url = composerOf(*window)->findChild<QComboBox *>(QStringLiteral("url"))->lineEdit();
    url->setFocus();
    QTest::keyClick(url, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(sessionOf(*window)->laneCount(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(sessionOf(*window)->resultCount(), 1, 10'000);

    // From the body editor too: Ctrl+Return is not a line break there.
    auto *body = composerOf(*window)->findChild<QPlainTextEdit *>(QStringLiteral("body"));
    body->setFocus();
    QTest::keyClick(body, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(sessionOf(*window)->laneCount(), 2);
    QCOMPARE(body->toPlainText(), QString());
    QTRY_COMPARE_WITH_TIMEOUT(sessionOf(*window)->resultCount(), 2, 10'000);

    m_nextFile = m_dir.filePath(QStringLiteral("keyboard.json"));
    QTest::keyClick(window.get(), Qt::Key_E, Qt::ControlModifier);
    QCOMPARE(m_chosen.size(), 1);
    QVERIFY(QFile::exists(m_nextFile));
    QVERIFY(Core::ReportJson::readFile(m_nextFile));
}

void TestMainWindow::keyboard_ctrlEExportsFromASpinBox()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    QVERIFY(sendAndWait(*window, 1));
    QAbstractSpinBox *spin = nullptr;
    for (QAbstractSpinBox *candidate : policyDockOf(*window)->findChildren<QAbstractSpinBox *>()) {
        if (candidate->isVisible() && candidate->isEnabled()) {
            spin = candidate;
            break;
        }
    }
    QVERIFY(spin);
    ClaimCtrlEAsX11Does claim;
    spin->installEventFilter(&claim);
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    const QString before = spin->text();
    m_nextFile = m_dir.filePath(QStringLiteral("from-a-spin-box.json"));
    QTest::keyClick(spin, Qt::Key_E, Qt::ControlModifier);
    QCOMPARE(m_chosen.size(), 1);
    QVERIFY(QFile::exists(m_nextFile));
    QCOMPARE(spin->text(), before);
}

void TestMainWindow::invalidUrl_disablesSendWithTheReason()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    QLineEdit *url = composerOf(*window)->findChild<QComboBox *>(QStringLiteral("url"))->lineEdit();
    url->selectAll();
    QTest::keyClicks(url, QStringLiteral("htp:/nowhere"));
    QVERIFY(!composerOf(*window)->sendAction()->isEnabled());
    QVERIFY2(
        composerOf(*window)->problem().contains(QLatin1String("http")), qPrintable(composerOf(*window)->problem()));
    QVERIFY(composerOf(*window)->sendAction()->toolTip().contains(composerOf(*window)->problem()));
    QTest::keyClick(url, Qt::Key_Return, Qt::ControlModifier);
    runActionsOf(*window)->send(); // even when asked directly, nothing goes out
    QCOMPARE(sessionOf(*window)->laneCount(), 0);
    QVERIFY(!messagesOf(*window).isEmpty());
}

void TestMainWindow::unusablePolicy_disablesSendWithTheReason()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::BackoffPolicy endless = fastPolicy();
    endless.maxAttempts = 0;
    endless.deadlineMs = 0.0;
    policyPanelOf(*window)->setPolicy(endless);
    QVERIFY(!policyPanelOf(*window)->isUsable());
    QVERIFY(!composerOf(*window)->sendAction()->isEnabled());
    QVERIFY(!composerOf(*window)->batchAction()->isEnabled());
    QVERIFY2(
        composerOf(*window)->problem().contains(QLatin1String("policy")), qPrintable(composerOf(*window)->problem()));
    QVERIFY(composerOf(*window)->sendAction()->toolTip().contains(QLatin1String("policy")));
    policyPanelOf(*window)->setPolicy(fastPolicy());
    QVERIFY(composerOf(*window)->sendAction()->isEnabled());
}

void TestMainWindow::serverScenario_perRequestCopy_isApplied()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    composerOf(*window)->setDraft(draft);
    serverViewOf(*window)->setScenario(Ui::ServerScenario::fromPreset(QStringLiteral("three-503")));
    QVERIFY(composerOf(*window)->previewText().contains(QLatin1String("a copy per request")));

    QVERIFY(sendAndWait(*window, 1));
    QVERIFY(sendAndWait(*window, 2));
    QCOMPARE(statusesOfLane(*sessionOf(*window), 0), (QList<qint16>{503, 503, 503, 200}));
    QCOMPARE(statusesOfLane(*sessionOf(*window), 1), (QList<qint16>{503, 503, 503, 200}));
    QTRY_COMPARE(serverViewOf(*window)->logModel()->rowCount(), 8);
    const auto *log = serverViewOf(*window)->logModel();
    QVERIFY(!log->entry(0).testId.isEmpty());
    QVERIFY(log->entry(0).testId != log->entry(4).testId);
    // "return-503*3" is three steps: the fourth attempt used the fourth step.
    QCOMPARE(log->entry(0).instructionIndex, 0);
    QCOMPARE(log->entry(3).instructionIndex, 3);
}

void TestMainWindow::serverScenario_sharedCopy_isUsedUp()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    composerOf(*window)->setDraft(draft);
    Ui::ServerScenario shared;
    shared.instructions = {QStringLiteral("return-503"), QStringLiteral("return-200*5")};
    shared.sharing = Ui::ServerScenario::Sharing::Shared;
    serverViewOf(*window)->setScenario(shared);

    QVERIFY(sendAndWait(*window, 1));
    QVERIFY(sendAndWait(*window, 2));
    QCOMPARE(statusesOfLane(*sessionOf(*window), 0), (QList<qint16>{503, 200}));
    QCOMPARE(statusesOfLane(*sessionOf(*window), 1), (QList<qint16>{200}));
    const QString id = runnerOf(*window)->sharedTestId();
    QVERIFY(!id.isEmpty());
    QCOMPARE(window->server()->server()->testStatus(id)->consumed, 3);
    QTRY_VERIFY(
        window->findChild<QLabel *>(QStringLiteral("scenarioStatus"))->text().contains(QLatin1String("3 of 6")));
}

void TestMainWindow::serverScenario_invalid_refusesToSend()
{
    auto window = makeWindow();
    QVERIFY(window);
    serverViewOf(*window)->scriptEditor()->setPlainText(QStringLiteral("return-503\nexplode"));
    QVERIFY(!composerOf(*window)->sendAction()->isEnabled());
    QVERIFY2(composerOf(*window)->problem().contains(QLatin1String("Server tab")),
        qPrintable(composerOf(*window)->problem()));
    QVERIFY(composerOf(*window)->problem().contains(QLatin1String("Line 2")));
    runActionsOf(*window)->send();
    QCOMPARE(sessionOf(*window)->laneCount(), 0);
    serverViewOf(*window)->scriptEditor()->setPlainText(QStringLiteral("return-503\nreturn-200"));
    QVERIFY(composerOf(*window)->sendAction()->isEnabled());
}

void TestMainWindow::export_writesFilesThatParseBack()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer s3cret-token"), true}};
    composerOf(*window)->setDraft(draft);
    QVERIFY(sendAndWait(*window, 1));

    const QString json = m_dir.filePath(QStringLiteral("run.json"));
    const auto written = exportRunOf(*window, json, Ui::ExportController::Format::Json);
    QVERIFY2(written, qPrintable(written.error()));
    QVERIFY(*written > 0);
    const auto report = Core::ReportJson::readFile(json);
    QVERIFY2(report, qPrintable(report.error()));
    QCOMPARE(report->run.attempts.size(), 4);
    QCOMPARE(report->run.results.size(), 1);
    QVERIFY(report->redacted);
    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    QVERIFY(!jsonFile.readAll().contains("s3cret-token"));
    QVERIFY(messagesOf(*window).constLast().contains(QLatin1String("attempts 4, requests 1")));

    const QString csv = m_dir.filePath(QStringLiteral("run.csv"));
    QVERIFY(exportRunOf(*window, csv, Ui::ExportController::Format::Csv));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csvFile.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 5);
    QCOMPARE(QString::fromUtf8(lines.constFirst().trimmed()), Core::CsvExport::columns().join(QLatin1Char(',')));

    const QString har = m_dir.filePath(QStringLiteral("run.har"));
    QVERIFY(exportRunOf(*window, har, Ui::ExportController::Format::Har));
    QFile harFile(har);
    QVERIFY(harFile.open(QIODevice::ReadOnly));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(harFile.readAll(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(doc.object().value(QStringLiteral("log")).toObject().value(QStringLiteral("entries")).toArray().size(), 4);

    // Without redaction the file says so, and the window warns (File > Export run, as a person does it).
    actionOf(*window, "redactExports")->setChecked(false);
    m_nextFile = m_dir.filePath(QStringLiteral("open.json"));
    actionOf(*window, "exportRun")->trigger();
    QVERIFY(QFile::exists(m_nextFile));
    QVERIFY(!Core::ReportJson::readFile(m_nextFile)->redacted);
    QVERIFY(messagesOf(*window).constLast().contains(QLatin1String("NOT redacted")));
}

void TestMainWindow::export_policyChangedBetweenRequests_reportNamesEachWithItsRequests()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    composerOf(*window)->setDraft(draft);
    QVERIFY(sendAndWait(*window, 1));
    Core::BackoffPolicy second = fastPolicy();
    second.name = QStringLiteral("Second policy");
    second.maxAttempts = 3;
    policyPanelOf(*window)->setPolicy(second);
    QCOMPARE(executorOf(*window)->policy().name, second.name);
    QVERIFY(sendAndWait(*window, 2));
    policyPanelOf(*window)->setPolicy(fastPolicy()); // back to the first: no third entry
    QVERIFY(sendAndWait(*window, 3));

    const Ui::RunSession &session = *sessionOf(*window);
    QCOMPARE(session.policies().size(), 2);
    const quint64 first = session.lane(0).requestId;
    const quint64 middle = session.lane(1).requestId;
    const quint64 last = session.lane(2).requestId;

    const QString json = m_dir.filePath(QStringLiteral("policies.json"));
    const auto written = exportRunOf(*window, json, Ui::ExportController::Format::Json);
    QVERIFY2(written, qPrintable(written.error()));
    const auto report = Core::ReportJson::readFile(json);
    QVERIFY2(report, qPrintable(report.error()));
    QCOMPARE(report->run.policies.size(), 2);
    QCOMPARE(report->run.policies.at(0).name, fastPolicy().name);
    QCOMPARE(report->run.policies.at(1).name, second.name);
    QCOMPARE(report->run.policyOf(first).name, fastPolicy().name);
    QCOMPARE(report->run.policyOf(middle).name, second.name);
    QCOMPARE(report->run.policyOf(middle).maxAttempts, 3);
    QCOMPARE(report->run.policyOf(last).name, fastPolicy().name);

    QFile file(json);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray policies
        = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("policies")).toArray();
    QCOMPARE(policies.size(), 2);
    const QJsonArray middleIds = policies.at(1).toObject().value(QStringLiteral("requestIds")).toArray();
    QCOMPARE(middleIds.size(), 1);
    QCOMPARE(middleIds.at(0).toInteger(), qint64(middle));
    QCOMPARE(policies.at(0).toObject().value(QStringLiteral("requestIds")).toArray().size(), 2);
}

void TestMainWindow::export_fromTheErrorLog_writesShownRows()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(sendAndWait(*window, 1));
    // Not "503": the server's random port may hold those digits, and the URL matches too.
    errorLogViewOf(*window)->model()->setTextFilter(QStringLiteral("Service Unavailable"));
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 3);
    m_nextFile = m_dir.filePath(QStringLiteral("shown")); // no extension: the chosen format's is added
    Q_EMIT errorLogViewOf(*window)->exportRequested(Ui::ErrorLogView::ExportFormat::Csv, true);
    QCOMPARE(m_chosen.size(), 1);
    QFile file(m_nextFile + QStringLiteral(".csv"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().trimmed().split('\n').size(), 4);

    // Cancelling the dialog writes nothing and says nothing.
    const QStringList before = messagesOf(*window);
    m_nextFile.clear();
    actionOf(*window, "exportRun")->trigger();
    QCOMPARE(messagesOf(*window), before);
}

void TestMainWindow::export_unwritable_saysSoAndKeepsTheRun()
{
    auto window = makeWindow();
    QVERIFY(window);
    const auto nothing
        = exportRunOf(*window, m_dir.filePath(QStringLiteral("empty.json")), Ui::ExportController::Format::Json);
    QVERIFY(!nothing);
    QVERIFY(nothing.error().contains(QLatin1String("Nothing to export")));

    QVERIFY(sendAndWait(*window, 1));
    const QString path = m_dir.filePath(QStringLiteral("no-such-folder/run.json"));
    const auto written = exportRunOf(*window, path, Ui::ExportController::Format::Json);
    QVERIFY(!written);
    QVERIFY(!written.error().isEmpty());
    QVERIFY2(messagesOf(*window).constLast().contains(QLatin1String("not written")),
        qPrintable(messagesOf(*window).constLast()));
    QCOMPARE(sessionOf(*window)->finishedCount(), 4);
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 4);
}

void TestMainWindow::copyAsCurl_isRedacted()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer s3cret-token"), true}};
    composerOf(*window)->setDraft(draft);
    runActionsOf(*window)->copyCurlAction()->trigger();
    const QString command = QGuiApplication::clipboard()->text();
    QVERIFY2(command.startsWith(QLatin1String("curl")), qPrintable(command));
    QVERIFY(command.contains(window->server()->baseUrl().toString() + QStringLiteral("/fail/3?key=")));
    QVERIFY(command.contains(QLatin1String("REDACTED")));
    QVERIFY(!command.contains(QLatin1String("s3cret-token")));
    QVERIFY(command.contains(QLatin1String("--retry")));
    QVERIFY(messagesOf(*window).constLast().contains(QLatin1String("redacted")));
    QCOMPARE(sessionOf(*window)->laneCount(), 0); // copying sends nothing
    // One short line shown; the notes one per line behind Details, no ".;" joins.
    const QString shown = messageBarOf(*window)->shownText();
    QCOMPARE(shown, QStringLiteral("Copied a curl command to the clipboard, credentials redacted."));
    QVERIFY(!messageBarOf(*window)->shownDetails().contains(QLatin1String(".;")));

    // Nothing to redact (no header, and no key= in the URL, which reads as an API key): no word about redaction.
    draft.headers = {{QStringLiteral("Accept"), QStringLiteral("*/*"), true}};
    draft.urlTemplate = QStringLiteral("{server}/status/200");
    composerOf(*window)->setDraft(draft);
    runActionsOf(*window)->copyCurlAction()->trigger();
    QCOMPARE(messageBarOf(*window)->shownText(), QStringLiteral("Copied a curl command to the clipboard."));
    QVERIFY(!messageBarOf(*window)->shownDetails().contains(QLatin1String("redacted")));
}

void TestMainWindow::policy_exportAndImportThroughTheMenu()
{
    auto window = makeWindow();
    QVERIFY(window);
    m_nextFile = m_dir.filePath(QStringLiteral("policy")); // the extension is added
    policyActionsOf(*window)->exportPolicy();
    QVERIFY(QFile::exists(m_nextFile + QStringLiteral(".json")));
    QVERIFY(messagesOf(*window).constLast().contains(QLatin1String("Exported")));

    Core::BackoffPolicy other = fastPolicy();
    other.baseDelayMs = 333.0;
    policyPanelOf(*window)->setPolicy(other);
    m_nextFile += QStringLiteral(".json");
    policyActionsOf(*window)->importPolicy();
    QCOMPARE(policyPanelOf(*window)->policy(), fastPolicy());
    QCOMPARE(executorOf(*window)->policy(), fastPolicy());

    // A file that is not a policy leaves the policy alone and says why.
    m_nextFile = m_dir.filePath(QStringLiteral("not-a-policy.json"));
    {
        QFile file(m_nextFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"algorithm\": 42}");
    }
    policyActionsOf(*window)->importPolicy();
    QCOMPARE(policyPanelOf(*window)->policy(), fastPolicy());
    QVERIFY(messagesOf(*window).constLast().contains(QLatin1String("Could not import")));

    // As a gRPC service config: what retrylab policy export --format grpc writes, and what gRPC cannot say.
    // It asks which gRPC service the policy is for first.
    m_nextFile = m_dir.filePath(QStringLiteral("service-config"));
    QTimer::singleShot(0, window.get(), [&window] {
        QTRY_VERIFY(window->findChild<Ui::GrpcMethodDialog *>());
        auto *dialog = window->findChild<Ui::GrpcMethodDialog *>();
        QTRY_VERIFY(dialog->isVisible());
        dialog->setMethod({QStringLiteral("pkg.Orders"), QString()});
        dialog->accept();
    });
    policyActionsOf(*window)->exportPolicyAsGrpc();
    QFile config(m_nextFile + QStringLiteral(".json"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QCOMPARE(config.readAll(),
        Core::GrpcServiceConfig::toJson(
            Core::GrpcServiceConfig::fromPolicy(fastPolicy(), QStringLiteral("pkg.Orders"))));
    QVERIFY(messagesOf(*window).constLast().contains(QLatin1String("What gRPC does differently")));
    QVERIFY(window->findChild<QAction *>(QStringLiteral("exportPolicyGrpc")));
}

void TestMainWindow::statusBar_showsBreakerAndBudget()
{
    auto window = makeWindow();
    QVERIFY(window);
    auto *breaker = window->findChild<QLabel *>(QStringLiteral("breakerStatus"));
    auto *budget = window->findChild<QLabel *>(QStringLiteral("budgetStatus"));
    QVERIFY(breaker->text().contains(QLatin1String("off")));
    QVERIFY(budget->text().contains(QLatin1String("off")));

    Core::BackoffPolicy guarded = fastPolicy();
    guarded.circuitBreaker.enabled = true;
    guarded.circuitBreaker.consecutiveFailures = 2;
    guarded.circuitBreaker.openMs = 2'000.0; // long enough to see OPEN however slowly this thread paints
    guarded.retryBudget.kind = Core::RetryBudgetKind::AwsStandard;
    policyPanelOf(*window)->setPolicy(guarded);
    QVERIFY(policyPanelOf(*window)->isUsable());
    QVERIFY(budget->text().contains(QLatin1String("/ 500")));

    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/status/503");
    composerOf(*window)->setDraft(draft);
    QVERIFY(sendAndWait(*window, 1));
    const QString host = QStringLiteral("127.0.0.1:%1").arg(window->server()->baseUrl().port());
    QTRY_VERIFY2(breaker->text().contains(host + QStringLiteral(" OPEN")), qPrintable(breaker->text()));
    QVERIFY2(!budget->text().startsWith(QLatin1String("Retry budget: 500.0")), qPrintable(budget->text()));
    // Open turns half-open by time alone; the status bar follows without any request.
    QTRY_VERIFY2_WITH_TIMEOUT(
        breaker->text().contains(host + QStringLiteral(" half-open")), qPrintable(breaker->text()), 15'000);
}

void TestMainWindow::clearRun_forgetsTheAttempts()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(sendAndWait(*window, 1));
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 4);
    runActionsOf(*window)->clearAction()->trigger();
    QCOMPARE(sessionOf(*window)->attemptRowCount(), 0);
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 0);
    QVERIFY(sendAndWait(*window, 1));
    QCOMPARE(sessionOf(*window)->laneCount(), 1);
}

void TestMainWindow::clearRun_duringABatch_leavesNoLaneBehind()
{
    // The executor runs on a thread of its own: what it reports about the cancelled
    // requests must not come back as lanes of the cleared run.
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/delay/2000");
    draft.batchCount = 20;
    draft.concurrency = 8;
    composerOf(*window)->setDraft(draft);
    composerOf(*window)->batchAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(executorOf(*window)->inFlightCount() > 0, 10'000);
    runActionsOf(*window)->clearAction()->trigger();
    QCOMPARE(executorOf(*window)->activeCount(), 0);
    QCOMPARE(executorOf(*window)->inFlightCount(), 0);
    QCoreApplication::processEvents();
    sessionOf(*window)->flush();
    QCOMPARE(sessionOf(*window)->laneCount(), 0);
    QCOMPARE(sessionOf(*window)->attemptRowCount(), 0);
    QCOMPARE(sessionOf(*window)->runningRequestCount(), 0);
    QCOMPARE(sessionOf(*window)->inFlightCount(), 0);
}

void TestMainWindow::settings_requestLayoutAndRecentUrls_surviveARestart()
{
    Core::RequestDraft draft;
    draft.method = QStringLiteral("POST");
    draft.urlTemplate = QStringLiteral("{server}/status/201?key={id}");
    draft.headers = {{QStringLiteral("Content-Type"), QStringLiteral("application/json"), true},
        {QStringLiteral("Authorization"), QStringLiteral("Bearer not-saved"), true}};
    draft.body = QStringLiteral("{\"n\": 1}");
    draft.idempotent = true;
    draft.attemptTimeoutMs = 1500.0;
    draft.batchCount = 33;
    draft.concurrency = 4;
    draft.repeatIntervalMs = 2000;
    QByteArray geometry;
    {
        auto window = makeWindow();
        QVERIFY(window);
        composerOf(*window)->setDraft(draft);
        QVERIFY(sendAndWait(*window, 1));
        window->addDockWidget(Qt::RightDockWidgetArea, policyDockOf(*window));
        // Above the window's minimum width (collections, policy and the request side by side).
        window->resize(1251, 777);
        serverViewOf(*window)->setScenario(Ui::ServerScenario::fromPreset(QStringLiteral("reset-429-200")));
        QCoreApplication::processEvents();
        geometry = window->saveGeometry();
        QVERIFY(window->close());
    }
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft expected = draft;
    expected.headers[1].value = QStringLiteral("Bearer REDACTED"); // credentials are not stored
    QCOMPARE(composerOf(*window)->draft(), expected);
    QCOMPARE(window->dockWidgetArea(policyDockOf(*window)), Qt::RightDockWidgetArea);
    QCOMPARE(window->size(), QSize(1251, 777));
    QCOMPARE(serverViewOf(*window)->scenario(), Ui::ServerScenario::fromPreset(QStringLiteral("reset-429-200")));
    auto *url = composerOf(*window)->findChild<QComboBox *>(QStringLiteral("url"));
    QVERIFY(url->findText(draft.urlTemplate) >= 0);
    QVERIFY(messagesOf(*window).isEmpty());
}

void TestMainWindow::settings_damagedLayout_isRefused_windowKeepsItsDefaultLayout()
{
    {
        Ui::Settings settings;
        settings.setWindowGeometry(QByteArray("not a geometry"));
        settings.setWindowState(QByteArray("not a state"));
    }
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("geometry was refused")));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("dock layout was refused")));
    auto window = makeWindow();
    QVERIFY(window);
    QCOMPARE(window->dockWidgetArea(policyDockOf(*window)), Qt::LeftDockWidgetArea);
    QVERIFY(window->width() > 0 && window->height() > 0);
    QVERIFY(composerOf(*window)->canSend());
}

void TestMainWindow::settings_corruptFile_isReportedInTheWindow()
{
    QDir().mkpath(QFileInfo(settingsPath()).absolutePath());
    {
        QFile file(settingsPath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        QByteArray bytes("[request]\ndraft=\"{not json\n");
        bytes.append('\0');
        bytes.append("\x01\x02garbage");
        file.write(bytes);
    }
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("damaged settings file")));
    auto window = makeWindow();
    QVERIFY(window);
    const QStringList messages = messagesOf(*window);
    QVERIFY(!messages.isEmpty());
    QVERIFY2(messages.constFirst().contains(QLatin1String("damaged")), qPrintable(messages.join(QLatin1Char('\n'))));
    QCOMPARE(composerOf(*window)->draft(), Core::RequestDraft{});
    QVERIFY(composerOf(*window)->canSend());
    const QFileInfo info(settingsPath());
    for (const QString &copy : info.absoluteDir().entryList({info.fileName() + QStringLiteral(".damaged-*")}))
        QFile::remove(info.absoluteDir().filePath(copy));
}

void TestMainWindow::settings_simulatorAndConformanceChoice_surviveARestart()
{
    Core::HerdParameters parameters = Core::HerdParameters::defaultsFor(Core::HerdModel::CapacityLimited);
    parameters.clientCounts = {5, 50, 500};
    parameters.runs = 7;
    parameters.seed = 987654321987654321ULL;
    parameters.strategies = {*Core::HerdStrategy::fromName(QStringLiteral("none")),
        *Core::HerdStrategy::fromName(QStringLiteral("full-jitter"))};
    parameters.baseDelayMs = 75.0;
    parameters.overloadStatus = 429;
    parameters.retryAfterS = 3;
    parameters.honourRetryAfter = false;
    {
        auto window = makeWindow();
        QVERIFY(window);
        simulatorViewOf(*window)->setParameters(parameters);
        QVERIFY(conformanceViewOf(*window)->setPolicyChoice(QStringLiteral("curl-retry")));
        QVERIFY(window->close());
    }
    auto window = makeWindow();
    QVERIFY(window);
    const auto restored = simulatorViewOf(*window)->parameters();
    QVERIFY2(restored, qPrintable(restored.error()));
    QCOMPARE(restored->model, parameters.model);
    QCOMPARE(restored->clientCounts, parameters.clientCounts);
    QCOMPARE(restored->runs, 7);
    QCOMPARE(restored->seed, parameters.seed);
    QCOMPARE(restored->strategies, parameters.strategies);
    QCOMPARE(restored->baseDelayMs, 75.0);
    QCOMPARE(restored->overloadStatus, 429);
    QCOMPARE(restored->retryAfterS, std::optional<int>(3));
    QCOMPARE(restored->honourRetryAfter, false);
    QCOMPARE(conformanceViewOf(*window)->policyChoice(), QStringLiteral("curl-retry"));
    QCOMPARE(conformanceViewOf(*window)->policy().name, Core::Presets::find(QStringLiteral("curl-retry"))->name);
    QVERIFY(messagesOf(*window).isEmpty());
}

void TestMainWindow::serverCannotStart_windowStillWorks()
{
    QTcpServer squatter;
    QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
    MainWindow::Options options;
    options.server.port = squatter.serverPort();
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("fault server did not start")));
    auto window = makeWindow(options);
    QVERIFY(window);
    QVERIFY(!window->server()->isRunning());
    QVERIFY(!messagesOf(*window).isEmpty());
    QVERIFY2(messagesOf(*window).constFirst().contains(QLatin1String("could not start")),
        qPrintable(messagesOf(*window).constFirst()));
    QVERIFY(window->findChild<QLabel *>(QStringLiteral("serverStatus"))->text().contains(QLatin1String("not running")));
    QVERIFY(!composerOf(*window)->canSend());
    QVERIFY(composerOf(*window)->problem().contains(QLatin1String("not running")));

    // Another server still works: the squatter never answers, so the attempt times out.
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("http://127.0.0.1:%1/x").arg(squatter.serverPort());
    draft.attemptTimeoutMs = 100.0;
    composerOf(*window)->setDraft(draft);
    QVERIFY(composerOf(*window)->canSend());
    composerOf(*window)->sendAction()->trigger();
    QCOMPARE(sessionOf(*window)->laneCount(), 1);
    runActionsOf(*window)->stop();
    QTRY_COMPARE(executorOf(*window)->activeCount(), 0);
}

void TestMainWindow::conformanceTab_runsTheEditedPolicyOnTheAppServer()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::BackoffPolicy policy = fastPolicy();
    policy.name = QStringLiteral("Edited in the dock");
    policyPanelOf(*window)->setPolicy(policy);
    Ui::ConformanceView *view = conformanceViewOf(*window);
    QCOMPARE(view->policy().name, policy.name);
    QCOMPARE(view->policy().maxAttempts, policy.maxAttempts);

    const qsizetype before = window->server()->server()->log().size();
    QSignalSpy finished(view, &Ui::ConformanceView::finished);
    window->showTab(MainWindow::Tab::Conformance);
    QVERIFY(tabsOf(*window)->currentWidget()->isAncestorOf(view));
    QCOMPARE(window->currentTab(), MainWindow::Tab::Conformance);
    view->run();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60'000);
    const int passed = finished.first().at(0).toInt();
    const int total = finished.first().at(1).toInt();
    QVERIFY(total > 0);
    QCOMPARE(passed, total);
    // The cells ran against the application's own server, not a private one.
    QVERIFY(window->server()->server()->log().size() > before);
}

void TestMainWindow::presentation_largerTimelineAloneThenRestored()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(sendAndWait(*window, 1));
    window->showTab(MainWindow::Tab::Statistics);
    const double pointSize = window->font().pointSizeF();
    const int laneHeight = timelineViewOf(*window)->laneHeight();
    auto *action = window->findChild<QAction *>(QStringLiteral("presentation"));
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    action->trigger();
    QVERIFY(presentationOf(*window)->isPresentation());
    QCOMPARE(window->currentTab(), MainWindow::Tab::Timeline);
    QVERIFY(window->font().pointSizeF() > pointSize * 1.4);
    QVERIFY(timelineViewOf(*window)->isPresentation());
    QVERIFY(timelineViewOf(*window)->laneHeight() > laneHeight);
    QCOMPARE(timelineViewOf(*window)->minBarWidth(), 8.0);
    // Fit and Live sit in the scroll bar's row, which grows with their text.
    QToolButton *fit = nullptr;
    for (QToolButton *button : timelineViewOf(*window)->findChildren<QToolButton *>()) {
        if (button->text() == QLatin1String("Fit"))
            fit = button;
    }
    QVERIFY(fit);
    QTRY_VERIFY2(fit->height() >= fit->fontMetrics().height() + 4,
        qPrintable(QStringLiteral("%1 px for text of %2").arg(fit->height()).arg(fit->fontMetrics().height())));
    QVERIFY(!policyDockOf(*window)->isVisible());
    QVERIFY(!requestDockOf(*window)->isVisible());

    action->trigger();
    QVERIFY(!presentationOf(*window)->isPresentation());
    QCOMPARE(window->font().pointSizeF(), pointSize);
    QCOMPARE(timelineViewOf(*window)->laneHeight(), laneHeight);
    QTRY_VERIFY(policyDockOf(*window)->isVisible());
    QVERIFY(requestDockOf(*window)->isVisible());
}

void TestMainWindow::wheel_overUnfocusedFields_changesNoValueAnywhere()
{
    auto window = makeWindow();
    QVERIFY(window);
    // Every spin box, combo box and slider of the window and its docks: none takes the
    // focus from the wheel, and none changes its value under an unfocused wheel.
    const QList<QWidget *> fields = window->findChildren<QWidget *>();
    int guarded = 0;
    for (QWidget *field : fields) {
        if (!Ui::WheelGuard::guards(field) || !field->isVisible() || field->hasFocus())
            continue;
        ++guarded;
        QVERIFY2(field->focusPolicy() != Qt::WheelFocus, qPrintable(field->objectName()));
        QString before;
        if (auto *spin = qobject_cast<QAbstractSpinBox *>(field))
            before = spin->text();
        else if (auto *combo = qobject_cast<QComboBox *>(field))
            before = combo->currentText();
        const QPointF local(field->width() / 2.0, field->height() / 2.0);
        QWheelEvent wheel(local, field->mapToGlobal(local), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
            Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(field, &wheel);
        QString after;
        if (auto *spin = qobject_cast<QAbstractSpinBox *>(field))
            after = spin->text();
        else if (auto *combo = qobject_cast<QComboBox *>(field))
            after = combo->currentText();
        QVERIFY2(after == before, qPrintable(field->objectName() + QStringLiteral(": ") + after));
    }
    QVERIFY2(guarded >= 10, qPrintable(QString::number(guarded)));
    const Core::BackoffPolicy unchanged = fastPolicy();
    QCOMPARE(policyPanelOf(*window)->policy().baseDelayMs, unchanged.baseDelayMs);
    QCOMPARE(policyPanelOf(*window)->policy().maxAttempts, unchanged.maxAttempts);
}

void TestMainWindow::keyboard_ctrlLReopensTheRequestDock_altNumberFocusesTheTab()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    auto *requestDock = composerOf(*window)->parentWidget();
    while (requestDock && !qobject_cast<QDockWidget *>(requestDock))
        requestDock = requestDock->parentWidget();
    QVERIFY(requestDock);
    requestDock->close();
    QVERIFY(!composerOf(*window)->isVisible());

    QTest::keySequence(window.get(), QKeySequence(Qt::CTRL | Qt::Key_L));
    QTRY_VERIFY(composerOf(*window)->isVisible());
    auto *url = composerOf(*window)->findChild<QComboBox *>(QStringLiteral("url"));
    QTRY_VERIFY(url->lineEdit()->hasFocus());

    // Alt+2 shows the error log and puts the keyboard in it, not in the Request dock.
    QTest::keySequence(window.get(), QKeySequence(Qt::ALT | Qt::Key_2));
    QCOMPARE(window->currentTab(), MainWindow::Tab::ErrorLog);
    QWidget *focused = QApplication::focusWidget();
    QVERIFY(focused);
    QVERIFY2(tabsOf(*window)->currentWidget()->isAncestorOf(focused), focused->metaObject()->className());
    QTest::keySequence(window.get(), QKeySequence(Qt::ALT | Qt::Key_1));
    QCOMPARE(window->currentTab(), MainWindow::Tab::Timeline);
    QVERIFY(tabsOf(*window)->currentWidget()->isAncestorOf(QApplication::focusWidget())
        || tabsOf(*window)->currentWidget() == QApplication::focusWidget());
}

void TestMainWindow::help_listsTheKeyboardShortcutsOfTheMenus()
{
    auto window = makeWindow();
    QVERIFY(window);
    actionOf(*window, "showShortcuts")->trigger();
    auto *list = window->findChild<QTableWidget *>(QStringLiteral("shortcutList"));
    QVERIFY(list);
    QTRY_VERIFY(list->isVisible());
    QHash<QString, QString> byKeys;
    for (int row = 0; row < list->rowCount(); ++row)
        byKeys.insert(list->item(row, 0)->text(), list->item(row, 1)->text());
    const auto keys = [](QKeySequence sequence) { return sequence.toString(QKeySequence::NativeText); };
    QVERIFY2(byKeys.value(keys(QKeySequence(Qt::CTRL | Qt::Key_Return))).contains(QLatin1String("Send")),
        qPrintable(QStringList(byKeys.keys()).join(QLatin1Char(' '))));
    QVERIFY(byKeys.value(keys(QKeySequence(Qt::CTRL | Qt::Key_L))).contains(QLatin1String("URL")));
    QVERIFY(byKeys.value(keys(QKeySequence(Qt::CTRL | Qt::Key_I))).contains(QLatin1String("inspector")));
    QVERIFY(byKeys.value(keys(QKeySequence(Qt::ALT | Qt::Key_9))).contains(QLatin1String("View")));
}

void TestMainWindow::help_guideShowsTheWindowGuide()
{
    auto window = makeWindow();
    QVERIFY(window);
    actionOf(*window, "showGuide")->trigger();
    auto *text = window->findChild<QTextBrowser *>(QStringLiteral("guideText"));
    QVERIFY(text);
    QTRY_VERIFY(text->isVisible());
    QFile page(QStringLiteral(":/docs/window.md"));
    QVERIFY(page.open(QIODevice::ReadOnly));
    const QString firstLine = QString::fromUtf8(page.readLine()).remove(QLatin1Char('#')).trimmed();
    QVERIFY2(text->toPlainText().startsWith(firstLine), qPrintable(text->toPlainText().left(80)));
    QVERIFY(text->toPlainText().contains(QLatin1String("Collections")));
}

void TestMainWindow::compareAndReplay_areButtonsUnderSend()
{
    auto window = makeWindow();
    QVERIFY(window);
    auto *compare = composerOf(*window)->findChild<QToolButton *>(QStringLiteral("comparePoliciesButton"));
    auto *replay = composerOf(*window)->findChild<QToolButton *>(QStringLiteral("replayRunButton"));
    QVERIFY(compare && replay);
    for (QToolButton *button : {compare, replay}) {
        QTRY_VERIFY(button->isVisible());
        QVERIFY(!button->visibleRegion().isEmpty());
        QVERIFY(button->toolTip().size() > 20);
    }
    QCOMPARE(compare->defaultAction(), actionOf(*window, "comparePolicies"));
    QCOMPARE(compare->text(), QStringLiteral("Compare\u2026"));
    QCOMPARE(replay->defaultAction(), actionOf(*window, "replayRun"));
    QCOMPARE(replay->text(), QStringLiteral("Replay"));

    // Replay before anything was sent says why not; after a run, it plays it.
    replay->click();
    QVERIFY2(messagesOf(*window).join(QLatin1Char(' ')).contains(QLatin1String("Nothing to replay")),
        qPrintable(messagesOf(*window).join(QLatin1Char(' '))));
    QVERIFY(sendAndWait(*window, 1));
    replay->click();
    QTRY_VERIFY(openedRunOf(*window)->isOpen());

    compare->click();
    QDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = window->findChild<QDialog *>(QStringLiteral("compareDialog"))) && dialog->isVisible());
    dialog->close();
}

void TestMainWindow::clientsAndProxyTimelines_sayHowToFillThem()
{
    auto window = makeWindow();
    QVERIFY(window);
    auto *own = window->findChild<Ui::TimelineView *>(QStringLiteral("timeline"));
    auto *clients = window->findChild<Ui::TimelineView *>(QStringLiteral("observedTimeline"));
    auto *proxy = window->findChild<Ui::TimelineView *>(QStringLiteral("proxyTimeline"));
    QVERIFY(own && clients && proxy);
    QVERIFY(own->emptyText().contains(QLatin1String("Send")));
    // These tabs watch other clients: there is nothing to send from them.
    QVERIFY2(!clients->emptyText().contains(QLatin1String("Send")), qPrintable(clients->emptyText()));
    QVERIFY(clients->emptyText().contains(QLatin1String("client")));
    QVERIFY2(!proxy->emptyText().contains(QLatin1String("Send")), qPrintable(proxy->emptyText()));
    QVERIFY(proxy->emptyText().contains(QLatin1String("proxy")));
}

void TestMainWindow::layout_fitsA1024x640Screen()
{
    auto window = makeWindow();
    QVERIFY(window);
    // What asks for the width, when the window asks for too much.
    const auto culprits = [&window] {
        QStringList lines;
        for (QDockWidget *dock : window->findChildren<QDockWidget *>())
            lines.append(QStringLiteral("dock %1 area %2 visible %3 floating %4 min %5x%6 geometry %7,%8 %9x%10")
                             .arg(dock->objectName())
                             .arg(int(window->dockWidgetArea(dock)))
                             .arg(dock->isVisible())
                             .arg(dock->isFloating())
                             .arg(dock->minimumSizeHint().width())
                             .arg(dock->minimumSizeHint().height())
                             .arg(dock->x())
                             .arg(dock->y())
                             .arg(dock->width())
                             .arg(dock->height()));
        for (QWidget *child : window->findChildren<QWidget *>()) {
            if (child->minimumSizeHint().width() > 330)
                lines.append(QStringLiteral("%1 %2 [%5 %6]: %3x%4")
                                 .arg(QString::fromLatin1(child->metaObject()->className()), child->objectName())
                                 .arg(child->minimumSizeHint().width())
                                 .arg(child->minimumSizeHint().height())
                                 .arg(child->parentWidget()
                                         ? QString::fromLatin1(child->parentWidget()->metaObject()->className())
                                         : QString(),
                                     child->parentWidget() ? child->parentWidget()->objectName() : QString()));
        }
        return lines.join(QLatin1Char('\n'));
    };
    const QSize minimum = window->minimumSizeHint().expandedTo(window->minimumSize());
    QVERIFY2(minimum.width() <= 1024,
        qPrintable(QStringLiteral("%1x%2, central %3, policy dock %4\n")
                       .arg(minimum.width())
                       .arg(minimum.height())
                       .arg(window->centralWidget()->minimumSizeHint().width())
                       .arg(policyDockOf(*window)->minimumSizeHint().width())
            + culprits()));
    QVERIFY2(minimum.height() <= 640, qPrintable(culprits()));
    window->resize(1024, 640);
    QTRY_COMPARE(window->width(), 1024);
    // Stop and the in-flight counter stay in the window.
    QList<QWidget *> mustShow{composerOf(*window)->findChild<QWidget *>(QStringLiteral("activity"))};
    for (QToolButton *button : composerOf(*window)->findChildren<QToolButton *>()) {
        if (button->defaultAction() == composerOf(*window)->stopAction()
            || button->defaultAction() == composerOf(*window)->sendAction())
            mustShow.append(button);
    }
    QCOMPARE(mustShow.size(), 3);
    // Compare and Replay too, where a demo lead looks.
    for (const char *name : {"comparePoliciesButton", "replayRunButton"})
        mustShow.append(composerOf(*window)->findChild<QToolButton *>(QLatin1String(name)));
    // The Server tab needs no sideways scrolling, and Reset server is in the window.
    window->showTab(MainWindow::Tab::Server);
    auto *serverScroll = qobject_cast<QScrollArea *>(tabsOf(*window)->currentWidget());
    QVERIFY(serverScroll);
    QTRY_COMPARE(serverScroll->horizontalScrollBar()->maximum(), 0);
    mustShow.append(serverViewOf(*window)->findChild<QWidget *>(QStringLiteral("resetServer")));
    for (QWidget *widget : std::as_const(mustShow)) {
        QVERIFY(widget);
        QTRY_VERIFY(widget->isVisible());
        const QRect inWindow(widget->mapTo(window.get(), QPoint(0, 0)), widget->size());
        QVERIFY2(window->rect().contains(inWindow), qPrintable(widget->objectName() + QLatin1Char('\n') + culprits()));
    }
}

void TestMainWindow::layout_at1366x768_conformanceShowsEveryRow_herdRunInView()
{
    auto window = makeWindow();
    QVERIFY(window);
    window->resize(1366, 768);
    QTRY_COMPARE(window->size(), QSize(1366, 768));

    window->showTab(MainWindow::Tab::Conformance);
    auto *matrix = conformanceViewOf(*window)->findChild<QTableView *>(QStringLiteral("matrix"));
    QVERIFY(matrix);
    QTRY_VERIFY(matrix->isVisible());
    const int rows = matrix->model()->rowCount();
    QVERIFY(rows >= 8);
    QTRY_VERIFY(matrix->visualRect(matrix->model()->index(rows - 1, 0)).bottom() <= matrix->viewport()->height());

    window->showTab(MainWindow::Tab::Simulator);
    auto *run = simulatorViewOf(*window)->findChild<QPushButton *>(QStringLiteral("runButton"));
    QVERIFY(run);
    QTRY_VERIFY(run->isVisible());
    // Inside the tab's visible area: no scrolling needed to find it.
    QWidget *page = tabsOf(*window)->currentWidget();
    const QRect onPage(run->mapTo(page, QPoint(0, 0)), run->size());
    QVERIFY2(page->rect().contains(onPage),
        qPrintable(
            QStringLiteral("%1,%2 in %3x%4").arg(onPage.x()).arg(onPage.y()).arg(page->width()).arg(page->height())));
}

void TestMainWindow::layout_at1286x691_conformanceShowsEveryRow()
{
    // The window's default size on a 1366x768 screen under a window manager.
    auto window = makeWindow();
    QVERIFY(window);
    window->resize(1286, 691);
    QTRY_COMPARE(window->size(), QSize(1286, 691));
    window->showTab(MainWindow::Tab::Conformance);
    auto *matrix = conformanceViewOf(*window)->findChild<QTableView *>(QStringLiteral("matrix"));
    QVERIFY(matrix);
    QTRY_VERIFY(matrix->isVisible());
    const int rows = matrix->model()->rowCount();
    QVERIFY(rows >= 13);
    // Every row in view, the last one whole.
    QTRY_VERIFY2(matrix->visualRect(matrix->model()->index(rows - 1, 0)).bottom() <= matrix->viewport()->height(),
        qPrintable(QStringLiteral("last row ends at %1 of %2")
                       .arg(matrix->visualRect(matrix->model()->index(rows - 1, 0)).bottom())
                       .arg(matrix->viewport()->height())));
    // Column titles whole; a row label too long for what the columns leave is whole in its tooltip.
    const QFontMetrics metrics = matrix->fontMetrics();
    for (int row = 0; row < rows; ++row) {
        const QString label = matrix->model()->headerData(row, Qt::Vertical).toString();
        if (metrics.horizontalAdvance(label) + 8 > matrix->verticalHeader()->width()) {
            QVERIFY2(matrix->model()->headerData(row, Qt::Vertical, Qt::ToolTipRole).toString().startsWith(label),
                qPrintable(label));
        }
    }
    // Titles in two lines, the method under the class, and whole in their tooltips.
    QVERIFY(matrix->horizontalHeader()->height() >= 2 * metrics.height());
    for (int column = 0; column < matrix->model()->columnCount(); ++column) {
        const QString title = matrix->model()->headerData(column, Qt::Horizontal).toString();
        QCOMPARE(title.count(QLatin1Char('\n')), 1);
        QCOMPARE(matrix->model()->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString(),
            QString(title).replace(QLatin1Char('\n'), QLatin1Char(' ')));
    }
    // The page needs no scrolling to show it.
    auto *page = qobject_cast<QScrollArea *>(tabsOf(*window)->currentWidget());
    if (page) {
        QTRY_COMPARE(page->verticalScrollBar()->maximum(), 0);
    }
}

void TestMainWindow::keyboard_tabGoesFromTheUrlToSendToTheResults_andLeavesTheLog()
{
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    QTest::keySequence(window.get(), QKeySequence(Qt::CTRL | Qt::Key_L));
    auto *url = composerOf(*window)->findChild<QComboBox *>(QStringLiteral("url"));
    QTRY_VERIFY(url->lineEdit()->hasFocus());
    // From the URL the results are a few Tab presses away, not twelve policy fields;
    // Ctrl+Return sends and Esc stops from anywhere.
    int presses = 0;
    while (!tabsOf(*window)->isAncestorOf(QApplication::focusWidget()) && presses < 7) {
        QTest::keyClick(window.get(), Qt::Key_Tab);
        ++presses;
    }
    QVERIFY2(tabsOf(*window)->isAncestorOf(QApplication::focusWidget()),
        QApplication::focusWidget()->metaObject()->className());

    // In the error log Tab leaves the table instead of walking its cells.
    window->showTab(MainWindow::Tab::ErrorLog);
    auto *table = errorLogViewOf(*window)->findChild<QTableView *>(QStringLiteral("attemptTable"));
    QVERIFY(table);
    QVERIFY(!table->tabKeyNavigation());
}

// A desktop's screen: the window saves a layout only when its screen can hold it.
RETRYLAB_TEST_MAIN_WITH_SCREEN(TestMainWindow, QSize(1600, 1000))
#include "tst_mainwindow.moc"
