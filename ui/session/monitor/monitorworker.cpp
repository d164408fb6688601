#include "ui/session/monitor/monitorworker.h"

#include "core/alerts/alertdispatcher.h"
#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "core/monitor/monitorengine.h"

#include <QLoggingCategory>
#include <QThread>
#include <QTimer>

namespace RetryLab::Ui {

namespace {

Q_LOGGING_CATEGORY(lcMonitorWorker, "retrylab.ui.monitorworker")

} // namespace

MonitorWorker::MonitorWorker(const QString &agent) : m_agent(agent)
{ }

MonitorWorker::~MonitorWorker()
{
    // Normally torn down by stop(); here the order matters all the same: the
    // engine holds plain pointers to the store and the query.
    delete m_engine;
    m_engine = nullptr;
}

Core::Result<std::unique_ptr<Core::HistoryStore>> MonitorWorker::testDatabase(
    const QString &database, const QString &agent)
{
    return Core::HistoryStore::open(database, agent);
}

QString MonitorWorker::useDatabase(
    const QString &database, const QList<Core::Monitor> &monitors, const QList<Core::AlertTarget> &targets)
{
    if (m_tornDown)
        return tr("the monitors have stopped");
    auto opened = testDatabase(database, m_agent);
    if (!opened)
        return opened.error();
    std::unique_ptr<Core::HistoryStore> old = std::move(m_store);
    m_store = std::move(opened).value();
    if (!m_engine) {
        startEngine(monitors, targets);
    } else {
        // What the old store still holds is written there when it closes below;
        // from here on every check goes to the new one.
        m_engine->setHistory(m_store.get());
    }
    m_engine->setObjectiveSource(nullptr);
    m_objectives.reset();
    openObjectives(database);
    m_engine->setObjectiveSource(m_objectives.get());
    if (old) {
        qCInfo(lcMonitorWorker).noquote() << "history moved from" << old->where() << "to" << m_store->where();
        old.reset();
    }
    return {};
}

void MonitorWorker::openObjectives(const QString &database)
{
    auto query = Core::HistoryQuery::open(database);
    if (!query) {
        qCWarning(lcMonitorWorker).noquote() << "burn rates will not be read:" << query.error();
        return;
    }
    m_objectives = std::move(query).value();
}

void MonitorWorker::startEngine(const QList<Core::Monitor> &monitors, const QList<Core::AlertTarget> &targets)
{
    m_engine = new Core::MonitorEngine(this);
    m_engine->setAgent(m_store->agent());
    m_engine->setServerUrl(m_serverUrl);
    m_engine->setHistory(m_store.get());
    m_engine->setMonitors(monitors);
    m_engine->setAlertTargets(targets);
    connect(m_engine, &Core::MonitorEngine::checkFinished, this, &MonitorWorker::checkFinished);
    connect(m_engine, &Core::MonitorEngine::stateChanged, this, &MonitorWorker::stateChanged);
    connect(m_engine, &Core::MonitorEngine::incidentStarted, this, &MonitorWorker::incidentStarted);
    connect(m_engine, &Core::MonitorEngine::incidentEnded, this, &MonitorWorker::incidentEnded);
    connect(m_engine, &Core::MonitorEngine::historyWarning, this, &MonitorWorker::historyWarning);
    m_engine->start();
    // A monitors file's desktop targets (burn rates among them) show in the window.
    if (Core::AlertDispatcher *alerts = m_engine->alerts())
        connect(alerts, &Core::AlertDispatcher::desktopNotification, this, &MonitorWorker::desktopNotification);
    m_dueTimer = new QTimer(this);
    connect(m_dueTimer, &QTimer::timeout, this, &MonitorWorker::sendDueTimes);
    m_dueTimer->start(dueTimesIntervalMs);
    sendDueTimes();
}

void MonitorWorker::setMonitors(const QList<Core::Monitor> &monitors, const QList<Core::AlertTarget> &targets)
{
    if (!m_engine)
        return;
    setAlertTargets(targets);
    for (const QString &name : m_engine->monitorNames())
        m_engine->removeMonitor(name);
    for (const Core::Monitor &monitor : monitors)
        m_engine->addMonitor(monitor);
}

void MonitorWorker::setServerUrl(const QUrl &base)
{
    m_serverUrl = base;
    if (m_engine)
        m_engine->setServerUrl(base);
}

void MonitorWorker::setAlertTargets(const QList<Core::AlertTarget> &targets)
{
    if (!m_engine)
        return;
    m_engine->setAlertTargets(targets);
    if (m_engine->alerts())
        m_engine->alerts()->setTargets(targets);
}

void MonitorWorker::addMonitor(const Core::Monitor &monitor)
{
    if (m_engine && !m_engine->addMonitor(monitor))
        qCWarning(lcMonitorWorker) << "the engine refused to add" << monitor.name;
}

void MonitorWorker::replaceMonitor(const QString &name, const Core::Monitor &monitor)
{
    if (m_engine && !m_engine->replaceMonitor(name, monitor))
        qCWarning(lcMonitorWorker) << "the engine refused to replace" << name << "with" << monitor.name;
}

void MonitorWorker::removeMonitor(const QString &name)
{
    if (m_engine)
        m_engine->removeMonitor(name);
}

void MonitorWorker::pause(const QString &name)
{
    if (m_engine)
        m_engine->pause(name);
}

void MonitorWorker::resume(const QString &name)
{
    if (m_engine)
        m_engine->resume(name);
}

void MonitorWorker::checkNow(const QString &name)
{
    if (m_engine)
        m_engine->checkNow(name);
}

void MonitorWorker::sendDueTimes()
{
    if (!m_engine)
        return;
    QHash<QString, qint64> due;
    for (const QString &name : m_engine->monitorNames()) {
        if (const auto at = m_engine->nextDueMs(name))
            due.insert(name, *at);
    }
    Q_EMIT nextDueTimes(due);
}

void MonitorWorker::stop()
{
    if (m_tornDown)
        return;
    if (m_dueTimer)
        m_dueTimer->stop();
    if (!m_engine || !m_engine->isRunning()) {
        tearDown();
        return;
    }
    // stopped() may come from inside the engine's own handler: tear down after it returns.
    connect(m_engine, &Core::MonitorEngine::stopped, this,
        [this] { QMetaObject::invokeMethod(this, &MonitorWorker::tearDown, Qt::QueuedConnection); });
    m_engine->stop();
}

void MonitorWorker::stopNow()
{
    if (m_tornDown)
        return;
    if (m_engine && m_engine->checksInFlight() > 0)
        qCWarning(lcMonitorWorker) << "abandoning" << m_engine->checksInFlight() << "checks in flight";
    tearDown();
}

void MonitorWorker::tearDown()
{
    if (m_tornDown)
        return;
    m_tornDown = true;
    if (m_dueTimer)
        m_dueTimer->stop();
    // The engine first: it points at the store and the query. Checks it stored
    // are in the store's queue, written when the store closes.
    delete m_engine;
    m_engine = nullptr;
    m_objectives.reset();
    if (m_store) {
        if (!m_store->flush())
            qCWarning(lcMonitorWorker).noquote() << "the last checks could not be written:" << m_store->warning();
        m_store.reset();
    }
    Q_EMIT finished();
    thread()->quit();
}

} // namespace RetryLab::Ui
