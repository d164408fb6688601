#pragma once

#include "core/history/historyfigures.h"
#include "core/history/storedcheck.h"
#include "core/monitor/monitor.h"
#include "core/policy/backoffpolicy.h"

#include <QWidget>

#include <functional>
#include <optional>

class QAbstractButton;
class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QSplitter;
class QTabWidget;

namespace RetryLab::Ui {

class MonitorHistoryView;
class ObjectivePanel;
class WhatIfPanel;

/// One monitor's history: a header (the monitor, the window of 1 h, 24 h, 7 d
/// or 30 d up to now, the summary of the window), the history view, and under
/// it the objective and the what-if in tabs. It reads nothing itself: it asks
/// (windowRequested(), rangeChanged(), whatIfRequested()) and is told (the setters).
class MonitorHistoryPage final : public QWidget
{
    Q_OBJECT

public:
    /// The current UTC time in epoch ms; a test fixes it.
    using NowSource = std::function<qint64()>;

    explicit MonitorHistoryPage(QWidget *parent = nullptr);

    void setNowSource(NowSource now) { m_now = std::move(now); }
    /// The monitors to choose from; the chosen one stays chosen while listed.
    void setMonitors(const QStringList &names);
    QString currentMonitor() const;
    /// Chooses a monitor and asks for its window (windowRequested()).
    void setCurrentMonitor(const QString &name);
    /// One of windowChoicesMs(); asks for it (windowRequested()).
    void setWindowMs(qint64 ms);
    qint64 windowMs() const;
    static QList<qint64> windowChoicesMs();
    qint64 sinceMs() const { return m_sinceMs; }
    qint64 untilMs() const { return m_untilMs; }
    /// Asks again for the chosen monitor and window, up to now (F5).
    void refresh();

    void setSummary(const Core::MonitorSummary &summary);
    void setCheckPoints(QList<Core::CheckPoint> points);
    void setIncidents(QList<Core::Incident> incidents);
    void setStateEvents(QList<Core::StateEvent> events);
    void setMaintenance(const QList<Core::MaintenanceWindow> &windows);
    /// Empty: the monitor has no objective.
    void setObjective(const std::optional<Core::ObjectiveStatus> &status);
    /// The policy the dock shows, offered to the what-if.
    void setCurrentPolicy(const Core::BackoffPolicy &policy);
    void setWhatIfResult(const Core::WhatIf &whatIf, const Core::MonitorSummary &actual);
    void setWhatIfBusy(bool busy);
    void setWhatIfError(const QString &message);

    /// The summary line of a window: availability of checks and of attempts,
    /// attempts per check, incidents seen and hidden, MTBF and MTTR.
    static QString summaryText(const Core::MonitorSummary &summary);

    MonitorHistoryView *historyView() const { return m_view; }
    ObjectivePanel *objectivePanel() const { return m_objective; }
    WhatIfPanel *whatIfPanel() const { return m_whatIf; }
    QComboBox *monitorChooser() const { return m_monitor; }
    QAbstractButton *windowButton(qint64 windowMs) const;
    QLabel *summaryLabel() const { return m_summary; }
    QCheckBox *logScaleBox() const { return m_logScale; }
    QTabWidget *panelTabs() const { return m_tabs; }

Q_SIGNALS:
    /// Read `monitor`'s checks, incidents, state changes, summary and objective
    /// of [sinceMs, untilMs) and hand them to the setters.
    void windowRequested(const QString &monitor, qint64 sinceMs, qint64 untilMs);
    /// The user zoomed or panned to [fromMs, toMs]: finer check points may be read.
    void rangeChanged(const QString &monitor, qint64 fromMs, qint64 toMs);
    void checkActivated(const QString &monitor, qint64 checkStartMs);
    void whatIfRequested(const QString &monitor, qint64 sinceMs, qint64 untilMs, const Core::BackoffPolicy &policy,
        const QString &policyLabel);

private:
    void handleMonitorChanged();
    void requestWindow();

    NowSource m_now;
    qint64 m_sinceMs = 0;
    qint64 m_untilMs = 0;
    QComboBox *m_monitor;
    QButtonGroup *m_windows;
    QCheckBox *m_logScale;
    QLabel *m_summary;
    QSplitter *m_splitter;
    MonitorHistoryView *m_view;
    QTabWidget *m_tabs;
    ObjectivePanel *m_objective;
    WhatIfPanel *m_whatIf;
};

} // namespace RetryLab::Ui
