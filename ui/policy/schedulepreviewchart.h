#pragma once

#include "core/policy/backoff.h"
#include "core/policy/backoffpolicy.h"
#include "ui/widgets/timeaxis.h"

#include <QList>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QAreaSeries;
class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QTimer;
class QToolButton;
class QValueAxis;
QT_END_NAMESPACE

namespace RetryLab::Ui {

/// What a policy will do before anything is sent: for every retry index the
/// band of delays jitter can produce, the time waited so far (fastest and
/// slowest), a few sampled schedules drawn from a shown, re-rollable seed, and
/// the deadline. The data is Core::previewSchedule(); nothing is computed twice.
/// Policy changes are coalesced: however fast they come, the chart redraws at
/// most once per coalescing interval.
class SchedulePreviewChart final : public QWidget
{
    Q_OBJECT

public:
    enum class Scale { Automatic, Linear, Logarithmic };

    static constexpr int sampleCount = 3;
    static constexpr int coalesceMs = 50;
    /// Sample points get markers only up to this many retries (beyond, they hide the lines).
    static constexpr int markerLimit = 40;

    explicit SchedulePreviewChart(QWidget *parent = nullptr);
    ~SchedulePreviewChart() override;

    /// Shows this policy at the next redraw (coalesced).
    void setPolicy(const Core::BackoffPolicy &policy);
    Core::BackoffPolicy policy() const { return m_policy; }
    /// Says in the note that the policy cannot be used (empty: it can); the
    /// chart still draws what the numbers give, since the delay maths is safe for any input.
    void setProblem(const QString &problem);

    quint64 seed() const { return m_seed; }
    void setSeed(quint64 seed);
    /// Picks a new seed, so that other sampled schedules are drawn.
    void reroll();

    Scale scale() const { return m_scale; }
    void setScale(Scale scale);
    /// Whether the delay axes are logarithmic now (Automatic decides by the data).
    bool isLogarithmic() const { return m_logarithmic; }

    /// Redraws now if a change is pending (the timer would do it shortly).
    void flush();
    bool isUpdatePending() const;

    /// The preview as drawn: one envelope point and one sample value per shown retry.
    const Core::SchedulePreview &preview() const { return m_preview; }
    /// Retry indexes drawn (0 when the policy makes a single attempt).
    int shownRetries() const { return static_cast<int>(m_preview.envelope.size()); }
    /// True when the policy allows more retries than the chart draws.
    bool isTruncated() const { return m_truncated; }
    /// The sentence under the chart: what is drawn, and what was left out.
    QString note() const;
    TimeAxis::Unit delayUnit() const { return m_delayUnit; }
    TimeAxis::Unit cumulativeUnit() const { return m_cumulativeUnit; }
    QChart *chart() const { return m_chart; }
    /// How many times the chart has been redrawn (a measure for coalescing).
    int redrawCount() const { return m_redraws; }

Q_SIGNALS:
    /// The chart has been redrawn with the current policy, seed and scale.
    void previewUpdated();

protected:
    void changeEvent(QEvent *event) override;

private:
    void scheduleUpdate();
    void redraw();
    void applyPalette();
    void attachAxes(bool logarithmic);
    void updateSeedLabel();
    void updateLegend();

    Core::BackoffPolicy m_policy;
    quint64 m_seed = 1;
    Scale m_scale = Scale::Automatic;
    bool m_logarithmic = false;
    bool m_truncated = false;
    bool m_deadlineShown = false;
    QString m_noteText;
    QString m_problem;
    Core::SchedulePreview m_preview;
    TimeAxis::Unit m_delayUnit;
    TimeAxis::Unit m_cumulativeUnit;
    int m_redraws = 0;

    QTimer *m_timer = nullptr;
    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    QComboBox *m_scaleCombo = nullptr;
    QLabel *m_seedLabel = nullptr;
    QToolButton *m_rerollButton = nullptr;
    QLabel *m_legendLabel = nullptr;
    QLabel *m_noteLabel = nullptr;

    QLineSeries *m_bandUpper = nullptr;
    QLineSeries *m_bandLower = nullptr;
    QAreaSeries *m_band = nullptr;
    QList<QLineSeries *> m_samples;
    QLineSeries *m_cumulativeMin = nullptr;
    QLineSeries *m_cumulativeMax = nullptr;
    QLineSeries *m_deadline = nullptr;

    QValueAxis *m_xAxis = nullptr;
    QValueAxis *m_delayLinear = nullptr;
    QLogValueAxis *m_delayLog = nullptr;
    QValueAxis *m_cumulativeLinear = nullptr;
    QLogValueAxis *m_cumulativeLog = nullptr;
    bool m_axesAttached = false;
    bool m_axesLogarithmic = false;
};

} // namespace RetryLab::Ui
