#include "app/cli/cmd_request.h"

#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/operationrun.h"
#include "app/cli/responseprinter.h"
#include "app/cli/runprinter.h"
#include "app/cli/runseed.h"
#include "app/cli/subcommand.h"

#include "app/cli/clitr.h"
#include "core/auth/authjson.h"
#include "core/executor/preparedtransport.h"
#include "core/executor/requestauth.h"
#include "core/executor/requestcheck.h"
#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/policy/fallbacktriggers.h"
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

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

// One job: `retrylab request`, from its arguments to the exit code. Most of the file
// decides what is sent and under which policy (a saved request or curl's options; a
// preset, a file or the saved request's own policy, then --retry-*). Those choices
// check one another, so they stay beside the parse() and run() that apply them.

namespace {
Q_LOGGING_CATEGORY(lcRequest, "retrylab.cli.request", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

using RequestCommand::Options;

const QString command = QStringLiteral("request");
const QString defaultPolicy = QStringLiteral("google-cloud-storage");

// Up to one byte beyond the reader's limit (CurlCommandLine::Options::maxFileBytes), which
// refuses it: `-d @- < /dev/zero` ends instead of filling the memory.
Core::Result<QByteArray> readStandardInput()
{
    QFile in;
    if (!in.open(stdin, QIODevice::ReadOnly))
        return Core::Result<QByteArray>::failure(Tr::tr("cannot read standard input: %1").arg(in.errorString()));
    const qint64 most = Core::CurlCommandLine::Options().maxFileBytes + 1;
    QByteArray data;
    while (data.size() < most) {
        const QByteArray part = in.read(std::min<qint64>(64 * 1024, most - data.size()));
        if (part.isEmpty())
            break;
        data += part;
    }
    return data;
}

struct ChosenPolicy
{
    Core::BackoffPolicy policy;
    QString origin; ///< "preset google-cloud-storage" or the file
    QStringList changes; ///< "--retry 3: at most 4 attempts"
    QHash<QString, QString> optionOf; ///< policy field -> the option that set it
};

Core::Result<ChosenPolicy> readPolicy(const QString &text)
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
        "connection saved with the request apply; --policy, --retry-*, --seed, --idempotent, --fallback,\n"
        "--fallback-on and --insecure given here go over them. No URL or curl option goes with\n"
        "--collection; without it, --request is curl's -X.\n");
    return help;
}

// The policy saved with a request of a collection, when --policy does not name another.
Core::Result<ChosenPolicy> chooseSavedPolicy(const Core::SavedRequest &saved)
{
    auto policy = saved.policy();
    if (!policy)
        return Core::Result<ChosenPolicy>(policy.errorDetail());
    ChosenPolicy chosen;
    chosen.policy = std::move(policy).value();
    chosen.origin = saved.policyOrigin();
    return chosen;
}

// retrylab's own options. They stand among curl's on the command line, so
// they are also what the reading of the curl options skips (ownOptions()).
struct OptionTable
{
    OptionTable();
    /// In the order of the help.
    void addTo(QCommandLineParser &parser) const;
    QList<Core::CurlCommandLine::ExtraOption> ownOptions() const;

    QCommandLineOption policy;
    QList<QCommandLineOption> overrides;
    QCommandLineOption include;
    QCommandLineOption output;
    QCommandLineOption fromCurl;
    QCommandLineOption insecure;
    QCommandLineOption maxBody;
    QCommandLineOption idempotent;
    QCommandLineOption auth;
    QCommandLineOption fallback;
    QCommandLineOption fallbackOn;
    QCommandLineOption poll;
    HeadlessOptions::Table shared;
    QCommandLineOption collection;
    QCommandLineOption savedRequest;
    QCommandLineOption environment;
    QCommandLineOption environmentName;
};

