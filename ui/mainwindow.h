#pragma once

#include "core/export/exportoptions.h"
#include "core/faultserver/faultserver.h"
#include "ui/workspacetabs.h"

#include <QMainWindow>

#include <optional>

class QAction;
class QDockWidget;

namespace RetryLab::Core {
struct RequestDraft;
class ThreadedExecutor;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

class AttemptInspector;
class CollectionSidebar;
class EmbeddedServer;
class ExportController;
class FileOpener;
class ImportController;
class InsecureBanner;
class MessageBar;
class MonitorController;
class CollectionRunController;
class OpenedRun;
class PolicyPanel;
class PresentationController;
class RequestComposer;
class RequestHistory;
class RequestHistoryView;
class RequestRunner;
class RunActions;
class RunSession;
class Settings;
class StatusBarPresenter;
class TransportController;

/// RetryLab's window. The policy dock says how to retry, the request dock what to
/// send; Send runs real requests through the retry executor against the embedded
/// fault server (started with the window, in a thread of its own) or any other
/// server; the tabs show the run live: timeline, error log, statistics, the server's
/// side, and the herd simulator. The status bar shows circuit breakers, the retry
/// budget, the requests in flight and the server's address.
///
/// Everything a person sets (policy, request, server scenario, layout) is kept
/// through Settings; what could not be read back is said above the tabs.
///
/// The window builds and wires its parts; what the menus do lives in controllers
/// (RunActions, PolicyActions, PresentationController, ExportController,
/// ImportController, TransportController, OpenedRun). Parts and controllers have
/// object names, by which scripts and tests find them (findChild()).
class MainWindow final : public QMainWindow
{
    Q_OBJECT

public:
    using Tab = WorkspaceTabs::Tab;

    struct Options
    {
        /// How the embedded server listens (loopback, a free port by default).
        Core::FaultServerOptions server;
        bool startServer = true;
        /// Where collections, environments, the monitors and their default
        /// history are kept; empty: the user's data folder.
        QString dataDirectory = {};
        /// Whether a tray icon can be shown; unset: as the platform says.
        std::optional<bool> systemTray = {};
        /// The screen space the window must fit, in place of its screen's available
        /// size (`retrylab screenshot --size` plays a screen of that size).
        std::optional<QSize> screenSize = {};
    };

    explicit MainWindow(QWidget *parent = nullptr);
    explicit MainWindow(const Options &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    /// The embedded fault server, and whether it started (reported at start-up).
    EmbeddedServer *server() const { return m_server; }

    void showTab(Tab tab);
    Tab currentTab() const;
    /// Shows a file where its kind belongs (`retrylab FILE`, a file handed over).
    FileOpener *fileOpener() const { return m_fileOpener; }

public Q_SLOTS:
    /// Shows a session attempt row in the inspector, opening it.
    void inspectAttempt(qsizetype sessionRow);
    /// Shows the attempt inspector: beside the tabs where the screen has room, else as a tab
    /// of the docks on the left.
    void showInspector();
    /// Help → Window guide: docs/window.md, shown inside the program.
    void showGuide();
    /// Help → Keyboard shortcuts: every action of the menus that has keys, and the timeline's.
    void showShortcuts();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildDocks();
    void buildTabs();
    void buildMenus();
    void buildStatusBar();
    void connectParts();
    void connectCollections();
    void connectCollectionRuns();
    void loadSettings();
    void saveSettings();
    QSize availableSize() const;
    /// Whether the screen holds the window: its size and its minimum size.
    bool fitsScreen() const;
    /// Puts docks that stand side by side into tabs while the window's minimum is wider
    /// than the screen.
    void fitToScreen();
    /// Geometry and dock layout from the settings; false when nothing was stored
    /// or the stored data was refused (the window keeps its default layout).
    bool restoreLayout();

    void handlePolicyChanged();
    void handleServerScenarioChanged();
    void handleSent();
    void updateServerStatus();
    void showProblem(const QString &text);
    void connectMonitors();

    Settings *m_settings;
    EmbeddedServer *m_server;
    Core::ThreadedExecutor *m_executor;
    RunSession *m_session;
    RequestRunner *m_runner;

    PolicyPanel *m_policyPanel = nullptr;
    QDockWidget *m_policyDock = nullptr;
    RequestComposer *m_composer = nullptr;
    QDockWidget *m_requestDock = nullptr;
    AttemptInspector *m_inspector = nullptr;
    QDockWidget *m_inspectorDock = nullptr;
    CollectionSidebar *m_collections = nullptr;
    QDockWidget *m_collectionsDock = nullptr;
    RequestHistory *m_history = nullptr;
    RequestHistoryView *m_historyView = nullptr;
    QDockWidget *m_historyDock = nullptr;
    /// The results of a collection run from the Collections dock, below the tabs.
    QDockWidget *m_collectionRunDock = nullptr;
    CollectionRunController *m_collectionRuns = nullptr;
    MessageBar *m_messages = nullptr;
    InsecureBanner *m_insecureBanner = nullptr;
    WorkspaceTabs *m_tabs = nullptr;

    StatusBarPresenter *m_status = nullptr;
    ExportController *m_exports = nullptr;
    ImportController *m_imports = nullptr;
    OpenedRun *m_openedRun = nullptr;
    TransportController *m_transport = nullptr;
    RunActions *m_runActions = nullptr;
    PresentationController *m_presentation = nullptr;
    MonitorController *m_monitors = nullptr;
    FileOpener *m_fileOpener = nullptr;
    QString m_dataDirectory;
    std::optional<bool> m_systemTray;
    std::optional<QSize> m_screenSize;
    /// handleSent() has an update of the preview waiting for the event loop.
    bool m_sentPending = false;
};

} // namespace RetryLab::Ui
