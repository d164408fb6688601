#include "core/auth/accesstoken.h"
#include "core/auth/authorizationrequest.h"
#include "core/auth/jwtsigner.h"
#include "core/auth/rsakey.h"
#include "core/auth/serviceaccountkey.h"
#include "core/auth/tokenrequest.h"
#include "core/auth/tokenresponse.h"
#include "core/faultserver/faultserver.h"
#include "core/util/clock.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

namespace {

struct OAuthReply
{
    int status = 0;
    QByteArray body;
    QUrl url; ///< where the request ended, after redirects
    QHash<QByteArray, QByteArray> headers; ///< names in lower case
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

} // namespace

/// The fault server's OAuth 2.0 endpoints over real loopback sockets, with a
/// real QNetworkAccessManager sending what core/auth builds: client
/// credentials (Basic and body), refresh tokens, the authorization code with
/// PKCE through /oauth/authorize, Google's JWT bearer grant with the key file
/// the server hands out, and /oauth/protected refusing expired and unknown tokens.
class TestOAuthEndpoints final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void clientCredentials_basic_thenProtected200();
    void clientCredentials_inBody_withScope();
    void wrongSecret_401InvalidClient_notInTheLog();
    void unknownGrantAndMissingFields_400();
    void refreshToken_standingAndIssued();
    void authorizationCode_pkce_throughAuthorize();
    void authorizationCode_wrongVerifier_invalidGrant();
    void authorize_deniedAndForeignRedirect();
    void jwtBearer_withTheServedKeyFile();
    void jwtBearer_ownKeyRegistered_andForgedRefused();
    void jwtBearer_wrongAudienceAndExpired_invalidGrant();
    void expiresIn_tokenExpires_protected401();
    void protected_withoutOrWithUnknownToken_401();
    void malformedServedKeyFile_saysWhichField();
    void reset_forgetsTokens();

private:
    OAuthReply send(const QByteArray &method, const QUrl &url, const QList<QPair<QByteArray, QByteArray>> &headers,
        const QByteArray &body = {}, bool followRedirects = false);
    OAuthReply send(const TokenRequest &request)
    {
        return send(request.method, request.url, request.headers, request.body);
    }
    OAuthReply protectedWith(const QString &token);
    QUrl url(const QString &pathAndQuery) const { return QUrl(m_server->baseUrl().toString() + pathAndQuery); }
    AuthSpec clientAuth() const;
    /// A token of the client credentials grant, or the test fails.
    AccessToken fetch(const TokenRequest &request);

    FaultServer *m_server = nullptr;
    QNetworkAccessManager *m_nam = nullptr;
    QTemporaryDir m_dir;
};

void TestOAuthEndpoints::init()
{
    QVERIFY(m_dir.isValid());
    m_server = new FaultServer(this);
    QVERIFY2(m_server->listen(), qPrintable(m_server->errorString()));
    m_nam = new QNetworkAccessManager(this);
}

void TestOAuthEndpoints::cleanup()
{
    delete m_nam;
    m_nam = nullptr;
    delete m_server;
    m_server = nullptr;
}

OAuthReply TestOAuthEndpoints::send(const QByteArray &method, const QUrl &target,
    const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &body, bool followRedirects)
{
    QNetworkRequest request(target);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
        followRedirects ? QNetworkRequest::NoLessSafeRedirectPolicy : QNetworkRequest::ManualRedirectPolicy);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    QNetworkReply *reply = m_nam->sendCustomRequest(request, method, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!reply->isFinished())
        finished.wait(30'000);
    OAuthReply out;
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.body = reply->readAll();
    out.url = reply->url();
    for (const auto &[name, value] : reply->rawHeaderPairs())
        out.headers.insert(name.toLower(), value);
    reply->deleteLater();
    return out;
}

OAuthReply TestOAuthEndpoints::protectedWith(const QString &token)
{
    return send("GET", url(QStringLiteral("/oauth/protected")), {{"Authorization", "Bearer " + token.toLatin1()}});
}

AuthSpec TestOAuthEndpoints::clientAuth() const
{
    AuthSpec auth;
    auth.kind = AuthSpec::Kind::OAuth2ClientCredentials;
    auth.tokenUrl = url(QStringLiteral("/oauth/token")).toString();
    auth.authorizationUrl = url(QStringLiteral("/oauth/authorize")).toString();
    auth.clientId = QStringLiteral("retrylab");
    auth.clientSecret = QStringLiteral("retrylab-secret");
    return auth;
}

