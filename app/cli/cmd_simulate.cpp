#include "app/cli/cmd_simulate.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/subcommand.h"
#include "core/herd/herdparameters.h"
#include "core/herd/herdsimulator.h"
#include "core/util/exportfile.h"
#include "core/util/randomsource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QTextStream>

#include <cstdio>
#include <functional>
#include <memory>
#include <unistd.h>

namespace RetryLab::Cli {

namespace {
Q_LOGGING_CATEGORY(lcSimulate, "retrylab.cli.simulate", QtInfoMsg)
} // namespace

namespace {

using namespace RetryLab::Core;
using SimulateCommand::Options;

const QString command = QStringLiteral("simulate");

// An error of the parameters names the option the user typed: the numeric
// parameters' options come from core/herd's field table, the others are the
// options of the same name. "baseDelayMs: not a number." becomes
// "--base-ms (baseDelayMs): not a number."; "grid" has no option of its own.
QString withOption(const Error &error)
{
    if (error.path.isEmpty())
        return error.message;
    QString where = error.path;
    if (const HerdParameterField *field = herdParameterField(error.path))
        where = QStringLiteral("--%1 (%2)").arg(QLatin1String(field->option), error.path);
    else if (error.path == QLatin1String("clients") || error.path == QLatin1String("strategies"))
        where = QStringLiteral("--") + error.path;
    return where + QStringLiteral(": ") + error.message;
}

QString formatValue(double value)
{
    if (value >= 100.0)
        return QString::number(value, 'f', 0);
    return QString::number(value, 'f', 1);
}

// One block per measure: a row per client count, a column per strategy.
void printTable(QTextStream &out, const HerdReport &report, const QString &title,
    const std::function<double(const HerdCellResult &)> &value)
{
    const HerdParameters &p = report.parameters;
    out << title << QLatin1Char('\n');
    QList<int> widths;
    out << Tr::tr("clients").rightJustified(8);
    for (const HerdStrategy &s : p.strategies) {
        const int width = std::max<int>(10, static_cast<int>(s.name().size())) + 2;
        widths.append(width);
        out << s.name().rightJustified(width);
    }
    out << QLatin1Char('\n');
    for (int clients : p.clientCounts) {
        out << QString::number(clients).rightJustified(8);
        for (qsizetype i = 0; i < p.strategies.size(); ++i) {
            const HerdCellResult *cell = report.find(clients, p.strategies[i]);
            out << (cell ? formatValue(value(*cell)) : QString()).rightJustified(widths[i]);
        }
        out << QLatin1Char('\n');
    }
    out << QLatin1Char('\n');
}

void printSummary(QTextStream &out, const HerdReport &report)
{
    const HerdParameters &p = report.parameters;
    out << Tr::tr("%1: %n run(s) per cell, seed %2\n\n", nullptr, p.runs).arg(herdModelTitle(p.model)).arg(p.seed);
    printTable(out, report, Tr::tr("Calls (mean per run)"), [](const HerdCellResult &c) { return c.calls.mean; });
    printTable(
        out, report, Tr::tr("Completion time, ms (mean)"), [](const HerdCellResult &c) { return c.completionMs.mean; });
    if (p.model == HerdModel::Latency) {
        printTable(out, report, Tr::tr("Time to an answer, median, ms (mean over runs)"),
            [](const HerdCellResult &c) { return c.latencyP50Ms.mean; });
        printTable(out, report, Tr::tr("Time to an answer, 99th percentile, ms (mean over runs)"),
            [](const HerdCellResult &c) { return c.latencyP99Ms.mean; });
    }
    printTable(out, report, Tr::tr("Attempts per client (99th percentile)"),
        [](const HerdCellResult &c) { return static_cast<double>(c.attemptsQuantile(0.99)); });
    printTable(out, report, Tr::tr("Succeeded, % of clients"),
        [](const HerdCellResult &c) { return 100.0 * c.succeededShare.mean; });
    printTable(out, report, Tr::tr("Peak server load, calls/s (mean)"),
        [](const HerdCellResult &c) { return c.peakLoadPerSec.mean; });
    if (p.model == HerdModel::Outage) {
        printTable(out, report, Tr::tr("Recovery after the outage, ms (mean)"),
            [](const HerdCellResult &c) { return c.recoveryMs.mean; });
        printTable(out, report, Tr::tr("Peak load during recovery, calls/s (mean)"),
            [](const HerdCellResult &c) { return c.recoveryPeakLoadPerSec.mean; });
    }
}

QString strategyNames(const QList<HerdStrategy> &strategies, const QString &separator)
{
    QStringList names;
    for (const HerdStrategy &s : strategies)
        names.append(s.name());
    return names.join(separator);
}

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption model;
    QCommandLineOption clients;
    QCommandLineOption strategies;
    QCommandLineOption seed;
    QCommandLineOption csv;
    QCommandLineOption loadCsv;
    QCommandLineOption arrivals;
    QCommandLineOption ignoreRetryAfter;
    QCommandLineOption rateLimiter;
    QCommandLineOption timing;
    QCommandLineOption quiet;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Shows this help.")),
      model(QStringLiteral("model"), Tr::tr("occ, capacity, outage or latency. Default occ."), QStringLiteral("model")),
      clients(QStringLiteral("clients"),
          Tr::tr("Client counts: first:last:step, a number, or a comma-separated list. Default 10:190:10."),
          QStringLiteral("spec")),
      strategies(QStringLiteral("strategies"),
          Tr::tr("Comma-separated strategies, or \"all\". Known: %1. Default: %2.")
              .arg(strategyNames(HerdStrategy::allFor(HerdModel::Latency), QStringLiteral(", ")))
              .arg(strategyNames(HerdStrategy::defaults(), QStringLiteral(","))),
          QStringLiteral("list")),
      seed(QStringLiteral("seed"), Tr::tr("Random seed. Default: a fresh one, printed."), QStringLiteral("S")),
      csv(QStringLiteral("csv"),
          Tr::tr("Writes one row per (clients, strategy) to this file (\"-\": standard output, no table)."),
          QStringLiteral("file")),
      loadCsv(QStringLiteral("load-csv"), Tr::tr("Writes the mean server load per bin to this file."),
          QStringLiteral("file")),
      arrivals(QStringLiteral("arrivals"), Tr::tr("herd (all at once) or poisson (a stream at --arrival-rate)."),
          QStringLiteral("mode")),
      ignoreRetryAfter(
          QStringLiteral("ignore-retry-after"), Tr::tr("Clients ignore Retry-After and use their backoff.")),
      rateLimiter(QStringLiteral("rate-limiter"),
          Tr::tr("none, or aws-adaptive: each client limits its own rate after 429 answers, as the AWS SDKs' "
                 "adaptive mode does. Default none."),
          QStringLiteral("kind")),
      timing(QStringLiteral("timing"), Tr::tr("Prints the wall time and simulated events per second to stderr.")),
      quiet(QStringLiteral("quiet"), Tr::tr("No progress on stderr."))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("Simulates many clients contending for one server on a virtual clock and compares backoff "
               "strategies by calls and completion time. Models: occ (conditional writes to one row, as in "
               "the AWS study), capacity (a server with a rate and a bounded queue), outage (the same server, "
               "down for a while), latency (slow answers of a lognormal time, where the hedging strategy trades "
               "load for a shorter tail)."));
    parser.addOption(help);
    parser.addOptions(
        {model, clients, strategies, seed, csv, loadCsv, arrivals, ignoreRetryAfter, rateLimiter, timing, quiet});
    for (const HerdParameterField &field : herdParameterFields())
        parser.addOption(QCommandLineOption(QLatin1String(field.option), field.help(), QLatin1String(field.valueName)));
}

