#include "core/faultserver/faultserver.h"

#include "core/http/httpheaders.h"
#include "core/http/httprequestparser.h"
#include "core/http/redactor.h"
#include "core/http/retryafter.h"
#include "core/http/retryheaders.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"
#include "core/util/randomsource.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMutex>
#include <QMutexLocker>
#include <QPointer>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <memory>

#if defined(Q_OS_UNIX)
#include <sys/socket.h>
#elif defined(Q_OS_WIN)
#include <winsock2.h>
#endif

Q_LOGGING_CATEGORY(lcServer, "retrylab.core.faultserver", QtInfoMsg)

namespace RetryLab::Core {

namespace {

// Keys, buckets and resources are created by clients; without a bound a
// client could grow the server without limit.
constexpr qsizetype maxStateEntries = 100'000;
constexpr qsizetype maxTotalSteps = 1'000'000;
// /eventual keeps bodies: all of them together may take this many request bodies.
constexpr qint64 eventualStorageInBodies = 8;
// Replay keys come from the client; longer ones are not remembered.
constexpr qsizetype maxReplayKeyLength = 256;
// A connection over the cap is served one 503 and closed; it may not linger.
constexpr int overCapacityIdleMs = 2000;
// Connections beyond the cap plus this many are not even answered.
constexpr int overCapacityAllowance = 64;
// Time for the client to read the headers before the reset that follows them:
// when both arrive in one read, Qt may drop the headers and resend the request.
constexpr int resetAfterHeadersDelayMs = 100;
// How long a connection closed after an answer keeps reading (and dropping)
// what the client still sends, so that unread bytes cannot turn the close into
// a reset that destroys the answer (a 413 to a large upload, for example).
constexpr int lingerMs = 2000;
// Bytes read from a socket before the server stops reading while it is busy.
constexpr qint64 socketReadBufferBytes = 1 << 20;
constexpr qint64 maxDelayMs = FaultInstruction::maxDelayMs;
constexpr qint64 maxSeconds = 365LL * 24 * 3600;
constexpr qint64 maxBrokenBytes = 16 * 1024 * 1024;
constexpr qint64 maxDripBytes = 1'000'000;
constexpr qint64 maxDripTotalMs = 600'000;
constexpr qint64 maxEventualHiddenMs = 3'600'000;
constexpr qint64 maxOccDelayMs = 60'000;
constexpr qsizetype maxKeyLength = 200;
// Slower buckets would announce waits of days; /ratelimit refuses them with 400.
constexpr double minRps = 0.001;
// A TLS record header, text, invalid UTF-8, a NUL and an SSH banner. The length
// comes from the literal itself: a hand-counted one once read past its end.
constexpr char garbageText[] = "\x16\x03\x01\x00\xa5 this is not HTTP \xff\xfe\x00\r\nSSH-2.0-garbage\r\n\r\n";
const QByteArray garbageBytes(garbageText, sizeof garbageText - 1);

bool statusHasBody(int status)
{
    return status != 204 && status != 304 && !(status >= 100 && status < 200);
}

QByteArray toJson(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

QString shortened(const QString &text, qsizetype max = 60)
{
    return text.size() <= max ? text : text.left(max) + QStringLiteral("...");
}

/// What the server will do with one request, decided before anything is written.
struct Plan
{
    enum class Kind { Respond, Wait, Reset, ResetAfterHeaders, Empty, Stall, BrokenStream, Garbage, Drip };
    Kind kind = Kind::Respond;
    int status = 200;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    QByteArray contentType = "application/json";
    bool close = false; ///< close the connection after the answer
    QString action = QStringLiteral("respond");
    QString detail;
    int waitMs = 0; ///< Wait
    std::function<Plan()> then; ///< Wait: decided when the wait is over
    qint64 announcedBytes = 0; ///< BrokenStream, ResetAfterHeaders
    qint64 sentBytes = 0; ///< BrokenStream
    bool chunked = false; ///< BrokenStream: one chunk, then the close instead of the last chunk
    qint64 dripBytes = 0; ///< Drip
    int dripIntervalMs = 0; ///< Drip

    void addHeader(QByteArray name, QByteArray value) { headers.append({std::move(name), std::move(value)}); }
};

Plan jsonPlan(int status, const QJsonObject &body, QString detail)
{
    Plan p;
    p.status = status;
    p.body = toJson(body);
    p.detail = std::move(detail);
    return p;
}

Plan errorPlan(int status, const QString &message)
{
    return jsonPlan(
        status, QJsonObject{{QStringLiteral("status"), status}, {QStringLiteral("error"), message}}, message);
}

Plan waitPlan(int ms, std::function<Plan()> then)
{
    Plan p;
    p.kind = Plan::Kind::Wait;
    p.waitMs = ms;
    p.then = std::move(then);
    return p;
}

/// Decoded query parameters; the first of a repeated name counts.
class Query
{
public:
    explicit Query(const QByteArray &raw)
    {
        for (const QByteArray &part : raw.split('&')) {
            if (part.isEmpty())
                continue;
            const qsizetype eq = part.indexOf('=');
            const QByteArray key = eq < 0 ? part : part.left(eq);
            const QByteArray value = eq < 0 ? QByteArray() : part.mid(eq + 1);
            m_items.append({QString::fromUtf8(QByteArray::fromPercentEncoding(key)),
                QString::fromUtf8(QByteArray::fromPercentEncoding(value))});
        }
    }

    std::optional<QString> value(QLatin1StringView name) const
    {
        for (const auto &[key, value] : m_items) {
            if (key == name)
                return value;
        }
        return std::nullopt;
    }

private:
    QList<QPair<QString, QString>> m_items;
};

/// Reads a whole decimal number in [lo, hi] (no sign, no exponent); absent: fallback.
/// `what` names the value in the error: a parameter name, or a phrase marked with
/// QT_TRANSLATE_NOOP; it is translated only when there is an error to report.
bool readInteger(const std::optional<QString> &text, const char *what, qint64 lo, qint64 hi, qint64 fallback,
    qint64 *out, QString *error)
{
    if (!text) {
        *out = fallback;
        return true;
    }
    const QString t = text->trimmed();
    bool ok = !t.isEmpty() && t.size() <= 18;
    for (QChar c : t)
        ok = ok && c >= QLatin1Char('0') && c <= QLatin1Char('9');
    const qint64 value = ok ? t.toLongLong(&ok) : 0;
    if (!ok || value < lo || value > hi) {
        *error = Tr::tr("%1 must be a whole number from %2 to %3 (got \"%4\")")
                     .arg(Tr::tr(what))
                     .arg(lo)
                     .arg(hi)
                     .arg(shortened(*text, 40));
        return false;
    }
    *out = value;
    return true;
}

/// Reads a finite decimal number in [lo, hi] (lo excluded when openLow); absent: fallback.
bool readReal(const std::optional<QString> &text, const char *what, double lo, double hi, bool openLow, double fallback,
    double *out, QString *error)
{
    if (!text) {
        *out = fallback;
        return true;
    }
    bool ok = false;
    const double value = text->trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < lo || (openLow && value <= lo) || value > hi) {
        *error = (openLow ? Tr::tr("%1 must be a number above %2 and at most %3 (got \"%4\")")
                          : Tr::tr("%1 must be a number from %2 to %3 (got \"%4\")"))
                     .arg(Tr::tr(what))
                     .arg(lo)
                     .arg(hi)
                     .arg(shortened(*text, 40));
        return false;
    }
    *out = value;
    return true;
}

bool isValidName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9._~-]{1,128}$"));
    return pattern.match(name).hasMatch();
}

// Sends FIN but keeps the receiving side open.
void shutdownWrite(QTcpSocket *socket)
{
    const qintptr fd = socket->socketDescriptor();
    if (fd < 0)
        return;
#if defined(Q_OS_UNIX)
    ::shutdown(static_cast<int>(fd), SHUT_WR);
#elif defined(Q_OS_WIN)
    ::shutdown(static_cast<SOCKET>(fd), SD_SEND);
#endif
}

void resetConnection(QTcpSocket *socket)
{
    // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
    const qintptr fd = socket->socketDescriptor();
    if (fd >= 0) {
        struct linger option
        {
            1, 0
        };
#if defined(Q_OS_UNIX)
        ::setsockopt(static_cast<int>(fd), SOL_SOCKET, SO_LINGER, &option, sizeof option);
#elif defined(Q_OS_WIN)
        ::setsockopt(
            static_cast<SOCKET>(fd), SOL_SOCKET, SO_LINGER, reinterpret_cast<const char *>(&option), sizeof option);
#endif
    }
    socket->abort();
}

} // namespace

class FaultServerPrivate
{
public:
    struct Connection
    {
        enum class State { Reading, Busy, Stalled, Closing };
        quint64 id = 0;
        QPointer<QTcpSocket> socket;
        QTimer *idleTimer = nullptr; ///< child of the socket
        QString peer;
        HttpRequestParser parser;
        State state = State::Reading;
        bool overCapacity = false;
        bool lingering = false; ///< closing after an answer, dropping what still arrives
        // The request being handled.
        HttpRequest request;
        ServerLogEntry entry;
        bool entryPending = false;
        qint64 startNs = 0;
        qint64 bytesSent = 0;
        QString pendingAction; ///< what the server was doing, for "client-closed"
    };
    using ConnectionPtr = std::shared_ptr<Connection>;

    struct Test
    {
        QString id;
        QList<FaultInstruction> steps;
        int consumed = 0;
        int replays = 0;
        QHash<QString, int> served; ///< "request-id#attempt" -> step index
    };
    struct FailCounter
    {
        qint64 requests = 0;
        qint64 failures = 0;
    };
    struct Bucket
    {
        double rps = 1.0;
        qint64 burst = 1;
        double tokens = 0.0;
        qint64 updatedNs = 0;
    };
    struct OccResource
    {
        qint64 value = 0;
        qint64 version = 1;
    };
    struct EventualResource
    {
        QByteArray body;
        QByteArray contentType;
        qint64 createdNs = 0;
        qint64 hiddenMs = 0;
    };

