#include "core/runtime/workerthread.h"

#include "core/runtime/epolleventdispatcher.h"

#include <QAbstractEventDispatcher>
#include <QDeadlineTimer>
#include <QMutex>

#include <memory>

#ifdef Q_OS_LINUX
#include <dirent.h>
#endif

namespace RetryLab::Core {

QAbstractEventDispatcher *makeWorkerDispatcher()
{
#ifdef Q_OS_LINUX
    if (qEnvironmentVariable("RETRYLAB_DISPATCHER") != QLatin1String("qt")) {
        auto epoll = std::make_unique<EpollEventDispatcher>();
        if (epoll->isValid())
            return epoll.release();
    }
#endif
    return nullptr;
}

void startWorkerThread(QThread &thread, QObject *resident, const std::function<void()> &ready)
{
    if (QAbstractEventDispatcher *dispatcher = makeWorkerDispatcher()) {
        thread.setEventDispatcher(dispatcher); // the thread owns it
        thread.start();
        if (thread.isRunning())
            QMetaObject::invokeMethod(resident, ready, Qt::BlockingQueuedConnection);
        return;
    }
    // The variable is read by each thread as it starts: set it only around this
    // start (one at a time), so that threads Qt starts for itself keep the default.
    static QMutex starting;
    QMutexLocker lock(&starting);
    const bool choose = !qEnvironmentVariableIsSet("QT_NO_THREADED_GLIB");
    if (choose)
        qputenv("QT_NO_THREADED_GLIB", "1");
    thread.start();
    if (thread.isRunning()) // a thread that could not start would never answer
        QMetaObject::invokeMethod(resident, ready, Qt::BlockingQueuedConnection);
    if (choose)
        qunsetenv("QT_NO_THREADED_GLIB");
}

int runningThreadCount()
{
#ifdef Q_OS_LINUX
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks)
        return 0;
    int count = 0;
    while (const dirent *entry = readdir(tasks)) {
        if (entry->d_name[0] != '.')
            ++count;
    }
    closedir(tasks);
    return count;
#else
    return 0;
#endif
}

bool awaitThreadCount(int count, std::chrono::milliseconds limit)
{
    const QDeadlineTimer deadline(limit);
    for (;;) {
        const int running = runningThreadCount();
        if (running == 0)
            return false; // not known here
        if (running <= count)
            return true;
        if (deadline.hasExpired())
            return false;
        QThread::usleep(200);
    }
}

QString dispatcherName(QThread *thread)
{
    const QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance(thread);
    return dispatcher ? QString::fromLatin1(dispatcher->metaObject()->className()) : QString();
}

} // namespace RetryLab::Core
