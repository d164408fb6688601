#include "app/windowscreenshots.h"

#include "app/apptr.h"
#include "app/screenshotcontext.h"
#include "core/executor/threadedexecutor.h"
#include "core/herd/herdparameters.h"
#include "core/policy/presets.h"
#include "core/record/transportoptions.h"
#include "ui/collectionruncontroller.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionrunpanel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/conformance/conformanceview.h"
#include "ui/conformance/storageconformanceview.h"
#include "ui/herd/simulatorview.h"
#include "ui/policy/comparedialog.h"
#include "ui/policy/layercalculator.h"
#include "ui/policy/policyexportdialog.h"
#include "ui/policy/policypanel.h"
#include "ui/policy/policystackchooser.h"
#include "ui/presentationcontroller.h"
#include "ui/request/requestcomposer.h"
#include "ui/run/attemptinspector.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/runactions.h"
#include "ui/server/serverview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/request/collectionrunhost.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"
#include "ui/transportcontroller.h"
#include "ui/widgets/serverlogmodel.h"

#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QTableView>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>

namespace RetryLab::App::WindowScreenshots {

namespace {

Q_LOGGING_CATEGORY(lcWindowScreenshots, "retrylab.app.windowscreenshots")

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

// What every request of the demo starts from: the same seed for the same pictures every
// time, and a credential header that the pictures show masked.
Core::RequestDraft demoDraft()
{
    Core::RequestDraft base;
    base.seed = 7;
    base.concurrency = 4;
    base.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer demo-token-123"), true},
        {QStringLiteral("X-Request-Source"), QStringLiteral("retrylab screenshot"), true}};
    return base;
}

// The request in the composer after the demo, which the pictures of other parts go back to.
Core::RequestDraft shownDraft()
{
    Core::RequestDraft shown = demoDraft();
    shown.concurrency = 6;
    return shown;
}

// Requests that retry, fail for good, fall back, meet a scripted scenario, and a batch;
// why any of them was not sent goes to `problems`.
void sendDemoRequests(ScreenshotContext &context, QStringList &problems)
{
    auto *runner = context.part<Ui::RequestRunner>("runner");
    auto *serverView = context.part<Ui::ServerView>("server");
    const Core::RequestDraft base = demoDraft();
    const auto send = [&](Core::RequestDraft draft) {
        if (const auto id = runner->send(draft); !id)
            problems.append(id.error());
    };
    const auto request = [&base](const QString &urlTemplate, const QString &method = QStringLiteral("GET")) {
        Core::RequestDraft draft = base;
        draft.urlTemplate = urlTemplate;
        draft.method = method;
        return draft;
    };
    for (int i = 0; i < 3; ++i) {
        send(request(Core::RequestDraft::defaultUrlTemplate()));
        ScreenshotContext::settle(120);
    }
    send(request(QStringLiteral("{server}/status/503")));
    ScreenshotContext::settle(100);
    send(request(QStringLiteral("{server}/status/404")));
    send(request(QStringLiteral("{server}/status/503"), QStringLiteral("POST")));
    // The service stays down; after the policy gives up, its fallback answers on the same lane.
    Core::RequestDraft withFallback = request(QStringLiteral("{server}/status/503?service=orders"));
    withFallback.fallbackTemplates = {QStringLiteral("{server}/status/200?service=orders-replica")};
    send(withFallback);
    ScreenshotContext::settle(100);
    serverView->setScenario(Ui::ServerScenario::fromPreset(QStringLiteral("reset-429-200")));
    send(request(QStringLiteral("{server}/status/200")));
    serverView->setScenario({});
    ScreenshotContext::settle(300);
    Core::RequestDraft batch = request(QStringLiteral("{server}/fail/5?p=0.3&key={id}"));
    batch.batchCount = 8;
    batch.concurrency = 3;
    if (const auto started = runner->startBatch(batch); !started)
        problems.append(started.error());
}

// The composer with `draft` on the page `show` opens, the request dock taller, saved as `file`.
void saveRequestPart(ScreenshotContext &context, const Core::RequestDraft &draft, void (Ui::RequestComposer::*show)(),
    const QString &file)
{
    auto *composer = context.part<Ui::RequestComposer>("composer");
    composer->setDraft(draft);
    (composer->*show)();
    context.window().resizeDocks(
        {context.part<QDockWidget>("requestDock")}, {context.size().height() * 52 / 100}, Qt::Vertical);
    ScreenshotContext::settle(300);
    context.save(&context.window(), file);
    composer->setDraft(shownDraft());
}

} // namespace

