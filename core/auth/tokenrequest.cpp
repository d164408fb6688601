#include "core/auth/tokenrequest.h"

#include "core/auth/serviceaccountkey.h"
#include "core/http/formurlencoded.h"
#include "core/util/coretr.h"

namespace RetryLab::Core {

namespace {

Result<QUrl> tokenRequestUrl(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return Result<QUrl>::failure(QStringLiteral("tokenUrl"), Tr::tr("the token URL is empty"));
    const QUrl url(trimmed, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()
        || (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http"))) {
        return Result<QUrl>::failure(QStringLiteral("tokenUrl"), Tr::tr("the token URL is not an http or https URL"));
    }
    return url;
}

/// The request without its form: the URL and the headers every token request has.
Result<TokenRequest> tokenRequestBase(const QString &tokenUrl, const QString &grantType)
{
    const auto url = tokenRequestUrl(tokenUrl);
    if (!url)
        return url.errorDetail();
    TokenRequest request;
    request.url = *url;
    request.grantType = grantType;
    request.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
    return request;
}

/// The client's credentials where AuthSpec::clientAuth puts them, then the form as the body.
Result<TokenRequest> tokenRequestWithClient(const AuthSpec &auth, const QString &grantType, FormUrlEncoded::Fields form)
{
    auto request = tokenRequestBase(auth.tokenUrl, grantType);
    if (!request)
        return request;
    const QString clientId = auth.clientId.trimmed();
    if (clientId.isEmpty())
        return Result<TokenRequest>::failure(QStringLiteral("clientId"), Tr::tr("the client ID is empty"));
    form.prepend({QStringLiteral("grant_type"), grantType});
    if (auth.clientSecret.isEmpty()) {
        form.append({QStringLiteral("client_id"), clientId});
    } else if (auth.clientAuth == AuthSpec::ClientAuth::Body) {
        form.append({QStringLiteral("client_id"), clientId});
        form.append({QStringLiteral("client_secret"), auth.clientSecret});
    } else {
        // RFC 6749 2.3.1: both form-encoded first, then joined for Basic.
        const QByteArray pair
            = FormUrlEncoded::encodeText(clientId) + ':' + FormUrlEncoded::encodeText(auth.clientSecret);
        request.value().headers.append({"Authorization", "Basic " + pair.toBase64()});
    }
    request.value().body = FormUrlEncoded::encode(form);
    return request;
}

void tokenRequestAddIfGiven(FormUrlEncoded::Fields &form, const QString &name, const QString &value)
{
    if (!value.trimmed().isEmpty())
        form.append({name, value.simplified()});
}

} // namespace

std::optional<QByteArray> TokenRequest::header(QByteArrayView name) const
{
    for (const auto &[each, value] : headers) {
        if (QByteArrayView(each).compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return std::nullopt;
}

Result<TokenRequest> TokenRequest::forAuth(const AuthSpec &auth, const QDateTime &now)
{
    switch (auth.kind) {
    case AuthSpec::Kind::OAuth2ClientCredentials:
        return clientCredentials(auth);
    case AuthSpec::Kind::OAuth2RefreshToken:
        return refresh(auth, auth.refreshToken);
    case AuthSpec::Kind::GoogleServiceAccount: {
        if (auth.keyFile.trimmed().isEmpty())
            return Result<TokenRequest>::failure(
                QStringLiteral("keyFile"), Tr::tr("no service-account key file is given"));
        const auto key = ServiceAccountKey::read(auth.keyFile);
        if (!key)
            return key.errorDetail();
        return serviceAccount(*key, auth.scope, now);
    }
    case AuthSpec::Kind::OAuth2AuthorizationCode:
        return Result<TokenRequest>::failure(
            Tr::tr("the authorization code flow needs the code from the browser before it can ask for a token"));
    default:
        return Result<TokenRequest>::failure(Tr::tr("%1 fetches no token").arg(AuthSpec::kindTitle(auth.kind)));
    }
}

Result<TokenRequest> TokenRequest::clientCredentials(const AuthSpec &auth)
{
    FormUrlEncoded::Fields form;
    tokenRequestAddIfGiven(form, QStringLiteral("scope"), auth.scope);
    tokenRequestAddIfGiven(form, QStringLiteral("audience"), auth.audience);
    return tokenRequestWithClient(auth, QStringLiteral("client_credentials"), form);
}

Result<TokenRequest> TokenRequest::refresh(const AuthSpec &auth, const QString &refreshToken)
{
    if (refreshToken.trimmed().isEmpty())
        return Result<TokenRequest>::failure(QStringLiteral("refreshToken"), Tr::tr("the refresh token is empty"));
    FormUrlEncoded::Fields form{{QStringLiteral("refresh_token"), refreshToken.trimmed()}};
    tokenRequestAddIfGiven(form, QStringLiteral("scope"), auth.scope);
    return tokenRequestWithClient(auth, QStringLiteral("refresh_token"), form);
}

Result<TokenRequest> TokenRequest::authorizationCode(
    const AuthSpec &auth, const QString &code, const QString &codeVerifier, const QString &redirectUri)
{
    if (code.isEmpty())
        return Result<TokenRequest>::failure(Tr::tr("the authorization code is empty"));
    FormUrlEncoded::Fields form{{QStringLiteral("code"), code}, {QStringLiteral("redirect_uri"), redirectUri}};
    if (!codeVerifier.isEmpty())
        form.append({QStringLiteral("code_verifier"), codeVerifier});
    return tokenRequestWithClient(auth, QStringLiteral("authorization_code"), form);
}

Result<TokenRequest> TokenRequest::serviceAccount(
    const ServiceAccountKey &key, const QString &scope, const QDateTime &now)
{
    auto request = tokenRequestBase(key.tokenUri(), ServiceAccountKey::grantType());
    if (!request)
        return request;
    const auto body = key.tokenRequestBody(scope, now);
    if (!body)
        return body.errorDetail();
    request.value().body = *body;
    return request;
}

} // namespace RetryLab::Core
