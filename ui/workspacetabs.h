#pragma once

#include <QTabWidget>

class QLabel;

namespace RetryLab::Core {
struct BackoffPolicy;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

class ClientsView;
class ConformanceView;
class EmbeddedServer;
class ErrorLogView;
class IncidentsView;
class MonitorHistoryPage;
class MonitorsView;
class Observation;
class ProxyView;
class RunSession;
class ServerView;
class SimulatorView;
class StatisticsView;
class TimelineView;

/// The window's tabs: the live run (timeline, error log, statistics), the embedded
/// server, the clients observed on it, the fault proxies, the conformance matrix,
/// the herd simulator, and the monitors (their table, a monitor's history and the
/// incidents, as pages of one tab). The Clients and Proxy tabs hold the run views again, on the
/// observation's session and on the current proxy's. Pages with forms and charts
/// scroll rather than make the window too big for a laptop screen.
class WorkspaceTabs final : public QTabWidget
{
    Q_OBJECT

public:
    enum class Tab {
        Timeline,
        ErrorLog,
        Statistics,
        Server,
        Conformance,
        Simulator,
        Clients,
        Proxy,
        Monitors,
        MonitorHistory,
        Incidents
    };
    Q_ENUM(Tab)

    /// `session` is the live run's, `server` the embedded one; neither is owned.
    WorkspaceTabs(RunSession *session, EmbeddedServer *server, QWidget *parent = nullptr);

    TimelineView *timeline() const { return m_timeline; }
    ErrorLogView *errorLog() const { return m_errorLog; }
    StatisticsView *statistics() const { return m_statistics; }
    ServerView *serverView() const { return m_serverView; }
    ClientsView *clientsView() const { return m_clientsView; }
    ProxyView *proxyView() const { return m_proxyView; }
    ConformanceView *conformance() const { return m_conformance; }
    SimulatorView *simulator() const { return m_simulator; }
    MonitorsView *monitors() const { return m_monitors; }
    MonitorHistoryPage *monitorHistory() const { return m_monitorHistory; }
    IncidentsView *incidents() const { return m_incidents; }
    /// Above the Monitors tab's pages: the history in use.
    QLabel *monitorDatabaseLabel() const { return m_monitorDatabase; }

    /// The view of a tab (the page itself may be a scroll area around it).
    QWidget *view(Tab tab) const;
    void showTab(Tab tab);
    Tab currentTab() const;
    /// Alt+1…9: the keyboard focus goes into the tab shown, not left in a dock.
    void focusCurrentTab();

Q_SIGNALS:
    /// The Clients tab asks for the policy it inferred to be put in the editor.
    void policyRequested(const RetryLab::Core::BackoffPolicy &policy);

private:
    void addRunViews(QTabWidget *views, TimelineView *timeline, ErrorLogView *log, StatisticsView *statistics);

    TimelineView *m_timeline;
    ErrorLogView *m_errorLog;
    StatisticsView *m_statistics;
    ServerView *m_serverView;
    Observation *m_observation;
    ClientsView *m_clientsView = nullptr;
    ProxyView *m_proxyView = nullptr;
    ConformanceView *m_conformance;
    SimulatorView *m_simulator;
    MonitorsView *m_monitors;
    MonitorHistoryPage *m_monitorHistory;
    IncidentsView *m_incidents;
    QTabWidget *m_monitorPages;
    QLabel *m_monitorDatabase;
};

} // namespace RetryLab::Ui
