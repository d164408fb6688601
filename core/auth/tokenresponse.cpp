#include "core/auth/tokenresponse.h"

#include "core/util/coretr.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <limits>

namespace RetryLab::Core {

namespace {

/// A server's text fit for one line of a message: controls out, at most `max` characters.
QString tokenResponseText(const QString &text, qsizetype max = 200)
{
    QString clean;
    for (const QChar c : text)
        clean.append(c.isPrint() ? c : QLatin1Char(' '));
    clean = clean.simplified();
    return clean.size() > max ? clean.left(max) + QStringLiteral("...") : clean;
}

std::optional<QJsonObject> tokenResponseObject(const QByteArray &body)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    return document.object();
}

} // namespace

std::optional<OAuthError> OAuthError::fromJson(const QByteArray &body)
{
    const auto object = tokenResponseObject(body);
    if (!object)
        return std::nullopt;
    const QJsonValue code = object->value(QLatin1String("error"));
    if (!code.isString() || code.toString().isEmpty())
        return std::nullopt;
    OAuthError error;
    error.code = tokenResponseText(code.toString(), 60);
    error.description = tokenResponseText(object->value(QLatin1String("error_description")).toString());
    error.uri = tokenResponseText(object->value(QLatin1String("error_uri")).toString());
    return error;
}

QString OAuthError::meaning(const QString &code)
{
    if (code == QLatin1String("invalid_request"))
        return Tr::tr("the request lacks a parameter or is malformed");
    if (code == QLatin1String("invalid_client"))
        return Tr::tr("the client ID or secret was not accepted");
    if (code == QLatin1String("invalid_grant"))
        return Tr::tr("the grant (a refresh token, an authorization code or an assertion) is invalid, expired or "
                      "revoked");
    if (code == QLatin1String("unauthorized_client"))
        return Tr::tr("this client may not use this grant type");
    if (code == QLatin1String("unsupported_grant_type"))
        return Tr::tr("the server does not support this grant type");
    if (code == QLatin1String("invalid_scope"))
        return Tr::tr("the scope asked for is invalid or more than the client may have");
    if (code == QLatin1String("access_denied"))
        return Tr::tr("the user or the server denied the request");
    if (code == QLatin1String("unsupported_response_type"))
        return Tr::tr("the server does not hand out authorization codes this way");
    if (code == QLatin1String("server_error"))
        return Tr::tr("the server failed");
    if (code == QLatin1String("temporarily_unavailable"))
        return Tr::tr("the server is overloaded or down for maintenance");
    return Tr::tr("an error that RFC 6749 does not define");
}

QString OAuthError::sentence() const
{
    QString text = code + QStringLiteral(": ") + meaning(code);
    if (!description.isEmpty())
        text += Tr::tr(" (the server says: %1)").arg(description);
    return text;
}

bool OAuthError::isTransient() const
{
    return code == QLatin1String("server_error") || code == QLatin1String("temporarily_unavailable");
}

Result<TokenResponse> TokenResponse::parse(int httpStatus, const QByteArray &body)
{
    if (const auto error = OAuthError::fromJson(body)) {
        return Error{error->code,
            Tr::tr("the token endpoint refused the request with %1, %2").arg(httpStatus).arg(error->sentence())};
    }
    if (httpStatus < 200 || httpStatus > 299) {
        return Result<TokenResponse>::failure(
            Tr::tr("the token endpoint answered %1 without an OAuth 2.0 error (%n byte(s) of body)", nullptr,
                int(std::min<qsizetype>(body.size(), std::numeric_limits<int>::max())))
                .arg(httpStatus));
    }
    const auto object = tokenResponseObject(body);
    if (!object) {
        return Result<TokenResponse>::failure(Tr::tr("the token endpoint's answer is not a JSON object (%n byte(s))",
            nullptr, int(std::min<qsizetype>(body.size(), std::numeric_limits<int>::max()))));
    }
    TokenResponse response;
    const QJsonValue token = object->value(QLatin1String("access_token"));
    if (!token.isString() || token.toString().isEmpty())
        return Result<TokenResponse>::failure(Tr::tr("the token endpoint's answer has no \"access_token\""));
    response.accessToken = token.toString();
    const QJsonValue type = object->value(QLatin1String("token_type"));
    if (!type.isUndefined() && !type.isString())
        return Result<TokenResponse>::failure(Tr::tr("the token endpoint's \"token_type\" is not a string"));
    response.tokenType = type.toString().isEmpty() ? QStringLiteral("Bearer") : type.toString();
    const QJsonValue expires = object->value(QLatin1String("expires_in"));
    if (!expires.isUndefined() && !expires.isNull()) {
        // Some servers (Azure AD v1) send the number as a string.
        bool ok = expires.isDouble();
        double seconds = expires.toDouble();
        if (expires.isString())
            seconds = expires.toString().toDouble(&ok);
        if (!ok || !(seconds >= 0) || seconds > 1e10) {
            return Result<TokenResponse>::failure(
                Tr::tr("the token endpoint's \"expires_in\" is not a number of seconds"));
        }
        response.expiresInSeconds = static_cast<qint64>(seconds);
    }
    response.refreshToken = object->value(QLatin1String("refresh_token")).toString();
    response.scope = object->value(QLatin1String("scope")).toString();
    response.idToken = object->value(QLatin1String("id_token")).toString();
    return response;
}

} // namespace RetryLab::Core
