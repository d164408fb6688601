#include "core/executor/retryexecutor.h"

#include "core/executor/attemptobserver.h"
#include "core/executor/executorrequest.h"
#include "core/executor/managerpool.h"
#include "core/executor/precisewakeups.h"
#include "core/executor/preparedtransport.h"
#include "core/executor/redirectstep.h"
#include "core/executor/requestcheck.h"
#include "core/executor/retryplanner.h"
#include "core/executor/tlsinspection.h"
#include "core/http/redactor.h"
#include "core/http/retryheaders.h"
#include "core/policy/retrybudget.h"
#include "core/util/clock.h"
#include "core/util/randomsource.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>

Q_LOGGING_CATEGORY(lcExecutor, "retrylab.core.executor", QtInfoMsg)

namespace RetryLab::Core {

namespace {

// Keeps the first `limit` bytes of a response body; the rest is only counted.
void keepBody(QByteArray &kept, const QByteArray &chunk, qint64 limit)
{
    if (kept.size() < limit)
        kept.append(chunk.left(limit - kept.size()));
}

std::chrono::milliseconds toTimerMs(double ms)
{
    if (!(ms > 0.0))
        return std::chrono::milliseconds(0);
    // QTimer counts in int milliseconds; the policy caps keep delays far below that.
    return std::chrono::milliseconds(static_cast<qint64>(std::llround(std::min(ms, 2'000'000'000.0))));
}

bool isFailureForBreaker(const AttemptRecord &record, const Classification &classification)
{
    if (record.end == AttemptEnd::Cancelled || record.end == AttemptEnd::Deadline)
        return false;
    if (record.end == AttemptEnd::AttemptTimeout || record.end == AttemptEnd::NetworkError)
        return true;
    // A transport fault after the status line (a chunked body cut off, a reset
    // mid-body) leaves a status of 200 behind: the answer never arrived whole.
    if (classification.networkFault)
        return true;
    const int status = record.httpStatus.value_or(0);
    return status >= 500 || status == 429;
}

} // namespace

RetryExecutor::RetryExecutor(QNetworkAccessManager *manager, QObject *parent)
    : QObject(parent), m_ownClock(std::make_unique<SteadyClock>()), m_budget(std::make_unique<RetryBudget>())
{
    qRegisterMetaType<AttemptRecord>();
    qRegisterMetaType<RequestResult>();
    qRegisterMetaType<CircuitBreaker::State>();
    QNetworkAccessManager *shared = manager;
    m_injectedManager = manager;
    if (!shared) {
        shared = new QNetworkAccessManager(this);
    } else {
        // Not owned (see the constructor's comment): when it goes first, its
        // replies go with it, and the attempts on them must end here.
        connect(manager, &QObject::destroyed, this, [this, manager] { handleManagerDestroyed(manager); });
    }
    // The injected manager is used as it is configured; the executor frees
    // its replies itself either way.
    m_managers = std::make_unique<ManagerPool>(shared, this, [this](QNetworkAccessManager &pooled) {
        connect(&pooled, &QNetworkAccessManager::finished, this, &RetryExecutor::handleManagerFinished);
    });
    // Not a Qt timer per request: Qt scans all of a thread's timers whenever a
    // reply moves its delegate to the network thread.
    m_wakeups = new PreciseWakeups([this](quint64 key) { handleWakeup(key); }, this);
    m_policyProblem = firstPolicyError(m_policy);
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

RetryExecutor::~RetryExecutor()
{
    // Tear down quietly: nobody should hear about requests of a dead executor.
    m_replyRequests.clear(); // abort() below emits the managers' finished()
    for (const RequestPtr &request : std::as_const(m_requests)) {
        if (request->reply) {
            request->reply->disconnect(this);
            request->reply->abort();
            request->reply->deleteLater();
        }
    }
}

void RetryExecutor::setPolicy(const BackoffPolicy &policy)
{
    const bool breakerChanged = !(policy.circuitBreaker == m_policy.circuitBreaker);
    const bool budgetChanged = !(policy.retryBudget == m_policy.retryBudget);
    m_policy = policy;
    m_policyProblem = firstPolicyError(policy);
    if (breakerChanged) {
        m_breakers.clear();
        m_lastBreakerHost.clear();
        m_lastBreaker = nullptr;
        for (auto it = m_reportedBreakerStates.begin(); it != m_reportedBreakerStates.end(); ++it) {
            if (it.value() != CircuitBreaker::State::Closed) {
                it.value() = CircuitBreaker::State::Closed;
                --m_reportedNotClosed;
                Q_EMIT circuitStateChanged(it.key(), CircuitBreaker::State::Closed);
            }
        }
    }
    if (budgetChanged) {
        m_budget = std::make_unique<RetryBudget>(policy.retryBudget);
        noteBudget();
    }
}

void RetryExecutor::setConcurrencyLimit(int limit)
{
    m_concurrencyLimit = std::clamp(limit, 1, 1000);
    dispatchQueued();
}

void RetryExecutor::setSeed(quint64 seed)
{
    m_seed = seed;
}

void RetryExecutor::setResponseBodyLimit(qint64 bytes)
{
    m_responseBodyLimit = std::clamp<qint64>(bytes, minResponseBodyLimit, maxResponseBodyLimit);
}

qint64 RetryExecutor::nowNs() const
{
    return m_ownClock->nowNs();
}

const Clock &RetryExecutor::clock() const
{
    return *m_ownClock;
}

int RetryExecutor::activeCount() const
{
    return static_cast<int>(m_requests.size());
}

CircuitBreaker::State RetryExecutor::circuitState(const QString &host) const
{
    const auto it = m_breakers.constFind(host);
    return it == m_breakers.cend() ? CircuitBreaker::State::Closed : (*it)->state();
}

QStringList RetryExecutor::hosts() const
{
    QStringList list = m_breakers.keys();
    list.sort();
    return list;
}

double RetryExecutor::budgetTokens() const
{
    return m_budget->tokens();
}

double RetryExecutor::budgetCapacity() const
{
    return m_budget->capacity();
}

RetryExecutor::RequestPtr RetryExecutor::find(quint64 requestId) const
{
    return m_requests.value(requestId);
}

bool RetryExecutor::bodyStopsAtLength(const Request &r) const
{
    // Whether the reply's body ends at its Content-Length, so that one announced to
    // fit what is kept can wait in the reply until it finishes (concludeAttempt()
    // reads it); any other is read as it comes, so that only the kept part stays in
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

RetryExecutor::Request *RetryExecutor::replyOwner(quint64 requestId, const QNetworkReply *reply) const
{
    // A reply of an earlier attempt or hop is deleted later, not disconnected: it must not touch the request.
    const auto it = m_requests.constFind(requestId);
    return it != m_requests.cend() && (*it)->reply == reply ? it->get() : nullptr;
}

quint64 RetryExecutor::submit(const RequestSpec &spec)
{
    const quint64 id = reserveId();
    submitAs(id, spec, nullptr);
    return id;
}

quint64 RetryExecutor::submit(const RequestSpec &spec, const BackoffPolicy &policy)
{
    const quint64 id = reserveId();
    submitAs(id, spec, &policy);
    return id;
}

void RetryExecutor::submitAs(quint64 id, const RequestSpec &spec, const BackoffPolicy *ownPolicy)
{
    const BackoffPolicy &policy = ownPolicy ? *ownPolicy : m_policy;
    auto request = std::make_shared<Request>(spec, policy);
    request->id = id;
    m_interner.intern(request->spec.headers); // every attempt's record holds them
    // The same QUrl (shared, and kept alive by m_lastHostUrl) needs no comparing.
    if (m_lastHostKey.isNull()
        || (request->spec.url.data_ptr() != m_lastHostUrl.data_ptr() && request->spec.url != m_lastHostUrl)) {
        // Runs submit one URL many times: its key is made once.
        m_lastHostUrl = request->spec.url;
        m_lastHostKey = hostKey(m_lastHostUrl);
    }
    request->host = m_lastHostKey;
    request->submittedNs = nowNs();
    request->plan = RetryPlanner::initialState(spec);

    Result<void> check = checkRequest(spec);
    if (check && !m_policyProblem.isEmpty())
        check = Result<void>::failure(tr("the policy is not usable: %1").arg(m_policyProblem));
    if (check && &policy != &m_policy) {
        if (const QString problem = firstPolicyError(policy); !problem.isEmpty())
            check = Result<void>::failure(tr("the request's policy is not usable: %1").arg(problem));
    }
    if (check) {
        // Certificate and key files are read once per request, before any attempt.
        auto transport = PreparedTransport::prepare(spec.transport);
        if (transport)
            request->transport = std::move(transport).value();
        else
            check = transport.errorDetail();
    }

    m_requests.insert(id, request);
    if (!check) {
        // Report after submit() returns, so the caller knows the id first.
        QMetaObject::invokeMethod(
            this,
            [this, id, problem = check.error()] {
                if (const RequestPtr r = find(id))
                    finishRequest(r, RequestOutcome::InvalidRequest, problem);
            },
            Qt::QueuedConnection);
        return;
    }

    enqueue(request, false);
    dispatchQueued();
}

QByteArray RetryExecutor::attemptNumber(int number)
{
    // "1", "2", ...: one buffer each for every record that carries it.
    if (number < 1 || number > 1000)
        return QByteArray::number(number);
    while (m_attemptNumbers.size() < number)
        m_attemptNumbers.append(QByteArray::number(m_attemptNumbers.size() + 1));
    return m_attemptNumbers.at(number - 1);
}

void RetryExecutor::enqueue(const RequestPtr &request, bool front)
{
    request->phase = Request::Phase::Queued;
    request->queuedSinceNs = nowNs();
    // Retries go first: they already waited their backoff.
    if (front)
        m_queue.prepend(request->id);
    else
        m_queue.append(request->id);
}

void RetryExecutor::dispatchQueued()
{
    while (m_inFlight < m_concurrencyLimit && !m_queue.isEmpty()) {
        const RequestPtr request = find(m_queue.takeFirst());
        if (request && request->phase == Request::Phase::Queued)
            startAttempt(request);
    }
}

CircuitBreaker &RetryExecutor::breakerFor(const QString &host)
{
    // Requests to one URL share their host string (see submitAs()): the same
    // characters at the same address are the same host, without hashing it.
    if (m_lastBreaker && host.constData() == m_lastBreakerHost.constData() && host.size() == m_lastBreakerHost.size())
        return *m_lastBreaker;
    auto it = m_breakers.find(host);
    if (it == m_breakers.end())
        it = m_breakers.insert(host, std::make_shared<CircuitBreaker>(m_policy.circuitBreaker, *m_ownClock));
    m_lastBreakerHost = host;
    m_lastBreaker = it->get();
    return **it;
}

void RetryExecutor::noteBreakerState(const QString &host)
{
    CircuitBreaker &breaker = breakerFor(host);
    const CircuitBreaker::State state = breaker.state();
    // Most of the time every circuit is closed and was reported so.
    if (state == CircuitBreaker::State::Closed && m_reportedNotClosed == 0)
        return;
    const auto previous = m_reportedBreakerStates.value(host, CircuitBreaker::State::Closed);
    if (state == previous)
        return;
    m_reportedBreakerStates.insert(host, state);
    m_reportedNotClosed += (state != CircuitBreaker::State::Closed) - (previous != CircuitBreaker::State::Closed);
    qCInfo(lcExecutor).noquote() << "circuit for" << host << "is now" << CircuitBreaker::stateName(state);
    Q_EMIT circuitStateChanged(host, state);
    if (state == CircuitBreaker::State::Open)
        watchOpenBreaker(host); // tell the UI when the breaker lets trials through again
}

void RetryExecutor::watchOpenBreaker(const QString &host)
{
    // Precise: from two seconds on Qt's default timer is coarse and may fire up to
    // 5 % early, while the circuit is still open; then nothing would be reported
    // until the next request. Should it still wake early, it looks again later.
    QTimer::singleShot(toTimerMs(breakerFor(host).remainingOpenMs() + 1.0), Qt::PreciseTimer, this, [this, host] {
        if (breakerFor(host).state() == CircuitBreaker::State::Open)
            watchOpenBreaker(host);
        else
            noteBreakerState(host);
    });
}

void RetryExecutor::noteBudget()
{
    Q_EMIT budgetChanged(m_budget->tokens(), m_budget->capacity());
}

void RetryExecutor::startAttempt(const RequestPtr &r)
{
    const qint64 now = nowNs();
    const double deadlineMs = r->policy.deadlineMs;
    if (deadlineMs > 0.0 && r->fallback == 0 && r->firstStartNs >= 0 && (now - r->firstStartNs) / 1e6 >= deadlineMs) {
        finishRequest(r, RequestOutcome::DeadlineExceeded,
            tr("the total deadline of %1 ms passed before attempt %2 could start")
                .arg(deadlineMs)
                .arg(r->attemptIndex + 1));
        return;
    }

    CircuitBreaker &breaker = breakerFor(r->host);
    if (!breaker.tryAcquire()) {
        const QString reason = tr("circuit open for %1: failing fast (%2 ms until a trial request is let through)")
                                   .arg(r->host)
                                   .arg(std::ceil(breaker.remainingOpenMs()));
        // This runs inside submit() for a new request: report after it returns,
        // like an invalid request, so that the caller knows the id first. The
        // request holds no slot meanwhile; cancel() still finds it.
        r->phase = Request::Phase::Refused;
        const quint64 id = r->id;
        QMetaObject::invokeMethod(
            this,
            [this, id, reason] {
                if (const RequestPtr refused = find(id); refused && refused->phase == Request::Phase::Refused)
                    finishRequest(refused, RequestOutcome::CircuitOpen, reason);
            },
            Qt::QueuedConnection);
        noteBreakerState(r->host);
        return;
    }
    r->breakerTrial = breaker.state() == CircuitBreaker::State::HalfOpen;
    noteBreakerState(r->host);
    if (r->phase == Request::Phase::Done) {
        // A handler of circuitStateChanged cancelled it before it went out.
        if (r->breakerTrial)
            breaker.release();
        r->breakerTrial = false;
        return;
    }

    r->retryPaid = false;
    if (r->firstStartNs < 0) {
        r->firstStartNs = now;
        if (deadlineMs > 0.0)
            wakeAfter(Wakeup::Deadline, r->id, timerNs(deadlineMs));
    }

    HopRequest hop = RetryPlanner::attemptRequest(r->spec, r->plan);
    if (r->spec.kind == RequestSpec::Kind::ReadModifyWrite)
        m_interner.intern(hop.headers); // the planner's own; the spec's were interned at submit()
    if (m_attemptHeaders && r->spec.attemptHeaders) {
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
        if (r->requestIdValue.isEmpty()) {
            // "<pid>.<executor>-<id>" in one allocation.
            std::array<char, 24> digits{};
            const qsizetype length = std::to_chars(digits.begin(), digits.end(), r->id).ptr - digits.begin();
            r->requestIdValue = QByteArray(m_requestIdPrefix.size() + length, Qt::Uninitialized);
            std::copy_n(m_requestIdPrefix.constData(), m_requestIdPrefix.size(), r->requestIdValue.data());
            std::copy_n(digits.begin(), length, r->requestIdValue.data() + m_requestIdPrefix.size());
        }
        hop.headers.reserve(hop.headers.size() + 2);
        hop.headers.append({requestIdName, r->requestIdValue});
        hop.headers.append({attemptName, attemptNumber(r->attemptIndex + 1)});
    }

    AttemptRecord &record = r->current;
    record = AttemptRecord{};
    record.requestId = r->id;
    record.attemptIndex = r->attemptIndex;
    record.fallback = r->fallback;
    record.step = r->plan.step;
    record.sequenceRound = r->plan.sequenceRound;
    record.method = hop.method;
    record.url = hop.url; // the spec's, or a read-modify-write's own write URL
    record.requestHeaders = hop.headers;
    record.requestBody = hop.body;
    record.queuedNs = now - r->queuedSinceNs;
    record.startNs = now;
    record.startWall = m_ownClock->wallTime();
    record.plannedDelayMs = r->attemptIndex == 0 ? 0.0 : r->plannedDelayMs;
    record.actualDelayMs = r->attemptIndex == 0 ? 0.0 : r->actualDelayMs;

    r->hop = hop;
    if (r->transport.isDefault()) {
        r->manager = m_managers->acquire();
    } else {
        r->manager = m_managers->acquire(r->transport.managerKey(),
            [transport = r->transport](QNetworkAccessManager &manager) { transport.configureManager(manager); });
    }
    sendHop(r);
    r->phase = Request::Phase::InFlight;
    ++m_inFlight;

    const double timeoutMs = r->spec.attemptTimeoutMs.value_or(r->policy.attemptTimeoutMs);
    if (timeoutMs > 0.0)
        wakeAfter(Wakeup::AttemptTimeout, r->id, timerNs(timeoutMs));

    qCDebug(lcExecutor).noquote() << "request" << r->id << "attempt" << r->attemptIndex + 1 << hop.method
                                  << r->spec.url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery);
    Q_EMIT attemptStarted(r->id, record.attemptIndex);
}

void RetryExecutor::sendHop(const RequestPtr &r)
{
    // The attributes every hop carries come from a request made once (see the
    // constructor); a transport of the request's own adds its TLS configuration
    // and HTTP version.
    QNetworkRequest request = r->transport.isDefault() ? m_defaultTransportRequest : m_hopRequest;
    request.setUrl(r->hop.url);
    if (!r->transport.isDefault())
        r->transport.applyTo(request);
    for (const auto &[name, value] : std::as_const(r->hop.headers))
        request.setRawHeader(name, value);
    const QByteArray &body = r->hop.body;
    if (!body.isEmpty() && !request.hasRawHeader(QByteArrayLiteral("Content-Type"))) {
        const QByteArray trimmed = body.trimmed();
        const bool json = trimmed.startsWith('{') || trimmed.startsWith('[');
        request.setHeader(QNetworkRequest::ContentTypeHeader,
            json ? QByteArray("application/json") : QByteArray("application/octet-stream"));
    }

    r->body.clear();
    r->bytesReceived = 0;
    r->readingBody = false;
    r->current.expectedBytes = -1; // until this hop's headers say
    r->tls = TlsDetails{};

    // Without a body no upload device is made: Qt emits requestSent only then.
    QNetworkReply *reply = body.isEmpty() ? r->manager->sendCustomRequest(request, r->hop.method)
                                          : r->manager->sendCustomRequest(request, r->hop.method, body);
    r->reply = reply;
    m_replyRequests.insert(reply, r->id); // its end comes through the manager's finished()

    const quint64 id = r->id;
    connect(reply, &QNetworkReply::socketStartedConnecting, this, [this, id, reply] {
        if (Request *req = replyOwner(id, reply))
            req->current.connectionStartedNs = nowNs();
    });
    connect(reply, &QNetworkReply::requestSent, this, [this, id, reply] {
        if (Request *req = replyOwner(id, reply))
            req->current.requestSentNs = nowNs();
    });
    if (!body.isEmpty()) {
        // With a body Qt reports the end of the upload instead of requestSent.
        connect(reply, &QNetworkReply::uploadProgress, this, [this, id, reply](qint64 sent, qint64 total) {
            if (Request *req = replyOwner(id, reply);
                req && total > 0 && sent == total && req->current.requestSentNs < 0)
                req->current.requestSentNs = nowNs();
        });
    }
    connect(reply, &QNetworkReply::metaDataChanged, this, [this, id, reply] {
        Request *req = replyOwner(id, reply);
        if (!req)
            return;
        if (req->current.firstByteNs < 0)
            req->current.firstByteNs = nowNs();
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        req->current.expectedBytes = length.isValid() ? length.toLongLong() : -1;
        const bool fits = req->current.expectedBytes >= 0
            && req->current.expectedBytes <= m_responseBodyLimit - req->body.size() && bodyStopsAtLength(*req);
        if (!fits && !req->readingBody) {
            req->readingBody = true;
            connect(reply, &QNetworkReply::readyRead, this, [this, id, reply] {
                Request *reading = replyOwner(id, reply);
                if (!reading)
                    return;
                const QByteArray chunk = reply->readAll();
                reading->bytesReceived += chunk.size();
                keepBody(reading->body, chunk, m_responseBodyLimit);
            });
        }
    });
    if (reply->url().scheme() != QLatin1String("http")) {
        // Not for plain HTTP, which has no certificates to be wrong. The reply's URL,
        // not the hop's: a manager with HSTS on turns http into https for a known host.
        connect(reply, &QNetworkReply::sslErrors, this, [this, id, reply](const QList<QSslError> &errors) {
            // Ignored only for a host the user named (TransportOptions::insecureHosts);
            // otherwise the attempt fails with SslHandshakeFailedError and the record says why.
            Request *req = replyOwner(id, reply);
            const bool ignore = req && req->reply && req->transport.ignoresCertificateErrorsFor(req->hop.url);
            for (const QSslError &error : errors) {
                if (ignore) {
                    qCWarning(lcExecutor).noquote() << "request" << id << "TLS error ignored for" << req->hop.url.host()
                                                    << "as asked:" << error.errorString();
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

void RetryExecutor::handleManagerFinished(QNetworkReply *reply)
{
    // An injected manager also finishes replies of its owner's: not in the table.
    // A reply leaves the table whenever its request drops it (forgetReply()).
    const auto it = m_replyRequests.constFind(reply);
    if (it != m_replyRequests.cend())
        handleReplyFinished(*it);
}

void RetryExecutor::forgetReply(const Request &r)
{
    if (r.reply)
        m_replyRequests.remove(r.reply.data());
}

bool RetryExecutor::followRedirect(const RequestPtr &r)
{
    QNetworkReply *reply = r->reply;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (!isRedirectStatus(status))
        return false; // no Location to look for
    auto step = nextHop(r->hop, status, reply->rawHeader(QByteArrayLiteral("Location")), r->current.redirects.size());
    if (!step)
        return false;
    if (step->hop.followed)
        closeHopTiming(step->hop, r->current, nowNs());
    r->current.redirects.append(step->hop);
    const QString shownTo = Redactor().urlString(step->hop.to);
    if (!step->hop.followed) {
        qCInfo(lcExecutor).noquote() << "request" << r->id << "redirect" << status << "to" << shownTo
                                     << "not followed:" << step->hop.note;
        return false;
    }
    qCDebug(lcExecutor).noquote() << "request" << r->id << "follows" << status << "to" << shownTo;

    forgetReply(*r);
    reply->deleteLater(); // finished: it says nothing more
    r->reply = nullptr;
    r->hop = step->next;
    sendHop(r);
    return true;
}

void RetryExecutor::handleManagerDestroyed(QObject *manager)
{
    // Only addresses are compared, as void pointers: the QNetworkAccessManager part of
    // the object is already destroyed, so even a cast to it would be undefined.
    const void *gone = manager;
    m_managers->forget(gone);
    QList<RequestPtr> orphans;
    for (const RequestPtr &r : std::as_const(m_requests)) {
        if (r->phase == Request::Phase::InFlight && static_cast<const void *>(r->manager) == gone)
            orphans.append(r);
    }
    for (const RequestPtr &r : std::as_const(orphans)) {
        if (r->phase != Request::Phase::InFlight)
            continue; // a handler of an earlier one cancelled it
        qCWarning(lcExecutor).noquote() << "request" << r->id << "lost its QNetworkAccessManager mid-attempt";
        r->manager = nullptr;
        forgetReply(*r);
        r->reply = nullptr;
        r->current.networkError = QNetworkReply::UnknownNetworkError;
        r->current.errorString = tr("the QNetworkAccessManager given to the executor was destroyed during the attempt");
        concludeAttempt(r, AttemptEnd::NetworkError);
    }
}

void RetryExecutor::releaseSlot(Request &r)
{
    cancelWakeup(Wakeup::AttemptTimeout, r.id);
    if (r.reply) {
        forgetReply(r);
        // A finished reply says nothing more; an unfinished one would (abort() emits finished).
        if (!r.reply->isFinished())
            r.reply->disconnect(this);
        r.reply->deleteLater();
        r.reply = nullptr;
    }
    if (r.phase == Request::Phase::InFlight) {
        --m_inFlight;
        m_managers->release(r.manager);
    }
    r.manager = nullptr;
}

void RetryExecutor::handleReplyFinished(quint64 requestId)
{
    const RequestPtr r = find(requestId);
    if (!r || r->phase != Request::Phase::InFlight || !r->reply)
        return;
    const auto error = r->reply->error();
    const bool hasStatus = r->reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).isValid();
    if (hasStatus && followRedirect(r))
        return;
    concludeAttempt(
        r, (error == QNetworkReply::NoError || hasStatus) ? AttemptEnd::Response : AttemptEnd::NetworkError);
}

void RetryExecutor::handleAttemptTimeout(quint64 requestId)
{
    if (const RequestPtr r = find(requestId); r && r->phase == Request::Phase::InFlight)
        cutAttempt(r, AttemptEnd::AttemptTimeout);
}

void RetryExecutor::handleDeadline(quint64 requestId)
{
    const RequestPtr r = find(requestId);
    if (!r)
        return;
    if (r->phase == Request::Phase::InFlight) {
        cutAttempt(r, AttemptEnd::Deadline);
        return;
    }
    if (r->phase != Request::Phase::Done) {
        finishRequest(r, RequestOutcome::DeadlineExceeded,
            tr("the total deadline of %1 ms was reached").arg(r->policy.deadlineMs));
    }
}

void RetryExecutor::cutAttempt(const RequestPtr &r, AttemptEnd end)
{
    // Qt reports a timeout, a deadline and a user cancel alike as
    // OperationCanceledError; decide here, before Qt gets to say anything.
    if (r->reply) {
        // Read what arrived so far before the reply goes away; its abort() is
        // not an end to handle (the manager's finished() comes at once).
        forgetReply(*r);
        r->reply->disconnect(this);
        const QByteArray rest = r->reply->readAll();
        r->bytesReceived += rest.size();
        keepBody(r->body, rest, m_responseBodyLimit);
        r->reply->abort();
    }
    concludeAttempt(r, end);
}

void RetryExecutor::concludeAttempt(const RequestPtr &r, AttemptEnd end)
{
    AttemptRecord &record = r->current;
    const qint64 now = nowNs();
    record.endNs = now;
    record.finishedNs = now;
    const QDateTime receivedAt = m_ownClock->wallTime();

    if (QNetworkReply *reply = r->reply) {
        if (reply->bytesAvailable() > 0) {
            const QByteArray chunk = reply->readAll();
            r->bytesReceived += chunk.size();
            keepBody(r->body, chunk, m_responseBodyLimit);
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
        record.errorString = record.networkError == QNetworkReply::NoError ? QString() : reply->errorString();
        if (!r->tls.errors.isEmpty() && !r->tls.errorsIgnored) {
            record.errorString += tr(" (TLS: %1; not ignored)").arg(r->tls.errors.join(QStringLiteral("; ")));
        }
        if (status.isValid()) {
            record.protocol = reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool()
                ? QStringLiteral("HTTP/2")
                : QStringLiteral("HTTP/1.1");
        }
        if (reply->url().scheme() == QLatin1String("https")) { // the reply's: HSTS may have made it so
            // A failed handshake leaves the version Qt offered, not one agreed on.
            const bool handshakeFailed = record.networkError == QNetworkReply::SslHandshakeFailedError;
            TlsInspection::noteSession(r->tls, reply->sslConfiguration(), !handshakeFailed);
            record.tls = r->tls;
        }
    }
    record.bytesReceived = r->bytesReceived;
    record.responseBody = r->body;
    record.responseBodyTruncated = r->bytesReceived > r->body.size();

    releaseSlot(*r);
    r->phase = Request::Phase::Sleeping; // not in flight; decideNext() moves it on
    Classification classification = AttemptObserver::conclude(record, end, r->spec, r->policy, r->body, receivedAt);
    if (r->transport.usesProxy() && classification.networkFault && !record.httpStatus
        && record.end == AttemptEnd::NetworkError) {
        // Refused, reset or timed out: by the proxy or behind it, the user must know it was in the way.
        classification.reason = tr("through %1: %2").arg(r->transport.proxyDescription(), classification.reason);
    }

    // Feed the breaker and the budget with what really happened on the wire.
    CircuitBreaker &breaker = breakerFor(r->host);
    if (end == AttemptEnd::Cancelled || end == AttemptEnd::Deadline) {
        if (r->breakerTrial)
            breaker.release();
    } else if (isFailureForBreaker(record, classification)) {
        breaker.recordFailure(r->breakerTrial);
        m_budget->recordFailure();
    } else {
        breaker.recordSuccess(r->breakerTrial);
        // One refund per logical request: the read of a read-modify-write is a
        // step on the way, and a refunded retry cost is not refunded again.
        const bool rmwRead
            = r->spec.kind == RequestSpec::Kind::ReadModifyWrite && r->plan.step == QLatin1String("read");
        if (classification.decision == Classification::Decision::Success && !rmwRead) {
            m_budget->recordSuccess(r->lastRetryCost);
            r->lastRetryCost = 0.0;
        }
    }
    r->breakerTrial = false;

    // The decision first, the breaker and budget signals after it: their
    // handlers may call cancel() or submit(), and must find the request settled.
    const QString host = r->host;
    decideNext(r, record, classification);
    noteBreakerState(host);
    if (m_budget->enabled())
        noteBudget();
}

qint64 RetryExecutor::timerNs(double ms)
{
    // The policy caps keep delays far below this; a timeout is never shortened.
    return ms > 0.0 ? static_cast<qint64>(std::ceil(std::min(ms, 2e12) * 1e6)) : 0;
}

void RetryExecutor::wakeAfter(Wakeup kind, quint64 requestId, qint64 ns)
{
    m_wakeups->schedule(requestId << 2 | quint64(kind), ns);
}

void RetryExecutor::cancelWakeup(Wakeup kind, quint64 requestId)
{
    m_wakeups->cancel(requestId << 2 | quint64(kind));
}

void RetryExecutor::handleWakeup(quint64 key)
{
    const quint64 requestId = key >> 2;
    switch (Wakeup(key & 3)) {
    case Wakeup::Retry:
        handleRetryTimeout(requestId);
        break;
    case Wakeup::AttemptTimeout:
        handleAttemptTimeout(requestId);
        break;
    case Wakeup::Deadline:
        handleDeadline(requestId);
        break;
    }
}

void RetryExecutor::handleRetryTimeout(quint64 requestId)
{
    const RequestPtr r = find(requestId);
    if (!r || r->phase != Request::Phase::Sleeping)
        return;
    r->actualDelayMs = (nowNs() - r->sleepStartNs) / 1e6;
    enqueue(r, true);
    dispatchQueued();
}

} // namespace RetryLab::Core
