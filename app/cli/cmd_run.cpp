#include "app/cli/cmd_run.h"

#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/runprinter.h"
#include "app/cli/runseed.h"
#include "app/cli/subcommand.h"

#include "app/cli/clitr.h"
#include "core/executor/preparedtransport.h"
#include "core/executor/retryexecutor.h"
#include "core/runtime/descriptorlimit.h"
#include "core/runtime/memorylimit.h"
#include "core/scenario/scenarioreader.h"
#include "core/scenario/scenariorunner.h"
#include "core/util/terminaltext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {
Q_LOGGING_CATEGORY(lcRun, "retrylab.cli.run", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

const QString command = QStringLiteral("run");

// Certificate checks prove who the server is: a scenario that switches them
// off runs only when the command line says so too. A transport whose files
// cannot be read is refused before anything runs.
Core::Result<void> checkTransports(const Core::Scenario &scenario, bool insecureAllowed, Console &console)
{
    QStringList insecure;
    for (const Core::ScenarioRequest &request : scenario.requests) {
        if (const auto prepared = Core::PreparedTransport::prepare(request.spec.transport); !prepared) {
            return Core::Result<void>::failure(
                Tr::tr("request \"%1\": %2").arg(Core::TerminalText::escaped(request.name), prepared.error()));
        }
        if (!request.spec.transport.insecureHosts.isEmpty()) {
            insecure.append(Tr::tr("\"%1\" (%2)")
                                .arg(Core::TerminalText::escaped(request.name),
                                    request.spec.transport.insecureHosts.join(QStringLiteral(", "))));
        }
    }
    if (insecure.isEmpty())
        return {};
    if (!insecureAllowed) {
        return Core::Result<void>::failure(
            Tr::tr("the scenario ignores certificate errors for %1; give --insecure to allow that: without the "
                   "checks nothing proves who the server is")
                .arg(insecure.join(QStringLiteral(", "))));
    }
    console.error(Tr::tr("warning: --insecure: certificate errors are ignored for %1, and every export says so")
                      .arg(insecure.join(QStringLiteral(", "))));
    return {};
}

// Each attempt in flight holds a descriptor, another on the embedded
// server's side when the scenario uses it, and the network managers it is
// spread over have their own: about three each. More than the descriptors
// allow would fail requests for the tool's own reason, so fewer run at once.
void fitConcurrency(Core::Scenario &scenario, Console &console)
{
    constexpr qint64 descriptorsPerAttempt = 3;
    const qint64 fit = std::max<qint64>(1, Core::DescriptorLimit::available() / descriptorsPerAttempt);
    if (scenario.concurrency <= fit)
        return;
    const Core::DescriptorLimit::Limits limits = Core::DescriptorLimit::current();
    console.error(
        Tr::tr("warning: %1 attempts in flight need about %2 file descriptors, but the limit is %3 "
               "(at most %4, raise it with ulimit -n): running %5 at once instead")
            .arg(QString::number(scenario.concurrency),
                QString::number(descriptorsPerAttempt * qint64(scenario.concurrency) + Core::DescriptorLimit::reserve),
                QString::number(limits.soft), QString::number(limits.hard), QString::number(fit)));
    scenario.concurrency = int(fit);
}

// Under an address-space limit (ulimit -v), each attempt in flight may hold its
// kept body twice (the reply's buffer, then the record), Qt's socket buffers, and
// a sixth of a network manager's thread (an 8 MiB stack): about 8 MiB of address
// space, measured. Fewer run at once than would exhaust it.
void fitConcurrencyToMemory(Core::Scenario &scenario, Console &console)
{
    const qint64 limit = Core::MemoryLimit::addressSpaceLimit();
    if (limit < 0)
        return;
    constexpr qint64 perAttempt = 8 * 1024 * 1024;
    const qint64 available = Core::MemoryLimit::available(); // reads /proc once
    const qint64 fit = Core::MemoryLimit::attemptsThatFit(available, perAttempt);
    if (scenario.concurrency <= fit)
        return;
    constexpr double mib = 1024.0 * 1024.0;
    console.error(
        Tr::tr("warning: %1 attempts in flight may take %2 MiB, more than half of the %3 MiB the "
               "address-space limit leaves (ulimit -v %4): running %5 at once instead")
            .arg(QString::number(scenario.concurrency),
                QString::number(double(perAttempt * scenario.concurrency) / mib, 'f', 0),
                QString::number(double(available) / mib, 'f', 0), QString::number(limit / 1024), QString::number(fit)));
    scenario.concurrency = int(fit);
}

struct Execution
{
    QString failure; ///< why the run could not start or go on; empty when it ran
    bool interrupted = false;
    bool outOfMemory = false; ///< the interruption was an allocation that failed
};

// Runs the scenario to its end, or until Ctrl+C has cancelled what still ran.
Execution execute(Core::ScenarioRunner &runner, Console &console, bool live)
{
    Execution execution;
    QEventLoop loop;
    QObject::connect(&runner, &Core::ScenarioRunner::started, &loop, [&](const QUrl &serverUrl) {
        if (live && serverUrl.isValid())
            console.print(Tr::tr("Embedded fault server on %1").arg(serverUrl.toString()));
    });
    QObject::connect(&runner, &Core::ScenarioRunner::finished, &loop, &QEventLoop::quit);
    QObject::connect(&runner, &Core::ScenarioRunner::failed, &loop, [&](const QString &message) {
        execution.failure = message;
        loop.quit();
    });
    InterruptWatcher interrupt;
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &runner, [&] {
        execution.interrupted = true;
        execution.outOfMemory = interrupt.outOfMemory();
        if (execution.outOfMemory) {
            console.error(Tr::tr("retrylab run: out of memory (ulimit -v); cancelling what still runs, and "
                                 "writing what was recorded"));
            // The handler that failed was abandoned halfway: an attempt it served may never end. What
            // was recorded is written after a few seconds whatever still waits.
            QTimer::singleShot(std::chrono::seconds(5), &loop, [&] {
                console.error(Tr::tr("retrylab run: requests still waited 5 s after the cancel; writing what "
                                     "was recorded without them"));
                loop.quit();
            });
        } else {
            console.error(
                Tr::tr("retrylab run: interrupted; cancelling what still runs (press Ctrl+C again to quit at once)"));
        }
        runner.cancel();
    });
    runner.start();
    loop.exec();
    return execution;
}

