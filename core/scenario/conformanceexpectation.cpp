// The conformance matrix's model: what a policy's rules say each cell must end
// as, worked out attempt by attempt from the server's script (what the client
// sees of each step, what the rules make of it, the waits, the deadline, the
// budget and the breaker), apart from the classifier and planner it checks.
#include "core/faultserver/faultinstruction.h"
#include "core/policy/backoff.h"
#include "core/policy/classifier.h"
#include "core/scenario/conformancesuite.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace RetryLab::Core {

namespace {

// Upper bound of one attempt on loopback, for the deadline arithmetic; the
// server answers in well under a millisecond, so this is very generous.
constexpr double attemptUpperMs = 50.0;
// Modelling stops here; a policy that is still retrying is bounded by its deadline.
constexpr int modelledAttempts = 2000;

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

// The class of a network fault the client saw (a timeout is one of its own).
NetworkFaultClass faultOf(const Observation &seen)
{
    return seen.kind == Observation::Kind::Timeout ? NetworkFaultClass::Timeout : seen.fault;
}

// What the rules do about a network fault; one they do not name is retried after
// a delay when it is a timeout or a broken stream, and given up on otherwise.
FaultAction networkAction(const ClassificationRules &rules, NetworkFaultClass fault)
{
    const FaultAction fallback = fault == NetworkFaultClass::BrokenStream || fault == NetworkFaultClass::Timeout
        ? FaultAction::RetryAfterDelay
        : FaultAction::GiveUp;
    return rules.networkActions.value(fault, fallback);
}

// The backoff before retry `retryIndex`, scaled by the rules' factor for what was seen.
Backoff::Range waitAfter(const BackoffPolicy &policy, const Observation &seen, qint64 retryIndex)
{
    const Backoff::Range wait = Backoff::delayRange(policy, retryIndex);
    const double factor = seen.kind != Observation::Kind::Response
        ? policy.classification.delayFactor(faultOf(seen))
        : policy.classification.statusDelayFactor(seen.status.value_or(0));
    if (factor == 1.0)
        return wait;
    return {Backoff::scaledDelayMs(policy, wait.minMs, factor), Backoff::scaledDelayMs(policy, wait.maxMs, factor)};
}

// The expectation's ends, limits and timing from the endings the model found.
void fillIn(ConformanceExpectation &e, const Endings &endings, const BackoffPolicy &policy, double elapsedMax)
{
    e.outcomes = endings.outcomes;
    e.minAttempts = endings.minAttempts;
    e.maxAttempts = endings.maxAttempts;
    e.deadlineMs = std::max(0.0, policy.deadlineMs);
    e.longestMs = policy.deadlineMs > 0.0 ? std::min(elapsedMax, policy.deadlineMs + attemptUpperMs) : elapsedMax;
    e.checkFinalStatus = endings.statusKnown;
    e.finalStatus = endings.statusKnown ? endings.status : std::nullopt;
}

// What the client sees of attempt `k` (0-based) of a single request: its scripted
// step, the path's answer past the script, or a refused connection for an
// unreachable sequence.
Observation observeAttempt(
    const QList<FaultInstruction> &steps, int k, const FaultSequence &sequence, const BackoffPolicy &policy)
{
    if (sequence.unreachable) {
        Observation seen;
        seen.kind = Observation::Kind::Network;
        seen.fault = NetworkFaultClass::ConnectionRefused;
        seen.what = Tr::tr("connection refused");
        return seen;
    }
    return observe(k < steps.size() ? steps[k] : FaultInstruction(), sequence.thenStatus, policy);
}

// The retry budget's tokens before the first attempt.
double initialTokens(const RetryBudgetSettings &budget)
{
    switch (budget.kind) {
    case RetryBudgetKind::AwsStandard:
        return budget.awsCapacity;
    case RetryBudgetKind::GrpcThrottling:
        return budget.grpcMaxTokens;
    case RetryBudgetKind::None:
        break;
    }
    return 0.0;
}

// What the retry rules make of one step of a single request (docs/executor.md,
// "What is retried"): a success, a fault to repeat (at once or after a delay), or
// the end, and the rule that says so.
struct StepVerdict
{
    bool success = false;
    bool retry = false;
    bool immediate = false;
    QString rule;
};

StepVerdict judgeStep(const Observation &seen, const ClassificationRules &rules, IdempotencyClass idempotency,
    bool repeatable, const QString &idempotencyReason)
{
    StepVerdict v;
    if (seen.kind == Observation::Kind::Response) {
        const int status = *seen.status;
        if (status >= 200 && status < 400) {
            v.success = true;
            v.rule = Tr::tr("success");
        } else if (seen.aborted) {
            // IAM's rule: the whole read-modify-write starts again; a cell is a single request, which cannot
            // re-read.
            v.rule = Tr::tr("409 ABORTED: a concurrent writer won; the same request cannot succeed, only a new "
                            "read-modify-write can");
        } else if (status == 412
            && (idempotency == IdempotencyClass::Conditional || idempotency == IdempotencyClass::GenerationMatch)) {
            // A cell is a single request: the same write with the same stale ETag cannot succeed.
            v.rule = Tr::tr("stale version: retrying the same write cannot succeed");
        } else if (rules.retryableStatuses.contains(status)) {
            v.retry = true;
            v.rule = Tr::tr("a retryable status");
        } else {
            v.rule = Tr::tr("not a retryable status");
        }
    } else {
        const NetworkFaultClass fault = faultOf(seen);
        const FaultAction action = networkAction(rules, fault);
        v.retry = action != FaultAction::GiveUp;
        v.immediate = action == FaultAction::RetryImmediately;
        v.rule = Tr::tr("%1 for %2").arg(faultActionName(action), networkFaultClassName(fault));
    }
    // A request that never left the client cannot have been applied.
    const bool notSent = seen.kind == Observation::Kind::Network && isNotSentFault(seen.fault);
    if (v.retry && !repeatable && notSent) {
        v.rule = Tr::tr("%1; POST was never sent, so it is safe to repeat").arg(v.rule);
    } else if (v.retry && !repeatable) {
        v.retry = false;
        v.rule = Tr::tr("%1, but %2").arg(v.rule, idempotencyReason);
    } else if (v.retry) {
        v.rule = Tr::tr("%1; %2").arg(v.rule, idempotencyReason);
    }
    return v;
}

// A hedged single request (BackoffPolicy::hedging): the answers of the fault
// server on loopback come long before a hedging delay of attemptUpperMs or more,
// so each attempt has ended when the next goes out, at once after an answer the
// rules would retry (a non-fatal one); any other answer ends the request. A
// shorter delay lets attempts overlap and end in any order: the model then
// bounds the attempts only.
ConformanceExpectation expectHedged(const BackoffPolicy &policy, const FaultSequence &sequence,
    IdempotencyClass idempotency, const QString &idempotencyReason)
{
    ConformanceExpectation e;
    const auto parsed = FaultInstruction::parseList(sequence.steps);
    const QList<FaultInstruction> steps = parsed ? parsed.value() : QList<FaultInstruction>();
    e.scriptSteps = static_cast<int>(steps.size());
    const ClassificationRules &rules = policy.classification;
    const RetryBudgetSettings &budget = policy.retryBudget;
    const int allowed = policy.hedging.maxAttempts;
    bool overlap = policy.hedging.delayMs < attemptUpperMs;
    double tokens = initialTokens(budget);
    Endings endings;
    double elapsedMax = 0.0;
    for (int k = 0; k < allowed; ++k) {
        const QString attempt = Tr::tr("attempt %1").arg(k + 1);
        const Observation seen = observeAttempt(steps, k, sequence, policy);
        elapsedMax += std::min(seen.durationMs, policy.hedging.delayMs) + attemptUpperMs;
        // A step slower than the hedging delay (a delay, a drip, a stall) is still out when the next goes.
        if (seen.durationMs >= policy.hedging.delayMs)
            overlap = true;
        const StepVerdict verdict = judgeStep(seen, rules, idempotency, true, idempotencyReason);
        if (verdict.success) {
            e.explanation.append(Tr::tr("%1: %2 - %3: it wins").arg(attempt, seen.what, verdict.rule));
            endings.add(RequestOutcome::Succeeded, k + 1, seen.status);
            break;
        }
        if (!verdict.retry) {
            e.explanation.append(Tr::tr("%1: %2 - %3: fatal, the request ends").arg(attempt, seen.what, verdict.rule));
            endings.add(RequestOutcome::GaveUp, k + 1, seen.status);
            break;
        }
        // Not fatal: the breaker's failures cost gRPC's throttling a token.
        if (budget.kind == RetryBudgetKind::GrpcThrottling)
            tokens = std::max(0.0, tokens - 1.0);
        if (k + 1 == allowed) {
            e.explanation.append(Tr::tr("%1: %2 - %3, and the last of %n hedged attempt(s)", nullptr, allowed)
                                     .arg(attempt, seen.what, verdict.rule));
            endings.add(RequestOutcome::AttemptsExhausted, k + 1, seen.status);
            break;
        }
        const bool refused = budget.kind == RetryBudgetKind::AwsStandard
            ? tokens < budget.awsRetryCost
            : budget.kind == RetryBudgetKind::GrpcThrottling && !(tokens > budget.grpcMaxTokens / 2.0);
        if (refused) {
            e.explanation.append(
                Tr::tr("%1: %2 - the retry budget refuses a further hedged attempt").arg(attempt, seen.what));
            endings.add(RequestOutcome::BudgetExhausted, k + 1, seen.status);
            break;
        }
        if (budget.kind == RetryBudgetKind::AwsStandard)
            tokens -= budget.awsRetryCost;
        e.explanation.append(Tr::tr("%1: %2 - %3: not fatal, the next hedged attempt goes out at once")
                                 .arg(attempt, seen.what, verdict.rule));
        if (policy.deadlineMs > 0.0 && elapsedMax >= policy.deadlineMs)
            endings.add(RequestOutcome::DeadlineExceeded, k + 1, seen.status, false);
    }
    if (endings.outcomes.isEmpty())
        endings.add(RequestOutcome::GaveUp, 1, std::nullopt, false);
    if (policy.circuitBreaker.enabled) {
        // Every attempt feeds the breaker, which may refuse the next hedge.
        e.explanation.append(Tr::tr("the circuit breaker may open on the failures and refuse a further attempt"));
        endings.add(RequestOutcome::CircuitOpen, 1, std::nullopt, false);
    }
    if (overlap) {
        e.explanation.append(Tr::tr("an answer may take longer here than the hedging delay of %1: attempts may "
                                    "overlap and answer in any order")
                                 .arg(DurationText::format(policy.hedging.delayMs)));
        endings.minAttempts = 1;
        endings.maxAttempts = allowed;
        endings.statusKnown = false;
    }
    fillIn(e, endings, policy, elapsedMax);
    return e;
}

// A read-modify-write: the script plays its reads and writes in turn. A read
// that passes leads to the write; a write whose version is stale (409 ABORTED,
// a 412 to its If-Match) starts the whole sequence again, as does any retried
// write (a new read never hurts); every such failure counts against the
// attempt limit, a restart being a retry. IAM's retry strategy: for a 409
// ABORTED "you should always retry the entire read-modify-write series of
// requests, using truncated exponential backoff with introduced jitter".
ConformanceExpectation expectReadModifyWrite(const BackoffPolicy &policy, const FaultSequence &sequence)
{
    ConformanceExpectation e;
    const auto parsed = FaultInstruction::parseList(sequence.steps);
    const QList<FaultInstruction> steps = parsed ? parsed.value() : QList<FaultInstruction>();
    e.scriptSteps = static_cast<int>(steps.size());
    const ClassificationRules &rules = policy.classification;
    const bool ifMatch = sequence.readModifyWrite == FaultSequence::ReadModifyWrite::IfMatch;
    const int allowed = policy.algorithm == BackoffAlgorithm::Immediate
        ? (policy.maxAttempts > 0 ? std::min(policy.maxAttempts, 2) : 2)
        : policy.maxAttempts;

    Endings endings;
    int failures = 0;
    qint64 retryIndex = 0;
    double elapsedMin = 0.0;
    double elapsedMax = 0.0;
    double awsTokens = policy.retryBudget.awsCapacity;
    bool reading = true;
    for (int k = 0; k < modelledAttempts; ++k) {
        const QString attempt = Tr::tr("attempt %1 (%2)").arg(k + 1).arg(reading ? Tr::tr("read") : Tr::tr("write"));
        const FaultInstruction step = k < steps.size() ? steps[k] : FaultInstruction();
        const Observation seen = observe(step, 200, policy);
        elapsedMin += seen.durationMs;
        elapsedMax += seen.durationMs + attemptUpperMs;
        const int status = seen.status.value_or(0);
        const bool answered = seen.kind == Observation::Kind::Response;
        if (answered && status >= 200 && status < 400) {
            if (reading) {
                e.explanation.append(Tr::tr("%1: %2 - the version read; write it back").arg(attempt, seen.what));
                reading = false;
                continue;
            }
            e.explanation.append(Tr::tr("%1: %2 - the write landed").arg(attempt, seen.what));
            endings.add(RequestOutcome::Succeeded, k + 1, seen.status);
            break;
        }
        const bool stale = answered && !reading && (seen.aborted || (status == 412 && ifMatch));
        bool retry = false;
        QString rule;
        if (stale) {
            retry = rules.retryConflictAborted;
            rule = retry ? Tr::tr("a stale version: read, modify and write again")
                         : Tr::tr("a stale version, and the policy does not retry conflicts");
        } else if (answered && rules.retryableStatuses.contains(status)) {
            retry = true;
            rule = Tr::tr("a retryable status; the write carries the version it read, so it is conditional");
        } else if (!answered) {
            const NetworkFaultClass fault = faultOf(seen);
            const FaultAction action = networkAction(rules, fault);
            retry = action != FaultAction::GiveUp;
            rule = Tr::tr("%1 for %2").arg(faultActionName(action), networkFaultClassName(fault));
        } else {
            rule = Tr::tr("not a retryable status");
        }
        if (!retry) {
            e.explanation.append(Tr::tr("%1: %2 - %3: give up").arg(attempt, seen.what, rule));
            endings.add(RequestOutcome::GaveUp, k + 1, seen.status);
            break;
        }
        ++failures;
        if (allowed > 0 && failures >= allowed) {
            e.explanation.append(Tr::tr("%1: %2 - %3, but that was the last of %n attempt(s)", nullptr, allowed)
                                     .arg(attempt, seen.what, rule));
            endings.add(RequestOutcome::AttemptsExhausted, k + 1, seen.status);
            break;
        }
        const Backoff::Range wait = waitAfter(policy, seen, retryIndex++);
        if (policy.deadlineMs > 0.0 && wait.minMs >= policy.deadlineMs - elapsedMin) {
            e.explanation.append(
                Tr::tr("%1: %2 - %3, but the wait would cross the deadline").arg(attempt, seen.what, rule));
            endings.add(RequestOutcome::DeadlineExceeded, k + 1, seen.status);
            break;
        }
        if (policy.deadlineMs > 0.0 && wait.maxMs >= policy.deadlineMs - elapsedMax)
            endings.add(RequestOutcome::DeadlineExceeded, k + 1, seen.status, false);
        if (policy.retryBudget.kind == RetryBudgetKind::AwsStandard) {
            // A conflict is no fault of the server's: it spends a retry's tokens all the same.
            const double cost = seen.kind == Observation::Kind::Timeout ? policy.retryBudget.awsTimeoutCost
                                                                        : policy.retryBudget.awsRetryCost;
            if (awsTokens < cost) {
                e.explanation.append(Tr::tr("%1: %2 - the retry budget is exhausted").arg(attempt, seen.what));
                endings.add(RequestOutcome::BudgetExhausted, k + 1, seen.status);
                break;
            }
            awsTokens -= cost;
        }
        e.explanation.append(Tr::tr("%1: %2 - %3: start again from the read after %4-%5 ms")
                                 .arg(attempt, seen.what, rule)
                                 .arg(wait.minMs, 0, 'f', 1)
                                 .arg(wait.maxMs, 0, 'f', 1));
        elapsedMin += std::max(0.0, wait.minMs - 1.0);
        elapsedMax += wait.maxMs;
        e.longestWaitMs = std::max(e.longestWaitMs, wait.maxMs);
        reading = true;
    }
    if (endings.outcomes.isEmpty()) // the model ran out of attempts: only a deadline ends it
        endings.add(RequestOutcome::DeadlineExceeded, modelledAttempts, std::nullopt, false);
    fillIn(e, endings, policy, elapsedMax);
    return e;
}

} // namespace

