#include "ui/widgets/timeaxis.h"
#include "ui/session/uitr.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui::TimeAxis {

namespace {

// The smallest "nice" number (1, 2, 2.5, 5 x 10^k) at or above `value`.
double niceStep(double value)
{
    const double exponent = std::floor(std::log10(value));
    const double power = std::pow(10.0, exponent);
    const double fraction = value / power;
    double nice = 10.0;
    if (fraction <= 1.0)
        nice = 1.0;
    else if (fraction <= 2.0)
        nice = 2.0;
    else if (fraction <= 2.5)
        nice = 2.5;
    else if (fraction <= 5.0)
        nice = 5.0;
    return nice * power;
}

} // namespace

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
    double step = niceStep(rawStep);
    double min = std::floor(lo / step) * step;
    double max = std::ceil(hi / step) * step;
    // Rounding both ends outwards can add one interval too many; widen the step once.
    while ((max - min) / step + 1.0 > maxTicks + 1e-9) {
        step = niceStep(step * 1.0001);
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
    static constexpr int multiples[] = {1, 2, 5};
    for (int power = 1;; power *= 10) {
        for (int m : multiples) {
            const int interval = m * power;
            if ((count + interval - 1) / interval <= maxTicks)
                return interval;
        }
        if (power > 100'000'000)
            return count;
    }
}

} // namespace RetryLab::Ui::TimeAxis
