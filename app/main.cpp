#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstring>

namespace {

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
}

void addCommonOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "RetryLab: see and test how clients retry failed network requests."));
    parser.addHelpOption();
    parser.addVersionOption();
}

} // namespace

int main(int argc, char *argv[])
{
    if (needsNoDisplay(argc, argv)) {
        QCoreApplication app(argc, argv);
        setApplicationInfo();
        QCommandLineParser parser;
        addCommonOptions(parser);
        parser.process(app);
        return 0;
    }

    QApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    addCommonOptions(parser);
    parser.process(app);

    RetryLab::Ui::MainWindow window;
    window.show();
    return app.exec();
}
