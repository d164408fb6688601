#include "ui/run/timelineruns.h"

#include "core/util/durationtext.h"
#include "ui/session/run/runsession.h"
#include "ui/session/uitr.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPalette>
#include <QRect>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui::TimelineRuns {

std::optional<RunRange> runAround(const RunSession &session, qsizetype lane)
{
    const QList<RunSession::RunSpan> runs = session.runs();
    if (runs.size() < 2 || lane < 0)
        return std::nullopt;
    for (qsizetype i = 0; i < runs.size(); ++i) {
        const RunSession::RunSpan &run = runs.at(i);
        if (lane < run.firstLane || lane >= run.endLane || run.startNs < 0)
            continue;
        const bool latest = i == runs.size() - 1;
        const double start = session.toRunMs(run.startNs);
        const double end = std::max(start, session.toRunMs(run.endNs >= 0 ? run.endNs : session.latestNs()));
        // A few per cent of room on either side, so that no bar touches an edge.
        const double pad = std::max(20.0, (end - start) * 0.03);
        return RunRange{std::max(0.0, start - pad), end + pad, run.firstLane, latest};
    }
    return std::nullopt;
}

QList<TimeScale::Gap> idleGaps(const RunSession &session, double endMs)
{
    QList<TimeScale::Gap> gaps;
    const QList<RunSession::RunSpan> runs = session.runs();
    double idleFrom = 0.0; // the session's origin: idle until its first run
    for (const RunSession::RunSpan &run : runs) {
        if (run.startNs < 0)
            break;
        const double idleTo = session.toRunMs(run.startNs);
        const double idle = idleTo - idleFrom;
        if (idle >= minIdleMs && idle >= endMs * minIdleShare)
            gaps.append({idleFrom, idleTo});
        if (run.endNs < 0)
            break;
        idleFrom = session.toRunMs(run.endNs);
    }
    return gaps;
}

void paintOverLanes(
    QPainter &painter, const TimeScale &scale, const QRect &lanes, int timeLeft, const QPalette &palette)
{
    if (scale.gaps.isEmpty())
        return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    QColor edge = palette.color(QPalette::Mid);
    for (const TimeScale::Gap &gap : scale.gaps) {
        const double x0 = timeLeft + scale.toPixel(gap.fromMs);
        const double x1 = timeLeft + scale.toPixel(gap.toMs);
        const QRectF band(x0, lanes.top(), x1 - x0, lanes.height());
        painter.fillRect(band, palette.color(QPalette::Window));
        painter.fillRect(band, QBrush(edge, Qt::BDiagPattern));
        painter.setPen(QPen(edge, 1.0, Qt::DashLine));
        painter.drawLine(QPointF(x0, lanes.top()), QPointF(x0, lanes.bottom()));
        painter.drawLine(QPointF(x1, lanes.top()), QPointF(x1, lanes.bottom()));
    }
    painter.restore();
}

void paintOnAxis(QPainter &painter, const TimeScale &scale, const QRect &axis, int timeLeft, const QPalette &palette,
    const QFontMetrics &metrics)
{
    painter.save();
    for (const TimeScale::Gap &gap : scale.gaps) {
        const double x0 = timeLeft + scale.toPixel(gap.fromMs);
        const QRectF band(x0, axis.top(), scale.gapPx, axis.height());
        painter.fillRect(band, QBrush(palette.color(QPalette::Mid), Qt::BDiagPattern));
        const QString text = lengthText(gap);
        const double width = metrics.horizontalAdvance(text) + 6.0;
        // Wider than its band it would run into the axis' own labels: the tooltip says it then.
        if (width > scale.gapPx)
            continue;
        const QRectF label(x0 + (scale.gapPx - width) / 2.0, axis.top() + 2.0, width, axis.height() - 6.0);
        painter.fillRect(label, palette.color(QPalette::Window));
        painter.setPen(palette.color(QPalette::WindowText));
        painter.drawText(label, Qt::AlignCenter, text);
    }
    painter.restore();
}

QString lengthText(const TimeScale::Gap &gap)
{
    // A length, never a clock time: "1:34" on a time axis reads as a moment.
    const double ms = std::max(0.0, gap.toMs - gap.fromMs);
    const double seconds = ms / 1000.0;
    if (seconds < 10.0)
        return Tr::tr("%1 s").arg(QString::number(seconds, 'f', 1));
    if (seconds < 100.0)
        return Tr::tr("%1 s").arg(std::lround(seconds));
    const double minutes = seconds / 60.0;
    if (minutes < 60.0)
        return Tr::tr("%1 min").arg(std::lround(minutes));
    const double hours = minutes / 60.0;
    return Tr::tr("%1 h").arg(QString::number(hours, 'f', hours < 10.0 ? 1 : 0));
}

QString toolTip(const TimeScale::Gap &gap)
{
    const double ms = std::max(0.0, gap.toMs - gap.fromMs);
    return Tr::tr("Idle for %1: nothing was running.\nDrawn narrow so that the runs on either side keep their width; "
                  "zoom or drag to see it at scale.")
        .arg(Core::DurationText::format(ms));
}

} // namespace RetryLab::Ui::TimelineRuns
