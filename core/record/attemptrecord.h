#pragma once

#include "core/auth/authspec.h"
#include "core/http/httpheaders.h"
#include "core/policy/classifier.h"
#include "core/record/bodysource.h"
#include "core/record/responsecheck.h"
#include "core/record/transportoptions.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QNetworkReply>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <memory>
#include <optional>

namespace RetryLab::Core {

/// How a read-modify-write reads and writes its resource. The defaults fit
/// RetryLab's /occ endpoints and any API that answers a GET with {"value": n}
/// and an ETag header and takes a PUT with If-Match; the fields fit other
/// shapes, such as a Cloud IAM policy (its etag a field of the body, the write a
/// POST of {"policy": ...} to another URL, a conflict answered 409 ABORTED).
struct ReadModifyWriteShape
{
    QByteArray readMethod = "GET";
    QByteArray writeMethod = "PUT";
    /// Where the write goes; empty: the request's URL.
    QUrl writeUrl;
    /// JSON pointer (RFC 6901) to the integer the write changes by RequestSpec::increment.
    QString valuePointer = QStringLiteral("/value");
    /// Empty: the version is the read's ETag header, which the write sends as
    /// If-Match. A JSON pointer ("/etag"): the version is that field of the read's
    /// body, which the write sends back in the document as it was read.
    QString etagPointer;
    /// Empty: the write's body is the document read, changed. A name ("policy"):
    /// the write's body is {"policy": document}, as IAM's setIamPolicy takes it.
    QString writeEnvelope;

    bool isDefault() const { return *this == ReadModifyWriteShape{}; }
    friend bool operator==(const ReadModifyWriteShape &, const ReadModifyWriteShape &) = default;
};

/// One logical request, as the user composed it. The body is kept so that it can
/// be sent again on every attempt.
struct RequestSpec
{
    enum class Kind {
        Single, ///< one HTTP request, retried as a whole
        ReadModifyWrite, ///< GET (value + ETag), modify, PUT with If-Match; 409 ABORTED / 412 restart all three
    };
    Kind kind = Kind::Single;
    QByteArray method = "GET";
    QUrl url;
    HeaderList headers;
    QByteArray body;
    /// Where the body comes from when it is not `body`: a file streamed, or
    /// multipart/form-data parts (then `body` is empty).
    BodySource bodySource;
    /// The user vouches that repeating this request is safe.
    bool idempotent = false;
    /// Whether its attempts carry X-Retry-Request-Id and X-Retry-Attempt (when the
    /// executor adds them at all: RetryExecutor::setAttemptHeadersEnabled).
    bool attemptHeaders = true;
    /// Per-attempt timeout for this request; unset: the policy's.
    std::optional<double> attemptTimeoutMs;
    /// Free text shown in lanes and reports ("batch 3/10").
    QString label;
    /// For ReadModifyWrite: added to the integer value of the resource.
    qint64 increment = 1;
    /// For ReadModifyWrite: how the resource is read and written.
    ReadModifyWriteShape readModifyWrite;
    /// TLS, proxy and HTTP version.
    TransportOptions transport;
    /// How every attempt proves who sends it (Inherit and None: not at all); its
    /// {{variables}} already filled in. The executor applies it to each attempt.
    AuthSpec auth;
    /// The seed of the run this request belongs to, and its stream in the run:
    /// its jitter is drawn from RandomSource::derive(seed, stream) alone, so a
    /// run replayed with the same seed draws the same delays for each request,
    /// whatever the order in which the answers arrive. Unset: the executor's
    /// seed and the request's id.
    std::optional<quint64> seed;
    quint64 seedStream = 0;
    /// Alternative services, tried in order once the policy gives up on `url`
    /// (its attempts exhausted, its deadline passed, a fault it does not retry,
    /// the circuit for its host open, the retry budget spent): one attempt
    /// each, without backoff, until one answers with a success. Single requests only.
    QList<QUrl> fallbackUrls;
    /// Which faults send the request to its fallbacks (FallbackTriggers: "503",
    /// "5xx", "timeout", ...), kept normalized. Empty: the faults its policy
    /// retries (Classification::fallbackAllowed). Set: the faults it lists, in
    /// place of those, of a request that may be repeated (Classification::repeatable).
    QStringList fallbackOn;
    /// Conditions an answer must meet as well to be a success (a monitor's); none: the classifier decides.
    std::shared_ptr<const ResponseCheck> responseCheck;
};

/// How one attempt ended, as seen by the executor (not the classification).
enum class AttemptEnd {
    Response, ///< an HTTP response arrived (any status)
    NetworkError, ///< the transport failed (refused, reset, broken stream, ...)
    AttemptTimeout, ///< the per-attempt timer cut it
    Deadline, ///< the total deadline cut it
    Cancelled, ///< the user cancelled it
};

QString attemptEndName(AttemptEnd end);

/// Qt's name of a network error, as the reports write it: "ConnectionRefusedError",
/// "NoError"; the number for a value Qt does not name.
QString networkErrorName(QNetworkReply::NetworkError error);

/// One redirect the server answered within an attempt. The executor follows
/// redirects itself (Qt's ManualRedirectPolicy), so that every 3xx shows in
/// the record, and it never carries credentials to another origin.
struct RedirectHop
{
    /// What the hop was: a redirect followed (or not), the request of an
    /// access token that went before the attempt's own (RequestSpec::auth), or
    /// the server's Digest challenge, answered by the next hop.
    enum class Kind { Redirect, Token, Challenge };
    Kind kind = Kind::Redirect;
    int status = 0; ///< 301, 302, 303, 307 or 308 for a redirect; the answer's for the others
    QByteArray method; ///< of the request that got the redirect (a 303 turns the next into a GET)
    QUrl from;
    QUrl to; ///< the Location, resolved against `from`
    bool followed = true;
    /// Scheme, host or port differ: every credential header (the redactor's
    /// list) and the test id were not sent to `to`.
    bool crossOrigin = false;
    QList<QByteArray> droppedHeaders; ///< the credential headers left out
    QString note; ///< why it was not followed (empty when it was)
    /// The exchange that got this redirect, timed on its own (monotonic ns,
    /// -1: did not happen), for a followed hop; the attempt's own timings are
    /// those of its last exchange, which starts where the last hop finished.
    qint64 startNs = -1;
    qint64 connectionStartedNs = -1;
    qint64 requestSentNs = -1;
    qint64 firstByteNs = -1;
    qint64 finishedNs = -1;

