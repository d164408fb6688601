#include "core/auth/authjson.h"
#include "core/util/jsonreader.h"

#include <QJsonDocument>
#include <QTest>

using namespace RetryLab::Core;

class TestAuthJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyKind_roundTripsWithSecrets_data();
    void everyKind_roundTripsWithSecrets();
    void secrets_areLeftOutUnlessAskedFor();
    void unknownType_namesTheKnownOnes();
    void fieldOfAnotherKind_isRefusedWithTheClosestName();
    void presignExpiry_outOfRange_isRefused();
    void problem_saysWhatIsMissing();
    void forEachText_reachesEveryTextField();

private:
    static Result<AuthSpec> parse(const QByteArray &json);
};

Result<AuthSpec> TestAuthJson::parse(const QByteArray &json)
{
    JsonReader reader(QJsonDocument::fromJson(json).object(), QStringLiteral("auth"));
    AuthSpec auth = AuthJson::read(reader);
    return reader.result(auth);
}

void TestAuthJson::everyKind_roundTripsWithSecrets_data()
{
    QTest::addColumn<AuthSpec>("auth");
    AuthSpec basic;
    basic.kind = AuthSpec::Kind::Basic;
    basic.username = QStringLiteral("ada");
    basic.password = QStringLiteral("s3cret");
    QTest::newRow("basic") << basic;
    AuthSpec digest = basic;
    digest.kind = AuthSpec::Kind::Digest;
    QTest::newRow("digest") << digest;
    AuthSpec bearer;
    bearer.kind = AuthSpec::Kind::Bearer;
    bearer.token = QStringLiteral("tok");
    QTest::newRow("bearer") << bearer;
    AuthSpec key;
    key.kind = AuthSpec::Kind::ApiKey;
    key.key = QStringLiteral("api_key");
    key.value = QStringLiteral("v");
    key.inQuery = true;
    QTest::newRow("apikey in query") << key;
    AuthSpec client;
    client.kind = AuthSpec::Kind::OAuth2ClientCredentials;
    client.tokenUrl = QStringLiteral("http://127.0.0.1:1/oauth/token");
    client.clientId = QStringLiteral("id");
    client.clientSecret = QStringLiteral("secret");
    client.scope = QStringLiteral("read write");
    client.audience = QStringLiteral("api");
    client.clientAuth = AuthSpec::ClientAuth::Body;
    QTest::newRow("client credentials") << client;
    AuthSpec refresh = client;
    refresh.kind = AuthSpec::Kind::OAuth2RefreshToken;
    refresh.audience.clear();
    refresh.refreshToken = QStringLiteral("r");
    QTest::newRow("refresh token") << refresh;
    AuthSpec code = client;
    code.kind = AuthSpec::Kind::OAuth2AuthorizationCode;
    code.audience.clear();
    code.authorizationUrl = QStringLiteral("http://127.0.0.1:1/oauth/authorize");
    QTest::newRow("authorization code") << code;
    AuthSpec aws;
    aws.kind = AuthSpec::Kind::AwsSigV4;
    aws.accessKeyId = QStringLiteral("AKIDEXAMPLE");
    aws.secretAccessKey = QStringLiteral("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    aws.sessionToken = QStringLiteral("session");
    aws.region = QStringLiteral("us-east-1");
    aws.service = QStringLiteral("s3");
    aws.presign = true;
    aws.expiresSeconds = 600;
    QTest::newRow("aws") << aws;
    AuthSpec google;
    google.kind = AuthSpec::Kind::GoogleServiceAccount;
    google.keyFile = QStringLiteral("/tmp/key.json");
    google.scope = QStringLiteral("https://www.googleapis.com/auth/devstorage.read_only");
    QTest::newRow("google") << google;
    AuthSpec none;
    none.kind = AuthSpec::Kind::None;
    QTest::newRow("none") << none;
    QTest::newRow("inherit") << AuthSpec{};
}

void TestAuthJson::everyKind_roundTripsWithSecrets()
{
    QFETCH(AuthSpec, auth);
    const QJsonObject json = AuthJson::toJson(auth, AuthJson::Secrets::Write);
    QCOMPARE(json.value(QStringLiteral("type")).toString(), AuthSpec::kindName(auth.kind));
    const Result<AuthSpec> back = parse(QJsonDocument(json).toJson());
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QCOMPARE(back.value(), auth);
}

void TestAuthJson::secrets_areLeftOutUnlessAskedFor()
{
    AuthSpec aws;
    aws.kind = AuthSpec::Kind::AwsSigV4;
    aws.accessKeyId = QStringLiteral("AKIDEXAMPLE");
    aws.secretAccessKey = QStringLiteral("very-secret");
    aws.sessionToken = QStringLiteral("session-secret");
    aws.region = QStringLiteral("eu-west-1");
    aws.service = QStringLiteral("sqs");
    const QByteArray written = QJsonDocument(AuthJson::toJson(aws)).toJson();
    QVERIFY(written.contains("AKIDEXAMPLE"));
    QVERIFY(!written.contains("very-secret"));
    QVERIFY(!written.contains("session-secret"));
    QCOMPARE(aws.secrets(), (QList<QString>{QStringLiteral("very-secret"), QStringLiteral("session-secret")}));
    QVERIFY(aws.withoutSecrets().secrets().isEmpty());
    QCOMPARE(aws.withoutSecrets().accessKeyId, aws.accessKeyId);
}

void TestAuthJson::unknownType_namesTheKnownOnes()
{
    const Result<AuthSpec> auth = parse(R"({"type": "ntlm"})");
    QVERIFY(!auth.ok());
    QVERIFY2(auth.error().contains(QLatin1String("unknown auth type \"ntlm\"")), qPrintable(auth.error()));
    QVERIFY(auth.error().contains(QLatin1String("aws-sigv4")));
    QVERIFY(auth.error().contains(QLatin1String("auth.type")));
    QVERIFY(!parse(R"({"username": "ada"})").ok());
}

void TestAuthJson::fieldOfAnotherKind_isRefusedWithTheClosestName()
{
    const Result<AuthSpec> auth = parse(R"({"type": "oauth2-client-credentials", "tokenURL": "x", "clientId": "i"})");
    QVERIFY(!auth.ok());
    QVERIFY2(auth.error().contains(QLatin1String("tokenUrl")), qPrintable(auth.error()));
    // A Bearer auth has no username: a file that says one is wrong, not ignored.
    QVERIFY(!parse(R"({"type": "bearer", "token": "t", "username": "u"})").ok());
    QVERIFY(!parse(R"({"type": "apikey", "key": "k", "in": "cookie"})").ok());
    QVERIFY(!parse(R"({"type": "basic", "username": 42})").ok());
}

void TestAuthJson::presignExpiry_outOfRange_isRefused()
{
    QVERIFY(parse(R"({"type": "aws-sigv4", "presign": true, "expires": 604800})").ok());
    QVERIFY(!parse(R"({"type": "aws-sigv4", "presign": true, "expires": 604801})").ok());
    QVERIFY(!parse(R"({"type": "aws-sigv4", "presign": true, "expires": 0})").ok());
    QVERIFY(!parse(R"({"type": "aws-sigv4", "presign": true, "expires": -5})").ok());
}

void TestAuthJson::problem_saysWhatIsMissing()
{
    AuthSpec aws;
    aws.kind = AuthSpec::Kind::AwsSigV4;
    aws.accessKeyId = QStringLiteral("AKID");
    QCOMPARE(AuthJson::problem(aws), QStringLiteral("the AWS secret access key is empty"));
    aws.secretAccessKey = QStringLiteral("s");
    aws.region = QStringLiteral("us-east-1");
    aws.service = QStringLiteral("s3");
    QVERIFY(AuthJson::problem(aws).isEmpty());
    AuthSpec refresh;
    refresh.kind = AuthSpec::Kind::OAuth2RefreshToken;
    refresh.tokenUrl = QStringLiteral("http://127.0.0.1:9/oauth/token");
    QCOMPARE(AuthJson::problem(refresh), QStringLiteral("the OAuth 2.0 refresh token is empty"));
    QVERIFY(AuthJson::problem(AuthSpec{}).isEmpty());
}

void TestAuthJson::forEachText_reachesEveryTextField()
{
    AuthSpec auth;
    int count = 0;
    auth.forEachText([&count](QString &text) {
        text = QStringLiteral("{{v%1}}").arg(count);
        ++count;
    });
    QCOMPARE(count, 18);
    QCOMPARE(auth.username, QStringLiteral("{{v0}}"));
    QCOMPARE(auth.keyFile, QStringLiteral("{{v17}}"));
    QVERIFY(!auth.region.isEmpty() && !auth.audience.isEmpty() && !auth.authorizationUrl.isEmpty());
}

QTEST_GUILESS_MAIN(TestAuthJson)
#include "tst_authjson.moc"
