#include "core/export/reportjson.h"
#include "core/monitor/checkrun.h"
#include "core/monitor/monitor.h"
#include "core/util/englishplurals.h"
#include "tests/ui/windowparts.h"
#include "ui/importcontroller.h"
#include "ui/mainwindow.h"
#include "ui/openedrun.h"
#include "ui/policy/policypanel.h"
#include "ui/request/requestcomposer.h"
#include "ui/run/attemptinspector.h"
#include "ui/run/attemptlogmodel.h"
#include "ui/run/errorlogview.h"
#include "ui/run/replaybar.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runreplay.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/bodyview.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QFrame>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

using namespace RetryLab;
using Ui::MainWindow;

namespace {

Core::BackoffPolicy fastPolicy()
{
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("Open run test");
    policy.algorithm = Core::BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 10.0;
    policy.multiplier = 2.0;
    policy.maxBackoffMs = 100.0;
    policy.maxAttempts = 5;
    policy.attemptTimeoutMs = 5000.0;
    return policy;
}

} // namespace

// File > Open run: a JSON report written by the real export from a real run
// against the embedded fault server, shown read-only in every run view, and
// the live run untouched by it and by reports that cannot be read.
class TestOpenRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void report_isShownInEveryView_readOnly_closeReturnsToLive();
    void send_closesTheOpenedRun();
    void monitorCheck_isShownAsAnOpenedRun_closeReturnsToLive();
    void damagedReport_isRefused_andTheRunKept_data();
    void damagedReport_isRefused_andTheRunKept();
    void replay_finishedRun_playsBackAtTheChosenSpeed();
    void replay_whileRunning_orEmpty_saysWhy();

private:
    std::unique_ptr<MainWindow> makeWindow();
    /// Sends one request from the composer and waits for its result.
    static bool sendAndWait(MainWindow &window, const QString &url, qsizetype results);
    /// A report of a real run: /fail/3 (three 503s, then 200).
    QString writeReport(const QString &name);

    QTemporaryDir m_dir;
    QString m_nextFile;
};

void TestOpenRun::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_openrun"));
    Core::EnglishPlurals::install();
    QVERIFY(m_dir.isValid());
}

void TestOpenRun::init()
{
    QFile::remove(QSettings().fileName());
}

void TestOpenRun::cleanup()
{
    QFile::remove(QSettings().fileName());
}

std::unique_ptr<MainWindow> TestOpenRun::makeWindow()
{
    auto window = std::make_unique<MainWindow>();
    exportsOf(*window)->setFileChooser([this](QFileDialog::AcceptMode, const QString &, const QString &,
                                           const QString &, QString *) { return m_nextFile; });
    policyPanelOf(*window)->setPolicy(fastPolicy());
    window->show();
    return window;
}

