#include "app/cli/commandline.h"
#include "app/screenshotcommand.h"
#include "app/startupprobe.h"
#include "ui/mainwindow.h"
#include "ui/session/hosting/embeddedserver.h"

#include <QApplication>

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
    line.openWindow = [] {
        App::StartupProbe *probe = App::StartupProbe::fromEnvironment(qApp);
        if (probe)
            probe->markApplication();
        Ui::MainWindow window;
        if (probe) {
            probe->markWindowBuilt(window.server()->isRunning(), window.server()->errorString());
            probe->watchFirstPaint(&window);
        }
        window.show();
        return QApplication::exec();
    };
    return line.exec(argc, argv);
}
