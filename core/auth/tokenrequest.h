#pragma once

#include "core/auth/authspec.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QList>
#include <QPair>
#include <QString>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

class ServiceAccountKey;

/// The HTTP request that fetches an OAuth 2.0 access token (RFC 6749, section
/// 4; RFC 7523 for Google's service accounts), as a value: POST to the token
/// URL, a form body, `Content-Type: application/x-www-form-urlencoded` and
/// `Accept: application/json`, and the client's credentials as
/// AuthSpec::clientAuth says: an `Authorization: Basic` header of the
/// form-encoded id and secret (RFC 6749 2.3.1), or client_id and client_secret
/// in the body. A client without a secret (a public client, as with PKCE) sends
/// its client_id in the body. Nothing here touches the network: the executor
/// sends it, and TokenResponse reads the answer.
///
/// The headers and the body hold secrets: never log them (the errors here
/// never quote one).
struct TokenRequest
{
    QByteArray method = "POST";
    QUrl url;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    /// The form's grant_type ("client_credentials", "refresh_token", ...), for
    /// people and the timeline: never secret.
    QString grantType;

    /// The first header of that name (case-insensitive).
    std::optional<QByteArray> header(QByteArrayView name) const;

    /// The request for the token of an auth of kind OAuth2ClientCredentials,
    /// OAuth2RefreshToken (with its refreshToken) or GoogleServiceAccount (its
    /// keyFile read now, the assertion signed at `now`). The authorization code
    /// kind needs the code from the browser first: see authorizationCode().
    static Result<TokenRequest> forAuth(const AuthSpec &auth, const QDateTime &now);
    /// grant_type=client_credentials with scope and audience when given.
    static Result<TokenRequest> clientCredentials(const AuthSpec &auth);
    /// grant_type=refresh_token: a new access token for `refreshToken` (the
    /// auth's own, or one a token response gave), with the auth's scope when given.
    static Result<TokenRequest> refresh(const AuthSpec &auth, const QString &refreshToken);
    /// grant_type=authorization_code: the code of the redirect exchanged, with
    /// the redirect_uri it was sent to and the PKCE code_verifier (RFC 7636 4.5).
    static Result<TokenRequest> authorizationCode(
        const AuthSpec &auth, const QString &code, const QString &codeVerifier, const QString &redirectUri);
    /// The JWT bearer grant at the key's token_uri with an assertion signed at `now`.
    static Result<TokenRequest> serviceAccount(
        const ServiceAccountKey &key, const QString &scope, const QDateTime &now);
};

} // namespace RetryLab::Core
