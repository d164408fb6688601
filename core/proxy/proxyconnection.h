#pragma once

#include "core/http/httprequestparser.h"
#include "core/http/httpresponsestream.h"
#include "core/http/requestpace.h"
#include "core/http/serverlogentry.h"
#include "core/proxy/faultruleset.h"
#include "core/proxy/recording.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QUrl>

#include <functional>

QT_BEGIN_NAMESPACE
class QAbstractSocket;
class QTimer;
QT_END_NAMESPACE

namespace RetryLab::Core {

class ProxyServer;

/// One client connection of a ProxyServer and the upstream connection it
/// uses: reads the client's requests (HttpRequestParser), sends each to the
/// upstream in turn, and streams the answer back (HttpResponseStream), reading
/// from the upstream only while the client keeps up.
class ProxyConnection final : public QObject
{
    Q_OBJECT

public:
    /// `client`: a QTcpSocket, a QSslSocket, or a socket opened SocketControl::unbufferedMode.
    ProxyConnection(ProxyServer *server, QAbstractSocket *client);
    ~ProxyConnection() override;

    /// Drops both connections at once (the server is closing).
    void abort();
    /// Bytes waiting for the client plus those read from the upstream and not passed on.
    qint64 bufferedBytes() const;
    /// No exchange in progress: the client is idle, or still sending a request.
    bool isEvictable() const;
    /// Since when it has waited without an exchange (accepted, or its last answer done).
    qint64 waitingSinceNs() const { return m_waitingSinceNs; }
    /// Closes the client to make room at the limit: a request partly sent gets 503 first.
    void evict();
    /// Gives back what it counts in ProxyServer::heldBytes(), as the server lets it go (not in
    /// the destructor, which also runs as the server's children are deleted, the server gone).
    void releaseHeldBytes();

    /// The request as it goes upstream: hop-by-hop headers dropped, Host
    /// rewritten (unless kept), Via and X-Forwarded-For added, the body with a
    /// Content-Length. Static for tests.
    static QByteArray upstreamRequest(
        const HttpRequest &request, const QUrl &upstream, bool keepHost, const QString &clientAddress);
    /// The same with the upstream's path prefix and Host value made already (per connection, not per request).
    /// `buffer`: an array to write into when its room suffices (the last request's), instead of a new one.
    static QByteArray upstreamRequest(const HttpRequest &request, QByteArrayView prefix, QByteArrayView host,
        bool keepHost, QByteArrayView clientAddress, QByteArray buffer = {});
    /// The response head as it goes to the client, hop-by-hop headers dropped;
    /// `close` adds "Connection: close".
    /// `dropChunking` leaves out Transfer-Encoding (the body goes out without
    /// its chunk framing, to an HTTP/1.0 client). `reserveAfter`: room for bytes appended to it.
    /// `buffer`: an array to write into when its room suffices (the last head's), instead of a new one.
    static QByteArray clientHead(const HttpResponseStream::Head &head, bool close, bool clientIsHttp10,
        bool dropChunking = false, qsizetype reserveAfter = 0, QByteArray buffer = {});

private:
    enum class Waiting { Nothing, BeforeForward, BeforeResponse };
    void readClient();
    void faultTimerFired();
    void proceed();
    void applyLocalFault();
    /// Where this exchange goes: the reverse proxy's upstream, or the forward proxy's request's own.
    QUrl exchangeUpstream() const;
    /// A CONNECT the faults let through: the client goes to a tunnel of the server.
    void handOverTunnel();
    /// A CONNECT with TLS interception: 200, then TLS with the client as the host's
    /// server, and the requests inside taken up as https://host:port.
    void intercept();
    /// Passes body bytes on with the fault applied, after `head` when the answer's head
    /// goes with them; true when cut=N ended the body here.
    bool forwardBody(QByteArray body, QByteArray head = {});
    /// Delivers a head written by clientHead(), and keeps its room for the next one.
    void deliverHead(QByteArray head);
    void rejectMalformed();
    /// Answers `status` with `message` to a request that cannot be taken up, and closes.
    void rejectRequest(int status, const QString &message, const HttpRequest *request = nullptr);
    /// The header deadline and the body's pace (RequestPace) after a read or an exchange.
    void updateRequestTimer();
    void requestTimedOut();
    /// What this connection counts in ProxyServer::heldBytes(): the request being
    /// read and those queued behind the one in progress.
    void updateHeldBytes();
    void deliver(const QByteArray &bytes);
    void releaseThrottled();
    void resetClient();
    void pump();
    void connectUpstream();
    void sendRequest();
    /// Recording (ProxyServer::recorder()): the answer's head, its body's content, its end.
    void recordHead();
    void recordBody();
    void recordEnd();
    /// Drops the answer being recorded (it did not end whole, or is too large) and what it held.
    void abandonRecording(bool countSkipped);
    /// A forward CONNECT waits or runs: what the client sends next is the tunnel's.
    bool connectWaiting() const;
    /// What waits for the client in its socket, encrypted bytes too.
    qint64 clientBytesToWrite() const;
    void readUpstream();
    /// An unbuffered upstream: reads what waits after a turn that left it unread; false when it
    /// sent bytes nobody asked for or closed (it is dropped then).
    bool upstreamStillClean();
    void upstreamClosed();
    void upstreamFailed(const QString &why, int status, const QString &action);
    void clientWrote();
    void finishExchange(const QString &action, const QString &detail, std::optional<int> status);
    void finishUpstreamClose(QAbstractSocket *socket);
    qint64 pendingToClient() const;
    void answerLocally(int status, const QString &message, const QString &action, const QByteArray &extraHeaders = {});
    /// The upstream sent bytes no request asked for: they are never handed on.
    void dropUnsolicitedUpstream(qint64 bytes);
    void dropUpstream(bool abort = true);
    template<typename Finish>
    void endAfterFlush(Finish finish);
    void clientGone();
    qint64 writeClient(const QByteArray &bytes);
    /// Writes past Qt's buffer when it can (SocketControl::writeNow), through the socket otherwise.
    void writeNow(QAbstractSocket *socket, const QByteArray &bytes);
    /// Counts activity for the idle timeout without restarting its timer.
    void touchIdle();
    void idleTimerFired();

