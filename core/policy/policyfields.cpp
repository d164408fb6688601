#include "core/policy/policyfields.h"

#include "core/util/coretr.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace RetryLab::Core {

namespace {

#define RL_TR(text) QT_TRANSLATE_NOOP("RetryLab::Core", text)

using F = PolicyField;
using Id = PolicyFieldId;
using S = PolicyField::Section;
using T = PolicyField::Type;
using U = PolicyField::Unit;
using C = PolicyField::Check;

void assign(double &target, double value)
{
    target = value;
}

// Beyond what an int holds, the field keeps the nearest int and validation
// names the value as too large.
void assign(int &target, double value)
{
    if (std::isnan(value)) {
        target = 0;
        return;
    }
    constexpr double lowest = std::numeric_limits<int>::min();
    constexpr double highest = std::numeric_limits<int>::max();
    target = static_cast<int>(std::llround(std::clamp(value, lowest, highest)));
}

// The accessors of a member, or of a member of a member: (policy .* ... .* members).
// clang-format off
template<auto... Members>
constexpr F::Access numberAt()
{
    return {.number = [](const BackoffPolicy &p) { return static_cast<double>((p .* ... .* Members)); },
        .setNumber = [](BackoffPolicy &p, double v) { assign((p .* ... .* Members), v); }};
}

template<auto... Members>
constexpr F::Access flagAt()
{
    return {.flag = [](const BackoffPolicy &p) { return (p .* ... .* Members); },
        .setFlag = [](BackoffPolicy &p, bool v) { (p .* ... .* Members) = v; }};
}

template<auto... Members>
constexpr F::Access textAt()
{
    return {.text = [](const BackoffPolicy &p) { return (p .* ... .* Members); },
        .setText = [](BackoffPolicy &p, const QString &v) { (p .* ... .* Members) = v; }};
}
// clang-format on

bool breakerOn(const BackoffPolicy &p)
{
    return p.circuitBreaker.enabled;
}

bool awsBudget(const BackoffPolicy &p)
{
    return p.retryBudget.kind == RetryBudgetKind::AwsStandard;
}

bool grpcBudget(const BackoffPolicy &p)
{
    return p.retryBudget.kind == RetryBudgetKind::GrpcThrottling;
}

bool adaptiveLimiter(const BackoffPolicy &p)
{
    return p.rateLimiter.kind == RateLimiterKind::AwsAdaptive;
}

bool hedgingOn(const BackoffPolicy &p)
{
    return p.hedging.enabled;
}

using P = BackoffPolicy;
using CR = ClassificationRules;
using CB = CircuitBreakerSettings;
using RB = RetryBudgetSettings;
using RL = RateLimiterSettings;
using HS = HedgingSettings;
using namespace PolicyLimits;

// The labels and help are the policy editor's; the ranges validatePolicy()'s.
// clang-format off
QList<PolicyField> makeFieldTable()
{
    return {
        {.id = Id::Name, .section = S::Details, .type = T::Text, .key = "name", .label = RL_TR("&Name"),
            .help = RL_TR("The name shown in the preset list and written into exported files."),
            .access = textAt<&P::name>()},
        {.id = Id::Description, .section = S::Details, .type = T::Text, .key = "description",
            .label = RL_TR("&Description"), .help = RL_TR("What the policy is for and what its numbers mean."),
            .access = textAt<&P::description>()},
        {.id = Id::Source, .section = S::Details, .type = T::Text, .key = "source", .label = RL_TR("&Source"),
            .help = RL_TR("Where the numbers come from."), .access = textAt<&P::source>()},

        {.id = Id::Algorithm, .section = S::Delay, .type = T::Choice, .key = "algorithm", .label = RL_TR("&Algorithm"),
            .help = RL_TR("How the delay before each retry is computed. n is the retry index: 0 before the first "
                          "retry.")},
        {.id = Id::BaseDelay, .section = S::Delay, .type = T::Number, .key = "baseDelayMs",
            .label = RL_TR("&Base delay"),
            .help = RL_TR("The first delay: \"base\" in the formula. The Google seeds start at 2^0 s = 1 s and double "
                          "it for every retry."),
            .unit = U::Milliseconds, .check = C::Duration, .max = maxDelayMs, .delayField = DelayField::BaseDelay,
            .option = "base-ms", .access = numberAt<&P::baseDelayMs>()},
        {.id = Id::Multiplier, .section = S::Delay, .type = T::Number, .key = "multiplier",
            .label = RL_TR("&Multiplier"),
            .help = RL_TR("Growth factor per retry: \"multiplier\" in the formula. The seeds double the delay (2^n), "
                          "so 2."),
            .unit = U::Factor, .check = C::Special, .min = 1.0, .max = maxMultiplier,
            .delayField = DelayField::Multiplier, .option = "multiplier", .access = numberAt<&P::multiplier>()},
        {.id = Id::MaxBackoff, .section = S::Delay, .type = T::Number, .key = "maxBackoffMs",
            .label = RL_TR("Maximum &backoff (cap)"),
            .help = RL_TR("maximum_backoff: no delay exceeds it, jitter included. The seeds say it is typically 32 "
                          "or 64 s; once it is reached the client keeps retrying at that interval, without growing "
                          "it, until the retry limit."),
            .unit = U::Milliseconds, .displayScale = 1000.0, .check = C::Duration, .max = maxDelayMs,
            .delayField = DelayField::MaxBackoff, .option = "cap-ms", .access = numberAt<&P::maxBackoffMs>()},
        {.id = Id::Jitter, .section = S::Delay, .type = T::Number, .key = "jitterMs",
            .label = RL_TR("&Jitter (random part)"),
            .help = RL_TR("The random part U[0, jitter] added to the exponential term. Memorystore and Cloud Storage "
                          "use random_number_milliseconds of at most 1000 ms, IAM a random fraction of at most 1 s, "
                          "drawn again for every retry so that clients that failed together do not retry in "
                          "synchronised waves."),
            .unit = U::Milliseconds, .check = C::Duration, .max = maxDelayMs, .delayField = DelayField::Jitter,
            .option = "jitter-ms", .access = numberAt<&P::jitterMs>()},
        {.id = Id::JitterFraction, .section = S::Delay, .type = T::Number, .key = "jitterFraction",
            .label = RL_TR("Jitter &fraction f"),
            .help = RL_TR("Proportional jitter: the delay is multiplied by U[1 - f, 1 + f]. gRPC uses f = 20 %."),
            .unit = U::Fraction, .displayScale = 0.01, .check = C::Range, .min = 0.0, .max = 1.0,
            .delayField = DelayField::JitterFraction, .option = "jitter-fraction",
            .access = numberAt<&P::jitterFraction>()},
        {.id = Id::IntervalJitter, .section = S::Delay, .type = T::Choice, .key = "intervalJitter",
            .label = RL_TR("&Interval jitter"),
            .help = RL_TR("Randomises the constant and linear intervals too (the Retry pattern: so that clients that "
                          "failed together do not retry in step). Proportional uses the jitter fraction f.")},

        {.id = Id::MaxAttempts, .section = S::Limits, .type = T::WholeNumber, .key = "maxAttempts",
            .label = RL_TR("Maximum &attempts (0 = no limit)"),
            .help = RL_TR("Attempts in total, the first included, so there are at most attempts - 1 retries. 0 means "
                          "no limit and then needs a total deadline: a policy never retries forever (the seeds: stop "
                          "clients from retrying indefinitely)."),
            .unit = U::Attempts, .check = C::Special, .min = 0.0, .max = PolicyLimits::maxAttempts,
            .option = "max-attempts", .access = numberAt<&P::maxAttempts>()},
        {.id = Id::Deadline, .section = S::Limits, .type = T::Number, .key = "deadlineMs",
            .label = RL_TR("Total &deadline (0 = none)"),
            .help = RL_TR("Time from the first attempt's start after which no retry starts (0 = none). When the next "
                          "sleep would cross it, the client gives up at once instead of sleeping into a certain "
                          "failure. IAM suggests 300 s for work that is not time-critical."),
            .unit = U::Milliseconds, .displayScale = 1000.0, .check = C::Duration, .max = maxDeadlineMs,
            .zeroMeansNone = true, .option = "deadline-ms", .access = numberAt<&P::deadlineMs>()},
        {.id = Id::AttemptTimeout, .section = S::Limits, .type = T::Number, .key = "attemptTimeoutMs",
            .label = RL_TR("&Per-attempt timeout (0 = none)"),
            .help = RL_TR("How long one attempt may take before it is cut and counted as a timeout (0 = none). "
                          "Separate from the total deadline."),
            .unit = U::Milliseconds, .displayScale = 1000.0, .check = C::Duration, .max = maxDeadlineMs,
            .zeroMeansNone = true, .access = numberAt<&P::attemptTimeoutMs>()},

        {.id = Id::RetryableStatuses, .section = S::Responses, .type = T::Collection, .key = "retryableStatuses",
            .label = RL_TR("Retryable &statuses"),
            .help = RL_TR("HTTP statuses retried after a delay. Memorystore and Cloud Storage: 5xx and 429. IAM: 500, "
                          "502, 503, 504, and optionally 404 (reads are eventually consistent, so a new resource may "
                          "not be visible yet). Write codes, ranges (500-599) or classes (5xx), separated by "
                          "commas."),
            .check = C::Special, .min = 400.0, .max = 599.0},
        {.id = Id::RetryConflictAborted, .section = S::Responses, .type = T::Switch, .key = "retryConflictAborted",
            .label = RL_TR("Retry 409 &ABORTED (read and write again)"),
            .help = RL_TR("409 with status ABORTED means a concurrent writer changed the resource (IAM). Retrying only "
                          "the write keeps failing: the whole read-modify-write sequence (read to get the etag, "
                          "modify, write with that etag) starts again after a backoff delay."),
            .access = flagAt<&P::classification, &CR::retryConflictAborted>()},
        {.id = Id::RetryNonIdempotent, .section = S::Responses, .type = T::Switch, .key = "retryNonIdempotent",
            .label = RL_TR("Retry &non-idempotent POST and PATCH"),
            .help = RL_TR("A POST or PATCH may have been applied although its response was lost; repeating it can "
                          "apply it twice. Without this option such requests are retried only when marked idempotent "
                          "or sent with an Idempotency-Key."),
            .access = flagAt<&P::classification, &CR::retryNonIdempotent>()},
        {.id = Id::PutDeleteNeedPrecondition, .section = S::Responses, .type = T::Switch,
            .key = "putDeleteNeedPrecondition", .label = RL_TR("PUT and DELETE only with a pre&condition"),
            .help = RL_TR("Cloud Storage's rule: PUT and DELETE are only conditionally idempotent, since an overwrite "
                          "or a delete may race another writer. With this option they are retried only with a "
                          "precondition (ifGenerationMatch, If-Match, ...), with an Idempotency-Key, or when marked "
                          "safe to repeat."),
            .access = flagAt<&P::classification, &CR::putDeleteNeedPrecondition>()},
        {.id = Id::HonourRetryAfter, .section = S::Responses, .type = T::Switch, .key = "honourRetryAfter",
            .label = RL_TR("Honour &Retry-After"),
            .help = RL_TR("Wait what the server's Retry-After header asks (delta seconds or an HTTP date) instead of "
                          "the backoff delay, up to the bound below. A Retry-After beyond the deadline gives up at "
                          "once."),
            .access = flagAt<&P::classification, &CR::honourRetryAfter>()},
        {.id = Id::HonourRateLimitReset, .section = S::Responses, .type = T::Switch, .key = "honourRateLimitReset",
            .label = RL_TR("Wait for the rate &limit reset"),
            .help = RL_TR("When an answer the policy retries has no Retry-After but its rate-limit fields "
                          "(X-RateLimit-Remaining and -Reset, or RateLimit's r= and t=) say the quota is spent, wait "
                          "until the reset instead of the backoff delay, up to the bound below. After any answer that "
                          "says none of the quota is left, hold back the attempts to that host until the reset."),
            .access = flagAt<&P::classification, &CR::honourRateLimitReset>()},
        {.id = Id::MaxRetryAfter, .section = S::Responses, .type = T::Number, .key = "maxRetryAfterMs",
            .label = RL_TR("Longest Retry-&After"),
            .help = RL_TR("The longest Retry-After (or rate-limit reset) accepted; a longer one is cut to this bound, "
                          "and the log says so."),
            .unit = U::Milliseconds, .displayScale = 1000.0, .check = C::Duration, .max = maxDelayMs,
            .access = numberAt<&P::classification, &CR::maxRetryAfterMs>()},
        {.id = Id::StatusDelayFactors, .section = S::Responses, .type = T::Collection, .key = "statusDelayFactors",
            .label = RL_TR("Status fac&tors"),
            .help = RL_TR("The backoff delay after an HTTP status, times this factor (absent: 1): \"429=2\" waits "
                          "twice as long after a rate limit as after a 503."),
            .unit = U::Factor, .check = C::Special, .min = 0.0, .max = maxDelayFactor},
        {.id = Id::RetryOnResponse, .section = S::Responses, .type = T::Collection, .key = "retryOnResponse",
            .label = RL_TR("Retry on &response"),
            .help = RL_TR("Answers retried although their status is a success, one condition per line: "
                          "json /status = \"PENDING\" (the JSON body's value at a pointer equals a JSON value), "
                          "header X-Retry = yes (a header with that value), header X-Pending (a header present), "
                          "body try again (the body contains the text). The usual rules of idempotency apply."),
            .check = C::Special, .min = 0.0, .max = maxResponseConditions},

        {.id = Id::NetworkActions, .section = S::NetworkFaults, .type = T::Collection, .key = "networkActions",
            .label = RL_TR("Network faults"),
            .help = RL_TR("What the classifier does with each kind of network fault, and how long it waits compared "
                          "with the backoff (\u00d7 0.25: a quarter of the delay, for a fault that clears quickly). "
                          "Hover a row for what the fault means.")},
        {.id = Id::NetworkDelayFactors, .section = S::NetworkFaults, .type = T::Collection,
            .key = "networkDelayFactors", .label = RL_TR("Delay factors"),
            .help = RL_TR("The backoff delay after a network fault of a class, times this factor (absent: 1)."),
            .unit = U::Factor, .check = C::Special, .min = 0.0, .max = maxDelayFactor},

        {.id = Id::BreakerEnabled, .section = S::CircuitBreaker, .type = T::Switch, .key = "enabled",
            .label = RL_TR("&Use a circuit breaker"),
            .help = RL_TR("When faults look long-lasting, stop sending to the host for a while instead of retrying "
                          "(closed \u2192 open), then let trial requests through (half-open) to learn whether it has "
                          "recovered. The Retry pattern recommends it for faults that are not transient."),
            .access = flagAt<&P::circuitBreaker, &CB::enabled>()},
        {.id = Id::BreakerConsecutiveFailures, .section = S::CircuitBreaker, .type = T::WholeNumber,
            .key = "consecutiveFailures", .label = RL_TR("Open after &failures in a row"),
            .help = RL_TR("Open after this many consecutive failures (0 = not used)."),
            .check = C::Range, .min = 0.0, .max = 100'000.0, .checkedWhen = &breakerOn,
            .access = numberAt<&P::circuitBreaker, &CB::consecutiveFailures>()},
        {.id = Id::BreakerFailureRatio, .section = S::CircuitBreaker, .type = T::Number, .key = "failureRatio",
            .label = RL_TR("Or failure &ratio"),
            .help = RL_TR("Open when this share of the last \"window\" outcomes failed (0 = not used)."),
            .unit = U::Fraction, .displayScale = 0.01, .check = C::Range, .min = 0.0, .max = 1.0,
            .checkedWhen = &breakerOn, .access = numberAt<&P::circuitBreaker, &CB::failureRatio>()},
        {.id = Id::BreakerWindow, .section = S::CircuitBreaker, .type = T::WholeNumber, .key = "window",
            .label = RL_TR("Ratio &window (outcomes)"),
            .help = RL_TR("How many recent outcomes the failure ratio looks at."),
            .check = C::Range, .min = 1.0, .max = 100'000.0, .checkedWhen = &breakerOn,
            .access = numberAt<&P::circuitBreaker, &CB::window>()},
        {.id = Id::BreakerOpen, .section = S::CircuitBreaker, .type = T::Number, .key = "openMs",
            .label = RL_TR("Stay &open for"),
            .help = RL_TR("How long the breaker fails fast before it lets trial requests through."),
            .unit = U::Milliseconds, .displayScale = 1000.0, .check = C::Duration, .max = maxDelayMs,
            .minExclusive = true, .checkedWhen = &breakerOn, .access = numberAt<&P::circuitBreaker, &CB::openMs>()},
        {.id = Id::BreakerHalfOpenTrials, .section = S::CircuitBreaker, .type = T::WholeNumber,
            .key = "halfOpenTrials", .label = RL_TR("&Half-open trials"),
            .help = RL_TR("Trial requests let through while half-open; their outcome closes or reopens the breaker."),
            .check = C::Range, .min = 1.0, .max = 1000.0, .checkedWhen = &breakerOn,
            .access = numberAt<&P::circuitBreaker, &CB::halfOpenTrials>()},

        {.id = Id::BudgetKind, .section = S::RetryBudget, .type = T::Choice, .key = "kind", .label = RL_TR("&Budget"),
            .help = RL_TR("A token bucket shared by all requests, so that retries cannot multiply the load on a "
                          "struggling server (retry amplification).")},
        {.id = Id::AwsCapacity, .section = S::RetryBudget, .type = T::Number, .key = "awsCapacity",
            .label = RL_TR("&Capacity (tokens)"),
            .help = RL_TR("AWS SDK standard mode: the bucket starts full with 500 tokens."),
            .check = C::Range, .min = 0.0, .max = 1e9, .checkedWhen = &awsBudget,
            .access = numberAt<&P::retryBudget, &RB::awsCapacity>()},
        {.id = Id::AwsRetryCost, .section = S::RetryBudget, .type = T::Number, .key = "awsRetryCost",
            .label = RL_TR("&Retry cost (tokens)"),
            .help = RL_TR("Tokens a retry takes (AWS: 5); a retry is refused when the bucket cannot cover it."),
            .check = C::Range, .min = 0.0, .max = 1e9, .checkedWhen = &awsBudget,
            .access = numberAt<&P::retryBudget, &RB::awsRetryCost>()},
        {.id = Id::AwsTimeoutCost, .section = S::RetryBudget, .type = T::Number, .key = "awsTimeoutCost",
            .label = RL_TR("&Timeout retry cost (tokens)"),
            .help = RL_TR("Tokens a retry after a timeout takes (AWS: 10)."),
            .check = C::Range, .min = 0.0, .max = 1e9, .checkedWhen = &awsBudget,
            .access = numberAt<&P::retryBudget, &RB::awsTimeoutCost>()},
        {.id = Id::AwsSuccessRefund, .section = S::RetryBudget, .type = T::Number, .key = "awsSuccessRefund",
            .label = RL_TR("&Success refund (tokens)"),
            .help = RL_TR("Tokens a success returns (AWS: 1)."),
            .check = C::Range, .min = 0.0, .max = 1e9, .checkedWhen = &awsBudget,
            .access = numberAt<&P::retryBudget, &RB::awsSuccessRefund>()},
        {.id = Id::GrpcMaxTokens, .section = S::RetryBudget, .type = T::Number, .key = "grpcMaxTokens",
            .label = RL_TR("&Max tokens"),
            .help = RL_TR("gRPC retryThrottling maxTokens: the bucket starts here, a failure costs 1, and retries "
                          "stop while the tokens are at or below half of it."),
            .check = C::Range, .min = 0.0, .max = 1000.0, .minExclusive = true, .checkedWhen = &grpcBudget,
            .access = numberAt<&P::retryBudget, &RB::grpcMaxTokens>()},
        {.id = Id::GrpcTokenRatio, .section = S::RetryBudget, .type = T::Number, .key = "grpcTokenRatio",
            .label = RL_TR("Token &ratio"),
            .help = RL_TR("gRPC retryThrottling tokenRatio: what a success adds back (the gRPC example uses 0.1)."),
            .check = C::Range, .min = 0.0, .max = 1000.0, .minExclusive = true, .checkedWhen = &grpcBudget,
            .access = numberAt<&P::retryBudget, &RB::grpcTokenRatio>()},

        {.id = Id::LimiterKind, .section = S::RateLimiter, .type = T::Choice, .key = "kind",
            .label = RL_TR("Rate &limiter"),
            .help = RL_TR("A limit on how fast this client sends attempts, first and retries alike, that adapts to "
                          "the server's throttling answers (429, 503) as the AWS SDKs' adaptive retry mode does.")},
        {.id = Id::LimiterBeta, .section = S::RateLimiter, .type = T::Number, .key = "beta",
            .label = RL_TR("&Beta (rate kept)"),
            .help = RL_TR("After a throttling answer the rate drops to beta times the rate measured then (AWS: "
                          "0.7)."),
            .unit = U::Factor, .check = C::Special, .min = 0.0, .max = 1.0, .minExclusive = true,
            .checkedWhen = &adaptiveLimiter,
            .access = numberAt<&P::rateLimiter, &RL::beta>()},
        {.id = Id::LimiterScale, .section = S::RateLimiter, .type = T::Number, .key = "scale",
            .label = RL_TR("C&ubic scale"),
            .help = RL_TR("The scale constant C of the CUBIC curve the rate grows back along after a throttling "
                          "answer, in requests/s per second cubed (AWS: 0.4)."),
            .check = C::Range, .min = 0.0, .max = 1000.0, .minExclusive = true, .checkedWhen = &adaptiveLimiter,
            .access = numberAt<&P::rateLimiter, &RL::scale>()},
        {.id = Id::LimiterMinRate, .section = S::RateLimiter, .type = T::Number, .key = "minRate",
            .label = RL_TR("Mi&nimum rate (requests/s)"),
            .help = RL_TR("The limiter never lets fewer attempts through than this many a second (AWS: 0.5)."),
            .check = C::Range, .min = 0.0, .max = 100'000.0, .minExclusive = true, .checkedWhen = &adaptiveLimiter,
            .access = numberAt<&P::rateLimiter, &RL::minRate>()},

        {.id = Id::HedgingEnabled, .section = S::Hedging, .type = T::Switch, .key = "enabled",
            .label = RL_TR("&Hedge slow attempts"),
            .help = RL_TR("Instead of waiting for an attempt to fail, send another after the hedging delay while the "
                          "first is still in flight, and keep the first acceptable answer (gRPC's hedgingPolicy, "
                          "Polly's hedging strategy). It trades load for tail latency; the delay formula is not used. "
                          "An answer the policy would retry sends the next attempt at once. Only requests the "
                          "policy may repeat are hedged."),
            .access = flagAt<&P::hedging, &HS::enabled>()},
        {.id = Id::HedgingMaxAttempts, .section = S::Hedging, .type = T::WholeNumber, .key = "maxAttempts",
            .label = RL_TR("Hedged &attempts in all"),
            .help = RL_TR("Attempts in all, the first included (gRPC maxAttempts, which gRPC caps at 5; Polly's "
                          "MaxHedgedAttempts is one less)."),
            .unit = U::Attempts, .check = C::Range, .min = 2.0, .max = maxHedgedAttempts, .checkedWhen = &hedgingOn,
            .access = numberAt<&P::hedging, &HS::maxAttempts>()},
        {.id = Id::HedgingDelay, .section = S::Hedging, .type = T::Number, .key = "delayMs",
            .label = RL_TR("Hedging &delay"),
            .help = RL_TR("From one attempt's start to the next one's, unless an answer comes first (gRPC "
                          "hedgingDelay). Set it near the latency a slow answer exceeds, such as the 95th "
                          "percentile: lower sends more load, higher saves less time."),
            .unit = U::Milliseconds, .check = C::Special, .max = maxDelayMs, .minExclusive = true,
            .checkedWhen = &hedgingOn,
            .access = numberAt<&P::hedging, &HS::delayMs>()},
    };
}
// clang-format on

#undef RL_TR

} // namespace

