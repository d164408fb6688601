#include "core/scenario/conformancesuite.h"

#include "core/faultserver/faultinstruction.h"
#include "core/http/retryheaders.h"
#include "core/policy/backoff.h"
#include "core/policy/classifier.h"
#include "core/util/coretr.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

// Upper bound of one attempt on loopback, for the deadline arithmetic; the
// server answers in well under a millisecond, so this is very generous.
constexpr double attemptUpperMs = 50.0;
// Modelling stops here; a policy that is still retrying is bounded by its deadline.
constexpr int modelledAttempts = 2000;

constexpr double targetBaseMs = 10.0;
constexpr double targetCapMs = 100.0;
constexpr double minDeadlineMs = 2000.0;
constexpr double maxAttemptTimeoutMs = 5000.0;

QString statusPhrase(const std::optional<int> &status)
{
    return status ? Tr::tr("status %1").arg(*status) : Tr::tr("no HTTP status");
}

// What the client sees of one scripted step.
struct Observation
{
    enum class Kind { Response, Network, Timeout };
    Kind kind = Kind::Response;
    std::optional<int> status; ///< also set for a broken body after a 200
    NetworkFaultClass fault = NetworkFaultClass::Other;
    std::optional<int> retryAfterSeconds;
    bool aborted = false; ///< a 409 with a Google ABORTED body
    double durationMs = 0.0;
    QString what; ///< "HTTP 503", "connection reset", ...
};

Observation observe(const FaultInstruction &step, int thenStatus, const BackoffPolicy &policy)
{
    Observation o;
    const double timeout = policy.attemptTimeoutMs;
    const auto respond = [&o](int status) {
        o.status = status;
        o.what = Tr::tr("HTTP %1").arg(status);
    };
    switch (step.kind) {
    case FaultInstruction::Kind::Respond:
        respond(step.status);
        o.aborted = step.aborted;
        if (step.aborted)
            o.what = Tr::tr("HTTP 409 ABORTED");
        o.retryAfterSeconds = step.retryAfterSeconds;
        if (step.retryAfterSeconds)
            o.what = Tr::tr("HTTP %1 with Retry-After: %2").arg(step.status).arg(*step.retryAfterSeconds);
        break;
    case FaultInstruction::Kind::Pass:
        respond(thenStatus);
        break;
    case FaultInstruction::Kind::Delay:
        if (timeout > 0.0 && step.milliseconds >= timeout) {
            o.kind = Observation::Kind::Timeout;
            o.durationMs = timeout;
            o.what = Tr::tr("no answer within the per-attempt timeout");
        } else {
            respond(thenStatus);
            o.durationMs = step.milliseconds;
        }
        break;
    case FaultInstruction::Kind::Drip:
        respond(200);
        o.durationMs = double(step.milliseconds) * FaultInstruction::dripBytes;
        break;
    case FaultInstruction::Kind::Reset:
    case FaultInstruction::Kind::Empty:
    case FaultInstruction::Kind::Garbage:
        // Qt reports all three as the remote host closing the connection.
        o.kind = Observation::Kind::Network;
        o.fault = NetworkFaultClass::ConnectionReset;
        o.what = Tr::tr("connection reset");
        break;
    case FaultInstruction::Kind::ResetAfterHeaders:
    case FaultInstruction::Kind::BrokenStream:
        o.kind = Observation::Kind::Network;
        o.fault = NetworkFaultClass::BrokenStream;
        o.status = 200;
        o.what = Tr::tr("body broken off after the headers of a 200");
        break;
    case FaultInstruction::Kind::Stall:
        o.kind = Observation::Kind::Timeout;
        o.durationMs = timeout;
        o.what = Tr::tr("no answer (stall)");
        break;
    }
    return o;
}

// The possible ends of a cell. Timing can make more than one possible (a
// deadline that a jittered delay may or may not cross); the expectation
// accepts each of them.
struct Endings
{
    QList<RequestOutcome> outcomes;
    int minAttempts = std::numeric_limits<int>::max();
    int maxAttempts = 0;
    bool statusKnown = true;
    bool statusSet = false;
    std::optional<int> status;

