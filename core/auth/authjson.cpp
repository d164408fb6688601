#include "core/auth/authjson.h"

#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

namespace RetryLab::Core::AuthJson {

namespace {

using Kind = AuthSpec::Kind;

// The fields each kind writes and reads, besides "type"; secrets marked.
struct AuthField
{
    const char *name;
    QString AuthSpec::*text;
    bool secret;
};

const AuthField usernameField{"username", &AuthSpec::username, false};
const AuthField passwordField{"password", &AuthSpec::password, true};
const AuthField tokenField{"token", &AuthSpec::token, true};
const AuthField keyField{"key", &AuthSpec::key, false};
const AuthField valueField{"value", &AuthSpec::value, true};
const AuthField tokenUrlField{"tokenUrl", &AuthSpec::tokenUrl, false};
const AuthField authorizationUrlField{"authorizationUrl", &AuthSpec::authorizationUrl, false};
const AuthField clientIdField{"clientId", &AuthSpec::clientId, false};
const AuthField clientSecretField{"clientSecret", &AuthSpec::clientSecret, true};
const AuthField scopeField{"scope", &AuthSpec::scope, false};
const AuthField audienceField{"audience", &AuthSpec::audience, false};
const AuthField refreshTokenField{"refreshToken", &AuthSpec::refreshToken, true};
const AuthField accessKeyIdField{"accessKeyId", &AuthSpec::accessKeyId, false};
const AuthField secretAccessKeyField{"secretAccessKey", &AuthSpec::secretAccessKey, true};
const AuthField sessionTokenField{"sessionToken", &AuthSpec::sessionToken, true};
const AuthField regionField{"region", &AuthSpec::region, false};
const AuthField serviceField{"service", &AuthSpec::service, false};
const AuthField keyFileField{"keyFile", &AuthSpec::keyFile, false};

QList<AuthField> textFields(Kind kind)
{
    switch (kind) {
    case Kind::Basic:
    case Kind::Digest:
        return {usernameField, passwordField};
    case Kind::Bearer:
        return {tokenField};
    case Kind::ApiKey:
        return {keyField, valueField};
    case Kind::OAuth2ClientCredentials:
        return {tokenUrlField, clientIdField, clientSecretField, scopeField, audienceField};
    case Kind::OAuth2RefreshToken:
        return {tokenUrlField, clientIdField, clientSecretField, refreshTokenField, scopeField};
    case Kind::OAuth2AuthorizationCode:
        return {authorizationUrlField, tokenUrlField, clientIdField, clientSecretField, scopeField};
    case Kind::AwsSigV4:
        return {accessKeyIdField, secretAccessKeyField, sessionTokenField, regionField, serviceField};
    case Kind::GoogleServiceAccount:
        return {keyFileField, scopeField};
    case Kind::Inherit:
    case Kind::None:
        break;
    }
    return {};
}

bool hasClientAuth(Kind kind)
{
    return kind == Kind::OAuth2ClientCredentials || kind == Kind::OAuth2RefreshToken
        || kind == Kind::OAuth2AuthorizationCode;
}

QString clientAuthName(AuthSpec::ClientAuth clientAuth)
{
    return clientAuth == AuthSpec::ClientAuth::Body ? QStringLiteral("body") : QStringLiteral("basic");
}

enum class KeyPlace { Header, Query };

QString keyPlaceName(KeyPlace place)
{
    return place == KeyPlace::Query ? QStringLiteral("query") : QStringLiteral("header");
}

constexpr int maxPresignSeconds = 7 * 24 * 3600;

} // namespace

QJsonObject toJson(const AuthSpec &auth, Secrets secrets)
{
    QJsonObject json{{QStringLiteral("type"), AuthSpec::kindName(auth.kind)}};
    for (const AuthField &field : textFields(auth.kind)) {
        const QString &text = auth.*field.text;
        if (text.isEmpty() || (field.secret && secrets == Secrets::Leave))
            continue;
        json.insert(QLatin1String(field.name), text);
    }
    if (auth.kind == Kind::ApiKey)
        json.insert(QStringLiteral("in"), keyPlaceName(auth.inQuery ? KeyPlace::Query : KeyPlace::Header));
    if (hasClientAuth(auth.kind) && auth.clientAuth != AuthSpec::ClientAuth::BasicHeader)
        json.insert(QStringLiteral("clientAuth"), clientAuthName(auth.clientAuth));
    if (auth.kind == Kind::AwsSigV4 && auth.presign) {
        json.insert(QStringLiteral("presign"), true);
        json.insert(QStringLiteral("expires"), auth.expiresSeconds);
    }
    return json;
}

AuthSpec read(JsonReader &reader)
{
    AuthSpec auth;
    const auto kind = reader.named(QStringLiteral("type"), AuthSpec::kinds(), &AuthSpec::kindName, Presence::Required,
        Tr::tr("unknown auth type \"%1\" (known: %2)"));
    if (!kind)
        return auth;
    auth.kind = *kind;
    QStringList known{QStringLiteral("type")};
    for (const AuthField &field : textFields(auth.kind)) {
        known.append(QLatin1String(field.name));
        auth.*field.text = reader.string(QLatin1String(field.name)).value_or(QString());
    }
    if (auth.kind == Kind::ApiKey) {
        known.append(QStringLiteral("in"));
        const auto place
            = reader.named(QStringLiteral("in"), QList<KeyPlace>{KeyPlace::Header, KeyPlace::Query}, &keyPlaceName);
        auth.inQuery = place == KeyPlace::Query;
    }
    if (hasClientAuth(auth.kind)) {
        known.append(QStringLiteral("clientAuth"));
        auth.clientAuth
            = reader
                  .named(QStringLiteral("clientAuth"),
                      QList<AuthSpec::ClientAuth>{AuthSpec::ClientAuth::BasicHeader, AuthSpec::ClientAuth::Body},
                      &clientAuthName)
                  .value_or(AuthSpec::ClientAuth::BasicHeader);
    }
    if (auth.kind == Kind::AwsSigV4) {
        known.append({QStringLiteral("presign"), QStringLiteral("expires")});
        auth.presign = reader.boolean(QStringLiteral("presign")).value_or(false);
        auth.expiresSeconds
            = int(reader.integer(QStringLiteral("expires"), 1, maxPresignSeconds).value_or(auth.expiresSeconds));
    }
    reader.rejectUnknown(known);
    return auth;
}

Result<AuthSpec> readFile(const QString &path)
{
    constexpr qint64 maxFileBytes = 1024 * 1024;
    QFile file(path);
    const QString shown = QDir::toNativeSeparators(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<AuthSpec>::failure(Tr::tr("%1: cannot read: %2").arg(shown, file.errorString()));
    if (file.size() > maxFileBytes)
        return Result<AuthSpec>::failure(Tr::tr("%1: larger than an auth file can be (1 MiB)").arg(shown));
    const QByteArray text = file.readAll();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return Result<AuthSpec>::failure(Tr::tr("%1: %2").arg(shown, jsonSyntaxError(text, parseError).text()));
    }
    if (!document.isObject()) {
        return Result<AuthSpec>::failure(
            Tr::tr("%1: an auth file holds one object, such as {\"type\": \"basic\", ...}").arg(shown));
    }
    JsonReader reader(document.object());
    AuthSpec auth = read(reader);
    if (reader.failed())
        return Result<AuthSpec>::failure(Tr::tr("%1: %2").arg(shown, reader.firstError().text()));
    if (!auth.keyFile.isEmpty() && QFileInfo(auth.keyFile).isRelative() && !auth.keyFile.contains(QLatin1String("{{")))
        auth.keyFile = QFileInfo(path).dir().filePath(auth.keyFile);
    return auth;
}

QString problem(const AuthSpec &auth)
{
    const auto empty = [](const QString &text) { return text.trimmed().isEmpty(); };
    switch (auth.kind) {
    case Kind::Inherit:
    case Kind::None:
    case Kind::Basic:
    case Kind::Digest:
        break;
    case Kind::Bearer:
        if (empty(auth.token))
            return Tr::tr("the bearer token is empty");
        break;
    case Kind::ApiKey:
        if (empty(auth.key))
            return Tr::tr("the API key's name is empty");
        break;
    case Kind::OAuth2ClientCredentials:
    case Kind::OAuth2RefreshToken:
    case Kind::OAuth2AuthorizationCode:
        if (empty(auth.tokenUrl))
            return Tr::tr("the OAuth 2.0 token URL is empty");
        if (auth.kind == Kind::OAuth2RefreshToken && empty(auth.refreshToken))
            return Tr::tr("the OAuth 2.0 refresh token is empty");
        if (auth.kind == Kind::OAuth2AuthorizationCode && empty(auth.authorizationUrl))
            return Tr::tr("the OAuth 2.0 authorization URL is empty");
        break;
    case Kind::AwsSigV4:
        if (empty(auth.accessKeyId))
            return Tr::tr("the AWS access key id is empty");
        if (empty(auth.secretAccessKey))
            return Tr::tr("the AWS secret access key is empty");
        if (empty(auth.region))
            return Tr::tr("the AWS region is empty");
        if (empty(auth.service))
            return Tr::tr("the AWS service is empty");
        break;
    case Kind::GoogleServiceAccount:
        if (empty(auth.keyFile))
            return Tr::tr("the service account's key file is not given");
        break;
    }
    return {};
}

} // namespace RetryLab::Core::AuthJson
