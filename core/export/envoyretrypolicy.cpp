#include "core/export/envoyretrypolicy.h"

#include "core/export/grpcserviceconfig.h"
#include "core/http/httpstatuslist.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcEnvoyRetryPolicy, "retrylab.core.envoyretrypolicy")
} // namespace

namespace RetryLab::Core::EnvoyRetryPolicy {

namespace {

using GrpcServiceConfig::durationString;
using SourceText::number;

// Envoy refuses a base_interval of zero; a millisecond is the shortest it keeps.
constexpr double smallestIntervalMs = 1.0;

void backoffNotes(const BackoffPolicy &p, QStringList &notes)
{
    switch (p.algorithm) {
    case BackoffAlgorithm::FullJitter:
        break; // Envoy's own: U[0, base * 2^n], capped
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
        notes.append(Tr::tr("Envoy's backoff always grows as U[0, base * 2^n]; the policy's %1 wait was exported "
                            "with max_interval equal to base_interval, a random wait in [0, %2 ms].")
                         .arg(algorithmTitle(p.algorithm).toLower(), number(p.baseDelayMs)));
        return;
    case BackoffAlgorithm::Immediate:
        notes.append(Tr::tr("Envoy cannot retry at once; the shortest base_interval, 1 ms, was written."));
        return;
    default:
        notes.append(Tr::tr("Envoy's backoff is full jitter, U[0, base * 2^n]; the policy's %1 was exported as that.")
                         .arg(algorithmTitle(p.algorithm)));
        break;
    }
    if (p.multiplier != 2.0) {
        notes.append(Tr::tr("Envoy's backoff always doubles; the policy's multiplier %1 was not exported.")
                         .arg(number(p.multiplier)));
    }
}

} // namespace

Code yaml(const BackoffPolicy &p)
{
    Code out;
    QStringList &notes = out.notes;
    const auto &c = p.classification;
    const auto retried = [&p](NetworkFaultClass fault) { return !SourceText::givesUp(p, fault); };

    // ---- retry_on and the statuses
    const QList<int> statuses = SourceText::sortedStatuses(p);
    QList<int> all5xx;
    for (int s = 500; s < 600; ++s)
        all5xx << s;
    const bool retriesResets = retried(NetworkFaultClass::ConnectionReset) || retried(NetworkFaultClass::BrokenStream)
        || retried(NetworkFaultClass::Timeout);
    const bool retriesRefused = retried(NetworkFaultClass::ConnectionRefused);
    const bool every5xx = std::all_of(all5xx.cbegin(), all5xx.cend(), [&](int s) { return statuses.contains(s); });
    QStringList retryOn;
    QList<int> listed;
    // 5xx also retries resets and connection failures: written only where the policy does too.
    if (every5xx && retriesResets && retriesRefused) {
        retryOn << QStringLiteral("5xx");
        for (int s : statuses) {
            if (s < 500 || s > 599)
                listed << s;
        }
    } else {
        listed = statuses;
        if (retriesResets)
            retryOn << QStringLiteral("reset");
        if (retriesRefused)
            retryOn << QStringLiteral("connect-failure");
    }
    if (!listed.isEmpty())
        retryOn << QStringLiteral("retriable-status-codes");
    if (retried(NetworkFaultClass::ConnectionReset) != retried(NetworkFaultClass::Timeout)
        || retried(NetworkFaultClass::BrokenStream) != retried(NetworkFaultClass::Timeout)) {
        notes.append(Tr::tr("Envoy's reset condition covers resets, broken answers and per-try timeouts alike; the "
                            "policy retries only some of them, but Envoy retries all."));
    }
    QStringList elsewhere;
    for (NetworkFaultClass fault : {NetworkFaultClass::HostNotFound, NetworkFaultClass::TlsFailure,
             NetworkFaultClass::ProtocolFailure, NetworkFaultClass::Other}) {
        if (retried(fault))
            elsewhere << networkFaultClassName(fault);
    }
    if (!elsewhere.isEmpty()) {
        notes.append(Tr::tr("Envoy resolves hosts, makes TLS and reads HTTP itself: %1, which the policy retries, "
                            "are not retry conditions of a route.")
                         .arg(elsewhere.join(QStringLiteral(", "))));
    }

    // ---- num_retries
    const bool hedging = p.hedging.enabled;
    int retries = hedging ? p.hedging.maxAttempts - 1 : p.maxAttempts > 0 ? p.maxAttempts - 1 : 0;
    if (!hedging && p.maxAttempts == 0) {
        retries = SourceText::attemptsFor(p) - 1;
        notes.append(Tr::tr("The policy is bounded only by its deadline; num_retries %1 is the most retries that fit, "
                            "and the route timeout stops them.")
                         .arg(retries));
    }

    // ---- backoff
    double baseMs = p.baseDelayMs;
    double maxMs = p.maxBackoffMs;
    if (p.algorithm == BackoffAlgorithm::Constant || p.algorithm == BackoffAlgorithm::Linear)
        maxMs = baseMs = std::min(p.baseDelayMs, p.maxBackoffMs);
    if (p.algorithm == BackoffAlgorithm::Immediate || hedging)
        maxMs = baseMs = smallestIntervalMs; // a hedge does not back off
    baseMs = std::max(baseMs, smallestIntervalMs);
    maxMs = std::max(maxMs, baseMs);
    if (retries > 0 && !hedging)
        backoffNotes(p, notes);

    QString s;
    s += SourceText::comment(QStringLiteral("# "),
             QStringLiteral("Retry policy \"%1\" as an Envoy route (envoy.config.route.v3), written by RetryLab.")
                 .arg(p.name))
        + QLatin1Char('\n');
    s += QStringLiteral("# Merge it into a route entry's route: (next to its cluster).\nroute:\n");
    if (p.deadlineMs > 0.0) {
        s += QStringLiteral("  timeout: %1\n").arg(durationString(p.deadlineMs));
        notes.append(Tr::tr("The route timeout bounds the request, retries included, as the deadline does, but "
                            "Envoy does not give up early when the next wait would cross it."));
    } else {
        s += QStringLiteral("  timeout: 0s  # no deadline (Envoy's default would be 15s)\n");
    }
    s += QStringLiteral("  retry_policy:\n");
    s += QStringLiteral("    retry_on: \"%1\"\n")
             .arg(retryOn.isEmpty() ? QStringLiteral("reset") : retryOn.join(QLatin1Char(',')));
    if (retryOn.isEmpty()) {
        notes.append(Tr::tr("The policy retries no status and no network fault; retry_on needs a condition, so "
                            "num_retries is 0."));
        retries = 0;
    }
    if (!listed.isEmpty()) {
        QStringList codes;
        for (int code : std::as_const(listed))
            codes << QString::number(code);
        s += QStringLiteral("    retriable_status_codes: [%1]\n").arg(codes.join(QStringLiteral(", ")));
    }
    s += QStringLiteral("    num_retries: %1\n").arg(retries);
    if (hedging) {
        // Envoy hedges on the per-try timeout: the hedging delay is that timeout, and the attempt goes on.
        s += QStringLiteral("    per_try_timeout: %1\n").arg(durationString(p.hedging.delayMs));
        notes.append(Tr::tr("Envoy hedges only when a per-try timeout passes: the hedging delay of %1 became "
                            "per_try_timeout with hedge_on_per_try_timeout, and Envoy waits its shortest backoff "
                            "(1 ms) before each hedge.")
                         .arg(DurationText::format(p.hedging.delayMs)));
        if (p.attemptTimeoutMs > 0.0) {
            notes.append(Tr::tr("The policy's attempt timeout of %1 cannot be expressed beside the hedge: Envoy's "
                                "per-try timeout now starts the hedges, and the route timeout bounds the attempts.")
                             .arg(DurationText::format(p.attemptTimeoutMs)));
        }
    } else if (p.attemptTimeoutMs > 0.0) {
        s += QStringLiteral("    per_try_timeout: %1\n").arg(durationString(p.attemptTimeoutMs));
    }
    s += QStringLiteral("    retry_back_off:\n      base_interval: %1\n      max_interval: %2\n")
             .arg(durationString(baseMs), durationString(maxMs));
    // Envoy waits for the reset headers it is given before a retry of a rate-limited answer:
    // Retry-After as the policy honours it, X-RateLimit-Reset as it honours a rate limit's reset.
    if ((c.honourRetryAfter || c.honourRateLimitReset) && retries > 0 && !hedging) {
        s += QStringLiteral("    rate_limited_retry_back_off:\n"
                            "      reset_headers:\n");
        if (c.honourRetryAfter)
            s += QStringLiteral("        - name: retry-after\n          format: SECONDS\n");
        if (c.honourRateLimitReset)
            s += QStringLiteral("        - name: x-ratelimit-reset\n          format: UNIX_TIMESTAMP\n");
        s += QStringLiteral("      max_interval: %1\n").arg(durationString(c.maxRetryAfterMs));
        if (c.honourRetryAfter) {
            notes.append(Tr::tr("Envoy reads Retry-After only as seconds; an HTTP date in it is ignored and the "
                                "backoff applies."));
        }
        if (c.honourRateLimitReset) {
            notes.append(Tr::tr("Envoy reads X-RateLimit-Reset only as a Unix time, before a retry: not the IETF "
                                "RateLimit field, a reset in seconds from now, nor a spent quota before the first "
                                "attempt, which the policy holds requests back for."));
        }
    }

    if (hedging)
        s += QStringLiteral("  hedge_policy:\n    hedge_on_per_try_timeout: true\n");

    if (p.retryBudget.kind != RetryBudgetKind::None) {
        notes.append(Tr::tr("Envoy's retry budget is a cluster setting (circuit_breakers.thresholds.retry_budget: a "
                            "share of the active requests), not the policy's %1 budget; it was not exported.")
                         .arg(retryBudgetKindName(p.retryBudget.kind)));
    }
    if (p.circuitBreaker.enabled) {
        notes.append(Tr::tr("Envoy's circuit breakers limit connections and requests; ejecting a failing host is the "
                            "cluster's outlier_detection (consecutive_5xx, base_ejection_time). The breaker was not "
                            "exported."));
    }
    if (!c.retryNonIdempotent) {
        notes.append(Tr::tr("Envoy retries every method the route serves; the policy retries POST and PATCH only "
                            "when marked idempotent, so put the retry policy on routes of idempotent requests."));
    }
    notes.append(SourceText::commonNotes(p, QStringLiteral("Envoy"), SourceText::Breaker::Exported,
        SourceText::RateLimitReset::Exported, SourceText::Limiter::Absent, SourceText::Hedging::Exported));
    out.text = s;
    qCDebug(lcEnvoyRetryPolicy) << p.name << notes.size() << "notes";
    return out;
}

} // namespace RetryLab::Core::EnvoyRetryPolicy
