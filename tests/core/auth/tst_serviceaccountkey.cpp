#include "core/auth/jwt.h"
#include "core/auth/rsakey.h"
#include "core/auth/serviceaccountkey.h"
#include "core/http/formurlencoded.h"
#include "tests/tools/requiredtool.h"

#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

/// Google service-account key files: read, checked field by field (errors name
/// the file and the field, never the key), and the JWT bearer assertion they
/// sign at an injected time, checked by PyJWT.
class TestServiceAccountKey final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void read_keyFile_givesItsFields();
    void assertion_claimsAndHeader_atTheInjectedTime();
    void tokenRequestBody_isTheJwtBearerForm();
    void assertion_decodedByPyJwt();
    void malformedFiles_nameFileAndField_data();
    void malformedFiles_nameFileAndField();
    void missingAndOversizedFiles_areRefused();

private:
    QString write(const QString &name, const QByteArray &bytes);
    QJsonObject validJson() const;

    QTemporaryDir m_dir;
    RsaKey m_rsa;
};

void TestServiceAccountKey::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const auto rsa = RsaKey::generate();
    QVERIFY(rsa.ok());
    m_rsa = *rsa;
}

QString TestServiceAccountKey::write(const QString &name, const QByteArray &bytes)
{
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(bytes);
    return path;
}

QJsonObject TestServiceAccountKey::validJson() const
{
    ServiceAccountKey key = ServiceAccountKey::create(m_rsa, QStringLiteral("tester@project-1.iam.gserviceaccount.com"),
        QStringLiteral("0123abcd"), QStringLiteral("https://oauth2.googleapis.com/token"), QStringLiteral("project-1"));
    return key.toJson();
}

void TestServiceAccountKey::read_keyFile_givesItsFields()
{
    const QString path = write(QStringLiteral("key.json"), QJsonDocument(validJson()).toJson());
    const auto key = ServiceAccountKey::read(path);
    QVERIFY2(key.ok(), qPrintable(key.error()));
    QCOMPARE(key->clientEmail(), QStringLiteral("tester@project-1.iam.gserviceaccount.com"));
    QCOMPARE(key->privateKeyId(), QStringLiteral("0123abcd"));
    QCOMPARE(key->tokenUri(), QStringLiteral("https://oauth2.googleapis.com/token"));
    QCOMPARE(key->projectId(), QStringLiteral("project-1"));
    QCOMPARE(key->signer().keyId(), QStringLiteral("0123abcd"));
    QCOMPARE(key->signer().key().publicKeyPem(), m_rsa.publicKeyPem());
    // Written back, it is Google's form.
    const QJsonObject json = key->toJson();
    for (const char *field : {"type", "project_id", "private_key_id", "private_key", "client_email", "client_id",
             "auth_uri", "token_uri", "auth_provider_x509_cert_url", "client_x509_cert_url"})
        QVERIFY2(json.contains(QLatin1String(field)), field);
    QVERIFY(
        json.value(QLatin1String("private_key")).toString().startsWith(QLatin1String("-----BEGIN PRIVATE KEY-----\n")));
}

