#include "core/auth/authspec.h"

#include "core/util/coretr.h"

namespace RetryLab::Core {

namespace {

struct KindNames
{
    AuthSpec::Kind kind;
    const char *name;
};

constexpr KindNames kindNames[] = {
    {AuthSpec::Kind::Inherit, "inherit"},
    {AuthSpec::Kind::None, "none"},
    {AuthSpec::Kind::Basic, "basic"},
    {AuthSpec::Kind::Bearer, "bearer"},
    {AuthSpec::Kind::ApiKey, "apikey"},
    {AuthSpec::Kind::Digest, "digest"},
    {AuthSpec::Kind::OAuth2ClientCredentials, "oauth2-client-credentials"},
    {AuthSpec::Kind::OAuth2RefreshToken, "oauth2-refresh-token"},
    {AuthSpec::Kind::OAuth2AuthorizationCode, "oauth2-authorization-code"},
    {AuthSpec::Kind::AwsSigV4, "aws-sigv4"},
    {AuthSpec::Kind::GoogleServiceAccount, "google-service-account"},
};

} // namespace

bool AuthSpec::needsToken() const
{
    switch (kind) {
    case Kind::OAuth2ClientCredentials:
    case Kind::OAuth2RefreshToken:
    case Kind::OAuth2AuthorizationCode:
    case Kind::GoogleServiceAccount:
        return true;
    default:
        return false;
    }
}

QString AuthSpec::kindName(Kind kind)
{
    for (const KindNames &each : kindNames) {
        if (each.kind == kind)
            return QLatin1String(each.name);
    }
    return QStringLiteral("none");
}

std::optional<AuthSpec::Kind> AuthSpec::kindFromName(const QString &name)
{
    for (const KindNames &each : kindNames) {
        if (name.compare(QLatin1String(each.name), Qt::CaseInsensitive) == 0)
            return each.kind;
    }
    return std::nullopt;
}

QList<AuthSpec::Kind> AuthSpec::kinds()
{
    QList<Kind> all;
    for (const KindNames &each : kindNames)
        all.append(each.kind);
    return all;
}

QString AuthSpec::kindTitle(Kind kind)
{
    switch (kind) {
    case Kind::Inherit:
        return Tr::tr("Inherit from the folder");
    case Kind::None:
        return Tr::tr("No auth");
    case Kind::Basic:
        return Tr::tr("Basic");
    case Kind::Bearer:
        return Tr::tr("Bearer token");
    case Kind::ApiKey:
        return Tr::tr("API key");
    case Kind::Digest:
        return Tr::tr("Digest");
    case Kind::OAuth2ClientCredentials:
        return Tr::tr("OAuth 2.0 client credentials");
    case Kind::OAuth2RefreshToken:
        return Tr::tr("OAuth 2.0 refresh token");
    case Kind::OAuth2AuthorizationCode:
        return Tr::tr("OAuth 2.0 authorization code (PKCE)");
    case Kind::AwsSigV4:
        return Tr::tr("AWS Signature Version 4");
    case Kind::GoogleServiceAccount:
        return Tr::tr("Google service account");
    }
    return {};
}

void AuthSpec::forEachText(const std::function<void(QString &)> &visit)
{
    for (QString *text :
        {&username, &password, &token, &key, &value, &tokenUrl, &authorizationUrl, &clientId, &clientSecret, &scope,
            &audience, &refreshToken, &accessKeyId, &secretAccessKey, &sessionToken, &region, &service, &keyFile}) {
        visit(*text);
    }
}

void AuthSpec::forEachSecret(const std::function<void(QString &)> &visit)
{
    for (QString *secret : {&password, &token, &value, &clientSecret, &refreshToken, &secretAccessKey, &sessionToken})
        visit(*secret);
}

QList<QString> AuthSpec::secrets() const
{
    QList<QString> all;
    AuthSpec copy = *this;
    copy.forEachSecret([&all](const QString &secret) {
        if (!secret.isEmpty())
            all.append(secret);
    });
    return all;
}

AuthSpec AuthSpec::withoutSecrets() const
{
    AuthSpec plain = *this;
    plain.forEachSecret([](QString &secret) { secret.clear(); });
    return plain;
}

} // namespace RetryLab::Core
