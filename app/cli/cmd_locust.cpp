#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/policyargument.h"
#include "app/cli/subcommand.h"
#include "core/export/csvexport.h"
#include "core/export/harexport.h"
#include "core/export/junitexport.h"
#include "core/export/reportjson.h"
#include "core/import/locustimport.h"
#include "core/scenario/locustexport.h"
#include "core/scenario/scenarioreader.h"
#include "core/util/exportfile.h"
#include "core/util/randomsource.h"

#include <QCommandLineParser>
#include <QDir>
#include <QTextStream>
#include <QUuid>

// retrylab export-locust and retrylab import-locust: a scenario carried to
// Locust's distributed workers, and their attempt logs brought back as a report.

namespace RetryLab::Cli {

int runExportLocust(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Writes a self-contained Locust file that performs the scenario's requests under its retry policy\n"
               "(or --policy), on as many Locust workers as you start: every backoff algorithm, the retryable\n"
               "statuses and network faults, Retry-After, the attempt limit, the deadline and the per-attempt\n"
               "timeout, as RetryLab's own executor. Each worker logs every attempt; retrylab import-locust reads\n"
               "the logs back into a report."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption policyOption(QStringLiteral("policy"),
        Tr::tr("The retry policy: a preset id or name, or a policy file (default: the scenario's)."),
        Tr::tr("ID|FILE"));
    const QCommandLineOption seedOption(
        QStringLiteral("seed"), Tr::tr("Seed of the jitter (default: a fresh one, printed)."), Tr::tr("S"));
    const QCommandLineOption outputOption(
        {QStringLiteral("o"), QStringLiteral("output")}, Tr::tr("The Locust file to write."), Tr::tr("FILE"));
    parser.addOptions({helpOption, policyOption, seedOption, outputOption});
    const auto usage = [&err](const QString &message) {
        err << Tr::tr("retrylab export-locust: %1; see retrylab export-locust --help").arg(message) << Qt::endl;
        return ExitUsage;
    };
    if (!parser.parse(subcommandArguments(arguments)))
        return usage(parser.errorText());
    if (parser.isSet(helpOption)) {
        out << subcommandHelp(parser, Tr::tr("Usage: retrylab export-locust SCENARIO.json [--policy ID|FILE] -o FILE"))
            << Qt::endl;
        return ExitOk;
    }
    if (parser.positionalArguments().size() != 1)
        return usage(Tr::tr("give one scenario file"));
    if (!parser.isSet(outputOption) || parser.value(outputOption).isEmpty())
        return usage(Tr::tr("-o FILE is required"));
    Console::installMessageHandler(true);
    const auto scenario = Core::ScenarioReader::readFile(parser.positionalArguments().constFirst());
    if (!scenario)
        return usage(scenario.error());
    Core::BackoffPolicy policy = scenario->policy;
    if (parser.isSet(policyOption)) {
        const auto resolved = resolvePolicy(parser.value(policyOption));
        if (!resolved)
            return usage(Tr::tr("--policy %1: %2").arg(parser.value(policyOption), resolved.error()));
        policy = resolved->policy;
    }
    quint64 seed = scenario->seed.value_or(Core::RandomSource::freshSeed());
    if (parser.isSet(seedOption)) {
        bool ok = false;
        seed = parser.value(seedOption).toULongLong(&ok);
        if (!ok)
            return usage(Tr::tr("--seed must be a whole number (got \"%1\")").arg(parser.value(seedOption)));
    }
    const QString run = QUuid::createUuid().toString(QUuid::WithoutBraces).left(13);
    const auto generated = Core::LocustExport::locustfile(*scenario, policy, run, seed);
    if (!generated)
        return usage(generated.error());
    const QString path = parser.value(outputOption);
    if (const auto written = Core::ExportFile::write(path, generated->locustfile); !written)
        return usage(Tr::tr("cannot write %1: %2").arg(QDir::toNativeSeparators(path), written.error()));
    for (const QString &note : std::as_const(generated->notes))
        err << Tr::tr("note: %1").arg(note) << Qt::endl;
    int users = 0;
    for (const Core::ScenarioRequest &r : std::as_const(scenario->requests))
        users += r.concurrency;
    out << Tr::tr("wrote %1: %2 request entries under the policy \"%3\", run %4, seed %5")
               .arg(QDir::toNativeSeparators(path))
               .arg(scenario->requests.size())
               .arg(policy.name, run)
               .arg(seed)
        << Qt::endl;
    out << Tr::tr(
        "run it on one machine:  locust -f %1 --headless --users %2 --spawn-rate %2 --host URL --run-time 1m\n"
        "or on several: one locust -f %1 --master --headless --users %2 --spawn-rate %2 --host URL "
        "--expect-workers N, and N times locust -f %1 --worker --master-host HOST\n"
        "then: retrylab import-locust retrylab-attempts -o report.json")
               .arg(QDir::toNativeSeparators(path))
               .arg(users)
        << Qt::endl;
    return ExitOk;
}

int runImportLocust(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Reads the attempt logs that the workers of a Locust file made by retrylab export-locust wrote (a\n"
               "folder of *.jsonl files, or the files) and writes them as one RetryLab JSON report, which the window\n"
               "opens like any run. The workers' clocks are placed on one time axis by each one's own start."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption outputOption(
        {QStringLiteral("o"), QStringLiteral("output")}, Tr::tr("The JSON report to write."), Tr::tr("FILE"));
    const QCommandLineOption harOption(QStringLiteral("har"), Tr::tr("Also write the run as HAR 1.2."), Tr::tr("FILE"));
    const QCommandLineOption csvOption(
        QStringLiteral("csv"), Tr::tr("Also write the attempts as CSV."), Tr::tr("FILE"));
    const QCommandLineOption scenarioOption(QStringLiteral("scenario"),
        Tr::tr("The scenario the Locust file was made from: its expectations are judged, written into the report, "
               "and make the exit status 1 when one does not hold."),
        Tr::tr("FILE"));
    const QCommandLineOption junitOption(
        QStringLiteral("junit"), Tr::tr("With --scenario: the verdicts as JUnit XML."), Tr::tr("FILE"));
    const QCommandLineOption noRedactOption(
        QStringLiteral("no-redact"), Tr::tr("Keep credentials in the report (it then says so)."));
    parser.addOptions({helpOption, outputOption, harOption, csvOption, scenarioOption, junitOption, noRedactOption});
    const auto usage = [&err](const QString &message) {
        err << Tr::tr("retrylab import-locust: %1; see retrylab import-locust --help").arg(message) << Qt::endl;
        return ExitUsage;
    };
    if (!parser.parse(subcommandArguments(arguments)))
        return usage(parser.errorText());
    if (parser.isSet(helpOption)) {
        out << subcommandHelp(parser,
            Tr::tr("Usage: retrylab import-locust FOLDER|FILE... -o report.json [--har F] [--csv F] [--scenario F "
                   "[--junit F]]"))
            << Qt::endl;
        return ExitOk;
    }
    if (parser.positionalArguments().isEmpty())
        return usage(Tr::tr("give the folder of attempt logs, or the files"));
    if (!parser.isSet(outputOption) || parser.value(outputOption).isEmpty())
        return usage(Tr::tr("-o FILE is required"));
    Console::installMessageHandler(!parser.isSet(noRedactOption));
    if (parser.isSet(junitOption) && !parser.isSet(scenarioOption))
        return usage(Tr::tr("--junit needs --scenario (the expectations it reports)"));
    const auto imported = Core::LocustImport::read(parser.positionalArguments());
    if (!imported)
        return usage(imported.error());
    QList<Core::ExpectationResult> verdicts;
    QString scenarioName;
    if (parser.isSet(scenarioOption)) {
        const auto scenario = Core::ScenarioReader::readFile(parser.value(scenarioOption));
        if (!scenario)
            return usage(scenario.error());
        for (const QString &entry : std::as_const(imported->entries)) {
            if (!scenario->request(entry))
                return usage(Tr::tr("the logs name a request \"%1\" that %2 does not have")
                                 .arg(entry, QDir::toNativeSeparators(parser.value(scenarioOption))));
        }
        verdicts = Core::evaluateExpectations(*scenario, imported->run, imported->entries);
        scenarioName = scenario->name;
    }
    const QString path = parser.value(outputOption);
    const Core::ExportOptions options{!parser.isSet(noRedactOption)};
    if (parser.isSet(junitOption)) {
        const QList<Core::JUnitExport::Suite> suites{
            Core::JUnitExport::suiteFor(scenarioName, imported->run, verdicts)};
        if (const auto written = Core::JUnitExport::writeFile(parser.value(junitOption), suites, options); !written)
            return usage(Tr::tr("cannot write %1: %2").arg(parser.value(junitOption), written.error()));
    }
    if (const auto written = Core::ReportJson::writeFile(path, imported->run, options, verdicts); !written)
        return usage(Tr::tr("cannot write %1: %2").arg(QDir::toNativeSeparators(path), written.error()));
    if (parser.isSet(harOption)) {
        if (const auto written = Core::HarExport::writeFile(parser.value(harOption), imported->run, options); !written)
            return usage(Tr::tr("cannot write %1: %2").arg(parser.value(harOption), written.error()));
    }
    if (parser.isSet(csvOption)) {
        if (const auto written = Core::CsvExport::writeFile(parser.value(csvOption), imported->run, options); !written)
            return usage(Tr::tr("cannot write %1: %2").arg(parser.value(csvOption), written.error()));
    }
    for (const QString &note : std::as_const(imported->notes))
        err << Tr::tr("note: %1").arg(note) << Qt::endl;
    if (imported->unfinished > 0) {
        err << Tr::tr("note: %n logical request(s) had not finished when the logs ended", nullptr, imported->unfinished)
            << Qt::endl;
    }
    int failed = 0;
    for (const Core::ExpectationResult &verdict : std::as_const(verdicts)) {
        if (!verdict.passed) {
            ++failed;
            err << Tr::tr("expectation failed: %1: %2").arg(verdict.name, verdict.message) << Qt::endl;
        }
    }
    int succeeded = 0;
    for (const Core::RequestResult &r : std::as_const(imported->run.results))
        succeeded += r.outcome == Core::RequestOutcome::Succeeded;
    out << Tr::tr("wrote %1: run %2, %3 attempts of %4 logical requests from %n worker(s), %5 succeeded", nullptr,
        int(imported->workers.size()))
               .arg(QDir::toNativeSeparators(path), imported->runId)
               .arg(imported->run.attempts.size())
               .arg(imported->run.requests.size())
               .arg(succeeded)
        << Qt::endl;
    if (!verdicts.isEmpty()) {
        out << Tr::tr("expectations: %1 passed, %2 failed").arg(verdicts.size() - failed).arg(failed) << Qt::endl;
    }
    return failed > 0 ? ExitFailed : ExitOk;
}

} // namespace RetryLab::Cli
