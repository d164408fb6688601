#pragma once

#include "core/executor/hoprequest.h"
#include "core/http/httpheaders.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/classifier.h"
#include "core/record/attemptrecord.h"

#include <QByteArray>
#include <QString>

namespace RetryLab::Core {

class RandomSource;
class RetryBudget;

/// What happens after an attempt: finish, go on with the next step of a
/// read-modify-write, or retry after a delay. RetryExecutor carries requests
/// through sockets and timers; every decision it makes between attempts is
/// taken here, as a function of values (time is a parameter, randomness comes
/// from the RandomSource handed in), so that it can be tested without a network.
namespace RetryPlanner {

/// Where a logical request stands between its attempts: everything the next
/// decision depends on besides the attempt itself and the policy.
struct State
{
    int failures = 0; ///< failed tries so far (each led to a retry or to giving up)
    qint64 retryIndex = 0; ///< n of the next backoff delay
    double previousDelayMs = -1.0; ///< the last backoff drawn (decorrelated jitter), -1 before the first
    bool usedImmediateRetry = false;

    // Read-modify-write.
    QString step; ///< "read" or "write"; empty for a single request
    int sequenceRound = 0; ///< restarts of the sequence so far
    QByteArray etag; ///< of the last read (its header, or its body's field)
    qint64 readValue = 0; ///< the integer value of the last read
    QByteArray readDocument; ///< the body of the last read, compact, which the write sends back changed

    friend bool operator==(const State &, const State &) = default;
};

/// The state of a request before its first attempt.
State initialState(const RequestSpec &spec);

/// The request the next attempt sends: the spec's own, with the method in
/// upper case, or for a read-modify-write the step's (ReadModifyWriteShape):
/// the read (GET, with the spec's body if any), then the write (PUT, or the
/// shape's method and URL) of the document read with its value increased by
/// the increment, with If-Match when the version is the ETag header, inside
/// the shape's envelope if it has one.
HopRequest attemptRequest(const RequestSpec &spec, const State &state);

/// What the planner needs to know about the attempt that just ended, besides
/// its classification.
struct Attempt
{
    /// How it ended, after the executor's corrections (a broken body is a NetworkError).
    AttemptEnd end = AttemptEnd::Response;
    HeaderList responseHeaders;
    QByteArray body; ///< what the executor kept of the response body
    double elapsedMs = 0.0; ///< since the request's first attempt started
};

/// The decision after one attempt.
struct Decision
{
    enum class Action {
        Finish, ///< the request ends with `outcome` and `reason`
        NextStep, ///< the read of a read-modify-write succeeded: the write goes out at once
        Retry, ///< another attempt after `nextDelayMs`
    };
    Action action = Action::Finish;
    /// The request's state from now on.
    State state;

    /// What the attempt's record says: the classification's decision and
    /// reason unless the planner overrides them, and the delay before the next
    /// attempt (-1 when none follows).
    Classification::Decision recordDecision = Classification::Decision::GiveUp;
    QString recordReason;
    double nextDelayMs = -1.0;

    /// Finish: the request's outcome and reason. Retry: the reason
    /// retryScheduled carries, "<what failed> (<where the delay comes from>)".
    RequestOutcome outcome = RequestOutcome::GaveUp;
    QString reason;

    /// Retry: attempts left after this one; -1 when only a deadline bounds them.
    int attemptsLeft = -1;
    /// Retry: what RetryBudget::tryAcquireRetry(retryAfterTimeout) takes for
    /// it (the budget was asked on a copy; the executor pays).
    double retryCost = 0.0;
    bool retryAfterTimeout = false;
};

/// Decides what follows an attempt of a request in `state`, classified as
/// `classification`, under `policy`, with the retry budget as it is now.
/// Draws from `random` exactly when a backoff delay is computed.
Decision decide(const State &state, const RequestSpec &spec, const Attempt &attempt,
    const Classification &classification, const BackoffPolicy &policy, const RetryBudget &budget, RandomSource &random);

/// Whether the attempt classified as `classification` lets the request move on
/// to a fallback once the policy ends it, and which rule said so.
struct FallbackVerdict
{
    bool allowed = false;
    /// With RequestSpec::fallbackOn set: the entry the attempt's fault matched
    /// (also when the request may not be repeated); empty otherwise.
    QString trigger;
    /// Why not, when not allowed: a clause for the request's reason.
    QString refusal;
};

/// Without RequestSpec::fallbackOn, the policy's rule: Classification::fallbackAllowed
/// (a fault the policy retries, of a request that may be repeated). With it, a
/// fault it lists (FallbackTriggers::match), of a request that may be repeated
/// (Classification::repeatable): the list replaces the policy's transient faults,
/// never the idempotency rules.
FallbackVerdict fallbackVerdict(const RequestSpec &spec, const Classification &classification);

/// Whether a request the policy ended with `outcome` moves on to a fallback
/// endpoint: after giving up (attempts exhausted, deadline, circuit open, budget
/// spent), not after a success, a cancel or an invalid request; only when the
/// last attempt allows one (fallbackVerdict; `lastAttemptAllows` is true when
/// no attempt was made); and only while RequestSpec::fallbackUrls has one after
/// `current` (0: the request's URL; n: its n-th fallback).
bool takesFallback(const RequestSpec &spec, int current, RequestOutcome outcome, bool lastAttemptAllows);

/// "fallback 2 of 3 (http://host:port/path)", with no credentials or query.
QString fallbackName(const RequestSpec &spec, int fallback);

/// The decision after the attempt at fallback endpoint `fallback` (1-based):
/// one attempt each, so it finishes, Succeeded on a success and GaveUp on
/// anything else (the executor then tries the next fallback, if any), Cancelled
/// when the user cancelled it (`end`).
Decision decideFallback(
    const State &state, const RequestSpec &spec, int fallback, AttemptEnd end, const Classification &classification);

} // namespace RetryPlanner

} // namespace RetryLab::Core
