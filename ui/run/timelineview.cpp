#include "ui/run/timelineview.h"

#include "core/util/durationtext.h"
#include "ui/run/timelinelegend.h"
#include "ui/run/timelineruns.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/outcomestyle.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QPainter>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVarLengthArray>

#include <algorithm>
#include <cmath>
#include <limits>

// One job: the attempt timeline: lanes on a time axis, painted, hit-tested, zoomed and
// scrolled. Painting, hit-testing, the mouse and the keys use the same geometry (lane
// tops, the visible range); apart, it would be computed twice or passed around. The
// time scale's maths is TimeScale's.

namespace RetryLab::Ui {

using Core::AttemptOutcome;

namespace {

// The marker over the lanes when new ones arrived below the view.
QString markerText(qsizetype count)
{
    return count == 1 ? TimelineView::tr("\u25bc 1 new request below")
                      : TimelineView::tr("\u25bc %1 new requests below").arg(QLocale().toString(count));
}

constexpr int liveIntervalMs = 33; // about 30 repaints per second while something runs
constexpr int scrollUnits = 100'000; // horizontal scroll bar resolution over the whole run
constexpr double zoomStep = 1.5;
constexpr double rightMargin = 8.0;
constexpr double hitTolerancePx = 3.0;
const double unbounded = std::numeric_limits<double>::infinity();

QString row(const QString &name, const QString &value)
{
    return QStringLiteral("<tr><td style='padding-right:8px'><b>%1</b></td><td>%2</td></tr>").arg(name, value);
}

// The scroll bar row also holds Fit and Live: it is as tall as its minimum height asks, so
// that presentation mode's larger font does not cut their text (the style's extent would).
class TimelineScrollBar final : public QScrollBar
{
public:
    using QScrollBar::QScrollBar;
    QSize sizeHint() const override { return QScrollBar::sizeHint().expandedTo(QSize(0, minimumHeight())); }
};

} // namespace

TimelineView::TimelineView(QWidget *parent)
    : QAbstractScrollArea(parent), m_followSpanMs(unbounded), m_zoomOutButton(new QToolButton(this)),
      m_zoomInButton(new QToolButton(this)), m_fitButton(new QToolButton(this)), m_liveButton(new QToolButton(this))
{
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBar(new TimelineScrollBar(Qt::Horizontal, this));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    viewport()->setMouseTracking(false);
    viewport()->setCursor(Qt::OpenHandCursor);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);

    m_zoomOutButton->setText(QStringLiteral("\u2212"));
    m_zoomOutButton->setToolTip(tr("Zoom out (-, Ctrl+wheel)"));
    m_zoomInButton->setText(QStringLiteral("+"));
    m_zoomInButton->setToolTip(tr("Zoom in (+, Ctrl+wheel)"));
    m_fitButton->setText(tr("Fit"));
    m_fitButton->setToolTip(tr("Show the selected request's run, or the latest; again, the whole session (Home)"));
    m_liveButton->setText(tr("Live"));
    m_liveButton->setToolTip(tr("Follow the newest attempts (End)"));
    m_liveButton->setCheckable(true);
    m_liveButton->setChecked(true);
    // Each widget goes to the right of those before it... on the far side: add them backwards.
    for (QToolButton *button : {m_liveButton, m_fitButton, m_zoomInButton, m_zoomOutButton}) {
        button->setAutoRaise(true);
        button->setFocusPolicy(Qt::NoFocus);
        addScrollBarWidget(button, Qt::AlignRight);
    }
    connect(m_zoomOutButton, &QToolButton::clicked, this, &TimelineView::zoomOut);
    connect(m_zoomInButton, &QToolButton::clicked, this, &TimelineView::zoomIn);
    connect(m_fitButton, &QToolButton::clicked, this, &TimelineView::zoomToFit);
    // Says at the button what it fitted: the run just made, another, or everything.
    connect(this, &TimelineView::fitted, this, [this](const QString &what) {
        const QString text = tr("Fitted %1").arg(what);
        m_fitButton->setToolTip(
            tr("%1. Fit shows the selected request's run, or the latest; again, the whole session (Home)").arg(text));
        if (m_fitButton->isVisible())
            QToolTip::showText(m_fitButton->mapToGlobal(QPoint(0, -m_fitButton->height())), text, m_fitButton);
    });
    connect(m_liveButton, &QToolButton::toggled, this, &TimelineView::setFollowLive);
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, &TimelineView::handleHorizontalScroll);

    // One timer for every repaint the run asks for, session updates and the live edge
    // alike: at most one frame per interval, however both come in.
    m_repaintTimer.setSingleShot(true);
    m_repaintTimer.setInterval(liveIntervalMs);
    connect(&m_repaintTimer, &QTimer::timeout, this, &TimelineView::refresh);

    updateMetrics();
    refresh();
}

void TimelineView::setSession(RunSession *session)
{
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    m_session = session;
    if (session) {
        connect(session, &RunSession::updated, this, &TimelineView::handleSessionUpdated);
        connect(session, &RunSession::cleared, this, &TimelineView::handleSessionCleared);
    }
    handleSessionCleared();
}

void TimelineView::handleSessionCleared()
{
    m_followSpanMs = unbounded;
    m_followFromMs = std::numeric_limits<double>::quiet_NaN();
    m_selectedLane = -1;
    m_lanesSeen = 0;
    m_newBelow = 0;
    m_scale.startMs = 0.0;
    m_scale.endMs = 1000.0;
    verticalScrollBar()->setValue(0);
    setFollowLive(true);
    refresh();
}

