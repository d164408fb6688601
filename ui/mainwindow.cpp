#include "ui/mainwindow.h"

#include "ui/exportcontroller.h"
#include "ui/fileopener.h"
#include "ui/folderauthdialog.h"
#include "ui/importcontroller.h"
#include "ui/monitorcontroller.h"
#include "ui/openedrun.h"
#include "ui/policyactions.h"
#include "ui/presentationcontroller.h"
#include "ui/runactions.h"
#include "ui/spinboxshortcuts.h"
#include "ui/statusbarpresenter.h"
#include "ui/transportcontroller.h"
#include "ui/workspacetabs.h"

#include "core/collections/requesttemplate.h"
#include "core/collections/variables.h"
#include "core/executor/threadedexecutor.h"
#include "core/record/secretmask.h"
#include "ui/collectionruncontroller.h"
#include "ui/collections/collectionrunpanel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/collections/environmentbar.h"
#include "ui/conformance/conformanceview.h"
#include "ui/herd/simulatorview.h"
#include "ui/monitor/monitorhistorypage.h"
#include "ui/monitor/monitorsview.h"
#include "ui/observe/clientsview.h"
#include "ui/policy/policyeditor.h"
#include "ui/policy/policypanel.h"
#include "ui/proxy/proxyview.h"
#include "ui/request/requestcomposer.h"
#include "ui/request/requesthistoryview.h"
#include "ui/run/attemptinspector.h"
#include "ui/run/errorlogview.h"
#include "ui/run/lastresponsebar.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/server/serverview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/hosting/observation.h"
#include "ui/session/monitor/monitorhost.h"
#include "ui/session/request/requesthistory.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/focusringstyle.h"
#include "ui/widgets/insecurebanner.h"
#include "ui/widgets/messagebar.h"
#include "ui/widgets/wheelguard.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QLoggingCategory>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QTableWidget>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

// One job: building the window and wiring its parts: docks, tabs, menus, the status
// bar, and the settings read at start and written at close. What the menus do lives in
// the controllers; what is left is the composition root, which reads best whole.

namespace {
Q_LOGGING_CATEGORY(lcMainWindow, "retrylab.ui.mainwindow")

// A dock's content that scrolls when the dock is small, so that it never sets the
// window's minimum size (a projector's screen, a scale factor of 1.5).
QScrollArea *scrollingDockContent(QWidget *content, const QString &objectName)
{
    auto *area = new QScrollArea;
    area->setObjectName(objectName);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(content);
    return area;
}
} // namespace

namespace RetryLab::Ui {

using Core::RequestDraft;
namespace RequestTemplate = Core::RequestTemplate;
namespace SecretMask = Core::SecretMask;

MainWindow::MainWindow(QWidget *parent) : MainWindow(Options{}, parent)
{ }

MainWindow::MainWindow(const Options &options, QWidget *parent)
    : QMainWindow(parent), m_settings(new Settings(this)), m_server(new EmbeddedServer(this)),
      m_executor(new Core::ThreadedExecutor(this)), m_session(new RunSession(this)),
      m_runner(new RequestRunner(m_executor, m_session, this))
{
    setWindowTitle(tr("RetryLab"));
    setObjectName(QStringLiteral("mainWindow"));
    // Scripts and tests find the window's parts by these names (findChild()).
    m_settings->setObjectName(QStringLiteral("settings"));
    m_server->setObjectName(QStringLiteral("embeddedServer"));
    m_executor->setObjectName(QStringLiteral("executor"));
    m_session->setObjectName(QStringLiteral("session"));
    m_runner->setObjectName(QStringLiteral("runner"));
    WheelGuard::install();
    FocusRingStyle::install();
    new SpinBoxShortcuts(this);
    m_session->attach(m_executor);

    if (options.startServer)
        TransportController::startServer(*m_server, options.server, *m_settings);
    m_runner->setServer(m_server->server(), m_server->errorString());
    m_runner->setEndpointPolicies(m_settings->endpointPolicies());

    m_dataDirectory = options.dataDirectory;
    m_systemTray = options.systemTray;
    m_screenSize = options.screenSize;
    m_collections = new CollectionSidebar(options.dataDirectory);
    const QString dataFolder = options.dataDirectory.isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
        : options.dataDirectory;
    m_history = new RequestHistory(
        dataFolder.isEmpty() ? QString() : QDir(dataFolder).filePath(QStringLiteral("request-history.json")), this);
    m_history->setObjectName(QStringLiteral("requestHistory"));
    const auto historyRead = m_history->load();
    buildDocks();
    buildTabs();
    buildStatusBar();
    buildMenus();
    // The main flow from the keyboard: the URL, Send to Stop, then the results; the
    // policy dock and the request's details come after, not before.
    const QList<QWidget *> flow = m_composer->mainFlow();
    for (qsizetype i = 1; i < flow.size(); ++i)
        setTabOrder(flow.at(i - 1), flow.at(i));
    setTabOrder(flow.constLast(), m_tabs);
    m_presentation->keepDefaultLayout(Settings::windowStateVersion);
    loadSettings();
    connectParts();
    connectMonitors();
    connectCollectionRuns();
    m_fileOpener = new FileOpener({m_openedRun, m_imports, m_collections, m_collectionsDock, m_monitors, m_policyPanel,
                                      m_policyDock, m_requestDock, m_tabs},
        this);
    m_fileOpener->setObjectName(QStringLiteral("fileOpener"));

    if (!m_server->isRunning() && options.startServer) {
        m_messages->showMessage(FieldMessage::Kind::Error,
            tr("The embedded fault server could not start: %1. Requests to other servers still work; URLs with "
               "{server} cannot be sent.")
                .arg(m_server->errorString()));
    }
    if (!historyRead)
        m_messages->showMessage(FieldMessage::Kind::Warning, historyRead.error());
    updateServerStatus();
    m_status->update();
}

MainWindow::~MainWindow()
{
    m_monitors->shutdown();
    m_openedRun->close();
    m_runner->stop();
    // The matrix runs on the embedded server: stop it before the server goes.
    m_tabs->conformance()->cancel();
    m_tabs->conformance()->setFaultServer(nullptr);
    m_server->stop();
}

void MainWindow::buildDocks()
{
    // The policy dock takes the whole left side; the request sits above the tabs.
    setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setDockOptions(AnimatedDocks | AllowTabbedDocks);

    m_policyPanel = new PolicyPanel(m_settings);
    m_policyPanel->setObjectName(QStringLiteral("policyPanel"));
    m_policyDock = new QDockWidget(tr("Retry policy"), this);
    m_policyDock->setObjectName(QStringLiteral("policyDock"));
    m_policyDock->setWidget(m_policyPanel);
    addDockWidget(Qt::LeftDockWidgetArea, m_policyDock);

    m_composer = new RequestComposer;
    m_composer->setObjectName(QStringLiteral("composer"));
    m_requestDock = new QDockWidget(tr("Request"), this);
    m_requestDock->setObjectName(QStringLiteral("requestDock"));
    // Short screens (a projector at 1.5×) scroll the request rather than push the status bar
    // off the bottom.
    m_requestDock->setWidget(scrollingDockContent(m_composer, QStringLiteral("requestScroll")));
    addDockWidget(Qt::TopDockWidgetArea, m_requestDock);

    // Beside the tabs, as a browser's network panel: closed until an attempt is selected.
    m_inspector = new AttemptInspector;
    m_inspector->setSession(m_session);
    m_inspectorDock = new QDockWidget(tr("Attempt inspector"), this);
    m_inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    m_inspectorDock->setWidget(scrollingDockContent(m_inspector, QStringLiteral("inspectorScroll")));
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock);
    m_inspectorDock->hide();

