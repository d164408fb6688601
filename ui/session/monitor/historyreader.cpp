#include "ui/session/monitor/historyreader.h"

#include "ui/session/monitor/historyreaderworker.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QLoggingCategory>
#include <QMutex>
#include <QMutexLocker>
#include <QThread>

#include <atomic>

namespace RetryLab::Ui {

namespace {

Q_LOGGING_CATEGORY(lcHistoryReader, "retrylab.ui.historyreader")

template<typename T, typename Signal>
void answerWith(HistoryReaderWorker *worker, quint64 id, const Core::Result<T> &result, Signal signal)
{
    if (!result) {
        worker->close(); // the next request connects anew
        Q_EMIT worker->readFailed(id, result.error());
        return;
    }
    Q_EMIT(worker->*signal)(id, *result);
}

} // namespace

/// What the window's thread and the reading thread share: the newest request
/// of each kind and tag, and whether the reader is closing.
struct HistoryReader::Shared
{
    QMutex mutex;
    QHash<QString, quint64> newest;
    std::atomic<bool> closing = false;

    bool superseded(const QString &key, quint64 id)
    {
        if (key.isEmpty())
            return false;
        const QMutexLocker lock(&mutex);
        return newest.value(key) != id;
    }
};

HistoryReader::HistoryReader(const QString &database, QObject *parent)
    : QObject(parent), m_database(database), m_shared(std::make_shared<Shared>())
{
    qRegisterMetaType<QList<Core::MonitorSummary>>();
    qRegisterMetaType<QList<Core::CheckPoint>>();
    qRegisterMetaType<QList<Core::StoredCheck>>();
    qRegisterMetaType<QList<Core::Incident>>();
    qRegisterMetaType<QList<Core::StateEvent>>();
    qRegisterMetaType<Core::ObjectiveStatus>();
    qRegisterMetaType<Core::WhatIf>();

    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("history reader"));
    m_worker = new HistoryReaderWorker;
    m_worker->moveToThread(m_thread);
    connect(m_worker, &HistoryReaderWorker::monitorNamesRead, this, &HistoryReader::monitorNamesRead);
    connect(m_worker, &HistoryReaderWorker::summariesRead, this, &HistoryReader::summariesRead);
    connect(m_worker, &HistoryReaderWorker::checkPointsRead, this, &HistoryReader::checkPointsRead);
    connect(m_worker, &HistoryReaderWorker::checksRead, this, &HistoryReader::checksRead);
    connect(m_worker, &HistoryReaderWorker::incidentsRead, this, &HistoryReader::incidentsRead);
    connect(m_worker, &HistoryReaderWorker::stateEventsRead, this, &HistoryReader::stateEventsRead);
    connect(m_worker, &HistoryReaderWorker::objectiveRead, this, &HistoryReader::objectiveRead);
    connect(m_worker, &HistoryReaderWorker::whatIfRead, this, &HistoryReader::whatIfRead);
    connect(m_worker, &HistoryReaderWorker::readFailed, this, &HistoryReader::readFailed);
    m_thread->start();
    setDatabase(database);
}

HistoryReader::~HistoryReader()
{
    // Requests still queued are skipped; the connection closes on its own thread.
    m_shared->closing = true;
    HistoryReaderWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker,
        [worker] {
            worker->close();
            worker->thread()->quit();
        },
        Qt::QueuedConnection);
    if (!m_thread->wait(QDeadlineTimer(closeWaitMs))) {
        // Deleting a running thread would abort the process; leaving it costs memory only.
        qCCritical(lcHistoryReader) << "a history query does not end; its thread is left behind";
        return;
    }
    delete m_worker;
    delete m_thread;
}

void HistoryReader::setDatabase(const QString &database)
{
    m_database = database;
    HistoryReaderWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, database] { worker->setDatabase(database); }, Qt::QueuedConnection);
}

