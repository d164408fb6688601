#include "core/auth/accesstoken.h"
#include "core/auth/authorizationrequest.h"
#include "core/auth/rsakey.h"
#include "core/auth/serviceaccountkey.h"
#include "core/auth/tokenrequest.h"
#include "core/auth/tokenresponse.h"
#include "core/http/formurlencoded.h"
#include "core/util/clock.h"
#include "core/util/englishplurals.h"

#include <QFile>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

using namespace RetryLab::Core;

/// OAuth 2.0 as values: the token requests of each kind (RFC 6749 4, RFC 7523),
/// the token endpoint's answers read into tokens or plain sentences, a cached
/// token's expiry on an injected clock, and PKCE's authorization request and
/// redirect (RFC 7636). No network: tst_oauthendpoints sends them.
class TestOAuthToken final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { EnglishPlurals::install(); }
    void clientCredentials_basicHeader_formEncodesIdAndSecret();
    void clientCredentials_inBody_andScopeAudience();
    void publicClient_sendsItsIdInTheBody();
    void refresh_usesTheGivenRefreshToken();
    void authorizationCode_sendsVerifierAndRedirect();
    void serviceAccount_forAuth_readsTheKeyFile();
    void badSpecs_sayWhatIsMissing_data();
    void badSpecs_sayWhatIsMissing();
    void response_success_isRead();
    void response_expiresInAsString_isRead();
    void response_errors_becomeSentences_data();
    void response_errors_becomeSentences();
    void accessToken_expiresSoon_onTheInjectedClock();
    void pkce_rfc7636Vector();
    void pkce_verifier_lengthAndAlphabet();
    void authorizationRequest_urlHasEverything();
    void redirect_codeStateAndErrors_data();
    void redirect_codeStateAndErrors();

private:
    static AuthSpec clientCredentials();
};

AuthSpec TestOAuthToken::clientCredentials()
{
    AuthSpec auth;
    auth.kind = AuthSpec::Kind::OAuth2ClientCredentials;
    auth.tokenUrl = QStringLiteral("https://auth.example.org/oauth/token");
    auth.clientId = QStringLiteral("retry lab");
    auth.clientSecret = QStringLiteral("s3:cr&t+");
    return auth;
}

void TestOAuthToken::clientCredentials_basicHeader_formEncodesIdAndSecret()
{
    const auto request = TokenRequest::forAuth(clientCredentials(), QDateTime());
    QVERIFY2(request.ok(), qPrintable(request.error()));
    QCOMPARE(request->method, QByteArray("POST"));
    QCOMPARE(request->url, QUrl(QStringLiteral("https://auth.example.org/oauth/token")));
    QCOMPARE(request->grantType, QStringLiteral("client_credentials"));
    QCOMPARE(request->header("content-type"), QByteArray("application/x-www-form-urlencoded"));
    QCOMPARE(request->header("Accept"), QByteArray("application/json"));
    // RFC 6749 2.3.1: each form-encoded, then id:secret in base64.
    QCOMPARE(
        request->header("Authorization"), QByteArray("Basic " + QByteArray("retry+lab:s3%3Acr%26t%2B").toBase64()));
    QCOMPARE(request->body, QByteArray("grant_type=client_credentials"));
}

void TestOAuthToken::clientCredentials_inBody_andScopeAudience()
{
    AuthSpec auth = clientCredentials();
    auth.clientAuth = AuthSpec::ClientAuth::Body;
    auth.scope = QStringLiteral("read  write");
    auth.audience = QStringLiteral("https://api.example.org/");
    const auto request = TokenRequest::clientCredentials(auth);
    QVERIFY(request.ok());
    QVERIFY(!request->header("Authorization"));
    QCOMPARE(request->body,
        QByteArray("grant_type=client_credentials&scope=read+write&audience=https%3A%2F%2Fapi.example.org%2F"
                   "&client_id=retry+lab&client_secret=s3%3Acr%26t%2B"));
    const auto form = FormUrlEncoded::decode(request->body);
    QCOMPARE(FormUrlEncoded::value(form, QStringLiteral("client_secret")), QStringLiteral("s3:cr&t+"));
}

