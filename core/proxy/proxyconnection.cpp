#include "core/proxy/proxyconnection.h"

#include "core/http/fieldname.h"
#include "core/http/httpheaders.h"
#include "core/http/rawbytes.h"
#include "core/http/redactor.h"
#include "core/proxy/proxyserver.h"
#include "core/runtime/socketcontrol.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <tuple>
#include <utility>

// One job: one client connection of the proxy and its upstream, kept in step. Reading
// the client, forwarding upstream, streaming the answer back under back-pressure and
// applying the faults all turn on one exchange's state; a client half and an upstream
// half would only pass that state between two classes.

namespace RetryLab::Core {

namespace {

Q_LOGGING_CATEGORY(lcProxyConnection, "retrylab.proxy.connection", QtInfoMsg)

/// Upstream reads happen in pieces of this size, so that a fast upstream
/// cannot make one read hold a whole large body.
constexpr qint64 readPieceBytes = 64 * 1024;

/// Where unbuffered sockets are read into. What is read goes on at once (into the request
/// parser or the response stream, which keep their own copies), so one buffer serves every
/// connection of the thread; a QTcpSocket would copy into its buffer first.
char *pieceBuffer()
{
    thread_local QByteArray buffer(readPieceBytes, Qt::Uninitialized);
    return buffer.data();
}

/// One read of an unbuffered socket into pieceBuffer(): the bytes read (none when nothing
/// waits), or nothing at all once the peer has closed, which such a socket says no other way.
std::optional<QByteArrayView> readPiece(QAbstractSocket *socket)
{
    if (socket->state() != QAbstractSocket::ConnectedState)
        return std::nullopt;
    char *piece = pieceBuffer();
    const qint64 n = socket->read(piece, readPieceBytes);
    if (n < 0)
        return std::nullopt;
    return QByteArrayView(piece, n);
}

/// The most room of a request or head it wrote that a connection keeps for the next (a large
/// body's is given back).
constexpr qsizetype keptWriteRoom = 16 * 1024;

/// A bandwidth limit releases bytes this often.
constexpr int throttleTickMs = 20;

/// The fields that are hop-by-hop whatever the Connection field says (RFC 9110 section 7.6.1).
bool isFixedHopByHop(QByteArrayView name)
{
    // Compared in place, case-insensitively, and only with the names of its length: every
    // field of every request and answer is asked, and most have a length no such name has.
    switch (name.size()) {
    case 2:
        return sameFieldName(name, "te");
    case 7:
        return sameFieldName(name, "trailer") || sameFieldName(name, "upgrade");
    case 10:
        return sameFieldName(name, "connection") || sameFieldName(name, "keep-alive");
    case 16:
        return sameFieldName(name, "proxy-connection");
    case 18:
        return sameFieldName(name, "proxy-authenticate");
    case 19:
        return sameFieldName(name, "proxy-authorization");
    default:
        return false;
    }
}

/// Hop-by-hop fields, and those the Connection field names.
bool isHopByHop(const QByteArray &name, const QList<QByteArray> &named)
{
    const auto same = [&name](QByteArrayView other) { return sameFieldName(name, other); };
    return isFixedHopByHop(name) || std::any_of(named.cbegin(), named.cend(), same);
}

/// The bytes of the header lines, to reserve a head's room at once.
qsizetype headBytes(const HeaderList &headers)
{
    qsizetype bytes = 0;
    for (const auto &[name, value] : headers)
        bytes += name.size() + value.size() + 4;
    return bytes;
}

QList<QByteArray> connectionOptions(const HeaderList &headers)
{
    QList<QByteArray> named;
    for (const auto &[name, value] : headers) {
        if (!sameFieldName(name, "Connection"))
            continue;
        // Read in place: "keep-alive", what nearly every answer says, names a field that is
        // dropped anyway, and splitting and lower-casing it cost three allocations an answer.
        const QByteArrayView options = value;
        qsizetype from = 0;
        while (from <= options.size()) {
            qsizetype comma = indexOfByte(options, ',', from);
            if (comma < 0)
                comma = options.size();
            const QByteArrayView option = options.sliced(from, comma - from).trimmed();
            if (!option.isEmpty() && !isFixedHopByHop(option))
                named.append(option.toByteArray().toLower());
            from = comma + 1;
        }
    }
    return named;
}

/// A Connection field's value names "close", in any case.
bool namesClose(QByteArrayView value)
{
    for (qsizetype at = 0; at + 5 <= value.size(); ++at) {
        if (sameFieldName(value.sliced(at, 5), "close"))
            return true;
    }
    return false;
}

/// "http://host:port" of an absolute-form target, empty for any other.
QByteArrayView originOf(QByteArrayView target)
{
    const qsizetype scheme = target.indexOf("://");
    if (scheme <= 0)
        return {};
    const qsizetype path = target.indexOf('/', scheme + 3);
    return path < 0 ? target : target.first(path);
}

/// The detail of every forwarded answer, translated once rather than per request.
const QString &answeredText()
{
    static const QString text = Tr::tr("the upstream answered %1 %2");
    return text;
}

/// "the upstream answered 200 OK": an upstream answers the same status again and again,
/// and formatting it cost more than the rest of ending the exchange; the last is kept.
QString answeredDetail(int code, const QByteArray &reason)
{
    thread_local int lastCode = -1;
    thread_local QByteArray lastReason;
    thread_local QString lastDetail;
    if (code != lastCode || reason != lastReason) {
        lastDetail = answeredText().arg(QString::number(code), QString::fromLatin1(reason));
        lastCode = code;
        lastReason = reason;
    }
    return lastDetail;
}

/// Writes a head into a buffer allocated once for it, piece by piece. Qt 6.4's
/// QByteArray::append(QByteArrayView) goes through insert(), about a hundred instructions a
/// piece, and a head is twenty pieces; QByteArray::number() costs four hundred.
class HeadWriter final
{
public:
    /// `room`: what the head will take (it grows beyond if need be). `buffer`: an array to write
    /// into, all its room, when it holds as much and is not shared; otherwise a new one is made.
    explicit HeadWriter(qsizetype room, QByteArray buffer = {}) : m_out(std::move(buffer))
    {
        room = std::max<qsizetype>(room, 64);
        if (m_out.isDetached() && m_out.capacity() >= room)
            m_out.resize(m_out.capacity());
        else
            m_out = QByteArray(room, Qt::Uninitialized);
        m_at = m_out.data();
        m_end = m_at + m_out.size();
    }
    HeadWriter(const HeadWriter &) = delete;
    HeadWriter &operator=(const HeadWriter &) = delete;

    HeadWriter &operator<<(QByteArrayView piece)
    {
        const qsizetype n = piece.size();
        if (n <= 0)
            return *this;
        char *out = room(n);
        std::memcpy(out, piece.data(), size_t(n));
        m_at = out + n;
        return *this;
    }
    HeadWriter &operator<<(char c)
    {
        *room(1) = c;
        ++m_at;
        return *this;
    }
    /// A non-negative number in decimal.
    HeadWriter &number(qint64 value)
    {
        std::array<char, 24> digits{};
        qsizetype at = qsizetype(digits.size());
        do {
            digits[size_t(--at)] = char('0' + value % 10);
            value /= 10;
        } while (value > 0 && at > 0);
        return *this << QByteArrayView(digits.data() + at, qsizetype(digits.size()) - at);
    }
    /// "name: value\r\n", its room made once.
    void field(QByteArrayView name, QByteArrayView value)
    {
        char *out = room(name.size() + value.size() + 4);
        if (!name.isEmpty())
            std::memcpy(out, name.data(), size_t(name.size()));
        out += name.size();
        *out++ = ':';
        *out++ = ' ';
        if (!value.isEmpty())
            std::memcpy(out, value.data(), size_t(value.size()));
        out += value.size();
        *out++ = '\r';
        *out++ = '\n';
        m_at = out;
    }
    /// The head, its room beyond what was written kept for bytes appended to it.
    QByteArray take()
    {
        m_out.truncate(m_at - m_out.constData());
        return std::move(m_out);
    }

private:
    /// Where `n` more bytes go: the buffer is written through a pointer, not resized or
    /// detach-checked at every piece, and grows only when the room made first runs out.
    char *room(qsizetype n)
    {
        if (n > m_end - m_at) {
            const qsizetype used = m_at - m_out.constData();
            m_out.resize(std::max(m_out.size() * 2, used + n));
            m_at = m_out.data() + used;
            m_end = m_out.data() + m_out.size();
        }
        return m_at;
    }

