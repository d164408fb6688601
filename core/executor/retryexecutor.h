#pragma once

#include "core/executor/attempttransport.h"
#include "core/executor/ratelimithold.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/circuitbreaker.h"
#include "core/record/attemptrecord.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QUrl>

#include <atomic>
#include <memory>

class QNetworkAccessManager;
class QNetworkReply;

namespace RetryLab::Core {

class AdaptiveRateLimiter;
class Clock;
class PreciseWakeups;
class RandomSource;
class RetryBudget;
struct ExecutorRequest;

/// Carries logical requests through attempts, backoff and giving up on Qt's
/// event loop: a new QNetworkReply per attempt, each retry scheduled by a
/// Qt::PreciseTimer, the per-attempt timeout and the total deadline on timers
/// of their own. Nothing blocks; thousands of requests can run at once.
///
/// Every step is reported by a signal; the UI and the headless runner build
/// their records from those signals only.
///
/// The executor is the requests' state machine: the queue and its slots, the
/// wake-ups, the breakers and the budget, the decision after each attempt, the
/// fallbacks and the end. One attempt's life on the network, from its request
/// to its record, is AttemptTransport's.
class RetryExecutor final : public QObject
{
    Q_OBJECT

public:
    /// `manager` is shared and not owned (held by QPointer); when null the
    /// executor makes its own. If the shared manager is destroyed before the
    /// executor, attempts in flight on it end with a network error that says
    /// so, and later attempts go through managers of the executor's own.
    /// More managers are added as needed, because Qt opens at most six HTTP/1.1
    /// connections per host per manager and the concurrency limit may be larger;
    /// they copy the shared manager's proxy and transfer timeout. Redirects are
    /// followed by the executor whatever the manager's redirect policy (see
    /// AttemptRecord::redirects): at most 10 per attempt, never from https to
    /// http, and without Authorization, Cookie or Proxy-Authorization once the
    /// origin changes.
    /// A request with TransportOptions of its own (TLS files, proxy, HTTP
    /// version) goes through managers of its own transport (PreparedTransport),
    /// never through the shared one.
    explicit RetryExecutor(QNetworkAccessManager *manager = nullptr, QObject *parent = nullptr);
    ~RetryExecutor() override;

    /// The policy for requests submitted from now on (running ones keep theirs).
    /// Breakers and the retry budget are rebuilt when their settings change.
    void setPolicy(const BackoffPolicy &policy);
    const BackoffPolicy &policy() const { return m_policy; }

    /// Requests in flight at once (across all hosts), 1..1000; the rest wait in a
    /// queue and the wait is recorded in AttemptRecord::queuedNs. Under a policy
    /// that honours rate-limit resets, an attempt to a host whose last answer said
    /// none of its quota is left waits there too, until the reset (at most the
    /// policy's maxRetryAfterMs, never past the request's deadline), and its
    /// record's reason says so.
    void setConcurrencyLimit(int limit);
    int concurrencyLimit() const { return m_concurrencyLimit; }

    /// Seed for the jitter of requests that bring none (RequestSpec::seed):
    /// request N draws from RandomSource::derive(seed, N), for reproducible runs.
    void setSeed(quint64 seed);
    quint64 seed() const { return m_seed; }

    /// Bytes of each attempt's response body kept in its record (the rest is
    /// counted, not kept: AttemptRecord::responseBodyTruncated), 4 KiB to 256 MiB.
    /// The classifier and a read-modify-write read only the first few KiB.
    static constexpr qint64 defaultResponseBodyLimit = 1024 * 1024;
    static constexpr qint64 minResponseBodyLimit = 4 * 1024;
    static constexpr qint64 maxResponseBodyLimit = 256LL * 1024 * 1024;
    void setResponseBodyLimit(qint64 bytes);
    qint64 responseBodyLimit() const { return m_transport.bodyLimit(); }

    /// Bytes of a response body read at most: beyond them the executor ends the
    /// transfer (AttemptRecord::transferEnded) and the attempt is judged by its
    /// status, so that an endless or huge body ends the attempt instead of
    /// running into its timeout. Never less than the body kept; 1 GiB by default.
    static constexpr qint64 defaultTransferLimit = 1024LL * 1024 * 1024;
    static constexpr qint64 maxTransferLimit = 1024LL * 1024 * 1024 * 1024;
    void setTransferLimit(qint64 bytes);
    qint64 transferLimit() const { return m_transport.transferLimit(); }