void TestServiceAccountKey::assertion_claimsAndHeader_atTheInjectedTime()
{
    const auto key = ServiceAccountKey::fromJson(QJsonDocument(validJson()).toJson(), QStringLiteral("key.json"));
    QVERIFY(key.ok());
    const QDateTime now(QDate(2026, 3, 1), QTime(12, 0, 30), Qt::UTC);
    const auto token = key->assertion(QStringLiteral("https://www.googleapis.com/auth/cloud-platform  \n openid"), now);
    QVERIFY2(token.ok(), qPrintable(token.error()));
    const auto jwt = Jwt::decode(*token);
    QVERIFY(jwt.ok());
    QCOMPARE(jwt->header.value(QLatin1String("alg")).toString(), QStringLiteral("RS256"));
    QCOMPARE(jwt->header.value(QLatin1String("kid")).toString(), QStringLiteral("0123abcd"));
    QCOMPARE(jwt->claims.value(QLatin1String("iss")).toString(), key->clientEmail());
    QCOMPARE(jwt->claims.value(QLatin1String("aud")).toString(), QStringLiteral("https://oauth2.googleapis.com/token"));
    QCOMPARE(jwt->claims.value(QLatin1String("scope")).toString(),
        QStringLiteral("https://www.googleapis.com/auth/cloud-platform openid"));
    QCOMPARE(jwt->claims.value(QLatin1String("iat")).toInteger(), now.toSecsSinceEpoch());
    QCOMPARE(jwt->claims.value(QLatin1String("exp")).toInteger(), now.toSecsSinceEpoch() + 3600);
    QVERIFY(jwt->verifyRs256(m_rsa.publicKey()).ok());
    // Without a scope there is no scope claim.
    QVERIFY(!key->assertionClaims(QString(), now).contains(QLatin1String("scope")));
}

void TestServiceAccountKey::tokenRequestBody_isTheJwtBearerForm()
{
    const auto key = ServiceAccountKey::fromJson(QJsonDocument(validJson()).toJson(), QStringLiteral("key.json"));
    QVERIFY(key.ok());
    const QDateTime now(QDate(2026, 3, 1), QTime(12, 0), Qt::UTC);
    const auto body = key->tokenRequestBody(QStringLiteral("scope-a"), now);
    QVERIFY(body.ok());
    QVERIFY2(body->startsWith("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=ey"),
        body->constData());
    const auto form = FormUrlEncoded::decode(*body);
    QCOMPARE(form.size(), 2);
    QCOMPARE(FormUrlEncoded::value(form, QStringLiteral("grant_type")), ServiceAccountKey::grantType());
    QCOMPARE(FormUrlEncoded::value(form, QStringLiteral("assertion"))->toLatin1(),
        *key->assertion(QStringLiteral("scope-a"), now));
}