bool TestOpenRun::sendAndWait(MainWindow &window, const QString &url, qsizetype results)
{
    Core::RequestDraft draft = composerOf(window)->draft();
    draft.urlTemplate = url;
    composerOf(window)->setDraft(draft);
    composerOf(window)->sendAction()->trigger();
    const bool done = QTest::qWaitFor([&] { return sessionOf(window)->resultCount() >= results; }, 15'000);
    sessionOf(window)->flush();
    return done;
}

QString TestOpenRun::writeReport(const QString &name)
{
    const auto window = makeWindow();
    if (!sendAndWait(*window, QStringLiteral("{server}/fail/3?key={id}"), 1))
        return {};
    const QString path = m_dir.filePath(name);
    const auto written = exportRunOf(*window, path, Ui::ExportController::Format::Json);
    return written ? path : QString();
}

void TestOpenRun::report_isShownInEveryView_readOnly_closeReturnsToLive()
{
    const QString report = writeReport(QStringLiteral("fail3.json"));
    QVERIFY(!report.isEmpty());
    const auto read = Core::ReportJson::readFile(report);
    QVERIFY2(read, qPrintable(read.error()));

    // A live run of its own: one request, two attempts.
    const auto window = makeWindow();
    QVERIFY(sendAndWait(*window, QStringLiteral("{server}/fail/1?key={id}"), 1));
    Ui::RunSession *live = sessionOf(*window);
    QCOMPARE(live->finishedCount(), 2);
    QVERIFY(!openedRunOf(*window)->banner()->isVisible());

    m_nextFile = report;
    actionOf(*window, "openRun")->trigger();
    Ui::OpenedRun *opened = openedRunOf(*window);
    QVERIFY(opened->isOpen());
    Ui::RunSession *shown = opened->shownSession();
    QVERIFY(shown != live);

    // Every view shows it.
    QCOMPARE(timelineViewOf(*window)->session(), shown);
    QCOMPARE(errorLogViewOf(*window)->session(), shown);
    QCOMPARE(statisticsViewOf(*window)->session(), shown);
    QCOMPARE(inspectorOf(*window)->session(), shown);
    QCOMPARE(shown->finishedCount(), 4);
    QCOMPARE(shown->laneCount(), 1);
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 4);
    QTRY_COMPARE(statisticsViewOf(*window)->figureText(Ui::StatisticsView::Figure::Attempts), QStringLiteral("4"));
    window->showTab(MainWindow::Tab::Timeline);
    QTRY_VERIFY(timelineViewOf(*window)->attemptRect(3).isValid());

    // The inspector shows an attempt's response body from the file.
    window->inspectAttempt(0);
    QVERIFY(inspectorDockOf(*window)->isVisible());
    QVERIFY2(inspectorOf(*window)->responseBodyView()->body().bytes.contains("\"status\":503"),
        inspectorOf(*window)->responseBodyView()->body().bytes.constData());
    inspectorOf(*window)->showNext();
    inspectorOf(*window)->showNext();
    inspectorOf(*window)->showNext();
    QCOMPARE(inspectorOf(*window)->record().httpStatus, 200);

    // Marked read-only, with its file, date and policy.
    QVERIFY(opened->banner()->isVisible());
    const QString banner = opened->bannerText();
    QVERIFY2(banner.contains(QLatin1String("fail3.json")), qPrintable(banner));
    QVERIFY2(banner.contains(QLatin1String("read-only")), qPrintable(banner));
    QVERIFY2(banner.contains(QLatin1String("Open run test")), qPrintable(banner));
    QVERIFY2(banner.contains(read->run.startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))),
        qPrintable(banner));
    QVERIFY(window->windowTitle().contains(QLatin1String("read-only")));

    // The live run went on untouched, and Close brings it back.
    QCOMPARE(live->finishedCount(), 2);
    opened->closeButton()->click();
    QVERIFY(!opened->isOpen());
    QVERIFY(!opened->banner()->isVisible());
    QCOMPARE(timelineViewOf(*window)->session(), live);
    QCOMPARE(errorLogViewOf(*window)->session(), live);
    QCOMPARE(statisticsViewOf(*window)->session(), live);
    QCOMPARE(inspectorOf(*window)->session(), live);
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 2);
    QCOMPARE(window->windowTitle(), QStringLiteral("RetryLab"));
}

void TestOpenRun::send_closesTheOpenedRun()
{
    const QString report = writeReport(QStringLiteral("for-send.json"));
    QVERIFY(!report.isEmpty());
    const auto window = makeWindow();
    // Dropped on the window, a report opens as File > Open run does.
    QVERIFY(importsOf(*window)->openFile(report).ok());
    QVERIFY(openedRunOf(*window)->isOpen());
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 4);
    // While it is open, exports write the opened run.
    const QString csv = m_dir.filePath(QStringLiteral("again.csv"));
    QVERIFY(exportRunOf(*window, csv, Ui::ExportController::Format::Csv));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().trimmed().count('\n'), 4); // a header and four attempts

    QVERIFY(sendAndWait(*window, QStringLiteral("{server}/fail/1?key={id}"), 1));
    QVERIFY(!openedRunOf(*window)->isOpen());
    QCOMPARE(errorLogViewOf(*window)->session(), sessionOf(*window));
    QTRY_COMPARE(errorLogViewOf(*window)->model()->rowCount(), 2);
}