    QByteArray m_out;
    char *m_at = nullptr; ///< where the next byte goes, in m_out
    char *m_end = nullptr; ///< the end of m_out's bytes
};

/// The path prefix and the Host value of requests to `upstream`.
std::pair<QByteArray, QByteArray> upstreamPieces(const QUrl &upstream)
{
    QByteArray prefix = upstream.path(QUrl::FullyEncoded).toLatin1();
    if (prefix.endsWith('/'))
        prefix.chop(1);
    const int defaultPort = upstream.scheme() == QLatin1String("https") ? 443 : 80;
    QByteArray host = upstream.host(QUrl::FullyEncoded).toLatin1();
    if (host.contains(':'))
        host = '[' + host + ']';
    if (upstream.port(defaultPort) != defaultPort)
        host += ':' + QByteArray::number(upstream.port(defaultPort));
    return {prefix, host};
}

/// RFC 9110 section 9.2.2.
bool isIdempotent(const QByteArray &method)
{
    static const QList<QByteArray> methods{"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"};
    return methods.contains(method);
}

HttpRequestParser::Limits parserLimits(const ProxyOptions &options)
{
    HttpRequestParser::Limits limits;
    limits.acceptConnect = options.forward; // a reverse proxy has no tunnels to open
    return limits;
}

QString addressOf(const QAbstractSocket *socket)
{
    QHostAddress address = socket->peerAddress();
    bool ok = false;
    const QHostAddress v4(address.toIPv4Address(&ok));
    if (ok)
        address = v4;
    return address.toString();
}

} // namespace

ProxyConnection::ProxyConnection(ProxyServer *server, QAbstractSocket *client)
    : QObject(server), m_server(server), m_client(client), m_connectTimer(new QTimer(this)),
      m_idleTimer(new QTimer(this)), m_requestTimer(new QTimer(this)),
      m_pace(server->options().headerTimeoutMs, server->options().minBodyBytesPerSecond),
      m_parser(parserLimits(server->options())), m_faultTimer(new QTimer(this)), m_throttleTimer(new QTimer(this))
{
    m_faultTimer->setSingleShot(true);
    m_faultTimer->setTimerType(Qt::PreciseTimer);
    connect(m_faultTimer, &QTimer::timeout, this, &ProxyConnection::faultTimerFired);
    m_throttleTimer->setInterval(throttleTickMs);
    m_throttleTimer->setTimerType(Qt::PreciseTimer);
    connect(m_throttleTimer, &QTimer::timeout, this, &ProxyConnection::releaseThrottled);
    client->setParent(this);
    m_clientIsTls = qobject_cast<QSslSocket *>(client) != nullptr;
    m_clientUnbuffered = SocketControl::isUnbuffered(client);
    m_clientAddress = addressOf(client);
    m_clientAddressLatin1 = m_clientAddress.toLatin1();
    m_peer = m_clientAddress + QLatin1Char(':') + QString::number(client->peerPort());
    m_connectTimer->setSingleShot(true);
    m_idleTimer->setSingleShot(true);
    m_requestTimer->setSingleShot(true);
    m_requestTimer->setInterval(m_pace.periodMs());
    connect(m_requestTimer, &QTimer::timeout, this, &ProxyConnection::requestTimedOut);
    m_waitingSinceNs = SteadyClock::instance().nowNs();
    connect(m_connectTimer, &QTimer::timeout, this, [this] {
        upstreamFailed(
            Tr::tr("the upstream did not accept a connection within %1 ms").arg(m_server->options().connectTimeoutMs),
            504, QStringLiteral("upstream-timeout"));
    });
    connect(m_idleTimer, &QTimer::timeout, this, &ProxyConnection::idleTimerFired);
    // Beyond this Qt stops reading the client: while reading is paused, TCP holds it back.
    // (An unbuffered one holds nothing: what is not read waits in the kernel.)
    if (!m_clientUnbuffered)
        client->setReadBufferSize(256 * 1024);
    // Written as they come, past Qt's buffer (writeNow): Nagle's algorithm would hold a
    // second small write back until the client's delayed ACK, 40 ms.
    client->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(client, &QAbstractSocket::readyRead, this, &ProxyConnection::readClient);
    connect(client, &QAbstractSocket::bytesWritten, this, &ProxyConnection::clientWrote);
    if (auto *tls = qobject_cast<QSslSocket *>(client))
        connect(tls, &QSslSocket::encryptedBytesWritten, this, &ProxyConnection::clientWrote);
    connect(client, &QAbstractSocket::disconnected, this, &ProxyConnection::clientGone);
    touchIdle();
}

ProxyConnection::~ProxyConnection() = default;

void ProxyConnection::touchIdle()
{
    m_activityNs = SteadyClock::instance().nowNs();
    if (!m_idleTimer->isActive())
        m_idleTimer->start(m_server->options().idleTimeoutMs);
}

void ProxyConnection::idleTimerFired()
{
    // The timer is not restarted at every request (three timer changes per request cost
    // more than parsing it): it fires at the first deadline and, when there was activity
    // since or an exchange runs, waits for what is left.
    const qint64 idleMs = m_server->options().idleTimeoutMs;
    const qint64 quietMs = (SteadyClock::instance().nowNs() - m_activityNs) / 1'000'000;
    if (m_busy || quietMs < idleMs) {
        m_idleTimer->start(int(m_busy ? idleMs : std::max<qint64>(1, idleMs - quietMs)));
        return;
    }
    if (m_client)
        m_client->disconnectFromHost();
}

void ProxyConnection::releaseHeldBytes()
{
    m_server->adjustHeldBytes(-m_heldBytes);
    m_heldBytes = 0;
}

void ProxyConnection::updateHeldBytes()
{
    qint64 held = m_parser.heldBytes();
    for (const HttpRequest &queued : std::as_const(m_queue))
        held += queued.body.size();
    m_server->adjustHeldBytes(held - m_heldBytes);
    m_heldBytes = held;
}

void ProxyConnection::abort()
{
    if (m_upstream)
        m_upstream->abort();
    if (m_client)
        m_client->abort();
}

qint64 ProxyConnection::bufferedBytes() const
{
    // An unbuffered upstream holds nothing (and asking would cost a system call).
    return pendingToClient() + (m_upstream && !m_upstreamUnbuffered ? m_upstream->bytesAvailable() : 0);
}

qint64 ProxyConnection::clientBytesToWrite() const
{
    if (!m_client)
        return 0;
    // An intercepted tunnel's socket moves its plain bytes into its encrypted buffer at once:
    // those count as waiting for the client too, or a slow reader would hold nothing back.
    if (!m_clientIsTls) // known once: qobject_cast on every call cost more than the rest
        return m_client->bytesToWrite();
    const auto *tls = static_cast<const QSslSocket *>(m_client.data());
    return m_client->bytesToWrite() + tls->encryptedBytesToWrite();
}

qint64 ProxyConnection::pendingToClient() const
{
    return clientBytesToWrite() + m_throttled.size();
}

QByteArray ProxyConnection::upstreamRequest(
    const HttpRequest &r, const QUrl &upstream, bool keepHost, const QString &clientAddress)
{
    const auto [prefix, host] = upstreamPieces(upstream);
    return upstreamRequest(r, prefix, host, keepHost, clientAddress.toLatin1());
}

QByteArray ProxyConnection::upstreamRequest(const HttpRequest &r, QByteArrayView prefix, QByteArrayView host,
    bool keepHost, QByteArrayView clientAddress, QByteArray buffer)
{
    QByteArrayView target = r.target;
    QByteArray originForm;
    if (target.startsWith("http://") || target.startsWith("https://")) { // absolute-form: the path is what counts
        originForm = r.path + (r.query.isEmpty() ? QByteArray() : "?" + r.query);
        target = originForm;
    }
    // One allocation, not one per line.
    HeadWriter out(headBytes(r.headers) + r.method.size() + prefix.size() + target.size() + host.size()
            + clientAddress.size() + r.body.size() + 256,
        std::move(buffer));
    out << r.method << ' ' << prefix << target << " HTTP/1.1\r\n";
    const QList<QByteArray> named = connectionOptions(r.headers);
    bool hostSent = false;
    bool forwardedFor = false;
    for (const auto &[name, value] : r.headers) {
        if (sameFieldName(name, "X-Forwarded-For")) {
            forwardedFor = true;
            continue;
        }
        if (isHopByHop(name, named) || sameFieldName(name, "Content-Length") || sameFieldName(name, "Transfer-Encoding")
            || sameFieldName(name, "Expect"))
            continue;
        if (sameFieldName(name, "Host")) {
            if (!keepHost)
                continue;
            hostSent = true;
        }
        out.field(name, value);
    }
    if (!hostSent)
        out.field("Host", host);
    out << "X-Forwarded-For: ";
    if (forwardedFor) {
        const QByteArray forwarded = headerValue(r.headers, "X-Forwarded-For").value_or(QByteArray());
        if (!forwarded.isEmpty())
            out << forwarded << ", ";
    }
    out << clientAddress << "\r\n";
    out << "Via: 1.";
    out.number(std::max(0, r.minorVersion)) << " retrylab\r\n";
    // Compared as views, the lengths first: QByteArray's operator== with a literal compares the bytes.
    const QByteArrayView method = r.method;
    if (!r.body.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH") {
        out << "Content-Length: ";
        out.number(r.body.size()) << "\r\n";
    }
    out << "\r\n" << r.body;
    return out.take();
}

QByteArray ProxyConnection::clientHead(const HttpResponseStream::Head &head, bool close, bool clientIsHttp10,
    bool dropChunking, qsizetype reserveAfter, QByteArray buffer)
{
    // Room for the body's first bytes too, which go out in the same write (readUpstream()).
    HeadWriter out(headBytes(head.headers) + head.reason.size() + 64 + reserveAfter, std::move(buffer));
    out << "HTTP/1.1 ";
    out.number(std::max(0, head.status)) << ' ';
    if (head.reason.isEmpty())
        out << reasonPhrase(head.status);
    else
        out << head.reason;
    out << "\r\n";
    const QList<QByteArray> named = connectionOptions(head.headers);
    for (const auto &[name, value] : head.headers) {
        if (isHopByHop(name, named) || (dropChunking && sameFieldName(name, "Transfer-Encoding")))
            continue;
        out.field(name, value);
    }
    if (close)
        out << "Connection: close\r\n";
    else if (clientIsHttp10)
        out << "Connection: keep-alive\r\n";
    out << "\r\n";
    QByteArray written = out.take();
    written.reserve(written.size() + reserveAfter); // kept, not shrunk: the body follows
    return written;
}

void ProxyConnection::writeNow(QAbstractSocket *socket, const QByteArray &bytes)
{
    // Straight to the kernel when the socket holds nothing of its own, as the fault server
    // does: one system call, where QTcpSocket::write() turns a write notifier on, waits a
    // turn of the event loop, writes, and turns it off (two epoll_ctl and a wake-up). What
    // the kernel does not take goes through the socket as before, bytesWritten() and all.
    const qint64 direct = SocketControl::writeNow(socket, bytes);
    if (direct >= bytes.size())
        return;
    const qint64 queued = socket->write(direct == 0 ? bytes : bytes.sliced(direct));
    // An unbuffered socket says a failed write by its result alone (no errorOccurred(), no
    // disconnected()): a client that reset while its reading was paused would keep the
    // connection until the exchange ended, which a stall never does.
    if (queued < 0 && socket == m_client)
        QMetaObject::invokeMethod(this, &ProxyConnection::clientGone, Qt::QueuedConnection);
}

qint64 ProxyConnection::writeClient(const QByteArray &bytes)
{
    if (!m_client || bytes.isEmpty())
        return 0;
    writeNow(m_client, bytes);
    m_bytesToClient += bytes.size();
    return bytes.size();
}

void ProxyConnection::readClient()
{
    if (!m_client)
        return;
    // Bytes after a CONNECT are the tunnel's: they wait in the socket until it opens.
    if (connectWaiting())
        return;
    const ProxyOptions &options = m_server->options();
    // An unbuffered client's bytes wait in the kernel and are read a piece at a time: how
    // many is asked (FIONREAD) only when a piece could reach the limit.
    const bool nearLimit = !m_clientUnbuffered || m_server->heldBytes() + readPieceBytes > options.maxHeldBytes;
    if (!m_closing && nearLimit && m_server->heldBytes() + m_client->bytesAvailable() > options.maxHeldBytes) {
        if (m_busy) {
            // An exchange runs on this connection: the client waits (TCP holds it back) until it ends.
            m_readingPaused = true;
            return;
        }
        // All clients together hold as much of their requests as the proxy allows: this one waits outside.
        m_client->readAll();
        if (m_clientUnbuffered && m_client->state() != QAbstractSocket::ConnectedState) {
            clientGone(); // it closed as it was read, and says so no other way
            return;
        }
        rejectRequest(503,
            Tr::tr("the proxy holds %1 MiB of requests not yet sent upstream, its limit; try again")
                .arg(options.maxHeldBytes / (1024 * 1024)));
        return;
    }
    m_readingPaused = false;
    QByteArray buffered;
    QByteArrayView bytes;
    if (m_clientUnbuffered) {
        // One read a turn: what is left makes the socket readable again at the next.
        const auto piece = readPiece(m_client);
        if (!piece) {
            clientGone(); // the client closed: an unbuffered socket emits no disconnected()
            return;
        }
        bytes = *piece;
    } else {
        buffered = m_client->readAll();
        bytes = buffered;
    }
    if (m_closing)
        return; // the connection ends after the answer in progress: nothing more is taken up
    m_bytesFromClient += bytes.size();
    if (!m_busy)
        touchIdle(); // a slow request is still activity
    HttpRequestParser::Status status = m_parser.feed(bytes);
    while (status == HttpRequestParser::Status::Complete) {
        m_queue.append(m_parser.takeRequest());
        // What follows a CONNECT is the tunnel's (a TLS hello), not another request.
        if (m_server->options().forward && m_queue.constLast().method == "CONNECT")
            break;
        status = m_parser.next();
    }
    if (m_parser.expectsContinue()) {
        // Only between answers: inside one it would be part of that answer. A
        // client that is not told waits a moment and sends its body anyway.
        if (!m_busy && m_queue.isEmpty())
            m_client->write("HTTP/1.1 100 Continue\r\n\r\n");
        m_parser.acknowledgeContinue();
    }
    updateHeldBytes();
    pump();
    updateRequestTimer();
}

bool ProxyConnection::connectWaiting() const
{
    if (!m_server->options().forward || m_interceptUpstream.isValid())
        return false;
    if (m_busy && m_request.method == "CONNECT")
        return true;
    return std::any_of(m_queue.cbegin(), m_queue.cend(), [](const HttpRequest &r) { return r.method == "CONNECT"; });
}

void ProxyConnection::updateRequestTimer()
{
    // Timed only between exchanges: while one runs, what the client sends next waits its turn.
    const bool partial = m_client && !m_closing && !m_busy && m_queue.isEmpty() && m_parser.isPartial();
    switch (m_pace.afterRead(partial, m_parser.isReadingBody(), m_bytesFromClient, m_requestTimer->isActive())) {
    case RequestPace::Timer::Stop:
        m_requestTimer->stop();
        break;
    case RequestPace::Timer::Start:
        m_requestTimer->start();
        break;
    case RequestPace::Timer::Keep:
        break;
    }
}

void ProxyConnection::requestTimedOut()
{
    if (!m_client || m_closing || m_busy || !m_queue.isEmpty() || !m_parser.isPartial())
        return;
    if (const auto missed = m_pace.expired(m_parser.isReadingBody(), m_bytesFromClient))
        rejectRequest(408, *missed);
    else
        m_requestTimer->start();
}

bool ProxyConnection::isEvictable() const
{
    return m_client && !m_busy && !m_closing && m_queue.isEmpty();
}

void ProxyConnection::evict()
{
    m_requestTimer->stop();
    m_idleTimer->stop();
    if (m_client && m_parser.isPartial()) {
        rejectRequest(503, Tr::tr("the proxy is at its connection limit, and this connection waited longest"));
        return;
    }
    if (m_upstream)
        dropUpstream();
    if (m_client)
        m_client->disconnectFromHost(); // clientGone() then lets the connection go
}

void ProxyConnection::rejectMalformed()
{
    rejectRequest(m_parser.errorStatus(), m_parser.errorString());
}

void ProxyConnection::rejectRequest(int status, const QString &message, const HttpRequest *request)
{
    m_requestTimer->stop();
    m_entry = ServerLogEntry{};
    m_entry.time = QDateTime::currentDateTimeUtc();
    m_entry.peer = m_peer;
    if (request) {
        m_entry.method = request->method;
        m_entry.target = QString::fromUtf8(request->target);
    }
    m_entry.receivedNs = SteadyClock::instance().nowNs();
    m_startNs = m_entry.receivedNs;
    m_busy = true;
    m_bytesToClient = 0;
    m_fault = ProxyFault{};
    m_throttled.clear();
    m_afterFlush = nullptr;
    m_closeAfter = true;
    answerLocally(
        status, message, QStringLiteral("reject"), status == 503 ? QByteArray("Retry-After: 1\r\n") : QByteArray());
}

void ProxyConnection::pump()
{
    if (m_busy || !m_client || m_closing)
        return;
    if (m_queue.isEmpty()) {
        // A malformed request is answered once the requests before it are.
        if (m_parser.status() == HttpRequestParser::Status::Error)
            rejectMalformed();
        return;
    }
    m_requestTimer->stop();
    m_busy = true;
    m_request = m_queue.takeFirst();
    updateHeldBytes();
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
    // A client asks for the same target again and again (polling, retrying): its text is made once.
    if (m_lastTargetText.isNull() || m_request.target != m_lastTarget) {
        m_lastTarget = m_request.target;
        m_lastTargetText = QString::fromUtf8(m_request.target);
    }
    m_entry.target = m_lastTargetText;
    m_entry.receivedNs = m_startNs;
    m_entry.identityHeaders = ServerLogEntry::identityHeadersOf(m_request.headers);
    m_entry.bodyDigest = ServerLogEntry::bodyDigestOf(m_request.body);
    m_entry.requestDigest = ServerLogEntry::requestDigestOf(m_request.target, m_request.headers);

    ++m_exchange;
    m_dechunk = false;
    if (m_interceptUpstream.isValid()) {
        // Inside an intercepted tunnel: requests are origin-form, for the tunnel's server.
        if (!m_request.target.startsWith('/')) {
            m_fault = ProxyFault{};
            rejectRequest(400,
                Tr::tr("inside an intercepted tunnel to %1 only requests for it are taken (GET /path)")
                    .arg(m_interceptUpstream.toString()),
                &m_request);
            return;
        }
        m_entry.target = m_interceptUpstream.toString(QUrl::StripTrailingSlash) + m_entry.target;
    } else if (m_server->options().forward) {
        const auto [status, refusal] = ProxyServer::forwardRefusal(m_request, m_server->options().connectPorts);
        if (status != 0) {
            m_fault = ProxyFault{};
            rejectRequest(status, refusal, &m_request);
            return;
        }
    }
    // With interception the rules are for the requests inside; the CONNECT itself is not faulted.
    const bool intercepting = m_server->options().intercept && m_request.method == "CONNECT";
    m_fault = intercepting ? ProxyFault{} : m_server->decideFault(m_request, m_peer);
    m_waiting = Waiting::Nothing;
    m_responseHeld = m_fault.delayBeforeResponseMs <= 0.0;
    m_upstreamClosePending = false;
    m_connectionFault = false;
    m_throttled.clear();
    m_throttleStartNs = 0;
    m_throttleSent = 0;
    m_afterFlush = nullptr;
    // A fault that answers without the upstream waits both delays before it answers.
    const double wait = m_fault.delayBeforeForwardMs + (m_fault.callsUpstream() ? 0.0 : m_fault.delayBeforeResponseMs);
    if (wait > 0.0) {
        m_waiting = Waiting::BeforeForward;
        m_faultTimer->start(std::max(1, int(std::lround(wait))));
        return;
    }
    proceed();
}

void ProxyConnection::proceed()
{
    if (!m_fault.callsUpstream()) {
        applyLocalFault();
        return;
    }
    if (m_server->options().forward && m_request.method == "CONNECT") {
        if (m_server->options().intercept)
            intercept();
        else
            handOverTunnel();
        return;
    }
    // A forward proxy's requests each name their upstream; a kept-alive connection serves only its own.
    // A reverse proxy's is always the same: its URL is not compared again at every request.
    if (m_server->options().forward || m_upstreamUrl.isEmpty()) {
        const QUrl upstream = exchangeUpstream();
        if (upstream != m_upstreamUrl) {
            if (m_upstream)
                dropUpstream();
            m_upstreamUrl = upstream;
            m_upstreamPiecesMade = false;
        }
    }
    if (m_server->options().forward && !m_interceptUpstream.isValid())
        m_upstreamOrigin = originOf(m_request.target).toByteArray();
    // Bytes that came after the last answer (while its end was still being delivered) answer nothing.
    if (m_upstream && m_upstreamUnbuffered) {
        if (m_upstreamUnread)
            upstreamStillClean();
    } else if (m_upstream && m_upstream->bytesAvailable() > 0) {
        dropUnsolicitedUpstream(m_upstream->bytesAvailable());
    }
    m_reusedUpstream = m_upstream && m_upstream->state() == QAbstractSocket::ConnectedState;
    if (m_reusedUpstream)
        sendRequest();
    else
        connectUpstream();
}

QUrl ProxyConnection::exchangeUpstream() const
{
    if (!m_server->options().forward)
        return m_server->options().upstream;
    if (m_interceptUpstream.isValid())
        return m_interceptUpstream;
    // A client sends request after request to the same origin: its URL is not parsed again.
    if (!m_upstreamOrigin.isEmpty() && originOf(m_request.target) == m_upstreamOrigin)
        return m_upstreamUrl;
    const QUrl target(QString::fromLatin1(m_request.target));
    QUrl upstream;
    upstream.setScheme(target.scheme().toLower());
    upstream.setHost(target.host());
    upstream.setPort(target.port());
    return upstream;
}

void ProxyConnection::handOverTunnel()
{
    // The client's socket and whatever it sent past the CONNECT go to a tunnel; this connection ends here.
    // A forward proxy's clients are QTcpSockets (ProxyListener), which a tunnel takes as they are.
    QTcpSocket *client = qobject_cast<QTcpSocket *>(m_client.data());
    if (!client) {
        rejectRequest(500, Tr::tr("this connection cannot carry a tunnel"), &m_request);
        return;
    }
    m_client = nullptr;
    m_busy = false;
    m_idleTimer->stop();
    m_requestTimer->stop();
    m_faultTimer->stop();
    client->disconnect(this);
    const QByteArray early = m_parser.takeBuffered();
    m_server->openTunnel(client, m_request, m_fault, m_entry, early);
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
    }
    m_server->forget(this);
}

