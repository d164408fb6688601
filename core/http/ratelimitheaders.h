#pragma once

#include "core/http/httpheaders.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// What a response says about the client's rate limit, in whichever of the styles
/// servers use:
///   - the IETF httpapi draft's structured fields, `RateLimit: "default";r=50;t=30`
///     with `RateLimit-Policy: "default";q=100;w=60`, and the draft's earlier forms
///     (`RateLimit: limit=100, remaining=50, reset=30`; `RateLimit-Limit`,
///     `RateLimit-Remaining`, `RateLimit-Reset` apart; `RateLimit-Policy: 100;w=60`);
///   - the common `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`,
///     whose reset is either seconds from now or a Unix time, told apart by size
///     (from 10^9 a time in seconds, from 10^12 in milliseconds).
/// A value present but unusable is never guessed at: it is left unset and named in
/// `problems`.
struct RateLimitHeaders
{
    enum class Style {
        None, ///< no rate-limit field at all
        Ietf, ///< RateLimit (and RateLimit-Policy), a structured field
        IetfSeparate, ///< RateLimit-Limit / -Remaining / -Reset
        XRateLimit, ///< X-RateLimit-Limit / -Remaining / -Reset
    };
    Style style = Style::None;
    /// The quota of the window.
    std::optional<qint64> limit;
    std::optional<qint64> remaining;
    /// From the response until the quota is whole again.
    std::optional<double> resetMs;
    /// RateLimit-Policy's window (w=), in seconds.
    std::optional<qint64> windowSeconds;
    /// The policy's name in the structured field ("default"); empty when it has none.
    QString policyName;
    /// How a reset value was read: "seconds from now", "a Unix time in seconds", ...
    QString resetReading;
    /// Fields present but unusable, each with the header named and why.
    QStringList problems;

    bool isPresent() const { return style != Style::None; }
    /// Nothing is left of the quota: a client should hold back until the reset.
    bool exhausted() const { return remaining && *remaining <= 0; }
    /// "50 of 100 left, resets in 30 s, window 60 s (RateLimit)".
    QString describe() const;
    static QString styleName(Style style);

    /// Reads the fields of `headers`; `now` is the wall time of the response, for
    /// a reset given as a Unix time. When both styles are there, the IETF one wins.
    static RateLimitHeaders parse(const HeaderList &headers, const QDateTime &now);
};

} // namespace RetryLab::Core
