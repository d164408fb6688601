#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/headlessoptions.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/runprinter.h"
#include "app/cli/savedrequest.h"
#include "app/cli/subcommand.h"

#include "app/cli/clitr.h"
#include "core/executor/preparedtransport.h"
#include "core/executor/requestcheck.h"
#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/http/redactor.h"
#include "core/import/curlcommandline.h"
#include "core/policy/policyfields.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/scenario/scenariorunner.h"
#include "core/util/exportfile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <unistd.h>

namespace {
Q_LOGGING_CATEGORY(lcRequest, "retrylab.cli.request", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

const QString defaultPolicy = QStringLiteral("google-cloud-storage");

int usageError(Console &console, const QString &message)
{
    console.error(Tr::tr("retrylab request: %1").arg(message));
    return ExitUsage;
}

// Bytes a terminal should not be sent: NUL, control characters other than
// tab, line ends and form feed (escape sequences included), text that is not UTF-8.
bool looksBinary(const QByteArray &body)
{
    for (char c : body) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || u == 0x7f)
            return true;
    }
    return QString::fromUtf8(body).toUtf8() != body;
}

void writeStandardOutput(const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

Core::Result<QByteArray> readStandardInput()
{
    QFile in;
    if (!in.open(stdin, QIODevice::ReadOnly))
        return Core::Result<QByteArray>::failure(Tr::tr("cannot read standard input: %1").arg(in.errorString()));
    return in.readAll();
}

QString sizeText(qint64 bytes)
{
    if (bytes < 1024)
        return Tr::tr("%n byte(s)", nullptr, int(bytes));
    if (bytes < 1024 * 1024)
        return Tr::tr("%1 KiB").arg(double(bytes) / 1024.0, 0, 'f', 1);
    return Tr::tr("%1 MiB").arg(double(bytes) / (1024.0 * 1024.0), 0, 'f', 1);
}

struct ChosenPolicy
{
    Core::BackoffPolicy policy;
    QString origin; ///< "preset google-cloud-storage" or the file
    QStringList changes; ///< "--retry 3: at most 4 attempts"
    QHash<QString, QString> optionOf; ///< policy field -> the option that set it
};

Core::Result<ChosenPolicy> choosePolicy(const QString &text)
{
    ChosenPolicy chosen;
    if (QFileInfo(text).isFile()) {
        auto policy = Core::PolicyJson::readFile(text);
        if (!policy)
            return Core::Result<ChosenPolicy>::failure(Tr::tr("--policy %1").arg(policy.error()));
        chosen.policy = std::move(policy).value();
        chosen.origin = QDir::toNativeSeparators(text);
        return chosen;
    }
    if (const auto preset = Core::Presets::find(text)) {
        chosen.policy = *preset;
        chosen.origin = Tr::tr("preset %1").arg(text);
        return chosen;
    }
    return Core::Result<ChosenPolicy>::failure(
        Tr::tr("--policy \"%1\" is neither a policy file nor a preset (presets: %2)")
            .arg(text, Core::Presets::ids().join(QStringLiteral(", "))));
}

// --retry-max-attempts and friends over whatever the policy and the curl options said:
// --retry-NAME sets the policy field whose option is NAME.
Core::Result<void> applyOverrides(
    const QCommandLineParser &parser, const QList<QCommandLineOption> &overrides, ChosenPolicy &chosen)
{
    for (const QCommandLineOption &option : overrides) {
        if (!parser.isSet(option))
            continue;
        const QString name = option.names().constFirst();
        const QLatin1String prefix("retry-");
        Q_ASSERT(name.startsWith(prefix));
        const Core::PolicyField *field = Core::policyFieldForOption(name.sliced(prefix.size()));
        Q_ASSERT(field && field->access.setNumber);
        const QString text = parser.value(option);
        bool ok = false;
        const double value = text.toDouble(&ok);
        if (!ok || !std::isfinite(value) || value < 0.0) {
            return Core::Result<void>::failure(
                Tr::tr("--%1 takes a number of %2, not \"%3\"")
                    .arg(name,
                        field->unit == Core::PolicyField::Unit::Attempts ? Tr::tr("attempts") : Tr::tr("milliseconds"),
                        text));
        }
        if (field->type == Core::PolicyField::Type::WholeNumber && (value != std::floor(value) || value > field->max)) {
            return Core::Result<void>::failure(Tr::tr("--%1 takes a whole number from %2 to %3, not \"%4\"")
                                                   .arg(name)
                                                   .arg(field->min)
                                                   .arg(field->max)
                                                   .arg(text));
        }
        field->setNumber(chosen.policy, value);
        chosen.optionOf.insert(field->name(), QStringLiteral("--%1 %2").arg(name, text));
        chosen.changes.append(QStringLiteral("--%1 %2").arg(name, text));
    }
    return {};
}

QString helpText(const QCommandLineParser &parser)
{
    QString help = subcommandHelp(parser,
        Tr::tr("Usage: retrylab request [options] [curl options] URL\n"
               "       retrylab request [options] --from-curl 'curl ...'\n"
               "       retrylab request [options] --collection FILE --request NAME [--env FILE]"));
    help
        += Tr::tr("\nRequest options, read as curl reads them (clusters such as -sSL, values attached as in -XPUT):\n");
    // Two columns as QCommandLineParser's own help has them, the descriptions wrapped at 80 characters.
    constexpr int column = 34;
    constexpr int width = 80;
    const QString indent(column, QLatin1Char(' '));
    for (const Core::CurlCommandLine::OptionHelp &o : Core::CurlCommandLine::supportedOptions()) {
        QString names = QStringLiteral("  ") + o.names;
        if (!o.valueName.isEmpty())
            names += QLatin1Char(' ') + o.valueName;
        QString text = names.size() < column ? names.leftJustified(column) : names + QLatin1Char('\n') + indent;
        qsizetype used = column;
        for (const QString &word : o.description.split(QLatin1Char(' '))) {
            if (used > column && used + 1 + word.size() > width) {
                text += QLatin1Char('\n') + indent;
                used = column;
            } else if (used > column) {
                text += QLatin1Char(' ');
                ++used;
            }
            text += word;
            used += word.size();
        }
        help += text + QLatin1Char('\n');
    }
    help += Tr::tr("Other curl options are refused when given here, and listed when they come with --from-curl;\n"
                   "-s, -S, -v, --compressed and other options that only change curl's own output are accepted\n"
                   "and have no effect.\n");
    help += Tr::tr(
        "\nA saved request (--collection FILE --request NAME): FILE is a collection as the window writes it,\n"
        "one of the JSON files of its collections folder; NAME is a request's name, or its path with its\n"
        "folders (\"Orders/Create\") when the name is not unique. {{name}} takes its value from --env FILE,\n"
        "the environments file the window writes (environments.json): from the environment selected last\n"
        "in the window, the file's only one, or the one --env-name names. {server} stands for a fault\n"
        "server started for the request and {id} for a new key, as in the window. The policy, seed and\n"
        "connection saved with the request apply; --policy, --retry-*, --seed, --idempotent, --fallback\n"
        "and --insecure given here go over them. No URL or curl option goes with --collection; without\n"
        "it, --request is curl's -X.\n");
    return help;
}

// The policy saved with a request of a collection, when --policy does not name another.
Core::Result<ChosenPolicy> chooseSavedPolicy(const SavedRequest &saved)
{
    auto policy = saved.policy();
    if (!policy)
        return Core::Result<ChosenPolicy>(policy.errorDetail());
    ChosenPolicy chosen;
    chosen.policy = std::move(policy).value();
    chosen.origin = saved.policyOrigin();
    return chosen;
}

} // namespace

