#pragma once

#include "ui/widgets/timescale.h"

#include <QList>
#include <QLocale>
#include <QString>
#include <QTimeZone>

namespace RetryLab::Ui {

/// Ticks and labels of a time axis in wall-clock time (UTC epoch milliseconds
/// shown in a time zone): steps of TimeAxis::timeStep() aligned on the zone's
/// round minutes, hours and midnights rather than on the epoch's, labelled with
/// just the precision the step needs. Plain maths, tested alone.
namespace WallClockAxis {

/// "d MMM" (a date) for steps of a day or more, "HH:mm" for minutes and hours,
/// "HH:mm:ss" below a minute; a minute or hour tick at midnight shows the date.
QString label(qint64 utcMs, qint64 stepMs, const QTimeZone &zone, const QLocale &locale = QLocale());

/// Ticks of `scale` (its times are UTC epoch milliseconds) at least `minSpacingPx`
/// apart, at round local times of `zone`.
QList<TimeScale::Tick> ticks(
    const TimeScale &scale, double minSpacingPx, const QTimeZone &zone, const QLocale &locale = QLocale());

} // namespace WallClockAxis

} // namespace RetryLab::Ui
