#include "core/executor/attempttransport.h"

#include "core/executor/attemptobserver.h"
#include "core/executor/connecttarget.h"
#include "core/executor/executorrequest.h"
#include "core/executor/redirectstep.h"
#include "core/executor/retryplanner.h"
#include "core/executor/streamedbody.h"
#include "core/executor/tlsinspection.h"
#include "core/http/redactor.h"
#include "core/http/retryheaders.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QHostInfo>
#include <QHttpMultiPart>
#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>

// One job: one attempt's life on the network, from its first hop to the record Qt's
// signals fill. Its connection (the timed lookup, a pin, the connect timer), its hops
// (redirects, a token, a Digest challenge) and the body read as it comes act on the same
// reply and record at once, which is why they stay together here.

namespace RetryLab::Core {

namespace {

/// How far Qt reads a body the executor drains as it comes (AttemptTransport::setBodyLimit).
constexpr qint64 bodyReadAheadBytes = 256 * 1024;

// Keeps the first `limit` bytes of a response body; the rest is only counted.
void keepBody(QByteArray &kept, const QByteArray &chunk, qint64 limit)
{
    if (kept.size() < limit)
        kept.append(chunk.left(limit - kept.size()));
}

} // namespace

AttemptTransport::AttemptTransport(QObject *context, const Clock &clock, const Requests &requests,
    QNetworkAccessManager *shared, const void *injected, ManagerPool::Added added)
    : m_context(context), m_clock(clock), m_requests(requests), m_managers(shared, context, std::move(added)),
      m_injectedManager(injected), m_auth(clock)
{
    m_hopRequest.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    m_hopRequest.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    // Redirects are followed in followRedirect(), whatever the manager says:
    // each 3xx is recorded, and credentials never travel to another origin.
    m_hopRequest.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    m_defaultTransportRequest = m_hopRequest;
    PreparedTransport().applyTo(m_defaultTransportRequest); // HTTP/1.1
    static std::atomic<quint64> executors{0};
    m_requestIdPrefix
        = QByteArray::number(QCoreApplication::applicationPid()) + '.' + QByteArray::number(++executors) + '-';
}

QByteArray AttemptTransport::attemptNumber(int number)
{
    // "1", "2", ...: one buffer each for every record that carries it.
    if (number < 1 || number > 1000)
        return QByteArray::number(number);
    while (m_attemptNumbers.size() < number)
        m_attemptNumbers.append(QByteArray::number(m_attemptNumbers.size() + 1));
    return m_attemptNumbers.at(number - 1);
}

bool AttemptTransport::bodyStopsAtLength(const ExecutorRequest &r) const
{
    // Whether the reply's body ends at its Content-Length, so that one announced to
    // fit what is kept can wait in the reply until it finishes (conclude() reads
    // it); any other is read as it comes, so that only the kept part stays in
    // memory. Not a chunked one (Qt reads chunks whatever the length says), not a
    // compressed one (Qt inflates it), not over HTTP/2, and not through a manager the
    // executor was given: destroying it takes the unread body with its replies.
    if (static_cast<const void *>(r.manager) == m_injectedManager)
        return false;
    if (r.reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool())
        return false;
    for (const auto &[name, value] : r.reply->rawHeaderPairs()) {
        if ((name.size() == 16 && name.compare("Content-Encoding", Qt::CaseInsensitive) == 0)
            || (name.size() == 17 && name.compare("Transfer-Encoding", Qt::CaseInsensitive) == 0))
            return false;
    }
    return true;
}

ExecutorRequest *AttemptTransport::replyOwner(quint64 requestId, const QNetworkReply *reply) const
{
    // A reply of an earlier attempt or hop is deleted later, not disconnected: it must not touch the request.
    const auto it = m_requests.constFind(requestId);
    return it != m_requests.cend() && (*it)->reply == reply ? it->get() : nullptr;
}

void AttemptTransport::forgetReply(const ExecutorRequest &r)
{
    // An injected manager also finishes replies of its owner's: never in the
    // table. A reply leaves it whenever its request drops it.
    if (r.reply)
        m_replyRequests.remove(r.reply.data());
}

void AttemptTransport::start(ExecutorRequest &r, qint64 now)
{
    HopRequest hop = RetryPlanner::attemptRequest(r.spec, r.plan);
    if (r.spec.kind == RequestSpec::Kind::ReadModifyWrite)
        m_interner.intern(hop.headers); // the planner's own; the spec's were interned at submit()
    if (m_attemptHeaders && r.spec.attemptHeaders) {
        hop.headers.removeIf([](const auto &h) {
            return h.first.compare(RetryHeaders::requestId, Qt::CaseInsensitive) == 0
                || h.first.compare(RetryHeaders::attempt, Qt::CaseInsensitive) == 0;
        });
        // The names are static, the id is made once per request (and never repeats:
        // not interned), the attempt numbers once per executor.
        static const QByteArray requestIdName
            = QByteArray::fromRawData(RetryHeaders::requestId, qsizetype(sizeof(RetryHeaders::requestId) - 1));
        static const QByteArray attemptName
            = QByteArray::fromRawData(RetryHeaders::attempt, qsizetype(sizeof(RetryHeaders::attempt) - 1));
        if (r.requestIdValue.isEmpty()) {
            // "<pid>.<executor>-<id>" in one allocation.
            std::array<char, 24> digits{};
            const qsizetype length = std::to_chars(digits.begin(), digits.end(), r.logicalId()).ptr - digits.begin();
            r.requestIdValue = QByteArray(m_requestIdPrefix.size() + length, Qt::Uninitialized);
            std::copy_n(m_requestIdPrefix.constData(), m_requestIdPrefix.size(), r.requestIdValue.data());
            std::copy_n(digits.begin(), length, r.requestIdValue.data() + m_requestIdPrefix.size());
        }
        hop.headers.reserve(hop.headers.size() + 2);
        hop.headers.append({requestIdName, r.requestIdValue});
        hop.headers.append({attemptName, attemptNumber(r.attemptIndex + 1)});
    }
    if (!r.transport.options().keepAlive && !headerValue(hop.headers, "Connection"))
        hop.headers.append({QByteArrayLiteral("Connection"), QByteArrayLiteral("close")});
    hop.streamedBody = r.spec.kind == RequestSpec::Kind::Single && !r.spec.bodySource.isInline();

    AttemptRecord &record = r.current;
    record = AttemptRecord{};
    record.requestId = r.logicalId();
    record.attemptIndex = r.attemptIndex;
    record.fallback = r.fallback;
    record.step = r.plan.step;
    record.sequenceRound = r.plan.sequenceRound;
    record.method = hop.method;
    record.url = hop.url; // the spec's, or a read-modify-write's own write URL
    record.requestBody = hop.body;
    record.queuedNs = now - r.queuedSinceNs;
    record.startNs = now;
    record.startWall = m_clock.wallTime();
    record.plannedDelayMs = r.attemptIndex == 0 ? 0.0 : r.plannedDelayMs;
    record.actualDelayMs = r.attemptIndex == 0 ? 0.0 : r.actualDelayMs;

    if (r.transport.isDefault()) {
        r.manager = m_managers.acquire();
    } else {
        r.manager = m_managers.acquire(r.transport.managerKey(),
            [transport = r.transport](QNetworkAccessManager &manager) { transport.configureManager(manager); });
    }
    r.auth.problem.clear();
    r.auth.challengeAnswered = false;
    r.auth.tokenFailed = false;
    if (std::optional<HopRequest> token = m_auth.tokenRequest(r.spec.auth, r.auth)) {
        // The token first, on a hop of its own; the attempt's request waits for it.
        record.requestHeaders = hop.headers;
        r.afterToken = std::move(hop);
        r.hop = std::move(*token);
    } else {
        r.hop = std::move(hop);
    }
    aimFirstHop(r, now);
}

void AttemptTransport::sendFirstHop(ExecutorRequest &r)
{
    if (r.auth.tokenHop)
        sendHop(r);
    else
        sendOwnHop(r);
}

void AttemptTransport::sendOwnHop(ExecutorRequest &r)
{
    if (const QString problem = m_auth.apply(r.spec.auth, r.auth, r.hop); !problem.isEmpty()) {
        // Checked at submit(): only a clock or key that changed since gets here. Sent as it is, said.
        qCWarning(lcExecutor).noquote() << "request" << r.id << "is sent without its auth:" << problem;
        r.auth.problem = problem;
    }
    r.current.requestHeaders = r.hop.headers;
    r.current.url = r.hop.url;
    sendHop(r);
}

void AttemptTransport::armConnectTimer(ExecutorRequest &r)
{
    const std::optional<double> &timeoutMs = r.transport.options().connectTimeoutMs;
    if (!timeoutMs || *timeoutMs <= 0.0)
        return;
    if (!r.connectTimer) {
        // A Qt timer only for requests that ask for a connect timeout (see PreciseWakeups for why not more).
        r.connectTimer = std::make_unique<QTimer>();
        r.connectTimer->setSingleShot(true);
        r.connectTimer->setTimerType(Qt::PreciseTimer);
        QObject::connect(
            r.connectTimer.get(), &QTimer::timeout, m_context, [this, id = r.id] { handleConnectTimeout(id); });
    }
    r.connectTimer->start(std::chrono::milliseconds(static_cast<qint64>(std::ceil(std::min(*timeoutMs, 2e9)))));
}

void AttemptTransport::connectionReady(ExecutorRequest &r)
{
    if (r.connectTimer)
        r.connectTimer->stop();
}

void AttemptTransport::aimNextHop(ExecutorRequest &r)
{
    // The points measured beside Qt's were the last exchange's: the next hop's are its own
    // (no lookup of its own). A pin applies to the host it names.
    r.current.lookupStartNs = r.current.lookupEndNs = -1;
    r.current.connectedNs = r.current.encryptedNs = -1;
    const std::optional<HostPin> pin = HostPin::find(r.transport.options().resolve, r.hop.url);
    r.connectAddress = pin ? pin->address : QString();
    r.current.connectAddress = r.connectAddress;
    armConnectTimer(r);
}

void AttemptTransport::aimFirstHop(ExecutorRequest &r, qint64 now)
{
    const TransportOptions &options = r.transport.options();
    r.connectAddress.clear();
    armConnectTimer(r);
    const QUrl &url = r.hop.url;
    if (const std::optional<HostPin> pin = HostPin::find(options.resolve, url)) {
        r.connectAddress = pin->address;
        r.current.connectAddress = pin->address;
        r.current.lookupStartNs = r.current.lookupEndNs = now; // nothing to look up
    } else if (ConnectTarget::isAddress(url)) {
        r.current.lookupStartNs = r.current.lookupEndNs = now;
    } else if (!r.transport.usesProxy() && !url.host().isEmpty()) {
        // The lookup Qt would make, made here so that it can be timed: Qt then
        // finds the answer in its host cache. Through a proxy the proxy looks the name up.
        r.current.lookupStartNs = now;
        const quint64 id = r.id;
        const quint64 serial = ++m_lookupSerial;
        r.lookupSerial = serial;
        r.lookupId = QHostInfo::lookupHost(
            url.host(), m_context, [this, id, serial](const QHostInfo &info) { handleLookup(id, serial, info); });
        return;
    }
    sendFirstHop(r);
}

void AttemptTransport::handleLookup(quint64 requestId, quint64 serial, const QHostInfo &info)
{
    const auto it = m_requests.constFind(requestId);
    if (it == m_requests.cend() || (*it)->lookupId < 0 || (*it)->lookupSerial != serial)
        return; // the attempt was cut while its name was looked up
    ExecutorRequest &r = **it;
    r.lookupId = -1;
    r.current.lookupEndNs = m_clock.nowNs();
    const TransportOptions::IpFamily family = r.transport.options().ipFamily;
    if (family != TransportOptions::IpFamily::Any && info.error() == QHostInfo::NoError) {
        const std::optional<QString> address = ConnectTarget::choose(info.addresses(), family);
        if (!address) {
            r.current.networkError = QNetworkReply::HostNotFoundError;
            r.current.errorString = Tr::tr("%1 has no %2 address, and only %2 was asked for")
                                        .arg(r.hop.url.host(), ConnectTarget::familyName(family));
            if (m_ended)
                m_ended(requestId);
            return;
        }
        r.connectAddress = *address;
        r.current.connectAddress = *address;
    }
    // A failed lookup is Qt's to report: it looks the name up again and says HostNotFoundError.
    sendFirstHop(r);
}

void AttemptTransport::handleConnectTimeout(quint64 requestId)
{
    const auto it = m_requests.constFind(requestId);
    if (it == m_requests.cend() || !(*it)->manager)
        return; // not in flight
    (*it)->current.connectTimedOut = true;
    qCInfo(lcExecutor).noquote() << "request" << requestId << "connect timeout after"
                                 << *(*it)->transport.options().connectTimeoutMs << "ms";
    if (m_ended)
        m_ended(requestId);
}

void AttemptTransport::endLater(const ExecutorRequest &r)
{
    // From within sendHop(), which start() may be running: the executor hears of it once start() returned.
    const quint64 id = r.id;
    const int attempt = r.attemptIndex;
    const qint64 startNs = r.current.startNs;
    QMetaObject::invokeMethod(
        m_context,
        [this, id, attempt, startNs] {
            const auto it = m_requests.constFind(id);
            if (it != m_requests.cend() && (*it)->manager && (*it)->attemptIndex == attempt
                && (*it)->current.startNs == startNs && !(*it)->reply && m_ended)
                m_ended(id);
        },
        Qt::QueuedConnection);
}

void AttemptTransport::sendHop(ExecutorRequest &r)
{
    // The attributes every hop carries come from a request made once (see the
    // constructor); a transport of the request's own adds its TLS configuration
    // and HTTP version.
    QNetworkRequest request = r.transport.isDefault() ? m_defaultTransportRequest : m_hopRequest;
    request.setUrl(r.hop.url);
    if (!r.transport.isDefault())
        r.transport.applyTo(request);
    for (const auto &[name, value] : std::as_const(r.hop.headers))
        request.setRawHeader(name, value);
    if (!r.connectAddress.isEmpty())
        ConnectTarget::aim(request, r.hop.url, r.connectAddress, headerValue(r.hop.headers, "Host").has_value());
    const QByteArray &body = r.hop.body;
    if (!body.isEmpty() && !request.hasRawHeader(QByteArrayLiteral("Content-Type"))) {
        const QByteArray trimmed = body.trimmed();
        const bool json = trimmed.startsWith('{') || trimmed.startsWith('[');
        request.setHeader(QNetworkRequest::ContentTypeHeader,
            json ? QByteArray("application/json") : QByteArray("application/octet-stream"));
    }

    r.body.clear();
    r.bytesReceived = 0;
    r.readingBody = false;
    r.transferEnded = false;
    r.current.expectedBytes = -1; // until this hop's headers say
    r.tls = TlsDetails{};

    // Without a body no upload device is made: Qt emits requestSent only then.
    QNetworkReply *reply = nullptr;
    const bool uploads = !body.isEmpty() || r.hop.streamedBody;
    if (r.hop.streamedBody) {
        // Opened anew for every hop: a retry or a 307 sends the whole body again.
        Result<StreamedBody::Opened> opened = StreamedBody::open(r.spec.bodySource, nullptr);
        if (!opened) {
            r.current.networkError = QNetworkReply::ContentAccessDenied;
            r.current.errorString = opened.error();
            endLater(r);
            return;
        }
        if (opened->multipart) {
            reply = r.manager->sendCustomRequest(request, r.hop.method, opened->multipart);
            opened->multipart->setParent(reply);
        } else {
            request.setHeader(QNetworkRequest::ContentLengthHeader, opened->size);
            reply = r.manager->sendCustomRequest(request, r.hop.method, opened->device);
            opened->device->setParent(reply);
        }
    } else {
        reply = body.isEmpty() ? r.manager->sendCustomRequest(request, r.hop.method)
                               : r.manager->sendCustomRequest(request, r.hop.method, body);
    }
    r.reply = reply;
    m_replyRequests.insert(reply, r.id); // its end comes through the manager's finished()

    const quint64 id = r.id;
    const bool plain = reply->url().scheme() == QLatin1String("http");
    QObject::connect(reply, &QNetworkReply::socketStartedConnecting, m_context, [this, id, reply] {
        if (ExecutorRequest *req = replyOwner(id, reply))
            req->current.connectionStartedNs = m_clock.nowNs();
    });
    // Plain HTTP: the first bytes written mark a new connection as connected
    // (Qt says nothing in between); over TLS the handshake's end does.
    QObject::connect(reply, &QNetworkReply::requestSent, m_context, [this, id, reply, plain] {
        if (ExecutorRequest *req = replyOwner(id, reply)) {
            const qint64 now = m_clock.nowNs();
            req->current.requestSentNs = now;
            if (plain && req->current.connectionStartedNs >= 0 && req->current.connectedNs < 0)
                req->current.connectedNs = now;
            connectionReady(*req);
        }
    });
    if (uploads) {
        // With a body Qt reports the end of the upload instead of requestSent.
        QObject::connect(
            reply, &QNetworkReply::uploadProgress, m_context, [this, id, reply, plain](qint64 sent, qint64 total) {
                ExecutorRequest *req = replyOwner(id, reply);
                if (!req || sent <= 0)
                    return;
                const qint64 now = m_clock.nowNs();
                if (plain && req->current.connectionStartedNs >= 0 && req->current.connectedNs < 0)
                    req->current.connectedNs = now;
                connectionReady(*req);
                // Qt's threads may report the upload's end after the answer's headers: then
                // when it ended is not known, and is not taken from this late signal.
                if (total > 0 && sent == total && req->current.requestSentNs < 0 && req->current.firstByteNs < 0)
                    req->current.requestSentNs = now;
            });
    }
    if (!plain) {
        QObject::connect(reply, &QNetworkReply::encrypted, m_context, [this, id, reply] {
            if (ExecutorRequest *req = replyOwner(id, reply)) {
                if (req->current.encryptedNs < 0)
                    req->current.encryptedNs = m_clock.nowNs();
                connectionReady(*req);
            }
        });
    }
    QObject::connect(reply, &QNetworkReply::metaDataChanged, m_context, [this, id, reply] {
        ExecutorRequest *req = replyOwner(id, reply);
        if (!req)
            return;
        connectionReady(*req);
        if (req->current.firstByteNs < 0)
            req->current.firstByteNs = m_clock.nowNs();
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        req->current.expectedBytes = length.isValid() ? length.toLongLong() : -1;
        const bool fits = req->current.expectedBytes >= 0
            && req->current.expectedBytes <= m_bodyLimit - req->body.size() && bodyStopsAtLength(*req);
        if (!fits && !req->readingBody) {
            req->readingBody = true;
            // What is not kept is read as it comes and dropped; beyond this much unread, Qt stops
            // reading the socket, so that a fast server cannot fill the memory (a 2 GB body held
            // 1.3 GB while the executor's thread caught up).
            reply->setReadBufferSize(bodyReadAheadBytes);
            QObject::connect(reply, &QNetworkReply::readyRead, m_context, [this, id, reply] {
                ExecutorRequest *reading = replyOwner(id, reply);
                if (!reading)
                    return;
                const qint64 limit = transferLimit();
                // Never more than the limit: Qt's buffer may hold more than is left of it.
                const QByteArray chunk = reply->read(
                    std::min<qint64>(reply->bytesAvailable(), std::max<qint64>(0, limit - reading->bytesReceived)));
                reading->bytesReceived += chunk.size();
                keepBody(reading->body, chunk, m_bodyLimit);
                if (reading->bytesReceived >= limit && reply->bytesAvailable() > 0) {
                    // There is more than the limit allows: the rest is never read. abort()
                    // finishes the reply at once, through the executor's handler, which may
                    // let go of the request: nothing here touches it afterwards.
                    reading->transferEnded = true;
                    reply->abort();
                }
            });
        }
    });
    if (reply->url().scheme() != QLatin1String("http")) {
        // Not for plain HTTP, which has no certificates to be wrong. The reply's URL,
        // not the hop's: a manager with HSTS on turns http into https for a known host.
        QObject::connect(
            reply, &QNetworkReply::sslErrors, m_context, [this, id, reply](const QList<QSslError> &errors) {
                // Ignored only for a host the user named (TransportOptions::insecureHosts);
                // otherwise the attempt fails with SslHandshakeFailedError and the record says why.
                ExecutorRequest *req = replyOwner(id, reply);
                const bool ignore = req && req->reply && req->transport.ignoresCertificateErrorsFor(req->hop.url);
                for (const QSslError &error : errors) {
                    if (ignore) {
                        qCWarning(lcExecutor).noquote() << "request" << id << "TLS error ignored for"
                                                        << req->hop.url.host() << "as asked:" << error.errorString();
                    } else {
                        qCWarning(lcExecutor).noquote() << "request" << id << "TLS error:" << error.errorString();
                    }
                    if (req) {
                        req->tls.errors.append(error.errorString());
                        TlsInspection::notePeer(req->tls, error.certificate());
                    }
                }
                if (ignore) {
                    req->tls.errorsIgnored = true;
                    req->reply->ignoreSslErrors();
                }
            });
    }
}

std::optional<AttemptEnd> AttemptTransport::finished(ExecutorRequest &r)
{
    const auto error = r.reply->error();
    const bool hasStatus = r.reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).isValid();
    if (r.auth.tokenHop) {
        if (hasStatus && followToken(r))
            return std::nullopt;
        if (!hasStatus) {
            r.auth.problem = Tr::tr("the token request to %1 failed").arg(Redactor().urlString(r.hop.url));
            r.auth.tokenFailed = true;
            m_auth.abandonFetch(r.auth);
        }
    } else if (hasStatus && (followChallenge(r) || followRedirect(r))) {
        return std::nullopt;
    }
    return (error == QNetworkReply::NoError || hasStatus) ? AttemptEnd::Response : AttemptEnd::NetworkError;
}