QString PolicyField::object() const
{
    switch (section) {
    case Section::Details:
    case Section::Delay:
    case Section::Limits:
        return {};
    case Section::Responses:
    case Section::NetworkFaults:
        return QStringLiteral("classification");
    case Section::CircuitBreaker:
        return QStringLiteral("circuitBreaker");
    case Section::RetryBudget:
        return QStringLiteral("retryBudget");
    case Section::RateLimiter:
        return QStringLiteral("rateLimiter");
    case Section::Hedging:
        return QStringLiteral("hedging");
    }
    return {};
}

QString PolicyField::path() const
{
    const QString outer = object();
    return outer.isEmpty() ? QString::fromLatin1(key) : outer + QLatin1Char('.') + QLatin1String(key);
}

QString PolicyField::name() const
{
    // The editor shows the classification's fields beside the policy's own, and
    // validatePolicy() has always named them without their object.
    if (section == Section::Responses || section == Section::NetworkFaults)
        return QString::fromLatin1(key);
    return path();
}

QString PolicyField::title() const
{
    return Tr::tr(label);
}

QString PolicyField::toolTip() const
{
    return Tr::tr(help);
}

QString PolicyField::unitText() const
{
    switch (unit) {
    case Unit::Milliseconds:
        return displayScale == 1000.0 ? Tr::tr("s") : Tr::tr("ms");
    case Unit::Fraction:
        return Tr::tr("%");
    case Unit::Factor:
        return QStringLiteral("\u00d7");
    case Unit::None:
    case Unit::Attempts:
        break;
    }
    return {};
}

