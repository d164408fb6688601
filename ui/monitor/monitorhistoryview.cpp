// One job, drawn and hit-tested over one layout: the legend, the plot, the strip and
// the axis, and the pointer and keys that zoom, pan and pick a check over them. The
// data per column (HistoryColumns), the axis labels (WallClockAxis) and the
// maintenance stretches (MaintenanceIntervals) live in their own files.
#include "ui/monitor/monitorhistoryview.h"
#include "core/util/durationtext.h"
#include "ui/monitor/wallclockaxis.h"
#include "ui/widgets/outcomestyle.h"
#include "ui/widgets/timeaxis.h"

#include <QDateTime>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLoggingCategory>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

Q_LOGGING_CATEGORY(lcHistoryView, "retrylab.ui.monitor.historyview")

namespace RetryLab::Ui {

namespace {

constexpr qint64 historyDayMs = 24 * 3600 * 1000LL;
constexpr double historyMinSpanMs = 1000.0; // the deepest zoom: one second across the plot
constexpr double historyZoomStep = 1.5;
constexpr int historySettleMs = 250;
constexpr int historyHitPx = 4;
constexpr int historyStripPx = 12;
constexpr int historyDragPx = 4;

QString stateWord(Core::MonitorState state)
{
    switch (state) {
    case Core::MonitorState::Pending:
        return MonitorHistoryView::tr("Pending");
    case Core::MonitorState::Up:
        return MonitorHistoryView::tr("Up");
    case Core::MonitorState::Down:
        return MonitorHistoryView::tr("Down");
    case Core::MonitorState::Paused:
        return MonitorHistoryView::tr("Paused");
    }
    return {};
}

QColor stateColour(Core::MonitorState state)
{
    switch (state) {
    case Core::MonitorState::Up:
        return outcomeColor(Core::AttemptOutcome::Success);
    case Core::MonitorState::Down:
        return outcomeColor(Core::AttemptOutcome::Failed);
    case Core::MonitorState::Paused:
        return outcomeColor(Core::AttemptOutcome::InFlight);
    case Core::MonitorState::Pending:
        break;
    }
    return outcomeColor(Core::AttemptOutcome::Cancelled);
}

qint64 incidentEnd(const Core::Incident &incident, qint64 windowEnd)
{
    // Still going at the end of the window: the band runs to the window's end.
    return incident.endMs ? *incident.endMs : std::max(windowEnd, incident.startMs + incident.durationMs);
}

} // namespace

struct MonitorHistoryView::Layout
{
    QSize size;
    QRect legend;
    QRect plot;
    QRect strip;
    int axisY = 0;
    TimeScale scale;
    YAxis y;
};

MonitorHistoryView::MonitorHistoryView(QWidget *parent) : QAbstractScrollArea(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    viewport()->setMouseTracking(true);
    viewport()->setBackgroundRole(QPalette::Base);
    setMinimumSize(320, 180);
    setAccessibleName(tr("Monitor history"));
    m_scale.minSpanMs = historyMinSpanMs;
    m_settle.setSingleShot(true);
    m_settle.setInterval(historySettleMs);
    connect(&m_settle, &QTimer::timeout, this, &MonitorHistoryView::emitRangeIfChanged);
    setWindow(0, historyDayMs);
}

void MonitorHistoryView::setWindow(qint64 sinceMs, qint64 untilMs)
{
    m_sinceMs = sinceMs;
    m_untilMs = std::max(untilMs, sinceMs + qint64(historyMinSpanMs));
    ++m_bandsGeneration;
    m_scale.setWidth(std::max(1, plotRect().width()));
    m_scale.setBounds(double(m_sinceMs), double(m_untilMs));
    m_scale.showAll();
    m_lastEmitted = {m_sinceMs, m_untilMs};
    viewport()->update();
}

void MonitorHistoryView::setCheckPoints(QList<Core::CheckPoint> points)
{
    m_data.setPoints(std::move(points));
    viewport()->update();
}

void MonitorHistoryView::setIncidents(QList<Core::Incident> incidents)
{
    m_incidents = std::move(incidents);
    ++m_bandsGeneration;
    viewport()->update();
}

void MonitorHistoryView::setStateEvents(QList<Core::StateEvent> events)
{
    m_events = std::move(events);
    std::stable_sort(m_events.begin(), m_events.end(),
        [](const Core::StateEvent &a, const Core::StateEvent &b) { return a.atMs < b.atMs; });
    viewport()->update();
}

void MonitorHistoryView::setMaintenance(const QList<Core::MaintenanceWindow> &windows)
{
    setMaintenanceIntervals(MaintenanceIntervals::expand(windows, m_sinceMs, m_untilMs));
}

void MonitorHistoryView::setMaintenanceIntervals(QList<Interval> intervals)
{
    m_maintenance = std::move(intervals);
    ++m_bandsGeneration;
    viewport()->update();
}

void MonitorHistoryView::setLogScale(bool on)
{
    m_logScale = on;
    viewport()->update();
}

void MonitorHistoryView::setTimeZone(const QTimeZone &zone)
{
    m_zone = zone;
    viewport()->update();
}

void MonitorHistoryView::setVisibleRange(qint64 fromMs, qint64 toMs)
{
    m_scale.setRange(double(fromMs), double(toMs));
    m_lastEmitted = {qint64(std::floor(m_scale.startMs)), qint64(std::ceil(m_scale.endMs))};
    viewport()->update();
}

MonitorHistoryView::Layout MonitorHistoryView::layoutFor(const QSize &size) const
{
    Layout layout;
    layout.size = size;
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    const int left = metrics.horizontalAdvance(QStringLiteral("999.9 ms")) + 12;
    const int right = 10;
    // The legend wraps: measure it at this width.
    int rows = 1;
    int x = left;
    for (const QString &text : {tr("Check latency"), tr("Attempt latency"), tr("Failed check"), tr("Retried check"),
             tr("Incident"), tr("Hidden incident"), tr("Maintenance")}) {
        const int item = 18 + metrics.horizontalAdvance(text) + 14;
        if (x + item > size.width() - right && x > left) {
            ++rows;
            x = left;
        }
        x += item;
    }
    layout.legend = QRect(0, 0, size.width(), rows * (line + 4) + 4);
    const int axisHeight = line + 10;
    const int plotHeight = std::max(20, size.height() - layout.legend.height() - historyStripPx - axisHeight - 2);
    layout.plot = QRect(left, layout.legend.bottom() + 1, std::max(20, size.width() - left - right), plotHeight);
    layout.strip = QRect(left, layout.plot.bottom() + 2, layout.plot.width(), historyStripPx);
    layout.axisY = layout.strip.bottom() + 1;
    layout.scale = m_scale;
    layout.scale.setWidth(layout.plot.width());
    layout.y = yAxisFor(m_data.columns(layout.scale), layout.plot.height());
    return layout;
}

QRect MonitorHistoryView::plotRect() const
{
    return layoutFor(viewport()->size()).plot;
}

QRect MonitorHistoryView::failureStripRect() const
{
    return layoutFor(viewport()->size()).strip;
}

int MonitorHistoryView::axisY() const
{
    return layoutFor(viewport()->size()).axisY;
}

double MonitorHistoryView::xForTime(qint64 utcMs) const
{
    return plotRect().left() + m_scale.toPixel(double(utcMs));
}

double MonitorHistoryView::yForLatency(double ms) const
{
    return yFor(ms, layoutFor(viewport()->size()));
}

double MonitorHistoryView::yFor(double ms, const Layout &layout) const
{
    const YAxis &y = layout.y;
    double fraction = 0.0;
    if (y.log) {
        const double value = TimeAxis::clampForLog(ms, y.min);
        fraction = (std::log10(value) - std::log10(y.min)) / (std::log10(y.max) - std::log10(y.min));
    } else {
        fraction = (ms - y.min) / (y.max - y.min);
    }
    fraction = std::clamp(fraction, 0.0, 1.0);
    return layout.plot.bottom() - fraction * (layout.plot.height() - 1);
}

const QList<MonitorHistoryView::Column> &MonitorHistoryView::columns() const
{
    TimeScale scale = m_scale;
    scale.setWidth(plotRect().width());
    return m_data.columns(scale);
}

MonitorHistoryView::YAxis MonitorHistoryView::yAxisFor(const QList<Column> &columns, int plotHeight) const
{
    double maxMs = 0.0;
    double minPositive = std::numeric_limits<double>::infinity();
    for (const Column &column : columns) {
        if (column.checks == 0)
            continue;
        maxMs = std::max({maxMs, double(column.checkMaxMs), double(column.attemptMaxMs)});
        for (const float value : {column.checkMinMs, column.attemptMinMs}) {
            if (value > 0.0F && std::isfinite(value))
                minPositive = std::min(minPositive, double(value));
        }
    }
    YAxis axis;
    axis.log = m_logScale;
    if (m_logScale) {
        const TimeAxis::Range range = TimeAxis::logRange(std::isfinite(minPositive) ? minPositive : 1.0,
            std::max(maxMs, std::isfinite(minPositive) ? minPositive : 10.0));
        axis.min = range.min;
        axis.max = range.max;
        axis.step = 10.0;
        return axis;
    }
    const TimeAxis::Range range
        = TimeAxis::linearRange(0.0, maxMs > 0.0 ? maxMs : 100.0, std::clamp(plotHeight / 40, 2, 7));
    axis.min = range.min;
    axis.max = range.max;
    axis.step = range.step;
    return axis;
}

QColor MonitorHistoryView::colourOf(Element element) const
{
    // Eight bits a channel, as drawn: readableOn() works in floating point.
    const QColor colour = colourOfElement(element);
    return QColor::fromRgba(colour.rgba());
}

QColor MonitorHistoryView::colourOfElement(Element element) const
{
    const QColor base = palette().color(QPalette::Base);
    switch (element) {
    case Element::CheckLatency:
        return readableOn(QColor(0x2f, 0x6f, 0xd6), base);
    case Element::AttemptLatency:
        return withAlpha(readableOn(QColor(0x1f, 0x9e, 0xa8), base), 150);
    case Element::FailedCheck:
        return readableOn(outcomeColor(Core::AttemptOutcome::Failed), base);
    case Element::RetriedCheck:
        return readableOn(outcomeColor(Core::AttemptOutcome::Retried), base);
    case Element::Incident:
        return withAlpha(outcomeColor(Core::AttemptOutcome::Failed), 70);
    case Element::HiddenIncident:
        return readableOn(outcomeColor(Core::AttemptOutcome::Retried), base);
    case Element::Maintenance:
        return withAlpha(palette().color(QPalette::Mid), 80);
    }
    return {};
}

void MonitorHistoryView::render(QPainter &painter, const QSize &size) const
{
    paintAll(painter, layoutFor(size));
}

void MonitorHistoryView::paintEvent(QPaintEvent *)
{
    QPainter painter(viewport());
    paintAll(painter, layoutFor(viewport()->size()));
    if (hasFocus()) {
        QPen pen(palette().color(QPalette::Highlight), 1.0, Qt::DotLine);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(viewport()->rect().adjusted(0, 0, -1, -1));
    }
}

void MonitorHistoryView::paintAll(QPainter &painter, const Layout &layout) const
{
    painter.fillRect(QRect(QPoint(0, 0), layout.size), palette().color(QPalette::Base));
    const QList<Column> &columns = m_data.columns(layout.scale);
    paintBands(painter, layout);
    paintYAxis(painter, layout);
    paintLatency(painter, layout, columns);
    paintStrip(painter, layout, columns);
    paintTimeAxis(painter, layout);
    paintLegend(painter, layout);
    if (m_data.points().isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(layout.plot, Qt::AlignCenter, tr("No checks in this window"));
    }
}

void MonitorHistoryView::paintBands(QPainter &painter, const Layout &layout) const
{
    const qreal ratio = painter.device() ? painter.device()->devicePixelRatioF() : 1.0;
    const BandsKey key{layout.scale.startMs, layout.scale.endMs, layout.size, layout.plot, layout.strip, ratio,
        palette().cacheKey(), m_bandsGeneration};
    if (!(key == m_bandsKey) || m_bands.isNull()) {
        m_bands = QImage(layout.size * ratio, QImage::Format_ARGB32_Premultiplied);
        m_bands.setDevicePixelRatio(ratio);
        m_bands.fill(Qt::transparent);
        QPainter bands(&m_bands);
        bands.setFont(painter.font());
        drawBands(bands, layout);
        m_bandsKey = key;
    }
    painter.drawImage(QPointF(0, 0), m_bands);
}

void MonitorHistoryView::drawBands(QPainter &painter, const Layout &layout) const
{
    const QRect &plot = layout.plot;
    const auto span = [&layout, &plot](qint64 from, qint64 to) {
        const double left = std::max(0.0, layout.scale.toPixel(double(from)));
        const double right = std::min(double(plot.width()), layout.scale.toPixel(double(to)));
        return QRectF(
            plot.left() + left, plot.top(), std::max(1.0, right - left), layout.strip.bottom() - plot.top() + 1);
    };
    const auto visible = [&layout](qint64 from, qint64 to) {
        return double(to) >= layout.scale.startMs && double(from) <= layout.scale.endMs;
    };
    for (const Interval &interval : m_maintenance) {
        if (visible(interval.fromMs, interval.toMs))
            painter.fillRect(span(interval.fromMs, interval.toMs), colourOf(Element::Maintenance));
    }
    // A month of a flaky endpoint holds tens of thousands of incidents, most
    // narrower than a pixel: the bands are merged in pixels first, per kind, so
    // that a frame paints at most a band per column.
    struct Run
    {
        double left = 0.0;
        double right = 0.0;
    };
    QList<Run> seen;
    QList<Run> hidden;
    for (const Core::Incident &incident : m_incidents) {
        const qint64 end = incidentEnd(incident, m_untilMs);
        if (!visible(incident.startMs, end))
            continue;
        const QRectF band = span(incident.startMs, end);
        QList<Run> &runs = incident.hidden ? hidden : seen;
        const double left = std::floor(band.left());
        const double right = std::max(left + 1.0, std::ceil(band.right()));
        if (!runs.isEmpty() && left <= runs.last().right)
            runs.last().right = std::max(runs.last().right, right);
        else
            runs.append({left, right});
    }
    const double top = plot.top();
    const double height = layout.strip.bottom() - plot.top() + 1;
    painter.save();
    painter.setClipRect(plot.adjusted(0, 0, 0, layout.strip.height() + 2));
    for (const Run &run : std::as_const(seen))
        painter.fillRect(QRectF(run.left, top, run.right - run.left, height), colourOf(Element::Incident));
    // Hidden: hatched, never a solid fill, and labelled where it is wide enough.
    const QColor colour = colourOf(Element::HiddenIncident);
    const QString label = tr("hidden");
    const int labelWidth = fontMetrics().horizontalAdvance(label) + 6;
    painter.setPen(colour);
    for (const Run &run : std::as_const(hidden)) {
        const QRectF band(run.left, top, run.right - run.left, height);
        painter.fillRect(band, QBrush(colour, Qt::BDiagPattern));
        painter.fillRect(QRectF(band.left(), band.top(), band.width(), 3.0), colour);
        if (band.width() > labelWidth)
            painter.drawText(band.adjusted(3, 4, 0, 0), Qt::AlignLeft | Qt::AlignTop, label);
    }
    painter.restore();
}

void MonitorHistoryView::paintYAxis(QPainter &painter, const Layout &layout) const
{
    const QRect &plot = layout.plot;
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(plot.bottomLeft(), plot.topLeft());
    QList<double> ticks;
    if (layout.y.log) {
        for (double value = layout.y.min; value <= layout.y.max * 1.0001 && ticks.size() < 12; value *= 10.0)
            ticks.append(value);
    } else {
        for (int i = 0; i < 20; ++i) {
            const double value = layout.y.min + i * layout.y.step;
            if (value > layout.y.max + layout.y.step * 1e-6)
                break;
            ticks.append(value);
        }
    }
    const QColor grid = withAlpha(palette().color(QPalette::Mid), 60);
    for (const double value : std::as_const(ticks)) {
        const auto y = int(std::lround(yFor(value, layout)));
        painter.setPen(grid);
        painter.drawLine(plot.left() + 1, y, plot.right(), y);
        painter.setPen(palette().color(QPalette::Text));
        const QRect box(0, y - fontMetrics().height() / 2, plot.left() - 6, fontMetrics().height());
        painter.drawText(box, Qt::AlignRight | Qt::AlignVCenter, Core::DurationText::format(value));
    }
}

void MonitorHistoryView::paintLatency(QPainter &painter, const Layout &layout, const QList<Column> &columns) const
{
    const int left = layout.plot.left();
    const auto envelope = [&](const QColor &colour, auto lowOf, auto highOf) {
        painter.setPen(QPen(colour, 1.0));
        for (qsizetype i = 0; i < columns.size(); ++i) {
            const Column &column = columns.at(i);
            if (column.checks == 0 || !std::isfinite(lowOf(column)))
                continue;
            const double top = yFor(highOf(column), layout);
            const double bottom = yFor(lowOf(column), layout);
            // At least three pixels tall: a single check is a dot one can see.
            const double middle = (top + bottom) / 2.0;
            const int x = left + int(i);
            painter.drawLine(x, int(std::min(top, middle - 1.0)), x, int(std::max(bottom, middle + 1.0)));
        }
    };
    envelope(
        colourOf(Element::AttemptLatency), [](const Column &c) { return double(c.attemptMinMs); },
        [](const Column &c) { return double(c.attemptMaxMs); });
    envelope(
        colourOf(Element::CheckLatency), [](const Column &c) { return double(c.checkMinMs); },
        [](const Column &c) { return double(c.checkMaxMs); });
}

void MonitorHistoryView::paintStrip(QPainter &painter, const Layout &layout, const QList<Column> &columns) const
{
    const QRect &strip = layout.strip;
    const QColor failed = colourOf(Element::FailedCheck);
    const QColor retried = colourOf(Element::RetriedCheck);
    for (qsizetype i = 0; i < columns.size(); ++i) {
        const Column &column = columns.at(i);
        const int x = strip.left() + int(i);
        // A failed check is a full-height tick, a retried one half of it: shape, not colour alone.
        if (column.failed > 0)
            painter.fillRect(QRect(x, strip.top(), 1, strip.height()), failed);
        else if (column.retried > 0)
            painter.fillRect(
                QRect(x, strip.top() + strip.height() / 2, 1, strip.height() - strip.height() / 2), retried);
    }
}

void MonitorHistoryView::paintTimeAxis(QPainter &painter, const Layout &layout) const
{
    const QRect &plot = layout.plot;
    const int y = layout.axisY;
    painter.setPen(palette().color(QPalette::Text));
    painter.drawLine(plot.left(), y, plot.right(), y);
    const QFontMetrics metrics = fontMetrics();
    const QString widest = QStringLiteral("00:00:00");
    const QList<TimeScale::Tick> ticks
        = WallClockAxis::ticks(layout.scale, metrics.horizontalAdvance(widest) + 24.0, m_zone, locale());
    for (const TimeScale::Tick &tick : ticks) {
        const int x = plot.left() + int(std::lround(tick.px));
        painter.drawLine(x, y, x, y + 4);
        const int width = metrics.horizontalAdvance(tick.label);
        const int textX = std::clamp(x - width / 2, plot.left() - 20, layout.size.width() - width - 1);
        painter.drawText(textX, y + 5 + metrics.ascent(), tick.label);
    }
    // State changes: a triangle on the axis in the new state's colour, outlined so it reads on any colour.
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (const Core::StateEvent &event : m_events) {
        if (double(event.atMs) < layout.scale.startMs || double(event.atMs) > layout.scale.endMs)
            continue;
        const double x = plot.left() + layout.scale.toPixel(double(event.atMs));
        const QPointF points[] = {{x - 5.0, double(y) + 1.0}, {x + 5.0, double(y) + 1.0}, {x, double(y) - 7.0}};
        painter.setPen(QPen(palette().color(QPalette::Text), 1.0));
        painter.setBrush(stateColour(event.to));
        painter.drawPolygon(points, 3);
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
}

void MonitorHistoryView::paintLegend(QPainter &painter, const Layout &layout) const
{
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    const int right = layout.size.width() - 10;
    int x = layout.plot.left();
    int y = 4;
    const auto item = [&](const QString &text, const auto &drawSwatch) {
        const int width = 18 + metrics.horizontalAdvance(text) + 14;
        if (x + width > right && x > layout.plot.left()) {
            x = layout.plot.left();
            y += line + 4;
        }
        drawSwatch(QRect(x, y + (line - 10) / 2, 14, 10));
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(x + 18, y + metrics.ascent(), text);
        x += width;
    };
    item(tr("Check latency"),
        [&](const QRect &r) { painter.fillRect(r.adjusted(5, 0, -5, 0), colourOf(Element::CheckLatency)); });
    item(tr("Attempt latency"),
        [&](const QRect &r) { painter.fillRect(r.adjusted(5, 0, -5, 0), colourOf(Element::AttemptLatency)); });
    item(tr("Failed check"),
        [&](const QRect &r) { painter.fillRect(r.adjusted(6, 0, -6, 0), colourOf(Element::FailedCheck)); });
    item(tr("Retried check"),
        [&](const QRect &r) { painter.fillRect(r.adjusted(6, 5, -6, 0), colourOf(Element::RetriedCheck)); });
    item(tr("Incident"), [&](const QRect &r) { painter.fillRect(r, colourOf(Element::Incident)); });
    item(tr("Hidden incident"), [&](const QRect &r) {
        painter.fillRect(r, QBrush(colourOf(Element::HiddenIncident), Qt::BDiagPattern));
        painter.fillRect(QRect(r.left(), r.top(), r.width(), 2), colourOf(Element::HiddenIncident));
    });
    item(tr("Maintenance"), [&](const QRect &r) { painter.fillRect(r, colourOf(Element::Maintenance)); });
}

QString MonitorHistoryView::timeText(qint64 utcMs) const
{
    return QDateTime::fromMSecsSinceEpoch(utcMs, m_zone).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

std::optional<qsizetype> MonitorHistoryView::checkNear(const QPoint &viewportPos) const
{
    const Layout layout = layoutFor(viewport()->size());
    if (viewportPos.y() < layout.plot.top() || viewportPos.y() > layout.strip.bottom())
        return std::nullopt;
    return m_data.nearest(layout.scale, viewportPos.x() - layout.plot.left(), historyHitPx);
}

QString MonitorHistoryView::toolTipAt(const QPoint &viewportPos) const
{
    const Layout layout = layoutFor(viewport()->size());
    const double x = viewportPos.x() - layout.plot.left();
    if (std::abs(viewportPos.y() - layout.axisY) <= 8) {
        for (const Core::StateEvent &event : m_events) {
            if (std::abs(layout.scale.toPixel(double(event.atMs)) - x) <= 5.0) {
                QString text = tr("%1 at %2").arg(stateWord(event.to), timeText(event.atMs));
                if (!event.reason.isEmpty())
                    text += QLatin1Char('\n') + event.reason;
                if (!event.agent.isEmpty())
                    text += QLatin1Char('\n') + tr("Agent: %1").arg(event.agent);
                return text;
            }
        }
    }
    if (!layout.plot.adjusted(0, 0, 0, layout.strip.height() + 2).contains(viewportPos))
        return {};
    QStringList lines;
    if (const std::optional<qsizetype> index = checkNear(viewportPos)) {
        const Core::CheckPoint &point = m_data.points().at(*index);
        const QString outcome = point.maintenance ? tr("maintenance (not counted)")
            : point.success ? (point.failedAttempts > 0 ? tr("succeeded after retries") : tr("succeeded"))
                            : tr("failed");
        lines << tr("%1: check %2").arg(timeText(point.startMs), outcome)
              << tr("Attempts: %1 (%2 failed)").arg(point.attempts).arg(point.failedAttempts)
              << tr("Check latency: %1 (backoff included)").arg(Core::DurationText::format(point.durationMs));
        if (point.attempts > 0) {
            lines << tr("Attempt latency: %1 to %2")
                         .arg(Core::DurationText::format(point.attemptMinMs),
                             Core::DurationText::format(point.attemptMaxMs));
        }
    }
    const double at = layout.scale.toTime(x);
    for (const Core::Incident &incident : m_incidents) {
        if (at >= double(incident.startMs) && at < double(incidentEnd(incident, m_untilMs))) {
            const QString length
                = incident.endMs ? Core::DurationText::format(double(incident.durationMs)) : tr("ongoing");
            lines << (incident.hidden ? tr("Hidden incident from %1, %2: retries hid %3 failed attempts of %4")
                                      : tr("Incident from %1, %2: %3 failed attempts of %4"))
                         .arg(timeText(incident.startMs), length)
                         .arg(incident.failedAttempts)
                         .arg(incident.attempts);
            if (!incident.lastError.isEmpty())
                lines << tr("Last error: %1").arg(incident.lastError);
        }
    }
    for (const Interval &interval : m_maintenance) {
        if (at >= double(interval.fromMs) && at < double(interval.toMs)) {
            lines << tr("Maintenance from %1 to %2").arg(timeText(interval.fromMs), timeText(interval.toMs));
            break;
        }
    }
    return lines.join(QLatin1Char('\n'));
}

void MonitorHistoryView::userChangedRange()
{
    viewport()->update();
    m_settle.start();
}

void MonitorHistoryView::emitRangeIfChanged()
{
    const Interval now{qint64(std::floor(m_scale.startMs)), qint64(std::ceil(m_scale.endMs))};
    if (now == m_lastEmitted)
        return;
    m_lastEmitted = now;
    qCDebug(lcHistoryView) << "range settled" << now.fromMs << now.toMs;
    Q_EMIT rangeChanged(now.fromMs, now.toMs);
}

void MonitorHistoryView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    m_scale.setWidth(std::max(1, plotRect().width()));
}

void MonitorHistoryView::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    const double anchor = event->position().x() - plotRect().left();
    if (delta.y() != 0) {
        m_scale.zoomAt(anchor, std::pow(1.2, delta.y() / 120.0));
        userChangedRange();
    } else if (delta.x() != 0) {
        m_scale.panByPixels(-delta.x() / 2.0);
        userChangedRange();
    }
    event->accept();
}

void MonitorHistoryView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    m_pressed = true;
    m_dragging = false;
    m_pressPos = event->position().toPoint();
    m_lastDragX = event->position().x();
}