OptionTable::OptionTable()
    : policy(QStringLiteral("policy"),
        Tr::tr("The retry policy: a preset id or name, or a policy JSON file (default: %1).").arg(defaultPolicy),
        Tr::tr("ID|FILE")),
      overrides{
          {QStringLiteral("retry-max-attempts"),
              Tr::tr("Attempts in all, the first included (0: the deadline ends it)."), Tr::tr("N")},
          {QStringLiteral("retry-base-ms"), Tr::tr("The policy's base delay."), Tr::tr("MS")},
          {QStringLiteral("retry-cap-ms"), Tr::tr("The policy's longest delay."), Tr::tr("MS")},
          {QStringLiteral("retry-deadline-ms"), Tr::tr("The policy's total deadline (0: none)."), Tr::tr("MS")},
      },
      include({QStringLiteral("i"), QStringLiteral("include")},
          Tr::tr("Print the response's status line and headers before the body, on standard output.")),
      output({QStringLiteral("o"), QStringLiteral("output")},
          Tr::tr("Write the body, byte for byte, to FILE instead of standard output."), Tr::tr("FILE")),
      fromCurl(QStringLiteral("from-curl"),
          Tr::tr("A whole curl command line, as one argument (quote it); it replaces the request options."),
          Tr::tr("'curl ...'")),
      insecure(QStringLiteral("insecure"),
          Tr::tr("Ignore certificate errors for the URL's host. Needed, spelt out, for a -k or --insecure in the curl "
                 "options or in --from-curl.")),
      maxBody(QStringLiteral("max-body"),
          Tr::tr("The most of a response body kept, in bytes, from %1 to %2 (default: %3, with -o %2). A longer body "
                 "is cut: shown with a warning, and not written by -o.")
              .arg(Core::RetryExecutor::minResponseBodyLimit)
              .arg(Core::RetryExecutor::maxResponseBodyLimit)
              .arg(Core::RetryExecutor::defaultResponseBodyLimit),
          Tr::tr("BYTES")),
      idempotent(QStringLiteral("idempotent"),
          Tr::tr("The request is safe to repeat: retry a POST or PATCH too (curl retries every method).")),
      auth(QStringLiteral("auth"),
          Tr::tr("The request's auth from a JSON file, for the kinds curl has no option for: {\"type\": "
                 "\"oauth2-client-credentials\", \"tokenUrl\": ..., \"clientId\": ..., \"clientSecret\": ...}, "
                 "\"oauth2-refresh-token\", \"google-service-account\" with \"keyFile\", or any other (basic, "
                 "bearer, apikey, digest, aws-sigv4). It goes over -u, --digest and --aws-sigv4."),
          Tr::tr("FILE")),
      fallback(QStringLiteral("fallback"),
          Tr::tr("An alternative service, tried once the policy gives up on the URL: one attempt, without backoff. "
                 "Give it again for more (at most %1), tried in order.")
              .arg(Core::maxFallbacks),
          Tr::tr("URL")),
      fallbackOn(QStringLiteral("fallback-on"),
          Tr::tr("Which faults send the request to its fallbacks, in place of those the policy retries: HTTP statuses "
                 "(503), classes of them (5xx), or network faults (%1), separated by commas. A request that may not "
                 "be repeated (a POST whose outcome is unknown) still never goes to a fallback.")
              .arg(Core::FallbackTriggers::faultNames().join(QStringLiteral(", "))),
          Tr::tr("LIST")),
      poll(QStringLiteral("poll"),
          Tr::tr("The request starts or reads a long-running operation: poll its URL with GET until the answer says "
                 "done, under this polling policy (a preset: %1; or a polling policy JSON file), each poll retried "
                 "under the retry policy. One line per poll; -i, -o and the report files do not apply.")
              .arg(Core::PollingPolicy::presetIds().join(QStringLiteral(", "))),
          Tr::tr("ID|FILE")),
      shared(HeadlessOptions::Seed | HeadlessOptions::Quiet | HeadlessOptions::NoRedact | HeadlessOptions::ReportFiles,
          Tr::tr("Print only the response and errors, not each retry, notes and the files written.")),
      collection(QStringLiteral("collection"),
          Tr::tr("Send a request saved in a RetryLab collection file instead of a URL and curl options: the one "
                 "--request names (see below)."),
          Tr::tr("FILE")),
      savedRequest(QStringLiteral("request"),
          Tr::tr("With --collection: the saved request's name, or its \"Folder/Name\" path. Without --collection, "
                 "--request is curl's -X."),
          Tr::tr("NAME")),
      environment(QStringLiteral("env"),
          Tr::tr("With --collection: the environments file (the window's environments.json) whose variables fill in "
                 "the request's {{name}}."),
          Tr::tr("FILE")),
      environmentName(QStringLiteral("env-name"),
          Tr::tr("With --env: the environment to use (default: the one selected last in the window, or the file's "
                 "only one)."),
          Tr::tr("NAME"))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("Sends one request, as curl would, under a retry policy: prints each retry as it happens, then the "
               "response (the status line, the headers with -i, and the body on standard output). The attempts and "
               "messages go to standard error, so that the body can be piped. The request may also be one saved in "
               "a collection (--collection).\n"
               "Exit status: 0 when the request succeeded, 1 when it failed for good, 2 for a usage error or a file "
               "that cannot be read or written."));
    parser.addOption(policy);
    parser.addOptions(overrides);
    parser.addOptions({include, output, fromCurl, insecure, maxBody, idempotent, auth, fallback, fallbackOn, poll});
    parser.addOptions(shared.options());
    parser.addOptions({collection, savedRequest, environment, environmentName});
}