void TestOpenRun::monitorCheck_isShownAsAnOpenedRun_closeReturnsToLive()
{
    // A check of the monitor history: a 503, a reset, then a 200.
    Core::Monitor monitor;
    monitor.name = QStringLiteral("api<1>");
    monitor.urlTemplate = QStringLiteral("https://api.example.test/health");
    monitor.policy = fastPolicy();
    Core::StoredCheck check;
    check.monitor = monitor.name;
    check.startMs = QDateTime(QDate(2026, 11, 29), QTime(3, 12, 7), Qt::UTC).toMSecsSinceEpoch();
    check.endMs = check.startMs + 160;
    check.success = true;
    check.outcome = QStringLiteral("succeeded");
    check.finalStatus = 200;
    Core::StoredAttempt unavailable;
    unavailable.startMs = check.startMs + 2;
    unavailable.status = 503;
    unavailable.cause = QStringLiteral("http-503");
    unavailable.reason = QStringLiteral("HTTP 503: server error; transient, retry after a delay");
    unavailable.decision = QStringLiteral("retry-after-delay");
    unavailable.connectMs = 1.0;
    unavailable.firstByteMs = 20.0;
    unavailable.totalMs = 21.0;
    unavailable.bytes = 24;
    unavailable.failureBody = R"({"status":503,"why":"x"})";
    Core::StoredAttempt reset;
    reset.index = 1;
    reset.startMs = check.startMs + 73;
    reset.cause = QStringLiteral("connection-reset");
    reset.reason = QStringLiteral("connection reset or closed by the server; transient: retry after a delay");
    reset.decision = QStringLiteral("retry-after-delay");
    reset.delayBeforeMs = 50.0;
    reset.totalMs = 5.0;
    Core::StoredAttempt ok;
    ok.index = 2;
    ok.startMs = check.startMs + 128;
    ok.success = true;
    ok.status = 200;
    ok.cause = QStringLiteral("http-200");
    ok.reason = QStringLiteral("HTTP 200: success");
    ok.decision = QStringLiteral("success");
    ok.delayBeforeMs = 50.0;
    ok.totalMs = 30.0;
    ok.bytes = 2;
    check.attempts = {unavailable, reset, ok};
    const QString title = QStringLiteral("Check of api<1> at 2026-11-29 03:12:07 from the monitor history");

    const auto window = makeWindow();
    QVERIFY(sendAndWait(*window, QStringLiteral("{server}/fail/1?key={id}"), 1));
    Ui::RunSession *live = sessionOf(*window);
    QCOMPARE(live->finishedCount(), 2);

    Ui::OpenedRun *opened = openedRunOf(*window);
    opened->showRecord(Core::runRecordOf(check, &monitor), title);
    QVERIFY(opened->isOpen());
    Ui::RunSession *shown = opened->shownSession();
    QVERIFY(shown != live);
    QCOMPARE(timelineViewOf(*window)->session(), shown);
    QCOMPARE(errorLogViewOf(*window)->session(), shown);
    QCOMPARE(statisticsViewOf(*window)->session(), shown);
    QCOMPARE(inspectorOf(*window)->session(), shown);
    QCOMPARE(shown->finishedCount(), 3);
    QCOMPARE(shown->laneCount(), 1);
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 3);
    QTRY_COMPARE(statisticsViewOf(*window)->figureText(Ui::StatisticsView::Figure::Attempts), QStringLiteral("3"));

    // The timeline draws the three attempts one after another, with the delays between them.
    window->showTab(MainWindow::Tab::Timeline);
    QTRY_VERIFY(timelineViewOf(*window)->attemptRect(2).isValid());
    const QRectF first = timelineViewOf(*window)->attemptRect(0);
    const QRectF second = timelineViewOf(*window)->attemptRect(1);
    const QRectF third = timelineViewOf(*window)->attemptRect(2);
    QVERIFY(first.isValid() && second.isValid());
    QVERIFY(first.right() < second.left());
    QVERIFY(second.right() < third.left());

    // The inspector shows each attempt as the history kept it, the 503's body too.
    window->inspectAttempt(0);
    QVERIFY(inspectorDockOf(*window)->isVisible());
    QCOMPARE(inspectorOf(*window)->record().httpStatus, 503);
    QCOMPARE(inspectorOf(*window)->record().reason, unavailable.reason);
    QVERIFY2(inspectorOf(*window)->responseBodyView()->body().bytes.contains("\"status\":503"),
        inspectorOf(*window)->responseBodyView()->body().bytes.constData());
    inspectorOf(*window)->showNext();
    QCOMPARE(inspectorOf(*window)->record().cause, QStringLiteral("connection-reset"));
    QCOMPARE(inspectorOf(*window)->record().end, Core::AttemptEnd::NetworkError);
    QCOMPARE(inspectorOf(*window)->record().actualDelayMs, 50.0);
    inspectorOf(*window)->showNext();
    QCOMPARE(inspectorOf(*window)->record().httpStatus, 200);

    // Read-only, named by its title (as text, not markup), and it can be replayed.
    QVERIFY(opened->banner()->isVisible());
    const QString banner = opened->bannerText();
    QVERIFY2(banner.contains(title.toHtmlEscaped()), qPrintable(banner));
    QVERIFY2(banner.contains(QLatin1String("read-only")), qPrintable(banner));
    QCOMPARE(opened->title(), title);
    QVERIFY(opened->fileName().isEmpty());
    QVERIFY(!opened->report());
    QVERIFY(window->windowTitle().contains(QLatin1String("read-only")));
    QVERIFY(opened->replay());
    QVERIFY(opened->replayBar()->isEnabled());
    QVERIFY(!opened->replay()->isPlaying()); // shown whole, as a file is
    opened->replayBar()->playButton()->click();
    QVERIFY(opened->replay()->isPlaying());

    // Close: the live run, as it was.
    opened->closeButton()->click();
    QVERIFY(!opened->isOpen());
    QVERIFY(!opened->banner()->isVisible());
    QVERIFY(opened->title().isEmpty());
    QCOMPARE(timelineViewOf(*window)->session(), live);
    QCOMPARE(errorLogViewOf(*window)->session(), live);
    QCOMPARE(statisticsViewOf(*window)->session(), live);
    QCOMPARE(inspectorOf(*window)->session(), live);
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 2);
    QCOMPARE(live->finishedCount(), 2);
    QCOMPARE(window->windowTitle(), QStringLiteral("RetryLab"));
}

