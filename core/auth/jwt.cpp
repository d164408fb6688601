#include "core/auth/jwt.h"

#include "core/auth/rsakey.h"
#include "core/util/coretr.h"

#include <QJsonDocument>
#include <QJsonParseError>

namespace RetryLab::Core {

namespace {

/// A part of a token as a JSON object, or why not ("the header is not base64url").
Result<QJsonObject> jwtPart(QByteArrayView encoded, const QString &what)
{
    const auto bytes = Jwt::fromBase64Url(encoded);
    if (!bytes)
        return Result<QJsonObject>::failure(Tr::tr("the JWT's %1 is not base64url").arg(what));
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(*bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return Result<QJsonObject>::failure(Tr::tr("the JWT's %1 is not a JSON object").arg(what));
    return document.object();
}

} // namespace

QByteArray Jwt::base64Url(QByteArrayView bytes)
{
    return bytes.toByteArray().toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

std::optional<QByteArray> Jwt::fromBase64Url(QByteArrayView text)
{
    // Qt's decoder takes "+" and "/" in URL mode too: refuse them, they are not base64url.
    if (text.contains('+') || text.contains('/'))
        return std::nullopt;
    auto decoded = QByteArray::fromBase64Encoding(
        text.toByteArray(), QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return decoded.decoded;
}

Result<Jwt> Jwt::decode(QByteArrayView token)
{
    const QByteArrayView trimmed = token.trimmed();
    const qsizetype first = trimmed.indexOf('.');
    const qsizetype second = first < 0 ? -1 : trimmed.indexOf('.', first + 1);
    if (first < 0 || second < 0 || trimmed.indexOf('.', second + 1) >= 0)
        return Result<Jwt>::failure(Tr::tr("a JWT has three parts separated by dots; this one does not"));
    Jwt jwt;
    const auto header = jwtPart(trimmed.first(first), Tr::tr("header"));
    if (!header)
        return header.errorDetail();
    const auto claims = jwtPart(trimmed.sliced(first + 1, second - first - 1), Tr::tr("claims"));
    if (!claims)
        return claims.errorDetail();
    const auto signature = fromBase64Url(trimmed.sliced(second + 1));
    if (!signature)
        return Result<Jwt>::failure(Tr::tr("the JWT's signature is not base64url"));
    jwt.header = *header;
    jwt.claims = *claims;
    jwt.signingInput = trimmed.first(second).toByteArray();
    jwt.signature = *signature;
    return jwt;
}

Result<void> Jwt::verifyRs256(const RsaKey &publicKey) const
{
    const QString algorithm = header.value(QLatin1String("alg")).toString();
    if (algorithm != QLatin1String("RS256")) {
        return Result<void>::failure(Tr::tr("the JWT is signed with \"%1\", not RS256")
                                         .arg(algorithm.isEmpty() ? Tr::tr("no algorithm") : algorithm.left(20)));
    }
    if (publicKey.isNull())
        return Result<void>::failure(Tr::tr("there is no key to verify the JWT with"));
    if (!publicKey.verifySha256(signingInput, signature))
        return Result<void>::failure(Tr::tr("the JWT's signature does not verify with the key"));
    return {};
}

} // namespace RetryLab::Core
