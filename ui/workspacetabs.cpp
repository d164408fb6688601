#include "ui/workspacetabs.h"

#include "ui/conformance/conformanceview.h"
#include "ui/herd/simulatorview.h"
#include "ui/monitor/incidentsview.h"
#include "ui/monitor/monitorhistorypage.h"
#include "ui/monitor/monitorsview.h"
#include "ui/observe/clientsview.h"
#include "ui/proxy/proxyview.h"
#include "ui/run/errorlogview.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/server/serverview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/hosting/observation.h"
#include "ui/session/hosting/proxyinstance.h"
#include "ui/session/run/runsession.h"

#include <QLabel>
#include <QScrollArea>
#include <QTabBar>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

// A page that scrolls as a whole; the timeline and the log scroll on their own.
QScrollArea *scrollable(QWidget *page)
{
    auto *area = new QScrollArea;
    area->setObjectName(page->objectName() + QStringLiteral("Scroll"));
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(page);
    return area;
}

template<typename View>
View *named(const char *name)
{
    auto *view = new View;
    view->setObjectName(QLatin1String(name));
    return view;
}

} // namespace

WorkspaceTabs::WorkspaceTabs(RunSession *session, EmbeddedServer *server, QWidget *parent)
    : QTabWidget(parent), m_timeline(named<TimelineView>("timeline")), m_errorLog(named<ErrorLogView>("errorLog")),
      m_statistics(named<StatisticsView>("statistics")), m_serverView(named<ServerView>("server")),
      m_observation(new Observation(server, this)), m_conformance(named<ConformanceView>("conformance")),
      m_simulator(named<SimulatorView>("simulator")), m_monitors(named<MonitorsView>("monitors")),
      m_monitorHistory(named<MonitorHistoryPage>("monitorHistory")), m_incidents(named<IncidentsView>("incidents")),
      m_monitorPages(named<QTabWidget>("monitorPages")), m_monitorDatabase(named<QLabel>("monitorDatabase"))
{
    setObjectName(QStringLiteral("tabs"));
    setDocumentMode(true);
    // Every tab in sight beside the docks (1366x768, a projector): titles are shortened rather
    // than scrolled off the bar, where nobody found the Herd simulator or the Monitors.
    tabBar()->setUsesScrollButtons(false);
    setElideMode(Qt::ElideRight);
    m_timeline->setSession(session);
    m_errorLog->setSession(session);
    m_statistics->setSession(session);
    m_serverView->setServer(server);

    // The Clients tab's lanes: the run views again, on the observation's session.
    m_observation->setObjectName(QStringLiteral("observation"));
    auto *observedViews = new QTabWidget;
    observedViews->setObjectName(QStringLiteral("observedViews"));
    auto *observedTimeline = named<TimelineView>("observedTimeline");
    auto *observedLog = new ErrorLogView;
    auto *observedStatistics = new StatisticsView;
    observedTimeline->setSession(m_observation->session());
    observedTimeline->setEmptyText(tr("No client seen yet. Turn on \"Observe clients\" and point a client at the "
                                      "server: its requests and their attempts appear here."));
    observedLog->setSession(m_observation->session());
    observedStatistics->setSession(m_observation->session());
    addRunViews(observedViews, observedTimeline, observedLog, observedStatistics);
    m_clientsView = new ClientsView(m_observation, server, observedViews);
    connect(m_clientsView, &ClientsView::policyRequested, this, &WorkspaceTabs::policyRequested);

    // The Proxy tab's lanes: the run views once more, on the current proxy's session.
    auto *proxyLanes = new QTabWidget;
    proxyLanes->setObjectName(QStringLiteral("proxyLanes"));
    auto *proxyTimeline = named<TimelineView>("proxyTimeline");
    proxyTimeline->setEmptyText(
        tr("No request through the proxy yet. Point a client at the proxy to see its attempts here."));
    auto *proxyLog = new ErrorLogView;
    auto *proxyStatistics = new StatisticsView;
    addRunViews(proxyLanes, proxyTimeline, proxyLog, proxyStatistics);
    m_proxyView = new ProxyView(proxyLanes);
    m_proxyView->setObjectName(QStringLiteral("proxy"));
    if (server->isRunning())
        m_proxyView->setServerUrl(server->baseUrl());
    connect(m_proxyView, &ProxyView::currentProxyChanged, this,
        [proxyTimeline, proxyLog, proxyStatistics](ProxyInstance *proxy) {
            RunSession *proxySession = proxy ? proxy->session() : nullptr;
            proxyTimeline->setSession(proxySession);
            proxyLog->setSession(proxySession);
            proxyStatistics->setSession(proxySession);
        });

    addTab(m_timeline, tr("Timeline"));
    addTab(m_errorLog, tr("Error log"));
    addTab(scrollable(m_statistics), tr("Statistics"));
    addTab(scrollable(m_serverView), tr("Server"));
    addTab(scrollable(m_clientsView), tr("Clients"));
    addTab(scrollable(m_proxyView), tr("Proxy"));
    // Its matrix scrolls rather than set the window's minimum: 580x242 was the most of any page.
    addTab(scrollable(m_conformance), tr("Conformance"));
    // Its form scrolls on its own with Run below it; the page scrolls only when the
    // window is smaller than the charts' minimum (1366x768 is not).
    addTab(scrollable(m_simulator), tr("Herd simulator"));

    // The monitors: the table, one monitor's history, and the incidents of all,
    // under the history in use.
    m_monitorPages->setDocumentMode(true);
    m_monitorPages->addTab(m_monitors, tr("Monitors"));
    m_monitorPages->addTab(scrollable(m_monitorHistory), tr("History"));
    m_monitorPages->addTab(m_incidents, tr("Incidents"));
    m_monitorDatabase->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_monitorDatabase->setWordWrap(true);
    m_monitorDatabase->setContentsMargins(6, 3, 6, 0);
    auto *monitorsPage = new QWidget;
    monitorsPage->setObjectName(QStringLiteral("monitorsPage"));
    auto *monitorsLayout = new QVBoxLayout(monitorsPage);
    monitorsLayout->setContentsMargins(0, 0, 0, 0);
    monitorsLayout->setSpacing(0);
    monitorsLayout->addWidget(m_monitorDatabase);
    monitorsLayout->addWidget(m_monitorPages, 1);
    addTab(monitorsPage, tr("Monitors"));
    // A shortened title says itself whole, with its key, on hover.
    for (int i = 0; i < count(); ++i)
        setTabToolTip(i, tr("%1 (Alt+%2)").arg(tabText(i)).arg(i + 1));
}

