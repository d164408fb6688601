#include "core/faultserver/connection.h"

#include "core/http/httpheaders.h"
#include "core/http/retryheaders.h"
#include "core/runtime/socketcontrol.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>
#include <vector>

// One job: a fault server connection's life on its socket, from the first byte read
// to the close. Reading, answering, dripping, resets, timeouts and the linger all act
// on the same socket state and timers (held bytes, the idle and request timers, the
// paused parser); split, that state would be shared across files.

namespace RetryLab::Core {

namespace {

// The server's category: `retrylab.core.faultserver.debug=true` shows connections and requests alike.
namespace {
Q_LOGGING_CATEGORY(lcConnection, "retrylab.core.faultserver", QtInfoMsg)
} // namespace

// A connection over the cap is served one 503 and closed; it may not linger.
constexpr int overCapacityIdleMs = 2000;
// Time for the client to read the headers before the reset that follows them:
// when both arrive in one read, Qt may drop the headers and resend the request.
constexpr int resetAfterHeadersDelayMs = 100;
// How long a connection closed after an answer keeps reading (and dropping)
// what the client still sends, so that unread bytes cannot turn the close into
// a reset that destroys the answer (a 413 to a large upload, for example).
// The linger starts once every byte of the answer is written, however long a
// slow reader takes (a 25 MB log at a few kB/s): only a reader that takes
// nothing at all for writeStallMs is cut off.
constexpr int lingerMs = 2000;
constexpr int writeStallMs = 30'000;
// Bytes read from a socket before the server stops reading while it is busy.
constexpr qint64 socketReadBufferBytes = 1 << 20;
// Answers written but not yet taken by the client: beyond this the server
// reads no further request from it (pipelined requests whose answers are never
// read cannot grow memory), and a large body is written as the client takes it.
constexpr qint64 maxUnsentBytes = 1 << 20;
constexpr qint64 streamBlockBytes = 64 * 1024;

bool statusHasBody(int status)
{
    return status != 204 && status != 304 && !(status >= 100 && status < 200);
}

/// Appends "HTTP/1.1 200 OK\r\n"; the lines of three-digit statuses are made once.
void appendStatusLine(QByteArray &out, int status)
{
    constexpr int first = 100;
    constexpr int last = 999;
    static const std::vector<QByteArray> lines = [] {
        std::vector<QByteArray> made;
        made.reserve(last - first + 1);
        for (int code = first; code <= last; ++code)
            made.push_back("HTTP/1.1 " + QByteArray::number(code) + ' ' + reasonPhrase(code) + "\r\n");
        return made;
    }();
    if (status >= first && status <= last)
        out += lines[size_t(status - first)];
    else
        out += "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
}

void appendNumber(QByteArray &out, qint64 value)
{
    std::array<char, 24> digits{};
    const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value).ptr;
    out.append(digits.data(), end - digits.data());
}

} // namespace

Connection::Connection(Host &host, QTcpSocket *socket, const Settings &settings)
    : m_host(host), m_id(settings.id), m_socket(socket), m_tls(settings.tls), m_overCapacity(settings.overCapacity)
{
    m_peer = socket->peerAddress().toString() + QLatin1Char(':') + QString::number(socket->peerPort());
    HttpRequestParser::Limits limits;
    limits.maxBodyBytes = settings.maxBodyBytes;
    m_parser = HttpRequestParser(limits);
    socket->setReadBufferSize(socketReadBufferBytes);
    // Answers go out in one piece and are not held back by Nagle's
    // algorithm waiting for an ACK: a fault's timing is the server's choice.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);

    m_idleTimer = new QTimer(socket);
    m_idleTimer->setSingleShot(true);
    m_idleMs = m_overCapacity ? std::min(settings.idleTimeoutMs, overCapacityIdleMs) : settings.idleTimeoutMs;
    m_idleTimer->setInterval(m_idleMs);
    m_requestTimer = new QTimer(socket);
    m_requestTimer->setSingleShot(true);
    m_pace = RequestPace(settings.headerTimeoutMs, settings.minBodyBytesPerSecond);
    m_requestTimer->setInterval(m_pace.periodMs());
    m_waitingSinceNs = m_host.clock().nowNs();
}