// The files the options ask for, then the exit status.
int finish(const RunCommand::Options &options, const Core::ScenarioRunner &runner, const Execution &execution,
    Console &console)
{
    const Core::Scenario &scenario = runner.scenario();
    const Core::RunRecord &run = runner.record();
    const QList<Core::ExpectationResult> &verdicts = runner.expectationResults();
    QStringList written;
    QStringList errors;
    options.shared.writeFiles(
        run, verdicts, {Core::JUnitExport::suiteFor(scenario.name, run, verdicts)}, &written, &errors);
    if (!options.shared.quiet)
        console.print(written);
    for (const QString &message : std::as_const(errors))
        console.error(Tr::tr("retrylab run: %1").arg(message));
    qCDebug(lcRun) << "finished with" << verdicts.size() << "verdicts";
    if (!errors.isEmpty())
        return ExitUsage;
    if (runner.timedOut()) {
        console.error(Tr::tr("retrylab run: %1: the scenario's time limit of %2 ms ran out before every request "
                             "finished; the run fails")
                          .arg(QDir::toNativeSeparators(options.scenarioPath))
                          .arg(scenario.timeoutMs));
        return ExitFailed;
    }
    if (execution.interrupted) {
        // Whatever the expectations say, requests were cancelled or never sent: the run did not do its work.
        console.error(execution.outOfMemory ? Tr::tr("retrylab run: ran out of memory; the run fails")
                                            : Tr::tr("retrylab run: interrupted; the run fails"));
        return ExitFailed;
    }
    return runner.allExpectationsHold() ? ExitOk : ExitFailed;
}

} // namespace

