// A request's auth through the executor, against real servers on 127.0.0.1:
// Digest answered within the attempt (Debian's Apache with mod_auth_digest,
// and digest_verifier.py for SHA-256), AWS Signature Version 4 made afresh for
// every attempt and checked by botocore (sigv4_verifier.py), and the static
// kinds against the project's fault server, which echoes what it got.

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/util/clock.h"

#include "../../tools/requiredtool.h"
#include "../auth/authservers.h"
#include "executorcollector.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;
using namespace RetryLab::Core::Testing;

namespace {

AuthSpec digestAuth(const QString &password)
{
    AuthSpec auth;
    auth.kind = AuthSpec::Kind::Digest;
    auth.username = QStringLiteral("ada");
    auth.password = password;
    return auth;
}

AuthSpec awsAuth(const QString &secret)
{
    AuthSpec auth;
    auth.kind = AuthSpec::Kind::AwsSigV4;
    auth.accessKeyId = QStringLiteral("AKIDEXAMPLE");
    auth.secretAccessKey = secret;
    auth.region = QStringLiteral("us-east-1");
    auth.service = QStringLiteral("execute-api");
    return auth;
}

const QString awsSecret = QStringLiteral("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");

AuthSpec clientCredentials(const FaultServer &server, const QString &secret = QStringLiteral("retrylab-secret"))
{
    AuthSpec auth;
    auth.kind = AuthSpec::Kind::OAuth2ClientCredentials;
    auth.tokenUrl = server.baseUrl().toString() + QStringLiteral("/oauth/token");
    auth.clientId = QStringLiteral("retrylab");
    auth.clientSecret = secret;
    return auth;
}

RequestSpec protectedRequest(const FaultServer &server)
{
    return getSpec(QUrl(server.baseUrl().toString() + QStringLiteral("/oauth/protected")));
}

// The attempt's hops that fetched a token.
qsizetype tokenHops(const AttemptRecord &attempt)
{
    return std::count_if(attempt.redirects.cbegin(), attempt.redirects.cend(),
        [](const RedirectHop &hop) { return hop.kind == RedirectHop::Kind::Token; });
}

} // namespace

class TestExecutorAuth : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void basicBearerAndApiKey_reachTheServer();
    void digest_apacheAcceptsTheAnswerWithinOneAttempt();
    void digest_wrongPassword_isRefusedAndNotRetried();
    void digest_sha256IsChosenOverMd5ForAPost();
    void digest_unknownAlgorithm_saysWhich();
    void sigV4_headersSignedForEveryAttempt();
    void sigV4_presignedUrlAccepted_wrongSecretRefusedPlainly();
    void sigV4_unusableRegion_isRefusedBeforeAnyAttempt();
    void oauth_clientCredentials_tokenFetchedFirstThenCached();
    void oauth_batch_sharesOneTokenRequest();
    void oauth_rejectedToken_isRefreshedOnceAndTheRequestSentAgain();
    void oauth_refreshTokenGrant_andClientSecretInTheBody();
    void oauth_wrongSecret_isSaidPlainlyAndNotRetried();
    void oauth_tokenEndpointDown_isRetriedUnderThePolicyThenSaid();
    void oauth_googleServiceAccount_jwtExchangedForAToken();
    void oauth_malformedKeyFile_isRefusedBeforeAnyAttempt();

private:
    static bool needPython();
    bool startSigV4Verifier(QProcess &process, quint16 *port);
    static std::optional<RequestResult> run(RetryExecutor &executor, Collector &collector, const RequestSpec &spec);
};

bool TestExecutorAuth::needPython()
{
    return QFileInfo::exists(QStringLiteral("/usr/bin/python3"));
}

