#include "core/auth/jwt.h"
#include "core/auth/jwtsigner.h"
#include "core/auth/rsakey.h"
#include "core/tls/certificatefactory.h"
#include "tests/tools/requiredtool.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

/// RS256 JWTs: made by JwtSigner, checked by Jwt::verifyRs256, by Debian's
/// `openssl dgst -sha256 -verify` and by PyJWT (python3-jwt), and the keys that
/// cannot sign refused in words that name the problem.
class TestJwtSigner final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sign_headerAndClaims_readBack();
    void sign_verifiesWithThePublicKey_notWithAnother();
    void tamperedClaims_failVerification();
    void otherAlgorithms_areRefused();
    void signature_verifiedByOpensslDgst();
    void token_decodedByPyJwt();
    void certificate_publicKey_verifies();
    void pkcs1PrivateKey_isRead();
    void badKeys_sayWhatIsWrong_data();
    void badKeys_sayWhatIsWrong();
    void malformedTokens_sayWhichPart_data();
    void malformedTokens_sayWhichPart();

private:
    static QByteArray run(const QString &program, const QStringList &arguments, int *exitCode);
    QByteArray writeFile(const QString &name, const QByteArray &bytes);

    RsaKey m_key;
    QTemporaryDir m_dir;
};

void TestJwtSigner::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const auto key = RsaKey::generate();
    QVERIFY2(key.ok(), qPrintable(key.error()));
    m_key = *key;
    QCOMPARE(m_key.bits(), 2048);
    QVERIFY(m_key.hasPrivateKey());
}

QByteArray TestJwtSigner::run(const QString &program, const QStringList &arguments, int *exitCode)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(60'000)) {
        *exitCode = -1;
        return process.readAll();
    }
    *exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return process.readAll();
}

QByteArray TestJwtSigner::writeFile(const QString &name, const QByteArray &bytes)
{
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path.toUtf8();
}

void TestJwtSigner::sign_headerAndClaims_readBack()
{
    const JwtSigner signer(m_key, QStringLiteral("key-1"));
    const QJsonObject claims{
        {QStringLiteral("iss"), QStringLiteral("ada@example.org")}, {QStringLiteral("iat"), 1700000000}};
    const auto token = signer.sign(claims);
    QVERIFY2(token.ok(), qPrintable(token.error()));
    QCOMPARE(token->count('.'), 2);
    QVERIFY(!token->contains('=')); // base64url without padding
    QVERIFY(!token->contains('+') && !token->contains('/'));
    const auto jwt = Jwt::decode(*token);
    QVERIFY2(jwt.ok(), qPrintable(jwt.error()));
    QCOMPARE(jwt->header.value(QLatin1String("alg")).toString(), QStringLiteral("RS256"));
    QCOMPARE(jwt->header.value(QLatin1String("typ")).toString(), QStringLiteral("JWT"));
    QCOMPARE(jwt->header.value(QLatin1String("kid")).toString(), QStringLiteral("key-1"));
    QCOMPARE(jwt->claims, claims);
    QCOMPARE(jwt->signature.size(), 256); // 2048 bits
    QVERIFY(token->startsWith(QByteArray(jwt->signingInput + '.')));

    // Without a key id there is no kid.
    const auto plain = JwtSigner(m_key).sign(claims);
    QVERIFY(plain.ok());
    QVERIFY(!Jwt::decode(*plain)->header.contains(QLatin1String("kid")));
}

void TestJwtSigner::sign_verifiesWithThePublicKey_notWithAnother()
{
    const auto token = JwtSigner(m_key).sign({{QStringLiteral("sub"), QStringLiteral("x")}});
    QVERIFY(token.ok());
    const auto jwt = Jwt::decode(*token);
    QVERIFY(jwt.ok());
    const auto publicOnly = RsaKey::fromPublicKeyPem(m_key.publicKeyPem());
    QVERIFY2(publicOnly.ok(), qPrintable(publicOnly.error()));
    QVERIFY(!publicOnly->hasPrivateKey());
    QVERIFY(publicOnly->privateKeyPem().isEmpty());
    const auto verified = jwt->verifyRs256(*publicOnly);
    QVERIFY2(verified.ok(), qPrintable(verified.error()));

    const auto other = RsaKey::generate();
    QVERIFY(other.ok());
    const auto refused = jwt->verifyRs256(other->publicKey());
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error(), QStringLiteral("the JWT's signature does not verify with the key"));
    // A public key cannot sign.
    QVERIFY(!JwtSigner(*publicOnly).sign({}).ok());
}

