#pragma once

#include "core/http/serverlogentry.h"
#include "core/proxy/faultrule.h"
#include "core/proxy/tcplinksummary.h"
#include "core/proxy/toxic.h"
#include "core/util/result.h"

#include <QDateTime>
#include <QHostAddress>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QRandomGenerator64>
#include <QString>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QTcpServer;
QT_END_NAMESPACE

namespace RetryLab::Core {

class ProxyServer;
class TcpLink;

/// How a TcpProxy listens and where it connects. Validated by listen().
struct TcpProxyOptions
{
    QString name = QStringLiteral("tcp"); ///< toxiproxy's proxy name
    /// Loopback by default; any other address needs allowNonLoopback.
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0; ///< 0: one the system chooses
    bool allowNonLoopback = false;
    QString upstreamHost; ///< a name or an address
    quint16 upstreamPort = 0;
    /// Bytes one direction of a connection holds (waiting for a toxic's time or
    /// a slow reader) before the proxy stops reading from its sender.
    qint64 maxBufferedBytes = 1024 * 1024;
    /// A connection to the upstream that does not open within this is given up
    /// and the client's connection closed.
    int connectTimeoutMs = 10'000;
    /// Connections at once; further clients are closed at once.
    int maxConnections = 2048;

    /// "HOST:PORT" into upstreamHost and upstreamPort; errors name the text.
    Result<void> setUpstream(const QString &hostPort);
    /// "ADDRESS:PORT" (a name that is loopback, e.g. localhost, is allowed) into address and port.
    Result<void> setListen(const QString &addressPort);
    QString upstream() const;
};

/// A TCP proxy on loopback that passes bytes between its clients and one
/// upstream, with toxiproxy's toxics (Toxic) on the way: latency, bandwidth,
/// slow close, timeout, reset, slicer and limit data, each upstream or
/// downstream, each to a share of the connections. It knows nothing of the
/// protocol: Redis, PostgreSQL, HTTP, TLS all pass the same way.
///
/// Toxics can be added, changed and removed while connections are open; each
/// open connection draws whether a new toxic applies to it, as toxiproxy does.
/// Each direction of a connection holds at most maxBufferedBytes and stops
/// reading from its sender beyond that, so that memory stays bounded whatever
/// the toxics do.
class TcpProxy final : public QObject
{
    Q_OBJECT

public:
    explicit TcpProxy(const TcpProxyOptions &options, QObject *parent = nullptr);
    ~TcpProxy() override;

    /// Starts listening; false with errorString() on failure (no upstream, a
    /// non-loopback address without allowNonLoopback, bind errors).
    bool listen();
    /// Stops listening and closes every connection ("proxy-closed").
    void close();
    bool isListening() const;
    QString errorString() const { return m_error; }
    const TcpProxyOptions &options() const { return m_options; }
    QString name() const { return m_options.name; }
    /// "127.0.0.1:PORT" while listening (the port chosen when it was 0), else as configured.
    QString listenAddress() const;
    quint16 serverPort() const;

    /// toxiproxy's `enabled`: a disabled proxy does not listen and has closed its connections.
    bool isEnabled() const { return m_enabled; }
    /// Switches listening on or off; false with errorString() when it cannot listen.
    bool setEnabled(bool enabled);
    /// A new listen address or upstream; a listening proxy listens again
    /// (false with errorString() when it cannot; the old settings then stay).
    bool reconfigure(const TcpProxyOptions &options);

    // --- toxics
    const ToxicList &toxics() const { return m_toxics; }
    const Toxic *toxic(const QString &name) const;
    /// Adds a toxic; a name already taken is refused.
    Result<void> addToxic(const Toxic &toxic);
    /// Changes a toxic as toxiproxy's update does (Toxic::update()).
    Result<Toxic> updateToxic(const QString &name, const QJsonObject &changes);
    bool removeToxic(const QString &name);
    void removeAllToxics();
    /// Seed of the toxicity draws and of latency jitter and slice sizes.
    void setSeed(quint64 seed);

    // --- HTTP faults, for an upstream that speaks HTTP/1.1
    /// Puts a fault proxy (ProxyServer, on a loopback port of its own) between the
    /// toxics and the upstream, applying these rules to each request; an empty
    /// list takes it away. New connections go through it; open ones keep their way.
    /// False with the reason when it cannot listen.
    Result<void> setHttpFaultRules(const FaultRuleList &rules);
    /// The rules in force, and their counts (FaultRuleSet::stateJson()); empty without.
    QJsonObject httpFaultState() const;
    bool hasHttpFaults() const { return m_http != nullptr; }

    /// Connections open now, and accepted since it was made.
    int connectionCount() const { return int(m_links.size()); }
    quint64 acceptedCount() const { return m_accepted; }
    /// Bytes all connections hold now.
    qint64 bufferedBytes() const;

    /// toxiproxy's JSON of a proxy: name, listen, upstream, enabled, toxics.
    QJsonObject toJson() const;

Q_SIGNALS:
    void linkOpened(quint64 id, const QString &client);
    void linkClosed(const RetryLab::Core::TcpLinkSummary &summary);
    void toxicsChanged();
    /// One per HTTP exchange through the fault rules (setHttpFaultRules()).
    void httpExchangeFinished(const RetryLab::Core::ServerLogEntry &entry);

private:
    void accept();
    void closeAll(const QString &end);
    void linkEnded(TcpLink *link, const TcpLinkSummary &summary);
    void toxicsUpdated();

    TcpProxyOptions m_options;
    QTcpServer *m_tcp;
    QString m_error;
    bool m_enabled = true;
    ToxicList m_toxics;
    QList<TcpLink *> m_links;
    QRandomGenerator64 m_random;
    ProxyServer *m_http = nullptr; ///< the HTTP fault layer, when there are rules
    quint64 m_accepted = 0;
};

} // namespace RetryLab::Core