    // Saved requests at the far left, as in API clients; the policy beside them.
    m_collectionsDock = new QDockWidget(tr("Collections"), this);
    m_collectionsDock->setObjectName(QStringLiteral("collectionsDock"));
    m_collectionsDock->setWidget(m_collections);
    addDockWidget(Qt::LeftDockWidgetArea, m_collectionsDock);
    splitDockWidget(m_collectionsDock, m_policyDock, Qt::Horizontal);
    // The environment switcher sits on the menu bar's row: always in sight, no row of its own.
    menuBar()->setCornerWidget(m_collections->environmentBar(), Qt::TopRightCorner);

    // Every send, behind the saved requests: where a request is looked for again.
    m_historyView = new RequestHistoryView;
    m_historyView->setHistory(m_history);
    m_historyDock = new QDockWidget(tr("History"), this);
    m_historyDock->setObjectName(QStringLiteral("historyDock"));
    m_historyDock->setWidget(m_historyView);
    m_historyDock->setToolTip(tr("Every request sent from the composer; double-click one to open it again"));
    addDockWidget(Qt::LeftDockWidgetArea, m_historyDock);
    tabifyDockWidget(m_collectionsDock, m_historyDock);
    m_collectionsDock->raise();

    // A collection run's results, shown when a run starts.
    m_collectionRunDock = new QDockWidget(tr("Collection run"), this);
    m_collectionRunDock->setObjectName(QStringLiteral("collectionRunDock"));
    addDockWidget(Qt::BottomDockWidgetArea, m_collectionRunDock);
    m_collectionRunDock->hide();

    // Whichever dock appears (the View menu, a collection run, Reset layout), the window stays
    // within the screen; after the layout has taken it in.
    for (QDockWidget *dock :
        {m_policyDock, m_requestDock, m_inspectorDock, m_collectionsDock, m_historyDock, m_collectionRunDock}) {
        connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible)
                QTimer::singleShot(0, this, &MainWindow::fitToScreen);
        });
    }

    resizeDocks({m_collectionsDock, m_policyDock},
        {fontMetrics().horizontalAdvance(QLatin1Char('x')) * 30,
            fontMetrics().horizontalAdvance(QLatin1Char('x')) * 62},
        Qt::Horizontal);
    // Tall enough for the composer without scrolling where the screen allows (it scrolls
    // only when the window is short).
    resizeDocks({m_requestDock},
        {std::max(fontMetrics().height() * 11, m_composer->minimumSizeHint().height() + fontMetrics().height() + 8)},
        Qt::Vertical);
}