// Without --request: with --collection it names the saved request, without it is curl's -X.
QList<Core::CurlCommandLine::ExtraOption> OptionTable::ownOptions() const
{
    QList<Core::CurlCommandLine::ExtraOption> own;
    for (const QCommandLineOption *o :
        {&policy, &include, &output, &fromCurl, &insecure, &maxBody, &idempotent, &auth, &fallback, &fallbackOn, &poll})
        own.append({o->names(), !o->valueName().isEmpty()});
    for (const QCommandLineOption &o : overrides)
        own.append({o.names(), true});
    for (const QCommandLineOption &o : shared.options())
        own.append({o.names(), !o.valueName().isEmpty()});
    for (const QCommandLineOption *o : {&collection, &environment, &environmentName})
        own.append({o->names(), true});
    return own;
}

// --retry-max-attempts and friends: --retry-NAME sets the policy field whose option is NAME.
Core::Result<QList<RequestCommand::PolicyOverride>> readOverrides(
    const QCommandLineParser &parser, const QList<QCommandLineOption> &overrides)
{
    using Overrides = Core::Result<QList<RequestCommand::PolicyOverride>>;
    QList<RequestCommand::PolicyOverride> read;
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
            return Overrides::failure(
                Tr::tr("--%1 takes a number of %2, not \"%3\"")
                    .arg(name,
                        field->unit == Core::PolicyField::Unit::Attempts ? Tr::tr("attempts") : Tr::tr("milliseconds"),
                        text));
        }
        if (field->type == Core::PolicyField::Type::WholeNumber && (value != std::floor(value) || value > field->max)) {
            return Overrides::failure(Tr::tr("--%1 takes a whole number from %2 to %3, not \"%4\"")
                                          .arg(name)
                                          .arg(field->min)
                                          .arg(field->max)
                                          .arg(text));
        }
        read.append({field, value, QStringLiteral("--%1 %2").arg(name, text)});
    }
    return read;
}

// -o: "-" is standard output, as for curl; the file is checked for being
// writable when the command runs.
Core::Result<QString> readOutputPath(
    const QCommandLineParser &parser, const QCommandLineOption &output, const HeadlessOptions &shared)
{
    QString path = parser.value(output);
    if (parser.isSet(output) && path.isEmpty())
        return Core::Result<QString>::failure(Tr::tr("-o needs a file name"));
    if (path == QLatin1String("-") || path.isEmpty())
        return QString();
    for (const QString &other : {shared.reportPath, shared.harPath, shared.csvPath, shared.junitPath}) {
        if (!other.isEmpty() && QFileInfo(other).absoluteFilePath() == QFileInfo(path).absoluteFilePath())
            return Core::Result<QString>::failure(
                Tr::tr("-o names a file that another option writes too: %1").arg(other));
    }
    return path;
}

