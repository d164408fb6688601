#include "core/policy/backoffpolicy.h"

#include "core/policy/policyfields.h"
#include "core/policy/responseconditions.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>

#include <QSet>

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

constexpr std::array<std::pair<RateLimiterKind, const char *>, 2> rateLimiterNames{{
    {RateLimiterKind::None, "none"},
    {RateLimiterKind::AwsAdaptive, "aws-adaptive"},
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

// Every value of a table, in its order.
template<typename Enum, std::size_t N>
QList<Enum> valuesIn(const std::array<std::pair<Enum, const char *>, N> &table)
{
    QList<Enum> all;
    all.reserve(qsizetype(N));
    for (const auto &[v, name] : table)
        all.append(v);
    return all;
}

// A number as a message shows it: whole numbers without a fraction, others to six digits.
QString numberText(double value)
{
    if (value == std::trunc(value) && std::abs(value) < 1e15)
        return QString::number(value, 'f', 0);
    return QString::number(value, 'g', 6);
}

class IssueCollector
{
public:
    void error(PolicyFieldId field, const QString &message) { error(policyFieldName(field), message); }
    void error(const QString &field, const QString &message)
    {
        m_issues.append({PolicyIssue::Severity::Error, field, message});
    }
    void warning(PolicyFieldId field, const QString &message)
    {
        m_issues.append({PolicyIssue::Severity::Warning, policyFieldName(field), message});
    }

    // Checks a number of the field table by its Check; false when it is refused.
    // The editor puts the field's label before the message and the command line
    // its name, so the message names neither.
    bool check(const PolicyField &field, const BackoffPolicy &policy)
    {
        switch (field.check) {
        case PolicyField::Check::Duration:
            return checkDuration(field, field.number(policy));
        case PolicyField::Check::Range:
            return checkRange(field, field.number(policy));
        case PolicyField::Check::None:
        case PolicyField::Check::Special:
            break;
        }
        return true;
    }

    // A duration must be a finite, non-negative number below an absurdity limit.
    bool checkDuration(const PolicyField &field, double value)
    {
        if (!checkFinite(field, value))
            return false;
        if (value < 0.0) {
            error(field.id,
                Tr::tr("cannot be negative (got %1).").arg(DurationText::format(value, DurationText::Style::Exact)));
            return false;
        }
        if (field.minExclusive && value == 0.0) {
            error(field.id, Tr::tr("must be greater than zero."));
            return false;
        }
        if (value > field.max) {
            error(field.id,
                Tr::tr("%1 is beyond the sensible limit of %2.")
                    .arg(DurationText::format(value, DurationText::Style::Exact), DurationText::format(field.max)));
            return false;
        }
        return true;
    }

    // Any other number lies in [min, max] (or (min, max]), told in the unit the editor shows.
    bool checkRange(const PolicyField &field, double value)
    {
        if (!checkFinite(field, value))
            return false;
        if (field.minExclusive ? value > field.min && value <= field.max : value >= field.min && value <= field.max)
            return true;
        const QString unit = field.unitText().isEmpty() ? QString() : QLatin1Char(' ') + field.unitText();
        const auto shown = [&field](double v) { return numberText(v / field.displayScale); };
        const QString got = shown(value) + unit;
        error(field.id,
            field.minExclusive
                ? Tr::tr("must be above %1 and at most %2 (got %3).")
                      .arg(shown(field.min), shown(field.max) + unit, got)
                : Tr::tr("must lie between %1 and %2 (got %3).").arg(shown(field.min), shown(field.max) + unit, got));
        return false;
    }

    QList<PolicyIssue> take() { return std::move(m_issues); }

private:
    bool checkFinite(const PolicyField &field, double value)
    {
        if (std::isnan(value)) {
            error(field.id, Tr::tr("not a number."));
            return false;
        }
        if (std::isinf(value)) {
            error(field.id, Tr::tr("must be finite."));
            return false;
        }
        return true;
    }

    QList<PolicyIssue> m_issues;
};

// The multiplier is at least 1 only where the algorithm multiplies by it.
void checkMultiplier(IssueCollector &c, const PolicyField &field, const BackoffPolicy &p)
{
    if (std::isnan(p.multiplier) || std::isinf(p.multiplier)) {
        c.error(field.id, Tr::tr("the multiplier must be a finite number."));
    } else if (usesMultiplier(p.algorithm) && p.multiplier < field.min) {
        c.error(field.id,
            Tr::tr("a multiplier of %1 is below %2: the delays would shrink instead of growing.")
                .arg(p.multiplier)
                .arg(field.min));
    } else if (p.multiplier > field.max) {
        c.error(field.id,
            Tr::tr("a multiplier of %1 is beyond the sensible limit of %2.").arg(p.multiplier).arg(field.max));
    } else if (usesMultiplier(p.algorithm) && p.multiplier == 1.0) {
        c.warning(
            field.id, Tr::tr("multiplier 1 makes the delay constant; the Constant algorithm says so more plainly."));
    }
}

// Beta keeps a share of the rate: 1 would never slow down, 0 would stop.
void checkBeta(IssueCollector &c, const PolicyField &field, const BackoffPolicy &p)
{
    const double beta = p.rateLimiter.beta;
    if (std::isnan(beta) || std::isinf(beta))
        c.error(field.id, Tr::tr("beta must be a finite number."));
    else if (!(beta > field.min && beta < field.max))
        c.error(field.id,
            Tr::tr("beta must lie strictly between %1 and %2 (got %3): it is the share of the rate kept after a "
                   "throttling answer.")
                .arg(numberText(field.min), numberText(field.max), numberText(beta)));
}

// A hedge needs time between its attempts: with none they all go out at once,
// which is a fan-out that multiplies the load by the attempt count.
void checkHedgingDelay(IssueCollector &c, const PolicyField &field, const BackoffPolicy &p)
{
    const double delay = p.hedging.delayMs;
    if (std::isnan(delay) || std::isinf(delay))
        c.error(field.id, Tr::tr("the hedging delay must be a finite number of milliseconds."));
    else if (!(delay > 0.0))
        c.error(field.id,
            Tr::tr("the hedging delay must be above 0 ms (got %1): with no delay every attempt goes out at once, "
                   "multiplying the load instead of hedging the slow answers.")
                .arg(numberText(delay)));
    else if (delay > field.max)
        c.error(field.id,
            Tr::tr("%1 is beyond the sensible limit of %2.")
                .arg(DurationText::format(delay, DurationText::Style::Exact), DurationText::format(field.max)));
}

// 0 attempts means no limit, which needs a deadline.
void checkAttempts(IssueCollector &c, const PolicyField &field, const BackoffPolicy &p)
{
    if (p.algorithm == BackoffAlgorithm::Immediate && (p.maxAttempts > 2 || p.maxAttempts == 0)) {
        c.warning(field.id,
            Tr::tr("the Immediate algorithm retries once at once, for rare faults: at most 2 attempts are made, "
                   "whatever the attempt limit allows."));
    }
    if (p.maxAttempts < field.min) {
        c.error(field.id, Tr::tr("the number of attempts cannot be negative (got %1).").arg(p.maxAttempts));
    } else if (p.maxAttempts > field.max) {
        c.error(field.id, Tr::tr("%1 attempts are beyond the sensible limit of %2.").arg(p.maxAttempts).arg(field.max));
    } else if (p.maxAttempts == 0 && !(p.deadlineMs > 0.0)) {
        c.error(field.id,
            Tr::tr("a policy needs a maximum number of attempts or a total deadline; with neither it "
                   "would retry forever."));
    }
}

void checkStatuses(IssueCollector &c, const PolicyField &field, const BackoffPolicy &p)
{
    for (int status : p.classification.retryableStatuses) {
        if (status < 100 || status > field.max) {
            c.error(field.id, Tr::tr("%1 is not an HTTP status code.").arg(status));
            break;
        }
        if (status < field.min) {
            c.error(field.id, Tr::tr("status %1 is not an error and cannot be retried.").arg(status));
            break;
        }
    }
}

void checkDelayFactors(IssueCollector &c, const PolicyField &field, const BackoffPolicy &p)
{
    const auto &factors = p.classification.networkDelayFactors;
    for (auto it = factors.cbegin(); it != factors.cend(); ++it) {
        if (!(it.value() >= field.min && it.value() <= field.max)) {
            c.error(field.id,
                Tr::tr("the delay factor for %1 must lie between %2 and %3 (got %4).")
                    .arg(networkFaultClassName(it.key()))
                    .arg(field.min)
                    .arg(field.max)
                    .arg(it.value()));
            break;
        }
    }
}

void checkStatusDelayFactors(IssueCollector &c, const PolicyField &field, const BackoffPolicy &p)
{
    const auto &factors = p.classification.statusDelayFactors;
    for (auto it = factors.cbegin(); it != factors.cend(); ++it) {
        if (it.key() < 100 || it.key() > 599) {
            c.error(field.id, Tr::tr("%1 is not an HTTP status code.").arg(it.key()));
            break;
        }
        if (!(it.value() >= field.min && it.value() <= field.max)) {
            c.error(field.id,
                Tr::tr("the delay factor for HTTP %1 must lie between %2 and %3 (got %4).")
                    .arg(it.key())
                    .arg(field.min)
                    .arg(field.max)
                    .arg(it.value()));
            break;
        }
    }
}

// Each condition must be usable; the field names the one at fault, as the file does:
// "retryOnResponse[2].jsonPointer".
void checkResponseConditions(IssueCollector &c, const PolicyField &field, const BackoffPolicy &p)
{
    const auto &conditions = p.classification.retryOnResponse;
    if (conditions.size() > field.max) {
        c.error(field.id,
            Tr::tr("%1 conditions are more than the %2 a policy may have.").arg(conditions.size()).arg(field.max));
        return;
    }
    for (qsizetype i = 0; i < conditions.size(); ++i) {
        if (const auto problem = ResponseConditions::problemOf(conditions.at(i))) {
            c.error(QStringLiteral("%1[%2].%3").arg(field.name()).arg(i).arg(problem->key), problem->message);
            return;
        }
    }
}

} // namespace

ResponseRetryCondition ResponseRetryCondition::jsonEquals(const QString &pointer, const QJsonValue &value)
{
    ResponseRetryCondition c;
    c.kind = Kind::JsonPointer;
    c.jsonPointer = pointer;
    c.equals = value;
    return c;
}

ResponseRetryCondition ResponseRetryCondition::headerPresent(const QString &name, std::optional<QString> value)
{
    ResponseRetryCondition c;
    c.kind = Kind::Header;
    c.header = name;
    c.headerValue = std::move(value);
    return c;
}

ResponseRetryCondition ResponseRetryCondition::bodyContains(const QString &text)
{
    ResponseRetryCondition c;
    c.kind = Kind::BodyContains;
    c.bodyText = text;
    return c;
}

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
    using Id = PolicyFieldId;

    // Each field by its range in the table, in the table's order.
    QSet<Id> refused;
    for (const PolicyField &field : policyFields()) {
        if (field.checkedWhen && !field.checkedWhen(p))
            continue;
        switch (field.id) {
        case Id::Multiplier:
            checkMultiplier(c, field, p);
            break;
        case Id::MaxAttempts:
            checkAttempts(c, field, p);
            break;
        case Id::LimiterBeta:
            checkBeta(c, field, p);
            break;
        case Id::HedgingDelay:
            checkHedgingDelay(c, field, p);
            break;
        case Id::RetryableStatuses:
            checkStatuses(c, field, p);
            break;
        case Id::NetworkDelayFactors:
            checkDelayFactors(c, field, p);
            break;
        case Id::StatusDelayFactors:
            checkStatusDelayFactors(c, field, p);
            break;
        case Id::RetryOnResponse:
            checkResponseConditions(c, field, p);
            break;
        default:
            Q_ASSERT(field.check != PolicyField::Check::Special);
            if (!c.check(field, p))
                refused.insert(field.id);
            break;
        }
    }

    // Then what lies between fields.
    const bool baseOk = !refused.contains(Id::BaseDelay);
    const bool capOk = !refused.contains(Id::MaxBackoff);
    if (baseOk && capOk && usesMaxBackoff(p.algorithm) && p.maxBackoffMs < p.baseDelayMs) {
        c.error(Id::MaxBackoff,
            Tr::tr("maximum backoff (%1 ms) is below the base delay (%2 ms): every delay would be "
                   "truncated to the cap.")
                .arg(p.maxBackoffMs)
                .arg(p.baseDelayMs));
    }
    if (baseOk && p.baseDelayMs == 0.0 && usesBaseDelay(p.algorithm))
        c.warning(
            Id::BaseDelay, Tr::tr("a base delay of 0 ms retries without waiting; use Immediate if that is meant."));

    if (p.deadlineMs > 0.0 && p.attemptTimeoutMs > p.deadlineMs) {
        c.warning(Id::AttemptTimeout,
            Tr::tr("the per-attempt timeout (%1 ms) is longer than the total deadline (%2 ms); "
                   "the deadline will cut the attempt first.")
                .arg(p.attemptTimeoutMs)
                .arg(p.deadlineMs));
    }
    if (p.classification.retryNonIdempotent) {
        c.warning(Id::RetryNonIdempotent,
            Tr::tr("POST and PATCH will be retried even without an idempotency key: a request "
                   "whose response was lost may be applied twice."));
    }
    const auto &cb = p.circuitBreaker;
    if (cb.enabled && cb.consecutiveFailures == 0 && cb.failureRatio == 0.0) {
        // The whole breaker is at fault, not one of its numbers.
        c.error(policyField(Id::BreakerEnabled).object(),
            Tr::tr("an enabled circuit breaker needs a consecutive-failure or a ratio threshold."));
    }
    return c.take();
}

