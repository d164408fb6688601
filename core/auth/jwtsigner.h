#pragma once

#include "core/auth/rsakey.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace RetryLab::Core {

/// Signs JWTs with RS256 (RFC 7519, RFC 7518 3.3): the header
/// {"alg": "RS256", "typ": "JWT", "kid": keyId} (kid left out when empty) and
/// the given claims, each as compact JSON in base64url, and the RSA signature of
/// the two. Verified by Jwt::verifyRs256, `openssl dgst -sha256 -verify` and
/// PyJWT alike (tst_jwtsigner).
class JwtSigner final
{
public:
    /// `key` must hold a private key.
    explicit JwtSigner(RsaKey key, QString keyId = {});
    /// A signer with the PEM private key (PKCS#8 or PKCS#1, unencrypted RSA of
    /// 2048 bits or more); the error says what is wrong with the key.
    static Result<JwtSigner> fromPem(QByteArrayView pem, QString keyId = {});

    const RsaKey &key() const { return m_key; }
    const QString &keyId() const { return m_keyId; }

    /// The token "header.claims.signature".
    Result<QByteArray> sign(const QJsonObject &claims) const;
    /// The same with more header fields (they cannot replace alg).
    Result<QByteArray> sign(const QJsonObject &claims, const QJsonObject &extraHeader) const;

private:
    RsaKey m_key;
    QString m_keyId;
};

} // namespace RetryLab::Core