void MainWindow::buildTabs()
{
    m_tabs = new WorkspaceTabs(m_session, m_server);
    connect(m_tabs, &WorkspaceTabs::policyRequested, this, [this](const Core::BackoffPolicy &policy) {
        m_policyPanel->setPolicy(policy);
        m_policyDock->show();
        m_policyDock->raise();
    });
    m_messages = new MessageBar;
    m_messages->setObjectName(QStringLiteral("messages"));
    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_insecureBanner = new InsecureBanner;
    layout->addWidget(m_insecureBanner);
    m_openedRun = new OpenedRun(
        m_session, m_tabs->timeline(), m_tabs->errorLog(), m_tabs->statistics(), m_inspector, m_messages, this);
    m_openedRun->setObjectName(QStringLiteral("openedRun"));
    layout->addWidget(m_messages);
    layout->addWidget(m_openedRun->banner());
    // Under the request, the answer it got: what a newcomer looks for first.
    auto *lastResponse = new LastResponseBar;
    lastResponse->setSession(m_session);
    connect(lastResponse, &LastResponseBar::inspectRequested, this, &MainWindow::inspectAttempt);
    layout->addWidget(lastResponse);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);
}

void MainWindow::showTab(Tab which)
{
    m_tabs->showTab(which);
}

MainWindow::Tab MainWindow::currentTab() const
{
    return m_tabs->currentTab();
}

void MainWindow::buildMenus()
{
    m_exports = new ExportController(m_session, m_tabs->errorLog(), m_settings, m_messages, this);
    m_exports->setObjectName(QStringLiteral("exports"));
    m_presentation = new PresentationController(
        {this, m_tabs, m_tabs->timeline(),
            {m_policyDock, m_requestDock, m_collectionsDock, m_historyDock, m_inspectorDock}, m_session, m_openedRun,
            m_exports, m_messages},
        this);
    m_presentation->setObjectName(QStringLiteral("presentationController"));

    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_exports->addExportActions(file);
    m_presentation->addPictureAction(file);
    m_exports->addRedactAction(file);
    file->addSeparator();
    QAction *openRun = file->addAction(tr("&Open run\u2026"), this, [this] {
        const QString path = m_exports->chooseFile(QFileDialog::AcceptOpen, tr("Open a run (JSON report)"),
            m_settings->exportDirectory(), tr("RetryLab report (*.json);;All files (*)"));
        if (!path.isEmpty())
            m_openedRun->open(path);
    });
    openRun->setObjectName(QStringLiteral("openRun"));
    openRun->setShortcut(QKeySequence::Open);
    m_imports = new ImportController(this, m_composer, m_policyPanel, m_settings, m_messages,
        [this](auto mode, const QString &title, const QString &suggestion, const QString &filters, QString *filter) {
            return m_exports->chooseFile(mode, title, suggestion, filters, filter);
        });
    m_imports->setObjectName(QStringLiteral("imports"));
    m_imports->addMenu(file);
    m_imports->setCollections(m_collections->model());
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setObjectName(QStringLiteral("quit"));
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    auto *policyActions = new PolicyActions({m_policyPanel, m_runner, m_settings, m_exports, m_messages, this,
                                                [this] { return m_composer->draft().urlTemplate; }},
        this);
    policyActions->setObjectName(QStringLiteral("policyActions"));
    policyActions->addMenu(menuBar());

    m_runActions
        = new RunActions({m_composer, m_runner, m_session, m_settings, m_executor, m_status, m_messages,
                             [this] { return m_exports->options(); }, [this] { return m_collections->secretValues(); }},
            this);
    m_runActions->setObjectName(QStringLiteral("runActions"));
    QMenu *request = menuBar()->addMenu(tr("&Request"));
    request->addAction(m_composer->sendAction());
    request->addAction(m_composer->batchAction());
    request->addAction(m_composer->repeatAction());
    request->addAction(m_composer->stopAction());
    request->addSeparator();
    request->addAction(m_runActions->copyCurlAction());
    request->addAction(m_runActions->copyHarAction());
    // The URL is where a request starts: Ctrl+L reopens the Request dock when it was closed.
    QAction *focusUrl = request->addAction(tr("Edit &URL"), this, [this] {
        m_requestDock->show();
        m_requestDock->raise();
        m_composer->focusUrl();
    });
    focusUrl->setObjectName(QStringLiteral("focusUrl"));
    focusUrl->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    request->addSeparator();
    // In the menu too, so that Ctrl+S works while the Collections dock is closed (and opens it).
    for (QAction *save : {m_collections->saveRequestAction(), m_collections->saveAsNewAction()}) {
        request->addAction(save);
        connect(save, &QAction::triggered, m_collectionsDock, &QDockWidget::show);
    }
    request->addSeparator();
    request->addAction(m_runActions->clearAction());

    // Shortcuts must work wherever the focus is in the window, docks included.
    for (QAction *action :
        {m_composer->sendAction(), m_composer->batchAction(), m_composer->repeatAction(), m_composer->stopAction()})
        addAction(action);

    QMenu *tools = menuBar()->addMenu(tr("&Tools"));
    QAction *preferences = tools->addAction(tr("&Preferences\u2026"), this, [this] { m_transport->showPreferences(); });
    preferences->setObjectName(QStringLiteral("preferences"));
    preferences->setMenuRole(QAction::PreferencesRole);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_policyDock->toggleViewAction());
    view->addAction(m_requestDock->toggleViewAction());
    view->addAction(m_collectionsDock->toggleViewAction());
    view->addAction(m_historyDock->toggleViewAction());
    view->addAction(m_collectionRunDock->toggleViewAction());
    // Not the dock's own toggle: the inspector is placed before it shows, so that it never
    // widens the window past the screen.
    QAction *inspect = view->addAction(m_inspectorDock->windowTitle());
    inspect->setObjectName(QStringLiteral("showInspector"));
    inspect->setCheckable(true);
    inspect->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    connect(m_inspectorDock->toggleViewAction(), &QAction::toggled, inspect, &QAction::setChecked);
    connect(inspect, &QAction::triggered, this, [this](bool show) {
        if (show)
            showInspector();
        else
            m_inspectorDock->hide();
    });
    m_presentation->addLayoutAction(view);
    m_presentation->addViewActions(view);
    // Compare and Replay in sight under Send, not only in the menus: what a demo shows next.
    m_composer->addRunAction(policyActions->compareAction());
    m_composer->addRunAction(m_presentation->replayAction());
    view->addSeparator();
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction *show = view->addAction(m_tabs->tabText(i), this, [this, i] {
            m_tabs->setCurrentIndex(i);
            m_tabs->focusCurrentTab();
        });
        show->setObjectName(QStringLiteral("showTab%1").arg(i + 1));
        show->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *guide = help->addAction(tr("Window &guide"), this, &MainWindow::showGuide);
    guide->setObjectName(QStringLiteral("showGuide"));
    guide->setToolTip(tr("The guide to the window: the policy, the request, the timeline, the tabs"));
    QAction *shortcuts = help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts);
    shortcuts->setObjectName(QStringLiteral("showShortcuts"));
    shortcuts->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("Fault server &endpoints"), this, [this] {
        showTab(Tab::Server);
        QMessageBox box(QMessageBox::Information, tr("Fault server endpoints"),
            tr("The embedded server answers these paths; {server} in a URL stands for it."), QMessageBox::Ok, this);
        box.setDetailedText(Core::FaultServer::usageText());
        box.exec();
    });
    help->addAction(tr("&About RetryLab"), this, [this] {
        QMessageBox::about(this, tr("About RetryLab"),
            tr("<p><b>RetryLab %1</b></p><p>See and test how clients retry failed network requests: backoff, jitter, "
               "classification, circuit breakers and retry budgets, against real requests.</p>")
                .arg(QCoreApplication::applicationVersion()));
    });
}

