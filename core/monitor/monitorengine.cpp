#include "core/monitor/monitorengine.h"

#include "core/alerts/alertdispatcher.h"
#include "core/collections/requesttemplate.h"
#include "core/executor/retryexecutor.h"
#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "core/metrics/monitormetrics.h"
#include "core/monitor/monitorschedule.h"
#include "core/record/attemptphases.h"
#include "core/scenario/scenario.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QDateTime>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

Q_LOGGING_CATEGORY(lcMonitorEngine, "retrylab.core.monitorengine")

// Conditions read the body; more than this is rarely needed to judge an answer.
constexpr qint64 monitorBodyLimit = 64 * 1024;

double phaseMsOf(qint64 fromNs, qint64 toNs)
{
    return fromNs >= 0 && toNs >= fromNs ? static_cast<double>(toNs - fromNs) / 1e6 : -1.0;
}

} // namespace

StoredAttempt storedAttemptOf(const AttemptRecord &record)
{
    StoredAttempt a;
    a.index = record.attemptIndex;
    a.startMs = record.startWall.isValid() ? record.startWall.toMSecsSinceEpoch() : 0;
    a.success = record.succeeded();
    a.status = record.httpStatus;
    a.cause = record.cause;
    a.reason = record.reason;
    a.decision = decisionName(record.decision);
    a.delayBeforeMs = record.actualDelayMs;
    a.queuedMs = static_cast<double>(record.queuedNs) / 1e6;
    // The connection's phases as the reports give them (AttemptPhases), for a record with the
    // points the executor measures beside Qt's; over TLS Qt reports no point between connect and
    // handshake, so connect holds both, as in HAR. A record without them (one read back from a
    // row written before schema version 3) keeps connect as it was then: up to the request sent.
    const bool measured = record.lookupEndNs >= 0 || record.connectedNs >= 0 || record.encryptedNs >= 0;
    if (measured) {
        const AttemptPhases phases = AttemptPhases::of(record);
        a.connectMs = phases.connectTlsMs.value_or(phases.connectMs.value_or(-1.0));
        a.tlsMs = phases.tlsMs.value_or(-1.0);
        a.dnsMs = phases.dnsMs.value_or(-1.0);
        a.sendMs = phases.sendMs.value_or(-1.0);
        a.downloadMs = phases.downloadMs.value_or(-1.0);
    } else {
        a.connectMs = phaseMsOf(record.connectionStartedNs, record.requestSentNs);
    }
    a.firstByteMs = phaseMsOf(record.lastExchangeStartNs(), record.firstByteNs);
    a.totalMs = record.durationMs();
    a.bytes = record.bytesReceived;
    if (!a.success)
        a.failureBody = record.responseBody.left(HistoryLimits::failureBodyBytes);
    return a;
}

MonitorEngine::MonitorEngine(QObject *parent)
    : QObject(parent), m_clock(&SteadyClock::instance()), m_keyToken(RequestTemplate::newKeyToken())
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &MonitorEngine::handleTimer);
    connect(&m_flushTimer, &QTimer::timeout, this, &MonitorEngine::flushHistory);
    connect(&m_retentionTimer, &QTimer::timeout, this, &MonitorEngine::applyRetention);
    connect(&m_burnRateTimer, &QTimer::timeout, this, &MonitorEngine::checkBurnRates);
    m_stopGrace.setSingleShot(true);
    connect(&m_stopGrace, &QTimer::timeout, this, [this] {
        if (m_alerts && m_alerts->pendingDeliveries() > 0) {
            qCWarning(lcMonitorEngine) << "stopping with" << m_alerts->pendingDeliveries()
                                       << "alert deliveries still on their way";
        }
        finishStopping(true);
    });
}

MonitorEngine::~MonitorEngine() = default;

void MonitorEngine::setClock(const Clock *clock)
{
    m_clock = clock ? clock : &SteadyClock::instance();
}

void MonitorEngine::setMonitors(const QList<Monitor> &monitors)
{
    Q_ASSERT(!m_running);
    m_entries.clear();
    m_freeSlots.clear();
    m_byName.clear();
    for (const Monitor &monitor : monitors)
        insert(makeEntry(monitor));
}

