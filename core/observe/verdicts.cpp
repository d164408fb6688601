#include "core/observe/verdicts.h"

#include "core/policy/backoff.h"
#include "core/policy/policyfields.h"
#include "core/policy/presets.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

// The documents are in docs/sources/ (see its README); the quotes stand there
// word for word, which tst_verdicts checks.
const char *const memorystore = "memorystore-exponential-backoff.de.txt";
const char *const iam = "iam-retry-strategy.de.txt";
const char *const azure = "azure-retry-pattern.de.md";

enum RuleIndex { Growing, Jitter, Bounded, Unsafe, RetryAfter, Permanent, Logged };

QList<VerdictRule> makeRules()
{
    const auto quote = [](const char *document, const char *text) {
        return VerdictRule::Quote{QString::fromLatin1(document), QString::fromUtf8(text)};
    };
    return {
        {QStringLiteral("growing-backoff"), Tr::tr("Delays grow: exponentially up to a cap, or incrementally"),
            QStringLiteral("Memorystore and Cloud Storage: truncated exponential backoff (maximum_backoff); "
                           "Azure Retry pattern: incremental or exponential delays"),
            {quote(memorystore, "wobei die Abstände zwischen den Anfragen immer länger werden"),
                quote(memorystore, "maximum_backoff"),
                quote(azure, "Die Verzögerung kann inkrementell oder exponentiell erhöht werden")}},
        {QStringLiteral("random-jitter"), Tr::tr("Random jitter in the delays"),
            QStringLiteral("IAM retry strategy: truncated exponential backoff with jitter; Memorystore: "
                           "random_number_milliseconds drawn anew for every request"),
            {quote(iam, "eine kleine, zufällige Verzögerung, die als Jitter bezeichnet wird"),
                quote(memorystore, "random_number_milliseconds sollte nach jeder Anfrage neu berechnet werden")}},
        {QStringLiteral("bounded-attempts"), Tr::tr("A bounded number of attempts or a deadline"),
            QStringLiteral("Azure Retry pattern: a maximum number of attempts; IAM retry strategy: stop after "
                           "the deadline"),
            {quote(azure, "bis eine maximale Anzahl von Anforderungsversuchen unternommen wurde"),
                quote(iam, "stop retrying the request")}},
        {QStringLiteral("no-unsafe-retries"),
            Tr::tr("No retry of non-idempotent requests (POST, PATCH) without an idempotency key"),
            QStringLiteral("Azure Retry pattern: a repeated operation may run more than once"),
            {quote(azure, "mehr als einmal ausgeführt werden, was unbeabsichtigte Nebeneffekte haben kann")}},
        {QStringLiteral("retry-after-honoured"), Tr::tr("Retry-After honoured"),
            QStringLiteral("RFC 9110, section 10.2.3 (Retry-After); the Cloud Storage and AWS retry "
                           "documentation"),
            {}},
        {QStringLiteral("permanent-errors-not-retried"),
            Tr::tr("Permanent errors (400, 401, 403, ...) not retried; 404 may be, as IAM allows"),
            QStringLiteral("Azure Retry pattern: cancel on a fault that is not transient, such as an "
                           "authentication failure; IAM retry strategy: optionally retry 404 (eventual consistency)"),
            {quote(azure, "Beispielsweise kann ein Authentifizierungsfehler"), quote(iam, "the error code `404`")}},
        {QStringLiteral("retries-logged"), Tr::tr("Every retry logged"),
            QStringLiteral("Azure Retry pattern: log the details of faults and failed operations"),
            {quote(azure, "sollte die Details der Fehler und fehlgeschlagenen Vorgänge protokollieren")}},
    };
}