quint64 HistoryReader::enqueue(const QString &kind, const QString &tag, Run run)
{
    const quint64 id = ++m_lastId;
    QString key;
    if (!tag.isEmpty()) {
        key = kind + QLatin1Char('\n') + tag;
        const QMutexLocker lock(&m_shared->mutex);
        m_shared->newest.insert(key, id);
    }
    HistoryReaderWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker,
        [worker, id, key, shared = m_shared, run = std::move(run)] {
            if (shared->closing || shared->superseded(key, id))
                return;
            QString error;
            Core::HistoryQuery *query = worker->query(&error);
            if (!query) {
                Q_EMIT worker->readFailed(id, error);
                return;
            }
            run(*query, worker, id);
        },
        Qt::QueuedConnection);
    return id;
}

quint64 HistoryReader::monitorNames(const QString &tag)
{
    return enqueue(QStringLiteral("monitorNames"), tag, [](Core::HistoryQuery &q, HistoryReaderWorker *w, quint64 id) {
        answerWith(w, id, q.monitors(), &HistoryReaderWorker::monitorNamesRead);
    });
}

quint64 HistoryReader::summaries(
    const Core::HistoryFilter &filter, Core::HistoryQuery::SummaryDetail detail, const QString &tag)
{
    return enqueue(
        QStringLiteral("summaries"), tag, [filter, detail](Core::HistoryQuery &q, HistoryReaderWorker *w, quint64 id) {
            answerWith(w, id, q.summaries(filter, detail), &HistoryReaderWorker::summariesRead);
        });
}

quint64 HistoryReader::checkPoints(const Core::HistoryFilter &filter, const QString &tag)
{
    return enqueue(
        QStringLiteral("checkPoints"), tag, [filter](Core::HistoryQuery &q, HistoryReaderWorker *w, quint64 id) {
            answerWith(w, id, q.checkPoints(filter), &HistoryReaderWorker::checkPointsRead);
        });
}

quint64 HistoryReader::checks(const Core::HistoryFilter &filter, const QString &tag)
{
    return enqueue(QStringLiteral("checks"), tag, [filter](Core::HistoryQuery &q, HistoryReaderWorker *w, quint64 id) {
        answerWith(w, id, q.checks(filter), &HistoryReaderWorker::checksRead);
    });
}

quint64 HistoryReader::incidents(const Core::HistoryFilter &filter, const QString &tag)
{
    return enqueue(
        QStringLiteral("incidents"), tag, [filter](Core::HistoryQuery &q, HistoryReaderWorker *w, quint64 id) {
            answerWith(w, id, q.incidents(filter), &HistoryReaderWorker::incidentsRead);
        });
}

quint64 HistoryReader::stateEvents(const Core::HistoryFilter &filter, const QString &tag)
{
    return enqueue(
        QStringLiteral("stateEvents"), tag, [filter](Core::HistoryQuery &q, HistoryReaderWorker *w, quint64 id) {
            answerWith(w, id, q.stateEvents(filter), &HistoryReaderWorker::stateEventsRead);
        });
}

quint64 HistoryReader::objective(
    const QString &monitor, double target, qint64 nowMs, const Core::ObjectiveWindows &windows, const QString &tag)
{
    return enqueue(QStringLiteral("objective"), tag,
        [monitor, target, nowMs, windows](Core::HistoryQuery &q, HistoryReaderWorker *w, quint64 id) {
            answerWith(w, id, q.objective(monitor, target, nowMs, windows), &HistoryReaderWorker::objectiveRead);
        });
}

quint64 HistoryReader::whatIf(const QString &monitor, qint64 sinceMs, qint64 untilMs, const Core::BackoffPolicy &policy,
    quint64 seed, const Core::WhatIfOptions &options, const QString &tag)
{
    return enqueue(QStringLiteral("whatIf"), tag,
        [monitor, sinceMs, untilMs, policy, seed, options](Core::HistoryQuery &q, HistoryReaderWorker *w, quint64 id) {
            answerWith(
                w, id, q.whatIf(monitor, sinceMs, untilMs, policy, seed, options), &HistoryReaderWorker::whatIfRead);
        });
}

} // namespace RetryLab::Ui