bool isUsable(const BackoffPolicy &policy)
{
    const auto issues = validatePolicy(policy);
    return std::none_of(issues.cbegin(), issues.cend(), [](const PolicyIssue &i) { return i.isError(); });
}

BackoffPolicy singleAttemptPolicy()
{
    BackoffPolicy p;
    p.name = QStringLiteral("none");
    p.description = Tr::tr("One attempt, never retried.");
    p.maxAttempts = 1;
    p.circuitBreaker = {};
    p.retryBudget = {};
    return p;
}

QString firstPolicyError(const BackoffPolicy &policy)
{
    for (const PolicyIssue &issue : validatePolicy(policy)) {
        // The message names no field (the editor shows it beside the field): say which.
        if (issue.isError())
            return issue.field.isEmpty() ? issue.message : Tr::tr("%1: %2").arg(issue.field, issue.message);
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
    return valuesIn(faultNames);
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
    return valuesIn(intervalJitterNames);
}

QString retryBudgetKindName(RetryBudgetKind kind)
{
    return nameIn(budgetNames, kind);
}

std::optional<RetryBudgetKind> retryBudgetKindFromName(const QString &name)
{
    return valueIn(budgetNames, name);
}

QString rateLimiterKindName(RateLimiterKind kind)
{
    return nameIn(rateLimiterNames, kind);
}

std::optional<RateLimiterKind> rateLimiterKindFromName(const QString &name)
{
    return valueIn(rateLimiterNames, name);
}

QList<RateLimiterKind> allRateLimiterKinds()
{
    return valuesIn(rateLimiterNames);
}

} // namespace RetryLab::Core
