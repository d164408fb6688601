#pragma once

#include "ui/widgets/timescale.h"

#include <QList>
#include <QString>

#include <optional>

class QFontMetrics;
class QPainter;
class QPalette;
class QRect;

namespace RetryLab::Ui {

class RunSession;

/// Runs on the timeline (RunSession::runs()). Fit shows one run: the selected
/// request's, or the latest. When the whole session is shown, the stretches in which
/// nothing ran (before the first run, between two runs) are drawn TimeScale::gapPx
/// wide, hatched over the lanes and labelled with their length on the axis, so that
/// an idle minute does not squeeze the runs on either side into a column each.
namespace TimelineRuns {

/// A run as Fit shows it: [startMs, endMs] on the run axis, a little room included.
struct RunRange
{
    double startMs = 0.0;
    double endMs = 0.0;
    qsizetype firstLane = 0;
    bool latest = false; ///< the latest run: its end is the live edge
};
/// The run that holds `lane`; nothing when the session is one run (or `lane` none of
/// its lanes): the whole session is that run.
std::optional<RunRange> runAround(const RunSession &session, qsizetype lane);

/// Idle stretches are compressed from this long, and from this share of the session on.
inline constexpr double minIdleMs = 500.0;
inline constexpr double minIdleShare = 0.08;

/// The idle stretches of `session` worth compressing on an axis that ends at `endMs`:
/// its time before the first run and between two runs.
QList<TimeScale::Gap> idleGaps(const RunSession &session, double endMs);

/// Hatches the gaps over `lanes`; `timeLeft` is where the scale's pixel 0 is.
void paintOverLanes(
    QPainter &painter, const TimeScale &scale, const QRect &lanes, int timeLeft, const QPalette &palette);
/// Each gap's length at its place on the axis ("58 s").
void paintOnAxis(QPainter &painter, const TimeScale &scale, const QRect &axis, int timeLeft, const QPalette &palette,
    const QFontMetrics &metrics);
/// "Idle for 58.2 s: nothing was running. …"
QString toolTip(const TimeScale::Gap &gap);
/// The short label, a length and never a clock time: "4.5 s", "58 s", "2 min", "1.5 h".
QString lengthText(const TimeScale::Gap &gap);

} // namespace TimelineRuns

} // namespace RetryLab::Ui