bool AttemptTransport::followRedirect(ExecutorRequest &r)
{
    QNetworkReply *reply = r.reply;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (!isRedirectStatus(status))
        return false; // no Location to look for
    // Token requests and Digest challenges are hops too, not redirects: they do not count.
    const auto redirectsSoFar = std::count_if(r.current.redirects.cbegin(), r.current.redirects.cend(),
        [](const RedirectHop &hop) { return hop.kind == RedirectHop::Kind::Redirect; });
    auto step = nextHop(r.hop, status, reply->rawHeader(QByteArrayLiteral("Location")), redirectsSoFar);
    if (!step)
        return false;
    if (step->hop.followed)
        closeHopTiming(step->hop, r.current, m_clock.nowNs());
    r.current.redirects.append(step->hop);
    const QString shownTo = Redactor().urlString(step->hop.to);
    if (!step->hop.followed) {
        qCInfo(lcExecutor).noquote() << "request" << r.id << "redirect" << status << "to" << shownTo
                                     << "not followed:" << step->hop.note;
        return false;
    }
    qCDebug(lcExecutor).noquote() << "request" << r.id << "follows" << status << "to" << shownTo;

    forgetReply(r);
    reply->deleteLater(); // finished: it says nothing more
    r.reply = nullptr;
    r.hop = step->next;
    const AuthSpec::Kind kind = r.spec.auth.kind;
    if (!step->hop.crossOrigin && (kind == AuthSpec::Kind::AwsSigV4 || kind == AuthSpec::Kind::Digest)) {
        // A signature or a Digest answer names the path: the new one is signed or answered afresh.
        r.hop.headers.removeIf(
            [](const auto &h) { return h.first.compare("Authorization", Qt::CaseInsensitive) == 0; });
        m_auth.apply(r.spec.auth, r.auth, r.hop);
    }
    aimNextHop(r);
    sendHop(r);
    return true;
}

