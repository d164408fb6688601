#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>

#include <optional>

namespace RetryLab::Core {

class RsaKey;

/// A JSON Web Token in compact form (RFC 7519, a JWS of RFC 7515): its header
/// and claims as JSON, and the signature over "header.claims" in base64url.
/// RetryLab signs and verifies RS256 only (JwtSigner signs; the fault server's
/// token endpoint verifies), which is what Google's service accounts use.
struct Jwt
{
    QJsonObject header;
    QJsonObject claims;
    /// "BASE64URL(header).BASE64URL(claims)": the bytes the signature covers.
    QByteArray signingInput;
    QByteArray signature;

    /// The three parts of `token`, read but not verified. The error says which
    /// part is malformed and never quotes the token.
    static Result<Jwt> decode(QByteArrayView token);
    /// Whether the header says RS256 and `publicKey` verifies the signature.
    Result<void> verifyRs256(const RsaKey &publicKey) const;

    /// base64url without padding (RFC 7515, section 2).
    static QByteArray base64Url(QByteArrayView bytes);
    /// The bytes of base64url text, padded or not; nullopt for anything else.
    static std::optional<QByteArray> fromBase64Url(QByteArrayView text);
};

} // namespace RetryLab::Core