Verdict verdict(RuleIndex index, Verdict::Outcome outcome, QString evidence)
{
    const VerdictRule &r = Judge::rules().at(index);
    Verdict v;
    v.rule = r.rule;
    v.title = r.title;
    v.source = r.source;
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

const QList<VerdictRule> &Judge::rules()
{
    static const QList<VerdictRule> rules = makeRules();
    return rules;
}

QList<Verdict> Judge::judge(const QList<LogicalRequest> &requests, const InferredPolicy &p)
{
    using O = Verdict::Outcome;
    QList<Verdict> verdicts;
    const bool retried = p.retriedLogicalRequests > 0;

    // 1. Delays that grow: exponentially with a cap (Google), or incrementally
    // (the Retry pattern allows both).
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
                evidence += p.capMs ? Tr::tr("; capped at %1").arg(DurationText::format(*p.capMs))
                                    : Tr::tr("; no cap was reached in the retries seen");
                break;
            case Growth::Linear:
                outcome = O::Pass;
                evidence = Tr::tr("%1: incremental delays, as the Retry pattern allows (Google's pages ask for "
                                  "exponential ones)")
                               .arg(p.growthConfidence.evidence);
                break;
            case Growth::Constant:
            case Growth::None:
                outcome = O::Fail;
                evidence = p.growth == Growth::None
                    ? p.growthConfidence.evidence
                    : Tr::tr("%1: the delays do not grow").arg(p.growthConfidence.evidence);
                break;
            case Growth::Unknown:
                evidence = p.growthConfidence.evidence.isEmpty() ? Tr::tr("too few retries to see the growth")
                                                                 : p.growthConfidence.evidence;
                break;
            }
        }
        verdicts.append(verdict(Growing, outcome, evidence));
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
        verdicts.append(verdict(Jitter, outcome, evidence));
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
            evidence = Tr::tr("stops after about %1 whatever the attempts: %2")
                           .arg(DurationText::format(*p.deadlineMs), evidence);
        } else if (longest >= 25) {
            outcome = O::Fail;
            evidence
                = Tr::tr("%1 attempts of one logical request without success, and it has not given up").arg(longest);
        }
        verdicts.append(verdict(Bounded, outcome, evidence));
    }

    // 4. No retry of non-idempotent requests without a key.
    verdicts.append(verdict(Unsafe, fromFinding(p.retriesNonIdempotent, false), p.retriesNonIdempotent.evidence));

    // 5. Retry-After honoured.
    verdicts.append(verdict(RetryAfter, fromFinding(p.honoursRetryAfter, true), p.honoursRetryAfter.evidence));

    // 6. Permanent errors not retried (404 is not counted: IAM allows retrying it).
    verdicts.append(
        verdict(Permanent, fromFinding(p.retriesPermanentErrors, false), p.retriesPermanentErrors.evidence));

    // 7. Every retry logged: the client's own log is out of the server's sight.
    verdicts.append(
        verdict(Logged, O::NotObserved, Tr::tr("not observable: the client's log cannot be seen from the server")));
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
        const QString presetLimit = b.maxAttempts > 0 ? QString::number(b.maxAttempts)
                                                      : Tr::tr("deadline %1").arg(DurationText::format(b.deadlineMs));
        if (b.maxAttempts == 0 && b.deadlineMs > 0 && (p.giveUpElapsedMs || p.deadlineMs)) {
            // A deadline shows as the time spent before giving up, whatever the attempts.
            // A client that fails fast gives up early by a whole delay: when the next
            // sleep would cross the deadline it stops at once, so the time spent plus
            // that next delay reaches the deadline.
            const double spent = p.giveUpElapsedMs.value_or(p.deadlineMs.value_or(0.0));
            const double next = p.maxAttempts ? Backoff::delayRange(b, *p.maxAttempts - 1).maxMs : 0.0;
            const bool same = spent <= 1.05 * b.deadlineMs && spent + next >= 0.85 * b.deadlineMs;
            row(QStringLiteral("maxAttempts"), Tr::tr("gave up after %1").arg(DurationText::format(spent)), presetLimit,
                same, 0.5, same ? 0.0 : 1.0);
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