Connection::~Connection()
{
    m_host.adjustHeldBytes(-m_heldBytes);
}

void Connection::updateHeldBytes()
{
    const qint64 held = m_parser.heldBytes() + m_request.body.size();
    m_host.adjustHeldBytes(held - m_heldBytes);
    m_heldBytes = held;
}

template<typename Function>
auto Connection::guarded(Function function)
{
    return [weak = weak_from_this(), function = std::move(function)] {
        if (const std::shared_ptr<Connection> self = weak.lock())
            function(*self);
    };
}

void Connection::start()
{
    QTcpSocket *socket = m_socket;
    QObject::connect(socket, &QTcpSocket::readyRead, socket, guarded([](Connection &c) { c.handleReadable(); }));
    QObject::connect(socket, &QTcpSocket::disconnected, socket, guarded([](Connection &c) { c.handleDisconnected(); }));
    QObject::connect(m_idleTimer, &QTimer::timeout, socket, guarded([](Connection &c) { c.handleIdle(); }));
    QObject::connect(
        m_requestTimer, &QTimer::timeout, socket, guarded([](Connection &c) { c.handleRequestTimeout(); }));
    touchIdle();
    if (socket->bytesAvailable() > 0)
        handleReadable();
}

void Connection::abort()
{
    m_entryPending = false;
    m_state = State::Closing;
    if (m_socket) {
        m_socket->disconnect();
        m_socket->abort();
        m_socket->deleteLater();
    }
}

void Connection::handleReadable()
{
    if (!m_socket)
        return;
    if (m_lingering) {
        m_socket->readAll();
        return;
    }
    if (m_state != State::Reading)
        return; // busy connections read on when their answer is out
    if (m_socket->bytesToWrite() > maxUnsentBytes) {
        waitForDrain(); // the client does not read its answers: read no more of its requests
        return;
    }
    if (m_parser.bufferedBytes() >= socketReadBufferBytes)
        return; // pipelined requests enough for now: resume() reads on when they are answered
    const QByteArray data = m_socket->readAll();
    if (data.isEmpty() && !m_parser.isPartial() && m_parser.bufferedBytes() == 0)
        return;
    m_bytesReceived += data.size();
    touchIdle();
    if (m_host.heldBytes() + data.size() > m_host.maxHeldBytes()) {
        // All connections together hold as much of their requests as the server allows: this one waits outside.
        answerProtocolError(503,
            Tr::tr("the server holds %1 MiB of requests not yet answered, its limit; try again")
                .arg(m_host.maxHeldBytes() / (1024 * 1024)),
            QStringLiteral("over-capacity"));
        return;
    }
    processParser(m_parser.feed(data));
    updateHeldBytes();
    updateRequestTimer();
}

void Connection::updateRequestTimer()
{
    const bool partial = m_socket && m_state == State::Reading && m_parser.isPartial();
    switch (m_pace.afterRead(partial, m_parser.isReadingBody(), m_bytesReceived, m_requestTimer->isActive())) {
    case RequestPace::Timer::Stop:
        m_requestTimer->stop();
        break;
    case RequestPace::Timer::Start:
        if (!m_requestTimer->isActive())
            m_waitingSinceNs = m_host.clock().nowNs();
        m_requestTimer->start();
        break;
    case RequestPace::Timer::Keep:
        break;
    }
}

void Connection::handleRequestTimeout()
{
    if (!m_socket || m_state != State::Reading || !m_parser.isPartial())
        return;
    if (const auto missed = m_pace.expired(m_parser.isReadingBody(), m_bytesReceived))
        answerDeadline(*missed);
    else
        m_requestTimer->start();
}

bool Connection::isEvictable() const
{
    return m_socket && m_state == State::Reading && !m_lingering;
}

bool Connection::hasIncompleteRequest() const
{
    return m_parser.isPartial();
}

