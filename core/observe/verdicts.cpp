#include "core/observe/verdicts.h"

#include "core/policy/policyfields.h"
#include "core/policy/presets.h"
#include "core/util/coretr.h"

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

// Where each rule comes from (../shared/seeds/): Memorystore's and Cloud
// Storage's exponential backoff pages, IAM's retry strategy, Azure's Retry pattern.
const char *const googleBackoff = "Memorystore and Cloud Storage: truncated exponential backoff";
const char *const iamJitter = "IAM retry strategy: truncated exponential backoff with jitter";
const char *const azureRetry = "Azure Cloud Design Patterns: Retry pattern";

Verdict verdict(const char *rule, const QString &title, const char *source, Verdict::Outcome outcome, QString evidence)
{
    Verdict v;
    v.rule = QString::fromLatin1(rule);
    v.title = title;
    v.source = QString::fromLatin1(source);
    v.outcome = outcome;
    v.evidence = std::move(evidence);
    return v;
}

Verdict::Outcome fromFinding(const Finding &f, bool passWhen)
{
    if (!f.value)
        return Verdict::Outcome::NotObserved;
    return *f.value == passWhen ? Verdict::Outcome::Pass : Verdict::Outcome::Fail;
}

QString msText(double ms)
{
    return ms >= 10'000 ? Tr::tr("%1 s").arg(ms / 1000.0, 0, 'f', 1) : Tr::tr("%1 ms").arg(qRound64(ms));
}

/// The longest run of attempts of a logical request that never succeeded.
int longestFailingRun(const QList<LogicalRequest> &requests)
{
    int longest = 0;
    for (const LogicalRequest &r : requests) {
        if (!r.succeeded())
            longest = std::max(longest, int(r.attempts.size()));
    }
    return longest;
}

/// A distance between two positive numbers that treats x2 and /2 alike.
double logDistance(double a, double b)
{
    if (a <= 0 || b <= 0)
        return a == b ? 0.0 : 1.0;
    return std::min(1.0, std::abs(std::log(a / b)) / std::log(4.0));
}

QString jitterOfAlgorithm(BackoffAlgorithm a)
{
    switch (a) {
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
        return QStringLiteral("additive");
    case BackoffAlgorithm::FullJitter:
        return QStringLiteral("full");
    case BackoffAlgorithm::EqualJitter:
        return QStringLiteral("equal");
    case BackoffAlgorithm::DecorrelatedJitter:
        return QStringLiteral("decorrelated");
    case BackoffAlgorithm::ProportionalJitter:
        return QStringLiteral("proportional");
    case BackoffAlgorithm::Exponential:
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
    case BackoffAlgorithm::Immediate:
        return QStringLiteral("none");
    }
    return QStringLiteral("none");
}

// The jitter a preset's delays show: its algorithm's, or for constant and linear
// intervals the interval jitter (full, equal, proportional).
QString jitterOfPolicy(const BackoffPolicy &p)
{
    if (usesIntervalJitter(p.algorithm) && p.intervalJitter != IntervalJitter::None)
        return intervalJitterName(p.intervalJitter);
    return jitterOfAlgorithm(p.algorithm);
}

/// The same algorithm up to the IAM/Google naming (they share the formula).
bool sameFormula(BackoffAlgorithm a, BackoffAlgorithm b)
{
    const auto normal = [](BackoffAlgorithm x) {
        return x == BackoffAlgorithm::IamTruncatedExponential ? BackoffAlgorithm::GoogleTruncatedExponential : x;
    };
    return normal(a) == normal(b);
}

} // namespace

QJsonObject Verdict::toJson() const
{
    return {
        {QStringLiteral("rule"), rule},
        {QStringLiteral("title"), title},
        {QStringLiteral("source"), source},
        {QStringLiteral("outcome"), outcomeName(outcome)},
        {QStringLiteral("pass"), pass()},
        {QStringLiteral("evidence"), evidence},
    };
}

QString Verdict::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Pass:
        return QStringLiteral("pass");
    case Outcome::Fail:
        return QStringLiteral("fail");
    case Outcome::NotObserved:
        return QStringLiteral("not-observed");
    }
    return QStringLiteral("not-observed");
}