void TestServiceAccountKey::assertion_decodedByPyJwt()
{
    QProcess probe;
    probe.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QStringLiteral("import jwt")});
    if (!probe.waitForFinished(30'000) || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0)
        RETRYLAB_MISSING_TOOL("Python's jwt package is missing (Debian package python3-jwt)");
    const auto key = ServiceAccountKey::fromJson(QJsonDocument(validJson()).toJson(), QStringLiteral("key.json"));
    QVERIFY(key.ok());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto token = key->assertion(QStringLiteral("scope-a"), now);
    QVERIFY(token.ok());
    const QString tokenFile = write(QStringLiteral("assertion.jwt"), *token);
    const QString publicFile = write(QStringLiteral("public.pem"), m_rsa.publicKeyPem());
    QProcess python;
    python.setProcessChannelMode(QProcess::MergedChannels);
    python.start(QStringLiteral("/usr/bin/python3"),
        {QStringLiteral("-c"),
            QStringLiteral("import json, sys, jwt\n"
                           "claims = jwt.decode(open(sys.argv[1]).read(), open(sys.argv[2]).read(),\n"
                           "    algorithms=['RS256'], audience='https://oauth2.googleapis.com/token')\n"
                           "print(json.dumps(claims))\n"),
            tokenFile, publicFile});
    QVERIFY(python.waitForFinished(60'000));
    const QByteArray out = python.readAll();
    QVERIFY2(python.exitCode() == 0, out.constData());
    const QJsonObject claims = QJsonDocument::fromJson(out).object();
    QCOMPARE(claims.value(QLatin1String("iss")).toString(), key->clientEmail());
    QCOMPARE(claims.value(QLatin1String("scope")).toString(), QStringLiteral("scope-a"));
    QCOMPARE(claims.value(QLatin1String("exp")).toInteger() - claims.value(QLatin1String("iat")).toInteger(), 3600);
}

void TestServiceAccountKey::malformedFiles_nameFileAndField_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");

    const QJsonObject valid = validJson();
    const auto without = [&](const char *field) {
        QJsonObject json = valid;
        json.remove(QLatin1String(field));
        return QJsonDocument(json).toJson();
    };
    const auto with = [&](const char *field, const QJsonValue &value) {
        QJsonObject json = valid;
        json.insert(QLatin1String(field), value);
        return QJsonDocument(json).toJson();
    };
    QTest::addRow("not JSON") << QByteArray("{\"type\": \"service_account\", \"private_key\": \"-----BEGIN")
                              << QStringLiteral("it is not JSON");
    QTest::addRow("an array") << QByteArray("[]") << QStringLiteral("it is not a JSON object");
    QTest::addRow("no type") << without("type") << QStringLiteral("the field \"type\" is missing");
    QTest::addRow("authorized_user") << with("type", QStringLiteral("authorized_user"))
                                     << QStringLiteral("its \"type\" is \"authorized_user\", not \"service_account\"");
    QTest::addRow("no private_key") << without("private_key") << QStringLiteral("the field \"private_key\" is missing");
    QTest::addRow("private_key a number")
        << with("private_key", 42) << QStringLiteral("\"private_key\" is not a string");
    QTest::addRow("no client_email") << without("client_email")
                                     << QStringLiteral("the field \"client_email\" is missing");
    QTest::addRow("no private_key_id") << without("private_key_id")
                                       << QStringLiteral("the field \"private_key_id\" is missing");
    QTest::addRow("no token_uri") << without("token_uri") << QStringLiteral("the field \"token_uri\" is missing");
    QTest::addRow("token_uri not a URL") << with("token_uri", QStringLiteral("ftp://x/token"))
                                         << QStringLiteral("\"token_uri\" is not an http or https URL");
    QTest::addRow("private_key not PEM") << with(
        "private_key", QStringLiteral("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"))
                                         << QStringLiteral(
                                                "the field \"private_key\" does not load: the private key is not PEM");
    QTest::addRow("private_key cut short")
        << with("private_key", valid.value(QLatin1String("private_key")).toString().left(300))
        << QStringLiteral("the field \"private_key\" does not load: the PEM text holds no private key");
    QTest::addRow("private_key a public key")
        << with("private_key", QString::fromLatin1(m_rsa.publicKeyPem())) << QStringLiteral("does not load");
}

void TestServiceAccountKey::malformedFiles_nameFileAndField()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString path = write(QStringLiteral("bad-key.json"), bytes);
    const auto key = ServiceAccountKey::read(path);
    QVERIFY(!key.ok());
    const QString error = key.error();
    QVERIFY2(error.startsWith(QStringLiteral("cannot use the service-account key file ") + path + QStringLiteral(": ")),
        qPrintable(error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    // The key itself never shows: not its base64, not its PEM lines.
    QVERIFY2(!error.contains(QLatin1String("MII")), qPrintable(error));
    const QString pemBody = validJson().value(QLatin1String("private_key")).toString().mid(28, 64);
    QVERIFY(!error.contains(pemBody));
}

void TestServiceAccountKey::missingAndOversizedFiles_areRefused()
{
    const QString missing = m_dir.filePath(QStringLiteral("nowhere.json"));
    auto key = ServiceAccountKey::read(missing);
    QVERIFY(!key.ok());
    QVERIFY2(key.error().contains(missing), qPrintable(key.error()));

    const QString large = write(QStringLiteral("large.json"), QByteArray(ServiceAccountKey::maxFileBytes + 1, ' '));
    key = ServiceAccountKey::read(large);
    QVERIFY(!key.ok());
    QVERIFY2(key.error().contains(QLatin1String("service-account key file")), qPrintable(key.error()));
}

QTEST_GUILESS_MAIN(TestServiceAccountKey)
#include "tst_serviceaccountkey.moc"
