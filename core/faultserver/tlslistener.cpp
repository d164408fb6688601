#include "core/faultserver/tlslistener.h"

#include "core/runtime/socketcontrol.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QSslCipher>
#include <QSslSocket>
#include <QTimer>

#include <memory>

namespace RetryLab::Core {

namespace {

// The server's category: `retrylab.core.faultserver.debug=true` shows the TLS ports too.
namespace {
Q_LOGGING_CATEGORY(lcTls, "retrylab.core.faultserver", QtInfoMsg)
} // namespace

// A ClientHello is one record of at most 16 KiB; a client that sends more
// before any answer is not speaking TLS, and gets its fault all the same.
constexpr qint64 maxHelloBytes = 5 + 16384;
// Time for the client to read the start of the ServerHello before the reset:
// a reset that overtakes them makes the client drop them unread.
constexpr int cutResetDelayMs = 100;

/// True once `data` holds the whole first TLS record, or shows that it is no TLS record at all.
bool helloComplete(const QByteArray &data)
{
    if (data.isEmpty())
        return false;
    if (static_cast<quint8>(data[0]) != 0x16) // not a handshake record
        return true;
    if (data.size() < 5)
        return false;
    const qint64 length = (qint64(static_cast<quint8>(data[3])) << 8) | static_cast<quint8>(data[4]);
    return data.size() >= 5 + length;
}

/// A handshake record announcing a 122-byte ServerHello (TLS 1.2 framing, as
/// TLS 1.3 uses it too), of which only the first 30 bytes come.
QByteArray partialServerHello()
{
    return QByteArray::fromHex("160303007a" // handshake record, 122 bytes
                               "02000076" // ServerHello, 118 bytes
                               "0303") // legacy_version TLS 1.2
        + QByteArray("RetryLab tls-cut: 32 b"); // the first 22 of the 32 random bytes
}

/// A fatal handshake_failure alert in the clear, as a server sends it when it
/// shares no cipher or version with the client.
QByteArray handshakeFailureAlert()
{
    return QByteArray::fromHex("15" // alert record
                               "0303" // TLS 1.2 framing
                               "0002" // two bytes
                               "02" // fatal
                               "28"); // handshake_failure (40)
}

QByteArray plainHttpAnswer()
{
    const QByteArray body
        = "The client spoke TLS to a port that answers in plain HTTP (RetryLab TLS fault plain-http).\n";
    return "HTTP/1.1 400 Bad Request\r\n"
           "Server: RetryLab-FaultServer\r\n"
           "Content-Type: text/plain\r\n"
           "Content-Length: "
        + QByteArray::number(body.size())
        + "\r\n"
          "Connection: close\r\n"
          "X-RetryLab-Action: plain-http\r\n\r\n"
        + body;
}

} // namespace

/// What a connection before HTTP keeps: for its log entry, and the ClientHello so far.
struct TlsListenerPending
{
    QString peer;
    qint64 startNs = 0;
    QString clientAlert; ///< the fatal alert the client sent, if any
    QByteArray hello;
};

TlsListener::TlsListener(Host &host, std::optional<TlsFault> fault, QObject *parent)
    : QTcpServer(parent), m_host(host), m_fault(fault)
{ }

void TlsListener::dropAll()
{
    const auto pending = m_pending;
    m_pending.clear();
    for (QTcpSocket *socket : pending) {
        socket->disconnect();
        socket->abort();
        socket->deleteLater();
    }
}

void TlsListener::incomingConnection(qintptr descriptor)
{
    if (m_pending.size() >= m_host.maxHandshakes()) {
        qCWarning(lcTls) << "dropping a TLS connection: already" << m_pending.size() << "handshakes in progress";
        QTcpSocket dropped;
        if (dropped.setSocketDescriptor(descriptor))
            dropped.abort();
        return;
    }
    // Decided before anything is read: TLS starts before HTTP says anything.
    const TlsFault fault = m_fault ? *m_fault : m_host.nextHandshake();
    QTcpSocket *socket = TlsFaults::presentsCertificate(fault) ? new QSslSocket(this) : new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        qCWarning(lcTls) << "cannot take a TLS connection:" << socket->errorString();
        delete socket;
        return;
    }
    m_pending.insert(socket);
    if (auto *tls = qobject_cast<QSslSocket *>(socket))
        startHandshake(tls, fault);
    else
        startRawFault(socket, fault);
}

namespace {

std::shared_ptr<TlsListenerPending> pendingFor(QTcpSocket *socket, const Clock &clock)
{
    auto state = std::make_shared<TlsListenerPending>();
    state->peer = socket->peerAddress().toString() + QLatin1Char(':') + QString::number(socket->peerPort());
    state->startNs = clock.nowNs();
    return state;
}

ServerLogEntry entryOf(const TlsListenerPending &state, TlsFault fault, const Clock &clock)
{
    ServerLogEntry e;
    e.time = clock.wallTime();
    e.peer = state.peer;
    e.tls = TlsFaults::name(fault);
    e.durationMs = (clock.nowNs() - state.startNs) / 1e6;
    return e;
}

} // namespace