    explicit FaultServerPrivate(FaultServer *server, const FaultServerOptions &opts)
        : q(server), tcp(new QTcpServer(server)), options(opts), random(opts.seed)
    {
        QObject::connect(tcp, &QTcpServer::newConnection, q, [this] { handleNewConnections(); });
    }

    // Connection handling (server thread).
    void handleNewConnections();
    void handleReadable(quint64 id);
    void handleDisconnected(quint64 id);
    void handleIdle(quint64 id);
    void processParser(const ConnectionPtr &c, HttpRequestParser::Status status);
    void resume(quint64 id);
    void dispatch(const ConnectionPtr &c);
    void execute(const ConnectionPtr &c, Plan plan);
    void dripNext(quint64 id, qint64 left, int intervalMs, bool keepAlive);
    qint64 writeHead(const ConnectionPtr &c, int status, const QList<QPair<QByteArray, QByteArray>> &headers,
        const QByteArray &contentType, qint64 contentLength, bool keepAlive, const QString &action,
        const QByteArray &body = {});
    void finishRequest(const ConnectionPtr &c, const QString &action, const QString &detail, std::optional<int> status);
    void afterAnswer(const ConnectionPtr &c, bool keepAlive);
    void lingeringClose(const ConnectionPtr &c);
    void answerProtocolError(const ConnectionPtr &c, int status, const QString &message, const QString &action);
    void record(ServerLogEntry entry);
    ConnectionPtr find(quint64 id) const { return connections.value(id); }
    void dropAll();

    // Endpoints; they lock the mutex for the state they touch.
    Plan route(const HttpRequest &r);
    Plan instructionPlan(const FaultInstruction &step, const HttpRequest &r);
    Plan statusEndpoint(const QString &code, const Query &query);
    Plan delayEndpoint(const QString &ms, const Query &query);
    Plan failEndpoint(const QString &n, const Query &query);
    Plan faultEndpoint(const QString &which, const Query &query);
    Plan rateLimitEndpoint(const Query &query);
    Plan redirectEndpoint(const Query &query);
    Plan occEndpoint(const HttpRequest &r, const QString &name, const Query &query);
    Plan eventualEndpoint(const HttpRequest &r, const QString &name, const Query &query);
    Plan controlEndpoint(const HttpRequest &r, const QStringList &segments, const Query &query);

    Result<QString> createTest(const QStringList &instructions);
    ScriptedTestStatus statusOf(const Test &test) const;

    FaultServer *q;
    QTcpServer *tcp;
    const Clock *clock = &SteadyClock::instance();
    QHash<quint64, ConnectionPtr> connections;
    quint64 nextConnectionId = 1;
    std::atomic<int> connectionCount{0};
    std::atomic<int> peakConnections{0};
    std::atomic<bool> listening{false};
    QByteArray dateHeader; ///< "Date" value of the current second (server thread)
    qint64 dateHeaderSecond = -1;

    mutable QMutex mutex; // guards everything below
    FaultServerOptions options;
    QString errorString;
    QUrl url;
    quint16 port = 0;
    QHash<QString, Test> tests;
    quint64 nextTestNumber = 1;
    QHash<QString, FailCounter> failCounters;
    QHash<QString, Bucket> buckets;
    QHash<QString, OccResource> occ;
    QHash<QString, EventualResource> eventual;
    qint64 eventualBytes = 0; ///< bodies kept by /eventual
    qsizetype totalSteps = 0; ///< steps of all scripted tests
    std::deque<ServerLogEntry> log;
    quint64 sequence = 0;
    RandomSource random;
};

// ---------------------------------------------------------------------------
// Connections

void FaultServerPrivate::handleNewConnections()
{
    while (tcp->hasPendingConnections()) {
        QTcpSocket *socket = tcp->nextPendingConnection();
        if (!socket)
            break;
        int cap = 0;
        int idleMs = 0;
        qint64 maxBody = 0;
        {
            QMutexLocker lock(&mutex);
            cap = options.maxConnections;
            idleMs = options.idleTimeoutMs;
            maxBody = options.maxBodyBytes;
        }
        const int open = static_cast<int>(connections.size());
        if (open >= cap + overCapacityAllowance) {
            qCWarning(lcServer) << "dropping a connection: already" << open << "open";
            socket->abort();
            socket->deleteLater();
            continue;
        }

        auto c = std::make_shared<Connection>();
        c->id = nextConnectionId++;
        c->socket = socket;
        c->peer = socket->peerAddress().toString() + QLatin1Char(':') + QString::number(socket->peerPort());
        c->overCapacity = open >= cap;
        HttpRequestParser::Limits limits;
        limits.maxBodyBytes = maxBody;
        c->parser = HttpRequestParser(limits);
        socket->setReadBufferSize(socketReadBufferBytes);
        // Answers go out in one piece and are not held back by Nagle's
        // algorithm waiting for an ACK: a fault's timing is the server's choice.
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);

        c->idleTimer = new QTimer(socket);
        c->idleTimer->setSingleShot(true);
        c->idleTimer->setInterval(c->overCapacity ? std::min(idleMs, overCapacityIdleMs) : idleMs);

        const quint64 id = c->id;
        QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, id] { handleReadable(id); });
        QObject::connect(socket, &QTcpSocket::disconnected, socket, [this, id] { handleDisconnected(id); });
        QObject::connect(c->idleTimer, &QTimer::timeout, socket, [this, id] { handleIdle(id); });
        connections.insert(id, c);
        connectionCount = static_cast<int>(connections.size());
        peakConnections = std::max(peakConnections.load(), connectionCount.load());
        c->idleTimer->start();

        if (socket->bytesAvailable() > 0)
            handleReadable(id);
    }
}

void FaultServerPrivate::handleReadable(quint64 id)
{
    const ConnectionPtr c = find(id);
    if (!c || !c->socket)
        return;
    if (c->lingering) {
        c->socket->readAll();
        return;
    }
    if (c->state != Connection::State::Reading)
        return; // busy connections read on when their answer is out
    const QByteArray data = c->socket->readAll();
    if (data.isEmpty() && !c->parser.isPartial() && c->parser.bufferedBytes() == 0)
        return;
    c->idleTimer->start();
    processParser(c, c->parser.feed(data));
}

void FaultServerPrivate::processParser(const ConnectionPtr &c, HttpRequestParser::Status status)
{
    switch (status) {
    case HttpRequestParser::Status::NeedMore:
        if (c->parser.expectsContinue() && !c->overCapacity) {
            c->socket->write("HTTP/1.1 100 Continue\r\n\r\n");
            c->parser.acknowledgeContinue();
        }
        return;
    case HttpRequestParser::Status::Error:
        if (c->overCapacity) {
            answerProtocolError(
                c, 503, Tr::tr("the server is at its limit of connections"), QStringLiteral("over-capacity"));
            return;
        }
        answerProtocolError(c, c->parser.errorStatus(), c->parser.errorString(), QStringLiteral("reject"));
        return;
    case HttpRequestParser::Status::Complete:
        c->request = c->parser.takeRequest();
        dispatch(c);
        return;
    }
}

void FaultServerPrivate::resume(quint64 id)
{
    const ConnectionPtr c = find(id);
    if (!c || !c->socket || c->state != Connection::State::Reading)
        return;
    const HttpRequestParser::Status status = c->parser.next();
    if (status == HttpRequestParser::Status::NeedMore && c->socket->bytesAvailable() > 0) {
        handleReadable(id);
        return;
    }
    processParser(c, status);
}

void FaultServerPrivate::handleDisconnected(quint64 id)
{
    const ConnectionPtr c = connections.take(id);
    connectionCount = static_cast<int>(connections.size());
    if (!c)
        return;
    if (c->entryPending) {
        const double ms = (clock->nowNs() - c->startNs) / 1e6;
        finishRequest(c, QStringLiteral("client-closed"),
            Tr::tr("the client closed the connection after %1 ms, before the server finished (%2)")
                .arg(ms, 0, 'f', 1)
                .arg(c->pendingAction),
            std::nullopt);
    }
    c->state = Connection::State::Closing;
    if (c->socket)
        c->socket->deleteLater();
}

void FaultServerPrivate::handleIdle(quint64 id)
{
    const ConnectionPtr c = find(id);
    if (!c || !c->socket || c->state != Connection::State::Reading)
        return;
    if (c->parser.isPartial()) {
        answerProtocolError(
            c, 408, Tr::tr("no complete request within %1 ms").arg(c->idleTimer->interval()), QStringLiteral("reject"));
        return;
    }
    qCDebug(lcServer) << "closing idle connection from" << c->peer;
    c->state = Connection::State::Closing;
    c->socket->disconnectFromHost();
}

void FaultServerPrivate::answerProtocolError(
    const ConnectionPtr &c, int status, const QString &message, const QString &action)
{
    // The stream cannot be trusted after a malformed request: answer and close.
    c->state = Connection::State::Busy;
    c->idleTimer->stop();
    // Nothing of the request is trustworthy, not even its method: log the peer only.
    c->entry = ServerLogEntry{};
    c->entry.time = clock->wallTime();
    c->entry.peer = c->peer;
    c->entryPending = true;
    c->startNs = clock->nowNs();
    c->bytesSent = 0;
    c->request = HttpRequest{};
    c->request.minorVersion = 1;
    Plan p = errorPlan(status, message);
    p.close = true;
    p.action = action;
    if (status == 503)
        p.addHeader("Retry-After", "1");
    execute(c, std::move(p));
}