Core::Result<qint64> readBodyLimit(const QCommandLineParser &parser, const QCommandLineOption &maxBody, bool toFile)
{
    if (!parser.isSet(maxBody)) {
        return toFile ? Core::RetryExecutor::maxResponseBodyLimit : Core::RetryExecutor::defaultResponseBodyLimit;
    }
    bool ok = false;
    const qint64 limit = parser.value(maxBody).toLongLong(&ok);
    if (!ok || limit < Core::RetryExecutor::minResponseBodyLimit || limit > Core::RetryExecutor::maxResponseBodyLimit) {
        return Core::Result<qint64>::failure(Tr::tr("--max-body takes a number of bytes from %1 to %2, not \"%3\"")
                                                 .arg(Core::RetryExecutor::minResponseBodyLimit)
                                                 .arg(Core::RetryExecutor::maxResponseBodyLimit)
                                                 .arg(parser.value(maxBody)));
    }
    return limit;
}

// Where the request comes from: the curl options, a whole curl command, or a
// saved request; what does not go together is refused.
Core::Result<void> checkRequestSource(
    const QCommandLineParser &parser, const OptionTable &table, bool fromCollection, bool hasRequestArguments)
{
    for (const QCommandLineOption *single : {&table.policy, &table.output, &table.fromCurl, &table.maxBody, &table.poll,
             &table.auth, &table.collection, &table.savedRequest, &table.environment, &table.environmentName}) {
        if (parser.values(*single).size() > 1)
            return Core::Result<void>::failure(Tr::tr("--%1 is given more than once").arg(single->names().constLast()));
    }
    if (!fromCollection && (parser.isSet(table.environment) || parser.isSet(table.environmentName))) {
        return Core::Result<void>::failure(
            Tr::tr("--env and --env-name fill in a saved request's variables: give --collection FILE and --request "
                   "NAME too"));
    }
    if (fromCollection && (parser.isSet(table.fromCurl) || hasRequestArguments)) {
        return Core::Result<void>::failure(
            Tr::tr("--collection takes the request from the file: give no URL, curl options or --from-curl with "
                   "it (the other options here are retrylab's own)"));
    }
    if (parser.isSet(table.fromCurl) && hasRequestArguments) {
        return Core::Result<void>::failure(
            Tr::tr("--from-curl takes the whole request: put the URL and the curl options inside it (the other "
                   "options here are retrylab's own)"));
    }
    return {};
}

// The request of a saved request, {server} standing for `server` when it needs one.
Core::Result<Core::ImportedRequest> requestFromSaved(const Core::SavedRequest &saved, const Core::FaultServer *server)
{
    auto spec = saved.build(server ? server->baseUrl() : QUrl());
    if (!spec)
        return spec.errorDetail();
    Core::ImportedRequest request;
    request.spec = std::move(spec).value();
    request.notes.append(Tr::tr("sending %1").arg(saved.description()));
    return request;
}

// The request of the curl options given here, or of --from-curl.
Core::Result<Core::ImportedRequest> requestFromCurl(const Options &options)
{
    Core::CurlCommandLine::Options readOptions;
    readOptions.standardInput = &readStandardInput;
    if (options.fromCurl) {
        auto imported = Core::CurlCommandLine::parse(*options.fromCurl, readOptions);
        if (!imported)
            return Core::Result<Core::ImportedRequest>::failure(Tr::tr("--from-curl: %1").arg(imported.error()));
        return imported;
    }
    readOptions.extraOptions = options.ownOptions;
    auto imported = Core::CurlCommandLine::parseArguments(options.requestArguments, readOptions);
    if (!imported)
        return Core::Result<Core::ImportedRequest>::failure(withHelpHint(command, imported.error()));
    if (!imported->unknown.isEmpty()) {
        return Core::Result<Core::ImportedRequest>::failure(
            Tr::tr("unknown option %1 (retrylab request takes the curl options its --help "
                   "lists); see retrylab request --help")
                .arg(imported->unknown.constFirst()));
    }
    return imported;
}

