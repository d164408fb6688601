#pragma once

#include <QString>

namespace RetryLab::Ui {

/// The arithmetic behind the preview chart's axes, kept apart from drawing so
/// that it can be tested on its own.
namespace TimeAxis {

/// A unit to show milliseconds in: value shown = ms / msPerUnit.
struct Unit
{
    double msPerUnit = 1.0;
    QString symbol; ///< "ms", "s", "min", "h"
};

/// The largest unit in which `maxMs` still reads as a number of at least 1
/// (ms below 1 s, s below 2 min, min below 2 h, h beyond).
Unit unitFor(double maxMs);

/// An axis range with round ends and a tick count that lands on round steps.
struct Range
{
    double min = 0.0;
    double max = 1.0;
    int tickCount = 2; ///< ticks including both ends (linear axes)
    double step = 1.0;
};

/// A linear range from `lo` to `hi` with "nice" steps (1, 2, 2.5 or 5 times a
/// power of ten) and at most `maxTicks` ticks. An empty or degenerate interval
/// (hi <= lo, NaN) gives a small range around lo instead of a zero-height axis.
Range linearRange(double lo, double hi, int maxTicks = 7);

/// A logarithmic range from the power of ten at or below `minPositive` to the
/// one at or above `max`, at least one decade tall.
Range logRange(double minPositive, double max);

/// True when the values span enough decades (max / minPositive >= 50) that a
/// linear axis would flatten the small ones into the floor.
bool logScaleHelps(double minPositive, double max);

/// A log axis cannot show 0: values at or below zero are drawn at the floor.
double clampForLog(double value, double floor);

/// An integer tick interval (1, 2, 5, 10, 20, ...) that puts at most
/// `maxTicks` ticks on an axis of `count` retry indexes.
int integerTickInterval(int count, int maxTicks = 10);

} // namespace TimeAxis

} // namespace RetryLab::Ui