void TimelineView::handleSessionUpdated()
{
    if (!m_repaintTimer.isActive())
        m_repaintTimer.start();
}

void TimelineView::refresh()
{
    updateBounds();
    updateScrollBars();
    viewport()->update();
    // While anything runs, bars grow and the live edge moves without any news.
    if (m_session && m_session->hasActivity()) {
        if (!m_repaintTimer.isActive())
            m_repaintTimer.start();
    } else {
        m_repaintTimer.stop();
    }
}

double TimelineView::nowMs() const
{
    return m_session ? m_session->toRunMs(m_session->nowNs()) : 0.0;
}

double TimelineView::endMsOf(qsizetype rowIndex) const
{
    const RunSession::AttemptRow &r = m_session->attemptRow(rowIndex);
    return r.inFlight() ? std::max(nowMs(), m_session->toRunMs(r.startNs)) : m_session->toRunMs(r.endNs);
}

void TimelineView::setPresentation(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    updateMetrics();
    updateScrollBars();
    viewport()->update();
}

void TimelineView::updateMetrics()
{
    const QFontMetrics fm = fontMetrics();
    m_laneHeight = fm.height() + (m_presentation ? 14 : 10);
    m_axisHeight = fm.height() + 10;
    m_legendHeight = TimelineLegend::rowsFor(viewport()->width(), fm) * (fm.height() + 6) + 4;
    m_labelWidth = std::clamp(fm.horizontalAdvance(QLatin1Char('M')) * 13, 120, 240);
    // An idle stretch is as wide as its longest label ("59 min"), at any font size.
    m_scale.gapPx = std::max(36.0, fm.horizontalAdvance(QStringLiteral("59 min")) + 12.0);
    // In presentation mode the row under the lanes grows with Fit and Live's text.
    horizontalScrollBar()->setMinimumHeight(m_presentation ? fm.height() + 8 : 0);
    m_scale.widthPx = std::max(1, timeArea().width());
}

QRect TimelineView::laneArea() const
{
    const QRect r = viewport()->rect();
    return QRect(r.left(), r.top() + m_axisHeight, r.width(), std::max(0, r.height() - m_axisHeight - m_legendHeight));
}

QRect TimelineView::timeArea() const
{
    const QRect area = laneArea();
    return QRect(area.left() + m_labelWidth, area.top(), std::max(1, area.width() - m_labelWidth - int(rightMargin)),
        area.height());
}

int TimelineView::firstVisibleLane() const
{
    return m_laneHeight > 0 ? verticalScrollBar()->value() / m_laneHeight : 0;
}

double TimelineView::laneTop(qsizetype lane) const
{
    return laneArea().top() + double(lane) * m_laneHeight - verticalScrollBar()->value();
}

void TimelineView::updateBounds()
{
    const double latest = m_session ? std::max(0.0, m_session->toRunMs(m_session->latestNs())) : 0.0;
    // A little room after the last bar, so that it does not touch the edge: a few
    // per cent of what is shown (of the latest run, when Fit shows that).
    const double shown = std::isfinite(m_followFromMs) && m_follow ? latest - m_followFromMs : latest;
    const double end = std::max(1000.0, latest + std::max(20.0, shown * 0.03));
    m_scale.widthPx = std::max(1, timeArea().width());
    m_scale.boundStartMs = 0.0;
    m_scale.boundEndMs = end;
    if (m_follow) {
        const double span = std::min(m_followSpanMs, end);
        m_scale.startMs = std::isfinite(m_followFromMs) ? std::clamp(m_followFromMs, 0.0, end) : end - span;
        m_scale.endMs = end;
    }
    // The whole session: idle stretches drawn narrow. Anything else is drawn at scale.
    const bool whole = m_follow && !std::isfinite(m_followFromMs) && m_followSpanMs >= end;
    m_scale.gaps = whole && m_session ? TimelineRuns::idleGaps(*m_session, end) : QList<TimeScale::Gap>{};
    m_scale.clamp();
}

void TimelineView::updateScrollBars()
{
    const QRect area = laneArea();
    const qsizetype lanes = m_session ? m_session->laneCount() : 0;
    const qint64 total = qint64(lanes) * m_laneHeight;
    QScrollBar *vertical = verticalScrollBar();
    // Live, new lanes come into view as they appear, unless the view was scrolled up from the
    // newest: then they are counted for the marker instead.
    const bool atNewest = vertical->value() >= vertical->maximum();
    const qsizetype added = lanes - m_lanesSeen;
    m_lanesSeen = lanes;
    vertical->setRange(0, int(std::clamp<qint64>(total - area.height(), 0, std::numeric_limits<int>::max())));
    vertical->setPageStep(std::max(1, area.height()));
    vertical->setSingleStep(m_laneHeight);
    if (added > 0 && vertical->maximum() > 0) {
        if (m_follow && atNewest && m_newBelow == 0)
            vertical->setValue(vertical->maximum());
        else if (vertical->value() < vertical->maximum())
            m_newBelow += added;
    } else if (added < 0) {
        m_newBelow = 0;
    }

    const double unit = m_scale.maxSpanMs() / scrollUnits;
    m_syncingScrollBar = true;
    QScrollBar *horizontal = horizontalScrollBar();
    horizontal->setRange(0, int(std::lround((m_scale.maxSpanMs() - m_scale.spanMs()) / unit)));
    horizontal->setPageStep(std::max(1, int(std::lround(m_scale.spanMs() / unit))));
    horizontal->setSingleStep(std::max(1, horizontal->pageStep() / 10));
    horizontal->setValue(int(std::lround((m_scale.startMs - m_scale.boundStartMs) / unit)));
    m_syncingScrollBar = false;
}