AccessToken TestOAuthEndpoints::fetch(const TokenRequest &request)
{
    const OAuthReply reply = send(request);
    const auto response = TokenResponse::parse(reply.status, reply.body);
    if (!response.ok()) {
        QTest::qFail(qPrintable(response.error()), __FILE__, __LINE__);
        return {};
    }
    return AccessToken::fromResponse(*response, SteadyClock::instance());
}

void TestOAuthEndpoints::clientCredentials_basic_thenProtected200()
{
    const auto request = TokenRequest::forAuth(clientAuth(), QDateTime::currentDateTimeUtc());
    QVERIFY(request.ok());
    QVERIFY(request->header("Authorization")->startsWith("Basic "));
    const OAuthReply reply = send(*request);
    QCOMPARE(reply.status, 200);
    QCOMPARE(reply.headers.value("cache-control"), QByteArray("no-store"));
    const auto response = TokenResponse::parse(reply.status, reply.body);
    QVERIFY2(response.ok(), qPrintable(response.error()));
    QCOMPARE(response->tokenType, QStringLiteral("Bearer"));
    QCOMPARE(response->expiresInSeconds, 3600);
    QVERIFY(response->refreshToken.isEmpty()); // RFC 6749 4.4.3: none for client credentials

    const AccessToken token = AccessToken::fromResponse(*response, SteadyClock::instance());
    const OAuthReply resource
        = send("GET", url(QStringLiteral("/oauth/protected")), {{"Authorization", token.authorizationValue()}});
    QCOMPARE(resource.status, 200);
    QCOMPARE(resource.json().value(QLatin1String("client")).toString(), QStringLiteral("retrylab"));
}

void TestOAuthEndpoints::clientCredentials_inBody_withScope()
{
    AuthSpec auth = clientAuth();
    auth.clientAuth = AuthSpec::ClientAuth::Body;
    auth.scope = QStringLiteral("read write");
    const auto request = TokenRequest::clientCredentials(auth);
    QVERIFY(request.ok());
    QVERIFY(!request->header("Authorization"));
    const OAuthReply reply = send(*request);
    QCOMPARE(reply.status, 200);
    QCOMPARE(reply.json().value(QLatin1String("scope")).toString(), QStringLiteral("read write"));
    const OAuthReply resource = protectedWith(reply.json().value(QLatin1String("access_token")).toString());
    QCOMPARE(resource.status, 200);
    QCOMPARE(resource.json().value(QLatin1String("scope")).toString(), QStringLiteral("read write"));
}

void TestOAuthEndpoints::wrongSecret_401InvalidClient_notInTheLog()
{
    for (const auto clientAuthKind : {AuthSpec::ClientAuth::BasicHeader, AuthSpec::ClientAuth::Body}) {
        AuthSpec auth = clientAuth();
        auth.clientAuth = clientAuthKind;
        auth.clientSecret = QStringLiteral("wrong-secret-value");
        const OAuthReply reply = send(*TokenRequest::clientCredentials(auth));
        QCOMPARE(reply.status, 401);
        QCOMPARE(reply.json().value(QLatin1String("error")).toString(), QStringLiteral("invalid_client"));
        QCOMPARE(reply.headers.contains("www-authenticate"), clientAuthKind == AuthSpec::ClientAuth::BasicHeader);
        const auto response = TokenResponse::parse(reply.status, reply.body);
        QVERIFY(!response.ok());
        QCOMPARE(response.errorDetail().path, QStringLiteral("invalid_client"));
        QVERIFY2(response.error().contains(QLatin1String("wrong secret for the client \"retrylab\"")),
            qPrintable(response.error()));
        QVERIFY(!reply.body.contains("wrong-secret-value"));
    }
    AuthSpec unknown = clientAuth();
    unknown.clientId = QStringLiteral("nobody");
    QCOMPARE(send(*TokenRequest::clientCredentials(unknown)).status, 401);
    for (const ServerLogEntry &entry : m_server->log()) {
        QVERIFY(!entry.detail.contains(QLatin1String("wrong-secret-value")));
        QVERIFY(!entry.detail.contains(QLatin1String("retrylab-secret")));
    }
}