std::optional<RequestResult> TestExecutorAuth::run(
    RetryExecutor &executor, Collector &collector, const RequestSpec &spec)
{
    const quint64 id = executor.submit(spec);
    if (!QTest::qWaitFor([&] { return collector.resultOf(id).has_value(); }, 30'000))
        qWarning("request %llu did not finish in 30 s", id);
    return collector.resultOf(id);
}

void TestExecutorAuth::basicBearerAndApiKey_reachTheServer()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(2));
    Collector collector(&executor);

    RequestSpec spec = getSpec(QUrl(server.baseUrl().toString() + QStringLiteral("/status/200")));
    spec.auth.kind = AuthSpec::Kind::Basic;
    spec.auth.username = QStringLiteral("ada");
    spec.auth.password = QStringLiteral("lovelace");
    std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QCOMPARE(result->outcome, RequestOutcome::Succeeded);
    AttemptRecord attempt = collector.attemptsOf(result->requestId).constLast();
    QCOMPARE(headerValue(attempt.requestHeaders, "Authorization").value_or(QByteArray()),
        QByteArray("Basic YWRhOmxvdmVsYWNl"));

    spec.auth = AuthSpec{};
    spec.auth.kind = AuthSpec::Kind::ApiKey;
    spec.auth.key = QStringLiteral("api_key");
    spec.auth.value = QStringLiteral("v a&l");
    spec.auth.inQuery = true;
    result = run(executor, collector, spec);
    QVERIFY(result);
    attempt = collector.attemptsOf(result->requestId).constLast();
    QCOMPARE(attempt.url.query(QUrl::FullyEncoded), QStringLiteral("api_key=v%20a%26l"));

    // A header the request sets itself wins over the auth's.
    spec.auth = AuthSpec{};
    spec.auth.kind = AuthSpec::Kind::Bearer;
    spec.auth.token = QStringLiteral("from-auth");
    spec.headers.append({QByteArrayLiteral("Authorization"), QByteArrayLiteral("Bearer from-header")});
    result = run(executor, collector, spec);
    QVERIFY(result);
    attempt = collector.attemptsOf(result->requestId).constLast();
    QCOMPARE(
        headerValue(attempt.requestHeaders, "Authorization").value_or(QByteArray()), QByteArray("Bearer from-header"));
}

void TestExecutorAuth::digest_apacheAcceptsTheAnswerWithinOneAttempt()
{
    const QString apache = RealServers::findProgram(QStringLiteral("apache2"));
    if (apache.isEmpty() || !QFileInfo::exists(QStringLiteral("/usr/lib/apache2/modules/mod_auth_digest.so")))
        RETRYLAB_MISSING_TOOL(
            RealServers::missingProgram(QStringLiteral("apache2"), QStringLiteral("apache2")).constData());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    AuthServers::ApacheDigest server;
    QString error;
    QVERIFY2(server.start(dir.path(), &error), qPrintable(error));

    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3));
    Collector collector(&executor);
    RequestSpec spec = getSpec(server.url("/private/index.html"));
    spec.auth = digestAuth(QStringLiteral("lovelace"));
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QCOMPARE(result->outcome, RequestOutcome::Succeeded);
    QCOMPARE(result->attempts, 1);
    const AttemptRecord attempt = collector.attemptsOf(result->requestId).constFirst();
    QCOMPARE(attempt.httpStatus, 200);
    QCOMPARE(attempt.redirects.size(), 1);
    QCOMPARE(attempt.redirects.constFirst().kind, RedirectHop::Kind::Challenge);
    QCOMPARE(attempt.redirects.constFirst().status, 401);
    QVERIFY(attempt.redirects.constFirst().finishedNs >= attempt.startNs);
    QVERIFY(headerValue(attempt.requestHeaders, "Authorization").value_or(QByteArray()).startsWith("Digest "));
    QVERIFY2(attempt.reason.contains(QLatin1String("challenge answered")), qPrintable(attempt.reason));
    // Apache saw the answer and took it.
    QTRY_COMPARE_WITH_TIMEOUT(server.authorizations(200).size(), 1, 10'000);
}

