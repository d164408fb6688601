#include "ui/widgets/timescale.h"
#include "ui/session/uitr.h"
#include "ui/widgets/timeaxis.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>

namespace RetryLab::Ui {

namespace {

constexpr double msPerSecond = 1000.0;
constexpr int maxTicks = 1000;

int decimalsFor(double step)
{
    if (step >= 1.0)
        return 0;
    return std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
}

} // namespace

double TimeScale::pixelsPerMs() const
{
    double linearMs = spanMs();
    for (const Gap &gap : gaps)
        linearMs -= gap.toMs - gap.fromMs;
    const double linearPx = widthPx - gapPx * double(gaps.size());
    if (gaps.isEmpty() || !(linearMs > 0.0) || !(linearPx > 0.0))
        return widthPx / spanMs();
    return linearPx / linearMs;
}

double TimeScale::toPixel(double ms) const
{
    if (gaps.isEmpty())
        return (ms - startMs) * widthPx / spanMs();
    const double rate = pixelsPerMs();
    double px = 0.0;
    double from = startMs;
    for (const Gap &gap : gaps) {
        if (ms <= gap.fromMs)
            break;
        px += (gap.fromMs - from) * rate;
        if (ms < gap.toMs)
            return px + (ms - gap.fromMs) / (gap.toMs - gap.fromMs) * gapPx;
        px += gapPx;
        from = gap.toMs;
    }
    return px + (ms - from) * rate;
}

double TimeScale::toTime(double px) const
{
    if (gaps.isEmpty())
        return startMs + px * spanMs() / widthPx;
    const double rate = pixelsPerMs();
    double at = 0.0;
    double from = startMs;
    for (const Gap &gap : gaps) {
        const double gapStartPx = at + (gap.fromMs - from) * rate;
        if (px <= gapStartPx)
            break;
        if (px < gapStartPx + gapPx)
            return gap.fromMs + (px - gapStartPx) / gapPx * (gap.toMs - gap.fromMs);
        at = gapStartPx + gapPx;
        from = gap.toMs;
    }
    return from + (px - at) / rate;
}

const TimeScale::Gap *TimeScale::gapAt(double ms) const
{
    for (const Gap &gap : gaps) {
        if (ms > gap.fromMs && ms < gap.toMs)
            return &gap;
    }
    return nullptr;
}

double TimeScale::maxSpanMs() const
{
    return std::max(minSpanMs, boundEndMs - boundStartMs);
}

void TimeScale::setBounds(double start, double end)
{
    boundStartMs = start;
    boundEndMs = end;
    clamp();
}

void TimeScale::setRange(double start, double end)
{
    gaps.clear();
    startMs = start;
    endMs = end;
    clamp();
}

void TimeScale::setWidth(double px)
{
    widthPx = px;
    clamp();
}

void TimeScale::clamp()
{
    if (!std::isfinite(minSpanMs) || minSpanMs <= 0.0)
        minSpanMs = 0.001;
    if (!std::isfinite(widthPx) || widthPx < 1.0)
        widthPx = 1.0;
    if (!std::isfinite(boundStartMs))
        boundStartMs = 0.0;
    if (!std::isfinite(boundEndMs) || boundEndMs < boundStartMs)
        boundEndMs = boundStartMs;
    if (!std::isfinite(startMs) || !std::isfinite(endMs) || !(endMs > startMs)) {
        startMs = boundStartMs;
        endMs = boundStartMs + maxSpanMs();
    }

    const double span = std::clamp(spanMs(), minSpanMs, maxSpanMs());
    if (span != spanMs()) {
        const double centre = (startMs + endMs) / 2.0;
        startMs = centre - span / 2.0;
        endMs = startMs + span;
    }
    if (endMs > boundEndMs) {
        endMs = std::max(boundEndMs, boundStartMs + span);
        startMs = endMs - span;
    }
    if (startMs < boundStartMs) {
        startMs = boundStartMs;
        endMs = startMs + span;
    }
    // Gaps only where they fit: inside the range, in order, leaving time drawn linearly.
    double previousEnd = startMs;
    qsizetype kept = 0;
    for (qsizetype i = 0; i < gaps.size(); ++i) {
        const Gap gap = gaps.at(i);
        if (std::isfinite(gap.fromMs) && std::isfinite(gap.toMs) && gap.fromMs >= previousEnd && gap.toMs > gap.fromMs
            && gap.toMs <= endMs) {
            gaps[kept++] = gap;
            previousEnd = gap.toMs;
        }
    }
    gaps.resize(kept);
    if (!gaps.isEmpty() && widthPx - gapPx * double(gaps.size()) < widthPx / 2.0)
        gaps.clear();
}

void TimeScale::zoomAt(double anchorPx, double factor)
{
    if (!std::isfinite(factor) || factor <= 0.0 || !std::isfinite(anchorPx))
        return;
    const double anchorFraction = std::clamp(anchorPx / widthPx, 0.0, 1.0);
    // The time under the anchor as drawn now (gaps included); from here on, at scale.
    const double anchorMs = toTime(anchorFraction * widthPx);
    gaps.clear();
    const double span = std::clamp(spanMs() / factor, minSpanMs, maxSpanMs());
    startMs = anchorMs - anchorFraction * span;
    endMs = startMs + span;
    clamp();
}

void TimeScale::panByPixels(double dx)
{
    if (std::isfinite(dx))
        panByMs(dx * spanMs() / widthPx);
}

void TimeScale::panByMs(double ms)
{
    if (!std::isfinite(ms))
        return;
    gaps.clear();
    startMs += ms;
    endMs += ms;
    clamp();
}

void TimeScale::showAll()
{
    gaps.clear();
    startMs = boundStartMs;
    endMs = boundStartMs + maxSpanMs();
    clamp();
}

QString TimeScale::label(double ms, double stepMs)
{
    if (!std::isfinite(ms))
        return {};
    if (stepMs < 1.0) {
        const int decimals = decimalsFor(stepMs);
        const double rounded = std::round(ms * std::pow(10.0, decimals)) / std::pow(10.0, decimals);
        return Tr::tr("%1 ms").arg(QString::number(rounded == 0.0 ? 0.0 : rounded, 'f', decimals));
    }
    const int decimals = decimalsFor(stepMs / msPerSecond);
    const double scale = std::pow(10.0, decimals);
    // Round first, so that 59.99 s with a 0.1 s step reads 60.0 s and not 59:60.
    double seconds = std::round(std::abs(ms) / msPerSecond * scale) / scale;
    const QString sign = ms < 0.0 && seconds != 0.0 ? QStringLiteral("-") : QString();
    if (seconds < 60.0)
        return sign + Tr::tr("%1 s").arg(QString::number(seconds, 'f', decimals));

    const auto wholeMinutes = static_cast<qint64>(std::floor(seconds / 60.0));
    seconds -= static_cast<double>(wholeMinutes) * 60.0;
    const qint64 hours = wholeMinutes / 60;
    const qint64 minutes = wholeMinutes % 60;
    const int width = decimals > 0 ? decimals + 3 : 2;
    const QString secondsText = QStringLiteral("%1").arg(seconds, width, 'f', decimals, QLatin1Char('0'));
    if (hours > 0) {
        return sign + QStringLiteral("%1:%2:%3").arg(hours).arg(minutes, 2, 10, QLatin1Char('0')).arg(secondsText);
    }
    return sign + QStringLiteral("%1:%2").arg(minutes).arg(secondsText);
}

QList<TimeScale::Tick> TimeScale::ticks(double minSpacingPx) const
{
    QList<Tick> list;
    if (!(spanMs() > 0.0) || !(widthPx > 0.0) || !std::isfinite(minSpacingPx) || minSpacingPx <= 0.0)
        return list;
    const double step = TimeAxis::timeStep(minSpacingPx / pixelsPerMs());
    // Each stretch drawn linearly on its own: none inside a gap, none crowding one after it.
    QList<QPair<double, double>> stretches;
    double from = startMs;
    for (const Gap &gap : gaps) {
        stretches.append({from, gap.fromMs});
        from = gap.toMs;
    }
    stretches.append({from, endMs});
    double lastPx = -std::numeric_limits<double>::infinity();
    // A gap's label sits at its centre: ticks keep clear of it.
    QList<double> gapCentres;
    for (const Gap &gap : gaps)
        gapCentres.append(toPixel(gap.fromMs) + gapPx / 2.0);
    const auto nearGap = [&gapCentres, minSpacingPx](double px) {
        return std::any_of(gapCentres.cbegin(), gapCentres.cend(),
            [px, minSpacingPx](double centre) { return std::abs(px - centre) < minSpacingPx * 0.6; });
    };
    for (const auto &[stretchStart, stretchEnd] : std::as_const(stretches)) {
        // Multiples of the step rather than a running sum: no drift after many ticks.
        const double first = std::ceil(stretchStart / step - 1e-9);
        for (int i = 0; i < maxTicks && list.size() < maxTicks; ++i) {
            double ms = (first + i) * step;
            if (ms > stretchEnd + step * 1e-9)
                break;
            if (std::abs(ms) < step * 1e-9)
                ms = 0.0;
            const double px = toPixel(ms);
            if (!gaps.isEmpty() && (px < lastPx + minSpacingPx * 0.75 || nearGap(px)))
                continue;
            list.append({ms, px, label(ms, step)});
            lastPx = px;
        }
    }
    return list;
}

} // namespace RetryLab::Ui