void FaultServerPrivate::dispatch(const ConnectionPtr &c)
{
    c->state = Connection::State::Busy;
    c->idleTimer->stop();
    c->startNs = clock->nowNs();
    c->bytesSent = 0;
    const HttpRequest &r = c->request;

    ServerLogEntry &e = c->entry;
    e = ServerLogEntry{};
    e.time = clock->wallTime();
    e.peer = c->peer;
    e.method = r.method;
    e.target = QString::fromUtf8(r.target);
    e.testId = QString::fromLatin1(r.header(RetryHeaders::testId).value_or(QByteArray()).trimmed());
    e.clientAttempt = QString::fromLatin1(r.header(RetryHeaders::attempt).value_or(QByteArray()).trimmed());
    c->entryPending = true;

    if (c->overCapacity) {
        int cap = 0;
        {
            QMutexLocker lock(&mutex);
            cap = options.maxConnections;
        }
        Plan p = errorPlan(503, Tr::tr("the server is at its limit of %1 connections; try again").arg(cap));
        p.addHeader("Retry-After", "1");
        p.close = true;
        p.action = QStringLiteral("over-capacity");
        execute(c, std::move(p));
        return;
    }

    std::optional<FaultInstruction> step;
    QString stepDetail;
    if (!e.testId.isEmpty()) {
        QMutexLocker lock(&mutex);
        const auto it = tests.find(e.testId);
        if (it == tests.end()) {
            lock.unlock();
            execute(c,
                errorPlan(400,
                    Tr::tr("unknown X-Retry-Test-Id \"%1\" (never created, or forgotten by a reset)")
                        .arg(shortened(e.testId))));
            return;
        }
        Test &test = *it;
        const QByteArray requestId = r.header(RetryHeaders::requestId).value_or(QByteArray()).trimmed();
        const QString replayKey = !requestId.isEmpty() && !e.clientAttempt.isEmpty()
                && requestId.size() + e.clientAttempt.size() < maxReplayKeyLength
            ? QString::fromLatin1(requestId) + QLatin1Char('#') + e.clientAttempt
            : QString();
        int index = -1;
        if (!replayKey.isEmpty() && test.served.contains(replayKey)) {
            index = test.served.value(replayKey);
            ++test.replays;
            e.replayed = true;
        } else if (test.consumed < test.steps.size()) {
            index = test.consumed++;
            if (!replayKey.isEmpty())
                test.served.insert(replayKey, index);
        }
        if (index >= 0) {
            step = test.steps.at(index);
            e.instructionIndex = index;
            stepDetail
                = Tr::tr("step %1 of %2 (%3) of test %4%5")
                      .arg(index + 1)
                      .arg(test.steps.size())
                      .arg(step->toString(), test.id, e.replayed ? Tr::tr(", again for a resent attempt") : QString());
        }
    }

    Plan plan = step ? instructionPlan(*step, r) : route(r);
    if (!stepDetail.isEmpty()) {
        // Say which step decided, also for what is decided after a wait.
        const auto prefix = [stepDetail](Plan p) {
            p.detail = p.detail.isEmpty() ? stepDetail : stepDetail + QStringLiteral(": ") + p.detail;
            return p;
        };
        if (plan.kind == Plan::Kind::Wait) {
            plan.then = [then = plan.then, prefix] { return prefix(then()); };
        } else {
            plan = prefix(std::move(plan));
        }
    }
    execute(c, std::move(plan));
}

qint64 FaultServerPrivate::writeHead(const ConnectionPtr &c, int status,
    const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &contentType, qint64 contentLength,
    bool keepAlive, const QString &action, const QByteArray &body)
{
    // Like nginx, format the Date header once per second rather than per response.
    const QDateTime now = clock->wallTime();
    if (const qint64 second = now.toSecsSinceEpoch(); second != dateHeaderSecond) {
        dateHeader = formatHttpDate(now);
        dateHeaderSecond = second;
    }
    QByteArray head;
    head.reserve(256 + body.size());
    head += "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    head += "Date: " + dateHeader + "\r\n";
    head += "Server: RetryLab-FaultServer\r\n";
    if (contentLength >= 0 && statusHasBody(status)) {
        if (!contentType.isEmpty())
            head += "Content-Type: " + contentType + "\r\n";
        head += "Content-Length: " + QByteArray::number(contentLength) + "\r\n";
    }
    if (!keepAlive)
        head += "Connection: close\r\n";
    else if (c->request.minorVersion == 0)
        head += "Connection: keep-alive\r\n";
    head += "X-RetryLab-Action: " + action.toLatin1() + "\r\n";
    if (!c->entry.testId.isEmpty())
        head += RetryHeaders::testId + QByteArray(": ") + c->entry.testId.toLatin1() + "\r\n";
    for (const auto &[name, value] : headers)
        head += name + ": " + value + "\r\n";
    head += "\r\n";
    head += body;
    c->socket->write(head);
    c->bytesSent += head.size();
    return head.size();
}

void FaultServerPrivate::execute(const ConnectionPtr &c, Plan plan)
{
    if (!c->socket)
        return;
    QTcpSocket *socket = c->socket;
    const quint64 id = c->id;
    const bool head = c->request.method == "HEAD";
    const bool keepAlive = c->request.keepAlive && !plan.close;
    c->pendingAction = plan.action;

    switch (plan.kind) {
    case Plan::Kind::Wait:
        c->pendingAction = Tr::tr("waiting %1 ms").arg(plan.waitMs);
        QTimer::singleShot(plan.waitMs, Qt::PreciseTimer, socket, [this, id, then = std::move(plan.then)] {
            const ConnectionPtr conn = find(id);
            if (conn && conn->state == Connection::State::Busy)
                execute(conn, then());
        });
        return;
    case Plan::Kind::Respond: {
        const bool body = statusHasBody(plan.status);
        writeHead(c, plan.status, plan.headers, plan.contentType, body ? plan.body.size() : 0, keepAlive, plan.action,
            body && !head ? plan.body : QByteArray());
        finishRequest(c, plan.action, plan.detail, plan.status);
        afterAnswer(c, keepAlive);
        return;
    }
    case Plan::Kind::Reset:
        finishRequest(c, plan.action, plan.detail, std::nullopt);
        c->state = Connection::State::Closing;
        resetConnection(socket);
        return;
    case Plan::Kind::ResetAfterHeaders:
        writeHead(c, 200, plan.headers, "application/octet-stream", plan.announcedBytes, true, plan.action);
        socket->flush();
        finishRequest(c, plan.action, plan.detail, 200);
        c->state = Connection::State::Closing;
        QTimer::singleShot(resetAfterHeadersDelayMs, socket, [socket] { resetConnection(socket); });
        return;
    case Plan::Kind::Empty:
        finishRequest(c, plan.action, plan.detail, std::nullopt);
        c->state = Connection::State::Closing;
        socket->disconnectFromHost();
        return;
    case Plan::Kind::Stall:
        // The request stays unanswered; the connection lives until the client gives up.
        finishRequest(c, plan.action, plan.detail, std::nullopt);
        c->state = Connection::State::Stalled;
        return;
    case Plan::Kind::BrokenStream: {
        if (plan.chunked) {
            QByteArray body;
            if (!head && plan.sentBytes > 0)
                body = QByteArray::number(plan.sentBytes, 16) + "\r\n" + QByteArray(plan.sentBytes, 'x') + "\r\n";
            plan.addHeader("Content-Type", "application/octet-stream");
            plan.addHeader("Transfer-Encoding", "chunked");
            writeHead(c, 200, plan.headers, {}, -1, false, plan.action, body);
        } else {
            writeHead(c, 200, plan.headers, "application/octet-stream", plan.announcedBytes, false, plan.action,
                head ? QByteArray() : QByteArray(plan.sentBytes, 'x'));
        }
        finishRequest(c, plan.action, plan.detail, 200);
        c->state = Connection::State::Closing;
        socket->disconnectFromHost();
        return;
    }
    case Plan::Kind::Garbage:
        socket->write(garbageBytes);
        c->bytesSent += garbageBytes.size();
        finishRequest(c, plan.action, plan.detail, std::nullopt);
        c->state = Connection::State::Closing;
        socket->disconnectFromHost();
        return;
    case Plan::Kind::Drip:
        writeHead(c, 200, plan.headers, "text/plain", plan.dripBytes, keepAlive, plan.action);
        c->pendingAction = Tr::tr("dripping %1 bytes, one every %2 ms").arg(plan.dripBytes).arg(plan.dripIntervalMs);
        c->entry.detail = plan.detail;
        if (head) {
            finishRequest(c, plan.action, plan.detail, 200);
            afterAnswer(c, keepAlive);
            return;
        }
        dripNext(id, plan.dripBytes, plan.dripIntervalMs, keepAlive);
        return;
    }
}

void FaultServerPrivate::dripNext(quint64 id, qint64 left, int intervalMs, bool keepAlive)
{
    QTcpSocket *socket = nullptr;
    if (const ConnectionPtr c = find(id); c && c->socket)
        socket = c->socket;
    if (!socket)
        return;
    QTimer::singleShot(intervalMs, Qt::PreciseTimer, socket, [this, id, left, intervalMs, keepAlive] {
        const ConnectionPtr c = find(id);
        if (!c || !c->socket || c->state != Connection::State::Busy)
            return;
        c->socket->write("x", 1);
        c->bytesSent += 1;
        if (left > 1) {
            dripNext(id, left - 1, intervalMs, keepAlive);
            return;
        }
        finishRequest(c, QStringLiteral("drip"), c->entry.detail, 200);
        afterAnswer(c, keepAlive);
    });
}