    /// Whether every attempt carries "X-Retry-Request-Id" (the same for all
    /// attempts of a logical request) and "X-Retry-Attempt" (1, 2, ...), as
    /// AWS SDKs (amz-sdk-request) and Google's client libraries do. A server
    /// can then tell a retry from a resend of the same attempt by Qt, which
    /// silently sends a request again when a connection closes before the
    /// status line. On by default; the headers show in AttemptRecord::requestHeaders.
    void setAttemptHeadersEnabled(bool enabled) { m_transport.setAttemptHeadersEnabled(enabled); }
    bool attemptHeadersEnabled() const { return m_transport.attemptHeadersEnabled(); }

    /// Starts a logical request; returns its id (> 0). An invalid request or an
    /// unusable policy is refused at once with requestFinished(InvalidRequest).
    quint64 submit(const RequestSpec &request);
    /// The same under a policy of the request's own (a policy per endpoint): its
    /// backoff, limits and classification; the circuit breakers and the retry
    /// budget stay the executor's, shared by every request of the client.
    quint64 submit(const RequestSpec &request, const BackoffPolicy &policy);

    /// An id for a request submitted later with submitAs(); safe to call from any
    /// thread, so that a caller on another thread (ThreadedExecutor) knows the id
    /// before the request reaches the executor's.
    quint64 reserveId() { return m_nextId.fetch_add(1, std::memory_order_relaxed); }
    /// submit() under an id from reserveId(); `policy` null means the executor's.
    void submitAs(quint64 id, const RequestSpec &request, const BackoffPolicy *policy);

    void cancel(quint64 requestId);
    void cancelAll();

    int activeCount() const; ///< logical requests not finished yet
    int inFlightCount() const { return m_inFlight; } ///< attempts on the wire now

    CircuitBreaker::State circuitState(const QString &host) const;
    QStringList hosts() const;
    double budgetTokens() const;
    double budgetCapacity() const;

    /// Monotonic time of the executor's clock, the time base of every record.
    qint64 nowNs() const;
    const Clock &clock() const;

Q_SIGNALS:
    void attemptStarted(quint64 requestId, int attemptIndex);
    void attemptFinished(const RetryLab::Core::AttemptRecord &record);
    /// A retry is planned after `delayMs`; `attemptsLeft` is -1 when only a deadline bounds it.
    void retryScheduled(
        quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft);
    void requestFinished(const RetryLab::Core::RequestResult &result);
    void circuitStateChanged(const QString &host, RetryLab::Core::CircuitBreaker::State state);
    void budgetChanged(double tokens, double capacity);
    /// All submitted requests have finished.
    void idle();

private:
    using Request = ExecutorRequest;
    using RequestPtr = std::shared_ptr<Request>;

    static qint64 timerNs(double ms);
    /// What a request waits for on m_wakeups: its key is the request id and this.
    enum class Wakeup : quint64 { Retry = 0, AttemptTimeout = 1, Deadline = 2, RateLimit = 3 };
    void wakeAfter(Wakeup kind, quint64 requestId, qint64 ns);
    void cancelWakeup(Wakeup kind, quint64 requestId);
    void handleWakeup(quint64 key);

