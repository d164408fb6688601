#include "core/proxy/proxyserver.h"

#include "core/http/httpheaders.h"
#include "core/http/redactor.h"
#include "core/proxy/proxyconnection.h"
#include "core/proxy/tcplink.h"
#include "core/runtime/socketcontrol.h"
#include "core/tls/certificatefactory.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QPointer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include <malloc.h>

namespace {
Q_LOGGING_CATEGORY(lcProxy, "retrylab.proxy", QtInfoMsg)
} // namespace

namespace RetryLab::Core {

namespace {

// Makes the socket of each accepted client and hands it to the server at once. A reverse
// proxy's clients read unbuffered (SocketControl::unbufferedMode): the proxy reads each
// readable turn's bytes straight into its own buffer, one system call, where a QTcpSocket
// asks FIONREAD, reads into its buffer and copies out again. A forward proxy's stay
// QTcpSockets, which a CONNECT hands over to a tunnel (TcpLink); with interception
// QSslSockets, since the connection turns into TLS after its CONNECT.
class ProxyListener final : public QTcpServer
{
public:
    enum class Kind { Unbuffered, Buffered, Tls };
    ProxyListener(Kind kind, std::function<void(QAbstractSocket *)> accept, QObject *parent)
        : QTcpServer(parent), m_kind(kind), m_accept(std::move(accept))
    { }

protected:
    void incomingConnection(qintptr descriptor) override
    {
        QAbstractSocket *socket = nullptr;
        bool ok = false;
        switch (m_kind) {
        case Kind::Unbuffered:
            socket = new QAbstractSocket(QAbstractSocket::TcpSocket, this);
            ok = socket->setSocketDescriptor(
                descriptor, QAbstractSocket::ConnectedState, SocketControl::unbufferedMode);
            break;
        case Kind::Buffered:
            socket = new QTcpSocket(this);
            ok = socket->setSocketDescriptor(descriptor);
            break;
        case Kind::Tls:
            socket = new QSslSocket(this);
            ok = socket->setSocketDescriptor(descriptor);
            break;
        }
        if (!ok) {
            delete socket;
            return;
        }
        m_accept(socket);
    }

private:
    Kind m_kind;
    std::function<void(QAbstractSocket *)> m_accept;
};

ProxyListener::Kind listenerKind(const ProxyOptions &options)
{
    if (!options.forward)
        return ProxyListener::Kind::Unbuffered;
    return options.intercept ? ProxyListener::Kind::Tls : ProxyListener::Kind::Buffered;
}

} // namespace

ProxyServer::ProxyServer(const ProxyOptions &options, QObject *parent)
    : QObject(parent), m_options(options),
      m_tcp(new ProxyListener(
          listenerKind(options), [this](QAbstractSocket *socket) { accept(socket); }, this))
{
    qRegisterMetaType<ServerLogEntry>();
}

void ProxyServer::accept(QAbstractSocket *socket)
{
    // CONNECT tunnels count: each holds a client and an upstream as a connection does.
    if (m_connections.size() + m_tunnels.size() >= m_options.maxConnections && !evictOne()) {
        refuseOverCapacity(socket);
        return;
    }
    m_connections.append(new ProxyConnection(this, socket));
}

ProxyServer::~ProxyServer()
{
    close();
}

bool ProxyServer::listen()
{
    close();
    const QUrl &u = m_options.upstream;
    if (m_options.intercept && !m_options.forward) {
        m_error = Tr::tr("TLS interception is for a forward proxy; a reverse proxy's upstream is its own");
        return false;
    }
    if (m_options.intercept
        && (m_options.interceptCaCertificate.isNull() || m_options.interceptCaKey.isNull()
            || !CertificateFactory::keyMatches(m_options.interceptCaCertificate, m_options.interceptCaKey))) {
        m_error = Tr::tr("TLS interception needs a CA certificate and its private key");
        return false;
    }
    if (m_options.forward && !u.isEmpty()) {
        m_error = Tr::tr("a forward proxy has no upstream: each request names its own");
        return false;
    }
    if (!m_options.forward && (!u.isValid() || u.host().isEmpty())) {
        m_error = Tr::tr("the upstream \"%1\" is not a URL with a host").arg(u.toString());
        return false;
    }
    if (!m_options.forward && u.scheme() != QLatin1String("http") && u.scheme() != QLatin1String("https")) {
        m_error = Tr::tr("the upstream must be an http or https URL, not \"%1\"").arg(u.scheme());
        return false;
    }
    if (m_options.maxConnections < 1 || m_options.maxConnections > 100'000) {
        m_error = Tr::tr("the connection limit must be from 1 to 100000 (got %1)").arg(m_options.maxConnections);
        return false;
    }
    if (m_options.maxHeldBytes < 64 * 1024 || m_options.maxHeldBytes > 64LL * 1024 * 1024 * 1024) {
        m_error = Tr::tr("the limit of request bytes held must be from 64 KiB to 64 GiB (got %1 bytes)")
                      .arg(m_options.maxHeldBytes);
        return false;
    }
    if (m_options.headerTimeoutMs < 100 || m_options.headerTimeoutMs > 3'600'000) {
        m_error = Tr::tr("the header deadline must be from 100 ms to 1 h (got %1 ms)").arg(m_options.headerTimeoutMs);
        return false;
    }
    if (!m_options.address.isLoopback() && !m_options.allowNonLoopback) {
        m_error = Tr::tr("%1 is not a loopback address: anyone who reaches it could use the proxy; allow it on "
                         "purpose (--allow-non-loopback)")
                      .arg(m_options.address.toString());
        return false;
    }
    m_caCertificates.clear();
    if (!m_options.caBundlePath.isEmpty()) {
        m_caCertificates = QSslCertificate::fromPath(m_options.caBundlePath, QSsl::Pem);
        if (m_caCertificates.isEmpty()) {
            m_error
                = Tr::tr("the CA bundle %1 holds no PEM certificate (or cannot be read)").arg(m_options.caBundlePath);
            return false;
        }
    }
    // Qt's backlog of 50 left a burst of clients to the kernel's SYN retries, a second apart:
    // 3,000 took 11.6 s to be accepted. As the fault server: room for the connection limit.
    m_tcp->setListenBacklogSize(std::clamp(m_options.maxConnections, 50, 4096));
    if (!m_tcp->listen(m_options.address, m_options.port)) {
        m_error = Tr::tr("cannot listen on %1:%2: %3")
                      .arg(m_options.address.toString())
                      .arg(m_options.port)
                      .arg(m_tcp->errorString());
        return false;
    }
    m_error.clear();
    qCDebug(lcProxy).noquote() << "proxy" << listenUrl().toString() << "->" << u.toString();
    return true;
}

void ProxyServer::close()
{
    if (m_tcp->isListening())
        m_tcp->close();
    const QList<ProxyConnection *> connections = m_connections;
    m_connections.clear();
    for (ProxyConnection *c : connections) {
        c->abort();
        c->releaseHeldBytes();
        c->deleteLater();
    }
    const QList<TcpLink *> tunnels = std::exchange(m_tunnels, {});
    for (TcpLink *tunnel : tunnels) {
        tunnel->disconnect(this);
        tunnel->abortNow(QStringLiteral("proxy-closed"));
        tunnel->deleteLater();
    }
}

qint64 ProxyServer::bufferedBytes() const
{
    qint64 total = 0;
    for (const ProxyConnection *c : m_connections)
        total += c->bufferedBytes();
    for (const TcpLink *tunnel : m_tunnels)
        total += tunnel->bufferedBytes();
    return total;
}

bool ProxyServer::reserveRecording(qint64 bytes)
{
    if (m_recordingBytes + bytes > m_options.maxRecordingBytes)
        return false;
    m_recordingBytes += bytes;
    return true;
}

void ProxyServer::recordExchange(const RecordedExchange &exchange)
{
    if (!m_recorder)
        return;
    if (const auto written = m_recorder->append(exchange); !written && written.error() != m_lastRecordingError) {
        m_lastRecordingError = written.error();
        qCWarning(lcProxy).noquote() << "recording:" << written.error();
        Q_EMIT recordingFailed(written.error());
    }
}

Result<std::pair<QSslCertificate, QSslKey>> ProxyServer::interceptCertificate(const QString &host)
{
    using Made = Result<std::pair<QSslCertificate, QSslKey>>;
    if (const auto found = m_interceptCertificates.constFind(host); found != m_interceptCertificates.cend())
        return *found;
    CertificateRequest request;
    request.commonName = host;
    request.organization = QStringLiteral("RetryLab proxy (TLS interception)");
    const QHostAddress address(host);
    if (address.isNull())
        request.dnsNames << host;
    else
        request.ipAddresses << address;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    request.notBefore = now.addSecs(-3600);
    request.notAfter = now.addDays(30);
    const auto issued = CertificateFactory::issue(
        request, IssuedCertificate{m_options.interceptCaCertificate, m_options.interceptCaKey});
    if (!issued)
        return Made::failure(Tr::tr("no certificate for %1: %2").arg(host, issued.error()));
    if (m_interceptCertificates.size() >= 1000)
        m_interceptCertificates.clear();
    const std::pair made{issued->certificate, issued->privateKey};
    m_interceptCertificates.insert(host, made);
    return made;
}

std::pair<int, QString> ProxyServer::forwardRefusal(const HttpRequest &request, const QList<quint16> &connectPorts)
{
    if (request.method == "CONNECT") {
        const QByteArray host = FaultRuleSet::requestHost(request);
        const quint16 port = quint16(request.target.mid(request.target.lastIndexOf(':') + 1).toUInt());
        const QHostAddress address(QString::fromLatin1(host));
        const bool loopback = host == "localhost" || (!address.isNull() && address.isLoopback());
        if (loopback || connectPorts.isEmpty() || connectPorts.contains(port))
            return {0, {}};
        QStringList allowed;
        for (quint16 p : connectPorts)
            allowed << QString::number(p);
        return {403,
            Tr::tr("CONNECT to port %1 is not allowed: this proxy tunnels to ports %2 and to any port on loopback")
                .arg(port)
                .arg(allowed.join(QStringLiteral(", ")))};
    }
    if (!request.target.startsWith("http://") && !request.target.startsWith("https://")) {
        return {400,
            Tr::tr("this is a forward proxy: send absolute-form requests (GET http://host/path) or CONNECT host:port, "
                   "as clients do with HTTP_PROXY")};
    }
    const QUrl url(QString::fromLatin1(request.target));
    if (!url.isValid() || url.host().isEmpty())
        return {
            400, Tr::tr("the request target \"%1\" has no host").arg(QString::fromLatin1(request.target.left(200)))};
    return {0, {}};
}

void ProxyServer::openTunnel(QTcpSocket *client, const HttpRequest &request, const ProxyFault &fault,
    ServerLogEntry entry, const QByteArray &early)
{
    TcpLinkSettings settings;
    settings.proxyName = QStringLiteral("forward");
    const QByteArray authority = request.target;
    settings.upstreamHost = QString::fromLatin1(FaultRuleSet::requestHost(request));
    settings.upstreamPort = quint16(authority.mid(authority.lastIndexOf(':') + 1).toUInt());
    settings.maxBufferedBytes = bufferLimitPerConnection();
    settings.connectTimeoutMs = m_options.connectTimeoutMs;
    // The fault's effects inside the tunnel, as the TCP proxy's toxics.
    ToxicList toxics;
    QStringList notes;
    if (fault.delayBeforeResponseMs > 0) {
        Toxic latency;
        latency.name = QStringLiteral("latency");
        latency.type = Toxic::Type::Latency;
        latency.latencyMs = qint64(std::llround(fault.delayBeforeResponseMs));
        toxics << latency;
    }
    if (fault.bandwidthBytesPerS > 0) {
        Toxic bandwidth;
        bandwidth.name = QStringLiteral("bandwidth");
        bandwidth.type = Toxic::Type::Bandwidth;
        bandwidth.rateKBps = std::max<qint64>(1, (fault.bandwidthBytesPerS + 999) / 1000);
        toxics << bandwidth;
    }
    if (fault.outcome == ProxyFault::Outcome::Cut) {
        Toxic cut;
        cut.name = QStringLiteral("cut");
        cut.type = Toxic::Type::LimitData;
        cut.bytes = fault.cutAfterBytes;
        toxics << cut;
    }
    if (fault.outcome == ProxyFault::Outcome::Corrupt)
        notes << Tr::tr("corrupt does not apply inside a tunnel (its bytes are TLS): passed unchanged");
    const bool resetBefore
        = fault.outcome == ProxyFault::Outcome::Reset && fault.resetPoint == FaultRule::ResetPoint::BeforeHeaders;
    const bool resetAfter
        = fault.outcome == ProxyFault::Outcome::Reset && fault.resetPoint == FaultRule::ResetPoint::AfterHeaders;

    auto *tunnel = new TcpLink(this, client, settings, m_sequence + 1, m_sequence * 7919 + 13, toxics);
    m_tunnels << tunnel;
    QPointer<QTcpSocket> clientSocket = client;
    auto state = std::make_shared<ServerLogEntry>(std::move(entry));
    state->detail = notes.join(QStringLiteral("; "));
    connect(tunnel, &TcpLink::upstreamReady, this, [tunnel, clientSocket, state, resetBefore, resetAfter] {
        if (!clientSocket)
            return;
        if (resetBefore) {
            state->action = QStringLiteral("reset");
            tunnel->finish(QStringLiteral("reset"), {}, true);
            return;
        }
        state->status = 200;
        clientSocket->write("HTTP/1.1 200 Connection established\r\n\r\n");
        if (resetAfter) {
            clientSocket->flush();
            state->action = QStringLiteral("reset-after-headers");
            tunnel->finish(QStringLiteral("reset"), {}, true);
        }
    });
    connect(tunnel, &TcpLink::upstreamFailed, this, [clientSocket, state](const QString &end, const QString &why) {
        const int status = end == QLatin1String("upstream-timeout") ? 504 : 502;
        state->status = status;
        state->action = end == QLatin1String("upstream-timeout") ? end : QStringLiteral("upstream-unreachable");
        const QByteArray body = Tr::tr("the tunnel's upstream cannot be reached: %1").arg(why).toUtf8() + '\n';
        if (clientSocket) {
            clientSocket->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
                + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + QByteArray::number(body.size())
                + "\r\nConnection: close\r\n\r\n" + body);
        }
    });
    connect(tunnel, &TcpLink::ended, this, [this, tunnel, state, fault](const TcpLinkSummary &summary) {
        m_tunnels.removeOne(tunnel);
        tunnel->deleteLater();
        ServerLogEntry done = *state;
        if (done.action.isEmpty())
            done.action = summary.end == QLatin1String("limit_data") ? QStringLiteral("broken-stream")
                                                                     : QStringLiteral("tunnel");
        const QString bytes = Tr::tr("%1 bytes up, %2 down, %3")
                                  .arg(summary.bytesUpstream)
                                  .arg(summary.bytesDownstream)
                                  .arg(summary.end);
        QStringList detail;
        if (fault.any())
            detail << fault.describe();
        if (!done.detail.isEmpty())
            detail << done.detail;
        detail << bytes;
        if (!summary.detail.isEmpty() && done.status != 502 && done.status != 504)
            detail << summary.detail;
        done.detail = detail.join(QStringLiteral("; "));
        done.bytesSent = summary.bytesDownstream;
        done.durationMs = double(SteadyClock::instance().nowNs() - done.receivedNs) / 1e6;
        faultExchangeEnded(fault, done.status == 200 && done.action == QLatin1String("tunnel"));
        record(done);
    });
    tunnel->sendUpstreamFirst(early);
}

