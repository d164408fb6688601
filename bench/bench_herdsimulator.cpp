// Times the herd simulator's default grids (19 client counts x 6 strategies x 100
// runs) on one thread and on every core, checks that both give the same CSV, and
// writes the numbers to a JSON file. With --million: one run of a million clients
// per model and strategy (time, events per second, peak memory), and the same runs
// as one grid on one thread and on every core, compared.

#include "bench/millionclients.h"
#include "bench/processmemory.h"
#include "core/herd/herdsimulator.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QPair>
#include <QTextStream>
#include <QThread>

#include <algorithm>

using namespace RetryLab::Core;

Q_LOGGING_CATEGORY(lcBench, "retrylab.bench.herdsimulator")

namespace {

struct Timing
{
    QList<double> seconds;
    qint64 events = 0;
    QString csv;
};

// One grid, timed; a failure ends the program.
QPair<HerdReport, double> timedRun(const HerdParameters &p)
{
    QElapsedTimer timer;
    timer.start();
    auto report = HerdSimulator::run(p);
    const double seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    if (!report)
        qFatal("%s", qPrintable(report.error()));
    return qMakePair(std::move(report).value(), seconds);
}

Timing measure(HerdParameters p, int threads, int repeat)
{
    p.threads = threads;
    Timing timing;
    for (int i = 0; i < repeat; ++i) {
        const auto [report, seconds] = timedRun(p);
        timing.seconds.append(seconds);
        timing.events = report.events;
        timing.csv = report.toCsv();
    }
    std::sort(timing.seconds.begin(), timing.seconds.end());
    return timing;
}

QJsonObject describe(const Timing &t, int threads)
{
    const double best = t.seconds.first();
    return QJsonObject{
        {QStringLiteral("threads"), threads},
        {QStringLiteral("seconds_min"), best},
        {QStringLiteral("seconds_median"), t.seconds[t.seconds.size() / 2]},
        {QStringLiteral("seconds_max"), t.seconds.last()},
        {QStringLiteral("events"), static_cast<double>(t.events)},
        {QStringLiteral("events_per_second"), static_cast<double>(t.events) / best},
    };
}

QJsonObject parametersJson(const HerdParameters &p)
{
    QJsonObject o{
        {QStringLiteral("clients"), p.clientCounts.first()},
        {QStringLiteral("arrivals"), arrivalModeName(p.arrivals)},
        {QStringLiteral("service_rate_per_s"), p.serviceRatePerSec},
        {QStringLiteral("queue"), p.queueCapacity},
        {QStringLiteral("base_ms"), p.baseDelayMs},
        {QStringLiteral("cap_ms"), p.maxBackoffMs},
        {QStringLiteral("network_ms"), QStringLiteral("|N(%1, %2)|").arg(p.networkMeanMs).arg(p.networkSdMs)},
        {QStringLiteral("seed"), QString::number(p.seed)},
    };
    if (p.arrivals == ArrivalMode::Poisson)
        o.insert(QStringLiteral("arrival_rate_per_s"), p.arrivalRatePerSec);
    if (p.model == HerdModel::Outage)
        o.insert(QStringLiteral("outage_ms"), QStringLiteral("%1-%2").arg(p.outageStartMs).arg(p.outageEndMs));
    return o;
}

// Each strategy alone (one run, one strategy), then all of them as one grid on one
// thread and on every core: the CSVs must be equal.
QJsonObject measureMillion(HerdModel model, const QList<HerdStrategy> &strategies, int cores, bool *identical)
{
    QTextStream out(stdout);
    HerdParameters p = RetryLab::Bench::millionClients(model);
    QJsonArray runs;
    for (const HerdStrategy &strategy : strategies) {
        p.strategies = {strategy};
        p.threads = 1;
        RetryLab::Bench::resetPeakResident();
        const qint64 before = RetryLab::Bench::residentKiB();
        const auto [report, seconds] = timedRun(p);
        const qint64 peak = RetryLab::Bench::peakResidentKiB();
        const HerdCellResult &cell = report.cells.first();
        out << QStringLiteral("%1, %2: %3 s, %4 events (%5 M/s), peak RSS %6 MiB; %7 calls, done after %8 s%9\n")
                   .arg(herdModelName(model), strategy.name())
                   .arg(seconds, 0, 'f', 2)
                   .arg(report.events)
                   .arg(static_cast<double>(report.events) / seconds / 1e6, 0, 'f', 2)
                   .arg(static_cast<double>(peak) / 1024.0, 0, 'f', 0)
                   .arg(cell.calls.mean, 0, 'f', 0)
                   .arg(cell.completionMs.mean / 1000.0, 0, 'f', 1)
                   .arg(cell.unfinished > 0 ? QStringLiteral(", %1 unfinished").arg(cell.unfinished) : QString());
        out.flush();
        runs.append(QJsonObject{
            {QStringLiteral("strategy"), strategy.name()},
            {QStringLiteral("seconds"), seconds},
            {QStringLiteral("events"), static_cast<double>(report.events)},
            {QStringLiteral("events_per_second"), static_cast<double>(report.events) / seconds},
            {QStringLiteral("rss_before_kib"), static_cast<double>(before)},
            {QStringLiteral("peak_rss_kib"), static_cast<double>(peak)},
            {QStringLiteral("calls"), cell.calls.mean},
            {QStringLiteral("completion_ms"), cell.completionMs.mean},
            {QStringLiteral("peak_load_per_s"), cell.peakLoadPerSec.mean},
            {QStringLiteral("unfinished"), static_cast<double>(cell.unfinished)},
            {QStringLiteral("gave_up"), static_cast<double>(cell.gaveUp)},
        });
    }
    p.strategies = strategies;
    const Timing single = measure(p, 1, 1);
    const Timing all = measure(p, cores, 1);
    const bool same = single.csv == all.csv;
    *identical = *identical && same;
    out << QStringLiteral("%1, the %2 strategies as one grid: 1 thread %3 s, %4 threads %5 s%6\n")
               .arg(herdModelName(model))
               .arg(strategies.size())
               .arg(single.seconds.first(), 0, 'f', 2)
               .arg(cores)
               .arg(all.seconds.first(), 0, 'f', 2)
               .arg(same ? QStringLiteral(", the same results") : QStringLiteral(" RESULTS DIFFER"));
    out.flush();
    return QJsonObject{
        {QStringLiteral("model"), herdModelName(model)},
        {QStringLiteral("parameters"), parametersJson(p)},
        {QStringLiteral("runs"), runs},
        {QStringLiteral("grid_single_thread_seconds"), single.seconds.first()},
        {QStringLiteral("grid_all_cores_seconds"), all.seconds.first()},
        {QStringLiteral("same_csv"), same},
    };
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Times the herd simulator's default grids."));
    parser.addHelpOption();
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("JSON file for the results."),
        QStringLiteral("file"), QStringLiteral("bench_herdsimulator.json"));
    const QCommandLineOption repeatOption(QStringLiteral("repeat"), QStringLiteral("Repetitions per measurement."),
        QStringLiteral("n"), QStringLiteral("3"));
    const QCommandLineOption modelsOption(QStringLiteral("models"),
        QStringLiteral("Comma-separated models to time (default: all)."), QStringLiteral("names"));
    const QCommandLineOption millionOption(QStringLiteral("million"),
        QStringLiteral("Times one run of a million clients per strategy (capacity and outage models)."));
    parser.addOptions({outOption, repeatOption, modelsOption, millionOption});
    parser.process(app);
    const int repeat = std::clamp(parser.value(repeatOption).toInt(), 1, 100);
    QList<HerdModel> chosen = allHerdModels();
    if (parser.isSet(modelsOption)) {
        chosen.clear();
        for (const QString &name : parser.value(modelsOption).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const auto model = herdModelFromName(name.trimmed());
            if (!model) {
                qCCritical(lcBench).noquote() << QStringLiteral("unknown model \"%1\"").arg(name);
                return 2;
            }
            chosen.append(*model);
        }
    }
    const int cores = QThread::idealThreadCount();

