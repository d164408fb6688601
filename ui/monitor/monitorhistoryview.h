#pragma once

#include "core/history/historyfigures.h"
#include "core/history/storedcheck.h"
#include "core/monitor/monitor.h"
#include "ui/monitor/historycolumns.h"
#include "ui/monitor/maintenanceintervals.h"
#include "ui/widgets/timescale.h"

#include <QAbstractScrollArea>
#include <QImage>
#include <QList>
#include <QTimer>
#include <QTimeZone>

#include <limits>
#include <optional>

class QPainter;

namespace RetryLab::Ui {

/// A monitor's history on a wall-clock time axis, from a month down to a
/// second: the latency of checks (backoff included) and of single attempts as
/// per-pixel min/max envelopes, failed and retried checks as ticks in a strip
/// under the plot, incidents as bands across it (hidden ones hatched and
/// labelled apart), maintenance as grey bands and state changes as marks on the
/// axis. A month of 10-second checks (259,200 points) is drawn from column
/// aggregates computed once per zoom level.
///
/// Zoom: the wheel (about the pointer), + and -. Pan: drag, the horizontal
/// wheel, Left and Right. Home shows the whole window. L switches the latency
/// axis between linear and logarithmic. A click on a check emits
/// checkActivated(); when a zoom or pan has settled, rangeChanged() tells the
/// owner which part is in sight, so it can read finer data.
class MonitorHistoryView final : public QAbstractScrollArea
{
    Q_OBJECT

public:
    using Interval = TimeInterval;
    using Column = HistoryColumns::Column;

    /// What a part of the drawing means; its colour is colourOf().
    enum class Element {
        CheckLatency,
        AttemptLatency,
        FailedCheck, ///< a tick in the strip under the plot
        RetriedCheck, ///< succeeded after a failed attempt: a shorter tick
        Incident,
        HiddenIncident, ///< hatched
        Maintenance,
    };

    explicit MonitorHistoryView(QWidget *parent = nullptr);

    /// The window the data covers (UTC epoch ms); the view shows all of it.
    void setWindow(qint64 sinceMs, qint64 untilMs);
    qint64 windowSinceMs() const { return m_sinceMs; }
    qint64 windowUntilMs() const { return m_untilMs; }
    /// The checks to draw, of any order (sorted here). The visible range stays:
    /// finer data for a zoomed-in range replaces the coarser data.
    void setCheckPoints(QList<Core::CheckPoint> points);
    const QList<Core::CheckPoint> &checkPoints() const { return m_data.points(); }
    const QList<Core::Incident> &incidents() const { return m_incidents; }
    void setIncidents(QList<Core::Incident> incidents);
    void setStateEvents(QList<Core::StateEvent> events);
    /// The monitor's maintenance windows, expanded (MaintenanceIntervals::expand())
    /// over the window: call after setWindow().
    void setMaintenance(const QList<Core::MaintenanceWindow> &windows);
    void setMaintenanceIntervals(QList<Interval> intervals);
    const QList<Interval> &maintenanceIntervals() const { return m_maintenance; }

    void setLogScale(bool on);
    bool logScale() const { return m_logScale; }
    /// The zone of the axis labels and tooltips; the system's by default.
    void setTimeZone(const QTimeZone &zone);

    /// Shows [fromMs, toMs] as far as the window allows; emits nothing.
    void setVisibleRange(qint64 fromMs, qint64 toMs);
    const TimeScale &timeScale() const { return m_scale; }

    /// Where the latency is plotted, in viewport coordinates.
    QRect plotRect() const;
    /// The strip of failed and retried check ticks under the plot.
    QRect failureStripRect() const;
    /// The axis line's y, where state changes are marked.
    int axisY() const;
    double xForTime(qint64 utcMs) const;
    double yForLatency(double ms) const;
    QColor colourOf(Element element) const;
    /// The index in checkPoints() of the check drawn nearest `viewportPos`
    /// horizontally, within a few pixels.
    std::optional<qsizetype> checkNear(const QPoint &viewportPos) const;
    /// The tooltip at a point: a state change on the axis, a check, an incident, maintenance.
    QString toolTipAt(const QPoint &viewportPos) const;
    /// The per-column aggregates of the visible range at the current width.
    const QList<Column> &columns() const;

    /// Draws the whole view (legend, plot, strip, axis) for the visible range into
    /// `painter` at `size`, as the viewport would be drawn at that size: what the
    /// benchmark times and what a picture export can call.
    void render(QPainter &painter, const QSize &size) const;

Q_SIGNALS:
    void checkActivated(qint64 checkStartMs);
    /// The visible range after a zoom or pan by the user has settled.
    void rangeChanged(qint64 fromMs, qint64 toMs);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool viewportEvent(QEvent *event) override;

private:
    struct Layout;
    struct YAxis
    {
        double min = 0.0;
        double max = 1.0;
        double step = 1.0;
        bool log = false;
    };

    Layout layoutFor(const QSize &size) const;
    YAxis yAxisFor(const QList<Column> &columns, int plotHeight) const;
    void paintAll(QPainter &painter, const Layout &layout) const;
    void paintBands(QPainter &painter, const Layout &layout) const;
    void drawBands(QPainter &painter, const Layout &layout) const;
    void paintLatency(QPainter &painter, const Layout &layout, const QList<Column> &columns) const;
    void paintYAxis(QPainter &painter, const Layout &layout) const;
    void paintStrip(QPainter &painter, const Layout &layout, const QList<Column> &columns) const;
    void paintTimeAxis(QPainter &painter, const Layout &layout) const;
    void paintLegend(QPainter &painter, const Layout &layout) const;
    double yFor(double ms, const Layout &layout) const;
    QColor colourOfElement(Element element) const;
    void userChangedRange();
    void emitRangeIfChanged();
    QString timeText(qint64 utcMs) const;

    qint64 m_sinceMs = 0;
    qint64 m_untilMs = 1000;
    HistoryColumns m_data;
    QList<Core::Incident> m_incidents;
    /// The bands drawn last, kept while the range, size and incidents stay: a
    /// month's hatched bands cost a frame 20 ms to fill, a picture of them 1 ms.
    struct BandsKey
    {
        double startMs = 0.0;
        double endMs = 0.0;
        QSize size;
        QRect plot;
        QRect strip;
        qreal ratio = 0.0;
        qint64 palette = 0;
        quint64 generation = 0;
        bool operator==(const BandsKey &) const = default;
    };
    mutable QImage m_bands;
    mutable BandsKey m_bandsKey;
    quint64 m_bandsGeneration = 1;
    QList<Core::StateEvent> m_events;
    QList<Interval> m_maintenance;
    bool m_logScale = false;
    QTimeZone m_zone = QTimeZone::systemTimeZone();
    TimeScale m_scale;
    QTimer m_settle;
    Interval m_lastEmitted;
    QPoint m_pressPos;
    double m_lastDragX = 0.0;
    bool m_pressed = false;
    bool m_dragging = false;
};

} // namespace RetryLab::Ui