void Connection::evict(const QString &why)
{
    ServerLogEntry entry;
    entry.time = m_host.clock().wallTime();
    entry.peer = m_peer;
    entry.tls = m_tls;
    entry.action = QStringLiteral("evicted");
    entry.detail = why;
    m_host.record(std::move(entry));
    abort();
}

void Connection::processParser(HttpRequestParser::Status status)
{
    switch (status) {
    case HttpRequestParser::Status::NeedMore:
        if (m_parser.expectsContinue() && !m_overCapacity) {
            m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
            m_parser.acknowledgeContinue();
        }
        return;
    case HttpRequestParser::Status::Error:
        if (m_overCapacity) {
            answerProtocolError(
                503, Tr::tr("the server is at its limit of connections"), QStringLiteral("over-capacity"));
            return;
        }
        answerProtocolError(m_parser.errorStatus(), m_parser.errorString(), QStringLiteral("reject"));
        return;
    case HttpRequestParser::Status::Complete:
        m_request = m_parser.takeRequest();
        dispatch();
        return;
    }
}

void Connection::waitForDrain()
{
    if (m_drainPending)
        return;
    m_drainPending = true;
    auto link = std::make_shared<QMetaObject::Connection>();
    *link = QObject::connect(m_socket, &QTcpSocket::bytesWritten, m_socket, guarded([link](Connection &c) {
        if (!c.m_socket || c.m_socket->bytesToWrite() > maxUnsentBytes / 2)
            return;
        QObject::disconnect(*link);
        c.m_drainPending = false;
        c.resume();
    }));
}

void Connection::streamFill(qint64 left, std::function<void(Connection &)> then)
{
    if (!m_socket)
        return;
    static const QByteArray block(streamBlockBytes, 'x');
    while (left > 0 && m_socket->bytesToWrite() < maxUnsentBytes) {
        const qint64 n = std::min<qint64>(left, block.size());
        m_socket->write(block.constData(), n);
        m_bytesSent += n;
        left -= n;
    }
    if (left == 0) {
        then(*this);
        return;
    }
    // Written as the client takes it: a client that does not read holds at most maxUnsentBytes of it.
    auto link = std::make_shared<QMetaObject::Connection>();
    *link = QObject::connect(
        m_socket, &QTcpSocket::bytesWritten, m_socket, guarded([link, left, then = std::move(then)](Connection &c) {
            if (!c.m_socket || c.m_socket->bytesToWrite() >= maxUnsentBytes / 2)
                return;
            QObject::disconnect(*link);
            c.streamFill(left, then);
        }));
}

void Connection::resume()
{
    if (!m_socket || m_state != State::Reading)
        return;
    if (m_socket->bytesToWrite() > maxUnsentBytes) {
        waitForDrain();
        return;
    }
    const HttpRequestParser::Status status = m_parser.next();
    if (status == HttpRequestParser::Status::NeedMore && m_socket->bytesAvailable() > 0) {
        handleReadable();
        return;
    }
    processParser(status);
    updateRequestTimer();
}

void Connection::handleDisconnected()
{
    m_host.forget(m_id);
    if (!m_tls.isEmpty() && !m_servedAny && m_state == State::Reading && !m_parser.isPartial()) {
        // The client took the certificate in the handshake and then left: a
        // client that checks the host name itself afterwards (curl) refuses it so.
        ServerLogEntry entry;
        entry.time = m_host.clock().wallTime();
        entry.peer = m_peer;
        entry.tls = m_tls;
        entry.action = QStringLiteral("tls-closed");
        entry.detail = Tr::tr("the client closed the connection after the TLS handshake without sending a request");
        m_host.record(std::move(entry));
    }
    if (!m_deadlineMissed.isEmpty()) { // the client left before its 408 went out
        ServerLogEntry entry;
        entry.time = m_host.clock().wallTime();
        entry.peer = m_peer;
        entry.tls = m_tls;
        entry.action = QStringLiteral("reject");
        entry.detail = Tr::tr("%1; the client closed the connection before the 408 went out").arg(m_deadlineMissed);
        m_host.record(std::move(entry));
    }
    if (m_entryPending) {
        const double ms = (m_host.clock().nowNs() - m_startNs) / 1e6;
        finishRequest(QStringLiteral("client-closed"),
            Tr::tr("the client closed the connection after %1 ms, before the server finished (%2)")
                .arg(ms, 0, 'f', 1)
                .arg(m_pendingAction),
            std::nullopt);
    }
    m_state = State::Closing;
    if (m_socket)
        m_socket->deleteLater();
}