void TestExecutorAuth::digest_wrongPassword_isRefusedAndNotRetried()
{
    if (!needPython())
        RETRYLAB_MISSING_TOOL("python3 is missing: install the Debian package python3");
    AuthServers::DigestVerifier verifier;
    QVERIFY2(verifier.start(QStringLiteral("MD5"), QStringLiteral("auth")), qPrintable(verifier.errors()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(4));
    Collector collector(&executor);
    RequestSpec spec = getSpec(verifier.url("/private"));
    spec.auth = digestAuth(QStringLiteral("wrong"));
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QCOMPARE(result->outcome, RequestOutcome::GaveUp);
    QCOMPARE(result->attempts, 1);
    QCOMPARE(result->finalStatus, 401);
    QVERIFY2(result->reason.contains(QLatin1String("refused the Digest credentials of \"ada\"")),
        qPrintable(result->reason));
    QVERIFY(!result->reason.contains(QLatin1String("wrong")));
}

void TestExecutorAuth::digest_sha256IsChosenOverMd5ForAPost()
{
    if (!needPython())
        RETRYLAB_MISSING_TOOL("python3 is missing: install the Debian package python3");
    AuthServers::DigestVerifier verifier;
    QVERIFY2(verifier.start(QStringLiteral("SHA-256,MD5"), QStringLiteral("auth")), qPrintable(verifier.errors()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3));
    Collector collector(&executor);
    RequestSpec spec = getSpec(verifier.url("/private"));
    spec.method = "POST";
    spec.body = R"({"a": 1})";
    spec.idempotent = true;
    spec.auth = digestAuth(QStringLiteral("lovelace"));
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QCOMPARE(result->outcome, RequestOutcome::Succeeded);
    QList<QByteArray> verdicts;
    QTRY_VERIFY_WITH_TIMEOUT((verdicts += verifier.verdicts(), verdicts.contains("OK SHA-256 nc=00000001")), 10'000);
}

void TestExecutorAuth::digest_unknownAlgorithm_saysWhich()
{
    if (!needPython())
        RETRYLAB_MISSING_TOOL("python3 is missing: install the Debian package python3");
    AuthServers::DigestVerifier verifier;
    QVERIFY2(verifier.start(QStringLiteral("SHA-512-256"), QStringLiteral("auth")), qPrintable(verifier.errors()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3));
    Collector collector(&executor);
    RequestSpec spec = getSpec(verifier.url("/private"));
    spec.auth = digestAuth(QStringLiteral("lovelace"));
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QCOMPARE(result->outcome, RequestOutcome::GaveUp);
    QCOMPARE(result->attempts, 1);
    QVERIFY2(result->reason.contains(QLatin1String("SHA-512-256")), qPrintable(result->reason));
}

bool TestExecutorAuth::startSigV4Verifier(QProcess &process, quint16 *port)
{
    process.start(QStringLiteral("/usr/bin/python3"),
        {AuthServers::sourceFile("sigv4_verifier.py"), QStringLiteral("AKIDEXAMPLE"), awsSecret,
            QStringLiteral("now")});
    if (!process.waitForStarted(10'000))
        return false;
    while (!process.canReadLine()) {
        if (!process.waitForReadyRead(15'000))
            return false;
    }
    const QByteArray line = process.readLine().trimmed();
    *port = line.startsWith("PORT ") ? line.mid(5).toUShort() : 0;
    return *port != 0;
}

void TestExecutorAuth::sigV4_headersSignedForEveryAttempt()
{
    if (!needPython())
        RETRYLAB_MISSING_TOOL("python3 is missing: install the Debian package python3");
    QProcess verifier;
    quint16 port = 0;
    if (!startSigV4Verifier(verifier, &port)) {
        const QByteArray why = verifier.readAllStandardError();
        if (why.contains("botocore"))
            RETRYLAB_MISSING_TOOL("botocore is missing: install the Debian package python3-botocore");
        QFAIL(why.constData());
    }
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(2));
    Collector collector(&executor);
    RequestSpec spec = getSpec(QUrl(QStringLiteral("http://127.0.0.1:%1/prod/items?b=2&a=1&a=0").arg(port)));
    spec.method = "POST";
    spec.body = R"({"name": "widget"})";
    spec.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
    spec.auth = awsAuth(awsSecret);
    spec.auth.sessionToken = QStringLiteral("session/token+1");
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QVERIFY2(
        result->outcome == RequestOutcome::Succeeded, qPrintable(result->reason + QString::fromUtf8(result->body)));
    const AttemptRecord attempt = collector.attemptsOf(result->requestId).constFirst();
    QVERIFY(
        headerValue(attempt.requestHeaders, "Authorization").value_or(QByteArray()).startsWith("AWS4-HMAC-SHA256 "));
    QVERIFY(headerValue(attempt.requestHeaders, "X-Amz-Date"));
    QCOMPARE(headerValue(attempt.requestHeaders, "X-Amz-Security-Token").value_or(QByteArray()),
        QByteArray("session/token+1"));
    // The signature holds the attempt headers too: sent with them, and taken.
    QVERIFY(headerValue(attempt.requestHeaders, "X-Retry-Attempt"));

    // A wrong secret is a 403, said plainly and not retried.
    spec.auth = awsAuth(QStringLiteral("not-the-secret"));
    const std::optional<RequestResult> refused = run(executor, collector, spec);
    QVERIFY(refused);
    QCOMPARE(refused->outcome, RequestOutcome::GaveUp);
    QCOMPARE(refused->attempts, 1);
    QCOMPARE(refused->finalStatus, 403);
    QVERIFY2(refused->body.contains("the signature does not match"), refused->body.constData());
    verifier.kill();
    verifier.waitForFinished(5000);
}

void TestExecutorAuth::sigV4_presignedUrlAccepted_wrongSecretRefusedPlainly()
{
    if (!needPython())
        RETRYLAB_MISSING_TOOL("python3 is missing: install the Debian package python3");
    QProcess verifier;
    quint16 port = 0;
    if (!startSigV4Verifier(verifier, &port)) {
        const QByteArray why = verifier.readAllStandardError();
        if (why.contains("botocore"))
            RETRYLAB_MISSING_TOOL("botocore is missing: install the Debian package python3-botocore");
        QFAIL(why.constData());
    }
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(2));
    Collector collector(&executor);
    RequestSpec spec = getSpec(QUrl(QStringLiteral("http://127.0.0.1:%1/bucket/some%20key.txt?versionId=3").arg(port)));
    spec.auth = awsAuth(awsSecret);
    spec.auth.service = QStringLiteral("s3");
    spec.auth.presign = true;
    spec.auth.expiresSeconds = 300;
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QVERIFY2(
        result->outcome == RequestOutcome::Succeeded, qPrintable(result->reason + QString::fromUtf8(result->body)));
    const AttemptRecord attempt = collector.attemptsOf(result->requestId).constFirst();
    QVERIFY(attempt.url.query().contains(QLatin1String("X-Amz-Signature=")));
    QVERIFY(!headerValue(attempt.requestHeaders, "Authorization"));

    spec.auth.secretAccessKey = QStringLiteral("not-the-secret");
    const std::optional<RequestResult> refused = run(executor, collector, spec);
    QVERIFY(refused);
    QCOMPARE(refused->outcome, RequestOutcome::GaveUp);
    QCOMPARE(refused->attempts, 1);
    QCOMPARE(refused->finalStatus, 403);
    verifier.kill();
    verifier.waitForFinished(5000);
}

void TestExecutorAuth::sigV4_unusableRegion_isRefusedBeforeAnyAttempt()
{
    RetryExecutor executor;
    Collector collector(&executor);
    RequestSpec spec = getSpec(QUrl(QStringLiteral("http://127.0.0.1:9/")));
    spec.auth = awsAuth(awsSecret);
    spec.auth.region = QStringLiteral("us east 1");
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QCOMPARE(result->outcome, RequestOutcome::InvalidRequest);
    QCOMPARE(result->attempts, 0);
    QVERIFY2(result->reason.contains(QLatin1String("auth")), qPrintable(result->reason));
    QVERIFY(!result->reason.contains(awsSecret));
}

void TestExecutorAuth::oauth_clientCredentials_tokenFetchedFirstThenCached()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3));
    Collector collector(&executor);
    RequestSpec spec = protectedRequest(server);
    spec.auth = clientCredentials(server);
    const std::optional<RequestResult> first = run(executor, collector, spec);
    QVERIFY(first);
    QVERIFY2(first->outcome == RequestOutcome::Succeeded, qPrintable(first->reason));
    QCOMPARE(first->attempts, 1);
    const AttemptRecord attempt = collector.attemptsOf(first->requestId).constFirst();
    QCOMPARE(tokenHops(attempt), 1);
    const RedirectHop &hop = attempt.redirects.constFirst();
    QCOMPARE(hop.status, 200);
    QCOMPARE(hop.method, QByteArray("POST"));
    QVERIFY(hop.followed);
    QVERIFY(hop.startNs >= attempt.startNs && hop.finishedNs >= hop.startNs && attempt.endNs >= hop.finishedNs);
    QVERIFY(headerValue(attempt.requestHeaders, "Authorization").value_or(QByteArray()).startsWith("Bearer "));
    QVERIFY2(attempt.reason.contains(QLatin1String("access token from")), qPrintable(attempt.reason));

    // The next request takes the cached token: no token hop.
    const std::optional<RequestResult> second = run(executor, collector, spec);
    QVERIFY(second);
    QCOMPARE(second->outcome, RequestOutcome::Succeeded);
    QCOMPARE(tokenHops(collector.attemptsOf(second->requestId).constFirst()), 0);
}

void TestExecutorAuth::oauth_batch_sharesOneTokenRequest()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3));
    executor.setConcurrencyLimit(8);
    Collector collector(&executor);
    RequestSpec spec = protectedRequest(server);
    spec.auth = clientCredentials(server);
    QList<quint64> ids;
    for (int i = 0; i < 12; ++i)
        ids.append(executor.submit(spec));
    QTRY_COMPARE_WITH_TIMEOUT(collector.results.size(), 12, 30'000);
    for (const RequestResult &result : std::as_const(collector.results))
        QVERIFY2(result.outcome == RequestOutcome::Succeeded, qPrintable(result.reason));
    // One token request served the whole batch; the others waited for it.
    const QList<ServerLogEntry> log = server.log();
    const auto tokenRequests = std::count_if(log.cbegin(), log.cend(),
        [](const ServerLogEntry &entry) { return entry.target.startsWith(QLatin1String("/oauth/token")); });
    QCOMPARE(tokenRequests, 1);
    qsizetype withTokenHop = 0;
    for (const AttemptRecord &attempt : std::as_const(collector.attempts))
        withTokenHop += tokenHops(attempt);
    QCOMPARE(withTokenHop, 1);
}

