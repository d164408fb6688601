#include "core/import/postmanauth.h"

#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QJsonObject>

namespace RetryLab::Core {

namespace {

std::optional<AuthSpec> postmanOAuth2(const QHash<QString, QString> &p, QString *unsupported)
{
    AuthSpec auth;
    auth.tokenUrl = p.value(QStringLiteral("accessTokenUrl"));
    auth.authorizationUrl = p.value(QStringLiteral("authUrl"));
    auth.clientId = p.value(QStringLiteral("clientId"));
    auth.clientSecret = p.value(QStringLiteral("clientSecret"));
    auth.scope = p.value(QStringLiteral("scope"));
    auth.audience = p.value(QStringLiteral("audience"));
    auth.refreshToken = p.value(QStringLiteral("refreshToken"));
    if (p.value(QStringLiteral("client_authentication")) == QLatin1String("body"))
        auth.clientAuth = AuthSpec::ClientAuth::Body;
    const QString grant = p.value(QStringLiteral("grant_type"), QStringLiteral("authorization_code"));
    if (grant == QLatin1String("client_credentials")) {
        auth.kind = AuthSpec::Kind::OAuth2ClientCredentials;
        return auth;
    }
    if (!auth.refreshToken.isEmpty()) {
        auth.kind = AuthSpec::Kind::OAuth2RefreshToken;
        return auth;
    }
    // Postman keeps the last token it got: sent as it is, as Postman does.
    if (const QString token = p.value(QStringLiteral("accessToken")); !token.isEmpty()) {
        AuthSpec bearer;
        bearer.kind = AuthSpec::Kind::Bearer;
        bearer.token = token;
        return bearer;
    }
    *unsupported = grant.startsWith(QLatin1String("authorization_code"))
        ? Tr::tr("oauth2 with the authorization code grant needs a person at a browser, and no token or refresh "
                 "token was kept")
        : Tr::tr("oauth2 with the %1 grant is not supported").arg(grant);
    return std::nullopt;
}

// A parameter's value as text: strings as they are, numbers and booleans written out.
std::optional<QString> postmanScalar(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 17);
    if (value.isNull() || value.isUndefined())
        return QString();
    return std::nullopt;
}

} // namespace

QHash<QString, QString> PostmanAuth::parameters(JsonReader &auth, const QString &type)
{
    QHash<QString, QString> out;
    const QJsonValue given = auth.value(type);
    if (given.isObject()) {
        const QJsonObject object = given.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (const auto text = postmanScalar(it.value()))
                out.insert(it.key(), *text);
        }
        return out;
    }
    if (given.isUndefined() || given.isNull())
        return out;
    auto list = auth.array(type);
    for (qsizetype i = 0; list && i < list->size() && !list->failed(); ++i) {
        auto parameter = list->object(i, Presence::Required);
        if (!parameter)
            break;
        const auto key = parameter->string(QStringLiteral("key"), Presence::Required);
        if (!key)
            break;
        if (const auto text = postmanScalar(parameter->value(QStringLiteral("value"))))
            out.insert(*key, *text);
    }
    return out;
}

std::optional<AuthSpec> PostmanAuth::read(const QString &type, const QHash<QString, QString> &p, QString *unsupported)
{
    AuthSpec auth;
    if (type == QLatin1String("noauth")) {
        auth.kind = AuthSpec::Kind::None;
    } else if (type == QLatin1String("inherit")) {
        auth.kind = AuthSpec::Kind::Inherit;
    } else if (type == QLatin1String("basic") || type == QLatin1String("digest")) {
        auth.kind = type == QLatin1String("basic") ? AuthSpec::Kind::Basic : AuthSpec::Kind::Digest;
        auth.username = p.value(QStringLiteral("username"));
        auth.password = p.value(QStringLiteral("password"));
    } else if (type == QLatin1String("bearer")) {
        auth.kind = AuthSpec::Kind::Bearer;
        auth.token = p.value(QStringLiteral("token"));
    } else if (type == QLatin1String("apikey")) {
        auth.kind = AuthSpec::Kind::ApiKey;
        auth.key = p.value(QStringLiteral("key"));
        auth.value = p.value(QStringLiteral("value"));
        auth.inQuery = p.value(QStringLiteral("in")) == QLatin1String("query");
    } else if (type == QLatin1String("awsv4")) {
        auth.kind = AuthSpec::Kind::AwsSigV4;
        auth.accessKeyId = p.value(QStringLiteral("accessKey"));
        auth.secretAccessKey = p.value(QStringLiteral("secretKey"));
        auth.sessionToken = p.value(QStringLiteral("sessionToken"));
        auth.region = p.value(QStringLiteral("region"));
        auth.service = p.value(QStringLiteral("service"));
    } else if (type == QLatin1String("oauth2")) {
        return postmanOAuth2(p, unsupported);
    } else {
        *unsupported = Tr::tr("%1 is not supported").arg(type);
        return std::nullopt;
    }
    return auth;
}

} // namespace RetryLab::Core
