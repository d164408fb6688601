#include "core/proxy/replayserver.h"

#include "core/http/httpheaders.h"
#include "core/http/httprequestparser.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QDateTime>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

/// One client connection of a ReplayServer: its requests answered in order.
class ReplayConnection final : public QObject
{
public:
    ReplayConnection(ReplayServer *server, QTcpSocket *socket) : QObject(server), m_server(server), m_socket(socket)
    {
        socket->setParent(this);
        m_timer.setSingleShot(true);
        m_timer.setTimerType(Qt::PreciseTimer);
        connect(&m_timer, &QTimer::timeout, this, &ReplayConnection::send);
        connect(socket, &QTcpSocket::readyRead, this, &ReplayConnection::read);
        connect(socket, &QTcpSocket::disconnected, this, &QObject::deleteLater);
    }

private:
    void read()
    {
        if (!m_socket)
            return;
        // Requests pipelined behind one whose answer waits are kept in order, never lost.
        HttpRequestParser::Status status = m_parser.feed(m_socket->readAll());
        while (status == HttpRequestParser::Status::Complete) {
            m_queue.append(m_parser.takeRequest());
            status = m_parser.next();
        }
        takeUp();
    }

    void takeUp()
    {
        if (m_busy || !m_socket)
            return;
        if (m_queue.isEmpty() && m_parser.status() == HttpRequestParser::Status::Error) {
            const QByteArray body = m_parser.errorString().toUtf8() + '\n';
            m_socket->write("HTTP/1.1 " + QByteArray::number(m_parser.errorStatus()) + ' '
                + reasonPhrase(m_parser.errorStatus())
                + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + QByteArray::number(body.size())
                + "\r\nConnection: close\r\n\r\n" + body);
            m_socket->disconnectFromHost();
            return;
        }
        if (m_queue.isEmpty())
            return;
        const HttpRequest request = m_queue.takeFirst();
        m_keepAlive = request.keepAlive;
        m_entry = ServerLogEntry{};
        m_entry.time = QDateTime::currentDateTimeUtc();
        m_entry.peer = m_socket->peerAddress().toString() + QLatin1Char(':') + QString::number(m_socket->peerPort());
        m_entry.method = request.method;
        m_entry.target = QString::fromUtf8(request.target);
        m_entry.receivedNs = SteadyClock::instance().nowNs();
        m_entry.identityHeaders = ServerLogEntry::identityHeadersOf(request.headers);
        double delayMs = 0.0;
        m_pending = m_server->answer(request, &delayMs, m_entry);
        m_busy = true;
        m_timer.start(int(std::clamp(delayMs, 0.0, 600'000.0))); // a recording's wait is ten minutes at most
    }

    void send()
    {
        m_busy = false;
        if (!m_socket)
            return;
        m_socket->write(m_pending);
        m_entry.bytesSent = m_pending.size();
        m_entry.durationMs = double(SteadyClock::instance().nowNs() - m_entry.receivedNs) / 1e6;
        m_pending.clear();
        Q_EMIT m_server->requestHandled(m_entry);
        if (!m_keepAlive) {
            m_socket->disconnectFromHost();
            return;
        }
        takeUp();
    }

    ReplayServer *m_server;
    QPointer<QTcpSocket> m_socket;
    HttpRequestParser m_parser;
    QList<HttpRequest> m_queue;
    QTimer m_timer;
    QByteArray m_pending;
    ServerLogEntry m_entry;
    bool m_busy = false;
    bool m_keepAlive = true;
};

ReplayServer::ReplayServer(Recording recording, const Options &options, QObject *parent)
    : QObject(parent), m_recording(std::move(recording)), m_options(options), m_tcp(new QTcpServer(this))
{
    connect(m_tcp, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_tcp->nextPendingConnection())
            new ReplayConnection(this, socket);
    });
}

ReplayServer::~ReplayServer() = default;

bool ReplayServer::listen()
{
    if (!m_options.address.isLoopback() && !m_options.allowNonLoopback) {
        m_error = Tr::tr("%1 is not a loopback address; other machines could read the recording (allow it explicitly)")
                      .arg(m_options.address.toString());
        return false;
    }
    if (!m_tcp->listen(m_options.address, m_options.port)) {
        m_error = Tr::tr("cannot listen on %1:%2: %3")
                      .arg(m_options.address.toString())
                      .arg(m_options.port)
                      .arg(m_tcp->errorString());
        return false;
    }
    m_error.clear();
    return true;
}

void ReplayServer::close()
{
    m_tcp->close();
}

QUrl ReplayServer::baseUrl() const
{
    if (!m_tcp->isListening())
        return {};
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(m_tcp->serverAddress().toString());
    url.setPort(m_tcp->serverPort());
    return url;
}

QByteArray ReplayServer::answer(const HttpRequest &request, double *delayMs, ServerLogEntry &entry)
{
    entry.sequence = ++m_sequence;
    const RecordedExchange *recorded = m_recording.next(request.method, request.path, request.query, request.body);
    if (!recorded) {
        ++m_notRecorded;
        const QByteArray body
            = m_recording.notRecorded(request.method, request.path, request.query, request.body).toUtf8() + '\n';
        entry.status = 404;
        entry.action = QStringLiteral("not-recorded");
        entry.detail = QString::fromUtf8(body.trimmed());
        *delayMs = 0.0;
        return "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nX-RetryLab-Replay: "
               "not-recorded\r\n"
               "Content-Length: "
            + QByteArray::number(body.size()) + "\r\n" + (request.keepAlive ? QByteArray() : "Connection: close\r\n")
            + "\r\n" + body;
    }
    ++m_answered;
    entry.status = recorded->status;
    entry.action = QStringLiteral("replayed");
    entry.detail = Tr::tr("recorded %1 from %2").arg(recorded->recorded.toString(Qt::ISODate), recorded->origin);
    *delayMs = m_options.recordedTiming ? recorded->firstByteMs : 0.0;
    const QByteArray reason = recorded->reason.isEmpty() ? reasonPhrase(recorded->status) : recorded->reason;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(recorded->status) + ' ' + reason + "\r\n";
    for (const auto &[name, value] : recorded->headers)
        head += name + ": " + value + "\r\n";
    head += "X-RetryLab-Replay: recorded\r\n";
    if (recorded->status != 204 && !headerValue(recorded->headers, "Content-Length"))
        head += "Content-Length: " + QByteArray::number(recorded->body.size()) + "\r\n";
    if (!request.keepAlive)
        head += "Connection: close\r\n";
    return head + "\r\n" + (request.method == "HEAD" ? QByteArray() : recorded->body);
}

} // namespace RetryLab::Core
