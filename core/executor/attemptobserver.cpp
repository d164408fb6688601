#include "core/executor/attemptobserver.h"

#include "core/executor/redirectstep.h"
#include "core/http/httpheaders.h"
#include "core/util/coretr.h"

#include <QCoreApplication>

namespace RetryLab::Core::AttemptObserver {

namespace {

// Qt 6.4's HTTP connections report a proxy that failed as UnknownNetworkError,
// with the proxy socket engine's text as the error string: the text says which.
std::optional<QNetworkReply::NetworkError> proxyErrorFromText(const QString &errorString)
{
    struct Known
    {
        const char *context;
        const char *text;
        QNetworkReply::NetworkError error;
    };
    static const Known known[] = {
        {"QHttpSocketEngine", "Proxy connection refused", QNetworkReply::ProxyConnectionRefusedError},
        {"QHttpSocketEngine", "Proxy connection closed prematurely", QNetworkReply::ProxyConnectionClosedError},
        {"QHttpSocketEngine", "Proxy server not found", QNetworkReply::ProxyNotFoundError},
        {"QHttpSocketEngine", "Proxy server connection timed out", QNetworkReply::ProxyTimeoutError},
        {"QSocks5SocketEngine", "Connection to proxy refused", QNetworkReply::ProxyConnectionRefusedError},
        {"QSocks5SocketEngine", "Connection to proxy closed prematurely", QNetworkReply::ProxyConnectionClosedError},
        {"QSocks5SocketEngine", "Proxy host not found", QNetworkReply::ProxyNotFoundError},
        {"QSocks5SocketEngine", "Connection to proxy timed out", QNetworkReply::ProxyTimeoutError},
        {"QSocks5SocketEngine", "Proxy authentication failed", QNetworkReply::ProxyAuthenticationRequiredError},
        {"QSocks5SocketEngine", "SOCKS version 5 protocol error", QNetworkReply::UnknownProxyError},
    };
    for (const Known &k : known) {
        if (errorString.startsWith(QLatin1String(k.text))
            || errorString.startsWith(QCoreApplication::translate(k.context, k.text)))
            return k.error;
    }
    return std::nullopt;
}

} // namespace

Classification conclude(AttemptRecord &record, AttemptEnd end, const RequestSpec &spec, const BackoffPolicy &policy,
    const QByteArray &body, const QDateTime &receivedAt)
{
    record.end = end;
    AttemptObservation observation;
    observation.method = record.method;
    observation.markedIdempotent = spec.idempotent;
    observation.readModifyWrite = spec.kind == RequestSpec::Kind::ReadModifyWrite;
    if (observation.readModifyWrite) {
        observation.step
            = record.step == QLatin1String("read") ? AttemptObservation::Step::Read : AttemptObservation::Step::Write;
        observation.versionInBody = !spec.readModifyWrite.etagPointer.isEmpty();
    }
    observation.requestHeaders = record.requestHeaders;
    observation.url = record.url;
    observation.receivedAt = receivedAt;
    if (const auto ra = headerValue(record.responseHeaders, "Retry-After"))
        record.retryAfterRaw = *ra;

    switch (end) {
    case AttemptEnd::AttemptTimeout:
        observation.cutBy = AttemptObservation::CutBy::AttemptTimeout;
        record.errorString = Tr::tr("per-attempt timeout of %1 ms expired")
                                 .arg(spec.attemptTimeoutMs.value_or(policy.attemptTimeoutMs));
        break;
    case AttemptEnd::Deadline:
        observation.cutBy = AttemptObservation::CutBy::Deadline;
        record.errorString = Tr::tr("total deadline of %1 ms reached").arg(policy.deadlineMs);
        break;
    case AttemptEnd::Cancelled:
        observation.cutBy = AttemptObservation::CutBy::User;
        record.errorString = Tr::tr("cancelled by the user");
        break;
    case AttemptEnd::Response:
    case AttemptEnd::NetworkError:
        break;
    }
    observation.httpStatus = record.httpStatus;
    observation.redirectRefused = !record.redirects.isEmpty() && !record.redirects.constLast().followed;
    observation.networkError = record.networkError;
    if (spec.transport.proxyMode != TransportOptions::ProxyMode::None && !record.httpStatus
        && record.networkError == QNetworkReply::UnknownNetworkError) {
        // What Qt said stays on record; the classifier hears what it meant.
        if (const auto proxyError = proxyErrorFromText(record.errorString))
            observation.networkError = *proxyError;
    }
    if (end == AttemptEnd::NetworkError && record.networkError == QNetworkReply::OperationCanceledError) {
        // The executor did not cut this attempt, so Qt did: its transfer timeout
        // (QNetworkAccessManager::setTransferTimeout on the injected manager)
        // ends a reply with OperationCanceledError. That is a timeout.
        observation.networkError = QNetworkReply::TimeoutError;
        record.errorString = Tr::tr("Qt's transfer timeout ended the attempt (%1)").arg(record.errorString);
    }
    if (record.connectTimedOut && end == AttemptEnd::NetworkError) {
        // No connection within the connect timeout: the request never left, as
        // when the connection is refused, and the policy's action for that applies.
        observation.networkError = QNetworkReply::ConnectionRefusedError;
    }
    observation.responseHeaders = record.responseHeaders;
    observation.bodyPrefix = body.left(4096);
    observation.body = body; // shared: a JSON pointer may look past the prefix
    // A body shorter than its Content-Length is broken whatever Qt says: when
    // the connection drops right after the headers, Qt 6.4 often finishes the
    // reply without an error.
    const int status = record.httpStatus.value_or(0);
    const bool bodyExpected = record.method != "HEAD" && status >= 200 && status != 204 && status != 304;
    observation.brokenStream = record.httpStatus && bodyExpected && record.expectedBytes >= 0
        && record.bytesReceived < record.expectedBytes && observation.cutBy == AttemptObservation::CutBy::Nothing
        && !record.transferEnded;
    if (observation.brokenStream) {
        record.end = AttemptEnd::NetworkError;
        if (record.networkError == QNetworkReply::NoError) {
            record.errorString = Tr::tr("the body ended after %1 of %2 announced bytes (Qt reported no error)")
                                     .arg(record.bytesReceived)
                                     .arg(record.expectedBytes);
        }
    }

    Classification classification = classify(observation, policy.classification);
    if (record.connectTimedOut && end == AttemptEnd::NetworkError) {
        classification.cause = QStringLiteral("connect-timeout");
        const bool retried = classification.decision != Classification::Decision::GiveUp;
        classification.reason = retried
            ? Tr::tr("%1; the request was not sent; retried as a refused connection would be").arg(record.errorString)
            : Tr::tr("%1; the request was not sent; not retried, as a refused connection would not be")
                  .arg(record.errorString);
    }
    if (!policy.classification.honourRetryAfter)
        classification.retryAfter.reset();
    if (classification.retryAfter && classification.retryAfter->delayMs)
        record.retryAfterMs = classification.retryAfter->delayMs;

    // A status the conditions expect is no fault, but a retryOnResponse condition is the policy's own verdict.
    if (spec.responseCheck && record.httpStatus && !classification.networkFault && !observation.redirectRefused
        && !classification.responseCondition && classification.decision != Classification::Decision::Success
        && spec.responseCheck->acceptsStatus(*record.httpStatus)) {
        classification.decision = Classification::Decision::Success;
        classification.reason = Tr::tr("HTTP %1 is a status the conditions expect").arg(*record.httpStatus);
        classification.restartSequence = false;
    }
    if (spec.responseCheck && classification.decision == Classification::Decision::Success) {
        if (const std::optional<QString> failure = spec.responseCheck->failure(record, body)) {
            // The server answered, but not as the user requires: a failed attempt like a
            // transient fault, repeated only when the request may be repeated.
            const IdempotencyVerdict verdict = idempotencyOf(observation, policy.classification);
            classification.cause = QStringLiteral("condition");
            classification.repeatable = verdict.retryable;
            classification.fallbackAllowed = verdict.retryable;
            if (verdict.retryable) {
                classification.decision = Classification::Decision::RetryAfterDelay;
                classification.reason = Tr::tr("a condition failed: %1").arg(*failure);
            } else {
                classification.decision = Classification::Decision::GiveUp;
                classification.reason = Tr::tr("a condition failed: %1; not retried: %2").arg(*failure, verdict.reason);
            }
        }
    }
    if (!record.redirects.isEmpty())
        classification.reason += describeRedirects(record.redirects);
    // Qt keeps the status of a reply whose body broke off (a truncated chunked
    // body ends in RemoteHostClosedError after "200 OK"): the record says it failed.
    if (record.end == AttemptEnd::Response && classification.networkFault)
        record.end = AttemptEnd::NetworkError;
    return classification;
}

} // namespace RetryLab::Core::AttemptObserver
