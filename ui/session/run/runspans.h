#pragma once

#include "core/record/runstatistics.h"

#include <QList>
#include <QPair>

#include <array>

namespace RetryLab::Ui {

class AttemptStore;
class RecordRetention;

/// The runs of a session: the requests sent from a moment nothing was running until the
/// next such moment (a send, a batch, a repeat), and the statistics and activity of any
/// span of lanes. Reads the store and the records it is given; keeps only the last answer.
class RunSpans final
{
public:
    /// One run: lanes [firstLane, endLane).
    struct RunSpan
    {
        qsizetype firstLane = 0;
        qsizetype endLane = 0;
        qint64 startNs = -1; ///< its first attempt's start; -1 before any started
        qint64 endNs = -1; ///< when its last request finished; -1 while one runs
        qsizetype requestCount() const { return endLane - firstLane; }
    };

    RunSpans(const AttemptStore &store, const RecordRetention &records);

    /// Forgets the list kept from the last call.
    void clear();
    /// The runs, oldest first; none while the store is empty. O(lanes) when anything
    /// changed since the last call, else the list kept from it.
    QList<RunSpan> runs() const;
    /// The first lane of the latest run: the requests sent after the last moment
    /// nothing was running (0 when the session never fell idle between requests).
    qsizetype latestRunFirstLane() const;
    /// The statistics of the requests of lanes [firstLane, endLane) alone, errors over
    /// time counted from the first of them (from `originNs` when none started). O(attempts).
    Core::RunStatistics statisticsOf(qsizetype firstLane, qsizetype endLane, qint64 originNs) const;
    /// Of lanes [firstLane, endLane): requests not finished, and attempts in flight.
    QPair<int, int> activityOf(qsizetype firstLane, qsizetype endLane) const;

private:
    const AttemptStore &m_store;
    const RecordRetention &m_records;
    mutable QList<RunSpan> m_runs; ///< runs(), as of the sizes in m_runsKey
    mutable std::array<qsizetype, 3> m_runsKey{-1, -1, -1};
};

} // namespace RetryLab::Ui
