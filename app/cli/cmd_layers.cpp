#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/policyargument.h"
#include "app/cli/subcommand.h"
#include "core/herd/layersimulation.h"
#include "core/policy/retrylayers.h"
#include "core/util/randomsource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cmath>

namespace RetryLab::Cli {

int runLayers(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("The layer calculator: 2 to 4 retry policies stacked, outermost first (for example app, SDK,\n"
               "service mesh). Every attempt of a layer runs the whole retry sequence of the layer below, so\n"
               "the attempts that reach the server multiply. Prints, per user action, the worst-case and the\n"
               "expected number of attempts at the server and the longest wait before the action gives up,\n"
               "computed exactly, then checked by playing the stack many times on a virtual clock.\n"
               "Exit status 1 when the worst case exceeds --threshold."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption policyOption(QStringLiteral("policy"),
        Tr::tr("A layer: a preset id or name, or a policy file. Give 2 to 4, outermost first."), Tr::tr("ID|FILE"));
    const QCommandLineOption failureOption(QStringLiteral("p"),
        Tr::tr("Probability that one attempt at the server fails, for the expected figures (default 0.5)."),
        Tr::tr("P"));
    const QCommandLineOption failureMsOption(QStringLiteral("failure-ms"),
        Tr::tr("How long a failing attempt at the server takes (default 0: it fails at once)."), Tr::tr("MS"));
    const QCommandLineOption thresholdOption(QStringLiteral("threshold"),
        Tr::tr("Warn when one user action may send more attempts than this (default 10)."), Tr::tr("N"));
    const QCommandLineOption runsOption(
        QStringLiteral("runs"), Tr::tr("User actions played for the check (default 10000; 0: no check)."), Tr::tr("N"));
    const QCommandLineOption seedOption(
        QStringLiteral("seed"), Tr::tr("Seed of the check (default: a fresh one, printed)."), Tr::tr("S"));
    const QCommandLineOption jsonOption(QStringLiteral("json"), Tr::tr("Print the figures as JSON."));
    parser.addOptions({helpOption, policyOption, failureOption, failureMsOption, thresholdOption, runsOption,
        seedOption, jsonOption});

    const auto usage = [&err](const QString &message) {
        err << Tr::tr("retrylab layers: %1; see retrylab layers --help").arg(message) << Qt::endl;
        return ExitUsage;
    };
    if (!parser.parse(subcommandArguments(arguments)))
        return usage(parser.errorText());
    if (parser.isSet(helpOption)) {
        out << subcommandHelp(parser, Tr::tr("Usage: retrylab layers --policy A --policy B [--policy C ...] [options]"))
            << Qt::endl;
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty())
        return usage(Tr::tr("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    const QStringList names = parser.values(policyOption);
    if (names.size() < Core::RetryLayers::minLayers || names.size() > Core::RetryLayers::maxLayers)
        return usage(Tr::tr("give 2 to 4 --policy options, outermost first (got %1)").arg(names.size()));

    QList<Core::BackoffPolicy> stack;
    for (const QString &name : names) {
        const auto resolved = resolvePolicy(name);
        if (!resolved)
            return usage(Tr::tr("--policy %1: %2").arg(name, resolved.error()));
        stack.append(resolved->policy);
    }

    const auto number = [&parser](const QCommandLineOption &option, double low, double high, double fallback,
                            bool whole) -> std::optional<double> {
        if (!parser.isSet(option))
            return fallback;
        bool ok = false;
        const double value = parser.value(option).toDouble(&ok);
        if (!ok || !std::isfinite(value) || value < low || value > high || (whole && value != std::floor(value)))
            return std::nullopt;
        return value;
    };
    Core::RetryLayers::Assumptions assumptions;
    const auto p = number(failureOption, 0.0, 1.0, assumptions.failureProbability, false);
    if (!p)
        return usage(Tr::tr("-p must be a probability from 0 to 1 (got \"%1\")").arg(parser.value(failureOption)));
    const auto failureMs = number(failureMsOption, 0.0, 3'600'000.0, 0.0, false);
    if (!failureMs)
        return usage(Tr::tr("--failure-ms must be from 0 to 3600000 (got \"%1\")").arg(parser.value(failureMsOption)));
    const auto threshold = number(thresholdOption, 1.0, 1e12, assumptions.threshold, false);
    if (!threshold)
        return usage(Tr::tr("--threshold must be from 1 to 10^12 (got \"%1\")").arg(parser.value(thresholdOption)));
    const auto runs = number(runsOption, 0.0, 10'000'000.0, 10'000.0, true);
    if (!runs)
        return usage(
            Tr::tr("--runs must be a whole number from 0 to 10000000 (got \"%1\")").arg(parser.value(runsOption)));
    quint64 seed = Core::RandomSource::freshSeed();
    if (parser.isSet(seedOption)) {
        bool ok = false;
        seed = parser.value(seedOption).toULongLong(&ok);
        if (!ok)
            return usage(Tr::tr("--seed must be a whole number (got \"%1\")").arg(parser.value(seedOption)));
    }
    assumptions.failureProbability = *p;
    assumptions.failureMs = *failureMs;
    assumptions.threshold = *threshold;

    const Core::RetryLayers::Result result = Core::RetryLayers::compute(stack, assumptions);
    const int playedRuns = static_cast<int>(*runs);
    const Core::LayerSimulationResult played = Core::simulateLayers(stack, assumptions, playedRuns, seed);

    if (parser.isSet(jsonOption)) {
        QJsonArray layers;
        for (const Core::RetryLayers::LayerFigures &l : result.layers) {
            layers.append(
                QJsonObject{{QStringLiteral("name"), l.name}, {QStringLiteral("maxAttempts"), double(l.maxAttempts)},
                    {QStringLiteral("boundByDeadline"), l.boundByDeadline},
                    {QStringLiteral("minGiveUpMs"), l.minGiveUpMs}, {QStringLiteral("maxGiveUpMs"), l.maxGiveUpMs}});
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
        if (playedRuns > 0) {
            json.insert(QStringLiteral("check"),
                QJsonObject{{QStringLiteral("runs"), played.runs}, {QStringLiteral("seed"), QString::number(seed)},
                    {QStringLiteral("meanServerAttempts"), played.meanServerAttempts},
                    {QStringLiteral("standardError"), played.standardError},
                    {QStringLiteral("maxServerAttempts"), double(played.maxServerAttempts)},
                    {QStringLiteral("failureRate"), played.failureRate},
                    {QStringLiteral("maxGiveUpMs"), played.maxGiveUpMs}});
        }
        out << QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
    } else {
        out << Core::RetryLayers::describe(result, assumptions) << Qt::endl;
        if (playedRuns > 0) {
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
    return result.exceedsThreshold ? ExitFailed : ExitOk;
}

} // namespace RetryLab::Cli