int PolicyField::decimals() const
{
    if (type == Type::WholeNumber)
        return 0;
    return unit == Unit::Fraction ? 2 : 3;
}

bool PolicyField::usedBy(BackoffAlgorithm algorithm) const
{
    return !delayField || usesField(algorithm, *delayField);
}

const QList<PolicyField> &policyFields()
{
    static const QList<PolicyField> fields = makeFieldTable();
    return fields;
}

const PolicyField &policyField(PolicyFieldId id)
{
    const PolicyField &field = policyFields().at(static_cast<qsizetype>(id));
    Q_ASSERT(field.id == id);
    return field;
}

const PolicyField *policyFieldNamed(const QString &name)
{
    for (const PolicyField &field : policyFields()) {
        if (field.name() == name)
            return &field;
    }
    return nullptr;
}

const PolicyField *policyFieldAt(const QString &path)
{
    for (const PolicyField &field : policyFields()) {
        if (field.path() == path)
            return &field;
    }
    return nullptr;
}

const PolicyField *policyFieldForOption(const QString &option)
{
    for (const PolicyField &field : policyFields()) {
        if (field.option && option == QLatin1String(field.option))
            return &field;
    }
    return nullptr;
}

QString policyFieldName(PolicyFieldId id)
{
    return policyField(id).name();
}