void TimelineView::handleHorizontalScroll(int value)
{
    if (m_syncingScrollBar)
        return;
    const double unit = m_scale.maxSpanMs() / scrollUnits;
    const double span = m_scale.spanMs();
    const double start = m_scale.boundStartMs + value * unit;
    setFollowLive(false);
    m_scale.setRange(start, start + span);
    viewport()->update();
}

void TimelineView::scrollContentsBy(int, int)
{
    // Everything is painted from the scroll bars' values: nothing to move.
    if (verticalScrollBar()->value() >= verticalScrollBar()->maximum())
        m_newBelow = 0;
    viewport()->update();
}

QRect TimelineView::newLanesMarker() const
{
    if (m_newBelow <= 0)
        return {};
    const QRect area = laneArea();
    const QFontMetrics fm = fontMetrics();
    const QString text = markerText(m_newBelow);
    const int width = fm.horizontalAdvance(text) + fm.height() * 2;
    const int height = fm.height() + 8;
    return QRect(area.center().x() - width / 2, area.bottom() - height - 6, width, height);
}

void TimelineView::setVisibleRange(double startMs, double endMs)
{
    setFollowLive(false);
    updateBounds();
    m_scale.setRange(startMs, endMs);
    updateScrollBars();
    viewport()->update();
}

void TimelineView::setFollowLive(bool follow)
{
    // Fit's latest run lasts until the view is moved or following is turned on anew.
    if (follow != m_follow)
        m_followFromMs = std::numeric_limits<double>::quiet_NaN();
    if (follow) {
        // Following keeps the span in view now; all of it when the whole run is shown.
        const bool showsAll = m_scale.spanMs() >= m_scale.maxSpanMs() * 0.999;
        if (!m_follow)
            m_followSpanMs = showsAll ? unbounded : m_scale.spanMs();
    }
    const bool changed = follow != m_follow;
    m_follow = follow;
    {
        const QSignalBlocker blocker(m_liveButton);
        m_liveButton->setChecked(follow);
    }
    if (changed) {
        refresh();
        Q_EMIT followLiveChanged(follow);
    }
}

void TimelineView::zoomAtPixel(double timeAreaX, double factor)
{
    m_followFromMs = std::numeric_limits<double>::quiet_NaN();
    m_scale.zoomAt(timeAreaX, factor);
    if (m_follow)
        m_followSpanMs = m_scale.spanMs() >= m_scale.maxSpanMs() * 0.999 ? unbounded : m_scale.spanMs();
    refresh();
}

void TimelineView::zoomIn()
{
    // Following: zoom about the live edge, and keep following.
    zoomAtPixel(m_follow ? m_scale.widthPx : m_scale.widthPx / 2.0, zoomStep);
}

void TimelineView::zoomOut()
{
    zoomAtPixel(m_follow ? m_scale.widthPx : m_scale.widthPx / 2.0, 1.0 / zoomStep);
}

void TimelineView::zoomToFit()
{
    // The selected request's run (else the latest), from its first request to its end
    // or the live edge: an earlier send and the idle time since would squeeze it into
    // a column. Pressed again (or when the session is one run), the whole session.
    const bool showsRun = std::isfinite(m_followFromMs)
        || (!m_follow && m_scale.startMs == m_fittedRun.first && m_scale.endMs == m_fittedRun.second);
    m_followSpanMs = unbounded;
    m_followFromMs = std::numeric_limits<double>::quiet_NaN();
    m_fittedRun = {m_followFromMs, m_followFromMs};
    // A request clicked before the latest send is not what Fit is for: the run just made is.
    const qsizetype lanes = m_session ? m_session->laneCount() : 0;
    const bool selectionCurrent = m_selectedLane >= 0 && m_lanesAtSelection == lanes;
    const qsizetype lane = selectionCurrent ? m_selectedLane : lanes - 1;
    const auto run = m_session && !showsRun ? TimelineRuns::runAround(*m_session, lane) : std::nullopt;
    if (run) {
        verticalScrollBar()->setValue(int(run->firstLane) * m_laneHeight);
        if (!run->latest) {
            setVisibleRange(run->startMs, run->endMs);
            m_fittedRun = {m_scale.startMs, m_scale.endMs};
            Q_EMIT fitted(tr("the run of request #%1").arg(lane + 1));
            return;
        }
        m_followFromMs = run->startMs;
        Q_EMIT fitted(run->firstLane + 1 == lanes
                ? tr("the latest run, request #%1").arg(lanes)
                : tr("the latest run, requests #%1 to #%2").arg(run->firstLane + 1).arg(lanes));
    } else {
        Q_EMIT fitted(tr("the whole session, %n request(s)", nullptr, int(lanes)));
    }
    if (!m_follow) {
        m_follow = true;
        const QSignalBlocker blocker(m_liveButton);
        m_liveButton->setChecked(true);
        Q_EMIT followLiveChanged(true);
    }
    refresh();
}

void TimelineView::setSelectedLane(qsizetype lane)
{
    const qsizetype count = m_session ? m_session->laneCount() : 0;
    m_selectedLane = lane >= 0 && lane < count ? lane : -1;
    m_lanesAtSelection = count;
    viewport()->update();
}