namespace RunCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Runs a scenario file: its requests under its retry policy, against the embedded fault server where "
               "the URLs say {server}. Prints each retry as it happens, then a summary and the expectation verdicts.\n"
               "Or runs a collection, request after request, as newman and bru run do, but with retries: a RetryLab "
               "collection, a Postman collection (v2.0, v2.1), a Bruno collection folder or a HAR file, with their "
               "pre-request and test scripts, assertions and variables. Each request is sent under its own policy, "
               "its folder's, its collection's, else --policy (default: one attempt); a request that passed only "
               "after retries is said so.\n"
               "Exit status: 0 when every expectation (every assertion and test) holds, 1 when one does not (or the "
               "run could not start), 2 for a usage error or a file that cannot be read or written."));
    parser.addPositionalArgument(QStringLiteral("file"),
        Tr::tr("The scenario file (JSON, format retrylab-scenario), or the collection file or Bruno folder."),
        Tr::tr("SCENARIO.json|COLLECTION"));
    const HeadlessOptions::Table shared(
        HeadlessOptions::Seed | HeadlessOptions::Quiet | HeadlessOptions::NoRedact | HeadlessOptions::ReportFiles,
        Tr::tr("Print only the expectation verdicts (a collection: only the requests that failed), not each retry "
               "and the summary."));
    parser.addOptions(shared.options());
    const QCommandLineOption insecureOption(QStringLiteral("insecure"),
        Tr::tr("Allow the requests whose transport ignores certificate errors (\"insecureHosts\"); without it such "
               "a scenario is refused. A collection: ignore certificate errors for every host it sends to."));
    parser.addOption(insecureOption);
    const QCommandLineOption env(QStringLiteral("env"),
        Tr::tr("Collections: a RetryLab environments file, a Postman environment, or the name of a Bruno "
               "collection's environment."),
        Tr::tr("FILE|NAME"));
    const QCommandLineOption envName(QStringLiteral("env-name"),
        Tr::tr("Collections: which environment of a RetryLab environments file (default: the one selected last)."),
        Tr::tr("NAME"));
    const QCommandLineOption globals(
        QStringLiteral("globals"), Tr::tr("Collections: a Postman globals file."), Tr::tr("FILE"));
    const QCommandLineOption var(QStringLiteral("var"),
        Tr::tr("Collections: a variable, over the environment's (repeatable)."), Tr::tr("NAME=VALUE"));
    const QCommandLineOption folder(QStringLiteral("folder"),
        Tr::tr("Collections: run only the requests of this folder, by name or path (repeatable)."), Tr::tr("NAME"));
    const QCommandLineOption iterations(QStringLiteral("iterations"),
        Tr::tr("Collections: run it N times (default: once, or once per row of --data)."), Tr::tr("N"));
    const QCommandLineOption data(QStringLiteral("data"),
        Tr::tr("Collections: a CSV or JSON file of rows, one iteration per row; its columns are variables."),
        Tr::tr("FILE"));
    const QCommandLineOption delay(
        QStringLiteral("delay-request"), Tr::tr("Collections: wait MS between two requests."), Tr::tr("MS"));
    const QCommandLineOption bail(QStringLiteral("bail"), Tr::tr("Collections: stop at the first request that fails."));
    const QCommandLineOption policy(QStringLiteral("policy"),
        Tr::tr("Collections: the policy of requests that have none of their own (a preset or a policy file; "
               "default: none, one attempt)."),
        Tr::tr("PRESET|FILE"));
    const QCommandLineOption timeoutRequest(QStringLiteral("timeout-request"),
        Tr::tr("Collections: each attempt's timeout, where a request sets none."), Tr::tr("MS"));
    const QCommandLineOption scriptTimeout(QStringLiteral("script-timeout"),
        Tr::tr("Collections: the longest one script may run (default: 5000)."), Tr::tr("MS"));
    const QList<const QCommandLineOption *> collectionOnly = {&env, &envName, &globals, &var, &folder, &iterations,
        &data, &delay, &bail, &policy, &timeoutRequest, &scriptTimeout};
    for (const QCommandLineOption *option : collectionOnly)
        parser.addOption(*option);

    if (const auto parsed = parseSubcommand(parser, arguments); !parsed)
        return Core::Result<Options>::failure(withHelpHint(command, parsed.error()));
    Options options;
    if (shared.helpRequested(parser)) {
        options.help = subcommandHelp(parser, Tr::tr("Usage: retrylab run [options] SCENARIO.json|COLLECTION"))
            + QLatin1Char('\n');
        return options;
    }
    auto values = shared.read(parser);
    if (!values)
        return Core::Result<Options>::failure(withHelpHint(command, values.error()));
    options.shared = std::move(values).value();
    options.insecure = parser.isSet(insecureOption);
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return Core::Result<Options>::failure(Tr::tr("name a scenario file or a collection; see retrylab run --help"));
    if (positional.size() > 1) {
        return Core::Result<Options>::failure(
            Tr::tr("unexpected argument \"%1\"; give one scenario file or collection").arg(positional.at(1)));
    }
    options.scenarioPath = positional.first();

    QStringList given;
    for (const QCommandLineOption *option : collectionOnly) {
        if (parser.isSet(*option))
            given.append(QStringLiteral("--") + option->names().constFirst());
    }
    if (!RunCollectionCommand::isCollection(options.scenarioPath)) {
        if (!given.isEmpty()) {
            return Core::Result<Options>::failure(Tr::tr("%1: only a collection takes %2; this is a scenario file")
                                                      .arg(options.scenarioPath, given.join(QStringLiteral(", "))));
        }
        return options;
    }
    RunCollectionCommand::Options collection;
    collection.collectionPath = options.scenarioPath;
    collection.shared = options.shared;
    collection.insecure = options.insecure;
    collection.given = given;
    collection.environment = parser.value(env);
    collection.environmentName = parser.value(envName);
    collection.globalsPath = parser.value(globals);
    collection.variables = parser.values(var);
    collection.folders = parser.values(folder);
    collection.dataPath = parser.value(data);
    collection.bail = parser.isSet(bail);
    collection.policy = parser.value(policy);
    const auto number = [&parser](const QCommandLineOption &option, qint64 low, qint64 high) -> std::optional<qint64> {
        bool ok = false;
        const qint64 value = parser.value(option).toLongLong(&ok);
        if (!ok || value < low || value > high)
            return std::nullopt;
        return value;
    };
    struct Bounded
    {
        const QCommandLineOption *option;
        qint64 low;
        qint64 high;
    };
    for (const Bounded &bounded : {Bounded{&iterations, 1, 1'000'000}, Bounded{&delay, 0, 3'600'000},
             Bounded{&timeoutRequest, 1, 3'600'000}, Bounded{&scriptTimeout, 1, 600'000}}) {
        if (parser.isSet(*bounded.option) && !number(*bounded.option, bounded.low, bounded.high)) {
            return Core::Result<Options>::failure(withHelpHint(command,
                Tr::tr("--%1: \"%2\" is not a whole number from %3 to %4")
                    .arg(bounded.option->names().constFirst(), parser.value(*bounded.option))
                    .arg(bounded.low)
                    .arg(bounded.high)));
        }
    }
    if (parser.isSet(iterations))
        collection.iterations = int(*number(iterations, 1, 1'000'000));
    if (parser.isSet(delay))
        collection.delayRequestMs = int(*number(delay, 0, 3'600'000));
    if (parser.isSet(timeoutRequest))
        collection.timeoutRequestMs = double(*number(timeoutRequest, 1, 3'600'000));
    if (parser.isSet(scriptTimeout))
        collection.scriptTimeoutMs = int(*number(scriptTimeout, 1, 600'000));
    options.collection = std::move(collection);
    return options;
}

int run(const Options &options)
{
    if (options.collection)
        return RunCollectionCommand::run(*options.collection);
    const bool redact = options.shared.redact;
    Console console(redact);
    Console::installMessageHandler(redact);
    if (!redact)
        console.error(HeadlessOptions::noRedactWarning());

    auto read = Core::ScenarioReader::readFile(options.scenarioPath);
    if (!read)
        return usageError(command, read.error(), UsageHint::None, redact);
    Core::Scenario scenario = std::move(read).value();
    const RunSeed seed(options.shared.seed, scenario.seed);
    scenario.seed = seed.value();
    if (const auto checked = checkTransports(scenario, options.insecure, console); !checked)
        return usageError(command, checked.error(), UsageHint::None, redact);
    if (const auto writable = options.shared.checkOutputFiles(); !writable)
        return usageError(command, writable.error(), UsageHint::None, redact);
    fitConcurrency(scenario, console);
    fitConcurrencyToMemory(scenario, console);

    const bool live = !options.shared.quiet;
    if (live) {
        console.print(
            Tr::tr("Scenario \"%1\" (%2): %n request(s)", nullptr, scenario.totalRequests())
                .arg(Core::TerminalText::escaped(scenario.name), QDir::toNativeSeparators(options.scenarioPath)));
        console.print(Tr::tr("Policy \"%1\" (%2), %3, %n attempt(s) in flight at most", nullptr, scenario.concurrency)
                          .arg(Core::TerminalText::escaped(scenario.policy.name), scenario.policyOrigin, seed.text()));
    }

    Core::ScenarioRunner runner;
    runner.setScenario(scenario);
    RunPrinter printer(&runner, &console, live);
    Execution execution = execute(runner, console, live);
    // A failed allocation after Ctrl+C, or one the watcher did not hear of, is one all the same.
    execution.outOfMemory = execution.outOfMemory || Core::MemoryLimit::exhausted();
    if (!execution.failure.isEmpty()) {
        console.error(
            Tr::tr("retrylab run: %1: %2").arg(QDir::toNativeSeparators(options.scenarioPath), execution.failure));
        return ExitFailed;
    }
    if (live)
        printer.printSummary();
    printer.printExpectations();
    const int code = finish(options, runner, execution, console);
    if (execution.outOfMemory) {
        // A handler abandoned halfway may have left the executor or Qt's network threads in a
        // state their destructors cannot undo: the files are written, the process ends here,
        // before the runner's destructor (CommandLine::exec does the same for other commands).
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(code);
    }
    return code;
}

} // namespace RunCommand

int runRun(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &RunCommand::parse, &RunCommand::run);
}

} // namespace RetryLab::Cli