QList<Verdict> Judge::judge(const QList<LogicalRequest> &requests, const InferredPolicy &p)
{
    using O = Verdict::Outcome;
    QList<Verdict> verdicts;
    const bool retried = p.retriedLogicalRequests > 0;

    // 1. Exponential backoff with a cap.
    {
        O outcome = O::NotObserved;
        QString evidence;
        if (!retried) {
            evidence = Tr::tr("no retry was seen");
        } else {
            switch (p.growth) {
            case Growth::Exponential:
                outcome = O::Pass;
                evidence = p.growthConfidence.evidence;
                evidence += p.capMs ? Tr::tr("; capped at %1").arg(msText(*p.capMs))
                                    : Tr::tr("; no cap was reached in the retries seen");
                break;
            case Growth::Linear:
            case Growth::Constant:
            case Growth::None:
                outcome = O::Fail;
                evidence = p.growth == Growth::None
                    ? p.growthConfidence.evidence
                    : Tr::tr("%1: the delays grow %2, not exponentially")
                          .arg(p.growthConfidence.evidence, PolicyInference::growthName(p.growth));
                break;
            case Growth::Unknown:
                evidence = p.growthConfidence.evidence.isEmpty() ? Tr::tr("too few retries to see the growth")
                                                                 : p.growthConfidence.evidence;
                break;
            }
        }
        verdicts.append(verdict("exponential-backoff-with-cap", Tr::tr("Exponential backoff with a cap"), googleBackoff,
            outcome, evidence));
    }

    // 2. Random jitter.
    {
        O outcome = O::NotObserved;
        QString evidence = p.jitterConfidence.evidence;
        if (!retried) {
            evidence = Tr::tr("no retry was seen");
        } else if (p.growth == Growth::None) {
            outcome = O::Fail;
            evidence = Tr::tr("retries come at once: there is no delay to randomise");
        } else if (p.jitter == JitterKind::None) {
            outcome = O::Fail;
        } else if (p.jitter != JitterKind::Unclear) {
            outcome = O::Pass;
            evidence = Tr::tr("%1 jitter: %2").arg(PolicyInference::jitterName(p.jitter), evidence);
        }
        verdicts.append(verdict("random-jitter", Tr::tr("Random jitter in the delays"), iamJitter, outcome, evidence));
    }

    // 3. A bounded number of attempts or a deadline.
    {
        O outcome = O::NotObserved;
        QString evidence = p.maxAttemptsConfidence.evidence;
        const int longest = longestFailingRun(requests);
        if (p.maxAttempts) {
            outcome = O::Pass;
        } else if (p.deadlineMs) {
            outcome = O::Pass;
            evidence = Tr::tr("stops after about %1 whatever the attempts: %2").arg(msText(*p.deadlineMs), evidence);
        } else if (longest >= 25) {
            outcome = O::Fail;
            evidence
                = Tr::tr("%1 attempts of one logical request without success, and it has not given up").arg(longest);
        }
        verdicts.append(verdict("bounded-attempts", Tr::tr("A bounded number of attempts or a deadline"), googleBackoff,
            outcome, evidence));
    }

    // 4. No retry of non-idempotent requests without a key.
    verdicts.append(verdict("no-unsafe-retries",
        Tr::tr("No retry of non-idempotent requests (POST, PATCH) without an idempotency key"), azureRetry,
        fromFinding(p.retriesNonIdempotent, false), p.retriesNonIdempotent.evidence));

    // 5. Retry-After honoured.
    verdicts.append(verdict("retry-after-honoured", Tr::tr("Retry-After honoured"), azureRetry,
        fromFinding(p.honoursRetryAfter, true), p.honoursRetryAfter.evidence));

    // 6. Permanent errors not retried.
    verdicts.append(
        verdict("permanent-errors-not-retried", Tr::tr("Permanent errors (400, 401, 403, 404, ...) not retried"),
            azureRetry, fromFinding(p.retriesPermanentErrors, false), p.retriesPermanentErrors.evidence));

    // 7. Every retry logged: the client's own log is out of the server's sight.
    verdicts.append(verdict("retries-logged", Tr::tr("Every retry logged"), azureRetry, O::NotObserved,
        Tr::tr("not observable: the client's log cannot be seen from the server")));
    return verdicts;
}

