#include "core/policy/backoffpolicy.h"

#include "core/policy/policyfields.h"
#include "core/util/coretr.h"

#include <QCoreApplication>

#include <array>
#include <cmath>
#include <utility>

namespace RetryLab::Core {

namespace {

struct AlgorithmInfo
{
    BackoffAlgorithm algorithm;
    const char *name;
    const char *title;
    const char *formula;
};

constexpr std::array algorithmTable{
    AlgorithmInfo{BackoffAlgorithm::GoogleTruncatedExponential, "google-truncated-exponential",
        QT_TRANSLATE_NOOP("RetryLab::Core", "Google truncated exponential"),
        "min(base * multiplier^n + U[0, jitter], cap)"},
    AlgorithmInfo{BackoffAlgorithm::IamTruncatedExponential, "iam-truncated-exponential",
        QT_TRANSLATE_NOOP("RetryLab::Core", "IAM truncated exponential"),
        "min(base * multiplier^n + U[0, jitter], cap), until the deadline"},
    AlgorithmInfo{BackoffAlgorithm::Exponential, "exponential",
        QT_TRANSLATE_NOOP("RetryLab::Core", "Exponential, no jitter"), "min(cap, base * multiplier^n)"},
    AlgorithmInfo{BackoffAlgorithm::FullJitter, "full-jitter", QT_TRANSLATE_NOOP("RetryLab::Core", "Full jitter"),
        "U[0, min(cap, base * multiplier^n)]"},
    AlgorithmInfo{BackoffAlgorithm::EqualJitter, "equal-jitter", QT_TRANSLATE_NOOP("RetryLab::Core", "Equal jitter"),
        "v/2 + U[0, v/2], v = min(cap, base * multiplier^n)"},
    AlgorithmInfo{BackoffAlgorithm::DecorrelatedJitter, "decorrelated-jitter",
        QT_TRANSLATE_NOOP("RetryLab::Core", "Decorrelated jitter"), "min(cap, U[base, previous * 3])"},
    AlgorithmInfo{BackoffAlgorithm::ProportionalJitter, "proportional-jitter",
        QT_TRANSLATE_NOOP("RetryLab::Core", "Proportional jitter"),
        "min(cap, base * multiplier^n) * U[1 - f, 1 + f], capped"},
    AlgorithmInfo{BackoffAlgorithm::Constant, "constant", QT_TRANSLATE_NOOP("RetryLab::Core", "Constant"), "base"},
    AlgorithmInfo{BackoffAlgorithm::Linear, "linear", QT_TRANSLATE_NOOP("RetryLab::Core", "Linear (incremental)"),
        "min(cap, (n + 1) * base)"},
    AlgorithmInfo{BackoffAlgorithm::Immediate, "immediate", QT_TRANSLATE_NOOP("RetryLab::Core", "Immediate"), "0"},
};

const AlgorithmInfo &infoFor(BackoffAlgorithm algorithm)
{
    for (const auto &info : algorithmTable) {
        if (info.algorithm == algorithm)
            return info;
    }
    return algorithmTable.front();
}

constexpr std::array<std::pair<FaultAction, const char *>, 3> actionNames{{
    {FaultAction::RetryAfterDelay, "retry-after-delay"},
    {FaultAction::RetryImmediately, "retry-immediately"},
    {FaultAction::GiveUp, "give-up"},
}};

constexpr std::array<std::pair<NetworkFaultClass, const char *>, 8> faultNames{{
    {NetworkFaultClass::ConnectionRefused, "connection-refused"},
    {NetworkFaultClass::ConnectionReset, "connection-reset"},
    {NetworkFaultClass::Timeout, "timeout"},
    {NetworkFaultClass::HostNotFound, "host-not-found"},
    {NetworkFaultClass::TlsFailure, "tls-failure"},
    {NetworkFaultClass::BrokenStream, "broken-stream"},
    {NetworkFaultClass::ProtocolFailure, "protocol-failure"},
    {NetworkFaultClass::Other, "other"},
}};

constexpr std::array<std::pair<RetryBudgetKind, const char *>, 3> budgetNames{{
    {RetryBudgetKind::None, "none"},
    {RetryBudgetKind::AwsStandard, "aws-standard"},
    {RetryBudgetKind::GrpcThrottling, "grpc-throttling"},
}};

constexpr std::array<std::pair<IntervalJitter, const char *>, 4> intervalJitterNames{{
    {IntervalJitter::None, "none"},
    {IntervalJitter::Full, "full"},
    {IntervalJitter::Equal, "equal"},
    {IntervalJitter::Proportional, "proportional"},
}};

template<typename Enum, std::size_t N>
QString nameIn(const std::array<std::pair<Enum, const char *>, N> &table, Enum value)
{
    for (const auto &[v, name] : table) {
        if (v == value)
            return QString::fromLatin1(name);
    }
    return {};
}

template<typename Enum, std::size_t N>
std::optional<Enum> valueIn(const std::array<std::pair<Enum, const char *>, N> &table, const QString &name)
{
    for (const auto &[v, n] : table) {
        if (name == QLatin1String(n))
            return v;
    }
    return std::nullopt;
}

// A duration as a person reads it: "24 h", "5 min", "1.5 s", "31.7 years".
QString readableDuration(double ms)
{
    struct Unit
    {
        double ms;
        const char *name;
    };
    static constexpr std::array<Unit, 6> units{{{365.25 * 86'400'000.0, QT_TRANSLATE_NOOP("RetryLab", "years")},
        {2.0 * 86'400'000.0, QT_TRANSLATE_NOOP("RetryLab", "days")}, {3'600'000.0, QT_TRANSLATE_NOOP("RetryLab", "h")},
        {60'000.0, QT_TRANSLATE_NOOP("RetryLab", "min")}, {1000.0, QT_TRANSLATE_NOOP("RetryLab", "s")},
        {0.0, QT_TRANSLATE_NOOP("RetryLab", "ms")}}};
    const double magnitude = std::abs(ms);
    for (const Unit &unit : units) {
        if (magnitude < unit.ms && unit.ms > 0.0)
            continue;
        // Hours are counted up to two days: "24 h" is the limit people know.
        const double divisor = unit.ms > 0.0 ? (unit.ms == 2.0 * 86'400'000.0 ? 86'400'000.0 : unit.ms) : 1.0;
        const double value = ms / divisor;
        const QString number
            = std::abs(value) >= 100.0 ? QString::number(value, 'f', 0) : QString::number(value, 'g', 3);
        return QStringLiteral("%1 %2").arg(number, Tr::tr(unit.name));
    }
    return {};
}

// The number typed, and what it means when the unit alone does not say it.
QString typedDuration(double ms)
{
    const QString typed = Tr::tr("%1 ms").arg(ms, 0, 'g', 15);
    const QString readable = readableDuration(ms);
    return ms >= -1000.0 && ms < 1000.0 ? typed : Tr::tr("%1 (%2)").arg(typed, readable);
}

class IssueCollector
{
public:
    void error(const char *field, const QString &message)
    {
        m_issues.append({PolicyIssue::Severity::Error, QString::fromLatin1(field), message});
    }
    void warning(const char *field, const QString &message)
    {
        m_issues.append({PolicyIssue::Severity::Warning, QString::fromLatin1(field), message});
    }

    // A duration must be a finite, non-negative number below an absurdity limit.
    // The editor puts the field's label before the message and the command line
    // its name, so the message names neither.
    bool checkDuration(const char *field, double value, double limit, bool allowZero = true)
    {
        if (std::isnan(value)) {
            error(field, Tr::tr("not a number."));
            return false;
        }
        if (std::isinf(value)) {
            error(field, Tr::tr("must be finite."));
            return false;
        }
        if (value < 0.0) {
            error(field, Tr::tr("cannot be negative (got %1).").arg(typedDuration(value)));
            return false;
        }
        if (!allowZero && value == 0.0) {
            error(field, Tr::tr("must be greater than zero."));
            return false;
        }
        if (value > limit) {
            error(field,
                Tr::tr("%1 is beyond the sensible limit of %2.").arg(typedDuration(value), readableDuration(limit)));
            return false;
        }
        return true;
    }

    QList<PolicyIssue> take() { return std::move(m_issues); }

private:
    QList<PolicyIssue> m_issues;
};

} // namespace

QSet<int> ClassificationRules::defaultRetryableStatuses()
{
    QSet<int> statuses{429};
    for (int code = 500; code <= 599; ++code)
        statuses.insert(code);
    return statuses;
}

QMap<NetworkFaultClass, FaultAction> ClassificationRules::defaultNetworkActions()
{
    return {
        {NetworkFaultClass::ConnectionRefused, FaultAction::RetryAfterDelay},
        {NetworkFaultClass::ConnectionReset, FaultAction::RetryAfterDelay},
        {NetworkFaultClass::Timeout, FaultAction::RetryAfterDelay},
        {NetworkFaultClass::HostNotFound, FaultAction::GiveUp},
        {NetworkFaultClass::TlsFailure, FaultAction::GiveUp},
        {NetworkFaultClass::BrokenStream, FaultAction::RetryAfterDelay},
        {NetworkFaultClass::ProtocolFailure, FaultAction::RetryImmediately},
        {NetworkFaultClass::Other, FaultAction::GiveUp},
    };
}

QList<PolicyIssue> validatePolicy(const BackoffPolicy &p)
{
    IssueCollector c;
    using namespace PolicyLimits;

    const bool baseOk = c.checkDuration("baseDelayMs", p.baseDelayMs, maxDelayMs);
    const bool capOk = c.checkDuration("maxBackoffMs", p.maxBackoffMs, maxDelayMs);
    c.checkDuration("jitterMs", p.jitterMs, maxDelayMs);
    c.checkDuration("deadlineMs", p.deadlineMs, maxDeadlineMs);
    c.checkDuration("attemptTimeoutMs", p.attemptTimeoutMs, maxDeadlineMs);

    if (std::isnan(p.multiplier) || std::isinf(p.multiplier)) {
        c.error("multiplier", Tr::tr("the multiplier must be a finite number."));
    } else if (usesMultiplier(p.algorithm) && p.multiplier < 1.0) {
        c.error("multiplier",
            Tr::tr("a multiplier of %1 is below 1: the delays would shrink instead of growing.").arg(p.multiplier));
    } else if (p.multiplier > maxMultiplier) {
        c.error("multiplier",
            Tr::tr("a multiplier of %1 is beyond the sensible limit of %2.").arg(p.multiplier).arg(maxMultiplier));
    } else if (usesMultiplier(p.algorithm) && p.multiplier == 1.0) {
        c.warning("multiplier",
            Tr::tr("multiplier 1 makes the delay constant; the Constant algorithm says so more plainly."));
    }

    if (std::isnan(p.jitterFraction) || p.jitterFraction < 0.0 || p.jitterFraction > 1.0)
        c.error("jitterFraction",
            Tr::tr("the jitter must lie between 0 and 100 % (got %1 %).").arg(p.jitterFraction * 100.0, 0, 'g', 6));
    for (auto it = p.classification.networkDelayFactors.cbegin(); it != p.classification.networkDelayFactors.cend();
         ++it) {
        if (!(it.value() >= 0.0 && it.value() <= maxDelayFactor)) {
            c.error("networkDelayFactors",
                Tr::tr("the delay factor for %1 must lie between 0 and %2 (got %3).")
                    .arg(networkFaultClassName(it.key()))
                    .arg(maxDelayFactor)
                    .arg(it.value()));
            break;
        }
    }

    if (baseOk && capOk && usesMaxBackoff(p.algorithm) && p.maxBackoffMs < p.baseDelayMs) {
        c.error("maxBackoffMs",
            Tr::tr("maximum backoff (%1 ms) is below the base delay (%2 ms): every delay would be "
                   "truncated to the cap.")
                .arg(p.maxBackoffMs)
                .arg(p.baseDelayMs));
    }
    if (baseOk && p.baseDelayMs == 0.0 && usesBaseDelay(p.algorithm))
        c.warning(
            "baseDelayMs", Tr::tr("a base delay of 0 ms retries without waiting; use Immediate if that is meant."));

    if (p.algorithm == BackoffAlgorithm::Immediate && (p.maxAttempts > 2 || p.maxAttempts == 0)) {
        c.warning("maxAttempts",
            Tr::tr("the Immediate algorithm retries once at once, for rare faults: at most 2 attempts are made, "
                   "whatever the attempt limit allows."));
    }
    if (p.maxAttempts < 0) {
        c.error("maxAttempts", Tr::tr("the number of attempts cannot be negative (got %1).").arg(p.maxAttempts));
    } else if (p.maxAttempts > maxAttempts) {
        c.error("maxAttempts",
            Tr::tr("%1 attempts are beyond the sensible limit of %2.").arg(p.maxAttempts).arg(maxAttempts));
    } else if (p.maxAttempts == 0 && !(p.deadlineMs > 0.0)) {
        c.error("maxAttempts",
            Tr::tr("a policy needs a maximum number of attempts or a total deadline; with neither it "
                   "would retry forever."));
    }

    if (p.deadlineMs > 0.0 && p.attemptTimeoutMs > p.deadlineMs) {
        c.warning("attemptTimeoutMs",
            Tr::tr("the per-attempt timeout (%1 ms) is longer than the total deadline (%2 ms); "
                   "the deadline will cut the attempt first.")
                .arg(p.attemptTimeoutMs)
                .arg(p.deadlineMs));
    }

    const auto &cl = p.classification;
    if (std::isnan(cl.maxRetryAfterMs) || cl.maxRetryAfterMs < 0.0 || cl.maxRetryAfterMs > maxDelayMs)
        c.error("maxRetryAfterMs",
            Tr::tr("the longest Retry-After honoured must lie between 0 ms and %1.").arg(readableDuration(maxDelayMs)));
    for (int status : cl.retryableStatuses) {
        if (status < 100 || status > 599) {
            c.error("retryableStatuses", Tr::tr("%1 is not an HTTP status code.").arg(status));
            break;
        }
        if (status < 400) {
            c.error("retryableStatuses", Tr::tr("status %1 is not an error and cannot be retried.").arg(status));
            break;
        }
    }
    if (cl.retryNonIdempotent) {
        c.warning("retryNonIdempotent",
            Tr::tr("POST and PATCH will be retried even without an idempotency key: a request "
                   "whose response was lost may be applied twice."));
    }

    const auto &cb = p.circuitBreaker;
    if (cb.enabled) {
        if (cb.consecutiveFailures < 0 || cb.consecutiveFailures > 100'000)
            c.error(
                "circuitBreaker.consecutiveFailures", Tr::tr("consecutive failures must lie between 0 and 100000."));
        if (std::isnan(cb.failureRatio) || cb.failureRatio < 0.0 || cb.failureRatio > 1.0)
            c.error("circuitBreaker.failureRatio", Tr::tr("failure ratio must lie between 0 and 1."));
        if (cb.window < 1 || cb.window > 100'000)
            c.error("circuitBreaker.window", Tr::tr("window must lie between 1 and 100000 outcomes."));
        if (cb.consecutiveFailures == 0 && cb.failureRatio == 0.0)
            c.error("circuitBreaker",
                Tr::tr("an enabled circuit breaker needs a consecutive-failure or a ratio threshold."));
        c.checkDuration("circuitBreaker.openMs", cb.openMs, maxDelayMs, false);
        if (cb.halfOpenTrials < 1 || cb.halfOpenTrials > 1000)
            c.error("circuitBreaker.halfOpenTrials", Tr::tr("half-open trials must lie between 1 and 1000."));
    }

    const auto &rb = p.retryBudget;
    if (rb.kind == RetryBudgetKind::AwsStandard) {
        const std::array<std::pair<const char *, double>, 4> values{{{"retryBudget.awsCapacity", rb.awsCapacity},
            {"retryBudget.awsRetryCost", rb.awsRetryCost}, {"retryBudget.awsTimeoutCost", rb.awsTimeoutCost},
            {"retryBudget.awsSuccessRefund", rb.awsSuccessRefund}}};
        for (const auto &[field, value] : values) {
            if (!std::isfinite(value) || value < 0.0 || value > 1e9)
                c.error(field, Tr::tr("%1 must be a finite number between 0 and 1e9.").arg(QLatin1String(field)));
        }
    } else if (rb.kind == RetryBudgetKind::GrpcThrottling) {
        if (!std::isfinite(rb.grpcMaxTokens) || rb.grpcMaxTokens <= 0.0 || rb.grpcMaxTokens > 1000.0)
            c.error("retryBudget.grpcMaxTokens", Tr::tr("maxTokens must lie in (0, 1000], as in gRPC."));
        if (!std::isfinite(rb.grpcTokenRatio) || rb.grpcTokenRatio <= 0.0 || rb.grpcTokenRatio > 1000.0)
            c.error("retryBudget.grpcTokenRatio", Tr::tr("tokenRatio must be a positive number."));
    }

    return c.take();
}

bool isUsable(const BackoffPolicy &policy)
{
    const auto issues = validatePolicy(policy);
    return std::none_of(issues.cbegin(), issues.cend(), [](const PolicyIssue &i) { return i.isError(); });
}

QString firstPolicyError(const BackoffPolicy &policy)
{
    for (const PolicyIssue &issue : validatePolicy(policy)) {
        if (issue.isError())
            return issue.message;
    }
    return {};
}

QString describeIssues(const QList<PolicyIssue> &issues)
{
    QStringList lines;
    for (const auto &issue : issues) {
        lines.append((issue.isError() ? Tr::tr("Error in %1: %2") : Tr::tr("Warning for %1: %2"))
                         .arg(issue.field, issue.message));
    }
    return lines.join(QLatin1Char('\n'));
}

QString algorithmName(BackoffAlgorithm algorithm)
{
    return QString::fromLatin1(infoFor(algorithm).name);
}

QString algorithmTitle(BackoffAlgorithm algorithm)
{
    return Tr::tr(infoFor(algorithm).title);
}

QString algorithmFormula(BackoffAlgorithm algorithm)
{
    return QString::fromLatin1(infoFor(algorithm).formula);
}

std::optional<BackoffAlgorithm> algorithmFromName(const QString &name)
{
    for (const auto &info : algorithmTable) {
        if (name == QLatin1String(info.name))
            return info.algorithm;
    }
    return std::nullopt;
}

QList<BackoffAlgorithm> allAlgorithms()
{
    QList<BackoffAlgorithm> all;
    for (const auto &info : algorithmTable)
        all.append(info.algorithm);
    return all;
}

QString faultActionName(FaultAction action)
{
    return nameIn(actionNames, action);
}

std::optional<FaultAction> faultActionFromName(const QString &name)
{
    return valueIn(actionNames, name);
}

QString networkFaultClassName(NetworkFaultClass fault)
{
    return nameIn(faultNames, fault);
}

std::optional<NetworkFaultClass> networkFaultClassFromName(const QString &name)
{
    return valueIn(faultNames, name);
}

QList<NetworkFaultClass> allNetworkFaultClasses()
{
    QList<NetworkFaultClass> all;
    for (const auto &[fault, name] : faultNames)
        all.append(fault);
    return all;
}

QString intervalJitterName(IntervalJitter jitter)
{
    return nameIn(intervalJitterNames, jitter);
}

QString intervalJitterTitle(IntervalJitter jitter)
{
    switch (jitter) {
    case IntervalJitter::None:
        return Tr::tr("None: the same interval for every client");
    case IntervalJitter::Full:
        return Tr::tr("Full: U[0, interval]");
    case IntervalJitter::Equal:
        return Tr::tr("Equal: interval/2 + U[0, interval/2]");
    case IntervalJitter::Proportional:
        return Tr::tr("Proportional: interval \u00d7 U[1 - f, 1 + f]");
    }
    return {};
}

std::optional<IntervalJitter> intervalJitterFromName(const QString &name)
{
    return valueIn(intervalJitterNames, name);
}

QList<IntervalJitter> allIntervalJitters()
{
    QList<IntervalJitter> all;
    for (const auto &[jitter, name] : intervalJitterNames)
        all.append(jitter);
    return all;
}

QString retryBudgetKindName(RetryBudgetKind kind)
{
    return nameIn(budgetNames, kind);
}

std::optional<RetryBudgetKind> retryBudgetKindFromName(const QString &name)
{
    return valueIn(budgetNames, name);
}

} // namespace RetryLab::Core
