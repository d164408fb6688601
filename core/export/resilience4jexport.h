#pragma once

#include "core/export/sourcetext.h"
#include "core/policy/backoffpolicy.h"

namespace RetryLab::Core {

/// A policy as Spring Boot YAML for Resilience4j 2 (resilience4j-spring-boot3):
/// `resilience4j.retry.instances.<name>`, with `resilience4j.timelimiter` for
/// the attempt timeout and `resilience4j.circuitbreaker` when the policy has a
/// breaker.
///
/// What Resilience4j does (resilience4j.readme.io, "Retry"; its Spring Boot
/// properties): maxAttempts counts the first call; waitDuration is the wait,
/// multiplied by exponentialBackoffMultiplier per retry with
/// enableExponentialBackoff and capped by exponentialMaxWaitDuration; with
/// enableRandomizedWait each wait is drawn from wait * [1 - f, 1 + f],
/// randomizedWaitFactor f below 1 (with exponential backoff too, the cap
/// applying before the draw). retryExceptions lists exception classes; a
/// result is retried only by a Predicate class named in resultPredicate,
/// which YAML cannot write, so the statuses become a note naming one. It has
/// no deadline across retries, no Retry-After and no retry budget. The
/// Spring aspects run Retry(CircuitBreaker(TimeLimiter(call))) by default, so
/// a TimeLimiter bounds each attempt. Its circuit breaker opens at
/// failureRateThreshold (percent) of a COUNT_BASED window of slidingWindowSize
/// calls once minimumNumberOfCalls were made, stays open
/// waitDurationInOpenState and then lets
/// permittedNumberOfCallsInHalfOpenState calls through. Durations are
/// written in milliseconds ("1000ms"), which Spring Boot reads.
namespace Resilience4jExport {

using Code = SourceText::Code;

/// The YAML document.
Code yaml(const BackoffPolicy &policy);

/// The instance name the YAML uses for the policy: its name as a slug.
QString instanceName(const BackoffPolicy &policy);

/// The predicate class the note names for the statuses.
inline constexpr char resultPredicateClass[] = "com.example.retry.RetryableStatusPredicate";

} // namespace Resilience4jExport

} // namespace RetryLab::Core
