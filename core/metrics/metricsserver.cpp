#include "core/metrics/metricsserver.h"

#include "core/http/httpheaders.h"
#include "core/http/httprequestparser.h"
#include "core/http/requestpace.h"
#include "core/metrics/metricsregistry.h"
#include "core/metrics/prometheustext.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

Q_LOGGING_CATEGORY(lcMetricsServer, "retrylab.core.metricsserver")

namespace RetryLab::Core {

namespace {

// A scrape is a GET with a few headers: these bounds leave Prometheus (and
// curl) ample room and keep a garbage sender from holding much.
HttpRequestParser::Limits scrapeRequestLimits()
{
    HttpRequestParser::Limits limits;
    limits.maxHeaderBytes = 16 * 1024;
    limits.maxRequestLineBytes = 4 * 1024;
    limits.maxBodyBytes = 64 * 1024;
    limits.maxHeaderFields = 100;
    return limits;
}

// Qt reads no further ahead than this for us, and a client that pipelines
// scrapes without reading the answers is not read while this much of them waits.
constexpr qint64 scrapeReadBufferBytes = 64 * 1024;
constexpr qint64 scrapeMaxUnsentBytes = 4 * 1024 * 1024;
// A body must keep this pace; a scrape has none.
constexpr qint64 scrapeMinBodyBytesPerSecond = 1024;

QByteArray httpAnswer(int status, const QByteArray &contentType, const QByteArray &body, bool keepAlive,
    bool withBody = true, const QByteArray &extraHeaders = {})
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
        + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + QByteArray::number(body.size())
        + (keepAlive ? "\r\nConnection: keep-alive\r\n" : "\r\nConnection: close\r\n") + extraHeaders + "\r\n";
    if (withBody)
        out += body;
    return out;
}

QByteArray plainAnswer(int status, const QString &message, bool keepAlive, const QByteArray &extraHeaders = {})
{
    return httpAnswer(status, "text/plain; charset=utf-8", message.toUtf8() + '\n', keepAlive, true, extraHeaders);
}

bool isDecimalDigits(QStringView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), [](QChar c) {
        return c >= QLatin1Char('0') && c <= QLatin1Char('9');
    });
}

} // namespace

struct MetricsServer::Connection
{
    enum class Timing { Idle, Request };

    Connection(QTcpSocket *s, const Limits &limits)
        : socket(s), timer(new QTimer(s)), parser(scrapeRequestLimits()),
          pace(limits.requestTimeoutMs, scrapeMinBodyBytesPerSecond), idleTimeoutMs(limits.idleTimeoutMs)
    {
        timer->setSingleShot(true);
    }

    QTcpSocket *socket;
    QTimer *timer; ///< a child of the socket
    HttpRequestParser parser;
    RequestPace pace;
    int idleTimeoutMs;
    Timing timing = Timing::Idle;
    qint64 bytesReceived = 0;
    bool waitingForWrites = false; ///< answers pile up unread: the next request waits
    bool closing = false;
};

MetricsServer::MetricsServer(const MetricsRegistry *registry, QObject *parent)
    : QObject(parent), m_registry(registry), m_tcp(new QTcpServer(this))
{
    connect(m_tcp, &QTcpServer::newConnection, this, &MetricsServer::handleNewConnection);
}

MetricsServer::~MetricsServer() = default;

bool MetricsServer::listen(const QHostAddress &address, quint16 port, bool allowNonLoopback)
{
    close();
    if (address.isNull()) {
        m_error = Tr::tr("no address to listen on for the metrics");
        return false;
    }
    const bool loopback = address.isLoopback();
    if (!loopback && !allowNonLoopback) {
        m_error = Tr::tr("refusing to serve metrics on %1: it is not a loopback address, and anyone who reaches it "
                         "could read the monitors' names and health; allow non-loopback addresses explicitly "
                         "(--allow-non-loopback) to do so")
                      .arg(address.toString());
        return false;
    }
    if (!m_tcp->listen(address, port)) {
        m_error = Tr::tr("cannot listen for metrics on %1 port %2: %3")
                      .arg(address.toString())
                      .arg(port)
                      .arg(m_tcp->errorString());
        return false;
    }
    if (!loopback) {
        qCWarning(lcMetricsServer).noquote()
            << QStringLiteral("the metrics are served on %1, reachable from other machines").arg(address.toString());
    }
    m_error.clear();
    return true;
}

void MetricsServer::close()
{
    m_tcp->close();
    const QList<QTcpSocket *> sockets = m_tcp->findChildren<QTcpSocket *>(Qt::FindDirectChildrenOnly);
    for (QTcpSocket *socket : sockets) {
        socket->abort();
        socket->deleteLater();
    }
}

