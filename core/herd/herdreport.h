#pragma once

#include "core/herd/herdparameters.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// Mean and spread of one measure over the runs of a cell.
struct HerdStatistic
{
    double mean = 0.0;
    double stddev = 0.0; ///< sample standard deviation; 0 for a single run
    double min = 0.0;
    double max = 0.0;

    /// Summarises values in the order given (the order fixes the rounding).
    static HerdStatistic of(const QList<double> &values);
};

/// The results of one (client count, strategy) cell over all its runs.
struct HerdCellResult
{
    int clients = 0;
    HerdStrategy strategy;
    int runs = 0;

    HerdStatistic calls; ///< requests that reached the server (writes in the OCC model)
    HerdStatistic completionMs; ///< until the last client succeeded or gave up
    HerdStatistic succeededShare; ///< share of clients that succeeded, 0..1
    HerdStatistic peakLoadPerSec; ///< the busiest load bin, as calls per second
    /// Outage model: time after the outage until every client that arrived before its
    /// end has finished, and the busiest bin in that stretch (the retry storm).
    HerdStatistic recoveryMs;
    HerdStatistic recoveryPeakLoadPerSec;
    /// Per run, the median and the 99th percentile of how long the clients that
    /// succeeded took (HerdRunOutcome::latencyP50Ms, latencyP99Ms).
    HerdStatistic latencyP50Ms;
    HerdStatistic latencyP99Ms;

    /// attemptHistogram[k]: clients, summed over the runs, that made k attempts.
    QList<qint64> attemptHistogram;
    qint64 gaveUp = 0; ///< clients that gave up (attempt limit, deadline), over all runs
    qint64 unfinished = 0; ///< clients still busy at the horizon, over all runs

    /// Mean calls per load bin over the runs; bin i covers [i, i + 1) * binMs.
    QList<double> meanLoadPerBin;
    double binMs = 0.0;

    double attemptsMean() const;
    /// The load curve as (time in s, calls per second) points, at most maxPoints of
    /// them whatever the number of bins: every bin at its middle when they fit;
    /// otherwise the bins fall in groups of adjacent bins and each group gives its
    /// lowest and its highest rate (its first and last bin when flat), in time
    /// order, so that no peak is lost.
    QList<QPointF> loadCurve(int maxPoints) const;
    /// The smallest attempt count k with at least q of the clients at or below k.
    int attemptsQuantile(double q) const;
    int attemptsMax() const;
};

/// A whole grid: cells ordered by client count, then by the parameters' strategy order.
struct HerdReport
{
    HerdParameters parameters;
    QList<HerdCellResult> cells;
    qint64 events = 0; ///< simulated events, for speed measurements

    const HerdCellResult *find(int clients, const HerdStrategy &strategy) const;
    /// What the run showed, in one sentence, at its largest client count: the
    /// strategy done first and the one with the fewest calls against the slowest
    /// ("At 1,000 clients Full jitter was done first, after 9.8 s and 2,310 calls;
    /// No backoff took 41.2 s and 9,870 calls."). Empty for an empty report.
    QString summarySentence() const;
    /// What a stakeholder should take away, at the largest client count: the strategy to
    /// use is the one that got the most clients through with the fewest calls (the load a
    /// recovering server must bear), and what the quickest one cost in load when it was
    /// another ("Take-away: at 1,000 clients use Full jitter: it got every client through
    /// with the fewest calls, 2,310; No backoff was done sooner only by sending 327 % more
    /// calls."). Empty for an empty report or the latency model, whose summary is the
    /// trade-off already.
    QString takeAway() const;

    static QStringList csvColumns();
    /// One row per (clients, strategy), columns as csvColumns(); byte-identical for equal reports.
    QString toCsv() const;
    /// Long form of the load curves: clients, strategy, bin_start_ms, calls (mean per bin).
    QString loadCsv() const;
};

} // namespace RetryLab::Core
