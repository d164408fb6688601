#include "core/proxy/proxyconnection.h"

#include "core/faultserver/socketcontrol.h"
#include "core/http/httpheaders.h"
#include "core/proxy/proxyserver.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

namespace RetryLab::Core {

namespace {

/// Upstream reads happen in pieces of this size, so that a fast upstream
/// cannot make one read hold a whole large body.
constexpr qint64 readPieceBytes = 64 * 1024;

/// Hop-by-hop fields (RFC 9110 section 7.6.1), and those the Connection field names.
bool isHopByHop(const QByteArray &name, const QList<QByteArray> &named)
{
    static const QList<QByteArray> fixed{"connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade",
        "proxy-authenticate", "proxy-authorization"};
    const QByteArray lower = name.toLower();
    return fixed.contains(lower) || named.contains(lower);
}

QList<QByteArray> connectionOptions(const HeaderList &headers)
{
    QList<QByteArray> named;
    for (const auto &[name, value] : headers) {
        if (name.compare("Connection", Qt::CaseInsensitive) != 0)
            continue;
        for (const QByteArray &option : value.split(','))
            named.append(option.trimmed().toLower());
    }
    return named;
}

QString addressOf(const QTcpSocket *socket)
{
    QHostAddress address = socket->peerAddress();
    bool ok = false;
    const QHostAddress v4(address.toIPv4Address(&ok));
    if (ok)
        address = v4;
    return address.toString();
}

} // namespace

ProxyConnection::ProxyConnection(ProxyServer *server, QTcpSocket *client)
    : QObject(server), m_server(server), m_client(client), m_connectTimer(new QTimer(this)),
      m_idleTimer(new QTimer(this))
{
    client->setParent(this);
    m_peer = QStringLiteral("%1:%2").arg(addressOf(client)).arg(client->peerPort());
    m_connectTimer->setSingleShot(true);
    m_idleTimer->setSingleShot(true);
    connect(m_connectTimer, &QTimer::timeout, this, [this] {
        upstreamFailed(
            Tr::tr("the upstream did not accept a connection within %1 ms").arg(m_server->options().connectTimeoutMs),
            504, QStringLiteral("upstream-timeout"));
    });
    connect(m_idleTimer, &QTimer::timeout, this, [this] {
        if (!m_busy && m_client)
            m_client->disconnectFromHost();
    });
    connect(client, &QTcpSocket::readyRead, this, &ProxyConnection::readClient);
    connect(client, &QTcpSocket::bytesWritten, this, &ProxyConnection::clientWrote);
    connect(client, &QTcpSocket::disconnected, this, &ProxyConnection::clientGone);
    m_idleTimer->start(m_server->options().idleTimeoutMs);
}

ProxyConnection::~ProxyConnection() = default;

void ProxyConnection::abort()
{
    if (m_upstream)
        m_upstream->abort();
    if (m_client)
        m_client->abort();
}

qint64 ProxyConnection::bufferedBytes() const
{
    return (m_client ? m_client->bytesToWrite() : 0) + (m_upstream ? m_upstream->bytesAvailable() : 0);
}

QByteArray ProxyConnection::upstreamRequest(
    const HttpRequest &r, const QUrl &upstream, bool keepHost, const QString &clientAddress)
{
    QByteArray target = r.target;
    if (target.startsWith("http://") || target.startsWith("https://")) // absolute-form: the path is what counts
        target = r.path + (r.query.isEmpty() ? QByteArray() : "?" + r.query);
    QByteArray prefix = upstream.path(QUrl::FullyEncoded).toLatin1();
    if (prefix.endsWith('/'))
        prefix.chop(1);
    QByteArray out = r.method + ' ' + prefix + target + " HTTP/1.1\r\n";
    const QList<QByteArray> named = connectionOptions(r.headers);
    bool hostSent = false;
    for (const auto &[name, value] : r.headers) {
        if (isHopByHop(name, named) || name.compare("Content-Length", Qt::CaseInsensitive) == 0
            || name.compare("Transfer-Encoding", Qt::CaseInsensitive) == 0
            || name.compare("Expect", Qt::CaseInsensitive) == 0
            || name.compare("X-Forwarded-For", Qt::CaseInsensitive) == 0)
            continue;
        if (name.compare("Host", Qt::CaseInsensitive) == 0) {
            if (!keepHost)
                continue;
            hostSent = true;
        }
        out += name + ": " + value + "\r\n";
    }
    if (!hostSent) {
        const int defaultPort = upstream.scheme() == QLatin1String("https") ? 443 : 80;
        QByteArray host = upstream.host(QUrl::FullyEncoded).toLatin1();
        if (host.contains(':'))
            host = '[' + host + ']';
        if (upstream.port(defaultPort) != defaultPort)
            host += ':' + QByteArray::number(upstream.port(defaultPort));
        out += "Host: " + host + "\r\n";
    }
    const QByteArray forwarded = headerValue(r.headers, "X-Forwarded-For").value_or(QByteArray());
    out += "X-Forwarded-For: " + (forwarded.isEmpty() ? QByteArray() : forwarded + ", ") + clientAddress.toLatin1()
        + "\r\n";
    out += "Via: 1." + QByteArray::number(r.minorVersion) + " retrylab\r\n";
    if (!r.body.isEmpty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH")
        out += "Content-Length: " + QByteArray::number(r.body.size()) + "\r\n";
    out += "\r\n";
    out += r.body;
    return out;
}

QByteArray ProxyConnection::clientHead(const HttpResponseStream::Head &head, bool close, bool clientIsHttp10)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(head.status) + ' '
        + (head.reason.isEmpty() ? reasonPhrase(head.status) : head.reason) + "\r\n";
    const QList<QByteArray> named = connectionOptions(head.headers);
    for (const auto &[name, value] : head.headers) {
        if (isHopByHop(name, named))
            continue;
        out += name + ": " + value + "\r\n";
    }
    if (close)
        out += "Connection: close\r\n";
    else if (clientIsHttp10)
        out += "Connection: keep-alive\r\n";
    out += "\r\n";
    return out;
}

qint64 ProxyConnection::writeClient(const QByteArray &bytes)
{
    if (!m_client || bytes.isEmpty())
        return 0;
    const qint64 written = m_client->write(bytes);
    if (written > 0)
        m_bytesToClient += written;
    return written;
}

void ProxyConnection::readClient()
{
    if (!m_client)
        return;
    const QByteArray bytes = m_client->readAll();
    HttpRequestParser::Status status = m_parser.feed(bytes);
    while (status == HttpRequestParser::Status::Complete) {
        m_queue.append(m_parser.takeRequest());
        status = m_parser.next();
    }
    if (status == HttpRequestParser::Status::Error && !m_busy && m_queue.isEmpty()) {
        m_entry = ServerLogEntry{};
        m_entry.time = QDateTime::currentDateTimeUtc();
        m_entry.peer = m_peer;
        m_entry.receivedNs = SteadyClock::instance().nowNs();
        m_startNs = m_entry.receivedNs;
        m_busy = true;
        answerLocally(m_parser.errorStatus(), m_parser.errorString(), QStringLiteral("reject"));
        return;
    }
    if (m_parser.expectsContinue()) {
        m_client->write("HTTP/1.1 100 Continue\r\n\r\n");
        m_parser.acknowledgeContinue();
    }
    pump();
}

void ProxyConnection::pump()
{
    if (m_busy || m_queue.isEmpty() || !m_client)
        return;
    m_idleTimer->stop();
    m_busy = true;
    m_request = m_queue.takeFirst();
    m_headSent = false;
    m_paused = false;
    m_bytesToClient = 0;
    m_closeAfter = !m_request.keepAlive;
    m_stream.reset();
    m_stream.setRequestMethod(m_request.method);
    m_startNs = SteadyClock::instance().nowNs();
    m_entry = ServerLogEntry{};
    m_entry.time = QDateTime::currentDateTimeUtc();
    m_entry.peer = m_peer;
    m_entry.method = m_request.method;
    m_entry.target = QString::fromUtf8(m_request.target);
    m_entry.receivedNs = m_startNs;
    for (const auto &[name, value] : m_request.headers) {
        const QByteArray lower = name.toLower();
        if (ServerLogEntry::identityHeaderNames().contains(lower))
            m_entry.identityHeaders.append({lower, value});
    }
    if (!m_request.body.isEmpty())
        m_entry.bodyDigest = QCryptographicHash::hash(m_request.body, QCryptographicHash::Sha256).toHex().left(16);

    if (m_upstream && m_upstream->state() == QAbstractSocket::ConnectedState)
        sendRequest();
    else
        connectUpstream();
}

void ProxyConnection::connectUpstream()
{
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
        m_upstream->deleteLater();
    }
    const QUrl &upstream = m_server->options().upstream;
    const bool tls = upstream.scheme() == QLatin1String("https");
    QTcpSocket *socket = tls ? new QSslSocket(this) : new QTcpSocket(this);
    m_upstream = socket;
    socket->setReadBufferSize(4 * readPieceBytes); // beyond it Qt stops reading: TCP holds the upstream back
    connect(socket, &QTcpSocket::readyRead, this, &ProxyConnection::readUpstream);
    connect(socket, &QTcpSocket::disconnected, this, &ProxyConnection::upstreamClosed);
    connect(socket, &QAbstractSocket::errorOccurred, this, [this, socket](QAbstractSocket::SocketError error) {
        if (socket != m_upstream || error == QAbstractSocket::RemoteHostClosedError)
            return;
        if (socket->state() != QAbstractSocket::ConnectedState && !m_headSent && m_busy)
            upstreamFailed(Tr::tr("the upstream %1 cannot be reached: %2")
                               .arg(m_server->options().upstream.toString(), socket->errorString()),
                502, QStringLiteral("upstream-unreachable"));
    });
    const int port = upstream.port(tls ? 443 : 80);
    m_connectTimer->start(m_server->options().connectTimeoutMs);
    if (tls) {
        auto *ssl = static_cast<QSslSocket *>(socket);
        // Certificate errors are not ignored: they end the exchange with 502 and the reason.
        connect(ssl, &QSslSocket::sslErrors, this, [this, ssl](const QList<QSslError> &errors) {
            QStringList reasons;
            for (const QSslError &e : errors)
                reasons.append(e.errorString());
            if (ssl == m_upstream)
                upstreamFailed(
                    Tr::tr("the upstream's certificate was refused: %1").arg(reasons.join(QStringLiteral("; "))), 502,
                    QStringLiteral("upstream-tls"));
        });
        connect(ssl, &QSslSocket::encrypted, this, [this] {
            m_connectTimer->stop();
            sendRequest();
        });
        ssl->connectToHostEncrypted(upstream.host(), quint16(port));
    } else {
        connect(socket, &QTcpSocket::connected, this, [this] {
            m_connectTimer->stop();
            sendRequest();
        });
        socket->connectToHost(upstream.host(), quint16(port));
    }
}