void FaultServerPrivate::finishRequest(
    const ConnectionPtr &c, const QString &action, const QString &detail, std::optional<int> status)
{
    if (!c->entryPending)
        return;
    c->entryPending = false;
    ServerLogEntry entry = c->entry;
    entry.action = action;
    entry.detail = detail;
    entry.status = status;
    entry.bytesSent = c->bytesSent;
    entry.durationMs = (clock->nowNs() - c->startNs) / 1e6;
    record(std::move(entry));
}

void FaultServerPrivate::afterAnswer(const ConnectionPtr &c, bool keepAlive)
{
    if (!c->socket)
        return;
    if (!keepAlive) {
        lingeringClose(c);
        return;
    }
    c->state = Connection::State::Reading;
    c->request = HttpRequest{};
    c->idleTimer->start();
    // Go on with pipelined requests from the event loop, not by recursion.
    const quint64 id = c->id;
    QTimer::singleShot(0, c->socket, [this, id] { resume(id); });
}

void FaultServerPrivate::lingeringClose(const ConnectionPtr &c)
{
    c->state = Connection::State::Closing;
    c->lingering = true;
    c->idleTimer->stop();
    QTcpSocket *socket = c->socket;
    auto finSent = std::make_shared<bool>(false);
    const auto finWhenFlushed = [socket, finSent] {
        if (!*finSent && socket->bytesToWrite() == 0) {
            *finSent = true;
            shutdownWrite(socket);
        }
    };
    QObject::connect(socket, &QTcpSocket::bytesWritten, socket, finWhenFlushed);
    finWhenFlushed();
    QTimer::singleShot(lingerMs, socket, [socket] { socket->abort(); });
    socket->readAll();
}

void FaultServerPrivate::record(ServerLogEntry entry)
{
    if (options.redactLog) {
        const Redactor redactor;
        // A credential may hide in percent-encoding (?to=http%3A%2F%2Fuser%3Apassword%40...):
        // such a target is shown decoded, with the credential masked.
        const QString decoded = QString::fromUtf8(QByteArray::fromPercentEncoding(entry.target.toUtf8()));
        const QString decodedRedacted = redactor.text(decoded);
        entry.target = decodedRedacted != decoded ? decodedRedacted : redactor.text(entry.target);
        entry.detail = redactor.text(entry.detail);
    }
    {
        QMutexLocker lock(&mutex);
        entry.sequence = ++sequence;
        log.push_back(entry);
        while (log.size() > static_cast<size_t>(std::max(1, options.logCapacity)))
            log.pop_front();
    }
    qCDebug(lcServer).noquote() << entry.summary();
    Q_EMIT q->requestHandled(entry);
}

void FaultServerPrivate::dropAll()
{
    const auto all = connections;
    connections.clear();
    connectionCount = 0;
    for (const ConnectionPtr &c : all) {
        c->entryPending = false;
        c->state = Connection::State::Closing;
        if (c->socket) {
            c->socket->disconnect();
            c->socket->abort();
            c->socket->deleteLater();
        }
    }
}

// ---------------------------------------------------------------------------
// Endpoints

Plan FaultServerPrivate::instructionPlan(const FaultInstruction &step, const HttpRequest &r)
{
    Plan p;
    switch (step.kind) {
    case FaultInstruction::Kind::Pass:
        return route(r);
    case FaultInstruction::Kind::Respond: {
        p = jsonPlan(step.status, QJsonObject{{QStringLiteral("status"), step.status}}, QString());
        if (step.retryAfterSeconds)
            p.addHeader("Retry-After", QByteArray::number(*step.retryAfterSeconds));
        return p;
    }
    case FaultInstruction::Kind::Delay: {
        const HttpRequest copy = r;
        return waitPlan(step.milliseconds, [this, copy] { return route(copy); });
    }
    case FaultInstruction::Kind::Reset:
        p.kind = Plan::Kind::Reset;
        p.action = QStringLiteral("reset");
        return p;
    case FaultInstruction::Kind::ResetAfterHeaders:
        p.kind = Plan::Kind::ResetAfterHeaders;
        p.action = QStringLiteral("reset-after-headers");
        p.announcedBytes = FaultInstruction::brokenAnnouncedBytes;
        return p;
    case FaultInstruction::Kind::Empty:
        p.kind = Plan::Kind::Empty;
        p.action = QStringLiteral("empty");
        return p;
    case FaultInstruction::Kind::Stall:
        p.kind = Plan::Kind::Stall;
        p.action = QStringLiteral("stall");
        return p;
    case FaultInstruction::Kind::BrokenStream:
        p.kind = Plan::Kind::BrokenStream;
        p.action = QStringLiteral("broken-stream");
        p.announcedBytes = FaultInstruction::brokenAnnouncedBytes;
        p.sentBytes = FaultInstruction::brokenSentBytes;
        return p;
    case FaultInstruction::Kind::Garbage:
        p.kind = Plan::Kind::Garbage;
        p.action = QStringLiteral("garbage");
        return p;
    case FaultInstruction::Kind::Drip:
        p.kind = Plan::Kind::Drip;
        p.action = QStringLiteral("drip");
        p.dripBytes = FaultInstruction::dripBytes;
        p.dripIntervalMs = step.milliseconds;
        return p;
    }
    return p;
}

Plan FaultServerPrivate::route(const HttpRequest &r)
{
    const QString path = QString::fromUtf8(QByteArray::fromPercentEncoding(r.path));
    const Query query(r.query);
    QStringList segments = path.split(QLatin1Char('/'));
    if (!segments.isEmpty() && segments.first().isEmpty())
        segments.removeFirst();
    if (!segments.isEmpty() && segments.last().isEmpty())
        segments.removeLast();
    const QString first = segments.value(0);
    const qsizetype count = segments.size();

    if (count == 0) {
        Plan p;
        p.contentType = "text/plain; charset=utf-8";
        p.body = FaultServer::usageText().toUtf8();
        p.detail = Tr::tr("the list of endpoints");
        return p;
    }
    if (first == QLatin1String("status") && count == 2)
        return statusEndpoint(segments[1], query);
    if (first == QLatin1String("delay") && count == 2)
        return delayEndpoint(segments[1], query);
    if (first == QLatin1String("fail") && count == 2)
        return failEndpoint(segments[1], query);
    if (first == QLatin1String("fault") && count == 2)
        return faultEndpoint(segments[1], query);
    if (first == QLatin1String("ratelimit") && count == 1)
        return rateLimitEndpoint(query);
    if (first == QLatin1String("redirect") && count == 1)
        return redirectEndpoint(query);
    if (first == QLatin1String("occ") && count == 2)
        return occEndpoint(r, segments[1], query);
    if (first == QLatin1String("eventual") && count == 2)
        return eventualEndpoint(r, segments[1], query);
    if (first == QLatin1String("_control"))
        return controlEndpoint(r, segments, query);
    return errorPlan(404, Tr::tr("no endpoint at %1; GET / lists them").arg(shortened(path)));
}

Plan FaultServerPrivate::statusEndpoint(const QString &codeText, const Query &query)
{
    QString error;
    qint64 code = 0;
    if (!readInteger(
            codeText, QT_TRANSLATE_NOOP("RetryLab::Core", "the status in /status/{code}"), 200, 599, 0, &code, &error))
        return errorPlan(400, error);
    qint64 retryAfter = -1;
    qint64 reset = -1;
    if (!readInteger(query.value(QLatin1String("retry_after")), "retry_after", 0, maxSeconds, -1, &retryAfter, &error)
        || !readInteger(
            query.value(QLatin1String("ratelimit_reset")), "ratelimit_reset", 0, maxSeconds, -1, &reset, &error))
        return errorPlan(400, error);

    // What jsonPlan() writes for {"status": code}, without a JSON document per request.
    Plan p;
    p.status = static_cast<int>(code);
    p.body = "{\"status\":" + QByteArray::number(code) + "}\n";
    p.detail = Tr::tr("status %1 as asked").arg(code);
    if (retryAfter >= 0)
        p.addHeader("Retry-After", QByteArray::number(retryAfter));
    if (const auto date = query.value(QLatin1String("retry_after_date"))) {
        // Either an HTTP-date passed through, or seconds from now turned into one.
        QDateTime when;
        const QString t = date->trimmed();
        if (!t.isEmpty() && std::all_of(t.cbegin(), t.cend(), [](QChar c) { return c.isDigit(); })) {
            qint64 seconds = 0;
            if (!readInteger(t, "retry_after_date", 0, maxSeconds, 0, &seconds, &error))
                return errorPlan(400, error);
            when = clock->wallTime().addSecs(seconds);
        } else {
            when = parseHttpDate(t.toLatin1());
            if (!when.isValid()) {
                return errorPlan(400,
                    Tr::tr("retry_after_date must be an HTTP-date (\"Sun, 06 Nov 1994 08:49:37 GMT\") or seconds "
                           "from now (got \"%1\")")
                        .arg(shortened(*date, 40)));
            }
        }
        p.addHeader("Retry-After", formatHttpDate(when));
    }
    if (reset >= 0)
        p.addHeader("X-RateLimit-Reset", QByteArray::number(reset));
    return p;
}