QList<DelayField> allDelayFields()
{
    QList<DelayField> all;
    for (const PolicyField &field : policyFields()) {
        if (field.delayField)
            all.append(*field.delayField);
    }
    return all;
}

QString delayFieldName(DelayField field)
{
    for (const PolicyField &f : policyFields()) {
        if (f.delayField == field)
            return f.name();
    }
    return {};
}

std::optional<DelayField> delayFieldFromName(const QString &name)
{
    if (const PolicyField *field = policyFieldNamed(name))
        return field->delayField;
    return std::nullopt;
}

// Where the answer is a list, the switch names every algorithm without a
// default, so that a new algorithm does not compile until it has its answer.

bool usesBaseDelay(BackoffAlgorithm algorithm)
{
    return algorithm != BackoffAlgorithm::Immediate;
}

bool usesMultiplier(BackoffAlgorithm algorithm)
{
    switch (algorithm) {
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
    case BackoffAlgorithm::Exponential:
    case BackoffAlgorithm::FullJitter:
    case BackoffAlgorithm::EqualJitter:
    case BackoffAlgorithm::ProportionalJitter:
        return true;
    case BackoffAlgorithm::DecorrelatedJitter: // grows by a fixed factor of 3
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
    case BackoffAlgorithm::Immediate:
        break;
    }
    return false;
}