// --insecure, --idempotent, --fallback and --fallback-on on the request.
Core::Result<void> applyRequestOptions(const Options &options, Core::RequestSpec &spec)
{
    // Certificate checks are what prove the server is the one named in the
    // URL; they are switched off only by the long option, spelt out here.
    const QString host = spec.url.host();
    if (options.insecure) {
        spec.transport.insecureHosts = QStringList{host};
    } else if (!spec.transport.insecureHosts.isEmpty()) {
        return Core::Result<void>::failure(options.fromCurl
                ? Tr::tr("the curl command turns certificate checks off for %1 (-k/--insecure); give --insecure "
                         "to retrylab request as well to allow that: without the checks nothing proves that the "
                         "server is %1")
                      .arg(host)
                : Tr::tr("-k would turn certificate checks off for %1; retrylab request takes only the long "
                         "--insecure for that, so that the checks that prove the server is %1 are never "
                         "switched off by one letter")
                      .arg(host));
    }
    if (options.idempotent)
        spec.idempotent = true;
    if (options.auth)
        spec.auth = *options.auth;
    // What would refuse the auth before any attempt is a usage error here, said at once.
    if (const QString problem = Core::RequestAuth::check(spec.auth, {spec.url, spec.method, spec.body, spec.headers});
        !problem.isEmpty()) {
        return Core::Result<void>::failure(options.auth ? Tr::tr("--auth: %1").arg(problem) : problem);
    }
    // Checked with the request (checkRequest), the fallback named in the error.
    for (const QString &fallback : options.fallbacks)
        spec.fallbackUrls.append(QUrl::fromUserInput(fallback));
    if (!options.fallbackOn.isEmpty()) {
        const auto triggers = Core::FallbackTriggers::normalized(options.fallbackOn);
        if (!triggers)
            return Core::Result<void>::failure(Tr::tr("--fallback-on: %1").arg(triggers.error()));
        if (spec.fallbackUrls.isEmpty())
            return Core::Result<void>::failure(
                Tr::tr("--fallback-on names the faults that lead to a fallback; give --fallback too"));
        spec.fallbackOn = *triggers;
    }
    if (!spec.fallbackUrls.isEmpty()) {
        if (const auto usable = Core::checkRequest(spec); !usable)
            return usable;
    }
    spec.label = QStringLiteral("request");
    return {};
}

// The policy: --policy (else a saved request's own), then curl's retry
// options, then retrylab's overrides; refused when the result cannot be used,
// naming the option that made it so.
Core::Result<ChosenPolicy> choosePolicy(
    const Options &options, const Core::SavedRequest *saved, const Core::ImportedRequest::RetryHints &retry)
{
    auto chosen
        = saved && !options.policy ? chooseSavedPolicy(*saved) : readPolicy(options.policy.value_or(defaultPolicy));
    if (!chosen)
        return chosen;
    ChosenPolicy &policy = chosen.value();
    for (const Core::CurlCommandLine::PolicyChange &change :
        Core::CurlCommandLine::applyRetryHints(retry, policy.policy)) {
        policy.optionOf.insert(change.field, change.option);
        policy.changes.append(Tr::tr("%1: %2").arg(change.option, change.description));
    }
    for (const RequestCommand::PolicyOverride &override : options.overrides) {
        override.field->setNumber(policy.policy, override.value);
        policy.optionOf.insert(override.field->name(), override.option);
        policy.changes.append(override.option);
    }
    for (const Core::PolicyIssue &issue : Core::validatePolicy(policy.policy)) {
        if (!issue.isError())
            continue;
        const QString source = policy.optionOf.value(issue.field);
        return Core::Result<ChosenPolicy>::failure(source.isEmpty()
                ? Tr::tr("the policy (%1) cannot be used: %2: %3").arg(policy.origin, issue.field, issue.message)
                : Tr::tr("%1: the policy cannot be used: %2: %3").arg(source, issue.field, issue.message));
    }
    return chosen;
}

