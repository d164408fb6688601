#include "core/policy/classifier.h"

#include "core/http/ratelimitheaders.h"
#include "core/policy/responseconditions.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QUrlQuery>

namespace RetryLab::Core {

namespace {

Classification::Decision decisionFor(FaultAction action)
{
    switch (action) {
    case FaultAction::RetryAfterDelay:
        return Classification::Decision::RetryAfterDelay;
    case FaultAction::RetryImmediately:
        return Classification::Decision::RetryImmediately;
    case FaultAction::GiveUp:
        break;
    }
    return Classification::Decision::GiveUp;
}

QString describeNetworkFault(NetworkFaultClass fault)
{
    switch (fault) {
    case NetworkFaultClass::ConnectionRefused:
        return Tr::tr("connection refused (nothing listens, or the service is restarting)");
    case NetworkFaultClass::ConnectionReset:
        return Tr::tr("connection reset or closed by the server");
    case NetworkFaultClass::Timeout:
        return Tr::tr("timed out");
    case NetworkFaultClass::HostNotFound:
        return Tr::tr("host name not found (DNS)");
    case NetworkFaultClass::TlsFailure:
        return Tr::tr("TLS handshake or certificate failure");
    case NetworkFaultClass::BrokenStream:
        return Tr::tr("the response body broke off before its announced length");
    case NetworkFaultClass::ProtocolFailure:
        return Tr::tr("the server sent bytes that are not valid HTTP");
    case NetworkFaultClass::Other:
        break;
    }
    return Tr::tr("network error");
}

// Qt's proxy errors, in words that say the proxy failed, not the server.
std::optional<QString> describeProxyError(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ProxyConnectionRefusedError:
        return Tr::tr("the proxy refused the connection (nothing listens on the proxy's port)");
    case QNetworkReply::ProxyConnectionClosedError:
        return Tr::tr("the proxy closed the connection");
    case QNetworkReply::ProxyNotFoundError:
        return Tr::tr("the proxy's host name was not found (DNS)");
    case QNetworkReply::ProxyTimeoutError:
        return Tr::tr("the proxy timed out");
    case QNetworkReply::ProxyAuthenticationRequiredError:
        return Tr::tr("the proxy refused the credentials (407 Proxy Authentication Required)");
    case QNetworkReply::UnknownProxyError:
        return Tr::tr("the proxy failed");
    default:
        break;
    }
    return std::nullopt;
}

QString describeAction(FaultAction action)
{
    switch (action) {
    case FaultAction::RetryAfterDelay:
        return Tr::tr("transient: retry after a delay");
    case FaultAction::RetryImmediately:
        return Tr::tr("rare fault: retry immediately");
    case FaultAction::GiveUp:
        break;
    }
    return Tr::tr("not transient: cancel and report");
}

bool isAbortedBody(const QByteArray &body)
{
    // {"status":"ABORTED"} or a Google error body {"error":{"status":"ABORTED",...}}
    return body.contains("\"ABORTED\"");
}

} // namespace

QString decisionName(Classification::Decision decision)
{
    switch (decision) {
    case Classification::Decision::Success:
        return QStringLiteral("success");
    case Classification::Decision::RetryAfterDelay:
        return QStringLiteral("retry-after-delay");
    case Classification::Decision::RetryImmediately:
        return QStringLiteral("retry-immediately");
    case Classification::Decision::GiveUp:
        break;
    }
    return QStringLiteral("give-up");
}

QString cutByName(AttemptObservation::CutBy cut)
{
    switch (cut) {
    case AttemptObservation::CutBy::Nothing:
        return {};
    case AttemptObservation::CutBy::AttemptTimeout:
        return QStringLiteral("attempt-timeout");
    case AttemptObservation::CutBy::Deadline:
        return QStringLiteral("deadline");
    case AttemptObservation::CutBy::User:
        return QStringLiteral("cancelled");
    }
    return {};
}