void TestOAuthToken::publicClient_sendsItsIdInTheBody()
{
    AuthSpec auth = clientCredentials();
    auth.clientSecret.clear();
    const auto request = TokenRequest::clientCredentials(auth);
    QVERIFY(request.ok());
    QVERIFY(!request->header("Authorization"));
    QCOMPARE(request->body, QByteArray("grant_type=client_credentials&client_id=retry+lab"));
}

void TestOAuthToken::refresh_usesTheGivenRefreshToken()
{
    AuthSpec auth = clientCredentials();
    auth.kind = AuthSpec::Kind::OAuth2RefreshToken;
    auth.refreshToken = QStringLiteral("rt/1");
    auto request = TokenRequest::forAuth(auth, QDateTime());
    QVERIFY(request.ok());
    QCOMPARE(request->grantType, QStringLiteral("refresh_token"));
    QCOMPARE(request->body, QByteArray("grant_type=refresh_token&refresh_token=rt%2F1"));
    QVERIFY(request->header("Authorization"));
    // A refresh token that a token response gave, for any kind.
    request = TokenRequest::refresh(clientCredentials(), QStringLiteral("rt-2"));
    QVERIFY(request.ok());
    QCOMPARE(request->body, QByteArray("grant_type=refresh_token&refresh_token=rt-2"));
}

void TestOAuthToken::authorizationCode_sendsVerifierAndRedirect()
{
    AuthSpec auth = clientCredentials();
    auth.kind = AuthSpec::Kind::OAuth2AuthorizationCode;
    QVERIFY(!TokenRequest::forAuth(auth, QDateTime()).ok()); // needs the code first
    const auto request = TokenRequest::authorizationCode(
        auth, QStringLiteral("c0de"), QStringLiteral("v-e_r.i~fier"), QStringLiteral("http://127.0.0.1:5000/cb"));
    QVERIFY(request.ok());
    QCOMPARE(request->grantType, QStringLiteral("authorization_code"));
    QCOMPARE(request->body,
        QByteArray("grant_type=authorization_code&code=c0de&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcb"
                   "&code_verifier=v-e_r.i%7Efier"));
}

void TestOAuthToken::serviceAccount_forAuth_readsTheKeyFile()
{
    QTemporaryDir dir;
    const auto rsa = RsaKey::generate();
    QVERIFY(rsa.ok());
    const ServiceAccountKey created = ServiceAccountKey::create(*rsa, QStringLiteral("sa@p.iam.gserviceaccount.com"),
        QStringLiteral("kid"), QStringLiteral("http://127.0.0.1:1/oauth/token"), QStringLiteral("p"));
    QFile file(dir.filePath(QStringLiteral("key.json")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(created.toJson()).toJson());
    file.close();
    AuthSpec auth;
    auth.kind = AuthSpec::Kind::GoogleServiceAccount;
    auth.keyFile = file.fileName();
    auth.scope = QStringLiteral("https://www.googleapis.com/auth/devstorage.read_only");
    const QDateTime now(QDate(2026, 1, 2), QTime(3, 4, 5), Qt::UTC);
    const auto request = TokenRequest::forAuth(auth, now);
    QVERIFY2(request.ok(), qPrintable(request.error()));
    QCOMPARE(request->url, QUrl(QStringLiteral("http://127.0.0.1:1/oauth/token")));
    QCOMPARE(request->grantType, ServiceAccountKey::grantType());
    QVERIFY(!request->header("Authorization"));
    QCOMPARE(request->body, *created.tokenRequestBody(auth.scope, now));

    auth.keyFile = dir.filePath(QStringLiteral("missing.json"));
    const auto missing = TokenRequest::forAuth(auth, now);
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().contains(auth.keyFile), qPrintable(missing.error()));
}

