#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/headlessoptions.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/runprinter.h"
#include "app/cli/subcommand.h"

#include "app/cli/clitr.h"
#include "core/executor/preparedtransport.h"
#include "core/scenario/scenarioreader.h"
#include "core/scenario/scenariorunner.h"
#include "core/util/descriptorlimit.h"
#include "core/util/terminaltext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QLoggingCategory>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcRun, "retrylab.cli.run", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

int usageError(Console &console, const QString &message)
{
    console.error(Tr::tr("retrylab run: %1").arg(message));
    return ExitUsage;
}

} // namespace

int runRun(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Runs a scenario file: its requests under its retry policy, against the embedded fault server where "
               "the URLs say {server}. Prints each retry as it happens, then a summary and the expectation verdicts.\n"
               "Exit status: 0 when every expectation holds, 1 when one does not (or the run could not start), 2 for "
               "a usage error or a file that cannot be read or written."));
    parser.addPositionalArgument(QStringLiteral("scenario"),
        Tr::tr("The scenario file (JSON, format retrylab-scenario)."), Tr::tr("SCENARIO.json"));
    HeadlessOptions options(parser,
        HeadlessOptions::Seed | HeadlessOptions::Quiet | HeadlessOptions::NoRedact | HeadlessOptions::ReportFiles,
        Tr::tr("Print only the expectation verdicts, not each retry and the summary."));
    const QCommandLineOption insecureOption(QStringLiteral("insecure"),
        Tr::tr("Allow the requests whose transport ignores certificate errors (\"insecureHosts\"); without it such "
               "a scenario is refused."));
    parser.addOption(insecureOption);

    Console usage;
    if (const auto parsed = options.parse(parser, arguments); !parsed)
        return usageError(usage, Tr::tr("%1; see retrylab run --help").arg(parsed.error()));
    if (options.helpRequested()) {
        Console(false).print(subcommandHelp(parser, Tr::tr("Usage: retrylab run [options] SCENARIO.json")));
        return ExitOk;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(usage, Tr::tr("name a scenario file; see retrylab run --help"));
    if (positional.size() > 1)
        return usageError(usage, Tr::tr("unexpected argument \"%1\"; give one scenario file").arg(positional.at(1)));

    Console console(options.redact());
    Console::installMessageHandler(options.redact());
    if (!options.redact())
        console.error(HeadlessOptions::noRedactWarning());

    auto scenario = Core::ScenarioReader::readFile(positional.first());
    if (!scenario)
        return usageError(console, scenario.error());
    scenario.value().seed = options.runSeed(scenario.value().seed);
    // Certificate checks prove who the server is: a scenario that switches
    // them off runs only when the command line says so too.
    QStringList insecure;
    for (const Core::ScenarioRequest &request : std::as_const(scenario.value().requests)) {
        if (const auto prepared = Core::PreparedTransport::prepare(request.spec.transport); !prepared)
            return usageError(
                console, Tr::tr("request \"%1\": %2").arg(Core::TerminalText::escaped(request.name), prepared.error()));
        if (!request.spec.transport.insecureHosts.isEmpty()) {
            insecure.append(Tr::tr("\"%1\" (%2)")
                                .arg(Core::TerminalText::escaped(request.name),
                                    request.spec.transport.insecureHosts.join(QStringLiteral(", "))));
        }
    }
    if (!insecure.isEmpty() && !parser.isSet(insecureOption)) {
        return usageError(console,
            Tr::tr("the scenario ignores certificate errors for %1; give --insecure to allow that: without the "
                   "checks nothing proves who the server is")
                .arg(insecure.join(QStringLiteral(", "))));
    }
    if (!insecure.isEmpty()) {
        console.error(Tr::tr("warning: --insecure: certificate errors are ignored for %1, and every export says so")
                          .arg(insecure.join(QStringLiteral(", "))));
    }
    if (const auto writable = options.checkOutputFiles(); !writable)
        return usageError(console, writable.error());

    // Each attempt in flight holds a descriptor, another on the embedded
    // server's side when the scenario uses it, and the network managers it is
    // spread over have their own: about three each. More than the descriptors
    // allow would fail requests for the tool's own reason, so fewer run at once.
    constexpr qint64 descriptorsPerAttempt = 3;
    const qint64 fit = std::max<qint64>(1, Core::DescriptorLimit::available() / descriptorsPerAttempt);
    if (scenario.value().concurrency > fit) {
        const Core::DescriptorLimit::Limits limits = Core::DescriptorLimit::current();
        console.error(Tr::tr("warning: %1 attempts in flight need about %2 file descriptors, but the limit is %3 "
                             "(at most %4, raise it with ulimit -n): running %5 at once instead")
                          .arg(QString::number(scenario.value().concurrency),
                              QString::number(descriptorsPerAttempt * qint64(scenario.value().concurrency)
                                  + Core::DescriptorLimit::reserve),
                              QString::number(limits.soft), QString::number(limits.hard), QString::number(fit)));
        scenario.value().concurrency = int(fit);
    }

    const Core::Scenario &s = scenario.value();
    const bool live = !options.quiet();
    if (live) {
        console.print(Tr::tr("Scenario \"%1\" (%2): %n request(s)", nullptr, s.totalRequests())
                          .arg(Core::TerminalText::escaped(s.name), QDir::toNativeSeparators(positional.first())));
        console.print(Tr::tr("Policy \"%1\" (%2), %3, %n attempt(s) in flight at most", nullptr, s.concurrency)
                          .arg(Core::TerminalText::escaped(s.policy.name), s.policyOrigin, options.seedText(*s.seed)));
    }

    Core::ScenarioRunner runner;
    runner.setScenario(s);
    RunPrinter printer(&runner, &console, live);
    QEventLoop loop;
    QString failure;
    QObject::connect(&runner, &Core::ScenarioRunner::started, &loop, [&](const QUrl &serverUrl) {
        if (live && serverUrl.isValid())
            console.print(Tr::tr("Embedded fault server on %1").arg(serverUrl.toString()));
    });
    QObject::connect(&runner, &Core::ScenarioRunner::finished, &loop, &QEventLoop::quit);
    QObject::connect(&runner, &Core::ScenarioRunner::failed, &loop, [&](const QString &message) {
        failure = message;
        loop.quit();
    });
    InterruptWatcher interrupt;
    bool interrupted = false;
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &runner, [&] {
        interrupted = true;
        console.error(
            Tr::tr("retrylab run: interrupted; cancelling what still runs (press Ctrl+C again to quit at once)"));
        runner.cancel();
    });
    runner.start();
    loop.exec();

    if (!failure.isEmpty()) {
        console.error(Tr::tr("retrylab run: %1: %2").arg(QDir::toNativeSeparators(positional.first()), failure));
        return ExitFailed;
    }
    if (live)
        printer.printSummary();
    printer.printExpectations();

    const Core::RunRecord &run = runner.record();
    const QList<Core::ExpectationResult> &verdicts = runner.expectationResults();
    QStringList written;
    QStringList errors;
    options.writeFiles(run, verdicts, {Core::JUnitExport::suiteFor(s.name, run, verdicts)}, &written, &errors);
    if (live)
        console.print(written);
    for (const QString &message : std::as_const(errors))
        console.error(Tr::tr("retrylab run: %1").arg(message));
    qCDebug(lcRun) << "finished with" << verdicts.size() << "verdicts";
    if (!errors.isEmpty())
        return ExitUsage;
    if (runner.timedOut()) {
        console.error(Tr::tr("retrylab run: %1: the scenario's time limit of %2 ms ran out before every request "
                             "finished; the run fails")
                          .arg(QDir::toNativeSeparators(positional.first()))
                          .arg(s.timeoutMs));
        return ExitFailed;
    }
    if (interrupted) {
        // Whatever the expectations say, requests were cancelled or never sent: the run did not do its work.
        console.error(Tr::tr("retrylab run: interrupted; the run fails"));
        return ExitFailed;
    }
    return runner.allExpectationsHold() ? ExitOk : ExitFailed;
}

} // namespace RetryLab::Cli
