#include "app/screenshotcommand.h"

#include "app/apptr.h"
#include "app/cli/commands.h"
#include "app/cli/subcommand.h"
#include "app/clientsscreenshot.h"
#include "app/importscreenshots.h"
#include "app/proxyscreenshot.h"
#include "app/screenshotcollections.h"
#include "core/executor/retryexecutor.h"
#include "core/herd/herdparameters.h"
#include "core/policy/presets.h"
#include "core/record/transportoptions.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/conformance/conformanceview.h"
#include "ui/herd/simulatorview.h"
#include "ui/mainwindow.h"
#include "ui/policy/comparedialog.h"
#include "ui/policy/layercalculator.h"
#include "ui/policy/policypanel.h"
#include "ui/policy/policystackchooser.h"
#include "ui/presentationcontroller.h"
#include "ui/request/requestcomposer.h"
#include "ui/run/attemptinspector.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/runactions.h"
#include "ui/server/serverview.h"
#include "ui/session/embeddedserver.h"
#include "ui/session/requestrunner.h"
#include "ui/session/runsession.h"
#include "ui/transportcontroller.h"
#include "ui/widgets/darkpalette.h"
#include "ui/widgets/serverlogmodel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDeadlineTimer>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QEventLoop>
#include <QFile>
#include <QLoggingCategory>
#include <QPalette>
#include <QSettings>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <QTimer>
#include <QTreeView>

#include <functional>

namespace RetryLab::App {

using enum Cli::ExitCode;

namespace {

// Runs the event loop until `done` or the deadline; false on the deadline.
bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(5);
    }
    return true;
}

void settle(int ms)
{
    waitFor([] { return false; }, ms);
}

// Quick enough to watch and varied enough to show every colour of the views. The return type
// is deduced: lupdate misreads a definition that starts with a qualified type
// (Core::BackoffPolicy demoPolicy()) and files its tr() strings under a wrong context.
auto demoPolicy()
{
    Core::BackoffPolicy policy;
    policy.name = Tr::tr("Screenshot demo");
    policy.description = Tr::tr("Google's truncated exponential backoff, scaled down to milliseconds.");
    policy.algorithm = Core::BackoffAlgorithm::GoogleTruncatedExponential;
    policy.baseDelayMs = 150.0;
    policy.multiplier = 2.0;
    policy.maxBackoffMs = 2000.0;
    policy.jitterMs = 150.0;
    policy.maxAttempts = 5;
    policy.attemptTimeoutMs = 1500.0;
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 25;
    policy.retryBudget.kind = Core::RetryBudgetKind::AwsStandard;
    return policy;
}

} // namespace

