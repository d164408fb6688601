#include "app/cli/cmd_conformance.h"

#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/runprinter.h"
#include "app/cli/runseed.h"
#include "app/cli/subcommand.h"
#include "app/cli/texttable.h"

#include "app/cli/clitr.h"
#include "app/cli/policyargument.h"
#include "core/policy/presets.h"
#include "core/scenario/conformancerunner.h"
#include "core/util/durationtext.h"
#include "core/util/terminaltext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLoggingCategory>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcConformanceCommand, "retrylab.cli.conformance", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

using ConformanceCommand::Options;

const QString command = QStringLiteral("conformance");

QString cellText(const Core::ConformanceCellResult &cell)
{
    if (!cell.cell.applies())
        return Tr::tr("n/a");
    if (!cell.done)
        return QStringLiteral("-");
    return Tr::tr("%1 %2/%3")
        .arg(cell.verdict.passed ? Tr::tr("pass") : Tr::tr("FAIL"), Core::requestOutcomeName(cell.result.outcome))
        .arg(cell.result.attempts);
}

QStringList matrix(const Core::ConformanceRunner &runner)
{
    QStringList header{Tr::tr("fault sequence")};
    const QList<Core::IdempotencyClass> classes = Core::Conformance::idempotencyClasses();
    for (Core::IdempotencyClass c : classes)
        header.append(Core::Conformance::idempotencyTitle(c));
    TextTable table(header);
    const QList<Core::ConformanceCellResult> &cells = runner.cells();
    for (qsizetype i = 0; i < cells.size(); i += classes.size()) {
        QStringList row{cells[i].cell.sequence.title};
        for (qsizetype c = 0; c < classes.size() && i + c < cells.size(); ++c)
            row.append(cellText(cells[i + c]));
        table.addRow(row);
    }
    return table.lines(QStringLiteral("  "));
}

// The policies --policy names, "all" standing for every preset.
Core::Result<QList<NamedPolicy>> resolvePolicies(const QStringList &names)
{
    QList<NamedPolicy> policies;
    for (const QString &name : names) {
        if (name == QLatin1String("all")) {
            for (const Core::Presets::Preset &preset : Core::Presets::all())
                policies.append({Tr::tr("preset %1").arg(preset.id), preset.policy});
            continue;
        }
        auto policy = resolvePolicy(name);
        if (!policy)
            return Core::Result<QList<NamedPolicy>>::failure(Tr::tr("--policy: %1").arg(policy.error()));
        policies.append(std::move(policy).value());
    }
    return policies;
}

// What one policy's matrix runs under, before it runs.
void printIntroduction(const NamedPolicy &named, const std::optional<NamedPolicy> &expectation,
    const Core::ConformanceRunner &runner, const RunSeed &seed, Console &console)
{
    const Core::BackoffPolicy run = runner.runPolicy();
    console.print(Tr::tr("Conformance of \"%1\" (%2), %3").arg(named.policy.name, named.origin, seed.text()));
    if (expectation) {
        console.print(Tr::tr("Expected outcomes follow the rules of \"%1\" (%2)")
                          .arg(expectation->policy.name, expectation->origin));
    }
    console.print(Tr::tr(
        "Waits compressed x%1: base %2, cap %3, %4; %n cell(s), each its own client", nullptr, runner.playedCount())
                      .arg(Core::Conformance::compressionFactor(named.policy), 0, 'g', 3)
                      .arg(Core::DurationText::format(run.baseDelayMs), Core::DurationText::format(run.maxBackoffMs),
                          run.deadlineMs > 0.0 ? Tr::tr("deadline %1").arg(Core::DurationText::format(run.deadlineMs))
                                               : Tr::tr("no deadline")));
}

// Runs the matrix to its end, or until Ctrl+C (which sets `interrupted`) has
// cancelled the cells still running. The runner's failure, if it could not run.
QString execute(Core::ConformanceRunner &runner, InterruptWatcher &interrupt, bool &interrupted, Console &console)
{
    QEventLoop loop;
    QString failure;
    QObject::connect(&runner, &Core::ConformanceRunner::finished, &loop, &QEventLoop::quit);
    QObject::connect(&runner, &Core::ConformanceRunner::failed, &loop, [&](const QString &message) {
        failure = message;
        loop.quit();
    });
    const QMetaObject::Connection onInterrupt
        = QObject::connect(&interrupt, &InterruptWatcher::interrupted, &runner, [&] {
              console.error(Tr::tr("retrylab conformance: interrupted; cancelling the cells still running"));
              interrupted = true;
              runner.cancel();
          });
    runner.start();
    loop.exec();
    QObject::disconnect(onInterrupt);
    return failure;
}

// The matrix (unless quiet), the failing cells with their reasons, and the verdict line.
void printResults(
    const Core::ConformanceRunner &runner, const QString &policyName, qint64 elapsedMs, bool quiet, Console &console)
{
    if (!quiet) {
        console.print();
        console.print(matrix(runner));
        console.print();
    }
    for (const Core::ConformanceCellResult &cell : runner.cells()) {
        if (cell.verdict.passed)
            continue;
        console.print(Tr::tr("FAIL  %1").arg(cell.cell.name()));
        for (const QString &line : cell.verdict.message.split(QLatin1Char('\n')))
            console.print(QStringLiteral("      ") + line);
    }
    const QString name = Core::TerminalText::escaped(policyName);
    if (runner.timedOut()) {
        const auto unfinished
            = std::count_if(runner.cells().cbegin(), runner.cells().cend(), [](const Core::ConformanceCellResult &c) {
                  return !c.done || c.result.outcome == Core::RequestOutcome::Cancelled;
              });
        console.error(Tr::tr("retrylab conformance: %1: the time limit of %2 ran out; %n cell(s) still running "
                             "were cancelled and fail",
            nullptr, int(unfinished))
                          .arg(name, Core::DurationText::format(double(runner.timeLimitMs()))));
    }
    console.print(Tr::tr("%1: %2 of %3 cells pass (%4)")
                      .arg(name, QString::number(runner.passedCount()), QString::number(runner.playedCount()),
                          Core::DurationText::format(double(elapsedMs))));
}

} // namespace