void Connection::touchIdle()
{
    m_sinceActivity.start();
    if (!m_idleTimer->isActive())
        m_idleTimer->start(m_idleMs);
}

void Connection::handleIdle()
{
    if (!m_socket || m_state != State::Reading)
        return;
    // The timer is not restarted at every read (two timer changes per request cost more
    // than the rest of answering one): it fires at the first deadline and, when there
    // was activity since, waits for what is left.
    const qint64 quietMs = m_sinceActivity.elapsed();
    if (quietMs < m_idleMs) {
        m_idleTimer->start(static_cast<int>(m_idleMs - quietMs));
        return;
    }
    if (m_parser.isPartial()) {
        answerDeadline(Tr::tr("no complete request within %1 ms").arg(m_idleMs));
        return;
    }
    qCDebug(lcConnection) << "closing idle connection from" << m_peer;
    m_state = State::Closing;
    m_host.deferTimeout(guarded([](Connection &c) {
        if (c.m_socket)
            c.m_socket->disconnectFromHost();
    }));
}

void Connection::answerDeadline(const QString &message)
{
    // Read and wait no more from now; the answer comes in its turn.
    m_state = State::Busy;
    m_idleTimer->stop();
    m_requestTimer->stop();
    m_deadlineMissed = message;
    m_host.deferTimeout(guarded([](Connection &c) {
        const QString missed = std::exchange(c.m_deadlineMissed, QString());
        if (c.m_socket && !missed.isEmpty())
            c.answerProtocolError(408, missed, QStringLiteral("reject"));
    }));
}

void Connection::answerProtocolError(int status, const QString &message, const QString &action)
{
    // The stream cannot be trusted after a malformed request: answer and close.
    m_state = State::Busy;
    m_idleTimer->stop();
    m_requestTimer->stop();
    // Nothing of the request is trustworthy, not even its method: log the peer only.
    m_entry = ServerLogEntry{};
    m_entry.time = m_host.clock().wallTime();
    m_entry.peer = m_peer;
    m_entry.tls = m_tls;
    m_entryPending = true;
    m_servedAny = true;
    m_startNs = m_host.clock().nowNs();
    m_entry.receivedNs = m_startNs;
    m_bytesSent = 0;
    m_request = HttpRequest{};
    m_request.minorVersion = 1;
    ResponsePlan p = ResponsePlan::error(status, message);
    p.close = true;
    p.action = action;
    if (status == 503)
        p.addHeader("Retry-After", "1");
    execute(std::move(p));
}

void Connection::dispatch()
{
    // The idle timer runs on: handleIdle() does nothing while the connection is
    // busy, and afterAnswer() starts it again if it stopped meanwhile.
    m_state = State::Busy;
    m_requestTimer->stop();
    m_pace.reset();
    m_startNs = m_host.clock().nowNs();
    m_bytesSent = 0;
    const HttpRequest &r = m_request;

    ServerLogEntry &e = m_entry;
    e = ServerLogEntry{};
    e.time = m_host.clock().wallTime();
    e.peer = m_peer;
    e.tls = m_tls;
    e.method = r.method;
    e.target = QString::fromUtf8(r.target);
    e.testId = QString::fromLatin1(r.header(RetryHeaders::testId).value_or(QByteArray()).trimmed());
    e.clientAttempt = QString::fromLatin1(r.header(RetryHeaders::attempt).value_or(QByteArray()).trimmed());
    e.receivedNs = m_startNs;
    e.identityHeaders = ServerLogEntry::identityHeadersOf(r.headers);
    e.bodyDigest = ServerLogEntry::bodyDigestOf(r.body);
    e.requestDigest = ServerLogEntry::requestDigestOf(r.target, r.headers);
    m_entryPending = true;
    m_servedAny = true;

    if (m_overCapacity) {
        ResponsePlan p = ResponsePlan::error(
            503, Tr::tr("the server is at its limit of %1 connections; try again").arg(m_host.maxConnections()));
        p.addHeader("Retry-After", "1");
        p.close = true;
        p.action = QStringLiteral("over-capacity");
        execute(std::move(p));
        return;
    }
    execute(m_host.decide(r, e));
}

