#pragma once

#include "core/herd/herdparameters.h"
#include "core/herd/herdreport.h"
#include "core/util/result.h"

#include <QList>

#include <atomic>
#include <functional>
#include <mutex>

namespace RetryLab::Core {

/// Cancellation and progress of a running grid. The simulation polls it from its
/// worker threads; an observer on any thread may cancel or read the progress.
class HerdControl final
{
public:
    /// Asks the running simulation to stop; it returns within a few thousand events.
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return m_cancelled.load(std::memory_order_relaxed); }

    /// Runs finished so far and in total (client counts x strategies x runs).
    qint64 runsDone() const { return m_done.load(std::memory_order_relaxed); }
    qint64 runsTotal() const { return m_total.load(std::memory_order_relaxed); }

    /// Simulated clients settled so far (succeeded or gave up; those still busy at the
    /// horizon when their run ends) and in all: finer than runs, it moves within a run
    /// of a million clients. Updated every few thousand events.
    qint64 clientsDone() const { return m_clientsDone.load(std::memory_order_relaxed); }
    qint64 clientsTotal() const { return m_clientsTotal.load(std::memory_order_relaxed); }
    /// clientsDone() / clientsTotal(), 0..1.
    double fractionDone() const;

    /// Called after every finished run, from the worker thread that finished it;
    /// calls are serialised, so the callback needs no lock of its own.
    void setProgressCallback(std::function<void(qint64 done, qint64 total)> callback);

private:
    friend class HerdSimulator;
    friend struct HerdCellRunner;
    void begin(qint64 totalRuns, qint64 totalClients);
    void advance();
    void settle(qint64 clients) { m_clientsDone.fetch_add(clients, std::memory_order_relaxed); }

    std::atomic<bool> m_cancelled{false};
    std::atomic<qint64> m_done{0};
    std::atomic<qint64> m_total{0};
    std::atomic<qint64> m_clientsDone{0};
    std::atomic<qint64> m_clientsTotal{0};
    std::mutex m_callbackMutex;
    std::function<void(qint64, qint64)> m_callback;
};

/// What a single simulated run produced.
struct HerdRunOutcome
{
    int clients = 0;
    qint64 calls = 0;
    double completionMs = 0.0;
    int succeeded = 0;
    int gaveUp = 0;
    int unfinished = 0;
    QList<int> attempts; ///< per client, in client order
    QList<qint64> loadPerBin; ///< calls that reached the server per bin
    double peakLoadPerSec = 0.0;
    double recoveryMs = 0.0; ///< outage model only
    double recoveryPeakLoadPerSec = 0.0; ///< outage model only
    /// How long the clients that succeeded took, from their first attempt to
    /// their answer: the median and the 99th percentile (0 when none succeeded).
    double latencyP50Ms = 0.0;
    double latencyP99Ms = 0.0;
    qint64 events = 0;
    bool cancelled = false;
    /// The run stopped because the virtual clock stood still for too many
    /// events (clients retrying forever at one instant); its numbers are void.
    bool stalled = false;
    double stalledAtMs = 0.0;
};

/// Many clients contending for one server, on a virtual clock: a discrete-event
/// simulation whose event queue is ordered by virtual time (ties by insertion).
/// Every backoff delay comes from Backoff::Sequence, the executor's own maths.
/// Each run draws from its own RandomSource seeded from (seed, clients, run), so a
/// grid gives the same numbers whatever the thread count or the order the cells run
/// in, and a cell gives the same numbers whatever other cells are in the grid.
class HerdSimulator final
{
public:
    /// Runs the whole grid on parameters.threads worker threads. Fails with the
    /// validation messages, or with a message saying it was cancelled.
    static Result<HerdReport> run(const HerdParameters &parameters, HerdControl *control = nullptr);

    /// One run of one cell, exactly as run() performs it.
    static Result<HerdRunOutcome> runOnce(
        const HerdParameters &parameters, int clients, const HerdStrategy &strategy, int runIndex);

    /// The seed of run `runIndex` with `clients` clients.
    static quint64 runSeed(quint64 seed, int clients, int runIndex);
};

} // namespace RetryLab::Core
