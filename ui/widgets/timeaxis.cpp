#include "ui/widgets/timeaxis.h"

#include "core/util/durationtext.h"
#include "ui/session/uitr.h"

#include <QCoreApplication>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace RetryLab::Ui::TimeAxis {

namespace {

constexpr double second = Core::DurationText::msPerSecond;
constexpr double minute = Core::DurationText::msPerMinute;
constexpr double hour = Core::DurationText::msPerHour;
constexpr double day = Core::DurationText::msPerDay;
constexpr std::array clockSteps{1 * second, 2 * second, 5 * second, 10 * second, 15 * second, 30 * second, 1 * minute,
    2 * minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute, 1 * hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour,
    24 * hour};

} // namespace

double niceStep(double minStep, StepSeries series)
{
    if (!std::isfinite(minStep) || minStep <= 0.0)
        return 1.0;
    static constexpr double oneTwoFive[] = {1.0, 2.0, 5.0};
    static constexpr double withHalves[] = {1.0, 2.0, 2.5, 5.0};
    const std::span<const double> multiples
        = series == StepSeries::OneTwoFive ? std::span<const double>(oneTwoFive) : std::span<const double>(withHalves);
    const double power = std::pow(10.0, std::floor(std::log10(minStep)));
    for (double multiple : multiples) {
        // A hair of tolerance, so that a quotient such as 0.3 / 3 still counts as 0.1.
        if (multiple * power >= minStep * (1.0 - 1e-9))
            return multiple * power;
    }
    return 10.0 * power;
}

double timeStep(double minStepMs)
{
    if (!std::isfinite(minStepMs) || minStepMs <= 0.0)
        return 1.0;
    if (minStepMs <= second)
        return niceStep(minStepMs, StepSeries::OneTwoFive);
    for (double step : clockSteps) {
        if (step >= minStepMs)
            return step;
    }
    return niceStep(minStepMs / day, StepSeries::OneTwoFive) * day;
}

Unit unitFor(double maxMs)
{
    if (!(maxMs >= 1000.0))
        return {1.0, Tr::tr("ms")};
    if (maxMs < 120'000.0)
        return {1000.0, Tr::tr("s")};
    if (maxMs < 7'200'000.0)
        return {60'000.0, Tr::tr("min")};
    return {3'600'000.0, Tr::tr("h")};
}

Range linearRange(double lo, double hi, int maxTicks)
{
    maxTicks = std::max(maxTicks, 2);
    if (!std::isfinite(lo))
        lo = 0.0;
    if (!std::isfinite(hi) || hi <= lo)
        hi = lo + (lo == 0.0 ? 1.0 : std::abs(lo));

    const double rawStep = (hi - lo) / (maxTicks - 1);
    double step = niceStep(rawStep, StepSeries::OneTwoTwoHalfFive);
    double min = std::floor(lo / step) * step;
    double max = std::ceil(hi / step) * step;
    // Rounding both ends outwards can add one interval too many; widen the step once.
    while ((max - min) / step + 1.0 > maxTicks + 1e-9) {
        step = niceStep(step * 1.0001, StepSeries::OneTwoTwoHalfFive);
        min = std::floor(lo / step) * step;
        max = std::ceil(hi / step) * step;
    }
    const int ticks = static_cast<int>(std::lround((max - min) / step)) + 1;
    return {min, max, ticks, step};
}

Range logRange(double minPositive, double max)
{
    if (!(minPositive > 0.0) || !std::isfinite(minPositive))
        minPositive = 1.0;
    if (!(max > minPositive) || !std::isfinite(max))
        max = minPositive;
    const double low = std::pow(10.0, std::floor(std::log10(minPositive)));
    double high = std::pow(10.0, std::ceil(std::log10(max)));
    if (high <= low)
        high = low * 10.0;
    const int decades = static_cast<int>(std::lround(std::log10(high / low)));
    return {low, high, decades + 1, 10.0};
}

bool logScaleHelps(double minPositive, double max)
{
    if (!(minPositive > 0.0) || !(max > 0.0))
        return false;
    return max / minPositive >= 50.0;
}

double clampForLog(double value, double floor)
{
    if (!(value > floor))
        return floor;
    return value;
}

int integerTickInterval(int count, int maxTicks)
{
    maxTicks = std::max(maxTicks, 1);
    if (count <= maxTicks)
        return 1;
    // ceil(count / interval) <= maxTicks exactly when interval >= count / maxTicks.
    const double step = niceStep(static_cast<double>(count) / maxTicks, StepSeries::OneTwoFive);
    return static_cast<int>(std::min<double>(std::round(step), count));
}

} // namespace RetryLab::Ui::TimeAxis