qint64 Connection::writeHead(int status, const QList<QPair<QByteArray, QByteArray>> &headers,
    const QByteArray &contentType, qint64 contentLength, bool keepAlive, const QString &action, const QByteArray &body)
{
    // Built by appending into memory kept from the last answer: no temporary per piece.
    QByteArray &head = m_head;
    head.resize(0);
    head.reserve(256 + body.size());
    appendStatusLine(head, status);
    head += "Date: ";
    head += m_host.dateHeader();
    head += "\r\nServer: RetryLab-FaultServer\r\n";
    if (contentLength >= 0 && statusHasBody(status)) {
        if (!contentType.isEmpty()) {
            head += "Content-Type: ";
            head += contentType;
            head += "\r\n";
        }
        head += "Content-Length: ";
        appendNumber(head, contentLength);
        head += "\r\n";
    }
    if (!keepAlive)
        head += "Connection: close\r\n";
    else if (m_request.minorVersion == 0)
        head += "Connection: keep-alive\r\n";
    head += "X-RetryLab-Action: ";
    for (const QChar c : action) // a machine name, ASCII
        head += c.toLatin1();
    head += "\r\n";
    if (!m_entry.testId.isEmpty()) {
        head += RetryHeaders::testId;
        head += ": ";
        head += m_entry.testId.toLatin1();
        head += "\r\n";
    }
    for (const auto &[name, value] : headers) {
        head += name;
        head += ": ";
        head += value;
        head += "\r\n";
    }
    head += "\r\n";
    head += body;
    const qint64 size = head.size();
    const qint64 direct = SocketControl::writeNow(m_socket, head);
    if (direct < size) {
        // Shared with the socket's buffer when it is large, not copied, unless part went out.
        m_socket->write(direct == 0 ? head : head.sliced(direct));
        // Out now rather than at the next turn of the loop, when the socket says it is writable.
        m_socket->flush();
    }
    m_bytesSent += size;
    return size;
}

