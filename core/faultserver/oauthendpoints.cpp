#include "core/faultserver/oauthendpoints.h"

#include "core/auth/jwt.h"
#include "core/auth/rsakey.h"
#include "core/auth/serviceaccountkey.h"
#include "core/faultserver/requesttarget.h"
#include "core/http/formurlencoded.h"
#include "core/http/httprequestparser.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QUrl>

namespace RetryLab::Core {

namespace {

constexpr qint64 oauthCodeLifetimeNs = 600LL * 1'000'000'000; // RFC 6749 4.1.2: at most ten minutes
constexpr qint64 oauthClockSkewSeconds = 300;

QString oauthGrantJwtBearer()
{
    return QStringLiteral("urn:ietf:params:oauth:grant-type:jwt-bearer");
}

/// A fresh secret value: 32 bytes of the system's random source in base64url, after a readable prefix.
QString oauthNewSecret(const char *prefix)
{
    quint32 words[8];
    QRandomGenerator::system()->fillRange(words);
    const QByteArray bytes(reinterpret_cast<const char *>(words), sizeof(words));
    return QLatin1String(prefix)
        + QString::fromLatin1(bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

/// An RFC 6749 5.2 error answer; `description` must hold no secret (it is logged).
ResponsePlan oauthError(int status, const char *code, const QString &description)
{
    const QString name = QLatin1String(code);
    ResponsePlan plan = ResponsePlan::json(status,
        QJsonObject{{QStringLiteral("error"), name}, {QStringLiteral("error_description"), description}},
        name + QStringLiteral(": ") + description);
    plan.addHeader("Cache-Control", "no-store");
    return plan;
}

ResponsePlan oauthBearerChallenge(const QString &description, bool tokenGiven)
{
    ResponsePlan plan = ResponsePlan::json(401,
        QJsonObject{
            {QStringLiteral("error"), tokenGiven ? QStringLiteral("invalid_token") : QStringLiteral("unauthorized")},
            {QStringLiteral("error_description"), description}},
        description);
    // RFC 6750 3.1: a request without a token gets no error code, only the scheme.
    plan.addHeader("WWW-Authenticate",
        tokenGiven ? QByteArray("Bearer realm=\"retrylab\", error=\"invalid_token\", error_description=\""
            + description.toUtf8().replace('"', '\'') + '"')
                   : QByteArray("Bearer realm=\"retrylab\""));
    return plan;
}

QString oauthS256(const QString &verifier)
{
    return QString::fromLatin1(QCryptographicHash::hash(verifier.toLatin1(), QCryptographicHash::Sha256)
                                   .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

bool oauthIsLoopbackRedirect(const QUrl &url)
{
    const QString host = url.host();
    return url.isValid() && url.scheme() == QLatin1String("http")
        && (host == QLatin1String("127.0.0.1") || host == QLatin1String("::1") || host == QLatin1String("localhost"));
}

/// Equal without an early exit at the first difference, for secrets.
bool oauthSameSecret(const QString &a, const QString &b)
{
    const QByteArray x = a.toUtf8();
    const QByteArray y = b.toUtf8();
    if (x.size() != y.size())
        return false; // the length of a secret is no secret worth a constant time
    unsigned difference = 0;
    for (qsizetype i = 0; i < x.size(); ++i)
        difference |= static_cast<unsigned char>(x.at(i) ^ y.at(i));
    return difference == 0;
}

} // namespace

/// How a request says which client sends it (RFC 6749 2.3.1).
struct OAuthEndpoints::ClientProof
{
    QString id;
    QString secret;
    bool secretGiven = false;
    bool viaHeader = false;
    QString problem; ///< a malformed header, or both methods at once

    static ClientProof of(const HttpRequest &request, const FormUrlEncoded::Fields &form)
    {
        ClientProof proof;
        const auto bodyId = FormUrlEncoded::value(form, QStringLiteral("client_id"));
        const auto bodySecret = FormUrlEncoded::value(form, QStringLiteral("client_secret"));
        if (const auto header = request.header("Authorization")) {
            const QByteArray value = header->trimmed();
            if (value.left(6).compare("Basic ", Qt::CaseInsensitive) == 0) {
                const auto decoded
                    = QByteArray::fromBase64Encoding(value.mid(6).trimmed(), QByteArray::AbortOnBase64DecodingErrors);
                const qsizetype colon = decoded ? decoded.decoded.indexOf(':') : -1;
                if (colon < 0) {
                    proof.problem = Tr::tr("the Authorization header is not Basic base64(id:secret)");
                    return proof;
                }
                // Both halves are form-encoded before they are joined (RFC 6749 2.3.1).
                const FormUrlEncoded::Fields halves = FormUrlEncoded::decode(
                    "id=" + decoded.decoded.left(colon) + "&secret=" + decoded.decoded.mid(colon + 1));
                proof.id = FormUrlEncoded::value(halves, QStringLiteral("id")).value_or(QString());
                proof.secret = FormUrlEncoded::value(halves, QStringLiteral("secret")).value_or(QString());
                proof.secretGiven = true;
                proof.viaHeader = true;
                if (bodySecret) {
                    proof.problem = Tr::tr("the client authenticated twice, in the Authorization header and in the "
                                           "body; RFC 6749 2.3 allows one method");
                }
                if (bodyId && *bodyId != proof.id)
                    proof.problem = Tr::tr("the client_id of the body is not the client of the Authorization header");
                return proof;
            }
        }
        proof.id = bodyId.value_or(QString());
        proof.secret = bodySecret.value_or(QString());
        proof.secretGiven = bodySecret.has_value();
        return proof;
    }
};

QList<OAuthClient> OAuthEndpoints::defaultClients()
{
    return {
        {QStringLiteral("retrylab"), QStringLiteral("retrylab-secret"), QStringLiteral("retrylab-refresh-token")},
        {QStringLiteral("retrylab-public"), QString(), QStringLiteral("retrylab-public-refresh-token")},
    };
}

OAuthEndpoints::OAuthEndpoints() : m_clock(&SteadyClock::instance()), m_clients(defaultClients())
{ }

OAuthEndpoints::~OAuthEndpoints() = default;

void OAuthEndpoints::setClock(const Clock *clock)
{
    m_clock = clock ? clock : &SteadyClock::instance();
}

Result<void> OAuthEndpoints::setClients(const QList<OAuthClient> &clients)
{
    QSet<QString> ids;
    for (const OAuthClient &client : clients) {
        if (client.id.trimmed().isEmpty())
            return Result<void>::failure(Tr::tr("an OAuth client has no id"));
        if (ids.contains(client.id))
            return Result<void>::failure(Tr::tr("the OAuth client \"%1\" is given twice").arg(client.id));
        ids.insert(client.id);
    }
    QMutexLocker lock(&m_mutex);
    m_clients = clients;
    return {};
}

QList<OAuthClient> OAuthEndpoints::clients() const
{
    QMutexLocker lock(&m_mutex);
    return m_clients;
}

Result<void> OAuthEndpoints::addServiceAccount(const QString &clientEmail, const QByteArray &publicKeyPem)
{
    if (clientEmail.trimmed().isEmpty())
        return Result<void>::failure(Tr::tr("the service account's email is empty"));
    auto key = RsaKey::fromPublicKeyPem(publicKeyPem);
    if (!key)
        return key.errorDetail();
    QMutexLocker lock(&m_mutex);
    m_serviceAccounts.insert(clientEmail.trimmed(), std::make_shared<const RsaKey>(key->publicKey()));
    return {};
}

Result<const ServiceAccountKey *> OAuthEndpoints::ownServiceAccount()
{
    if (!m_ownKey) {
        const auto rsa = RsaKey::generate();
        if (!rsa)
            return rsa.errorDetail();
        const QByteArray keyId = QCryptographicHash::hash(rsa->publicKeyPem(), QCryptographicHash::Sha1).toHex();
        m_ownKey = std::make_unique<ServiceAccountKey>(ServiceAccountKey::create(*rsa, serviceAccountEmail(),
            QString::fromLatin1(keyId), QString(), QStringLiteral("retrylab-fault-server")));
        m_serviceAccounts.insert(serviceAccountEmail(), std::make_shared<const RsaKey>(rsa->publicKey()));
    }
    return m_ownKey.get();
}

Result<QByteArray> OAuthEndpoints::serviceAccountKeyFile(const QString &tokenUri)
{
    QMutexLocker lock(&m_mutex);
    const auto own = ownServiceAccount();
    if (!own)
        return own.errorDetail();
    QJsonObject json = (*own)->toJson();
    json.insert(QStringLiteral("token_uri"), tokenUri);
    return QJsonDocument(json).toJson(QJsonDocument::Indented);
}

bool OAuthEndpoints::owns(const RequestTarget &target)
{
    return !target.segments().isEmpty() && target.segments().constFirst() == QLatin1String("oauth");
}

void OAuthEndpoints::reset()
{
    QMutexLocker lock(&m_mutex);
    m_tokens.clear();
    m_refreshTokens.clear();
    m_codes.clear();
}

ResponsePlan OAuthEndpoints::handle(const HttpRequest &request, const RequestTarget &target)
{
    const QStringList &segments = target.segments();
    const QString name = segments.size() == 2 ? segments.at(1) : QString();
    const auto only = [&](const char *method) -> std::optional<ResponsePlan> {
        if (request.method == method)
            return std::nullopt;
        ResponsePlan plan
            = ResponsePlan::error(405, Tr::tr("%1 takes %2 only").arg(target.path(), QLatin1String(method)));
        plan.addHeader("Allow", method);
        return plan;
    };
    if (name == QLatin1String("token")) {
        if (auto refused = only("POST"))
            return *refused;
        return tokenEndpoint(request, target);
    }
    if (name == QLatin1String("authorize")) {
        if (auto refused = only("GET"))
            return *refused;
        return authorizeEndpoint(request, target);
    }
    if (name == QLatin1String("protected"))
        return protectedEndpoint(request);
    if (name == QLatin1String("service-account-key")) {
        if (auto refused = only("GET"))
            return *refused;
        return keyEndpoint(request);
    }
    return ResponsePlan::error(404,
        Tr::tr("no such OAuth endpoint: %1 (there are /oauth/token, /oauth/authorize, /oauth/protected and "
               "/oauth/service-account-key)")
            .arg(RequestTarget::shortened(target.path())));
}

bool OAuthEndpoints::makeRoom()
{
    if (m_tokens.size() < maxEntries && m_refreshTokens.size() < maxEntries && m_codes.size() < maxEntries)
        return true;
    const qint64 now = m_clock->nowNs();
    m_tokens.removeIf([now](const auto &each) { return each.value().expiresNs <= now; });
    m_codes.removeIf([now](const auto &each) { return each.value().expiresNs <= now; });
    return m_tokens.size() < maxEntries && m_refreshTokens.size() < maxEntries && m_codes.size() < maxEntries;
}

std::optional<ResponsePlan> OAuthEndpoints::authenticate(const ClientProof &proof) const
{
    const auto refuse = [&](const QString &why) {
        ResponsePlan plan = oauthError(401, "invalid_client", why);
        if (proof.viaHeader)
            plan.addHeader("WWW-Authenticate", "Basic realm=\"retrylab\"");
        return plan;
    };
    if (!proof.problem.isEmpty())
        return oauthError(400, "invalid_request", proof.problem);
    if (proof.id.isEmpty())
        return refuse(Tr::tr("no client_id: authenticate with HTTP Basic or client_id and client_secret in the body"));
    for (const OAuthClient &client : m_clients) {
        if (client.id != proof.id)
            continue;
        if (client.secret.isEmpty()) {
            if (proof.secretGiven && !proof.secret.isEmpty())
                return refuse(
                    Tr::tr("the client \"%1\" is public and has no secret").arg(RequestTarget::shortened(proof.id)));
            return std::nullopt;
        }
        if (!proof.secretGiven)
            return refuse(Tr::tr("the client \"%1\" must send its secret").arg(RequestTarget::shortened(proof.id)));
        if (!oauthSameSecret(proof.secret, client.secret))
            return refuse(Tr::tr("wrong secret for the client \"%1\"").arg(RequestTarget::shortened(proof.id)));
        return std::nullopt;
    }
    return refuse(Tr::tr("unknown client \"%1\"").arg(RequestTarget::shortened(proof.id)));
}

ResponsePlan OAuthEndpoints::issue(
    const QString &clientId, const QString &scope, int lifetime, const QString &refreshToken, const QString &grant)
{
    if (!makeRoom()) {
        return oauthError(503, "temporarily_unavailable",
            Tr::tr("the server holds %1 tokens already; reset it (POST /_control/reset)").arg(maxEntries));
    }
    const QString token = oauthNewSecret("rl-at-");
    m_tokens.insert(token, Issued{clientId, scope, m_clock->nowNs() + qint64(lifetime) * 1'000'000'000});
    QJsonObject body{
        {QStringLiteral("access_token"), token},
        {QStringLiteral("token_type"), QStringLiteral("Bearer")},
        {QStringLiteral("expires_in"), lifetime},
    };
    if (!scope.isEmpty())
        body.insert(QStringLiteral("scope"), scope);
    if (!refreshToken.isEmpty())
        body.insert(QStringLiteral("refresh_token"), refreshToken);
    ResponsePlan plan = ResponsePlan::json(200, body,
        Tr::tr("%1: a token for \"%2\" valid %3 s").arg(grant, RequestTarget::shortened(clientId)).arg(lifetime));
    // RFC 6749 5.1: token responses are not to be cached.
    plan.addHeader("Cache-Control", "no-store");
    plan.addHeader("Pragma", "no-cache");
    return plan;
}

ResponsePlan OAuthEndpoints::tokenEndpoint(const HttpRequest &request, const RequestTarget &target)
{
    const auto lifetime = target.integer("expires_in", 0, maxLifetimeSeconds, defaultLifetimeSeconds);
    if (!lifetime)
        return oauthError(400, "invalid_request", lifetime.error());
    const QByteArray contentType = request.header("Content-Type").value_or(QByteArray()).trimmed();
    if (!contentType.toLower().startsWith("application/x-www-form-urlencoded")) {
        return oauthError(400, "invalid_request",
            Tr::tr("a token request's body is application/x-www-form-urlencoded (RFC 6749 4.4.2)"));
    }
    const FormUrlEncoded::Fields form = FormUrlEncoded::decode(request.body);
    const QString grant = FormUrlEncoded::value(form, QStringLiteral("grant_type")).value_or(QString());
    const QString scope = FormUrlEncoded::value(form, QStringLiteral("scope")).value_or(QString()).simplified();
    const int seconds = static_cast<int>(*lifetime);
    if (grant.isEmpty())
        return oauthError(400, "invalid_request", Tr::tr("the body has no grant_type"));

    if (grant == oauthGrantJwtBearer()) {
        const auto assertion = FormUrlEncoded::value(form, QStringLiteral("assertion"));
        if (!assertion || assertion->isEmpty())
            return oauthError(400, "invalid_request", Tr::tr("the jwt-bearer grant needs an assertion"));
        return jwtBearerGrant(request, *assertion, seconds);
    }
    if (grant != QLatin1String("client_credentials") && grant != QLatin1String("refresh_token")
        && grant != QLatin1String("authorization_code")) {
        return oauthError(400, "unsupported_grant_type",
            Tr::tr("grant_type \"%1\" is not one of client_credentials, refresh_token, authorization_code and %2")
                .arg(RequestTarget::shortened(grant), oauthGrantJwtBearer()));
    }

    QMutexLocker lock(&m_mutex);
    const ClientProof proof = ClientProof::of(request, form);
    if (auto refused = authenticate(proof))
        return *refused;

    if (grant == QLatin1String("client_credentials"))
        return issue(proof.id, scope, seconds, QString(), grant);

    if (grant == QLatin1String("refresh_token")) {
        const QString refresh = FormUrlEncoded::value(form, QStringLiteral("refresh_token")).value_or(QString());
        if (refresh.isEmpty())
            return oauthError(400, "invalid_request", Tr::tr("the refresh_token grant needs a refresh_token"));
        QString grantedScope = scope;
        bool known = false;
        for (const OAuthClient &client : std::as_const(m_clients)) {
            if (client.id == proof.id && !client.refreshToken.isEmpty()
                && oauthSameSecret(client.refreshToken, refresh))
                known = true;
        }
        if (const auto it = m_refreshTokens.constFind(refresh);
            it != m_refreshTokens.constEnd() && it->clientId == proof.id) {
            known = true;
            if (grantedScope.isEmpty())
                grantedScope = it->scope;
        }
        if (!known) {
            return oauthError(400, "invalid_grant",
                Tr::tr("the refresh token is not one this server issued to \"%1\", or the server was reset")
                    .arg(RequestTarget::shortened(proof.id)));
        }
        // The refresh token stays valid and is sent back (no rotation), so that a client may keep it.
        return issue(proof.id, grantedScope, seconds, refresh, grant);
    }

    // authorization_code
    const QString codeText = FormUrlEncoded::value(form, QStringLiteral("code")).value_or(QString());
    const auto it = m_codes.constFind(codeText);
    if (codeText.isEmpty() || it == m_codes.constEnd())
        return oauthError(400, "invalid_grant", Tr::tr("the authorization code is unknown or was used already"));
    const Code code = *it;
    m_codes.erase(it); // a code is good for one exchange (RFC 6749 4.1.2)
    if (code.clientId != proof.id)
        return oauthError(400, "invalid_grant", Tr::tr("the authorization code was issued to another client"));
    if (code.expiresNs <= m_clock->nowNs())
        return oauthError(400, "invalid_grant", Tr::tr("the authorization code expired"));
    if (FormUrlEncoded::value(form, QStringLiteral("redirect_uri")).value_or(QString()) != code.redirectUri) {
        return oauthError(400, "invalid_grant",
            Tr::tr("redirect_uri is not the one the authorization request named (RFC 6749 4.1.3)"));
    }
    const QString verifier = FormUrlEncoded::value(form, QStringLiteral("code_verifier")).value_or(QString());
    if (verifier.isEmpty())
        return oauthError(
            400, "invalid_grant", Tr::tr("the code was issued with a PKCE challenge: code_verifier is missing"));
    const QString expected = code.challengeMethod == QLatin1String("S256") ? oauthS256(verifier) : verifier;
    if (!oauthSameSecret(expected, code.challenge)) {
        return oauthError(400, "invalid_grant",
            Tr::tr("code_verifier does not match the code challenge (%1)").arg(code.challengeMethod));
    }
    const QString refresh = oauthNewSecret("rl-rt-");
    if (!makeRoom())
        return oauthError(503, "temporarily_unavailable", Tr::tr("the server holds too many refresh tokens"));
    m_refreshTokens.insert(refresh, Grant{proof.id, code.scope});
    return issue(proof.id, code.scope, seconds, refresh, grant);
}

ResponsePlan OAuthEndpoints::jwtBearerGrant(const HttpRequest &request, const QString &assertion, int lifetime)
{
    const auto jwt = Jwt::decode(assertion.toLatin1());
    if (!jwt)
        return oauthError(400, "invalid_grant", jwt.error());
    const QString issuer = jwt->claims.value(QLatin1String("iss")).toString();
    QMutexLocker lock(&m_mutex);
    const auto account = m_serviceAccounts.constFind(issuer);
    if (issuer.isEmpty() || account == m_serviceAccounts.constEnd()) {
        return oauthError(400, "invalid_grant",
            Tr::tr("the assertion's issuer (iss) \"%1\" is not a service account this server knows (GET "
                   "/oauth/service-account-key makes one)")
                .arg(RequestTarget::shortened(issuer)));
    }
    if (const auto verified = jwt->verifyRs256(**account); !verified)
        return oauthError(400, "invalid_grant", verified.error());
    // aud must be this endpoint, as the client reached it.
    const QUrl audience(jwt->claims.value(QLatin1String("aud")).toString());
    const QByteArray host = request.header("Host").value_or(QByteArray()).trimmed();
    const QString reached
        = audience.host() + (audience.port() >= 0 ? QLatin1Char(':') + QString::number(audience.port()) : QString());
    if (audience.path() != QLatin1String("/oauth/token")
        || reached.compare(QString::fromLatin1(host), Qt::CaseInsensitive) != 0) {
        return oauthError(400, "invalid_grant",
            Tr::tr("the assertion's audience (aud) is not this token endpoint, http://%1/oauth/token")
                .arg(QString::fromLatin1(host).left(100)));
    }
    const QJsonValue exp = jwt->claims.value(QLatin1String("exp"));
    const QJsonValue iat = jwt->claims.value(QLatin1String("iat"));
    if (!exp.isDouble() || !iat.isDouble())
        return oauthError(400, "invalid_grant", Tr::tr("the assertion needs numeric exp and iat claims"));
    const qint64 now = m_clock->wallTime().toSecsSinceEpoch();
    const auto expires = static_cast<qint64>(exp.toDouble());
    const auto issued = static_cast<qint64>(iat.toDouble());
    if (expires <= now - oauthClockSkewSeconds)
        return oauthError(400, "invalid_grant", Tr::tr("the assertion expired (exp is in the past)"));
    if (issued > now + oauthClockSkewSeconds)
        return oauthError(400, "invalid_grant", Tr::tr("the assertion was issued in the future (iat)"));
    if (expires - issued > ServiceAccountKey::assertionLifetimeSeconds) {
        return oauthError(400, "invalid_grant",
            Tr::tr("the assertion is valid for more than an hour (exp - iat = %1 s)").arg(expires - issued));
    }
    return issue(issuer, jwt->claims.value(QLatin1String("scope")).toString(), lifetime, QString(),
        QStringLiteral("jwt-bearer"));
}

ResponsePlan OAuthEndpoints::authorizeEndpoint(const HttpRequest &, const RequestTarget &target)
{
    const QString clientId = target.query(QLatin1String("client_id")).value_or(QString());
    const QUrl redirect(target.query(QLatin1String("redirect_uri")).value_or(QString()), QUrl::StrictMode);
    {
        QMutexLocker lock(&m_mutex);
        const bool known = std::any_of(
            m_clients.cbegin(), m_clients.cend(), [&](const OAuthClient &client) { return client.id == clientId; });
        // Errors about the client or the redirect are shown, not redirected (RFC 6749 4.1.2.1).
        if (!known)
            return oauthError(
                400, "invalid_request", Tr::tr("unknown client \"%1\"").arg(RequestTarget::shortened(clientId)));
    }
    if (!oauthIsLoopbackRedirect(redirect)) {
        return oauthError(400, "invalid_request",
            Tr::tr("redirect_uri must be a loopback http URL (http://127.0.0.1:PORT/..., RFC 8252 7.3): the fault "
                   "server redirects nowhere else"));
    }
    const auto state = target.query(QLatin1String("state"));
    const auto redirectWith = [&](const QList<QPair<QString, QString>> &fields, const QString &detail) {
        QByteArray query = redirect.query(QUrl::FullyEncoded).toLatin1();
        QList<QPair<QString, QString>> all = fields;
        if (state)
            all.append({QStringLiteral("state"), *state});
        for (const auto &[name, value] : all) {
            if (!query.isEmpty())
                query.append('&');
            query.append(name.toLatin1() + '=' + QUrl::toPercentEncoding(value));
        }
        QUrl location = redirect;
        location.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
        ResponsePlan plan;
        plan.status = 302;
        plan.addHeader("Location", location.toEncoded());
        plan.addHeader("Cache-Control", "no-store");
        plan.body = "redirecting to the client\n";
        plan.contentType = "text/plain; charset=utf-8";
        plan.detail = detail;
        return plan;
    };
    const auto fail = [&](const char *code, const QString &description) {
        return redirectWith(
            {{QStringLiteral("error"), QLatin1String(code)}, {QStringLiteral("error_description"), description}},
            QLatin1String(code) + QStringLiteral(": ") + description);
    };
    if (target.query(QLatin1String("response_type")).value_or(QString()) != QLatin1String("code"))
        return fail("unsupported_response_type", Tr::tr("response_type must be code"));
    if (target.query(QLatin1String("deny")).value_or(QString()) == QLatin1String("1"))
        return fail("access_denied", Tr::tr("denied as asked (?deny=1)"));
    const QString challenge = target.query(QLatin1String("code_challenge")).value_or(QString());
    const QString method = target.query(QLatin1String("code_challenge_method")).value_or(QStringLiteral("plain"));
    if (challenge.isEmpty())
        return fail("invalid_request", Tr::tr("PKCE is required: code_challenge is missing"));
    if (method != QLatin1String("S256") && method != QLatin1String("plain"))
        return fail("invalid_request", Tr::tr("code_challenge_method must be S256 or plain"));
    if (challenge.size() < 43 || challenge.size() > 128)
        return fail("invalid_request", Tr::tr("code_challenge must have 43 to 128 characters (RFC 7636 4.2)"));
    QMutexLocker lock(&m_mutex);
    if (!makeRoom())
        return fail("temporarily_unavailable", Tr::tr("the server holds too many codes"));
    const QString code = oauthNewSecret("rl-code-");
    m_codes.insert(code,
        Code{clientId, redirect.toString(QUrl::FullyEncoded), challenge, method,
            target.query(QLatin1String("scope")).value_or(QString()).simplified(),
            m_clock->nowNs() + oauthCodeLifetimeNs});
    return redirectWith({{QStringLiteral("code"), code}},
        Tr::tr("authorization code for \"%1\", approved at once").arg(RequestTarget::shortened(clientId)));
}

ResponsePlan OAuthEndpoints::protectedEndpoint(const HttpRequest &request)
{
    const QByteArray header = request.header("Authorization").value_or(QByteArray()).trimmed();
    if (header.isEmpty())
        return oauthBearerChallenge(Tr::tr("no bearer token: send Authorization: Bearer TOKEN"), false);
    if (header.left(7).compare("Bearer ", Qt::CaseInsensitive) != 0)
        return oauthBearerChallenge(Tr::tr("the Authorization header is not a bearer token"), true);
    const QString token = QString::fromLatin1(header.mid(7).trimmed());
    QMutexLocker lock(&m_mutex);
    const auto it = m_tokens.find(token);
    if (it == m_tokens.end())
        return oauthBearerChallenge(Tr::tr("the access token is unknown (or the server was reset)"), true);
    const qint64 now = m_clock->nowNs();
    if (it->expiresNs <= now) {
        m_tokens.erase(it);
        return oauthBearerChallenge(Tr::tr("the access token expired"), true);
    }
    return ResponsePlan::json(200,
        QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("client"), it->clientId},
            {QStringLiteral("scope"), it->scope}, {QStringLiteral("expiresIn"), (it->expiresNs - now) / 1'000'000'000}},
        Tr::tr("a valid token of \"%1\"").arg(RequestTarget::shortened(it->clientId)));
}

ResponsePlan OAuthEndpoints::keyEndpoint(const HttpRequest &request)
{
    const QByteArray host = request.header("Host").value_or(QByteArray()).trimmed();
    if (host.isEmpty())
        return ResponsePlan::error(400, Tr::tr("the request has no Host header, so the key's token_uri is unknown"));
    const auto file
        = serviceAccountKeyFile(QStringLiteral("http://") + QString::fromLatin1(host) + QStringLiteral("/oauth/token"));
    if (!file)
        return ResponsePlan::error(500, file.error());
    ResponsePlan plan;
    plan.body = *file;
    plan.addHeader("Cache-Control", "no-store");
    plan.detail = Tr::tr("the key file of %1").arg(serviceAccountEmail());
    return plan;
}

} // namespace RetryLab::Core
