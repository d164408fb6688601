#include "app/cli/cmd_compare.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/runseed.h"
#include "app/cli/subcommand.h"
#include "app/cli/texttable.h"
#include "core/export/texttimeline.h"
#include "core/scenario/policycomparison.h"
#include "core/scenario/scenarioreader.h"
#include "core/util/durationtext.h"
#include "core/util/randomsource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <algorithm>

namespace RetryLab::Cli {

namespace {

using CompareCommand::Options;

const QString command = QStringLiteral("compare");

QJsonValue optionalMs(const std::optional<double> &ms)
{
    return ms ? QJsonValue(*ms) : QJsonValue(QJsonValue::Null);
}

QString msText(const std::optional<double> &ms)
{
    return ms ? Core::DurationText::format(*ms) : QStringLiteral("-");
}

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption policy;
    QCommandLineOption scenario;
    QCommandLineOption seed;
    QCommandLineOption width;
    QCommandLineOption json;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      policy(QStringLiteral("policy"), Tr::tr("A policy: a preset id or name, or a policy file. Give 2 to 4."),
          Tr::tr("ID|FILE")),
      scenario(QStringLiteral("scenario"),
          Tr::tr("The scenario file (its scripts and requests; its policy is replaced)."), Tr::tr("FILE")),
      seed(QStringLiteral("seed"), Tr::tr("Seed of the jitter and random faults (default: a fresh one, printed)."),
          Tr::tr("S")),
      width(QStringLiteral("width"), Tr::tr("Characters of the time axis (default 60)."), Tr::tr("N")),
      json(QStringLiteral("json"), Tr::tr("Print the comparison as JSON."))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("Runs one scripted fault scenario under 2 to 4 policies at once, each against its own copy of the\n"
               "scenario's scripts and with the same seed, so that only the policy differs. Prints the runs as\n"
               "timelines on one time axis and a summary row per policy: attempts (the load on the server), the\n"
               "busiest second, time to success, failures."));
    parser.addOptions({help, policy, scenario, seed, width, json});
}

// The policies and the scenario, read; their problems are usage errors.
Core::Result<void> readInputs(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    const QStringList names = parser.values(table.policy);
    if (names.size() < Core::PolicyComparison::minPolicies || names.size() > Core::PolicyComparison::maxPolicies)
        return Core::Result<void>::failure(Tr::tr("give 2 to 4 --policy options (got %1)").arg(names.size()));
    if (!parser.isSet(table.scenario))
        return Core::Result<void>::failure(Tr::tr("--scenario FILE is required"));
    auto policies = resolvePolicyOptions(names);
    if (!policies)
        return policies.errorDetail();
    options.policies = std::move(policies).value();
    // The reader's own warnings pass through the redaction too.
    Console::installMessageHandler(true);
    options.scenarioPath = parser.value(table.scenario);
    auto scenario = Core::ScenarioReader::readFile(options.scenarioPath);
    if (!scenario)
        return scenario.errorDetail();
    options.scenario = std::move(scenario).value();
    return {};
}

// Runs the policies until they finish, one fails or `interrupt` (Ctrl+C) cancels them; the failure, if one did.
QString compare(Core::PolicyComparison &comparison, InterruptWatcher &interrupt)
{
    QEventLoop loop;
    QString problem;
    QObject::connect(&comparison, &Core::PolicyComparison::finished, &loop, &QEventLoop::quit);
    QObject::connect(&comparison, &Core::PolicyComparison::failed, &loop, [&](const QString &message) {
        problem = message;
        loop.quit();
    });
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &comparison, &Core::PolicyComparison::cancel);
    comparison.start();
    loop.exec();
    return problem;
}

void printJson(
    QTextStream &out, const Options &options, const QList<Core::ComparisonRow> &rows, quint64 seed, bool interrupted)
{
    QJsonArray array;
    for (const Core::ComparisonRow &row : rows) {
        array.append(QJsonObject{{QStringLiteral("policy"), row.policy.name}, {QStringLiteral("origin"), row.origin},
            {QStringLiteral("requests"), row.requests}, {QStringLiteral("succeeded"), row.succeeded},
            {QStringLiteral("failed"), row.failed}, {QStringLiteral("cancelled"), row.cancelled},
            {QStringLiteral("attempts"), row.attempts},
            {QStringLiteral("peakAttemptsPerSecond"), row.peakAttemptsPerSecond},
            {QStringLiteral("medianSuccessMs"), optionalMs(row.medianSuccessMs)},
            {QStringLiteral("maxSuccessMs"), optionalMs(row.maxSuccessMs)}, {QStringLiteral("runMs"), row.runMs}});
    }
    const QJsonObject json{{QStringLiteral("scenario"), options.scenario.name},
        {QStringLiteral("seed"), QString::number(seed)}, {QStringLiteral("interrupted"), interrupted},
        {QStringLiteral("policies"), array}};
    out << QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
}