bool ProxyServer::isListening() const
{
    return m_tcp->isListening();
}

QUrl ProxyServer::listenUrl() const
{
    if (!m_tcp->isListening())
        return {};
    QHostAddress address = m_options.address;
    if (address == QHostAddress::Any || address == QHostAddress::AnyIPv4)
        address = QHostAddress(QHostAddress::LocalHost);
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(address.toString());
    url.setPort(m_tcp->serverPort());
    return url;
}

void ProxyServer::record(ServerLogEntry entry)
{
    entry.sequence = ++m_sequence;
    if (m_options.redactLog) {
        const Redactor redactor;
        entry.target = redactor.text(entry.target);
        entry.detail = redactor.text(entry.detail);
        if (!entry.identityHeaders.isEmpty()) { // begin() of an empty list would allocate one
            for (auto &[name, value] : entry.identityHeaders)
                value = redactor.headerValue(name, value);
        }
    }
    Q_EMIT exchangeFinished(entry);
}

namespace {
double nowMs()
{
    return double(SteadyClock::instance().nowNs()) / 1e6;
}
} // namespace

void ProxyServer::setFaultRules(const FaultRuleList &rules, bool restart)
{
    m_faults.setRules(rules, nowMs(), restart);
    Q_EMIT faultRulesChanged();
}