Plan FaultServerPrivate::delayEndpoint(const QString &msText, const Query &query)
{
    QString error;
    qint64 ms = 0;
    if (!readInteger(
            msText, QT_TRANSLATE_NOOP("RetryLab::Core", "the delay in /delay/{ms}"), 0, maxDelayMs, 0, &ms, &error))
        return errorPlan(400, error);
    double delay = static_cast<double>(ms);
    QString how = Tr::tr("fixed");
    const std::optional<QString> dist = query.value(QLatin1String("dist"));
    if (dist && *dist == QLatin1String("uniform")) {
        qint64 min = 0;
        if (!readInteger(query.value(QLatin1String("min")), "min", 0, ms, 0, &min, &error))
            return errorPlan(400, error);
        QMutexLocker lock(&mutex);
        delay = random.uniform(static_cast<double>(min), static_cast<double>(ms));
        how = Tr::tr("uniform in [%1, %2] ms").arg(min).arg(ms);
    } else if (dist && *dist == QLatin1String("lognormal")) {
        double sigma = 0.5;
        if (!readReal(query.value(QLatin1String("sigma")), "sigma", 0.0, 3.0, true, 0.5, &sigma, &error))
            return errorPlan(400, error);
        QMutexLocker lock(&mutex);
        delay = ms > 0 ? random.lognormal(std::log(static_cast<double>(ms)), sigma) : 0.0;
        delay = std::clamp(delay, 0.0, static_cast<double>(maxDelayMs));
        how = Tr::tr("lognormal, median %1 ms, sigma %2").arg(ms).arg(sigma);
    } else if (dist) {
        return errorPlan(
            400, Tr::tr("dist must be \"uniform\" or \"lognormal\" (got \"%1\")").arg(shortened(*dist, 40)));
    }
    const int waitMs = static_cast<int>(std::llround(delay));
    return waitPlan(waitMs, [waitMs, how] {
        return jsonPlan(200, QJsonObject{{QStringLiteral("delay_ms"), waitMs}, {QStringLiteral("distribution"), how}},
            Tr::tr("answered after %1 ms (%2)").arg(waitMs).arg(how));
    });
}

Plan FaultServerPrivate::failEndpoint(const QString &nText, const Query &query)
{
    QString error;
    qint64 n = 0;
    qint64 code = 503;
    qint64 retryAfter = -1;
    double p = -1.0;
    if (!readInteger(
            nText, QT_TRANSLATE_NOOP("RetryLab::Core", "the failure count in /fail/{n}"), 0, 1'000'000, 0, &n, &error)
        || !readInteger(query.value(QLatin1String("code")), "code", 400, 599, 503, &code, &error)
        || !readInteger(
            query.value(QLatin1String("retry_after")), "retry_after", 0, maxSeconds, -1, &retryAfter, &error)
        || !readReal(query.value(QLatin1String("p")), "p", 0.0, 1.0, false, -1.0, &p, &error))
        return errorPlan(400, error);
    const QString key = query.value(QLatin1String("key")).value_or(QStringLiteral("default"));
    if (key.isEmpty() || key.size() > maxKeyLength)
        return errorPlan(400, Tr::tr("key must have 1 to %1 characters").arg(maxKeyLength));

    bool fail = false;
    qint64 requests = 0;
    qint64 failures = 0;
    {
        QMutexLocker lock(&mutex);
        if (!failCounters.contains(key) && failCounters.size() >= maxStateEntries)
            return errorPlan(503, Tr::tr("too many /fail keys; reset the server (POST /_control/reset)"));
        FailCounter &counter = failCounters[key];
        ++counter.requests;
        fail = counter.failures < n && (p < 0.0 || random.chance(p));
        if (fail)
            ++counter.failures;
        requests = counter.requests;
        failures = counter.failures;
    }
    if (!fail) {
        return jsonPlan(200,
            QJsonObject{{QStringLiteral("key"), key}, {QStringLiteral("request"), requests},
                {QStringLiteral("failures"), failures}},
            p >= 0.0 ? Tr::tr("request %1 for key \"%2\" passed (p=%3, %4 of at most %5 failures so far)")
                           .arg(requests)
                           .arg(shortened(key))
                           .arg(p)
                           .arg(failures)
                           .arg(n)
                     : Tr::tr("request %1 for key \"%2\" passed after %n failure(s)", nullptr, int(failures))
                           .arg(requests)
                           .arg(shortened(key)));
    }
    Plan plan = jsonPlan(static_cast<int>(code),
        QJsonObject{{QStringLiteral("status"), code}, {QStringLiteral("key"), key},
            {QStringLiteral("failure"), failures}, {QStringLiteral("of"), n}},
        p >= 0.0
            ? Tr::tr("failure %1 (at most %2, p=%3) for key \"%4\"").arg(failures).arg(n).arg(p).arg(shortened(key))
            : Tr::tr("failure %1 of %2 for key \"%3\"").arg(failures).arg(n).arg(shortened(key)));
    if (retryAfter >= 0)
        plan.addHeader("Retry-After", QByteArray::number(retryAfter));
    return plan;
}

Plan FaultServerPrivate::faultEndpoint(const QString &which, const Query &query)
{
    QString error;
    Plan p;
    p.action = which;
    if (which == QLatin1String("reset")) {
        const QString when = query.value(QLatin1String("when")).value_or(QStringLiteral("before-headers"));
        if (when == QLatin1String("before-headers") || when == QLatin1String("before")) {
            p.kind = Plan::Kind::Reset;
            p.detail = Tr::tr("reset before any response");
        } else if (when == QLatin1String("after-headers") || when == QLatin1String("after")) {
            p.kind = Plan::Kind::ResetAfterHeaders;
            p.action = QStringLiteral("reset-after-headers");
            p.announcedBytes = FaultInstruction::brokenAnnouncedBytes;
            p.detail = Tr::tr("reset after the headers");
        } else {
            return errorPlan(400,
                Tr::tr("when must be \"before-headers\" or \"after-headers\" (got \"%1\")").arg(shortened(when, 40)));
        }
        return p;
    }
    if (which == QLatin1String("empty")) {
        p.kind = Plan::Kind::Empty;
        p.detail = Tr::tr("closed without a response");
        return p;
    }
    if (which == QLatin1String("stall")) {
        p.kind = Plan::Kind::Stall;
        p.detail = Tr::tr("holding the connection without answering");
        return p;
    }
    if (which == QLatin1String("garbage")) {
        p.kind = Plan::Kind::Garbage;
        p.detail = Tr::tr("sent %1 bytes that are not HTTP").arg(garbageBytes.size());
        return p;
    }
    if (which == QLatin1String("broken")) {
        qint64 total = 0;
        if (!readInteger(query.value(QLatin1String("total")), "total", 1, maxBrokenBytes,
                FaultInstruction::brokenAnnouncedBytes, &total, &error))
            return errorPlan(400, error);
        qint64 sent = 0;
        qint64 chunked = 0;
        if (!readInteger(query.value(QLatin1String("sent")), "sent", 0, total - 1, total / 2, &sent, &error)
            || !readInteger(query.value(QLatin1String("chunked")), "chunked", 0, 1, 0, &chunked, &error))
            return errorPlan(400, error);
        p.kind = Plan::Kind::BrokenStream;
        p.action = QStringLiteral("broken-stream");
        p.announcedBytes = total;
        p.sentBytes = sent;
        p.chunked = chunked == 1;
        p.detail = p.chunked ? Tr::tr("chunked: sent %1 bytes, closed before the last chunk").arg(sent)
                             : Tr::tr("announced %1 bytes, sent %2, closed").arg(total).arg(sent);
        return p;
    }
    if (which == QLatin1String("drip")) {
        qint64 bytes = 0;
        qint64 ms = 0;
        if (!readInteger(query.value(QLatin1String("bytes")), "bytes", 1, maxDripBytes, FaultInstruction::dripBytes,
                &bytes, &error)
            || !readInteger(query.value(QLatin1String("ms")), "ms", 0, FaultInstruction::maxDripIntervalMs,
                FaultInstruction::defaultDripIntervalMs, &ms, &error))
            return errorPlan(400, error);
        if (bytes * ms > maxDripTotalMs) {
            return errorPlan(400,
                Tr::tr("%1 bytes at one every %2 ms would take longer than %3 s")
                    .arg(bytes)
                    .arg(ms)
                    .arg(maxDripTotalMs / 1000));
        }
        p.kind = Plan::Kind::Drip;
        p.dripBytes = bytes;
        p.dripIntervalMs = static_cast<int>(ms);
        p.detail = Tr::tr("sent %1 bytes, one every %2 ms").arg(bytes).arg(ms);
        return p;
    }
    return errorPlan(
        404, Tr::tr("no fault \"%1\"; known: reset, empty, stall, broken, garbage, drip").arg(shortened(which, 40)));
}

