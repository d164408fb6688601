// Backoff timers with the window live: the main window (offscreen unless a display
// is given) runs 1,000 concurrent logical requests that each fail twice against its
// embedded server, under the default policy (2^n s plus up to 1 s of jitter), while
// the timeline follows the live edge and the error log follows the newest row (the
// two tabs take turns in view, so that both are drawn). The window's executor runs on
// a thread of its own (ThreadedExecutor). Records every retry's actual minus planned
// delay, the interval between the timeline's frames while it is in view and the time
// each takes to draw, how late a 5 ms timer on the window's thread fires (how long
// the thread is kept from its events), and how many reports reached the window per
// batch. Then the same requests on a RetryExecutor on this thread, without a window,
// for the ratio. Then a batch of as many started as a person starts it (Send batch,
// the timeline live): how long after the click each first attempt goes out, against
// the same requests submitted headless, in --batch-rounds rounds taken in turn. Writes
// JSON (--out).
//
// With --monitors N the window also runs N monitors against its embedded server
// every 10 s (a fifth answered 503 once and retried), and the Monitors tab and
// one monitor's 30-day history (a synthetic month written first, as
// bench_monitor writes it) take the turns instead of the run views: the frames
// and draw times are theirs. It also times how long the month of that monitor
// takes from the request to the drawn chart, and one draw of it.
//   bench_windowtimers [--requests N] [--monitors N] [--batch-rounds N] [--out FILE]
// With BENCH_DEBUG set it also names every event that keeps a thread over 30 ms.
#include "bench/synthetichistory.h"
#include "core/executor/retryexecutor.h"
#include "core/executor/threadedexecutor.h"
#include "core/monitor/monitorsfilewriter.h"
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/monitor/monitorhistorypage.h"
#include "ui/monitor/monitorhistoryview.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/monitor/monitorsview.h"
#include "ui/monitorcontroller.h"
#include "ui/request/requestcomposer.h"
#include "ui/run/errorlogview.h"
#include "ui/run/timelineview.h"
#include "ui/runactions.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/monitor/monitorhost.h"
#include "ui/session/run/runsession.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMap>
#include <QPainter>
#include <QStandardPaths>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>

using namespace RetryLab;
using namespace RetryLab::Core;

namespace {

QJsonObject distribution(QList<double> values)
{
    if (values.isEmpty())
        return {};
    std::sort(values.begin(), values.end());
    const auto at = [&values](double q) {
        return values[std::min<qsizetype>(values.size() - 1, static_cast<qsizetype>(q * (values.size() - 1) + 0.5))];
    };
    return QJsonObject{{QStringLiteral("count"), values.size()}, {QStringLiteral("min"), values.first()},
        {QStringLiteral("p50"), at(0.5)}, {QStringLiteral("p99"), at(0.99)}, {QStringLiteral("max"), values.last()}};
}

// Paint events of a widget: the interval between the starts of consecutive frames.
class FrameClock final : public QObject
{
public:
    explicit FrameClock(QWidget *widget) : m_widget(widget) { widget->installEventFilter(this); }
    QList<double> intervalsMs;

    /// Records from the next frame on; an interval across a pause is not a frame time.
    void setRecording(bool on)
    {
        m_recording = on;
        m_clock.invalidate();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_widget && event->type() == QEvent::Paint && m_recording) {
            if (m_clock.isValid())
                intervalsMs.append(static_cast<double>(m_clock.nsecsElapsed()) / 1e6);
            m_clock.start();
        }
        return false;
    }

private:
    QWidget *m_widget;
    QElapsedTimer m_clock;
    bool m_recording = false;
};

struct Run
{
    int finished = 0;
    int succeeded = 0;
    QList<double> latenessMs;
    double seconds = 0.0;
};

void waitUntil(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > timeoutMs)
            qFatal("bench_windowtimers: the run did not finish within %d ms", timeoutMs);
        // Sleeps until an event comes: a loop that polls would keep a core busy for nothing.
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    }
}