// A timeline per policy, all on the comparison's time axis.
void printTimelines(QTextStream &out, const Options &options, const Core::PolicyComparison &comparison)
{
    Core::TextTimeline::Options timeline;
    timeline.width = options.width;
    timeline.spanMs = comparison.spanMs();
    for (const Core::ComparisonRow &row : comparison.rows()) {
        out << Tr::tr("%1 (%2)").arg(row.policy.name, row.origin) << Qt::endl;
        QList<quint64> ids = row.record.requests.keys();
        std::sort(ids.begin(), ids.end());
        QList<Core::TextTimeline::Lane> lanes;
        for (quint64 id : std::as_const(ids)) {
            const QString label = row.record.requests.value(id).label;
            lanes.append({label.isEmpty() ? Tr::tr("request %1").arg(id) : label, id});
        }
        for (const QString &line : Core::TextTimeline::render(row.record, lanes, timeline))
            out << QStringLiteral("  ") << line << Qt::endl;
        out << Qt::endl;
    }
    out << Core::TextTimeline::legend() << Qt::endl << Qt::endl;
}

void printSummary(QTextStream &out, const QList<Core::ComparisonRow> &rows)
{
    // The cancelled column only when a cancel cut requests: they neither failed nor succeeded.
    const bool cut
        = std::any_of(rows.cbegin(), rows.cend(), [](const Core::ComparisonRow &r) { return r.cancelled > 0; });
    QStringList header{Tr::tr("policy"), Tr::tr("requests"), Tr::tr("succeeded"), Tr::tr("failed")};
    if (cut)
        header.append(Tr::tr("cancelled"));
    header += {Tr::tr("attempts"), Tr::tr("busiest second"), Tr::tr("to success p50"), Tr::tr("max"), Tr::tr("run")};
    TextTable table(header);
    for (const Core::ComparisonRow &row : rows) {
        QStringList cells{row.policy.name, QString::number(row.requests), QString::number(row.succeeded),
            QString::number(row.failed)};
        if (cut)
            cells.append(QString::number(row.cancelled));
        cells += {QString::number(row.attempts), QString::number(row.peakAttemptsPerSecond),
            msText(row.medianSuccessMs), msText(row.maxSuccessMs), Core::DurationText::format(row.runMs)};
        table.addRow(cells);
    }
    for (const QString &line : table.lines())
        out << line << Qt::endl;
}

Core::Result<void> readOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    if (const auto none = noPositionalArguments(parser); !none)
        return none;
    if (const auto inputs = readInputs(parser, table, options); !inputs)
        return inputs;
    if (parser.isSet(table.width)) {
        bool ok = false;
        options.width = parser.value(table.width).toInt(&ok);
        if (!ok || options.width < 20 || options.width > 400) {
            return Core::Result<void>::failure(
                Tr::tr("--width must be a whole number from 20 to 400 (got \"%1\")").arg(parser.value(table.width)));
        }
    }
    if (const auto seed = readSeed(parser, table.seed, options.seed); !seed)
        return seed;
    options.json = parser.isSet(table.json);
    return {};
}

} // namespace

namespace CompareCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    return parseOptionTable<Options, OptionTable>(arguments,
        Tr::tr("Usage: retrylab compare --policy A --policy B [--policy C ...] --scenario FILE [options]"),
        &readOptions);
}

int run(const Options &options)
{
    const RunSeed seed(options.seed);
    Core::PolicyComparison comparison;
    comparison.setScenario(options.scenario);
    QList<Core::BackoffPolicy> policies;
    QStringList origins;
    for (const NamedPolicy &named : options.policies) {
        policies.append(named.policy);
        origins.append(named.origin);
    }
    comparison.setPolicies(policies, origins);
    comparison.setSeed(seed.value());

    // Watching before the heading: a Ctrl+C once it shows cancels the runs and still prints them.
    InterruptWatcher interrupt;
    bool interrupted = false;
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &comparison, [&interrupted] {
        interrupted = true;
        QTextStream(stderr) << Tr::tr("retrylab compare: interrupted; cancelling what still runs (press Ctrl+C "
                                      "again to quit at once)")
                            << Qt::endl;
    });
    QTextStream out(stdout);
    if (!options.json) {
        out << Tr::tr("Scenario \"%1\" (%2) under %n policies, %3", nullptr, int(policies.size()))
                   .arg(options.scenario.name, QDir::toNativeSeparators(options.scenarioPath), seed.text())
            << Qt::endl
            << Qt::endl;
    }
    if (const QString problem = compare(comparison, interrupt); !problem.isEmpty()) {
        QTextStream(stderr) << Tr::tr("retrylab compare: %1").arg(problem) << Qt::endl;
        return ExitFailed;
    }

    const QList<Core::ComparisonRow> &rows = comparison.rows();
    if (options.json) {
        printJson(out, options, rows, seed.value(), interrupted);
    } else {
        printTimelines(out, options, comparison);
        printSummary(out, rows);
    }
    if (interrupted) {
        int cut = 0;
        for (const Core::ComparisonRow &row : rows)
            cut += row.cancelled;
        QTextStream(stderr) << Tr::tr("retrylab compare: interrupted; %n request(s) were cancelled before they "
                                      "ended, so the comparison is incomplete",
            nullptr, cut) << Qt::endl;
        return ExitFailed;
    }
    return ExitOk;
}

} // namespace CompareCommand

int runCompare(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &CompareCommand::parse, &CompareCommand::run, UsageHint::SeeHelp);
}

} // namespace RetryLab::Cli
