#pragma once

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

namespace RetryLab::Cli {

/// `retrylab COMMAND [options]` as QCommandLineParser should see it: the program
/// and the command become one program name, "retrylab COMMAND", so that its
/// positional arguments are the command's own.
QStringList subcommandArguments(const QStringList &arguments);

/// The parser's help with `usage` ("Usage: retrylab run [options] SCENARIO.json")
/// as its first line: the parser names the binary by its path, while the usage
/// says what people type.
QString subcommandHelp(const QCommandLineParser &parser, const QString &usage);

} // namespace RetryLab::Cli