// --model, --clients, --strategies, --seed and --arrivals, checked in that order:
// the model's defaults with these over them.
Result<void> readChoices(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    HerdModel model = HerdModel::OptimisticConcurrency;
    if (parser.isSet(table.model)) {
        const auto m = herdModelFromName(parser.value(table.model));
        if (!m) {
            return Result<void>::failure(Tr::tr("--model: unknown model \"%1\"; use occ, capacity, outage or latency.")
                                             .arg(parser.value(table.model)));
        }
        model = *m;
    }
    HerdParameters &p = options.parameters;
    p = HerdParameters::defaultsFor(model);
    if (parser.isSet(table.clients)) {
        const auto counts = parseClientCounts(parser.value(table.clients));
        if (!counts)
            return Result<void>::failure(withOption(counts.errorDetail()));
        p.clientCounts = *counts;
    }
    if (parser.isSet(table.strategies)) {
        const QString list = parser.value(table.strategies).trimmed();
        if (list == QLatin1String("all")) {
            p.strategies = HerdStrategy::allFor(p.model);
        } else {
            const auto strategies = parseStrategies(list);
            if (!strategies)
                return Result<void>::failure(withOption(strategies.errorDetail()));
            p.strategies = *strategies;
        }
    }
    if (parser.isSet(table.seed)) {
        bool ok = false;
        options.seed = parser.value(table.seed).trimmed().toULongLong(&ok);
        if (!ok) {
            return Result<void>::failure(
                Tr::tr("--seed: \"%1\" is not a whole number from 0 to 2^64 - 1.").arg(parser.value(table.seed)));
        }
    }
    if (parser.isSet(table.arrivals)) {
        const auto mode = arrivalModeFromName(parser.value(table.arrivals));
        if (!mode) {
            return Result<void>::failure(
                Tr::tr("--arrivals: unknown mode \"%1\"; use herd or poisson.").arg(parser.value(table.arrivals)));
        }
        p.arrivals = *mode;
    }
    p.honourRetryAfter = !parser.isSet(table.ignoreRetryAfter);
    if (parser.isSet(table.rateLimiter)) {
        const auto kind = rateLimiterKindFromName(parser.value(table.rateLimiter));
        if (!kind) {
            return Result<void>::failure(Tr::tr("--rate-limiter: unknown kind \"%1\"; use none or aws-adaptive.")
                                             .arg(parser.value(table.rateLimiter)));
        }
        p.rateLimiter = *kind;
    }
    return {};
}