void TimelineView::showAttempt(qsizetype rowIndex)
{
    if (!m_session || rowIndex < 0 || rowIndex >= m_session->attemptRowCount())
        return;
    const RunSession::AttemptRow &r = m_session->attemptRow(rowIndex);
    const QRect area = laneArea();
    verticalScrollBar()->setValue(int(r.lane) * m_laneHeight - area.height() / 2 + m_laneHeight / 2);
    const double start = m_session->toRunMs(r.startNs);
    const double end = endMsOf(rowIndex);
    const double span = std::max(m_scale.spanMs() < (end - start) * 1.5 ? (end - start) * 3.0 : m_scale.spanMs(), 1.0);
    const double middle = (start + end) / 2.0;
    setVisibleRange(middle - span / 2.0, middle + span / 2.0);
}

void TimelineView::showLane(qsizetype laneIndex)
{
    if (!m_session || laneIndex < 0 || laneIndex >= m_session->laneCount())
        return;
    const RunSession::Lane &l = m_session->lane(laneIndex);
    if (l.firstStartNs < 0)
        return;
    const double start = m_session->toRunMs(l.firstStartNs);
    double end = start;
    for (quint32 r = l.firstRow; r != RunSession::noRow; r = m_session->attemptRow(r).nextInLane)
        end = std::max(end, endMsOf(r));
    if (l.sleeping())
        end = std::max(end, nowMs());
    else if (l.finished)
        end = std::max(end, m_session->toRunMs(l.endNs));
    const double padding = std::max((end - start) * 0.08, 1.0);
    setVisibleRange(start - padding, end + padding);
}

// ---------------------------------------------------------------------------
// Geometry and hit testing

QRectF TimelineView::attemptRect(qsizetype rowIndex) const
{
    if (!m_session || rowIndex < 0 || rowIndex >= m_session->attemptRowCount())
        return {};
    const RunSession::AttemptRow &r = m_session->attemptRow(rowIndex);
    const double y = laneTop(r.lane);
    const QRect area = laneArea();
    if (y + m_laneHeight <= area.top() || y >= area.bottom())
        return {};
    const QRect time = timeArea();
    const double x0 = time.left() + m_scale.toPixel(m_session->toRunMs(r.startNs));
    const double x1 = time.left() + m_scale.toPixel(endMsOf(rowIndex));
    const double inset = m_presentation ? 3.0 : 5.0;
    const double height = m_laneHeight - 2.0 * inset;
    Tracks trackOf;
    if (const int tracks = hedgeTracks(r.lane, trackOf); tracks > 0) {
        // Its track: the lane's rows in order, up to this one.
        qsizetype index = 0;
        for (quint32 row = m_session->lane(r.lane).firstRow; row != RunSession::noRow && row != quint32(rowIndex);
             row = m_session->attemptRow(row).nextInLane)
            ++index;
        const double trackHeight = height / tracks;
        return QRectF(x0, y + inset + trackOf.value(index) * trackHeight, std::max(minBarWidth(), x1 - x0),
            std::max(2.0, trackHeight - 1.0));
    }
    return QRectF(x0, y + inset, std::max(minBarWidth(), x1 - x0), height);
}

TimelineView::Hit TimelineView::hitAt(const QPoint &pos) const
{
    Hit hit;
    const QRect area = laneArea();
    if (!m_session || !area.contains(pos))
        return hit;
    const qint64 lane = (qint64(pos.y()) - area.top() + verticalScrollBar()->value()) / m_laneHeight;
    if (lane < 0 || lane >= m_session->laneCount())
        return hit;
    hit.kind = Hit::Kind::Lane;
    hit.lane = lane;
    const QRect time = timeArea();
    if (pos.x() < time.left())
        return hit;

    const double t = m_scale.toTime(pos.x() - time.left());
    const double tolerance = hitTolerancePx / m_scale.pixelsPerMs();
    const RunSession::Lane &l = m_session->lane(lane);
    // Under hedging, the track under the pointer: the attempt drawn there.
    Tracks trackOf;
    const int tracks = hedgeTracks(lane, trackOf);
    // Bars are drawn inside the lane's insets: the tracks share what lies between them.
    const double inset = m_presentation ? 3.0 : 5.0;
    const double inLane = double((qint64(pos.y()) - area.top() + verticalScrollBar()->value()) % m_laneHeight) - inset;
    const int track
        = tracks > 0 ? std::clamp(int(std::floor(inLane * tracks / (m_laneHeight - 2.0 * inset))), 0, tracks - 1) : 0;
    // Bars first: near a narrow bar, the bar wins over the gap beside it.
    qsizetype index = -1;
    for (quint32 r = l.firstRow; r != RunSession::noRow; r = m_session->attemptRow(r).nextInLane) {
        ++index;
        const double start = m_session->toRunMs(m_session->attemptRow(r).startNs);
        const double end = std::max(endMsOf(r), start + 2.0 / m_scale.pixelsPerMs());
        if (tracks > 0 && trackOf.value(index) != track)
            continue;
        if (t >= start - tolerance && t <= end + tolerance) {
            hit.kind = Hit::Kind::Attempt;
            hit.row = r;
            return hit;
        }
        if (start > t + tolerance)
            break;
    }
    double previousEnd = std::numeric_limits<double>::quiet_NaN();
    for (quint32 r = l.firstRow; r != RunSession::noRow; r = m_session->attemptRow(r).nextInLane) {
        const double start = m_session->toRunMs(m_session->attemptRow(r).startNs);
        if (std::isfinite(previousEnd) && t > previousEnd && t < start) {
            hit.kind = Hit::Kind::Gap;
            hit.row = r;
            return hit;
        }
        previousEnd = endMsOf(r);
    }
    if (l.sleeping() && l.lastRow != RunSession::noRow && t > previousEnd
        && t <= std::max(previousEnd + l.pendingDelayMs, nowMs())) {
        hit.kind = Hit::Kind::PendingRetry;
        hit.row = l.lastRow;
    }
    return hit;
}

