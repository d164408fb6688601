#include "app/cli/cmd_locust.h"

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
#include "core/util/terminaltext.h"

#include <QCommandLineParser>
#include <QDir>
#include <QTextStream>
#include <QUuid>

namespace RetryLab::Cli {

namespace {

const QString exportCommand = QStringLiteral("export-locust");
const QString importCommand = QStringLiteral("import-locust");

struct ExportOptionTable
{
    ExportOptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption policy;
    QCommandLineOption seed;
    QCommandLineOption output;
};

ExportOptionTable::ExportOptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      policy(QStringLiteral("policy"),
          Tr::tr("The retry policy: a preset id or name, or a policy file (default: the scenario's)."),
          Tr::tr("ID|FILE")),
      seed(QStringLiteral("seed"), Tr::tr("Seed of the jitter (default: a fresh one, printed)."), Tr::tr("S")),
      output({QStringLiteral("o"), QStringLiteral("output")}, Tr::tr("The Locust file to write."), Tr::tr("FILE"))
{ }

void ExportOptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("Writes a self-contained Locust file that performs the scenario's requests under its retry policy\n"
               "(or --policy), on as many Locust workers as you start: every backoff algorithm, the retryable\n"
               "statuses and network faults, Retry-After, the attempt limit, the deadline and the per-attempt\n"
               "timeout, as RetryLab's own executor. Each worker logs every attempt; retrylab import-locust reads\n"
               "the logs back into a report."));
    parser.addOptions({help, policy, seed, output});
}

struct ImportOptionTable
{
    ImportOptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption output;
    QCommandLineOption har;
    QCommandLineOption csv;
    QCommandLineOption scenario;
    QCommandLineOption junit;
    QCommandLineOption noRedact;
};

ImportOptionTable::ImportOptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      output({QStringLiteral("o"), QStringLiteral("output")}, Tr::tr("The JSON report to write."), Tr::tr("FILE")),
      har(QStringLiteral("har"), Tr::tr("Also write the run as HAR 1.2."), Tr::tr("FILE")),
      csv(QStringLiteral("csv"), Tr::tr("Also write the attempts as CSV."), Tr::tr("FILE")),
      scenario(QStringLiteral("scenario"),
          Tr::tr("The scenario the Locust file was made from: its expectations are judged, written into the report, "
                 "and make the exit status 1 when one does not hold."),
          Tr::tr("FILE")),
      junit(QStringLiteral("junit"), Tr::tr("With --scenario: the verdicts as JUnit XML."), Tr::tr("FILE")),
      noRedact(QStringLiteral("no-redact"), Tr::tr("Keep credentials in the report (it then says so)."))
{ }

void ImportOptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("Reads the attempt logs that the workers of a Locust file made by retrylab export-locust wrote (a\n"
               "folder of *.jsonl files, or the files) and writes them as one RetryLab JSON report, which the window\n"
               "opens like any run. The workers' clocks are placed on one time axis by each one's own start."));
    parser.addOptions({help, output, har, csv, scenario, junit, noRedact});
}

std::optional<QString> valueIfSet(const QCommandLineParser &parser, const QCommandLineOption &option)
{
    return parser.isSet(option) ? std::optional<QString>(parser.value(option)) : std::nullopt;
}

// What the expectations of --scenario say about the imported run.
struct Judged
{
    QList<Core::ExpectationResult> verdicts;
    QString scenarioName;
};

// The expectations of --scenario, if given, judged against the run; refused when
// the logs name a request the scenario does not have.
Core::Result<Judged> judge(const ImportLocustCommand::Options &options, const Core::LocustImport::Imported &imported)
{
    Judged judged;
    if (!options.scenarioPath)
        return judged;
    const auto scenario = Core::ScenarioReader::readFile(*options.scenarioPath);
    if (!scenario)
        return scenario.errorDetail();
    for (const QString &entry : std::as_const(imported.entries)) {
        if (!scenario->request(entry)) {
            return Core::Result<Judged>::failure(Tr::tr("the logs name a request \"%1\" that %2 does not have")
                                                     .arg(entry, QDir::toNativeSeparators(*options.scenarioPath)));
        }
    }
    judged.verdicts = Core::evaluateExpectations(*scenario, imported.run, imported.entries);
    judged.scenarioName = scenario->name;
    return judged;
}