// Submits `count` requests failing twice through `submit`, collecting from `executor`
// (the window's ThreadedExecutor or a RetryExecutor on this thread).
template<typename Executor>
Run runFailingTwice(Executor *executor, const std::function<void(const RequestSpec &)> &submit, const QUrl &base,
    const QString &prefix, int count, const std::function<void()> &submitted = {})
{
    Run run;
    const auto a = QObject::connect(executor, &Executor::attemptFinished, executor, [&run](const AttemptRecord &r) {
        if (r.attemptIndex > 0)
            run.latenessMs.append(r.actualDelayMs - r.plannedDelayMs);
    });
    const auto b = QObject::connect(executor, &Executor::requestFinished, executor, [&run](const RequestResult &r) {
        ++run.finished;
        if (r.outcome == RequestOutcome::Succeeded)
            ++run.succeeded;
    });
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < count; ++i) {
        RequestSpec spec;
        spec.url = base.resolved(QUrl(QStringLiteral("/fail/2?key=%1-%2").arg(prefix).arg(i)));
        submit(spec);
    }
    if (submitted)
        submitted();
    waitUntil([&run, count] { return run.finished == count; }, 600'000);
    run.seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    QObject::disconnect(a);
    QObject::disconnect(b);
    if (run.succeeded != count)
        qFatal("bench_windowtimers: only %d of %d requests succeeded", run.succeeded, count);
    return run;
}

// CPU time each thread of this process has had so far, in ms, by thread name
// (/proc/self/task/*/schedstat counts nanoseconds; threads of one name added up).
QMap<QString, double> threadCpuMs()
{
    QMap<QString, double> cpu;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile name(tasks.filePath(task + QStringLiteral("/comm")));
        QFile stat(tasks.filePath(task + QStringLiteral("/schedstat")));
        if (!name.open(QIODevice::ReadOnly) || !stat.open(QIODevice::ReadOnly))
            continue;
        const QString thread = QString::fromUtf8(name.readAll().trimmed());
        cpu[thread] += static_cast<double>(stat.readAll().split(' ').value(0).toLongLong()) / 1e6;
    }
    return cpu;
}

// What a batch's start cost: how long the call that starts it took on this thread,
// and the CPU time of each thread from the start until every first attempt had ended.
struct BatchCost
{
    double startCallMs = 0.0;
    QMap<QString, double> cpuMs;

    QJsonObject toJson() const
    {
        QJsonObject threads;
        for (auto it = cpuMs.cbegin(); it != cpuMs.cend(); ++it) {
            if (it.value() >= 0.5)
                threads.insert(it.key(), std::round(it.value() * 10.0) / 10.0);
        }
        return QJsonObject{{QStringLiteral("start_call_ms"), std::round(startCallMs * 10.0) / 10.0},
            {QStringLiteral("thread_cpu_ms"), threads}};
    }
};

