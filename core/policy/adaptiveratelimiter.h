#pragma once

#include "core/policy/backoffpolicy.h"

#include <QByteArrayView>

#include <optional>

namespace RetryLab::Core {

/// The AWS SDKs' adaptive retry mode: a client-side token bucket whose fill rate
/// follows a CUBIC curve after throttling answers. What it relies on, as botocore
/// (botocore/retries/adaptive.py, bucket.py, throttling.py) and the AWS SDKs and
/// Tools Reference Guide ("Retry behavior", adaptive mode) describe it:
///
/// - The limiter starts disabled: no attempt waits until the first throttling
///   answer enables it, and it stays enabled.
/// - The measured rate counts the responses in 0.5 s time buckets; when a
///   response falls in a later bucket, the count over the time since the last
///   bucket is blended in: measured = 0.8 * new + 0.2 * measured.
/// - On a throttling answer the rate to use is the measured rate (once enabled,
///   min(measured, the bucket's fill rate)); it becomes the last maximum W, the
///   time K = cbrt(W * (1 - beta) / C) is computed again, the throttle's time is
///   kept, and the new rate is rate * beta (beta 0.7).
/// - On any other answer the new rate is C * (t - lastThrottle - K)^3 + W (C 0.4).
/// - Either way the bucket fills at min(new rate, 2 * measured), but never
///   slower than the minimum rate (0.5/s). The bucket holds at most
///   max(rate, 1) tokens, starts empty, and is refilled at the old rate before
///   the rate changes.
/// - Every attempt, first or retry, takes a token before it is sent while the
///   limiter is enabled, waiting until there is one.
///
/// One difference: botocore blocks a thread until the token is there and looks
/// at the rate again whenever it changes; an asynchronous executor cannot block,
/// so acquireDelayMs() reserves the token at once (the bucket may go below zero)
/// and says how long to wait for it. A wait is fixed when it is reserved.
///
/// Times are milliseconds on the caller's clock (an executor's or the herd
/// simulator's virtual one); only differences matter, besides the 0.5 s buckets,
/// which are counted from the clock's origin as botocore counts them from its own.
class AdaptiveRateLimiter
{
public:
    explicit AdaptiveRateLimiter(RateLimiterSettings settings = {}, double startMs = 0.0);

    RateLimiterKind kind() const { return m_settings.kind; }
    /// True when the policy asks for a limiter at all.
    bool active() const { return m_settings.kind != RateLimiterKind::None; }
    /// True once a throttling answer turned the bucket on.
    bool enabled() const { return m_enabled; }

    /// Takes a token for the next attempt and returns how long it must wait for
    /// it (0 while the limiter is off or a token is there).
    double acquireDelayMs(double nowMs);
    /// Feeds the answer to an attempt (or its network fault, not throttled).
    void onResponse(double nowMs, bool throttled);
    /// What the AWS SDKs take for throttling: HTTP 429, or an error answer whose
    /// body carries one of the throttling codes botocore lists (S3's 503
    /// SlowDown, "ThrottlingException", ...) in its first 4 KiB. A plain 503 is not.
    static bool isThrottling(std::optional<int> status, QByteArrayView body);

    /// The bucket's fill rate in requests/s.
    double currentRate() const { return m_fillRate; }
    /// The smoothed rate of responses, in requests/s.
    double measuredRate() const { return m_measured; }
    /// W: the rate in use when the last throttling answer came.
    double lastMaxRate() const { return m_lastMax; }
    /// Tokens in the bucket now (below zero: reserved by waiting attempts).
    double tokens() const { return m_tokens; }

private:
    double measure(double nowS);
    void refill(double nowS);
    void setFillRate(double rate, double nowS);

    RateLimiterSettings m_settings;
    bool m_enabled = false;

    // The token bucket, as botocore creates it: 1 request/s, one token at most, empty.
    double m_fillRate = 1.0;
    double m_capacity = 1.0;
    double m_tokens = 0.0;
    double m_lastRefillS = 0.0;

    // The measured rate.
    double m_measured = 0.0;
    double m_lastBucketS = 0.0;
    int m_count = 0;

    // The CUBIC curve.
    double m_lastMax = 0.0;
    double m_k = 0.0;
    double m_lastThrottleS = 0.0;
};

} // namespace RetryLab::Core
