#include "app/monitorscreenshots.h"

#include "app/apptr.h"
#include "app/screenshotcontext.h"
#include "app/screenshotmonitors.h"
#include "ui/mainwindow.h"
#include "ui/monitor/incidentlistmodel.h"
#include "ui/monitor/incidentsview.h"
#include "ui/monitor/monitorhistorypage.h"
#include "ui/monitor/monitorhistoryview.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/monitor/monitorsview.h"
#include "ui/monitor/objectivepanel.h"
#include "ui/monitorcontroller.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/monitor/monitorhost.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QDateTime>
#include <QDockWidget>
#include <QLabel>
#include <QSet>
#include <QSplitter>
#include <QTableView>
#include <QTabWidget>

#include <algorithm>

namespace RetryLab::App::MonitorScreenshots {

namespace {

constexpr int readTimeoutMs = 20'000;

// The Monitors tab has the window to itself while a picture is taken: its
// tables and plot need the width. The docks come back afterwards.
class DocksHidden final
{
public:
    explicit DocksHidden(ScreenshotContext &context)
        : m_policy(context.part<QDockWidget>("policyDock")), m_request(context.part<QDockWidget>("requestDock")),
          m_policyShown(m_policy->isVisible()), m_requestShown(m_request->isVisible())
    {
        m_policy->hide();
        m_request->hide();
    }
    ~DocksHidden()
    {
        m_request->setVisible(m_requestShown);
        m_policy->setVisible(m_policyShown);
    }
    DocksHidden(const DocksHidden &) = delete;
    DocksHidden &operator=(const DocksHidden &) = delete;

private:
    QDockWidget *m_policy;
    QDockWidget *m_request;
    bool m_policyShown;
    bool m_requestShown;
};

bool summariesArrived(const Ui::MonitorListModel &model)
{
    if (model.rowCount() == 0)
        return false;
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.index(row, Ui::MonitorListModel::Checks24h).data().toString() == QStringLiteral("—"))
            return false;
    }
    return true;
}

// The notes of changed states and hidden faults the live checks raised belong to
// a window someone watches, not to the pictures of one page.
void clearMessages(ScreenshotContext &context)
{
    context.part<Ui::MessageBar>("messages")->clear();
    context.part<Ui::MonitorsView>("monitors")->messageBar()->clear();
}

} // namespace

void start(ScreenshotContext &context)
{
    Ui::MainWindow &window = context.window();
    auto *controller = context.part<Ui::MonitorController>("monitorController");
    Ui::MonitorHost *host = controller->host();
    if (host->isOpen() || !host->monitors().isEmpty()) {
        context.fail(Tr::tr("the window runs monitors already; the monitors' pictures need a history of their own"));
        return;
    }
    // The history is opened with the first monitor: written before, it is what the window reads.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (const QString problem = ScreenshotMonitors::writeHistory(controller->database(), now); !problem.isEmpty()) {
        context.fail(problem);
        return;
    }
    const auto monitors = ScreenshotMonitors::monitors(window.server()->baseUrl(), now);
    if (!monitors) {
        context.fail(Tr::tr("the screenshots' monitors do not read: %1").arg(monitors.error()));
        return;
    }
    for (const Core::Monitor &monitor : *monitors)
        host->addMonitor(monitor);
    if (!ScreenshotContext::waitFor([host] { return host->isOpen(); }, readTimeoutMs)) {
        context.fail(Tr::tr("the monitors' history %1 did not open").arg(controller->database()));
        return;
    }

    // Each checked now rather than at its place in the interval: the pictures show live checks too.
    QObject scope;
    QSet<QString> checked;
    QObject::connect(host, &Ui::MonitorHost::checkFinished, &scope,
        [&checked](const Core::StoredCheck &check) { checked.insert(check.monitor); });
    for (const Core::Monitor &monitor : *monitors)
        host->checkNow(monitor.name);
    const auto count = static_cast<qsizetype>(monitors->size());
    if (!ScreenshotContext::waitFor([&checked, count] { return checked.size() >= count; }, readTimeoutMs))
        context.warn(Tr::tr("only %1 of %2 monitors were checked live").arg(checked.size()).arg(count));

    // The live checks reach the history in batches a second apart: read the figures after them.
    ScreenshotContext::settle(1500);
    controller->refresh();
    Ui::MonitorListModel *model = context.part<Ui::MonitorsView>("monitors")->model();
    if (!ScreenshotContext::waitFor([model] { return summariesArrived(*model); }, readTimeoutMs))
        context.warn(Tr::tr("the monitors' figures of the last day did not arrive"));
    ScreenshotContext::settle(500);
}