void TestOAuthToken::badSpecs_sayWhatIsMissing_data()
{
    QTest::addColumn<AuthSpec>("auth");
    QTest::addColumn<QString>("expected");
    AuthSpec noUrl = clientCredentials();
    noUrl.tokenUrl.clear();
    QTest::addRow("no token URL") << noUrl << QStringLiteral("tokenUrl: the token URL is empty");
    AuthSpec ftp = clientCredentials();
    ftp.tokenUrl = QStringLiteral("ftp://auth.example.org/token");
    QTest::addRow("not http") << ftp << QStringLiteral("tokenUrl: the token URL is not an http or https URL");
    AuthSpec noClient = clientCredentials();
    noClient.clientId = QStringLiteral("  ");
    QTest::addRow("no client id") << noClient << QStringLiteral("clientId: the client ID is empty");
    AuthSpec noRefresh = clientCredentials();
    noRefresh.kind = AuthSpec::Kind::OAuth2RefreshToken;
    QTest::addRow("no refresh token") << noRefresh << QStringLiteral("refreshToken: the refresh token is empty");
    AuthSpec noKey;
    noKey.kind = AuthSpec::Kind::GoogleServiceAccount;
    QTest::addRow("no key file") << noKey << QStringLiteral("keyFile: no service-account key file is given");
    AuthSpec basic;
    basic.kind = AuthSpec::Kind::Basic;
    QTest::addRow("basic") << basic << QStringLiteral("Basic fetches no token");
}

void TestOAuthToken::badSpecs_sayWhatIsMissing()
{
    QFETCH(AuthSpec, auth);
    QFETCH(QString, expected);
    const auto request = TokenRequest::forAuth(auth, QDateTime::currentDateTimeUtc());
    QVERIFY(!request.ok());
    QCOMPARE(request.error(), expected);
}

void TestOAuthToken::response_success_isRead()
{
    const auto response = TokenResponse::parse(
        200, R"({"access_token":"at-1","token_type":"bearer","expires_in":3599,"refresh_token":"rt-1","scope":"a b"})");
    QVERIFY2(response.ok(), qPrintable(response.error()));
    QCOMPARE(response->accessToken, QStringLiteral("at-1"));
    QCOMPARE(response->tokenType, QStringLiteral("bearer"));
    QCOMPARE(response->expiresInSeconds, 3599);
    QCOMPARE(response->refreshToken, QStringLiteral("rt-1"));
    QCOMPARE(response->scope, QStringLiteral("a b"));

    const auto minimal = TokenResponse::parse(200, R"({"access_token":"x"})");
    QVERIFY(minimal.ok());
    QCOMPARE(minimal->tokenType, QStringLiteral("Bearer"));
    QVERIFY(!minimal->expiresInSeconds);
}

void TestOAuthToken::response_expiresInAsString_isRead()
{
    const auto response
        = TokenResponse::parse(200, R"({"access_token":"x","token_type":"Bearer","expires_in":"3600"})");
    QVERIFY(response.ok());
    QCOMPARE(response->expiresInSeconds, 3600);
}

void TestOAuthToken::response_errors_becomeSentences_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected");
    QTest::addRow("invalid_client")
        << 401 << QByteArray(R"({"error":"invalid_client","error_description":"Client authentication failed"})")
        << QStringLiteral("invalid_client")
        << QStringLiteral("the token endpoint refused the request with 401, invalid_client: the client ID or secret "
                          "was not accepted (the server says: Client authentication failed)");
    QTest::addRow("invalid_grant without description")
        << 400 << QByteArray(R"({"error":"invalid_grant"})") << QStringLiteral("invalid_grant")
        << QStringLiteral("the token endpoint refused the request with 400, invalid_grant: the grant (a refresh "
                          "token, an authorization code or an assertion) is invalid, expired or revoked");
    QTest::addRow("control characters in the description")
        << 400 << QByteArray("{\"error\":\"invalid_scope\",\"error_description\":\"bad\\n\\u001b[31mscope\"}")
        << QStringLiteral("invalid_scope")
        << QStringLiteral("the token endpoint refused the request with 400, invalid_scope: the scope asked for is "
                          "invalid or more than the client may have (the server says: bad [31mscope)");
    QTest::addRow("HTML 503") << 503 << QByteArray("<html>down</html>") << QString()
                              << QStringLiteral(
                                     "the token endpoint answered 503 without an OAuth 2.0 error (17 bytes of body)");
    QTest::addRow("200 garbage") << 200 << QByteArray("access_token=secret") << QString()
                                 << QStringLiteral("the token endpoint's answer is not a JSON object (19 bytes)");
    QTest::addRow("200 without access_token") << 200 << QByteArray(R"({"token_type":"Bearer"})") << QString()
                                              << QStringLiteral("the token endpoint's answer has no \"access_token\"");
    QTest::addRow("negative expires_in") << 200 << QByteArray(R"({"access_token":"x","expires_in":-5})") << QString()
                                         << QStringLiteral(
                                                "the token endpoint's \"expires_in\" is not a number of seconds");
}