void ProxyConnection::intercept()
{
    auto *tls = qobject_cast<QSslSocket *>(m_client.data());
    const QString host = QString::fromLatin1(FaultRuleSet::requestHost(m_request));
    const quint16 port = quint16(m_request.target.mid(m_request.target.lastIndexOf(':') + 1).toUInt());
    if (!m_parser.takeBuffered().isEmpty() || m_client->bytesAvailable() > 0) {
        // TLS can only start on a connection that carried nothing past the CONNECT.
        m_closeAfter = true;
        answerLocally(400,
            Tr::tr("bytes came before the tunnel was open; TLS interception needs the client to wait "
                   "for the proxy's 200"),
            QStringLiteral("reject"));
        return;
    }
    const auto certificate = m_server->interceptCertificate(host);
    if (!tls || !certificate) {
        m_closeAfter = true;
        answerLocally(500, certificate ? Tr::tr("the connection cannot carry TLS") : certificate.error(),
            QStringLiteral("reject"));
        return;
    }
    m_interceptUpstream.setScheme(QStringLiteral("https"));
    m_interceptUpstream.setHost(host);
    m_interceptUpstream.setPort(port);
    writeClient("HTTP/1.1 200 Connection established\r\n\r\n");
    tls->flush();
    m_closeAfter = false; // an HTTP/1.0 CONNECT (Python's http.client sends one) keeps its tunnel too
    finishExchange(QStringLiteral("intercept"),
        Tr::tr("TLS intercepted with the proxy's CA; the requests inside follow as https://%1:%2").arg(host).arg(port),
        200);
    tls->setLocalCertificate(certificate->first);
    tls->setPrivateKey(certificate->second);
    tls->setProtocol(QSsl::TlsV1_2OrLater);
    tls->setPeerVerifyMode(QSslSocket::VerifyNone); // no client certificate is asked for
    connect(tls, &QSslSocket::errorOccurred, this, [this, host](QAbstractSocket::SocketError error) {
        if (error != QAbstractSocket::SslHandshakeFailedError && error != QAbstractSocket::SslInternalError)
            return;
        // The client refused the certificate (it does not trust the CA) or spoke no TLS.
        ServerLogEntry refused;
        refused.time = QDateTime::currentDateTimeUtc();
        refused.peer = m_peer;
        refused.method = "CONNECT";
        refused.target = QStringLiteral("%1:%2").arg(host).arg(m_interceptUpstream.port());
        refused.action = QStringLiteral("intercept-refused");
        refused.detail = Tr::tr("the TLS handshake with the client failed (%1): does it trust the proxy's CA?")
                             .arg(m_client ? m_client->errorString() : QString());
        m_server->record(refused);
    });
    tls->startServerEncryption();
}

