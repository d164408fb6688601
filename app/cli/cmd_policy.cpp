#include "app/cli/cmd_policy.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/subcommand.h"
#include "core/export/policyexport.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/util/exportfile.h"
#include "core/util/terminaltext.h"

#include <QCommandLineParser>
#include <QFile>
#include <QTextStream>
#include <QUrl>

namespace RetryLab::Cli {

namespace {

using PolicyCommand::Action;
using PolicyCommand::Options;

const QString command = QStringLiteral("policy");

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption format;
    QCommandLineOption preset;
    QCommandLineOption out;
    QCommandLineOption runnable;
    QCommandLineOption service;
    QCommandLineOption method;
    QCommandLineOption clients;
    QCommandLineOption interactive;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      format(QStringLiteral("format"),
          Tr::tr("%1 (default json).").arg(Core::PolicyExport::names().join(QStringLiteral(", "))), Tr::tr("FORMAT")),
      preset(QStringLiteral("preset"), Tr::tr("Export a built-in preset (a wrong id lists them)."), Tr::tr("ID")),
      out(QStringLiteral("out"), Tr::tr("Write to this file instead of standard output."), Tr::tr("FILE")),
      runnable(QStringLiteral("runnable"),
          Tr::tr("%1: a complete program that sends one GET to URL (or its first argument) under the policy, exit "
                 "status 0 on success, 1 on failure.")
              .arg(Core::PolicyExport::runnableNames().join(QStringLiteral(", "))),
          Tr::tr("URL")),
      service(QStringLiteral("service"),
          Tr::tr("gRPC: the service the config applies to, e.g. pkg.Orders (default: every service)."), Tr::tr("NAME")),
      method(QStringLiteral("method"), Tr::tr("gRPC: the method within --service (default: every method)."),
          Tr::tr("NAME")),
      clients(QStringLiteral("clients"), Tr::tr("check: clients that may fail and retry together (default 1)."),
          Tr::tr("N")),
      interactive(QStringLiteral("interactive"),
          Tr::tr("check: a person waits for the answer, so long waits are warned about."))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("export: writes a retry policy (a preset, or a policy JSON file as File > Export policy writes it)\n"
               "for another client: a gRPC service config (methodConfig.retryPolicy, gRFC A6), curl's retry flags\n"
               "(or a shell script running curl), Python code for tenacity, urllib3 (with requests) or botocore,\n"
               "Polly 8 C# or Microsoft.Extensions.Http.Resilience options, Resilience4j or Envoy YAML, Go with\n"
               "cenkalti/backoff, Java with google-http-java-client, or RetryLab's own policy JSON.\n"
               "What the other client cannot express is said on standard error.\n"
               "check: warns, with the reason, about a policy that is aggressive for its use: no jitter with more\n"
               "than a few clients, immediate retries above one, minutes of waiting for an interactive request, no\n"
               "retry budget with many clients, more than 10 attempts. Exit status 1 when it warns."));
    parser.addOptions({help, format, preset, out, runnable, service, method, clients, interactive});
    parser.addPositionalArgument(QStringLiteral("export|check"), Tr::tr("The action: export or check."));
    parser.addPositionalArgument(QStringLiteral("FILE"), Tr::tr("A policy JSON file (instead of --preset)."));
}

// The action and which options go with it; `positional` keeps what follows the action.
Core::Result<Action> readAction(const QCommandLineParser &parser, const OptionTable &table, QStringList &positional)
{
    using Read = Core::Result<Action>;
    if (positional.isEmpty())
        return Read::failure(Tr::tr("say what to do: export or check"));
    if (positional.first() != QLatin1String("export") && positional.first() != QLatin1String("check"))
        return Read::failure(Tr::tr("unknown action \"%1\" (known: export, check)").arg(positional.first()));
    const bool check = positional.takeFirst() == QLatin1String("check");
    if (check
        && (parser.isSet(table.format) || parser.isSet(table.out) || parser.isSet(table.service)
            || parser.isSet(table.runnable)))
        return Read::failure(Tr::tr("--format, --out, --runnable, --service and --method go with export"));
    if (!check && (parser.isSet(table.clients) || parser.isSet(table.interactive)))
        return Read::failure(Tr::tr("--clients and --interactive go with check"));
    return check ? Action::Check : Action::Export;
}

// --format, --runnable, --service and --method, which go together.
Core::Result<void> readExportOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    if (!parser.value(table.format).isEmpty())
        options.format = parser.value(table.format);
    if (!Core::PolicyExport::names().contains(options.format)) {
        return Core::Result<void>::failure(
            Tr::tr("--format must be one of %1 (got \"%2\")")
                .arg(Core::PolicyExport::names().join(QStringLiteral(", ")), options.format));
    }
    if (parser.isSet(table.runnable)) {
        if (!Core::PolicyExport::runnableNames().contains(options.format)) {
            return Core::Result<void>::failure(
                Tr::tr("--runnable goes with --format %1; %2 cannot be a program")
                    .arg(Core::PolicyExport::runnableNames().join(QStringLiteral("|")), options.format));
        }
        const QUrl url(parser.value(table.runnable), QUrl::StrictMode);
        if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))
            || url.host().isEmpty()) {
            return Core::Result<void>::failure(
                Tr::tr("--runnable needs an http:// or https:// URL (got \"%1\")").arg(parser.value(table.runnable)));
        }
        options.runnableUrl = url.toString(QUrl::FullyEncoded);
    }
    if ((parser.isSet(table.service) || parser.isSet(table.method)) && options.format != QLatin1String("grpc"))
        return Core::Result<void>::failure(Tr::tr("--service and --method go with --format grpc"));
    if (parser.isSet(table.method) && !parser.isSet(table.service))
        return Core::Result<void>::failure(Tr::tr("--method needs --service"));
    options.service = parser.value(table.service);
    options.method = parser.value(table.method);
    return {};
}

