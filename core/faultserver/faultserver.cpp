#include "core/faultserver/faultserver.h"

#include "core/faultserver/batchedwork.h"
#include "core/faultserver/connection.h"
#include "core/faultserver/controlendpoints.h"
#include "core/faultserver/faultendpoints.h"
#include "core/faultserver/oauthendpoints.h"
#include "core/faultserver/requesttarget.h"
#include "core/faultserver/servercertificates.h"
#include "core/faultserver/serverlog.h"
#include "core/faultserver/storageendpoints.h"
#include "core/faultserver/storageobjects.h"
#include "core/faultserver/storageretrytests.h"
#include "core/faultserver/tlslistener.h"
#include "core/http/httprequestparser.h"
#include "core/http/redactor.h"
#include "core/http/retryafter.h"
#include "core/http/retryheaders.h"
#include "core/runtime/descriptorlimit.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"
#include "core/util/terminaltext.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMap>
#include <QMutex>
#include <QMutexLocker>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrlQuery>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>

// One job: the fault server's listening side: accepting and capping connections, TLS,
// routing each request to its endpoints and logging it (FaultServerPrivate), behind the
// thin public FaultServer. Sockets are Connection's, answers the endpoints'. The private
// class is the server's own state; on its own it would need a header for one user.

namespace RetryLab::Core {

namespace {

// `masked` with the values of its "key" parameters put back from `original`: the
// redactor keeps the parameters' order and names, and changes values only.
QUrl withOwnKeys(const QUrl &original, QUrl masked)
{
    const auto before = QUrlQuery(original).queryItems(QUrl::FullyEncoded);
    auto after = QUrlQuery(masked).queryItems(QUrl::FullyEncoded);
    if (before.size() != after.size())
        return masked;
    for (qsizetype i = 0; i < after.size(); ++i) {
        if (after[i].first != before[i].first)
            return masked;
        if (after[i].first == QLatin1String("key"))
            after[i].second = before[i].second;
    }
    QUrlQuery query;
    query.setQueryItems(after);
    masked.setQuery(query.query(QUrl::FullyEncoded), QUrl::StrictMode);
    return masked;
}

// Whether a path target's query holds nothing the redactor would mask, told without
// parsing it (every request of /fail/N?key={id} asks): unreserved characters only, so
// no escape can hide a URL and the parse would change nothing, and no parameter named
// as a credential but the key by which /fail/N and /ratelimit count requests.
bool plainQuery(const QString &target)
{
    const qsizetype question = target.indexOf(QLatin1Char('?'));
    if (question < 0)
        return false;
    const QStringView path = QStringView(target).left(question);
    const QStringView query = QStringView(target).mid(question + 1);
    const auto unreserved
        = [](QChar c) { return RequestTarget::isUnreserved(c) || c == QLatin1Char('=') || c == QLatin1Char('&'); };
    if (path.contains(QLatin1Char('%')) || path.contains(QLatin1Char('#'))
        || !std::all_of(query.begin(), query.end(), unreserved))
        return false;
    const bool ownKeys = FaultEndpoints::keysRequests(path);
    for (const QStringView part : query.tokenize(u'&')) {
        const qsizetype equals = part.indexOf(QLatin1Char('='));
        if (equals < 0)
            continue;
        const QStringView name = part.left(equals);
        if (ownKeys && name == QLatin1String("key"))
            continue;
        if (Redactor::isSensitiveName(name))
            return false;
    }
    return true;
}

namespace {
Q_LOGGING_CATEGORY(lcServer, "retrylab.core.faultserver", QtInfoMsg)
} // namespace

// Connections beyond the cap plus this many are not even answered.
constexpr int overCapacityAllowance = 64;

} // namespace

class FaultServerPrivate final : public Connection::Host, public TlsListener::Host, public ControlEndpoints::Tls
{
public:
    explicit FaultServerPrivate(FaultServer *server, const FaultServerOptions &opts)
        : q(server), tcp(new QTcpServer(server)), options(opts), tests(opts.maxTests), log(opts.logCapacity),
          endpoints(opts.seed), control(tests, log, *this, [server] { server->reset(); }), storageTests(opts.maxTests),
          storage(storageTests, storageObjects), timeouts(server)
    {
        endpoints.setMaxBodyBytes(opts.maxBodyBytes);
        storageObjects.setMaxBytes(opts.maxStorageBytes);
        QObject::connect(tcp, &QTcpServer::newConnection, q, [this] { handleNewConnections(); });
        QObject::connect(
            tcp, &QTcpServer::acceptError, q, [this](QAbstractSocket::SocketError error) { handleAcceptError(error); });
    }

