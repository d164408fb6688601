// Times the herd simulator's default grids (19 client counts x 6 strategies x 100
// runs) on one thread and on every core, checks that both give the same CSV, and
// writes the numbers to a JSON file.

#include "core/herd/herdsimulator.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
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

Timing measure(HerdParameters p, int threads, int repeat)
{
    p.threads = threads;
    Timing timing;
    for (int i = 0; i < repeat; ++i) {
        QElapsedTimer timer;
        timer.start();
        const auto report = HerdSimulator::run(p);
        const double s = static_cast<double>(timer.nsecsElapsed()) / 1e9;
        if (!report)
            qFatal("%s", qPrintable(report.error()));
        timing.seconds.append(s);
        timing.events = report->events;
        timing.csv = report->toCsv();
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
    parser.addOptions({outOption, repeatOption, modelsOption});
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
