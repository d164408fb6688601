#pragma once

#include <QMap>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QChart;
class QChartView;
class QLabel;

namespace RetryLab::Ui {

class RunSession;

/// The statistics tab: headline figures (success rate, retry amplification, latency
/// percentiles, circuit breakers, retry budget) above four charts: attempts per
/// request, latency percentiles, errors over time by cause, and request outcomes.
/// It redraws from the session's RunStatistics at most a few times per second:
/// charts cost more to rebuild than the numbers change.
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

    explicit StatisticsView(QWidget *parent = nullptr);

    /// Not owned.
    void setSession(RunSession *session);
    RunSession *session() const { return m_session; }

    QChart *chart(Chart which) const;
    QString figureText(Figure figure) const;

    /// Least time between two redraws (250 ms by default).
    void setRefreshInterval(int ms) { m_refreshTimer.setInterval(ms); }
    /// Redraws so far.
    int refreshCount() const { return m_refreshCount; }

public Q_SLOTS:
    /// Redraws from the session now.
    void refresh();

protected:
    void changeEvent(QEvent *event) override;

private:
    void scheduleRefresh();
    void applyPalette();
    void refreshFigures();
    void refreshHistogram();
    void refreshLatency();
    void refreshErrors();
    void refreshOutcomes();
    QChart *makeChart(const QString &title, Chart which);

    QPointer<RunSession> m_session;
    QTimer m_refreshTimer;
    int m_refreshCount = 0;
    QMap<Figure, QLabel *> m_figures;
    QLabel *m_amplificationWords = nullptr; ///< the amplification as a sentence
    QMap<Chart, QChartView *> m_views;
};

} // namespace RetryLab::Ui