void TestExecutorAuth::oauth_rejectedToken_isRefreshedOnceAndTheRequestSentAgain()
{
    // The server's clock runs on its own: it lets the token expire while the client still holds it.
    ManualClock serverClock(QDateTime::currentDateTimeUtc());
    FaultServer server;
    server.setClock(&serverClock);
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(1)); // no retries of its own: the refresh is not one
    Collector collector(&executor);
    RequestSpec spec = protectedRequest(server);
    spec.auth = clientCredentials(server);
    spec.auth.tokenUrl += QStringLiteral("?expires_in=600");
    const std::optional<RequestResult> first = run(executor, collector, spec);
    QVERIFY(first);
    QVERIFY2(first->outcome == RequestOutcome::Succeeded, qPrintable(first->reason));

    serverClock.advanceMs(601'000);
    const std::optional<RequestResult> second = run(executor, collector, spec);
    QVERIFY(second);
    QVERIFY2(second->outcome == RequestOutcome::Succeeded, qPrintable(second->reason));
    QCOMPARE(second->attempts, 2);
    const QList<AttemptRecord> attempts = collector.attemptsOf(second->requestId);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.at(0).httpStatus, 401);
    QCOMPARE(tokenHops(attempts.at(0)), 0); // the cached token
    QVERIFY2(
        attempts.at(0).reason.contains(QLatin1String("a fresh token is fetched")), qPrintable(attempts.at(0).reason));
    QCOMPARE(attempts.at(0).nextDelayMs, 0.0);
    QCOMPARE(attempts.at(1).httpStatus, 200);
    QCOMPARE(tokenHops(attempts.at(1)), 1); // the token request, a step of the retry
}

