#pragma once

#include "core/history/historyfigures.h"
#include "ui/widgets/timescale.h"

#include <QList>

#include <limits>
#include <optional>

namespace RetryLab::Ui {

/// The checks of a history chart, sorted by start, and their aggregates per
/// pixel column at one zoom level: min/max latency of checks and of attempts,
/// counts of failed and retried checks. The aggregates are computed from the
/// checks in sight only, once per range and width, so that a month of checks
/// (259,200) draws from a few thousand columns.
class HistoryColumns final
{
public:
    /// The aggregate of the checks that start within one pixel column.
    struct Column
    {
        float checkMinMs = std::numeric_limits<float>::infinity();
        float checkMaxMs = -std::numeric_limits<float>::infinity();
        float attemptMinMs = std::numeric_limits<float>::infinity();
        float attemptMaxMs = -std::numeric_limits<float>::infinity();
        int checks = 0;
        int failed = 0; ///< failed checks outside maintenance
        int retried = 0; ///< succeeded checks with a failed attempt
        int maintenance = 0;
    };

    /// Any order; sorted here (stable).
    void setPoints(QList<Core::CheckPoint> points);
    const QList<Core::CheckPoint> &points() const { return m_points; }

    /// The columns of [scale.startMs, scale.endMs] at int(scale.widthPx); a check at
    /// time t falls in column floor(scale.toPixel(t)). Cached until the range, the
    /// width or the points change.
    const QList<Column> &columns(const TimeScale &scale) const;

    /// The index of the check whose start is drawn nearest pixel `px` of `scale`,
    /// if within `tolerancePx`.
    std::optional<qsizetype> nearest(const TimeScale &scale, double px, double tolerancePx) const;

private:
    QList<Core::CheckPoint> m_points;
    quint64 m_generation = 1;
    mutable QList<Column> m_columns;
    mutable double m_start = 0.0;
    mutable double m_end = 0.0;
    mutable int m_width = -1;
    mutable quint64 m_columnsGeneration = 0;
};

} // namespace RetryLab::Ui
