#pragma once

#include "core/http/httpheaders.h"
#include "core/http/retryafter.h"
#include "core/policy/backoffpolicy.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QNetworkReply>
#include <QPair>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

/// What one attempt produced, as far as the retry decision cares.
struct AttemptObservation
{
    QByteArray method = "GET";
    /// The user marked the request idempotent.
    bool markedIdempotent = false;
    /// The attempt belongs to a read-modify-write sequence, which a stale
    /// version (409 ABORTED, 412) restarts from the read.
    bool readModifyWrite = false;
    /// Which step of a read-modify-write this attempt is. The read changes nothing,
    /// whatever its method (IAM reads with POST :getIamPolicy), so it may be repeated.
    enum class Step { None, Read, Write };
    Step step = Step::None;
    /// The write carries the version it read inside its body (IAM's setIamPolicy sends
    /// the policy with its etag): it is conditional, as a write with If-Match is.
    bool versionInBody = false;
    /// Request headers (Idempotency-Key and preconditions make POST safe).
    HeaderList requestHeaders;
    /// The request's URL: Cloud Storage preconditions travel in its query.
    QUrl url;

    /// HTTP status, if a response arrived.
    std::optional<int> httpStatus;
    QNetworkReply::NetworkError networkError = QNetworkReply::NoError;
    /// Set by the executor when it cut the attempt itself (Qt reports these
    /// as OperationCanceledError; the classifier must not confuse them).
    enum class CutBy { Nothing, AttemptTimeout, Deadline, User };
    CutBy cutBy = CutBy::Nothing;
    /// The body ended before its announced length.
    bool brokenStream = false;
    /// The answer is a redirect the executor did not follow (to another scheme,
    /// from https to http, or one too many): not the resource that was asked for.
    bool redirectRefused = false;

    HeaderList responseHeaders;
    /// The first bytes of the response body (for {"status":"ABORTED"}).
    QByteArray bodyPrefix;
    /// The whole body as the executor kept it (the record's, shared, not copied),
    /// for ClassificationRules::retryOnResponse; empty: bodyPrefix is all there is.
    QByteArray body;
    /// Wall time when the response arrived, for Retry-After dates.
    QDateTime receivedAt;
};

/// The decision for one attempt, with the reason shown to the user.
struct Classification
{
    enum class Decision {
        Success,
        RetryAfterDelay,
        RetryImmediately,
        GiveUp,
    };
    Decision decision = Decision::GiveUp;
    /// Short machine-readable cause: "http-503", "connection-reset", "not-idempotent", ...
    QString cause;
    /// A sentence for people: why this was (not) retried.
    QString reason;
    /// The fault class, for network faults.
    std::optional<NetworkFaultClass> networkFault;
    /// The status of the answer, when one arrived (its delay factor applies).
    std::optional<int> httpStatus;
    /// 409 ABORTED / 412 in a read-modify-write sequence: it must start again
    /// from the read. A single request gives up instead.
    bool restartSequence = false;
    /// The fault happened before any byte of the request left the client
    /// (connection refused, DNS, TLS handshake): the server cannot have acted,
    /// so retrying is safe whatever the method.
    bool notSent = false;
    /// Parsed Retry-After, if the response carried one.
    std::optional<RetryAfter> retryAfter;
    /// With ClassificationRules::honourRateLimitReset: the wait until the rate
    /// limit's quota is whole again, as the response's rate-limit fields tell it,
    /// when they say none is left (or, on an answer the policy retries, give a
    /// reset without a count). The planner waits it when there is no usable
    /// Retry-After, bounded as Retry-After is.
    std::optional<RetryAfter> rateLimitReset;
    /// The rate-limit fields say remaining 0 and when it resets: the executor
    /// holds back further attempts to the host until then.
    bool rateLimitExhausted = false;
    /// The index of the ClassificationRules::retryOnResponse condition the answer met.
    std::optional<int> responseCondition;
    /// Whether a fallback endpoint may be asked after this attempt. A fallback is
    /// one more attempt: only after a fault the policy retries, of a request that
    /// may be repeated (isRetry()), or when the total deadline cut an attempt of a
    /// request that may be repeated. Never after a permanent answer (400, 401, a
    /// stale 409) or a POST whose outcome is unknown.
    bool fallbackAllowed = false;
    /// Whether the request may be sent again after this attempt, whatever its
    /// fault: it is idempotent or safe by the rules (idempotencyOf), or this
    /// attempt never left the client (notSent). A fallback that the request's
    /// own list triggers (RequestSpec::fallbackOn) needs this, as a retry does.
    bool repeatable = false;

    bool isRetry() const { return decision == Decision::RetryAfterDelay || decision == Decision::RetryImmediately; }
};

QString decisionName(Classification::Decision decision);
QString cutByName(AttemptObservation::CutBy cut);

/// Maps a Qt network error to RetryLab's fault classes.
NetworkFaultClass classifyNetworkError(QNetworkReply::NetworkError error);

/// True for the faults that end an attempt before the request was sent:
/// connection refused, host not found, TLS handshake failure. The others
/// (reset, timeout, broken stream, ...) happen after it was sent, with an
/// unknown outcome.
bool isNotSentFault(NetworkFaultClass fault);

/// The precondition that makes a request conditional, so that a repeat cannot
/// apply twice: "If-Match", "If-Unmodified-Since", Cloud Storage's
/// "ifGenerationMatch" / "ifMetagenerationMatch" query parameters or
/// "x-goog-if-generation-match" / "x-goog-if-metageneration-match" headers.
/// Empty when there is none.
QString preconditionOf(const HeaderList &requestHeaders, const QUrl &url);

/// True for methods that RFC 9110 defines as idempotent.
bool isIdempotentMethod(const QByteArray &method);

/// Why a request may or may not be retried; empty reason when it may.
struct IdempotencyVerdict
{
    bool retryable = true;
    QString reason;
};
IdempotencyVerdict idempotencyOf(const AttemptObservation &observation, const ClassificationRules &rules);

/// Decides success, retry after a delay, retry at once, or give up.
Classification classify(const AttemptObservation &observation, const ClassificationRules &rules);

} // namespace RetryLab::Core
