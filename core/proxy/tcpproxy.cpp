#include "core/proxy/tcpproxy.h"

#include "core/proxy/proxyserver.h"
#include "core/proxy/tcplink.h"
#include "core/util/coretr.h"

#include <QHostInfo>
#include <QJsonArray>
#include <QTcpServer>
#include <QTcpSocket>

namespace RetryLab::Core {

namespace {

// "host:port", "[v6]:port"; the port 1-65535 (or 0 when `zeroPort`).
Result<std::pair<QString, quint16>> splitHostPort(const QString &text, const QString &what, bool zeroPort)
{
    using Split = Result<std::pair<QString, quint16>>;
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    bool ok = false;
    const uint port = colon > 0 ? text.mid(colon + 1).toUInt(&ok) : 0;
    QString host = text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    if (colon <= 0 || !ok || port > 65535 || (port == 0 && !zeroPort) || host.isEmpty()
        || host.contains(QLatin1Char(' '))) {
        return Split::failure(Tr::tr("%1 needs HOST:PORT, e.g. 127.0.0.1:6379 (got \"%2\")").arg(what, text.left(200)));
    }
    return std::pair{host, quint16(port)};
}

QString hostPort(const QString &host, quint16 port)
{
    return host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2").arg(host).arg(port)
                                           : QStringLiteral("%1:%2").arg(host).arg(port);
}

} // namespace

Result<void> TcpProxyOptions::setUpstream(const QString &text)
{
    const auto split = splitHostPort(text, Tr::tr("the upstream"), false);
    if (!split)
        return split.errorDetail();
    upstreamHost = split->first;
    upstreamPort = split->second;
    return {};
}

Result<void> TcpProxyOptions::setListen(const QString &text)
{
    const auto split = splitHostPort(text, Tr::tr("the listen address"), true);
    if (!split)
        return split.errorDetail();
    QHostAddress parsed(split->first);
    if (parsed.isNull()) {
        if (split->first.compare(QLatin1String("localhost"), Qt::CaseInsensitive) != 0) {
            return Result<void>::failure(Tr::tr("the listen address must be an IP address or localhost (got \"%1\")")
                                             .arg(split->first.left(100)));
        }
        parsed = QHostAddress(QHostAddress::LocalHost);
    }
    address = parsed;
    port = split->second;
    return {};
}

QString TcpProxyOptions::upstream() const
{
    return hostPort(upstreamHost, upstreamPort);
}

TcpProxy::TcpProxy(const TcpProxyOptions &options, QObject *parent)
    : QObject(parent), m_options(options), m_tcp(new QTcpServer(this)), m_random(QRandomGenerator64::securelySeeded())
{
    connect(m_tcp, &QTcpServer::newConnection, this, &TcpProxy::accept);
}

TcpProxy::~TcpProxy()
{
    // The links are children; they go without reporting to a proxy being destroyed.
    const QList<TcpLink *> links = std::exchange(m_links, {});
    qDeleteAll(links);
}

bool TcpProxy::listen()
{
    if (m_tcp->isListening())
        return true;
    if (m_options.upstreamHost.isEmpty() || m_options.upstreamPort == 0) {
        m_error = Tr::tr("no upstream: give HOST:PORT of the service to forward to");
        return false;
    }
    if (!m_options.address.isLoopback() && !m_options.allowNonLoopback) {
        m_error = Tr::tr("%1 is not a loopback address; other machines could reach the proxy (allow it explicitly)")
                      .arg(m_options.address.toString());
        return false;
    }
    if (!m_tcp->listen(m_options.address, m_options.port)) {
        m_error = Tr::tr("cannot listen on %1: %2")
                      .arg(hostPort(m_options.address.toString(), m_options.port), m_tcp->errorString());
        return false;
    }
    // Switched off and on again, it listens where it did (toxiproxy's proxies keep their address).
    m_options.port = m_tcp->serverPort();
    m_error.clear();
    m_enabled = true;
    return true;
}

void TcpProxy::close()
{
    if (m_tcp->isListening())
        m_tcp->close();
    closeAll(QStringLiteral("proxy-closed"));
}

bool TcpProxy::isListening() const
{
    return m_tcp->isListening();
}

quint16 TcpProxy::serverPort() const
{
    return m_tcp->isListening() ? m_tcp->serverPort() : m_options.port;
}

QString TcpProxy::listenAddress() const
{
    return hostPort(m_options.address.toString(), serverPort());
}

bool TcpProxy::setEnabled(bool enabled)
{
    if (enabled == m_enabled && enabled == m_tcp->isListening())
        return true;
    if (!enabled) {
        m_enabled = false;
        m_tcp->close();
        closeAll(QStringLiteral("disabled"));
        return true;
    }
    return listen();
}

bool TcpProxy::reconfigure(const TcpProxyOptions &options)
{
    const TcpProxyOptions old = m_options;
    const bool wasListening = m_tcp->isListening();
    // A port of 0 keeps the one chosen before.
    const bool moved = options.address != old.address || (options.port != 0 && options.port != serverPort());
    TcpProxyOptions next = options;
    if (!moved && wasListening)
        next.port = m_tcp->serverPort();
    m_options = next;
    if (m_http && (old.upstreamHost != next.upstreamHost || old.upstreamPort != next.upstreamPort)) {
        // The HTTP fault layer calls the new upstream, with the same rules.
        FaultRuleList rules;
        rules.rules = m_http->faultRules();
        delete std::exchange(m_http, nullptr);
        setHttpFaultRules(rules);
    }
    if (!wasListening || !moved)
        return true;
    m_tcp->close();
    if (listen())
        return true;
    const QString error = m_error;
    m_options = old;
    listen();
    m_error = error;
    return false;
}

const Toxic *TcpProxy::toxic(const QString &name) const
{
    for (const Toxic &toxic : m_toxics) {
        if (toxic.name == name)
            return &toxic;
    }
    return nullptr;
}

Result<void> TcpProxy::addToxic(const Toxic &toxic)
{
    if (this->toxic(toxic.name))
        return Result<void>::failure(QStringLiteral("name"), Tr::tr("toxic already exists: %1").arg(toxic.name));
    if (m_toxics.size() >= 100)
        return Result<void>::failure(Tr::tr("a proxy takes at most 100 toxics"));
    m_toxics << toxic;
    toxicsUpdated();
    return {};
}

Result<Toxic> TcpProxy::updateToxic(const QString &name, const QJsonObject &changes)
{
    for (Toxic &toxic : m_toxics) {
        if (toxic.name != name)
            continue;
        if (const auto updated = toxic.update(changes); !updated)
            return updated.errorDetail();
        toxicsUpdated();
        return toxic;
    }
    return Result<Toxic>::failure(Tr::tr("toxic not found: %1").arg(name));
}

bool TcpProxy::removeToxic(const QString &name)
{
    const qsizetype removed = m_toxics.removeIf([&](const Toxic &toxic) { return toxic.name == name; });
    if (removed > 0)
        toxicsUpdated();
    return removed > 0;
}

void TcpProxy::removeAllToxics()
{
    if (m_toxics.isEmpty())
        return;
    m_toxics.clear();
    toxicsUpdated();
}

void TcpProxy::setSeed(quint64 seed)
{
    m_random.seed(seed);
}

Result<void> TcpProxy::setHttpFaultRules(const FaultRuleList &rules)
{
    if (rules.rules.isEmpty()) {
        delete std::exchange(m_http, nullptr);
        return {};
    }
    if (!m_http) {
        ProxyOptions options;
        options.upstream.setScheme(QStringLiteral("http"));
        options.upstream.setHost(m_options.upstreamHost);
        options.upstream.setPort(m_options.upstreamPort);
        options.keepHost = true; // the client named the host it meant
        auto *http = new ProxyServer(options, this);
        if (!http->listen()) {
            const QString why = http->errorString();
            delete http;
            return Result<void>::failure(Tr::tr("the HTTP fault layer cannot start: %1").arg(why));
        }
        connect(http, &ProxyServer::exchangeFinished, this, &TcpProxy::httpExchangeFinished);
        m_http = http;
    }
    FaultRuleList seeded = rules;
    if (!seeded.seed)
        seeded.seed = m_random.generate64() >> 1;
    m_http->setFaultRules(seeded);
    return {};
}

QJsonObject TcpProxy::httpFaultState() const
{
    return m_http ? m_http->faultState() : QJsonObject();
}

qint64 TcpProxy::bufferedBytes() const
{
    qint64 total = 0;
    for (const TcpLink *link : m_links)
        total += link->bufferedBytes();
    return total;
}

QJsonObject TcpProxy::toJson() const
{
    QJsonArray toxics;
    for (const Toxic &toxic : m_toxics)
        toxics.append(toxic.toJson());
    return {
        {QStringLiteral("name"), m_options.name},
        {QStringLiteral("listen"), listenAddress()},
        {QStringLiteral("upstream"), m_options.upstream()},
        {QStringLiteral("enabled"), m_enabled},
        {QStringLiteral("toxics"), toxics},
    };
}

void TcpProxy::accept()
{
    while (QTcpSocket *client = m_tcp->nextPendingConnection()) {
        const quint64 id = ++m_accepted;
        if (m_links.size() >= m_options.maxConnections) {
            TcpLinkSummary summary;
            summary.id = id;
            summary.proxy = m_options.name;
            summary.client = client->peerAddress().toString() + QLatin1Char(':') + QString::number(client->peerPort());
            summary.started = QDateTime::currentDateTimeUtc();
            summary.end = QStringLiteral("over-capacity");
            summary.detail = Tr::tr("%1 connections open already").arg(m_links.size());
            client->abort();
            client->deleteLater();
            Q_EMIT linkClosed(summary);
            continue;
        }
        TcpLinkSettings settings;
        settings.proxyName = m_options.name;
        settings.upstreamHost = m_options.upstreamHost;
        settings.upstreamPort = m_options.upstreamPort;
        if (m_http) {
            // The toxics act between the client and the HTTP fault layer, which calls the upstream.
            settings.upstreamHost = QStringLiteral("127.0.0.1");
            settings.upstreamPort = quint16(m_http->listenUrl().port());
        }
        settings.maxBufferedBytes = m_options.maxBufferedBytes;
        settings.connectTimeoutMs = m_options.connectTimeoutMs;
        auto *link = new TcpLink(this, client, settings, id, m_random.generate64(), m_toxics);
        connect(link, &TcpLink::ended, this, [this, link](const TcpLinkSummary &summary) { linkEnded(link, summary); });
        m_links << link;
        Q_EMIT linkOpened(
            id, client->peerAddress().toString() + QLatin1Char(':') + QString::number(client->peerPort()));
    }
}

void TcpProxy::closeAll(const QString &end)
{
    const QList<TcpLink *> links = m_links;
    for (TcpLink *link : links)
        link->abortNow(end);
}

void TcpProxy::linkEnded(TcpLink *link, const TcpLinkSummary &summary)
{
    if (!m_links.removeOne(link))
        return;
    link->deleteLater();
    Q_EMIT linkClosed(summary);
}

void TcpProxy::toxicsUpdated()
{
    for (TcpLink *link : m_links)
        link->setToxics(m_toxics);
    Q_EMIT toxicsChanged();
}

} // namespace RetryLab::Core