// The JUnit file, the report, then the HAR and CSV files; the first that cannot be written.
Core::Result<void> writeFiles(
    const ImportLocustCommand::Options &options, const Core::RunRecord &run, const Judged &judged)
{
    const Core::ExportOptions exportOptions{options.redact};
    if (options.junitPath) {
        const QList<Core::JUnitExport::Suite> suites{
            Core::JUnitExport::suiteFor(judged.scenarioName, run, judged.verdicts)};
        if (const auto written = Core::JUnitExport::writeFile(*options.junitPath, suites, exportOptions); !written)
            return written.errorDetail();
    }
    if (const auto written = Core::ReportJson::writeFile(options.outputPath, run, exportOptions, judged.verdicts);
        !written) {
        return written.errorDetail();
    }
    if (options.harPath) {
        if (const auto written = Core::HarExport::writeFile(*options.harPath, run, exportOptions); !written)
            return written.errorDetail();
    }
    if (options.csvPath) {
        if (const auto written = Core::CsvExport::writeFile(*options.csvPath, run, exportOptions); !written)
            return written.errorDetail();
    }
    return {};
}

// The notes and failed expectations on standard error, the summary on standard
// output; the exit status (1 when an expectation failed).
int printImported(const ImportLocustCommand::Options &options, const Core::LocustImport::Imported &imported,
    const QList<Core::ExpectationResult> &verdicts)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    for (const QString &note : std::as_const(imported.notes))
        err << Tr::tr("note: %1").arg(Core::TerminalText::escaped(note)) << Qt::endl;
    if (imported.unfinished > 0) {
        err << Tr::tr("note: %n logical request(s) had not finished when the logs ended", nullptr, imported.unfinished)
            << Qt::endl;
    }
    int failed = 0;
    for (const Core::ExpectationResult &verdict : verdicts) {
        if (!verdict.passed) {
            ++failed;
            err << Tr::tr("expectation failed: %1: %2")
                       .arg(Core::TerminalText::escaped(verdict.name), Core::TerminalText::escaped(verdict.message))
                << Qt::endl;
        }
    }
    int succeeded = 0;
    for (const Core::RequestResult &r : std::as_const(imported.run.results))
        succeeded += r.outcome == Core::RequestOutcome::Succeeded;
    out << Tr::tr("wrote %1: run %2, %3 attempts of %4 logical requests from %n worker(s), %5 succeeded", nullptr,
        int(imported.workers.size()))
               .arg(QDir::toNativeSeparators(options.outputPath), Core::TerminalText::escaped(imported.runId))
               .arg(imported.run.attempts.size())
               .arg(imported.run.requests.size())
               .arg(succeeded)
        << Qt::endl;
    if (!verdicts.isEmpty())
        out << Tr::tr("expectations: %1 passed, %2 failed").arg(verdicts.size() - failed).arg(failed) << Qt::endl;
    return failed > 0 ? ExitFailed : ExitOk;
}

Core::Result<void> readExportOptions(
    const QCommandLineParser &parser, const ExportOptionTable &table, ExportLocustCommand::Options &options)
{
    if (parser.positionalArguments().size() != 1)
        return Core::Result<void>::failure(Tr::tr("give one scenario file"));
    if (!parser.isSet(table.output) || parser.value(table.output).isEmpty())
        return Core::Result<void>::failure(Tr::tr("-o FILE is required"));
    options.outputPath = parser.value(table.output);
    // The reader's own warnings pass through the redaction too.
    Console::installMessageHandler(true);
    auto scenario = Core::ScenarioReader::readFile(parser.positionalArguments().constFirst());
    if (!scenario)
        return scenario.errorDetail();
    options.scenario = std::move(scenario).value();
    options.policy = options.scenario.policy;
    if (parser.isSet(table.policy)) {
        const auto resolved = resolvePolicy(parser.value(table.policy));
        if (!resolved) {
            return Core::Result<void>::failure(
                Tr::tr("--policy %1: %2").arg(parser.value(table.policy), resolved.error()));
        }
        options.policy = resolved->policy;
    }
    options.seed = options.scenario.seed;
    return readSeed(parser, table.seed, options.seed);
}