void Connection::execute(ResponsePlan plan)
{
    if (!m_socket)
        return;
    QTcpSocket *socket = m_socket;
    const bool head = m_request.method == "HEAD";
    const bool keepAlive = m_request.keepAlive && !plan.close;
    m_pendingAction = plan.action;

    switch (plan.kind) {
    case ResponsePlan::Kind::Wait:
        m_pendingAction = Tr::tr("waiting %1 ms").arg(plan.waitMs);
        QTimer::singleShot(plan.waitMs, Qt::PreciseTimer, socket, guarded([then = std::move(plan.then)](Connection &c) {
            if (c.m_state == State::Busy)
                c.execute(then());
        }));
        return;
    case ResponsePlan::Kind::Respond: {
        if (const auto retryAfter = plan.header("Retry-After"))
            m_entry.retryAfter = *retryAfter;
        const bool body = statusHasBody(plan.status);
        if (plan.pauseMs > 0 && body && !head && plan.pauseAfterBytes < plan.body.size()) {
            executePausedBody(std::move(plan), keepAlive);
            return;
        }
        writeHead(plan.status, plan.headers, plan.contentType, body ? plan.body.size() : 0, keepAlive, plan.action,
            body && !head ? plan.body : QByteArray());
        finishRequest(plan.action, plan.detail, plan.status);
        afterAnswer(keepAlive);
        return;
    }
    case ResponsePlan::Kind::Reset:
        finishRequest(plan.action, plan.detail, std::nullopt);
        m_state = State::Closing;
        SocketControl::reset(socket);
        return;
    case ResponsePlan::Kind::ResetAfterHeaders:
        writeHead(200, plan.headers, "application/octet-stream", plan.announcedBytes, true, plan.action);
        socket->flush();
        finishRequest(plan.action, plan.detail, 200);
        m_state = State::Closing;
        QTimer::singleShot(resetAfterHeadersDelayMs, socket, [socket] { SocketControl::reset(socket); });
        return;
    case ResponsePlan::Kind::Empty:
        finishRequest(plan.action, plan.detail, std::nullopt);
        m_state = State::Closing;
        socket->disconnectFromHost();
        return;
    case ResponsePlan::Kind::Stall:
        // The request stays unanswered; the connection lives until the client gives up.
        finishRequest(plan.action, plan.detail, std::nullopt);
        m_state = State::Stalled;
        return;
    case ResponsePlan::Kind::BrokenStream:
        executeBrokenStream(std::move(plan), head);
        return;
    case ResponsePlan::Kind::Garbage:
        socket->write(ResponsePlan::garbageBytes());
        m_bytesSent += ResponsePlan::garbageBytes().size();
        finishRequest(plan.action, plan.detail, std::nullopt);
        m_state = State::Closing;
        socket->disconnectFromHost();
        return;
    case ResponsePlan::Kind::Drip:
        writeHead(200, plan.headers, "text/plain", plan.dripBytes, keepAlive, plan.action);
        m_pendingAction = Tr::tr("dripping %1 bytes, one every %2 ms").arg(plan.dripBytes).arg(plan.dripIntervalMs);
        m_entry.detail = plan.detail;
        if (head) {
            finishRequest(plan.action, plan.detail, 200);
            afterAnswer(keepAlive);
            return;
        }
        dripNext(plan.dripBytes, plan.dripIntervalMs, keepAlive);
        return;
    }
}

void Connection::executePausedBody(ResponsePlan plan, bool keepAlive)
{
    const qint64 first = std::max<qint64>(0, plan.pauseAfterBytes);
    writeHead(
        plan.status, plan.headers, plan.contentType, plan.body.size(), keepAlive, plan.action, plan.body.first(first));
    m_pendingAction = Tr::tr("pausing %1 ms after %2 body bytes").arg(plan.pauseMs).arg(first);
    m_entry.detail = plan.detail;
    QTimer::singleShot(plan.pauseMs, Qt::PreciseTimer, m_socket,
        guarded([rest = plan.body.sliced(first), action = plan.action, detail = plan.detail, status = plan.status,
                    keepAlive](Connection &c) {
            if (!c.m_socket || c.m_state != State::Busy)
                return;
            c.m_socket->write(rest);
            c.m_bytesSent += rest.size();
            c.finishRequest(action, detail, status);
            c.afterAnswer(keepAlive);
        }));
}

void Connection::executeBrokenStream(ResponsePlan plan, bool head)
{
    if (!plan.body.isEmpty()) {
        // A real answer cut short: its status, headers and the first sentBytes of its body.
        const qint64 sent = head ? 0 : std::clamp<qint64>(plan.sentBytes, 0, plan.body.size());
        writeHead(plan.status, plan.headers, plan.contentType, plan.announcedBytes, false, plan.action,
            plan.body.first(sent));
        m_socket->flush();
        finishRequest(plan.action, plan.detail, plan.status);
        m_state = State::Closing;
        m_socket->disconnectFromHost();
        return;
    }
    // The body is written as the client takes it, never built whole: 16 MiB
    // to a client that does not read costs maxUnsentBytes, not 16 MiB.
    const qint64 body = head ? 0 : plan.sentBytes;
    if (plan.chunked) {
        plan.addHeader("Content-Type", "application/octet-stream");
        plan.addHeader("Transfer-Encoding", "chunked");
        writeHead(200, plan.headers, {}, -1, false, plan.action,
            body > 0 ? QByteArray::number(body, 16) + "\r\n" : QByteArray());
    } else {
        writeHead(200, plan.headers, "application/octet-stream", plan.announcedBytes, false, plan.action);
    }
    m_state = State::Busy;
    const bool chunked = plan.chunked && body > 0;
    streamFill(body, [action = plan.action, detail = plan.detail, chunked](Connection &c) {
        if (chunked) {
            c.m_socket->write("\r\n");
            c.m_bytesSent += 2;
        }
        c.finishRequest(action, detail, 200);
        c.m_state = State::Closing;
        c.m_socket->disconnectFromHost();
    });
}