NetworkFaultClass classifyNetworkError(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::ProxyConnectionRefusedError:
        return NetworkFaultClass::ConnectionRefused;
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
        return NetworkFaultClass::ConnectionReset;
    case QNetworkReply::TimeoutError:
    case QNetworkReply::ProxyTimeoutError:
        return NetworkFaultClass::Timeout;
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::ProxyNotFoundError:
        return NetworkFaultClass::HostNotFound;
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::UnknownNetworkError:
        // Qt reports certificate problems as SslHandshakeFailedError; UnknownNetworkError
        // also covers TLS setup failures on some backends.
        return error == QNetworkReply::SslHandshakeFailedError ? NetworkFaultClass::TlsFailure
                                                               : NetworkFaultClass::Other;
    case QNetworkReply::ProtocolFailure:
    case QNetworkReply::ProtocolUnknownError:
    case QNetworkReply::ProtocolInvalidOperationError:
        return NetworkFaultClass::ProtocolFailure;
    default:
        return NetworkFaultClass::Other;
    }
}

bool isNotSentFault(NetworkFaultClass fault)
{
    return fault == NetworkFaultClass::ConnectionRefused || fault == NetworkFaultClass::HostNotFound
        || fault == NetworkFaultClass::TlsFailure;
}

QString preconditionOf(const HeaderList &requestHeaders, const QUrl &url)
{
    for (const char *header :
        {"If-Match", "If-Unmodified-Since", "x-goog-if-generation-match", "x-goog-if-metageneration-match"}) {
        if (headerValue(requestHeaders, header))
            return QString::fromLatin1(header);
    }
    if (url.hasQuery()) {
        const QUrlQuery query(url);
        for (const QString &name : {QStringLiteral("ifGenerationMatch"), QStringLiteral("ifMetagenerationMatch")}) {
            if (query.hasQueryItem(name))
                return name;
        }
    }
    return {};
}

bool isIdempotentMethod(const QByteArray &method)
{
    const QByteArray m = method.toUpper();
    return m == "GET" || m == "HEAD" || m == "OPTIONS" || m == "TRACE" || m == "PUT" || m == "DELETE";
}

IdempotencyVerdict idempotencyOf(const AttemptObservation &o, const ClassificationRules &rules)
{
    const QByteArray method = o.method.toUpper();
    // Cloud Storage: an overwrite or a delete without a precondition may race another writer.
    const bool onlyConditionally = rules.putDeleteNeedPrecondition && (method == "PUT" || method == "DELETE");
    if (isIdempotentMethod(o.method) && !onlyConditionally)
        return {true, Tr::tr("%1 is idempotent").arg(QString::fromLatin1(method))};
    if (o.markedIdempotent)
        return {true, Tr::tr("%1 marked idempotent by the user").arg(QString::fromLatin1(o.method.toUpper()))};
    if (o.step == AttemptObservation::Step::Read)
        return {true,
            Tr::tr("%1 is the read of a read-modify-write: it changes nothing")
                .arg(QString::fromLatin1(o.method.toUpper()))};
    if (o.step == AttemptObservation::Step::Write && o.versionInBody)
        return {true,
            Tr::tr("%1 is conditional (the etag it read, in its body): a repeat cannot apply twice")
                .arg(QString::fromLatin1(o.method.toUpper()))};
    if (headerValue(o.requestHeaders, "Idempotency-Key"))
        return {true, Tr::tr("%1 carries an Idempotency-Key").arg(QString::fromLatin1(o.method.toUpper()))};
    if (const QString precondition = preconditionOf(o.requestHeaders, o.url); !precondition.isEmpty())
        return {true,
            Tr::tr("%1 is conditional (%2): a repeat cannot apply twice")
                .arg(QString::fromLatin1(o.method.toUpper()), precondition)};
    if (onlyConditionally) {
        return {false,
            Tr::tr("%1 is only conditionally idempotent (the Cloud Storage rule): without a precondition "
                   "(ifGenerationMatch, If-Match) a repeat may overwrite or delete what another writer made in "
                   "between; add one, or mark the request safe to repeat")
                .arg(QString::fromLatin1(method))};
    }
    if (rules.retryNonIdempotent)
        return {true,
            Tr::tr("%1 is not idempotent, but the policy retries it anyway")
                .arg(QString::fromLatin1(o.method.toUpper()))};
    return {false,
        Tr::tr("%1 is not idempotent: it may have been applied although the response was lost; mark it "
               "idempotent or add an Idempotency-Key to retry it")
            .arg(QString::fromLatin1(o.method.toUpper()))};
}