void MainWindow::showGuide()
{
    // The guide travels inside the program (docs/window.md as a resource), so that it is
    // there offline and matches the version that is running.
    QFile file(QStringLiteral(":/docs/window.md"));
    if (!file.open(QIODevice::ReadOnly)) {
        m_messages->showMessage(FieldMessage::Kind::Error, tr("The window guide is missing from this build."));
        return;
    }
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("guide"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("RetryLab window guide"));
    auto *layout = new QVBoxLayout(dialog);
    auto *text = new QTextBrowser(dialog);
    text->setObjectName(QStringLiteral("guideText"));
    text->setOpenExternalLinks(true);
    text->setMarkdown(QString::fromUtf8(file.readAll()));
    layout->addWidget(text);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    const QSize available = screen() ? screen()->availableSize() : QSize(1024, 640);
    dialog->resize(std::min(900, available.width() * 9 / 10), std::min(700, available.height() * 9 / 10));
    dialog->show();
}

void MainWindow::showShortcuts()
{
    // Read from the menus, so that the list is never out of date: every action with keys.
    QList<std::pair<QString, QString>> rows;
    std::function<void(const QMenu *, const QString &)> collect = [&](const QMenu *menu, const QString &path) {
        for (const QAction *action : menu->actions()) {
            const QString name = QString(action->text()).remove(QLatin1Char('&')).remove(QChar(0x2026));
            if (action->menu())
                collect(action->menu(), path + name + QStringLiteral(" \u2192 "));
            else if (!action->shortcut().isEmpty())
                rows.append({action->shortcut().toString(QKeySequence::NativeText), path + name});
        }
    };
    for (const QAction *top : menuBar()->actions()) {
        if (top->menu())
            collect(top->menu(), QString(top->text()).remove(QLatin1Char('&')) + QStringLiteral(" \u2192 "));
    }
    rows.append({tr("+ / - / Home / End"), tr("Timeline: zoom in, zoom out, fit, follow the live edge")});

    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("shortcutsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Keyboard shortcuts"));
    auto *table = new QTableWidget(int(rows.size()), 2, dialog);
    table->setObjectName(QStringLiteral("shortcutList"));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Action")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->horizontalHeader()->setStretchLastSection(true);
    for (int row = 0; row < rows.size(); ++row) {
        table->setItem(row, 0, new QTableWidgetItem(rows.at(row).first));
        table->setItem(row, 1, new QTableWidgetItem(rows.at(row).second));
    }
    table->resizeColumnToContents(0);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog->resize(QSize(560, 520).boundedTo(availableSize()));
    dialog->show();
}

void MainWindow::buildStatusBar()
{
    m_status = new StatusBarPresenter(statusBar(), m_session, this);
    connect(m_status, &StatusBarPresenter::updated, this, [this](int inFlight, int running) {
        m_composer->setActivity(inFlight, running, m_runner->isRepeating(), m_runner->repeatCount());
    });
    m_status->setObjectName(QStringLiteral("statusBarPresenter"));
}

