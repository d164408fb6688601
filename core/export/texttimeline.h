#pragma once

#include "core/record/runrecord.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// A run drawn as plain text for a terminal: one line per logical request, a
/// character per time slice, each attempt marked where it started, the waits
/// between attempts drawn as dashes, and a time ruler above. Used by
/// `retrylab demo`; any RunRecord can be drawn.
///
///     client 1  |x--x----x--------o             |  4 attempts, 1.52 s
///
/// Marks: `o` succeeded, `x` failed and was retried, `!` failed for good,
/// `c` cancelled, a digit 2-9 (or `+`) for that many retried attempts falling
/// into one character; a final `o` or `!` wins over the count. A hedged
/// request's attempts run side by side: `=` where they were in flight.
namespace TextTimeline {

struct Lane
{
    QString label;
    quint64 requestId = 0;
};

struct Options
{
    int width = 60; ///< characters of the time axis (10-1000)
    /// Time shown by the axis in ms; <= 0: up to the end of the last request.
    double spanMs = 0.0;
};

/// The column (0..width-1) of a time `ms` after the run's start.
int column(double ms, double spanMs, int width);
/// A tick spacing from 1-2-5 steps that leaves at least `minColumns` between ticks.
double tickStepMs(double spanMs, int width, int minColumns = 10);

/// Two ruler lines (time labels, ticks) and one line per lane, labels
/// padded to the longest one.
QStringList render(const RunRecord &run, const QList<Lane> &lanes, const Options &options = {});
/// What the marks mean, one line.
QString legend();

} // namespace TextTimeline

} // namespace RetryLab::Core