bool MetricsServer::isListening() const
{
    return m_tcp->isListening();
}

quint16 MetricsServer::serverPort() const
{
    return m_tcp->isListening() ? m_tcp->serverPort() : 0;
}

QHostAddress MetricsServer::serverAddress() const
{
    return m_tcp->isListening() ? m_tcp->serverAddress() : QHostAddress();
}

QUrl MetricsServer::url() const
{
    if (!m_tcp->isListening())
        return {};
    QHostAddress host = m_tcp->serverAddress();
    // A wildcard address is reached through loopback.
    if (host == QHostAddress(QHostAddress::Any) || host == QHostAddress(QHostAddress::AnyIPv4))
        host = QHostAddress(QHostAddress::LocalHost);
    else if (host == QHostAddress(QHostAddress::AnyIPv6))
        host = QHostAddress(QHostAddress::LocalHostIPv6);
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(host.toString());
    url.setPort(m_tcp->serverPort());
    url.setPath(QStringLiteral("/metrics"));
    return url;
}

void MetricsServer::handleNewConnection()
{
    while (QTcpSocket *socket = m_tcp->nextPendingConnection()) {
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        if (m_connectionCount >= m_limits.maxConnections) {
            qCDebug(lcMetricsServer) << "turning a connection away: already" << m_connectionCount << "open";
            socket->write(
                plainAnswer(503, Tr::tr("too many connections to the metrics server"), false, "Retry-After: 1\r\n"));
            socket->disconnectFromHost();
            // A client that never reads its 503 does not hold the descriptor for ever.
            QTimer::singleShot(m_limits.requestTimeoutMs, socket, &QTcpSocket::abort);
            continue;
        }
        ++m_connectionCount;
        connect(socket, &QObject::destroyed, this, [this] { --m_connectionCount; });
        socket->setReadBufferSize(scrapeReadBufferBytes);
        auto connection = std::make_shared<Connection>(socket, m_limits);
        connect(socket, &QTcpSocket::readyRead, socket, [this, connection] { serve(connection); });
        connect(socket, &QTcpSocket::bytesWritten, socket, [this, connection] {
            if (connection->waitingForWrites && !connection->closing
                && connection->socket->bytesToWrite() <= scrapeMaxUnsentBytes) {
                connection->waitingForWrites = false;
                serveParsed(connection, connection->parser.next());
                if (!connection->waitingForWrites && !connection->closing && connection->socket->bytesAvailable() > 0)
                    serve(connection);
            }
        });
        connect(connection->timer, &QTimer::timeout, socket, [this, connection] { handleTimeout(connection); });
        updateTimer(*connection);
    }
}

void MetricsServer::serve(const std::shared_ptr<Connection> &connection)
{
    if (connection->closing || connection->waitingForWrites)
        return;
    const QByteArray bytes = connection->socket->readAll();
    connection->bytesReceived += bytes.size();
    serveParsed(connection, connection->parser.feed(bytes));
}

void MetricsServer::serveParsed(const std::shared_ptr<Connection> &connection, HttpRequestParser::Status status)
{
    Connection &c = *connection;
    while (status == HttpRequestParser::Status::Complete) {
        const HttpRequest request = c.parser.takeRequest();
        c.pace.reset();
        bool keepAlive = false;
        c.socket->write(answer(request, &keepAlive));
        if (!keepAlive) {
            closeAfterAnswer(c);
            return;
        }
        if (c.socket->bytesToWrite() > scrapeMaxUnsentBytes) {
            // Resumed by bytesWritten, with the parser's next request.
            c.waitingForWrites = true;
            updateTimer(c);
            return;
        }
        status = c.parser.next();
    }
    if (status == HttpRequestParser::Status::Error) {
        qCDebug(lcMetricsServer) << "refusing a malformed request:" << c.parser.errorStatus() << c.parser.errorString();
        c.socket->write(plainAnswer(c.parser.errorStatus(), c.parser.errorString(), false));
        closeAfterAnswer(c);
        return;
    }
    if (c.parser.expectsContinue()) {
        c.socket->write("HTTP/1.1 100 Continue\r\n\r\n");
        c.parser.acknowledgeContinue();
    }
    updateTimer(c);
}

void MetricsServer::closeAfterAnswer(Connection &connection)
{
    connection.closing = true;
    connection.socket->disconnectFromHost();
    // The answer may never be read: the timer aborts what is left.
    connection.timer->start(connection.idleTimeoutMs);
}