MonitorEngine::Entry MonitorEngine::makeEntry(const Monitor &monitor) const
{
    Entry entry;
    entry.monitor = monitor;
    entry.policy = monitor.checkPolicy();
    entry.machine = MonitorStateMachine(monitor.downAfter, monitor.upAfter);
    entry.intervalMs = std::max<qint64>(1, std::llround(monitor.intervalMs));
    entry.phaseMs = MonitorSchedule::phaseMs(monitor.name, entry.intervalMs);
    entry.seed = MonitorSchedule::seedOf(monitor.name);
    entry.checks = m_retiredChecks.value(monitor.name, 0);
    return entry;
}

int MonitorEngine::insert(Entry entry)
{
    int index = static_cast<int>(m_entries.size());
    if (!m_freeSlots.empty()) {
        index = m_freeSlots.back();
        m_freeSlots.pop_back();
        // Queue entries of the slot's earlier monitor must stay stale.
        entry.generation = m_entries[static_cast<size_t>(index)].generation + 1;
        m_entries[static_cast<size_t>(index)] = std::move(entry);
    } else {
        m_entries.push_back(std::move(entry));
    }
    m_byName.insert(m_entries[static_cast<size_t>(index)].monitor.name, index);
    return index;
}

// Puts a monitor into the running schedule, as start() does for each one.
void MonitorEngine::activate(int index)
{
    Entry &entry = m_entries[static_cast<size_t>(index)];
    if (m_metrics)
        m_metrics->setState(entry.monitor.name, monitorStateName(entry.machine.state()));
    if (entry.monitor.paused) {
        applyChange(entry, entry.machine.pause(), nowMs());
        return;
    }
    schedule(index, MonitorSchedule::nextDueMs(nowMs(), entry.intervalMs, entry.phaseMs));
}

bool MonitorEngine::addMonitor(const Monitor &monitor)
{
    if (monitor.name.isEmpty() || m_byName.contains(monitor.name))
        return false;
    const int index = insert(makeEntry(monitor));
    if (m_running && !m_stopping) {
        activate(index);
        armTimer();
    }
    qCDebug(lcMonitorEngine) << "added" << monitor.name;
    return true;
}

bool MonitorEngine::replaceMonitor(const QString &name, const Monitor &monitor)
{
    const int index = indexOf(name);
    if (index < 0 || monitor.name.isEmpty() || (monitor.name != name && m_byName.contains(monitor.name)))
        return false;
    retire(index);
    const bool added = addMonitor(monitor);
    Q_ASSERT(added);
    return added;
}

bool MonitorEngine::removeMonitor(const QString &name)
{
    const int index = indexOf(name);
    if (index < 0)
        return false;
    retire(index);
    if (m_running && !m_stopping)
        armTimer();
    qCDebug(lcMonitorEngine) << "removed" << name;
    return true;
}

void MonitorEngine::retire(int index)
{
    Entry &entry = m_entries[static_cast<size_t>(index)];
    m_byName.remove(entry.monitor.name);
    m_burning.remove(entry.monitor.name);
    m_retiredChecks.insert(entry.monitor.name, entry.checks);
    entry.retired = true;
    ++entry.generation;
    if (!entry.inFlight)
        release(index);
}

// A retired slot without a check in flight: free for the next monitor added.
void MonitorEngine::release(int index)
{
    Entry &entry = m_entries[static_cast<size_t>(index)];
    Q_ASSERT(entry.retired && !entry.inFlight);
    const quint64 generation = entry.generation;
    Entry empty;
    entry = std::move(empty);
    entry.retired = true;
    entry.generation = generation;
    m_freeSlots.push_back(index);
}

qint64 MonitorEngine::nowMs() const
{
    return m_clock->wallTime().toMSecsSinceEpoch();
}

