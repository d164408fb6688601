#include "core/export/curlretryflags.h"

#include "core/export/sourcetext.h"
#include "core/http/httpstatuslist.h"
#include "core/policy/backoff.h"
#include "core/policy/policyfields.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLocale>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcCurlRetryFlags, "retrylab.core.curlretryflags")
} // namespace

namespace RetryLab::Core::CurlRetryFlags {

namespace {

// curl's own backoff when --retry-delay is not given: 1 s, doubled up to 10 minutes.
constexpr double curlFirstWaitMs = 1000.0;
constexpr double curlWaitMultiplier = 2.0;
constexpr double curlMaxWaitMs = 600'000.0;

} // namespace

QList<int> curlRetriedStatuses()
{
    return {408, 429, 500, 502, 503, 504};
}

QString decimalSeconds(double milliseconds)
{
    // Millisecond precision is all a per-transfer timeout needs, but a timeout
    // never rounds down to 0, which curl reads as "no timeout".
    const double ms = milliseconds > 0.0 ? std::max(1.0, std::round(milliseconds)) : 0.0;
    const double seconds = ms / 1000.0;
    return QString::number(seconds, 'f', QLocale::FloatingPointShortest);
}

Flags fromPolicy(const BackoffPolicy &p)
{
    Flags flags;
    QStringList &args = flags.arguments;
    QStringList &notes = flags.notes;

    int retries = p.maxAttempts > 0 ? p.maxAttempts - 1 : 0;
    if (p.maxAttempts == 0) {
        // Bounded by the deadline alone: allow as many retries as could fit, and
        // let --retry-max-time stop them.
        retries = int(std::max<qint64>(1, previewSchedule(p, maxPreviewRetries, 0, 0).retriesWithinDeadline));
        notes.append(Tr::tr("The policy is bounded only by its deadline; --retry %1 is the most retries that fit, and "
                            "--retry-max-time stops them.")
                         .arg(retries));
    }

    if (retries == 0) {
        notes.append(Tr::tr("The policy makes a single attempt, so no --retry is given."));
    } else {
        args << QStringLiteral("--retry") << QString::number(retries);

        const bool curlsOwnBackoff
            = growsExponentially(p.algorithm) && p.baseDelayMs == curlFirstWaitMs && p.multiplier == curlWaitMultiplier;
        if (curlsOwnBackoff) {
            if (p.maxBackoffMs != curlMaxWaitMs) {
                notes.append(Tr::tr("curl's own backoff (1 s, doubled) matches the policy, but grows to 10 minutes; "
                                    "curl cannot cap it at %1.")
                                 .arg(DurationText::format(p.maxBackoffMs)));
            }
        } else {
            const qint64 seconds = std::max<qint64>(1, std::llround(p.baseDelayMs / 1000.0));
            args << QStringLiteral("--retry-delay") << QString::number(seconds);
            switch (p.algorithm) {
            case BackoffAlgorithm::Constant:
                if (double(seconds) * 1000.0 != p.baseDelayMs) {
                    notes.append(Tr::tr("curl's --retry-delay takes whole seconds: %1 ms became %2 s.")
                                     .arg(p.baseDelayMs)
                                     .arg(seconds));
                }
                break;
            case BackoffAlgorithm::Immediate:
                notes.append(Tr::tr("curl cannot retry at once (--retry-delay 0 means its default backoff); 1 s is the "
                                    "shortest wait it takes."));
                break;
            case BackoffAlgorithm::Linear:
                notes.append(Tr::tr("curl cannot grow the wait linearly; every wait is %1 s.").arg(seconds));
                break;
            default:
                notes.append(Tr::tr("curl cannot grow the wait from %1 ms by %2 per retry (its own backoff is 1 s, "
                                    "doubled); with --retry-delay every wait is %3 s.")
                                 .arg(p.baseDelayMs)
                                 .arg(p.multiplier)
                                 .arg(seconds));
                break;
            }
        }
        if (hasJitter(p)) {
            notes.append(Tr::tr("curl has no jitter: every client waits exactly the same time, so clients that failed "
                                "together retry together."));
        }
        if (p.classification.honourRetryAfter) {
            notes.append(Tr::tr("curl honours Retry-After (since 7.66.0) but has no option to cap it; the policy caps "
                                "it at %1.")
                             .arg(DurationText::format(p.classification.maxRetryAfterMs)));
        } else {
            notes.append(Tr::tr("curl always honours Retry-After; the policy ignores it."));
        }
    }

    if (p.deadlineMs > 0.0 && retries > 0) {
        const qint64 seconds = std::max<qint64>(1, qint64(std::ceil(p.deadlineMs / 1000.0)));
        args << QStringLiteral("--retry-max-time") << QString::number(seconds);
        if (double(seconds) * 1000.0 != p.deadlineMs)
            notes.append(Tr::tr("--retry-max-time takes whole seconds: the deadline of %1 ms became %2 s.")
                             .arg(p.deadlineMs)
                             .arg(seconds));
        notes.append(Tr::tr("--retry-max-time only stops new retries: a transfer already running may go past it, and "
                            "curl does not give up early when the next wait would cross it."));
    }
    if (p.attemptTimeoutMs > 0.0)
        args << QStringLiteral("--max-time") << decimalSeconds(p.attemptTimeoutMs);

    if (retries > 0) {
        const auto &actions = p.classification.networkActions;
        const auto retried = [&actions](NetworkFaultClass fault) {
            return actions.value(fault, FaultAction::GiveUp) != FaultAction::GiveUp;
        };
        // --retry-all-errors is curl's "sledgehammer": it is only given when the policy
        // retries every transport fault anyway, so that it retries nothing the policy would not.
        QStringList notRetriedByCurl;
        bool retriesEveryFault = true;
        for (NetworkFaultClass fault : allNetworkFaultClasses()) {
            if (!retried(fault)) {
                retriesEveryFault = false;
                continue;
            }
            if (fault != NetworkFaultClass::ConnectionRefused && fault != NetworkFaultClass::Timeout)
                notRetriedByCurl.append(networkFaultClassName(fault));
        }
        if (retriesEveryFault) {
            args << QStringLiteral("--retry-all-errors");
            notes.append(
                Tr::tr("--retry-all-errors (curl 7.71.0) makes curl retry every transport error, as the policy "
                       "does; with piped output it may write data twice."));
        } else {
            if (retried(NetworkFaultClass::ConnectionRefused))
                args << QStringLiteral("--retry-connrefused");
            if (!notRetriedByCurl.isEmpty()) {
                notes.append(Tr::tr("curl treats %1 as permanent and will not retry them; --retry-all-errors would, "
                                    "but it would also retry the faults the policy gives up on.")
                                 .arg(notRetriedByCurl.join(QStringLiteral(", "))));
            }
        }
        if (!retried(NetworkFaultClass::Timeout))
            notes.append(Tr::tr("curl always retries timeouts; the policy gives up on them."));

        QList<int> policyStatuses(
            p.classification.retryableStatuses.cbegin(), p.classification.retryableStatuses.cend());
        std::sort(policyStatuses.begin(), policyStatuses.end());
        const QList<int> curlStatuses = curlRetriedStatuses();
        QList<int> extra;
        QList<int> missing;
        for (int s : std::as_const(policyStatuses)) {
            if (!curlStatuses.contains(s))
                extra.append(s);
        }
        for (int s : curlStatuses) {
            if (!policyStatuses.contains(s))
                missing.append(s);
        }
        if (!extra.isEmpty()) {
            notes.append(Tr::tr("curl retries only HTTP 408, 429, 500, 502, 503 and 504; it cannot retry %1 alone "
                                "(--fail with --retry-all-errors would retry every HTTP error).")
                             .arg(HttpStatusList::format(extra)));
        }
        if (!missing.isEmpty())
            notes.append(
                Tr::tr("curl also retries HTTP %1, which the policy does not.").arg(HttpStatusList::format(missing)));
        if (!p.classification.retryNonIdempotent) {
            notes.append(
                Tr::tr("curl retries every method, POST and PATCH included; the policy retries those only when "
                       "marked idempotent or sent with an Idempotency-Key."));
        }
    }
    if (p.circuitBreaker.enabled)
        notes.append(Tr::tr("curl has no circuit breaker."));
    if (p.retryBudget.kind != RetryBudgetKind::None)
        notes.append(Tr::tr("curl has no retry budget; each curl process retries on its own."));
    notes.append(SourceText::responseNotes(p, QStringLiteral("curl")));
    notes.append(SourceText::limiterNotes(p, QStringLiteral("curl")));
    notes.append(SourceText::hedgingNotes(p, QStringLiteral("curl")));

    qCDebug(lcCurlRetryFlags) << p.name << "->" << args;
    return flags;
}

} // namespace RetryLab::Core::CurlRetryFlags