void MetricsServer::updateTimer(Connection &c)
{
    if (c.closing)
        return;
    const bool partial = !c.waitingForWrites && c.parser.isPartial();
    if (!partial) {
        // Between requests, or waiting for the client to read: idle.
        c.timing = Connection::Timing::Idle;
        c.timer->start(c.idleTimeoutMs);
        return;
    }
    if (c.timing == Connection::Timing::Idle) {
        c.timer->stop();
        c.timing = Connection::Timing::Request;
    }
    switch (c.pace.afterRead(true, c.parser.isReadingBody(), c.bytesReceived, c.timer->isActive())) {
    case RequestPace::Timer::Stop:
        c.timer->stop();
        break;
    case RequestPace::Timer::Start:
        c.timer->start(c.pace.periodMs());
        break;
    case RequestPace::Timer::Keep:
        break;
    }
}

void MetricsServer::handleTimeout(const std::shared_ptr<Connection> &connection)
{
    Connection &c = *connection;
    if (c.closing || c.timing == Connection::Timing::Idle || c.waitingForWrites) {
        qCDebug(lcMetricsServer) << "closing an idle connection";
        c.socket->abort();
        c.socket->deleteLater();
        return;
    }
    if (const auto missed = c.pace.expired(c.parser.isReadingBody(), c.bytesReceived)) {
        c.socket->write(plainAnswer(408, *missed, false));
        closeAfterAnswer(c);
        return;
    }
    c.timer->start(c.pace.periodMs());
}

QByteArray MetricsServer::answer(const HttpRequest &request, bool *keepAlive) const
{
    *keepAlive = request.keepAlive;
    if (request.path != "/metrics")
        return plainAnswer(404, Tr::tr("not found: the metrics are at /metrics"), *keepAlive);
    const bool head = request.method == "HEAD";
    if (request.method != "GET" && !head) {
        return plainAnswer(405, Tr::tr("the metrics are read with GET (or HEAD)"), *keepAlive, "Allow: GET, HEAD\r\n");
    }
    return httpAnswer(200, PrometheusText::contentType, m_registry->exposition(), *keepAlive, !head);
}

Result<std::pair<QHostAddress, quint16>> MetricsServer::parseListen(const QString &text)
{
    using Parsed = Result<std::pair<QHostAddress, quint16>>;
    const QString given = text.trimmed();
    const auto fail = [&](const QString &why) {
        return Parsed::failure(Tr::tr("expected HOST:PORT, e.g. 127.0.0.1:9464, [::1]:9464 or localhost:9464; %1 "
                                      "(got \"%2\")")
                                   .arg(why, given.left(80)));
    };
    if (given.isEmpty())
        return fail(Tr::tr("the address is empty"));

    QString host;
    QString rest; // ":PORT", or what stands in its place
    bool bracketed = false;
    if (given.startsWith(QLatin1Char('['))) {
        const qsizetype close = given.indexOf(QLatin1Char(']'));
        if (close < 0)
            return fail(Tr::tr("the IPv6 address has no closing bracket"));
        host = given.mid(1, close - 1);
        rest = given.mid(close + 1);
        bracketed = true;
    } else {
        const qsizetype colon = given.lastIndexOf(QLatin1Char(':'));
        host = colon < 0 ? given : given.left(colon);
        rest = colon < 0 ? QString() : given.mid(colon);
        if (host.contains(QLatin1Char(':')))
            return fail(Tr::tr("an IPv6 address goes in brackets, as in [::1]:9464"));
    }
    if (!rest.startsWith(QLatin1Char(':')) || rest.size() == 1)
        return fail(Tr::tr("the port is missing"));
    const QStringView portText = QStringView(rest).mid(1);
    if (!isDecimalDigits(portText))
        return fail(Tr::tr("the port must be a number from 0 (any free port) to 65535"));
    bool ok = false;
    const uint port = portText.size() <= 5 ? portText.toUInt(&ok) : 0;
    if (!ok || port > 65535)
        return fail(Tr::tr("the port must be at most 65535"));
    if (host.isEmpty())
        return fail(Tr::tr("the host is missing"));

    QHostAddress address;
    if (!bracketed && host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0) {
        address = QHostAddress(QHostAddress::LocalHost);
    } else if (!address.setAddress(host) || (bracketed != (address.protocol() == QAbstractSocket::IPv6Protocol))) {
        return fail(bracketed
                ? Tr::tr("\"%1\" is not an IPv6 address").arg(host.left(80))
                : Tr::tr("\"%1\" is not an IPv4 address or localhost (no host name is looked up)").arg(host.left(80)));
    }
    return std::pair{address, quint16(port)};
}

} // namespace RetryLab::Core
