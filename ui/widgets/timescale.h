#pragma once

#include <QList>
#include <QString>

namespace RetryLab::Ui {

/// Maps run time (milliseconds since the run's origin) to pixels of a timeline's
/// time area and back, with zoom about a point, pan, clamping to the data's bounds,
/// and axis ticks at round steps (TimeAxis::timeStep). Plain maths without a widget,
/// so it is tested alone.
struct TimeScale
{
    double startMs = 0.0; ///< time at pixel 0
    double endMs = 1000.0; ///< time at pixel widthPx
    double widthPx = 1000.0;
    double boundStartMs = 0.0; ///< the visible range never starts before this
    double boundEndMs = 1000.0; ///< nor ends after this (unless the bounds are narrower than minSpanMs)
    double minSpanMs = 0.001; ///< deepest zoom: one microsecond across the whole area

    /// A stretch of time drawn gapPx wide whatever its length: an idle minute between
    /// two sends would otherwise squeeze both into a column each.
    struct Gap
    {
        double fromMs = 0.0;
        double toMs = 0.0;
    };
    /// Sorted, disjoint, inside [startMs, endMs]; empty draws time linearly. Zooming,
    /// panning and setting a range drop them (clamp() drops those out of range).
    QList<Gap> gaps;
    double gapPx = 36.0;

    struct Tick
    {
        double ms = 0.0;
        double px = 0.0;
        QString label;
    };

    double spanMs() const { return endMs - startMs; }
    /// Outside the gaps.
    double pixelsPerMs() const;
    double maxSpanMs() const;
    double toPixel(double ms) const;
    double toTime(double px) const;
    /// The gap that holds `ms` (inside its ends), or null.
    const Gap *gapAt(double ms) const;

    /// Sets the bounds and clamps the visible range into them.
    void setBounds(double startMs, double endMs);
    /// Shows [start, end] as far as the bounds allow.
    void setRange(double start, double end);
    void setWidth(double px);
    /// Zooms by `factor` (> 1 zooms in) keeping the time under `anchorPx` where it is,
    /// unless a bound forces the range over.
    void zoomAt(double anchorPx, double factor);
    /// Moves the range by `dx` pixels; positive shows later times.
    void panByPixels(double dx);
    void panByMs(double ms);
    void showAll();
    /// Makes the range valid: a finite, positive span within [minSpanMs, maxSpanMs()],
    /// shifted inside the bounds.
    void clamp();

    /// Ticks at least `minSpacingPx` apart, at the smallest TimeAxis::timeStep() that allows
    /// it outside the gaps; none inside a gap.
    QList<Tick> ticks(double minSpacingPx = 90.0) const;
    /// A tick label with just the precision `stepMs` needs: "0.25 ms" for steps below a
    /// millisecond, then seconds ("1.5 s"), then minutes and hours ("2:30", "1:02:30").
    static QString label(double ms, double stepMs);
};

} // namespace RetryLab::Ui
