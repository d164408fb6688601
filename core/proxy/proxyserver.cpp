#include "core/proxy/proxyserver.h"

#include "core/http/redactor.h"
#include "core/proxy/proxyconnection.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QTcpServer>
#include <QTcpSocket>

#include <algorithm>

#include <malloc.h>

namespace {
Q_LOGGING_CATEGORY(lcProxy, "retrylab.proxy", QtInfoMsg)
} // namespace

namespace RetryLab::Core {

ProxyServer::ProxyServer(const ProxyOptions &options, QObject *parent)
    : QObject(parent), m_options(options), m_tcp(new QTcpServer(this))
{
    qRegisterMetaType<ServerLogEntry>();
    connect(m_tcp, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_tcp->nextPendingConnection()) {
            if (m_connections.size() >= m_options.maxConnections && !evictOne()) {
                refuseOverCapacity(socket);
                continue;
            }
            m_connections.append(new ProxyConnection(this, socket));
        }
    });
}

ProxyServer::~ProxyServer()
{
    close();
}

bool ProxyServer::listen()
{
    close();
    const QUrl &u = m_options.upstream;
    if (!u.isValid() || u.host().isEmpty()) {
        m_error = Tr::tr("the upstream \"%1\" is not a URL with a host").arg(u.toString());
        return false;
    }
    if (u.scheme() != QLatin1String("http") && u.scheme() != QLatin1String("https")) {
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
}

qint64 ProxyServer::bufferedBytes() const
{
    qint64 total = 0;
    for (const ProxyConnection *c : m_connections)
        total += c->bufferedBytes();
    return total;
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
        for (auto &[name, value] : entry.identityHeaders)
            value = redactor.headerValue(name, value);
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
    return m_faults.decide(request, peer, nowMs());
}

void ProxyServer::faultExchangeEnded(const ProxyFault &fault, bool succeeded)
{
    m_faults.complete(fault.logicalId, succeeded, nowMs());
}

qint64 ProxyServer::bufferLimitPerConnection() const
{
    const qint64 share = m_options.maxTotalBufferedBytes / std::max<qsizetype>(1, m_connections.size());
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

void ProxyServer::refuseOverCapacity(QTcpSocket *socket)
{
    ++m_refused;
    const QByteArray body = Tr::tr("the proxy is at its limit of %1 connections, each with an exchange in progress\n")
                                .arg(m_options.maxConnections)
                                .toUtf8();
    socket->write("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"
                  "Content-Type: text/plain; charset=utf-8\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    socket->disconnectFromHost();
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
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
