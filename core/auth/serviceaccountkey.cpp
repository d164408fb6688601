#include "core/auth/serviceaccountkey.h"

#include "core/http/formurlencoded.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QUrl>

namespace RetryLab::Core {

namespace {

Error keyFileError(const QString &fileName, const QString &problem)
{
    return Error{QString(), Tr::tr("cannot use the service-account key file %1: %2").arg(fileName, problem)};
}

/// A text field that must be there and not be empty.
Result<QString> keyFileText(const QJsonObject &json, const char *field, const QString &fileName)
{
    const QString name = QLatin1String(field);
    const QJsonValue value = json.value(name);
    if (value.isUndefined())
        return keyFileError(fileName, Tr::tr("the field \"%1\" is missing").arg(name));
    if (!value.isString())
        return keyFileError(fileName, Tr::tr("the field \"%1\" is not a string").arg(name));
    if (value.toString().trimmed().isEmpty())
        return keyFileError(fileName, Tr::tr("the field \"%1\" is empty").arg(name));
    return value.toString();
}

} // namespace

Result<ServiceAccountKey> ServiceAccountKey::read(const QString &path)
{
    const auto bytes = BoundedFile::read(path, BoundedFile::Limit{maxFileBytes, Tr::tr("a service-account key file")});
    if (!bytes)
        return bytes.errorDetail();
    return fromJson(*bytes, path);
}

Result<ServiceAccountKey> ServiceAccountKey::fromJson(QByteArrayView json, const QString &fileName)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        // The parser's offset, not its text around it: the text may be the private key.
        return keyFileError(
            fileName, Tr::tr("it is not JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset));
    }
    if (!document.isObject())
        return keyFileError(fileName, Tr::tr("it is not a JSON object"));
    const QJsonObject object = document.object();
    const QJsonValue type = object.value(QLatin1String("type"));
    if (type.isUndefined()) {
        return keyFileError(fileName,
            Tr::tr("the field \"type\" is missing (a service-account key has \"type\": "
                   "\"service_account\")"));
    }
    if (type.toString() != QLatin1String("service_account")) {
        return keyFileError(fileName,
            Tr::tr("its \"type\" is \"%1\", not \"service_account\" (gcloud writes other kinds of credentials, "
                   "such as \"authorized_user\", to files of the same form)")
                .arg(type.isString() ? type.toString().left(40) : Tr::tr("not a string")));
    }
    ServiceAccountKey key;
    for (const auto &[field, target] : {std::pair{"client_email", &key.m_clientEmail},
             std::pair{"private_key_id", &key.m_privateKeyId}, std::pair{"token_uri", &key.m_tokenUri}}) {
        auto text = keyFileText(object, field, fileName);
        if (!text)
            return text.errorDetail();
        *target = *text;
    }
    key.m_projectId = object.value(QLatin1String("project_id")).toString();
    key.m_clientId = object.value(QLatin1String("client_id")).toString();
    const QUrl tokenUri(key.m_tokenUri, QUrl::StrictMode);
    if (!tokenUri.isValid() || tokenUri.host().isEmpty()
        || (tokenUri.scheme() != QLatin1String("https") && tokenUri.scheme() != QLatin1String("http"))) {
        return keyFileError(fileName, Tr::tr("the field \"token_uri\" is not an http or https URL"));
    }
    const auto pem = keyFileText(object, "private_key", fileName);
    if (!pem)
        return pem.errorDetail();
    auto signer = JwtSigner::fromPem(pem->toUtf8(), key.m_privateKeyId);
    if (!signer)
        return keyFileError(fileName, Tr::tr("the field \"private_key\" does not load: %1").arg(signer.error()));
    key.m_signer = std::move(signer).value();
    return key;
}

ServiceAccountKey ServiceAccountKey::create(const RsaKey &rsa, const QString &clientEmail, const QString &privateKeyId,
    const QString &tokenUri, const QString &projectId)
{
    ServiceAccountKey key;
    key.m_clientEmail = clientEmail;
    key.m_privateKeyId = privateKeyId;
    key.m_tokenUri = tokenUri;
    key.m_projectId = projectId;
    key.m_signer = JwtSigner(rsa, privateKeyId);
    return key;
}

QJsonObject ServiceAccountKey::assertionClaims(const QString &scope, const QDateTime &now) const
{
    const qint64 issuedAt = now.toSecsSinceEpoch();
    QJsonObject claims{
        {QStringLiteral("iss"), m_clientEmail},
        {QStringLiteral("aud"), m_tokenUri},
        {QStringLiteral("iat"), issuedAt},
        {QStringLiteral("exp"), issuedAt + assertionLifetimeSeconds},
    };
    if (!scope.trimmed().isEmpty())
        claims.insert(QStringLiteral("scope"), scope.simplified());
    return claims;
}

Result<QByteArray> ServiceAccountKey::assertion(const QString &scope, const QDateTime &now) const
{
    return m_signer.sign(assertionClaims(scope, now));
}

Result<QByteArray> ServiceAccountKey::tokenRequestBody(const QString &scope, const QDateTime &now) const
{
    const auto jwt = assertion(scope, now);
    if (!jwt)
        return jwt.errorDetail();
    return FormUrlEncoded::encode(
        {{QStringLiteral("grant_type"), grantType()}, {QStringLiteral("assertion"), QString::fromLatin1(*jwt)}});
}

QJsonObject ServiceAccountKey::toJson() const
{
    const QString email = QString::fromUtf8(QUrl::toPercentEncoding(m_clientEmail));
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("service_account")},
        {QStringLiteral("project_id"), m_projectId},
        {QStringLiteral("private_key_id"), m_privateKeyId},
        {QStringLiteral("private_key"), QString::fromLatin1(m_signer.key().privateKeyPem())},
        {QStringLiteral("client_email"), m_clientEmail},
        {QStringLiteral("client_id"), m_clientId},
        {QStringLiteral("auth_uri"), QStringLiteral("https://accounts.google.com/o/oauth2/auth")},
        {QStringLiteral("token_uri"), m_tokenUri},
        {QStringLiteral("auth_provider_x509_cert_url"), QStringLiteral("https://www.googleapis.com/oauth2/v1/certs")},
        {QStringLiteral("client_x509_cert_url"),
            QString(QStringLiteral("https://www.googleapis.com/robot/v1/metadata/x509/") + email)},
        {QStringLiteral("universe_domain"), QStringLiteral("googleapis.com")},
    };
}

} // namespace RetryLab::Core