void TestExecutorAuth::oauth_refreshTokenGrant_andClientSecretInTheBody()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(2));
    Collector collector(&executor);
    RequestSpec spec = protectedRequest(server);
    spec.auth = clientCredentials(server);
    spec.auth.kind = AuthSpec::Kind::OAuth2RefreshToken;
    spec.auth.refreshToken = QStringLiteral("retrylab-refresh-token");
    spec.auth.clientAuth = AuthSpec::ClientAuth::Body;
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QVERIFY2(result->outcome == RequestOutcome::Succeeded, qPrintable(result->reason));
    QCOMPARE(tokenHops(collector.attemptsOf(result->requestId).constFirst()), 1);
}

void TestExecutorAuth::oauth_wrongSecret_isSaidPlainlyAndNotRetried()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(4));
    Collector collector(&executor);
    RequestSpec spec = protectedRequest(server);
    spec.auth = clientCredentials(server, QStringLiteral("not-the-secret"));
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QVERIFY2(result->outcome == RequestOutcome::GaveUp, qPrintable(result->reason));
    QCOMPARE(result->attempts, 1);
    QCOMPARE(result->finalStatus, 401);
    QVERIFY2(result->reason.contains(QLatin1String("invalid_client")), qPrintable(result->reason));
    QVERIFY(!result->reason.contains(QLatin1String("not-the-secret")));
    const AttemptRecord attempt = collector.attemptsOf(result->requestId).constFirst();
    QCOMPARE(tokenHops(attempt), 1);
    QVERIFY(!attempt.redirects.constFirst().followed);
}

