#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>

#include <optional>

namespace RetryLab::Core {

class Clock;
struct TokenResponse;

/// An access token as a cache keeps it: the token, its type, the refresh token
/// that came with it, and when it expires, on both clocks: the monotonic one
/// (Clock::nowNs, what decides) and the wall one (what people are shown). A
/// token without expires_in has no expiry and is used until the server refuses it.
struct AccessToken
{
    /// Refresh this long before the expiry, by default: a token that expires
    /// while its request travels gets a 401 the refresh would have avoided.
    static constexpr qint64 defaultMarginNs = 60'000'000'000;

    QString value; ///< secret
    QString type = QStringLiteral("Bearer");
    QString refreshToken; ///< secret; empty when none came
    QString scope;
    std::optional<qint64> expiresAtNs; ///< monotonic, on the clock the token was fetched by
    QDateTime expiresAt; ///< UTC; null without an expiry

    /// The token of `response`, its expiry counted from `fetchedNs`/`fetchedAt`:
    /// best the moment the request was sent, since expires_in counts from the
    /// server's answer.
    static AccessToken fromResponse(const TokenResponse &response, qint64 fetchedNs, const QDateTime &fetchedAt);
    /// The same with the fetch at `clock`'s now.
    static AccessToken fromResponse(const TokenResponse &response, const Clock &clock);

    bool hasExpiry() const { return expiresAtNs.has_value(); }
    /// Whether the token expires within `marginNs` of `nowNs` (or has expired).
    /// Never for a token without an expiry.
    bool expiresSoon(qint64 nowNs, qint64 marginNs = defaultMarginNs) const;
    bool isExpired(qint64 nowNs) const { return expiresSoon(nowNs, 0); }
    /// The Authorization header's value: "Bearer TOKEN" (a "bearer" type is
    /// written as RFC 6750 spells it), else "TYPE TOKEN".
    QByteArray authorizationValue() const;
};

} // namespace RetryLab::Core