void MonitorEngine::start()
{
    if (m_running)
        return;
    m_running = true;
    m_stopping = false;
    if (!m_executor) {
        m_executor = new RetryExecutor(nullptr, this);
        m_executor->setConcurrencyLimit(m_concurrencyLimit);
        m_executor->setResponseBodyLimit(monitorBodyLimit);
        connect(m_executor, &RetryExecutor::attemptFinished, this, &MonitorEngine::handleAttemptFinished);
        connect(m_executor, &RetryExecutor::requestFinished, this, &MonitorEngine::handleRequestFinished);
        // Webhooks go through the same executor; their reports are the dispatcher's, not a check's.
        m_alerts = new AlertDispatcher(m_executor, nullptr, this);
        m_alerts->setTargets(m_alertTargets);
        // A stop waits for the alerts on their way; the dispatcher counts one as done
        // once its signal has gone out, so the engine looks again just after.
        const auto lookAgain = [this] {
            QMetaObject::invokeMethod(
                this, [this] { finishStopping(); }, Qt::QueuedConnection);
        };
        connect(m_alerts, &AlertDispatcher::delivered, this, lookAgain);
        connect(m_alerts, &AlertDispatcher::failed, this, lookAgain);
    }
    for (int i = 0; i < static_cast<int>(m_entries.size()); ++i) {
        if (!m_entries[static_cast<size_t>(i)].retired)
            activate(i);
    }
    qCDebug(lcMonitorEngine) << "started" << m_byName.size() << "monitors";
    armTimer();
    if (m_store) {
        m_flushTimer.start(flushIntervalMs);
        m_retentionTimer.start(retentionIntervalMs);
        applyRetention();
    }
    if (m_objectives)
        m_burnRateTimer.start(burnRateIntervalMs);
}

void MonitorEngine::stop()
{
    if (!m_running || m_stopping)
        return;
    m_stopping = true;
    m_timer.stop();
    m_queue = {};
    m_stopGrace.start(stopGraceMs);
    finishStopping();
}

void MonitorEngine::finishStopping(bool graceOver)
{
    if (!m_stopping || !m_running || !m_byRequest.isEmpty())
        return;
    if (!graceOver && m_alerts && m_alerts->pendingDeliveries() > 0)
        return; // delivered() or failed() calls again
    m_stopGrace.stop();
    m_flushTimer.stop();
    m_retentionTimer.stop();
    m_burnRateTimer.stop();
    flushHistory();
    m_running = false;
    Q_EMIT stopped();
}

void MonitorEngine::flushHistory()
{
    if (!m_store)
        return;
    const bool written = m_store->flush();
    if (m_metrics) {
        m_metrics->setHistoryBacklog(m_store->backlog());
        const qint64 dropped = m_store->droppedChecks();
        if (dropped > m_droppedReported)
            m_metrics->addHistoryDropped(dropped - m_droppedReported);
    }
    m_droppedReported = m_store->droppedChecks();
    const QString warning = written ? QString() : m_store->warning();
    if (warning != m_historyWarning) {
        m_historyWarning = warning;
        Q_EMIT historyWarning(warning);
    }
}

void MonitorEngine::applyRetention()
{
    if (m_store && !m_store->applyRetention(nowMs()))
        qCWarning(lcMonitorEngine).noquote() << "rolling up the history failed:" << m_store->warning();
}

void MonitorEngine::checkBurnRates()
{
    if (!m_objectives)
        return;
    const qint64 now = nowMs();
    for (const Entry &entry : m_entries) {
        if (entry.retired || !entry.monitor.objective || entry.monitor.alerts.isEmpty())
            continue;
        const auto status = m_objectives->objective(entry.monitor.name, *entry.monitor.objective, now);
        if (!status) {
            qCWarning(lcMonitorEngine).noquote()
                << "the burn rate of" << entry.monitor.name << "cannot be read:" << status.error();
            continue;
        }
        const bool burning = status->alerting;
        const bool was = m_burning.contains(entry.monitor.name);
        if (burning == was)
            continue;
        if (!burning) {
            m_burning.remove(entry.monitor.name);
            continue;
        }
        m_burning.insert(entry.monitor.name);
        AlertEvent event;
        event.kind = AlertEvent::Kind::BurnRate;
        event.monitor = entry.monitor.name;
        event.agent = m_agent;
        event.atMs = now;
        event.burnRate = status->longWindow.rate.value_or(0.0);
        event.burnThreshold = status->burnRateThreshold;
        event.longWindowMs = status->longWindow.windowMs;
        event.shortWindowMs = status->shortWindow.windowMs;
        event.objective = status->target;
        event.reason = Tr::tr("the error budget of the objective %1 burns %2 times too fast over the last %3 (and %4 "
                              "times over the last %5)")
                           .arg(status->target)
                           .arg(status->longWindow.rate.value_or(0.0), 0, 'f', 1)
                           .arg(DurationText::format(double(status->longWindow.windowMs)))
                           .arg(status->shortWindow.rate.value_or(0.0), 0, 'f', 1)
                           .arg(DurationText::format(double(status->shortWindow.windowMs)));
        raise(entry, event);
    }
}

