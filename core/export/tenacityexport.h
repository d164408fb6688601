#pragma once

#include "core/export/pythonsource.h"
#include "core/policy/backoffpolicy.h"

#include <QString>

namespace RetryLab::Core {

/// A policy as a tenacity `@retry(...)` decorator (tenacity 8, Debian 12's
/// python3-tenacity 8.2) around a `requests.get`.
///
/// tenacity's waits take the number of the attempt that failed, a, and wait
/// after it: wait_exponential `multiplier * exp_base^(a-1)` capped at max,
/// wait_random_exponential U[0, that], wait_exponential_jitter
/// `min(initial * exp_base^(a-1) + U[0, jitter], max)`, wait_fixed,
/// wait_random, wait_incrementing; waits add up with `+`. That covers every
/// RetryLab algorithm but decorrelated jitter exactly, proportional jitter up
/// to its cap. stop_after_attempt and stop_after_delay stop it;
/// retry_if_result and retry_if_exception_type pick what is retried. tenacity
/// knows nothing of Retry-After, HTTP methods or budgets: notes say so.
namespace TenacityExport {

/// The imports, the retry condition and the decorated `get(url)`.
PythonSource::Code snippet(const BackoffPolicy &policy);

/// A complete program: one GET to `url` (or its first argument) under the
/// policy; exit status 0 on a final status below 400, 1 otherwise.
PythonSource::Code program(const BackoffPolicy &policy, const QString &url);

/// The User-Agent the program sends, so that an observer can tell it apart.
inline constexpr char userAgent[] = "retrylab-tenacity/1.0";

} // namespace TenacityExport

} // namespace RetryLab::Core