void TestOAuthToken::response_errors_becomeSentences()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(QString, path);
    QFETCH(QString, expected);
    const auto response = TokenResponse::parse(status, body);
    QVERIFY(!response.ok());
    QCOMPARE(response.errorDetail().path, path);
    QCOMPARE(response.errorDetail().message, expected);
    // The body is never quoted: it may hold a token.
    QVERIFY(!response.error().contains(QLatin1String("access_token=")));
    const auto error = OAuthError::fromJson(body);
    QCOMPARE(error.has_value(), !path.isEmpty());
    if (error)
        QVERIFY(!error->isTransient());
    OAuthError transient;
    transient.code = QStringLiteral("temporarily_unavailable");
    QVERIFY(transient.isTransient());
}

void TestOAuthToken::accessToken_expiresSoon_onTheInjectedClock()
{
    ManualClock clock(QDateTime(QDate(2026, 5, 1), QTime(10, 0), Qt::UTC));
    clock.advanceMs(5'000);
    TokenResponse response;
    response.accessToken = QStringLiteral("at");
    response.tokenType = QStringLiteral("bearer");
    response.expiresInSeconds = 300;
    response.refreshToken = QStringLiteral("rt");
    const AccessToken token = AccessToken::fromResponse(response, clock);
    QVERIFY(token.hasExpiry());
    QCOMPARE(*token.expiresAtNs, 305'000'000'000LL);
    QCOMPARE(token.expiresAt, QDateTime(QDate(2026, 5, 1), QTime(10, 5, 5), Qt::UTC));
    QCOMPARE(token.authorizationValue(), QByteArray("Bearer at"));
    QCOMPARE(token.refreshToken, QStringLiteral("rt"));

    QVERIFY(!token.expiresSoon(clock.nowNs()));
    clock.advanceMs(239'000); // 61 s left
    QVERIFY(!token.expiresSoon(clock.nowNs()));
    clock.advanceMs(1'000); // 60 s left: within the default margin
    QVERIFY(token.expiresSoon(clock.nowNs()));
    QVERIFY(!token.isExpired(clock.nowNs()));
    QVERIFY(!token.expiresSoon(clock.nowNs(), 10'000'000'000));
    clock.advanceMs(60'000);
    QVERIFY(token.isExpired(clock.nowNs()));

    response.expiresInSeconds.reset();
    const AccessToken forever = AccessToken::fromResponse(response, clock);
    QVERIFY(!forever.hasExpiry());
    QVERIFY(forever.expiresAt.isNull());
    QVERIFY(!forever.expiresSoon(std::numeric_limits<qint64>::max() / 2));
    response.tokenType = QStringLiteral("DPoP");
    QCOMPARE(AccessToken::fromResponse(response, clock).authorizationValue(), QByteArray("DPoP at"));
}

void TestOAuthToken::pkce_rfc7636Vector()
{
    // RFC 7636, appendix B.
    QCOMPARE(AuthorizationRequest::s256Challenge(QStringLiteral("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")),
        QStringLiteral("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
}

void TestOAuthToken::pkce_verifier_lengthAndAlphabet()
{
    QRandomGenerator random(42);
    for (const int length : {1, 43, 64, 128, 500}) {
        const QString verifier = AuthorizationRequest::newCodeVerifier(length, &random);
        QCOMPARE(verifier.size(), std::clamp(length, 43, 128));
        QVERIFY2(AuthorizationRequest::isValidCodeVerifier(verifier), qPrintable(verifier));
    }
    QVERIFY(AuthorizationRequest::newCodeVerifier() != AuthorizationRequest::newCodeVerifier());
    QVERIFY(!AuthorizationRequest::isValidCodeVerifier(QString(42, QLatin1Char('a'))));
    QVERIFY(!AuthorizationRequest::isValidCodeVerifier(QString(43, QLatin1Char('a')) + QLatin1Char('+')));
}

void TestOAuthToken::authorizationRequest_urlHasEverything()
{
    AuthSpec auth = clientCredentials();
    auth.kind = AuthSpec::Kind::OAuth2AuthorizationCode;
    auth.authorizationUrl = QStringLiteral("https://auth.example.org/authorize?audience=api");
    auth.scope = QStringLiteral("openid profile");
    QRandomGenerator random(7);
    const auto request = AuthorizationRequest::make(auth, QStringLiteral("http://127.0.0.1:4242/callback"), &random);
    QVERIFY2(request.ok(), qPrintable(request.error()));
    QCOMPARE(request->codeChallenge, AuthorizationRequest::s256Challenge(request->codeVerifier));
    QVERIFY(AuthorizationRequest::isValidCodeVerifier(request->codeVerifier));
    QCOMPARE(request->url.host(), QStringLiteral("auth.example.org"));
    const QUrlQuery query(request->url);
    QCOMPARE(query.queryItemValue(QStringLiteral("audience")), QStringLiteral("api"));
    QCOMPARE(query.queryItemValue(QStringLiteral("response_type")), QStringLiteral("code"));
    QCOMPARE(query.queryItemValue(QStringLiteral("client_id"), QUrl::FullyDecoded), QStringLiteral("retry lab"));
    QCOMPARE(query.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded),
        QStringLiteral("http://127.0.0.1:4242/callback"));
    QCOMPARE(query.queryItemValue(QStringLiteral("scope"), QUrl::FullyDecoded), QStringLiteral("openid profile"));
    QCOMPARE(query.queryItemValue(QStringLiteral("state")), request->state);
    QCOMPARE(query.queryItemValue(QStringLiteral("code_challenge")), request->codeChallenge);
    QCOMPARE(query.queryItemValue(QStringLiteral("code_challenge_method")), QStringLiteral("S256"));
    QVERIFY(!request->url.toString().contains(request->codeVerifier));

    auth.authorizationUrl.clear();
    QCOMPARE(AuthorizationRequest::make(auth, QStringLiteral("http://127.0.0.1:1/")).error(),
        QStringLiteral("authorizationUrl: the authorization URL is empty"));
}

void TestOAuthToken::redirect_codeStateAndErrors_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("error");
    QTest::addRow("code") << QStringLiteral("code=abc%2Fd&state=STATE") << QStringLiteral("abc/d") << QString();
    QTest::addRow("another state") << QStringLiteral("code=abc&state=OTHER") << QString()
                                   << QStringLiteral("the redirect's state is not the one this request sent: it "
                                                     "answers another request, or was forged");
    QTest::addRow("no state") << QStringLiteral("code=abc") << QString()
                              << QStringLiteral("the redirect carries no state, so it cannot be told apart from a "
                                                "forged one");
    QTest::addRow("access_denied")
        << QStringLiteral("error=access_denied&error_description=The+user+said+no&state=STATE") << QString()
        << QStringLiteral("access_denied: the authorization server refused: access_denied: the user or the server "
                          "denied the request (the server says: The user said no)");
    QTest::addRow("no code") << QStringLiteral("state=STATE") << QString()
                             << QStringLiteral("the redirect carries no authorization code");
}

void TestOAuthToken::redirect_codeStateAndErrors()
{
    QFETCH(QString, query);
    QFETCH(QString, code);
    QFETCH(QString, error);
    AuthorizationRequest request;
    request.state = QStringLiteral("STATE");
    const auto result = request.codeFromRedirect(QUrl(QStringLiteral("http://127.0.0.1:4242/callback?") + query));
    QCOMPARE(result.error(), error);
    if (error.isEmpty())
        QCOMPARE(*result, code);
}

QTEST_GUILESS_MAIN(TestOAuthToken)
#include "tst_oauthtoken.moc"