namespace {

// "http-200": made once per status, shared by every record that carries it.
QString statusCause(int status)
{
    static const QList<QString> causes = [] {
        QList<QString> list;
        list.reserve(900);
        for (int code = 100; code < 1000; ++code)
            list.append(QStringLiteral("http-") + QString::number(code));
        return list;
    }();
    if (status >= 100 && status < 1000)
        return causes.at(status - 100);
    return QStringLiteral("http-") + QString::number(status);
}

// "HTTP 200: success", the reason of most attempts: kept while the status and
// the translation repeat (a translation is cheap next to filling in its number).
QString successReason(int status)
{
    thread_local int lastStatus = -1;
    thread_local QString lastFormat;
    thread_local QString lastReason;
    const QString format = Tr::tr("HTTP %1: success");
    if (status != lastStatus || format != lastFormat) {
        lastReason = format.arg(status);
        lastFormat = format;
        lastStatus = status;
    }
    return lastReason;
}

// What the rate-limit fields say of the wait until the quota is back: set when
// none is left, or on an answer the policy retries that gives a reset alone.
void readRateLimit(Classification &c, const AttemptObservation &o)
{
    const QDateTime now = o.receivedAt.isValid() ? o.receivedAt : QDateTime::currentDateTimeUtc();
    const RateLimitHeaders limits = RateLimitHeaders::parse(o.responseHeaders, now);
    if (!limits.resetMs || (limits.remaining && !limits.exhausted()))
        return;
    const char *field = "RateLimit";
    switch (limits.style) {
    case RateLimitHeaders::Style::XRateLimit:
        field = "X-RateLimit-Reset";
        break;
    case RateLimitHeaders::Style::IetfSeparate:
        field = "RateLimit-Reset";
        break;
    case RateLimitHeaders::Style::Ietf:
    case RateLimitHeaders::Style::None:
        break;
    }
    RetryAfter wait;
    wait.kind = RetryAfter::Kind::DelaySeconds;
    wait.delayMs = *limits.resetMs;
    wait.reason = Tr::tr("%1: the quota resets in %2").arg(QLatin1String(field), DurationText::format(*limits.resetMs));
    c.rateLimitReset = wait;
    c.rateLimitExhausted = limits.exhausted();
}

} // namespace

