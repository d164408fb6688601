#pragma once

#include "core/export/exportoptions.h"
#include "core/faultserver/faultserver.h"
#include "core/util/result.h"
#include "ui/exportcontroller.h"

#include <QFont>
#include <QMainWindow>

#include <functional>

class QAction;
class QDockWidget;
class QMenu;
class QTabWidget;

namespace RetryLab::Core {
struct RequestDraft;
class ThreadedExecutor;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

class AttemptInspector;
class CollectionSidebar;
class EmbeddedServer;
class ErrorLogView;
class ImportController;
class InsecureBanner;
class MessageBar;
class OpenedRun;
class PolicyPanel;
class RequestComposer;
class RequestRunner;
class RunSession;
class ServerView;
class ClientsView;
class ProxyView;
class Observation;
class Settings;
class ConformanceView;
class SimulatorView;
class StatisticsView;
class StatusBarPresenter;
class TimelineView;
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
class MainWindow final : public QMainWindow
{
    Q_OBJECT

public:
    enum class Tab { Timeline, ErrorLog, Statistics, Server, Conformance, Simulator, Clients, Proxy };
    Q_ENUM(Tab)
    using ExportFormat = ExportController::Format;

    struct Options
    {
        /// How the embedded server listens (loopback, a free port by default).
        Core::FaultServerOptions server;
        bool startServer = true;
        /// Where collections and environments are kept; empty: the user's data folder.
        QString dataDirectory = {};
    };

    /// Asks for a file name (tests answer without a dialog).
    using FileChooser = ExportController::FileChooser;

