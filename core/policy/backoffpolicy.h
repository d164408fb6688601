#pragma once

#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// Every delay formula of the README's "Backoff algorithms". The numeric values are stable: they
/// are never written to files (names are), but tests and tables rely on order.
enum class BackoffAlgorithm {
    GoogleTruncatedExponential, ///< min(base*mult^n + U[0, jitter], cap), Memorystore / Cloud Storage
    IamTruncatedExponential, ///< the same with U[0, 1 s] and a deadline, IAM
    Exponential, ///< min(cap, base*mult^n), no jitter
    FullJitter, ///< U[0, min(cap, base*mult^n)]
    EqualJitter, ///< v/2 + U[0, v/2]
    DecorrelatedJitter, ///< min(cap, U[base, previous*3])
    ProportionalJitter, ///< min(cap, base*mult^n) * U[1-f, 1+f], capped
    Constant, ///< base
    Linear, ///< (n+1)*base, capped
    Immediate, ///< 0: retry at once (Azure "retry immediately")
};

/// How the constant and linear algorithms randomise their interval (Azure:
/// randomise constant and linear intervals too, so that clients do not retry
/// in step). The exponential family has jitter of its own.
enum class IntervalJitter {
    None, ///< the interval as it is
    Full, ///< U[0, v]
    Equal, ///< v/2 + U[0, v/2]
    Proportional, ///< v * U[1-f, 1+f] with jitterFraction f, capped
};

/// What the classifier does with one kind of fault.
enum class FaultAction {
    RetryAfterDelay,
    RetryImmediately,
    GiveUp,
};

/// Network-level fault classes derived from QNetworkReply::NetworkError.
enum class NetworkFaultClass {
    ConnectionRefused,
    ConnectionReset, ///< reset by peer or remote host closed the connection
    Timeout,
    HostNotFound,
    TlsFailure,
    BrokenStream, ///< the body ended before its announced length
    ProtocolFailure, ///< bytes that are not HTTP
    Other,
};

/// A response the policy retries although its status says success: many APIs
/// answer 200 while the work is pending ({"status": "PENDING"}) or tell a
/// transient error in the body or a header ({"error": {"retryable": true}}).
struct ResponseRetryCondition
{
    enum class Kind {
        JsonPointer, ///< the body is JSON and the value at `jsonPointer` equals `equals`
        Header, ///< the response carries `header`, with `headerValue` when one is given
        BodyContains, ///< the body contains `bodyText`
    };
    Kind kind = Kind::JsonPointer;
    /// JsonPointer: an RFC 6901 pointer ("/status") and the JSON value it must equal.
    QString jsonPointer;
    QJsonValue equals;
    /// Header: the header's name (compared case-insensitively) and, when set, the
    /// value it must have (trimmed, compared exactly); unset: present is enough.
    QString header;
    std::optional<QString> headerValue;
    /// BodyContains: text the body contains (as UTF-8, case-sensitive).
    QString bodyText;

    static ResponseRetryCondition jsonEquals(const QString &pointer, const QJsonValue &value);
    static ResponseRetryCondition headerPresent(const QString &name, std::optional<QString> value = std::nullopt);
    static ResponseRetryCondition bodyContains(const QString &text);

    friend bool operator==(const ResponseRetryCondition &, const ResponseRetryCondition &) = default;
};

/// Which requests may be retried, and how each fault is treated.
struct ClassificationRules
{
    /// HTTP statuses retried after a delay. Defaults: 5xx and 429 (Memorystore,
    /// Cloud Storage). 404 is added by the IAM preset's option.
    QSet<int> retryableStatuses = defaultRetryableStatuses();
    /// 409 with status ABORTED restarts a whole read-modify-write sequence.
    bool retryConflictAborted = true;
    /// Retry POST/PATCH even without an idempotency mark (dangerous: say why).
    bool retryNonIdempotent = false;
    /// Cloud Storage's rule: PUT and DELETE are only conditionally idempotent (an
    /// overwrite or a delete may race another writer's). With this, they are
    /// retried only with a precondition (ifGenerationMatch, If-Match, ...), with
    /// an Idempotency-Key, or when the user marks them safe.
    bool putDeleteNeedPrecondition = false;
    /// Honour Retry-After on 429/503 and friends.
    bool honourRetryAfter = true;
    /// Wait until a rate limit's reset (X-RateLimit-Reset, RateLimit's t=) before
    /// retrying an answer without Retry-After whose quota is spent, and hold back
    /// the attempts to a host whose answer said none of its quota is left.
    bool honourRateLimitReset = false;
    /// Largest Retry-After (or rate-limit reset) accepted; larger values are
    /// clamped (and the reason says so).
    double maxRetryAfterMs = 60'000.0;
    /// How each network fault class is treated.
    QMap<NetworkFaultClass, FaultAction> networkActions = defaultNetworkActions();
    /// The backoff delay after a network fault of a class, times this factor
    /// (0 to 10; absent: 1). A reset may wait less than a 503, for example.
    QMap<NetworkFaultClass, double> networkDelayFactors;
    /// The factor for a fault class (1 when none is set).
    double delayFactor(NetworkFaultClass fault) const { return networkDelayFactors.value(fault, 1.0); }
    /// The backoff delay after an HTTP status, times this factor (0 to 10;
    /// absent: 1): a 429 may wait longer than a 503, as the Retry pattern asks
    /// the delay to fit the kind of fault.
    QMap<int, double> statusDelayFactors;
    /// The factor for a status (1 when none is set).
    double statusDelayFactor(int status) const { return statusDelayFactors.value(status, 1.0); }
    /// Answers that are successes by their status but retried all the same,
    /// the first that matches giving the reason (at most PolicyLimits::maxResponseConditions).
    QList<ResponseRetryCondition> retryOnResponse;