    void handleNewConnections();
    /// At the cap, the connection that waits longest for the rest of a request
    /// (a slow client) or, with none, for a next one (idle keep-alive) gives way
    /// to the new one. False when every connection is being answered.
    bool evictOne();
    /// Out of descriptors (EMFILE): stop accepting, say so once, and serve the
    /// connections already open; accepting resumes when one of them closes.
    void handleAcceptError(QAbstractSocket::SocketError error);
    /// The connection limit: the configured one, or fewer when the descriptors left allow fewer.
    int connectionCap() const;
    /// Serves HTTP on an accepted socket (plain, or TLS with its handshake done: `tls` names it).
    void accept(QTcpSocket *socket, const QString &tls);
    void dropAll();
    /// Makes the certificates and opens the HTTPS port and the fault ports; the error says why not.
    Result<void> listenTls(const FaultServerOptions &o, const QHostAddress &reach);
    void closeTls();
    /// What a request gets: the next step of its scripted test, or its path's answer.
    ResponsePlan route(const HttpRequest &request);
    /// The plan of a scripted or hooked step, its detail saying which step decided.
    ResponsePlan play(const HttpRequest &request, const FaultInstruction &step, const QString &describe);

    // Connection::Host and TlsListener::Host (server thread).
    const Clock &clock() const override { return *clockSource; }
    QByteArray dateHeader() override;
    int maxConnections() const override;
    ResponsePlan decide(const HttpRequest &request, ServerLogEntry &entry) override;
    void record(ServerLogEntry entry) override;
    void forget(quint64 id) override;
    void adjustHeldBytes(qint64 delta) override { held += delta; }
    void deferTimeout(std::function<void()> answer) override { timeouts.post(std::move(answer)); }
    qint64 heldBytes() const override { return held; }
    qint64 maxHeldBytes() const override;

    // TlsListener::Host (server thread).
    TlsFault nextHandshake() override;
    QSslConfiguration tlsConfiguration(TlsFault fault) const override { return tlsConfigurations.value(fault); }
    int handshakeTimeoutMs() const override;
    int maxHandshakes() const override { return maxConnections() + overCapacityAllowance; }
    void adopt(QSslSocket *socket, TlsFault fault) override { accept(socket, TlsFaults::name(fault)); }

    // ControlEndpoints::Tls (any thread).
    QByteArray trustAnchorsPem() const override;
    QJsonObject describeTls() const override;
    Result<QStringList> setHandshakeScript(const QStringList &steps) override;

    FaultServer *q;
    QTcpServer *tcp;
    const Clock *clockSource = &SteadyClock::instance();
    FaultServer::RequestHook requestHook; ///< server thread
    QHash<quint64, std::shared_ptr<Connection>> connections;
    quint64 nextConnectionId = 1;
    std::atomic<int> connectionCount{0};
    std::atomic<int> peakConnections{0};
    std::atomic<qint64> held{0}; ///< request bytes held by all connections (server thread)
    std::atomic<bool> listening{false};
    /// Connections the descriptors left at listen() allow (see DescriptorLimit).
    std::atomic<int> descriptorCap{std::numeric_limits<int>::max()};
    bool acceptPaused = false; ///< server thread
    bool exhaustionReported = false; ///< server thread
    QByteArray dateHeaderValue; ///< "Date" value of the current second (server thread)
    qint64 dateHeaderSecond = -1;