void TestOpenRun::damagedReport_isRefused_andTheRunKept_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("where"); // part of the message
    QTest::addRow("cut in half") << QStringLiteral("cut") << QStringLiteral("not valid JSON");
    QTest::addRow("wrong field") << QStringLiteral("field") << QStringLiteral("attempts[0].httpStatus");
    QTest::addRow("not a report") << QStringLiteral("other") << QStringLiteral("format");
    QTest::addRow("missing file") << QStringLiteral("missing") << QStringLiteral("missing.json");
}

void TestOpenRun::damagedReport_isRefused_andTheRunKept()
{
    QFETCH(QString, kind);
    QFETCH(QString, where);
    const QString good = writeReport(QStringLiteral("good.json"));
    QVERIFY(!good.isEmpty());
    QFile goodFile(good);
    QVERIFY(goodFile.open(QIODevice::ReadOnly));
    QByteArray bytes = goodFile.readAll();
    QString path = m_dir.filePath(QStringLiteral("damaged.json"));
    if (kind == QLatin1String("cut")) {
        bytes.truncate(bytes.size() / 2);
    } else if (kind == QLatin1String("field")) {
        const qsizetype at = bytes.indexOf("\"httpStatus\": 503");
        QVERIFY(at > 0);
        bytes.replace(at, qsizetype(qstrlen("\"httpStatus\": 503")), "\"httpStatus\": \"five\"");
    } else if (kind == QLatin1String("other")) {
        bytes = R"({"log": {"version": "1.2", "entries": []}})";
    } else {
        path = m_dir.filePath(QStringLiteral("missing.json"));
    }
    if (kind != QLatin1String("missing")) {
        QFile damaged(path);
        QVERIFY(damaged.open(QIODevice::WriteOnly));
        damaged.write(bytes);
    }

    const auto window = makeWindow();
    QVERIFY(sendAndWait(*window, QStringLiteral("{server}/fail/1?key={id}"), 1));
    m_nextFile = path;
    actionOf(*window, "openRun")->trigger();
    QVERIFY(!openedRunOf(*window)->isOpen());
    QMessageBox *box = openedRunOf(*window)->errorBox();
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY2(box->text().contains(QFileInfo(path).fileName()), qPrintable(box->text()));
    QVERIFY2(box->text().contains(where), qPrintable(box->text()));
    QVERIFY2(messagesOf(*window).last().contains(QLatin1String("current run is unchanged")),
        qPrintable(messagesOf(*window).last()));
    QCOMPARE(errorLogViewOf(*window)->session(), sessionOf(*window));
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 2);
    QCOMPARE(sessionOf(*window)->finishedCount(), 2);
    box->close();

    // With a run open, a damaged one keeps it open.
    QVERIFY(openedRunOf(*window)->open(good).ok());
    QVERIFY(!openedRunOf(*window)->open(path).ok());
    QVERIFY(openedRunOf(*window)->isOpen());
    QCOMPARE(openedRunOf(*window)->fileName(), good);
    QVERIFY(messagesOf(*window).last().contains(QLatin1String("run that was open is still shown")));
    QCOMPARE(errorLogViewOf(*window)->model()->rowCount(), 4);
}