Classification classify(const AttemptObservation &o, const ClassificationRules &rules)
{
    Classification c;

    if (o.cutBy == AttemptObservation::CutBy::User) {
        c.cause = QStringLiteral("cancelled");
        c.reason = Tr::tr("cancelled by the user");
        return c;
    }
    if (o.cutBy == AttemptObservation::CutBy::Deadline) {
        c.cause = QStringLiteral("deadline");
        c.reason = Tr::tr("the total deadline was reached during the attempt");
        c.repeatable = idempotencyOf(o, rules).retryable;
        c.fallbackAllowed = c.repeatable;
        return c;
    }

    // Read Retry-After whenever there is a response, so the record shows it.
    if (o.httpStatus) {
        if (const auto value = headerValue(o.responseHeaders, "Retry-After"))
            c.retryAfter
                = parseRetryAfter(*value, o.receivedAt.isValid() ? o.receivedAt : QDateTime::currentDateTimeUtc());
    }

    // Qt turns 4xx/5xx answers into content (2xx codes) or server (4xx codes) errors;
    // those are complete HTTP responses, unlike the transport errors.
    const auto e = o.networkError;
    // Qt 6.4 maps 400 and 418 to ProtocolInvalidOperationError and 407 to
    // ProxyAuthenticationRequiredError, outside those ranges: with a status they are answers too.
    const bool httpError = (e >= QNetworkReply::ContentAccessDenied && e <= QNetworkReply::UnknownContentError)
        || (e >= QNetworkReply::InternalServerError && e <= QNetworkReply::UnknownServerError)
        || (o.httpStatus
            && (e == QNetworkReply::ProtocolInvalidOperationError
                || e == QNetworkReply::ProxyAuthenticationRequiredError));
    const bool completed = e == QNetworkReply::NoError || (o.httpStatus && httpError);

    FaultAction action = FaultAction::GiveUp;
    if (o.cutBy == AttemptObservation::CutBy::AttemptTimeout) {
        c.networkFault = NetworkFaultClass::Timeout;
        action = rules.networkActions.value(NetworkFaultClass::Timeout, FaultAction::RetryAfterDelay);
        c.cause = QStringLiteral("attempt-timeout");
        c.reason = Tr::tr("the per-attempt timeout expired; %1").arg(describeAction(action));
    } else if (o.brokenStream) {
        c.networkFault = NetworkFaultClass::BrokenStream;
        action = rules.networkActions.value(NetworkFaultClass::BrokenStream, FaultAction::RetryAfterDelay);
        c.cause = QStringLiteral("broken-stream");
        c.reason = Tr::tr("%1; %2").arg(describeNetworkFault(NetworkFaultClass::BrokenStream), describeAction(action));
    } else if (!completed) {
        const NetworkFaultClass fault = classifyNetworkError(o.networkError);
        c.networkFault = fault;
        c.notSent = isNotSentFault(fault);
        action = rules.networkActions.value(fault, FaultAction::GiveUp);
        c.cause = networkFaultClassName(fault);
        const QString what = describeProxyError(o.networkError).value_or(describeNetworkFault(fault));
        c.reason = c.notSent ? Tr::tr("%1; the request was not sent; %2").arg(what, describeAction(action))
                             : Tr::tr("%1; %2").arg(what, describeAction(action));
    } else if (!o.httpStatus) {
        c.decision = Classification::Decision::Success;
        c.cause = QStringLiteral("completed");
        c.reason = Tr::tr("completed without an HTTP status (not an HTTP URL)");
        return c;
    } else {
        const int status = *o.httpStatus;
        c.httpStatus = status;
        if (status >= 300 && status < 400 && o.redirectRefused) {
            // The executor's own note says why (describeRedirects); success would be a lie.
            c.cause = QStringLiteral("redirect-not-followed");
            c.reason = Tr::tr("HTTP %1: a redirect that was not followed is not the answer asked for").arg(status);
            return c;
        }
        if (status == 308 && !headerValue(o.responseHeaders, "Location")) {
            // Cloud Storage's resumable uploads: the server has part of the data and waits for the rest.
            c.cause = QStringLiteral("http-308-resume-incomplete");
            c.reason = Tr::tr("HTTP 308 Resume Incomplete: the upload is not finished (the Range header says how "
                              "much arrived); the client must send the rest, not repeat the request");
            return c;
        }
        std::optional<ResponseConditions::Match> condition;
        if (status >= 200 && status < 400 && !rules.retryOnResponse.isEmpty()) {
            condition = ResponseConditions::match(
                rules.retryOnResponse, o.responseHeaders, o.body.isEmpty() ? o.bodyPrefix : o.body);
        }
        if (status >= 200 && status < 400 && !condition) {
            c.decision = Classification::Decision::Success;
            c.cause = statusCause(status);
            c.reason = successReason(status);
            if (rules.honourRateLimitReset)
                readRateLimit(c, o); // a spent quota holds back the next requests
            return c;
        }
        c.cause = statusCause(status);
        const bool aborted = status == 409 && isAbortedBody(o.bodyPrefix);
        const bool stalePrecondition = status == 412 && !preconditionOf(o.requestHeaders, o.url).isEmpty();
        if (aborted)
            c.cause = QStringLiteral("http-409-aborted");
        if (condition) {
            // A success by its status that the policy retries, as it does a retryable status.
            c.responseCondition = condition->index;
            c.cause = QStringLiteral("response-") + ResponseConditions::kindName(condition->kind);
            c.reason = Tr::tr("HTTP %1, but %2 (the policy retries on it)").arg(status).arg(condition->found);
            action = FaultAction::RetryAfterDelay;
        } else if ((aborted || stalePrecondition) && !o.readModifyWrite) {
            // The version the write names is gone; sending the same bytes again
            // meets the same refusal. Only a new read can give a usable ETag.
            c.reason
                = Tr::tr("HTTP %1: stale version; retrying the same write cannot succeed, re-read first").arg(status);
        } else if (aborted) {
            c.restartSequence = true;
            action = rules.retryConflictAborted ? FaultAction::RetryAfterDelay : FaultAction::GiveUp;
            c.reason = rules.retryConflictAborted
                ? Tr::tr("HTTP 409 ABORTED: a concurrent writer changed the resource; the whole "
                         "read-modify-write sequence starts again after a delay")
                : Tr::tr("HTTP 409 ABORTED: the policy does not retry conflicts");
        } else if (stalePrecondition) {
            c.restartSequence = true;
            action = rules.retryConflictAborted ? FaultAction::RetryAfterDelay : FaultAction::GiveUp;
            c.reason = rules.retryConflictAborted
                ? Tr::tr("HTTP 412: the ETag is stale; read, modify and write again after a delay")
                : Tr::tr("HTTP 412: precondition failed; the policy does not retry conflicts");
        } else if (rules.retryableStatuses.contains(status)) {
            action = FaultAction::RetryAfterDelay;
            if (status == 429)
                c.reason = Tr::tr("HTTP 429: rate limited; transient, retry after a delay");
            else if (status == 404)
                c.reason = Tr::tr("HTTP 404: the policy treats it as eventual consistency; retry after a delay");
            else
                c.reason = Tr::tr("HTTP %1: server error; transient, retry after a delay").arg(status);
        } else if (status == 401 || status == 403) {
            c.reason = Tr::tr("HTTP %1: authentication or permission failure; not transient, cancel").arg(status);
        } else if (status >= 400 && status < 500) {
            c.reason = Tr::tr("HTTP %1: client error; repeating the same request will not help").arg(status);
        } else {
            c.reason = Tr::tr("HTTP %1: not in the policy's retryable statuses").arg(status);
        }
    }

    c.decision = decisionFor(action);
    if (rules.honourRateLimitReset && o.httpStatus)
        readRateLimit(c, o);
    if (!c.isRetry()) {
        c.repeatable = c.notSent || idempotencyOf(o, rules).retryable;
        return c;
    }

    const IdempotencyVerdict verdict = idempotencyOf(o, rules);
    c.repeatable = c.notSent || verdict.retryable;
    if (!verdict.retryable && c.notSent) {
        c.reason = Tr::tr("%1: %2 never reached the server, so it cannot have been applied and is safe to repeat")
                       .arg(c.reason, QString::fromLatin1(o.method.toUpper()));
    } else if (verdict.retryable && !isIdempotentMethod(o.method)) {
        c.reason = Tr::tr("%1; %2").arg(c.reason, verdict.reason);
    } else if (!verdict.retryable && !c.restartSequence) {
        c.decision = Classification::Decision::GiveUp;
        const QString sent = c.networkFault ? Tr::tr("the request was sent and its outcome is unknown; ") : QString();
        c.reason = Tr::tr("%1, but %2%3").arg(c.reason, sent, verdict.reason);
        c.cause = c.cause + QStringLiteral("/not-idempotent");
    }
    c.fallbackAllowed = c.isRetry();
    return c;
}

} // namespace RetryLab::Core
