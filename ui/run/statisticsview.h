#pragma once

#include "core/record/runstatistics.h"
#include "ui/session/run/runsession.h"

#include <QMap>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QChart;
class QChartView;
class QComboBox;
class QLabel;

namespace RetryLab::Ui {

/// The statistics tab: headline figures (success rate, retry amplification, latency
/// percentiles, circuit breakers, retry budget) above four charts: attempts per
/// request, latency percentiles, errors over time by cause, and request outcomes.
/// It redraws from the session's RunStatistics at most a few times per second:
/// charts cost more to rebuild than the numbers change.
///
/// What it counts is chosen above the figures: the latest run (the default: a batch
/// of 20 shows 20 requests, not everything since the last Clear), all runs, or one
/// earlier run (RunSession::runs()). Circuit breakers and the retry budget are the
/// executor's now, whatever the choice.
class StatisticsView final : public QWidget
{
    Q_OBJECT

public:
    enum class Chart { AttemptsHistogram, LatencyPercentiles, ErrorsOverTime, Outcomes };
    Q_ENUM(Chart)

    /// The headline figures, each a label (objectName: the figure's name in lower camel case).
    enum class Figure {
        Requests,
        SuccessRate,
        Attempts,
        RetryAmplification,
        RequestLatency,
        AttemptLatency,
        Errors,
        CircuitBreakers,
        RetryBudget,
    };
    Q_ENUM(Figure)

    /// scope(): what the figures and charts count; 0, 1, ... is one run of RunSession::runs().
    static constexpr int latestRun = -1;
    static constexpr int allRuns = -2;

    explicit StatisticsView(QWidget *parent = nullptr);

    /// Not owned.
    void setSession(RunSession *session);
    RunSession *session() const { return m_session; }

    /// What the view shows (brought up to date first when it was hidden while the
    /// session changed).
    QChart *chart(Chart which);
    QString figureText(Figure figure);

    int scope() const;
    /// Chooses what to count and redraws; an index beyond the runs counts the latest.
    void setScope(int scope);
    /// The statistics the view shows now (the scope's).
    const Core::RunStatistics &shownStatistics()
    {
        catchUp();
        return *m_stats;
    }

    /// Least time between two redraws (250 ms by default). A hidden view does not
    /// redraw: the charts of a tab nobody looks at would take the window's thread
    /// from the run it shows (a first redraw of a thousand requests takes about
    /// 0.2 s); it redraws when shown, or when read.
    /// A part of a long session is counted anew on each redraw: when that takes long,
    /// redraws come less often (ten times the time it took, at most every 5 s).
    void setRefreshInterval(int ms);
    /// Redraws so far.
    int refreshCount() const { return m_refreshCount; }

public Q_SLOTS:
    /// Redraws from the session now.
    void refresh();

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void scheduleRefresh();
    void catchUp();
    QChart *chartOf(Chart which) const;
    void applyPalette();
    void refreshScope();
    void syncScopeItems(const QList<RunSession::RunSpan> &runs);
    void refreshFigures();
    void refreshHistogram();
    void refreshLatency();
    void refreshErrors();
    void refreshOutcomes();
    QChart *makeChart(const QString &title, Chart which);

    QPointer<RunSession> m_session;
    QTimer m_refreshTimer;
    int m_refreshCount = 0;
    bool m_stale = false; ///< the session changed while the view was hidden
    int m_baseInterval = 250;
    QComboBox *m_scope = nullptr;
    Core::RunStatistics m_scoped; ///< a part of the session, counted on refresh
    const Core::RunStatistics *m_stats = &m_scoped; ///< the session's or m_scoped
    int m_scopeRunning = 0; ///< requests of the scope not finished
    int m_scopeInFlight = 0;
    qsizetype m_runCount = 0;
    bool m_scopeIsSession = true; ///< the scope is every lane: errors counted from the session's start
    QMap<Figure, QLabel *> m_figures;
    QLabel *m_amplificationWords = nullptr; ///< the amplification as a sentence
    QMap<Chart, QChartView *> m_views;
};

} // namespace RetryLab::Ui
