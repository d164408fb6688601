#include "app/cli/commandline.h"
#include "app/screenshotcommand.h"
#include "app/singleinstance.h"
#include "app/startupprobe.h"
#include "app/windowrequest.h"
#include "ui/mainwindow.h"
#include "ui/session/hosting/embeddedserver.h"

#include <QApplication>
#include <QLoggingCategory>

int main(int argc, char *argv[])
{
    using namespace RetryLab;
    App::StartupProbe::markMain();

    Cli::CommandLine line;
    line.commands.append({"screenshot",
        QT_TRANSLATE_NOOP("RetryLab::Cli", "run a short demo in the window and save each tab as a PNG file"),
        &App::runScreenshot, true});
    line.makeGuiApplication = [](int &count, char **values, bool forCommand) -> std::unique_ptr<QCoreApplication> {
        // Without any display, a command draws offscreen rather than fail: screenshots work in CI.
        if (forCommand && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
            && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        return std::make_unique<QApplication>(count, values);
    };
    line.windowOptions = App::WindowRequest::options();
    line.openWindow = [](const QCommandLineParser &parser) {
        const App::WindowRequest request = App::WindowRequest::fromParser(parser);
        // A window of this user and data is open already: it takes the request.
        if (App::SingleInstance::handOver(request.toJson()))
            return 0;
        App::SingleInstance instance;
        instance.listen();

        // The window shows what happens in its views: no line per failed attempt on the terminal,
        // nor the window's own notes, unless QT_LOGGING_RULES asks for them.
        QLoggingCategory::setFilterRules(
            QStringLiteral("retrylab.*.debug=false\nretrylab.*.info=false\nretrylab.core.executor.warning=false"));
        App::StartupProbe *probe = App::StartupProbe::fromEnvironment(qApp);
        if (probe)
            probe->markApplication();
        Ui::MainWindow window;
        QApplication::setDesktopFileName(QStringLiteral("io.github.retrylab.retrylab"));
        QObject::connect(&instance, &App::SingleInstance::messageReceived, &window, [&window](const QByteArray &json) {
            const auto handed = App::WindowRequest::fromJson(json);
            window.show();
            window.raise();
            window.activateWindow();
            if (handed)
                handed->applyTo(window);
        });
        if (probe) {
            probe->markWindowBuilt(window.server()->isRunning(), window.server()->errorString());
            probe->watchFirstPaint(&window);
        }
        window.show();
        request.applyTo(window);
        return QApplication::exec();
    };
    return line.exec(argc, argv);
}