    ProxyServer *m_server;
    QPointer<QAbstractSocket> m_client;
    QPointer<QAbstractSocket> m_upstream;
    // Unbuffered sockets (SocketControl::unbufferedMode) are read piece by piece into one
    // buffer of the thread: they hold nothing, and end with a read of -1, not disconnected().
    bool m_clientUnbuffered = false;
    bool m_upstreamUnbuffered = false;
    bool m_upstreamUnread = false; ///< the unbuffered upstream had bytes (or its close) that were not read
    QUrl m_upstreamUrl; ///< where m_upstream is connected (or connecting)
    QByteArray m_upstreamPrefix; ///< its path prefix, put before every request's target
    QByteArray m_upstreamHost; ///< its Host value
    QByteArray m_requestBuffer; ///< the last request sent upstream, its room kept for the next
    QByteArray m_headBuffer; ///< the same for the last head (and first body bytes) sent to the client
    bool m_upstreamPiecesMade = false; ///< m_upstreamPrefix and m_upstreamHost are m_upstreamUrl's
    RecordedExchange m_record;
    bool m_recording = false; ///< the exchange in progress is being recorded
    qint64 m_sentUpstreamNs = 0;
    qint64 m_recordingHeld = 0; ///< body bytes counted in ProxyServer's recording budget
    QByteArray m_upstreamOrigin; ///< a forward proxy's "http://host:port" that m_upstreamUrl was made from
    QUrl m_interceptUpstream; ///< the intercepted tunnel's https://host:port; empty before (or without) one
    QTimer *m_connectTimer;
    QTimer *m_idleTimer;
    QTimer *m_requestTimer; ///< header deadline, then the body's pace
    RequestPace m_pace;
    qint64 m_bytesFromClient = 0;
    qint64 m_heldBytes = 0;
    bool m_readingPaused = false; ///< over the held-bytes limit while an exchange runs
    qint64 m_waitingSinceNs = 0;
    QString m_peer;
    QString m_clientAddress; ///< the peer's address without its port, for X-Forwarded-For
    QByteArray m_clientAddressLatin1; ///< the same as it goes into X-Forwarded-For
    bool m_clientIsTls = false; ///< the client's socket is a QSslSocket (interception)
    qint64 m_activityNs = 0; ///< the last activity the idle timeout counts from
    HttpRequestParser m_parser;
    QList<HttpRequest> m_queue;
    bool m_busy = false;
    bool m_clientGone = false; ///< clientGone() has run
    bool m_headSent = false;
    bool m_closeAfter = false; ///< close the client connection once this answer is written
    bool m_paused = false;
    HttpRequest m_request;
    HttpResponseStream m_stream;
    ServerLogEntry m_entry;
    QByteArray m_lastTarget; ///< the target of the last exchange taken up, and its text for the log
    QString m_lastTargetText;
    qint64 m_startNs = 0;
    qint64 m_bytesToClient = 0;

    // The faults of the exchange in progress.
    ProxyFault m_fault;
    QTimer *m_faultTimer;
    Waiting m_waiting = Waiting::Nothing;
    bool m_responseHeld = false; ///< the delay before responding is over (or there is none)
    bool m_upstreamClosePending = false; ///< the upstream closed while its answer was held back
    bool m_connectionFault = false; ///< the client connection ends with a reset, not a close
    bool m_closing = false; ///< the connection ends after the answer in progress
    bool m_reusedUpstream = false; ///< the request went out on a kept-alive upstream connection
    bool m_dechunk = false; ///< the body goes out without its chunk framing (an HTTP/1.0 client)
    quint64 m_exchange = 0; ///< counts exchanges, to notice one that ended inside a call
    // Bandwidth: bytes waiting for their turn, released by m_throttleTimer.
    QTimer *m_throttleTimer;
    QByteArray m_throttled;
    qint64 m_throttleStartNs = 0;
    qint64 m_throttleSent = 0;
    std::function<void()> m_afterFlush; ///< what ends the exchange once the throttled bytes are out
};

} // namespace RetryLab::Core