void MonitorEngine::schedule(int index, qint64 atMs)
{
    Entry &entry = m_entries[static_cast<size_t>(index)];
    entry.dueMs = atMs;
    ++entry.generation;
    m_queue.push(Due{atMs, index, entry.generation});
}

void MonitorEngine::scheduleNext(int index)
{
    Entry &entry = m_entries[static_cast<size_t>(index)];
    const bool down = entry.machine.state() == MonitorState::Down;
    const qint64 interval = std::max<qint64>(1, std::llround(entry.monitor.intervalFor(down)));
    const qint64 now = nowMs();
    if (down && entry.monitor.downIntervalMs) {
        // While down, sooner and from now: the next check comes one short interval after this one began.
        schedule(index, std::max(now, entry.startedMs + interval));
    } else {
        schedule(index, MonitorSchedule::nextDueMs(std::max(now, entry.dueMs + 1), entry.intervalMs, entry.phaseMs));
    }
}

void MonitorEngine::armTimer()
{
    while (!m_queue.empty()) {
        const Due &top = m_queue.top();
        const Entry &entry = m_entries[static_cast<size_t>(top.index)];
        if (top.generation == entry.generation && entry.machine.state() != MonitorState::Paused)
            break;
        m_queue.pop();
    }
    if (m_queue.empty() || m_stopping) {
        m_timer.stop();
        return;
    }
    const qint64 wait = std::max<qint64>(0, m_queue.top().atMs - nowMs());
    m_timer.start(static_cast<int>(std::min<qint64>(wait, 24LL * 3600 * 1000)));
}

void MonitorEngine::handleTimer()
{
    const qint64 now = nowMs();
    while (!m_queue.empty() && !m_stopping) {
        const Due top = m_queue.top();
        if (top.atMs > now)
            break;
        m_queue.pop();
        Entry &entry = m_entries[static_cast<size_t>(top.index)];
        if (top.generation != entry.generation || entry.machine.state() == MonitorState::Paused)
            continue;
        if (entry.inFlight)
            continue; // startCheck() made its due times stale; it schedules the next when it ends
        startCheck(top.index, top.atMs);
    }
    armTimer();
}

void MonitorEngine::startCheck(int index, qint64 dueMs)
{
    Entry &entry = m_entries[static_cast<size_t>(index)];
    const qint64 now = nowMs();
    const float late = static_cast<float>(std::max<qint64>(0, now - dueMs));
    if (m_late.size() < static_cast<size_t>(lateSampleCount))
        m_late.push_back(late);
    else
        m_late[static_cast<size_t>(m_lateCount % lateSampleCount)] = late;
    ++m_lateCount;

    RequestSpec spec = entry.monitor.request;
    ++entry.checks;
    // New for every run: a server that outlives this one has seen the keys of the last.
    const QString key
        = m_keyToken + QLatin1Char('-') + entry.monitor.name + QLatin1Char('-') + QString::number(entry.checks);
    const bool needsServer = entry.monitor.urlTemplate.contains(Scenario::serverPlaceholder());
    spec.url = Scenario::resolveUrl(entry.monitor.urlTemplate, m_serverUrl, key);
    spec.seed = entry.seed;
    spec.seedStream = entry.checks;
    if (spec.label.isEmpty())
        spec.label = entry.monitor.name;
    entry.inFlight = true;
    entry.dueMs = dueMs;
    entry.startedMs = now;
    entry.attempts.clear();
    ++entry.generation; // nothing else is due until this check ends
    ++m_checksStarted;
    Q_EMIT checkStarted(entry.monitor.name);
    const quint64 id = m_executor->reserveId();
    entry.requestId = id;
    m_byRequest.insert(id, index);
    if (needsServer && m_serverUrl.isEmpty()) {
        // A failed check without attempts, finished later as the executor would
        // finish it: never inside the call that started it.
        RequestResult result;
        result.requestId = id;
        result.outcome = RequestOutcome::InvalidRequest;
        result.reason = Tr::tr("{server}: the embedded fault server is not running");
        QMetaObject::invokeMethod(
            this, [this, result] { handleRequestFinished(result); }, Qt::QueuedConnection);
        return;
    }
    m_executor->submitAs(id, spec, &entry.policy);
}