    static QSet<int> defaultRetryableStatuses();
    static QMap<NetworkFaultClass, FaultAction> defaultNetworkActions();

    friend bool operator==(const ClassificationRules &, const ClassificationRules &) = default;
};

/// Per-host circuit breaker settings.
struct CircuitBreakerSettings
{
    bool enabled = false;
    /// Opens after this many consecutive failures (0 disables the rule).
    int consecutiveFailures = 5;
    /// Opens when the failure ratio over the last `window` outcomes reaches this (0 disables).
    double failureRatio = 0.0;
    int window = 20;
    /// How long the breaker stays open before letting trial requests through.
    double openMs = 10'000.0;
    /// Trial requests allowed while half-open.
    int halfOpenTrials = 1;

    friend bool operator==(const CircuitBreakerSettings &, const CircuitBreakerSettings &) = default;
};

enum class RetryBudgetKind {
    None,
    AwsStandard, ///< AWS SDK standard mode retry quota
    GrpcThrottling, ///< gRPC retryThrottling: maxTokens, tokenRatio
};

struct RetryBudgetSettings
{
    RetryBudgetKind kind = RetryBudgetKind::None;
    // AWS standard mode: capacity 500, a retry costs 5, a timeout retry 10, a success refunds 1.
    double awsCapacity = 500.0;
    double awsRetryCost = 5.0;
    double awsTimeoutCost = 10.0;
    double awsSuccessRefund = 1.0;
    // gRPC throttling: failures cost 1, successes add tokenRatio; no retries at or below half.
    double grpcMaxTokens = 10.0;
    double grpcTokenRatio = 0.1;

    friend bool operator==(const RetryBudgetSettings &, const RetryBudgetSettings &) = default;
};

/// A client-side limit on the rate of attempts, which adapts to the server's
/// throttling answers (AdaptiveRateLimiter).
enum class RateLimiterKind {
    None,
    AwsAdaptive, ///< the AWS SDKs' adaptive retry mode: a token bucket whose rate follows a CUBIC curve
};

struct RateLimiterSettings
{
    RateLimiterKind kind = RateLimiterKind::None;
    /// The share of the measured rate kept after a throttling answer (botocore: 0.7).
    double beta = 0.7;
    /// The CUBIC curve's scale constant C, in requests/s per s³ (botocore: 0.4).
    double scale = 0.4;
    /// The bucket never fills slower than this, in requests/s (botocore: 0.5).
    double minRate = 0.5;

    friend bool operator==(const RateLimiterSettings &, const RateLimiterSettings &) = default;
};

/// Hedging (gRPC's hedgingPolicy, Polly v8's hedging strategy): a further
/// attempt goes out while the earlier ones are still in flight, and the first
/// acceptable answer wins; the others are cancelled. A hedging policy sends its
/// attempts on the hedging delay instead of backing off: its delay formula is
/// not used. An answer the classification would retry (gRPC's non-fatal status
/// codes) sends the next attempt at once; any other answer ends the request.
struct HedgingSettings
{
    bool enabled = false;
    /// Attempts in all, the first included (gRPC maxAttempts, Polly's MaxHedgedAttempts + 1).
    int maxAttempts = 3;
    /// From one attempt's start to the next one's (gRPC hedgingDelay, Polly's Delay).
    double delayMs = 100.0;

    friend bool operator==(const HedgingSettings &, const HedgingSettings &) = default;
};

/// A complete retry policy: a plain value, cheap to copy, compared by value.
/// Times are in milliseconds; 0 means "not set" for the deadline, the attempt
/// timeout and the attempt limit (but never all limits at once: see validate()).
struct BackoffPolicy
{
    QString name = QStringLiteral("Custom");
    QString description;
    QString source; ///< where the numbers come from

