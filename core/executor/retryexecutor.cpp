#include "core/executor/retryexecutor.h"

#include "core/executor/executorrequest.h"
#include "core/executor/precisewakeups.h"
#include "core/executor/preparedtransport.h"
#include "core/executor/redirectstep.h"
#include "core/executor/requestcheck.h"
#include "core/executor/retryplanner.h"
#include "core/policy/adaptiveratelimiter.h"
#include "core/policy/retrybudget.h"
#include "core/util/clock.h"
#include "core/util/durationtext.h"
#include "core/util/randomsource.h"

#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QScopedValueRollback>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <utility>

// The requests' state machine: submitting, the queue and its slots, the wake-ups
// (backoff, attempt timeout, deadline), the breakers and the budget, the
// decision after each attempt (RetryPlanner's), the fallbacks and the end. Each
// attempt's network life is AttemptTransport's (m_transport).

Q_LOGGING_CATEGORY(lcExecutor, "retrylab.core.executor", QtInfoMsg)

namespace RetryLab::Core {

namespace {

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
    : QObject(parent), m_ownClock(std::make_unique<SteadyClock>()), m_budget(std::make_unique<RetryBudget>()),
      m_limiter(std::make_unique<AdaptiveRateLimiter>()),
      // The injected manager is used as it is configured; the executor frees
      // its replies itself either way.
      m_transport(this, *m_ownClock, m_requests, manager ? manager : new QNetworkAccessManager(this), manager,
          [this](QNetworkAccessManager &pooled) {
              connect(&pooled, &QNetworkAccessManager::finished, this, &RetryExecutor::handleManagerFinished);
          })
{
    qRegisterMetaType<AttemptRecord>();
    qRegisterMetaType<RequestResult>();
    qRegisterMetaType<CircuitBreaker::State>();
    if (manager) {
        // Not owned (see the constructor's comment): when it goes first, its
        // replies go with it, and the attempts on them must end here.
        connect(manager, &QObject::destroyed, this, [this, manager] { handleManagerDestroyed(manager); });
    }
    // Not a Qt timer per request: Qt scans all of a thread's timers whenever a
    // reply moves its delegate to the network thread.
    m_wakeups = new PreciseWakeups([this](quint64 key) { handleWakeup(key); }, this);
    m_policyProblem = firstPolicyError(m_policy);
    m_transport.setBodyLimit(defaultResponseBodyLimit);
    m_transport.setTransferLimit(defaultTransferLimit);
    m_transport.setEnded([this](quint64 requestId) {
        // The transport ended the attempt (its connect timeout, no address of the IP version asked for).
        if (const RequestPtr r = find(requestId); r && r->phase == Request::Phase::InFlight)
            cutAttempt(r, AttemptEnd::NetworkError);
    });
    // Requests waiting for another's token go on once it came (or did not), after
    // the handler that got it returns.
    m_transport.auth().setFetchEnded(
        [this] { QMetaObject::invokeMethod(this, &RetryExecutor::resumeAccessTokenWaiters, Qt::QueuedConnection); });
}

RetryExecutor::~RetryExecutor()
{
    // Tear down quietly: nobody should hear about requests of a dead executor.
    m_transport.abandonAll();
}

void RetryExecutor::setPolicy(const BackoffPolicy &policy)
{
    const bool breakerChanged = !(policy.circuitBreaker == m_policy.circuitBreaker);
    const bool budgetChanged = !(policy.retryBudget == m_policy.retryBudget);
    const bool limiterChanged = !(policy.rateLimiter == m_policy.rateLimiter);
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
    if (limiterChanged)
        m_limiter = std::make_unique<AdaptiveRateLimiter>(policy.rateLimiter, nowNs() / 1e6);
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
    m_transport.setBodyLimit(std::clamp<qint64>(bytes, minResponseBodyLimit, maxResponseBodyLimit));
}

void RetryExecutor::setTransferLimit(qint64 bytes)
{
    m_transport.setTransferLimit(std::clamp<qint64>(bytes, minResponseBodyLimit, maxTransferLimit));
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
    return static_cast<int>(m_requests.size()) - m_hedgeAttempts;
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
    m_transport.interner().intern(request->spec.headers); // every attempt's record holds them
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
    // A request's own policy is checked unless it is the executor's (checked when set):
    // the window hands every request the policy it set, a batch a thousand times.
    if (check && &policy != &m_policy && !(policy == m_policy)) {
        if (const QString problem = firstPolicyError(policy); !problem.isEmpty())
            check = Result<void>::failure(tr("the request's policy is not usable: %1").arg(problem));
    }
    if (check) {
        if (const QString problem
            = RequestAuth::check(spec.auth, RetryPlanner::attemptRequest(spec, request->plan), clock().wallTime());
            !problem.isEmpty())
            check = Result<void>::failure(tr("the request's auth cannot be used: %1").arg(problem));
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
    if (m_cancellingAll)
        return;
    while (m_inFlight + m_tokenWaiters < m_concurrencyLimit && !m_queue.isEmpty()) {
        const RequestPtr request = find(m_queue.takeFirst());
        if (!request || request->phase != Request::Phase::Queued)
            continue;
        if (hedges(*request))
            startHedging(request); // holds no slot itself: its attempts do
        else if (!holdBack(request))
            startAttempt(request);
    }
}

bool RetryExecutor::holdBack(const RequestPtr &r)
{
    return holdForReset(r) || waitForAccessToken(r) || waitForToken(r);
}

bool RetryExecutor::waitForAccessToken(const RequestPtr &r)
{
    if (!m_transport.auth().awaitsToken(r->spec.auth, r->auth))
        return false;
    // Off the queue but still Queued, holding no slot: one token request serves them all.
    m_accessTokenWaiters.append(r->id);
    qCDebug(lcExecutor).noquote() << "request" << r->id << "waits for the access token another attempt fetches";
    return true;
}

void RetryExecutor::resumeAccessTokenWaiters()
{
    if (m_accessTokenWaiters.isEmpty())
        return;
    // First in line again, in their order; queuedSinceNs stays, so the record counts the wait.
    const QList<quint64> waiting = std::exchange(m_accessTokenWaiters, {});
    for (auto it = waiting.crbegin(); it != waiting.crend(); ++it) {
        if (const RequestPtr r = find(*it); r && r->phase == Request::Phase::Queued)
            m_queue.prepend(r->id);
    }
    dispatchQueued();
}

bool RetryExecutor::waitForToken(const RequestPtr &r)
{
    // One token per attempt: taken when the attempt first leaves the queue, its wait
    // then passed on a wakeup of its own, after which the attempt starts.
    if (!m_limiter->active() || r->tokenTaken)
        return false;
    r->tokenTaken = true;
    const double waitMs = m_limiter->acquireDelayMs(nowNs() / 1e6);
    if (waitMs <= 0.0)
        return false;
    const QString note = tr("waited %1 for the adaptive rate limiter (%2 requests/s)")
                             .arg(DurationText::format(waitMs))
                             .arg(m_limiter->currentRate(), 0, 'g', 3);
    r->holdNote = r->holdNote.isEmpty() ? note : tr("%1; %2").arg(r->holdNote, note);
    qCDebug(lcExecutor).noquote() << "request" << r->id << note;
    r->waitingForToken = true;
    ++m_tokenWaiters;
    wakeAfter(Wakeup::RateLimit, r->id, timerNs(waitMs));
    return true;
}

bool RetryExecutor::holdForReset(const RequestPtr &r)
{
    if (m_rateLimitHolds.isEmpty() || !r->policy.classification.honourRateLimitReset)
        return false;
    const qint64 now = nowNs();
    const auto hold = m_rateLimitHolds.holdOn(r->host, now);
    if (!hold)
        return false;
    const double waitMs = (hold->untilNs - now) / 1e6;
    const double deadlineMs = r->policy.deadlineMs;
    if (deadlineMs > 0.0 && r->fallback == 0 && r->firstStartNs >= 0) {
        const double leftMs = deadlineMs - (now - r->firstStartNs) / 1e6;
        if (waitMs >= leftMs) {
            // As with a Retry-After beyond the deadline: a certain failure, told now.
            finishRequest(r, RequestOutcome::DeadlineExceeded,
                tr("%1: attempt %2 would wait %3 for its reset, beyond the %4 ms left before the deadline; "
                   "giving up now")
                    .arg(hold->reason)
                    .arg(r->attemptIndex + 1)
                    .arg(DurationText::format(waitMs))
                    .arg(std::floor(std::max(0.0, leftMs))));
            return true;
        }
    }
    // Off the queue but still Queued: the wait counts in the attempt's queued time.
    const QString note = tr("held back %1 before it started: %2").arg(DurationText::format(waitMs), hold->reason);
    r->holdNote = r->holdNote.isEmpty() ? note : tr("%1; %2").arg(r->holdNote, note);
    qCDebug(lcExecutor).noquote() << "request" << r->id << r->holdNote;
    wakeAfter(Wakeup::RateLimit, r->id, hold->untilNs - now);
    return true;
}

void RetryExecutor::handleRateLimitReset(quint64 requestId)
{
    const RequestPtr r = find(requestId);
    if (!r || r->phase != Request::Phase::Queued)
        return;
    if (std::exchange(r->waitingForToken, false))
        --m_tokenWaiters; // its slot is its own again in dispatchQueued()
    m_queue.prepend(r->id); // it was first in line; queuedSinceNs stays, so the record counts the wait
    dispatchQueued();
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
    r->tokenTaken = false; // the next attempt takes a token of its own
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

    m_transport.start(*r, now);
    r->phase = Request::Phase::InFlight;
    ++m_inFlight;

    const double timeoutMs = r->spec.attemptTimeoutMs.value_or(r->policy.attemptTimeoutMs);
    if (timeoutMs > 0.0)
        wakeAfter(Wakeup::AttemptTimeout, r->id, timerNs(timeoutMs));

    if (r->hedgeOf) {
        if (const RequestPtr hedged = find(r->hedgeOf)) {
            // Hedged when an earlier attempt is still out; the next goes after the delay unless an answer comes first.
            r->current.hedged
                = std::any_of(hedged->hedgeAttempts.cbegin(), hedged->hedgeAttempts.cend(), [this, r](quint64 id) {
                      const RequestPtr other = find(id);
                      return id != r->id && other && other->phase == Request::Phase::InFlight;
                  });
            hedged->lastHedgeStartNs = now;
            ++hedged->hedgesStarted;
            cancelWakeup(Wakeup::Retry, hedged->id);
            if (hedged->attemptIndex < hedged->policy.hedging.maxAttempts)
                wakeAfter(Wakeup::Retry, hedged->id, timerNs(hedged->policy.hedging.delayMs));
        }
    }

    qCDebug(lcExecutor).noquote() << "request" << r->logicalId() << "attempt" << r->attemptIndex + 1 << r->hop.method
                                  << r->spec.url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery);
    Q_EMIT attemptStarted(r->logicalId(), r->current.attemptIndex);
}

bool RetryExecutor::hedges(const Request &r)
{
    if (!r.policy.hedging.enabled || r.hedgeOf || r.fallback > 0 || r.spec.kind != RequestSpec::Kind::Single)
        return false;
    // Parallel attempts are repeats: only what the policy may repeat is hedged.
    AttemptObservation observation;
    observation.method = r.spec.method;
    observation.markedIdempotent = r.spec.idempotent;
    observation.requestHeaders = r.spec.headers;
    observation.url = r.spec.url;
    return idempotencyOf(observation, r.policy.classification).retryable;
}

void RetryExecutor::startHedging(const RequestPtr &r)
{
    const qint64 queuedSince = r->queuedSinceNs;
    r->phase = Request::Phase::Hedging;
    r->firstStartNs = nowNs();
    if (r->policy.deadlineMs > 0.0)
        wakeAfter(Wakeup::Deadline, r->id, timerNs(r->policy.deadlineMs));
    sendHedge(r);
    // The first attempt's record counts the wait in the queue of the request itself.
    if (const RequestPtr first = find(r->hedgeAttempts.value(0)))
        first->queuedSinceNs = queuedSince;
}

bool RetryExecutor::sendHedge(const RequestPtr &r)
{
    double cost = 0.0;
    if (r->attemptIndex > 0) {
        // Every attempt beyond the first is a retry to the budget, as gRPC's throttling counts hedges.
        cost = m_budget->tryAcquireRetry(false);
        if (cost < 0.0) {
            qCInfo(lcExecutor).noquote() << "request" << r->id << "sends no further hedged attempt: the retry budget"
                                         << "refused it";
            return false;
        }
    }
    auto attempt = std::make_shared<Request>(r->spec, r->policy);
    attempt->id = reserveId();
    attempt->hedgeOf = r->id;
    attempt->host = r->host;
    attempt->transport = r->transport;
    attempt->attemptIndex = r->attemptIndex++;
    attempt->plan = r->plan;
    attempt->submittedNs = r->submittedNs;
    attempt->firstStartNs = r->firstStartNs;
    attempt->lastRetryCost = cost;
    const qint64 now = nowNs();
    if (attempt->attemptIndex > 0) {
        attempt->plannedDelayMs = r->policy.hedging.delayMs;
        attempt->actualDelayMs = r->lastHedgeStartNs >= 0 ? (now - r->lastHedgeStartNs) / 1e6 : 0.0;
    }
    m_requests.insert(attempt->id, attempt);
    ++m_hedgeAttempts;
    r->hedgeAttempts.append(attempt->id);
    // The first takes its request's place in line; a hedge goes behind the others, so that
    // the attempts of one request leave the queue in their order.
    enqueue(attempt, attempt->attemptIndex == 0);
    return true;
}

void RetryExecutor::dropHedgeAttempt(const RequestPtr &attempt, RequestOutcome outcome, const QString &reason)
{
    attempt->phase = Request::Phase::Done;
    cancelWakeup(Wakeup::RateLimit, attempt->id);
    if (std::exchange(attempt->waitingForToken, false))
        --m_tokenWaiters;
    if (attempt->lastRetryCost > 0.0) {
        m_budget->refund(std::exchange(attempt->lastRetryCost, 0.0)); // paid for, never sent
        noteBudget();
    }
    if (m_requests.remove(attempt->id))
        --m_hedgeAttempts;
    const RequestPtr r = find(attempt->hedgeOf);
    if (!r) {
        noteIdle();
        return;
    }
    r->hedgeAttempts.removeOne(attempt->id);
    // The attempts already out may still answer; with none out the request ends as its attempt could not start.
    if (r->phase == Request::Phase::Hedging && r->hedgeAttempts.isEmpty()) {
        endHedging(r, reason, AttemptEnd::Cancelled);
        finishRequest(r, outcome, reason);
    }
}

void RetryExecutor::endHedging(const RequestPtr &r, const QString &why, AttemptEnd end)
{
    r->phase = Request::Phase::Sleeping; // no longer hedging: attempts cut now only say why
    r->hedgeEnd = why;
    cancelWakeup(Wakeup::Retry, r->id);
    const QList<quint64> attempts = std::exchange(r->hedgeAttempts, {});
    bool refunded = false;
    for (quint64 id : attempts) {
        const RequestPtr attempt = find(id);
        if (!attempt || attempt->phase == Request::Phase::Done)
            continue;
        if (attempt->phase == Request::Phase::InFlight) {
            cutAttempt(attempt, end);
        } else {
            attempt->phase = Request::Phase::Done;
            cancelWakeup(Wakeup::RateLimit, id);
            if (std::exchange(attempt->waitingForToken, false))
                --m_tokenWaiters;
            if (attempt->lastRetryCost > 0.0) {
                m_budget->refund(std::exchange(attempt->lastRetryCost, 0.0)); // paid for, never sent
                refunded = true;
            }
            if (m_requests.remove(id))
                --m_hedgeAttempts;
        }
    }
    // The request made the attempts that went out, not those dropped unsent.
    r->attemptIndex = r->hedgesStarted;
    if (refunded)
        noteBudget();
}

void RetryExecutor::decideHedge(const RequestPtr &attempt, AttemptRecord &record, const Classification &c)
{
    record.cause = c.cause;
    record.nextDelayMs = -1.0;
    attempt->phase = Request::Phase::Done;
    if (m_requests.remove(attempt->id))
        --m_hedgeAttempts;
    const RequestPtr r = find(attempt->hedgeOf);
    const auto emitRecord = [this, &record] {
        const AttemptRecord copy = record;
        Q_EMIT attemptFinished(copy);
    };
    if (!r || r->phase != Request::Phase::Hedging) {
        // Cut because the request ended: an answer came first, its deadline passed, or it was cancelled.
        record.decision = Classification::Decision::GiveUp;
        record.reason = r && !r->hedgeEnd.isEmpty() ? tr("%1; %2").arg(c.reason, r->hedgeEnd) : c.reason;
        emitRecord();
        noteIdle(); // a handler may have ended the request while its attempts were being cut
        return;
    }
    r->hedgeAttempts.removeOne(attempt->id);
    record.decision = c.decision;
    const int maxAttempts = r->policy.hedging.maxAttempts;
    const bool nonFatal = c.decision == Classification::Decision::RetryAfterDelay
        || c.decision == Classification::Decision::RetryImmediately;

    if (!nonFatal) {
        // The first acceptable answer, or a fatal one: either ends the request, and the others are cut.
        record.hedgeWinner = true;
        const int running = int(r->hedgeAttempts.size());
        record.reason = running == 0
            ? c.reason
            : tr("%1; it answered first: %n other attempt(s) cancelled", nullptr, running).arg(c.reason);
        r->current = record;
        r->body = attempt->body;
        r->fallbackVerdict = RetryPlanner::fallbackVerdict(r->spec, c);
        emitRecord();
        if (r->phase != Request::Phase::Hedging)
            return; // a handler of attemptFinished cancelled it
        endHedging(r, tr("attempt %1 answered first").arg(record.attemptIndex + 1), AttemptEnd::Cancelled);
        if (c.decision == Classification::Decision::Success)
            finishRequest(r, RequestOutcome::Succeeded, c.reason);
        else
            finishRequest(r, RequestOutcome::GaveUp, tr("attempt %1: %2").arg(record.attemptIndex + 1).arg(c.reason));
        return;
    }

    // Not fatal (gRPC's non-fatal status codes): the next attempt goes out now, without waiting for the delay.
    const bool more = r->attemptIndex < maxAttempts;
    const bool sent = more && sendHedge(r);
    if (sent) {
        cancelWakeup(Wakeup::Retry, r->id);
        record.nextDelayMs = 0.0;
        record.reason = tr("%1; not fatal: attempt %2 goes out now").arg(c.reason).arg(r->attemptIndex);
    } else if (!r->hedgeAttempts.isEmpty()) {
        record.reason = tr("%1; waiting for the %n attempt(s) still in flight", nullptr, int(r->hedgeAttempts.size()))
                            .arg(c.reason);
    } else {
        record.reason = more ? tr("%1; the retry budget refused a further attempt").arg(c.reason)
                             : tr("%1; all %2 hedged attempts failed").arg(c.reason).arg(maxAttempts);
    }
    // The last answer so far: the request ends with it unless another comes.
    r->current = record;
    r->body = attempt->body;
    r->fallbackVerdict = RetryPlanner::fallbackVerdict(r->spec, c);
    emitRecord();
    if (r->phase != Request::Phase::Hedging)
        return; // a handler of attemptFinished cancelled it
    if (r->hedgeAttempts.isEmpty()) {
        endHedging(r, QString(), AttemptEnd::Cancelled);
        if (more)
            finishRequest(r, RequestOutcome::BudgetExhausted,
                tr("retry budget exhausted after %1 hedged attempt(s): %2").arg(r->attemptIndex).arg(c.reason));
        else
            finishRequest(r, RequestOutcome::AttemptsExhausted,
                tr("all %1 hedged attempts failed; the last: %2").arg(maxAttempts).arg(c.reason));
        return;
    }
    if (sent)
        dispatchQueued();
}

void RetryExecutor::handleManagerFinished(QNetworkReply *reply)
{
    if (const quint64 requestId = m_transport.requestOf(reply))
        handleReplyFinished(requestId);
}

void RetryExecutor::handleManagerDestroyed(QObject *manager)
{
    // Only addresses are compared, as void pointers: the QNetworkAccessManager part of
    // the object is already destroyed, so even a cast to it would be undefined.
    const void *gone = manager;
    m_transport.forgetManager(gone);
    QList<RequestPtr> orphans;
    for (const RequestPtr &r : std::as_const(m_requests)) {
        if (r->phase == Request::Phase::InFlight && static_cast<const void *>(r->manager) == gone)
            orphans.append(r);
    }
    for (const RequestPtr &r : std::as_const(orphans)) {
        if (r->phase != Request::Phase::InFlight)
            continue; // a handler of an earlier one cancelled it
        m_transport.loseManager(*r);
        concludeAttempt(r, AttemptEnd::NetworkError);
    }
}

void RetryExecutor::releaseSlot(Request &r)
{
    cancelWakeup(Wakeup::AttemptTimeout, r.id);
    if (r.phase == Request::Phase::InFlight)
        --m_inFlight;
    m_transport.release(r);
}

void RetryExecutor::handleReplyFinished(quint64 requestId)
{
    const RequestPtr r = find(requestId);
    if (!r || r->phase != Request::Phase::InFlight || !r->reply)
        return;
    if (const std::optional<AttemptEnd> end = m_transport.finished(*r)) // none: a redirect was followed
        concludeAttempt(r, *end);
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
    if (r->phase == Request::Phase::Hedging) {
        const QString why = tr("the total deadline of %1 ms was reached").arg(r->policy.deadlineMs);
        endHedging(r, why, AttemptEnd::Deadline);
        finishRequest(r, RequestOutcome::DeadlineExceeded, why);
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
    m_transport.cut(*r);
    concludeAttempt(r, end);
}

void RetryExecutor::concludeAttempt(const RequestPtr &r, AttemptEnd end)
{
    const Classification classification = m_transport.conclude(*r, end);
    AttemptRecord &record = r->current;
    releaseSlot(*r);
    r->phase = Request::Phase::Sleeping; // not in flight; decideNext() moves it on

    // Feed the breaker and the budget with what really happened on the wire: not
    // with a token endpoint's failure, which says nothing about the request's host.
    CircuitBreaker &breaker = breakerFor(r->host);
    const bool tokenFailed = r->auth.tokenFailed;
    if (end == AttemptEnd::Cancelled || end == AttemptEnd::Deadline || tokenFailed) {
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
    if (m_limiter->active() && end != AttemptEnd::Cancelled && end != AttemptEnd::Deadline && !tokenFailed)
        m_limiter->onResponse(nowNs() / 1e6, AdaptiveRateLimiter::isThrottling(record.httpStatus, record.responseBody));
    if (r->policy.classification.honourRateLimitReset && !tokenFailed)
        m_rateLimitHolds.note(r->host, classification, r->policy.classification.maxRetryAfterMs, nowNs());

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
    case Wakeup::RateLimit:
        handleRateLimitReset(requestId);
        break;
    }
}

void RetryExecutor::handleRetryTimeout(quint64 requestId)
{
    const RequestPtr r = find(requestId);
    if (r && r->phase == Request::Phase::Hedging) {
        // The hedging delay passed with no answer: the next attempt goes out beside those in flight.
        if (r->attemptIndex < r->policy.hedging.maxAttempts && sendHedge(r)) {
            if (m_budget->enabled())
                noteBudget(); // the hedge paid for itself
            dispatchQueued();
        }
        return;
    }
    if (!r || r->phase != Request::Phase::Sleeping)
        return;
    r->actualDelayMs = (nowNs() - r->sleepStartNs) / 1e6;
    enqueue(r, true);
    dispatchQueued();
}

void RetryExecutor::decideNext(const RequestPtr &r, AttemptRecord &record, const Classification &c)
{
    if (r->hedgeOf) {
        decideHedge(r, record, c);
        return;
    }
    record.cause = c.cause;
    ++r->attemptIndex;
    if (record.httpStatus == 401 && m_transport.auth().rejectToken(r->spec.auth, r->auth)) {
        // The server no longer takes the token the cache gave: a fresh one, and the request again, at once.
        record.decision = Classification::Decision::RetryImmediately;
        record.reason = tr("401 with the cached access token: a fresh token is fetched and the request sent again");
        record.nextDelayMs = 0.0;
        const AttemptRecord copy = record;
        Q_EMIT attemptFinished(copy);
        if (r->phase == Request::Phase::Done)
            return; // a handler of attemptFinished cancelled it
        r->plannedDelayMs = 0.0;
        r->actualDelayMs = 0.0;
        Q_EMIT retryScheduled(r->id, r->attemptIndex, 0.0, record.reason, -1);
        if (r->phase == Request::Phase::Done)
            return; // a handler of retryScheduled cancelled it
        enqueue(r, true);
        dispatchQueued();
        return;
    }
    QString holdNote = std::exchange(r->holdNote, QString());
    r->fallbackVerdict = RetryPlanner::fallbackVerdict(r->spec, c);
    if (r->fallback > 0) {
        // A fallback endpoint: one attempt, no backoff.
        const RetryPlanner::Decision decision
            = RetryPlanner::decideFallback(r->plan, r->spec, r->fallback, record.end, c);
        record.decision = decision.recordDecision;
        record.reason = holdNote.isEmpty() ? decision.recordReason : tr("%1 (%2)").arg(decision.recordReason, holdNote);
        record.nextDelayMs = -1.0;
        const AttemptRecord copy = record;
        Q_EMIT attemptFinished(copy);
        finishRequest(r, decision.outcome, decision.reason);
        return;
    }
    const RetryPlanner::Attempt attempt{record.end, record.responseHeaders, r->body, (nowNs() - r->firstStartNs) / 1e6};
    // The draws for a retry depend on the request's seed and the attempt alone.
    const quint64 requestSeed
        = r->spec.seed ? RandomSource::derive(*r->spec.seed, r->spec.seedStream) : RandomSource::derive(m_seed, r->id);
    RandomSource random(RandomSource::derive(requestSeed, quint64(r->attemptIndex)));
    const RetryPlanner::Decision decision
        = RetryPlanner::decide(r->plan, r->spec, attempt, c, r->policy, *m_budget, random);
    r->plan = decision.state;
    record.decision = decision.recordDecision;
    record.reason = holdNote.isEmpty() ? decision.recordReason : tr("%1 (%2)").arg(decision.recordReason, holdNote);
    record.nextDelayMs = decision.nextDelayMs;

    const auto emitRecord = [this, &record] {
        const AttemptRecord copy = record;
        Q_EMIT attemptFinished(copy);
    };

    switch (decision.action) {
    case RetryPlanner::Decision::Action::Finish:
        emitRecord();
        finishRequest(r, decision.outcome, decision.reason);
        return;
    case RetryPlanner::Decision::Action::NextStep:
        emitRecord();
        if (r->phase == Request::Phase::Done)
            return; // a handler of attemptFinished cancelled it
        r->plannedDelayMs = 0.0;
        r->actualDelayMs = 0.0;
        enqueue(r, true);
        dispatchQueued();
        return;
    case RetryPlanner::Decision::Action::Retry:
        break;
    }

    // Paid before anyone hears of the retry: finishRequest() refunds it if a
    // handler cancels the request before it goes out.
    r->lastRetryCost = m_budget->tryAcquireRetry(decision.retryAfterTimeout);
    Q_ASSERT(r->lastRetryCost == decision.retryCost);
    r->retryPaid = true;

    const double delay = decision.nextDelayMs;
    emitRecord();
    if (decision.attemptsLeft >= 0) {
        qCInfo(lcExecutor).noquote() << QStringLiteral(
            "request %1 attempt %2 failed: %3; retrying in %4 ms, %5 attempt(s) left")
                                            .arg(r->id)
                                            .arg(record.attemptIndex + 1)
                                            .arg(c.reason)
                                            .arg(std::round(delay))
                                            .arg(decision.attemptsLeft);
    } else {
        qCInfo(lcExecutor).noquote() << QStringLiteral("request %1 attempt %2 failed: %3; retrying in %4 ms")
                                            .arg(r->id)
                                            .arg(record.attemptIndex + 1)
                                            .arg(c.reason)
                                            .arg(std::round(delay));
    }

    if (r->phase == Request::Phase::Done)
        return; // a handler of attemptFinished cancelled it; finishRequest() refunded the retry
    r->phase = Request::Phase::Sleeping;
    r->plannedDelayMs = delay;
    r->sleepStartNs = nowNs();
    // The planner's delays are finite and >= 0; should one not be, the retry goes at once.
    wakeAfter(Wakeup::Retry, r->id, timerNs(delay));
    Q_EMIT retryScheduled(r->id, r->attemptIndex, delay, decision.reason, decision.attemptsLeft);
    // The sleeping request holds no slot: let a queued one have it now.
    dispatchQueued();
}

void RetryExecutor::cancel(quint64 requestId)
{
    const RequestPtr r = find(requestId);
    if (!r || r->phase == Request::Phase::Done)
        return;
    if (r->hedgeOf) {
        cancel(r->hedgeOf); // an attempt's id is the executor's own; the request is what is cancelled
        return;
    }
    if (r->phase == Request::Phase::InFlight) {
        cutAttempt(r, AttemptEnd::Cancelled);
        return;
    }
    if (r->phase == Request::Phase::Hedging)
        endHedging(r, tr("cancelled by the user"), AttemptEnd::Cancelled);
    finishRequest(r, RequestOutcome::Cancelled, tr("cancelled by the user"));
}

void RetryExecutor::cancelAll()
{
    // Queued ones first, so that cancelling in-flight attempts frees no slot for them;
    // and nothing starts meanwhile, though a slot held for a token or a cut hedge frees.
    const QScopedValueRollback<bool> cancelling(m_cancellingAll, true);
    const QList<quint64> ids = m_requests.keys();
    for (quint64 id : ids) {
        // A hedged request cuts its attempts in flight: it goes with those.
        if (const RequestPtr r = find(id);
            r && r->phase != Request::Phase::InFlight && r->phase != Request::Phase::Hedging && !r->hedgeOf)
            cancel(id);
    }
    for (quint64 id : ids)
        cancel(id);
}

bool RetryExecutor::takeFallback(const RequestPtr &r, RequestOutcome &outcome, QString &reason)
{
    if (r->fallback == 0) {
        r->primaryOutcome = outcome;
        r->primaryReason = reason;
    } else if (outcome != RequestOutcome::Succeeded && outcome != RequestOutcome::Cancelled) {
        r->fallbackFailures.append(reason);
    }
    const RetryPlanner::FallbackVerdict &verdict = r->fallbackVerdict;
    if (!RetryPlanner::takesFallback(r->spec, r->fallback, outcome, verdict.allowed)) {
        if (r->fallback > 0 && outcome != RequestOutcome::Succeeded && outcome != RequestOutcome::Cancelled) {
            // Every fallback failed too: the request ends as the policy ended it, and says what the fallbacks got.
            outcome = r->primaryOutcome;
            reason = tr("%1; then %2").arg(r->primaryReason, r->fallbackFailures.join(QStringLiteral("; ")));
        }
        if (!verdict.allowed && RetryPlanner::takesFallback(r->spec, r->fallback, outcome, true)) {
            // The fallbacks are there but the fault is not one to repeat elsewhere: say so.
            reason = tr("%1; no fallback asked: %2").arg(reason, verdict.refusal);
        }
        return false;
    }
    ++r->fallback;
    const QString next = RetryPlanner::fallbackName(r->spec, r->fallback);
    QString why = r->fallback == 1 ? tr("the policy gave up (%1): trying %2").arg(r->primaryReason, next)
                                   : tr("%1: trying %2").arg(reason, next);
    if (!r->spec.fallbackOn.isEmpty()) {
        // The request's own list sent it there: say which entry (none matched when no attempt was made).
        const QString trigger = verdict.trigger.isEmpty() ? requestOutcomeName(outcome) : verdict.trigger;
        r->fallbackTriggers.append(trigger);
        why = verdict.trigger.isEmpty() ? tr("%1 (no attempt was made)").arg(why)
                                        : tr("%1 (\"%2\" is in the request's fallback list)").arg(why, trigger);
    }
    qCInfo(lcExecutor).noquote() << "request" << r->id << why;
    // The fallback's attempt goes out at once and is bounded by its own timeout, not by the deadline that passed.
    cancelWakeup(Wakeup::Deadline, r->id);
    r->spec.url = r->spec.fallbackUrls.at(r->fallback - 1);
    r->host = hostKey(r->spec.url);
    r->plannedDelayMs = 0.0;
    r->actualDelayMs = 0.0;
    enqueue(r, true);
    Q_EMIT retryScheduled(r->id, r->attemptIndex, 0.0, why, int(r->spec.fallbackUrls.size()) - r->fallback + 1);
    if (r->phase == Request::Phase::Queued) // a handler may have cancelled it
        dispatchQueued();
    return true;
}

void RetryExecutor::finishRequest(const RequestPtr &r, RequestOutcome outcome, QString reason)
{
    if (r->phase == Request::Phase::Done)
        return;
    if (r->hedgeOf) {
        dropHedgeAttempt(r, outcome, reason);
        return;
    }
    releaseSlot(*r);
    cancelWakeup(Wakeup::Retry, r->id);
    cancelWakeup(Wakeup::RateLimit, r->id);
    if (std::exchange(r->waitingForToken, false))
        --m_tokenWaiters;
    const bool refunded = r->retryPaid && r->lastRetryCost > 0.0;
    if (r->retryPaid) {
        // Cancelled or out of time while waiting to retry: the retry it paid for never went out.
        m_budget->refund(r->lastRetryCost);
        r->lastRetryCost = 0.0;
        r->retryPaid = false;
    }
    if (takeFallback(r, outcome, reason)) {
        if (refunded && m_budget->enabled())
            noteBudget();
        return;
    }
    r->phase = Request::Phase::Done;
    cancelWakeup(Wakeup::Deadline, r->id);
    // A queued id stays in m_queue: dispatchQueued() skips ids that are gone,
    // which keeps finishing a request O(1) when thousands wait.

    RequestResult result;
    result.requestId = r->id;
    result.outcome = outcome;
    result.attempts = r->attemptIndex;
    result.reason = reason;
    result.finalStatus = r->attemptIndex > 0 ? r->current.httpStatus : std::nullopt;
    result.startNs = r->firstStartNs >= 0 ? r->firstStartNs : r->submittedNs;
    result.endNs = nowNs();
    result.body = r->body;
    result.fallback = r->fallback;
    result.fallbackTriggers = r->fallbackTriggers;

    if (outcome == RequestOutcome::Succeeded) {
        qCDebug(lcExecutor).noquote() << "request" << r->id << "succeeded after" << result.attempts << "attempt(s)";
    } else if (outcome != RequestOutcome::Cancelled) {
        qCWarning(lcExecutor).noquote() << QStringLiteral("request %1 failed (%2) after %3 attempt(s): %4")
                                               .arg(r->id)
                                               .arg(requestOutcomeName(outcome))
                                               .arg(result.attempts)
                                               .arg(reason);
    }

    m_requests.remove(r->id);
    Q_EMIT requestFinished(result);
    if (refunded && m_budget->enabled())
        noteBudget();
    dispatchQueued();
    noteIdle();
}

void RetryExecutor::noteIdle()
{
    if (!m_requests.isEmpty())
        return;
    // Containers keep the room of their largest size: after 100,000 requests
    // that is megabytes the executor would hold for nothing once idle.
    m_requests.squeeze();
    m_queue.squeeze();
    Q_EMIT idle();
}

} // namespace RetryLab::Core