bool AttemptTransport::followToken(ExecutorRequest &r)
{
    QNetworkReply *reply = r.reply;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    // A token answer is small: whatever was drained so far, and the rest.
    QByteArray body = r.body;
    if (!r.readingBody || reply->bytesAvailable() > 0)
        body += reply->read(std::max<qint64>(0, m_bodyLimit - body.size()));
    RedirectHop hop;
    hop.kind = RedirectHop::Kind::Token;
    hop.status = status;
    hop.method = r.hop.method;
    hop.from = r.hop.url;
    hop.to = r.afterToken.url;
    const QString problem = m_auth.takeToken(r.spec.auth, r.auth, status, reply->rawHeaderPairs(), body);
    if (!problem.isEmpty()) {
        // The attempt ends with the token endpoint's answer, its reason said plainly.
        qCInfo(lcExecutor).noquote() << "request" << r.id << "got no token:" << problem;
        r.auth.problem = problem;
        r.auth.tokenFailed = true;
        r.bytesReceived = std::max<qint64>(r.bytesReceived, body.size());
        r.body = body;
        hop.followed = false;
        hop.note = problem;
        r.current.redirects.append(hop);
        return false;
    }
    closeHopTiming(hop, r.current, m_clock.nowNs());
    r.current.redirects.append(hop);
    qCDebug(lcExecutor).noquote() << "request" << r.id << "got a token from" << Redactor().urlString(r.hop.url);
    forgetReply(r);
    reply->deleteLater();
    r.reply = nullptr;
    r.hop = std::move(r.afterToken);
    r.afterToken = HopRequest{};
    aimNextHop(r);
    sendOwnHop(r);
    return true;
}

