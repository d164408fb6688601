// Measures the monitor engine at scale, with the fault server in a child process
// of its own (this program started with --serve):
//
//   engine   10,000 monitors (--monitors N) at a 10 s interval (--interval-ms) for
//            5 minutes (--duration S): 1,000 checks a second, a fifth of them
//            answered 503 once and retried (/fail/1 with a key per check). The
//            figures: checks done against checks due, CPU time per check (this
//            process, user and system), peak resident memory and its cost per
//            monitor, and how late checks started after they were due (p50, p99,
//            max).
//   history  a synthetic history of 100 monitors (--history-monitors N) over 30
//            days (--history-days D) at a 10 s interval: 26 million checks, a fifth
//            of them retried once, one in a thousand failing for good, and a
//            10-minute outage a day per monitor. Written through HistoryStore to a
//            SQLite file (--db FILE, default a temporary one): checks written per
//            second and bytes per stored attempt; then, each the median of three
//            runs: one monitor's availability and incidents over the whole window,
//            its checks as the points the window's history chart draws,
//            every monitor's summary of the last 24 h, and a what-if of one
//            monitor's whole window with no retries.
//
// Usage: bench_monitor [--part engine|history|all] [--monitors N] [--interval-ms MS] [--duration S]
//                      [--history-monitors N] [--history-days D] [--db FILE] [--out FILE] [--quick]
//        bench_monitor --serve      (the child: prints "PORT <n>", serves until killed)

#include "bench/processmemory.h"
#include "bench/serverprocess.h"
#include "bench/synthetichistory.h"
#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "core/monitor/monitorengine.h"
#include "core/monitor/monitorschedule.h"
#include "core/util/randomsource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <functional>

using namespace RetryLab::Bench;
using namespace RetryLab::Core;