Core::Result<void> readImportOptions(
    const QCommandLineParser &parser, const ImportOptionTable &table, ImportLocustCommand::Options &options)
{
    options.logPaths = parser.positionalArguments();
    if (options.logPaths.isEmpty())
        return Core::Result<void>::failure(Tr::tr("give the folder of attempt logs, or the files"));
    if (!parser.isSet(table.output) || parser.value(table.output).isEmpty())
        return Core::Result<void>::failure(Tr::tr("-o FILE is required"));
    if (parser.isSet(table.junit) && !parser.isSet(table.scenario))
        return Core::Result<void>::failure(Tr::tr("--junit needs --scenario (the expectations it reports)"));
    options.outputPath = parser.value(table.output);
    options.harPath = valueIfSet(parser, table.har);
    options.csvPath = valueIfSet(parser, table.csv);
    options.scenarioPath = valueIfSet(parser, table.scenario);
    options.junitPath = valueIfSet(parser, table.junit);
    options.redact = !parser.isSet(table.noRedact);
    return {};
}

} // namespace

namespace ExportLocustCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    return parseOptionTable<Options, ExportOptionTable>(arguments,
        Tr::tr("Usage: retrylab export-locust SCENARIO.json [--policy ID|FILE] -o FILE"), &readExportOptions);
}

int run(const Options &options)
{
    const quint64 seed = options.seed.value_or(Core::RandomSource::freshSeed());
    const QString run = QUuid::createUuid().toString(QUuid::WithoutBraces).left(13);
    const auto generated = Core::LocustExport::locustfile(options.scenario, options.policy, run, seed);
    if (!generated)
        return usageError(exportCommand, generated.error(), UsageHint::SeeHelp);
    const QString path = QDir::toNativeSeparators(options.outputPath);
    if (const auto written = Core::ExportFile::write(options.outputPath, generated->locustfile); !written)
        return usageError(exportCommand, written.error(), UsageHint::SeeHelp);
    QTextStream err(stderr);
    for (const QString &note : std::as_const(generated->notes))
        err << Tr::tr("note: %1").arg(note) << Qt::endl;
    int users = 0;
    for (const Core::ScenarioRequest &r : std::as_const(options.scenario.requests))
        users += r.concurrency;
    QTextStream out(stdout);
    out << Tr::tr("wrote %1: %2 request entries under the policy \"%3\", run %4, seed %5")
               .arg(path)
               .arg(options.scenario.requests.size())
               .arg(options.policy.name, run)
               .arg(seed)
        << Qt::endl;
    out << Tr::tr(
        "run it on one machine:  locust -f %1 --headless --users %2 --spawn-rate %2 --host URL --run-time 1m\n"
        "or on several: one locust -f %1 --master --headless --users %2 --spawn-rate %2 --host URL "
        "--expect-workers N, and N times locust -f %1 --worker --master-host HOST\n"
        "then: retrylab import-locust retrylab-attempts -o report.json")
               .arg(path)
               .arg(users)
        << Qt::endl;
    return ExitOk;
}

} // namespace ExportLocustCommand

namespace ImportLocustCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    return parseOptionTable<Options, ImportOptionTable>(arguments,
        Tr::tr("Usage: retrylab import-locust FOLDER|FILE... -o report.json [--har F] [--csv F] [--scenario F "
               "[--junit F]]"),
        &readImportOptions);
}

int run(const Options &options)
{
    Console::installMessageHandler(options.redact);
    const auto imported = Core::LocustImport::read(options.logPaths);
    if (!imported)
        return usageError(importCommand, imported.error(), UsageHint::SeeHelp, options.redact);
    const auto judged = judge(options, *imported);
    if (!judged)
        return usageError(importCommand, judged.error(), UsageHint::SeeHelp, options.redact);
    if (const auto written = writeFiles(options, imported->run, *judged); !written)
        return usageError(importCommand, written.error(), UsageHint::SeeHelp, options.redact);
    return printImported(options, *imported, judged->verdicts);
}

} // namespace ImportLocustCommand

int runExportLocust(const QStringList &arguments)
{
    return parseAndRun(
        exportCommand, arguments, &ExportLocustCommand::parse, &ExportLocustCommand::run, UsageHint::SeeHelp);
}

int runImportLocust(const QStringList &arguments)
{
    return parseAndRun(
        importCommand, arguments, &ImportLocustCommand::parse, &ImportLocustCommand::run, UsageHint::SeeHelp);
}

} // namespace RetryLab::Cli