QString TimelineView::toolTipFor(const Hit &hit) const
{
    if (!m_session || hit.kind == Hit::Kind::Nothing || hit.lane < 0)
        return {};
    const RunSession &s = *m_session;
    const RunSession::Lane &l = s.lane(hit.lane);
    const Core::RequestSpec *spec = s.spec(hit.lane);
    QString html = QStringLiteral("<b>%1</b>").arg(s.laneTitle(hit.lane).toHtmlEscaped());
    if (spec) {
        html += QStringLiteral("<br>%1 %2")
                    .arg(QString::fromLatin1(spec->method).toHtmlEscaped(),
                        spec->url.toDisplayString(QUrl::RemoveUserInfo).toHtmlEscaped());
    }
    QString rows;

    switch (hit.kind) {
    case Hit::Kind::Nothing:
        return {};
    case Hit::Kind::Lane: {
        if (l.finished) {
            const auto outcome = static_cast<Core::RequestOutcome>(l.outcome);
            rows += row(tr("Result"), Core::requestOutcomeName(outcome).toHtmlEscaped());
            if (l.resultReason != 0)
                rows += row(tr("Why"), s.string(l.resultReason).toHtmlEscaped());
            if (l.firstStartNs >= 0 && l.endNs >= l.firstStartNs)
                rows += row(tr("Took"), Core::DurationText::format(double(l.endNs - l.firstStartNs) / 1e6));
        } else {
            rows += row(tr("Result"), l.sleeping() ? tr("waiting to retry") : tr("running"));
        }
        rows += row(tr("Attempts"), QString::number(l.attempts));
        break;
    }
    case Hit::Kind::Attempt: {
        const RunSession::AttemptRow &r = s.attemptRow(hit.row);
        QString attempt = tr("%1").arg(r.attemptIndex + 1);
        if (const QString step = s.stepOf(r); !step.isEmpty())
            attempt += QStringLiteral(" (%1)").arg(step.toHtmlEscaped());
        rows += row(tr("Attempt"), attempt);
        rows += row(tr("Outcome"), Core::attemptOutcomeTitle(r.outcome).toHtmlEscaped());
        if (r.hedgeWinner())
            rows += row(tr("Hedging"), tr("the answer the request kept"));
        else if (r.hedged())
            rows += row(tr("Hedging"), tr("sent while an earlier attempt was still in flight"));
        rows += row(tr("Status"), s.statusText(r).toHtmlEscaped());
        if (r.cause != 0)
            rows += row(tr("Cause"), s.string(r.cause).toHtmlEscaped());
        if (r.reason != 0)
            rows += row(tr("Reason"), s.string(r.reason).toHtmlEscaped());
        QString timing = tr("started at +%1, ").arg(Core::DurationText::format(s.toRunMs(r.startNs)));
        timing += r.inFlight()
            ? tr("running for %1").arg(Core::DurationText::format(endMsOf(hit.row) - s.toRunMs(r.startNs)))
            : tr("took %1").arg(Core::DurationText::format(double(r.endNs - r.startNs) / 1e6));
        if (r.queuedMs >= 0.1F) // below that it is bookkeeping, not waiting for a slot
            timing += tr(", queued %1 before").arg(Core::DurationText::format(r.queuedMs));
        if (r.firstByteMs >= 0.0F)
            timing += tr(", first byte after %1").arg(Core::DurationText::format(r.firstByteMs));
        rows += row(tr("Timing"), timing);
        if (r.authMs > 0) {
            rows += row(tr("Auth"),
                tr("%1 of it went to auth first (a token fetched or a challenge answered; hatched)")
                    .arg(Core::DurationText::format(r.authMs)));
        }
        if (r.attemptIndex > 0) {
            rows += row(tr("Delay before"),
                tr("planned %1, timer gave %2")
                    .arg(Core::DurationText::format(r.plannedDelayMs), Core::DurationText::format(r.actualDelayMs)));
        }
        if (r.retryAfterMs >= 0.0F)
            rows += row(tr("Retry-After"), Core::DurationText::format(r.retryAfterMs));
        if (r.nextDelayMs >= 0.0F) {
            QString next = Core::DurationText::format(r.nextDelayMs);
            if (r.retryNote != 0)
                next += QStringLiteral(": ") + s.string(r.retryNote).toHtmlEscaped();
            rows += row(tr("Next delay"), next);
        }
        break;
    }
    case Hit::Kind::Gap: {
        const RunSession::AttemptRow &r = s.attemptRow(hit.row);
        double previousEnd = 0.0;
        for (quint32 p = l.firstRow; p != RunSession::noRow && p != quint32(hit.row); p = s.attemptRow(p).nextInLane)
            previousEnd = endMsOf(p);
        rows += row(tr("Backoff before attempt"), QString::number(r.attemptIndex + 1));
        rows += row(tr("Planned delay"), Core::DurationText::format(r.plannedDelayMs));
        rows += row(tr("Timer gave"), Core::DurationText::format(r.actualDelayMs));
        rows += row(tr("Gap on the axis"), Core::DurationText::format(s.toRunMs(r.startNs) - previousEnd));
        if (r.queuedMs >= 0.1F)
            rows += row(tr("Queued for a slot"), Core::DurationText::format(r.queuedMs));
        break;
    }
    case Hit::Kind::PendingRetry: {
        const RunSession::AttemptRow &r = s.attemptRow(hit.row);
        rows += row(tr("Retry planned in"), Core::DurationText::format(l.pendingDelayMs));
        rows += row(tr("Waiting for"), Core::DurationText::format(nowMs() - s.toRunMs(r.endNs)));
        if (r.retryNote != 0)
            rows += row(tr("Why"), s.string(r.retryNote).toHtmlEscaped());
        if (l.attemptsLeft >= 0)
            rows += row(tr("Attempts left"), QString::number(l.attemptsLeft));
        break;
    }
    }
    return html + QStringLiteral("<table>") + rows + QStringLiteral("</table>");
}

