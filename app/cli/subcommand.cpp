#include "app/cli/subcommand.h"

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

QString subcommandHelp(const QCommandLineParser &parser, const QString &usage)
{
    QString help = parser.helpText();
    help.replace(0, help.indexOf(QLatin1Char('\n')), usage);
    return help;
}

} // namespace RetryLab::Cli