    /// The method of the request that follows it: as browsers and Qt do, 303
    /// turns any method but HEAD into a GET, and so do 301 and 302 a POST.
    QByteArray nextMethod() const;
};

/// Everything recorded about one attempt. Times are monotonic nanoseconds on
/// the executor's clock (0 = the executor's epoch); -1 means "did not happen".
struct AttemptRecord
{
    quint64 requestId = 0;
    int attemptIndex = 0; ///< 0 for the first attempt of the logical request
    /// Which endpoint it went to: 0 the request's URL, n its n-th fallback (RequestSpec::fallbackUrls).
    int fallback = 0;
    /// For read-modify-write: "read" or "write"; empty for single requests.
    QString step;
    /// How many times a read-modify-write sequence has restarted before this attempt.
    int sequenceRound = 0;

    QByteArray method;
    QUrl url;
    HeaderList requestHeaders;
    /// The body this attempt sent: the spec's, or for a read-modify-write step the
    /// one the executor computed (none for the read).
    QByteArray requestBody;

    qint64 queuedNs = 0; ///< time spent waiting for a concurrency slot before starting
    qint64 startNs = -1; ///< when the request was handed to the network
    qint64 endNs = -1;
    QDateTime startWall; ///< UTC wall time of startNs, for reports

    double plannedDelayMs = 0.0; ///< the delay the policy chose before this attempt
    double actualDelayMs = 0.0; ///< what the timer really gave (0 for the first attempt)

    // Timing points Qt offers (monotonic ns, -1 when not reported, e.g. a reused connection).
    qint64 connectionStartedNs = -1;
    qint64 requestSentNs = -1;
    qint64 firstByteNs = -1; ///< response headers (metaDataChanged)
    qint64 finishedNs = -1;
    // Points RetryLab measures beside Qt's, for the phases of the last exchange
    // (AttemptPhases); -1 when not measured.
    /// The name lookup RetryLab makes before handing the request to Qt, which
    /// then finds the answer in its cache. Both equal when no lookup was needed
    /// (an address in the URL, a --resolve pin).
    qint64 lookupStartNs = -1;
    qint64 lookupEndNs = -1;
    /// Plain HTTP on a new connection: the first sign that it was connected
    /// (the first bytes of the request written). Qt reports no such point over TLS.
    qint64 connectedNs = -1;
    /// TLS: the handshake of a new connection finished (QNetworkReply::encrypted).
    qint64 encryptedNs = -1;
    /// The address the attempt connected to instead of its URL's host
    /// (TransportOptions::resolve, or the address -4/-6 chose); empty otherwise.
    QString connectAddress;
    /// The connection was not ready within TransportOptions::connectTimeoutMs.
    bool connectTimedOut = false;