// ---------------------------------------------------------------------------
// Painting

void TimelineView::paintEvent(QPaintEvent *)
{
    ++m_paintCount;
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), palette().color(QPalette::Base));
    const QList<TimeScale::Tick> ticks = m_scale.ticks(90.0);
    paintLanes(p, ticks);
    paintAxis(p, ticks);
    paintLegend(p);
    if (const QRect marker = newLanesMarker(); !marker.isEmpty()) {
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(palette().color(QPalette::Highlight));
        p.drawRoundedRect(marker, marker.height() / 2.0, marker.height() / 2.0);
        p.setPen(palette().color(QPalette::HighlightedText));
        p.drawText(marker, Qt::AlignCenter, markerText(m_newBelow));
    }
}

void TimelineView::setEmptyText(const QString &text)
{
    m_emptyText = text;
    viewport()->update();
}

QString TimelineView::emptyText() const
{
    return m_emptyText.isEmpty() ? tr("No requests yet. Send one to see its attempts here.") : m_emptyText;
}

void TimelineView::paintLanes(QPainter &p, const QList<TimeScale::Tick> &ticks)
{
    const QPalette &pal = palette();
    const QRect area = laneArea();
    const QRect time = timeArea();
    const qsizetype lanes = m_session ? m_session->laneCount() : 0;
    if (lanes == 0) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(area, Qt::AlignCenter | Qt::TextWordWrap, emptyText());
        return;
    }

    const qsizetype first = firstVisibleLane();
    const qsizetype last = std::min<qsizetype>(lanes - 1, first + area.height() / m_laneHeight + 1);

    p.save();
    p.setClipRect(area);
    for (qsizetype lane = first; lane <= last; ++lane) {
        const QRectF band(area.left(), laneTop(lane), area.width(), m_laneHeight);
        if (lane == m_selectedLane)
            p.fillRect(band, withAlpha(pal.color(QPalette::Highlight), 50));
        else if (lane % 2 == 1)
            p.fillRect(band, pal.color(QPalette::AlternateBase));
    }
    p.setPen(withAlpha(pal.color(QPalette::Text), 30));
    for (const TimeScale::Tick &tick : ticks) {
        const double x = time.left() + tick.px;
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
    }

    p.setClipRect(time.adjusted(0, 0, int(rightMargin), 0));
    p.setRenderHint(QPainter::Antialiasing, false);
    // Idle stretches under the bars: a run's last attempt, a few pixels wide at the edge of
    // one, stays in sight.
    TimelineRuns::paintOverLanes(p, m_scale, area, time.left(), pal);
    for (qsizetype lane = first; lane <= last; ++lane)
        paintLane(p, lane, int(laneTop(lane)));
    if (m_session->hasActivity()) {
        const double x = time.left() + m_scale.toPixel(nowMs());
        p.setPen(QPen(withAlpha(outcomeColor(AttemptOutcome::InFlight), 170), 1.0, Qt::DashLine));
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
    }

    // The label column, over anything that strayed into it.
    p.setClipRect(QRect(area.left(), area.top(), m_labelWidth, area.height()));
    p.fillRect(QRect(area.left(), area.top(), m_labelWidth, area.height()), pal.color(QPalette::Window));
    const QFontMetrics fm = fontMetrics();
    for (qsizetype lane = first; lane <= last; ++lane) {
        const int y = int(laneTop(lane));
        const RunSession::Lane &l = m_session->lane(lane);
        const int marker = m_laneHeight - 12;
        const QRect markerRect(area.left() + 6, y + 6, marker / 2, marker);
        if (l.finished)
            p.fillRect(markerRect, requestOutcomeColor(static_cast<Core::RequestOutcome>(l.outcome)));
        else
            p.fillRect(markerRect, outcomeColor(AttemptOutcome::InFlight));
        const QRect textRect(markerRect.right() + 6, y, m_labelWidth - markerRect.width() - 16, m_laneHeight);
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft,
            fm.elidedText(m_session->laneTitle(lane), Qt::ElideRight, textRect.width()));
    }
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(area.left() + m_labelWidth - 1, area.top(), area.left() + m_labelWidth - 1, area.bottom());
    p.restore();
}

int TimelineView::hedgeTracks(qsizetype lane, Tracks &trackOf) const
{
    // Hedged attempts run side by side: each gets a track of the lane, the first
    // free one when it starts, so that a lane shows how many were out at once.
    const RunSession &s = *m_session;
    const RunSession::Lane &l = s.lane(lane);
    bool hedged = false;
    for (quint32 r = l.firstRow; r != RunSession::noRow && !hedged; r = s.attemptRow(r).nextInLane)
        hedged = s.attemptRow(r).hedged();
    if (!hedged)
        return 0;
    QVarLengthArray<double, 8> trackEnds;
    for (quint32 r = l.firstRow; r != RunSession::noRow; r = s.attemptRow(r).nextInLane) {
        const double start = s.toRunMs(s.attemptRow(r).startNs);
        qsizetype track = 0;
        while (track < trackEnds.size() && trackEnds[track] > start)
            ++track;
        if (track == trackEnds.size())
            trackEnds.append(0.0);
        trackEnds[track] = endMsOf(r);
        trackOf.append(int(track));
    }
    return int(trackEnds.size());
}

