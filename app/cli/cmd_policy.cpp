#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/subcommand.h"
#include "core/export/curlretryflags.h"
#include "core/export/grpcserviceconfig.h"
#include "core/policy/policyadvice.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/util/exportfile.h"

#include <QCommandLineParser>
#include <QFile>
#include <QTextStream>

namespace RetryLab::Cli {

namespace {

/// Quotes an argument for a POSIX shell when it needs it.
QString shellWord(const QString &word)
{
    static const QString safe = QStringLiteral("-_./=:,+%@");
    const bool plain = !word.isEmpty()
        && std::all_of(word.cbegin(), word.cend(), [](QChar c) { return c.isLetterOrNumber() || safe.contains(c); });
    if (plain)
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

} // namespace

int runPolicy(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("export: writes a retry policy (a preset, or a policy JSON file as File > Export policy writes it)\n"
               "for another client: a gRPC service config (methodConfig.retryPolicy, gRFC A6), curl's retry flags,\n"
               "or RetryLab's own policy JSON. What the other client cannot express is said on standard error.\n"
               "check: warns, with the reason, about a policy that is aggressive for its use: no jitter with more\n"
               "than a few clients, immediate retries above one, minutes of waiting for an interactive request, no\n"
               "retry budget with many clients, more than 10 attempts. Exit status 1 when it warns."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption formatOption(
        QStringLiteral("format"), Tr::tr("grpc, curl or json (default json)."), Tr::tr("FORMAT"));
    const QCommandLineOption presetOption(
        QStringLiteral("preset"), Tr::tr("Export a built-in preset (a wrong id lists them)."), Tr::tr("ID"));
    const QCommandLineOption outOption(
        QStringLiteral("out"), Tr::tr("Write to this file instead of standard output."), Tr::tr("FILE"));
    const QCommandLineOption serviceOption(QStringLiteral("service"),
        Tr::tr("gRPC: the service the config applies to, e.g. pkg.Orders (default: every service)."), Tr::tr("NAME"));
    const QCommandLineOption methodOption(
        QStringLiteral("method"), Tr::tr("gRPC: the method within --service (default: every method)."), Tr::tr("NAME"));
    const QCommandLineOption clientsOption(
        QStringLiteral("clients"), Tr::tr("check: clients that may fail and retry together (default 1)."), Tr::tr("N"));
    const QCommandLineOption interactiveOption(
        QStringLiteral("interactive"), Tr::tr("check: a person waits for the answer, so long waits are warned about."));
    parser.addOptions({helpOption, formatOption, presetOption, outOption, serviceOption, methodOption, clientsOption,
        interactiveOption});
    parser.addPositionalArgument(QStringLiteral("export|check"), Tr::tr("The action: export or check."));
    parser.addPositionalArgument(QStringLiteral("FILE"), Tr::tr("A policy JSON file (instead of --preset)."));

    const auto usage = [&err](const QString &message) {
        err << Tr::tr("retrylab policy: %1; see retrylab policy --help").arg(message) << Qt::endl;
        return ExitUsage;
    };
    if (!parser.parse(subcommandArguments(arguments)))
        return usage(parser.errorText());
    if (parser.isSet(helpOption)) {
        out << subcommandHelp(parser,
            Tr::tr("Usage: retrylab policy export --format grpc|curl|json [--preset ID | FILE] [options]\n"
                   "       retrylab policy check [--preset ID | FILE] [--clients N] [--interactive]"))
            << Qt::endl;
        return ExitOk;
    }
    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty()
        || (positional.first() != QLatin1String("export") && positional.first() != QLatin1String("check")))
        return usage(positional.isEmpty()
                ? Tr::tr("say what to do: export or check")
                : Tr::tr("unknown action \"%1\" (known: export, check)").arg(positional.first()));
    const bool check = positional.takeFirst() == QLatin1String("check");
    if (check && (parser.isSet(formatOption) || parser.isSet(outOption) || parser.isSet(serviceOption)))
        return usage(Tr::tr("--format, --out, --service and --method go with export"));
    if (!check && (parser.isSet(clientsOption) || parser.isSet(interactiveOption)))
        return usage(Tr::tr("--clients and --interactive go with check"));
    Core::PolicyUsage policyUsage;
    policyUsage.interactive = parser.isSet(interactiveOption);
    if (parser.isSet(clientsOption)) {
        bool ok = false;
        policyUsage.concurrentClients = parser.value(clientsOption).toInt(&ok);
        if (!ok || policyUsage.concurrentClients < 1 || policyUsage.concurrentClients > 100'000'000)
            return usage(Tr::tr("--clients must be a whole number from 1 to 100000000 (got \"%1\")")
                             .arg(parser.value(clientsOption)));
    }
    if (positional.size() > 1)
        return usage(Tr::tr("unexpected argument \"%1\"").arg(positional.at(1)));
    if (positional.isEmpty() == !parser.isSet(presetOption))
        return usage(Tr::tr("give either --preset ID or a policy file, not both and not neither"));
    const QString format = parser.value(formatOption).isEmpty() ? QStringLiteral("json") : parser.value(formatOption);
    if (format != QLatin1String("grpc") && format != QLatin1String("curl") && format != QLatin1String("json"))
        return usage(Tr::tr("--format must be grpc, curl or json (got \"%1\")").arg(format));
    if ((parser.isSet(serviceOption) || parser.isSet(methodOption)) && format != QLatin1String("grpc"))
        return usage(Tr::tr("--service and --method go with --format grpc"));
    if (parser.isSet(methodOption) && !parser.isSet(serviceOption))
        return usage(Tr::tr("--method needs --service"));

    Core::BackoffPolicy policy;
    if (parser.isSet(presetOption)) {
        const auto preset = Core::Presets::find(parser.value(presetOption));
        if (!preset) {
            QStringList ids;
            for (const Core::Presets::Preset &p : Core::Presets::all())
                ids << p.id;
            return usage(
                Tr::tr("no preset \"%1\" (known: %2)").arg(parser.value(presetOption), ids.join(QStringLiteral(", "))));
        }
        policy = *preset;
    } else {
        QFile file(positional.first());
        if (!file.open(QIODevice::ReadOnly))
            return usage(Tr::tr("cannot read %1: %2").arg(file.fileName(), file.errorString()));
        const auto read = Core::PolicyJson::fromJson(file.read(4 * 1024 * 1024));
        if (!read)
            return usage(Tr::tr("%1: %2").arg(file.fileName(), read.error()));
        policy = *read;
    }

    if (check) {
        QList<Core::PolicyIssue> issues = Core::validatePolicy(policy);
        issues.append(Core::advisePolicy(policy, policyUsage));
        out << Tr::tr("Policy \"%1\" for %n client(s)%2", nullptr, policyUsage.concurrentClients)
                   .arg(policy.name, policyUsage.interactive ? Tr::tr(", interactive") : QString())
            << Qt::endl;
        for (const Core::PolicyIssue &issue : std::as_const(issues))
            out << Tr::tr("warning: %1: %2").arg(issue.field, issue.message) << Qt::endl;
        if (issues.isEmpty())
            out << Tr::tr("no warnings") << Qt::endl;
        else
            out << Tr::tr("%n warning(s)", nullptr, int(issues.size())) << Qt::endl;
        return issues.isEmpty() ? ExitOk : ExitFailed;
    }

    QByteArray text;
    QStringList notes;
    if (format == QLatin1String("grpc")) {
        const auto exported
            = Core::GrpcServiceConfig::fromPolicy(policy, parser.value(serviceOption), parser.value(methodOption));
        text = Core::GrpcServiceConfig::toJson(exported);
        if (!text.endsWith('\n'))
            text += '\n';
        notes = exported.warnings;
    } else if (format == QLatin1String("curl")) {
        const auto flags = Core::CurlRetryFlags::fromPolicy(policy);
        QStringList words;
        for (const QString &a : flags.arguments)
            words << shellWord(a);
        text = words.join(QLatin1Char(' ')).toUtf8() + '\n';
        notes = flags.notes;
    } else {
        text = Core::PolicyJson::toJson(policy);
    }
    for (const QString &note : std::as_const(notes))
        err << Tr::tr("note: %1").arg(note) << Qt::endl;
    if (parser.isSet(outOption)) {
        const auto written = Core::ExportFile::write(parser.value(outOption), text);
        if (!written) {
            err << Tr::tr("retrylab policy: --out: %1").arg(written.error()) << Qt::endl;
            return ExitFailed;
        }
        return ExitOk;
    }
    out << QString::fromUtf8(text);
    out.flush();
    return ExitOk;
}

} // namespace RetryLab::Cli