void MonitorEngine::handleAttemptFinished(const AttemptRecord &record)
{
    const auto it = m_byRequest.constFind(record.requestId);
    if (it == m_byRequest.constEnd())
        return;
    Entry &entry = m_entries[static_cast<size_t>(*it)];
    entry.attempts.append(storedAttemptOf(record));
    if (m_metrics) {
        m_metrics->recordAttempt(entry.monitor.name, record.succeeded(), record.durationMs() / 1000.0);
        if (!record.tls.peerNotAfter.isEmpty()) {
            const QDateTime notAfter = QDateTime::fromString(record.tls.peerNotAfter, Qt::ISODate);
            if (notAfter.isValid())
                m_metrics->setCertificateExpiry(entry.monitor.name, notAfter.toSecsSinceEpoch());
        }
    }
    Q_EMIT attemptFinished(entry.monitor.name, record);
}

void MonitorEngine::handleRequestFinished(const RequestResult &result)
{
    const auto it = m_byRequest.constFind(result.requestId);
    if (it == m_byRequest.constEnd())
        return;
    const int index = *it;
    m_byRequest.erase(it);
    Entry &entry = m_entries[static_cast<size_t>(index)];
    entry.inFlight = false;
    ++m_checksFinished;

    StoredCheck check;
    check.monitor = entry.monitor.name;
    check.agent = m_agent;
    check.startMs = entry.startedMs;
    check.endMs = std::max(entry.startedMs, nowMs());
    check.success = result.outcome == RequestOutcome::Succeeded;
    check.maintenance = entry.monitor.inMaintenance(entry.startedMs);
    check.outcome = requestOutcomeName(result.outcome);
    check.finalStatus = result.finalStatus;
    if (!check.success)
        check.reason = result.reason;
    check.attempts = std::move(entry.attempts);
    entry.attempts = {};
    if (m_metrics)
        m_metrics->recordCheck(check.monitor, check.success, check.durationMs() / 1000.0);
    if (m_store)
        m_store->append(check);
    // A handler may remove, replace, pause or check the monitor: each bumps the
    // generation, and then this check schedules nothing (and a removed one feeds no state).
    const quint64 generation = entry.generation;
    const auto changed = [&] { return entry.retired || entry.generation != generation; };
    Q_EMIT checkFinished(check);
    trackIncidents(entry, check);

    if (!changed() && entry.machine.state() != MonitorState::Paused)
        applyChange(entry, entry.machine.checkFinished(check.success, check.maintenance, check.reason), check.endMs);
    if (entry.retired && !entry.inFlight && entry.generation == generation)
        release(index); // removed while its check ran; a slot freed from a handler is released already

    if (m_stopping) {
        finishStopping();
        return;
    }
    if (changed() || entry.machine.state() == MonitorState::Paused)
        return;
    scheduleNext(index);
    armTimer();
}

void MonitorEngine::trackIncidents(const Entry &entry, const StoredCheck &check)
{
    const IncidentTracker::Update update = m_incidents.checkFinished(check);
    for (const Incident &incident : update.ended) {
        Q_EMIT incidentEnded(incident);
        if (!incident.hidden)
            continue;
        AlertEvent event;
        event.kind = AlertEvent::Kind::HiddenIncident;
        event.monitor = incident.monitor;
        event.agent = incident.agent;
        event.atMs = incident.endMs.value_or(check.endMs);
        event.incidentStartMs = incident.startMs;
        event.incidentEndMs = incident.endMs.value_or(0);
        event.failedAttempts = static_cast<int>(incident.failedAttempts);
        event.retriedChecks = static_cast<int>(incident.checks);
        event.reason = Tr::tr("%1 checks succeeded only after %2 failed attempts; first error: %3")
                           .arg(incident.checks)
                           .arg(incident.failedAttempts)
                           .arg(incident.firstError);
        raise(entry, event);
    }
    if (update.opened)
        Q_EMIT incidentStarted(*update.opened);
}