// -o and the exports, checked before anything is sent.
Core::Result<void> checkOutputFiles(const Options &options)
{
    if (!options.outputPath.isEmpty()) {
        if (const auto writable = Core::ExportFile::checkWritable(options.outputPath); !writable) {
            return Core::Result<void>::failure(
                Tr::tr("-o %1: cannot write there: %2")
                    .arg(QDir::toNativeSeparators(options.outputPath), writable.error()));
        }
    }
    return options.shared.checkOutputFiles();
}

// The scenario of one request, expected to succeed. The return type is deduced: lupdate
// misreads a definition that starts with a qualified type (Core::Scenario scenarioFor())
// and files its tr() strings under a wrong context.
auto scenarioFor(const Core::RequestSpec &spec, const ChosenPolicy &policy, quint64 seed)
{
    Core::Scenario scenario;
    scenario.name = Tr::tr("retrylab request");
    scenario.policy = policy.policy;
    scenario.policyOrigin = policy.changes.isEmpty()
        ? policy.origin
        : Tr::tr("%1; %2").arg(policy.origin, policy.changes.join(QStringLiteral("; ")));
    scenario.seed = seed;
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
    return scenario;
}

// Runs the request to its end, or until Ctrl+C has cancelled it. The runner's
// failure, if it could not run.
QString execute(Core::ScenarioRunner &runner, Console &console)
{
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
    return failure;
}

// An embedded fault server for {server} in a saved request, as the window has one.
std::unique_ptr<Core::FaultServer> startServer(quint64 seed, Console &console)
{
    Core::FaultServerOptions serverOptions;
    serverOptions.seed = seed;
    auto server = std::make_unique<Core::FaultServer>(serverOptions);
    if (!server->listen()) {
        console.error(
            Tr::tr("retrylab request: the embedded fault server cannot listen: %1").arg(server->errorString()));
        return nullptr;
    }
    return server;
}

// Sends the request and prints what came back; the exit status.
int send(const Options &options, const Core::Scenario &scenario, Console &console)
{
    const bool live = !options.shared.quiet;
    Core::ScenarioRunner runner;
    runner.setScenario(scenario);
    runner.setResponseBodyLimit(options.bodyLimit);
    if (options.transferLimit)
        runner.setTransferLimit(*options.transferLimit);
    RunPrinter printer(&runner, &console, live);
    if (const QString failure = execute(runner, console); !failure.isEmpty()) {
        console.error(Tr::tr("retrylab request: %1").arg(failure));
        return ExitFailed;
    }

    const Core::RunRecord &run = runner.record();
    const Core::RequestResult result = run.results.value(0);
    const bool succeeded = result.outcome == Core::RequestOutcome::Succeeded;
    if (!live && !succeeded) {
        console.error(Tr::tr("retrylab request: %1 after %n attempt(s): %2", nullptr, result.attempts)
                          .arg(Core::requestOutcomeName(result.outcome), result.reason));
    }
    const ResponsePrinter response(
        &console, {options.include, live, options.shared.redact, options.outputPath, options.bodyLimit});
    const ResponsePrinter::Body body = response.print(run, scenario.requests.constFirst().spec.method);

    QStringList written;
    QStringList errors;
    options.shared.writeFiles(run, runner.expectationResults(),
        {Core::JUnitExport::suiteFor(scenario.name, run, runner.expectationResults())}, &written, &errors);
    if (live)
        console.print(written);
    for (const QString &message : std::as_const(errors))
        console.error(Tr::tr("retrylab request: %1").arg(message));
    qCDebug(lcRequest) << "finished:" << Core::requestOutcomeName(result.outcome) << result.attempts << "attempts";
    // A file that cannot be written is a file error (2), as the help says, whatever the request did.
    if (!errors.isEmpty() || body == ResponsePrinter::Body::WriteFailed)
        return ExitUsage;
    return succeeded && body == ResponsePrinter::Body::Delivered ? ExitOk : ExitFailed;
}

} // namespace