bool AttemptTransport::followChallenge(ExecutorRequest &r)
{
    QNetworkReply *reply = r.reply;
    if (r.spec.auth.kind != AuthSpec::Kind::Digest
        || reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 401)
        return false;
    QList<QByteArray> challenges;
    for (const auto &[name, value] : reply->rawHeaderPairs()) {
        if (name.compare("WWW-Authenticate", Qt::CaseInsensitive) == 0)
            challenges.append(value);
    }
    std::optional<HopRequest> next = m_auth.answerChallenge(r.spec.auth, r.auth, r.hop, challenges);
    if (!next) {
        if (!r.auth.problem.isEmpty())
            qCInfo(lcExecutor).noquote() << "request" << r.id << "Digest:" << r.auth.problem;
        return false;
    }
    RedirectHop hop;
    hop.kind = RedirectHop::Kind::Challenge;
    hop.status = 401;
    hop.method = r.hop.method;
    hop.from = r.hop.url;
    hop.to = next->url;
    closeHopTiming(hop, r.current, m_clock.nowNs());
    r.current.redirects.append(hop);
    forgetReply(r);
    reply->deleteLater();
    r.reply = nullptr;
    r.hop = std::move(*next);
    r.current.requestHeaders = r.hop.headers;
    aimNextHop(r);
    sendHop(r);
    return true;
}