void ProxyConnection::faultTimerFired()
{
    if (!m_busy || !m_client)
        return;
    const Waiting waiting = std::exchange(m_waiting, Waiting::Nothing);
    if (waiting == Waiting::BeforeForward) {
        proceed();
    } else if (waiting == Waiting::BeforeResponse) {
        m_responseHeld = true;
        const quint64 exchange = m_exchange;
        readUpstream();
        if (m_busy && exchange == m_exchange && m_upstreamClosePending && !m_paused && m_upstream)
            finishUpstreamClose(m_upstream);
    }
}

void ProxyConnection::applyLocalFault()
{
    switch (m_fault.outcome) {
    case ProxyFault::Outcome::Status: {
        QByteArray extra;
        if (m_fault.retryAfterS) {
            m_entry.retryAfter = QByteArray::number(*m_fault.retryAfterS, 'g', 12);
            extra = "Retry-After: " + m_entry.retryAfter + "\r\n";
        }
        answerLocally(m_fault.status,
            Tr::tr("%1 from a fault rule of the proxy; the upstream was not called").arg(m_fault.status),
            QStringLiteral("fault-status"), extra);
        break;
    }
    case ProxyFault::Outcome::Empty:
        m_closeAfter = true;
        finishExchange(QStringLiteral("empty"), Tr::tr("the connection was closed without a reply"), std::nullopt);
        break;
    case ProxyFault::Outcome::Reset:
        m_closeAfter = true;
        m_connectionFault = true;
        finishExchange(
            QStringLiteral("reset"), Tr::tr("the connection was reset; the request was not forwarded"), std::nullopt);
        resetClient();
        break;
    case ProxyFault::Outcome::Stall:
        break; // no answer: clientGone() records it when the client gives up
    case ProxyFault::Outcome::Forward:
    case ProxyFault::Outcome::Cut:
    case ProxyFault::Outcome::Corrupt:
        break;
    }
}