// The numeric parameters, whose options come from core/herd's field table.
Result<void> readFields(const QCommandLineParser &parser, HerdParameters &p)
{
    for (const HerdParameterField &field : herdParameterFields()) {
        const QString name = QLatin1String(field.option);
        if (!parser.isSet(name))
            continue;
        const QString text = parser.value(name).trimmed();
        bool ok = false;
        if (field.type == HerdParameterField::Type::Number) {
            const double value = text.toDouble(&ok);
            if (!ok)
                return Result<void>::failure(Tr::tr("--%1: \"%2\" is not a number.").arg(name, parser.value(name)));
            field.setValue(p, value);
        } else {
            const int value = text.toInt(&ok);
            if (!ok) {
                return Result<void>::failure(
                    Tr::tr("--%1: \"%2\" is not a whole number.").arg(name, parser.value(name)));
            }
            field.setValue(p, value);
        }
    }
    return {};
}

// Runs the simulation, with a percentage on a terminal's stderr unless quiet.
Result<HerdReport> simulate(const HerdParameters &p, bool quiet, double *seconds)
{
    HerdControl control;
    const bool showProgress = !quiet && isatty(fileno(stderr));
    if (showProgress) {
        control.setProgressCallback([last = qint64(-1)](qint64 done, qint64 total) mutable {
            const qint64 percent = total > 0 ? done * 100 / total : 100;
            if (percent == last)
                return;
            last = percent;
            std::fprintf(stderr, "\r%3lld%%", static_cast<long long>(percent));
            std::fflush(stderr);
        });
    }
    QElapsedTimer timer;
    timer.start();
    auto report = HerdSimulator::run(p, &control);
    *seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    if (showProgress)
        std::fprintf(stderr, "\r    \r");
    return report;
}

Result<void> readOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    const QStringList extra = parser.positionalArguments();
    if (!extra.isEmpty())
        return Result<void>::failure(Tr::tr("unexpected argument \"%1\".").arg(extra.first()));
    if (const auto choices = readChoices(parser, table, options); !choices)
        return choices;
    if (const auto fields = readFields(parser, options.parameters); !fields)
        return fields;
    // Every problem of the parameters at once, a line each.
    const QList<Error> problems = options.parameters.errors();
    if (!problems.isEmpty()) {
        QStringList lines;
        for (const Error &problem : problems)
            lines.append(withOption(problem));
        return Result<void>::failure(lines.join(QStringLiteral("\nretrylab simulate: ")));
    }
    const QString csvPath = parser.value(table.csv);
    options.csvToStandardOutput = csvPath == QLatin1String("-");
    options.csvPath = options.csvToStandardOutput ? QString() : csvPath;
    options.loadCsvPath = parser.value(table.loadCsv);
    options.timing = parser.isSet(table.timing);
    options.quiet = parser.isSet(table.quiet);
    return {};
}

} // namespace

namespace SimulateCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    // (No blank line after this help: the command never printed one.)
    return parseOptionTable<Options, OptionTable>(
        arguments, Tr::tr("Usage: retrylab simulate [options]"), &readOptions, QString());
}

int run(const Options &options)
{
    // Paths are checked before the work, so that a bad path costs no simulation.
    for (const auto &[option, path] :
        {std::pair{QStringLiteral("--csv"), options.csvPath}, {QStringLiteral("--load-csv"), options.loadCsvPath}}) {
        if (path.isEmpty())
            continue;
        if (const auto writable = ExportFile::checkWritable(path); !writable)
            return usageError(command, Tr::tr("%1: cannot write \"%2\": %3").arg(option, path, writable.error()));
    }

    HerdParameters p = options.parameters;
    p.seed = options.seed.value_or(Core::RandomSource::freshSeed());
    double seconds = 0.0;
    const auto report = simulate(p, options.quiet, &seconds);
    if (!report) {
        QTextStream(stderr) << Tr::tr("retrylab simulate: %1\n").arg(report.error());
        return ExitFailed;
    }
    qCDebug(lcSimulate) << "simulated" << report->events << "events in" << seconds << "s";

    QTextStream out(stdout);
    if (options.csvToStandardOutput)
        out << report->toCsv();
    else
        printSummary(out, *report);
    out.flush();

    for (const auto &[path, text] :
        {std::pair{options.csvPath, report->toCsv()}, {options.loadCsvPath, report->loadCsv()}}) {
        if (path.isEmpty())
            continue;
        if (const auto written = ExportFile::write(path, text.toUtf8()); !written) {
            QTextStream(stderr) << Tr::tr("retrylab simulate: %1\n").arg(written.error());
            return ExitFailed;
        }
    }
    if (options.timing) {
        QTextStream(stderr) << Tr::tr("simulated %1 events in %2 s (%3 million events/s)\n")
                                   .arg(report->events)
                                   .arg(seconds, 0, 'f', 3)
                                   .arg(static_cast<double>(report->events) / seconds / 1e6, 0, 'f', 1);
    }
    return ExitOk;
}

} // namespace SimulateCommand

int runSimulate(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &SimulateCommand::parse, &SimulateCommand::run);
}

} // namespace RetryLab::Cli