void ProxyConnection::sendRequest()
{
    if (!m_busy || !m_upstream)
        return;
    const QString client = m_peer.section(QLatin1Char(':'), 0, -2);
    m_upstream->write(upstreamRequest(m_request, m_server->options().upstream, m_server->options().keepHost, client));
}

void ProxyConnection::readUpstream()
{
    if (!m_upstream || !m_busy)
        return;
    while (m_busy && m_upstream && m_upstream->bytesAvailable() > 0) {
        if (m_client && m_client->bytesToWrite() > m_server->options().maxBufferedBytes) {
            m_paused = true; // clientWrote() reads on
            return;
        }
        const QByteArray piece = m_upstream->read(readPieceBytes);
        const HttpResponseStream::Status status = m_stream.feed(piece);
        if (status == HttpResponseStream::Status::Error) {
            if (!m_headSent) {
                upstreamFailed(Tr::tr("the upstream's answer is not HTTP: %1").arg(m_stream.errorString()), 502,
                    QStringLiteral("upstream-broken"));
            } else {
                // Part of the answer went out already: the client sees the break as it happened.
                finishExchange(QStringLiteral("upstream-broken"), m_stream.errorString(), m_stream.head().status);
                if (m_client)
                    SocketControl::reset(m_client);
            }
            return;
        }
        if (m_stream.headComplete() && !m_headSent) {
            m_headSent = true;
            const bool untilClose = m_stream.framing() == HttpResponseStream::Framing::UntilClose;
            m_closeAfter = m_closeAfter || untilClose;
            writeClient(clientHead(m_stream.head(), m_closeAfter, m_request.minorVersion == 0));
            if (const auto retryAfter = headerValue(m_stream.head().headers, "Retry-After"))
                m_entry.retryAfter = *retryAfter;
        }
        writeClient(m_stream.body());
        if (status == HttpResponseStream::Status::Complete) {
            const int code = m_stream.head().status;
            if (code >= 100 && code < 200) {
                // An interim answer (100 Continue): the final one follows on the same exchange.
                m_headSent = false;
                m_stream.next();
                continue;
            }
            const bool upstreamCloses
                = headerValue(m_stream.head().headers, "Connection").value_or(QByteArray()).toLower().contains("close")
                || m_stream.head().minorVersion == 0;
            if (upstreamCloses && m_upstream) {
                m_upstream->disconnect(this);
                m_upstream->disconnectFromHost();
                m_upstream->deleteLater();
                m_upstream = nullptr;
            }
            finishExchange(QStringLiteral("forwarded"),
                Tr::tr("the upstream answered %1 %2").arg(code).arg(QString::fromLatin1(m_stream.head().reason)), code);
            return;
        }
    }
}

