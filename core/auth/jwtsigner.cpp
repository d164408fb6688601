#include "core/auth/jwtsigner.h"

#include "core/auth/jwt.h"

#include <QJsonDocument>

namespace RetryLab::Core {

JwtSigner::JwtSigner(RsaKey key, QString keyId) : m_key(std::move(key)), m_keyId(std::move(keyId))
{ }

Result<JwtSigner> JwtSigner::fromPem(QByteArrayView pem, QString keyId)
{
    auto key = RsaKey::fromPrivateKeyPem(pem);
    if (!key)
        return key.errorDetail();
    return JwtSigner(std::move(key).value(), std::move(keyId));
}

Result<QByteArray> JwtSigner::sign(const QJsonObject &claims) const
{
    return sign(claims, {});
}

Result<QByteArray> JwtSigner::sign(const QJsonObject &claims, const QJsonObject &extraHeader) const
{
    QJsonObject header = extraHeader;
    header.insert(QStringLiteral("alg"), QStringLiteral("RS256"));
    if (!header.contains(QLatin1String("typ")))
        header.insert(QStringLiteral("typ"), QStringLiteral("JWT"));
    if (!m_keyId.isEmpty())
        header.insert(QStringLiteral("kid"), m_keyId);
    const QByteArray signingInput = Jwt::base64Url(QJsonDocument(header).toJson(QJsonDocument::Compact)) + '.'
        + Jwt::base64Url(QJsonDocument(claims).toJson(QJsonDocument::Compact));
    const auto signature = m_key.signSha256(signingInput);
    if (!signature)
        return signature.errorDetail();
    return QByteArray(signingInput + '.' + Jwt::base64Url(*signature));
}

} // namespace RetryLab::Core
