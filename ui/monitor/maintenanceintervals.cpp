#include "ui/monitor/maintenanceintervals.h"

#include <algorithm>

namespace RetryLab::Ui::MaintenanceIntervals {

namespace {

constexpr qint64 maintenanceDayMs = 24 * 3600 * 1000LL;

} // namespace

QList<TimeInterval> expand(const QList<Core::MaintenanceWindow> &windows, qint64 sinceMs, qint64 untilMs)
{
    QList<TimeInterval> list;
    const auto add = [&list, sinceMs, untilMs](qint64 from, qint64 to) {
        from = std::max(from, sinceMs);
        to = std::min(to, untilMs);
        if (to > from)
            list.append({from, to});
    };
    for (const Core::MaintenanceWindow &window : windows) {
        if (window.fromMs && window.toMs) {
            add(*window.fromMs, *window.toMs);
            continue;
        }
        if (!window.dailyFrom || !window.dailyTo)
            continue;
        const qint64 from = window.dailyFrom->msecsSinceStartOfDay();
        qint64 to = window.dailyTo->msecsSinceStartOfDay();
        if (to <= from)
            to += maintenanceDayMs; // across midnight: it ends the next day
        // From the day before the window: a window across midnight reaches into it.
        const qint64 sinceDay
            = sinceMs >= 0 ? sinceMs / maintenanceDayMs : (sinceMs - maintenanceDayMs + 1) / maintenanceDayMs;
        for (qint64 day = (sinceDay - 1) * maintenanceDayMs; day < untilMs; day += maintenanceDayMs)
            add(day + from, day + to);
    }
    std::sort(
        list.begin(), list.end(), [](const TimeInterval &a, const TimeInterval &b) { return a.fromMs < b.fromMs; });
    return list;
}

} // namespace RetryLab::Ui::MaintenanceIntervals
