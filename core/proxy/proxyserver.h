#pragma once

#include "core/http/serverlogentry.h"
#include "core/proxy/faultruleset.h"
#include "core/proxy/recording.h"

#include <QHash>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>
#include <QUrl>

#include <memory>

QT_BEGIN_NAMESPACE
class QAbstractSocket;
class QTcpServer;
class QTcpSocket;
QT_END_NAMESPACE

namespace RetryLab::Core {

class ProxyConnection;
class RecordingWriter;
class TcpLink;

/// How a ProxyServer listens and where it forwards. Validated by listen().
struct ProxyOptions
{
    /// Loopback by default; any other address needs allowNonLoopback.
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0; ///< 0: one the system chooses
    bool allowNonLoopback = false;
    /// Where requests go: http://host:port or https://host:port, with an
    /// optional path prefix that is put in front of every request's path.
    QUrl upstream;
    /// Send the client's Host header on as it came; by default it names the upstream.
    bool keepHost = false;
    /// Bytes of a response waiting for a slow client before the proxy stops
    /// reading from the upstream (back-pressure), per connection.
    qint64 maxBufferedBytes = 1024 * 1024;
    /// The same for all connections together: with many slow clients each may
    /// hold this divided by their number, when that is less than maxBufferedBytes
    /// (3,000 clients that never read held 3 GiB before).
    qint64 maxTotalBufferedBytes = 256 * 1024 * 1024;
    /// Bodies of answers being recorded, all connections together (setRecorder()).
    qint64 maxRecordingBytes = 256 * 1024 * 1024;
    /// A connection to the upstream that does not open within this is answered 504.
    int connectTimeoutMs = 10'000;
    /// A client connection with no request in progress is closed after this long.
    int idleTimeoutMs = 30'000;
    /// A request's header section must be complete this long after its first
    /// byte (100 ms-1 h), however it trickles in (slowloris): "408 Request
    /// Timeout" and a close otherwise. The same pace as the fault server's (RequestPace).
    int headerTimeoutMs = 10'000;
    /// A request body must arrive at this rate at least (bytes per second, 0:
    /// no minimum), measured over each period of headerTimeoutMs; slower gets 408.
    qint64 minBodyBytesPerSecond = 16 * 1024;
    /// Client connections at once (1-100000). At the limit a new client takes
    /// the place of the one that has waited longest without an exchange in
    /// progress; when every one is busy it gets "503 Service Unavailable".
    int maxConnections = 2048;
    /// Request bytes all client connections together may hold before their
    /// requests go upstream (64 KiB-64 GiB), as the fault server's limit: a
    /// client that would take more gets "503 Service Unavailable" and a close.
    /// Each connection holds at most one request body of 8 MiB being read, plus
    /// requests it pipelined.
    qint64 maxHeldBytes = 256 * 1024 * 1024;
    /// Credentials in targets are masked in the log, as the fault server's are.
    bool redactLog = true;
    /// A forward proxy (HTTP_PROXY) instead of a reverse one: no upstream; each
    /// request names its own (absolute-form "http://host/path"), and CONNECT
    /// opens a tunnel to host:port with faults at the connection level.
    bool forward = false;
    /// Ports a CONNECT may reach, besides any port of a loopback host; empty: any.
    QList<quint16> connectPorts{443, 8443};
    /// A forward proxy decrypts its CONNECT tunnels (TLS interception), so that the
    /// HTTP fault rules apply to the requests inside: it presents each client a
    /// certificate for the host it asked for, signed by this CA, which the client
    /// must trust; to the server it speaks TLS of its own, checking its certificate
    /// as always (caBundlePath). Only on purpose: what clients send passes in the clear here.
    bool intercept = false;
    QSslCertificate interceptCaCertificate;
    QSslKey interceptCaKey;
    /// A PEM file of CA certificates trusted for an https upstream in addition
    /// to the system's (a private CA, a test server's). Certificate errors are
    /// never ignored: they end the exchange with 502 and the reason.
    QString caBundlePath;
};

/// An HTTP/1.1 reverse proxy on loopback (or, with ProxyOptions::forward, a
/// forward proxy: see there): every request to its address goes to the upstream, and the upstream's answer comes back
/// as it arrives (status, headers, body; hop-by-hop headers dropped as RFC 9110 section 7.6.1 says; Content-Length and
/// chunked bodies streamed, never held whole; a slow client holds the upstream back instead of filling memory). Each
/// client connection has its own upstream connection, kept alive while both sides allow it; pipelined requests are
/// answered in order.
///
/// Fault rules (FaultRule, FaultRuleSet) apply to each request as it is taken
/// up; they can be replaced and switched at any time, and the next request
/// sees the change. What passed through is logged as the fault server logs
/// (ServerLogEntry): "forwarded", what a fault did ("fault-status", "reset",
/// "reset-after-headers", "empty", "stall", "broken-stream", "corrupt"), or why
/// the upstream gave no answer ("upstream-unreachable", "upstream-timeout",
/// "upstream-closed", "upstream-broken", "upstream-tls"), "reject" for a
/// malformed request and "client-closed".
class ProxyServer final : public QObject
{
    Q_OBJECT

public:
    explicit ProxyServer(const ProxyOptions &options, QObject *parent = nullptr);
    ~ProxyServer() override;