void ProxyConnection::resetClient()
{
    if (!m_client)
        return;
    m_client->flush();
    SocketControl::reset(m_client);
}

void ProxyConnection::deliver(const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return;
    if (m_fault.bandwidthBytesPerS <= 0) {
        writeClient(bytes);
        return;
    }
    m_throttled += bytes;
    if (!m_throttleTimer->isActive()) {
        if (m_throttleStartNs == 0)
            m_throttleStartNs = SteadyClock::instance().nowNs();
        m_throttleTimer->start();
        releaseThrottled();
    }
}

void ProxyConnection::releaseThrottled()
{
    // What the rate allows by the end of the current tick, less what went out.
    const double elapsedS = double(SteadyClock::instance().nowNs() - m_throttleStartNs) / 1e9 + throttleTickMs / 1000.0;
    const qint64 allowed = qint64(double(m_fault.bandwidthBytesPerS) * elapsedS) - m_throttleSent;
    const qint64 n = std::min<qint64>(allowed, m_throttled.size());
    if (n > 0 && m_client) {
        writeClient(m_throttled.first(n));
        m_throttled.remove(0, n);
        m_throttleSent += n;
    }
    if (!m_throttled.isEmpty())
        return;
    m_throttleTimer->stop();
    if (m_afterFlush) {
        const std::function<void()> finish = std::move(m_afterFlush);
        m_afterFlush = nullptr;
        finish();
    }
}