int runRequest(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Sends one request, as curl would, under a retry policy: prints each retry as it happens, then the "
               "response (the status line, the headers with -i, and the body on standard output). The attempts and "
               "messages go to standard error, so that the body can be piped. The request may also be one saved in "
               "a collection (--collection).\n"
               "Exit status: 0 when the request succeeded, 1 when it failed for good, 2 for a usage error or a file "
               "that cannot be read or written."));
    const QCommandLineOption policyOption(QStringLiteral("policy"),
        Tr::tr("The retry policy: a preset id or name, or a policy JSON file (default: %1).").arg(defaultPolicy),
        Tr::tr("ID|FILE"));
    const QList<QCommandLineOption> overrides{
        {QStringLiteral("retry-max-attempts"), Tr::tr("Attempts in all, the first included (0: the deadline ends it)."),
            Tr::tr("N")},
        {QStringLiteral("retry-base-ms"), Tr::tr("The policy's base delay."), Tr::tr("MS")},
        {QStringLiteral("retry-cap-ms"), Tr::tr("The policy's longest delay."), Tr::tr("MS")},
        {QStringLiteral("retry-deadline-ms"), Tr::tr("The policy's total deadline (0: none)."), Tr::tr("MS")},
    };
    const QCommandLineOption includeOption({QStringLiteral("i"), QStringLiteral("include")},
        Tr::tr("Print the response's status line and headers before the body, on standard output."));
    const QCommandLineOption outputOption({QStringLiteral("o"), QStringLiteral("output")},
        Tr::tr("Write the body, byte for byte, to FILE instead of standard output."), Tr::tr("FILE"));
    const QCommandLineOption fromCurlOption(QStringLiteral("from-curl"),
        Tr::tr("A whole curl command line, as one argument (quote it); it replaces the request options."),
        Tr::tr("'curl ...'"));
    const QCommandLineOption insecureOption(QStringLiteral("insecure"),
        Tr::tr("Ignore certificate errors for the URL's host. Needed, spelt out, for a -k or --insecure in the curl "
               "options or in --from-curl."));
    const QCommandLineOption maxBodyOption(QStringLiteral("max-body"),
        Tr::tr("The most of a response body kept, in bytes, from %1 to %2 (default: %3, with -o %2). A longer body "
               "is cut: shown with a warning, and not written by -o.")
            .arg(Core::RetryExecutor::minResponseBodyLimit)
            .arg(Core::RetryExecutor::maxResponseBodyLimit)
            .arg(Core::RetryExecutor::defaultResponseBodyLimit),
        Tr::tr("BYTES"));
    const QCommandLineOption idempotentOption(QStringLiteral("idempotent"),
        Tr::tr("The request is safe to repeat: retry a POST or PATCH too (curl retries every method)."));
    const QCommandLineOption fallbackOption(QStringLiteral("fallback"),
        Tr::tr("An alternative service, tried once the policy gives up on the URL: one attempt, without backoff. "
               "Give it again for more (at most %1), tried in order.")
            .arg(Core::maxFallbacks),
        Tr::tr("URL"));
    parser.addOption(policyOption);
    parser.addOptions(overrides);
    parser.addOptions(
        {includeOption, outputOption, fromCurlOption, insecureOption, maxBodyOption, idempotentOption, fallbackOption});
    HeadlessOptions options(parser,
        HeadlessOptions::Seed | HeadlessOptions::Quiet | HeadlessOptions::NoRedact | HeadlessOptions::ReportFiles,
        Tr::tr("Print only the response and errors, not each retry, notes and the files written."));
    const QCommandLineOption collectionOption(QStringLiteral("collection"),
        Tr::tr("Send a request saved in a RetryLab collection file instead of a URL and curl options: the one "
               "--request names (see below)."),
        Tr::tr("FILE"));
    const QCommandLineOption savedRequestOption(QStringLiteral("request"),
        Tr::tr("With --collection: the saved request's name, or its \"Folder/Name\" path. Without --collection, "
               "--request is curl's -X."),
        Tr::tr("NAME"));
    const QCommandLineOption environmentOption(QStringLiteral("env"),
        Tr::tr("With --collection: the environments file (the window's environments.json) whose variables fill in "
               "the request's {{name}}."),
        Tr::tr("FILE"));
    const QCommandLineOption environmentNameOption(QStringLiteral("env-name"),
        Tr::tr("With --env: the environment to use (default: the one selected last in the window, or the file's "
               "only one)."),
        Tr::tr("NAME"));
    parser.addOptions({collectionOption, savedRequestOption, environmentOption, environmentNameOption});

    // retrylab's own options stand among curl's: they are taken out first, by
    // the same reading of the arguments the request options get.
    QList<Core::CurlCommandLine::ExtraOption> ownOptions;
    for (const QCommandLineOption *o : {&policyOption, &includeOption, &outputOption, &fromCurlOption, &insecureOption,
             &maxBodyOption, &idempotentOption, &fallbackOption})
        ownOptions.append({o->names(), !o->valueName().isEmpty()});
    for (const QCommandLineOption &o : overrides)
        ownOptions.append({o.names(), true});
    // HeadlessOptions' names (it adds them to the parser, and checks them there).
    ownOptions.append({{QStringLiteral("h"), QStringLiteral("help")}, false});
    ownOptions.append({{QStringLiteral("q"), QStringLiteral("quiet")}, false});
    ownOptions.append({{QStringLiteral("no-redact")}, false});
    for (const char *name : {"seed", "report", "har", "csv", "junit"})
        ownOptions.append({{QLatin1String(name)}, true});
    for (const QCommandLineOption *o : {&collectionOption, &environmentOption, &environmentNameOption})
        ownOptions.append({o->names(), true});

    Console usage;
    const QStringList requestArguments = arguments.mid(2);
    auto separated = Core::CurlCommandLine::separate(requestArguments, ownOptions);
    if (!separated)
        return usageError(usage, Tr::tr("%1; see retrylab request --help").arg(separated.error()));
    // --request is curl's -X, unless a collection is named: then it names the saved request.
    const bool fromCollection = std::any_of(separated->extraArguments.cbegin(), separated->extraArguments.cend(),
        [](const QString &argument) { return argument.startsWith(QLatin1String("--collection=")); });
    if (fromCollection) {
        ownOptions.append({savedRequestOption.names(), true});
        separated = Core::CurlCommandLine::separate(requestArguments, ownOptions);
        if (!separated)
            return usageError(usage, Tr::tr("%1; see retrylab request --help").arg(separated.error()));
    }
    if (const auto parsed
        = options.parse(parser, QStringList{arguments.value(0), arguments.value(1)} + separated->extraArguments);
        !parsed) {
        return usageError(usage, Tr::tr("%1; see retrylab request --help").arg(parsed.error()));
    }
    if (options.helpRequested()) {
        Console(false).print(helpText(parser));
        return ExitOk;
    }
    for (const QCommandLineOption *single : {&policyOption, &outputOption, &fromCurlOption, &maxBodyOption,
             &collectionOption, &savedRequestOption, &environmentOption, &environmentNameOption}) {
        if (parser.values(*single).size() > 1)
            return usageError(usage, Tr::tr("--%1 is given more than once").arg(single->names().constLast()));
    }

    Console console(options.redact(), Console::PrintTo::StandardError);
    Console::installMessageHandler(options.redact());
    if (!options.redact())
        console.error(HeadlessOptions::noRedactWarning());
    const bool live = !options.quiet();

    // The request: the curl options given here, a whole curl command, or a
    // request saved in a collection.
    Core::CurlCommandLine::Options readOptions;
    readOptions.standardInput = &readStandardInput;
    const bool fromCurl = parser.isSet(fromCurlOption);
    Core::Result<Core::ImportedRequest> imported = Core::Error{};
    std::optional<SavedRequest> saved;
    // {server} of a saved request: an embedded fault server of this run's own, as the window has one.
    std::unique_ptr<Core::FaultServer> embeddedServer;
    if (!fromCollection && (parser.isSet(environmentOption) || parser.isSet(environmentNameOption))) {
        return usageError(console,
            Tr::tr("--env and --env-name fill in a saved request's variables: give --collection FILE and --request "
                   "NAME too"));
    }
    if (fromCollection) {
        if (fromCurl || separated->hasRequestArguments) {
            return usageError(console,
                Tr::tr("--collection takes the request from the file: give no URL, curl options or --from-curl with "
                       "it (the other options here are retrylab's own)"));
        }
        auto loaded = SavedRequest::load({parser.value(collectionOption), parser.value(savedRequestOption),
            parser.value(environmentOption), parser.value(environmentNameOption)});
        if (!loaded)
            return usageError(console, loaded.error());
        saved = std::move(loaded).value();
        QUrl serverUrl;
        if (saved->needsServer()) {
            Core::FaultServerOptions serverOptions;
            serverOptions.seed = options.runSeed(saved->seed());
            embeddedServer = std::make_unique<Core::FaultServer>(serverOptions);
            if (!embeddedServer->listen()) {
                console.error(Tr::tr("retrylab request: the embedded fault server cannot listen: %1")
                                  .arg(embeddedServer->errorString()));
                return ExitFailed;
            }
            serverUrl = embeddedServer->baseUrl();
        }
        auto spec = saved->build(serverUrl);
        if (!spec)
            return usageError(console, spec.error());
        Core::ImportedRequest fromFile;
        fromFile.spec = std::move(spec).value();
        fromFile.notes.append(Tr::tr("sending %1").arg(saved->description()));
        imported = std::move(fromFile);
    } else if (fromCurl) {
        if (separated->hasRequestArguments) {
            return usageError(console,
                Tr::tr("--from-curl takes the whole request: put the URL and the curl options inside it (the other "
                       "options here are retrylab's own)"));
        }
        imported = Core::CurlCommandLine::parse(parser.value(fromCurlOption), readOptions);
        if (!imported)
            return usageError(console, Tr::tr("--from-curl: %1").arg(imported.error()));
    } else {
        readOptions.extraOptions = ownOptions;
        imported = Core::CurlCommandLine::parseArguments(requestArguments, readOptions);
        if (!imported)
            return usageError(console, Tr::tr("%1; see retrylab request --help").arg(imported.error()));
    }
    Core::ImportedRequest &request = imported.value();
    if (!fromCurl && !request.unknown.isEmpty()) {
        return usageError(console,
            Tr::tr("unknown option %1 (retrylab request takes the curl options its --help "
                   "lists); see retrylab request --help")
                .arg(request.unknown.constFirst()));
    }
    for (const QString &unknown : std::as_const(request.unknown))
        console.error(Tr::tr("warning: the curl command's %1 is not supported and has no effect").arg(unknown));

    // Certificate checks are what prove the server is the one named in the
    // URL; they are switched off only by the long option, spelt out here.
    Core::RequestSpec &spec = request.spec;
    const QString host = spec.url.host();
    if (parser.isSet(insecureOption)) {
        spec.transport.insecureHosts = QStringList{host};
    } else if (!spec.transport.insecureHosts.isEmpty()) {
        return usageError(console,
            fromCurl ? Tr::tr("the curl command turns certificate checks off for %1 (-k/--insecure); give --insecure "
                              "to retrylab request as well to allow that: without the checks nothing proves that the "
                              "server is %1")
                           .arg(host)
                     : Tr::tr("-k would turn certificate checks off for %1; retrylab request takes only the long "
                              "--insecure for that, so that the checks that prove the server is %1 are never "
                              "switched off by one letter")
                           .arg(host));
    }
    if (parser.isSet(idempotentOption))
        spec.idempotent = true;
    // Checked with the request below (checkRequest), the fallback named in the error.
    for (const QString &fallback : parser.values(fallbackOption))
        spec.fallbackUrls.append(QUrl::fromUserInput(fallback));
    if (!spec.fallbackUrls.isEmpty()) {
        if (const auto usable = Core::checkRequest(spec); !usable)
            return usageError(console, usable.error());
    }
    spec.label = QStringLiteral("request");

    // The policy: --policy (else a saved request's own), then curl's retry
    // options, then retrylab's overrides.
    auto chosen = saved && !parser.isSet(policyOption)
        ? chooseSavedPolicy(*saved)
        : choosePolicy(parser.isSet(policyOption) ? parser.value(policyOption) : defaultPolicy);
    if (!chosen)
        return usageError(console, chosen.error());
    ChosenPolicy &policy = chosen.value();
    for (const Core::CurlCommandLine::PolicyChange &change :
        Core::CurlCommandLine::applyRetryHints(request.retry, policy.policy)) {
        policy.optionOf.insert(change.field, change.option);
        policy.changes.append(Tr::tr("%1: %2").arg(change.option, change.description));
    }
    if (const auto overridden = applyOverrides(parser, overrides, policy); !overridden)
        return usageError(console, overridden.error());
    const QList<Core::PolicyIssue> issues = Core::validatePolicy(policy.policy);
    for (const Core::PolicyIssue &issue : issues) {
        if (!issue.isError())
            continue;
        const QString source = policy.optionOf.value(issue.field);
        return usageError(console,
            source.isEmpty()
                ? Tr::tr("the policy (%1) cannot be used: %2: %3").arg(policy.origin, issue.field, issue.message)
                : Tr::tr("%1: the policy cannot be used: %2: %3").arg(source, issue.field, issue.message));
    }

    // Files: -o and the exports, checked before anything is sent.
    QString outputPath = parser.value(outputOption);
    if (outputPath == QLatin1String("-"))
        outputPath.clear();
    if (parser.isSet(outputOption) && parser.value(outputOption).isEmpty())
        return usageError(console, Tr::tr("-o needs a file name"));
    if (!outputPath.isEmpty()) {
        if (const auto writable = Core::ExportFile::checkWritable(outputPath); !writable) {
            return usageError(console,
                Tr::tr("-o %1: cannot write there: %2").arg(QDir::toNativeSeparators(outputPath), writable.error()));
        }
        for (const QString &other : {options.reportPath(), options.harPath(), options.csvPath(), options.junitPath()}) {
            if (!other.isEmpty() && QFileInfo(other).absoluteFilePath() == QFileInfo(outputPath).absoluteFilePath())
                return usageError(console, Tr::tr("-o names a file that another option writes too: %1").arg(other));
        }
    }
    if (const auto writable = options.checkOutputFiles(); !writable)
        return usageError(console, writable.error());
    qint64 bodyLimit = outputPath.isEmpty() ? Core::RetryExecutor::defaultResponseBodyLimit
                                            : Core::RetryExecutor::maxResponseBodyLimit;
    if (parser.isSet(maxBodyOption)) {
        bool ok = false;
        bodyLimit = parser.value(maxBodyOption).toLongLong(&ok);
        if (!ok || bodyLimit < Core::RetryExecutor::minResponseBodyLimit
            || bodyLimit > Core::RetryExecutor::maxResponseBodyLimit) {
            return usageError(console,
                Tr::tr("--max-body takes a number of bytes from %1 to %2, not \"%3\"")
                    .arg(Core::RetryExecutor::minResponseBodyLimit)
                    .arg(Core::RetryExecutor::maxResponseBodyLimit)
                    .arg(parser.value(maxBodyOption)));
        }
    }

    // The certificate and key files are read now, so that a missing file or a
    // wrong passphrase is a usage error and nothing is sent.
    if (const auto prepared = Core::PreparedTransport::prepare(spec.transport); !prepared)
        return usageError(console, prepared.error());
    if (!spec.transport.insecureHosts.isEmpty()) {
        console.error(Tr::tr("warning: --insecure: certificate errors of %1 are ignored; nothing proves that the "
                             "server is %1, and every export says so")
                          .arg(spec.transport.insecureHosts.join(QStringLiteral(", "))));
    }
    if (live) {
        for (const QString &ignored : std::as_const(request.ignored))
            console.print(Tr::tr("note: %1 is understood and has no effect here").arg(ignored));
        for (const QString &note : std::as_const(request.notes))
            console.print(Tr::tr("note: %1").arg(note));
    }

    Core::Scenario scenario;
    scenario.name = Tr::tr("retrylab request");
    scenario.policy = policy.policy;
    scenario.policyOrigin = policy.changes.isEmpty()
        ? policy.origin
        : Tr::tr("%1; %2").arg(policy.origin, policy.changes.join(QStringLiteral("; ")));
    scenario.seed = options.runSeed(saved ? saved->seed() : std::nullopt);
    scenario.concurrency = 1;
    Core::ScenarioRequest entry;
    entry.name = QStringLiteral("request");
    entry.spec = spec;
    entry.urlTemplate = spec.url.toString(QUrl::FullyEncoded);
    for (const QUrl &fallback : std::as_const(spec.fallbackUrls))
        entry.fallbackTemplates.append(fallback.toString(QUrl::FullyEncoded));
    scenario.requests.append(entry);
    Core::ScenarioExpectation succeeds;
    succeeds.name = Tr::tr("the request succeeds");
    succeeds.request = entry.name;
    succeeds.outcomes = {Core::RequestOutcome::Succeeded};
    scenario.expectations.append(succeeds);

    if (live) {
        console.print(Tr::tr("%1 %2 under the policy \"%3\" (%4), %5")
                          .arg(QString::fromLatin1(spec.method), entry.urlTemplate, policy.policy.name,
                              scenario.policyOrigin, options.seedText(*scenario.seed)));
    }

    Core::ScenarioRunner runner;
    runner.setScenario(scenario);
    runner.setResponseBodyLimit(bodyLimit);
    RunPrinter printer(&runner, &console, live);
    QEventLoop loop;
    QString failure;
    QObject::connect(&runner, &Core::ScenarioRunner::finished, &loop, &QEventLoop::quit);
    QObject::connect(&runner, &Core::ScenarioRunner::failed, &loop, [&](const QString &message) {
        failure = message;
        loop.quit();
    });
    InterruptWatcher interrupt;
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &runner, [&] {
        console.error(Tr::tr("retrylab request: interrupted; cancelling (press Ctrl+C again to quit at once)"));
        runner.cancel();
    });
    runner.start();
    loop.exec();
    if (!failure.isEmpty()) {
        console.error(Tr::tr("retrylab request: %1").arg(failure));
        return ExitFailed;
    }

    const Core::RunRecord &run = runner.record();
    const Core::RequestResult result = run.results.value(0);
    Core::AttemptRecord last;
    for (const Core::AttemptRecord &a : run.attempts) {
        if (a.requestId == result.requestId)
            last = a;
    }
    const bool succeeded = result.outcome == Core::RequestOutcome::Succeeded;
    if (!live && !succeeded) {
        console.error(Tr::tr("retrylab request: %1 after %n attempt(s): %2", nullptr, result.attempts)
                          .arg(Core::requestOutcomeName(result.outcome), result.reason));
    }

    // The response: status line, headers (-i), body.
    const Core::Redactor redactor(options.redact());
    bool bodyFailed = false;
    if (last.httpStatus) {
        const QString protocol = last.protocol.isEmpty() ? QStringLiteral("HTTP/1.1") : last.protocol;
        const QString statusLine = QStringLiteral("%1 %2 %3")
                                       .arg(protocol)
                                       .arg(*last.httpStatus)
                                       .arg(QString::fromUtf8(last.reasonPhrase))
                                       .trimmed();
        // -I shows the headers as curl's does: they are all a HEAD request brings back.
        if (parser.isSet(includeOption) || spec.method == "HEAD") {
            QByteArray head = redactor.text(statusLine).toUtf8() + '\n';
            for (const auto &[name, value] : redactor.headers(last.responseHeaders))
                head += name + ": " + value + '\n';
            writeStandardOutput(head + '\n');
        } else if (live) {
            console.print(statusLine);
        }
        const QByteArray &body = result.body;
        const bool truncated = last.bytesReceived > body.size();
        if (!outputPath.isEmpty()) {
            if (truncated) {
                console.error(Tr::tr("retrylab request: -o %1: the body has %2, of which RetryLab keeps the first "
                                     "%3; nothing was written")
                                  .arg(QDir::toNativeSeparators(outputPath), sizeText(last.bytesReceived),
                                      sizeText(body.size())));
                bodyFailed = true;
            } else if (const auto written = Core::ExportFile::write(outputPath, body); !written) {
                console.error(Tr::tr("retrylab request: -o: %1").arg(written.error()));
                bodyFailed = true;
            } else if (live) {
                console.print(
                    Tr::tr("Wrote the body to %1 (%2)").arg(QDir::toNativeSeparators(outputPath), sizeText(*written)));
            }
        } else if (!body.isEmpty()) {
            if (looksBinary(body) && ::isatty(STDOUT_FILENO)) {
                console.error(Tr::tr("retrylab request: the body is binary (%1) and is not shown on a terminal; "
                                     "save it with -o FILE")
                                  .arg(sizeText(last.bytesReceived)));
            } else {
                const QByteArray shown = redactor.body(body, last.responseHeaders);
                // On a terminal the next line (a message, the prompt) starts on a line of its own.
                writeStandardOutput(
                    ::isatty(STDOUT_FILENO) && !shown.endsWith('\n') ? QByteArray(shown + '\n') : shown);
                if (shown != body)
                    console.error(Tr::tr("note: credentials in the body are masked; --no-redact or -o FILE give it "
                                         "as it came"));
                if (truncated)
                    console.error(Tr::tr("warning: the body has %1; only the first %2 are shown")
                                      .arg(sizeText(last.bytesReceived), sizeText(body.size())));
            }
        }
    }

    QStringList written;
    QStringList errors;
    options.writeFiles(run, runner.expectationResults(),
        {Core::JUnitExport::suiteFor(scenario.name, run, runner.expectationResults())}, &written, &errors);
    if (live)
        console.print(written);
    for (const QString &message : std::as_const(errors))
        console.error(Tr::tr("retrylab request: %1").arg(message));
    qCDebug(lcRequest) << "finished:" << Core::requestOutcomeName(result.outcome) << result.attempts << "attempts";
    if (!errors.isEmpty())
        return ExitUsage;
    return succeeded && !bodyFailed ? ExitOk : ExitFailed;
}

} // namespace RetryLab::Cli
