#include "core/auth/accesstoken.h"

#include "core/auth/tokenresponse.h"
#include "core/util/clock.h"

#include <limits>

namespace RetryLab::Core {

AccessToken AccessToken::fromResponse(const TokenResponse &response, qint64 fetchedNs, const QDateTime &fetchedAt)
{
    AccessToken token;
    token.value = response.accessToken;
    token.type = response.tokenType.isEmpty() ? QStringLiteral("Bearer") : response.tokenType;
    token.refreshToken = response.refreshToken;
    token.scope = response.scope;
    if (response.expiresInSeconds) {
        const qint64 seconds = std::min<qint64>(*response.expiresInSeconds, 10LL * 365 * 24 * 3600);
        token.expiresAtNs = fetchedNs + seconds * 1'000'000'000;
        token.expiresAt = fetchedAt.toUTC().addSecs(seconds);
    }
    return token;
}

AccessToken AccessToken::fromResponse(const TokenResponse &response, const Clock &clock)
{
    return fromResponse(response, clock.nowNs(), clock.wallTime());
}

bool AccessToken::expiresSoon(qint64 nowNs, qint64 marginNs) const
{
    if (!expiresAtNs)
        return false;
    return nowNs >= *expiresAtNs - std::max<qint64>(0, marginNs);
}

QByteArray AccessToken::authorizationValue() const
{
    const QString scheme = type.isEmpty() || type.compare(QLatin1String("bearer"), Qt::CaseInsensitive) == 0
        ? QStringLiteral("Bearer")
        : type;
    return scheme.toUtf8() + ' ' + value.toUtf8();
}

} // namespace RetryLab::Core
