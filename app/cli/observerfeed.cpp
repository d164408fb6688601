#include "app/cli/observerfeed.h"

#include "core/observe/observer.h"
#include "core/runtime/workerthread.h"

#include <QAbstractEventDispatcher>

#include <utility>

namespace RetryLab::Cli {

ObserverFeed::ObserverFeed(Core::Observer &observer) : m_observer(observer), m_home(observer.thread())
{
    m_thread.setObjectName(QStringLiteral("observer"));
    observer.moveToThread(&m_thread);
    Core::startWorkerThread(m_thread, &observer, [] {});
    m_direct = !m_thread.isRunning(); // no thread to be had: grouped here, as before
    QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance();
    m_turnEnds
        = QObject::connect(dispatcher, &QAbstractEventDispatcher::aboutToBlock, dispatcher, [this] { turnEnds(); });
    m_later.setSingleShot(true);
    m_later.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_later, &QTimer::timeout, dispatcher, [this] { handOver(); });
}

ObserverFeed::~ObserverFeed()
{
    finish();
}

void ObserverFeed::take(const Core::ServerLogEntry &entry)
{
    if (!m_open) // QThread::isRunning() takes a lock
        return;
    if (m_direct) {
        Core::ServerLogEntry observed = entry;
        observe(observed);
        return;
    }
    m_kept.append(entry);
    if (m_kept.size() >= maxPerHandOver)
        handOver();
}

void ObserverFeed::finish()
{
    if (!m_open)
        return;
    m_open = false;
    QObject::disconnect(m_turnEnds);
    if (m_direct) {
        m_observer.finish();
        return;
    }
    handOver();
    QMetaObject::invokeMethod(
        &m_observer,
        [this] {
            observeBatch();
            m_observer.finish();
            m_observer.moveToThread(m_home);
        },
        Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

void ObserverFeed::turnEnds()
{
    if (m_kept.isEmpty() || m_later.isActive())
        return;
    const qint64 since = m_lastHandOver.isValid() ? m_lastHandOver.elapsed() : handOverEveryMs;
    if (since >= handOverEveryMs)
        handOver();
    else
        m_later.start(int(handOverEveryMs - since));
}

void ObserverFeed::handOver()
{
    m_later.stop();
    if (m_kept.isEmpty())
        return;
    m_lastHandOver.start();
    QMutexLocker lock(&m_mutex);
    while (m_batch.size() >= maxWaiting)
        m_taken.wait(&m_mutex);
    const bool wake = m_batch.isEmpty(); // otherwise the observer's thread is told already
    if (wake) {
        m_batch.swap(m_kept); // m_kept takes the room of a batch observed before
    } else {
        m_batch.append(std::move(m_kept));
        m_kept.clear();
    }
    lock.unlock();
    if (wake)
        QMetaObject::invokeMethod(
            &m_observer, [this] { observeBatch(); }, Qt::QueuedConnection);
}

void ObserverFeed::observeBatch()
{
    {
        // m_batch takes the room of the batch observed last, emptied: the lists go
        // round between the threads instead of being allocated and grown every turn.
        const QMutexLocker lock(&m_mutex);
        m_observing.swap(m_batch);
        m_taken.wakeAll();
    }
    for (Core::ServerLogEntry &entry : m_observing)
        observe(entry);
    if (m_observing.capacity() > maxKeptRoom)
        m_observing = {}; // a backlog's room is given back
    else
        m_observing.clear();
}

void ObserverFeed::observe(Core::ServerLogEntry &entry)
{
    m_observer.observeRequest(entry, false);
    m_observer.observeAnswer(entry);
}

} // namespace RetryLab::Cli