namespace ConformanceCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Runs the conformance matrix for a retry policy against the embedded fault server: fault sequences "
               "(503s, resets, 429 with Retry-After, a broken stream, 400 and 401 mixed in, a 503 that never ends) "
               "x idempotency (GET; POST with If-Match; plain POST). Each cell's expected outcome follows from the "
               "policy's rules; the matrix shows which cells behave as expected. The policy's waits are compressed "
               "so that the matrix takes seconds.\n"
               "Exit status: 0 when every cell passes, 1 when one fails, 2 for a usage or file error."));
    const QCommandLineOption policyOption(QStringLiteral("policy"),
        Tr::tr("The policy: a preset id or name, a policy JSON file, or \"all\" for every preset. May be given "
               "several times. Default: google-cloud-storage."),
        Tr::tr("P|FILE"));
    const QCommandLineOption expectOption(QStringLiteral("expect-policy"),
        Tr::tr("Derive the expected outcomes from this policy instead, to see in which cells two policies differ."),
        Tr::tr("P|FILE"));
    parser.addOptions({policyOption, expectOption});
    const HeadlessOptions::Table shared(
        HeadlessOptions::Seed | HeadlessOptions::Quiet | HeadlessOptions::NoRedact | HeadlessOptions::ReportFiles,
        Tr::tr("Print only the verdict line and the failing cells, not the matrix."));
    parser.addOptions(shared.options());

    if (const auto parsed = parseSubcommand(parser, arguments); !parsed)
        return Core::Result<Options>::failure(withHelpHint(command, parsed.error()));
    Options options;
    if (shared.helpRequested(parser)) {
        options.help = subcommandHelp(parser, Tr::tr("Usage: retrylab conformance [options]")) + QLatin1Char('\n');
        return options;
    }
    auto values = shared.read(parser);
    if (!values)
        return Core::Result<Options>::failure(withHelpHint(command, values.error()));
    options.shared = std::move(values).value();
    if (!parser.positionalArguments().isEmpty()) {
        return Core::Result<Options>::failure(
            Tr::tr("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    }
    if (parser.isSet(policyOption))
        options.policies = parser.values(policyOption);
    if (parser.isSet(expectOption))
        options.expectPolicy = parser.value(expectOption);
    return options;
}

int run(const Options &options)
{
    auto policies = resolvePolicies(options.policies);
    if (!policies)
        return usageError(command, policies.error());
    std::optional<NamedPolicy> expectation;
    if (options.expectPolicy) {
        auto policy = resolvePolicy(*options.expectPolicy);
        if (!policy)
            return usageError(command, Tr::tr("--expect-policy: %1").arg(policy.error()));
        expectation = std::move(policy).value();
    }
    if (policies->size() > 1 && options.shared.writesRunFiles()) {
        return usageError(command,
            Tr::tr("--report, --har and --csv hold one policy's run; give one --policy (--junit takes several)"));
    }
    if (const auto writable = options.shared.checkOutputFiles(); !writable)
        return usageError(command, writable.error());

    Console console(options.shared.redact);
    Console::installMessageHandler(options.shared.redact);
    if (!options.shared.redact)
        console.error(HeadlessOptions::noRedactWarning());

    const RunSeed seed(options.shared.seed);
    bool allPassed = true;
    bool interrupted = false;
    InterruptWatcher interrupt;
    QList<Core::JUnitExport::Suite> suites;
    Core::RunRecord lastRecord;
    QList<Core::ExpectationResult> lastResults;
    for (const NamedPolicy &named : *policies) {
        if (interrupted)
            break;
        Core::ConformanceRunner runner;
        runner.setPolicy(named.policy);
        if (expectation)
            runner.setExpectationPolicy(expectation->policy);
        runner.setSeed(seed.value());
        if (!options.shared.quiet)
            printIntroduction(named, expectation, runner, seed, console);

        QElapsedTimer clock;
        clock.start();
        if (const QString failure = execute(runner, interrupt, interrupted, console); !failure.isEmpty()) {
            console.error(Tr::tr("retrylab conformance: %1: %2").arg(named.policy.name, failure));
            return ExitFailed;
        }
        printResults(runner, named.policy.name, clock.elapsed(), options.shared.quiet, console);
        if (!options.shared.quiet && &named != &policies->constLast())
            console.print();
        allPassed = allPassed && runner.allPassed();

        lastRecord = runner.record();
        lastResults = runner.expectationResults();
        suites.append(
            Core::JUnitExport::suiteFor(Tr::tr("conformance: %1").arg(named.policy.name), lastRecord, lastResults));
    }

    QStringList written;
    QStringList errors;
    options.shared.writeFiles(lastRecord, lastResults, suites, &written, &errors);
    if (!options.shared.quiet)
        console.print(written);
    for (const QString &message : std::as_const(errors))
        console.error(Tr::tr("retrylab conformance: %1").arg(message));
    qCDebug(lcConformanceCommand) << policies->size() << "policies, all passed:" << allPassed;
    if (!errors.isEmpty())
        return ExitUsage;
    return allPassed && !interrupted ? ExitOk : ExitFailed;
}

} // namespace ConformanceCommand

int runConformance(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &ConformanceCommand::parse, &ConformanceCommand::run);
}

} // namespace RetryLab::Cli