void saveMonitors(ScreenshotContext &context)
{
    const DocksHidden docks(context);
    auto *view = context.part<Ui::MonitorsView>("monitors");
    context.window().showTab(Ui::MainWindow::Tab::Monitors);
    view->selectMonitor(ScreenshotMonitors::featuredMonitor());
    view->table()->setFocus(Qt::OtherFocusReason);
    clearMessages(context);
    ScreenshotContext::settle(400);
    context.save(&context.window(), QStringLiteral("monitors.png"));
}

void saveHistory(ScreenshotContext &context)
{
    const DocksHidden docks(context);
    auto *view = context.part<Ui::MonitorsView>("monitors");
    auto *page = context.part<Ui::MonitorHistoryPage>("monitorHistory");
    const QString featured = ScreenshotMonitors::featuredMonitor();
    // The whole history: the smallest window that holds the three days.
    page->setWindowMs(7 * 24 * 3600 * 1000LL);
    if (!view->selectMonitor(featured)) {
        context.fail(Tr::tr("the monitor \"%1\" is not in the table").arg(featured));
        return;
    }
    view->action(Ui::MonitorsView::Action::ShowHistory)->trigger();
    const bool read = ScreenshotContext::waitFor(
        [page, &featured] {
            return page->currentMonitor() == featured && !page->historyView()->checkPoints().isEmpty()
                && page->objectivePanel()->hasObjective();
        },
        readTimeoutMs);
    if (!read)
        context.fail(Tr::tr("the history of \"%1\" was not read in time").arg(featured));
    // The window reaches back seven days; the history, three.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    page->historyView()->setVisibleRange(now - ScreenshotMonitors::historyMs - 2 * 3600 * 1000LL, now + 600'000);
    // The plot gets the height, as a person drags the splitter; the objective keeps what its lines need.
    if (auto *splitter = page->findChild<QSplitter *>()) {
        const int panel = page->panelTabs()->sizeHint().height();
        splitter->setSizes({splitter->height() - panel, panel});
    }
    clearMessages(context);
    ScreenshotContext::settle(600);
    context.save(&context.window(), QStringLiteral("monitor-history.png"));
}

void saveIncidents(ScreenshotContext &context)
{
    const DocksHidden docks(context);
    auto *incidents = context.part<Ui::IncidentsView>("incidents");
    context.window().showTab(Ui::MainWindow::Tab::Incidents);
    Ui::IncidentListModel *model = incidents->model();
    if (!ScreenshotContext::waitFor([model] { return model->rowCount() > 0; }, readTimeoutMs)) {
        context.fail(Tr::tr("no incidents were read for incidents.png"));
        return;
    }
    // Someone looked into the webhook's outage already, as a person would tick it.
    const QString acknowledged = ScreenshotMonitors::acknowledgedMonitor();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex cell = model->index(row, Ui::IncidentListModel::AcknowledgedColumn);
        if (cell.data(Ui::IncidentListModel::MonitorRole).toString() == acknowledged
            && !cell.data(Ui::IncidentListModel::HiddenRole).toBool()) {
            model->setData(cell, Qt::Checked, Qt::CheckStateRole);
            break;
        }
    }
    QTableView *table = incidents->table();
    table->setFocus(Qt::OtherFocusReason);
    clearMessages(context);
    ScreenshotContext::settle(400);
    ScreenshotContext::settle(50);
    context.save(&context.window(), QStringLiteral("incidents.png"));
}

} // namespace RetryLab::App::MonitorScreenshots