namespace RequestCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    const OptionTable table;
    QCommandLineParser parser;
    table.addTo(parser);

    // retrylab's own options stand among curl's: they are taken out first, by
    // the same reading of the arguments the request options get.
    Options options;
    options.requestArguments = arguments.mid(2);
    options.ownOptions = table.ownOptions();
    auto separated = Core::CurlCommandLine::separate(options.requestArguments, options.ownOptions);
    if (!separated)
        return Core::Result<Options>::failure(withHelpHint(command, separated.error()));
    // --request is curl's -X, unless a collection is named: then it names the saved request.
    const bool fromCollection = std::any_of(separated->extraArguments.cbegin(), separated->extraArguments.cend(),
        [](const QString &argument) { return argument.startsWith(QLatin1String("--collection=")); });
    if (fromCollection) {
        options.ownOptions.append({table.savedRequest.names(), true});
        separated = Core::CurlCommandLine::separate(options.requestArguments, options.ownOptions);
        if (!separated)
            return Core::Result<Options>::failure(withHelpHint(command, separated.error()));
    }
    if (const auto parsed
        = parseSubcommand(parser, QStringList{arguments.value(0), arguments.value(1)} + separated->extraArguments);
        !parsed) {
        return Core::Result<Options>::failure(withHelpHint(command, parsed.error()));
    }
    if (table.shared.helpRequested(parser)) {
        options.help = helpText(parser) + QLatin1Char('\n');
        return options;
    }
    auto shared = table.shared.read(parser);
    if (!shared)
        return Core::Result<Options>::failure(withHelpHint(command, shared.error()));
    options.shared = std::move(shared).value();
    options.hasRequestArguments = separated->hasRequestArguments;
    if (const auto source = checkRequestSource(parser, table, fromCollection, options.hasRequestArguments); !source)
        return source.errorDetail();
    auto overrides = readOverrides(parser, table.overrides);
    if (!overrides)
        return overrides.errorDetail();
    options.overrides = std::move(overrides).value();
    auto output = readOutputPath(parser, table.output, options.shared);
    if (!output)
        return output.errorDetail();
    options.outputPath = std::move(output).value();
    auto bodyLimit = readBodyLimit(parser, table.maxBody, !options.outputPath.isEmpty());
    if (!bodyLimit)
        return bodyLimit.errorDetail();
    options.bodyLimit = *bodyLimit;
    if (parser.isSet(table.maxBody) || !options.outputPath.isEmpty())
        options.transferLimit = options.bodyLimit; // nothing beyond it would be shown or written

    if (parser.isSet(table.policy))
        options.policy = parser.value(table.policy);
    options.include = parser.isSet(table.include);
    if (parser.isSet(table.fromCurl))
        options.fromCurl = parser.value(table.fromCurl);
    options.insecure = parser.isSet(table.insecure);
    options.idempotent = parser.isSet(table.idempotent);
    if (parser.isSet(table.auth)) {
        auto auth = Core::AuthJson::readFile(parser.value(table.auth));
        if (!auth)
            return Core::Result<Options>::failure(Tr::tr("--auth %1").arg(auth.error()));
        options.auth = std::move(auth).value();
    }
    options.fallbacks = parser.values(table.fallback);
    for (const QString &list : parser.values(table.fallbackOn))
        options.fallbackOn += Core::FallbackTriggers::split(list);
    if (parser.isSet(table.poll)) {
        options.poll = parser.value(table.poll);
        if (options.include || !options.outputPath.isEmpty() || options.shared.writesRunFiles()
            || !options.shared.junitPath.isEmpty()) {
            return Core::Result<Options>::failure(
                Tr::tr("--poll prints a line per poll and the last answer's body: -i, -o, --report, --har, --csv "
                       "and --junit do not go with it"));
        }
    }
    if (fromCollection) {
        options.saved = Core::SavedRequest::Source{parser.value(table.collection), parser.value(table.savedRequest),
            parser.value(table.environment), parser.value(table.environmentName)};
    }
    return options;
}

