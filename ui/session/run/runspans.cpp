#include "ui/session/run/runspans.h"

#include "ui/session/run/attemptstore.h"
#include "ui/session/run/recordretention.h"

#include <algorithm>
#include <limits>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

RunSpans::RunSpans(const AttemptStore &store, const RecordRetention &records) : m_store(store), m_records(records)
{ }

void RunSpans::clear()
{
    m_runs.clear();
    m_runsKey = {-1, -1, -1};
}

QList<RunSpans::RunSpan> RunSpans::runs() const
{
    // Whatever changes a run (a lane, an attempt's start, a result) adds a lane, a row or a result.
    const std::array<qsizetype, 3> key{m_store.laneCount(), m_store.attemptRowCount(), m_store.resultCount()};
    if (key == m_runsKey)
        return m_runs;
    QList<RunSpan> spans;
    qint64 busyUntil = 0;
    for (qsizetype i = 0; i < m_store.laneCount(); ++i) {
        const AttemptStore::Lane &l = m_store.lane(i);
        if (spans.isEmpty())
            spans.append(RunSpan{i, i, -1, -1});
        if (l.firstStartNs >= 0) {
            if (spans.last().startNs >= 0 && l.firstStartNs > busyUntil) {
                spans.last().endNs = busyUntil;
                spans.append(RunSpan{i, i, l.firstStartNs, -1});
            }
            const qint64 end = l.finished ? std::max(l.endNs, l.firstStartNs) : std::numeric_limits<qint64>::max();
            busyUntil = spans.last().startNs >= 0 ? std::max(busyUntil, end) : end;
            if (spans.last().startNs < 0)
                spans.last().startNs = l.firstStartNs;
        }
        spans.last().endLane = i + 1;
    }
    if (!spans.isEmpty() && spans.last().startNs >= 0 && busyUntil != std::numeric_limits<qint64>::max()
        && m_store.runningRequestCount() == 0)
        spans.last().endNs = busyUntil;
    m_runs = spans;
    m_runsKey = key;
    return spans;
}

qsizetype RunSpans::latestRunFirstLane() const
{
    const QList<RunSpan> spans = runs();
    return spans.isEmpty() ? 0 : spans.last().firstLane;
}

RunStatistics RunSpans::statisticsOf(qsizetype firstLane, qsizetype endLane, qint64 originNs) const
{
    firstLane = std::clamp<qsizetype>(firstLane, 0, m_store.laneCount());
    endLane = std::clamp<qsizetype>(endLane, firstLane, m_store.laneCount());
    RunStatistics stats;
    qint64 origin = std::numeric_limits<qint64>::max();
    for (qsizetype i = firstLane; i < endLane; ++i) {
        if (m_store.lane(i).firstStartNs >= 0)
            origin = std::min(origin, m_store.lane(i).firstStartNs);
    }
    stats.setOriginNs(origin == std::numeric_limits<qint64>::max() ? originNs : origin);
    const auto inRange
        = [firstLane, endLane](quint32 lane) { return qsizetype(lane) >= firstLane && qsizetype(lane) < endLane; };
    for (qsizetype i = 0; i < m_store.finishedCount(); ++i) {
        if (inRange(m_store.attemptRow(m_store.finishedRow(i)).lane))
            stats.addAttempt(m_records.attemptRecord(i));
    }
    for (qsizetype i = 0; i < m_store.resultCount(); ++i) {
        if (inRange(m_store.resultLane(i)))
            stats.addResult(m_records.requestResult(i));
    }
    return stats;
}

QPair<int, int> RunSpans::activityOf(qsizetype firstLane, qsizetype endLane) const
{
    int running = 0;
    int inFlight = 0;
    for (qsizetype i = std::max<qsizetype>(0, firstLane); i < std::min(endLane, m_store.laneCount()); ++i) {
        running += m_store.lane(i).finished ? 0 : 1;
        inFlight += int(m_store.lane(i).openRows);
    }
    return {running, inFlight};
}

} // namespace RetryLab::Ui
