#include "ui/session/hosting/observation.h"

#include "core/faultserver/faultserver.h"
#include "core/observe/observer.h"
#include "core/record/attemptrecord.h"
#include "core/util/clock.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/run/runsession.h"
#include "ui/session/uitr.h"

#include <QLoggingCategory>
#include <QThread>

namespace {
Q_LOGGING_CATEGORY(lcObservation, "retrylab.ui.observation", QtInfoMsg)
} // namespace

namespace RetryLab::Ui {

using namespace RetryLab::Core;

Observation::Observation(EmbeddedServer *server, QObject *parent)
    : QObject(parent), m_server(server), m_session(new RunSession(this)), m_plan(ObservationPlan::defaultPlan()),
      m_gapWindowMs(AttemptGrouper::Settings{}.gapWindowMs), m_lanes(m_session)
{
    qRegisterMetaType<ObservedAttempt>();
    // The server's clock: arrivals and ends of answers are on it.
    m_session->setClock(&SteadyClock::instance());
    m_session->clear();
    if (server) {
        connect(server, &EmbeddedServer::runningChanged, this, [this](bool running) {
            if (running && m_enabled)
                start();
        });
        // Leave while the server's thread still runs: the hook comes off there.
        connect(server, &EmbeddedServer::aboutToStop, this, &Observation::stop);
    }
}

Observation::~Observation()
{
    stop();
}

template<typename F>
void Observation::onObserverThread(F function) const
{
    if (!m_observer)
        return;
    if (m_observer->thread() == QThread::currentThread() || !m_observer->thread() || !m_observer->thread()->isRunning())
        function();
    else
        QMetaObject::invokeMethod(m_observer, function, Qt::BlockingQueuedConnection);
}

void Observation::setEnabled(bool enabled)
{
    if (enabled == m_enabled)
        return;
    m_enabled = enabled;
    if (enabled)
        start();
    else
        stop();
    Q_EMIT enabledChanged(enabled);
}

void Observation::start()
{
    if (m_observer || !m_server || !m_server->server())
        return;
    Core::FaultServer *server = m_server->server();
    m_observer = new Observer;
    m_observer->setPlan(m_plan);
    m_observer->setGroupingSettings(AttemptGrouper::Settings{m_gapWindowMs});
    m_observer->setMaxLogicalRequests(m_maxLogicalRequests);
    m_observer->moveToThread(server->thread());
    m_lanes.setBaseUrl(m_server->baseUrl());
    connect(m_observer, &Observer::attemptStarted, this, [this](const ObservedAttempt &a) {
        m_lanes.started(a);
        Q_EMIT attemptStarted(a);
    });
    connect(m_observer, &Observer::attemptFinished, this, [this](const ObservedAttempt &a) {
        m_lanes.finished(a);
        Q_EMIT attemptFinished(a);
    });
    connect(m_observer, &Observer::logicalRequestClosed, this,
        [this](quint64 logicalId, const QString &) { m_lanes.closed(logicalId); });
    connect(m_observer, &Observer::clientAdded, this, &Observation::clientsChanged);
    connect(m_observer, &Observer::clientChanged, this, &Observation::clientsChanged);
    // The hook must be installed on the server's thread.
    onObserverThread([observer = m_observer, server] { observer->attach(server); });
    qCInfo(lcObservation) << "observing clients of" << m_server->baseUrl().toString() << "with plan" << m_plan.id;
    Q_EMIT activeChanged(true);
}

void Observation::stop()
{
    if (!m_observer)
        return;
    Observer *observer = m_observer;
    m_observer = nullptr;
    disconnect(observer, nullptr, this, nullptr);
    if (observer->thread() && observer->thread()->isRunning()) {
        // The hook goes on the server's thread before this returns, so no request
        // sees the observer half gone; the observer itself goes there afterwards
        // (or when the thread ends, which deletes what was left to it).
        QMetaObject::invokeMethod(
            observer,
            [observer] {
                observer->attach(nullptr);
                observer->deleteLater();
            },
            Qt::BlockingQueuedConnection);
    } else {
        // The server's thread has ended (and its server with it): nothing runs there any more.
        delete observer;
    }
    Q_EMIT activeChanged(false);
}

void Observation::setPlan(const ObservationPlan &plan)
{
    m_plan = plan;
    onObserverThread([observer = m_observer, plan] { observer->setPlan(plan); });
}

void Observation::setGapWindowMs(double ms)
{
    m_gapWindowMs = std::clamp(ms, 1.0, 24 * 3600 * 1000.0);
    onObserverThread(
        [observer = m_observer, ms = m_gapWindowMs] { observer->setGroupingSettings(AttemptGrouper::Settings{ms}); });
}

void Observation::setMaxLogicalRequests(int count)
{
    m_maxLogicalRequests = std::clamp(count, 1, 1'000'000);
    m_lanes.setMaxLogicalRequests(m_maxLogicalRequests);
    onObserverThread([observer = m_observer, count = m_maxLogicalRequests] { observer->setMaxLogicalRequests(count); });
}

void Observation::clear()
{
    onObserverThread([observer = m_observer] { observer->clear(); });
    m_lanes.clear();
    m_session->clear();
    Q_EMIT cleared();
    Q_EMIT clientsChanged();
}

void Observation::renameClient(const QString &clientId, const QString &name)
{
    onObserverThread([observer = m_observer, clientId, name] { observer->renameClient(clientId, name); });
}

QList<ObservedClient> Observation::clients() const
{
    QList<ObservedClient> list;
    onObserverThread([&list, observer = m_observer] { list = observer->clients(); });
    return list;
}

QList<LogicalRequest> Observation::logicalRequests(const QString &clientId) const
{
    QList<LogicalRequest> list;
    onObserverThread([&list, observer = m_observer, clientId] { list = observer->logicalRequests(clientId); });
    return list;
}

int Observation::droppedLogicalRequests() const
{
    int dropped = 0;
    onObserverThread([&dropped, observer = m_observer] { dropped = observer->droppedLogicalRequests(); });
    return dropped;
}

} // namespace RetryLab::Ui