bool usesMaxBackoff(BackoffAlgorithm algorithm)
{
    return algorithm != BackoffAlgorithm::Immediate;
}

bool usesAdditiveJitter(BackoffAlgorithm algorithm)
{
    return algorithm == BackoffAlgorithm::GoogleTruncatedExponential
        || algorithm == BackoffAlgorithm::IamTruncatedExponential;
}

bool usesJitterFraction(BackoffAlgorithm algorithm)
{
    return algorithm == BackoffAlgorithm::ProportionalJitter;
}

bool usesField(BackoffAlgorithm algorithm, DelayField field)
{
    switch (field) {
    case DelayField::BaseDelay:
        return usesBaseDelay(algorithm);
    case DelayField::Multiplier:
        return usesMultiplier(algorithm);
    case DelayField::MaxBackoff:
        return usesMaxBackoff(algorithm);
    case DelayField::Jitter:
        return usesAdditiveJitter(algorithm);
    case DelayField::JitterFraction:
        return usesJitterFraction(algorithm);
    }
    return false;
}

bool usesIntervalJitter(BackoffAlgorithm algorithm)
{
    return algorithm == BackoffAlgorithm::Constant || algorithm == BackoffAlgorithm::Linear;
}

bool growsExponentially(BackoffAlgorithm algorithm)
{
    switch (algorithm) {
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
    case BackoffAlgorithm::Exponential:
    case BackoffAlgorithm::FullJitter:
    case BackoffAlgorithm::EqualJitter:
    case BackoffAlgorithm::DecorrelatedJitter:
    case BackoffAlgorithm::ProportionalJitter:
        return true;
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
    case BackoffAlgorithm::Immediate:
        break;
    }
    return false;
}

