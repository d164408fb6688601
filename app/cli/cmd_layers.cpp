#include "app/cli/cmd_layers.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/policyargument.h"
#include "app/cli/subcommand.h"
#include "core/herd/layersimulation.h"
#include "core/util/randomsource.h"
#include "core/util/terminaltext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cmath>

namespace RetryLab::Cli {

namespace {

using LayersCommand::Options;

const QString command = QStringLiteral("layers");

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption policy;
    QCommandLineOption failure;
    QCommandLineOption failureMs;
    QCommandLineOption threshold;
    QCommandLineOption runs;
    QCommandLineOption seed;
    QCommandLineOption json;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      policy(QStringLiteral("policy"),
          Tr::tr("A layer: a preset id or name, or a policy file. Give 2 to 4, outermost first."), Tr::tr("ID|FILE")),
      failure(QStringLiteral("p"),
          Tr::tr("Probability that one attempt at the server fails, for the expected figures (default 0.5)."),
          Tr::tr("P")),
      failureMs(QStringLiteral("failure-ms"),
          Tr::tr("How long a failing attempt at the server takes (default 0: it fails at once)."), Tr::tr("MS")),
      threshold(QStringLiteral("threshold"),
          Tr::tr("Warn when one user action may send more attempts than this (default 10)."), Tr::tr("N")),
      runs(QStringLiteral("runs"), Tr::tr("User actions played for the check (default 10000; 0: no check)."),
          Tr::tr("N")),
      seed(QStringLiteral("seed"), Tr::tr("Seed of the check (default: a fresh one, printed)."), Tr::tr("S")),
      json(QStringLiteral("json"), Tr::tr("Print the figures as JSON."))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("The layer calculator: 2 to 4 retry policies stacked, outermost first (for example app, SDK,\n"
               "service mesh). Every attempt of a layer runs the whole retry sequence of the layer below, so\n"
               "the attempts that reach the server multiply. Prints, per user action, the worst-case and the\n"
               "expected number of attempts at the server and the longest wait before the action gives up,\n"
               "computed exactly, then checked by playing the stack many times on a virtual clock.\n"
               "Exit status 1 when the worst case exceeds --threshold."));
    parser.addOptions({help, policy, failure, failureMs, threshold, runs, seed, json});
}

// --NAME X: a number in [low, high] (a whole one if `whole`), `fallback` when the
// option is not given; nothing when it is not such a number.
std::optional<double> number(const QCommandLineParser &parser, const QCommandLineOption &option, double low,
    double high, double fallback, bool whole)
{
    if (!parser.isSet(option))
        return fallback;
    bool ok = false;
    const double value = parser.value(option).toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < low || value > high || (whole && value != std::floor(value)))
        return std::nullopt;
    return value;
}

// -p, --failure-ms, --threshold and --runs, in that order.
Core::Result<void> readNumbers(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    Core::RetryLayers::Assumptions &assumptions = options.assumptions;
    const auto p = number(parser, table.failure, 0.0, 1.0, assumptions.failureProbability, false);
    if (!p) {
        return Core::Result<void>::failure(
            Tr::tr("-p must be a probability from 0 to 1 (got \"%1\")").arg(parser.value(table.failure)));
    }
    const auto failureMs = number(parser, table.failureMs, 0.0, 3'600'000.0, 0.0, false);
    if (!failureMs) {
        return Core::Result<void>::failure(
            Tr::tr("--failure-ms must be from 0 to 3600000 (got \"%1\")").arg(parser.value(table.failureMs)));
    }
    const auto threshold = number(parser, table.threshold, 1.0, 1e12, assumptions.threshold, false);
    if (!threshold) {
        return Core::Result<void>::failure(
            Tr::tr("--threshold must be from 1 to 10^12 (got \"%1\")").arg(parser.value(table.threshold)));
    }
    const auto runs = number(parser, table.runs, 0.0, 10'000'000.0, options.runs, true);
    if (!runs) {
        return Core::Result<void>::failure(
            Tr::tr("--runs must be a whole number from 0 to 10000000 (got \"%1\")").arg(parser.value(table.runs)));
    }
    assumptions.failureProbability = *p;
    assumptions.failureMs = *failureMs;
    assumptions.threshold = *threshold;
    options.runs = static_cast<int>(*runs);
    return {};
}