void TestJwtSigner::tamperedClaims_failVerification()
{
    const auto token = JwtSigner(m_key).sign({{QStringLiteral("scope"), QStringLiteral("read")}});
    QVERIFY(token.ok());
    QList<QByteArray> parts = token->split('.');
    parts[1] = Jwt::base64Url(R"({"scope":"admin"})");
    const auto jwt = Jwt::decode(parts.join('.'));
    QVERIFY(jwt.ok());
    QVERIFY(!jwt->verifyRs256(m_key.publicKey()).ok());
}

void TestJwtSigner::otherAlgorithms_areRefused()
{
    // alg "none" and HS256 with a valid RS256 signature pasted on: never accepted.
    for (const char *alg : {"none", "HS256"}) {
        const QByteArray header = Jwt::base64Url(QByteArray(QByteArray(R"({"alg":")") + alg + R"(","typ":"JWT"})"));
        const QByteArray claims = Jwt::base64Url(R"({"iss":"x"})");
        const auto signature = m_key.signSha256(QByteArray(header + '.' + claims));
        QVERIFY(signature.ok());
        const auto jwt = Jwt::decode(QByteArray(header + '.' + claims + '.' + Jwt::base64Url(*signature)));
        QVERIFY(jwt.ok());
        const auto verified = jwt->verifyRs256(m_key.publicKey());
        QVERIFY(!verified.ok());
        QVERIFY2(verified.error().contains(QLatin1String(alg)), qPrintable(verified.error()));
    }
}

void TestJwtSigner::signature_verifiedByOpensslDgst()
{
    const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    if (openssl.isEmpty())
        RETRYLAB_MISSING_TOOL("openssl is missing (Debian package openssl)");
    const auto token = JwtSigner(m_key, QStringLiteral("k")).sign({{QStringLiteral("iss"), QStringLiteral("dgst")}});
    QVERIFY(token.ok());
    const auto jwt = Jwt::decode(*token);
    QVERIFY(jwt.ok());
    const QString publicKey = QString::fromUtf8(writeFile(QStringLiteral("public.pem"), m_key.publicKeyPem()));
    const QString data = QString::fromUtf8(writeFile(QStringLiteral("input.txt"), jwt->signingInput));
    const QString signature = QString::fromUtf8(writeFile(QStringLiteral("signature.bin"), jwt->signature));
    int exitCode = 0;
    QByteArray out = run(openssl,
        {QStringLiteral("dgst"), QStringLiteral("-sha256"), QStringLiteral("-verify"), publicKey,
            QStringLiteral("-signature"), signature, data},
        &exitCode);
    QVERIFY2(exitCode == 0, out.constData());
    QCOMPARE(out.trimmed(), QByteArray("Verified OK"));

    // The same input changed by one byte: openssl refuses it too.
    const QString changed
        = QString::fromUtf8(writeFile(QStringLiteral("changed.txt"), QByteArray(jwt->signingInput + ' ')));
    out = run(openssl,
        {QStringLiteral("dgst"), QStringLiteral("-sha256"), QStringLiteral("-verify"), publicKey,
            QStringLiteral("-signature"), signature, changed},
        &exitCode);
    QVERIFY2(exitCode != 0, out.constData());

    // And a key openssl wrote in PKCS#8 signs tokens that openssl verifies.
    const QString generated = m_dir.filePath(QStringLiteral("openssl-key.pem"));
    out = run(openssl,
        {QStringLiteral("genpkey"), QStringLiteral("-algorithm"), QStringLiteral("RSA"), QStringLiteral("-pkeyopt"),
            QStringLiteral("rsa_keygen_bits:2048"), QStringLiteral("-out"), generated},
        &exitCode);
    QVERIFY2(exitCode == 0, out.constData());
    QFile pemFile(generated);
    QVERIFY(pemFile.open(QIODevice::ReadOnly));
    const QByteArray pem = pemFile.readAll();
    QVERIFY(pem.startsWith("-----BEGIN PRIVATE KEY-----"));
    const auto signer = JwtSigner::fromPem(pem);
    QVERIFY2(signer.ok(), qPrintable(signer.error()));
    const auto second = Jwt::decode(*signer->sign({{QStringLiteral("iss"), QStringLiteral("openssl")}}));
    QVERIFY(second.ok());
    const QString secondData = QString::fromUtf8(writeFile(QStringLiteral("input2.txt"), second->signingInput));
    const QString secondSignature = QString::fromUtf8(writeFile(QStringLiteral("signature2.bin"), second->signature));
    const QString secondPublic = m_dir.filePath(QStringLiteral("openssl-public.pem"));
    out = run(openssl,
        {QStringLiteral("pkey"), QStringLiteral("-in"), generated, QStringLiteral("-pubout"), QStringLiteral("-out"),
            secondPublic},
        &exitCode);
    QVERIFY2(exitCode == 0, out.constData());
    out = run(openssl,
        {QStringLiteral("dgst"), QStringLiteral("-sha256"), QStringLiteral("-verify"), secondPublic,
            QStringLiteral("-signature"), secondSignature, secondData},
        &exitCode);
    QVERIFY2(exitCode == 0, out.constData());
}

void TestJwtSigner::token_decodedByPyJwt()
{
    const QString python = QStringLiteral("/usr/bin/python3");
    int exitCode = 0;
    run(python, {QStringLiteral("-c"), QStringLiteral("import jwt")}, &exitCode);
    if (exitCode != 0)
        RETRYLAB_MISSING_TOOL("Python's jwt package is missing (Debian package python3-jwt)");
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const QJsonObject claims{{QStringLiteral("iss"), QStringLiteral("pyjwt@example.org")},
        {QStringLiteral("aud"), QStringLiteral("https://oauth2.example.org/token")},
        {QStringLiteral("scope"), QStringLiteral("a b")}, {QStringLiteral("iat"), now},
        {QStringLiteral("exp"), now + 3600}};
    const auto token = JwtSigner(m_key, QStringLiteral("kid-7")).sign(claims);
    QVERIFY(token.ok());
    const QString tokenFile = QString::fromUtf8(writeFile(QStringLiteral("token.jwt"), *token));
    const QString keyFile = QString::fromUtf8(writeFile(QStringLiteral("pub.pem"), m_key.publicKeyPem()));
    const QString script
        = QStringLiteral("import json, sys, jwt\n"
                         "token = open(sys.argv[1]).read().strip()\n"
                         "key = open(sys.argv[2]).read()\n"
                         "claims = jwt.decode(token, key, algorithms=['RS256'], audience=sys.argv[3])\n"
                         "header = jwt.get_unverified_header(token)\n"
                         "print(json.dumps({'claims': claims, 'header': header}))\n");
    QByteArray out = run(python,
        {QStringLiteral("-c"), script, tokenFile, keyFile, QStringLiteral("https://oauth2.example.org/token")},
        &exitCode);
    QVERIFY2(exitCode == 0, out.constData());
    const QJsonObject decoded = QJsonDocument::fromJson(out).object();
    QCOMPARE(decoded.value(QLatin1String("claims")).toObject(), claims);
    QCOMPARE(decoded.value(QLatin1String("header")).toObject().value(QLatin1String("kid")).toString(),
        QStringLiteral("kid-7"));

    // Another audience, or another key: PyJWT refuses.
    out = run(
        python, {QStringLiteral("-c"), script, tokenFile, keyFile, QStringLiteral("https://elsewhere/")}, &exitCode);
    QVERIFY2(exitCode != 0 && out.contains("InvalidAudience"), out.constData());
    const auto other = RsaKey::generate();
    QVERIFY(other.ok());
    const QString otherKey = QString::fromUtf8(writeFile(QStringLiteral("other.pem"), other->publicKeyPem()));
    out = run(python,
        {QStringLiteral("-c"), script, tokenFile, otherKey, QStringLiteral("https://oauth2.example.org/token")},
        &exitCode);
    QVERIFY2(exitCode != 0 && out.contains("InvalidSignatureError"), out.constData());
}

void TestJwtSigner::certificate_publicKey_verifies()
{
    const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    if (openssl.isEmpty())
        RETRYLAB_MISSING_TOOL("openssl is missing (Debian package openssl)");
    // A certificate of the key, as Google publishes its service accounts' keys.
    const QString keyPath = QString::fromUtf8(writeFile(QStringLiteral("cert-key.pem"), m_key.privateKeyPem()));
    const QString certificatePath = m_dir.filePath(QStringLiteral("cert.pem"));
    int exitCode = 0;
    const QByteArray out = run(openssl,
        {QStringLiteral("req"), QStringLiteral("-new"), QStringLiteral("-x509"), QStringLiteral("-key"), keyPath,
            QStringLiteral("-subj"), QStringLiteral("/CN=retrylab-test"), QStringLiteral("-days"), QStringLiteral("1"),
            QStringLiteral("-out"), certificatePath},
        &exitCode);
    QVERIFY2(exitCode == 0, out.constData());
    QFile certificate(certificatePath);
    QVERIFY(certificate.open(QIODevice::ReadOnly));
    const auto key = RsaKey::fromPublicKeyPem(certificate.readAll());
    QVERIFY2(key.ok(), qPrintable(key.error()));
    const auto token = JwtSigner(m_key).sign({{QStringLiteral("iss"), QStringLiteral("cert")}});
    QVERIFY(Jwt::decode(*token)->verifyRs256(*key).ok());
}

void TestJwtSigner::pkcs1PrivateKey_isRead()
{
    // QSslKey writes an RSA key in PKCS#1 ("BEGIN RSA PRIVATE KEY").
    const QSslKey pkcs1(m_key.privateKeyPem(), QSsl::Rsa, QSsl::Pem, QSsl::PrivateKey);
    QVERIFY(!pkcs1.isNull());
    const QByteArray pem = pkcs1.toPem();
    QVERIFY(pem.startsWith("-----BEGIN RSA PRIVATE KEY-----"));
    const auto signer = JwtSigner::fromPem(pem);
    QVERIFY2(signer.ok(), qPrintable(signer.error()));
    QCOMPARE(signer->key().publicKeyPem(), m_key.publicKeyPem());
}

void TestJwtSigner::badKeys_sayWhatIsWrong_data()
{
    QTest::addColumn<QByteArray>("pem");
    QTest::addColumn<QString>("expected");

    QTest::addRow("empty") << QByteArray("  \n") << QStringLiteral("the private key is empty");
    QTest::addRow("not PEM") << QByteArray("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ")
                             << QStringLiteral("not PEM");
    const QSslKey rsa(m_key.privateKeyPem(), QSsl::Rsa, QSsl::Pem, QSsl::PrivateKey);
    QTest::addRow("encrypted (PKCS#1 with Proc-Type)") << rsa.toPem("passphrase") << QStringLiteral("encrypted");
    QTest::addRow("encrypted (PKCS#8)") << QByteArray(
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQwwDgQI\n"
        "-----END ENCRYPTED PRIVATE KEY-----\n")
                                        << QStringLiteral("encrypted");
    CertificateRequest request;
    request.commonName = QStringLiteral("ec");
    request.notBefore = QDateTime::currentDateTimeUtc().addDays(-1);
    request.notAfter = QDateTime::currentDateTimeUtc().addDays(1);
    const auto ec = CertificateFactory::selfSigned(request);
    QVERIFY(ec.ok());
    QTest::addRow("EC key") << ec->privateKey.toPem() << QStringLiteral("the key is EC, not RSA");
    QTest::addRow("a public key") << m_key.publicKeyPem() << QStringLiteral("holds no private key");
    QTest::addRow("garbage in a PEM block")
        << QByteArray("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
        << QStringLiteral("holds no private key");
}

void TestJwtSigner::badKeys_sayWhatIsWrong()
{
    QFETCH(QByteArray, pem);
    QFETCH(QString, expected);
    const auto signer = JwtSigner::fromPem(pem);
    QVERIFY(!signer.ok());
    QVERIFY2(signer.error().contains(expected), qPrintable(signer.error()));
    // Never a piece of the key in the words.
    QVERIFY2(!signer.error().contains(QLatin1String("MII")), qPrintable(signer.error()));
}

void TestJwtSigner::malformedTokens_sayWhichPart_data()
{
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<QString>("expected");
    const QByteArray header = Jwt::base64Url(R"({"alg":"RS256"})");
    const QByteArray claims = Jwt::base64Url(R"({"iss":"x"})");
    QTest::addRow("two parts") << QByteArray(header + '.' + claims) << QStringLiteral("three parts");
    QTest::addRow("four parts") << QByteArray(header + '.' + claims + ".a.b") << QStringLiteral("three parts");
    QTest::addRow("header not base64url")
        << QByteArray("%%." + claims + ".AA") << QStringLiteral("header is not base64url");
    QTest::addRow("claims not JSON") << QByteArray(header + '.' + Jwt::base64Url("[1]") + ".AA")
                                     << QStringLiteral("claims is not a JSON object");
    QTest::addRow("signature with +") << QByteArray(header + '.' + claims + ".a+b")
                                      << QStringLiteral("signature is not base64url");
}

void TestJwtSigner::malformedTokens_sayWhichPart()
{
    QFETCH(QByteArray, token);
    QFETCH(QString, expected);
    const auto jwt = Jwt::decode(token);
    QVERIFY(!jwt.ok());
    QVERIFY2(jwt.error().contains(expected), qPrintable(jwt.error()));
}

QTEST_GUILESS_MAIN(TestJwtSigner)
#include "tst_jwtsigner.moc"