    void add(RequestOutcome outcome, int attempts, std::optional<int> finalStatus, bool statusCertain = true)
    {
        if (!outcomes.contains(outcome))
            outcomes.append(outcome);
        minAttempts = std::min(minAttempts, attempts);
        maxAttempts = std::max(maxAttempts, attempts);
        if (!statusCertain || (statusSet && status != finalStatus))
            statusKnown = false;
        statusSet = true;
        status = finalStatus;
    }
};

} // namespace

QString ConformanceExpectation::summary() const
{
    QStringList names;
    for (RequestOutcome outcome : outcomes)
        names.append(requestOutcomeName(outcome));
    QString attempts;
    if (maxAttempts < 0)
        attempts = Tr::tr("after at least %n attempt(s)", nullptr, minAttempts);
    else if (minAttempts == maxAttempts)
        attempts = Tr::tr("after %n attempt(s)", nullptr, minAttempts);
    else
        attempts = Tr::tr("after %1-%2 attempts").arg(minAttempts).arg(maxAttempts);
    QString text = Tr::tr("%1 %2").arg(names.join(Tr::tr(" or ")), attempts);
    if (checkFinalStatus)
        text += Tr::tr(", %1").arg(statusPhrase(finalStatus));
    if (retryAfterDelayMs)
        text += Tr::tr(", waiting %1 ms as Retry-After asks").arg(*retryAfterDelayMs, 0, 'f', 0);
    return text;
}

QString ConformanceCase::name() const
{
    return Tr::tr("%1 / %2").arg(sequence.title, Conformance::idempotencyTitle(idempotency));
}

RequestSpec ConformanceCase::request(const QUrl &base, const QString &testId, const QUrl &unreachable) const
{
    RequestSpec spec;
    QString root = (sequence.unreachable && unreachable.isValid() ? unreachable : base).toString(QUrl::FullyEncoded);
    while (root.endsWith(QLatin1Char('/')))
        root.chop(1);
    spec.url = QUrl(root + QStringLiteral("/status/%1").arg(sequence.thenStatus));
    spec.label = name();
    if (idempotency != IdempotencyClass::Always) {
        spec.method = "POST";
        spec.body = QByteArrayLiteral("{\"conformance\":\"") + sequence.id.toUtf8() + QByteArrayLiteral("\"}");
        spec.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
    }
    if (idempotency == IdempotencyClass::Conditional)
        spec.headers.append({QByteArrayLiteral("If-Match"), QByteArrayLiteral("\"conformance-v1\"")});
    if (idempotency == IdempotencyClass::GenerationMatch)
        spec.url.setQuery(QStringLiteral("ifGenerationMatch=1700000000000001"));
    if (!testId.isEmpty())
        spec.headers.append({QByteArray(RetryHeaders::testId), testId.toLatin1()});
    return spec;
}

