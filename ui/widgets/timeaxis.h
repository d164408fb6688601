#pragma once

#include <QString>

namespace RetryLab::Ui {

/// The arithmetic behind the axes of every chart and of the timeline, kept apart
/// from drawing so that it can be tested on its own. All round axis steps come
/// from niceStep(), so that one rule decides what "round" means.
namespace TimeAxis {

/// The round numbers an axis may step by, as multiples of a power of ten.
enum class StepSeries {
    /// 1, 2, 5: for counts, which a step of 2.5 would split, and for times, whose
    /// labels then need one decimal fewer.
    OneTwoFive,
    /// 1, 2, 2.5, 5: one more choice, so that continuous values fill the axis better.
    OneTwoTwoHalfFive,
};

/// The smallest number of `series` times a power of ten that is at least `minStep`
/// (within a rounding error, so that 0.3 / 3 still gives 0.1); 1 for zero, negative
/// or non-finite input.
double niceStep(double minStep, StepSeries series);

/// A step for a time axis in milliseconds that is at least `minStepMs`: the 1-2-5
/// series up to a second, then the clock's steps (1, 2, 5, 10, 15, 30 s; 1, 2, 5,
/// 10, 15, 30 min; 1, 2, 3, 6, 12, 24 h), then whole days of the 1-2-5 series.
/// 1 ms for zero, negative or non-finite input.
double timeStep(double minStepMs);

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

/// A linear range from `lo` to `hi` with steps of StepSeries::OneTwoTwoHalfFive
/// and at most `maxTicks` ticks. An empty or degenerate interval
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

/// An integer tick interval of StepSeries::OneTwoFive (1, 2, 5, 10, 20, ...) that
/// puts at most `maxTicks` ticks on an axis of `count` retry indexes.
int integerTickInterval(int count, int maxTicks = 10);

} // namespace TimeAxis

} // namespace RetryLab::Ui
