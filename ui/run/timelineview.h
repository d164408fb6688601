#pragma once

#include "ui/widgets/timescale.h"

#include <QAbstractScrollArea>
#include <QVarLengthArray>

#include <limits>
#include <QPair>
#include <QPointer>
#include <QTimer>

class QPainter;
class QToolButton;

namespace RetryLab::Ui {

class RunSession;

/// The attempt timeline: one lane per logical request, each attempt a bar on a real
/// time axis coloured by outcome, the backoff between attempts drawn twice (the delay
/// the policy planned as a dashed bracket, the gap that really passed as a thin line),
/// live while requests run. Only the lanes in sight are visited when painting, so tens
/// of thousands of requests scroll smoothly; repaints are coalesced (at most about 30
/// per second).
///
/// Zoom: Ctrl+wheel (about the pointer), +/- keys, the buttons by the scroll bar.
/// Pan: drag, Shift+wheel, Left/Right keys, the scroll bar. Home (Fit) shows the
/// selected request's run, or the latest, and pressed again the whole session, its
/// idle time drawn narrow; End follows the live edge again; a double-click zooms to
/// one request. A click selects a request's lane.
class TimelineView final : public QAbstractScrollArea
{
    Q_OBJECT

public:
    /// What is under a point of the viewport.
    struct Hit
    {
        enum class Kind {
            Nothing, ///< the axis, the legend, or below the last lane
            Lane, ///< a lane (its label, or empty time)
            Attempt, ///< an attempt's bar; `row` is the attempt
            Gap, ///< the backoff before attempt `row`
            PendingRetry, ///< the wait for a retry not started yet; `row` is the attempt before it
        };
        Kind kind = Kind::Nothing;
        qsizetype lane = -1;
        qsizetype row = -1;
    };

    explicit TimelineView(QWidget *parent = nullptr);

    /// Not owned.
    void setSession(RunSession *session);
    RunSession *session() const { return m_session; }

    const TimeScale &timeScale() const { return m_scale; }
    /// Shows [startMs, endMs] of run time (clamped to the run); stops following.
    void setVisibleRange(double startMs, double endMs);
    bool followLive() const { return m_follow; }

    int laneHeight() const { return m_laneHeight; }
    /// What the view says while it has no lane: what to do to get one here. The default
    /// suits the composer's runs; the Clients and Proxy tabs watch others and say so.
    void setEmptyText(const QString &text);
    QString emptyText() const;
    /// Presentation mode (View > Presentation): thicker bars, wider attempts and
    /// heavier lines, readable on a projector; the font is the window's.
    void setPresentation(bool on);
    bool isPresentation() const { return m_presentation; }
    /// The narrowest an attempt is drawn, in pixels, so that a quick one still shows.
    /// Attempts never shrink to a tick: wide enough to see and to hit.
    double minBarWidth() const { return m_presentation ? 8.0 : 4.0; }
    QColor actualGapColour(bool pending) const;
    int firstVisibleLane() const;
    /// Where lanes are drawn, in viewport coordinates (below the axis, above the legend).
    QRect laneArea() const;
    /// Where the time axis maps to pixels: laneArea() minus the label column.
    QRect timeArea() const;
    /// The bar of an attempt row in viewport coordinates (empty when its lane is out of sight).
    QRectF attemptRect(qsizetype row) const;
    Hit hitAt(const QPoint &viewportPos) const;
    /// The rich-text tooltip for a hit (the attempt's record, the delays, the lane's result).
    QString toolTipFor(const Hit &hit) const;

    /// The lane clicked last (highlighted; Fit shows its run); -1 none.
    qsizetype selectedLane() const { return m_selectedLane; }
    void setSelectedLane(qsizetype lane);

    /// Scrolls so that the attempt's lane is in sight and its bar in the middle.
    void showAttempt(qsizetype row);
    /// Zooms to the time one request took, from its first attempt to its result (double-click).
    void showLane(qsizetype lane);
    /// Lanes added below the view since it was scrolled away from the newest (the marker
    /// "N new requests below" says so; a click on it, or scrolling down, goes there).
    qsizetype newLanesBelow() const { return m_newBelow; }
    /// Where that marker is drawn; empty when there is none.
    QRect newLanesMarker() const;
    /// Paint events so far (tests and the benchmark check the coalescing).
    quint64 paintCount() const { return m_paintCount; }

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    /// Shows the selected request's run, or the latest (following it while it grows);
    /// when a run is shown already, or the session is one run, the whole session.
    void zoomToFit();
    void setFollowLive(bool follow);

Q_SIGNALS:
    void followLiveChanged(bool follow);
    /// Fit showed this: "the latest run, requests #9 to #16", "the whole session".
    void fitted(const QString &what);
    /// An attempt's bar was clicked (not dragged).
    void attemptClicked(qsizetype row);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void changeEvent(QEvent *event) override;

private:
    void handleSessionUpdated();
    void handleSessionCleared();
    void handleHorizontalScroll(int value);
    void refresh();
    void updateMetrics();
    void updateBounds();
    void updateScrollBars();
    void zoomAtPixel(double timeAreaX, double factor);
    double nowMs() const;
    double endMsOf(qsizetype row) const;
    /// Under hedging, the track of the lane each of its attempts is drawn in, in
    /// lane order; returns how many tracks, 0 for a lane without hedged attempts.
    using Tracks = QVarLengthArray<int, 16>;
    int hedgeTracks(qsizetype lane, Tracks &trackOf) const;
    double laneTop(qsizetype lane) const;

    void paintLanes(QPainter &p, const QList<TimeScale::Tick> &ticks);
    void paintLane(QPainter &p, qsizetype lane, int y);
    void paintAxis(QPainter &p, const QList<TimeScale::Tick> &ticks);
    void paintLegend(QPainter &p);
    void paintDelay(QPainter &p, double fromMs, double plannedMs, double toMs, int y, bool pending);

    QPointer<RunSession> m_session;
    TimeScale m_scale;
    bool m_follow = true;
    QString m_emptyText;
    /// The span followed at the live edge; infinite: the whole run.
    double m_followSpanMs = 0.0;
    /// Following from here (run ms) rather than a span: Fit on the latest run. NaN: unused.
    double m_followFromMs = std::numeric_limits<double>::quiet_NaN();
    /// The range Fit gave an earlier run; while it is shown, Fit shows everything.
    QPair<double, double> m_fittedRun{
        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    qsizetype m_selectedLane = -1;
    /// The lanes there were when it was selected: a send since makes Fit the new run's.
    qsizetype m_lanesAtSelection = 0;
    /// Lanes the scroll bar has been set for, and those added since out of sight.
    qsizetype m_lanesSeen = 0;
    qsizetype m_newBelow = 0;
    bool m_syncingScrollBar = false;
    QTimer m_repaintTimer;

    int m_laneHeight = 22;
    int m_axisHeight = 24;
    int m_legendHeight = 22;
    int m_labelWidth = 160;
    bool m_presentation = false;

    QPoint m_dragOrigin;
    QPoint m_dragLast;
    bool m_dragging = false;
    bool m_dragMoved = false;
    quint64 m_paintCount = 0;

    QToolButton *m_zoomOutButton;
    QToolButton *m_zoomInButton;
    QToolButton *m_fitButton;
    QToolButton *m_liveButton;
};

} // namespace RetryLab::Ui