void ProxyConnection::deliverHead(QByteArray head)
{
    if (head.isEmpty())
        return; // none was written (it went out before), and the room kept stays
    deliver(head);
    // What the kernel did not take went into the socket's buffer or m_throttled (a copy, or
    // a shared array that the next head written into it leaves alone).
    if (head.capacity() <= keptWriteRoom)
        m_headBuffer = std::move(head);
}

bool ProxyConnection::forwardBody(QByteArray body, QByteArray head)
{
    if (body.isEmpty()) {
        deliverHead(std::move(head));
        return false;
    }
    const QList<HttpResponseStream::Piece> &pieces = m_stream.payload();
    if (m_fault.outcome == ProxyFault::Outcome::Corrupt && m_fault.corruptEvery > 0) {
        // The content's bytes at offsets 0, N, 2N, ... inverted; the chunk framing is left alone.
        const qint64 every = m_fault.corruptEvery;
        for (const HttpResponseStream::Piece &p : pieces) {
            for (qint64 k = (p.offset + every - 1) / every * every; k < p.offset + p.length; k += every) {
                char &c = body[p.at + qsizetype(k - p.offset)];
                c = char(~c);
            }
        }
    }
    // cut=N counts the content's bytes, not the chunk framing: the wire stops
    // where content byte N would have started.
    qsizetype wireEnd = body.size();
    bool cut = false;
    if (m_fault.outcome == ProxyFault::Outcome::Cut && m_stream.head().status >= 200) {
        for (const HttpResponseStream::Piece &p : pieces) {
            if (p.offset + p.length > m_fault.cutAfterBytes) {
                wireEnd = p.at + qsizetype(std::max<qint64>(0, m_fault.cutAfterBytes - p.offset));
                cut = true;
                break;
            }
        }
    }
    if (m_dechunk) {
        // An HTTP/1.0 client cannot read chunked framing: it gets the content, and the close ends it.
        QByteArray content;
        for (const HttpResponseStream::Piece &p : pieces) {
            const qsizetype end = std::min(p.at + p.length, wireEnd);
            if (end > p.at)
                content += body.mid(p.at, end - p.at);
        }
        deliver(head + content);
    } else {
        body.truncate(wireEnd);
        if (head.isEmpty()) {
            deliver(body);
        } else {
            appendBytes(head, body); // in the room clientHead() reserved
            deliverHead(std::move(head));
        }
    }
    return cut;
}

void ProxyConnection::connectUpstream()
{
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
        m_upstream->deleteLater();
    }
    const QUrl &upstream = m_upstreamUrl;
    const bool tls = upstream.scheme() == QLatin1String("https");
    // A plain upstream reads unbuffered (SocketControl::unbufferedMode): what is not read waits
    // in the kernel, and TCP holds the upstream back. QSslSocket decrypts into its own buffer.
    QAbstractSocket *socket = tls ? new QSslSocket(this) : new QAbstractSocket(QAbstractSocket::TcpSocket, this);
    m_upstream = socket;
    m_upstreamUnbuffered = !tls;
    m_upstreamUnread = false;
    if (tls)
        socket->setReadBufferSize(4 * readPieceBytes); // beyond it Qt stops reading: TCP holds the upstream back
    // Set once connected (before the request goes out): until then the socket has no
    // descriptor, and Qt drops the option.
    connect(socket, &QAbstractSocket::connected, socket,
        [socket] { socket->setSocketOption(QAbstractSocket::LowDelayOption, 1); });
    connect(socket, &QAbstractSocket::readyRead, this, &ProxyConnection::readUpstream);
    connect(socket, &QAbstractSocket::disconnected, this, &ProxyConnection::upstreamClosed);
    connect(socket, &QAbstractSocket::errorOccurred, this, [this, socket](QAbstractSocket::SocketError error) {
        if (socket != m_upstream || error == QAbstractSocket::RemoteHostClosedError)
            return;
        if (socket->state() != QAbstractSocket::ConnectedState && !m_headSent && m_busy)
            upstreamFailed(
                Tr::tr("the upstream %1 cannot be reached: %2").arg(m_upstreamUrl.toString(), socket->errorString()),
                502, QStringLiteral("upstream-unreachable"));
    });
    const int port = upstream.port(tls ? 443 : 80);
    m_connectTimer->start(m_server->options().connectTimeoutMs);
    if (tls) {
        auto *ssl = static_cast<QSslSocket *>(socket);
        if (!m_server->caCertificates().isEmpty()) {
            // The system's CAs named as well: adding to Qt's default turns off its loading of them
            // on demand, and a public upstream would then be refused. Read once, as the executor does.
            static const QList<QSslCertificate> system = QSslConfiguration::systemCaCertificates();
            QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
            configuration.setCaCertificates(system + m_server->caCertificates());
            ssl->setSslConfiguration(configuration);
        }
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
        connect(socket, &QAbstractSocket::connected, this, [this] {
            m_connectTimer->stop();
            sendRequest();
        });
        socket->connectToHost(upstream.host(), quint16(port), SocketControl::unbufferedMode);
    }
}

void ProxyConnection::sendRequest()
{
    if (!m_busy || !m_upstream)
        return;
    if (!m_upstreamPiecesMade) {
        // Made once per upstream rather than at every request: QUrl's encoded path and host cost.
        std::tie(m_upstreamPrefix, m_upstreamHost) = upstreamPieces(m_upstreamUrl);
        m_upstreamPiecesMade = true;
    }
    QByteArray request = upstreamRequest(m_request, m_upstreamPrefix, m_upstreamHost, m_server->options().keepHost,
        m_clientAddressLatin1, std::move(m_requestBuffer));
    writeNow(m_upstream, request);
    // Its room serves the next request: what the kernel did not take went into the socket's
    // buffer (a copy, or a shared one that the next write into it leaves alone).
    if (request.capacity() <= keptWriteRoom)
        m_requestBuffer = std::move(request);
    m_server->countUpstreamRequest();
    m_recording = m_server->recorder() != nullptr;
    if (m_recording) {
        m_sentUpstreamNs = SteadyClock::instance().nowNs();
        m_record = RecordedExchange{};
        m_record.method = m_request.method;
        m_record.path = m_request.path;
        m_record.query = RecordedExchange::maskedQuery(m_request.query);
        m_record.bodySha256 = RecordedExchange::sha256Of(m_request.body);
        m_record.origin = m_upstreamUrl.toString(QUrl::StripTrailingSlash);
        const Redactor redactor;
        for (const auto &[name, value] : m_request.headers)
            m_record.requestHeaders.append({name, redactor.headerValue(name, value)});
    }
}

void ProxyConnection::recordHead()
{
    const HttpResponseStream::Head &head = m_stream.head();
    m_record.status = head.status;
    m_record.reason = head.reason;
    const QList<QByteArray> named = connectionOptions(head.headers);
    for (const auto &[name, value] : head.headers) {
        // A HEAD's or a 304's Content-Length names a body that is not there: it is kept as it was.
        const bool lengthWithoutBody = m_request.method == "HEAD" || head.status == 304;
        if (isHopByHop(name, named) || sameFieldName(name, "Transfer-Encoding")
            || (sameFieldName(name, "Content-Length") && !lengthWithoutBody))
            continue;
        m_record.headers.append({name, value});
    }
    m_record.firstByteMs = double(SteadyClock::instance().nowNs() - m_sentUpstreamNs) / 1e6;
}

void ProxyConnection::recordBody()
{
    const QByteArray &wire = m_stream.body();
    const qsizetype before = m_record.body.size();
    for (const HttpResponseStream::Piece &piece : m_stream.payload())
        m_record.body.append(wire.constData() + piece.at, piece.length);
    const qint64 added = m_record.body.size() - before;
    // Too large to replay from memory, or all connections together hold too much: not recorded.
    if (m_record.body.size() > RecordingWriter::maxBodyBytes || !m_server->reserveRecording(added)) {
        abandonRecording(true);
        return;
    }
    m_recordingHeld += added;
}

