#pragma once

#include "core/export/sourcetext.h"
#include "core/policy/backoffpolicy.h"

namespace RetryLab::Core {

/// A policy as the `route` of an Envoy route entry (envoy.config.route.v3):
/// its `timeout` and `retry_policy`.
///
/// What Envoy does (envoyproxy.io, the router filter and RetryPolicy):
/// `retry_on` names the conditions: `5xx` (any 5xx, and no answer at all:
/// reset, connect failure, per-try timeout), `gateway-error` (502, 503, 504),
/// `reset` (no answer: disconnect, reset, per-try timeout), `connect-failure`,
/// `retriable-4xx` (409) and `retriable-status-codes` with
/// `retriable_status_codes`. `num_retries` counts retries (default 1);
/// `per_try_timeout` bounds each attempt; the route's `timeout` (default 15 s,
/// 0s for none) bounds the whole request, retries included, without giving up
/// early. The backoff is fully jittered exponential: U[0, base_interval *
/// 2^n], the multiplier fixed at 2, capped at `max_interval` (default 10 times
/// the base); base_interval must be above zero. With
/// `rate_limited_retry_back_off` Envoy waits as long as a `reset_headers`
/// header asks (Retry-After in SECONDS, X-RateLimit-Reset as a UNIX_TIMESTAMP)
/// up to its `max_interval`; Retry-After as an HTTP date is not read. Retry
/// budgets and circuit breakers are cluster settings
/// (circuit_breakers.thresholds.retry_budget, outlier_detection), not the
/// route's. Durations are written as proto3 JSON durations ("1.5s").
namespace EnvoyRetryPolicy {

using Code = SourceText::Code;

/// The YAML fragment: `route:` with `timeout` and `retry_policy`.
Code yaml(const BackoffPolicy &policy);

} // namespace EnvoyRetryPolicy

} // namespace RetryLab::Core
