#pragma once

#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace RetryLab::Core {

/// How a request proves who sends it: the kinds Postman, Bruno and curl know, and
/// the token flows real services ask for. A plain value, the same in collections,
/// scenario and monitor files, `retrylab request --auth FILE` and the window (its
/// file form is AuthJson's). Its texts may hold {{variables}}, filled in before
/// the request is sent (forEachText).
///
/// Which fields a kind reads:
/// - Basic, Digest: username, password
/// - Bearer: token
/// - ApiKey: key, value; a header, or a query parameter when inQuery
/// - OAuth2ClientCredentials: tokenUrl, clientId, clientSecret, scope, audience, clientAuth
/// - OAuth2RefreshToken: the same and refreshToken
/// - OAuth2AuthorizationCode: authorizationUrl, tokenUrl, clientId, clientSecret, scope (PKCE, at the window)
/// - AwsSigV4: accessKeyId, secretAccessKey, sessionToken, region, service; presign and expiresSeconds
/// - GoogleServiceAccount: keyFile, scope
struct AuthSpec
{
    enum class Kind {
        Inherit, ///< the folder's, else the collection's (Postman's default); none on its own
        None, ///< none, and stop looking (Postman's noauth)
        Basic,
        Bearer,
        ApiKey,
        Digest, ///< RFC 7616: MD5 or SHA-256, qop=auth, answered after the server's challenge
        OAuth2ClientCredentials,
        OAuth2RefreshToken,
        OAuth2AuthorizationCode,
        AwsSigV4,
        GoogleServiceAccount, ///< a JSON key file: a signed JWT exchanged at its token_uri
    };
    /// How an OAuth 2.0 client proves itself at the token endpoint (RFC 6749 2.3.1).
    enum class ClientAuth {
        BasicHeader, ///< client_id:client_secret in an Authorization: Basic header
        Body, ///< client_id and client_secret in the form body
    };

    Kind kind = Kind::Inherit;
    QString username;
    QString password;
    QString token;
    QString key;
    QString value;
    bool inQuery = false;

    QString tokenUrl;
    QString authorizationUrl;
    QString clientId;
    QString clientSecret;
    QString scope;
    QString audience;
    QString refreshToken;
    ClientAuth clientAuth = ClientAuth::BasicHeader;

    QString accessKeyId;
    QString secretAccessKey;
    QString sessionToken;
    QString region;
    QString service;
    /// Sign the query string instead of adding headers: a presigned URL.
    bool presign = false;
    /// How long a presigned URL stays valid (X-Amz-Expires), 1 s to 7 days.
    int expiresSeconds = 3600;

    QString keyFile;

    /// Sends nothing: Inherit and None.
    bool isNone() const { return kind == Kind::Inherit || kind == Kind::None; }
    /// Fetches an access token before the request (the OAuth 2.0 kinds and Google's).
    bool needsToken() const;
    /// Answers a challenge of the server (Digest).
    bool answersChallenge() const { return kind == Kind::Digest; }

    /// The file form's name of a kind: "basic", "oauth2-client-credentials" ...
    static QString kindName(Kind kind);
    static std::optional<Kind> kindFromName(const QString &name);
    static QList<Kind> kinds();
    /// For people: "Basic", "OAuth 2.0 client credentials", "AWS Signature Version 4" ...
    static QString kindTitle(Kind kind);

    /// Every text field with a value that may hold {{variables}}, in a fixed order.
    void forEachText(const std::function<void(QString &)> &visit);
    /// Every secret field (passwords, tokens, the API key's value, the client
    /// secret, the refresh token, the AWS secret key and session token), empty or not.
    void forEachSecret(const std::function<void(QString &)> &visit);
    /// The values that must never reach a log, report or export: passwords,
    /// tokens, the API key's value, client secrets, refresh tokens, AWS secret
    /// keys and session tokens. Empty ones left out.
    QList<QString> secrets() const;
    /// The same with every secret emptied: what is saved when the user did not
    /// opt in to keeping secrets.
    AuthSpec withoutSecrets() const;

    friend bool operator==(const AuthSpec &, const AuthSpec &) = default;
};

} // namespace RetryLab::Core
