#pragma once

#include "core/monitor/monitor.h"

#include <QList>

namespace RetryLab::Ui {

/// A stretch of wall time, [fromMs, toMs) in UTC epoch milliseconds.
struct TimeInterval
{
    qint64 fromMs = 0;
    qint64 toMs = 0;
    friend bool operator==(const TimeInterval &, const TimeInterval &) = default;
};

/// A monitor's maintenance windows as the stretches of a history window they cover.
namespace MaintenanceIntervals {

/// Every stretch of [sinceMs, untilMs) inside one of `windows`: a one-off window
/// clipped to it, a daily one (UTC, perhaps across midnight) once per day; sorted
/// by start. Windows that MaintenanceWindow::contains() never matches give nothing.
QList<TimeInterval> expand(const QList<Core::MaintenanceWindow> &windows, qint64 sinceMs, qint64 untilMs);

} // namespace MaintenanceIntervals

} // namespace RetryLab::Ui
