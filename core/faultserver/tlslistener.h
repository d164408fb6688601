#pragma once

#include "core/faultserver/tlsfault.h"
#include "core/http/serverlogentry.h"

#include <QSet>
#include <QSslConfiguration>
#include <QTcpServer>

#include <memory>
#include <optional>

QT_BEGIN_NAMESPACE
class QSslSocket;
class QTimer;
QT_END_NAMESPACE

namespace RetryLab::Core {

class Clock;
struct TlsListenerPending;

/// One TLS port of the fault server. Each connection gets a TlsFault before
/// its handshake: the port's own (a fault port), or the next step of the
/// handshake script (the HTTPS port, where the script is empty most of the
/// time and the step is `pass`). A fault that presents a certificate runs a
/// real handshake on a QSslSocket (startServerEncryption) and, once it is done,
/// hands the socket to the host, which serves HTTP on it with the same
/// Connection engine as the plain port. The others answer the ClientHello with
/// raw bytes (part of a ServerHello and RST, a fatal alert, plain HTTP) and
/// close. What never reaches HTTP is logged here: the handshake faults, a
/// handshake the client ended (tls-refused), one that timed out.
///
/// Lives on the server's thread; the server owns it and closes it with dropAll().
class TlsListener final : public QTcpServer
{
public:
    /// What a TLS port needs from its server.
    class Host
    {
    public:
        virtual ~Host() = default;
        virtual const Clock &clock() const = 0;
        /// The fault of the next connection on a port without one of its own.
        virtual TlsFault nextHandshake() = 0;
        /// The server-side configuration of a fault that presents a certificate.
        virtual QSslConfiguration tlsConfiguration(TlsFault fault) const = 0;
        /// A handshake ends unanswered after this long.
        virtual int handshakeTimeoutMs() const = 0;
        /// Handshakes in progress at once on one port; beyond it connections are dropped.
        virtual int maxHandshakes() const = 0;
        /// A handshake is done: the host serves HTTP on the socket from now on.
        virtual void adopt(QSslSocket *socket, TlsFault fault) = 0;
        /// A connection that never reached HTTP, as the log should show it.
        virtual void record(ServerLogEntry entry) = 0;
    };

    /// `fault`: the port's own fault; nullopt for the HTTPS port (the script's steps, else pass).
    TlsListener(Host &host, std::optional<TlsFault> fault, QObject *parent);

    std::optional<TlsFault> fault() const { return m_fault; }
    /// Drops every connection still before or in its handshake, without logging (the server closes).
    void dropAll();

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    void startHandshake(QSslSocket *socket, TlsFault fault);
    void startRawFault(QTcpSocket *socket, TlsFault fault);
    /// A timer, not started, that gives up on `socket` after the handshake
    /// timeout and logs "tls-timeout" with `detail` (its %1 the timeout in ms).
    QTimer *handshakeTimer(
        QTcpSocket *socket, TlsFault fault, const std::shared_ptr<TlsListenerPending> &state, const QString &detail);
    /// Logs nothing; drops a connection that never reached HTTP.
    void finish(QTcpSocket *socket);

    Host &m_host;
    std::optional<TlsFault> m_fault;
    QSet<QTcpSocket *> m_pending; ///< sockets before or in their handshake (children of this)
};

} // namespace RetryLab::Core
