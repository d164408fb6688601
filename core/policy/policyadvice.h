#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>

namespace RetryLab::Core {

/// How a policy is going to be used, which decides whether it is too aggressive
/// or too patient: a policy fine for one batch job can stampede a service from a
/// thousand clients, or leave a person staring at a spinner for minutes.
struct PolicyUsage
{
    /// Clients (or requests in flight) that may fail together and retry at once.
    int concurrentClients = 1;
    /// A person waits for the answer (a UI request), rather than a batch job.
    bool interactive = false;

    /// More clients than this are "more than a few": without jitter they retry in step.
    static constexpr int fewClients = 3;
    /// From this many clients on, retries without a retry budget can multiply an outage.
    static constexpr int highConcurrency = 10;
    /// An interactive request that may wait longer than this makes a person wait.
    static constexpr double interactiveWaitMs = 10'000.0;
    /// More attempts than this are rarely meant (the sources bound attempts low).
    static constexpr int manyAttempts = 10;
};

/// The worst-case time from the first attempt's start until the policy gives
/// up, not counting the attempts themselves: the sum of the largest delays of
/// every retry, bounded by the deadline. Infinite when nothing bounds it.
double worstCaseWaitMs(const BackoffPolicy &policy);

/// Warnings, with their reasons, about a policy that is allowed but aggressive
/// (or, for an interactive caller, too patient) for `usage`: the rules of the
/// sources (Azure: an aggressive policy makes things worse; Google: always
/// bound attempts and add jitter). Each names the field to change. Never errors:
/// validatePolicy() says what cannot run.
QList<PolicyIssue> advisePolicy(const BackoffPolicy &policy, const PolicyUsage &usage);

} // namespace RetryLab::Core
