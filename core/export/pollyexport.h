#pragma once

#include "core/export/sourcetext.h"
#include "core/policy/backoffpolicy.h"

#include <QString>

namespace RetryLab::Core {

/// A policy for .NET's Polly 8: as C# that builds a
/// `ResiliencePipelineBuilder<HttpResponseMessage>` (snippet), and as the JSON
/// options of Microsoft.Extensions.Http.Resilience's standard resilience handler
/// (options), an appsettings section.
///
/// What Polly 8 does (pollydocs.org, "Retry resilience strategy"; the API of
/// RetryStrategyOptions<T>): MaxRetryAttempts counts retries, 1 to int.MaxValue;
/// BackoffType is Constant (Delay each time), Linear (Delay * (n + 1)) or
/// Exponential (Delay * 2^n: the factor is fixed at 2); MaxDelay caps the
/// delay; UseJitter draws the exponential delay with its decorrelated jitter v2
/// around Delay * 2^n and moves a constant or linear one by up to ±25 %;
/// ShouldHandle picks the outcomes retried; a DelayGenerator replaces the
/// backoff, which is where Retry-After can be read (Polly itself ignores it).
/// AddTimeout before AddRetry bounds the whole execution, after it each attempt.
/// The circuit breaker opens when FailureRatio of at least MinimumThroughput
/// calls in SamplingDuration failed, for BreakDuration (at least 0.5 s), then
/// lets one trial call through.
///
/// The standard resilience handler (learn.microsoft.com,
/// HttpStandardResilienceOptions) chains TotalRequestTimeout, Retry,
/// CircuitBreaker and AttemptTimeout (and RateLimiter); Retry is an
/// HttpRetryStrategyOptions, which adds ShouldRetryAfterHeader (default true)
/// and by default retries HttpRequestException, timeouts and HTTP 408, 429 and
/// 5xx; options files cannot change that set. Its defaults: 30 s in total,
/// 10 s per attempt, a circuit breaker always on. TimeSpans are written
/// "d.hh:mm:ss.fffffff" as .NET's configuration binder reads them.
namespace PollyExport {

using Code = SourceText::Code;

/// C#: the pipeline, its retry, its timeouts and breaker, and the status check.
Code snippet(const BackoffPolicy &policy);

/// The standard resilience handler's options as an indented JSON object.
Code options(const BackoffPolicy &policy);

/// `milliseconds` as a .NET TimeSpan string: "00:00:00.2000000", "1.00:00:00.0000000".
QString timeSpan(double milliseconds);

} // namespace PollyExport

} // namespace RetryLab::Core