    /// Starts listening; false with errorString() on failure (no upstream, an
    /// upstream that is not http or https, a non-loopback address without
    /// allowNonLoopback, a CA bundle without a certificate, bind errors).
    bool listen();
    void close();
    bool isListening() const;
    QString errorString() const { return m_error; }
    /// "http://127.0.0.1:PORT".
    QUrl listenUrl() const;
    const ProxyOptions &options() const { return m_options; }
    /// Response bytes held now, all connections together: waiting for slow
    /// clients, and read from upstreams but not passed on yet.
    qint64 bufferedBytes() const;
    /// The certificates of options().caBundlePath, read by listen().
    const QList<QSslCertificate> &caCertificates() const { return m_caCertificates; }
    /// Requests sent to the upstream (those a fault answered locally are not).
    quint64 upstreamRequestCount() const { return m_upstreamRequests; }
    /// Client connections open now (CONNECT tunnels among them).
    int connectionCount() const { return int(m_connections.size() + m_tunnels.size()); }
    /// CONNECT tunnels open now.
    int tunnelCount() const { return int(m_tunnels.size()); }
    /// Why a forward proxy does not take up a request (empty: it does), and the status to answer.
    static std::pair<int, QString> forwardRefusal(const HttpRequest &request, const QList<quint16> &connectPorts);
    /// Connections closed to make room at the limit, and those refused with 503.
    quint64 evictedConnections() const { return m_evicted; }
    quint64 refusedConnections() const { return m_refused; }
    /// Response bytes one connection may hold for its client now: maxBufferedBytes,
    /// or less when many share maxTotalBufferedBytes (64 KiB at least).
    qint64 bufferLimitPerConnection() const;
    /// Request bytes the client connections hold now (ProxyOptions::maxHeldBytes).
    qint64 heldBytes() const { return m_heldBytes; }

    // --- recording
    /// Records every answer the upstream gives from now on into `writer` (not
    /// owned; nullptr stops): what a replay serves back (ReplayServer).
    void setRecorder(RecordingWriter *writer) { m_recorder = writer; }
    RecordingWriter *recorder() const { return m_recorder; }

    // --- faults
    /// Replaces the fault rules; they apply from the next request on.
    /// FaultRuleSet::setRules() says what `restart` keeps.
    void setFaultRules(const FaultRuleList &rules, bool restart = true);
    const QList<FaultRule> &faultRules() const { return m_faults.rules(); }
    /// Switches one rule by name (false when there is none) or all of them;
    /// the next request sees the change.
    bool setFaultEnabled(const QString &name, bool enabled);
    void setAllFaultsEnabled(bool enabled);
    void setFaultSeed(quint64 seed);
    FaultRuleSet::Counts faultCounts(qsizetype rule) const { return m_faults.counts(rule); }
    /// The rules, their state and counts (FaultRuleSet::stateJson()).
    QJsonObject faultState() const { return m_faults.stateJson(); }

Q_SIGNALS:
    /// One per request answered (or connection refused or cut off).
    void exchangeFinished(const RetryLab::Core::ServerLogEntry &entry);
    /// The rules changed, or one was switched on or off.
    void faultRulesChanged();
    /// An answer could not be written to the recording (the first of each kind of failure).
    void recordingFailed(const QString &error);

private:
    friend class ProxyConnection;
    void record(ServerLogEntry entry);
    /// At the connection limit: closes the connection that has waited longest
    /// without an exchange in progress; false when every one is busy.
    bool evictOne();
    /// Beyond the limit with nobody to evict: 503 with Retry-After, and a close.
    void refuseOverCapacity(QAbstractSocket *socket);
    /// Takes up an accepted client, or refuses it at the limit.
    void accept(QAbstractSocket *socket);
    void forget(ProxyConnection *connection);
    ProxyFault decideFault(const HttpRequest &request, const QString &peer);
    void faultExchangeEnded(const ProxyFault &fault, bool succeeded);
    void countUpstreamRequest() { ++m_upstreamRequests; }
    void recordExchange(const RecordedExchange &exchange);
    /// Answers being recorded hold their bodies until they end: all connections together
    /// at most maxRecordingBytes; false (record nothing more of it) beyond.
    bool reserveRecording(qint64 bytes);
    void releaseRecording(qint64 bytes) { m_recordingBytes -= bytes; }
    /// Takes over a client that asked for a CONNECT tunnel: the fault decided for
    /// it becomes toxics of the tunnel (TcpLink); `early` went with the request.
    void openTunnel(QTcpSocket *client, const HttpRequest &request, const ProxyFault &fault, ServerLogEntry entry,
        const QByteArray &early);
    /// The certificate and key the interception presents for `host`, made once per host
    /// (at most 1000 kept) and signed by the interception CA.
    Result<std::pair<QSslCertificate, QSslKey>> interceptCertificate(const QString &host);
    void adjustHeldBytes(qint64 delta) { m_heldBytes += delta; }

    ProxyOptions m_options;
    QTcpServer *m_tcp;
    QString m_error;
    QList<ProxyConnection *> m_connections;
    QList<TcpLink *> m_tunnels;
    QHash<QString, std::pair<QSslCertificate, QSslKey>> m_interceptCertificates;
    RecordingWriter *m_recorder = nullptr;
    qint64 m_recordingBytes = 0;
    QString m_lastRecordingError;
    quint64 m_sequence = 0;
    quint64 m_upstreamRequests = 0;
    quint64 m_evicted = 0;
    qint64 m_heldBytes = 0;
    quint64 m_refused = 0;
    FaultRuleSet m_faults;
    QList<QSslCertificate> m_caCertificates;
};

} // namespace RetryLab::Core
