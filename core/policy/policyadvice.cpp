#include "core/policy/policyadvice.h"

#include "core/policy/backoff.h"
#include "core/policy/policyfields.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>

#include <cmath>
#include <limits>

namespace RetryLab::Core {

namespace {

PolicyIssue warning(PolicyFieldId field, const QString &message)
{
    return {PolicyIssue::Severity::Warning, policyFieldName(field), message};
}

} // namespace

double worstCaseWaitMs(const BackoffPolicy &policy)
{
    const double deadline = policy.deadlineMs > 0.0 ? policy.deadlineMs : std::numeric_limits<double>::infinity();
    if (policy.maxAttempts <= 0)
        return deadline;
    // Immediate retries once, whatever the limit.
    const qint64 retries = policy.algorithm == BackoffAlgorithm::Immediate ? std::min(1, policy.maxAttempts - 1)
                                                                           : qint64(policy.maxAttempts) - 1;
    double sum = 0.0;
    for (qint64 n = 0; n < retries && sum < deadline; ++n)
        sum += Backoff::delayRange(policy, n).maxMs;
    return std::min(sum, deadline);
}

QList<PolicyIssue> advisePolicy(const BackoffPolicy &p, const PolicyUsage &usage)
{
    QList<PolicyIssue> advice;
    const int clients = std::max(1, usage.concurrentClients);

    if (clients > PolicyUsage::fewClients && !hasJitter(p) && p.maxAttempts != 1) {
        advice.append(
            warning(usesIntervalJitter(p.algorithm) ? PolicyFieldId::IntervalJitter : PolicyFieldId::Algorithm,
                Tr::tr("no jitter with %1 clients: clients that fail together retry in step, in synchronised waves "
                       "that hit the service again all at once. Pick a jittered algorithm%2.")
                    .arg(clients)
                    .arg(usesIntervalJitter(p.algorithm) ? Tr::tr(" or an interval jitter") : QString())));
    }

    const bool allImmediate = p.algorithm != BackoffAlgorithm::Immediate && usesBaseDelay(p.algorithm)
        && p.baseDelayMs == 0.0 && !(p.algorithm == BackoffAlgorithm::GoogleTruncatedExponential && p.jitterMs > 0.0)
        && !(p.algorithm == BackoffAlgorithm::IamTruncatedExponential && p.jitterMs > 0.0);
    if (allImmediate && (p.maxAttempts == 0 || p.maxAttempts > 2)) {
        advice.append(warning(PolicyFieldId::BaseDelay,
            Tr::tr("every retry goes out at once (a base delay of 0 ms): retrying immediately more than once turns "
                   "a busy service's trouble into a retry storm. Retry at once only once, for a rare fault.")));
    }

    if (usage.interactive) {
        const double wait = worstCaseWaitMs(p);
        if (wait > PolicyUsage::interactiveWaitMs) {
            const bool deadlineBound = p.deadlineMs > 0.0 && wait >= p.deadlineMs;
            advice.append(warning(deadlineBound ? PolicyFieldId::Deadline : PolicyFieldId::MaxBackoff,
                Tr::tr("a person may wait %1 before this policy gives up (%2). For an interactive request, a few "
                       "attempts and a short deadline: failing fast and saying so beats a long spinner.")
                    .arg(std::isfinite(wait) ? DurationText::format(wait) : Tr::tr("without end"),
                        deadlineBound ? Tr::tr("the deadline")
                                      : Tr::tr("delays of up to %1 each").arg(DurationText::format(p.maxBackoffMs)))));
        }
    }

    if (clients >= PolicyUsage::highConcurrency && p.retryBudget.kind == RetryBudgetKind::None && p.maxAttempts != 1) {
        advice.append(warning(PolicyFieldId::BudgetKind,
            Tr::tr("no retry budget with %1 clients: when the service fails for everyone, every client retries "
                   "and the load multiplies by up to the attempt limit. A budget (the AWS retry quota, gRPC "
                   "throttling) stops retrying when most attempts fail.")
                .arg(clients)));
    }

    if (p.maxAttempts > PolicyUsage::manyAttempts) {
        advice.append(warning(PolicyFieldId::MaxAttempts,
            Tr::tr("%1 attempts: past 10, retries rarely help a fault that is transient and add load to one that "
                   "is not. Bound attempts low and let a deadline end the rest.")
                .arg(p.maxAttempts)));
    }
    return advice;
}

} // namespace RetryLab::Core
