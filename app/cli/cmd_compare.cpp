#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/policyargument.h"
#include "app/cli/subcommand.h"
#include "app/cli/texttable.h"
#include "core/export/texttimeline.h"
#include "core/scenario/policycomparison.h"
#include "core/scenario/scenarioreader.h"
#include "core/util/randomsource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace RetryLab::Cli {

namespace {

QJsonValue optionalMs(const std::optional<double> &ms)
{
    return ms ? QJsonValue(*ms) : QJsonValue(QJsonValue::Null);
}

QString msText(const std::optional<double> &ms)
{
    return ms ? Core::TextTimeline::formatTime(*ms) : QStringLiteral("-");
}

} // namespace

int runCompare(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Runs one scripted fault scenario under 2 to 4 policies at once, each against its own copy of the\n"
               "scenario's scripts and with the same seed, so that only the policy differs. Prints the runs as\n"
               "timelines on one time axis and a summary row per policy: attempts (the load on the server), the\n"
               "busiest second, time to success, failures."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption policyOption(QStringLiteral("policy"),
        Tr::tr("A policy: a preset id or name, or a policy file. Give 2 to 4."), Tr::tr("ID|FILE"));
    const QCommandLineOption scenarioOption(QStringLiteral("scenario"),
        Tr::tr("The scenario file (its scripts and requests; its policy is replaced)."), Tr::tr("FILE"));
    const QCommandLineOption seedOption(QStringLiteral("seed"),
        Tr::tr("Seed of the jitter and random faults (default: a fresh one, printed)."), Tr::tr("S"));
    const QCommandLineOption widthOption(
        QStringLiteral("width"), Tr::tr("Characters of the time axis (default 60)."), Tr::tr("N"));
    const QCommandLineOption jsonOption(QStringLiteral("json"), Tr::tr("Print the comparison as JSON."));
    parser.addOptions({helpOption, policyOption, scenarioOption, seedOption, widthOption, jsonOption});

    const auto usage = [&err](const QString &message) {
        err << Tr::tr("retrylab compare: %1; see retrylab compare --help").arg(message) << Qt::endl;
        return ExitUsage;
    };
    if (!parser.parse(subcommandArguments(arguments)))
        return usage(parser.errorText());
    if (parser.isSet(helpOption)) {
        out << subcommandHelp(
            parser, Tr::tr("Usage: retrylab compare --policy A --policy B [--policy C ...] --scenario FILE [options]"))
            << Qt::endl;
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty())
        return usage(Tr::tr("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    const QStringList names = parser.values(policyOption);
    if (names.size() < Core::PolicyComparison::minPolicies || names.size() > Core::PolicyComparison::maxPolicies)
        return usage(Tr::tr("give 2 to 4 --policy options (got %1)").arg(names.size()));
    if (!parser.isSet(scenarioOption))
        return usage(Tr::tr("--scenario FILE is required"));
    QList<Core::BackoffPolicy> policies;
    QStringList origins;
    for (const QString &name : names) {
        const auto resolved = resolvePolicy(name);
        if (!resolved)
            return usage(Tr::tr("--policy %1: %2").arg(name, resolved.error()));
        policies.append(resolved->policy);
        origins.append(resolved->origin);
    }
    Console::installMessageHandler(true);
    const auto scenario = Core::ScenarioReader::readFile(parser.value(scenarioOption));
    if (!scenario)
        return usage(scenario.error());
    int width = 60;
    if (parser.isSet(widthOption)) {
        bool ok = false;
        width = parser.value(widthOption).toInt(&ok);
        if (!ok || width < 20 || width > 400)
            return usage(
                Tr::tr("--width must be a whole number from 20 to 400 (got \"%1\")").arg(parser.value(widthOption)));
    }
    quint64 seed = Core::RandomSource::freshSeed();
    const bool drawn = !parser.isSet(seedOption);
    if (!drawn) {
        bool ok = false;
        seed = parser.value(seedOption).toULongLong(&ok);
        if (!ok)
            return usage(Tr::tr("--seed must be a whole number (got \"%1\")").arg(parser.value(seedOption)));
    }

    Core::PolicyComparison comparison;
    comparison.setScenario(*scenario);
    comparison.setPolicies(policies, origins);
    comparison.setSeed(seed);
    QEventLoop loop;
    QString problem;
    QObject::connect(&comparison, &Core::PolicyComparison::finished, &loop, &QEventLoop::quit);
    QObject::connect(&comparison, &Core::PolicyComparison::failed, &loop, [&](const QString &message) {
        problem = message;
        loop.quit();
    });
    InterruptWatcher interrupt;
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &comparison, &Core::PolicyComparison::cancel);
    comparison.start();
    loop.exec();
    if (!problem.isEmpty()) {
        err << Tr::tr("retrylab compare: %1").arg(problem) << Qt::endl;
        return ExitFailed;
    }

    const QList<Core::ComparisonRow> &rows = comparison.rows();
    if (parser.isSet(jsonOption)) {
        QJsonArray array;
        for (const Core::ComparisonRow &row : rows) {
            array.append(QJsonObject{{QStringLiteral("policy"), row.policy.name},
                {QStringLiteral("origin"), row.origin}, {QStringLiteral("requests"), row.requests},
                {QStringLiteral("succeeded"), row.succeeded}, {QStringLiteral("failed"), row.failed},
                {QStringLiteral("attempts"), row.attempts},
                {QStringLiteral("peakAttemptsPerSecond"), row.peakAttemptsPerSecond},
                {QStringLiteral("medianSuccessMs"), optionalMs(row.medianSuccessMs)},
                {QStringLiteral("maxSuccessMs"), optionalMs(row.maxSuccessMs)}, {QStringLiteral("runMs"), row.runMs}});
        }
        const QJsonObject json{{QStringLiteral("scenario"), scenario->name},
            {QStringLiteral("seed"), QString::number(seed)}, {QStringLiteral("policies"), array}};
        out << QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
        return ExitOk;
    }

    out << Tr::tr("Scenario \"%1\" (%2) under %n policies, seed %3%4", nullptr, int(rows.size()))
               .arg(scenario->name, QDir::toNativeSeparators(parser.value(scenarioOption)))
               .arg(seed)
               .arg(drawn ? Tr::tr(" (drawn; --seed %1 repeats it)").arg(seed) : QString())
        << Qt::endl
        << Qt::endl;
    Core::TextTimeline::Options options;
    options.width = width;
    options.spanMs = comparison.spanMs();
    for (const Core::ComparisonRow &row : rows) {
        out << Tr::tr("%1 (%2)").arg(row.policy.name, row.origin) << Qt::endl;
        QList<quint64> ids = row.record.requests.keys();
        std::sort(ids.begin(), ids.end());
        QList<Core::TextTimeline::Lane> lanes;
        for (quint64 id : std::as_const(ids)) {
            const QString label = row.record.requests.value(id).label;
            lanes.append({label.isEmpty() ? Tr::tr("request %1").arg(id) : label, id});
        }
        for (const QString &line : Core::TextTimeline::render(row.record, lanes, options))
            out << QStringLiteral("  ") << line << Qt::endl;
        out << Qt::endl;
    }
    out << Core::TextTimeline::legend() << Qt::endl << Qt::endl;

    TextTable table({Tr::tr("policy"), Tr::tr("requests"), Tr::tr("succeeded"), Tr::tr("failed"), Tr::tr("attempts"),
        Tr::tr("busiest second"), Tr::tr("to success p50"), Tr::tr("max"), Tr::tr("run")});
    for (const Core::ComparisonRow &row : rows) {
        table.addRow({row.policy.name, QString::number(row.requests), QString::number(row.succeeded),
            QString::number(row.failed), QString::number(row.attempts), QString::number(row.peakAttemptsPerSecond),
            msText(row.medianSuccessMs), msText(row.maxSuccessMs), Core::TextTimeline::formatTime(row.runMs)});
    }
    for (const QString &line : table.lines())
        out << line << Qt::endl;
    return ExitOk;
}

} // namespace RetryLab::Cli