void printJson(QTextStream &out, const Options &options, const Core::RetryLayers::Result &result,
    const Core::LayerSimulationResult &played, quint64 seed)
{
    const Core::RetryLayers::Assumptions &assumptions = options.assumptions;
    QJsonArray layers;
    for (const Core::RetryLayers::LayerFigures &l : result.layers) {
        layers.append(
            QJsonObject{{QStringLiteral("name"), l.name}, {QStringLiteral("maxAttempts"), double(l.maxAttempts)},
                {QStringLiteral("boundByDeadline"), l.boundByDeadline}, {QStringLiteral("minGiveUpMs"), l.minGiveUpMs},
                {QStringLiteral("maxGiveUpMs"), l.maxGiveUpMs}});
    }
    QJsonObject json{{QStringLiteral("layers"), layers},
        {QStringLiteral("failureProbability"), assumptions.failureProbability},
        {QStringLiteral("failureMs"), assumptions.failureMs}, {QStringLiteral("threshold"), assumptions.threshold},
        {QStringLiteral("worstCaseServerAttempts"), result.worstCaseServerAttempts},
        {QStringLiteral("expectedServerAttempts"), result.expectedServerAttempts},
        {QStringLiteral("actionFailureProbability"), result.failureProbability},
        {QStringLiteral("worstCaseGiveUpMs"), result.worstCaseGiveUpMs},
        {QStringLiteral("amplification"), result.amplification},
        {QStringLiteral("exceedsThreshold"), result.exceedsThreshold}, {QStringLiteral("warning"), result.warning}};
    if (options.runs > 0) {
        json.insert(QStringLiteral("check"),
            QJsonObject{{QStringLiteral("runs"), played.runs}, {QStringLiteral("seed"), QString::number(seed)},
                {QStringLiteral("meanServerAttempts"), played.meanServerAttempts},
                {QStringLiteral("standardError"), played.standardError},
                {QStringLiteral("maxServerAttempts"), double(played.maxServerAttempts)},
                {QStringLiteral("failureRate"), played.failureRate},
                {QStringLiteral("maxGiveUpMs"), played.maxGiveUpMs}});
    }
    out << QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
}

void printText(QTextStream &out, const Options &options, const Core::RetryLayers::Result &result,
    const Core::LayerSimulationResult &played, quint64 seed)
{
    // The layers' names come from policy files: no control character of theirs reaches the terminal.
    Core::RetryLayers::Result shown = result;
    for (Core::RetryLayers::LayerFigures &layer : shown.layers)
        layer.name = Core::TerminalText::escaped(layer.name);
    out << Core::RetryLayers::describe(shown, options.assumptions) << Qt::endl;
    if (options.runs > 0) {
        out << Tr::tr("check: %1 user actions played (seed %2): %3 +- %4 attempts at the server on average, at "
                      "most %5; %6 % failed")
                   .arg(played.runs)
                   .arg(seed)
                   .arg(played.meanServerAttempts, 0, 'f', 3)
                   .arg(played.standardError, 0, 'f', 3)
                   .arg(played.maxServerAttempts)
                   .arg(played.failureRate * 100.0, 0, 'f', 2)
            << Qt::endl;
    }
}

Core::Result<void> readOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    if (const auto none = noPositionalArguments(parser); !none)
        return none;
    const QStringList names = parser.values(table.policy);
    if (names.size() < Core::RetryLayers::minLayers || names.size() > Core::RetryLayers::maxLayers) {
        return Core::Result<void>::failure(
            Tr::tr("give 2 to 4 --policy options, outermost first (got %1)").arg(names.size()));
    }
    const auto layers = resolvePolicyOptions(names);
    if (!layers)
        return layers.errorDetail();
    for (const NamedPolicy &layer : *layers)
        options.stack.append(layer.policy);
    if (const auto numbers = readNumbers(parser, table, options); !numbers)
        return numbers;
    if (const auto seed = readSeed(parser, table.seed, options.seed); !seed)
        return seed;
    options.json = parser.isSet(table.json);
    return {};
}

} // namespace

namespace LayersCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    return parseOptionTable<Options, OptionTable>(
        arguments, Tr::tr("Usage: retrylab layers --policy A --policy B [--policy C ...] [options]"), &readOptions);
}

int run(const Options &options)
{
    const quint64 seed = options.seed.value_or(Core::RandomSource::freshSeed());
    const Core::RetryLayers::Result result = Core::RetryLayers::compute(options.stack, options.assumptions);
    const Core::LayerSimulationResult played
        = Core::simulateLayers(options.stack, options.assumptions, options.runs, seed);
    QTextStream out(stdout);
    if (options.json)
        printJson(out, options, result, played, seed);
    else
        printText(out, options, result, played, seed);
    return result.exceedsThreshold ? ExitFailed : ExitOk;
}

} // namespace LayersCommand

int runLayers(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &LayersCommand::parse, &LayersCommand::run, UsageHint::SeeHelp);
}

} // namespace RetryLab::Cli
