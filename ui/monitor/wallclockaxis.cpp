#include "ui/monitor/wallclockaxis.h"
#include "ui/widgets/timeaxis.h"

#include <QDateTime>

#include <cmath>

namespace RetryLab::Ui::WallClockAxis {

namespace {

constexpr qint64 wallMinuteMs = 60'000;
constexpr qint64 wallDayMs = 24 * 3600 * 1000LL;
constexpr int wallMaxTicks = 500;

qint64 offsetMs(qint64 utcMs, const QTimeZone &zone)
{
    return qint64(zone.offsetFromUtc(QDateTime::fromMSecsSinceEpoch(utcMs, zone))) * 1000;
}

qint64 floorDiv(qint64 a, qint64 b)
{
    const qint64 q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

} // namespace

QString label(qint64 utcMs, qint64 stepMs, const QTimeZone &zone, const QLocale &locale)
{
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(utcMs, zone);
    const bool midnight = at.time() == QTime(0, 0);
    if (stepMs >= wallDayMs || (midnight && stepMs >= wallMinuteMs))
        return locale.toString(at.date(), QStringLiteral("d MMM"));
    if (stepMs >= wallMinuteMs)
        return at.toString(QStringLiteral("HH:mm"));
    return at.toString(QStringLiteral("HH:mm:ss"));
}

QList<TimeScale::Tick> ticks(const TimeScale &scale, double minSpacingPx, const QTimeZone &zone, const QLocale &locale)
{
    QList<TimeScale::Tick> list;
    if (!(scale.spanMs() > 0.0) || !(scale.widthPx > 0.0) || !(minSpacingPx > 0.0))
        return list;
    const auto step
        = std::max<qint64>(1000, qint64(std::llround(TimeAxis::timeStep(minSpacingPx / scale.pixelsPerMs()))));
    const auto from = qint64(std::floor(scale.startMs));
    const auto to = qint64(std::ceil(scale.endMs));
    if (step >= wallDayMs) {
        // Whole local days: midnights move with daylight saving, so walk the dates.
        const qint64 days = step / wallDayMs;
        QDate date = QDateTime::fromMSecsSinceEpoch(from, zone).date();
        const qint64 julian = date.toJulianDay();
        date = QDate::fromJulianDay(julian - (julian % days));
        for (int i = 0; i < wallMaxTicks; ++i, date = date.addDays(days)) {
            const qint64 ms = QDateTime(date, QTime(0, 0), zone).toMSecsSinceEpoch();
            if (ms > to)
                break;
            if (ms >= from)
                list.append({double(ms), scale.toPixel(double(ms)), label(ms, step, zone, locale)});
        }
        return list;
    }
    // Multiples of the step on the local clock; the offset is re-read at every tick so
    // that hours stay round on both sides of a daylight-saving change.
    // Local times are UTC plus the offset: round local times are multiples of the step there.
    qint64 local = floorDiv(from + offsetMs(from, zone), step) * step;
    for (int i = 0; i < wallMaxTicks * 4 && list.size() < wallMaxTicks; ++i, local += step) {
        const qint64 guess = local - offsetMs(from, zone);
        const qint64 ms = local - offsetMs(guess, zone);
        if (ms > to)
            break;
        if (ms < from || (!list.isEmpty() && ms <= qint64(list.constLast().ms)))
            continue;
        list.append({double(ms), scale.toPixel(double(ms)), label(ms, step, zone, locale)});
    }
    return list;
}

} // namespace RetryLab::Ui::WallClockAxis