void MonitorHistoryView::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_pressed)
        return;
    if (!m_dragging && (event->position().toPoint() - m_pressPos).manhattanLength() >= historyDragPx) {
        m_dragging = true;
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    if (m_dragging) {
        m_scale.panByPixels(m_lastDragX - event->position().x());
        m_lastDragX = event->position().x();
        userChangedRange();
    }
}

void MonitorHistoryView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_pressed)
        return;
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        viewport()->unsetCursor();
        return;
    }
    if (const std::optional<qsizetype> index = checkNear(event->position().toPoint()))
        Q_EMIT checkActivated(m_data.points().at(*index).startMs);
}

void MonitorHistoryView::keyPressEvent(QKeyEvent *event)
{
    const double centre = m_scale.widthPx / 2.0;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        m_scale.zoomAt(centre, historyZoomStep);
        break;
    case Qt::Key_Minus:
        m_scale.zoomAt(centre, 1.0 / historyZoomStep);
        break;
    case Qt::Key_Left:
        m_scale.panByPixels(-m_scale.widthPx / 8.0);
        break;
    case Qt::Key_Right:
        m_scale.panByPixels(m_scale.widthPx / 8.0);
        break;
    case Qt::Key_Home:
        m_scale.showAll();
        break;
    case Qt::Key_L:
        setLogScale(!m_logScale);
        event->accept();
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
    userChangedRange();
}

bool MonitorHistoryView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

} // namespace RetryLab::Ui