    QTextStream out(stdout);
    QJsonArray models;
    bool identical = true;
    if (parser.isSet(millionOption)) {
        QList<HerdStrategy> strategies;
        for (const char *name :
            {"full-jitter", "equal-jitter", "decorrelated-jitter", "google-truncated-exponential", "exponential"})
            strategies.append(*HerdStrategy::fromName(QLatin1String(name)));
        for (HerdModel model : {HerdModel::CapacityLimited, HerdModel::Outage})
            models.append(measureMillion(model, strategies, cores, &identical));
        chosen.clear();
    }
    for (HerdModel model : std::as_const(chosen)) {
        const HerdParameters p = HerdParameters::defaultsFor(model);
        const Timing single = measure(p, 1, repeat);
        const Timing all = measure(p, cores, repeat);
        const bool same = single.csv == all.csv;
        identical = identical && same;
        out << QStringLiteral("%1: %2 client counts x %3 strategies x %4 runs, %5 events: "
                              "1 thread %6 s, %7 threads %8 s (best of %9)%10\n")
                   .arg(herdModelName(model))
                   .arg(p.clientCounts.size())
                   .arg(p.strategies.size())
                   .arg(p.runs)
                   .arg(single.events)
                   .arg(single.seconds.first(), 0, 'f', 3)
                   .arg(cores)
                   .arg(all.seconds.first(), 0, 'f', 3)
                   .arg(repeat)
                   .arg(same ? QString() : QStringLiteral(" RESULTS DIFFER"));
        out.flush();
        models.append(QJsonObject{
            {QStringLiteral("model"), herdModelName(model)},
            {QStringLiteral("client_counts"), p.clientCounts.size()},
            {QStringLiteral("strategies"), p.strategies.size()},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("single_thread"), describe(single, 1)},
            {QStringLiteral("all_cores"), describe(all, cores)},
            {QStringLiteral("same_csv"), same},
        });
    }

    QFile file(parser.value(outOption));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        qCCritical(lcBench).noquote() << QStringLiteral("cannot write %1: %2").arg(file.fileName(), file.errorString());
        return 1;
    }
    file.write(
        QJsonDocument(QJsonObject{{QStringLiteral("cores"), cores}, {QStringLiteral("models"), models}}).toJson());
    out << QStringLiteral("written to %1\n").arg(file.fileName());
    return identical ? 0 : 1;
}
