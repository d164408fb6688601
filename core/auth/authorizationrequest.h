#pragma once

#include "core/auth/authspec.h"
#include "core/util/result.h"

#include <QString>
#include <QUrl>

class QRandomGenerator;

namespace RetryLab::Core {

/// The authorization code flow's first half, with PKCE (RFC 6749 4.1, RFC
/// 7636, RFC 8252 for native apps): the URL the browser opens, with a fresh
/// state and S256 code challenge, and the reading of the loopback redirect
/// that comes back. The code and the verifier then go to
/// TokenRequest::authorizationCode(). A value; no network, no browser.
struct AuthorizationRequest
{
    QUrl url; ///< the authorization URL with its query: open it in the browser
    QString redirectUri;
    QString state; ///< compared with the redirect's (CSRF, RFC 6749 10.12)
    QString codeVerifier; ///< secret until the token request
    QString codeChallenge; ///< BASE64URL(SHA-256(codeVerifier))

    /// Shortest and longest code verifiers (RFC 7636 4.1).
    static constexpr int minVerifierLength = 43;
    static constexpr int maxVerifierLength = 128;

    /// A request for `auth` (its authorizationUrl, clientId and scope) that the
    /// browser is to send back to `redirectUri` (http://127.0.0.1:PORT/...).
    /// State and verifier come from `random` (the system's when null).
    static Result<AuthorizationRequest> make(
        const AuthSpec &auth, const QString &redirectUri, QRandomGenerator *random = nullptr);

    /// The code of the redirect the browser made to the loopback listener
    /// (its URL, or only its path and query). Errors: the state missing or not
    /// this request's, an error response (RFC 6749 4.1.2.1, as a sentence), no code.
    Result<QString> codeFromRedirect(const QUrl &redirect) const;

    /// A verifier of `length` characters (43-128) of the unreserved set
    /// A-Z a-z 0-9 - . _ ~, from `random` (the system's when null).
    static QString newCodeVerifier(int length = 64, QRandomGenerator *random = nullptr);
    /// The S256 challenge of a verifier (RFC 7636 4.2).
    static QString s256Challenge(const QString &codeVerifier);
    /// Whether `verifier` has RFC 7636's length and characters.
    static bool isValidCodeVerifier(const QString &verifier);
};

} // namespace RetryLab::Core