QTimer *TlsListener::handshakeTimer(
    QTcpSocket *socket, TlsFault fault, const std::shared_ptr<TlsListenerPending> &state, const QString &detail)
{
    auto *timer = new QTimer(socket);
    timer->setSingleShot(true);
    timer->setInterval(m_host.handshakeTimeoutMs());
    connect(timer, &QTimer::timeout, this, [this, socket, fault, state, detail] {
        if (!m_pending.contains(socket))
            return;
        ServerLogEntry e = entryOf(*state, fault, m_host.clock());
        e.action = QStringLiteral("tls-timeout");
        e.detail = detail.arg(m_host.handshakeTimeoutMs());
        m_host.record(std::move(e));
        finish(socket);
    });
    return timer;
}

void TlsListener::startHandshake(QSslSocket *socket, TlsFault fault)
{
    const auto state = pendingFor(socket, m_host.clock());
    socket->setSslConfiguration(m_host.tlsConfiguration(fault));

    QTimer *timer = handshakeTimer(socket, fault, state, Tr::tr("no TLS handshake within %1 ms"));
    connect(socket, &QSslSocket::alertReceived, this,
        [state](QSsl::AlertLevel level, QSsl::AlertType, const QString &description) {
            if (level == QSsl::AlertLevel::Fatal)
                state->clientAlert = description;
        });
    connect(socket, &QSslSocket::encrypted, this, [this, socket, fault, timer] {
        if (!m_pending.remove(socket))
            return;
        socket->disconnect(this);
        timer->stop();
        timer->deleteLater();
        qCDebug(lcTls).noquote() << "TLS handshake" << TlsFaults::name(fault) << "done with"
                                 << socket->peerAddress().toString() << socket->sessionCipher().name();
        m_host.adopt(socket, fault);
    });
    const auto refused = [this, socket, fault, state](const QString &reason) {
        if (!m_pending.contains(socket))
            return;
        ServerLogEntry e = entryOf(*state, fault, m_host.clock());
        e.action = QStringLiteral("tls-refused");
        e.detail = state->clientAlert.isEmpty()
            ? Tr::tr("the client ended the TLS handshake: %1").arg(reason)
            : Tr::tr("the client ended the TLS handshake with the alert \"%1\"").arg(state->clientAlert);
        m_host.record(std::move(e));
        finish(socket);
    };
    connect(socket, &QAbstractSocket::errorOccurred, this,
        [socket, refused](QAbstractSocket::SocketError) { refused(socket->errorString()); });
    connect(socket, &QAbstractSocket::disconnected, this, [refused] { refused(Tr::tr("it closed the connection")); });
    timer->start();
    socket->startServerEncryption();
}

void TlsListener::startRawFault(QTcpSocket *socket, TlsFault fault)
{
    const auto state = pendingFor(socket, m_host.clock());
    QTimer *timer = handshakeTimer(socket, fault, state, Tr::tr("no ClientHello within %1 ms"));
    connect(socket, &QTcpSocket::readyRead, this, [this, socket, fault, state, timer] {
        if (!m_pending.contains(socket))
            return;
        state->hello += socket->readAll();
        if (!helloComplete(state->hello) && state->hello.size() < maxHelloBytes)
            return;
        timer->stop();
        m_pending.remove(socket);
        socket->disconnect(this);

        ServerLogEntry e = entryOf(*state, fault, m_host.clock());
        e.action = TlsFaults::name(fault);
        const QString hello = static_cast<quint8>(state->hello[0]) == 0x16
            ? Tr::tr("read the ClientHello (%1 bytes)").arg(state->hello.size())
            : Tr::tr("read %1 bytes that are not a ClientHello").arg(state->hello.size());
        QByteArray answer;
        switch (fault) {
        case TlsFault::HandshakeCut:
            answer = partialServerHello();
            e.detail = Tr::tr("%1, sent %2 bytes of a 127-byte ServerHello record, then reset the connection")
                           .arg(hello)
                           .arg(answer.size());
            break;
        case TlsFault::Alert:
            answer = handshakeFailureAlert();
            e.detail = Tr::tr("%1, answered with a fatal handshake_failure alert and closed").arg(hello);
            break;
        default:
            answer = plainHttpAnswer();
            e.status = 400;
            e.detail = Tr::tr("%1, answered in plain HTTP (400 Bad Request) and closed").arg(hello);
            break;
        }
        socket->write(answer);
        e.bytesSent = answer.size();
        m_host.record(std::move(e));
        if (fault == TlsFault::HandshakeCut) {
            socket->flush();
            QTimer::singleShot(cutResetDelayMs, socket, [socket] {
                SocketControl::reset(socket);
                socket->deleteLater();
            });
            return;
        }
        connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
        socket->disconnectFromHost();
    });
    connect(socket, &QAbstractSocket::disconnected, this, [this, socket, fault, state] {
        if (!m_pending.contains(socket))
            return;
        ServerLogEntry e = entryOf(*state, fault, m_host.clock());
        e.action = QStringLiteral("client-closed");
        e.detail = Tr::tr("the client closed the connection before its ClientHello was complete (%1 bytes)")
                       .arg(state->hello.size());
        m_host.record(std::move(e));
        finish(socket);
    });
    timer->start();
}

void TlsListener::finish(QTcpSocket *socket)
{
    m_pending.remove(socket);
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
}

} // namespace RetryLab::Core
