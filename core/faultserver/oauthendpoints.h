#pragma once

#include "core/faultserver/responseplan.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QString>

#include <memory>
#include <optional>

namespace RetryLab::Core {

class Clock;
class RequestTarget;
class RsaKey;
class ServiceAccountKey;
struct HttpRequest;

/// A client the fault server's token endpoint knows (RFC 6749 2): its id and
/// secret (empty: a public client, which authenticates by PKCE alone), and a
/// refresh token it may always use, so that a client configured with a fixed
/// refresh token (the oauth2-refresh-token kind) has one to send.
struct OAuthClient
{
    QString id;
    QString secret;
    QString refreshToken;

    friend bool operator==(const OAuthClient &, const OAuthClient &) = default;
};

/// The fault server's OAuth 2.0 authorization server, for testing clients
/// against real token flows on loopback:
///   POST /oauth/token?expires_in=S        client_credentials, refresh_token,
///        authorization_code (PKCE), urn:ietf:params:oauth:grant-type:jwt-bearer
///   GET  /oauth/authorize                 approves at once: 302 to the loopback
///        redirect_uri with code and state (?deny=1: with error=access_denied)
///   GET  /oauth/protected                 200 with a valid, unexpired bearer token; 401 otherwise
///   GET  /oauth/service-account-key       a Google-format key file of a service
///        account the server knows, its token_uri this server's /oauth/token
///
/// Clients authenticate with HTTP Basic or client_id/client_secret in the body
/// (not both); a wrong secret gets 401 invalid_client, a bad grant 400
/// invalid_grant, as RFC 6749 5.2 spells them. Tokens live `expires_in`
/// seconds (3600 by default) on the server's Clock; a JWT's exp and iat are
/// read against its wall time. Issued tokens and codes are bounded
/// (maxEntries); reset() forgets them but keeps the clients and service accounts.
/// Secrets are never put in a plan's detail (the server's log).
///
/// handle() runs on the server's thread; everything else is safe from any.
class OAuthEndpoints final
{
public:
    static constexpr int defaultLifetimeSeconds = 3600;
    static constexpr int maxLifetimeSeconds = 7 * 24 * 3600;
    /// Access tokens, refresh tokens and codes kept, each.
    static constexpr qsizetype maxEntries = 100'000;
    /// The email of the service account GET /oauth/service-account-key hands out.
    static QString serviceAccountEmail()
    {
        return QStringLiteral("retrylab-test@retrylab-fault-server.iam.gserviceaccount.com");
    }

    /// "retrylab" with secret "retrylab-secret" and refresh token
    /// "retrylab-refresh-token"; "retrylab-public", a public client without a
    /// secret, with refresh token "retrylab-public-refresh-token".
    static QList<OAuthClient> defaultClients();

    OAuthEndpoints();
    ~OAuthEndpoints();
    OAuthEndpoints(const OAuthEndpoints &) = delete;
    OAuthEndpoints &operator=(const OAuthEndpoints &) = delete;

    /// Not owned; nullptr restores the steady clock. Set it on the server's thread.
    void setClock(const Clock *clock);
    /// Replaces the known clients; the error names one without an id or a repeated id.
    Result<void> setClients(const QList<OAuthClient> &clients);
    QList<OAuthClient> clients() const;
    /// Trusts the RS256 signatures of `publicKeyPem` (a PUBLIC KEY or a
    /// CERTIFICATE) for assertions issued by `clientEmail`.
    Result<void> addServiceAccount(const QString &clientEmail, const QByteArray &publicKeyPem);
    /// The key file of the server's own service account (made at the first
    /// call, kept until the server is destroyed), with `tokenUri` as its token_uri.
    Result<QByteArray> serviceAccountKeyFile(const QString &tokenUri);

    static bool owns(const RequestTarget &target);
    ResponsePlan handle(const HttpRequest &request, const RequestTarget &target);

    /// Forgets issued tokens, refresh tokens and codes.
    void reset();

private:
    struct Issued
    {
        QString clientId;
        QString scope;
        qint64 expiresNs = 0;
    };
    struct Grant
    {
        QString clientId;
        QString scope;
    };
    struct Code
    {
        QString clientId;
        QString redirectUri;
        QString challenge;
        QString challengeMethod;
        QString scope;
        qint64 expiresNs = 0;
    };
    struct ClientProof;

    ResponsePlan tokenEndpoint(const HttpRequest &request, const RequestTarget &target);
    ResponsePlan authorizeEndpoint(const HttpRequest &request, const RequestTarget &target);
    ResponsePlan protectedEndpoint(const HttpRequest &request);
    ResponsePlan keyEndpoint(const HttpRequest &request);
    ResponsePlan jwtBearerGrant(const HttpRequest &request, const QString &assertion, int lifetime);
    /// The answer of a grant: a new access token (and the refresh token, when given).
    ResponsePlan issue(
        const QString &clientId, const QString &scope, int lifetime, const QString &refreshToken, const QString &grant);
    /// Drops what has expired when a table is full; false when it is still full.
    bool makeRoom();
    /// Whether the client of `proof` is known and its secret right (public clients: none given).
    std::optional<ResponsePlan> authenticate(const ClientProof &proof) const;
    /// The server's own service account, made at the first call (m_mutex held).
    Result<const ServiceAccountKey *> ownServiceAccount();

    const Clock *m_clock;
    mutable QMutex m_mutex; // guards everything below
    QList<OAuthClient> m_clients;
    QHash<QString, Issued> m_tokens;
    QHash<QString, Grant> m_refreshTokens;
    QHash<QString, Code> m_codes;
    QHash<QString, std::shared_ptr<const RsaKey>> m_serviceAccounts;
    std::unique_ptr<ServiceAccountKey> m_ownKey;
};

} // namespace RetryLab::Core
