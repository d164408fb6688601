#include "app/screenshotcommand.h"

#include "app/apptr.h"
#include "app/cli/commands.h"
#include "app/cli/subcommand.h"
#include "app/clientsscreenshot.h"
#include "app/importscreenshots.h"
#include "app/monitorscreenshots.h"
#include "app/proxyscreenshot.h"
#include "app/screenshotcollections.h"
#include "app/screenshotcontext.h"
#include "app/screenshotstep.h"
#include "app/windowscreenshots.h"
#include "ui/mainwindow.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/widgets/darkpalette.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QPalette>
#include <QSettings>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QTextStream>

#include <variant>

namespace RetryLab::App {

using enum Cli::ExitCode;

namespace {

Q_LOGGING_CATEGORY(lcScreenshot, "retrylab.app.screenshot")

// The script, in order: each step starts from the window the one before left.
constexpr ScreenshotStep steps[] = {
    {"arrange the window", WindowScreenshots::arrange},
    {"demo run", WindowScreenshots::runDemo},
    {"request shown", WindowScreenshots::showRequest},
    {"tabs and policy dock", WindowScreenshots::saveTabs},
    {"attempt inspector", WindowScreenshots::saveInspector},
    {"attempt inspector in the window's layout", WindowScreenshots::saveInspectorInLayout},
    {"connection", WindowScreenshots::saveConnection},
    {"auth", WindowScreenshots::saveAuth},
    {"body", WindowScreenshots::saveBody},
    {"read-modify-write", WindowScreenshots::saveReadModifyWrite},
    {"collections", WindowScreenshots::saveCollections},
    {"collection run", WindowScreenshots::saveCollectionRun},
    {"imports and opened run", saveImportScreenshots},
    {"clients", saveClientsScreenshot},
    {"proxy", saveProxyScreenshot},
    {"preferences", WindowScreenshots::savePreferences},
    {"presentation", WindowScreenshots::savePresentation},
    {"layer calculator", WindowScreenshots::saveLayers},
    {"compare policies", WindowScreenshots::saveCompare},
    {"hedging compared", WindowScreenshots::saveCompareHedging},
    {"policy export", WindowScreenshots::savePolicyExport},
    {"long-running operation", WindowScreenshots::saveOperation},
    {"a live batch", WindowScreenshots::saveLiveBatch},
    {"Cloud Storage cases", WindowScreenshots::saveStorageCases},
    // Last: the monitors go on checking (and telling of what they find) once started.
    {"monitors and their history", MonitorScreenshots::start},
    {"monitors", MonitorScreenshots::saveMonitors},
    {"monitor history", MonitorScreenshots::saveHistory},
    {"incidents", MonitorScreenshots::saveIncidents},
};

struct Options
{
    QDir out;
    bool dark = false;
    QSize size;
    int holdSeconds = 0;
};

// The command's options, or the exit code to end with when there is nothing to run
// (the help, a usage error).
std::variant<Options, int> parseOptions(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Opens the window, runs a short demo against the embedded fault server (requests that retry, some that "
               "fail for good, a batch, a scripted scenario, a small herd simulation), and saves each tab and the "
               "policy dock as PNG files. Uses settings of its own, not yours."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption outOption(
        QStringLiteral("out"), Tr::tr("Folder for the PNG files (created if missing)."), Tr::tr("DIR"));
    const QCommandLineOption darkOption(
        QStringLiteral("dark"), Tr::tr("Use a dark palette, as a desktop in dark mode would."));
    const QCommandLineOption sizeOption(QStringLiteral("size"),
        Tr::tr("Window size in pixels, as the screen it plays (default 1280x800; under QT_SCALE_FACTOR the window fits "
               "this many pixels)."),
        Tr::tr("WxH"), QStringLiteral("1280x800"));
    const QCommandLineOption holdOption(QStringLiteral("hold"),
        Tr::tr("Keep the window open this many seconds after saving (to capture the screen)."), Tr::tr("S"),
        QStringLiteral("0"));
    parser.addOptions({helpOption, outOption, darkOption, sizeOption, holdOption});

    if (!parser.parse(Cli::subcommandArguments(arguments))) {
        err << Tr::tr("retrylab screenshot: %1; see retrylab screenshot --help").arg(parser.errorText()) << Qt::endl;
        return ExitUsage;
    }
    if (parser.isSet(helpOption)) {
        out << Cli::subcommandHelp(parser, Tr::tr("Usage: retrylab screenshot --out DIR [options]"));
        return ExitOk;
    }
    if (!parser.isSet(outOption) || parser.value(outOption).isEmpty()) {
        err << Tr::tr("retrylab screenshot: --out DIR is required") << Qt::endl;
        return ExitUsage;
    }
    const QStringList size = parser.value(sizeOption).split(QLatin1Char('x'));
    const int width = size.value(0).toInt();
    const int height = size.size() == 2 ? size.value(1).toInt() : 0;
    if (width < 640 || width > 8000 || height < 480 || height > 8000) {
        err << Tr::tr("retrylab screenshot: --size must be WxH from 640x480 to 8000x8000 (got \"%1\")")
                   .arg(parser.value(sizeOption))
            << Qt::endl;
        return ExitUsage;
    }
    bool holdOk = false;
    const int hold = parser.value(holdOption).toInt(&holdOk);
    if (!holdOk || hold < 0 || hold > 3600) {
        err << Tr::tr("retrylab screenshot: --hold must be 0 to 3600 seconds") << Qt::endl;
        return ExitUsage;
    }

    Options options;
    options.out = QDir(parser.value(outOption));
    options.dark = parser.isSet(darkOption);
    options.size = QSize(width, height);
    options.holdSeconds = hold;
    return options;
}

// Makes the pictures' folder and checks that it can be written to; the problem, or an empty string.
QString prepareFolder(const QDir &dir)
{
    if (!QDir().mkpath(dir.absolutePath()))
        return Tr::tr("cannot create the folder %1").arg(QDir::toNativeSeparators(dir.absolutePath()));
    QFile probe(dir.filePath(QStringLiteral(".retrylab-write-test")));
    if (!probe.open(QIODevice::WriteOnly))
        return Tr::tr("cannot write into %1: %2")
            .arg(QDir::toNativeSeparators(dir.absolutePath()), probe.errorString());
    probe.close();
    probe.remove();
    return {};
}

// The demo must neither read nor change the user's own settings: they, and the
// embedded server's CA file (EmbeddedServer::caFilePath()), are kept in `sandbox`.
void useSandbox(const QString &sandbox)
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, sandbox);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, sandbox);
    qputenv("XDG_DATA_HOME", QFile::encodeName(sandbox));
}

} // namespace

