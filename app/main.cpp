#include "app/commands.h"
#include "core/englishplurals.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

#include <cstring>
#include <memory>

using namespace RetryLab;

namespace {

const QList<App::Command> commands{
    {"run", QT_TRANSLATE_NOOP("main", "run a scenario file and check its expectations (exit 0, 1, 2)"), &App::runRun},
    {"demo", QT_TRANSLATE_NOOP("main", "show in the terminal why retries need jitter (a few seconds)"), &App::runDemo},
    {"conformance", QT_TRANSLATE_NOOP("main", "run the retry conformance matrix for a policy"), &App::runConformance},
    {"serve", QT_TRANSLATE_NOOP("main", "run the fault-injection server on loopback until interrupted"),
        &App::runServe},
    {"simulate", QT_TRANSLATE_NOOP("main", "herd simulator: compare backoff strategies on a virtual clock"),
        &App::runSimulate},
    {"screenshot", QT_TRANSLATE_NOOP("main", "run a short demo in the window and save each tab as a PNG file"),
        &App::runScreenshot, true},
};

const App::Command *findCommand(int argc, char **argv)
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

void setApplicationInfo()
{
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("retrylab"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RETRYLAB_VERSION));
    Core::EnglishPlurals::install();
}

void setUpParser(QCommandLineParser &parser)
{
    QString description = QCoreApplication::translate("main",
        "RetryLab: see and test how clients retry failed network requests.\n\n"
        "Without a command, opens the window. Commands:");
    for (const auto &command : commands) {
        description += QStringLiteral("\n  %1  %2")
                           .arg(QString::fromLatin1(command.name).leftJustified(12),
                               QCoreApplication::translate("main", command.summary));
    }
    description += QCoreApplication::translate("main", "\n\nRun 'retrylab COMMAND --help' for a command's options.");
    parser.setApplicationDescription(description);
    parser.addHelpOption();
    parser.addVersionOption();
}

} // namespace

int main(int argc, char *argv[])
{
    if (const App::Command *command = findCommand(argc, argv)) {
        std::unique_ptr<QCoreApplication> app;
        // Without any display, draw offscreen rather than fail: screenshots work in CI.
        if (command->needsGui && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")
            && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        if (command->needsGui)
            app = std::make_unique<QApplication>(argc, argv);
        else
            app = std::make_unique<QCoreApplication>(argc, argv);
        setApplicationInfo();
        return command->run(app->arguments());
    }

    if (needsNoDisplay(argc, argv)) {
        QCoreApplication app(argc, argv);
        setApplicationInfo();
        QCommandLineParser parser;
        setUpParser(parser);
        parser.process(app);
        return App::ExitOk;
    }

    if (argc >= 2 && argv[1][0] != '-') {
        QCoreApplication app(argc, argv);
        QTextStream(stderr) << QCoreApplication::translate(
            "main", "retrylab: unknown command \"%1\"; see retrylab --help\n")
                                   .arg(QString::fromLocal8Bit(argv[1]));
        return App::ExitUsage;
    }

    QApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    setUpParser(parser);
    parser.process(app);

    Ui::MainWindow window;
    window.show();
    return app.exec();
}