bool Judge::allPass(const QList<Verdict> &verdicts)
{
    return std::all_of(verdicts.cbegin(), verdicts.cend(), [](const Verdict &v) { return v.pass(); });
}

std::optional<PresetComparison> Judge::closestPreset(const InferredPolicy &p)
{
    const auto algorithm = p.algorithm();
    if (!algorithm)
        return std::nullopt;
    std::optional<PresetComparison> best;
    for (const Presets::Preset &preset : Presets::all()) {
        const BackoffPolicy &b = preset.policy;
        PresetComparison c;
        c.presetId = preset.id;
        c.preset = b;
        const auto row = [&c](const QString &field, const QString &observed, const QString &presetValue, bool matches,
                             double weight, double distance) {
            c.rows.append({field, observed, presetValue, matches});
            c.distance += weight * distance;
        };
        const bool sameAlgorithm = sameFormula(*algorithm, b.algorithm);
        row(QStringLiteral("algorithm"), algorithmName(*algorithm), algorithmName(b.algorithm), sameAlgorithm, 2.0,
            sameAlgorithm ? 0.0 : 1.0);
        const double base = p.baseMs.value_or(0.0);
        const double baseDistance = logDistance(base, b.baseDelayMs);
        row(QStringLiteral("baseMs"), QString::number(qRound64(base)), QString::number(b.baseDelayMs),
            baseDistance < 0.07, 1.0, baseDistance);
        const bool grows = b.algorithm != BackoffAlgorithm::Constant && b.algorithm != BackoffAlgorithm::Linear
            && b.algorithm != BackoffAlgorithm::Immediate && b.algorithm != BackoffAlgorithm::DecorrelatedJitter;
        const double multiplier = p.multiplier.value_or(1.0);
        const double presetMultiplier = grows ? b.multiplier : 1.0;
        const double multiplierDistance = logDistance(multiplier, presetMultiplier);
        row(QStringLiteral("multiplier"), QString::number(multiplier, 'f', 2), QString::number(presetMultiplier),
            multiplierDistance < 0.07, 0.5, multiplierDistance);
        if (p.capMs) {
            const double capDistance = logDistance(*p.capMs, b.maxBackoffMs);
            row(QStringLiteral("capMs"), QString::number(qRound64(*p.capMs)), QString::number(b.maxBackoffMs),
                capDistance < 0.1, 0.5, capDistance);
        } else {
            row(QStringLiteral("capMs"), Tr::tr("not reached"), QString::number(b.maxBackoffMs), true, 0.0, 0.0);
        }
        const QString jitter = PolicyInference::jitterName(p.jitter);
        const bool jitterMatches = jitter == jitterOfPolicy(b);
        row(QStringLiteral("jitter"), jitter, jitterOfPolicy(b), jitterMatches, 1.0, jitterMatches ? 0.0 : 1.0);
        const QString presetLimit
            = b.maxAttempts > 0 ? QString::number(b.maxAttempts) : Tr::tr("deadline %1").arg(msText(b.deadlineMs));
        if (b.maxAttempts == 0 && b.deadlineMs > 0 && (p.giveUpElapsedMs || p.deadlineMs)) {
            // A deadline shows as the time spent before giving up, whatever the attempts.
            const double spent = p.giveUpElapsedMs.value_or(p.deadlineMs.value_or(0.0));
            const bool same = spent >= 0.85 * b.deadlineMs && spent <= 1.05 * b.deadlineMs;
            row(QStringLiteral("maxAttempts"), Tr::tr("gave up after %1").arg(msText(spent)), presetLimit, same, 0.5,
                same ? 0.0 : 1.0);
        } else if (p.maxAttempts) {
            const bool same = *p.maxAttempts == b.maxAttempts;
            row(QStringLiteral("maxAttempts"), QString::number(*p.maxAttempts), presetLimit, same, 0.5,
                same ? 0.0 : 1.0);
        } else {
            row(QStringLiteral("maxAttempts"), Tr::tr("unknown"), presetLimit, true, 0.0, 0.0);
        }
        if (!best || c.distance < best->distance)
            best = c;
    }
    return best;
}

} // namespace RetryLab::Core