bool ProxyServer::setFaultEnabled(const QString &name, bool enabled)
{
    if (!m_faults.setEnabled(name, enabled))
        return false;
    Q_EMIT faultRulesChanged();
    return true;
}

void ProxyServer::setAllFaultsEnabled(bool enabled)
{
    m_faults.setAllEnabled(enabled);
    Q_EMIT faultRulesChanged();
}

void ProxyServer::setFaultSeed(quint64 seed)
{
    m_faults.reseed(seed);
}

ProxyFault ProxyServer::decideFault(const HttpRequest &request, const QString &peer)
{
    if (m_faults.rules().isEmpty())
        return {}; // what decide() says without rules, without reading the clock for it
    return m_faults.decide(request, peer, nowMs());
}

void ProxyServer::faultExchangeEnded(const ProxyFault &fault, bool succeeded)
{
    if (fault.logicalId != 0) // no rule grouped it (FaultRuleSet::complete() has nothing to do)
        m_faults.complete(fault.logicalId, succeeded, nowMs());
}

qint64 ProxyServer::bufferLimitPerConnection() const
{
    const qint64 share
        = m_options.maxTotalBufferedBytes / std::max<qsizetype>(1, m_connections.size() + m_tunnels.size());
    return std::clamp<qint64>(share, 64 * 1024, std::max<qint64>(64 * 1024, m_options.maxBufferedBytes));
}