    void enqueue(const RequestPtr &request, bool front);
    void dispatchQueued();
    /// Keeps a queued request back while the rate limit of its host is spent, or
    /// until the adaptive rate limiter has a token for it: true when it waits (or
    /// ended, its deadline coming first), false to start it.
    bool holdBack(const RequestPtr &request);
    bool holdForReset(const RequestPtr &request);
    bool waitForToken(const RequestPtr &request);
    /// Keeps a request back while another attempt fetches the access token it needs.
    bool waitForAccessToken(const RequestPtr &request);
    void resumeAccessTokenWaiters();
    void handleRateLimitReset(quint64 requestId);
    void startAttempt(const RequestPtr &request);
    /// Hedging (BackoffPolicy::hedging): whether the request sends hedged attempts
    /// (only a request the policy may repeat, on its own URL).
    static bool hedges(const Request &request);
    /// The hedged request leaves the queue: its first attempt is queued.
    void startHedging(const RequestPtr &request);
    /// Queues the hedged request's next attempt, paid for by the retry budget
    /// beyond the first; false when the budget refuses it.
    bool sendHedge(const RequestPtr &request);
    /// An attempt of a hedged request ended: the first acceptable answer wins.
    void decideHedge(const RequestPtr &attempt, AttemptRecord &record, const Classification &classification);
    /// Cuts every attempt of the hedged request still running (their records say
    /// `why`) and drops those still queued, before the request itself finishes.
    void endHedging(const RequestPtr &request, const QString &why, AttemptEnd end);
    /// An attempt of a hedged request could not start (the breaker, the deadline).
    void dropHedgeAttempt(const RequestPtr &attempt, RequestOutcome outcome, const QString &reason);
    void handleReplyFinished(quint64 requestId);
    /// A manager's finished(): one connection per manager instead of one per reply.
    void handleManagerFinished(QNetworkReply *reply);
    void handleRetryTimeout(quint64 requestId);
    void handleAttemptTimeout(quint64 requestId);
    void handleDeadline(quint64 requestId);
    void cutAttempt(const RequestPtr &request, AttemptEnd end);
    void concludeAttempt(const RequestPtr &request, AttemptEnd end);
    void decideNext(const RequestPtr &request, AttemptRecord &record, const Classification &classification);
    void finishRequest(const RequestPtr &request, RequestOutcome outcome, QString reason);
    /// Emits idle() when no request is left (the last hedged attempt may outlive its request).
    void noteIdle();
    /// The policy ended the request with `outcome`: moves it to its next fallback endpoint
    /// and returns true, or returns false with the outcome and reason it ends with.
    bool takeFallback(const RequestPtr &request, RequestOutcome &outcome, QString &reason);
    void releaseSlot(Request &request);
    void handleManagerDestroyed(QObject *manager);
    CircuitBreaker &breakerFor(const QString &host);
    void noteBreakerState(const QString &host);
    void watchOpenBreaker(const QString &host);
    void noteBudget();
    RequestPtr find(quint64 requestId) const;

    BackoffPolicy m_policy;
    QString m_policyProblem; ///< first error of validatePolicy(m_policy), checked once per setPolicy()
    std::unique_ptr<Clock> m_ownClock;
    quint64 m_seed = 0x5EEDULL;
    std::unique_ptr<RetryBudget> m_budget;
    /// The client's adaptive rate limiter (the policy's rateLimiter), shared by
    /// every request as the budget is; of kind None it never holds one back.
    std::unique_ptr<AdaptiveRateLimiter> m_limiter;
    /// Every request's backoff sleep, attempt timeout and total deadline, in one
    /// list: they come due in the order of their times, a deadline before a
    /// timeout set after it for the same moment.
    PreciseWakeups *m_wakeups = nullptr;
    QHash<QString, std::shared_ptr<CircuitBreaker>> m_breakers;
    RateLimitHold m_rateLimitHolds;
    QHash<QString, CircuitBreaker::State> m_reportedBreakerStates;
    int m_reportedNotClosed = 0; ///< hosts whose last reported state is not Closed
    QString m_lastBreakerHost; ///< the host breakerFor() was last asked for
    CircuitBreaker *m_lastBreaker = nullptr; ///< its breaker, owned by m_breakers
    QHash<quint64, RequestPtr> m_requests;
    QList<quint64> m_queue;
    /// Requests waiting for an access token another attempt is fetching, in order.
    QList<quint64> m_accessTokenWaiters;
    std::atomic<quint64> m_nextId{1};
    int m_concurrencyLimit = 6;
    int m_inFlight = 0;
    int m_hedgeAttempts = 0; ///< entries of m_requests that are attempts of hedged requests
    /// Attempts waiting for their token of the adaptive rate limiter: each holds a
    /// concurrency slot, so that only as many reserve tokens as can go out, and a
    /// rate that grows back speeds up the attempts that have not reserved yet.
    int m_tokenWaiters = 0;
    bool m_cancellingAll = false; ///< cancelAll() runs: nothing leaves the queue
    /// The attempts on the wire; after m_ownClock and m_requests, which it reads.
    AttemptTransport m_transport;
    QUrl m_lastHostUrl; ///< the URL submitted last, and its hostKey()
    QString m_lastHostKey;
};

} // namespace RetryLab::Core
