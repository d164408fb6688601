#include "app/cli/commandline.h"

#include "app/cli/clitr.h"
#include "app/cli/headlessapplication.h"

#include "core/runtime/descriptorlimit.h"
#include "core/runtime/memorylimit.h"
#include "core/runtime/workerthread.h"
#include "core/util/englishplurals.h"
#include "core/util/version.h"

#include <QAbstractEventDispatcher>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEvent>
#include <QFileInfo>
#include <QTextStream>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace RetryLab::Cli {

namespace {

const Command *findCommand(const QList<Command> &commands, int argc, char **argv)
{
    if (argc < 2)
        return nullptr;
    for (const auto &command : commands) {
        if (std::strcmp(argv[1], command.name) == 0)
            return &command;
    }
    return nullptr;
}

// Options that are answered without a window must not create a QApplication:
// they have to work over SSH and in CI, where no display exists.
bool needsNoDisplay(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0 || std::strcmp(arg, "--version") == 0
            || std::strcmp(arg, "-v") == 0 || std::strcmp(arg, "--help-all") == 0)
            return true;
    }
    return false;
}

void setUpParser(QCommandLineParser &parser, const CommandLine &line)
{
    QString description = line.openWindow
        ? Tr::tr("RetryLab: see and test how clients retry failed network requests.\n\n"
                 "Without a command, opens the window. Commands:")
        : Tr::tr("RetryLab without a window: see and test how clients retry failed network requests.\n\n"
                 "Commands:");
    for (const auto &command : line.commands) {
        description += QStringLiteral("\n  %1  %2")
                           .arg(QString::fromLatin1(command.name).leftJustified(12), Tr::tr(command.summary));
    }
    description += Tr::tr("\n\nRun '%1 COMMAND --help' for a command's options.").arg(line.program);
    parser.setApplicationDescription(description);
    parser.addHelpOption();
    parser.addVersionOption();
    if (line.openWindow) {
        parser.addOptions(line.windowOptions);
        parser.addPositionalArgument(QStringLiteral("FILE"),
            Tr::tr("A file to open in the window: a run report, a scenario, a collection, a monitors file or a "
                   "policy (told apart by content). With a window already open, it opens there."),
            QStringLiteral("[FILE...]"));
    }
}

// `retrylab FILE`: a file of that name, which is no command, opens in the window.
bool namesFileToOpen(const CommandLine &line, int argc, char **argv)
{
    return line.openWindow && argc >= 2 && QFileInfo::exists(QString::fromLocal8Bit(argv[1]));
}

} // namespace

const QList<Command> &headlessCommands()
{
    static const QList<Command> commands{
        {"run", QT_TRANSLATE_NOOP("RetryLab::Cli", "run a scenario file and check its expectations (exit 0, 1, 2)"),
            &runRun},
        {"demo", QT_TRANSLATE_NOOP("RetryLab::Cli", "show in the terminal why retries need jitter (a few seconds)"),
            &runDemo},
        {"conformance", QT_TRANSLATE_NOOP("RetryLab::Cli", "run the retry conformance matrix for a policy"),
            &runConformance},
        {"monitor",
            QT_TRANSLATE_NOOP("RetryLab::Cli",
                "watch endpoints for days under retry policies, keeping every check and attempt (exit 0, 2)"),
            &runMonitor},
        {"history",
            QT_TRANSLATE_NOOP("RetryLab::Cli",
                "what the monitors kept: availability of checks and of attempts, incidents, what-if (exit 0, 2)"),
            &runHistory},
        {"serve", QT_TRANSLATE_NOOP("RetryLab::Cli", "run the fault-injection server on loopback until interrupted"),
            &runServe},
        {"simulate",
            QT_TRANSLATE_NOOP("RetryLab::Cli", "herd simulator: compare backoff strategies on a virtual clock"),
            &runSimulate},
        {"request",
            QT_TRANSLATE_NOOP("RetryLab::Cli", "send one request, as curl would, under a retry policy (exit 0, 1, 2)"),
            &runRequest},
        {"observe",
            QT_TRANSLATE_NOOP("RetryLab::Cli",
                "watch clients retry against the fault server, infer their policies and judge them (exit 0, 1, 2)"),
            &runObserve},
        {"proxy",
            QT_TRANSLATE_NOOP("RetryLab::Cli",
                "a reverse proxy on loopback in front of a real service, watching the clients that use it"),
            &runProxy},
        {"policy",
            QT_TRANSLATE_NOOP("RetryLab::Cli",
                "export a retry policy as a gRPC service config, curl flags or JSON (policy export), "
                "or check it for aggressive settings (policy check)"),
            &runPolicy},
        {"layers",
            QT_TRANSLATE_NOOP("RetryLab::Cli",
                "stack 2 to 4 retry policies and see how the attempts at the server multiply (exit 0, 1, 2)"),
            &runLayers},
        {"compare",
            QT_TRANSLATE_NOOP(
                "RetryLab::Cli", "run one fault scenario under 2 to 4 policies at once and compare them side by side"),
            &runCompare},
        {"export-locust",
            QT_TRANSLATE_NOOP("RetryLab::Cli",
                "write a Locust file that runs a scenario under its retry policy on "
                "Locust's distributed workers"),
            &runExportLocust},
        {"import-locust",
            QT_TRANSLATE_NOOP("RetryLab::Cli", "read the attempt logs of Locust workers back into a RetryLab report"),
            &runImportLocust},
    };
    return commands;
}