    BackoffAlgorithm algorithm = BackoffAlgorithm::GoogleTruncatedExponential;
    double baseDelayMs = 1000.0;
    double multiplier = 2.0;
    double maxBackoffMs = 32'000.0;
    /// Upper bound of the additive random part (Google, IAM): U[0, jitterMs].
    double jitterMs = 1000.0;
    /// Proportional jitter fraction f: delay * U[1-f, 1+f].
    double jitterFraction = 0.2;
    /// Jitter of the constant and linear intervals.
    IntervalJitter intervalJitter = IntervalJitter::None;

    /// Attempts in total, the first included (0 = no limit, then a deadline is required).
    int maxAttempts = 5;
    /// Total deadline from the first attempt's start (0 = none).
    double deadlineMs = 0.0;
    /// Per-attempt timeout (0 = none).
    double attemptTimeoutMs = 10'000.0;

    ClassificationRules classification;
    CircuitBreakerSettings circuitBreaker;
    RetryBudgetSettings retryBudget;
    RateLimiterSettings rateLimiter;
    HedgingSettings hedging;

    friend bool operator==(const BackoffPolicy &, const BackoffPolicy &) = default;
};

/// One finding of BackoffPolicy validation. Errors make the policy unusable;
/// warnings explain a value that is allowed but probably not meant.
struct PolicyIssue
{
    enum class Severity { Warning, Error };
    Severity severity = Severity::Error;
    QString field; ///< the JSON / form field name, e.g. "maxBackoffMs"
    QString message;

    bool isError() const { return severity == Severity::Error; }
};

/// Limits beyond which a value is refused as absurd rather than used.
namespace PolicyLimits {
inline constexpr double maxDelayMs = 24.0 * 3600.0 * 1000.0; ///< one day
inline constexpr double maxDeadlineMs = 7.0 * 24.0 * 3600.0 * 1000.0; ///< one week
inline constexpr double maxMultiplier = 100.0;
inline constexpr int maxAttempts = 1000; ///< more is a retry storm, and a run of hours
inline constexpr double maxDelayFactor = 10.0;
inline constexpr int maxResponseConditions = 32; ///< ClassificationRules::retryOnResponse
inline constexpr int maxHedgedAttempts = 10; ///< Polly's bound; gRPC takes at most 5
} // namespace PolicyLimits

/// Checks every field; an empty list means the policy is sound. Which fields an
/// algorithm reads at all is core/policy/policyfields.h's rule.
QList<PolicyIssue> validatePolicy(const BackoffPolicy &policy);
/// True when validatePolicy() reports no error.
bool isUsable(const BackoffPolicy &policy);
/// The first error validatePolicy() reports, after the field it is about
/// ("hedging.delayMs: ..."); empty for a usable policy.
QString firstPolicyError(const BackoffPolicy &policy);

/// The policy "none": one attempt, never retried. A monitor's "policy": "none",
/// and a collection run's requests without a policy of their own, as newman sends them.
BackoffPolicy singleAttemptPolicy();
/// Joins the errors (and warnings) into one readable paragraph.
QString describeIssues(const QList<PolicyIssue> &issues);

QString algorithmName(BackoffAlgorithm algorithm); ///< stable identifier, e.g. "full-jitter"
QString algorithmTitle(BackoffAlgorithm algorithm); ///< human title
QString algorithmFormula(BackoffAlgorithm algorithm); ///< the formula as text
std::optional<BackoffAlgorithm> algorithmFromName(const QString &name);
QList<BackoffAlgorithm> allAlgorithms();

QString faultActionName(FaultAction action);
std::optional<FaultAction> faultActionFromName(const QString &name);
QString networkFaultClassName(NetworkFaultClass fault);
std::optional<NetworkFaultClass> networkFaultClassFromName(const QString &name);
QList<NetworkFaultClass> allNetworkFaultClasses();

QString intervalJitterName(IntervalJitter jitter); ///< "none", "full", "equal", "proportional"
QString intervalJitterTitle(IntervalJitter jitter);
std::optional<IntervalJitter> intervalJitterFromName(const QString &name);
QList<IntervalJitter> allIntervalJitters();

QString retryBudgetKindName(RetryBudgetKind kind);
std::optional<RetryBudgetKind> retryBudgetKindFromName(const QString &name);

QString rateLimiterKindName(RateLimiterKind kind); ///< "none", "aws-adaptive"
std::optional<RateLimiterKind> rateLimiterKindFromName(const QString &name);
QList<RateLimiterKind> allRateLimiterKinds();

} // namespace RetryLab::Core
