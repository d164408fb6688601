#pragma once

#include <QPointer>
#include <QTimer>

#include <deque>
#include <functional>

namespace RetryLab::Core {

/// Work that comes in bursts, run a batch at a time with the event loop in between.
///
/// Slow clients that connect together reach their header deadline together:
/// answering two thousand of them (a 408, a log entry and a close each) in one
/// pass of the event loop held every other client up for about 100 ms. Posted
/// here instead, they are answered `batchSize` at a time, and the sockets of
/// other clients are read and answered between two batches.
///
/// Lives on the thread of `context`, whose child its timer is (it moves with it).
class BatchedWork
{
public:
    explicit BatchedWork(QObject *context, int batchSize = 32);
    ~BatchedWork();
    BatchedWork(const BatchedWork &) = delete;
    BatchedWork &operator=(const BatchedWork &) = delete;

    /// Runs `work` in a later pass of the event loop, after what was posted before it.
    void post(std::function<void()> work);
    /// Drops what has not run yet.
    void clear();
    qsizetype pending() const { return qsizetype(m_work.size()); }
    int batchSize() const { return m_batchSize; }

private:
    void runBatch();

    std::deque<std::function<void()>> m_work;
    QPointer<QTimer> m_timer; ///< a child of the context, deleted with this or with it
    int m_batchSize;
};

} // namespace RetryLab::Core
