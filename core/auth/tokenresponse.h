#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// An OAuth 2.0 error response (RFC 6749 5.2 at the token endpoint, 4.1.2.1 in
/// an authorization redirect): {"error": "invalid_client", "error_description": ...}.
struct OAuthError
{
    QString code; ///< "invalid_client", "invalid_grant", ...
    QString description; ///< the server's error_description, cut to 200 characters, controls removed
    QString uri; ///< error_uri

    /// The error of a JSON body; nullopt when the body is not one.
    static std::optional<OAuthError> fromJson(const QByteArray &body);
    /// What the code means, for people: "the client ID or secret was not accepted".
    static QString meaning(const QString &code);
    /// One sentence: "invalid_client: the client ID or secret was not accepted (the server says: ...)".
    QString sentence() const;
    /// Whether asking again later may help (server_error, temporarily_unavailable);
    /// every other code needs a change on the client's side.
    bool isTransient() const;
};

/// The token endpoint's answer to a TokenRequest, read (RFC 6749 5.1):
/// access_token, token_type, expires_in, refresh_token and scope. An error
/// response (RFC 6749 5.2) becomes a plain sentence with the code in its path
/// (Error::path = "invalid_client"), anything else a sentence that says what
/// came instead; no error quotes the body, which may hold a token.
struct TokenResponse
{
    QString accessToken;
    QString tokenType; ///< "Bearer" when the server left it out
    std::optional<qint64> expiresInSeconds; ///< nullopt: the server did not say
    QString refreshToken; ///< empty when none was issued
    QString scope; ///< empty: the scope asked for (RFC 6749 5.1)
    QString idToken; ///< OpenID Connect's id_token, when present

    /// Reads the answer of status `httpStatus` with `body`.
    static Result<TokenResponse> parse(int httpStatus, const QByteArray &body);
};

} // namespace RetryLab::Core