void TestExecutorAuth::oauth_tokenEndpointDown_isRetriedUnderThePolicyThenSaid()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3, 5));
    Collector collector(&executor);
    RequestSpec spec = protectedRequest(server);
    spec.auth = clientCredentials(server);
    spec.auth.tokenUrl = QStringLiteral("http://127.0.0.1:%1/oauth/token").arg(RealServers::freePort());
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QCOMPARE(result->outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(result->attempts, 3);
    QVERIFY2(result->reason.contains(QLatin1String("the token request to")), qPrintable(result->reason));
    // The token endpoint answering 503 is retried the same way, and then succeeds.
    spec.auth.tokenUrl = server.baseUrl().toString() + QStringLiteral("/status/503");
    const std::optional<RequestResult> unavailable = run(executor, collector, spec);
    QVERIFY(unavailable);
    QCOMPARE(unavailable->attempts, 3);
    QCOMPARE(unavailable->finalStatus, 503);
    QVERIFY2(
        unavailable->reason.contains(QLatin1String("token endpoint answered 503")), qPrintable(unavailable->reason));
}

void TestExecutorAuth::oauth_googleServiceAccount_jwtExchangedForAToken()
{
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    const Result<QByteArray> keyFile = server.serviceAccountKeyFile();
    QVERIFY2(keyFile, qPrintable(keyFile.error()));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("key.json"));
    RealServers::writeText(path, QString::fromUtf8(*keyFile));
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(2));
    Collector collector(&executor);
    RequestSpec spec = protectedRequest(server);
    spec.auth.kind = AuthSpec::Kind::GoogleServiceAccount;
    spec.auth.keyFile = path;
    spec.auth.scope = QStringLiteral("https://www.googleapis.com/auth/devstorage.read_only");
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QVERIFY2(result->outcome == RequestOutcome::Succeeded, qPrintable(result->reason));
    QCOMPARE(tokenHops(collector.attemptsOf(result->requestId).constFirst()), 1);
}

void TestExecutorAuth::oauth_malformedKeyFile_isRefusedBeforeAnyAttempt()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("key.json"));
    RealServers::writeText(path, QStringLiteral("{\"type\": \"service_account\", \"private_key\": \"not a key\"}"));
    RetryExecutor executor;
    Collector collector(&executor);
    RequestSpec spec = getSpec(QUrl(QStringLiteral("http://127.0.0.1:9/")));
    spec.auth.kind = AuthSpec::Kind::GoogleServiceAccount;
    spec.auth.keyFile = path;
    const std::optional<RequestResult> result = run(executor, collector, spec);
    QVERIFY(result);
    QCOMPARE(result->outcome, RequestOutcome::InvalidRequest);
    QVERIFY2(result->reason.contains(QLatin1String("key.json")), qPrintable(result->reason));
}

QTEST_GUILESS_MAIN(TestExecutorAuth)
#include "tst_executorauth.moc"