void TimelineView::paintLane(QPainter &p, qsizetype laneIndex, int y)
{
    const RunSession &s = *m_session;
    const RunSession::Lane &l = s.lane(laneIndex);
    const QRect time = timeArea();
    const double left = time.left();
    const double inset = m_presentation ? 3.0 : 5.0;
    const double barTop = y + inset;
    const double barHeight = m_laneHeight - 2.0 * inset;
    double previousEnd = std::numeric_limits<double>::quiet_NaN();
    double lastPixel = -1e9;

    Tracks trackOf;
    const int tracks = hedgeTracks(laneIndex, trackOf);
    const double trackHeight = barHeight / double(std::max(1, tracks));

    qsizetype index = -1;
    for (quint32 r = l.firstRow; r != RunSession::noRow; r = s.attemptRow(r).nextInLane) {
        ++index;
        const RunSession::AttemptRow &row = s.attemptRow(r);
        const double start = s.toRunMs(row.startNs);
        const double end = endMsOf(r);
        // A hedge waits from the start of the attempt before it, not from its end: no gap to draw.
        if (std::isfinite(previousEnd) && trackOf.isEmpty())
            paintDelay(p, previousEnd, row.plannedDelayMs, start, y, false);
        previousEnd = end;
        if (start > m_scale.endMs)
            break; // attempts of one request follow each other: the rest is further right
        if (end < m_scale.startMs)
            continue;
        const double x0 = left + m_scale.toPixel(start);
        const double x1 = left + m_scale.toPixel(end);
        const double width = std::max(minBarWidth(), x1 - x0);
        // Zoomed far out, many attempts land on one pixel: draw that pixel once.
        if (x1 - x0 < 1.0 && std::floor(x0) == lastPixel)
            continue;
        lastPixel = std::floor(x0);
        const QColor colour = outcomeColor(row.outcome);
        const double top = trackOf.isEmpty() ? barTop : barTop + trackOf.value(index) * trackHeight;
        const double height = trackOf.isEmpty() ? barHeight : std::max(2.0, trackHeight - 1.0);
        const QRectF bar(x0, top, width, height);
        p.fillRect(bar, colour);
        if (row.authMs > 0) {
            // The token fetched, or the challenge answered, before the request itself: hatched.
            const double authEnd = left + m_scale.toPixel(start + row.authMs);
            const QRectF auth(x0, top, std::clamp(authEnd - x0, 1.0, width), height);
            p.fillRect(auth, QBrush(colour.darker(150), Qt::BDiagPattern));
        }
        if (row.fallback > 0) // at a fallback endpoint: a band along the top, and the outline, in its colour
            p.fillRect(QRectF(x0, top, width, std::max(3.0, std::round(height / 3.0))), fallbackColor());
        if (!trackOf.isEmpty() && row.hedgeWinner()) {
            // The answer the hedged request kept.
            p.setPen(QPen(hedgeWinnerColor(), 2.0));
            p.setBrush(Qt::NoBrush);
            p.drawRect(bar.adjusted(1, 1, -1, -1));
        } else if (width >= 5.0) {
            p.setPen(row.fallback > 0 ? fallbackColor() : colour.darker(135));
            p.setBrush(Qt::NoBrush);
            p.drawRect(bar.adjusted(0, 0, -1, -1));
        }
    }
    if (l.sleeping() && std::isfinite(previousEnd))
        paintDelay(p, previousEnd, l.pendingDelayMs, std::max(previousEnd, nowMs()), y, true);
}

void TimelineView::paintDelay(QPainter &p, double fromMs, double plannedMs, double toMs, int y, bool pending)
{
    const double reach = std::max(toMs, fromMs + std::max(0.0, plannedMs));
    if (reach < m_scale.startMs || fromMs > m_scale.endMs)
        return;
    const QRect time = timeArea();
    const QColor text = palette().color(QPalette::Text);
    const double x0 = time.left() + m_scale.toPixel(fromMs);
    const double xActual = time.left() + m_scale.toPixel(toMs);
    const double xPlanned = time.left() + m_scale.toPixel(fromMs + std::max(0.0, plannedMs));
    const double middle = y + m_laneHeight / 2.0;
    const double line = m_presentation ? 2.5 : 1.0;

    // What really passed: a solid line in the link colour through the middle of the
    // lane, unlike the grey dashed bracket of the plan above it.
    if (xActual - x0 >= 1.0) {
        p.setPen(QPen(actualGapColour(pending), line + 1.0, pending ? Qt::DotLine : Qt::SolidLine, Qt::FlatCap));
        p.drawLine(QPointF(x0, middle), QPointF(xActual, middle));
    }
    // What the policy planned: a dashed bracket along the top of the lane.
    if (xPlanned - x0 >= 3.0) {
        const double top = y + 3.0;
        p.setPen(QPen(withAlpha(text, 190), line, Qt::DashLine));
        p.drawLine(QPointF(x0, top), QPointF(xPlanned, top));
        p.setPen(QPen(withAlpha(text, 190), line));
        p.drawLine(QPointF(x0, top), QPointF(x0, top + 4.0));
        p.drawLine(QPointF(xPlanned, top), QPointF(xPlanned, top + 4.0));
    }
}