namespace Conformance {

QList<FaultSequence> sequences()
{
    return {
        {QStringLiteral("503-then-ok"), Tr::tr("503, then OK"), {QStringLiteral("return-503")}},
        {QStringLiteral("5xx-then-ok"), Tr::tr("500, 502, 503, 504, then OK"),
            {QStringLiteral("return-500"), QStringLiteral("return-502"), QStringLiteral("return-503"),
                QStringLiteral("return-504")}},
        {QStringLiteral("reset-then-ok"), Tr::tr("connection reset twice, then OK"), {QStringLiteral("reset*2")}},
        {QStringLiteral("429-retry-after-then-ok"), Tr::tr("429 with Retry-After: 1, then OK"),
            {QStringLiteral("return-429-after-1s")}},
        {QStringLiteral("broken-stream-then-ok"), Tr::tr("broken stream, then OK"), {QStringLiteral("broken-stream")}},
        {QStringLiteral("400"), Tr::tr("400 Bad Request"), {QStringLiteral("return-400")}},
        {QStringLiteral("503-then-401"), Tr::tr("503, then 401 Unauthorized"),
            {QStringLiteral("return-503"), QStringLiteral("return-401")}},
        {QStringLiteral("409-aborted-then-ok"), Tr::tr("409 ABORTED (a concurrent writer), then OK"),
            {QStringLiteral("aborted")}},
        {QStringLiteral("412-then-ok"), Tr::tr("412 Precondition Failed, then OK"), {QStringLiteral("return-412")}},
        {QStringLiteral("503-forever"), Tr::tr("503 on every attempt"), {}, 503},
        {QStringLiteral("refused-forever"), Tr::tr("connection refused on every attempt (never sent)"), {}, 200, true},
    };
}

QList<IdempotencyClass> idempotencyClasses()
{
    return {IdempotencyClass::Always, IdempotencyClass::Conditional, IdempotencyClass::GenerationMatch,
        IdempotencyClass::Never};
}

QString idempotencyName(IdempotencyClass idempotency)
{
    switch (idempotency) {
    case IdempotencyClass::Always:
        return QStringLiteral("always");
    case IdempotencyClass::Conditional:
        return QStringLiteral("conditional");
    case IdempotencyClass::GenerationMatch:
        return QStringLiteral("generation-match");
    case IdempotencyClass::Never:
        break;
    }
    return QStringLiteral("never");
}

QString idempotencyTitle(IdempotencyClass idempotency)
{
    switch (idempotency) {
    case IdempotencyClass::Always:
        return Tr::tr("always idempotent (GET)");
    case IdempotencyClass::Conditional:
        return Tr::tr("conditional (POST + If-Match)");
    case IdempotencyClass::GenerationMatch:
        return Tr::tr("conditional (POST ?ifGenerationMatch=)");
    case IdempotencyClass::Never:
        break;
    }
    return Tr::tr("never idempotent (POST)");
}

double compressionFactor(const BackoffPolicy &policy)
{
    double factor = 1.0;
    if (policy.baseDelayMs > targetBaseMs)
        factor = std::min(factor, targetBaseMs / policy.baseDelayMs);
    if (policy.maxBackoffMs > targetCapMs)
        factor = std::min(factor, targetCapMs / policy.maxBackoffMs);
    return factor;
}

BackoffPolicy compressed(const BackoffPolicy &policy)
{
    BackoffPolicy p = policy;
    const double factor = compressionFactor(policy);
    p.baseDelayMs *= factor;
    p.maxBackoffMs *= factor;
    p.jitterMs *= factor;
    if (p.deadlineMs > 0.0)
        p.deadlineMs = std::max(p.deadlineMs * factor, minDeadlineMs);
    if (!(p.attemptTimeoutMs > 0.0) || p.attemptTimeoutMs > maxAttemptTimeoutMs)
        p.attemptTimeoutMs = maxAttemptTimeoutMs;
    if (p.deadlineMs > 0.0)
        p.attemptTimeoutMs = std::min(p.attemptTimeoutMs, p.deadlineMs);
    return p;
}

ConformanceExpectation expect(const BackoffPolicy &policy, const FaultSequence &sequence, IdempotencyClass idempotency)
{
    ConformanceExpectation e;
    const auto parsed = FaultInstruction::parseList(sequence.steps);
    const QList<FaultInstruction> steps = parsed ? parsed.value() : QList<FaultInstruction>();
    e.scriptSteps = static_cast<int>(steps.size());
    const ClassificationRules &rules = policy.classification;
    const CircuitBreakerSettings &breaker = policy.circuitBreaker;
    const RetryBudgetSettings &budget = policy.retryBudget;

    bool repeatable = true;
    QString idempotencyReason;
    switch (idempotency) {
    case IdempotencyClass::Always:
        idempotencyReason = Tr::tr("GET is idempotent");
        break;
    case IdempotencyClass::Conditional:
        idempotencyReason = Tr::tr("POST with If-Match is conditional, so a repeat cannot apply twice");
        break;
    case IdempotencyClass::GenerationMatch:
        idempotencyReason
            = Tr::tr("POST with ifGenerationMatch is conditional (Cloud Storage), so a repeat cannot apply twice");
        break;
    case IdempotencyClass::Never:
        repeatable = rules.retryNonIdempotent;
        idempotencyReason = repeatable
            ? Tr::tr("POST is not idempotent, but the policy retries it anyway")
            : Tr::tr("POST is not idempotent and carries no Idempotency-Key or precondition");
        break;
    }

    Endings endings;
    int failures = 0;
    qint64 retryIndex = 0;
    bool usedImmediate = false;
    double elapsedMin = 0.0; // since the first attempt started, lower and upper bounds
    double elapsedMax = 0.0;
    double tokens = budget.kind == RetryBudgetKind::AwsStandard ? budget.awsCapacity
        : budget.kind == RetryBudgetKind::GrpcThrottling        ? budget.grpcMaxTokens
                                                                : 0.0;
    int consecutive = 0;
    QList<bool> window;
    bool breakerOpen = false;
    bool halfOpen = false;
    double sinceOpenMin = 0.0; // time from the breaker opening to the next attempt
    double sinceOpenMax = 0.0;
    std::optional<int> lastStatus;
    bool finished = false;

    for (int k = 0; k < modelledAttempts && !finished; ++k) {
        const QString attempt = Tr::tr("attempt %1").arg(k + 1);
        if (k > 0 && policy.deadlineMs > 0.0) {
            if (elapsedMin >= policy.deadlineMs) {
                endings.add(RequestOutcome::DeadlineExceeded, k, lastStatus, false);
                e.explanation.append(Tr::tr("%1: the deadline has passed").arg(attempt));
                break;
            }
        }
        if (breaker.enabled && breakerOpen) {
            if (sinceOpenMax < breaker.openMs) {
                endings.add(RequestOutcome::CircuitOpen, k, lastStatus);
                e.explanation.append(Tr::tr("%1: the circuit is open, failing fast").arg(attempt));
                break;
            }
            if (sinceOpenMin < breaker.openMs) // the wait may or may not outlast the open period
                endings.add(RequestOutcome::CircuitOpen, k, lastStatus);
            breakerOpen = false;
            halfOpen = true;
        }

        const FaultInstruction step
            = k < steps.size() ? steps[k] : FaultInstruction(); // past the script: the path answers
        Observation seen = observe(step, sequence.thenStatus, policy);
        if (sequence.unreachable) {
            seen = Observation{};
            seen.kind = Observation::Kind::Network;
            seen.fault = NetworkFaultClass::ConnectionRefused;
            seen.what = Tr::tr("connection refused");
        }
        const int attempts = k + 1;
        lastStatus = seen.status;
        elapsedMin += seen.durationMs;
        elapsedMax += seen.durationMs + attemptUpperMs;

        // The classification the retry rules ask for (docs/executor.md, "What is retried").
        bool success = false;
        bool retry = false;
        bool immediate = false;
        QString rule;
        if (seen.kind == Observation::Kind::Response) {
            const int status = *seen.status;
            if (status >= 200 && status < 400) {
                success = true;
                rule = Tr::tr("success");
            } else if (seen.aborted) {
                // IAM's rule: the whole read-modify-write starts again; a cell is a single request, which cannot
                // re-read.
                rule = Tr::tr("409 ABORTED: a concurrent writer won; the same request cannot succeed, only a new "
                              "read-modify-write can");
            } else if (status == 412
                && (idempotency == IdempotencyClass::Conditional || idempotency == IdempotencyClass::GenerationMatch)) {
                // A cell is a single request: the same write with the same stale ETag cannot succeed.
                rule = Tr::tr("stale version: retrying the same write cannot succeed");
            } else if (rules.retryableStatuses.contains(status)) {
                retry = true;
                rule = Tr::tr("a retryable status");
            } else {
                rule = Tr::tr("not a retryable status");
            }
        } else {
            const NetworkFaultClass fault
                = seen.kind == Observation::Kind::Timeout ? NetworkFaultClass::Timeout : seen.fault;
            const FaultAction fallback = fault == NetworkFaultClass::BrokenStream || fault == NetworkFaultClass::Timeout
                ? FaultAction::RetryAfterDelay
                : FaultAction::GiveUp;
            const FaultAction action = rules.networkActions.value(fault, fallback);
            retry = action != FaultAction::GiveUp;
            immediate = action == FaultAction::RetryImmediately;
            rule = Tr::tr("%1 for %2").arg(faultActionName(action), networkFaultClassName(fault));
        }
        // A request that never left the client cannot have been applied.
        const bool notSent = seen.kind == Observation::Kind::Network && isNotSentFault(seen.fault);
        if (retry && !repeatable && notSent) {
            rule = Tr::tr("%1; POST was never sent, so it is safe to repeat").arg(rule);
        } else if (retry && !repeatable) {
            retry = false;
            rule = Tr::tr("%1, but %2").arg(rule, idempotencyReason);
        } else if (retry) {
            rule = Tr::tr("%1; %2").arg(rule, idempotencyReason);
        }

        // The breaker and the budget hear of every attempt before the decision.
        const bool breakerFailure = seen.kind != Observation::Kind::Response || seen.status.value_or(0) >= 500
            || seen.status.value_or(0) == 429;
        if (breaker.enabled) {
            if (breakerFailure) {
                bool trip = halfOpen;
                if (!halfOpen) {
                    ++consecutive;
                    window.append(true);
                    while (window.size() > std::max(1, breaker.window))
                        window.removeFirst();
                    const double ratio = double(window.count(true)) / double(window.size());
                    trip = (breaker.consecutiveFailures > 0 && consecutive >= breaker.consecutiveFailures)
                        || (breaker.failureRatio > 0.0 && window.size() >= breaker.window
                            && ratio >= breaker.failureRatio);
                }
                if (trip) {
                    breakerOpen = true;
                    sinceOpenMin = sinceOpenMax = 0.0;
                }
                halfOpen = false;
            } else if (!halfOpen) {
                consecutive = 0;
                window.append(false);
                while (window.size() > std::max(1, breaker.window))
                    window.removeFirst();
            }
        }
        if (budget.kind == RetryBudgetKind::GrpcThrottling && breakerFailure)
            tokens = std::max(0.0, tokens - 1.0);

        if (success) {
            e.explanation.append(Tr::tr("%1: %2 - %3").arg(attempt, seen.what, rule));
            endings.add(RequestOutcome::Succeeded, attempts, seen.status);
            break;
        }
        if (!retry) {
            e.explanation.append(Tr::tr("%1: %2 - %3: give up").arg(attempt, seen.what, rule));
            endings.add(RequestOutcome::GaveUp, attempts, seen.status);
            break;
        }
        ++failures;
        const int allowed = policy.algorithm == BackoffAlgorithm::Immediate
            ? (policy.maxAttempts > 0 ? std::min(policy.maxAttempts, 2) : 2)
            : policy.maxAttempts;
        if (allowed > 0 && failures >= allowed) {
            e.explanation.append(Tr::tr("%1: %2 - %3, but that was the last of %n attempt(s)", nullptr, allowed)
                                     .arg(attempt, seen.what, rule));
            endings.add(RequestOutcome::AttemptsExhausted, attempts, seen.status);
            break;
        }

        // The wait: once at once for a rare fault, else the backoff, replaced
        // by a bounded Retry-After.
        Backoff::Range wait;
        if (immediate && !usedImmediate) {
            usedImmediate = true;
        } else {
            wait = Backoff::delayRange(policy, retryIndex++);
            const double factor = seen.kind != Observation::Kind::Response
                ? rules.delayFactor(seen.kind == Observation::Kind::Timeout ? NetworkFaultClass::Timeout : seen.fault)
                : rules.statusDelayFactor(seen.status.value_or(0));
            if (factor != 1.0) {
                wait = {Backoff::scaledDelayMs(policy, wait.minMs, factor),
                    Backoff::scaledDelayMs(policy, wait.maxMs, factor)};
            }
        }
        QString waitText = wait.minMs == wait.maxMs
            ? Tr::tr("%1 ms").arg(wait.minMs, 0, 'f', 1)
            : Tr::tr("%1-%2 ms").arg(wait.minMs, 0, 'f', 1).arg(wait.maxMs, 0, 'f', 1);
        if (seen.retryAfterSeconds && rules.honourRetryAfter) {
            const double asked = *seen.retryAfterSeconds * 1000.0;
            if (policy.deadlineMs > 0.0) {
                if (asked > policy.deadlineMs - elapsedMin) {
                    e.explanation.append(
                        Tr::tr("%1: %2 - Retry-After is beyond the deadline: give up at once").arg(attempt, seen.what));
                    endings.add(RequestOutcome::DeadlineExceeded, attempts, seen.status);
                    break;
                }
                if (asked > policy.deadlineMs - elapsedMax)
                    endings.add(RequestOutcome::DeadlineExceeded, attempts, seen.status);
            }
            const double bounded = std::min(asked, rules.maxRetryAfterMs);
            wait = {bounded, bounded};
            waitText = Tr::tr("%1 ms as Retry-After asks").arg(bounded, 0, 'f', 0);
            if (k == 0)
                e.retryAfterDelayMs = bounded;
        }
        if (policy.deadlineMs > 0.0) {
            if (wait.minMs >= policy.deadlineMs - elapsedMin) {
                e.explanation.append(
                    Tr::tr("%1: %2 - %3, but the wait would cross the deadline").arg(attempt, seen.what, rule));
                endings.add(RequestOutcome::DeadlineExceeded, attempts, seen.status);
                break;
            }
            if (wait.maxMs >= policy.deadlineMs - elapsedMax)
                endings.add(RequestOutcome::DeadlineExceeded, attempts, seen.status, false);
        }
        if (budget.kind == RetryBudgetKind::AwsStandard) {
            const double cost = seen.kind == Observation::Kind::Timeout ? budget.awsTimeoutCost : budget.awsRetryCost;
            if (tokens < cost) {
                e.explanation.append(Tr::tr("%1: %2 - the retry budget is exhausted").arg(attempt, seen.what));
                endings.add(RequestOutcome::BudgetExhausted, attempts, seen.status);
                break;
            }
            tokens -= cost;
        } else if (budget.kind == RetryBudgetKind::GrpcThrottling && !(tokens > budget.grpcMaxTokens / 2.0)) {
            e.explanation.append(Tr::tr("%1: %2 - retries are throttled").arg(attempt, seen.what));
            endings.add(RequestOutcome::BudgetExhausted, attempts, seen.status);
            break;
        }

        e.explanation.append(Tr::tr("%1: %2 - %3: retry after %4").arg(attempt, seen.what, rule, waitText));
        // A timer may fire a fraction of a millisecond early; the lower bound allows for it.
        elapsedMin += std::max(0.0, wait.minMs - 1.0);
        elapsedMax += wait.maxMs;
        e.longestWaitMs = std::max(e.longestWaitMs, wait.maxMs);
        sinceOpenMin += wait.minMs;
        sinceOpenMax += wait.maxMs + attemptUpperMs;
        if (k + 1 == modelledAttempts) {
            // Still retrying: only the deadline ends it, after an unknown number of attempts.
            endings.add(RequestOutcome::DeadlineExceeded, attempts + 1, std::nullopt, false);
            endings.maxAttempts = -1;
            finished = true;
        }
    }

    if (endings.outcomes.isEmpty()) // unreachable: every path adds an ending
        endings.add(RequestOutcome::GaveUp, 1, std::nullopt, false);
    e.outcomes = endings.outcomes;
    e.minAttempts = endings.minAttempts;
    e.maxAttempts = endings.maxAttempts;
    e.deadlineMs = std::max(0.0, policy.deadlineMs);
    e.longestMs = policy.deadlineMs > 0.0 ? std::min(elapsedMax, policy.deadlineMs + attemptUpperMs) : elapsedMax;
    e.checkFinalStatus = endings.statusKnown;
    e.finalStatus = endings.statusKnown ? endings.status : std::nullopt;
    return e;
}

QList<ConformanceCase> cases(const BackoffPolicy &policy)
{
    QList<ConformanceCase> list;
    for (const FaultSequence &sequence : sequences()) {
        for (IdempotencyClass idempotency : idempotencyClasses())
            list.append({sequence, idempotency, expect(policy, sequence, idempotency)});
    }
    return list;
}

ConformanceVerdict judge(
    const ConformanceCase &cell, const RequestResult &result, const QList<AttemptRecord> &attempts, int stepsUsed)
{
    const ConformanceExpectation &e = cell.expected;
    QStringList misses;
    if (!e.outcomes.contains(result.outcome))
        misses.append(Tr::tr("it ended %1").arg(requestOutcomeName(result.outcome)));
    // Fewer attempts than modelled before the deadline: right only if the time
    // really ran out (slow attempts, late timers), not if it gave up early.
    const bool deadlineReached = result.outcome == RequestOutcome::DeadlineExceeded
        && e.outcomes.contains(RequestOutcome::DeadlineExceeded) && e.deadlineMs > 0.0
        && result.totalMs() + e.longestWaitMs + 1.0 >= e.deadlineMs;
    const bool tooFew = result.attempts < e.minAttempts && !deadlineReached;
    if (tooFew || (e.maxAttempts >= 0 && result.attempts > e.maxAttempts))
        misses.append(Tr::tr("it made %n attempt(s)", nullptr, result.attempts));
    if (e.checkFinalStatus && result.finalStatus != e.finalStatus)
        misses.append(Tr::tr("it ended with %1").arg(statusPhrase(result.finalStatus)));
    if (e.retryAfterDelayMs && result.attempts >= 2) {
        const auto second = std::find_if(
            attempts.cbegin(), attempts.cend(), [](const AttemptRecord &a) { return a.attemptIndex == 1; });
        if (second != attempts.cend() && std::abs(second->plannedDelayMs - *e.retryAfterDelayMs) > 1.0) {
            misses.append(Tr::tr("it waited %1 ms before the second attempt instead of the %2 ms Retry-After asks")
                              .arg(second->plannedDelayMs, 0, 'f', 0)
                              .arg(*e.retryAfterDelayMs, 0, 'f', 0));
        }
    }
    const int expectedSteps = std::min(result.attempts, e.scriptSteps);
    if (e.scriptSteps > 0 && stepsUsed >= 0 && stepsUsed != expectedSteps) {
        misses.append(Tr::tr("the server played %1 of its scripted steps for %n attempt(s)", nullptr, result.attempts)
                          .arg(stepsUsed));
    }

    QString observed = Tr::tr("%1 after %n attempt(s), %2", nullptr, result.attempts)
                           .arg(requestOutcomeName(result.outcome), statusPhrase(result.finalStatus));
    if (!attempts.isEmpty() && !attempts.constLast().cause.isEmpty())
        observed += Tr::tr(" (last cause %1)").arg(attempts.constLast().cause);

    ConformanceVerdict verdict;
    verdict.passed = misses.isEmpty();
    const QString rules = e.explanation.join(QLatin1Char('\n'));
    if (verdict.passed) {
        verdict.message = Tr::tr("as expected: %1\n%2").arg(observed, rules);
    } else {
        verdict.message = Tr::tr("expected %1, but %2\nobserved: %3\n%4")
                              .arg(e.summary(), misses.join(Tr::tr("; ")), observed, rules);
    }
    return verdict;
}

} // namespace Conformance

} // namespace RetryLab::Core
