#pragma once

#include "app/cli/commands.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <functional>
#include <memory>

namespace RetryLab::Cli {

/// What main() does for `retrylab` and `retrylab-cli`: runs the subcommand named
/// by argv[1] under a QCoreApplication (under the application `makeGuiApplication`
/// makes where the command needs a GUI), answers --help and --version without a
/// display, and refuses an unknown command. Without a command, `openWindow` runs
/// with the parsed `windowOptions` and files (`retrylab FILE...`); when there is
/// none (retrylab-cli), the help goes to stderr with ExitUsage.
/// This library links no Qt Gui module: the GUI parts come from the caller.
struct CommandLine
{
    QList<Command> commands = headlessCommands();
    /// The program name in the help and error messages.
    QString program = QStringLiteral("retrylab");
    /// Makes the QApplication for the window (`forCommand` false) and for the
    /// commands that need a GUI (true).
    std::function<std::unique_ptr<QCoreApplication>(int &argc, char **argv, bool forCommand)> makeGuiApplication;
    /// Shows the window and runs the event loop, under makeGuiApplication's application;
    /// `parser` holds windowOptions and the files to open (its positional arguments).
    std::function<int(const QCommandLineParser &parser)> openWindow;
    /// Options of the window itself, listed in the help beside --help and --version.
    QList<QCommandLineOption> windowOptions;

    int exec(int &argc, char **argv) const;
};

/// Organisation, application name and version, and the English plural rules.
void setApplicationInfo();

} // namespace RetryLab::Cli
