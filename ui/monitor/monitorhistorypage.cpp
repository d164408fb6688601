#include "ui/monitor/monitorhistorypage.h"
#include "core/util/durationtext.h"
#include "ui/monitor/monitorhistoryview.h"
#include "ui/monitor/objectivepanel.h"
#include "ui/monitor/whatifpanel.h"

#include <QAction>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QLoggingCategory>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

Q_LOGGING_CATEGORY(lcHistoryPage, "retrylab.ui.monitor.historypage")

namespace RetryLab::Ui {

namespace {

constexpr qint64 pageHourMs = 3600LL * 1000;

QWidget *monitorPanelScrollArea(QWidget *content)
{
    // A panel taller than the tab scrolls rather than squeezing the history view.
    content->setContentsMargins(8, 6, 8, 6);
    auto *area = new QScrollArea;
    area->setWidget(content);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

} // namespace

MonitorHistoryPage::MonitorHistoryPage(QWidget *parent)
    : QWidget(parent), m_now([] { return QDateTime::currentMSecsSinceEpoch(); }), m_monitor(new QComboBox),
      m_windows(new QButtonGroup(this)), m_logScale(new QCheckBox(tr("&Log scale"))), m_summary(new QLabel),
      m_splitter(new QSplitter(Qt::Vertical)), m_view(new MonitorHistoryView), m_tabs(new QTabWidget),
      m_objective(new ObjectivePanel), m_whatIf(new WhatIfPanel)
{
    m_monitor->setObjectName(QStringLiteral("historyMonitor"));
    m_monitor->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_monitor->setMinimumContentsLength(12);
    auto *monitorLabel = new QLabel(tr("&Monitor:"));
    monitorLabel->setBuddy(m_monitor);

    auto *header = new QHBoxLayout;
    header->addWidget(monitorLabel);
    header->addWidget(m_monitor, 1);
    const QList<qint64> choices = windowChoicesMs();
    const QStringList texts{tr("1 h"), tr("24 h"), tr("7 d"), tr("30 d")};
    const QStringList tips{tr("The last hour"), tr("The last 24 hours"), tr("The last 7 days"), tr("The last 30 days")};
    for (int i = 0; i < choices.size(); ++i) {
        auto *button = new QToolButton;
        button->setText(texts.at(i));
        button->setToolTip(tips.at(i) + QStringLiteral(" (Alt+%1)").arg(i + 1));
        button->setAccessibleName(tips.at(i));
        button->setCheckable(true);
        button->setFocusPolicy(Qt::StrongFocus);
        button->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)));
        m_windows->addButton(button, i);
        header->addWidget(button);
    }
    m_windows->setExclusive(true);
    m_windows->button(1)->setChecked(true);
    header->addWidget(m_logScale);
    auto *refreshButton = new QToolButton;
    refreshButton->setText(tr("Refresh"));
    refreshButton->setToolTip(tr("Read the window again, up to now (F5)"));
    refreshButton->setShortcut(QKeySequence(Qt::Key_F5));
    refreshButton->setFocusPolicy(Qt::StrongFocus);
    header->addWidget(refreshButton);

    m_summary->setObjectName(QStringLiteral("historySummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);

    m_view->setMinimumHeight(150);
    m_tabs->addTab(monitorPanelScrollArea(m_objective), tr("&Objective"));
    m_tabs->addTab(monitorPanelScrollArea(m_whatIf), tr("&What if"));
    m_tabs->setMinimumHeight(110);
    m_splitter->addWidget(m_view);
    m_splitter->addWidget(m_tabs);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_summary);
    layout->addWidget(m_splitter, 1);

    connect(m_monitor, &QComboBox::currentIndexChanged, this, &MonitorHistoryPage::handleMonitorChanged);
    connect(m_windows, &QButtonGroup::idClicked, this, &MonitorHistoryPage::requestWindow);
    connect(refreshButton, &QToolButton::clicked, this, &MonitorHistoryPage::refresh);
    connect(m_logScale, &QCheckBox::toggled, m_view, &MonitorHistoryView::setLogScale);
    connect(m_view, &MonitorHistoryView::checkActivated, this,
        [this](qint64 startMs) { Q_EMIT checkActivated(currentMonitor(), startMs); });
    connect(m_view, &MonitorHistoryView::rangeChanged, this,
        [this](qint64 fromMs, qint64 toMs) { Q_EMIT rangeChanged(currentMonitor(), fromMs, toMs); });
    connect(
        m_whatIf, &WhatIfPanel::whatIfRequested, this, [this](const Core::BackoffPolicy &policy, const QString &label) {
            Q_EMIT whatIfRequested(currentMonitor(), m_sinceMs, m_untilMs, policy, label);
        });
    m_summary->setText(tr("Choose a monitor."));
}

QList<qint64> MonitorHistoryPage::windowChoicesMs()
{
    return {pageHourMs, 24 * pageHourMs, 7 * 24 * pageHourMs, 30 * 24 * pageHourMs};
}

QAbstractButton *MonitorHistoryPage::windowButton(qint64 windowMs) const
{
    return m_windows->button(int(windowChoicesMs().indexOf(windowMs)));
}

qint64 MonitorHistoryPage::windowMs() const
{
    const int id = m_windows->checkedId();
    return id >= 0 ? windowChoicesMs().at(id) : 24 * pageHourMs;
}

