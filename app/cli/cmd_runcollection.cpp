#include "app/cli/cmd_runcollection.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/policyargument.h"
#include "app/cli/runseed.h"
#include "app/cli/subcommand.h"
#include "app/cli/texttable.h"

#include "core/collections/datarows.h"
#include "core/collections/environmentsjson.h"
#include "core/collections/requesttemplate.h"
#include "core/faultserver/faultserver.h"
#include "core/import/postmanimport.h"
#include "core/runner/collectionrunner.h"
#include "core/runner/collectionrunreport.h"
#include "core/runner/runcollectionreader.h"
#include "core/scenario/scenarioreader.h"
#include "core/util/terminaltext.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSet>

namespace {
Q_LOGGING_CATEGORY(lcRunCollection, "retrylab.cli.runcollection", QtInfoMsg)
} // namespace

namespace RetryLab::Cli::RunCollectionCommand {

namespace {

const QString command = QStringLiteral("run");

QString escaped(const QString &text)
{
    return Core::TerminalText::escaped(text);
}

/// --env: a Bruno collection's environment by name, a Postman environment file,
/// or a RetryLab environments file (its environment --env-name, else the one
/// selected last, else its only one).
Core::Result<void> loadEnvironment(
    const Options &options, const Core::RunCollection &collection, Core::ScriptScopes &scopes, QString *name)
{
    const QString &environment = options.environment;
    if (environment.isEmpty())
        return {};
    if (collection.format == Core::RunCollection::Format::Bruno && !QFileInfo(environment).isFile()) {
        QStringList names;
        for (const Core::RunEnvironment &candidate : collection.environments) {
            if (candidate.name == environment) {
                for (const auto &[key, value] : candidate.values)
                    scopes.environment.insert(key, value);
                *name = candidate.name;
                return {};
            }
            names.append(candidate.name);
        }
        return Core::Result<void>::failure(QStringLiteral("--env"),
            names.isEmpty() ? Tr::tr("the collection has no environment \"%1\", and no "
                                     "environments folder")
                                  .arg(environment)
                            : Tr::tr("the collection has no environment \"%1\" (it has: %2)")
                                  .arg(environment, names.join(QStringLiteral(", "))));
    }
    QFile file(environment);
    if (!file.open(QIODevice::ReadOnly))
        return Core::Result<void>::failure(environment, file.errorString());
    const QByteArray bytes = file.read(Core::PostmanImport::maxFileBytes + 1);
    const QJsonDocument document = QJsonDocument::fromJson(bytes);
    if (document.isObject() && document.object().contains(QStringLiteral("values"))) {
        const auto postman = Core::PostmanImport::readEnvironment(bytes);
        if (!postman)
            return Core::Result<void>::failure(environment, postman.error());
        for (const auto &[key, value] : postman->values)
            scopes.environment.insert(key, value);
        *name = postman->name;
        return {};
    }
    const auto read = Core::EnvironmentsJson::fromJson(bytes);
    if (!read) {
        return Core::Result<void>::failure(environment,
            Tr::tr("neither a Postman environment nor a RetryLab environments file: %1").arg(read.error()));
    }
    QString wanted = options.environmentName;
    if (wanted.isEmpty())
        wanted = !read->active.isEmpty()     ? read->active
            : read->environments.size() == 1 ? read->environments.constFirst().name
                                             : QString();
    const Core::Environment *chosen = read->find(wanted);
    if (!chosen) {
        QStringList names;
        for (const Core::Environment &candidate : read->environments)
            names.append(candidate.name);
        return Core::Result<void>::failure(environment,
            wanted.isEmpty()
                ? Tr::tr("it has several environments; name one with --env-name (%1)")
                      .arg(names.join(QStringLiteral(", ")))
                : Tr::tr("it has no environment \"%1\" (it has: %2)").arg(wanted, names.join(QStringLiteral(", "))));
    }
    const auto values = chosen->values();
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        scopes.environment.insert(it.key(), it.value());
    *name = chosen->name;
    return {};
}

Core::Result<void> loadGlobals(const QString &path, Core::ScriptScopes &scopes)
{
    if (path.isEmpty())
        return {};
    const auto globals = Core::PostmanImport::readEnvironmentFile(path);
    if (!globals)
        return Core::Result<void>::failure(path, globals.error());
    for (const auto &[key, value] : globals->values)
        scopes.globals.insert(key, value);
    return {};
}

/// --var NAME=VALUE, over the environment's values.
Core::Result<void> loadVariables(const QStringList &variables, Core::ScriptScopes &scopes)
{
    for (const QString &assignment : variables) {
        const qsizetype equals = assignment.indexOf(QLatin1Char('='));
        if (equals <= 0) {
            return Core::Result<void>::failure(
                QStringLiteral("--var"), Tr::tr("\"%1\" is not NAME=VALUE").arg(escaped(assignment)));
        }
        scopes.environment.insert(assignment.left(equals), assignment.mid(equals + 1));
    }
    return {};
}

bool usesServer(const QList<Core::RunItem> &items)
{
    return std::any_of(items.cbegin(), items.cend(), [](const Core::RunItem &item) {
        return item.isFolder() ? usesServer(item.items) : Core::RequestTemplate::usesServer(item.request);
    });
}

/// What happened to one request, as the run goes.
void printRequest(const Core::CollectionRequestRun &run, int iterations, Console &console)
{
    QString title = QStringLiteral("→ ") + escaped(run.path);
    if (iterations > 1)
        title += Tr::tr("  (iteration %1/%2)").arg(run.iteration + 1).arg(iterations);
    console.print(title);
    if (run.sent()) {
        console.print(
            QStringLiteral("  %1 %2 [%3, %4 ms]")
                .arg(QString::fromLatin1(run.spec.method), escaped(run.spec.url.toDisplayString()),
                    Core::CollectionRunReport::statusText(run), QString::number(run.result->totalMs(), 'f', 0)));
        if (run.passedAfterRetries())
            console.print(Tr::tr("  passed after retries: %n attempt(s) under %1", nullptr, run.result->attempts)
                              .arg(escaped(run.policyName)));
    } else {
        console.print(QStringLiteral("  [%1]").arg(Core::CollectionRunReport::statusText(run)));
    }
    for (const QString &line : run.console)
        console.print(QStringLiteral("  │ ") + escaped(line));
    for (const Core::AssertionResult &assertion : run.assertions) {
        console.print(assertion.passed
                ? QStringLiteral("  ✓ %1").arg(escaped(assertion.name))
                : QStringLiteral("  ✗ %1: %2").arg(escaped(assertion.name), escaped(assertion.message)));
    }
    for (const Core::ScriptTest &test : run.tests) {
        if (test.skipped)
            console.print(QStringLiteral("  - %1 (skipped)").arg(escaped(test.name)));
        else if (test.passed)
            console.print(QStringLiteral("  ✓ %1").arg(escaped(test.name)));
        else
            console.print(QStringLiteral("  ✗ %1: %2").arg(escaped(test.name), escaped(test.error)));
    }
    for (const QString &error : run.errors)
        console.print(QStringLiteral("  ✗ %1").arg(escaped(error)));
}

void printSummary(const Core::CollectionRunResult &result, Console &console)
{
    int attempts = 0;
    int sent = 0;
    int assertions = 0;
    int failedAssertions = 0;
    int tests = 0;
    int failedTests = 0;
    int skippedTests = 0;
    int errors = 0;
    for (const Core::CollectionRequestRun &run : result.requests) {
        sent += run.sent() ? 1 : 0;
        attempts += int(run.attempts.size());
        assertions += int(run.assertions.size());
        failedAssertions += run.failedAssertions();
        for (const Core::ScriptTest &test : run.tests) {
            ++tests;
            skippedTests += test.skipped ? 1 : 0;
        }
        failedTests += run.failedTests();
        errors += int(run.errors.size());
    }
    console.print();
    TextTable table({QString(), Tr::tr("executed"), Tr::tr("failed")});
    table.setRightAligned(1);
    table.setRightAligned(2);
    QSet<int> failedIterations;
    for (const Core::CollectionRequestRun &run : result.requests) {
        if (run.failed())
            failedIterations.insert(run.iteration);
    }
    table.addRow({Tr::tr("iterations"), QString::number(result.iterations), QString::number(failedIterations.size())});
    table.addRow({Tr::tr("requests"), QString::number(sent), QString::number(result.failedRequests())});
    table.addRow({Tr::tr("attempts"), QString::number(attempts), QString::number(attempts - sent)});
    table.addRow({Tr::tr("assertions"), QString::number(assertions), QString::number(failedAssertions)});
    table.addRow({Tr::tr("tests"), QString::number(tests - skippedTests), QString::number(failedTests)});
    table.addRow({Tr::tr("errors"), QString::number(errors), QString::number(errors)});
    console.print(table.lines());
    console.print(Tr::tr("%n request(s) passed after retries", nullptr, result.passedAfterRetries()));
    console.print(Tr::tr("Took %1 ms").arg(QString::number(result.durationMs, 'f', 0)));
    if (!result.stoppedEarly.isEmpty())
        console.print(Tr::tr("Stopped early: %1").arg(escaped(result.stoppedEarly)));
}

// The files the options ask for: the report and JUnit with one verdict per assertion, test
// and error (CollectionRunReport, as the window writes them), HAR and CSV of every attempt.
int writeFiles(const Options &options, const Core::CollectionRunResult &result, Console &console)
{
    QStringList written;
    QStringList errors;
    options.shared.writeFiles(result.record, Core::CollectionRunReport::allVerdicts(result),
        Core::CollectionRunReport::junitSuites(result), &written, &errors);
    if (!options.shared.quiet)
        console.print(written);
    for (const QString &message : std::as_const(errors))
        console.error(Tr::tr("retrylab run: %1").arg(message));
    return errors.isEmpty() ? ExitOk : ExitUsage;
}

} // namespace

bool isCollection(const QString &path)
{
    const QFileInfo info(path);
    if (info.isDir())
        return true;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false; // the scenario reader says what is wrong with it
    const QJsonDocument document = QJsonDocument::fromJson(file.read(Core::PostmanImport::maxFileBytes + 1));
    // RetryLab's own files say what they are in "format" (a scenario, a policy, a
    // report): the scenario reader names the one that is not a scenario. No
    // collection format has the key.
    return document.isObject() && !document.object().contains(QStringLiteral("format"));
}

int run(const Options &options)
{
    const bool redact = options.shared.redact;
    Console console(redact);
    Console::installMessageHandler(redact);
    if (!redact)
        console.error(HeadlessOptions::noRedactWarning());

    auto read = Core::RunCollectionReader::read(options.collectionPath);
    if (!read)
        return usageError(command, read.error(), UsageHint::None, redact);
    Core::RunCollection collection = std::move(read).value();

    Core::CollectionRunOptions runOptions;
    if (const auto unknown = collection.unknownFolders(options.folders); !unknown.isEmpty()) {
        return usageError(command,
            Tr::tr("--folder: the collection has no folder %1").arg(unknown.join(QStringLiteral(", "))),
            UsageHint::None, redact);
    }
    runOptions.folders = options.folders;
    for (const auto &loaded : {loadGlobals(options.globalsPath, runOptions.scopes),
             loadEnvironment(options, collection, runOptions.scopes, &runOptions.environmentName),
             loadVariables(options.variables, runOptions.scopes)}) {
        if (!loaded)
            return usageError(command, loaded.error(), UsageHint::None, redact);
    }
    if (!options.dataPath.isEmpty()) {
        const auto rows = Core::DataRows::readFile(options.dataPath);
        if (!rows) {
            return usageError(
                command, Tr::tr("--data %1: %2").arg(options.dataPath, rows.error()), UsageHint::None, redact);
        }
        if (rows->rows.isEmpty()) {
            return usageError(
                command, Tr::tr("--data %1: the file has no rows").arg(options.dataPath), UsageHint::None, redact);
        }
        runOptions.dataRows = rows->rows;
    }
    runOptions.iterations
        = options.iterations.value_or(runOptions.dataRows.isEmpty() ? 1 : int(runOptions.dataRows.size()));
    runOptions.delayRequestMs = options.delayRequestMs;
    runOptions.bail = options.bail;
    runOptions.attemptTimeoutMs = options.timeoutRequestMs;
    runOptions.insecure = options.insecure;
    runOptions.scriptTimeLimitMs = options.scriptTimeoutMs;
    if (!options.policy.isEmpty()) {
        const auto policy = resolvePolicy(options.policy);
        if (!policy)
            return usageError(command, Tr::tr("--policy: %1").arg(policy.error()), UsageHint::None, redact);
        runOptions.defaultPolicy = policy->policy;
        runOptions.defaultPolicyName = policy->policy.name;
    }
    if (const auto writable = options.shared.checkOutputFiles(); !writable)
        return usageError(command, writable.error(), UsageHint::None, redact);
    const RunSeed seed(options.shared.seed);
    runOptions.seed = seed.value();

    std::unique_ptr<Core::FaultServer> server;
    if (usesServer(collection.items)) {
        Core::FaultServerOptions serverOptions;
        serverOptions.seed = seed.value();
        server = std::make_unique<Core::FaultServer>(serverOptions);
        if (!server->listen()) {
            console.error(
                Tr::tr("retrylab run: the embedded fault server cannot listen: %1").arg(server->errorString()));
            return ExitFailed;
        }
        runOptions.serverUrl = server->baseUrl();
    }

    const bool live = !options.shared.quiet;
    Core::CollectionRunner runner(collection, runOptions);
    if (live) {
        console.print(Tr::tr("%1 \"%2\" (%3): %n request(s)", nullptr, int(runner.selection().size()))
                          .arg(Core::RunCollection::formatName(collection.format), escaped(collection.name),
                              QDir::toNativeSeparators(options.collectionPath)));
        console.print(Tr::tr("Default policy %1, %2").arg(escaped(runOptions.defaultPolicyName), seed.text()));
        if (server)
            console.print(Tr::tr("Embedded fault server on %1").arg(runOptions.serverUrl.toString()));
        for (const QString &ignored : std::as_const(collection.ignored))
            console.error(Tr::tr("note: not used: %1").arg(escaped(ignored)));
    }
    QObject::connect(
        &runner, &Core::CollectionRunner::requestFinished, &runner, [&](const Core::CollectionRequestRun &run) {
            if (live || run.failed())
                printRequest(run, runOptions.iterations, console);
        });
    QEventLoop loop;
    QObject::connect(&runner, &Core::CollectionRunner::finished, &loop, &QEventLoop::quit);
    bool interrupted = false;
    InterruptWatcher interrupt;
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &runner, [&] {
        interrupted = true;
        console.error(Tr::tr("retrylab run: interrupted; stopping after the request in flight"));
        runner.stop();
    });
    runner.start();
    loop.exec();

    const Core::CollectionRunResult &result = runner.result();
    printSummary(result, console);
    qCDebug(lcRunCollection) << "ran" << result.requests.size() << "requests";
    const int written = writeFiles(options, result, console);
    if (written != ExitOk)
        return written;
    if (interrupted) {
        console.error(Tr::tr("retrylab run: interrupted; the run fails"));
        return ExitFailed;
    }
    return result.passed() ? ExitOk : ExitFailed;
}

} // namespace RetryLab::Cli::RunCollectionCommand
