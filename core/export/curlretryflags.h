#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QStringList>

namespace RetryLab::Core {

/// A policy as curl command-line flags: `--retry`, `--retry-delay`,
/// `--retry-max-time`, `--max-time`, and `--retry-connrefused` or
/// `--retry-all-errors` where the policy retries faults curl does not count as
/// transient, with a note for everything curl cannot express.
///
/// What curl does (its manual): `--retry N` retries N times on a timeout or an
/// HTTP 408, 429, 500, 502, 503 or 504; it waits 1 s and doubles the wait up to
/// 10 minutes, unless `--retry-delay S` makes every wait S seconds (0 means the
/// default backoff); it honours Retry-After (since 7.66.0); `--retry-max-time`
/// stops starting retries after that many seconds but lets a running transfer
/// finish; `--max-time` bounds each transfer and restarts with every retry.
/// `--retry-delay` and `--retry-max-time` take whole seconds (curl 7.88 refuses
/// fractions); `--max-time` takes decimals. curl has no jitter.
namespace CurlRetryFlags {

struct Flags
{
    /// Arguments in order, e.g. {"--retry", "4", "--retry-delay", "1"}.
    QStringList arguments;
    /// What curl will do differently, one sentence each.
    QStringList notes;
};

Flags fromPolicy(const BackoffPolicy &policy);

/// The HTTP statuses `--retry` treats as transient.
QList<int> curlRetriedStatuses();

/// `seconds` as curl's decimal argument: "10", "1.5", "0.25".
QString decimalSeconds(double milliseconds);

} // namespace CurlRetryFlags

} // namespace RetryLab::Core
