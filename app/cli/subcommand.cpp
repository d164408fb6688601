#include "app/cli/subcommand.h"

#include "app/cli/clitr.h"
#include "app/cli/console.h"

#include <QTextStream>

#include <cstdio>

namespace RetryLab::Cli {

QStringList subcommandArguments(const QStringList &arguments)
{
    QStringList args = arguments;
    const QString command = args.value(1);
    if (args.size() >= 2)
        args.removeAt(1);
    if (!args.isEmpty())
        args[0] = QStringLiteral("retrylab ") + command;
    return args;
}

Core::Result<void> parseSubcommand(QCommandLineParser &parser, const QStringList &arguments)
{
    if (!parser.parse(subcommandArguments(arguments)))
        return Core::Result<void>::failure(parser.errorText());
    return {};
}

Core::Result<void> noPositionalArguments(const QCommandLineParser &parser)
{
    if (parser.positionalArguments().isEmpty())
        return {};
    return Core::Result<void>::failure(Tr::tr("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
}

Core::Result<void> readSeed(
    const QCommandLineParser &parser, const QCommandLineOption &option, std::optional<quint64> &seed)
{
    if (!parser.isSet(option))
        return {};
    bool ok = false;
    const quint64 value = parser.value(option).toULongLong(&ok);
    if (!ok)
        return Core::Result<void>::failure(
            Tr::tr("--seed must be a whole number (got \"%1\")").arg(parser.value(option)));
    seed = value;
    return {};
}

QString subcommandHelp(const QCommandLineParser &parser, const QString &usage)
{
    QString help = parser.helpText();
    help.replace(0, help.indexOf(QLatin1Char('\n')), usage);
    return help;
}

QString withHelpHint(const QString &command, const QString &message)
{
    return Tr::tr("%1; see retrylab %2 --help").arg(message, command);
}

int usageError(const QString &command, const QString &message, UsageHint hint, bool redact)
{
    const QString text = hint == UsageHint::SeeHelp ? withHelpHint(command, message) : message;
    Console(redact).error(Tr::tr("retrylab %1: %2").arg(command, text));
    return ExitUsage;
}

int printHelp(const QString &help)
{
    QTextStream(stdout) << help;
    return ExitOk;
}

} // namespace RetryLab::Cli