void Connection::dripNext(qint64 left, int intervalMs, bool keepAlive)
{
    if (!m_socket)
        return;
    QTimer::singleShot(intervalMs, Qt::PreciseTimer, m_socket, guarded([left, intervalMs, keepAlive](Connection &c) {
        if (!c.m_socket || c.m_state != State::Busy)
            return;
        c.m_socket->write("x", 1);
        c.m_bytesSent += 1;
        if (left > 1) {
            c.dripNext(left - 1, intervalMs, keepAlive);
            return;
        }
        c.finishRequest(QStringLiteral("drip"), c.m_entry.detail, 200);
        c.afterAnswer(keepAlive);
    }));
}

void Connection::finishRequest(const QString &action, const QString &detail, std::optional<int> status)
{
    if (!m_entryPending)
        return;
    m_entryPending = false;
    ServerLogEntry entry = m_entry;
    entry.action = action;
    entry.detail = detail;
    entry.status = status;
    entry.bytesSent = m_bytesSent;
    entry.durationMs = (m_host.clock().nowNs() - m_startNs) / 1e6;
    m_host.record(std::move(entry));
}

void Connection::afterAnswer(bool keepAlive)
{
    if (!m_socket)
        return;
    if (!keepAlive) {
        lingeringClose();
        return;
    }
    m_state = State::Reading;
    m_request = HttpRequest{};
    updateHeldBytes();
    touchIdle();
    m_waitingSinceNs = m_host.clock().nowNs();
    // Go on with pipelined requests (or requests that arrived while this one was
    // answered) from the event loop, not by recursion; with none, the next read does.
    if (m_parser.bufferedBytes() > 0 || m_socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(m_socket, guarded([](Connection &c) { c.resume(); }), Qt::QueuedConnection);
}

void Connection::lingeringClose()
{
    m_state = State::Closing;
    m_lingering = true;
    m_idleTimer->stop();
    m_requestTimer->stop();
    QTcpSocket *socket = m_socket;
    // Over TLS the answer is out once its encrypted bytes are: the FIN goes
    // without close_notify, after a complete answer, as the linger needs it.
    auto *tls = qobject_cast<QSslSocket *>(socket);
    // One timer: the write stall while the answer goes out, then the linger.
    auto *deadline = new QTimer(socket);
    deadline->setSingleShot(true);
    QObject::connect(deadline, &QTimer::timeout, socket, [socket] { socket->abort(); });
    auto finSent = std::make_shared<bool>(false);
    const auto finWhenFlushed = [socket, tls, finSent, deadline] {
        if (*finSent)
            return;
        if (socket->bytesToWrite() == 0 && (!tls || tls->encryptedBytesToWrite() == 0)) {
            *finSent = true;
            SocketControl::shutdownWrite(socket);
            deadline->start(lingerMs);
        } else {
            deadline->start(writeStallMs); // progress: the reader gets another stall period
        }
    };
    QObject::connect(socket, &QTcpSocket::bytesWritten, socket, finWhenFlushed);
    if (tls)
        QObject::connect(tls, &QSslSocket::encryptedBytesWritten, socket, finWhenFlushed);
    finWhenFlushed();
    socket->readAll();
}

} // namespace RetryLab::Core