void AttemptTransport::cut(ExecutorRequest &r)
{
    if (r.connectTimer)
        r.connectTimer->stop();
    if (r.lookupId >= 0) {
        QHostInfo::abortHostLookup(r.lookupId);
        r.lookupId = -1;
    }
    if (!r.reply)
        return;
    // Read what arrived so far before the reply goes away; its abort() is
    // not an end to handle (the manager's finished() comes at once).
    forgetReply(r);
    r.reply->disconnect(m_context);
    const QByteArray rest = r.reply->read(
        std::min<qint64>(r.reply->bytesAvailable(), std::max<qint64>(0, transferLimit() - r.bytesReceived)));
    r.bytesReceived += rest.size();
    keepBody(r.body, rest, m_bodyLimit);
    r.reply->abort();
}

Classification AttemptTransport::conclude(ExecutorRequest &r, AttemptEnd end)
{
    AttemptRecord &record = r.current;
    const qint64 now = m_clock.nowNs();
    record.endNs = now;
    record.finishedNs = now;
    const QDateTime receivedAt = m_clock.wallTime();

    if (QNetworkReply *reply = r.reply) {
        if (reply->bytesAvailable() > 0 && !r.transferEnded) {
            const QByteArray chunk = reply->readAll();
            r.bytesReceived += chunk.size();
            keepBody(r.body, chunk, m_bodyLimit);
        }
        const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
        if (status.isValid())
            record.httpStatus = status.toInt();
        const QVariant phrase = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute);
        if (phrase.typeId() == QMetaType::QString) {
            // Qt keeps it as text: converted once while it stays the same ("OK").
            if (QString text = phrase.toString(); text != m_lastReasonText) {
                m_lastReason = text.toUtf8();
                m_lastReasonText = std::move(text);
            }
            record.reasonPhrase = m_lastReason;
        } else {
            record.reasonPhrase = phrase.toByteArray();
        }
        record.responseHeaders = reply->rawHeaderPairs();
        m_interner.internRepeating(record.responseHeaders);
        // record.expectedBytes came with the headers (metaDataChanged).
        record.networkError = end == AttemptEnd::Response || end == AttemptEnd::NetworkError
            ? reply->error()
            : QNetworkReply::OperationCanceledError;
        if (r.transferEnded && end == AttemptEnd::Response)
            record.networkError = QNetworkReply::NoError; // the executor's abort(), not the server's doing
        record.errorString = record.networkError == QNetworkReply::NoError ? QString() : reply->errorString();
        if (!r.tls.errors.isEmpty() && !r.tls.errorsIgnored) {
            record.errorString += Tr::tr(" (TLS: %1; not ignored)").arg(r.tls.errors.join(QStringLiteral("; ")));
        }
        if (status.isValid()) {
            record.protocol = reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool()
                ? QStringLiteral("HTTP/2")
                : QStringLiteral("HTTP/1.1");
        }
        if (reply->url().scheme() == QLatin1String("https")) { // the reply's: HSTS may have made it so
            // A failed handshake leaves the version Qt offered, not one agreed on.
            const bool handshakeFailed = record.networkError == QNetworkReply::SslHandshakeFailedError;
            TlsInspection::noteSession(r.tls, reply->sslConfiguration(), !handshakeFailed);
            record.tls = r.tls;
        }
    }
    if (record.connectTimedOut) {
        // Qt's own name for a connection that timed out; classified as one that could not be made.
        record.networkError = QNetworkReply::TimeoutError;
        record.errorString = Tr::tr("no connection within the connect timeout of %1 ms")
                                 .arg(r.transport.options().connectTimeoutMs.value_or(0.0));
    }
    record.bytesReceived = r.bytesReceived;
    record.responseBody = r.body;
    record.transferEnded = r.transferEnded;
    record.responseBodyTruncated = r.bytesReceived > r.body.size() || r.transferEnded;

    Classification classification = AttemptObserver::conclude(record, end, r.spec, r.policy, r.body, receivedAt);
    if (!r.auth.problem.isEmpty()) {
        // What the token endpoint said decides: a refused client is not retried,
        // an endpoint that is down is, under the same policy.
        const bool noToken = !record.redirects.isEmpty()
            && record.redirects.constLast().kind == RedirectHop::Kind::Token && !record.redirects.constLast().followed;
        if (noToken && classification.decision == Classification::Decision::Success) {
            classification.decision = Classification::Decision::GiveUp;
            classification.cause = QStringLiteral("token-invalid");
            classification.reason = r.auth.problem;
        } else {
            classification.reason = Tr::tr("%1: %2").arg(r.auth.problem, classification.reason);
        }
    }
    if (r.transport.usesProxy() && classification.networkFault && !record.httpStatus
        && record.end == AttemptEnd::NetworkError) {
        // Refused, reset or timed out: by the proxy or behind it, the user must know it was in the way.
        classification.reason = Tr::tr("through %1: %2").arg(r.transport.proxyDescription(), classification.reason);
    }
    return classification;
}