void setApplicationInfo()
{
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("retrylab"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RETRYLAB_VERSION));
    Core::EnglishPlurals::install();
}

// Headless commands run on an epoll loop (on Linux; RETRYLAB_DISPATCHER=qt for Qt's
// own) rather than GLib's, unless the user chose: a server or a proxy answering tens
// of thousands of requests a second posts events all the time, and GLib's loop
// writes to its wake-up descriptor at every post where these write once until the
// loop wakes (a sixth more requests a second for `serve`); and Qt's own polls every
// connection at each turn, which costs a server holding ten thousand of them more
// than its requests do. Set before the application, which keeps the dispatcher.
namespace {
void preferQtEventLoop()
{
    if (qEnvironmentVariableIsSet("QT_NO_GLIB"))
        return; // the user's choice
    qputenv("QT_NO_GLIB", "1"); // for the threads Qt starts itself
    if (QAbstractEventDispatcher *dispatcher = Core::makeWorkerDispatcher())
        QCoreApplication::setEventDispatcher(dispatcher);
}
} // namespace

int CommandLine::exec(int &argc, char **argv) const
{
    // Before anything opens a socket: the window, `serve` and `run` all hold
    // a descriptor per connection, and 1024 (Linux's default soft limit) is
    // fewer than a herd or a slowloris test opens.
    Core::DescriptorLimit::raiseSoftToHard();
    if (const Command *command = findCommand(commands, argc, argv)) {
#if defined(Q_OS_UNIX)
        // `retrylab run ... | head`: once the reader is gone, printing stops (writes fail
        // with EPIPE) while the run goes on and writes its report and files, instead of
        // the process dying silently with 141.
        ::signal(SIGPIPE, SIG_IGN);
#endif
        std::unique_ptr<QCoreApplication> app;
        const bool windowless = !(command->needsGui && makeGuiApplication);
        if (!windowless) {
            app = makeGuiApplication(argc, argv, true);
        } else {
            preferQtEventLoop();
            app = std::make_unique<HeadlessApplication>(argc, argv);
        }
        setApplicationInfo();
        int code = command->run(app->arguments());
        if (windowless && Core::MemoryLimit::exhausted()) {
            // HeadlessApplication caught a failed allocation: the command ended early (as if
            // interrupted) and wrote what it had; its result cannot be a success, and the
            // handler it abandoned may have left objects their destructors cannot undo.
            QTextStream(stderr) << Tr::tr("%1: an allocation failed (ulimit -v?): the command ended early and "
                                          "fails; what it recorded was written\n")
                                       .arg(program);
            std::fflush(stdout);
            std::fflush(stderr);
            std::_Exit(code == ExitOk ? ExitFailed : code);
        }
        // What the command left to deleteLater() goes before the application: network
        // managers among it, whose threads hold OpenSSL's per-thread state until they
        // end. They have been joined once the application is gone, but may not have
        // ended yet: a command without windows waits for that (a second at most)
        // before the process exits. One with windows keeps threads of the desktop's
        // (D-Bus) to the end, and would always wait the whole second.
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        app.reset();
        if (windowless)
            Core::awaitThreadCount(1, std::chrono::seconds(1));
        return code;
    }

    if (needsNoDisplay(argc, argv)) {
        QCoreApplication app(argc, argv);
        setApplicationInfo();
        QCommandLineParser parser;
        setUpParser(parser, *this);
        parser.process(app);
        return ExitOk;
    }

    if (argc >= 2 && argv[1][0] != '-' && !namesFileToOpen(*this, argc, argv)) {
        QCoreApplication app(argc, argv);
        QTextStream(stderr)
            << Tr::tr("%1: unknown command \"%2\"; see %1 --help\n").arg(program, QString::fromLocal8Bit(argv[1]));
        return ExitUsage;
    }

    if (!openWindow || !makeGuiApplication) {
        QCoreApplication app(argc, argv);
        setApplicationInfo();
        QCommandLineParser parser;
        setUpParser(parser, *this);
        if (!parser.parse(app.arguments())) {
            QTextStream(stderr) << program << ": " << parser.errorText() << Qt::endl;
            return ExitUsage;
        }
        QTextStream(stderr) << parser.helpText();
        return ExitUsage;
    }

    const auto app = makeGuiApplication(argc, argv, false);
    setApplicationInfo();
    QCommandLineParser parser;
    setUpParser(parser, *this);
    parser.process(*app);
    return openWindow(parser);
}

} // namespace RetryLab::Cli
