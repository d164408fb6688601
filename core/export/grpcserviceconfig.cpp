#include "core/export/grpcserviceconfig.h"

#include "core/export/sourcetext.h"
#include "core/http/httpstatuslist.h"
#include "core/policy/backoff.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcGrpcServiceConfig, "retrylab.core.grpcserviceconfig")
} // namespace

namespace RetryLab::Core::GrpcServiceConfig {

namespace {

// gRPC reports failures to connect, and connections that break, as UNAVAILABLE.
const QString unavailable = QStringLiteral("UNAVAILABLE");

} // namespace

QString durationString(double milliseconds)
{
    const qint64 ns = std::llround(std::max(0.0, milliseconds) * 1e6);
    const qint64 whole = ns / 1'000'000'000;
    const qint64 fraction = ns % 1'000'000'000;
    if (fraction == 0)
        return QStringLiteral("%1s").arg(whole);
    // proto3 JSON writes 3, 6 or 9 fractional digits.
    if (fraction % 1'000'000 == 0)
        return QStringLiteral("%1.%2s").arg(whole).arg(fraction / 1'000'000, 3, 10, QLatin1Char('0'));
    if (fraction % 1'000 == 0)
        return QStringLiteral("%1.%2s").arg(whole).arg(fraction / 1'000, 6, 10, QLatin1Char('0'));
    return QStringLiteral("%1.%2s").arg(whole).arg(fraction, 9, 10, QLatin1Char('0'));
}

QStringList grpcCodesForHttpStatus(int status)
{
    switch (status) {
    case 401:
        return {QStringLiteral("UNAUTHENTICATED")};
    case 403:
        return {QStringLiteral("PERMISSION_DENIED")};
    case 404:
        return {QStringLiteral("NOT_FOUND")};
    case 409:
        // ALREADY_EXISTS maps to 409 too, but is never worth a retry.
        return {QStringLiteral("ABORTED")};
    case 429:
        return {QStringLiteral("RESOURCE_EXHAUSTED")};
    case 499:
        return {QStringLiteral("CANCELLED")};
    case 500:
        // DATA_LOSS maps to 500 as well; it is unrecoverable, so it is left out.
        return {QStringLiteral("INTERNAL"), QStringLiteral("UNKNOWN")};
    case 501:
        return {QStringLiteral("UNIMPLEMENTED")};
    case 502:
    case 503:
        return {unavailable};
    case 504:
        return {QStringLiteral("DEADLINE_EXCEEDED")};
    default:
        return {};
    }
}

Export fromPolicy(const BackoffPolicy &p, const QString &service, const QString &method)
{
    Export out;
    QStringList &warnings = out.warnings;

    // ---- maxAttempts
    int maxAttempts = p.maxAttempts;
    if (maxAttempts == 0) {
        // The most retries the deadline leaves room for, as the policy preview counts them.
        maxAttempts = int(std::max<qint64>(0, previewSchedule(p, maxPreviewRetries, 0, 0).retriesWithinDeadline)) + 1;
        warnings.append(Tr::tr("The policy is bounded only by its deadline; gRPC needs maxAttempts, so %1 was written "
                               "(the most attempts that fit into %2 at the shortest waits).")
                            .arg(maxAttempts)
                            .arg(DurationText::format(p.deadlineMs)));
    }
    if (maxAttempts > clientMaxAttempts) {
        warnings.append(Tr::tr("maxAttempts %1 is above %2: gRPC clients treat it as %2 unless the channel raises "
                               "the limit.")
                            .arg(maxAttempts)
                            .arg(clientMaxAttempts));
    }

    // ---- backoff
    const auto &a = p.algorithm;
    double initialMs = p.baseDelayMs;
    double maxMs = p.maxBackoffMs;
    double multiplier = p.multiplier;
    const qsizetype delayNotesFrom = warnings.size(); // a hedging policy has no backoff to note
    switch (a) {
    case BackoffAlgorithm::FullJitter:
        break; // exactly gRPC's random(0, min(initialBackoff * multiplier^(n-1), maxBackoff))
    case BackoffAlgorithm::Exponential:
        warnings.append(Tr::tr("gRPC always waits a random time in [0, backoff]; it cannot wait the exact exponential "
                               "delay without jitter."));
        break;
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
        warnings.append(
            Tr::tr("gRPC cannot add the policy's random 0-%1 ms to the exponential delay; it waits a random "
                   "time in [0, backoff] instead.")
                .arg(p.jitterMs));
        break;
    case BackoffAlgorithm::EqualJitter:
        warnings.append(Tr::tr("gRPC has no equal jitter (half fixed, half random); it waits a random time in "
                               "[0, backoff] instead."));
        break;
    case BackoffAlgorithm::DecorrelatedJitter:
        warnings.append(Tr::tr("gRPC has no decorrelated jitter; the export uses gRPC's random(0, backoff) with the "
                               "policy's base, multiplier and cap."));
        break;
    case BackoffAlgorithm::ProportionalJitter:
        warnings.append(Tr::tr("gRPC's retries do not use proportional jitter (+/-%1%); they wait a random time in "
                               "[0, backoff].")
                            .arg(p.jitterFraction * 100.0));
        break;
    case BackoffAlgorithm::Constant:
        maxMs = initialMs;
        multiplier = 1.0;
        warnings.append(Tr::tr("gRPC cannot wait a constant %1 ms; with multiplier 1 it waits a random time in "
                               "[0, %1 ms].")
                            .arg(p.baseDelayMs));
        break;
    case BackoffAlgorithm::Linear:
        multiplier = 1.0;
        warnings.append(Tr::tr("gRPC cannot grow the wait linearly; the export uses multiplier 1, so every wait is a "
                               "random time in [0, %1 ms].")
                            .arg(p.baseDelayMs));
        break;
    case BackoffAlgorithm::Immediate:
        initialMs = 0.0;
        maxMs = 0.0;
        multiplier = 1.0;
        warnings.append(Tr::tr("gRPC cannot retry at once; the shortest backoff it accepts was written."));
        break;
    }
    // gRPC requires both durations and the multiplier to be greater than zero.
    constexpr double smallestMs = 0.001;
    if (initialMs <= 0.0) {
        if (a != BackoffAlgorithm::Immediate)
            warnings.append(
                Tr::tr("gRPC requires initialBackoff > 0; %1 was written.").arg(durationString(smallestMs)));
        initialMs = smallestMs;
    }
    maxMs = std::max(maxMs, initialMs);
    if (multiplier <= 0.0)
        multiplier = 1.0;
    if (p.hedging.enabled)
        warnings.remove(delayNotesFrom, warnings.size() - delayNotesFrom);

    // ---- status codes
    QStringList codes;
    QList<int> statuses(p.classification.retryableStatuses.cbegin(), p.classification.retryableStatuses.cend());
    std::sort(statuses.begin(), statuses.end());
    QList<int> unmapped;
    for (int status : std::as_const(statuses)) {
        const QStringList mapped = grpcCodesForHttpStatus(status);
        if (mapped.isEmpty())
            unmapped.append(status);
        for (const QString &code : mapped) {
            if (!codes.contains(code))
                codes.append(code);
        }
    }
    if (!unmapped.isEmpty()) {
        warnings.append(Tr::tr("HTTP %1 has no gRPC status code of its own and is not retried by the export.")
                            .arg(HttpStatusList::format(unmapped)));
    }

    const auto &actions = p.classification.networkActions;
    const auto retries = [&actions](NetworkFaultClass fault) {
        return actions.value(fault, FaultAction::GiveUp) != FaultAction::GiveUp;
    };
    const bool retriesConnectionFaults = retries(NetworkFaultClass::ConnectionRefused)
        || retries(NetworkFaultClass::ConnectionReset) || retries(NetworkFaultClass::BrokenStream);
    if (retriesConnectionFaults && !codes.contains(unavailable)) {
        codes.append(unavailable);
        warnings.append(Tr::tr("UNAVAILABLE was added because the policy retries connection failures, which gRPC "
                               "reports as UNAVAILABLE; gRPC will retry every UNAVAILABLE status too."));
    } else if (!retriesConnectionFaults && codes.contains(unavailable)) {
        warnings.append(Tr::tr("gRPC reports failed and broken connections as UNAVAILABLE, so it will retry them, "
                               "although the policy gives up on them."));
    }
    if (retries(NetworkFaultClass::Timeout)) {
        warnings.append(Tr::tr("The policy retries timed-out attempts; gRPC has no per-attempt timeout in "
                               "retryPolicy, and a call whose deadline expired is not retried."));
    }
    if (p.classification.retryConflictAborted) {
        warnings.append(Tr::tr("409 ABORTED restarts a whole read-modify-write sequence in RetryLab; gRPC can only "
                               "retry the single call, so the application must restart the sequence itself."));
    }
    if (!p.classification.retryNonIdempotent) {
        warnings.append(Tr::tr("gRPC cannot mark methods idempotent: it retries every call of the methods named here, "
                               "so name only idempotent methods."));
    }

    // ---- method config
    QJsonObject name;
    if (!service.isEmpty())
        name.insert(QStringLiteral("service"), service);
    if (!method.isEmpty())
        name.insert(QStringLiteral("method"), method);
    if (service.isEmpty() && !method.isEmpty())
        warnings.append(Tr::tr("A method name needs a service name; gRPC rejects a name with only a method."));
    QJsonObject methodConfig{{QStringLiteral("name"), QJsonArray{name}}};

    if (p.hedging.enabled) {
        // A6: hedgingPolicy and retryPolicy are exclusive; hedging replaces the backoff.
        const int hedged = p.hedging.maxAttempts;
        if (hedged > clientMaxAttempts) {
            warnings.append(Tr::tr("hedgingPolicy.maxAttempts is %1; gRPC clients treat anything above %2 as %2 "
                                   "unless the channel raises the limit.")
                                .arg(hedged)
                                .arg(clientMaxAttempts));
        }
        QJsonArray codeArray;
        for (const QString &code : std::as_const(codes))
            codeArray.append(code);
        QJsonObject hedging{
            {QStringLiteral("maxAttempts"), hedged},
            {QStringLiteral("hedgingDelay"), durationString(p.hedging.delayMs)},
        };
        if (!codeArray.isEmpty())
            hedging.insert(QStringLiteral("nonFatalStatusCodes"), codeArray);
        methodConfig.insert(QStringLiteral("hedgingPolicy"), hedging);
        if (p.attemptTimeoutMs > 0.0) {
            warnings.append(
                Tr::tr("A timed-out attempt sends the next hedge at once in RetryLab; gRPC has no "
                       "per-attempt timeout, so a slow call keeps running until an answer or the deadline."));
        }
    } else if (maxAttempts < 2) {
        warnings.append(Tr::tr("The policy makes a single attempt; gRPC requires maxAttempts >= 2, so no retryPolicy "
                               "was written."));
    } else if (codes.isEmpty()) {
        warnings.append(Tr::tr("No retryable status maps to a gRPC code; gRPC requires a non-empty "
                               "retryableStatusCodes, so no retryPolicy was written."));
    } else {
        QJsonArray codeArray;
        for (const QString &code : std::as_const(codes))
            codeArray.append(code);
        methodConfig.insert(QStringLiteral("retryPolicy"),
            QJsonObject{
                {QStringLiteral("maxAttempts"), maxAttempts},
                {QStringLiteral("initialBackoff"), durationString(initialMs)},
                {QStringLiteral("maxBackoff"), durationString(maxMs)},
                {QStringLiteral("backoffMultiplier"), multiplier},
                {QStringLiteral("retryableStatusCodes"), codeArray},
            });
    }

    // ---- deadline and timeouts
    if (p.deadlineMs > 0.0) {
        methodConfig.insert(QStringLiteral("timeout"), durationString(p.deadlineMs));
        warnings.append(Tr::tr("The deadline became the method's timeout, which bounds the whole call as in RetryLab, "
                               "but gRPC does not give up early when the next backoff would cross it: the call fails "
                               "only when the deadline has passed."));
    }
    if (p.attemptTimeoutMs > 0.0 && !p.hedging.enabled) {
        warnings.append(Tr::tr("The per-attempt timeout of %1 ms cannot be expressed in a gRPC retryPolicy.")
                            .arg(p.attemptTimeoutMs));
    }
    if (p.classification.honourRetryAfter) {
        warnings.append(Tr::tr("gRPC ignores Retry-After; a gRPC server asks for a delay with the "
                               "grpc-retry-pushback-ms trailer instead."));
    }
    if (p.circuitBreaker.enabled)
        warnings.append(Tr::tr("gRPC has no circuit breaker in its service config; the breaker was not exported."));

    QJsonObject config{{QStringLiteral("methodConfig"), QJsonArray{methodConfig}}};

    // ---- retry budget
    const auto &budget = p.retryBudget;
    if (budget.kind == RetryBudgetKind::GrpcThrottling) {
        // maxTokens is a whole number; tokenRatio keeps three decimals; both must be > 0.
        const double maxTokens = std::max(1.0, std::round(budget.grpcMaxTokens));
        const double tokenRatio = std::max(0.001, std::round(budget.grpcTokenRatio * 1000.0) / 1000.0);
        if (maxTokens != budget.grpcMaxTokens)
            warnings.append(Tr::tr("retryThrottling.maxTokens must be a whole number > 0; %1 became %2.")
                                .arg(budget.grpcMaxTokens)
                                .arg(maxTokens));
        if (tokenRatio != budget.grpcTokenRatio)
            warnings.append(Tr::tr("retryThrottling.tokenRatio keeps three decimals and must be > 0; %1 became %2.")
                                .arg(budget.grpcTokenRatio)
                                .arg(tokenRatio));
        config.insert(QStringLiteral("retryThrottling"),
            QJsonObject{{QStringLiteral("maxTokens"), maxTokens}, {QStringLiteral("tokenRatio"), tokenRatio}});
    } else if (budget.kind == RetryBudgetKind::AwsStandard) {
        warnings.append(Tr::tr("gRPC cannot express the AWS retry quota; its retryThrottling works differently, so the "
                               "budget was not exported."));
    }

    out.serviceConfig = config;
    warnings.append(SourceText::responseNotes(p, QStringLiteral("gRPC")));
    warnings.append(SourceText::limiterNotes(p, QStringLiteral("gRPC")));
    qCDebug(lcGrpcServiceConfig) << "exported" << p.name << "with" << warnings.size() << "warnings";
    return out;
}

QByteArray toJson(const Export &exported)
{
    return QJsonDocument(exported.serviceConfig).toJson(QJsonDocument::Indented);
}

} // namespace RetryLab::Core::GrpcServiceConfig