void WorkspaceTabs::addRunViews(
    QTabWidget *views, TimelineView *timeline, ErrorLogView *log, StatisticsView *statistics)
{
    views->setDocumentMode(true);
    views->addTab(timeline, tr("Timeline"));
    views->addTab(log, tr("Error log"));
    views->addTab(scrollable(statistics), tr("Statistics"));
}

QWidget *WorkspaceTabs::view(Tab which) const
{
    switch (which) {
    case Tab::Timeline:
        return m_timeline;
    case Tab::ErrorLog:
        return m_errorLog;
    case Tab::Statistics:
        return m_statistics;
    case Tab::Server:
        return m_serverView;
    case Tab::Conformance:
        return m_conformance;
    case Tab::Simulator:
        return m_simulator;
    case Tab::Clients:
        return m_clientsView;
    case Tab::Proxy:
        return m_proxyView;
    case Tab::Monitors:
        return m_monitors;
    case Tab::MonitorHistory:
        return m_monitorHistory;
    case Tab::Incidents:
        return m_incidents;
    }
    return nullptr;
}

void WorkspaceTabs::showTab(Tab which)
{
    QWidget *page = view(which);
    for (int i = 0; i < count(); ++i) {
        QWidget *candidate = widget(i);
        if (candidate == page || candidate->isAncestorOf(page)) {
            setCurrentIndex(i);
            for (int p = 0; p < m_monitorPages->count(); ++p) {
                QWidget *monitorPage = m_monitorPages->widget(p);
                if (monitorPage == page || monitorPage->isAncestorOf(page))
                    m_monitorPages->setCurrentIndex(p);
            }
            return;
        }
    }
}

WorkspaceTabs::Tab WorkspaceTabs::currentTab() const
{
    for (Tab each : {Tab::Timeline, Tab::ErrorLog, Tab::Statistics, Tab::Server, Tab::Conformance, Tab::Simulator,
             Tab::Clients, Tab::Proxy}) {
        QWidget *page = view(each);
        if (currentWidget() == page || currentWidget()->isAncestorOf(page))
            return each;
    }
    if (currentWidget()->isAncestorOf(m_monitorPages)) {
        for (Tab each : {Tab::MonitorHistory, Tab::Incidents}) {
            QWidget *shown = m_monitorPages->currentWidget();
            if (shown == view(each) || shown->isAncestorOf(view(each)))
                return each;
        }
        return Tab::Monitors;
    }
    return Tab::Timeline;
}

void WorkspaceTabs::focusCurrentTab()
{
    // The keyboard follows the eyes: the first widget of the page that takes Tab,
    // in the page's own focus order, rather than whatever the docks held.
    QWidget *page = currentWidget();
    if (!page)
        return;
    QWidget *candidate = page;
    do {
        if (page->isAncestorOf(candidate) && candidate->isVisible() && candidate->isEnabled()
            && (candidate->focusPolicy() & Qt::TabFocus) == Qt::TabFocus) {
            candidate->setFocus(Qt::ShortcutFocusReason);
            return;
        }
        candidate = candidate->nextInFocusChain();
    } while (candidate && candidate != page);
    page->setFocus(Qt::ShortcutFocusReason);
}

} // namespace RetryLab::Ui