// How long after a batch begins each request's first attempt is handed to the
// network, in ms (the attempts' wall clock against this one's; ms are enough for
// a target of 150 ms): `start` begins the batch of `count` requests.
template<typename Executor>
QList<double> firstAttemptDelays(
    Executor *executor, const std::function<void()> &start, int count, BatchCost *cost = nullptr)
{
    QList<double> delays;
    int finished = 0;
    QDateTime begun;
    QMap<QString, double> cpuBefore;
    const auto a = QObject::connect(executor, &Executor::attemptFinished, executor, [&](const AttemptRecord &r) {
        if (r.attemptIndex == 0 && r.fallback == 0) {
            delays.append(static_cast<double>(begun.msecsTo(r.startWall)));
            if (cost && delays.size() == count) {
                cost->cpuMs = threadCpuMs();
                for (auto it = cost->cpuMs.begin(); it != cost->cpuMs.end(); ++it)
                    it.value() -= cpuBefore.value(it.key());
            }
        }
    });
    const auto b = QObject::connect(
        executor, &Executor::requestFinished, executor, [&finished](const RequestResult &) { ++finished; });
    cpuBefore = threadCpuMs();
    QElapsedTimer call;
    timespec monotonic{};
    clock_gettime(CLOCK_MONOTONIC, &monotonic);
    begun = QDateTime::currentDateTimeUtc();
    call.start();
    start();
    if (cost)
        cost->startCallMs = static_cast<double>(call.nsecsElapsed()) / 1e6;
    waitUntil([&finished, count] { return finished >= count; }, 600'000);
    QObject::disconnect(a);
    QObject::disconnect(b);
    if (delays.size() != count)
        qFatal("bench_windowtimers: %lld first attempts of %d requests", static_cast<long long>(delays.size()), count);
    if (qEnvironmentVariableIsSet("BENCH_DEBUG")) {
        // For `perf record -k CLOCK_MONOTONIC`: the span from the start to the last first attempt.
        const double startS = static_cast<double>(monotonic.tv_sec) + static_cast<double>(monotonic.tv_nsec) / 1e9;
        std::fprintf(
            stderr, "batch span %.6f %.6f\n", startS, startS + *std::max_element(delays.cbegin(), delays.cend()) / 1e3);
    }
    return delays;
}

BackoffPolicy defaultPolicy()
{
    BackoffPolicy policy; // Google's truncated exponential: 2^n s + U[0, 1 s]
    policy.name = QStringLiteral("benchmark");
    policy.attemptTimeoutMs = 30'000.0;
    return policy;
}

bool benchDebug()
{
    static const bool debug = qEnvironmentVariableIsSet("BENCH_DEBUG");
    return debug;
}

// With BENCH_DEBUG set: names every event that keeps the window's thread over 30 ms.
// It also times the paints of one widget: how long a frame takes to draw.
class TimedApplication final : public QApplication
{
public:
    using QApplication::QApplication;
    QList<double> paintMs;
    void timePaints(QObject *widget) { m_painted = {widget}; }
    void timePaints(const QList<QObject *> &widgets) { m_painted = widgets; }
    void setPaintRecording(bool on) { m_recordPaints = on; }

    bool notify(QObject *receiver, QEvent *event) override
    {
        const bool timedPaint = m_recordPaints && event->type() == QEvent::Paint && m_painted.contains(receiver);
        if (!m_debug && !timedPaint)
            return QApplication::notify(receiver, event);
        QElapsedTimer timer;
        timer.start();
        const int type = event->type();
        const bool handled = QApplication::notify(receiver, event);
        const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        if (timedPaint)
            paintMs.append(ms);
        if (m_debug && ms > 30.0)
            fprintf(stderr, "slow event %d to %s (%s, in %s): %.1f ms\n", type, receiver->metaObject()->className(),
                qPrintable(receiver->objectName()),
                receiver->parent() ? receiver->parent()->metaObject()->className() : "-", ms);
        return handled;
    }

private:
    const bool m_debug = benchDebug();
    QList<QObject *> m_painted;
    bool m_recordPaints = false;
};

constexpr qint64 monthMs = 30LL * 86'400'000;
const QString chartedMonitor = QStringLiteral("monitor-0000");

// A month of `chartedMonitor` in the history the window will open.
void writeMonth(const QString &database)
{
    auto store = HistoryStore::open(database, QStringLiteral("bench"));
    if (!store)
        qFatal("bench_windowtimers: %s", qPrintable(store.error()));
    const qint64 endMs = QDateTime::currentMSecsSinceEpoch() - 60'000;
    Bench::SyntheticCounts counts;
    if (!Bench::writeSyntheticMonitor(**store, chartedMonitor, endMs - monthMs, endMs, 10'000, counts)
        || !(*store)->flush())
        qFatal("bench_windowtimers: %s", qPrintable((*store)->warning()));
}

// `count` monitors of the embedded server at 10 s, a fifth retried once, as a monitors file.
QString writeMonitors(const QString &folder, const QUrl &server, int count)
{
    BackoffPolicy quick;
    quick.name = QStringLiteral("monitor");
    quick.baseDelayMs = 50.0;
    quick.maxBackoffMs = 200.0;
    quick.maxAttempts = 3;
    QList<Monitor> monitors;
    for (int i = 0; i < count; ++i) {
        Monitor monitor;
        monitor.name = QStringLiteral("monitor-%1").arg(i, 4, 10, QLatin1Char('0'));
        monitor.urlTemplate
            = server.toString() + (i % 5 == 4 ? QStringLiteral("/fail/1?key={id}") : QStringLiteral("/status/200"));
        monitor.request.url = QUrl(monitor.urlTemplate);
        monitor.request.idempotent = true;
        monitor.intervalMs = 10'000.0;
        monitor.timeoutMs = 5'000.0;
        monitor.policy = quick;
        monitor.policyOrigin = QStringLiteral("inline");
        monitors.append(monitor);
    }
    const QString path = QDir(folder).filePath(QStringLiteral("bench-monitors.json"));
    if (const auto written = MonitorsFileWriter::writeFile(path, monitors); !written)
        qFatal("bench_windowtimers: %s", qPrintable(written.error()));
    return path;
}

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("retrylab.*.debug=false\nretrylab.*.info=false"));
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("bench_windowtimers"));
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption requestsOption(QStringLiteral("requests"), QStringLiteral("Concurrent logical requests."),
        QStringLiteral("n"), QStringLiteral("1000"));
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("JSON file."), QStringLiteral("file"),
        QStringLiteral("bench_windowtimers.json"));
    const QCommandLineOption monitorsOption(QStringLiteral("monitors"),
        QStringLiteral("Monitors checking the embedded server every 10 s; the Monitors tab and a history are shown."),
        QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption roundsOption(QStringLiteral("batch-rounds"),
        QStringLiteral("Batches started in the window and headless, in turn, for the batch figure."),
        QStringLiteral("n"), QStringLiteral("5"));
    parser.addOptions({requestsOption, monitorsOption, roundsOption, outOption});
    parser.process(app);
    const int count = std::max(1, parser.value(requestsOption).toInt());
    const int batchRounds = std::clamp(parser.value(roundsOption).toInt(), 1, 50);
    const int monitorCount = std::max(0, parser.value(monitorsOption).toInt());
    const bool monitorsShown = monitorCount > 0;
    QTextStream out(stdout);

    QTemporaryDir dataDir;
    Ui::MainWindow::Options options;
    if (monitorsShown) {
        options.dataDirectory = dataDir.path();
        options.systemTray = false;
        writeMonth(QDir(dataDir.path()).filePath(QStringLiteral("history.sqlite")));
    }
    Ui::MainWindow window(options);
    window.resize(1440, 900);
    window.show();
    if (!window.server()->isRunning())
        qFatal("bench_windowtimers: the embedded server did not start: %s", qPrintable(window.server()->errorString()));
    const QUrl base = window.server()->baseUrl();
    ThreadedExecutor *executor = executorOf(window);
    executor->setConcurrencyLimit(count);
    executor->setSeed(42);
    executor->setPolicy(defaultPolicy());
    timelineViewOf(window)->setFollowLive(true);
    errorLogViewOf(window)->setFollowNewest(true);
    window.showTab(Ui::MainWindow::Tab::Timeline);
    QCoreApplication::processEvents();

    // With monitors: they run, and the month of one is read and drawn.
    auto *controller = window.findChild<Ui::MonitorController *>(QStringLiteral("monitorController"));
    auto *monitorsView = window.findChild<Ui::MonitorsView *>(QStringLiteral("monitors"));
    auto *history = window.findChild<Ui::MonitorHistoryPage *>(QStringLiteral("monitorHistory"));
    double monthLoadMs = 0.0;
    QList<double> monthDrawMs;
    qint64 monitorChecks = 0;
    qint64 monthPoints = 0;
    if (monitorsShown) {
        QObject::connect(controller->host(), &Ui::MonitorHost::checkFinished, &window,
            [&monitorChecks](const StoredCheck &) { ++monitorChecks; });
        const QString error = controller->host()->importFile(writeMonitors(dataDir.path(), base, monitorCount));
        if (!error.isEmpty())
            qFatal("bench_windowtimers: %s", qPrintable(error));
        waitUntil([&] { return controller->host()->isOpen() && monitorChecks >= monitorCount / 10; }, 120'000);
        window.showTab(Ui::MainWindow::Tab::MonitorHistory);
        QElapsedTimer load;
        load.start();
        history->setCurrentMonitor(chartedMonitor);
        history->setWindowMs(monthMs);
        // Drawn means with its bands: the incidents come after the checks.
        waitUntil(
            [&] {
                return history->historyView()->checkPoints().size() > 250'000
                    && !history->historyView()->incidents().isEmpty();
            },
            60'000);
        history->historyView()->viewport()->repaint();
        monthLoadMs = static_cast<double>(load.nsecsElapsed()) / 1e6;
        monthPoints = history->historyView()->checkPoints().size();
        QImage image(history->historyView()->viewport()->size(), QImage::Format_ARGB32_Premultiplied);
        for (int i = 0; i < 5; ++i) {
            QElapsedTimer draw;
            draw.start();
            QPainter painter(&image);
            history->historyView()->render(painter, image.size());
            painter.end();
            monthDrawMs.append(static_cast<double>(draw.nsecsElapsed()) / 1e6);
        }
        window.showTab(Ui::MainWindow::Tab::Monitors);
        QCoreApplication::processEvents();
    }
    const auto firstTab = monitorsShown ? Ui::MainWindow::Tab::Monitors : Ui::MainWindow::Tab::Timeline;
    const auto secondTab = monitorsShown ? Ui::MainWindow::Tab::MonitorHistory : Ui::MainWindow::Tab::ErrorLog;
    QWidget *firstView = monitorsShown ? monitorsView->table()->viewport() : timelineViewOf(window)->viewport();
    QWidget *secondView = monitorsShown ? history->historyView()->viewport() : nullptr;

    // The two tabs take turns in view; a 5 ms timer measures how late the window's thread gets to it.
    FrameClock frames(firstView);
    std::unique_ptr<FrameClock> secondFrames;
    if (secondView) {
        secondFrames = std::make_unique<FrameClock>(secondView);
        app.timePaints({firstView, secondView});
    } else {
        app.timePaints(firstView);
    }
    QTimer turns;
    turns.setInterval(250);
    QObject::connect(&turns, &QTimer::timeout, &window, [&, firstTab, secondTab] {
        const bool first = window.currentTab() != firstTab;
        window.showTab(first ? firstTab : secondTab);
        frames.setRecording(first);
        if (secondFrames)
            secondFrames->setRecording(!first);
        app.setPaintRecording(first || secondFrames != nullptr);
    });
    QList<double> stallMs;
    QElapsedTimer probeClock;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(5);
    QObject::connect(&probe, &QTimer::timeout, &window, [&stallMs, &probeClock] {
        if (probeClock.isValid())
            stallMs.append(std::max(0.0, static_cast<double>(probeClock.nsecsElapsed()) / 1e6 - 5.0));
        if (benchDebug() && !stallMs.isEmpty() && stallMs.last() > 30.0)
            fprintf(stderr, "stall %.1f ms at probe %lld\n", stallMs.last(), (long long)stallMs.size());
        probeClock.start();
    });
    // Measured once the requests are in: the loop submitting them is this program's, not the window's.
    const Run live = runFailingTwice(
        executor, [&window](const RequestSpec &spec) { sessionOf(window)->submit(spec); }, base,
        QStringLiteral("window"), count,
        [&] {
            frames.setRecording(true);
            app.setPaintRecording(true);
            turns.start();
            probe.start();
        });
    probe.stop();
    turns.stop();
    frames.setRecording(false);
    if (secondFrames)
        secondFrames->setRecording(false);
    app.setPaintRecording(false);
    const qint64 batches = executor->batchesDelivered();
    const qint64 reports = executor->reportsDelivered();

    // The same on an executor of its own, no window drawing (the embedded server still answers).
    RetryExecutor headless;
    headless.setConcurrencyLimit(count);
    headless.setSeed(42);
    headless.setPolicy(defaultPolicy());
    const Run alone = runFailingTwice(
        &headless, [&headless](const RequestSpec &spec) { headless.submit(spec); }, base, QStringLiteral("alone"),
        count);

    // A batch started as the person starts it (Send batch), the timeline live: when does
    // each first attempt go out? Then the same requests submitted headless.
    Ui::RequestComposer *composer = composerOf(window);
    RequestDraft batch = composer->draft();
    batch.method = QStringLiteral("GET");
    batch.urlTemplate = QStringLiteral("{server}/fail/2?key={id}");
    batch.batchCount = std::min(count, RequestDraft::maxBatchCount);
    batch.concurrency = std::min(count, RequestDraft::maxConcurrency);
    composer->setDraft(batch);
    sessionOf(window)->clear();
    window.showTab(Ui::MainWindow::Tab::Timeline);
    timelineViewOf(window)->setFollowLive(true);
    QCoreApplication::processEvents();
    // Rounds in turn, the window first in one and headless first in the next, so that the
    // machine's drift weighs on both; each round's last first attempt is its figure, and
    // the round whose figure is the median of the window's is reported whole.
    struct BatchRound
    {
        QList<double> window;
        QList<double> headless;
        BatchCost windowCost;
        BatchCost headlessCost;
    };
    QList<BatchRound> rounds;
    for (int round = 0; round < batchRounds; ++round) {
        BatchRound r;
        const auto inWindow = [&] {
            sessionOf(window)->clear();
            QCoreApplication::processEvents();
            r.window = firstAttemptDelays(
                executor, [&window] { runActionsOf(window)->sendBatch(); }, batch.batchCount, &r.windowCost);
        };
        const auto headlessBatch = [&] {
            r.headless = firstAttemptDelays(
                &headless,
                [&headless, &base, round, n = batch.batchCount] {
                    for (int i = 0; i < n; ++i) {
                        RequestSpec spec;
                        spec.url = base.resolved(QUrl(QStringLiteral("/fail/2?key=first-%1-%2").arg(round).arg(i)));
                        headless.submit(spec);
                    }
                },
                batch.batchCount, &r.headlessCost);
        };
        if (round % 2 == 0) {
            inWindow();
            headlessBatch();
        } else {
            headlessBatch();
            inWindow();
        }
        rounds.append(r);
    }
    const auto lastOf = [](const QList<double> &delays) { return *std::max_element(delays.cbegin(), delays.cend()); };
    const auto median = [](QList<double> values) {
        std::sort(values.begin(), values.end());
        return values[values.size() / 2];
    };
    QList<double> windowLast;
    QList<double> headlessLast;
    QJsonArray roundsJson;
    for (const BatchRound &r : std::as_const(rounds)) {
        windowLast.append(lastOf(r.window));
        headlessLast.append(lastOf(r.headless));
        roundsJson.append(QJsonObject{{QStringLiteral("window_ms"), distribution(r.window)},
            {QStringLiteral("headless_ms"), distribution(r.headless)},
            {QStringLiteral("window_start"), r.windowCost.toJson()},
            {QStringLiteral("headless_start"), r.headlessCost.toJson()}});
    }
    const double windowMedianLast = median(windowLast);
    const double headlessMedianLast = median(headlessLast);
    const auto representative = std::find_if(
        rounds.cbegin(), rounds.cend(), [&](const BatchRound &r) { return lastOf(r.window) == windowMedianLast; });
    const QList<double> windowFirst = representative->window;
    const QList<double> headlessFirst = representative->headless;
    const BatchCost windowCost = representative->windowCost;
    const BatchCost headlessCost = representative->headlessCost;

    const QJsonObject liveLateness = distribution(live.latenessMs);
    const QJsonObject aloneLateness = distribution(alone.latenessMs);
    const QJsonObject frameTimes = distribution(frames.intervalsMs);
    const QJsonObject paintTimes = distribution(app.paintMs);
    const QJsonObject stalls = distribution(stallMs);
    QJsonObject result{
        {QStringLiteral("requests"), count},
        {QStringLiteral("policy"),
            QStringLiteral("google-truncated-exponential, 2^n s + U[0, 1 s], each request failing twice")},
        {QStringLiteral("platform"), QGuiApplication::platformName()},
        {QStringLiteral("window_lateness_ms"), liveLateness},
        {QStringLiteral("window_seconds"), live.seconds},
        {QStringLiteral("headless_lateness_ms"), aloneLateness},
        {QStringLiteral("headless_seconds"), alone.seconds},
        {QStringLiteral("timeline_frame_interval_ms"), frameTimes},
        {QStringLiteral("timeline_frame_draw_ms"), paintTimes},
        {QStringLiteral("executor_thread"), true},
        {QStringLiteral("reports_per_batch"), batches > 0 ? static_cast<double>(reports) / batches : 0.0},
        {QStringLiteral("gui_thread_stall_ms"), stalls},
        {QStringLiteral("batch_first_attempts_window_ms"), distribution(windowFirst)},
        {QStringLiteral("batch_first_attempts_headless_ms"), distribution(headlessFirst)},
        {QStringLiteral("batch_start_window"), windowCost.toJson()},
        {QStringLiteral("batch_start_headless"), headlessCost.toJson()},
        {QStringLiteral("batch_rounds"), roundsJson},
        {QStringLiteral("batch_last_first_attempt_window_median_ms"), windowMedianLast},
        {QStringLiteral("batch_last_first_attempt_headless_median_ms"), headlessMedianLast},
        {QStringLiteral("batch_window_within_150ms_rounds"),
            static_cast<int>(
                std::count_if(windowLast.cbegin(), windowLast.cend(), [](double ms) { return ms <= 150.0; }))},
        {QStringLiteral("batch_headless_within_150ms_rounds"),
            static_cast<int>(
                std::count_if(headlessLast.cbegin(), headlessLast.cend(), [](double ms) { return ms <= 150.0; }))},
        {QStringLiteral("target"), QStringLiteral("p99 lateness <= 2 ms with the window live; frames under 33 ms")},
    };
    out << QStringLiteral(
        "with the window live: actual - planned p50 %1 ms, p99 %2 ms, max %3 ms (%4 retries); "
        "without: p99 %5 ms; timeline frames every %6 ms at p50, %7 ms at p99, drawn in %10 ms at p99; "
        "window thread stalls p99 %8 ms, max %9 ms; %11 reports per batch; a batch's first attempts out "
        "within %12 ms from Send batch (the median of %13 rounds), %14 ms headless\n")
               .arg(liveLateness.value(QStringLiteral("p50")).toDouble(), 0, 'f', 2)
               .arg(liveLateness.value(QStringLiteral("p99")).toDouble(), 0, 'f', 2)
               .arg(liveLateness.value(QStringLiteral("max")).toDouble(), 0, 'f', 2)
               .arg(live.latenessMs.size())
               .arg(aloneLateness.value(QStringLiteral("p99")).toDouble(), 0, 'f', 2)
               .arg(frameTimes.value(QStringLiteral("p50")).toDouble(), 0, 'f', 1)
               .arg(frameTimes.value(QStringLiteral("p99")).toDouble(), 0, 'f', 1)
               .arg(stalls.value(QStringLiteral("p99")).toDouble(), 0, 'f', 1)
               .arg(stalls.value(QStringLiteral("max")).toDouble(), 0, 'f', 1)
               .arg(paintTimes.value(QStringLiteral("p99")).toDouble(), 0, 'f', 1)
               .arg(batches > 0 ? static_cast<double>(reports) / batches : 0.0, 0, 'f', 1)
               .arg(windowMedianLast, 0, 'f', 0)
               .arg(batchRounds)
               .arg(headlessMedianLast, 0, 'f', 0);
    if (monitorsShown) {
        const QJsonObject secondFrameTimes = distribution(secondFrames->intervalsMs);
        const QJsonObject monthDraw = distribution(monthDrawMs);
        result.insert(QStringLiteral("monitors"), monitorCount);
        result.insert(QStringLiteral("monitor_checks"), monitorChecks);
        result.insert(QStringLiteral("monitors_frame_interval_ms"), frameTimes);
        result.insert(QStringLiteral("history_frame_interval_ms"), secondFrameTimes);
        result.insert(QStringLiteral("frame_draw_ms"), paintTimes);
        result.insert(QStringLiteral("history_month_points"), monthPoints);
        result.insert(QStringLiteral("history_month_load_ms"), monthLoadMs);
        result.insert(QStringLiteral("history_month_draw_ms"), monthDraw);
        result.insert(QStringLiteral("target"),
            QStringLiteral("frames under 33 ms at p99 and backoff lateness p99 under 2 ms with 1,000 monitors; a "
                           "month of one monitor drawn in under 300 ms"));
        out << QStringLiteral("with %1 monitors (%2 checks during the run): Monitors tab frames every %3 ms at p99, "
                              "history %4 ms at p99, drawn in %5 ms at p99; a month of one monitor (%6 checks) "
                              "read and drawn in %7 ms, one draw %8 ms (p50)\n")
                   .arg(monitorCount)
                   .arg(monitorChecks)
                   .arg(frameTimes.value(QStringLiteral("p99")).toDouble(), 0, 'f', 1)
                   .arg(secondFrameTimes.value(QStringLiteral("p99")).toDouble(), 0, 'f', 1)
                   .arg(paintTimes.value(QStringLiteral("p99")).toDouble(), 0, 'f', 1)
                   .arg(monthPoints)
                   .arg(monthLoadMs, 0, 'f', 0)
                   .arg(monthDraw.value(QStringLiteral("p50")).toDouble(), 0, 'f', 1);
    }
    out.flush();
    QFile file(parser.value(outOption));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("bench_windowtimers: cannot write %s", qPrintable(file.fileName()));
    file.write(QJsonDocument(result).toJson());
    return 0;
}