bool alwaysRandom(BackoffAlgorithm algorithm)
{
    switch (algorithm) {
    case BackoffAlgorithm::FullJitter:
    case BackoffAlgorithm::EqualJitter:
    case BackoffAlgorithm::DecorrelatedJitter:
        return true;
    case BackoffAlgorithm::GoogleTruncatedExponential: // random only while jitterMs > 0
    case BackoffAlgorithm::IamTruncatedExponential:
    case BackoffAlgorithm::ProportionalJitter: // random only while jitterFraction > 0
    case BackoffAlgorithm::Exponential:
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
    case BackoffAlgorithm::Immediate:
        break;
    }
    return false;
}

bool hasJitter(const BackoffPolicy &policy)
{
    if (alwaysRandom(policy.algorithm))
        return true;
    if (usesAdditiveJitter(policy.algorithm))
        return policy.jitterMs > 0.0;
    if (usesJitterFraction(policy.algorithm))
        return policy.jitterFraction > 0.0;
    if (usesIntervalJitter(policy.algorithm)) {
        return policy.intervalJitter == IntervalJitter::Proportional ? policy.jitterFraction > 0.0
                                                                     : policy.intervalJitter != IntervalJitter::None;
    }
    return false;
}

QString unusedFieldReason(BackoffAlgorithm algorithm, DelayField field)
{
    if (usesField(algorithm, field))
        return {};
    const QString title = algorithmTitle(algorithm);
    if (algorithm == BackoffAlgorithm::Immediate)
        return Tr::tr("Not used by %1: every retry goes out at once.").arg(title);
    switch (field) {
    case DelayField::Multiplier:
        if (algorithm == BackoffAlgorithm::DecorrelatedJitter)
            return Tr::tr("Not used by %1: it grows by a fixed factor of 3 from the previous delay.").arg(title);
        return Tr::tr("Not used by %1: its delay does not grow exponentially.").arg(title);
    case DelayField::Jitter:
        return Tr::tr("Not used by %1: only the Google and IAM formulas add a random part U[0, jitter].").arg(title);
    case DelayField::JitterFraction:
        return Tr::tr("Not used by %1: only proportional jitter multiplies by U[1 - f, 1 + f].").arg(title);
    case DelayField::BaseDelay:
    case DelayField::MaxBackoff:
        break;
    }
    return Tr::tr("Not used by %1.").arg(title);
}