void TestOpenRun::replay_finishedRun_playsBackAtTheChosenSpeed()
{
    const auto window = makeWindow();
    QVERIFY(sendAndWait(*window, QStringLiteral("{server}/fail/3?key={id}"), 1));
    auto *replay = window->findChild<QAction *>(QStringLiteral("replayRun"));
    QVERIFY(replay);
    replay->trigger();

    // A read-only copy of the run, playing from its start in every view.
    Ui::OpenedRun *opened = openedRunOf(*window);
    QVERIFY(opened->isOpen());
    QVERIFY(opened->banner()->isVisible());
    QVERIFY2(opened->bannerText().contains(QLatin1String("Replay of the run")), qPrintable(opened->bannerText()));
    Ui::RunReplay *playback = opened->replay();
    QVERIFY(playback);
    QVERIFY(playback->isPlaying());
    QCOMPARE(timelineViewOf(*window)->session(), playback->session());
    QCOMPARE(statisticsViewOf(*window)->session(), playback->session());
    QCOMPARE(sessionOf(*window)->finishedCount(), 4); // the live run is left as it was

    Ui::ReplayBar *bar = opened->replayBar();
    QVERIFY(bar->isEnabled());
    bar->speedBox()->setCurrentIndex(bar->speedBox()->findData(10.0));
    QCOMPARE(playback->speed(), 10.0);
    QTRY_VERIFY_WITH_TIMEOUT(playback->atEnd() && !playback->isPlaying(), 15'000);
    QTRY_COMPARE(statisticsViewOf(*window)->figureText(Ui::StatisticsView::Figure::Attempts), QStringLiteral("4"));
    QVERIFY2(bar->positionText().contains(QLatin1String(" of ")), qPrintable(bar->positionText()));
    QCOMPARE(bar->positionSlider()->value(), bar->positionSlider()->maximum());

    // Dragged to the start, the statistics follow the playhead.
    bar->positionSlider()->setValue(0);
    QCOMPARE(playback->positionMs(), 0.0);
    statisticsViewOf(*window)->refresh();
    QVERIFY2(
        statisticsViewOf(*window)->figureText(Ui::StatisticsView::Figure::Requests).startsWith(QLatin1String("0 done")),
        qPrintable(statisticsViewOf(*window)->figureText(Ui::StatisticsView::Figure::Requests)));
    bar->playButton()->click();
    QVERIFY(playback->isPlaying());
    bar->playButton()->click();
    QVERIFY(!playback->isPlaying());

    opened->closeButton()->click();
    QCOMPARE(timelineViewOf(*window)->session(), sessionOf(*window));
    QVERIFY(!bar->isEnabled());
}

void TestOpenRun::replay_whileRunning_orEmpty_saysWhy()
{
    const auto window = makeWindow();
    auto *replay = window->findChild<QAction *>(QStringLiteral("replayRun"));
    QVERIFY(replay);
    replay->trigger();
    QVERIFY(!openedRunOf(*window)->isOpen());
    QVERIFY2(messageBarOf(*window)->shownText().contains(QLatin1String("Nothing to replay")),
        qPrintable(messageBarOf(*window)->shownText()));

    // A request that keeps the run going (a one-second answer, retried).
    Core::RequestDraft draft = composerOf(*window)->draft();
    draft.urlTemplate = QStringLiteral("{server}/delay/1000");
    composerOf(*window)->setDraft(draft);
    composerOf(*window)->sendAction()->trigger();
    QTRY_VERIFY(sessionOf(*window)->hasActivity());
    replay->trigger();
    QVERIFY(!openedRunOf(*window)->isOpen());
    QVERIFY2(messageBarOf(*window)->shownText().contains(QLatin1String("still going")),
        qPrintable(messageBarOf(*window)->shownText()));
    runActionsOf(*window)->stop();
}

QTEST_MAIN(TestOpenRun)
#include "tst_openrun.moc"