QColor TimelineView::actualGapColour(bool pending) const
{
    const QColor link = readableOn(palette().color(QPalette::Link), palette().color(QPalette::Base));
    return withAlpha(link, pending ? 170 : 230);
}

void TimelineView::paintAxis(QPainter &p, const QList<TimeScale::Tick> &ticks)
{
    const QPalette &pal = palette();
    const QRect axis(0, 0, viewport()->width(), m_axisHeight);
    const QRect time = timeArea();
    p.fillRect(axis, pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(axis.bottomLeft(), axis.bottomRight());

    const QFontMetrics fm = fontMetrics();
    p.save();
    p.setClipRect(QRect(time.left(), 0, time.width() + int(rightMargin), m_axisHeight));
    for (const TimeScale::Tick &tick : ticks) {
        const double x = time.left() + tick.px;
        p.setPen(pal.color(QPalette::Mid));
        p.drawLine(QPointF(x, axis.bottom() - 4), QPointF(x, axis.bottom()));
        p.setPen(pal.color(QPalette::WindowText));
        const int w = fm.horizontalAdvance(tick.label);
        // Centred on its tick, but never cut by the ends of the axis.
        const double left = std::clamp(x - w / 2.0, double(time.left()), double(time.right() + rightMargin - w));
        p.drawText(QRectF(left, 0, w, m_axisHeight - 4), Qt::AlignCenter, tick.label);
    }
    TimelineRuns::paintOnAxis(p, m_scale, axis, time.left(), pal, fm);
    p.restore();

    const qsizetype lanes = m_session ? m_session->laneCount() : 0;
    p.setPen(pal.color(QPalette::WindowText));
    const QRect corner(6, 0, m_labelWidth - 12, m_axisHeight);
    const QString count = lanes == 1 ? tr("1 request") : tr("%1 requests").arg(QLocale().toString(lanes));
    p.drawText(corner, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(count, Qt::ElideRight, corner.width()));
}

void TimelineView::paintLegend(QPainter &p)
{
    const QRect band(0, viewport()->height() - m_legendHeight, viewport()->width(), m_legendHeight);
    TimelineLegend::paint(p, band, palette(), fontMetrics(), actualGapColour(false));
}

// ---------------------------------------------------------------------------
// Input

void TimelineView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateMetrics(); // the legend may take another row
    refresh();
}

void TimelineView::changeEvent(QEvent *event)
{
    QAbstractScrollArea::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        updateMetrics();
        refresh();
    } else if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        viewport()->update();
    }
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        // 120 units are one notch of a common wheel: 20 % per notch.
        const double factor = std::pow(1.2, delta.y() / 120.0);
        setFollowLive(false);
        zoomAtPixel(event->position().x() - timeArea().left(), factor);
        event->accept();
        return;
    }
    const int sideways = (event->modifiers() & Qt::ShiftModifier) ? delta.y() : delta.x();
    if (sideways != 0) {
        setFollowLive(false);
        m_scale.panByPixels(-sideways / 2.0);
        updateScrollBars();
        viewport()->update();
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    if (newLanesMarker().contains(event->position().toPoint())) {
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
        event->accept();
        return;
    }
    m_dragging = true;
    m_dragMoved = false;
    m_dragOrigin = event->position().toPoint();
    m_dragLast = m_dragOrigin;
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging) {
        QAbstractScrollArea::mouseMoveEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    if (!m_dragMoved && (pos - m_dragOrigin).manhattanLength() >= QApplication::startDragDistance())
        m_dragMoved = true;
    if (m_dragMoved) {
        const QPoint d = pos - m_dragLast;
        if (d.x() != 0) {
            setFollowLive(false);
            m_scale.panByPixels(-d.x());
        }
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        updateScrollBars();
        viewport()->update();
        m_dragLast = pos;
    }
    event->accept();
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_dragging || event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mouseReleaseEvent(event);
        return;
    }
    m_dragging = false;
    viewport()->setCursor(Qt::OpenHandCursor);
    if (!m_dragMoved) {
        const Hit hit = hitAt(event->position().toPoint());
        setSelectedLane(hit.lane);
        if (hit.kind == Hit::Kind::Attempt)
            Q_EMIT attemptClicked(hit.row);
    }
    event->accept();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const Hit hit = hitAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && hit.lane >= 0) {
        showLane(hit.lane);
        event->accept();
        return;
    }
    QAbstractScrollArea::mouseDoubleClickEvent(event);
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        break;
    case Qt::Key_Minus:
        zoomOut();
        break;
    case Qt::Key_Left:
    case Qt::Key_Right:
        setFollowLive(false);
        m_scale.panByMs((event->key() == Qt::Key_Left ? -0.1 : 0.1) * m_scale.spanMs());
        updateScrollBars();
        viewport()->update();
        break;
    case Qt::Key_Home:
        zoomToFit();
        break;
    case Qt::Key_End:
        setFollowLive(true);
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool TimelineView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        QString text = toolTipFor(hitAt(help->pos()));
        const TimeScale::Gap *gap = m_scale.gapAt(m_scale.toTime(help->pos().x() - timeArea().left()));
        if (text.isEmpty() && gap && help->pos().x() >= timeArea().left())
            text = TimelineRuns::toolTip(*gap);
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, viewport());
        }
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

} // namespace RetryLab::Ui