Plan FaultServerPrivate::rateLimitEndpoint(const Query &query)
{
    QString error;
    double rps = 1.0;
    if (!readReal(query.value(QLatin1String("rps")), "rps", minRps, 100'000.0, false, 1.0, &rps, &error))
        return errorPlan(400, error);
    qint64 burst = 0;
    const qint64 defaultBurst = std::max<qint64>(1, static_cast<qint64>(std::ceil(rps)));
    if (!readInteger(query.value(QLatin1String("burst")), "burst", 1, 100'000, defaultBurst, &burst, &error))
        return errorPlan(400, error);
    const QString key = query.value(QLatin1String("key")).value_or(QStringLiteral("default"));
    if (key.isEmpty() || key.size() > maxKeyLength)
        return errorPlan(400, Tr::tr("key must have 1 to %1 characters").arg(maxKeyLength));

    const qint64 now = clock->nowNs();
    QMutexLocker lock(&mutex);
    if (!buckets.contains(key) && buckets.size() >= maxStateEntries)
        return errorPlan(503, Tr::tr("too many rate-limit keys; reset the server (POST /_control/reset)"));
    auto it = buckets.find(key);
    if (it == buckets.end())
        it = buckets.insert(key, Bucket{rps, burst, static_cast<double>(burst), now});
    Bucket &b = *it;
    b.rps = rps;
    b.burst = burst;
    b.tokens = std::min(static_cast<double>(burst), b.tokens + (now - b.updatedNs) / 1e9 * rps);
    b.updatedNs = now;

    // Bounded before the conversion: a double beyond qint64 would be undefined behaviour.
    const auto seconds
        = [](double value) { return static_cast<qint64>(std::clamp(std::ceil(value), 0.0, double(maxSeconds))); };
    const auto resetSeconds = [&b, &seconds] { return seconds((static_cast<double>(b.burst) - b.tokens) / b.rps); };
    if (b.tokens >= 1.0) {
        b.tokens -= 1.0;
        Plan p = jsonPlan(200,
            QJsonObject{{QStringLiteral("key"), key}, {QStringLiteral("remaining"), std::floor(b.tokens)}},
            Tr::tr("allowed; key \"%1\" has %2 of %3 tokens left")
                .arg(shortened(key))
                .arg(b.tokens, 0, 'f', 2)
                .arg(burst));
        p.addHeader("X-RateLimit-Limit", QByteArray::number(burst));
        p.addHeader("X-RateLimit-Remaining", QByteArray::number(static_cast<qint64>(std::floor(b.tokens))));
        p.addHeader("X-RateLimit-Reset", QByteArray::number(resetSeconds()));
        return p;
    }
    const qint64 wait = std::max<qint64>(1, seconds((1.0 - b.tokens) / rps));
    Plan p = jsonPlan(429,
        QJsonObject{{QStringLiteral("status"), 429}, {QStringLiteral("error"), QStringLiteral("rate limited")},
            {QStringLiteral("retry_after"), wait}},
        Tr::tr("rate limited: key \"%1\" has %2 of %3 tokens at %4/s")
            .arg(shortened(key))
            .arg(b.tokens, 0, 'f', 2)
            .arg(burst)
            .arg(rps));
    p.addHeader("Retry-After", QByteArray::number(wait));
    p.addHeader("X-RateLimit-Limit", QByteArray::number(burst));
    p.addHeader("X-RateLimit-Remaining", "0");
    p.addHeader("X-RateLimit-Reset", QByteArray::number(resetSeconds()));
    return p;
}

Plan FaultServerPrivate::redirectEndpoint(const Query &query)
{
    QString error;
    qint64 code = 302;
    if (!readInteger(query.value(QLatin1String("code")), "code", 300, 399, 302, &code, &error))
        return errorPlan(400, error);
    if (code != 301 && code != 302 && code != 303 && code != 307 && code != 308)
        return errorPlan(400, Tr::tr("code must be 301, 302, 303, 307 or 308 (got %1)").arg(code));
    const QString to = query.value(QLatin1String("to")).value_or(QString()).trimmed();
    if (to.isEmpty())
        return errorPlan(400, Tr::tr("to is missing: /redirect?to=URL&code=302"));
    const QUrl target(to, QUrl::StrictMode);
    if (!target.isValid())
        return errorPlan(400, Tr::tr("to is not a valid URL (got \"%1\")").arg(shortened(to, 80)));
    // The server must not become an open redirector to the rest of the network.
    if (target.isRelative()) {
        if (!to.startsWith(QLatin1Char('/')) || to.startsWith(QLatin1String("//")))
            return errorPlan(400, Tr::tr("to must be a path starting with / or an http(s) URL"));
    } else {
        const QString scheme = target.scheme().toLower();
        const QString host = target.host();
        const QHostAddress address(host);
        const bool loopback = host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0
            || (!address.isNull() && address.isLoopback());
        if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
            return errorPlan(400, Tr::tr("to must be an http or https URL (got \"%1\")").arg(shortened(scheme, 20)));
        if (!loopback)
            return errorPlan(400, Tr::tr("to must point to a loopback address (got \"%1\")").arg(shortened(host, 80)));
    }
    Plan p = jsonPlan(static_cast<int>(code), QJsonObject{{QStringLiteral("status"), static_cast<int>(code)}},
        Tr::tr("redirect %1 to %2").arg(code).arg(shortened(QString::fromUtf8(target.toEncoded()), 120)));
    p.addHeader("Location", target.toEncoded());
    return p;
}

Plan FaultServerPrivate::occEndpoint(const HttpRequest &r, const QString &name, const Query &query)
{
    if (!isValidName(name))
        return errorPlan(400, Tr::tr("a resource name has 1 to 128 of the characters A-Z a-z 0-9 . _ ~ -"));
    QString error;
    qint64 delay = 0;
    if (!readInteger(query.value(QLatin1String("delay_ms")), "delay_ms", 0, maxOccDelayMs, 0, &delay, &error))
        return errorPlan(400, error);
    const bool read = r.method == "GET" || r.method == "HEAD";
    if (!read && r.method != "PUT") {
        Plan p = errorPlan(405, Tr::tr("/occ/{name} takes GET, HEAD and PUT"));
        p.addHeader("Allow", "GET, HEAD, PUT");
        return p;
    }
    const std::optional<QByteArray> ifMatch = r.header("If-Match");
    const QByteArray body = r.body;
    const auto etagOf
        = [](const OccResource &res) -> QByteArray { return "\"v" + QByteArray::number(res.version) + '"'; };

    // The check happens when the wait is over, so that concurrent writers really race.
    auto decide = [this, name, read, ifMatch, body, etagOf]() -> Plan {
        QMutexLocker lock(&mutex);
        if (!occ.contains(name) && occ.size() >= maxStateEntries)
            return errorPlan(503, Tr::tr("too many /occ resources; reset the server (POST /_control/reset)"));
        OccResource &res = occ[name];
        if (read) {
            Plan p = jsonPlan(200, QJsonObject{{QStringLiteral("value"), res.value}},
                Tr::tr("read \"%1\": value %2, ETag %3")
                    .arg(name)
                    .arg(res.value)
                    .arg(QString::fromLatin1(etagOf(res))));
            p.addHeader("ETag", etagOf(res));
            return p;
        }
        if (!ifMatch) {
            return errorPlan(428, Tr::tr("a PUT to /occ/%1 needs If-Match with the ETag of a previous GET").arg(name));
        }
        const QByteArray current = etagOf(res);
        bool matches = false;
        for (const QByteArray &candidate : ifMatch->split(',')) {
            const QByteArray tag = candidate.trimmed();
            matches = matches || tag == "*" || tag == current;
        }
        if (!matches) {
            Plan p = jsonPlan(409,
                QJsonObject{{QStringLiteral("status"), QStringLiteral("ABORTED")},
                    {QStringLiteral("message"),
                        Tr::tr("the resource changed: If-Match %1, current ETag %2")
                            .arg(QString::fromLatin1(*ifMatch), QString::fromLatin1(current))}},
                Tr::tr("conflict on \"%1\": If-Match %2 is stale (now %3)")
                    .arg(name, QString::fromLatin1(*ifMatch), QString::fromLatin1(current)));
            p.addHeader("ETag", current);
            return p;
        }
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
        const QJsonValue value = doc.object().value(QStringLiteral("value"));
        const double number = value.toDouble();
        if (!doc.isObject() || !value.isDouble() || std::floor(number) != number || std::abs(number) > 9.0e15) {
            return errorPlan(400, Tr::tr("the body must be a JSON object with an integer \"value\""));
        }
        const qint64 old = res.value;
        res.value = static_cast<qint64>(number);
        ++res.version;
        Plan p = jsonPlan(200, QJsonObject{{QStringLiteral("value"), res.value}},
            Tr::tr("wrote \"%1\": %2 -> %3, ETag now %4")
                .arg(name)
                .arg(old)
                .arg(res.value)
                .arg(QString::fromLatin1(etagOf(res))));
        p.addHeader("ETag", etagOf(res));
        return p;
    };
    if (delay > 0)
        return waitPlan(static_cast<int>(delay), decide);
    return decide();
}

Plan FaultServerPrivate::eventualEndpoint(const HttpRequest &r, const QString &name, const Query &query)
{
    if (!isValidName(name))
        return errorPlan(400, Tr::tr("a resource name has 1 to 128 of the characters A-Z a-z 0-9 . _ ~ -"));
    const qint64 now = clock->nowNs();
    if (r.method == "PUT") {
        QString error;
        qint64 hidden = 0;
        if (!readInteger(
                query.value(QLatin1String("hidden_ms")), "hidden_ms", 0, maxEventualHiddenMs, 1000, &hidden, &error))
            return errorPlan(400, error);
        QMutexLocker lock(&mutex);
        auto it = eventual.find(name);
        const qint64 storage = eventualStorageInBodies * options.maxBodyBytes;
        if (eventualBytes - (it != eventual.end() ? it->body.size() : 0) + r.body.size() > storage) {
            return errorPlan(507,
                Tr::tr("/eventual already stores %1 bytes, at most %2 in all; reset the server (POST /_control/reset)")
                    .arg(eventualBytes)
                    .arg(storage));
        }
        if (it != eventual.end()) {
            eventualBytes += r.body.size() - it->body.size();
            it->body = r.body;
            it->contentType = r.header("Content-Type").value_or(QByteArray("application/octet-stream"));
            return jsonPlan(200, QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("updated"), true}},
                Tr::tr("updated \"%1\"").arg(name));
        }
        if (eventual.size() >= maxStateEntries)
            return errorPlan(503, Tr::tr("too many /eventual resources; reset the server (POST /_control/reset)"));
        eventualBytes += r.body.size();
        eventual.insert(name,
            EventualResource{
                r.body, r.header("Content-Type").value_or(QByteArray("application/octet-stream")), now, hidden});
        return jsonPlan(201, QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("visible_in_ms"), hidden}},
            Tr::tr("created \"%1\", invisible for %2 ms").arg(name).arg(hidden));
    }
    if (r.method != "GET" && r.method != "HEAD") {
        Plan p = errorPlan(405, Tr::tr("/eventual/{name} takes GET, HEAD and PUT"));
        p.addHeader("Allow", "GET, HEAD, PUT");
        return p;
    }
    QMutexLocker lock(&mutex);
    const auto it = eventual.constFind(name);
    if (it == eventual.cend())
        return errorPlan(404, Tr::tr("no resource \"%1\"").arg(name));
    const double ageMs = (now - it->createdNs) / 1e6;
    if (ageMs < static_cast<double>(it->hiddenMs)) {
        const qint64 left = static_cast<qint64>(std::ceil(static_cast<double>(it->hiddenMs) - ageMs));
        Plan p = errorPlan(404, Tr::tr("no resource \"%1\"").arg(name));
        p.detail = Tr::tr("\"%1\" exists but stays invisible for another %2 ms").arg(name).arg(left);
        p.addHeader("X-RetryLab-Visible-In-Ms", QByteArray::number(left));
        return p;
    }
    Plan p;
    p.body = it->body;
    p.contentType = it->contentType;
    p.detail = Tr::tr("\"%1\" is visible").arg(name);
    return p;
}

