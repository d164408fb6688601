#include "core/auth/authorizationrequest.h"

#include "core/auth/tokenresponse.h"
#include "core/http/formurlencoded.h"
#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QRandomGenerator>

namespace RetryLab::Core {

namespace {

constexpr char authorizationVerifierAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";

QByteArray authorizationQueryPart(const char *name, const QString &value)
{
    return QByteArray(name) + '=' + QUrl::toPercentEncoding(value);
}

} // namespace

QString AuthorizationRequest::newCodeVerifier(int length, QRandomGenerator *random)
{
    QRandomGenerator &source = random ? *random : *QRandomGenerator::system();
    const int n = std::clamp(length, minVerifierLength, maxVerifierLength);
    constexpr int alphabetSize = sizeof(authorizationVerifierAlphabet) - 1;
    QString verifier;
    verifier.reserve(n);
    for (int i = 0; i < n; ++i)
        verifier.append(QLatin1Char(authorizationVerifierAlphabet[source.bounded(alphabetSize)]));
    return verifier;
}

QString AuthorizationRequest::s256Challenge(const QString &codeVerifier)
{
    const QByteArray digest = QCryptographicHash::hash(codeVerifier.toLatin1(), QCryptographicHash::Sha256);
    return QString::fromLatin1(digest.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

bool AuthorizationRequest::isValidCodeVerifier(const QString &verifier)
{
    if (verifier.size() < minVerifierLength || verifier.size() > maxVerifierLength)
        return false;
    const QLatin1String alphabet(authorizationVerifierAlphabet);
    return std::all_of(verifier.begin(), verifier.end(), [&](QChar c) { return alphabet.contains(c); });
}

Result<AuthorizationRequest> AuthorizationRequest::make(
    const AuthSpec &auth, const QString &redirectUri, QRandomGenerator *random)
{
    const QUrl base(auth.authorizationUrl.trimmed(), QUrl::StrictMode);
    if (auth.authorizationUrl.trimmed().isEmpty())
        return Result<AuthorizationRequest>::failure(
            QStringLiteral("authorizationUrl"), Tr::tr("the authorization URL is empty"));
    if (!base.isValid() || base.host().isEmpty()
        || (base.scheme() != QLatin1String("https") && base.scheme() != QLatin1String("http"))) {
        return Result<AuthorizationRequest>::failure(
            QStringLiteral("authorizationUrl"), Tr::tr("the authorization URL is not an http or https URL"));
    }
    if (auth.clientId.trimmed().isEmpty())
        return Result<AuthorizationRequest>::failure(QStringLiteral("clientId"), Tr::tr("the client ID is empty"));
    AuthorizationRequest request;
    request.redirectUri = redirectUri;
    request.codeVerifier = newCodeVerifier(64, random);
    request.codeChallenge = s256Challenge(request.codeVerifier);
    request.state = newCodeVerifier(minVerifierLength, random);
    QList<QByteArray> parts;
    // A query of the URL itself (an audience, a tenant's policy) stays in front.
    if (base.hasQuery())
        parts.append(base.query(QUrl::FullyEncoded).toLatin1());
    parts.append(authorizationQueryPart("response_type", QStringLiteral("code")));
    parts.append(authorizationQueryPart("client_id", auth.clientId.trimmed()));
    parts.append(authorizationQueryPart("redirect_uri", redirectUri));
    if (!auth.scope.trimmed().isEmpty())
        parts.append(authorizationQueryPart("scope", auth.scope.simplified()));
    parts.append(authorizationQueryPart("state", request.state));
    parts.append(authorizationQueryPart("code_challenge", request.codeChallenge));
    parts.append(authorizationQueryPart("code_challenge_method", QStringLiteral("S256")));
    request.url = base;
    request.url.setQuery(QString::fromLatin1(parts.join('&')), QUrl::StrictMode);
    return request;
}

Result<QString> AuthorizationRequest::codeFromRedirect(const QUrl &redirect) const
{
    // The query as a form: "+" is a space there, as authorization servers write it.
    const FormUrlEncoded::Fields query = FormUrlEncoded::decode(redirect.query(QUrl::FullyEncoded).toLatin1());
    const auto returnedState = FormUrlEncoded::value(query, QStringLiteral("state"));
    // The state is checked first, also for an error: a redirect of another request is no answer to this one.
    if (!returnedState) {
        return Result<QString>::failure(
            Tr::tr("the redirect carries no state, so it cannot be told apart from a forged one"));
    }
    if (*returnedState != state) {
        return Result<QString>::failure(
            Tr::tr("the redirect's state is not the one this request sent: it answers another request, or was forged"));
    }
    if (const auto code = FormUrlEncoded::value(query, QStringLiteral("error"))) {
        OAuthError error;
        error.code = code->simplified().left(60);
        error.description = FormUrlEncoded::value(query, QStringLiteral("error_description"))
                                .value_or(QString())
                                .simplified()
                                .left(200);
        return Error{error.code, Tr::tr("the authorization server refused: %1").arg(error.sentence())};
    }
    const QString code = FormUrlEncoded::value(query, QStringLiteral("code")).value_or(QString());
    if (code.isEmpty())
        return Result<QString>::failure(Tr::tr("the redirect carries no authorization code"));
    return code;
}

} // namespace RetryLab::Core