void MainWindow::loadSettings()
{
    m_composer->setDraft(m_settings->requestDraft());
    m_imports->noteDraftKept();
    m_composer->setRecentUrls(m_settings->recentUrlTemplates());
    m_tabs->serverView()->setScenario(m_settings->serverScenario());
    m_runner->setScenario(m_tabs->serverView()->scenario());
    m_tabs->proxyView()->setProxies(m_settings->proxies());
    handlePolicyChanged();
    if (const auto parameters = m_settings->simulatorParameters())
        m_tabs->simulator()->setParameters(*parameters);
    if (const QString choice = m_settings->conformancePolicyChoice(); !choice.isEmpty())
        m_tabs->conformance()->setPolicyChoice(choice);

    if (!restoreLayout()) {
        const QSize available = availableSize();
        resize(std::min(1440, available.width() * 9 / 10), std::min(900, available.height() * 9 / 10));
    }
    fitToScreen();
    for (const QString &problem : m_settings->problems())
        m_messages->showMessage(FieldMessage::Kind::Warning, problem);
}

bool MainWindow::restoreLayout()
{
    const QByteArray geometry = m_settings->windowGeometry();
    const QByteArray state = m_settings->windowState();
    if (geometry.isEmpty() && state.isEmpty())
        return false;
    bool restored = true;
    if (!geometry.isEmpty() && !restoreGeometry(geometry)) {
        qCWarning(lcMainWindow) << "stored window geometry was refused";
        restored = false;
    }
    if (!state.isEmpty() && !restoreState(state, Settings::windowStateVersion)) {
        qCWarning(lcMainWindow) << "stored dock layout was refused";
        restored = false;
    }
    // A layout made on a larger screen may need more than this one has: the default
    // layout then, rather than a window whose edges are off the screen.
    if (restored && !fitsScreen()) {
        qCInfo(lcMainWindow) << "stored layout does not fit the screen; using the default";
        m_presentation->resetLayout();
        restored = false;
    }
    return restored;
}

QSize MainWindow::availableSize() const
{
    if (m_screenSize)
        return *m_screenSize;
    return screen() ? screen()->availableGeometry().size() : QSize(1600, 1000);
}

void MainWindow::fitToScreen()
{
    const auto tooWide
        = [this] { return minimumSizeHint().expandedTo(minimumSize()).width() > availableSize().width(); };
    // The collections beside the policy cost a dock's width: on a narrow screen they share it.
    if (tooWide() && m_collectionsDock->isVisible() && m_policyDock->isVisible() && !m_collectionsDock->isFloating()
        && !m_policyDock->isFloating() && !tabifiedDockWidgets(m_policyDock).contains(m_collectionsDock)) {
        // The inspector stays in front when it was; otherwise the policy, as at start.
        const bool inspectorInFront = m_inspectorDock->isVisible() && !m_inspectorDock->visibleRegion().isEmpty();
        tabifyDockWidget(m_policyDock, m_collectionsDock);
        // The history shares the collections' place: it goes along.
        if (m_historyDock->isVisible() && !m_historyDock->isFloating()
            && dockWidgetArea(m_historyDock) == dockWidgetArea(m_policyDock))
            tabifyDockWidget(m_policyDock, m_historyDock);
        (inspectorInFront ? m_inspectorDock : m_policyDock)->raise();
    }
    // A dock that appeared may have grown the window before this ran: back within the screen.
    if (!(windowState() & (Qt::WindowFullScreen | Qt::WindowMaximized))) {
        const QSize bounded = size().boundedTo(availableSize());
        if (bounded != size())
            resize(bounded);
    }
}

bool MainWindow::fitsScreen() const
{
    const QSize available = availableSize();
    const QSize minimum = minimumSizeHint().expandedTo(minimumSize());
    if (minimum.width() > available.width() || minimum.height() > available.height())
        return false;
    // Full screen and maximised windows are the screen's size by definition.
    if (windowState() & (Qt::WindowFullScreen | Qt::WindowMaximized))
        return true;
    return width() <= available.width() && height() <= available.height();
}

void MainWindow::saveSettings()
{
    m_settings->setRequestDraft(m_composer->draft());
    m_settings->setServerScenario(m_tabs->serverView()->scenario());
    m_settings->setProxies(m_tabs->proxyView()->proxies());
    if (const auto parameters = m_tabs->simulator()->parameters())
        m_settings->setSimulatorParameters(*parameters);
    m_settings->setConformancePolicyChoice(m_tabs->conformance()->policyChoice());
    // A layout this screen cannot hold (a dock that grew the window past its edge) is not the
    // one to come back to: the last one that fitted stays.
    if (fitsScreen()) {
        m_settings->setWindowGeometry(saveGeometry());
        m_settings->setWindowState(saveState(Settings::windowStateVersion));
    } else {
        qCInfo(lcMainWindow) << "window layout not saved: it needs more than the screen has";
    }
    if (const auto synced = m_settings->sync(); !synced)
        qCWarning(lcMainWindow) << synced.error();
}