void ProxyConnection::clientWrote()
{
    if (m_paused && m_client && m_client->bytesToWrite() <= m_server->options().maxBufferedBytes / 2) {
        m_paused = false;
        readUpstream();
    }
    if (!m_busy && m_closeAfter && m_client && m_client->bytesToWrite() == 0)
        m_client->disconnectFromHost();
}

void ProxyConnection::upstreamClosed()
{
    QTcpSocket *socket = qobject_cast<QTcpSocket *>(sender());
    if (socket != m_upstream)
        return;
    // Read what is still buffered before the close counts.
    readUpstream();
    if (!m_busy || socket != m_upstream)
        return;
    m_upstream = nullptr;
    socket->deleteLater();
    const HttpResponseStream::Status status = m_stream.finish();
    if (status == HttpResponseStream::Status::Complete) {
        writeClient(m_stream.body());
        m_closeAfter = true;
        finishExchange(QStringLiteral("forwarded"),
            Tr::tr("the upstream answered %1 and closed the connection to end the body").arg(m_stream.head().status),
            m_stream.head().status);
        return;
    }
    if (!m_headSent) {
        upstreamFailed(
            Tr::tr("the upstream closed the connection without an answer"), 502, QStringLiteral("upstream-closed"));
        return;
    }
    finishExchange(QStringLiteral("upstream-broken"), m_stream.errorString(), m_stream.head().status);
    if (m_client)
        SocketControl::reset(m_client);
}

