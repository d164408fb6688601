#include "ui/session/request/collectionrunhost.h"

#include "ui/session/uitr.h"

#include <QLoggingCategory>
#include <QThread>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

Q_LOGGING_CATEGORY(lcCollectionRunHost, "retrylab.ui.collectionrun")

Core::CollectionRunner *collectionRunnerOf(QObject *context)
{
    return context->findChild<Core::CollectionRunner *>(QString(), Qt::FindDirectChildrenOnly);
}

} // namespace

CollectionRunHost::CollectionRunHost(QObject *parent)
    : QObject(parent), m_thread(new QThread(this)), m_context(new QObject)
{
    // The runner's signals cross from its thread to this one, queued: their
    // arguments are copied through the meta-type system.
    qRegisterMetaType<Core::CollectionRequestRun>();
    qRegisterMetaType<Core::CollectionRunResult>();
    m_thread->setObjectName(QStringLiteral("collection run"));
    m_context->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_context, &QObject::deleteLater);
    m_thread->start();
}

CollectionRunHost::~CollectionRunHost()
{
    // Deleting the runner on its own thread cancels the request in flight (its
    // executor goes with it) and sends nothing more here.
    QObject *context = m_context;
    QMetaObject::invokeMethod(
        m_context, [context] { delete collectionRunnerOf(context); }, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
}

Core::Result<void> CollectionRunHost::start(
    const Core::RunCollection &collection, const Core::CollectionRunOptions &options)
{
    if (m_running)
        return Core::Result<void>::failure(
            Tr::tr("A collection run is going on; stop it or wait for its end before starting another."));
    m_running = true;
    m_planned = int(collection.requests(options.folders).size()) * std::max(1, options.iterations);
    qCInfo(lcCollectionRunHost).noquote()
        << QStringLiteral("running %1: %2 requests").arg(collection.name).arg(m_planned);
    Q_EMIT started(collection.name, m_planned, std::max(1, options.iterations));

    // The destructor waits for this thread, so `host` outlives everything posted here.
    QObject *context = m_context;
    CollectionRunHost *host = this;
    QMetaObject::invokeMethod(
        m_context,
        [context, host, collection, options] {
            // Made here: its script engine and its executor belong to this thread.
            auto *runner = new Core::CollectionRunner(collection, options, context);
            // Queued to the host's thread, in the order they were emitted.
            connect(runner, &Core::CollectionRunner::requestStarted, host, &CollectionRunHost::requestStarted);
            connect(runner, &Core::CollectionRunner::requestFinished, host, &CollectionRunHost::requestFinished);
            connect(runner, &Core::CollectionRunner::finished, context, [runner, host] {
                const Core::CollectionRunResult result = runner->result();
                // Out of the context's children at once: the next run's stop() must find that run.
                runner->setParent(nullptr);
                runner->deleteLater();
                QMetaObject::invokeMethod(
                    host, [host, result] { host->handleFinished(result); }, Qt::QueuedConnection);
            });
            runner->start();
        },
        Qt::QueuedConnection);
    return {};
}

void CollectionRunHost::stop()
{
    if (!m_running)
        return;
    QObject *context = m_context;
    QMetaObject::invokeMethod(
        m_context,
        [context] {
            if (Core::CollectionRunner *runner = collectionRunnerOf(context))
                runner->stop();
        },
        Qt::QueuedConnection);
}

void CollectionRunHost::handleFinished(const Core::CollectionRunResult &result)
{
    m_running = false;
    qCInfo(lcCollectionRunHost).noquote() << "run of" << result.collectionName << "ended:" << result.requests.size()
                                          << "requests," << result.failedRequests() << "failed";
    Q_EMIT finished(result);
}

} // namespace RetryLab::Ui