Plan FaultServerPrivate::controlEndpoint(const HttpRequest &r, const QStringList &segments, const Query &query)
{
    const QString what = segments.value(1);
    const auto wrongMethod = [](const char *allowed) {
        Plan p = errorPlan(405, Tr::tr("this control endpoint takes %1").arg(QLatin1String(allowed)));
        p.addHeader("Allow", allowed);
        return p;
    };
    if (what == QLatin1String("tests") && segments.size() == 2) {
        if (r.method == "GET") {
            QJsonArray list;
            QMutexLocker lock(&mutex);
            for (const Test &test : std::as_const(tests)) {
                const ScriptedTestStatus s = statusOf(test);
                list.append(QJsonObject{{QStringLiteral("id"), s.id}, {QStringLiteral("consumed"), s.consumed},
                    {QStringLiteral("remaining"), s.instructions.size() - s.consumed}});
            }
            return jsonPlan(200, QJsonObject{{QStringLiteral("tests"), list}},
                Tr::tr("listed %n test(s)", nullptr, int(list.size())));
        }
        if (r.method != "POST")
            return wrongMethod("GET, POST");
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(r.body, &parseError);
        if (parseError.error != QJsonParseError::NoError || !doc.isObject())
            return errorPlan(400, Tr::tr("the body must be a JSON object like {\"instructions\": [\"return-503\"]}"));
        const QJsonValue value = doc.object().value(QStringLiteral("instructions"));
        if (!value.isArray())
            return errorPlan(400, Tr::tr("\"instructions\" must be an array of strings"));
        QStringList instructions;
        for (const QJsonValue &item : value.toArray()) {
            if (!item.isString())
                return errorPlan(400, Tr::tr("\"instructions\" must be an array of strings"));
            instructions.append(item.toString());
        }
        const Result<QString> created = createTest(instructions);
        if (!created)
            return errorPlan(400, created.error());
        const QString id = *created;
        const auto status = q->testStatus(id);
        return jsonPlan(201,
            QJsonObject{{QStringLiteral("id"), id},
                {QStringLiteral("instructions"),
                    QJsonArray::fromStringList(status ? status->instructions : QStringList())}},
            Tr::tr("created test %1 with %n step(s)", nullptr, status ? int(status->instructions.size()) : 0).arg(id));
    }
    if (what == QLatin1String("tests") && segments.size() == 3) {
        if (r.method == "DELETE") {
            if (!q->deleteTest(segments[2]))
                return errorPlan(404, Tr::tr("no test \"%1\"").arg(shortened(segments[2])));
            return jsonPlan(200, QJsonObject{{QStringLiteral("id"), segments[2]}, {QStringLiteral("deleted"), true}},
                Tr::tr("deleted test %1").arg(segments[2]));
        }
        if (r.method != "GET" && r.method != "HEAD")
            return wrongMethod("GET, DELETE");
        const auto status = q->testStatus(segments[2]);
        if (!status)
            return errorPlan(404, Tr::tr("no test \"%1\"").arg(shortened(segments[2])));
        return jsonPlan(200,
            QJsonObject{{QStringLiteral("id"), status->id},
                {QStringLiteral("instructions"), QJsonArray::fromStringList(status->instructions)},
                {QStringLiteral("consumed"), status->consumed},
                {QStringLiteral("remaining"), status->instructions.size() - status->consumed},
                {QStringLiteral("replays"), status->replays}},
            Tr::tr("test %1: %2 of %n step(s) used", nullptr, int(status->instructions.size()))
                .arg(status->id)
                .arg(status->consumed));
    }
    if (what == QLatin1String("log") && segments.size() == 2) {
        if (r.method != "GET" && r.method != "HEAD")
            return wrongMethod("GET");
        QString error;
        qint64 since = 0;
        qint64 limit = 0;
        int capacity = 0;
        {
            QMutexLocker lock(&mutex);
            capacity = std::max(1, options.logCapacity);
        }
        if (!readInteger(query.value(QLatin1String("since")), "since", 0, std::numeric_limits<qint64>::max() / 2, 0,
                &since, &error)
            || !readInteger(
                query.value(QLatin1String("limit")), "limit", 1, capacity, std::min(capacity, 1000), &limit, &error))
            return errorPlan(400, error);
        QJsonArray entries;
        {
            QMutexLocker lock(&mutex);
            qint64 skip = 0;
            for (const ServerLogEntry &e : log) {
                if (e.sequence > static_cast<quint64>(since))
                    ++skip;
            }
            skip = std::max<qint64>(0, skip - limit);
            for (const ServerLogEntry &e : log) {
                if (e.sequence <= static_cast<quint64>(since))
                    continue;
                if (skip > 0) {
                    --skip;
                    continue;
                }
                entries.append(e.toJson());
            }
        }
        return jsonPlan(200, QJsonObject{{QStringLiteral("entries"), entries}},
            Tr::tr("listed %1 log entries").arg(entries.size()));
    }
    if (what == QLatin1String("reset") && segments.size() == 2) {
        if (r.method != "POST")
            return wrongMethod("POST");
        q->reset();
        return jsonPlan(
            200, QJsonObject{{QStringLiteral("reset"), true}}, Tr::tr("forgot keys, tests, resources and the log"));
    }
    return errorPlan(404, Tr::tr("no control endpoint at /%1").arg(shortened(segments.join(QLatin1Char('/')))));
}

Result<QString> FaultServerPrivate::createTest(const QStringList &instructions)
{
    const auto steps = FaultInstruction::parseList(instructions);
    if (!steps)
        return steps.errorDetail();
    if (steps->isEmpty())
        return Result<QString>::failure(Tr::tr("a test needs at least one instruction"));
    QMutexLocker lock(&mutex);
    const qsizetype maxTests = std::max(1, options.maxTests);
    if (tests.size() >= maxTests || totalSteps + steps->size() > maxTotalSteps) {
        return Result<QString>::failure(
            Tr::tr("the server already holds %1 tests with %2 steps (at most %3 tests, %4 steps); reset it first")
                .arg(tests.size())
                .arg(totalSteps)
                .arg(maxTests)
                .arg(maxTotalSteps));
    }
    totalSteps += steps->size();
    Test test;
    test.id = QStringLiteral("t%1").arg(nextTestNumber++);
    test.steps = *steps;
    const QString id = test.id;
    tests.insert(id, std::move(test));
    return id;
}

ScriptedTestStatus FaultServerPrivate::statusOf(const Test &test) const
{
    ScriptedTestStatus s;
    s.id = test.id;
    for (const FaultInstruction &step : test.steps)
        s.instructions.append(step.toString());
    s.consumed = test.consumed;
    s.replays = test.replays;
    return s;
}

// ---------------------------------------------------------------------------
// FaultServer

FaultServer::FaultServer(QObject *parent) : FaultServer(FaultServerOptions{}, parent)
{ }

FaultServer::FaultServer(const FaultServerOptions &options, QObject *parent)
    : QObject(parent), m_d(std::make_unique<FaultServerPrivate>(this, options))
{
    qRegisterMetaType<ServerLogEntry>();
}

FaultServer::~FaultServer()
{
    close();
}

void FaultServer::setOptions(const FaultServerOptions &options)
{
    QMutexLocker lock(&m_d->mutex);
    m_d->options = options;
    m_d->random.reseed(options.seed);
}

void FaultServer::setClock(const Clock *clock)
{
    m_d->clock = clock ? clock : &SteadyClock::instance();
}

FaultServerOptions FaultServer::options() const
{
    QMutexLocker lock(&m_d->mutex);
    return m_d->options;
}