namespace {

struct EngineRun
{
    int monitors = 10'000;
    int intervalMs = 10'000;
    int durationS = 300;
    double retriedShare = 0.2;
};

QJsonObject measureEngine(const ServerProcess &server, const EngineRun &run, QTextStream &out)
{
    BackoffPolicy retried;
    retried.name = QStringLiteral("bench");
    retried.algorithm = BackoffAlgorithm::FullJitter;
    retried.baseDelayMs = 50.0;
    retried.maxBackoffMs = 1000.0;
    retried.maxAttempts = 3;
    retried.attemptTimeoutMs = 5000.0;
    QList<Monitor> monitors;
    monitors.reserve(run.monitors);
    const int retriedEvery = run.retriedShare > 0.0 ? int(std::lround(1.0 / run.retriedShare)) : 0;
    for (int i = 0; i < run.monitors; ++i) {
        Monitor m;
        m.name = QStringLiteral("endpoint-%1").arg(i, 5, 10, QLatin1Char('0'));
        const bool flaky = retriedEvery > 0 && i % retriedEvery == 0;
        // As text: a QUrl would encode the braces of {id}.
        m.urlTemplate = server.url(QString()).toString()
            + (flaky ? QStringLiteral("/fail/1?key={id}") : QStringLiteral("/status/200"));
        m.request.idempotent = true;
        m.request.attemptHeaders = false;
        m.intervalMs = run.intervalMs;
        m.timeoutMs = 8000.0;
        m.policy = retried;
        monitors.append(m);
    }
    MonitorEngine engine;
    engine.setAgent(QStringLiteral("bench"));
    engine.setConcurrencyLimit(2000);
    engine.setMonitors(monitors);
    qint64 checks = 0;
    qint64 failedChecks = 0;
    qint64 attempts = 0;
    QObject::connect(&engine, &MonitorEngine::checkFinished, &engine, [&](const StoredCheck &check) {
        ++checks;
        failedChecks += check.success ? 0 : 1;
        attempts += check.attempts.size();
    });
    QObject::connect(&engine, &MonitorEngine::stopped, &engine, [] { QCoreApplication::quit(); });

    resetPeakResident();
    const qint64 residentBefore = residentKiB();
    const double cpuBefore = processCpuSeconds();
    const double serverCpuBefore = server.cpuSeconds();
    QElapsedTimer wall;
    wall.start();
    engine.start();
    QTimer::singleShot(run.durationS * 1000, &engine, [&engine] { engine.stop(); });
    QCoreApplication::exec();
    const double seconds = wall.elapsed() / 1000.0;
    const double cpu = processCpuSeconds() - cpuBefore;
    const double serverCpu = server.cpuSeconds() - serverCpuBefore;
    const qint64 peak = peakResidentKiB();
    const double due = double(run.monitors) * run.durationS * 1000.0 / run.intervalMs;

    QJsonObject result{
        {QStringLiteral("monitors"), run.monitors},
        {QStringLiteral("intervalMs"), run.intervalMs},
        {QStringLiteral("durationS"), seconds},
        {QStringLiteral("checks"), checks},
        {QStringLiteral("checksDue"), due},
        {QStringLiteral("checksPerSecond"), checks / seconds},
        {QStringLiteral("failedChecks"), failedChecks},
        {QStringLiteral("attemptsPerCheck"), checks ? double(attempts) / checks : 0.0},
        {QStringLiteral("cpuMicrosecondsPerCheck"), checks ? cpu * 1e6 / checks : 0.0},
        {QStringLiteral("coresBusy"), cpu / seconds},
        {QStringLiteral("serverCoresBusy"), serverCpu / seconds},
        {QStringLiteral("residentBeforeKiB"), residentBefore},
        {QStringLiteral("peakResidentKiB"), peak},
        {QStringLiteral("bytesPerMonitor"), double(peak - residentBefore) * 1024.0 / run.monitors},
        {QStringLiteral("lateP50Ms"), engine.latenessQuantileMs(0.50)},
        {QStringLiteral("lateP99Ms"), engine.latenessQuantileMs(0.99)},
        {QStringLiteral("lateMaxMs"), engine.latenessQuantileMs(1.0)},
        {QStringLiteral("lateSamples"), engine.latenessSamples()},
    };
    out << QStringLiteral("engine: %1 monitors every %2 s for %3 s: %4 checks (%5 due), %6 failed, %7 attempts/check")
               .arg(run.monitors)
               .arg(run.intervalMs / 1000.0)
               .arg(seconds, 0, 'f', 0)
               .arg(checks)
               .arg(due, 0, 'f', 0)
               .arg(failedChecks)
               .arg(result.value(QStringLiteral("attemptsPerCheck")).toDouble(), 0, 'f', 2)
        << Qt::endl;
    out << QStringLiteral("  CPU %1 us per check (%2 cores busy; server %3), peak RSS %4 MiB (%5 KiB per monitor)")
               .arg(result.value(QStringLiteral("cpuMicrosecondsPerCheck")).toDouble(), 0, 'f', 0)
               .arg(cpu / seconds, 0, 'f', 2)
               .arg(serverCpu / seconds, 0, 'f', 2)
               .arg(peak / 1024.0, 0, 'f', 1)
               .arg(result.value(QStringLiteral("bytesPerMonitor")).toDouble() / 1024.0, 0, 'f', 1)
        << Qt::endl;
    out << QStringLiteral("  late start: p50 %1 ms, p99 %2 ms, max %3 ms")
               .arg(engine.latenessQuantileMs(0.50), 0, 'f', 1)
               .arg(engine.latenessQuantileMs(0.99), 0, 'f', 1)
               .arg(engine.latenessQuantileMs(1.0), 0, 'f', 1)
        << Qt::endl;
    return result;
}

struct HistoryRun
{
    int monitors = 100;
    int days = 30;
    qint64 intervalMs = 10'000;
    QString database;
};

// Median of three runs of `query`, in ms; fails the benchmark when a run fails.
double medianMs(const std::function<bool()> &query, const char *what)
{
    QList<double> times;
    for (int i = 0; i < 3; ++i) {
        QElapsedTimer timer;
        timer.start();
        if (!query())
            qFatal("%s failed", what);
        times.append(timer.nsecsElapsed() / 1e6);
    }
    std::sort(times.begin(), times.end());
    return times.at(1);
}

QJsonObject measureHistory(const HistoryRun &run, QTextStream &out)
{
    QTemporaryDir dir;
    const QString database = run.database.isEmpty() ? dir.filePath(QStringLiteral("history.sqlite")) : run.database;
    const qint64 dayMs = 86'400'000;
    const qint64 endMs = (QDateTime::currentMSecsSinceEpoch() / dayMs) * dayMs;
    const qint64 startMs = endMs - run.days * dayMs;
    qint64 checks = 0;
    qint64 attempts = 0;
    double writeSeconds = 0.0;
    {
        HistoryStore::Options options;
        options.rawRetentionDays = run.days + 1;
        auto store = HistoryStore::open(database, QStringLiteral("bench"), options);
        if (!store)
            qFatal("%s", qPrintable(store.error()));
        QElapsedTimer timer;
        timer.start();
        RetryLab::Bench::SyntheticCounts counts;
        for (int m = 0; m < run.monitors; ++m) {
            const QString name = QStringLiteral("monitor-%1").arg(m, 3, 10, QLatin1Char('0'));
            if (!RetryLab::Bench::writeSyntheticMonitor(**store, name, startMs, endMs, run.intervalMs, counts))
                qFatal("%s", qPrintable((*store)->warning()));
        }
        checks = counts.checks;
        attempts = counts.attempts;
        if (!(*store)->flush())
            qFatal("%s", qPrintable((*store)->warning()));
        writeSeconds = timer.elapsed() / 1000.0;
    }
    const qint64 bytes = QFileInfo(database).size() + QFileInfo(database + QStringLiteral("-wal")).size();

    auto query = HistoryQuery::open(database);
    if (!query)
        qFatal("%s", qPrintable(query.error()));
    const QString one = QStringLiteral("monitor-000");
    HistoryFilter whole;
    whole.monitor = one;
    whole.sinceMs = startMs;
    whole.untilMs = endMs;
    qint64 incidents = 0;
    const double oneMonitorMs = medianMs(
        [&] {
            const auto summaries = (*query)->summaries(whole, HistoryQuery::SummaryDetail::WithoutLatency);
            const auto found = (*query)->incidents(whole);
            incidents = found ? found->size() : -1;
            return summaries && found;
        },
        "one monitor's window");
    const double oneMonitorFullMs = medianMs(
        [&] { return bool((*query)->summaries(whole, HistoryQuery::SummaryDetail::Full)); }, "one monitor's window");
    HistoryFilter lastDay;
    lastDay.sinceMs = endMs - dayMs;
    lastDay.untilMs = endMs;
    const double allMonitorsMs
        = medianMs([&] { return bool((*query)->summaries(lastDay, HistoryQuery::SummaryDetail::WithoutLatency)); },
            "every monitor's day");
    const double allMonitorsFullMs
        = medianMs([&] { return bool((*query)->summaries(lastDay)); }, "every monitor's day with percentiles");
    qint64 points = 0;
    const double checkPointsMs = medianMs(
        [&] {
            const auto read = (*query)->checkPoints(whole);
            points = read ? read->size() : -1;
            return bool(read);
        },
        "one monitor's check points");
    const double whatIfMs = medianMs(
        [&] { return bool((*query)->whatIf(one, startMs, endMs, singleAttemptPolicy(), 1)); }, "the what-if");

    const QJsonObject result{
        {QStringLiteral("monitors"), run.monitors},
        {QStringLiteral("days"), run.days},
        {QStringLiteral("checks"), checks},
        {QStringLiteral("attempts"), attempts},
        {QStringLiteral("writeSeconds"), writeSeconds},
        {QStringLiteral("checksWrittenPerSecond"), checks / writeSeconds},
        {QStringLiteral("databaseBytes"), bytes},
        {QStringLiteral("bytesPerAttempt"), double(bytes) / attempts},
        {QStringLiteral("oneMonitorWindowMs"), oneMonitorMs},
        {QStringLiteral("oneMonitorWindowWithPercentilesMs"), oneMonitorFullMs},
        {QStringLiteral("oneMonitorIncidents"), incidents},
        {QStringLiteral("allMonitorsDayMs"), allMonitorsMs},
        {QStringLiteral("allMonitorsDayWithPercentilesMs"), allMonitorsFullMs},
        {QStringLiteral("whatIfWindowMs"), whatIfMs},
        {QStringLiteral("oneMonitorCheckPoints"), points},
        {QStringLiteral("oneMonitorCheckPointsMs"), checkPointsMs},
    };
    out << QStringLiteral("history: %1 monitors x %2 days: %3 checks, %4 attempts written in %5 s (%6 checks/s)")
               .arg(run.monitors)
               .arg(run.days)
               .arg(checks)
               .arg(attempts)
               .arg(writeSeconds, 0, 'f', 1)
               .arg(checks / writeSeconds, 0, 'f', 0)
        << Qt::endl;
    out << QStringLiteral("  %1 MiB, %2 bytes per stored attempt")
               .arg(bytes / 1048576.0, 0, 'f', 1)
               .arg(double(bytes) / attempts, 0, 'f', 1)
        << Qt::endl;
    out << QStringLiteral("  one monitor's %1 days, availability and %2 incidents: %3 ms (%4 ms with percentiles)")
               .arg(run.days)
               .arg(incidents)
               .arg(oneMonitorMs, 0, 'f', 1)
               .arg(oneMonitorFullMs, 0, 'f', 1)
        << Qt::endl;
    out << QStringLiteral("  every monitor's last 24 h: %1 ms (%2 ms with percentiles)")
               .arg(allMonitorsMs, 0, 'f', 1)
               .arg(allMonitorsFullMs, 0, 'f', 1)
        << Qt::endl;
    out << QStringLiteral("  one monitor's %1 days as %2 points for the history chart: %3 ms")
               .arg(run.days)
               .arg(points)
               .arg(checkPointsMs, 0, 'f', 1)
        << Qt::endl;
    out << QStringLiteral("  what-if of one monitor's %1 days with no retries: %2 ms")
               .arg(run.days)
               .arg(whatIfMs, 0, 'f', 1)
        << Qt::endl;
    return result;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption serveOption(QStringLiteral("serve"));
    const QCommandLineOption partOption(
        QStringLiteral("part"), QStringLiteral("engine"), QStringLiteral("PART"), QStringLiteral("engine"));
    const QCommandLineOption monitorsOption(
        QStringLiteral("monitors"), QStringLiteral("monitors"), QStringLiteral("N"));
    const QCommandLineOption intervalOption(
        QStringLiteral("interval-ms"), QStringLiteral("interval"), QStringLiteral("MS"));
    const QCommandLineOption durationOption(QStringLiteral("duration"), QStringLiteral("seconds"), QStringLiteral("S"));
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("output"), QStringLiteral("FILE"));
    const QCommandLineOption quickOption(QStringLiteral("quick"));
    const QCommandLineOption historyMonitorsOption(
        QStringLiteral("history-monitors"), QStringLiteral("monitors of the history"), QStringLiteral("N"));
    const QCommandLineOption historyDaysOption(
        QStringLiteral("history-days"), QStringLiteral("days of the history"), QStringLiteral("D"));
    const QCommandLineOption dbOption(QStringLiteral("db"), QStringLiteral("history file"), QStringLiteral("FILE"));
    parser.addOptions({serveOption, partOption, monitorsOption, intervalOption, durationOption, outOption, quickOption,
        historyMonitorsOption, historyDaysOption, dbOption});
    parser.process(app);
    if (parser.isSet(serveOption))
        return serveFaults();
    QLoggingCategory::setFilterRules(QStringLiteral("retrylab.*.debug=false\nretrylab.*.info=false\n"
                                                    "retrylab.core.executor.warning=false"));

