#pragma once

#include "core/grouping/observedattempt.h"
#include "core/policy/backoffpolicy.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// How sure an inference is, from 0 (a guess) to 1 (certain), with what it rests on.
struct Confidence
{
    double value = 0.0;
    QString evidence; ///< "delays 101, 198, 405 ms across 12 logical requests; spread 3 %"
};

/// The growth of the delays from one retry to the next.
enum class Growth { Unknown, None, Constant, Linear, Exponential };
/// The random part of the delays (see BackoffAlgorithm for the formulas).
enum class JitterKind { Unclear, None, Full, Equal, Additive, Proportional, Decorrelated };

/// Something observed or not, with the evidence either way.
struct Finding
{
    /// true / false when observed; none when the faults served gave no chance to see it.
    std::optional<bool> value;
    Confidence confidence;
    QString evidence;
};

/// What a client's retries say about its policy, inferred from its logical
/// requests and the faults they were served. Times in ms.
struct InferredPolicy
{
    int logicalRequests = 0; ///< the evidence: how many
    int retriedLogicalRequests = 0; ///< of them, how many had more than one attempt

    Growth growth = Growth::Unknown;
    Confidence growthConfidence;
    /// Fitted delay before retry n (n = 0 for the first retry): base * multiplier^n
    /// (Exponential), base * (n+1) (Linear), base (Constant), before the cap and jitter.
    std::optional<double> baseMs;
    Confidence baseConfidence;
    std::optional<double> multiplier;
    Confidence multiplierConfidence;
    std::optional<double> capMs; ///< a ceiling the delays stop growing at, if one was seen
    Confidence capConfidence;
    JitterKind jitter = JitterKind::Unclear;
    Confidence jitterConfidence;
    std::optional<double> additiveJitterMs; ///< Additive: the width J of term + U[0, J]
    std::optional<double> jitterFraction; ///< Proportional: f of term * U[1-f, 1+f]
    /// The first retry came at once and the growth started from the second
    /// (urllib3 1.26: backoff_factor * 2^(n-1), 0 for the first retry).
    bool firstRetryImmediate = false;
    /// Per retry index: the delays seen across logical requests (min, median, max, count).
    struct DelayStats
    {
        int retryIndex = 0;
        int count = 0;
        double minMs = 0.0;
        double medianMs = 0.0;
        double maxMs = 0.0;
    };
    QList<DelayStats> delays;

    /// Attempts (the first included) the client stops at when every attempt
    /// fails; none when no logical request was seen giving up. Announced limits
    /// (amz-sdk-request max=) are taken over measured ones.
    std::optional<int> maxAttempts;
    Confidence maxAttemptsConfidence;
    /// Longest time from the first attempt to the last, for a client that looks deadline-bound.
    std::optional<double> deadlineMs;
    /// Median time from the first arrival to the last answer of the logical requests it gave up on.
    std::optional<double> giveUpElapsedMs;

    Finding honoursRetryAfter; ///< delay >= the Retry-After it was sent, every time
    Finding retriesNonIdempotent; ///< retried POST/PATCH without an Idempotency-Key
    Finding retriesPermanentErrors; ///< retried 400, 401, 403, ... (not 404: IAM retries it)
    Finding retriesAfterReset; ///< retried after a reset or an empty reply
    Finding retriesAfterStall; ///< retried after a stall
    std::optional<double> stallGiveUpMs; ///< how long it waited on a stalled answer
    Finding waves; ///< retries of many logical requests line up in time (herd risk)

    /// The closest BackoffAlgorithm to growth and jitter, when both are known.
    std::optional<BackoffAlgorithm> algorithm() const;
    /// A policy that retries like this client, for the policy dock, the
    /// executor and the herd simulator; unknown values keep the defaults.
    BackoffPolicy toPolicy(const QString &clientName) const;
    QJsonObject toJson() const;
    /// Two or three sentences for people: "Exponential backoff from 100 ms, x2, capped at 1 s, full jitter; stops after
    /// 4 attempts."
    QString summary() const;
};

namespace PolicyInference {

/// Infers the policy from one client's logical requests (any order; attempts in
/// arrival order). Linear in the number of attempts, apart from sorting the
/// delays of each retry index. Deterministic. `timingNoiseMs`: how far the
/// machine's scheduling moves a delay (a loaded machine, tens of milliseconds),
/// which the jitter is judged above; the spread of a first retry that came at
/// once counts as such noise too.
InferredPolicy infer(const QList<LogicalRequest> &requests, double timingNoiseMs = 0.0);

QString growthName(Growth growth); ///< "unknown", "none", "constant", "linear", "exponential"
QString jitterName(
    JitterKind jitter); ///< "unclear", "none", "full", "equal", "additive", "proportional", "decorrelated"

} // namespace PolicyInference

} // namespace RetryLab::Core