void AttemptTransport::release(ExecutorRequest &r)
{
    if (r.connectTimer)
        r.connectTimer->stop();
    if (r.lookupId >= 0) {
        QHostInfo::abortHostLookup(r.lookupId);
        r.lookupId = -1;
    }
    m_auth.abandonFetch(r.auth); // a token request cut short: another attempt may fetch

    if (r.reply) {
        forgetReply(r);
        // A finished reply says nothing more; an unfinished one would (abort() emits finished).
        if (!r.reply->isFinished())
            r.reply->disconnect(m_context);
        r.reply->deleteLater();
        r.reply = nullptr;
    }
    // Only an attempt in flight holds a manager: it counted on it at start().
    m_managers.release(r.manager);
    r.manager = nullptr;
}

void AttemptTransport::forgetManager(const void *manager)
{
    m_managers.forget(manager);
}

void AttemptTransport::loseManager(ExecutorRequest &r)
{
    qCWarning(lcExecutor).noquote() << "request" << r.id << "lost its QNetworkAccessManager mid-attempt";
    r.manager = nullptr;
    forgetReply(r);
    r.reply = nullptr;
    r.current.networkError = QNetworkReply::UnknownNetworkError;
    r.current.errorString = Tr::tr("the QNetworkAccessManager given to the executor was destroyed during the attempt");
}

void AttemptTransport::abandonAll()
{
    m_replyRequests.clear(); // abort() below emits the managers' finished()
    for (const std::shared_ptr<ExecutorRequest> &request : m_requests) {
        if (request->lookupId >= 0)
            QHostInfo::abortHostLookup(request->lookupId);
        if (request->connectTimer)
            request->connectTimer->stop();
        if (request->reply) {
            request->reply->disconnect(m_context);
            request->reply->abort();
            request->reply->deleteLater();
        }
    }
}

} // namespace RetryLab::Core