QString unusedFieldReason(const BackoffPolicy &policy, const QString &field)
{
    const PolicyField *f = policyFieldNamed(field);
    if (!f)
        return {};
    // Constant and linear read the fraction when their interval jitter is proportional.
    if (f->id == PolicyFieldId::JitterFraction && usesIntervalJitter(policy.algorithm)) {
        if (policy.intervalJitter == IntervalJitter::Proportional)
            return {};
        return Tr::tr("Not used by %1: its interval jitter is not proportional.").arg(algorithmTitle(policy.algorithm));
    }
    if (f->id == PolicyFieldId::IntervalJitter && !usesIntervalJitter(policy.algorithm)) {
        return Tr::tr("Not used by %1: only the constant and linear intervals take this jitter; the others have "
                      "their own.")
            .arg(algorithmTitle(policy.algorithm));
    }
    if (policy.hedging.enabled && (f->delayField || f->id == PolicyFieldId::IntervalJitter))
        return Tr::tr("Not used while hedging: the attempts go out on the hedging delay.");
    if (f->delayField)
        return unusedFieldReason(policy.algorithm, *f->delayField);
    if (f->id == PolicyFieldId::MaxRetryAfter && !policy.classification.honourRetryAfter
        && !policy.classification.honourRateLimitReset)
        return Tr::tr("Retry-After is not honoured, so it needs no bound.");
    if (f->section == PolicyField::Section::CircuitBreaker && !policy.circuitBreaker.enabled)
        return Tr::tr("The circuit breaker is off.");
    if (f->section == PolicyField::Section::Hedging && f->id != PolicyFieldId::HedgingEnabled
        && !policy.hedging.enabled)
        return Tr::tr("Hedging is off.");
    return {};
}

} // namespace RetryLab::Core