namespace Conformance {

ConformanceExpectation expect(const BackoffPolicy &policy, const FaultSequence &sequence, IdempotencyClass idempotency)
{
    if (sequence.readModifyWrite != FaultSequence::ReadModifyWrite::None)
        return expectReadModifyWrite(policy, sequence);
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
    // A hedging policy hedges what it may repeat; the rest goes out once, retried as ever.
    if (policy.hedging.enabled && repeatable)
        return expectHedged(policy, sequence, idempotency, idempotencyReason);

    Endings endings;
    int failures = 0;
    qint64 retryIndex = 0;
    bool usedImmediate = false;
    double elapsedMin = 0.0; // since the first attempt started, lower and upper bounds
    double elapsedMax = 0.0;
    double tokens = initialTokens(budget);
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

        const Observation seen = observeAttempt(steps, k, sequence, policy);
        const int attempts = k + 1;
        lastStatus = seen.status;
        elapsedMin += seen.durationMs;
        elapsedMax += seen.durationMs + attemptUpperMs;

        const StepVerdict verdict = judgeStep(seen, rules, idempotency, repeatable, idempotencyReason);
        const bool success = verdict.success;
        const bool retry = verdict.retry;
        const bool immediate = verdict.immediate;
        const QString &rule = verdict.rule;

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
            wait = waitAfter(policy, seen, retryIndex++);
        }
        QString waitText = wait.minMs == wait.maxMs
            ? DurationText::format(wait.minMs)
            : Tr::tr("%1 to %2").arg(DurationText::format(wait.minMs), DurationText::format(wait.maxMs));
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
            waitText = Tr::tr("%1 as Retry-After asks").arg(DurationText::format(bounded));
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
    fillIn(e, endings, policy, elapsedMax);
    return e;
}

} // namespace Conformance

} // namespace RetryLab::Core