void MainWindow::connectCollections()
{
    m_collections->setRequestSource([this] { return std::pair{m_composer->draft(), m_policyPanel->policy()}; });
    m_collections->setAuthAsker([this](const QString &what, const Core::AuthSpec &current) {
        return FolderAuthDialog::ask(this, what, current);
    });
    // A saved request's assertions and extract rules travel with it: into the file when it is
    // saved, into the composer's Checks tab when it is opened.
    m_collections->setChecksSource([this] { return m_composer->checks(); });
    connect(m_collections, &CollectionSidebar::checksActivated, m_composer, &RequestComposer::setChecks);
    // A value an answer gave (an extract rule) shows in the "Sends to" line at once.
    connect(m_runner, &RequestRunner::takenVariablesChanged, m_composer,
        [this] { m_composer->setPreviewContext(m_runner->nextContext()); });
    m_exports->setSecretSource([this] { return m_collections->secretValues(); });
    connect(m_collections, &CollectionSidebar::requestActivated, this,
        [this](const RequestDraft &draft, const Core::BackoffPolicy &policy) {
            m_composer->setDraft(draft);
            m_settings->setRequestDraft(draft);
            m_policyPanel->setPolicy(policy);
        });
    const auto useEnvironment = [this](const QString &name, const QHash<QString, QString> &variables) {
        m_runner->setEnvironment(name, variables);
        m_composer->setPreviewContext(m_runner->nextContext());
    };
    connect(m_collections, &CollectionSidebar::environmentChanged, this, useEnvironment);
    useEnvironment(m_collections->activeEnvironment(), m_collections->variables());
    connect(m_collections, &CollectionSidebar::problem, this, &MainWindow::showProblem);
    for (const QString &problem : m_collections->problems())
        m_messages->showMessage(FieldMessage::Kind::Warning, problem);
}

void MainWindow::connectParts()
{
    connect(m_runActions, &RunActions::draftSent, m_history,
        [this](const Core::RequestDraft &draft, RequestHistory::Kind kind, const QDateTime &sentAt) {
            m_history->add(draft, kind, sentAt);
        });
    connect(m_history, &RequestHistory::saveFailed, this, [this](const QString &problem) {
        m_messages->showMessage(FieldMessage::Kind::Warning, tr("The request history was not saved: %1").arg(problem));
    });
    connect(m_historyView, &RequestHistoryView::openRequested, this, [this](const Core::RequestDraft &draft) {
        m_composer->setDraft(draft);
        m_settings->setRequestDraft(m_composer->draft());
        m_requestDock->show();
        m_requestDock->raise();
        m_composer->focusUrl();
        m_messages->showMessage(FieldMessage::Kind::Note,
            tr("Opened %1 %2 from the history in the composer.").arg(draft.method, draft.urlTemplate));
    });
    connect(m_composer, &RequestComposer::draftChanged, this, [this] {
        m_settings->setRequestDraft(m_composer->draft());
        m_policyPanel->editor()->setConcurrentClients(m_composer->draft().concurrency);
    });
    m_policyPanel->editor()->setConcurrentClients(m_composer->draft().concurrency);
    connect(m_settings, &Settings::recentUrlsChanged, this,
        [this] { m_composer->setRecentUrls(m_settings->recentUrlTemplates()); });

    connect(m_tabs->simulator(), &SimulatorView::parametersEdited, this, [this] {
        if (const auto parameters = m_tabs->simulator()->parameters())
            m_settings->setSimulatorParameters(*parameters);
    });
    connect(m_tabs->conformance(), &ConformanceView::policyChoiceChanged, m_settings,
        &Settings::setConformancePolicyChoice);
    connect(m_policyPanel, &PolicyPanel::policyChanged, this, &MainWindow::handlePolicyChanged);
    connect(m_policyPanel, &PolicyPanel::validityChanged, this, &MainWindow::handlePolicyChanged);

    connect(m_tabs->serverView(), &ServerView::scenarioChanged, this, &MainWindow::handleServerScenarioChanged);
    connect(m_tabs->serverView(), &ServerView::scenarioProblemChanged, this, [this](const QString &problem) {
        m_composer->setBlocker(QStringLiteral("scenario"),
            problem.isEmpty() ? QString() : tr("the server scenario (Server tab) has an error: %1").arg(problem));
    });
    connect(m_tabs->serverView(), &ServerView::restartRequested, this, [this] {
        m_runner->restartSharedScenario();
        m_composer->setPreviewContext(m_runner->nextContext());
    });
    if (const QString problem = m_tabs->serverView()->scenarioProblem(); !problem.isEmpty())
        m_composer->setBlocker(
            QStringLiteral("scenario"), tr("the server scenario (Server tab) has an error: %1").arg(problem));
    handleServerScenarioChanged();
    connectCollections();

    connect(m_runner, &RequestRunner::sent, this, &MainWindow::handleSent);
    connect(m_runner, &RequestRunner::batchProgress, m_composer, &RequestComposer::setBatchProgress);
    connect(m_runner, &RequestRunner::repeatingChanged, m_status, &StatusBarPresenter::scheduleUpdate);
    connect(m_runner, &RequestRunner::failed, this, &MainWindow::showProblem);
    connect(m_runner, &RequestRunner::seedChosen, m_status, &StatusBarPresenter::setSeed);
    connect(m_runner, &RequestRunner::seedChosen, m_composer, &RequestComposer::setLastSeed);

    // A finished run shows at once; everything else is coalesced.
    connect(m_executor, &Core::ThreadedExecutor::idle, m_status, &StatusBarPresenter::update);
    connect(m_executor, &Core::ThreadedExecutor::attemptStarted, m_status, &StatusBarPresenter::scheduleUpdate);
    connect(m_executor, &Core::ThreadedExecutor::attemptFinished, m_status, &StatusBarPresenter::scheduleUpdate);
    connect(m_executor, &Core::ThreadedExecutor::requestFinished, m_status, &StatusBarPresenter::scheduleUpdate);
    connect(m_executor, &Core::ThreadedExecutor::circuitStateChanged, m_status, &StatusBarPresenter::scheduleUpdate);
    connect(m_executor, &Core::ThreadedExecutor::budgetChanged, m_status, &StatusBarPresenter::scheduleUpdate);

    connect(m_tabs->errorLog(), &ErrorLogView::attemptActivated, this, [this](qsizetype row) {
        showTab(Tab::Timeline);
        m_tabs->timeline()->showAttempt(row);
    });
    connect(m_tabs->timeline(), &TimelineView::attemptClicked, m_tabs->errorLog(), &ErrorLogView::showAttempt);
    connect(m_tabs->timeline(), &TimelineView::attemptClicked, this, &MainWindow::inspectAttempt);
    connect(m_tabs->errorLog(), &ErrorLogView::attemptSelected, this, &MainWindow::inspectAttempt);
    connect(m_inspector, &AttemptInspector::attemptShown, this, [this](qsizetype row) {
        m_tabs->errorLog()->showAttempt(row);
        m_tabs->timeline()->showAttempt(row);
    });
    connect(m_server, &EmbeddedServer::runningChanged, this, &MainWindow::updateServerStatus);
    m_transport = new TransportController(
        {m_settings, m_server, m_executor, m_composer, m_tabs->serverView(), m_insecureBanner, m_messages}, this);
    m_transport->setObjectName(QStringLiteral("transport"));
    connect(m_runActions, &RunActions::runCleared, m_transport, &TransportController::clearRun);
    // Sending is about the live run: it closes an opened report (see the banner).
    for (QAction *live :
        {m_composer->sendAction(), m_composer->batchAction(), m_composer->repeatAction(), m_runActions->clearAction()})
        connect(live, &QAction::triggered, m_openedRun, &OpenedRun::close);
    connect(m_imports, &ImportController::runFileOpened, m_openedRun, &OpenedRun::open);
    connect(m_openedRun, &OpenedRun::sessionChanged, this, [this](RunSession *shown, bool readOnly) {
        m_exports->setSession(shown);
        setWindowTitle(readOnly ? tr("RetryLab \u2014 %1 (read-only)").arg(m_openedRun->title()) : tr("RetryLab"));
    });
}

