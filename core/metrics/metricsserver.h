#pragma once

#include "core/http/httprequestparser.h"
#include "core/util/result.h"

#include <QHostAddress>
#include <QObject>
#include <QString>
#include <QUrl>

#include <memory>
#include <utility>

QT_BEGIN_NAMESPACE
class QTcpServer;
class QTcpSocket;
QT_END_NAMESPACE

namespace RetryLab::Core {

class MetricsRegistry;

/// The HTTP server Prometheus scrapes: GET (or HEAD) /metrics answers the
/// registry's exposition (text format 0.0.4); another path is 404, another
/// method 405. HTTP/1.1 keep-alive and pipelining, any number of scrapes at
/// once up to maxConnections. Requests are bounded (16 KiB of header section,
/// 64 KiB of body, complete within requestTimeoutMs of their first byte) and a
/// malformed one gets its 4xx and a close; an idle connection is closed after
/// idleTimeoutMs.
///
/// Loopback only unless the caller allows otherwise: the figures name the
/// monitors and their endpoints' health.
///
/// It renders the registry on its own thread (the one it lives in), while the
/// monitor engine updates the registry on another.
class MetricsServer final : public QObject
{
    Q_OBJECT

public:
    struct Limits
    {
        int maxConnections = 64; ///< more are answered 503 and closed
        int requestTimeoutMs = 10'000; ///< a request's header section must be complete this long after its first byte
        int idleTimeoutMs = 120'000; ///< a connection with no request in progress is closed after this long
    };

    /// `registry` must outlive the server.
    explicit MetricsServer(const MetricsRegistry *registry, QObject *parent = nullptr);
    ~MetricsServer() override;

    /// Takes effect for connections accepted afterwards.
    void setLimits(const Limits &limits) { m_limits = limits; }
    const Limits &limits() const { return m_limits; }

    /// Listens on `address` and `port` (0: a free port, see serverPort()).
    /// A non-loopback address (a wildcard included) is refused unless
    /// allowNonLoopback. False with errorString() when it cannot listen.
    bool listen(const QHostAddress &address, quint16 port, bool allowNonLoopback = false);
    /// Stops listening and closes every connection.
    void close();
    bool isListening() const;
    QString errorString() const { return m_error; }
    quint16 serverPort() const;
    QHostAddress serverAddress() const;
    /// "http://127.0.0.1:PORT/metrics" ("http://[::1]:PORT/metrics"); empty when not listening.
    QUrl url() const;
    /// Connections open now.
    int connectionCount() const { return m_connectionCount; }

    /// Reads the text of a --metrics-listen option, HOST:PORT: an IPv4
    /// address, an IPv6 address in brackets or "localhost" (127.0.0.1), and a
    /// port from 0 (any free port) to 65535: "127.0.0.1:9464", "[::1]:9464",
    /// "localhost:9464". Host names other than localhost are refused (no name
    /// is looked up).
    static Result<std::pair<QHostAddress, quint16>> parseListen(const QString &text);

private:
    struct Connection;

    void handleNewConnection();
    void serve(const std::shared_ptr<Connection> &connection);
    /// Answers the requests the connection's parser holds, from `status` on.
    void serveParsed(const std::shared_ptr<Connection> &connection, HttpRequestParser::Status status);
    void closeAfterAnswer(Connection &connection);
    void updateTimer(Connection &connection);
    void handleTimeout(const std::shared_ptr<Connection> &connection);
    /// The whole answer to one request, and whether the connection stays open.
    QByteArray answer(const HttpRequest &request, bool *keepAlive) const;

    const MetricsRegistry *m_registry;
    QTcpServer *m_tcp;
    Limits m_limits;
    int m_connectionCount = 0;
    QString m_error;
};

} // namespace RetryLab::Core