void TestOAuthEndpoints::unknownGrantAndMissingFields_400()
{
    const QList<QPair<QByteArray, QByteArray>> form{{"Content-Type", "application/x-www-form-urlencoded"}};
    OAuthReply reply = send("POST", url(QStringLiteral("/oauth/token")), form, "grant_type=password&username=a");
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.json().value(QLatin1String("error")).toString(), QStringLiteral("unsupported_grant_type"));
    reply = send("POST", url(QStringLiteral("/oauth/token")), form, "scope=x");
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.json().value(QLatin1String("error")).toString(), QStringLiteral("invalid_request"));
    reply = send("POST", url(QStringLiteral("/oauth/token")), {{"Content-Type", "application/json"}},
        R"({"grant_type":"client_credentials"})");
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.json().value(QLatin1String("error")).toString(), QStringLiteral("invalid_request"));
    reply = send("GET", url(QStringLiteral("/oauth/token")), {});
    QCOMPARE(reply.status, 405);
    QCOMPARE(reply.headers.value("allow"), QByteArray("POST"));
    reply = send("POST", url(QStringLiteral("/oauth/token?expires_in=-1")), form, "grant_type=client_credentials");
    QCOMPARE(reply.status, 400);
}

void TestOAuthEndpoints::refreshToken_standingAndIssued()
{
    AuthSpec auth = clientAuth();
    auth.kind = AuthSpec::Kind::OAuth2RefreshToken;
    auth.refreshToken = QStringLiteral("retrylab-refresh-token");
    const auto request = TokenRequest::forAuth(auth, QDateTime::currentDateTimeUtc());
    QVERIFY(request.ok());
    const OAuthReply reply = send(*request);
    QCOMPARE(reply.status, 200);
    const auto response = TokenResponse::parse(reply.status, reply.body);
    QVERIFY(response.ok());
    QCOMPARE(response->refreshToken, QStringLiteral("retrylab-refresh-token"));
    QCOMPARE(protectedWith(response->accessToken).status, 200);

    auth.refreshToken = QStringLiteral("not-issued");
    const OAuthReply bad = send(*TokenRequest::forAuth(auth, QDateTime::currentDateTimeUtc()));
    QCOMPARE(bad.status, 400);
    QCOMPARE(bad.json().value(QLatin1String("error")).toString(), QStringLiteral("invalid_grant"));
    // Another client's refresh token is no grant of this one.
    auth.refreshToken = QStringLiteral("retrylab-public-refresh-token");
    QCOMPARE(send(*TokenRequest::forAuth(auth, QDateTime::currentDateTimeUtc())).status, 400);
}

void TestOAuthEndpoints::authorizationCode_pkce_throughAuthorize()
{
    AuthSpec auth = clientAuth();
    auth.kind = AuthSpec::Kind::OAuth2AuthorizationCode;
    auth.scope = QStringLiteral("profile");
    // The server's own /status/200 stands in for the loopback listener of the app.
    const QString redirectUri = url(QStringLiteral("/status/200")).toString();
    const auto authorization = AuthorizationRequest::make(auth, redirectUri);
    QVERIFY2(authorization.ok(), qPrintable(authorization.error()));

    // The browser's part: the redirect is followed to the loopback redirect_uri.
    const OAuthReply browser = send("GET", authorization->url, {}, {}, true);
    QCOMPARE(browser.status, 200);
    QCOMPARE(browser.url.path(), QStringLiteral("/status/200"));
    const auto code = authorization->codeFromRedirect(browser.url);
    QVERIFY2(code.ok(), qPrintable(code.error()));

    const auto request
        = TokenRequest::authorizationCode(auth, *code, authorization->codeVerifier, authorization->redirectUri);
    QVERIFY(request.ok());
    const OAuthReply reply = send(*request);
    QCOMPARE(reply.status, 200);
    const auto response = TokenResponse::parse(reply.status, reply.body);
    QVERIFY2(response.ok(), qPrintable(response.error()));
    QCOMPARE(response->scope, QStringLiteral("profile"));
    QVERIFY(!response->refreshToken.isEmpty());
    QCOMPARE(protectedWith(response->accessToken).status, 200);

    // A code is good once.
    const OAuthReply again = send(*request);
    QCOMPARE(again.status, 400);
    QCOMPARE(again.json().value(QLatin1String("error")).toString(), QStringLiteral("invalid_grant"));

    // The refresh token it came with gives new access tokens.
    const auto refresh = TokenRequest::refresh(auth, response->refreshToken);
    QVERIFY(refresh.ok());
    const OAuthReply refreshed = send(*refresh);
    QCOMPARE(refreshed.status, 200);
    const auto second = TokenResponse::parse(refreshed.status, refreshed.body);
    QVERIFY(second.ok());
    QVERIFY(second->accessToken != response->accessToken);
    QCOMPARE(second->refreshToken, response->refreshToken);
    QCOMPARE(second->scope, QStringLiteral("profile"));
    QCOMPARE(protectedWith(second->accessToken).status, 200);

    // A public client (no secret) goes through on PKCE alone.
    AuthSpec publicClient = auth;
    publicClient.clientId = QStringLiteral("retrylab-public");
    publicClient.clientSecret.clear();
    const auto publicAuthorization = AuthorizationRequest::make(publicClient, redirectUri);
    const OAuthReply publicBrowser = send("GET", publicAuthorization->url, {}, {}, true);
    const auto publicCode = publicAuthorization->codeFromRedirect(publicBrowser.url);
    QVERIFY2(publicCode.ok(), qPrintable(publicCode.error()));
    const OAuthReply publicReply = send(
        *TokenRequest::authorizationCode(publicClient, *publicCode, publicAuthorization->codeVerifier, redirectUri));
    QCOMPARE(publicReply.status, 200);
}

