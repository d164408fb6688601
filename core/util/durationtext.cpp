#include "core/util/durationtext.h"

#include "core/util/coretr.h"

#include <cmath>

namespace RetryLab::Core::DurationText {

namespace {

constexpr double msPerYear = 365.25 * msPerDay;
// Hours are counted up to two days and days up to two years: "36 h" and
// "400 days" read better than "1 days 12 h" and "1.1 years", and the plural
// units are then always plural.
constexpr qint64 hoursBeforeDays = 48;
constexpr qint64 daysBeforeYears = 2 * 365;

double roundedTo(double value, int decimals)
{
    const double scale = std::pow(10.0, decimals);
    return std::round(value * scale) / scale;
}

// Fixed decimals without the trailing zeros: "1.5", "12", "0.125".
QString trimmedNumber(double value, int decimals)
{
    QString text = QString::number(value, 'f', decimals);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(QLatin1Char('.')))
            text.chop(1);
    }
    return text;
}

QString compactMagnitude(double ms)
{
    // Three significant digits, never more than three decimals of a millisecond.
    const int msDecimals = ms < 1.0 ? 3 : ms < 10.0 ? 2 : ms < 100.0 ? 1 : 0;
    const double wholeMs = roundedTo(ms, msDecimals);
    if (wholeMs < msPerSecond)
        return Tr::tr("%1 ms").arg(trimmedNumber(wholeMs, msDecimals));

    const double seconds = ms / msPerSecond;
    const int secondDecimals = seconds < 10.0 ? 2 : 1;
    const double roundedSeconds = roundedTo(seconds, secondDecimals);
    if (roundedSeconds < 60.0)
        return Tr::tr("%1 s").arg(trimmedNumber(roundedSeconds, secondDecimals));

    // Above a minute the parts are whole and the smaller one is left out when it is zero.
    if (ms < msPerHour) {
        const qint64 total = std::llround(seconds);
        if (total < 3600) {
            const qint64 s = total % 60;
            return s == 0 ? Tr::tr("%1 min").arg(total / 60) : Tr::tr("%1 min %2 s").arg(total / 60).arg(s);
        }
    }
    if (ms < double(hoursBeforeDays) * msPerHour) {
        const qint64 total = std::llround(ms / msPerMinute);
        if (total < hoursBeforeDays * 60) {
            const qint64 m = total % 60;
            return m == 0 ? Tr::tr("%1 h").arg(total / 60) : Tr::tr("%1 h %2 min").arg(total / 60).arg(m);
        }
    }
    if (ms < double(daysBeforeYears) * msPerDay) {
        const qint64 total = std::llround(ms / msPerHour);
        if (total < daysBeforeYears * 24) {
            const qint64 h = total % 24;
            return h == 0 ? Tr::tr("%1 days").arg(total / 24) : Tr::tr("%1 days %2 h").arg(total / 24).arg(h);
        }
    }
    // Beyond a million years digits say nothing: "3.17e+289 years", not 290 of them.
    const double years = ms / msPerYear;
    const QString number = years >= 1e6 ? QString::number(years, 'g', 3)
        : years >= 100.0                ? QString::number(years, 'f', 0)
                                        : QString::number(years, 'g', 3);
    return Tr::tr("%1 years").arg(number);
}

QString compact(double ms)
{
    if (std::isnan(ms))
        return QStringLiteral("\u2014");
    if (std::isinf(ms))
        return ms > 0.0 ? QStringLiteral("\u221e") : QStringLiteral("-\u221e");
    const QString magnitude = compactMagnitude(std::abs(ms));
    // A negative duration too small to show is zero, not "-0 ms".
    if (ms < 0.0 && roundedTo(-ms, 3) > 0.0)
        return QLatin1Char('-') + magnitude;
    return magnitude;
}

QString exact(double ms)
{
    if (!std::isfinite(ms))
        return compact(ms);
    // Fifteen digits are what a double keeps of any decimal number typed.
    const QString typed = Tr::tr("%1 ms").arg(QString::number(ms, 'g', 15));
    if (std::abs(ms) < msPerSecond)
        return typed;
    return Tr::tr("%1 (%2)").arg(typed, compact(ms));
}

} // namespace

QString format(double ms, Style style)
{
    switch (style) {
    case Style::Compact:
        return compact(ms);
    case Style::Exact:
        return exact(ms);
    }
    return compact(ms);
}

} // namespace RetryLab::Core::DurationText