void ProxyConnection::upstreamFailed(const QString &why, int status, const QString &action)
{
    if (!m_busy)
        return;
    m_connectTimer->stop();
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
        m_upstream->deleteLater();
        m_upstream = nullptr;
    }
    answerLocally(status, why, action);
}

void ProxyConnection::answerLocally(int status, const QString &message, const QString &action)
{
    const QByteArray body = message.toUtf8() + '\n';
    m_closeAfter = m_closeAfter || action == QLatin1String("reject");
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    head += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    head += "X-RetryLab-Proxy: " + action.toLatin1() + "\r\n";
    if (m_closeAfter)
        head += "Connection: close\r\n";
    writeClient(head + "\r\n" + body);
    finishExchange(action, message, status);
}

void ProxyConnection::finishExchange(const QString &action, const QString &detail, std::optional<int> status)
{
    if (!m_busy)
        return;
    m_busy = false;
    m_entry.action = action;
    m_entry.detail = detail;
    m_entry.status = status;
    m_entry.bytesSent = m_bytesToClient;
    m_entry.durationMs = (SteadyClock::instance().nowNs() - m_startNs) / 1e6;
    m_server->record(m_entry);
    if (m_closeAfter) {
        m_queue.clear();
        if (m_client && m_client->bytesToWrite() == 0)
            m_client->disconnectFromHost();
        return;
    }
    m_idleTimer->start(m_server->options().idleTimeoutMs);
    pump();
}

void ProxyConnection::clientGone()
{
    if (m_busy) {
        m_entry.action = QStringLiteral("client-closed");
        finishExchange(QStringLiteral("client-closed"), Tr::tr("the client left before the answer was complete"),
            m_headSent ? std::optional<int>(m_stream.head().status) : std::nullopt);
    }
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
    }
    m_server->forget(this);
}

} // namespace RetryLab::Core