void MainWindow::connectMonitors()
{
    MonitorController::Parts parts;
    parts.settings = m_settings;
    parts.monitors = m_tabs->monitors();
    parts.history = m_tabs->monitorHistory();
    parts.incidents = m_tabs->incidents();
    parts.databaseLabel = m_tabs->monitorDatabaseLabel();
    parts.collections = m_collections;
    parts.openedRun = m_openedRun;
    parts.messages = m_messages;
    parts.window = this;
    parts.systemTray = m_systemTray.value_or(QSystemTrayIcon::isSystemTrayAvailable());
    parts.currentRequest = [this](const QString &idKey) {
        Core::ExpansionContext context = m_runner->nextContext();
        context.requestKey = idKey;
        return RequestTemplate::build(m_composer->draft(), context);
    };
    parts.currentPolicy = [this] { return m_policyPanel->policy(); };
    parts.currentUrlTemplate = [this] {
        const Core::ExpansionContext context = m_runner->nextContext();
        const auto resolved = Core::Variables::apply(m_composer->draft(), context.variables, context.environmentName);
        return resolved ? resolved->urlTemplate : QString();
    };
    parts.showPage = [this](QWidget *page) {
        for (Tab tab : {Tab::Monitors, Tab::MonitorHistory, Tab::Incidents}) {
            if (m_tabs->view(tab) == page)
                showTab(tab);
        }
    };
    parts.showTimeline = [this] { showTab(Tab::Timeline); };
    parts.inspectAttempt = [this](qsizetype row) { inspectAttempt(row); };
    m_monitors = new MonitorController(parts, m_dataDirectory, this);
    // {server} in a monitor's URL is the embedded server of this start.
    m_monitors->host()->setServerUrl(m_server->baseUrl());
    connect(m_server, &EmbeddedServer::runningChanged, m_monitors,
        [this] { m_monitors->host()->setServerUrl(m_server->baseUrl()); });
    connect(m_transport, &TransportController::monitorDatabaseChosen, m_monitors, &MonitorController::switchDatabase);
    connect(m_monitors, &MonitorController::databaseInUseChanged, m_transport,
        &TransportController::setMonitorDatabaseInUse);
    connect(m_monitors, &MonitorController::showWindowRequested, this, [this] {
        showNormal();
        raise();
        activateWindow();
    });
    connect(m_monitors, &MonitorController::quitRequested, this, [this] {
        close();
        QApplication::quit();
    });
    connect(
        m_policyPanel, &PolicyPanel::policyChanged, m_tabs->monitorHistory(), &MonitorHistoryPage::setCurrentPolicy);
    m_monitors->start();
}

