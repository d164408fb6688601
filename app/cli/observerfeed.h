#pragma once

#include "core/http/serverlogentry.h"

#include <QElapsedTimer>
#include <QList>
#include <QMutex>
#include <QThread>
#include <QTimer>
#include <QWaitCondition>

namespace RetryLab::Core {
class Observer;
} // namespace RetryLab::Core

namespace RetryLab::Cli {

/// Groups what `retrylab proxy` passes on, on a thread of its own. Grouping an exchange
/// costs the proxy's thread about a fifth of its work per request, and that thread is
/// what limits its requests a second. Records go over together as the proxy's event loop
/// is about to wait, at most every handOverEveryMs (or maxPerHandOver at a time): under load
/// one wake-up of the observer's thread for many exchanges, where one per exchange, or
/// per turn of a loop that turns thousands of times a second, costs both threads a
/// system call and a switch each. Made, fed and finished on the proxy's thread.
class ObserverFeed final
{
public:
    /// Moves `observer` to a thread of its own until finish().
    explicit ObserverFeed(Core::Observer &observer);
    ~ObserverFeed();
    ObserverFeed(const ObserverFeed &) = delete;
    ObserverFeed &operator=(const ObserverFeed &) = delete;

    /// One record for the observer, handed over at the end of a turn at most every
    /// handOverEveryMs (or once maxPerHandOver wait: a loop kept busy may not wait for a while).
    void take(const Core::ServerLogEntry &entry);
    /// Observes what is still waiting, finishes the observer and brings it back to this
    /// thread, where the report is made; stops the observer's thread.
    void finish();

private:
    /// At most this many records wait for the observer: beyond, the proxy waits for it
    /// rather than let memory grow.
    static constexpr qsizetype maxWaiting = 64 * 1024;
    /// Records kept back at most: this many go over at once, however recent the last hand-over.
    static constexpr qsizetype maxPerHandOver = 256;
    /// The room of a batch kept for the next, in records.
    static constexpr qsizetype maxKeptRoom = 4 * maxPerHandOver;
    /// The least time between two hand-overs (the observer's report comes at the end: a
    /// record may wait this long).
    static constexpr int handOverEveryMs = 20;

    /// As the proxy's event loop is about to wait: hands the records over, or has the
    /// timer do it when the last hand-over is too recent.
    void turnEnds();
    /// Hands the records kept since the last hand-over to the observer's thread.
    void handOver();
    /// On the observer's thread: observes what was handed over.
    void observeBatch();
    /// Groups one exchange (on the observer's thread, or on this one when it has none).
    void observe(Core::ServerLogEntry &entry);

    Core::Observer &m_observer;
    QThread *m_home;
    QThread m_thread;
    QMetaObject::Connection m_turnEnds;
    QTimer m_later; ///< hands over what the last turns kept back
    QElapsedTimer m_lastHandOver; ///< invalid until the first hand-over
    bool m_open = true; ///< records are taken (until finish(); only the proxy's thread reads it)
    bool m_direct = false; ///< the observer's thread did not start: records are observed at once
    QList<Core::ServerLogEntry> m_kept; ///< the proxy thread's records not handed over yet
    QMutex m_mutex;
    QWaitCondition m_taken;
    QList<Core::ServerLogEntry> m_batch; ///< handed over, not yet taken by the observer
    QList<Core::ServerLogEntry> m_observing; ///< taken by the observer's thread (only it reads it)
};

} // namespace RetryLab::Cli