    QTextStream out(stdout);
    const QString part = parser.value(partOption);
    if (part != QLatin1String("engine") && part != QLatin1String("history") && part != QLatin1String("all")) {
        QTextStream(stderr) << "bench_monitor: --part is engine, history or all" << Qt::endl;
        return 2;
    }
    QJsonObject results;
    if (part != QLatin1String("history")) {
        ServerProcess server;
        if (!server.start()) {
            QTextStream(stderr) << "bench_monitor: the fault server did not start" << Qt::endl;
            return 1;
        }
        EngineRun run;
        if (parser.isSet(quickOption)) {
            run.monitors = 2000;
            run.durationS = 30;
        }
        if (parser.isSet(monitorsOption))
            run.monitors = parser.value(monitorsOption).toInt();
        if (parser.isSet(intervalOption))
            run.intervalMs = parser.value(intervalOption).toInt();
        if (parser.isSet(durationOption))
            run.durationS = parser.value(durationOption).toInt();
        if (run.monitors <= 0 || run.intervalMs < 100 || run.durationS <= 0) {
            QTextStream(stderr) << "bench_monitor: --monitors, --interval-ms (>= 100) and --duration must be positive"
                                << Qt::endl;
            return 2;
        }
        results.insert(QStringLiteral("engine"), measureEngine(server, run, out));
    }
    if (part != QLatin1String("engine")) {
        HistoryRun run;
        if (parser.isSet(quickOption))
            run.days = 3;
        if (parser.isSet(historyMonitorsOption))
            run.monitors = parser.value(historyMonitorsOption).toInt();
        if (parser.isSet(historyDaysOption))
            run.days = parser.value(historyDaysOption).toInt();
        run.database = parser.value(dbOption);
        if (run.monitors <= 0 || run.days <= 0 || run.days > 365) {
            QTextStream(stderr) << "bench_monitor: --history-monitors and --history-days (at most 365) must be positive"
                                << Qt::endl;
            return 2;
        }
        results.insert(QStringLiteral("history"), measureHistory(run, out));
    }

    if (parser.isSet(outOption)) {
        QFile file(parser.value(outOption));
        if (!file.open(QIODevice::WriteOnly)) {
            QTextStream(stderr) << "bench_monitor: cannot write " << file.fileName() << Qt::endl;
            return 1;
        }
        file.write(QJsonDocument(results).toJson());
    }
    return 0;
}
