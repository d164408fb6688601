#pragma once

#include "app/cli/commands.h"

#include "core/util/result.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Cli {

/// `retrylab COMMAND [options]` as QCommandLineParser should see it: the program
/// and the command become one program name, "retrylab COMMAND", so that its
/// positional arguments are the command's own.
QStringList subcommandArguments(const QStringList &arguments);

/// Parses `arguments` (program, command, options...) with `parser` as
/// `retrylab COMMAND` (see subcommandArguments); the parser's error otherwise.
Core::Result<void> parseSubcommand(QCommandLineParser &parser, const QStringList &arguments);

/// The parser's help with `usage` ("Usage: retrylab run [options] SCENARIO.json")
/// as its first line: the parser names the binary by its path, while the usage
/// says what people type.
QString subcommandHelp(const QCommandLineParser &parser, const QString &usage);

/// Whether a usage error points at the command's help.
enum class UsageHint { None, SeeHelp };

/// "MESSAGE; see retrylab COMMAND --help".
QString withHelpHint(const QString &command, const QString &message);

/// For a command that takes no positional arguments: `unexpected argument "X"` for the first one given.
Core::Result<void> noPositionalArguments(const QCommandLineParser &parser);

/// --seed S (`option`), a whole number, into `seed`; `seed` stays as it is when the option is not given.
Core::Result<void> readSeed(
    const QCommandLineParser &parser, const QCommandLineOption &option, std::optional<quint64> &seed);

/// The parse() of a command whose options are a table: a `Table` with its
/// `help` option and addTo(QCommandLineParser &). The parser's error; with
/// --help, Options that hold only the help (the parser's, with `usage` as its
/// first line, see subcommandHelp, then `helpEnd`); else the Options `read`
/// fills from the parsed options, or its usage error. With `hintingCommand`,
/// the parser's own errors (an unknown option, a missing value) get the help
/// hint, for a command whose other usage errors go without it.
template<typename Options, typename Table>
Core::Result<Options> parseOptionTable(const QStringList &arguments, const QString &usage,
    Core::Result<void> (*read)(const QCommandLineParser &, const Table &, Options &),
    const QString &helpEnd = QStringLiteral("\n"), const QString &hintingCommand = {})
{
    const Table table;
    QCommandLineParser parser;
    table.addTo(parser);
    if (const auto parsed = parseSubcommand(parser, arguments); !parsed) {
        if (hintingCommand.isEmpty())
            return parsed.errorDetail();
        return Core::Result<Options>::failure(withHelpHint(hintingCommand, parsed.error()));
    }
    Options options;
    if (parser.isSet(table.help)) {
        options.help = subcommandHelp(parser, usage) + helpEnd;
        return options;
    }
    if (const auto done = read(parser, table, options); !done)
        return done.errorDetail();
    return options;
}

/// The one way a command reports a usage error: "retrylab COMMAND: MESSAGE" on
/// standard error, through a Console (so redacted, unless `redact` is false, and
/// safe for a terminal), with the hint after it when `hint` asks. Returns ExitUsage.
int usageError(const QString &command, const QString &message, UsageHint hint = UsageHint::None, bool redact = true);

/// Writes a command's help to standard output as it is; returns ExitOk.
int printHelp(const QString &help);

/// What each command's entry does with its arguments, in the shape every
/// app/cli/cmd_*.h has: `parse` reads them into the command's Options (or says
/// what is wrong with them, a usage error), an Options with `help` set prints
/// that help, and any other goes to `run`.
template<typename Options>
int parseAndRun(const QString &command, const QStringList &arguments,
    Core::Result<Options> (*parse)(const QStringList &), int (*run)(const Options &), UsageHint hint = UsageHint::None)
{
    const Core::Result<Options> options = parse(arguments);
    if (!options)
        return usageError(command, options.error(), hint);
    if (!options->help.isEmpty())
        return printHelp(options->help);
    return run(*options);
}

} // namespace RetryLab::Cli
