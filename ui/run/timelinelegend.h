#pragma once

#include <QColor>

class QFontMetrics;
class QPainter;
class QPalette;
class QRect;

namespace RetryLab::Ui {

/// The key along the bottom of the timeline: the colour of each attempt outcome,
/// the lane markers' own colour for a request not worth retrying, and how the
/// planned delay (grey dashed bracket) and the actual gap (solid line) are drawn.
/// Entries that do not fit on one row go to the next, whole.
namespace TimelineLegend {

/// Entries wrap onto further rows rather than drop out: how many rows `width` takes.
int rowsFor(int width, const QFontMetrics &fm);
void paint(QPainter &p, const QRect &band, const QPalette &palette, const QFontMetrics &fm, const QColor &actualGap);

} // namespace TimelineLegend

} // namespace RetryLab::Ui
