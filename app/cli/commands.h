#pragma once

#include <QList>
#include <QStringList>

namespace RetryLab::Cli {

/// Exit codes shared by every subcommand.
enum ExitCode {
    ExitOk = 0,
    ExitFailed = 1, ///< ran, but an expectation (or the run itself) failed
    ExitUsage = 2, ///< bad arguments or an unreadable / invalid file
};

/// A subcommand: `retrylab NAME [options]`. `arguments` starts with the
/// program name followed by the subcommand name, then the subcommand's own options.
struct Command
{
    const char *name;
    const char *summary; ///< translated in the "main" context
    int (*run)(const QStringList &arguments);
    bool needsGui = false; ///< runs under QApplication instead of QCoreApplication
};

/// The subcommands that need no display: run, demo, conformance, serve, simulate, request, observe, proxy,
/// policy.
const QList<Command> &headlessCommands();

// One function per subcommand, each in its own file (app/cli/cmd_NAME.cpp).
int runSimulate(const QStringList &arguments);
int runServe(const QStringList &arguments);
int runRun(const QStringList &arguments);
int runDemo(const QStringList &arguments);
int runConformance(const QStringList &arguments);
int runRequest(const QStringList &arguments);
int runObserve(const QStringList &arguments);
int runProxy(const QStringList &arguments);
int runPolicy(const QStringList &arguments);
int runLayers(const QStringList &arguments);
int runCompare(const QStringList &arguments);
int runExportLocust(const QStringList &arguments);
int runImportLocust(const QStringList &arguments);
int runMonitor(const QStringList &arguments);
int runHistory(const QStringList &arguments);

} // namespace RetryLab::Cli
