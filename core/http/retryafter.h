#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// A parsed Retry-After header value (RFC 9110 section 10.2.3).
struct RetryAfter
{
    enum class Kind {
        DelaySeconds, ///< delta-seconds
        HttpDate, ///< IMF-fixdate, RFC 850 or asctime date
        Invalid, ///< present but unusable (garbage, negative, fractional)
    };
    Kind kind = Kind::Invalid;
    /// Delay from `now` in milliseconds; 0 for a date in the past; unset when invalid.
    std::optional<double> delayMs;
    /// Why the value was read the way it was, for the user.
    QString reason;

    bool isValid() const { return kind != Kind::Invalid; }
};

/// Parses a Retry-After value. `now` is the wall time of the response (a date
/// header of the response, or the clock's wall time).
RetryAfter parseRetryAfter(const QByteArray &value, const QDateTime &now);

/// Parses the three HTTP-date forms; an invalid QDateTime when none matches.
QDateTime parseHttpDate(const QByteArray &value);
/// Formats as IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
QByteArray formatHttpDate(const QDateTime &time);

/// What a Retry-After means for the next sleep once bounded by the policy.
struct RetryAfterDecision
{
    enum class Action {
        Wait, ///< sleep delayMs (possibly clamped)
        GiveUp, ///< the wait would cross the deadline: fail at once
        Ignore, ///< the value is invalid; fall back to the backoff schedule
    };
    Action action = Action::Ignore;
    double delayMs = 0.0;
    bool clamped = false;
    QString reason;
};

/// Bounds a parsed value by `maxRetryAfterMs` and by the time left before the
/// total deadline (`remainingMs`, negative for "no deadline").
RetryAfterDecision boundRetryAfter(const RetryAfter &retryAfter, double maxRetryAfterMs, double remainingMs);

} // namespace RetryLab::Core
