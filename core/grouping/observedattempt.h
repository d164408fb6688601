#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// Which rule put an attempt into its logical request. The SDK rules read the
/// retry identifiers that client libraries send; SameRequest is the fallback for
/// clients that send none; the New* rules start a logical request.
enum class GroupingRule {
    AwsInvocationId, ///< amz-sdk-invocation-id (attempt and limit from amz-sdk-request)
    GoogleInvocationId, ///< x-goog-api-client gccl-invocation-id/... (gccl-attempt-count/...)
    RetryRequestId, ///< X-Retry-Request-Id with X-Retry-Attempt (RetryLab's own executor)
    IdempotencyKey, ///< Idempotency-Key
    GrpcPreviousAttempts, ///< grpc-previous-rpc-attempts > 0 joins the client's last request
    SameRequest, ///< same method, target and body digest from the same client within the gap window
    NewRequest, ///< the first attempt of a logical request
};

namespace GroupingRules {
/// Stable machine name: "aws-invocation-id", "same-request", "new-request", ...
QString name(GroupingRule rule);
/// The rule in words, for tooltips and the report.
QString describe(GroupingRule rule);
std::optional<GroupingRule> fromName(const QString &name);
} // namespace GroupingRules

/// One request an observed client sent, as the fault server saw it, with what
/// it was served and where the grouping put it. Times are milliseconds on the
/// observer's steady clock, from the start of the observation.
struct ObservedAttempt
{
    quint64 sequence = 0; ///< the fault server's log sequence
    QDateTime time; ///< arrival, UTC wall time
    double arrivalMs = 0.0; ///< when the request had been read completely
    qint64 receivedNs = 0; ///< the same on the server's steady clock (Clock::nowNs())
    double endMs = 0.0; ///< when the server finished answering (for a stall: when it stopped answering)
    bool complete = false; ///< the server has finished with it (endMs, action and status are known)

    QString clientId; ///< ObservedClient::id
    quint64 logicalId = 0; ///< LogicalRequest::id
    int attemptIndex = 1; ///< 1-based within its logical request
    GroupingRule rule = GroupingRule::NewRequest;
    QString ruleDetail; ///< why, e.g. "previous attempt succeeded" or "same invocation id 5f2c..."

    QString address; ///< the client's address, without its port
    QString peer; ///< address and port of the connection it came on
    QString userAgent; ///< empty when none was sent
    QByteArray method;
    QString target; ///< path and query, credentials masked
    QByteArray bodyDigest; ///< empty for no body
    /// What arrived, for grouping only (ServerLogEntry::requestDigest): the target
    /// as sent and the credentials sent with it. Masking is for people; two requests that
    /// differ only in a masked value are two requests. Never shown or exported.
    QByteArray requestDigest;
    QByteArray retryKey; ///< the SDK identifier it was grouped by, if any
    std::optional<int> sdkAttempt; ///< the attempt number the client announced (1-based), if any
    std::optional<int> sdkMaxAttempts; ///< the limit the client announced (amz-sdk-request max=), if any

    QString planStep; ///< the observation plan's step (FaultInstruction text); empty when answered by the path
    QString action; ///< ServerLogEntry::action: "respond", "reset", "stall", ...
    std::optional<int> status; ///< the status served, none for a connection fault
    std::optional<double> retryAfterMs; ///< the Retry-After the server sent, in ms
    /// From the end of the previous attempt of the same logical request to this
    /// one's arrival; none for the first attempt.
    std::optional<double> delayMs;

    /// "503", "429 (Retry-After 2 s)", "reset", "stall", ...
    QString served() const;

    /// A 2xx or 3xx answer.
    bool succeeded() const { return status && *status < 400; }
    /// A fault the client could retry: 5xx, 408, 429 or a connection fault.
    bool transientFault() const;
    /// The status or fault is one a client should not retry (a 4xx other than 408 and 429).
    bool permanentFault() const
    {
        return status && *status >= 400 && *status < 500 && *status != 408 && *status != 429;
    }
    bool connectionFault() const { return complete && !status; }
};

/// The attempts one client made to get one thing done: a request and its retries.
struct LogicalRequest
{
    quint64 id = 0; ///< 1, 2, 3, ... for the observation
    QString clientId;
    GroupingRule rule = GroupingRule::SameRequest; ///< how its retries were recognised
    QByteArray method;
    QString target;
    QList<ObservedAttempt> attempts;
    /// Why the grouping will add no more attempts: "success", "different request",
    /// "gap", "limit" (the announced maximum was reached), "end of observation"; empty while it is open.
    QString closedBy;

    bool succeeded() const { return !attempts.isEmpty() && attempts.last().succeeded(); }
    double firstArrivalMs() const { return attempts.isEmpty() ? 0.0 : attempts.first().arrivalMs; }
};

/// A program that sent requests: one User-Agent from one address.
struct ObservedClient
{
    QString id; ///< "curl/7.88.1 @ 127.0.0.1"; stable for the observation
    QString name; ///< what the user calls it; id until renamed
    QString userAgent;
    QString address;
    int logicalRequests = 0; ///< kept now
    int attempts = 0; ///< kept now
    int droppedLogicalRequests = 0; ///< forgotten to keep memory bounded
    int rejectedRequests = 0; ///< not HTTP or malformed: garbage the server refused
    QString lastRejection; ///< what the server said about the last one

    static QString makeId(const QString &userAgent, const QString &address);
};

} // namespace RetryLab::Core

Q_DECLARE_METATYPE(RetryLab::Core::ObservedAttempt)
