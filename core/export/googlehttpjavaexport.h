#pragma once

#include "core/export/sourcetext.h"
#include "core/policy/backoffpolicy.h"

namespace RetryLab::Core {

/// A policy as Java for the Google HTTP Client Library for Java
/// (com.google.http-client:google-http-client): a class that applies it to an
/// HttpRequest.
///
/// What the library does (googleapis.dev, ExponentialBackOff and
/// HttpBackOffUnsuccessfulResponseHandler; "Exponential Backoff" of its
/// guide): ExponentialBackOff.Builder sets setInitialIntervalMillis (above 0),
/// setRandomizationFactor (0 up to but not 1), setMultiplier (1 or more),
/// setMaxIntervalMillis and setMaxElapsedTimeMillis, all int milliseconds;
/// each wait is drawn from interval * [1 - factor, 1 + factor], the
/// interval capped before the draw; it returns STOP once the time elapsed
/// since it was built is past the maximum, so it does not give up early.
/// HttpBackOffUnsuccessfulResponseHandler retries the answers its
/// BackOffRequired accepts, HttpBackOffIOExceptionHandler every IOException;
/// HttpRequest.setNumberOfRetries bounds both together (default 10);
/// setConnectTimeout and setReadTimeout bound each connect and each read,
/// not a whole attempt. Retry-After is not read. A handler serves one
/// request at a time, so each request gets new ones.
namespace GoogleHttpJavaExport {

using Code = SourceText::Code;

/// The class `RetryPolicy` with `apply(HttpRequest)`.
Code snippet(const BackoffPolicy &policy);

} // namespace GoogleHttpJavaExport

} // namespace RetryLab::Core