int run(const Options &options)
{
    const bool redact = options.shared.redact;
    const auto usage = [&](const QString &message) { return usageError(command, message, UsageHint::None, redact); };
    Console console(redact, Console::PrintTo::StandardError);
    Console::installMessageHandler(redact);
    if (!redact)
        console.error(HeadlessOptions::noRedactWarning());
    const bool live = !options.shared.quiet;

    // The request: a saved one, the curl options given here, or a whole curl command.
    std::optional<Core::SavedRequest> saved;
    if (options.saved) {
        auto loaded = Core::SavedRequest::load(*options.saved);
        if (!loaded)
            return usage(loaded.error());
        saved = std::move(loaded).value();
    }
    const RunSeed seed(options.shared.seed, saved ? saved->seed() : std::nullopt);
    std::unique_ptr<Core::FaultServer> embeddedServer;
    if (saved && saved->needsServer() && !(embeddedServer = startServer(seed.value(), console)))
        return ExitFailed;
    auto imported = saved ? requestFromSaved(*saved, embeddedServer.get()) : requestFromCurl(options);
    if (!imported)
        return usage(imported.error());
    Core::ImportedRequest &request = imported.value();
    for (const QString &unknown : std::as_const(request.unknown))
        console.error(Tr::tr("warning: the curl command's %1 is not supported and has no effect").arg(unknown));
    Core::RequestSpec &spec = request.spec;
    if (const auto applied = applyRequestOptions(options, spec); !applied)
        return usage(applied.error());
    const auto policy = choosePolicy(options, saved ? &*saved : nullptr, request.retry);
    if (!policy)
        return usage(policy.error());
    if (const auto writable = checkOutputFiles(options); !writable)
        return usage(writable.error());
    // The certificate and key files are read now, so that a missing file or a
    // wrong passphrase is a usage error and nothing is sent.
    if (const auto prepared = Core::PreparedTransport::prepare(spec.transport); !prepared)
        return usage(prepared.error());
    if (!spec.transport.insecureHosts.isEmpty()) {
        console.error(Tr::tr("warning: --insecure: certificate errors of %1 are ignored; nothing proves that the "
                             "server is %1, and every export says so")
                          .arg(spec.transport.insecureHosts.join(QStringLiteral(", "))));
    }

    if (options.poll) {
        auto polling = OperationRun::readPollingPolicy(*options.poll);
        if (!polling)
            return usage(polling.error());
        if (live) {
            console.print(Tr::tr("%1 %2 under the policy \"%3\" (%4), polled under %5, %6")
                              .arg(QString::fromLatin1(spec.method), spec.url.toString(QUrl::FullyEncoded),
                                  policy->policy.name, policy->origin, polling->origin, seed.text()));
        }
        return OperationRun::run(
            {spec, policy->policy, std::move(polling).value(), seed.value(), options.bodyLimit, live, redact}, console);
    }
    const Core::Scenario scenario = scenarioFor(spec, *policy, seed.value());
    if (live) {
        for (const QString &ignored : std::as_const(request.ignored))
            console.print(Tr::tr("note: %1 is understood and has no effect here").arg(ignored));
        for (const QString &note : std::as_const(request.notes))
            console.print(Tr::tr("note: %1").arg(note));
        console.print(Tr::tr("%1 %2 under the policy \"%3\" (%4), %5")
                          .arg(QString::fromLatin1(spec.method), scenario.requests.constFirst().urlTemplate,
                              policy->policy.name, scenario.policyOrigin, seed.text()));
    }
    return send(options, scenario, console);
}

} // namespace RequestCommand

int runRequest(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &RequestCommand::parse, &RequestCommand::run);
}

} // namespace RetryLab::Cli