    explicit MainWindow(QWidget *parent = nullptr);
    explicit MainWindow(const Options &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Writes the run (or the error log's shown rows) to `path`; returns the bytes
    /// written or why not. The outcome is also shown above the tabs.
    Core::Result<qint64> exportRun(const QString &path, ExportFormat format, bool onlyVisibleRows = false);
    /// Credentials are redacted in exports and "Copy as curl" unless this is turned off.
    bool redactsExports() const;
    void setRedactsExports(bool redact);
    void setFileChooser(FileChooser chooser);

    Settings *settings() const { return m_settings; }
    EmbeddedServer *server() const { return m_server; }
    Core::ThreadedExecutor *executor() const { return m_executor; }
    RunSession *session() const { return m_session; }
    RequestRunner *runner() const { return m_runner; }
    PolicyPanel *policyPanel() const { return m_policyPanel; }
    RequestComposer *composer() const { return m_composer; }
    QDockWidget *policyDock() const { return m_policyDock; }
    QDockWidget *requestDock() const { return m_requestDock; }
    /// What an attempt sent and got back; opens when an attempt is selected.
    AttemptInspector *inspector() const { return m_inspector; }
    QDockWidget *inspectorDock() const { return m_inspectorDock; }
    /// Saved requests in collections, and the environments (View > Collections).
    CollectionSidebar *collections() const { return m_collections; }
    QDockWidget *collectionsDock() const { return m_collectionsDock; }
    QTabWidget *tabs() const { return m_tabs; }
    /// The view of a tab (the page itself may be a scroll area around it).
    QWidget *tab(Tab tab) const;
    void showTab(Tab tab);
    /// Alt+1…8: the keyboard focus goes into the tab shown, not left in a dock.
    void focusCurrentTab();
    Tab currentTab() const;
    TimelineView *timelineView() const { return m_timeline; }

    /// View > Presentation (Ctrl+Shift+P): a larger font, thicker bars, the
    /// timeline alone and full screen; off again restores the layout.
    void setPresentation(bool on);
    bool isPresentation() const { return m_presentation; }

    ErrorLogView *errorLogView() const { return m_errorLog; }
    StatisticsView *statisticsView() const { return m_statistics; }
    ServerView *serverView() const { return m_serverView; }
    ClientsView *clientsView() const { return m_clientsView; }
    ProxyView *proxyView() const { return m_proxyView; }
    Observation *observation() const { return m_observation; }
    ConformanceView *conformanceView() const { return m_conformance; }
    SimulatorView *simulatorView() const { return m_simulator; }
    MessageBar *messageBar() const { return m_messages; }
    /// The red line while certificate errors are ignored.
    InsecureBanner *insecureBanner() const { return m_insecureBanner; }
    /// Preferences, the banner, HTTPS of the server.
    TransportController *transportController() const { return m_transport; }
    /// The messages shown above the tabs, oldest first.
    QStringList messages() const;

    QAction *exportAction() const { return m_exportAction; }
    QAction *clearAction() const { return m_clearAction; }
    QAction *copyCurlAction() const { return m_copyCurlAction; }
    QAction *copyHarAction() const { return m_copyHarAction; }
    QAction *openRunAction() const { return m_openRunAction; }
    /// File > Import request.
    ImportController *imports() const { return m_imports; }
    /// File > Open run: a report shown read-only instead of the live run.
    OpenedRun *openedRun() const { return m_openedRun; }

public Q_SLOTS:
    void send();
    void sendBatch();
    void startRepeat();
    void stop();
    void clearRun();
    void copyAsCurl();
    /// The request as one HAR entry (JSON), credentials redacted as in "Copy as curl".
    void copyAsHarEntry();
    /// Asks for a JSON report and shows it read-only (see OpenedRun).
    void openRunWithDialog();
    /// Ctrl+E: asks for a file; the format follows the chosen filter or extension.
    void exportWithDialog();
    void importPolicy();
    void exportPolicy();
    /// Policy > Export as gRPC service config: the policy as methodConfig.retryPolicy (GrpcServiceConfig).
    void exportPolicyAsGrpc();
    void showLayerCalculator();
    void addPresentationActions(QMenu *view);
    /// View > Replay the Run: the finished run (or the opened one) played back (see OpenedRun).
    void replayRun();
    void addPictureAction(QMenu *file);
    /// File > Export picture of the tab: the tab on top as PNG or SVG, for slides.
    void exportPicture();
    /// Writes the tab on top (the timeline: what its viewport shows) to `path`, PNG or
    /// SVG by its suffix, and says so above the tabs.
    Core::Result<void> exportPicture(const QString &path);
    void showCompare();
    /// Policy > Endpoint policies: a policy per host or path for the requests sent.
    void editEndpointPolicies();
    /// Puts the docks back where a new window has them.
    void resetLayout();
    /// Shows a session attempt row in the inspector, opening it.
    void inspectAttempt(qsizetype sessionRow);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildDocks();
    void buildTabs();
    void buildMenus();
    void buildStatusBar();
    void connectParts();
    void connectCollections();
    void loadSettings();
    void saveSettings();
    /// Geometry and dock layout from the settings; false when nothing was stored
    /// or the stored data was refused (the window keeps its default layout).
    bool restoreLayout();

    Core::ExportOptions exportOptions() const;
    void handlePolicyChanged();
    void handleServerScenarioChanged();
    void handleSent();
    void rememberSentUrl(const Core::RequestDraft &draft, quint64 sentBefore);
    void updateServerStatus();
    void showProblem(const QString &text);
    bool refuseWhenBlocked(const QString &what);
    void startRunIfEmpty();

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
    MessageBar *m_messages = nullptr;
    InsecureBanner *m_insecureBanner = nullptr;
    TransportController *m_transport = nullptr;
    QTabWidget *m_tabs = nullptr;
    TimelineView *m_timeline = nullptr;
    bool m_presentation = false;
    QAction *m_presentationAction = nullptr;
    QAction *m_replayAction = nullptr;
    QByteArray m_statePresented; ///< the dock layout to restore after presentation mode
    QFont m_fontPresented;
    bool m_wasMaximized = false;
    ErrorLogView *m_errorLog = nullptr;
    StatisticsView *m_statistics = nullptr;
    ServerView *m_serverView = nullptr;
    Observation *m_observation = nullptr;
    ClientsView *m_clientsView = nullptr;
    ProxyView *m_proxyView = nullptr;
    ConformanceView *m_conformance = nullptr;
    SimulatorView *m_simulator = nullptr;

    QAction *m_exportAction = nullptr;
    QAction *m_redactAction = nullptr;
    QAction *m_copyCurlAction = nullptr;
    QAction *m_copyHarAction = nullptr;
    QAction *m_openRunAction = nullptr;
    ImportController *m_imports = nullptr;
    OpenedRun *m_openedRun = nullptr;
    QAction *m_clearAction = nullptr;

    StatusBarPresenter *m_status = nullptr;
    ExportController *m_exports = nullptr;
    quint64 m_sentCount = 0; ///< requests handed to the executor, for once-per-action bookkeeping

    QByteArray m_defaultState;
};

} // namespace RetryLab::Ui