int runScreenshot(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

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
    const QCommandLineOption sizeOption(
        QStringLiteral("size"), Tr::tr("Window size (default 1280x800)."), Tr::tr("WxH"), QStringLiteral("1280x800"));
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

    const QDir dir(parser.value(outOption));
    if (!QDir().mkpath(dir.absolutePath())) {
        err << Tr::tr("retrylab screenshot: cannot create the folder %1")
                   .arg(QDir::toNativeSeparators(dir.absolutePath()))
            << Qt::endl;
        return ExitFailed;
    }
    {
        QFile probe(dir.filePath(QStringLiteral(".retrylab-write-test")));
        if (!probe.open(QIODevice::WriteOnly)) {
            err << Tr::tr("retrylab screenshot: cannot write into %1: %2")
                       .arg(QDir::toNativeSeparators(dir.absolutePath()), probe.errorString())
                << Qt::endl;
            return ExitFailed;
        }
        probe.close();
        probe.remove();
    }

    // The demo must neither read nor change the user's own settings.
    QTemporaryDir settingsDir;
    if (!settingsDir.isValid()) {
        err << Tr::tr("retrylab screenshot: cannot create a temporary folder: %1").arg(settingsDir.errorString())
            << Qt::endl;
        return ExitFailed;
    }
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    // The embedded server's CA file too (EmbeddedServer::caFilePath()).
    qputenv("XDG_DATA_HOME", QFile::encodeName(settingsDir.path()));

    // One line per attempt on stderr would bury the list of files; QT_LOGGING_RULES still wins.
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(
            QStringLiteral("retrylab.*.debug=false\nretrylab.*.info=false\nretrylab.core.executor.warning=false"));

    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (parser.isSet(darkOption))
        QApplication::setPalette(Ui::darkPalette());

    // Collections and environments of the demo's own, in the same temporary folder.
    const QString dataDirectory = QDir(settingsDir.path()).filePath(QStringLiteral("data"));
    if (const QString problem = ScreenshotCollections::write(dataDirectory); !problem.isEmpty())
        err << Tr::tr("retrylab screenshot: %1").arg(problem) << Qt::endl;
    Ui::MainWindow::Options windowOptions;
    windowOptions.dataDirectory = dataDirectory;
    Ui::MainWindow window(windowOptions);
    if (!window.server()->isRunning()) {
        err << Tr::tr("retrylab screenshot: the embedded server did not start: %1").arg(window.server()->errorString())
            << Qt::endl;
        return ExitFailed;
    }
    window.resize(width, height);
    window.move(0, 0);
    // The tabs' pictures keep their width; collections.png shows the sidebar.
    window.collectionsDock()->hide();
    window.show();
    window.resizeDocks({window.policyDock()}, {width * 34 / 100}, Qt::Horizontal);
    settle(200);

    // The demo run; the views count time from its start.
    window.policyPanel()->setPolicy(demoPolicy());
    window.findChild<Ui::RunActions *>(QStringLiteral("runActions"))->clearRun();
    Ui::RequestRunner *runner = window.runner();
    Core::RequestDraft base;
    base.seed = 7; // the same pictures every time
    base.concurrency = 4;
    base.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer demo-token-123"), true},
        {QStringLiteral("X-Request-Source"), QStringLiteral("retrylab screenshot"), true}};

    QStringList problems;
    const auto send = [&](const QString &urlTemplate, const QString &method = QStringLiteral("GET")) {
        Core::RequestDraft draft = base;
        draft.urlTemplate = urlTemplate;
        draft.method = method;
        if (const auto id = runner->send(draft); !id)
            problems.append(id.error());
    };
    for (int i = 0; i < 3; ++i) {
        send(Core::RequestDraft::defaultUrlTemplate());
        settle(120);
    }
    send(QStringLiteral("{server}/status/503"));
    settle(100);
    send(QStringLiteral("{server}/status/404"));
    send(QStringLiteral("{server}/status/503"), QStringLiteral("POST"));
    {
        // The service stays down; after the policy gives up, its fallback answers on the same lane.
        Core::RequestDraft withFallback = base;
        withFallback.urlTemplate = QStringLiteral("{server}/status/503?service=orders");
        withFallback.fallbackTemplates = {QStringLiteral("{server}/status/200?service=orders-replica")};
        if (const auto id = runner->send(withFallback); !id)
            problems.append(id.error());
    }
    settle(100);
    window.serverView()->setScenario(Ui::ServerScenario::fromPreset(QStringLiteral("reset-429-200")));
    send(QStringLiteral("{server}/status/200"));
    window.serverView()->setScenario({});
    settle(300);
    Core::RequestDraft batch = base;
    batch.urlTemplate = QStringLiteral("{server}/fail/5?p=0.3&key={id}");
    batch.batchCount = 8;
    batch.concurrency = 3;
    if (const auto started = runner->startBatch(batch); !started)
        problems.append(started.error());

    Core::HerdParameters herd = Core::HerdParameters::defaultsFor(Core::HerdModel::CapacityLimited);
    herd.clientCounts = {20, 40, 60, 80, 100, 120, 140, 160};
    herd.runs = 12;
    window.simulatorView()->setParameters(herd);
    bool simulated = false;
    QObject::connect(window.simulatorView(), &Ui::SimulatorView::finished, &window, [&] { simulated = true; });
    QObject::connect(window.simulatorView(), &Ui::SimulatorView::failed, &window, [&](const QString &message) {
        problems.append(message);
        simulated = true;
    });
    window.simulatorView()->start();

    bool conformed = false;
    QObject::connect(window.conformanceView(), &Ui::ConformanceView::finished, &window, [&] { conformed = true; });
    QObject::connect(window.conformanceView(), &Ui::ConformanceView::failed, &window, [&](const QString &message) {
        problems.append(message);
        conformed = true;
    });
    window.conformanceView()->run();

    const bool finished
        = waitFor([&] { return window.executor()->activeCount() == 0 && simulated && conformed; }, 60'000);
    if (!finished) {
        err << Tr::tr("retrylab screenshot: the demo did not finish within a minute; saving what there is") << Qt::endl;
        runner->stop();
    }
    for (const QString &problem : std::as_const(problems))
        err << Tr::tr("retrylab screenshot: %1").arg(problem) << Qt::endl;

    // What a person sees after pressing Send on the defaults: the default request,
    // a credential header masked, the server scenario in place.
    Core::RequestDraft shown = base;
    shown.concurrency = 6;
    window.composer()->setDraft(shown);
    window.serverView()->setScenario(Ui::ServerScenario::fromPreset(QStringLiteral("three-503")));
    window.session()->flush();
    window.serverView()->logModel()->flush();
    window.timelineView()->zoomToFit();
    window.tabs()->setFocus(Qt::OtherFocusReason);
    window.statisticsView()->refresh();
    settle(400);

    struct Shot
    {
        Ui::MainWindow::Tab tab;
        QString file;
    };
    const QList<Shot> shots{
        {Ui::MainWindow::Tab::Timeline, QStringLiteral("timeline.png")},
        {Ui::MainWindow::Tab::ErrorLog, QStringLiteral("errorlog.png")},
        {Ui::MainWindow::Tab::Statistics, QStringLiteral("statistics.png")},
        {Ui::MainWindow::Tab::Server, QStringLiteral("server.png")},
        {Ui::MainWindow::Tab::Conformance, QStringLiteral("conformance.png")},
        {Ui::MainWindow::Tab::Simulator, QStringLiteral("simulator.png")},
    };
    int failures = 0;
    const auto save = [&](QWidget *widget, const QString &file) {
        const QString path = dir.filePath(file);
        if (widget->grab().save(path)) {
            out << QDir::toNativeSeparators(path) << Qt::endl;
        } else {
            err << Tr::tr("retrylab screenshot: could not write %1").arg(QDir::toNativeSeparators(path)) << Qt::endl;
            ++failures;
        }
    };
    for (const Shot &shot : shots) {
        // The charts need the width; the policy dock has a picture of its own.
        const bool wide = shot.tab == Ui::MainWindow::Tab::Statistics || shot.tab == Ui::MainWindow::Tab::Simulator;
        window.policyDock()->setVisible(!wide);
        window.showTab(shot.tab);
        settle(250);
        save(&window, shot.file);
    }
    window.policyDock()->show();
    save(window.policyDock(), QStringLiteral("policy.png"));
    window.showTab(Ui::MainWindow::Tab::Timeline);

    // The inspector on a failed attempt with a JSON body (a 503 of the first request),
    // beside the timeline, as after a click on its bar.
    Ui::RunSession *session = window.session();
    qsizetype failedRow = -1;
    for (qsizetype f = 0; f < session->finishedCount() && failedRow < 0; ++f) {
        const Core::AttemptRecord record = session->attemptRecord(f);
        if (record.httpStatus == 503 && record.responseBody.startsWith('{'))
            failedRow = session->finishedRow(f);
    }
    if (failedRow < 0) {
        err << Tr::tr("retrylab screenshot: no failed attempt with a JSON body to inspect") << Qt::endl;
        ++failures;
    } else {
        window.policyDock()->hide();
        window.inspectAttempt(failedRow);
        window.inspector()->setPage(Ui::AttemptInspector::Page::Response);
        window.resizeDocks({window.inspectorDock()}, {width * 48 / 100}, Qt::Horizontal);
        window.timelineView()->showAttempt(failedRow);
        settle(300);
        save(&window, QStringLiteral("inspector.png"));
        window.inspectorDock()->hide();
        window.policyDock()->show();
    }

    // The request's Connection part on the embedded server's HTTPS port, its CA
    // trusted, and certificate errors ignored: the red line across the window.
    if (window.server()->httpsBaseUrl().isEmpty()) {
        err << Tr::tr("retrylab screenshot: the embedded server has no HTTPS port for connection.png") << Qt::endl;
        ++failures;
    } else {
        Core::RequestDraft secure = base;
        secure.urlTemplate = window.server()->httpsBaseUrl().toString() + QStringLiteral("/status/200");
        secure.transport.caBundlePath = window.server()->caFilePath();
        secure.transport.tlsFloor = Core::TransportOptions::TlsFloor::Tls12;
        secure.transport.httpVersion = Core::TransportOptions::HttpVersion::Http2;
        secure.transport.insecureHosts = {window.server()->httpsBaseUrl().host()};
        window.composer()->setDraft(secure);
        window.composer()->showConnection();
        window.resizeDocks({window.requestDock()}, {height * 52 / 100}, Qt::Vertical);
        settle(300);
        save(&window, QStringLiteral("connection.png"));
        window.composer()->setDraft(shown);
    }

    // A read-modify-write of an IAM policy: the etag in the body, the write a POST of {"policy": ...}.
    {
        Core::RequestDraft iam = base;
        iam.urlTemplate = QStringLiteral("{server}/occ/bucket-policy?etag=body&envelope=policy");
        iam.readModifyWrite = true;
        iam.shape.writeMethod = "POST";
        iam.shape.etagPointer = QStringLiteral("/etag");
        iam.shape.writeEnvelope = QStringLiteral("policy");
        window.composer()->setDraft(iam);
        window.composer()->showReadModifyWrite();
        window.resizeDocks({window.requestDock()}, {height * 52 / 100}, Qt::Vertical);
        settle(300);
        save(&window, QStringLiteral("readmodifywrite.png"));
        window.composer()->setDraft(shown);
    }

    // The collections sidebar with a request loaded from it and the Local environment.
    window.collectionsDock()->show();
    window.resizeDocks(
        {window.collectionsDock(), window.policyDock()}, {width * 20 / 100, width * 30 / 100}, Qt::Horizontal);
    window.collections()->view()->expandAll();
    const QModelIndex loaded = window.collections()->model()->indexOfId(
        window.collections()->model()->collection(0).items.value(0).items.value(1).id);
    window.collections()->setCurrentIndex(loaded);
    window.collections()->activate(loaded);
    window.composer()->showBody();
    window.showTab(Ui::MainWindow::Tab::Timeline);
    settle(300);
    save(&window, QStringLiteral("collections.png"));
    window.collectionsDock()->hide(); // the shots after it keep the window's usual layout

    for (const QString &problem : saveImportScreenshots(window, settingsDir.path(), save, settle)) {
        err << Tr::tr("retrylab screenshot: %1").arg(problem) << Qt::endl;
        ++failures;
    }

    for (const QString &problem : saveClientsScreenshot(window, save, settle)) {
        err << Tr::tr("retrylab screenshot: %1").arg(problem) << Qt::endl;
        ++failures;
    }
    for (const QString &problem : saveProxyScreenshot(window, save, settle)) {
        err << Tr::tr("retrylab screenshot: %1").arg(problem) << Qt::endl;
        ++failures;
    }

    // Tools -> Preferences: the connection new requests start from.
    window.transportController()->showPreferences();
    if (QDialog *preferences = window.transportController()->preferencesDialog()) {
        settle(200);
        save(preferences, QStringLiteral("preferences.png"));
        preferences->reject();
    }

    // View -> Presentation: the timeline alone, larger, full screen.
    auto *presentation = window.findChild<Ui::PresentationController *>(QStringLiteral("presentationController"));
    presentation->setPresentation(true);
    settle(400);
    save(&window, QStringLiteral("presentation.png"));
    presentation->setPresentation(false);
    settle(200);

    // Policy -> Layer calculator: three presets stacked, the attempts multiplied.
    {
        Ui::LayerCalculator calculator(&window);
        const QStringList ids = Core::Presets::ids();
        const QStringList stack{QStringLiteral("google-cloud-storage"), QStringLiteral("aws-standard"),
            QStringLiteral("grpc-retry-policy")};
        for (int layer = 0; layer < stack.size(); ++layer)
            calculator.setLayerChoice(layer, int(ids.indexOf(stack.at(layer))) + 1); // 0: the current policy
        calculator.setFailureProbability(0.3);
        calculator.show();
        settle(200);
        save(&calculator, QStringLiteral("layers.png"));
    }

    // Policy -> Compare policies: the demo policy, Azure's interactive one and AWS's on one outage.
    {
        const QString scenario = QDir(settingsDir.path()).filePath(QStringLiteral("compare.json"));
        QFile file(scenario);
        if (file.open(QIODevice::WriteOnly)) {
            file.write(R"({"format": "retrylab-scenario", "name": "a short outage", "policy": "iam",
                "concurrency": 6, "requests": [{"name": "client", "url": "{server}/status/200", "count": 6,
                "script": ["return-503*2"]}]})");
            file.close();
        }
        Ui::CompareDialog compare(&window);
        compare.setCurrentPolicy(demoPolicy());
        const QStringList ids = Core::Presets::ids();
        compare.chooser()->setChoice(1, int(ids.indexOf(QStringLiteral("azure-interactive"))) + 1);
        compare.chooser()->setChoice(2, int(ids.indexOf(QStringLiteral("aws-standard"))) + 1);
        compare.setScenarioPath(scenario);
        compare.setSeed(7);
        compare.show();
        QEventLoop loop;
        QObject::connect(&compare, &Ui::CompareDialog::comparisonFinished, &loop, &QEventLoop::quit);
        QTimer::singleShot(30'000, &loop, &QEventLoop::quit);
        if (compare.run())
            loop.exec();
        settle(200);
        save(&compare, QStringLiteral("compare.png"));
    }

    if (hold > 0)
        settle(hold * 1000);
    window.close();
    return failures == 0 ? ExitOk : ExitFailed;
}

} // namespace RetryLab::App
