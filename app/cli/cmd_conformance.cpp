#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/headlessoptions.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/runprinter.h"
#include "app/cli/subcommand.h"
#include "app/cli/texttable.h"

#include "app/cli/clitr.h"
#include "app/cli/policyargument.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/scenario/conformancerunner.h"
#include "core/util/terminaltext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QLoggingCategory>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcConformanceCommand, "retrylab.cli.conformance", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

QString cellText(const Core::ConformanceCellResult &cell)
{
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

} // namespace

int runConformance(const QStringList &arguments)
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
    HeadlessOptions options(parser,
        HeadlessOptions::Seed | HeadlessOptions::Quiet | HeadlessOptions::NoRedact | HeadlessOptions::ReportFiles,
        Tr::tr("Print only the verdict line and the failing cells, not the matrix."));

    Console usage;
    if (const auto parsed = options.parse(parser, arguments); !parsed) {
        usage.error(Tr::tr("retrylab conformance: %1; see retrylab conformance --help").arg(parsed.error()));
        return ExitUsage;
    }
    if (options.helpRequested()) {
        usage.print(subcommandHelp(parser, Tr::tr("Usage: retrylab conformance [options]")));
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        usage.error(
            Tr::tr("retrylab conformance: unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
        return ExitUsage;
    }

    QList<NamedPolicy> policies;
    QStringList names = parser.values(policyOption);
    if (names.isEmpty())
        names.append(QStringLiteral("google-cloud-storage"));
    for (const QString &name : std::as_const(names)) {
        if (name == QLatin1String("all")) {
            for (const Core::Presets::Preset &preset : Core::Presets::all())
                policies.append({Tr::tr("preset %1").arg(preset.id), preset.policy});
            continue;
        }
        auto policy = resolvePolicy(name);
        if (!policy) {
            usage.error(Tr::tr("retrylab conformance: --policy: %1").arg(policy.error()));
            return ExitUsage;
        }
        policies.append(std::move(policy).value());
    }
    std::optional<NamedPolicy> expectation;
    if (parser.isSet(expectOption)) {
        auto policy = resolvePolicy(parser.value(expectOption));
        if (!policy) {
            usage.error(Tr::tr("retrylab conformance: --expect-policy: %1").arg(policy.error()));
            return ExitUsage;
        }
        expectation = std::move(policy).value();
    }
    if (policies.size() > 1 && options.writesRunFiles()) {
        usage.error(Tr::tr("retrylab conformance: --report, --har and --csv hold one policy's run; give one --policy "
                           "(--junit takes several)"));
        return ExitUsage;
    }
    if (const auto writable = options.checkOutputFiles(); !writable) {
        usage.error(Tr::tr("retrylab conformance: %1").arg(writable.error()));
        return ExitUsage;
    }

    Console console(options.redact());
    Console::installMessageHandler(options.redact());
    if (!options.redact())
        console.error(HeadlessOptions::noRedactWarning());

    bool allPassed = true;
    bool interrupted = false;
    InterruptWatcher interrupt;
    QList<Core::JUnitExport::Suite> suites;
    Core::RunRecord lastRecord;
    QList<Core::ExpectationResult> lastResults;
    for (const NamedPolicy &named : std::as_const(policies)) {
        if (interrupted)
            break;
        Core::ConformanceRunner runner;
        runner.setPolicy(named.policy);
        if (expectation)
            runner.setExpectationPolicy(expectation->policy);
        runner.setSeed(options.runSeed());

        const Core::BackoffPolicy run = runner.runPolicy();
        if (!options.quiet()) {
            console.print(Tr::tr("Conformance of \"%1\" (%2), %3")
                              .arg(named.policy.name, named.origin, options.seedText(options.runSeed())));
            if (expectation) {
                console.print(Tr::tr("Expected outcomes follow the rules of \"%1\" (%2)")
                                  .arg(expectation->policy.name, expectation->origin));
            }
            console.print(Tr::tr("Waits compressed x%1: base %2, cap %3, %4; %n cell(s), each its own client", nullptr,
                static_cast<int>(runner.cells().size()))
                              .arg(Core::Conformance::compressionFactor(named.policy), 0, 'g', 3)
                              .arg(RunPrinter::duration(run.baseDelayMs), RunPrinter::duration(run.maxBackoffMs),
                                  run.deadlineMs > 0.0 ? Tr::tr("deadline %1").arg(RunPrinter::duration(run.deadlineMs))
                                                       : Tr::tr("no deadline")));
        }

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
        QElapsedTimer clock;
        clock.start();
        runner.start();
        loop.exec();
        QObject::disconnect(onInterrupt);
        if (!failure.isEmpty()) {
            console.error(Tr::tr("retrylab conformance: %1: %2").arg(named.policy.name, failure));
            return ExitFailed;
        }

        if (!options.quiet()) {
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
        if (runner.timedOut()) {
            console.error(Tr::tr("retrylab conformance: %1: the time limit of %2 ran out; %n cell(s) still running "
                                 "were cancelled and fail",
                nullptr,
                int(std::count_if(runner.cells().cbegin(), runner.cells().cend(),
                    [](const Core::ConformanceCellResult &c) {
                        return !c.done || c.result.outcome == Core::RequestOutcome::Cancelled;
                    })))
                              .arg(Core::TerminalText::escaped(named.policy.name),
                                  RunPrinter::duration(double(runner.timeLimitMs()))));
        }
        console.print(Tr::tr("%1: %2 of %3 cells pass (%4)")
                          .arg(Core::TerminalText::escaped(named.policy.name), QString::number(runner.passedCount()),
                              QString::number(runner.cells().size()), RunPrinter::duration(double(clock.elapsed()))));
        if (!options.quiet() && &named != &policies.constLast())
            console.print();
        allPassed = allPassed && runner.allPassed();

        lastRecord = runner.record();
        lastResults = runner.expectationResults();
        suites.append(
            Core::JUnitExport::suiteFor(Tr::tr("conformance: %1").arg(named.policy.name), lastRecord, lastResults));
    }

    QStringList written;
    QStringList errors;
    options.writeFiles(lastRecord, lastResults, suites, &written, &errors);
    if (!options.quiet())
        console.print(written);
    for (const QString &message : std::as_const(errors))
        console.error(Tr::tr("retrylab conformance: %1").arg(message));
    qCDebug(lcConformanceCommand) << policies.size() << "policies, all passed:" << allPassed;
    if (!errors.isEmpty())
        return ExitUsage;
    return allPassed && !interrupted ? ExitOk : ExitFailed;
}

} // namespace RetryLab::Cli
