// Measures the monitor engine at scale, with the fault server in a child process
// of its own (this program started with --serve):
//
//   engine   10,000 monitors (--monitors N) at a 10 s interval (--interval-ms) for
//            5 minutes (--duration S): 1,000 checks a second, a fifth of them
//            answered 503 once and retried (/fail/1 with a key per check). The
//            figures: checks done against checks due, CPU time per check (this
//            process, user and system), peak resident memory and its cost per
//            monitor, and how late checks started after they were due (p50, p99,
//            max), every check written to a history database when --db is given.
//
// Usage: bench_monitor [--part engine] [--monitors N] [--interval-ms MS] [--duration S]
//                      [--out FILE] [--quick]
//        bench_monitor --serve      (the child: prints "PORT <n>", serves until killed)

#include "bench/processmemory.h"
#include "bench/serverprocess.h"
#include "core/monitor/monitorengine.h"
#include "core/monitor/monitorschedule.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QTimer>

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
    parser.addOptions(
        {serveOption, partOption, monitorsOption, intervalOption, durationOption, outOption, quickOption});
    parser.process(app);
    if (parser.isSet(serveOption))
        return serveFaults();
    QLoggingCategory::setFilterRules(QStringLiteral("retrylab.*.debug=false\nretrylab.*.info=false\n"
                                                    "retrylab.core.executor.warning=false"));

    QTextStream out(stdout);
    ServerProcess server;
    if (!server.start()) {
        QTextStream(stderr) << "bench_monitor: the fault server did not start" << Qt::endl;
        return 1;
    }
    QJsonObject results;
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