bool ProxyServer::evictOne()
{
    ProxyConnection *victim = nullptr;
    for (ProxyConnection *c : std::as_const(m_connections)) {
        if (c->isEvictable() && (!victim || c->waitingSinceNs() < victim->waitingSinceNs()))
            victim = c;
    }
    if (!victim)
        return false;
    qCDebug(lcProxy) << "at the limit of" << m_options.maxConnections << "connections: the longest waiting goes";
    ++m_evicted;
    // Out of the count at once; it deletes itself once its client is gone (a 503 may still be on its way).
    m_connections.removeOne(victim);
    victim->evict();
    return true;
}

void ProxyServer::refuseOverCapacity(QAbstractSocket *socket)
{
    ++m_refused;
    const QByteArray body = Tr::tr("the proxy is at its limit of %1 connections, each with an exchange in progress\n")
                                .arg(m_options.maxConnections)
                                .toUtf8();
    socket->write("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"
                  "Content-Type: text/plain; charset=utf-8\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    socket->disconnectFromHost();
    connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
    if (socket->state() == QAbstractSocket::UnconnectedState)
        socket->deleteLater();
}

void ProxyServer::forget(ProxyConnection *connection)
{
    m_connections.removeOne(connection);
    connection->releaseHeldBytes();
    connection->deleteLater();
    // Thousands of clients that left keep their buffers' memory in the allocator's
    // free lists: returned to the system once nobody is connected.
    if (m_connections.isEmpty()) {
        QMetaObject::invokeMethod(
            this,
            [this] {
                if (m_connections.isEmpty())
                    ::malloc_trim(0);
            },
            Qt::QueuedConnection);
    }
}

} // namespace RetryLab::Core