void MonitorHistoryPage::setWindowMs(qint64 ms)
{
    if (QAbstractButton *button = windowButton(ms)) {
        button->setChecked(true);
        requestWindow();
    }
}

void MonitorHistoryPage::setMonitors(const QStringList &names)
{
    const QString chosen = currentMonitor();
    {
        const QSignalBlocker blocker(m_monitor);
        m_monitor->clear();
        m_monitor->addItems(names);
        const int again = m_monitor->findText(chosen);
        m_monitor->setCurrentIndex(again >= 0 ? again : (names.isEmpty() ? -1 : 0));
    }
    if (currentMonitor() != chosen)
        handleMonitorChanged();
}

QString MonitorHistoryPage::currentMonitor() const
{
    return m_monitor->currentText();
}

void MonitorHistoryPage::setCurrentMonitor(const QString &name)
{
    const int index = m_monitor->findText(name);
    if (index < 0)
        return;
    if (index == m_monitor->currentIndex())
        requestWindow();
    else
        m_monitor->setCurrentIndex(index);
}

void MonitorHistoryPage::handleMonitorChanged()
{
    // Another monitor's figures must not stand under this one's name while it is read.
    m_view->setCheckPoints({});
    m_view->setIncidents({});
    m_view->setStateEvents({});
    m_view->setMaintenanceIntervals({});
    m_objective->clear();
    m_whatIf->clearResult();
    m_summary->setText(currentMonitor().isEmpty() ? tr("Choose a monitor.") : tr("Reading\u2026"));
    requestWindow();
}

void MonitorHistoryPage::refresh()
{
    requestWindow();
}

void MonitorHistoryPage::requestWindow()
{
    const QString monitor = currentMonitor();
    if (monitor.isEmpty())
        return;
    m_untilMs = m_now();
    m_sinceMs = m_untilMs - windowMs();
    m_view->setWindow(m_sinceMs, m_untilMs);
    qCDebug(lcHistoryPage) << "window requested" << monitor << m_sinceMs << m_untilMs;
    Q_EMIT windowRequested(monitor, m_sinceMs, m_untilMs);
}

QString MonitorHistoryPage::summaryText(const Core::MonitorSummary &summary)
{
    if (summary.checks == 0 && summary.maintenanceChecks == 0)
        return tr("No checks in this window.");
    const auto percent = [](const std::optional<double> &value) {
        return value ? ObjectivePanel::percentText(*value) : tr("unknown");
    };
    QStringList parts;
    parts << tr("Checks %1 available (attempts %2)")
                 .arg(percent(summary.checkAvailability), percent(summary.attemptAvailability));
    if (summary.attemptsPerCheck)
        parts << tr("%1 attempts per check").arg(QLocale().toString(*summary.attemptsPerCheck, 'f', 2));
    parts << tr("%n incident(s)", nullptr, summary.incidents) + QStringLiteral(", ")
            + tr("%n hidden by retries", nullptr, summary.hiddenIncidents);
    parts << tr("MTBF %1").arg(summary.mtbfMs ? Core::DurationText::format(*summary.mtbfMs) : tr("none"));
    parts << tr("MTTR %1").arg(summary.mttrMs ? Core::DurationText::format(*summary.mttrMs) : tr("none"));
    QString text = parts.join(QStringLiteral(" \u00b7 "));
    if (summary.maintenanceChecks > 0)
        text += QLatin1Char(' ')
            + tr("(%n check(s) in maintenance, not counted)", nullptr, int(summary.maintenanceChecks));
    if (summary.fromAggregates)
        text += QLatin1Char(' ')
            + tr("(before %1 from aggregates: no incidents or percentiles there)")
                  .arg(QDateTime::fromMSecsSinceEpoch(summary.rawSinceMs).toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    return text;
}

void MonitorHistoryPage::setSummary(const Core::MonitorSummary &summary)
{
    m_summary->setText(summaryText(summary));
}

void MonitorHistoryPage::setCheckPoints(QList<Core::CheckPoint> points)
{
    m_view->setCheckPoints(std::move(points));
}

void MonitorHistoryPage::setIncidents(QList<Core::Incident> incidents)
{
    m_view->setIncidents(std::move(incidents));
}

void MonitorHistoryPage::setStateEvents(QList<Core::StateEvent> events)
{
    m_view->setStateEvents(std::move(events));
}

void MonitorHistoryPage::setMaintenance(const QList<Core::MaintenanceWindow> &windows)
{
    m_view->setMaintenance(windows);
}

void MonitorHistoryPage::setObjective(const std::optional<Core::ObjectiveStatus> &status)
{
    if (status)
        m_objective->setStatus(*status);
    else
        m_objective->clear();
}

void MonitorHistoryPage::setCurrentPolicy(const Core::BackoffPolicy &policy)
{
    m_whatIf->setCurrentPolicy(policy);
}

void MonitorHistoryPage::setWhatIfResult(const Core::WhatIf &whatIf, const Core::MonitorSummary &actual)
{
    m_whatIf->setResult(whatIf, actual);
}

void MonitorHistoryPage::setWhatIfBusy(bool busy)
{
    m_whatIf->setBusy(busy);
}

void MonitorHistoryPage::setWhatIfError(const QString &message)
{
    m_whatIf->setError(message);
}

} // namespace RetryLab::Ui