void TestOAuthEndpoints::authorizationCode_wrongVerifier_invalidGrant()
{
    AuthSpec auth = clientAuth();
    const QString redirectUri = QStringLiteral("http://127.0.0.1:9/callback");
    const auto authorization = AuthorizationRequest::make(auth, redirectUri);
    QVERIFY(authorization.ok());
    const OAuthReply redirect = send("GET", authorization->url, {});
    QCOMPARE(redirect.status, 302);
    const QUrl location(QString::fromLatin1(redirect.headers.value("location")));
    QCOMPARE(location.host(), QStringLiteral("127.0.0.1"));
    QCOMPARE(location.port(), 9);
    const auto code = authorization->codeFromRedirect(location);
    QVERIFY2(code.ok(), qPrintable(code.error()));
    const OAuthReply reply
        = send(*TokenRequest::authorizationCode(auth, *code, AuthorizationRequest::newCodeVerifier(), redirectUri));
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.json().value(QLatin1String("error")).toString(), QStringLiteral("invalid_grant"));
    QVERIFY(reply.json().value(QLatin1String("error_description")).toString().contains(QLatin1String("code_verifier")));
}

void TestOAuthEndpoints::authorize_deniedAndForeignRedirect()
{
    AuthSpec auth = clientAuth();
    auth.authorizationUrl = url(QStringLiteral("/oauth/authorize?deny=1")).toString();
    const auto authorization = AuthorizationRequest::make(auth, QStringLiteral("http://127.0.0.1:9/cb"));
    QVERIFY(authorization.ok());
    const OAuthReply denied = send("GET", authorization->url, {});
    QCOMPARE(denied.status, 302);
    const auto code = authorization->codeFromRedirect(QUrl(QString::fromLatin1(denied.headers.value("location"))));
    QVERIFY(!code.ok());
    QCOMPARE(code.errorDetail().path, QStringLiteral("access_denied"));

    // Anywhere but loopback, and an unknown client: shown, never redirected (RFC 6749 4.1.2.1).
    auth.authorizationUrl = url(QStringLiteral("/oauth/authorize")).toString();
    const auto foreign = AuthorizationRequest::make(auth, QStringLiteral("https://attacker.example/cb"));
    QCOMPARE(send("GET", foreign->url, {}).status, 400);
    auth.clientId = QStringLiteral("nobody");
    const auto unknown = AuthorizationRequest::make(auth, QStringLiteral("http://127.0.0.1:9/cb"));
    QCOMPARE(send("GET", unknown->url, {}).status, 400);
}

