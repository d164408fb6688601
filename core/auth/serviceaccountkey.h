#pragma once

#include "core/auth/jwtsigner.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QJsonObject>
#include <QString>

namespace RetryLab::Core {

/// A Google service-account key file (the JSON that the Cloud console and
/// `gcloud iam service-accounts keys create` write, "type": "service_account")
/// and what it is for: the signed JWT of the JWT bearer grant (RFC 7523, as
/// Google's OAuth 2.0 for server-to-server applications describes it), which
/// its token_uri exchanges for an access token.
///
/// The errors name the file and the field, never quote the private key, and say
/// what is wrong with the key when it does not load (RsaKey's words).
class ServiceAccountKey final
{
public:
    /// The largest key file read (a real one is about 2.3 KB).
    static constexpr qint64 maxFileBytes = 1024 * 1024;
    /// How long an assertion is valid: Google accepts at most an hour.
    static constexpr int assertionLifetimeSeconds = 3600;
    /// The grant_type of the token request (RFC 7523, section 2.1).
    static QString grantType() { return QStringLiteral("urn:ietf:params:oauth:grant-type:jwt-bearer"); }

    /// Reads and checks the key file at `path`.
    static Result<ServiceAccountKey> read(const QString &path);
    /// The same from the file's bytes; `fileName` is what the errors name.
    static Result<ServiceAccountKey> fromJson(QByteArrayView json, const QString &fileName);
    /// A key of these names around `key` (which holds a private key): what the
    /// fault server hands out for tests (toJson()).
    static ServiceAccountKey create(const RsaKey &key, const QString &clientEmail, const QString &privateKeyId,
        const QString &tokenUri, const QString &projectId);

    const QString &clientEmail() const { return m_clientEmail; }
    const QString &clientId() const { return m_clientId; }
    const QString &privateKeyId() const { return m_privateKeyId; }
    const QString &tokenUri() const { return m_tokenUri; }
    const QString &projectId() const { return m_projectId; }
    /// Signs with the key's private key, "kid" = private_key_id.
    const JwtSigner &signer() const { return m_signer; }

    /// The claims of the assertion: iss = client_email, scope (left out when
    /// empty), aud = token_uri, iat = `now` in seconds, exp = iat + 3600.
    QJsonObject assertionClaims(const QString &scope, const QDateTime &now) const;
    /// The signed assertion (a compact JWT).
    Result<QByteArray> assertion(const QString &scope, const QDateTime &now) const;
    /// The token request's form body:
    /// "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=JWT".
    Result<QByteArray> tokenRequestBody(const QString &scope, const QDateTime &now) const;

    /// The key file, private key included: Google's fields and spelling.
    QJsonObject toJson() const;

private:
    ServiceAccountKey() = default;

    QString m_clientEmail;
    QString m_clientId;
    QString m_privateKeyId;
    QString m_tokenUri;
    QString m_projectId;
    JwtSigner m_signer{RsaKey()};
};

} // namespace RetryLab::Core
