#pragma once

#include "core/faultserver/responseplan.h"
#include "core/http/httprequestparser.h"
#include "core/http/requestpace.h"
#include "core/http/serverlogentry.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

QT_BEGIN_NAMESPACE
class QTcpSocket;
class QTimer;
QT_END_NAMESPACE

namespace RetryLab::Core {

class Clock;

/// One client connection of the fault server, the transport half of it: reads
/// bytes into requests (HttpRequestParser), answers "100 Continue", asks its
/// Host what to do with each request and executes the ResponsePlan on the
/// socket (headers, body, drip, broken stream, resets by RST, stalls), then
/// keeps the connection alive for the next request (pipelined ones in order)
/// or closes it with a linger. Idle connections are closed; a request left
/// half-sent gets "408 Request Timeout", a malformed one its 4xx and a close.
///
/// Owned by the server through a shared pointer; timers and socket signals hold
/// a weak one, so that nothing runs for a connection the server has dropped.
/// Lives on the server's thread.
class Connection final : public std::enable_shared_from_this<Connection>
{
public:
    /// What a connection needs from its server.
    class Host
    {
    public:
        virtual ~Host() = default;
        virtual const Clock &clock() const = 0;
        /// The Date header's value for now.
        virtual QByteArray dateHeader() = 0;
        /// The connection limit, named in the answer to a connection over it.
        virtual int maxConnections() const = 0;
        /// What a complete request gets. `entry` holds what the log says of the
        /// request so far; the host adds which scripted step it used, if any.
        virtual ResponsePlan decide(const HttpRequest &request, ServerLogEntry &entry) = 0;
        /// One request handled, or one connection turned away or cut off.
        virtual void record(ServerLogEntry entry) = 0;
        /// The connection is gone: the host drops it (and with it the last strong reference).
        virtual void forget(quint64 id) = 0;
        /// Request bytes all connections hold (read but not yet answered), and the bound of that sum.
        virtual void adjustHeldBytes(qint64 delta) = 0;
        virtual qint64 heldBytes() const = 0;
        virtual qint64 maxHeldBytes() const = 0;
        /// Runs a deadline's answer (a 408 and a close, or closing an idle connection)
        /// in a later pass of the event loop, a batch at a time (BatchedWork): many
        /// deadlines may run out in the same instant.
        virtual void deferTimeout(std::function<void()> answer) = 0;
    };

    struct Settings
    {
        quint64 id = 0;
        /// Over the server's limit: every request gets 503 and the connection closes soon.
        bool overCapacity = false;
        int idleTimeoutMs = 30'000;
        /// FaultServerOptions::headerTimeoutMs and minBodyBytesPerSecond.
        int headerTimeoutMs = 10'000;
        qint64 minBodyBytesPerSecond = 16 * 1024;
        qint64 maxBodyBytes = 8 * 1024 * 1024;
        /// The handshake of a TLS connection (TlsFaults::name(): "pass", "expired", ...),
        /// empty for plain HTTP; logged with every request (ServerLogEntry::tls).
        QString tls;
    };

    /// Takes over an accepted socket (which stays the child of its server or
    /// listener); a QSslSocket whose handshake is done serves HTTPS the same way.
    Connection(Host &host, QTcpSocket *socket, const Settings &settings);
    ~Connection();
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    quint64 id() const { return m_id; }
    /// Starts the idle timer and reads what has arrived already.
    void start();
    /// Drops the connection at once, without a word and without logging (the server closes).
    void abort();

    /// Whether the connection may give way to a new one at the cap: it waits
    /// for a request (idle keep-alive) or for the rest of one (a slow client),
    /// with no answer of the server's in progress.
    bool isEvictable() const;
    /// Since when it has waited: the first byte of an incomplete request, or the end
    /// of the last answer; an incomplete request ranks before any idle connection.
    bool hasIncompleteRequest() const;
    qint64 waitingSinceNs() const { return m_waitingSinceNs; }
    /// Drops it to make room, with a log entry ("evicted") that says why.
    void evict(const QString &why);

private:
    enum class State { Reading, Busy, Stalled, Closing };

    void handleReadable();
    void handleDisconnected();
    void handleIdle();
    /// The header deadline, or the body's minimum rate, ran out.
    void handleRequestTimeout();
    /// Starts, moves on or stops the request timer after bytes were read.
    void updateRequestTimer();
    /// Tells the host how many request bytes this connection holds now.
    void updateHeldBytes();
    void processParser(HttpRequestParser::Status status);
    void resume();
    void dispatch();
    void answerProtocolError(int status, const QString &message, const QString &action);
    /// A deadline ran out: 408, in its turn among the others (Host::deferTimeout).
    void answerDeadline(const QString &message);
    void execute(ResponsePlan plan);
    void executeBrokenStream(ResponsePlan plan, bool head);
    /// Respond with ResponsePlan::pauseMs: the body up to pauseAfterBytes, the pause, the rest.
    void executePausedBody(ResponsePlan plan, bool keepAlive);
    void dripNext(qint64 left, int intervalMs, bool keepAlive);
    /// Writes `left` bytes of filler as the client takes them, then calls `then`.
    void streamFill(qint64 left, std::function<void(Connection &)> then);
    /// Reads on (resume()) once the client has taken enough of its answers.
    void waitForDrain();
    qint64 writeHead(int status, const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &contentType,
        qint64 contentLength, bool keepAlive, const QString &action, const QByteArray &body = {});
    void finishRequest(const QString &action, const QString &detail, std::optional<int> status);
    void afterAnswer(bool keepAlive);
    void lingeringClose();
    /// Activity on the connection: the idle deadline starts again (lazily, see handleIdle()).
    void touchIdle();
    /// A callback for a signal or timer that calls `function(*this)` only while
    /// the server still holds this connection.
    template<typename Function>
    auto guarded(Function function);

    Host &m_host;
    quint64 m_id = 0;
    QPointer<QTcpSocket> m_socket;
    QTimer *m_idleTimer = nullptr; ///< child of the socket
    int m_idleMs = 0; ///< how long the connection may stay quiet
    QElapsedTimer m_sinceActivity; ///< since the last read or answer (real time, as the timer's)
    QTimer *m_requestTimer = nullptr; ///< header deadline, then body-rate periods; child of the socket
    QString m_deadlineMissed; ///< a deadline ran out, its 408 not yet sent (answerDeadline)
    qint64 m_bytesReceived = 0; ///< on this connection, in all
    RequestPace m_pace; ///< what the request timer does
    bool m_drainPending = false; ///< waiting for the client to read its answers
    qint64 m_heldBytes = 0; ///< what this connection counts in Host::heldBytes()
    qint64 m_waitingSinceNs = 0;
    QString m_peer;
    QString m_tls;
    HttpRequestParser m_parser;
    State m_state = State::Reading;
    bool m_overCapacity = false;
    bool m_lingering = false; ///< closing after an answer, dropping what still arrives
    bool m_servedAny = false; ///< a request (or a malformed one) arrived on this connection
    // The request being handled.
    HttpRequest m_request;
    ServerLogEntry m_entry;
    bool m_entryPending = false;
    qint64 m_startNs = 0;
    qint64 m_bytesSent = 0;
    QString m_pendingAction; ///< what the server was doing, for "client-closed"
    QByteArray m_head; ///< the answer being written (writeHead), its memory kept between requests
};

} // namespace RetryLab::Core