int runScreenshot(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const auto parsed = parseOptions(arguments, out, err);
    if (const int *exitCode = std::get_if<int>(&parsed))
        return *exitCode;
    const Options &options = std::get<Options>(parsed);
    if (const QString problem = prepareFolder(options.out); !problem.isEmpty()) {
        err << Tr::tr("retrylab screenshot: %1").arg(problem) << Qt::endl;
        return ExitFailed;
    }
    QTemporaryDir sandbox;
    if (!sandbox.isValid()) {
        err << Tr::tr("retrylab screenshot: cannot create a temporary folder: %1").arg(sandbox.errorString())
            << Qt::endl;
        return ExitFailed;
    }
    useSandbox(sandbox.path());

    // One line per attempt on stderr would bury the list of files; QT_LOGGING_RULES still wins.
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(
            QStringLiteral("retrylab.*.debug=false\nretrylab.*.info=false\nretrylab.core.executor.warning=false"));

    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (options.dark)
        QApplication::setPalette(Ui::darkPalette());

    // Collections and environments of the demo's own, in the sandbox too.
    const QString dataDirectory = QDir(sandbox.path()).filePath(QStringLiteral("data"));
    if (const QString problem = ScreenshotCollections::write(dataDirectory); !problem.isEmpty())
        err << Tr::tr("retrylab screenshot: %1").arg(problem) << Qt::endl;
    // --size is the screen's size in pixels: under QT_SCALE_FACTOR the window's units are larger.
    const qreal ratio = qApp->devicePixelRatio();
    const QSize size(int(options.size.width() / ratio), int(options.size.height() / ratio));
    Ui::MainWindow::Options windowOptions;
    windowOptions.dataDirectory = dataDirectory;
    windowOptions.screenSize = size;
    Ui::MainWindow window(windowOptions);
    if (!window.server()->isRunning()) {
        err << Tr::tr("retrylab screenshot: the embedded server did not start: %1").arg(window.server()->errorString())
            << Qt::endl;
        return ExitFailed;
    }

    ScreenshotContext context(window, size, options.out, QDir(sandbox.path()), out, err);
    context.setPixelSize(options.size);
    for (const ScreenshotStep &step : steps) {
        qCDebug(lcScreenshot) << "step:" << step.name;
        step.run(context);
    }
    if (const QString problem = context.writeManifest(); !problem.isEmpty())
        context.fail(problem);
    if (options.holdSeconds > 0)
        ScreenshotContext::settle(options.holdSeconds * 1000);
    window.close();
    return context.failures() == 0 ? ExitOk : ExitFailed;
}

} // namespace RetryLab::App
