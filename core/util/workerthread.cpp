#include "core/util/workerthread.h"

#include <QMutex>

namespace RetryLab::Core {

void startWithQtDispatcher(QThread &thread, QObject *resident, const std::function<void()> &ready)
{
    // The variable is read by each thread as it starts: set it only around this
    // start (one at a time), so that threads Qt starts for itself keep the default.
    static QMutex starting;
    QMutexLocker lock(&starting);
    const bool choose = qEnvironmentVariableIsEmpty("QT_NO_THREADED_GLIB");
    if (choose)
        qputenv("QT_NO_THREADED_GLIB", "1");
    thread.start();
    QMetaObject::invokeMethod(resident, ready, Qt::BlockingQueuedConnection);
    if (choose)
        qunsetenv("QT_NO_THREADED_GLIB");
}

} // namespace RetryLab::Core