    QList<TlsListener *> tlsListeners; ///< the HTTPS port first, then one per fault
    QMap<TlsFault, QSslConfiguration> tlsConfigurations;

    mutable QMutex mutex; // guards the nine below
    FaultServerOptions options;
    QString errorString;
    QUrl url;
    quint16 port = 0;
    QMap<TlsFault, QUrl> tlsUrls; ///< Pass: the HTTPS port
    QSslCertificate ca;
    QByteArray anchorsPem;
    QList<TlsFault> handshakeSteps; ///< the HTTPS port's script, next step first
    int handshakeStepsUsed = 0;

    // Each guards itself.
    ScriptedTests tests;
    ServerLog log;
    FaultEndpoints endpoints;
    ControlEndpoints control;
    StorageRetryTests storageTests;
    StorageObjects storageObjects;
    StorageEndpoints storage;
    OAuthEndpoints oauth;
    /// Deadline answers, a batch per pass of the event loop (server thread).
    BatchedWork timeouts;
};

// ---------------------------------------------------------------------------
// Connections

void FaultServerPrivate::handleNewConnections()
{
    while (tcp->hasPendingConnections()) {
        QTcpSocket *socket = tcp->nextPendingConnection();
        if (!socket)
            break;
        accept(socket, QString());
    }
}

void FaultServerPrivate::handleAcceptError(QAbstractSocket::SocketError error)
{
    if (error != QAbstractSocket::SocketResourceError) {
        qCWarning(lcServer) << "accepting a connection failed:" << tcp->errorString();
        return;
    }
    tcp->pauseAccepting();
    acceptPaused = true;
    if (!exhaustionReported) {
        exhaustionReported = true;
        const DescriptorLimit::Limits limits = DescriptorLimit::current();
        qCWarning(lcServer).noquote() << QStringLiteral(
            "out of file descriptors (the limit is %1): new connections wait until one of the "
            "%2 open closes; those keep being served")
                                             .arg(limits.soft)
                                             .arg(connections.size());
    }
}

bool FaultServerPrivate::evictOne()
{
    std::shared_ptr<Connection> victim;
    for (const std::shared_ptr<Connection> &c : std::as_const(connections)) {
        if (!c->isEvictable())
            continue;
        if (!victim
            || std::pair(!c->hasIncompleteRequest(), c->waitingSinceNs())
                < std::pair(!victim->hasIncompleteRequest(), victim->waitingSinceNs()))
            victim = c;
    }
    if (!victim)
        return false;
    const double waitedMs = (clockSource->nowNs() - victim->waitingSinceNs()) / 1e6;
    victim->evict(victim->hasIncompleteRequest()
            ? Tr::tr("at the connection limit, this connection's request was still incomplete after %1 ms: it made "
                     "room for a new connection")
                  .arg(waitedMs, 0, 'f', 0)
            : Tr::tr("at the connection limit, this connection had been idle for %1 ms: it made room for a new "
                     "connection")
                  .arg(waitedMs, 0, 'f', 0));
    forget(victim->id());
    return true;
}

int FaultServerPrivate::connectionCap() const
{
    QMutexLocker lock(&mutex);
    return std::min(options.maxConnections, descriptorCap.load());
}

void FaultServerPrivate::accept(QTcpSocket *socket, const QString &tls)
{
    int cap = 0;
    Connection::Settings settings;
    {
        QMutexLocker lock(&mutex);
        cap = std::min(options.maxConnections, descriptorCap.load());
        settings.idleTimeoutMs = options.idleTimeoutMs;
        settings.headerTimeoutMs = options.headerTimeoutMs;
        settings.minBodyBytesPerSecond = options.minBodyBytesPerSecond;
        settings.maxBodyBytes = options.maxBodyBytes;
    }
    int open = static_cast<int>(connections.size());
    if (open >= cap && evictOne())
        open = static_cast<int>(connections.size());
    if (open >= cap + overCapacityAllowance) {
        qCWarning(lcServer) << "dropping a connection: already" << open << "open";
        socket->abort();
        socket->deleteLater();
        return;
    }
    settings.id = nextConnectionId++;
    settings.overCapacity = open >= cap;
    settings.tls = tls;
    auto c = std::make_shared<Connection>(*this, socket, settings);
    connections.insert(settings.id, c);
    connectionCount = static_cast<int>(connections.size());
    peakConnections = std::max(peakConnections.load(), connectionCount.load());
    c->start();
}

void FaultServerPrivate::forget(quint64 id)
{
    connections.remove(id);
    connectionCount = static_cast<int>(connections.size());
    if (acceptPaused && tcp->isListening()) {
        acceptPaused = false;
        tcp->resumeAccepting();
    }
}

void FaultServerPrivate::dropAll()
{
    const auto all = connections;
    connections.clear();
    connectionCount = 0;
    timeouts.clear();
    for (const std::shared_ptr<Connection> &c : all)
        c->abort();
}

QByteArray FaultServerPrivate::dateHeader()
{
    // Like nginx, format the Date header once per second rather than per response.
    const QDateTime now = clockSource->wallTime();
    if (const qint64 second = now.toSecsSinceEpoch(); second != dateHeaderSecond) {
        dateHeaderValue = formatHttpDate(now);
        dateHeaderSecond = second;
    }
    return dateHeaderValue;
}

qint64 FaultServerPrivate::maxHeldBytes() const
{
    QMutexLocker lock(&mutex);
    return options.maxHeldBytes;
}

int FaultServerPrivate::maxConnections() const
{
    return connectionCap();
}

// ---------------------------------------------------------------------------
// HTTPS

Result<void> FaultServerPrivate::listenTls(const FaultServerOptions &o, const QHostAddress &reach)
{
    if (!QSslSocket::supportsSsl()) {
        return Result<void>::failure(
            Tr::tr("HTTPS needs Qt's TLS support, which is not available here (Qt's TLS backend: \"%1\")")
                .arg(QSslSocket::activeBackend()));
    }
    // Real time, not the injected clock: real clients check the validity windows.
    auto generated = ServerCertificates::generate(QDateTime::currentDateTimeUtc(), o.address);
    if (!generated)
        return Result<void>::failure(Tr::tr("cannot make the TLS certificates: %1").arg(generated.error()));
    ServerCertificates certificates = std::move(generated).value();
    if (!o.tlsCertificateFile.isEmpty() || !o.tlsKeyFile.isEmpty()) {
        const Result<void> used
            = certificates.usePassCertificate(o.tlsCertificateFile, o.tlsKeyFile, o.tlsKeyPassphrase);
        if (!used)
            return Result<void>::failure(used.errorDetail().path + QStringLiteral(": ") + used.errorDetail().message);
    }
    tlsConfigurations.clear();
    QList<std::optional<TlsFault>> ports{std::nullopt};
    for (const TlsFault fault : TlsFaults::all())
        ports.append(fault);
    QMap<TlsFault, QUrl> urls;
    for (const std::optional<TlsFault> &fault : ports) {
        const TlsFault kind = fault.value_or(TlsFault::Pass);
        if (TlsFaults::presentsCertificate(kind))
            tlsConfigurations.insert(kind, certificates.configuration(kind));
        auto *listener = new TlsListener(*this, fault, q);
        tlsListeners.append(listener);
        listener->setListenBacklogSize(std::clamp(o.maxConnections, 50, 4096));
        if (!listener->listen(o.address, fault ? 0 : *o.httpsPort)) {
            if (!fault) {
                return Result<void>::failure(Tr::tr("cannot listen for HTTPS on %1 port %2: %3")
                                                 .arg(o.address.toString())
                                                 .arg(*o.httpsPort)
                                                 .arg(listener->errorString()));
            }
            return Result<void>::failure(Tr::tr("cannot open a port for the TLS fault %1: %2")
                                             .arg(TlsFaults::name(kind), listener->errorString()));
        }
        QUrl portUrl;
        portUrl.setScheme(QStringLiteral("https"));
        portUrl.setHost(reach.toString());
        portUrl.setPort(listener->serverPort());
        urls.insert(kind, portUrl);
    }
    QMutexLocker lock(&mutex);
    tlsUrls = urls;
    ca = certificates.ca();
    anchorsPem = certificates.trustAnchorsPem();
    return {};
}

void FaultServerPrivate::closeTls()
{
    for (TlsListener *listener : std::as_const(tlsListeners)) {
        listener->close();
        listener->dropAll();
        // Later: close() may run inside a signal of one of its sockets.
        listener->deleteLater();
    }
    tlsListeners.clear();
    tlsConfigurations.clear();
    QMutexLocker lock(&mutex);
    tlsUrls.clear();
    ca = QSslCertificate();
    anchorsPem.clear();
    handshakeSteps.clear();
    handshakeStepsUsed = 0;
}

TlsFault FaultServerPrivate::nextHandshake()
{
    QMutexLocker lock(&mutex);
    if (handshakeSteps.isEmpty())
        return TlsFault::Pass;
    ++handshakeStepsUsed;
    return handshakeSteps.takeFirst();
}

int FaultServerPrivate::handshakeTimeoutMs() const
{
    QMutexLocker lock(&mutex);
    return options.idleTimeoutMs;
}

QByteArray FaultServerPrivate::trustAnchorsPem() const
{
    QMutexLocker lock(&mutex);
    return anchorsPem;
}

QJsonObject FaultServerPrivate::describeTls() const
{
    QMutexLocker lock(&mutex);
    QJsonObject faults;
    for (auto it = tlsUrls.cbegin(); it != tlsUrls.cend(); ++it) {
        if (it.key() != TlsFault::Pass)
            faults.insert(TlsFaults::name(it.key()), it.value().toString());
    }
    QStringList script;
    for (const TlsFault step : handshakeSteps)
        script.append(TlsFaults::name(step));
    return QJsonObject{
        {QStringLiteral("https"), tlsUrls.value(TlsFault::Pass).toString()},
        {QStringLiteral("ca"), QStringLiteral("/_control/ca.pem")},
        {QStringLiteral("faults"), faults},
        {QStringLiteral("handshakeScript"), QJsonArray::fromStringList(script)},
        {QStringLiteral("handshakeStepsUsed"), handshakeStepsUsed},
    };
}

Result<QStringList> FaultServerPrivate::setHandshakeScript(const QStringList &steps)
{
    const auto parsed = TlsFaults::parseScript(steps);
    if (!parsed)
        return parsed.errorDetail();
    QMutexLocker lock(&mutex);
    if (tlsUrls.isEmpty()) {
        return Result<QStringList>::failure(
            Tr::tr("this server does not serve HTTPS, so it has no handshakes to script"));
    }
    handshakeSteps = *parsed;
    handshakeStepsUsed = 0;
    QStringList names;
    for (const TlsFault step : handshakeSteps)
        names.append(TlsFaults::name(step));
    return names;
}

// ---------------------------------------------------------------------------
// Requests

ResponsePlan FaultServerPrivate::decide(const HttpRequest &r, ServerLogEntry &e)
{
    std::optional<FaultInstruction> hooked;
    if (requestHook) {
        const RequestTarget target(r);
        if (!ControlEndpoints::owns(target)) {
            hooked = requestHook(r, e);
            // The endpoints keep working as they are: the hook's step is for the other paths.
            if (FaultEndpoints::owns(target) || StorageEndpoints::owns(r) || OAuthEndpoints::owns(target))
                hooked.reset();
        }
    }
    if (e.testId.isEmpty()) {
        if (!hooked)
            return route(r);
        return play(r, *hooked, Tr::tr("observation plan: %1").arg(hooked->toString()));
    }
    const QByteArray requestId = r.header(RetryHeaders::requestId).value_or(QByteArray()).trimmed();
    if (storageTests.contains(e.testId)) {
        // A test of Cloud Storage's retry test API: its instructions are per operation of the storage
        // API; any other path answers as it would without the header, as in the testbench.
        if (!StorageEndpoints::owns(r))
            return route(r);
        const QString replayKey = requestId.isEmpty() || e.clientAttempt.isEmpty()
            ? QString()
            : QString::fromLatin1(requestId) + QLatin1Char('#') + e.clientAttempt;
        return storage.handle(r, e.testId, replayKey);
    }
    const auto taken = tests.take(e.testId, requestId, e.clientAttempt);
    if (!taken)
        return ResponsePlan::error(400, taken.error());
    if (!taken->has_value())
        return route(r); // the steps are used up: answered by the path again
    const ScriptedStep &step = **taken;
    e.instructionIndex = step.index;
    e.replayed = step.replayed;
    return play(r, step.instruction, step.describe());
}

ResponsePlan FaultServerPrivate::play(const HttpRequest &r, const FaultInstruction &step, const QString &describe)
{
    ResponsePlan plan = ResponsePlan::forStep(step, [this, r] { return route(r); });
    // Say which step decided, also for what is decided after a wait.
    const auto prefix = [describe](ResponsePlan p) {
        p.detail = p.detail.isEmpty() ? describe : describe + QStringLiteral(": ") + p.detail;
        return p;
    };
    if (plan.kind == ResponsePlan::Kind::Wait) {
        plan.then = [then = plan.then, prefix] { return prefix(then()); };
        return plan;
    }
    return prefix(std::move(plan));
}

ResponsePlan FaultServerPrivate::route(const HttpRequest &r)
{
    const RequestTarget target(r);
    if (ControlEndpoints::owns(target))
        return control.handle(r, target);
    if (StorageEndpoints::owns(r))
        return storage.handle(r, QString(), QString());
    if (OAuthEndpoints::owns(target))
        return oauth.handle(r, target);
    return endpoints.handle(r, target);
}

void FaultServerPrivate::record(ServerLogEntry entry)
{
    // Bounded before anything else: a request line is at most 8 KiB, but a
    // detail may echo a body (an unknown 8 MiB instruction in a script).
    entry.target = TerminalText::elided(entry.target, TerminalText::logFieldLimit);
    entry.detail = TerminalText::elided(entry.detail, TerminalText::logFieldLimit);
    if (options.redactLog) {
        const Redactor redactor;
        // By the target's structure: its query's parameters (whole values), and a
        // URL percent-encoded inside one (?to=http%3A%2F%2Fuser%3Apassword%40...).
        if (entry.target.startsWith(QLatin1Char('/'))) {
            // Only a query or a fragment can hold a credential in a path's target:
            // without them it is not parsed (the common case, at every request).
            if ((entry.target.contains(QLatin1Char('?')) || entry.target.contains(QLatin1Char('#')))
                && !plainQuery(entry.target)) {
                const QUrl asUrl(QStringLiteral("http://target") + entry.target, QUrl::TolerantMode);
                QUrl masked = redactor.url(asUrl);
                // The key of /fail/N and /ratelimit is the server's own name for a logical
                // request (RetryLab sends {id}): shown as it is, not as a credential.
                if (FaultEndpoints::keysRequests(asUrl.path()))
                    masked = withOwnKeys(asUrl, masked);
                if (asUrl.isValid() && masked != asUrl)
                    entry.target = masked.toString(QUrl::FullyEncoded | QUrl::RemoveScheme | QUrl::RemoveAuthority);
            }
        } else {
            entry.target = redactor.urlString(QUrl(entry.target, QUrl::TolerantMode));
        }
        entry.detail = redactor.text(entry.detail);
        for (auto &[name, value] : entry.identityHeaders)
            value = redactor.headerValue(name, value);
    }
    entry = log.append(std::move(entry));
    qCDebug(lcServer).noquote() << entry.summary();
    Q_EMIT q->requestHandled(entry);
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
    {
        QMutexLocker lock(&m_d->mutex);
        m_d->options = options;
    }
    m_d->endpoints.setSeed(options.seed);
    m_d->endpoints.setMaxBodyBytes(options.maxBodyBytes);
    m_d->tests.setMaxTests(options.maxTests);
    m_d->storageTests.setMaxTests(options.maxTests);
    m_d->storageObjects.setMaxBytes(options.maxStorageBytes);
    m_d->log.setCapacity(options.logCapacity);
}

void FaultServer::reseed(quint64 seed)
{
    m_d->endpoints.setSeed(seed);
}

void FaultServer::setClock(const Clock *clock)
{
    m_d->clockSource = clock ? clock : &SteadyClock::instance();
    m_d->endpoints.setClock(clock);
    m_d->oauth.setClock(clock);
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
    if (o.headerTimeoutMs < 100 || o.headerTimeoutMs > 3'600'000)
        return fail(Tr::tr("the header timeout must be from 100 ms to 1 h (got %1 ms)").arg(o.headerTimeoutMs));
    if (o.minBodyBytesPerSecond < 0 || o.minBodyBytesPerSecond > 1'000'000'000) {
        return fail(
            Tr::tr("the minimum body rate must be from 0 to 1000000000 bytes/s (got %1)").arg(o.minBodyBytesPerSecond));
    }
    if (o.maxHeldBytes < 64 * 1024 || o.maxHeldBytes > 64LL * 1024 * 1024 * 1024)
        return fail(
            Tr::tr("the limit of request bytes held must be from 64 KiB to 64 GiB (got %1 bytes)").arg(o.maxHeldBytes));
    if (o.logCapacity < 1 || o.logCapacity > 1'000'000)
        return fail(Tr::tr("the log capacity must be from 1 to 1000000 entries (got %1)").arg(o.logCapacity));
    if (o.maxBodyBytes < 0 || o.maxBodyBytes > 1024LL * 1024 * 1024)
        return fail(Tr::tr("the body limit must be from 0 to 1 GiB (got %1 bytes)").arg(o.maxBodyBytes));
    if (o.maxTests < 1 || o.maxTests > 1'000'000)
        return fail(Tr::tr("the scripted test limit must be from 1 to 1000000 (got %1)").arg(o.maxTests));
    if (o.maxStorageBytes < 1024 * 1024 || o.maxStorageBytes > 64LL * 1024 * 1024 * 1024) {
        return fail(Tr::tr("the Cloud Storage object limit must be from 1 MiB to 64 GiB (got %1 bytes)")
                        .arg(o.maxStorageBytes));
    }
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

    // Every connection holds a descriptor, and so does each one turned away
    // with a 503: the cap is what the descriptors left allow, if that is less.
    const qint64 spare = DescriptorLimit::available() - overCapacityAllowance;
    m_d->descriptorCap = int(std::clamp<qint64>(spare, 1, std::numeric_limits<int>::max()));
    m_d->exhaustionReported = false;
    if (m_d->descriptorCap < o.maxConnections) {
        qCWarning(lcServer).noquote() << QStringLiteral(
            "the file descriptor limit (%1) leaves room for %2 connections at once: the limit of %3 "
            "is lowered to that")
                                             .arg(DescriptorLimit::current().soft)
                                             .arg(m_d->descriptorCap.load())
                                             .arg(o.maxConnections);
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
    if (o.httpsPort) {
        if (const Result<void> tls = m_d->listenTls(o, reach); !tls) {
            m_d->closeTls();
            m_d->tcp->close();
            return fail(tls.error());
        }
    }
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
    qCDebug(lcServer).noquote() << "fault server listening on" << url.toString() << httpsBaseUrl().toString();
    return true;
}

void FaultServer::close()
{
    if (m_d->tcp->isListening())
        m_d->tcp->close();
    m_d->listening = false;
    m_d->dropAll();
    m_d->closeTls();
    QMutexLocker lock(&m_d->mutex);
    m_d->url.clear();
    m_d->port = 0;
}

void FaultServer::setRequestHook(RequestHook hook)
{
    m_d->requestHook = std::move(hook);
}

int FaultServer::connectionCount() const
{
    return m_d->connectionCount;
}

int FaultServer::peakConnectionCount() const
{
    return m_d->peakConnections;
}

int FaultServer::connectionLimit() const
{
    return m_d->connectionCap();
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

QUrl FaultServer::httpsBaseUrl() const
{
    return tlsFaultUrl(TlsFault::Pass);
}

QUrl FaultServer::tlsFaultUrl(TlsFault fault) const
{
    QMutexLocker lock(&m_d->mutex);
    return m_d->tlsUrls.value(fault);
}

QSslCertificate FaultServer::caCertificate() const
{
    QMutexLocker lock(&m_d->mutex);
    return m_d->ca;
}

QByteArray FaultServer::trustAnchorsPem() const
{
    return m_d->trustAnchorsPem();
}

Result<void> FaultServer::setHandshakeScript(const QStringList &steps)
{
    const Result<QStringList> stored = m_d->setHandshakeScript(steps);
    if (!stored)
        return stored.errorDetail();
    return {};
}

QStringList FaultServer::handshakeScript() const
{
    QMutexLocker lock(&m_d->mutex);
    QStringList names;
    for (const TlsFault step : m_d->handshakeSteps)
        names.append(TlsFaults::name(step));
    return names;
}

Result<QString> FaultServer::createTest(const QStringList &instructions)
{
    return m_d->tests.create(instructions);
}

bool FaultServer::deleteTest(const QString &id)
{
    return m_d->tests.remove(id);
}

int FaultServer::testCount() const
{
    return m_d->tests.count();
}

int FaultServer::consumedInstructions(const QString &id) const
{
    return m_d->tests.consumed(id);
}

std::optional<ScriptedTestStatus> FaultServer::testStatus(const QString &id) const
{
    return m_d->tests.status(id);
}

void FaultServer::reset()
{
    {
        QMutexLocker lock(&m_d->mutex);
        m_d->handshakeSteps.clear();
        m_d->handshakeStepsUsed = 0;
    }
    m_d->tests.clear();
    m_d->storageTests.clear();
    m_d->storageObjects.clear();
    m_d->endpoints.reset();
    m_d->oauth.reset();
    m_d->log.clear();
}

Result<void> FaultServer::setOAuthClients(const QList<OAuthClient> &clients)
{
    return m_d->oauth.setClients(clients);
}

QList<OAuthClient> FaultServer::oauthClients() const
{
    return m_d->oauth.clients();
}

Result<void> FaultServer::addServiceAccount(const QString &clientEmail, const QByteArray &publicKeyPem)
{
    return m_d->oauth.addServiceAccount(clientEmail, publicKeyPem);
}

Result<QByteArray> FaultServer::serviceAccountKeyFile() const
{
    const QUrl base = baseUrl();
    if (base.isEmpty())
        return Result<QByteArray>::failure(Tr::tr("the server is not listening, so its token URL is not known yet"));
    return m_d->oauth.serviceAccountKeyFile(base.toString() + QStringLiteral("/oauth/token"));
}

QList<ServerLogEntry> FaultServer::log() const
{
    return m_d->log.entries();
}

quint64 FaultServer::handledCount() const
{
    return m_d->log.appendedCount();
}

QList<FaultServerEndpoint> FaultServer::endpoints()
{
    return EndpointCatalog::endpoints();
}

QString FaultServer::usageText()
{
    return EndpointCatalog::usageText();
}

} // namespace RetryLab::Core