bool FaultServer::listen()
{
    const FaultServerOptions o = options();
    const auto fail = [this](const QString &message) {
        QMutexLocker lock(&m_d->mutex);
        m_d->errorString = message;
        return false;
    };
    if (m_d->tcp->isListening())
        return fail(Tr::tr("the fault server is already listening on port %1").arg(m_d->tcp->serverPort()));
    if (o.address.isNull())
        return fail(Tr::tr("no address to listen on"));
    if (o.maxConnections < 1 || o.maxConnections > 100'000)
        return fail(Tr::tr("the connection limit must be from 1 to 100000 (got %1)").arg(o.maxConnections));
    if (o.idleTimeoutMs < 100 || o.idleTimeoutMs > 3'600'000)
        return fail(Tr::tr("the idle timeout must be from 100 ms to 1 h (got %1 ms)").arg(o.idleTimeoutMs));
    if (o.logCapacity < 1 || o.logCapacity > 1'000'000)
        return fail(Tr::tr("the log capacity must be from 1 to 1000000 entries (got %1)").arg(o.logCapacity));
    if (o.maxBodyBytes < 0 || o.maxBodyBytes > 1024LL * 1024 * 1024)
        return fail(Tr::tr("the body limit must be from 0 to 1 GiB (got %1 bytes)").arg(o.maxBodyBytes));
    if (o.maxTests < 1 || o.maxTests > 1'000'000)
        return fail(Tr::tr("the scripted test limit must be from 1 to 1000000 (got %1)").arg(o.maxTests));
    const bool loopback = o.address.isLoopback();
    if (!loopback && !o.allowNonLoopback) {
        return fail(Tr::tr("refusing to listen on %1: it is not a loopback address, and the fault server would "
                           "execute faults for anyone who reaches it; allow non-loopback addresses explicitly "
                           "(--allow-non-loopback) to do so")
                        .arg(o.address.toString()));
    }
    if (!loopback) {
        qCWarning(lcServer).noquote() << QStringLiteral("the fault server listens on %1, reachable from other machines")
                                             .arg(o.address.toString());
    }

    m_d->tcp->setListenBacklogSize(std::clamp(o.maxConnections, 50, 4096));
    if (!m_d->tcp->listen(o.address, o.port)) {
        return fail(Tr::tr("cannot listen on %1 port %2: %3")
                        .arg(o.address.toString())
                        .arg(o.port)
                        .arg(m_d->tcp->errorString()));
    }

    QHostAddress reach = o.address;
    if (reach == QHostAddress(QHostAddress::AnyIPv4) || reach == QHostAddress(QHostAddress::Any))
        reach = QHostAddress(QHostAddress::LocalHost);
    else if (reach == QHostAddress(QHostAddress::AnyIPv6))
        reach = QHostAddress(QHostAddress::LocalHostIPv6);
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(reach.toString());
    url.setPort(m_d->tcp->serverPort());
    {
        QMutexLocker lock(&m_d->mutex);
        m_d->url = url;
        m_d->port = m_d->tcp->serverPort();
        m_d->errorString.clear();
    }
    m_d->listening = true;
    qCDebug(lcServer).noquote() << "fault server listening on" << url.toString();
    return true;
}

void FaultServer::close()
{
    if (m_d->tcp->isListening())
        m_d->tcp->close();
    m_d->listening = false;
    m_d->dropAll();
    QMutexLocker lock(&m_d->mutex);
    m_d->url.clear();
    m_d->port = 0;
}

int FaultServer::connectionCount() const
{
    return m_d->connectionCount;
}

int FaultServer::peakConnectionCount() const
{
    return m_d->peakConnections;
}

bool FaultServer::isListening() const
{
    return m_d->listening;
}

QString FaultServer::errorString() const
{
    QMutexLocker lock(&m_d->mutex);
    return m_d->errorString;
}

QUrl FaultServer::baseUrl() const
{
    QMutexLocker lock(&m_d->mutex);
    return m_d->url;
}

quint16 FaultServer::serverPort() const
{
    QMutexLocker lock(&m_d->mutex);
    return m_d->port;
}

Result<QString> FaultServer::createTest(const QStringList &instructions)
{
    return m_d->createTest(instructions);
}

bool FaultServer::deleteTest(const QString &id)
{
    QMutexLocker lock(&m_d->mutex);
    const auto it = m_d->tests.find(id);
    if (it == m_d->tests.end())
        return false;
    m_d->totalSteps -= it->steps.size();
    m_d->tests.erase(it);
    return true;
}

int FaultServer::testCount() const
{
    QMutexLocker lock(&m_d->mutex);
    return static_cast<int>(m_d->tests.size());
}

int FaultServer::consumedInstructions(const QString &id) const
{
    QMutexLocker lock(&m_d->mutex);
    const auto it = m_d->tests.constFind(id);
    return it == m_d->tests.cend() ? -1 : it->consumed;
}

std::optional<ScriptedTestStatus> FaultServer::testStatus(const QString &id) const
{
    QMutexLocker lock(&m_d->mutex);
    const auto it = m_d->tests.constFind(id);
    if (it == m_d->tests.cend())
        return std::nullopt;
    return m_d->statusOf(*it);
}

void FaultServer::reset()
{
    QMutexLocker lock(&m_d->mutex);
    m_d->tests.clear();
    m_d->failCounters.clear();
    m_d->buckets.clear();
    m_d->occ.clear();
    m_d->eventual.clear();
    m_d->eventualBytes = 0;
    m_d->totalSteps = 0;
    m_d->log.clear();
    m_d->random.reseed(m_d->options.seed);
}

QList<ServerLogEntry> FaultServer::log() const
{
    QMutexLocker lock(&m_d->mutex);
    return QList<ServerLogEntry>(m_d->log.cbegin(), m_d->log.cend());
}

quint64 FaultServer::handledCount() const
{
    QMutexLocker lock(&m_d->mutex);
    return m_d->sequence;
}

QList<FaultServerEndpoint> FaultServer::endpoints()
{
    return {
        {QStringLiteral("GET"), QStringLiteral("/"), QString(), Tr::tr("this list")},
        {QStringLiteral("any"), QStringLiteral("/status/{code}"),
            QStringLiteral("?retry_after=S  ?retry_after_date=DATE|S  ?ratelimit_reset=S"),
            Tr::tr("answer with status {code} (200-599); optionally with Retry-After in seconds or as an HTTP-date, "
                   "and X-RateLimit-Reset")},
        {QStringLiteral("any"), QStringLiteral("/delay/{ms}"),
            QStringLiteral("?dist=uniform&min=M  ?dist=lognormal&sigma=S"),
            Tr::tr("answer 200 after {ms} (0-%1); uniform in [M, ms], or lognormal with median ms").arg(maxDelayMs)},
        {QStringLiteral("any"), QStringLiteral("/fail/{n}"), QStringLiteral("?key=K  ?code=C  ?p=P  ?retry_after=S"),
            Tr::tr("the first n requests with key K get C (default 503), then 200; with p each fails with "
                   "probability P (seeded), at most n times")},
        {QStringLiteral("any"), QStringLiteral("/fault/reset"), QStringLiteral("?when=before-headers|after-headers"),
            Tr::tr("reset the TCP connection (RST) before the response, or after its headers")},
        {QStringLiteral("any"), QStringLiteral("/fault/empty"), QString(),
            Tr::tr("close the connection without a response")},
        {QStringLiteral("any"), QStringLiteral("/fault/stall"), QString(), Tr::tr("read the request and never answer")},
        {QStringLiteral("any"), QStringLiteral("/fault/broken"), QStringLiteral("?total=M&sent=N&chunked=0|1"),
            Tr::tr("announce M body bytes (default 1024), send N (default M/2), close; chunked=1 sends N bytes as one "
                   "chunk and closes before the last chunk")},
        {QStringLiteral("any"), QStringLiteral("/fault/garbage"), QString(),
            Tr::tr("send bytes that are not HTTP, close")},
        {QStringLiteral("any"), QStringLiteral("/fault/drip"), QStringLiteral("?bytes=N&ms=T"),
            Tr::tr("answer 200 with N bytes (default 16) sent one every T ms (default 100)")},
        {QStringLiteral("any"), QStringLiteral("/ratelimit"), QStringLiteral("?rps=R&burst=B&key=K"),
            Tr::tr("token bucket per key: R tokens per second (0.001 to 100000), B at most; over the limit 429 with "
                   "Retry-After")},
        {QStringLiteral("any"), QStringLiteral("/redirect"), QStringLiteral("?to=URL&code=C"),
            Tr::tr("answer C (301, 302, 303, 307 or 308; default 302) with Location: URL, a path or an http(s) URL "
                   "on a loopback address")},
        {QStringLiteral("GET, PUT"), QStringLiteral("/occ/{name}"), QStringLiteral("?delay_ms=D"),
            Tr::tr(
                "read-modify-write resource: GET gives {\"value\": n} and an ETag; PUT with If-Match writes, a stale "
                "ETag gets 409 {\"status\":\"ABORTED\"}")},
        {QStringLiteral("GET, PUT"), QStringLiteral("/eventual/{name}"), QStringLiteral("?hidden_ms=T"),
            Tr::tr("eventually consistent resource: PUT creates it (201), GET answers 404 for T ms (default 1000)")},
        {QStringLiteral("POST"), QStringLiteral("/_control/tests"), QStringLiteral("{\"instructions\": [...]}"),
            Tr::tr("store a scripted test and get its id; send X-Retry-Test-Id: <id> to use its steps")},
        {QStringLiteral("GET"), QStringLiteral("/_control/tests/{id}"), QString(),
            Tr::tr("a test's steps and how many were used")},
        {QStringLiteral("DELETE"), QStringLiteral("/_control/tests/{id}"), QString(),
            Tr::tr("forgets a test (its place counts towards the test limit until then)")},
        {QStringLiteral("GET"), QStringLiteral("/_control/log"), QStringLiteral("?since=SEQ&limit=N"),
            Tr::tr("what the server received and did")},
        {QStringLiteral("POST"), QStringLiteral("/_control/reset"), QString(),
            Tr::tr("forget keys, tests, resources and the log")},
    };
}

QString FaultServer::usageText()
{
    QString text = Tr::tr("RetryLab fault server\n\nEndpoints:\n");
    for (const auto &e : endpoints()) {
        text += QStringLiteral("  %1 %2%3\n      %4\n")
                    .arg(e.method.leftJustified(8), e.path,
                        e.parameters.isEmpty() ? QString() : QStringLiteral("  ") + e.parameters, e.description);
    }
    text += Tr::tr("\nScripted steps (POST /_control/tests, then send X-Retry-Test-Id):\n");
    for (const auto &s : FaultInstruction::grammar())
        text += QStringLiteral("  %1 %2\n").arg(s.form.leftJustified(26), s.description);
    return text;
}

} // namespace RetryLab::Core
