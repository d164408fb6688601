#include "ui/monitor/historycolumns.h"

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

namespace {

bool checkStartsBefore(const Core::CheckPoint &point, qint64 ms)
{
    return point.startMs < ms;
}

} // namespace

void HistoryColumns::setPoints(QList<Core::CheckPoint> points)
{
    const auto earlier = [](const Core::CheckPoint &a, const Core::CheckPoint &b) { return a.startMs < b.startMs; };
    if (!std::is_sorted(points.cbegin(), points.cend(), earlier))
        std::stable_sort(points.begin(), points.end(), earlier);
    m_points = std::move(points);
    ++m_generation;
}

const QList<HistoryColumns::Column> &HistoryColumns::columns(const TimeScale &scale) const
{
    const int width = std::max(1, int(scale.widthPx));
    if (m_columnsGeneration == m_generation && m_width == width && m_start == scale.startMs && m_end == scale.endMs)
        return m_columns;
    m_columns = QList<Column>(width);
    const double perMs = double(width) / scale.spanMs();
    const auto from = qint64(std::floor(scale.startMs));
    auto it = std::lower_bound(m_points.cbegin(), m_points.cend(), from, checkStartsBefore);
    Column *columns = m_columns.data();
    for (; it != m_points.cend() && double(it->startMs) <= scale.endMs; ++it) {
        const auto index = std::clamp(int((double(it->startMs) - scale.startMs) * perMs), 0, width - 1);
        Column &column = columns[index];
        ++column.checks;
        column.checkMinMs = std::min(column.checkMinMs, it->durationMs);
        column.checkMaxMs = std::max(column.checkMaxMs, it->durationMs);
        if (it->attempts > 0) {
            column.attemptMinMs = std::min(column.attemptMinMs, it->attemptMinMs);
            column.attemptMaxMs = std::max(column.attemptMaxMs, it->attemptMaxMs);
        }
        if (it->maintenance)
            ++column.maintenance;
        else if (!it->success)
            ++column.failed;
        else if (it->failedAttempts > 0)
            ++column.retried;
    }
    m_columnsGeneration = m_generation;
    m_width = width;
    m_start = scale.startMs;
    m_end = scale.endMs;
    return m_columns;
}

std::optional<qsizetype> HistoryColumns::nearest(const TimeScale &scale, double px, double tolerancePx) const
{
    if (m_points.isEmpty())
        return std::nullopt;
    const auto at = qint64(std::llround(scale.toTime(px)));
    const auto it = std::lower_bound(m_points.cbegin(), m_points.cend(), at, checkStartsBefore);
    std::optional<qsizetype> best;
    double bestDistance = tolerancePx + 0.5;
    for (auto candidate : {it - 1, it}) {
        if (candidate < m_points.cbegin() || candidate >= m_points.cend())
            continue;
        const double distance = std::abs(scale.toPixel(double(candidate->startMs)) - px);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = candidate - m_points.cbegin();
        }
    }
    return best;
}

} // namespace RetryLab::Ui