void MonitorEngine::raise(const Entry &entry, const AlertEvent &event)
{
    if (m_alerts && !entry.monitor.alerts.isEmpty())
        m_alerts->raise(event, entry.monitor.alerts);
}

void MonitorEngine::applyChange(Entry &entry, const std::optional<MonitorStateMachine::Change> &change, qint64 atMs)
{
    if (!change)
        return;
    StateEvent event;
    event.monitor = entry.monitor.name;
    event.agent = m_agent;
    event.atMs = atMs;
    event.from = change->from;
    event.to = change->to;
    event.reason = change->reason;
    qCDebug(lcMonitorEngine) << entry.monitor.name << monitorStateName(change->from) << "->"
                             << monitorStateName(change->to) << change->reason;
    if (m_metrics)
        m_metrics->setState(event.monitor, monitorStateName(event.to));
    if (m_store)
        m_store->append(event);
    Q_EMIT stateChanged(event);
    raise(entry, AlertEvent::stateChange(event));
}

int MonitorEngine::indexOf(const QString &monitor) const
{
    return m_byName.value(monitor, -1);
}

bool MonitorEngine::pause(const QString &monitor)
{
    const int index = indexOf(monitor);
    if (index < 0)
        return false;
    Entry &entry = m_entries[static_cast<size_t>(index)];
    ++entry.generation;
    applyChange(entry, entry.machine.pause(), nowMs());
    return true;
}

bool MonitorEngine::resume(const QString &monitor)
{
    const int index = indexOf(monitor);
    if (index < 0)
        return false;
    Entry &entry = m_entries[static_cast<size_t>(index)];
    const auto change = entry.machine.resume();
    if (!change)
        return false;
    applyChange(entry, change, nowMs());
    if (m_running && !m_stopping && !entry.inFlight) {
        schedule(index, MonitorSchedule::nextDueMs(nowMs(), entry.intervalMs, entry.phaseMs));
        armTimer();
    }
    return true;
}

bool MonitorEngine::checkNow(const QString &monitor)
{
    const int index = indexOf(monitor);
    if (index < 0 || !m_running || m_stopping)
        return false;
    Entry &entry = m_entries[static_cast<size_t>(index)];
    if (entry.inFlight || entry.machine.state() == MonitorState::Paused)
        return false;
    startCheck(index, nowMs());
    return true;
}

MonitorState MonitorEngine::state(const QString &monitor) const
{
    const int index = indexOf(monitor);
    return index < 0 ? MonitorState::Pending : m_entries[static_cast<size_t>(index)].machine.state();
}

std::optional<qint64> MonitorEngine::nextDueMs(const QString &monitor) const
{
    const int index = indexOf(monitor);
    if (index < 0 || !m_running || m_stopping)
        return std::nullopt;
    const Entry &entry = m_entries[static_cast<size_t>(index)];
    if (entry.inFlight || entry.machine.state() == MonitorState::Paused || entry.dueMs < 0)
        return std::nullopt;
    return entry.dueMs;
}

QStringList MonitorEngine::monitorNames() const
{
    QStringList names;
    names.reserve(m_byName.size());
    for (const Entry &entry : m_entries) {
        if (!entry.retired)
            names.append(entry.monitor.name);
    }
    return names;
}

double MonitorEngine::latenessQuantileMs(double q) const
{
    if (m_late.empty())
        return 0.0;
    std::vector<float> sorted = m_late;
    const size_t at
        = std::min(sorted.size() - 1, static_cast<size_t>(std::ceil(std::clamp(q, 0.0, 1.0) * sorted.size())) - 1);
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(at), sorted.end());
    return sorted[at];
}

} // namespace RetryLab::Core
