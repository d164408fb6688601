#include "core/observe/observer.h"

#include "core/faultserver/faultendpoints.h"
#include "core/faultserver/faultserver.h"
#include "core/faultserver/requesttarget.h"
#include "core/http/redactor.h"
#include "core/http/serverlogentry.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"
#include "core/util/randomsource.h"

#include <QTimer>

#include <algorithm>

namespace RetryLab::Core {

namespace {

/// "127.0.0.1:53422" -> "127.0.0.1", "[::1]:5" -> "::1".
QStringView addressOf(const QString &peer)
{
    const qsizetype colon = peer.lastIndexOf(QLatin1Char(':'));
    if (colon > 0 && peer.indexOf(QLatin1Char(':')) == colon)
        return QStringView(peer).left(colon);
    if (peer.startsWith(QLatin1Char('[')) && colon > 0)
        return QStringView(peer).mid(1, peer.indexOf(QLatin1Char(']')) - 1);
    return peer;
}

/// Retry-After as delay-seconds, in ms; HTTP dates are not served by the plans.
std::optional<double> retryAfterMs(const QByteArray &value)
{
    bool ok = false;
    const qint64 seconds = value.trimmed().toLongLong(&ok);
    if (!ok || seconds < 0)
        return std::nullopt;
    return seconds * 1000.0;
}

// How often open logical requests are checked for a gap window that passed: a few times
// per window, so that one closes soon after its window ends, and at least once a second.
int idleCheckMs(double gapWindowMs)
{
    return static_cast<int>(std::clamp(gapWindowMs / 4.0, 20.0, 1000.0));
}

} // namespace

Observer::Observer(QObject *parent)
    : QObject(parent), m_plan(ObservationPlan::defaultPlan()), m_random(std::make_unique<RandomSource>()),
      m_idleTimer(new QTimer(this))
{
    qRegisterMetaType<ObservedAttempt>();
    m_idleTimer->setInterval(idleCheckMs(m_grouper.settings().gapWindowMs));
    connect(m_idleTimer, &QTimer::timeout, this, [this] { closeIdle(SteadyClock::instance().nowNs()); });
}

Observer::~Observer()
{
    attach(nullptr);
}

void Observer::attach(FaultServer *server)
{
    if (m_server) {
        m_server->setRequestHook({});
        disconnect(m_server, nullptr, this, nullptr);
    }
    m_server = server;
    // Only a live server's attempts are on the steady clock now: replayed logs are not.
    if (!server) {
        m_idleTimer->stop();
        return;
    }
    m_idleTimer->start();
    server->setRequestHook([this](const HttpRequest &request, ServerLogEntry &entry) {
        return observeRequest(entry, !FaultEndpoints::owns(RequestTarget(request)));
    });
    connect(server, &FaultServer::requestHandled, this, &Observer::observeAnswer);
}

FaultServer *Observer::server() const
{
    return m_server;
}

void Observer::setPlan(const ObservationPlan &plan)
{
    m_plan = plan;
}

void Observer::setGroupingSettings(AttemptGrouper::Settings settings)
{
    m_grouper.setSettings(settings);
    m_idleTimer->setInterval(idleCheckMs(settings.gapWindowMs));
}

void Observer::closeIdle(qint64 nowNs)
{
    if (m_originNs < 0)
        return;
    const double nowMs = static_cast<double>(nowNs - m_originNs) / 1e6;
    const double gapMs = m_grouper.settings().gapWindowMs;
    for (LogicalRequest &r : m_requests) {
        if (!r.closedBy.isEmpty() || r.attempts.isEmpty())
            continue;
        const ObservedAttempt &last = r.attempts.last();
        if (!last.complete || last.succeeded() || nowMs - last.endMs <= gapMs)
            continue;
        m_grouper.forget(r.id);
        closeRequest(r, QStringLiteral("gap"));
        Q_EMIT clientChanged(r.clientId);
    }
}

AttemptGrouper::Settings Observer::groupingSettings() const
{
    return m_grouper.settings();
}

void Observer::setSeed(quint64 seed)
{
    m_random->reseed(seed);
}

void Observer::setMaxLogicalRequests(int count)
{
    m_maxLogicalRequests = std::clamp(count, 1, 1'000'000);
    while (static_cast<int>(m_requests.size()) > m_maxLogicalRequests)
        dropOldest();
}

void Observer::setMaxClients(int count)
{
    m_maxClients = std::clamp(count, 1, 1'000'000);
    while (m_clients.size() > m_maxClients && !m_clientOrder.isEmpty()) {
        m_clients.remove(m_clientOrder.takeFirst());
        ++m_droppedClients;
    }
}

QList<ObservedClient> Observer::clients() const
{
    QList<ObservedClient> list;
    list.reserve(m_clientOrder.size());
    for (const QString &id : m_clientOrder)
        list.append(m_clients.value(id).info);
    return list;
}

std::optional<ObservedClient> Observer::client(const QString &clientId) const
{
    const auto found = m_clients.constFind(clientId);
    if (found == m_clients.cend())
        return std::nullopt;
    return found->info;
}

bool Observer::renameClient(const QString &clientId, const QString &name)
{
    const auto found = m_clients.find(clientId);
    if (found == m_clients.end())
        return false;
    found->info.name = name.trimmed().isEmpty() ? clientId : name.trimmed();
    Q_EMIT clientChanged(clientId);
    return true;
}

QList<LogicalRequest> Observer::logicalRequests(const QString &clientId) const
{
    QList<LogicalRequest> list;
    for (const LogicalRequest &r : m_requests) {
        if (r.clientId == clientId)
            list.append(r);
    }
    return list;
}

QList<LogicalRequest> Observer::allLogicalRequests() const
{
    return QList<LogicalRequest>(m_requests.begin(), m_requests.end());
}

InferredPolicy Observer::inferPolicy(const QString &clientId) const
{
    return PolicyInference::infer(logicalRequests(clientId));
}

QList<Verdict> Observer::verdicts(const QString &clientId) const
{
    const QList<LogicalRequest> requests = logicalRequests(clientId);
    return Judge::judge(requests, PolicyInference::infer(requests));
}

void Observer::clear()
{
    for (const LogicalRequest &r : m_requests)
        m_grouper.forget(r.id);
    m_requests.clear();
    m_clients.clear();
    m_clientOrder.clear();
    m_pending.clear();
    m_originNs = -1;
    m_finished = 0;
    m_totalAttempts = 0;
    m_dropped = 0;
    m_droppedClients = 0;
    Q_EMIT cleared();
}

void Observer::finish()
{
    for (LogicalRequest &r : m_requests) {
        if (!r.closedBy.isEmpty() || r.attempts.isEmpty() || !r.attempts.last().complete)
            continue;
        m_grouper.forget(r.id);
        closeRequest(r, QStringLiteral("end of observation"));
    }
}

const QString &Observer::addressFor(const QString &peer)
{
    // A client's connections come from one address: it is copied out of the peer only when
    // it differs from the last one's (once per observed request otherwise).
    const QStringView address = addressOf(peer);
    if (m_lastPeerAddress.isNull() || address != m_lastPeerAddress)
        m_lastPeerAddress = address.toString();
    return m_lastPeerAddress;
}

const QString &Observer::clientIdFor(const QString &userAgent, const QString &address)
{
    // Nearly every request comes from the client of the one before: its id is made once.
    if (m_lastClientId.isNull() || userAgent != m_lastAgent || address != m_lastAddress) {
        m_lastAgent = userAgent;
        m_lastAddress = address;
        m_lastClientId = ObservedClient::makeId(userAgent, address);
    }
    return m_lastClientId;
}

Observer::ClientState &Observer::clientFor(const QString &userAgent, const QString &address)
{
    const QString id = clientIdFor(userAgent, address);
    auto found = m_clients.find(id);
    if (found != m_clients.end())
        return *found;
    // The client seen first makes room: its logical requests age out as usual.
    while (m_clients.size() >= m_maxClients && !m_clientOrder.isEmpty()) {
        m_clients.remove(m_clientOrder.takeFirst());
        ++m_droppedClients;
    }
    ClientState state;
    state.info.id = id;
    state.info.name = id;
    state.info.userAgent = userAgent;
    state.info.address = address;
    found = m_clients.insert(id, state);
    m_clientOrder.append(id);
    Q_EMIT clientAdded(id);
    return *found;
}

LogicalRequest *Observer::find(quint64 logicalId)
{
    if (m_requests.empty() || logicalId < m_requests.front().id)
        return nullptr;
    const quint64 position = logicalId - m_requests.front().id;
    if (position >= m_requests.size())
        return nullptr;
    LogicalRequest &r = m_requests[position];
    return r.id == logicalId ? &r : nullptr;
}

const LogicalRequest *Observer::find(quint64 logicalId) const
{
    return const_cast<Observer *>(this)->find(logicalId);
}

void Observer::closeRequest(LogicalRequest &request, const QString &why)
{
    if (!request.closedBy.isEmpty())
        return;
    request.closedBy = why;
    ++m_finished;
    Q_EMIT logicalRequestClosed(request.id, request.clientId);
}

void Observer::dropOldest()
{
    if (m_requests.empty())
        return;
    const LogicalRequest &oldest = m_requests.front();
    m_grouper.forget(oldest.id);
    const auto client = m_clients.find(oldest.clientId);
    if (client != m_clients.end()) {
        --client->info.logicalRequests;
        client->info.attempts -= static_cast<int>(oldest.attempts.size());
        ++client->info.droppedLogicalRequests;
    }
    ++m_dropped;
    m_requests.pop_front();
}

FaultInstruction Observer::observeRequest(ServerLogEntry &entry, bool planApplies)
{
    if (m_originNs < 0)
        m_originNs = entry.receivedNs;
    ObservedAttempt a;
    a.time = entry.time;
    a.arrivalMs = static_cast<double>(entry.receivedNs - m_originNs) / 1e6;
    a.receivedNs = entry.receivedNs;
    a.address = addressFor(entry.peer);
    a.peer = entry.peer;
    // 60 KB User-Agents from 5,000 clients held 1.76 GiB: what names a client is cut.
    const QByteArray userAgent = entry.identityHeader("user-agent").value_or(QByteArray());
    a.userAgent = userAgent.size() > maxUserAgentChars
        ? QString::fromLatin1(userAgent.first(maxUserAgentChars)) + QStringLiteral("...")
        : QString::fromLatin1(userAgent);
    a.method = entry.method;
    a.target = Redactor().text(entry.target);
    a.bodyDigest = entry.bodyDigest;
    // Replayed logs may predate the digest: the target then stands for what arrived.
    a.requestDigest = entry.requestDigest.isEmpty()
        ? ServerLogEntry::requestDigestOf(entry.target.toUtf8(), entry.identityHeaders)
        : entry.requestDigest;
    const AttemptGrouper::Identity identity = AttemptGrouper::identify(entry.identityHeaders);
    a.retryKey = identity.key;
    a.sdkAttempt = identity.attempt;
    a.sdkMaxAttempts = identity.maxAttempts;

    ClientState &client = clientFor(a.userAgent, a.address);
    a.clientId = client.info.id;
    const AttemptGrouper::Decision d = m_grouper.assignIdentified(a, identity);
    for (const auto &[closedId, why] : d.closed) {
        if (LogicalRequest *closed = find(closedId))
            closeRequest(*closed, why);
    }
    if (d.newLogicalRequest) {
        LogicalRequest r;
        r.id = d.logicalId;
        r.clientId = a.clientId;
        r.rule = identity.key.isEmpty() && identity.rule != GroupingRule::GrpcPreviousAttempts
            ? GroupingRule::SameRequest
            : identity.rule;
        r.method = a.method;
        r.target = a.target;
        r.attempts.reserve(1); // the first attempt is moved straight in, not through a temporary
        m_requests.push_back(std::move(r));
        ++client.info.logicalRequests;
        while (static_cast<int>(m_requests.size()) > m_maxLogicalRequests)
            dropOldest();
    }
    LogicalRequest *request = find(d.logicalId);
    if (!request) // dropped at once: a limit of one and a flood
        return m_plan.stepFor(d.attemptIndex, *m_random);
    a.logicalId = d.logicalId;
    a.attemptIndex = d.attemptIndex;
    a.rule = d.newLogicalRequest ? GroupingRule::NewRequest : d.rule;
    a.ruleDetail = d.detail;
    if (!request->attempts.isEmpty() && request->attempts.last().complete)
        a.delayMs = std::max(0.0, a.arrivalMs - request->attempts.last().endMs);
    const FaultInstruction step = m_plan.stepFor(d.attemptIndex, *m_random);
    if (planApplies)
        a.planStep = step.toString();

    const quint64 tag = m_nextTag++;
    entry.hookTag = tag;
    m_pending.insert(tag, Pending{d.logicalId, request->attempts.size()});
    // Moved in and announced from there: a copy would cost more than the rest of filing it.
    request->attempts.append(std::move(a));
    ++client.info.attempts;
    ++m_totalAttempts;
    Q_EMIT attemptStarted(request->attempts.constLast());
    return step;
}

void Observer::observeAnswer(const ServerLogEntry &entry)
{
    if (entry.hookTag == 0) {
        // Not a request the hook saw: garbage or a malformed request counts against its sender.
        if (entry.action == QLatin1String("reject") || (entry.method.isEmpty() && entry.status)) {
            ClientState &client = clientFor(
                QString::fromLatin1(entry.identityHeader("user-agent").value_or(QByteArray())), addressFor(entry.peer));
            ++client.info.rejectedRequests;
            client.info.lastRejection = entry.detail;
            Q_EMIT clientChanged(client.info.id);
        }
        return;
    }
    const auto pending = m_pending.constFind(entry.hookTag);
    if (pending == m_pending.cend())
        return;
    const Pending p = *pending;
    m_pending.erase(pending);
    LogicalRequest *request = find(p.logicalId);
    if (!request || p.position >= request->attempts.size())
        return;
    ObservedAttempt &a = request->attempts[p.position];
    a.sequence = entry.sequence;
    a.complete = true;
    a.endMs = a.arrivalMs + entry.durationMs;
    a.action = entry.action;
    a.status = entry.status;
    a.target = entry.target;
    a.retryAfterMs = entry.retryAfter.isEmpty() ? std::nullopt : retryAfterMs(entry.retryAfter);
    const QString closedBy = m_grouper.complete(p.logicalId, a.succeeded(), a.endMs);
    const QString clientId = a.clientId;
    Q_EMIT attemptFinished(a);
    if (!closedBy.isEmpty()) {
        if (LogicalRequest *still = find(p.logicalId))
            closeRequest(*still, closedBy);
    }
    Q_EMIT clientChanged(clientId);
}

} // namespace RetryLab::Core