void ProxyConnection::abandonRecording(bool countSkipped)
{
    if (!m_recording)
        return;
    m_recording = false;
    m_record = RecordedExchange{};
    m_server->releaseRecording(std::exchange(m_recordingHeld, 0));
    if (countSkipped && m_server->recorder())
        m_server->recorder()->countSkipped();
}

void ProxyConnection::recordEnd()
{
    m_recording = false;
    m_server->releaseRecording(std::exchange(m_recordingHeld, 0));
    m_record.durationMs = double(SteadyClock::instance().nowNs() - m_sentUpstreamNs) / 1e6;
    m_record.recorded = QDateTime::currentDateTimeUtc();
    m_server->recordExchange(std::exchange(m_record, RecordedExchange{}));
}

void ProxyConnection::readUpstream()
{
    if (!m_upstream)
        return;
    if (!m_busy) {
        // Nothing was asked: these bytes must not become the answer to the next request.
        if (m_upstreamUnbuffered)
            upstreamStillClean();
        else if (m_upstream->bytesAvailable() > 0)
            dropUnsolicitedUpstream(m_upstream->bytesAvailable());
        return;
    }
    if (m_afterFlush) {
        m_upstreamUnread = m_upstreamUnbuffered; // the next exchange looks before it sends
        return;
    }
    if (!m_responseHeld) {
        // A delay before responding starts when the upstream's answer begins to arrive (an
        // unbuffered upstream's readyRead() says so: it comes once until the socket is read).
        if (m_waiting == Waiting::Nothing && (m_upstreamUnbuffered || m_upstream->bytesAvailable() > 0)) {
            m_waiting = Waiting::BeforeResponse;
            m_faultTimer->start(std::max(1, int(std::lround(m_fault.delayBeforeResponseMs))));
        }
        return;
    }
    // What next() read from bytes already received after an interim answer is
    // handled before anything more is read.
    std::optional<HttpResponseStream::Status> carried;
    // An unbuffered upstream is read until a read comes back short: the kernel had no more,
    // and asking again would be one more system call for nothing.
    bool readable = true;
    while (m_busy && m_upstream && (carried || (m_upstreamUnbuffered ? readable : m_upstream->bytesAvailable() > 0))) {
        HttpResponseStream::Status status;
        if (carried) {
            status = *std::exchange(carried, std::nullopt);
        } else {
            if (m_client && pendingToClient() > m_server->bufferLimitPerConnection()) {
                m_paused = true; // clientWrote() reads on
                return;
            }
            if (m_upstreamUnbuffered) {
                if (m_upstream->state() != QAbstractSocket::ConnectedState)
                    return; // it closed: finishUpstreamClose() ends the exchange
                const auto piece = readPiece(m_upstream);
                m_upstreamUnread = false;
                if (!piece) {
                    finishUpstreamClose(m_upstream); // its close, which it signals no other way
                    return;
                }
                if (piece->isEmpty())
                    return;
                readable = piece->size() == readPieceBytes;
                status = m_stream.feed(*piece);
            } else {
                status = m_stream.feed(m_upstream->read(std::min(m_upstream->bytesAvailable(), readPieceBytes)));
            }
        }
        if (status == HttpResponseStream::Status::Error) {
            if (!m_headSent) {
                upstreamFailed(Tr::tr("the upstream's answer is not HTTP: %1").arg(m_stream.errorString()), 502,
                    QStringLiteral("upstream-broken"));
            } else {
                // Part of the answer went out already: the client sees the break as it happened.
                m_connectionFault = true;
                m_closeAfter = true;
                finishExchange(QStringLiteral("upstream-broken"), m_stream.errorString(), m_stream.head().status);
                resetClient();
            }
            return;
        }
        const int code = m_stream.headComplete() ? m_stream.head().status : 0;
        const bool clientIsHttp10 = m_request.minorVersion == 0;
        // The head goes out with the body's first bytes: one write, one segment.
        QByteArray head;
        if (m_stream.headComplete() && !m_headSent) {
            const bool final = code >= 200;
            if (final && m_fault.outcome == ProxyFault::Outcome::Reset
                && m_fault.resetPoint == FaultRule::ResetPoint::BeforeHeaders) {
                dropUpstream();
                m_closeAfter = true;
                m_connectionFault = true;
                finishExchange(QStringLiteral("reset"),
                    Tr::tr("the upstream answered %1; the client got a reset instead").arg(code), std::nullopt);
                resetClient();
                return;
            }
            m_headSent = true;
            const bool chunked = m_stream.framing() == HttpResponseStream::Framing::Chunked;
            m_dechunk = final && clientIsHttp10 && chunked;
            m_closeAfter = m_closeAfter || m_stream.framing() == HttpResponseStream::Framing::UntilClose || m_dechunk;
            if (final || !clientIsHttp10) // HTTP/1.0 has no interim answers
                head = clientHead(m_stream.head(), final && m_closeAfter, clientIsHttp10, m_dechunk,
                    m_stream.body().size(), std::move(m_headBuffer));
            if (const auto retryAfter = headerValue(m_stream.head().headers, "Retry-After"))
                m_entry.retryAfter = *retryAfter;
            if (final && m_fault.outcome == ProxyFault::Outcome::Reset) {
                deliver(head);
                dropUpstream();
                m_closeAfter = true;
                m_connectionFault = true;
                endAfterFlush([this, code] {
                    finishExchange(QStringLiteral("reset-after-headers"),
                        Tr::tr("the upstream answered %1; the client got its headers, then a reset").arg(code), code);
                    resetClient();
                });
                return;
            }
        }
        if (m_recording && m_stream.headComplete() && code >= 200) {
            if (m_record.status == 0)
                recordHead();
            recordBody();
        }
        if (forwardBody(m_stream.body(), std::move(head))) {
            dropUpstream();
            m_closeAfter = true;
            endAfterFlush([this, code] {
                finishExchange(QStringLiteral("broken-stream"),
                    Tr::tr("the upstream answered %1; the connection was closed after %2 bytes of the body")
                        .arg(code)
                        .arg(m_fault.cutAfterBytes),
                    code);
            });
            return;
        }
        if (status == HttpResponseStream::Status::Complete) {
            if (code >= 100 && code < 200) {
                // An interim answer (100 Continue): the final one follows on the same exchange.
                m_headSent = false;
                carried = m_stream.next();
                continue;
            }
            const bool upstreamCloses = m_stream.head().minorVersion == 0
                || namesClose(headerValue(m_stream.head().headers, "Connection").value_or(QByteArray()));
            // More after the answer than it framed: an answer nobody asked for, never handed on.
            const bool unsolicited = m_stream.bufferedBytes() > 0;
            if (unsolicited) {
                qCWarning(lcProxyConnection).noquote()
                    << "the upstream sent" << m_stream.bufferedBytes()
                    << "bytes after its answer; its connection is closed instead of reused";
            }
            if (m_recording)
                recordEnd();
            if (upstreamCloses || unsolicited)
                dropUpstream(false);
            endAfterFlush([this, code, detail = answeredDetail(code, m_stream.head().reason)] {
                const bool corrupt = m_fault.outcome == ProxyFault::Outcome::Corrupt;
                finishExchange(corrupt ? QStringLiteral("corrupt") : QStringLiteral("forwarded"), detail, code);
            });
            return;
        }
    }
}