void MainWindow::connectCollectionRuns()
{
    CollectionRunController::Parts parts;
    parts.collections = m_collections;
    parts.panelParent = m_collectionRunDock;
    parts.messages = m_messages;
    parts.serverUrl = [this] { return m_server->baseUrl(); };
    parts.openRecord = [this](const Core::RunRecord &record, const QString &title) {
        m_openedRun->showRecord(record, title);
        showTab(Tab::Timeline);
    };
    parts.showPanel = [this] {
        m_collectionRunDock->show();
        m_collectionRunDock->raise();
    };
    m_collectionRuns = new CollectionRunController(parts, this);
    m_collectionRuns->setObjectName(QStringLiteral("collectionRuns"));
    m_collectionRunDock->setWidget(
        scrollingDockContent(m_collectionRuns->panel(), QStringLiteral("collectionRunScroll")));
}

void MainWindow::handlePolicyChanged()
{
    const bool usable = m_policyPanel->isUsable();
    if (usable) {
        m_runner->setPolicy(m_policyPanel->policy());
        m_tabs->conformance()->setPolicy(m_policyPanel->policy());
    }
    m_composer->setPolicy(m_policyPanel->policy());
    m_composer->setBlocker(QStringLiteral("policy"),
        usable ? QString() : tr("the policy cannot be used: %1").arg(m_policyPanel->editor()->invalidReason()));
    m_status->update();
}

void MainWindow::handleServerScenarioChanged()
{
    const ServerScenario scenario = m_tabs->serverView()->scenario();
    m_runner->setScenario(scenario);
    m_settings->setServerScenario(scenario);
    QString note;
    if (scenario.isActive()) {
        QString title = tr("a custom script");
        for (const auto &preset : ServerScenario::presets()) {
            if (preset.id == scenario.presetId)
                title = QStringLiteral("\u201c%1\u201d").arg(preset.title);
        }
        note = scenario.sharing == ServerScenario::Sharing::Shared
            ? tr("with the server scenario %1 (one shared copy)").arg(title)
            : tr("with the server scenario %1 (a copy per request)").arg(title);
    }
    m_composer->setPreviewNote(note);
    m_composer->setPreviewContext(m_runner->nextContext());
}

void MainWindow::handleSent()
{
    // A batch sends a thousand requests in one go: the composer's preview (which
    // lays its tab titles out again) and the Server tab follow once, after its first
    // attempts are out, so that the last goes out as soon after the first as headless.
    if (m_sentPending)
        return;
    m_sentPending = true;
    m_executor->whenSubmissionsArrived(this, [this] {
        m_sentPending = false;
        m_composer->setPreviewContext(m_runner->nextContext());
        m_tabs->serverView()->setSharedTestId(m_runner->sharedTestId());
        m_status->scheduleUpdate();
    });
}

void MainWindow::showProblem(const QString &text)
{
    m_messages->showMessage(FieldMessage::Kind::Error, text);
}

void MainWindow::updateServerStatus()
{
    if (m_server->isRunning()) {
        m_status->setServer(tr("Server: %1").arg(m_server->baseUrl().toString()));
        m_runner->setServer(m_server->server());
        m_tabs->conformance()->setFaultServer(m_server->server());
    } else {
        m_status->setServer(tr("Server: not running"), m_server->errorString());
        m_runner->setServer(nullptr, m_server->errorString());
        // Without the application's server the matrix starts a server of its own.
        m_tabs->conformance()->setFaultServer(nullptr);
    }
    m_composer->setPreviewContext(m_runner->nextContext());
}

void MainWindow::inspectAttempt(qsizetype sessionRow)
{
    m_inspector->showAttempt(sessionRow);
    showInspector();
}

void MainWindow::showInspector()
{
    // Beside the tabs when the screen has the width for it; otherwise a tab of the left
    // docks, so that the window's minimum never grows past the screen.
    if (m_inspectorDock->isHidden() && !m_inspectorDock->isFloating()
        && dockWidgetArea(m_inspectorDock) == Qt::RightDockWidgetArea
        && tabifiedDockWidgets(m_inspectorDock).isEmpty()) {
        const int separator = style()->pixelMetric(QStyle::PM_DockWidgetSeparatorExtent, nullptr, this);
        // Its preferred width, not its least: a dock squeezed to its scroll bars helps nobody.
        const int besideWidth = minimumSizeHint().width() + m_inspector->sizeHint().width() + separator;
        if (besideWidth > availableSize().width()) {
            for (QDockWidget *host : {m_policyDock, m_collectionsDock}) {
                if (host->isVisible() && !host->isFloating()) {
                    tabifyDockWidget(host, m_inspectorDock);
                    break;
                }
            }
        }
    }
    m_inspectorDock->show();
    m_inspectorDock->raise();
    fitToScreen();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    switch (m_monitors->closeRequested()) {
    case MonitorController::Close::Cancel:
        event->ignore();
        return;
    case MonitorController::Close::Hide:
        // The monitors go on; the tray icon brings the window back or quits.
        saveSettings();
        QApplication::setQuitOnLastWindowClosed(false);
        event->ignore();
        hide();
        return;
    case MonitorController::Close::Quit:
        break;
    }
    m_runner->stop();
    saveSettings();
    m_monitors->shutdown();
    QMainWindow::closeEvent(event);
}

} // namespace RetryLab::Ui