void TestOAuthEndpoints::jwtBearer_withTheServedKeyFile()
{
    const OAuthReply served = send("GET", url(QStringLiteral("/oauth/service-account-key")), {});
    QCOMPARE(served.status, 200);
    const QJsonObject keyJson = served.json();
    QCOMPARE(keyJson.value(QLatin1String("type")).toString(), QStringLiteral("service_account"));
    QCOMPARE(keyJson.value(QLatin1String("token_uri")).toString(), url(QStringLiteral("/oauth/token")).toString());
    // The API gives the same key.
    const auto fromApi = m_server->serviceAccountKeyFile();
    QVERIFY(fromApi.ok());
    QCOMPARE(QJsonDocument::fromJson(*fromApi).object(), keyJson);

    const QString path = m_dir.filePath(QStringLiteral("served-key.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(served.body);
    file.close();
    AuthSpec auth;
    auth.kind = AuthSpec::Kind::GoogleServiceAccount;
    auth.keyFile = path;
    auth.scope = QStringLiteral("https://www.googleapis.com/auth/cloud-platform");
    const auto request = TokenRequest::forAuth(auth, QDateTime::currentDateTimeUtc());
    QVERIFY2(request.ok(), qPrintable(request.error()));
    const OAuthReply reply = send(*request);
    QVERIFY2(reply.status == 200, reply.body.constData());
    const auto response = TokenResponse::parse(reply.status, reply.body);
    QVERIFY(response.ok());
    QCOMPARE(response->scope, auth.scope);
    const OAuthReply resource = protectedWith(response->accessToken);
    QCOMPARE(resource.status, 200);
    QCOMPARE(resource.json().value(QLatin1String("client")).toString(), OAuthEndpoints::serviceAccountEmail());
}

void TestOAuthEndpoints::jwtBearer_ownKeyRegistered_andForgedRefused()
{
    const auto rsa = RsaKey::generate();
    QVERIFY(rsa.ok());
    const QString email = QStringLiteral("mine@test-project.iam.gserviceaccount.com");
    const ServiceAccountKey key = ServiceAccountKey::create(
        *rsa, email, QStringLiteral("k1"), url(QStringLiteral("/oauth/token")).toString(), QStringLiteral("p"));
    const auto request = TokenRequest::serviceAccount(key, QStringLiteral("s"), QDateTime::currentDateTimeUtc());
    QVERIFY(request.ok());
    // Not registered yet.
    OAuthReply reply = send(*request);
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.json().value(QLatin1String("error")).toString(), QStringLiteral("invalid_grant"));
    QVERIFY(m_server->addServiceAccount(email, rsa->publicKeyPem()).ok());
    reply = send(*request);
    QCOMPARE(reply.status, 200);

    // Another key under the served account's name: the signature gives it away.
    QVERIFY(m_server->serviceAccountKeyFile().ok());
    const ServiceAccountKey forged = ServiceAccountKey::create(*rsa, OAuthEndpoints::serviceAccountEmail(),
        QStringLiteral("k1"), url(QStringLiteral("/oauth/token")).toString(), QStringLiteral("p"));
    reply = send(*TokenRequest::serviceAccount(forged, QStringLiteral("s"), QDateTime::currentDateTimeUtc()));
    QCOMPARE(reply.status, 400);
    QVERIFY2(reply.json().value(QLatin1String("error_description")).toString().contains(QLatin1String("signature")),
        reply.body.constData());
    QVERIFY(!m_server->addServiceAccount(email, "not a key").ok());
}

void TestOAuthEndpoints::jwtBearer_wrongAudienceAndExpired_invalidGrant()
{
    const auto rsa = RsaKey::generate();
    QVERIFY(rsa.ok());
    const QString email = QStringLiteral("aud@p.iam.gserviceaccount.com");
    QVERIFY(m_server->addServiceAccount(email, rsa->publicKeyPem()).ok());
    const ServiceAccountKey elsewhere = ServiceAccountKey::create(
        *rsa, email, QStringLiteral("k"), QStringLiteral("https://oauth2.googleapis.com/token"), QStringLiteral("p"));
    // Sent here although its aud is Google's.
    TokenRequest request
        = *TokenRequest::serviceAccount(elsewhere, QStringLiteral("s"), QDateTime::currentDateTimeUtc());
    request.url = url(QStringLiteral("/oauth/token"));
    OAuthReply reply = send(request);
    QCOMPARE(reply.status, 400);
    QVERIFY(reply.json().value(QLatin1String("error_description")).toString().contains(QLatin1String("audience")));

    const ServiceAccountKey here = ServiceAccountKey::create(
        *rsa, email, QStringLiteral("k"), url(QStringLiteral("/oauth/token")).toString(), QStringLiteral("p"));
    reply = send(
        *TokenRequest::serviceAccount(here, QStringLiteral("s"), QDateTime::currentDateTimeUtc().addSecs(-7200)));
    QCOMPARE(reply.status, 400);
    QVERIFY(reply.json().value(QLatin1String("error_description")).toString().contains(QLatin1String("expired")));

    // An hour and more: Google's limit.
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const auto longLived = here.signer().sign(QJsonObject{{QStringLiteral("iss"), email},
        {QStringLiteral("aud"), here.tokenUri()}, {QStringLiteral("iat"), now}, {QStringLiteral("exp"), now + 7200}});
    reply = send("POST", url(QStringLiteral("/oauth/token")), {{"Content-Type", "application/x-www-form-urlencoded"}},
        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + *longLived);
    QCOMPARE(reply.status, 400);
    QVERIFY(
        reply.json().value(QLatin1String("error_description")).toString().contains(QLatin1String("more than an hour")));
}

void TestOAuthEndpoints::expiresIn_tokenExpires_protected401()
{
    // The server's clock decides: moved by hand, no waiting.
    ManualClock clock(QDateTime::currentDateTimeUtc());
    m_server->setClock(&clock);
    const auto request = *TokenRequest::clientCredentials(clientAuth());
    TokenRequest shortLived = request;
    shortLived.url = url(QStringLiteral("/oauth/token?expires_in=30"));
    const OAuthReply reply = send(shortLived);
    QCOMPARE(reply.status, 200);
    const auto response = TokenResponse::parse(reply.status, reply.body);
    QVERIFY(response.ok());
    QCOMPARE(response->expiresInSeconds, 30);
    const AccessToken token = AccessToken::fromResponse(*response, clock);
    QVERIFY(!token.expiresSoon(clock.nowNs(), 10'000'000'000));

    QCOMPARE(protectedWith(token.value).status, 200);
    clock.advanceMs(29'999);
    QCOMPARE(protectedWith(token.value).status, 200);
    clock.advanceMs(1);
    QVERIFY(token.isExpired(clock.nowNs()));
    const OAuthReply expired = protectedWith(token.value);
    QCOMPARE(expired.status, 401);
    QVERIFY2(expired.headers.value("www-authenticate").startsWith("Bearer realm=\"retrylab\", error=\"invalid_token\""),
        expired.headers.value("www-authenticate").constData());
    m_server->setClock(nullptr);
}

void TestOAuthEndpoints::protected_withoutOrWithUnknownToken_401()
{
    OAuthReply reply = send("GET", url(QStringLiteral("/oauth/protected")), {});
    QCOMPARE(reply.status, 401);
    QCOMPARE(reply.headers.value("www-authenticate"), QByteArray("Bearer realm=\"retrylab\""));
    reply = protectedWith(QStringLiteral("rl-at-made-up"));
    QCOMPARE(reply.status, 401);
    QVERIFY(reply.headers.value("www-authenticate").contains("error=\"invalid_token\""));
    reply = send("GET", url(QStringLiteral("/oauth/protected")), {{"Authorization", "Basic eDp5"}});
    QCOMPARE(reply.status, 401);
}

void TestOAuthEndpoints::malformedServedKeyFile_saysWhichField()
{
    const OAuthReply served = send("GET", url(QStringLiteral("/oauth/service-account-key")), {});
    QCOMPARE(served.status, 200);
    QJsonObject json = served.json();
    json.remove(QStringLiteral("private_key"));
    const QString path = m_dir.filePath(QStringLiteral("no-private-key.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(json).toJson());
    file.close();
    AuthSpec auth;
    auth.kind = AuthSpec::Kind::GoogleServiceAccount;
    auth.keyFile = path;
    const auto request = TokenRequest::forAuth(auth, QDateTime::currentDateTimeUtc());
    QVERIFY(!request.ok());
    QCOMPARE(request.error(),
        QStringLiteral("cannot use the service-account key file %1: the field \"private_key\" is missing").arg(path));
}

void TestOAuthEndpoints::reset_forgetsTokens()
{
    const AccessToken token = fetch(*TokenRequest::clientCredentials(clientAuth()));
    QCOMPARE(protectedWith(token.value).status, 200);
    m_server->reset();
    QCOMPARE(protectedWith(token.value).status, 401);
    // The clients stay, and can be replaced.
    QCOMPARE(m_server->oauthClients(), OAuthEndpoints::defaultClients());
    QVERIFY(m_server->setOAuthClients({{QStringLiteral("mine"), QStringLiteral("pw"), QString()}}).ok());
    AuthSpec auth = clientAuth();
    QCOMPARE(send(*TokenRequest::clientCredentials(auth)).status, 401);
    auth.clientId = QStringLiteral("mine");
    auth.clientSecret = QStringLiteral("pw");
    QCOMPARE(send(*TokenRequest::clientCredentials(auth)).status, 200);
    QVERIFY(!m_server->setOAuthClients({{QString(), QString(), QString()}}).ok());
}

QTEST_GUILESS_MAIN(TestOAuthEndpoints)
#include "tst_oauthendpoints.moc"