// The preset of that id, or a wrong id with the known ones.
Core::Result<Core::BackoffPolicy> presetPolicy(const QString &id)
{
    const auto preset = Core::Presets::find(id);
    if (preset)
        return *preset;
    QStringList ids;
    for (const Core::Presets::Preset &p : Core::Presets::all())
        ids << p.id;
    return Core::Result<Core::BackoffPolicy>::failure(
        Tr::tr("no preset \"%1\" (known: %2)").arg(id, ids.join(QStringLiteral(", "))));
}

Core::Result<Core::BackoffPolicy> filePolicy(const QString &path)
{
    // The same reader as request --policy: the same limit and the same words for it.
    return Core::PolicyJson::readFile(path);
}

// The policy's problems and the advice for its use, a line each; exit 1 when there is one.
int check(const Options &options)
{
    QTextStream out(stdout);
    QList<Core::PolicyIssue> issues = Core::validatePolicy(options.policy);
    issues.append(Core::advisePolicy(options.policy, options.usage));
    out << Tr::tr("Policy \"%1\" for %n client(s)%2", nullptr, options.usage.concurrentClients)
               .arg(Core::TerminalText::escaped(options.policy.name),
                   options.usage.interactive ? Tr::tr(", interactive") : QString())
        << Qt::endl;
    for (const Core::PolicyIssue &issue : std::as_const(issues))
        out << Tr::tr("warning: %1: %2").arg(issue.field, Core::TerminalText::escaped(issue.message)) << Qt::endl;
    if (issues.isEmpty())
        out << Tr::tr("no warnings") << Qt::endl;
    else
        out << Tr::tr("%n warning(s)", nullptr, int(issues.size())) << Qt::endl;
    return issues.isEmpty() ? ExitOk : ExitFailed;
}

// The policy in the chosen format, and what that format cannot express.
QByteArray exported(const Options &options, QStringList *notes)
{
    Core::PolicyExport::Options target;
    target.runnableUrl = options.runnableUrl;
    target.grpcService = options.service;
    target.grpcMethod = options.method;
    const Core::SourceText::Code code = Core::PolicyExport::write(options.format, options.policy, target);
    *notes = code.notes;
    return code.text.toUtf8();
}

int exportPolicy(const Options &options)
{
    QStringList notes;
    const QByteArray text = exported(options, &notes);
    QTextStream err(stderr);
    for (const QString &note : std::as_const(notes))
        err << Tr::tr("note: %1").arg(note) << Qt::endl;
    if (options.outPath) {
        const auto written = Core::ExportFile::write(*options.outPath, text);
        if (!written) {
            err << Tr::tr("retrylab policy: --out: %1").arg(written.error()) << Qt::endl;
            return ExitFailed;
        }
        return ExitOk;
    }
    QTextStream out(stdout);
    out << QString::fromUtf8(text);
    out.flush();
    return ExitOk;
}

Core::Result<void> readOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    QStringList positional = parser.positionalArguments();
    const auto action = readAction(parser, table, positional);
    if (!action)
        return action.errorDetail();
    options.action = *action;
    options.usage.interactive = parser.isSet(table.interactive);
    if (parser.isSet(table.clients)) {
        bool ok = false;
        options.usage.concurrentClients = parser.value(table.clients).toInt(&ok);
        if (!ok || options.usage.concurrentClients < 1 || options.usage.concurrentClients > 100'000'000) {
            return Core::Result<void>::failure(
                Tr::tr("--clients must be a whole number from 1 to 100000000 (got \"%1\")")
                    .arg(parser.value(table.clients)));
        }
    }
    if (positional.size() > 1)
        return Core::Result<void>::failure(Tr::tr("unexpected argument \"%1\"").arg(positional.at(1)));
    if (positional.isEmpty() == !parser.isSet(table.preset))
        return Core::Result<void>::failure(
            Tr::tr("give either --preset ID or a policy file, not both and not neither"));
    if (const auto read = readExportOptions(parser, table, options); !read)
        return read;
    if (parser.isSet(table.out))
        options.outPath = parser.value(table.out);
    auto policy
        = parser.isSet(table.preset) ? presetPolicy(parser.value(table.preset)) : filePolicy(positional.first());
    if (!policy)
        return policy.errorDetail();
    options.policy = std::move(policy).value();
    return {};
}

} // namespace

namespace PolicyCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    return parseOptionTable<Options, OptionTable>(arguments,
        Tr::tr("Usage: retrylab policy export --format FORMAT [--preset ID | FILE] [--runnable URL] [options]\n"
               "       retrylab policy check [--preset ID | FILE] [--clients N] [--interactive]\n"
               "Formats: %1")
            .arg(Core::PolicyExport::names().join(QLatin1Char('|'))),
        &readOptions);
}

int run(const Options &options)
{
    // The exporters' debug lines are for developers; standard error carries the notes.
    Console::installMessageHandler(true);
    return options.action == Action::Check ? check(options) : exportPolicy(options);
}

} // namespace PolicyCommand

int runPolicy(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &PolicyCommand::parse, &PolicyCommand::run, UsageHint::SeeHelp);
}

} // namespace RetryLab::Cli