void arrange(ScreenshotContext &context)
{
    Ui::MainWindow &window = context.window();
    window.resize(context.size());
    window.move(0, 0);
    // The tabs' pictures keep their width; collections.png shows the sidebar.
    context.part<QDockWidget>("collectionsDock")->hide();
    // The history of the demo's own sends is no picture for the guide: out of the way too.
    context.part<QDockWidget>("historyDock")->hide();
    window.show();
    window.resizeDocks({context.part<QDockWidget>("policyDock")}, {context.size().width() * 34 / 100}, Qt::Horizontal);
    ScreenshotContext::settle(200);
}

void runDemo(ScreenshotContext &context)
{
    // The views count time from the demo's start.
    context.part<Ui::PolicyPanel>("policyPanel")->setPolicy(demoPolicy());
    context.part<Ui::RunActions>("runActions")->clearRun();
    QStringList problems;
    sendDemoRequests(context, problems);

    // The flags live only as long as this step; so do the connections that set them.
    QObject scope;
    auto *simulator = context.part<Ui::SimulatorView>("simulator");
    Core::HerdParameters herd = Core::HerdParameters::defaultsFor(Core::HerdModel::CapacityLimited);
    herd.clientCounts = {20, 40, 60, 80, 100, 120, 140, 160};
    herd.runs = 12;
    simulator->setParameters(herd);
    bool simulated = false;
    QObject::connect(simulator, &Ui::SimulatorView::finished, &scope, [&] { simulated = true; });
    QObject::connect(simulator, &Ui::SimulatorView::failed, &scope, [&](const QString &message) {
        problems.append(message);
        simulated = true;
    });
    simulator->start();

    auto *conformance = context.part<Ui::ConformanceView>("conformance");
    bool conformed = false;
    QObject::connect(conformance, &Ui::ConformanceView::finished, &scope, [&] { conformed = true; });
    QObject::connect(conformance, &Ui::ConformanceView::failed, &scope, [&](const QString &message) {
        problems.append(message);
        conformed = true;
    });
    conformance->run();

    auto *executor = context.part<Core::ThreadedExecutor>("executor");
    const bool finished
        = ScreenshotContext::waitFor([&] { return executor->activeCount() == 0 && simulated && conformed; }, 60'000);
    if (!finished) {
        context.warn(Tr::tr("the demo did not finish within a minute; saving what there is"));
        context.part<Ui::RequestRunner>("runner")->stop();
    }
    for (const QString &problem : std::as_const(problems))
        context.warn(problem);
}

void showRequest(ScreenshotContext &context)
{
    // What a person sees after pressing Send on the defaults: the default request,
    // a credential header masked, the server scenario in place.
    context.part<Ui::RequestComposer>("composer")->setDraft(shownDraft());
    auto *serverView = context.part<Ui::ServerView>("server");
    serverView->setScenario(Ui::ServerScenario::fromPreset(QStringLiteral("three-503")));
    context.part<Ui::RunSession>("session")->flush();
    serverView->logModel()->flush();
    context.part<Ui::TimelineView>("timeline")->zoomToFit();
    context.part<QTabWidget>("tabs")->setFocus(Qt::OtherFocusReason);
    context.part<Ui::StatisticsView>("statistics")->refresh();
    ScreenshotContext::settle(400);
}

void saveTabs(ScreenshotContext &context)
{
    using Tab = Ui::MainWindow::Tab;
    struct Shot
    {
        Tab tab;
        QString file;
    };
    const QList<Shot> shots{
        {Tab::Timeline, QStringLiteral("timeline.png")},
        {Tab::ErrorLog, QStringLiteral("errorlog.png")},
        {Tab::Statistics, QStringLiteral("statistics.png")},
        {Tab::Server, QStringLiteral("server.png")},
        {Tab::Conformance, QStringLiteral("conformance.png")},
        {Tab::Simulator, QStringLiteral("simulator.png")},
    };
    Ui::MainWindow &window = context.window();
    auto *policyDock = context.part<QDockWidget>("policyDock");
    for (const Shot &shot : shots) {
        // The charts need the width; the policy dock has a picture of its own.
        const bool wide = shot.tab == Tab::Statistics || shot.tab == Tab::Simulator;
        policyDock->setVisible(!wide);
        window.showTab(shot.tab);
        ScreenshotContext::settle(250);
        context.save(&window, shot.file);
    }
    policyDock->show();
    context.save(policyDock, QStringLiteral("policy.png"));
    window.showTab(Tab::Timeline);
}

void saveInspector(ScreenshotContext &context)
{
    // A failed attempt with a JSON body (a 503 of the first request), beside the
    // timeline, as after a click on its bar.
    const auto *session = context.part<Ui::RunSession>("session");
    qsizetype failedRow = -1;
    for (qsizetype f = 0; f < session->finishedCount() && failedRow < 0; ++f) {
        const Core::AttemptRecord record = session->attemptRecord(f);
        if (record.httpStatus == 503 && record.responseBody.startsWith('{'))
            failedRow = session->finishedRow(f);
    }
    if (failedRow < 0) {
        context.fail(Tr::tr("no failed attempt with a JSON body to inspect"));
        return;
    }
    Ui::MainWindow &window = context.window();
    auto *policyDock = context.part<QDockWidget>("policyDock");
    auto *inspectorDock = context.part<QDockWidget>("inspectorDock");
    policyDock->hide();
    window.inspectAttempt(failedRow);
    context.part<Ui::AttemptInspector>("attemptInspector")->setPage(Ui::AttemptInspector::Page::Response);
    window.resizeDocks({inspectorDock}, {context.size().width() * 48 / 100}, Qt::Horizontal);
    context.part<Ui::TimelineView>("timeline")->showAttempt(failedRow);
    ScreenshotContext::settle(300);
    context.save(&window, QStringLiteral("inspector.png"));
    inspectorDock->hide();
    policyDock->show();
}

void saveInspectorInLayout(ScreenshotContext &context)
{
    // The second attempt of the first request (a 503), clicked with every dock in place.
    Ui::MainWindow &window = context.window();
    const auto *session = context.part<Ui::RunSession>("session");
    if (session->finishedCount() < 2) {
        context.fail(Tr::tr("no attempts to inspect for inspector-window.png"));
        return;
    }
    auto *inspectorDock = context.part<QDockWidget>("inspectorDock");
    auto *collectionsDock = context.part<QDockWidget>("collectionsDock");
    collectionsDock->show();
    window.showTab(Ui::MainWindow::Tab::Timeline);
    const qsizetype row = session->finishedRow(1);
    window.inspectAttempt(row);
    context.part<Ui::TimelineView>("timeline")->showAttempt(row);
    ScreenshotContext::settle(400);
    context.save(&window, QStringLiteral("inspector-window.png"));
    inspectorDock->hide();
    collectionsDock->hide();
    // Back to the arrangement the other pictures start from.
    window.addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
    inspectorDock->hide();
    window.addDockWidget(Qt::LeftDockWidgetArea, collectionsDock);
    collectionsDock->hide();
    window.resize(context.size());
    ScreenshotContext::settle(200);
}

void saveLiveBatch(ScreenshotContext &context)
{
    // Sixty requests that fail twice each, six at a time: the picture is taken while it runs.
    Ui::MainWindow &window = context.window();
    context.part<Ui::RunActions>("runActions")->clearRun();
    Core::RequestDraft batch = demoDraft();
    batch.urlTemplate = QStringLiteral("{server}/fail/2?key={id}");
    batch.batchCount = 60;
    batch.concurrency = 6;
    auto *composer = context.part<Ui::RequestComposer>("composer");
    composer->setDraft(batch);
    window.showTab(Ui::MainWindow::Tab::Timeline);
    auto *runner = context.part<Ui::RequestRunner>("runner");
    if (const auto started = runner->startBatch(batch); !started) {
        context.fail(started.error());
        return;
    }
    ScreenshotContext::settle(1800);
    context.save(&window, QStringLiteral("batch-live.png"));
    auto *executor = context.part<Core::ThreadedExecutor>("executor");
    if (!ScreenshotContext::waitFor([executor] { return executor->activeCount() == 0; }, 60'000)) {
        context.warn(Tr::tr("the batch of batch-live.png did not finish within a minute"));
        runner->stop();
    }
    composer->setDraft(shownDraft());
}

void saveConnection(ScreenshotContext &context)
{
    // The request's Connection part on the embedded server's HTTPS port, its CA
    // trusted, and certificate errors ignored: the red line across the window.
    const Ui::EmbeddedServer *server = context.window().server();
    if (server->httpsBaseUrl().isEmpty()) {
        context.fail(Tr::tr("the embedded server has no HTTPS port for connection.png"));
        return;
    }
    Core::RequestDraft secure = demoDraft();
    secure.urlTemplate = server->httpsBaseUrl().toString() + QStringLiteral("/status/200");
    secure.transport.caBundlePath = server->caFilePath();
    secure.transport.tlsFloor = Core::TransportOptions::TlsFloor::Tls12;
    secure.transport.httpVersion = Core::TransportOptions::HttpVersion::Http2;
    secure.transport.insecureHosts = {server->httpsBaseUrl().host()};
    saveRequestPart(context, secure, &Ui::RequestComposer::showConnection, QStringLiteral("connection.png"));
}

void saveAuth(ScreenshotContext &context)
{
    // The request's Auth tab: AWS Signature Version 4 for an API Gateway, its secret hidden.
    Core::RequestDraft signedDraft = demoDraft();
    signedDraft.auth.kind = Core::AuthSpec::Kind::AwsSigV4;
    signedDraft.auth.accessKeyId = QStringLiteral("AKIDEXAMPLE");
    signedDraft.auth.secretAccessKey = QStringLiteral("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    signedDraft.auth.region = QStringLiteral("eu-west-1");
    signedDraft.auth.service = QStringLiteral("execute-api");
    saveRequestPart(context, signedDraft, &Ui::RequestComposer::showAuth, QStringLiteral("auth.png"));
}

void saveBody(ScreenshotContext &context)
{
    // The Body tab with a multipart form: two fields and a file read as each attempt is sent.
    const QString file = context.scratchPath(QStringLiteral("report.csv"));
    QFile report(file);
    if (!report.open(QIODevice::WriteOnly) || report.write("day,requests\n1,120\n2,96\n") < 0) {
        context.fail(Tr::tr("cannot write %1 for body.png").arg(file));
        return;
    }
    report.close();
    Core::RequestDraft upload = demoDraft();
    upload.method = QStringLiteral("POST");
    upload.urlTemplate = QStringLiteral("{server}/fail/1?key={id}");
    upload.idempotent = true;
    upload.bodyFrom.mode = Core::DraftBody::Mode::Multipart;
    upload.bodyFrom.fields = {{QStringLiteral("title"), QStringLiteral("Weekly report"), {}, {}, {}, true},
        {QStringLiteral("upload_id"), QStringLiteral("{id}"), {}, {}, {}, true},
        {QStringLiteral("report"), {}, file, {}, QStringLiteral("text/csv"), true}};
    saveRequestPart(context, upload, &Ui::RequestComposer::showBody, QStringLiteral("body.png"));
}

void saveReadModifyWrite(ScreenshotContext &context)
{
    // A read-modify-write of an IAM policy: the etag in the body, the write a POST of {"policy": ...}.
    Core::RequestDraft iam = demoDraft();
    iam.urlTemplate = QStringLiteral("{server}/occ/bucket-policy?etag=body&envelope=policy");
    iam.readModifyWrite = true;
    iam.shape.writeMethod = "POST";
    iam.shape.etagPointer = QStringLiteral("/etag");
    iam.shape.writeEnvelope = QStringLiteral("policy");
    saveRequestPart(context, iam, &Ui::RequestComposer::showReadModifyWrite, QStringLiteral("readmodifywrite.png"));
}

void saveCollections(ScreenshotContext &context)
{
    // The collections sidebar with a request loaded from it and the Local environment.
    Ui::MainWindow &window = context.window();
    auto *collectionsDock = context.part<QDockWidget>("collectionsDock");
    collectionsDock->show();
    const int width = context.size().width();
    window.resizeDocks({collectionsDock, context.part<QDockWidget>("policyDock")}, {width * 20 / 100, width * 30 / 100},
        Qt::Horizontal);
    auto *collections = context.part<Ui::CollectionSidebar>("collections");
    collections->view()->expandAll();
    const QModelIndex loaded
        = collections->model()->indexOfId(collections->model()->collection(0).items.value(0).items.value(1).id);
    collections->setCurrentIndex(loaded);
    collections->activate(loaded);
    context.part<Ui::RequestComposer>("composer")->showBody();
    window.showTab(Ui::MainWindow::Tab::Timeline);
    ScreenshotContext::settle(300);
    context.save(&window, QStringLiteral("collections.png"));
    collectionsDock->hide(); // the pictures after it keep the window's usual layout
}

void saveCollectionRun(ScreenshotContext &context)
{
    // Run collection on the Shop API from the Collections dock: the results below the tabs,
    // a request that passed after retries, and one whose assertion failed, opened.
    Ui::MainWindow &window = context.window();
    auto *collections = context.part<Ui::CollectionSidebar>("collections");
    collections->setRunOptionsAsker(
        [](const QString &, const Core::CollectionRunOptions &proposed) { return std::optional(proposed); });
    collections->setCurrentIndex(collections->model()->index(0, 0));
    auto *controller = context.part<Ui::CollectionRunController>("collectionRuns");
    Ui::CollectionRunPanel *panel = controller->panel();
    collections->runCollectionAction()->trigger();
    // Two minutes at most (the presets' own delays); the picture shows whatever ended by then.
    if (!ScreenshotContext::waitFor(
            [panel] { return !panel->isRunning() && !panel->result().collectionName.isEmpty(); }, 120'000))
        qCWarning(lcWindowScreenshots) << "the collection run had not ended after two minutes";
    auto *dock = context.part<QDockWidget>("collectionRunDock");
    window.resizeDocks({dock}, {context.size().height() * 36 / 100}, Qt::Vertical);
    panel->view()->expandAll();
    panel->selectRequest(0);
    window.showTab(Ui::MainWindow::Tab::Timeline);
    ScreenshotContext::settle(300);
    context.save(&window, QStringLiteral("collection-run.png"));
    dock->hide(); // the pictures after it keep the window's usual layout
}

void savePreferences(ScreenshotContext &context)
{
    // Tools -> Preferences: the connection new requests start from.
    auto *transport = context.part<Ui::TransportController>("transport");
    transport->showPreferences();
    if (QDialog *preferences = transport->preferencesDialog()) {
        ScreenshotContext::settle(200);
        context.save(preferences, QStringLiteral("preferences.png"));
        preferences->reject();
    }
}

void savePresentation(ScreenshotContext &context)
{
    // View -> Presentation: the timeline alone, larger, full screen.
    auto *presentation = context.part<Ui::PresentationController>("presentationController");
    presentation->setPresentation(true);
    ScreenshotContext::settle(400);
    // Full screen is the platform's screen, offscreen 800×600 whatever --size says: the
    // screen the pictures play instead.
    context.window().resize(context.size());
    ScreenshotContext::settle(200);
    context.save(&context.window(), QStringLiteral("presentation.png"));
    presentation->setPresentation(false);
    // Leaving full screen on a small screen (offscreen: 800 px) restores what fits it; the
    // pictures after this one are taken at the size asked for again.
    context.window().resize(context.size());
    ScreenshotContext::settle(200);
}

void saveLayers(ScreenshotContext &context)
{
    // Policy -> Layer calculator: three presets stacked, the attempts multiplied.
    Ui::LayerCalculator calculator(&context.window());
    const QStringList ids = Core::Presets::ids();
    const QStringList stack{
        QStringLiteral("google-cloud-storage"), QStringLiteral("aws-standard"), QStringLiteral("grpc-retry-policy")};
    for (int layer = 0; layer < stack.size(); ++layer)
        calculator.setLayerChoice(layer, int(ids.indexOf(stack.at(layer))) + 1); // 0: the current policy
    calculator.setFailureProbability(0.3);
    calculator.show();
    ScreenshotContext::settle(200);
    context.save(&calculator, QStringLiteral("layers.png"));
}

void savePolicyExport(ScreenshotContext &context)
{
    // Policy -> Export…: the dock's policy as an Envoy route, the notes beneath it.
    Ui::PolicyExportDialog dialog(&context.window());
    dialog.setPolicy(context.part<Ui::PolicyPanel>("policyPanel")->policy());
    dialog.setFormat(QStringLiteral("envoy"));
    dialog.resize(900, 640);
    dialog.show();
    ScreenshotContext::settle(200);
    context.save(&dialog, QStringLiteral("policy-export.png"));
}

namespace {

// Policy -> Compare policies on a scenario of its own (`json`): `current` against the presets
// `others`, seed 7, saved as `file` once the comparison has run.
void saveComparison(ScreenshotContext &context, const QByteArray &json, const Core::BackoffPolicy &current,
    const QStringList &others, const QString &file)
{
    const QString scenario = context.scratchPath(QFileInfo(file).completeBaseName() + QStringLiteral(".json"));
    QFile out(scenario);
    if (out.open(QIODevice::WriteOnly)) {
        out.write(json);
        out.close();
    }
    Ui::CompareDialog compare(&context.window());
    compare.setCurrentPolicy(current);
    const QStringList ids = Core::Presets::ids();
    for (qsizetype i = 0; i < others.size(); ++i)
        compare.chooser()->setChoice(int(i) + 1, int(ids.indexOf(others.at(i))) + 1);
    compare.setScenarioPath(scenario);
    compare.setSeed(7);
    compare.show();
    QEventLoop loop;
    QObject::connect(&compare, &Ui::CompareDialog::comparisonFinished, &loop, &QEventLoop::quit);
    QTimer::singleShot(30'000, &loop, &QEventLoop::quit);
    if (compare.run())
        loop.exec();
    ScreenshotContext::settle(200);
    context.save(&compare, file);
}

} // namespace

void saveCompare(ScreenshotContext &context)
{
    // Policy -> Compare policies: the demo policy, Azure's interactive one and AWS's on one outage.
    saveComparison(context, R"({"format": "retrylab-scenario", "name": "a short outage", "policy": "iam",
                "concurrency": 6, "requests": [{"name": "client", "url": "{server}/status/200", "count": 6,
                "script": ["return-503*2"]}]})",
        demoPolicy(), {QStringLiteral("azure-interactive"), QStringLiteral("aws-standard")},
        QStringLiteral("compare.png"));
}

void saveCompareHedging(ScreenshotContext &context)
{
    // The same: gRPC's hedging example against its retry example on answers that are slow at
    // first, each request's second attempt quick.
    saveComparison(context, R"({"format": "retrylab-scenario", "name": "slow first answers", "policy": "iam",
                "concurrency": 12, "requests": [{"name": "client", "url": "{server}/status/200", "count": 6,
                "script": ["delay-1200ms"]}]})",
        *Core::Presets::find(QStringLiteral("grpc-hedging")), {QStringLiteral("grpc-retry-policy")},
        QStringLiteral("compare-hedging.png"));
}

void saveStorageCases(ScreenshotContext &context)
{
    // Google's Cloud Storage retry cases played under the Cloud Storage preset, a cell chosen.
    Ui::MainWindow &window = context.window();
    auto *policyDock = context.part<QDockWidget>("policyDock");
    policyDock->hide();
    window.showTab(Ui::MainWindow::Tab::Conformance);
    auto *conformance = context.part<Ui::ConformanceView>("conformance");
    auto *suites = conformance->findChild<QComboBox *>(QStringLiteral("conformanceSuites"));
    Ui::StorageConformanceView *storage = conformance->storageCases();
    if (!suites || !storage) {
        context.fail(Tr::tr("the Conformance tab has no Cloud Storage cases"));
        return;
    }
    suites->setCurrentIndex(1);
    bool done = false;
    QObject::connect(storage, &Ui::StorageConformanceView::finished, storage, [&done] { done = true; });
    storage->run();
    if (!ScreenshotContext::waitFor([&] { return done; }, 120'000))
        context.warn(Tr::tr("the Cloud Storage cases did not finish within two minutes; saving what there is"));
    if (auto *matrix = storage->findChild<QTableView *>(QStringLiteral("storageMatrix")))
        matrix->setCurrentIndex(storage->model()->index(12, 3));
    ScreenshotContext::settle(300);
    context.save(&window, QStringLiteral("conformance-storage.png"));
    suites->setCurrentIndex(0);
    policyDock->show();
    window.showTab(Ui::MainWindow::Tab::Timeline);
}

void saveOperation(ScreenshotContext &context)
{
    // A long-running operation polled until done (Batch & repeat: Poll until done), its polls
    // lanes of their own; the scenario's 503 meets the first poll, which retries in its lane.
    Ui::MainWindow &window = context.window();
    context.part<Ui::RunActions>("runActions")->clearRun();
    auto *serverView = context.part<Ui::ServerView>("server");
    Ui::ServerScenario scenario;
    scenario.instructions = {QStringLiteral("pass"), QStringLiteral("return-503")};
    serverView->setScenario(scenario);
    Core::RequestDraft draft = demoDraft();
    draft.urlTemplate = QStringLiteral("{server}/operation/deploy-42?done_after_ms=4000");
    draft.pollingPreset = QStringLiteral("google-lro");
    auto *composer = context.part<Ui::RequestComposer>("composer");
    composer->setDraft(draft);
    auto *runner = context.part<Ui::RequestRunner>("runner");
    QEventLoop loop;
    QObject::connect(runner, &Ui::RequestRunner::operationFinished, &loop, &QEventLoop::quit);
    QTimer::singleShot(30'000, &loop, &QEventLoop::quit);
    context.part<Ui::RunActions>("runActions")->send();
    if (runner->isPolling())
        loop.exec();
    serverView->setScenario({});
    window.showTab(Ui::MainWindow::Tab::Timeline);
    context.part<Ui::RunSession>("session")->flush();
    // Fit twice: the latest request's run, then the whole session.
    context.part<Ui::TimelineView>("timeline")->zoomToFit();
    context.part<Ui::TimelineView>("timeline")->zoomToFit();
    ScreenshotContext::settle(400);
    context.save(&window, QStringLiteral("operation.png"));
    composer->setDraft(shownDraft());
}

} // namespace RetryLab::App::WindowScreenshots