    AttemptEnd end = AttemptEnd::Response;
    std::optional<int> httpStatus;
    QByteArray reasonPhrase;
    QNetworkReply::NetworkError networkError = QNetworkReply::NoError;
    QString errorString;
    HeaderList responseHeaders;
    qint64 bytesReceived = 0;
    /// The response body as it arrived, at most RetryExecutor::responseBodyLimit()
    /// bytes of it: enough to see what came back without letting a large download
    /// or a long run hold all of it. bytesReceived is how many arrived in all.
    QByteArray responseBody;
    /// responseBody holds only the first part of what arrived.
    bool responseBodyTruncated = false;
    /// The executor ended the transfer when the body reached its limit
    /// (RetryExecutor::setTransferLimit): the server had more to send than
    /// bytesReceived, and the rest was never read.
    bool transferEnded = false;
    /// A store that bounds its memory (RunSession, RunRecorder, a report within
    /// its body budget) let these bodies go; the record had them.
    bool requestBodyDropped = false;
    bool responseBodyDropped = false;
    /// Content-Length announced by the response, -1 when absent.
    qint64 expectedBytes = -1;
    /// Redirects within this attempt, in order; the status and headers above
    /// are those of the last response.
    QList<RedirectHop> redirects;
    /// "HTTP/1.1" or "HTTP/2" as Qt reports it; empty when no response came.
    QString protocol;
    /// The TLS of the last hop; empty for plain HTTP.
    TlsDetails tls;

    Classification::Decision decision = Classification::Decision::GiveUp;
    QString cause;
    QString reason;
    std::optional<double> retryAfterMs; ///< the Retry-After the server asked for
    QByteArray retryAfterRaw;
    /// The delay scheduled after this attempt; -1 when no retry follows.
    double nextDelayMs = -1.0;
    /// Under a hedging policy: the attempt went out while an earlier attempt of
    /// its request was still in flight (BackoffPolicy::hedging).
    bool hedged = false;
    /// Under a hedging policy: the attempt whose answer the request kept; the
    /// others still in flight then were cancelled.
    bool hedgeWinner = false;

    double durationMs() const { return (startNs >= 0 && endNs >= startNs) ? (endNs - startNs) / 1e6 : 0.0; }
    /// Where the last exchange began (the one whose answer the attempt kept):
    /// startNs, or where its last followed redirect hop finished.
    qint64 lastExchangeStartNs() const;
    bool succeeded() const { return decision == Classification::Decision::Success; }
};

/// The final outcome of a logical request.
enum class RequestOutcome {
    Succeeded,
    GaveUp, ///< a fault that is not transient (or not safe to retry)
    AttemptsExhausted,
    DeadlineExceeded,
    Cancelled,
    CircuitOpen,
    BudgetExhausted,
    InvalidRequest, ///< refused before any attempt (bad URL, unusable policy)
};

QString requestOutcomeName(RequestOutcome outcome);
std::optional<RequestOutcome> requestOutcomeFromName(const QString &name);

struct RequestResult
{
    quint64 requestId = 0;
    RequestOutcome outcome = RequestOutcome::GaveUp;
    int attempts = 0;
    QString reason;
    std::optional<int> finalStatus;
    qint64 startNs = -1; ///< first attempt start (or submission when none started)
    qint64 endNs = -1;
    QByteArray body; ///< the final response body (bounded), for read-modify-write and reports
    /// The endpoint of the last attempt: 0 the request's URL, n its n-th fallback. With
    /// Succeeded and n > 0, the fallback answered after the policy gave up on the URL.
    int fallback = 0;
    /// With RequestSpec::fallbackOn set, what sent the request to each fallback it
    /// tried, in order: the entry of that list its fault matched, or the outcome's
    /// name ("circuit-open") when the policy refused it before any attempt. Empty
    /// without such a list.
    QStringList fallbackTriggers;

    double totalMs() const { return (startNs >= 0 && endNs >= startNs) ? (endNs - startNs) / 1e6 : 0.0; }
};

} // namespace RetryLab::Core

Q_DECLARE_METATYPE(RetryLab::Core::AttemptRecord)
Q_DECLARE_METATYPE(RetryLab::Core::RequestResult)
