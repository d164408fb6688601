#pragma once

#include <QObject>
#include <QThread>

#include <chrono>
#include <functional>

class QAbstractEventDispatcher;

namespace RetryLab::Core {

/// Starts `thread`, a worker without windows, on a dispatcher fit for many sockets
/// and timers, then runs `ready` on it through `resident` (an object already moved
/// to it) and waits for it.
///
/// On Linux that is EpollEventDispatcher. Otherwise, or when epoll cannot be had,
/// it is Qt's own dispatcher rather than GLib's, Qt's default for threads on Linux,
/// which gathers and sorts its sources and wakes itself through an eventfd several
/// times per event: the thread makes its dispatcher as it starts, choosing by
/// QT_NO_THREADED_GLIB, set here only while it starts. The window's own thread keeps
/// GLib, which the desktop integration needs.
/// RETRYLAB_DISPATCHER=qt chooses Qt's own dispatcher on Linux too.
/// `ready` must not start another thread this way.
void startWorkerThread(QThread &thread, QObject *resident, const std::function<void()> &ready);

/// The dispatcher for a thread without windows: an EpollEventDispatcher on Linux
/// unless RETRYLAB_DISPATCHER=qt; null when Qt's own is to be used (the caller
/// owns what it gets, or hands it to a QThread or QCoreApplication).
QAbstractEventDispatcher *makeWorkerDispatcher();

/// The number of threads this process runs (Linux; 0 elsewhere or when unknown).
int runningThreadCount();

/// Waits, at most `limit`, until this process runs no more than `count` threads, and
/// says whether it got there.
///
/// QThread::wait() returns before the thread's thread-local destructors have run (Qt
/// starts its threads detached), and OpenSSL frees its per-thread state (random
/// generators, error queues) in one of them. A process that exits first frees it
/// never: OpenSSL's exit handler has stopped by then, and LeakSanitizer reports it.
/// The headless commands wait for their one thread after their application is gone.
/// Linux only; elsewhere it returns false at once.
bool awaitThreadCount(int count, std::chrono::milliseconds limit);

/// The class name of `thread`'s event dispatcher (for tests and reports).
QString dispatcherName(QThread *thread);

} // namespace RetryLab::Core