void ProxyConnection::dropUnsolicitedUpstream(qint64 bytes)
{
    qCWarning(lcProxyConnection).noquote()
        << "the upstream sent" << bytes << "bytes nobody asked for; its connection is closed";
    dropUpstream();
}

bool ProxyConnection::upstreamStillClean()
{
    m_upstreamUnread = false;
    const auto piece = readPiece(m_upstream);
    if (piece && piece->isEmpty())
        return true;
    if (piece)
        dropUnsolicitedUpstream(piece->size());
    else
        dropUpstream(); // it closed while idle: the next request connects anew
    return false;
}

void ProxyConnection::dropUpstream(bool abort)
{
    if (!m_upstream)
        return;
    m_upstream->disconnect(this);
    if (abort)
        m_upstream->abort();
    else
        m_upstream->disconnectFromHost();
    m_upstream->deleteLater();
    m_upstream = nullptr;
}

template<typename Finish>
void ProxyConnection::endAfterFlush(Finish finish)
{
    // Called at once when nothing is throttled: a std::function would allocate for the lambda.
    if (m_throttled.isEmpty())
        finish();
    else
        m_afterFlush = std::move(finish);
}

void ProxyConnection::clientWrote()
{
    if (m_paused && m_client && pendingToClient() <= m_server->bufferLimitPerConnection() / 2) {
        m_paused = false;
        const quint64 exchange = m_exchange;
        readUpstream();
        // The upstream closed while the client was behind: the close counts once all it sent is read.
        if (m_busy && exchange == m_exchange && m_upstreamClosePending && !m_paused && m_upstream)
            finishUpstreamClose(m_upstream);
    }
    if (!m_busy && m_closeAfter && !m_connectionFault && m_client && clientBytesToWrite() == 0)
        m_client->disconnectFromHost();
}

void ProxyConnection::upstreamClosed()
{
    auto *socket = qobject_cast<QAbstractSocket *>(sender());
    if (socket != m_upstream)
        return;
    if (!m_responseHeld && socket->bytesAvailable() > 0) {
        m_upstreamClosePending = true; // the answer is held back: the close counts once it is read
        return;
    }
    finishUpstreamClose(socket);
}

void ProxyConnection::finishUpstreamClose(QAbstractSocket *socket)
{
    m_upstreamClosePending = false;
    // Read what is still buffered before the close counts.
    const quint64 exchange = m_exchange;
    m_responseHeld = true;
    readUpstream();
    if (!m_busy || exchange != m_exchange || socket != m_upstream || m_afterFlush)
        return;
    if (m_paused && socket->bytesAvailable() > 0) {
        m_upstreamClosePending = true; // the client is behind: clientWrote() reads on, then closes
        return;
    }
    m_upstream = nullptr;
    socket->deleteLater();
    const bool nothingReceived = !m_stream.headComplete() && m_stream.bufferedBytes() == 0;
    const HttpResponseStream::Status status = m_stream.finish();
    if (nothingReceived && m_reusedUpstream && isIdempotent(m_request.method)) {
        // A kept-alive connection the upstream closed as the request went out
        // (RFC 9112 section 9.3.1): once more on a new one, as browsers do.
        m_reusedUpstream = false;
        m_stream.reset();
        m_stream.setRequestMethod(m_request.method);
        connectUpstream();
        return;
    }
    if (status == HttpResponseStream::Status::Complete) {
        if (m_recording && m_stream.headComplete()) {
            if (m_record.status == 0)
                recordHead();
            recordBody();
            if (m_recording)
                recordEnd();
        }
        forwardBody(m_stream.body());
        m_closeAfter = true;
        endAfterFlush([this] {
            finishExchange(m_fault.outcome == ProxyFault::Outcome::Corrupt ? QStringLiteral("corrupt")
                                                                           : QStringLiteral("forwarded"),
                Tr::tr("the upstream answered %1 and closed the connection to end the body")
                    .arg(m_stream.head().status),
                m_stream.head().status);
        });
        return;
    }
    if (!m_headSent) {
        upstreamFailed(
            Tr::tr("the upstream closed the connection without an answer"), 502, QStringLiteral("upstream-closed"));
        return;
    }
    m_closeAfter = true;
    m_connectionFault = true;
    finishExchange(QStringLiteral("upstream-broken"), m_stream.errorString(), m_stream.head().status);
    resetClient();
}

void ProxyConnection::upstreamFailed(const QString &why, int status, const QString &action)
{
    if (!m_busy)
        return;
    m_connectTimer->stop();
    dropUpstream();
    answerLocally(status, why, action);
}

void ProxyConnection::answerLocally(
    int status, const QString &message, const QString &action, const QByteArray &extraHeaders)
{
    const QByteArray body = message.toUtf8() + '\n';
    m_closeAfter = m_closeAfter || action == QLatin1String("reject");
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    head += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    head += "X-RetryLab-Proxy: " + action.toLatin1() + "\r\n" + extraHeaders;
    if (m_closeAfter)
        head += "Connection: close\r\n";
    deliver(head + "\r\n" + body);
    endAfterFlush([this, action, message, status] { finishExchange(action, message, status); });
}

void ProxyConnection::finishExchange(const QString &action, const QString &detail, std::optional<int> status)
{
    if (!m_busy)
        return;
    m_busy = false;
    abandonRecording(false); // an answer that did not end whole is not recorded
    m_faultTimer->stop();
    m_waiting = Waiting::Nothing;
    m_entry.action = action;
    m_entry.detail = m_fault.any() ? m_fault.describe() + QStringLiteral("; ") + detail : detail;
    m_entry.status = status;
    m_entry.bytesSent = m_bytesToClient;
    m_entry.durationMs = double(SteadyClock::instance().nowNs() - m_startNs) / 1e6;
    if (m_fault.logicalId != 0) // only a rule's grouping (first=) asks how it ended
        m_server->faultExchangeEnded(m_fault, status && *status < 400 && action == QLatin1String("forwarded"));
    m_server->record(std::move(m_entry)); // read no more: the next exchange starts a new one
    if (m_closeAfter) {
        // Nothing more is taken up on this connection: a request that came
        // after this one was never answered, and the client may send it elsewhere.
        m_closing = true;
        m_queue.clear();
        if (!m_connectionFault && m_client && clientBytesToWrite() == 0)
            m_client->disconnectFromHost();
        return;
    }
    touchIdle();
    m_waitingSinceNs = m_activityNs;
    updateRequestTimer(); // a request that arrived meanwhile starts its deadline now
    if (m_readingPaused)
        QMetaObject::invokeMethod(this, &ProxyConnection::readClient, Qt::QueuedConnection);
    // A pipelined request waits for the event loop: many answered locally would otherwise nest.
    if (m_queue.isEmpty())
        pump();
    else
        QMetaObject::invokeMethod(this, &ProxyConnection::pump, Qt::QueuedConnection);
}

void ProxyConnection::clientGone()
{
    if (std::exchange(m_clientGone, true))
        return; // a failed write and the close both say so
    if (m_busy) {
        if (m_fault.outcome == ProxyFault::Outcome::Stall && !m_headSent)
            finishExchange(QStringLiteral("stall"),
                Tr::tr("no answer for %1 ms, until the client left")
                    .arg(double(SteadyClock::instance().nowNs() - m_startNs) / 1e6, 0, 'f', 0),
                std::nullopt);
        else
            finishExchange(QStringLiteral("client-closed"), Tr::tr("the client left before the answer was complete"),
                m_headSent ? std::optional<int>(m_stream.head().status) : std::nullopt);
    }
    m_throttleTimer->stop();
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
    }
    m_server->forget(this);
}

} // namespace RetryLab::Core
