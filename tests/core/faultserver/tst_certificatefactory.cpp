#include "core/faultserver/servercertificates.h"
#include "core/tls/certificatefactory.h"

#include <QSslCertificateExtension>
#include <QSslConfiguration>
#include <QSslError>
#include <QTest>

#include <algorithm>

using namespace RetryLab::Core;

Q_DECLARE_METATYPE(RetryLab::Core::TlsFault)

namespace {

// Whole seconds: a certificate keeps no milliseconds.
const QDateTime now = QDateTime::fromSecsSinceEpoch(QDateTime::currentSecsSinceEpoch(), Qt::UTC);

CertificateRequest caRequest()
{
    CertificateRequest r;
    r.commonName = QStringLiteral("Test CA");
    r.organization = QStringLiteral("RetryLab tests");
    r.certificateAuthority = true;
    r.notBefore = now.addSecs(-3600);
    r.notAfter = now.addDays(2);
    return r;
}

CertificateRequest serverRequest()
{
    CertificateRequest r;
    r.commonName = QStringLiteral("server.test");
    r.organization = QStringLiteral("RetryLab tests");
    r.dnsNames = {QStringLiteral("localhost"), QStringLiteral("server.test")};
    r.ipAddresses = {QHostAddress(QHostAddress::LocalHost), QHostAddress(QHostAddress::LocalHostIPv6)};
    r.notBefore = now.addSecs(-60);
    r.notAfter = now.addDays(1);
    return r;
}

QStringList alternativeNames(const QSslCertificate &certificate, QSsl::AlternativeNameEntryType type)
{
    QStringList names = certificate.subjectAlternativeNames().values(type);
    std::sort(names.begin(), names.end());
    return names;
}

std::optional<QSslCertificateExtension> extension(const QSslCertificate &certificate, const QString &name)
{
    for (const QSslCertificateExtension &e : certificate.extensions()) {
        if (e.name() == name)
            return e;
    }
    return std::nullopt;
}

QList<QSslError::SslError> verify(const QList<QSslCertificate> &chain, const QString &host)
{
    QList<QSslError::SslError> out;
    for (const QSslError &e : QSslCertificate::verify(chain, host))
        out.append(e.error());
    return out;
}

} // namespace

class TestCertificateFactory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void selfSigned_ca_hasSubjectValidityConstraintsAndKey();
    void issue_serverCertificate_hasSansUsageAndIssuer();
    void issue_verifiesAgainstItsCaForItsNamesOnly();
    void keys_areFreshAndMatchTheirCertificatesOnly();
    void badRequests_areRefused_data();
    void badRequests_areRefused();
    void readPrivateKey_plainEncryptedAndBad();

    void serverCertificates_eachFault_data();
    void serverCertificates_eachFault();
    void serverCertificates_nameANonLoopbackAddress();
    void serverCertificates_configurationPresentsTheChain();
};

void TestCertificateFactory::selfSigned_ca_hasSubjectValidityConstraintsAndKey()
{
    const auto ca = CertificateFactory::selfSigned(caRequest());
    QVERIFY2(ca, qPrintable(ca.error()));
    const QSslCertificate &c = ca->certificate;
    QCOMPARE(c.subjectInfo(QSslCertificate::CommonName), QStringList{QStringLiteral("Test CA")});
    QCOMPARE(c.subjectInfo(QSslCertificate::Organization), QStringList{QStringLiteral("RetryLab tests")});
    QCOMPARE(c.issuerDisplayName(), c.subjectDisplayName());
    QVERIFY(c.isSelfSigned());
    QCOMPARE(c.version(), QByteArray("3"));
    QCOMPARE(c.effectiveDate(), now.addSecs(-3600));
    QCOMPARE(c.expiryDate(), now.addDays(2));
    QVERIFY(c.subjectAlternativeNames().isEmpty());

    const auto constraints = extension(c, QStringLiteral("basicConstraints"));
    QVERIFY(constraints);
    QVERIFY(constraints->isCritical());
    QCOMPARE(constraints->value().toMap().value(QStringLiteral("ca")).toBool(), true);
    const auto usage = extension(c, QStringLiteral("keyUsage"));
    QVERIFY(usage);
    QVERIFY2(usage->value().toStringList().contains(QStringLiteral("Certificate Sign")),
        qPrintable(usage->value().toStringList().join(QLatin1Char(','))));

    QCOMPARE(c.publicKey().algorithm(), QSsl::Ec);
    QCOMPARE(c.publicKey().length(), CertificateFactory::keyBits);
    QCOMPARE(ca->privateKey.algorithm(), QSsl::Ec);
    QCOMPARE(ca->privateKey.type(), QSsl::PrivateKey);
    QCOMPARE(ca->privateKey.length(), 256);
}

void TestCertificateFactory::issue_serverCertificate_hasSansUsageAndIssuer()
{
    const auto ca = CertificateFactory::selfSigned(caRequest());
    QVERIFY(ca);
    const auto server = CertificateFactory::issue(serverRequest(), *ca);
    QVERIFY2(server, qPrintable(server.error()));
    const QSslCertificate &c = server->certificate;
    QCOMPARE(c.subjectInfo(QSslCertificate::CommonName), QStringList{QStringLiteral("server.test")});
    QCOMPARE(c.issuerInfo(QSslCertificate::CommonName), QStringList{QStringLiteral("Test CA")});
    QVERIFY(!c.isSelfSigned());
    QCOMPARE(c.effectiveDate(), now.addSecs(-60));
    QCOMPARE(c.expiryDate(), now.addDays(1));
    QCOMPARE(
        alternativeNames(c, QSsl::DnsEntry), QStringList({QStringLiteral("localhost"), QStringLiteral("server.test")}));
    const QStringList ips = alternativeNames(c, QSsl::IpAddressEntry);
    QCOMPARE(ips.size(), 2);
    QVERIFY2(ips.contains(QStringLiteral("127.0.0.1")), qPrintable(ips.join(QLatin1Char(','))));
    QVERIFY2(QHostAddress(ips.first()).isLoopback() && QHostAddress(ips.last()).isLoopback(),
        qPrintable(ips.join(QLatin1Char(','))));

    const auto constraints = extension(c, QStringLiteral("basicConstraints"));
    QVERIFY(constraints);
    QCOMPARE(constraints->value().toMap().value(QStringLiteral("ca")).toBool(), false);
    const auto extended = extension(c, QStringLiteral("extendedKeyUsage"));
    QVERIFY(extended);
    QVERIFY2(extended->value().toStringList().contains(QStringLiteral("TLS Web Server Authentication")),
        qPrintable(extended->value().toStringList().join(QLatin1Char(','))));
    QVERIFY(extension(c, QStringLiteral("authorityKeyIdentifier")));
    QCOMPARE(c.publicKey().length(), CertificateFactory::keyBits);
    QVERIFY(c.serialNumber() != ca->certificate.serialNumber());
}

void TestCertificateFactory::issue_verifiesAgainstItsCaForItsNamesOnly()
{
    const auto ca = CertificateFactory::selfSigned(caRequest());
    const auto server = CertificateFactory::issue(serverRequest(), *ca);
    QVERIFY(ca && server);
    // QSslCertificate::verify() trusts what the default configuration does.
    const QSslConfiguration saved = QSslConfiguration::defaultConfiguration();
    QSslConfiguration trusting = saved;
    trusting.addCaCertificate(ca->certificate);
    QSslConfiguration::setDefaultConfiguration(trusting);
    const QList<QSslError::SslError> byIp = verify({server->certificate}, QStringLiteral("127.0.0.1"));
    const QList<QSslError::SslError> byName = verify({server->certificate}, QStringLiteral("localhost"));
    const QList<QSslError::SslError> byOther = verify({server->certificate}, QStringLiteral("example.org"));
    QSslConfiguration::setDefaultConfiguration(saved);
    QVERIFY(byIp.isEmpty());
    QVERIFY(byName.isEmpty());
    QCOMPARE(byOther, QList<QSslError::SslError>{QSslError::HostNameMismatch});
    // Without the CA it is not trusted.
    QVERIFY(verify({server->certificate}, QStringLiteral("127.0.0.1"))
                .contains(QSslError::UnableToGetLocalIssuerCertificate));
}

void TestCertificateFactory::keys_areFreshAndMatchTheirCertificatesOnly()
{
    const auto a = CertificateFactory::selfSigned(caRequest());
    const auto b = CertificateFactory::selfSigned(caRequest());
    QVERIFY(a && b);
    QVERIFY(a->privateKey.toDer() != b->privateKey.toDer());
    QVERIFY(a->certificate.publicKey().toDer() != b->certificate.publicKey().toDer());
    QVERIFY(a->certificate.serialNumber() != b->certificate.serialNumber());
    QVERIFY(CertificateFactory::keyMatches(a->certificate, a->privateKey));
    QVERIFY(CertificateFactory::keyMatches(b->certificate, b->privateKey));
    QVERIFY(!CertificateFactory::keyMatches(a->certificate, b->privateKey));
    QVERIFY(!CertificateFactory::keyMatches(QSslCertificate(), a->privateKey));
}

void TestCertificateFactory::badRequests_areRefused_data()
{
    QTest::addColumn<QString>("commonName");
    QTest::addColumn<int>("validSecs");
    QTest::addColumn<bool>("nullAddress");
    QTest::addColumn<QString>("reason");
    QTest::addRow("no common name") << QString() << 60 << false << "common name";
    QTest::addRow("ends before it begins") << "x" << -60 << false << "validity";
    QTest::addRow("empty window") << "x" << 0 << false << "validity";
    QTest::addRow("null address") << "x" << 60 << true << "null address";
}

void TestCertificateFactory::badRequests_areRefused()
{
    QFETCH(QString, commonName);
    QFETCH(int, validSecs);
    QFETCH(bool, nullAddress);
    QFETCH(QString, reason);
    CertificateRequest r = serverRequest();
    r.commonName = commonName;
    r.notAfter = r.notBefore.addSecs(validSecs);
    if (nullAddress)
        r.ipAddresses.append(QHostAddress());
    const auto made = CertificateFactory::selfSigned(r);
    QVERIFY(!made);
    QVERIFY2(made.error().contains(reason), qPrintable(made.error()));
}

void TestCertificateFactory::readPrivateKey_plainEncryptedAndBad()
{
    const auto made = CertificateFactory::selfSigned(serverRequest());
    QVERIFY(made);
    const auto plain = CertificateFactory::readPrivateKey(made->privateKey.toPem());
    QVERIFY2(plain, qPrintable(plain.error()));
    QCOMPARE(plain->algorithm(), QSsl::Ec);
    QCOMPARE(plain->length(), 256);
    QVERIFY(CertificateFactory::keyMatches(made->certificate, *plain));

    const QByteArray encrypted = made->privateKey.toPem("open sesame");
    QVERIFY(encrypted.contains("ENCRYPTED"));
    const auto decrypted = CertificateFactory::readPrivateKey(encrypted, "open sesame");
    QVERIFY2(decrypted, qPrintable(decrypted.error()));
    QVERIFY(CertificateFactory::keyMatches(made->certificate, *decrypted));

    const auto noPhrase = CertificateFactory::readPrivateKey(encrypted);
    QVERIFY(!noPhrase);
    QVERIFY2(noPhrase.error().contains(QStringLiteral("no passphrase")), qPrintable(noPhrase.error()));
    const auto wrongPhrase = CertificateFactory::readPrivateKey(encrypted, "open barley");
    QVERIFY(!wrongPhrase);
    QVERIFY2(wrongPhrase.error().contains(QStringLiteral("passphrase")), qPrintable(wrongPhrase.error()));
    const auto garbage = CertificateFactory::readPrivateKey("not a key");
    QVERIFY(!garbage);
    QVERIFY2(garbage.error().contains(QStringLiteral("no PEM private key")), qPrintable(garbage.error()));
    const auto certificateInstead = CertificateFactory::readPrivateKey(made->certificate.toPem());
    QVERIFY(!certificateInstead);
}

void TestCertificateFactory::serverCertificates_eachFault_data()
{
    QTest::addColumn<TlsFault>("fault");
    QTest::addColumn<QString>("issuer"); // "ca", "self", "other"
    QTest::addColumn<QStringList>("dnsNames");
    QTest::addColumn<int>("ipCount");
    QTest::addColumn<bool>("expired");
    QTest::addColumn<QList<QSslError::SslError>>("errorsFor127"); // verified for 127.0.0.1, trusting the CA

    const QStringList localhost{QStringLiteral("localhost")};
    using E = QSslError;
    QTest::addRow("pass") << TlsFault::Pass << "ca" << localhost << 2 << false << QList<QSslError::SslError>{};
    QTest::addRow("unknown-ca") << TlsFault::UnknownCa << "other" << localhost << 2 << false
                                << QList<QSslError::SslError>{
                                       E::UnableToGetLocalIssuerCertificate, E::UnableToVerifyFirstCertificate};
    QTest::addRow("self-signed") << TlsFault::SelfSigned << "self" << localhost << 2 << false
                                 << QList<QSslError::SslError>{E::SelfSignedCertificate};
    QTest::addRow("expired") << TlsFault::Expired << "ca" << localhost << 2 << true
                             << QList<QSslError::SslError>{E::CertificateExpired};
    QTest::addRow("wrong-host") << TlsFault::WrongHost << "ca" << QStringList{QStringLiteral("wrong-host.invalid")} << 0
                                << false << QList<QSslError::SslError>{E::HostNameMismatch};
}

void TestCertificateFactory::serverCertificates_eachFault()
{
    QFETCH(TlsFault, fault);
    QFETCH(QString, issuer);
    QFETCH(QStringList, dnsNames);
    QFETCH(int, ipCount);
    QFETCH(bool, expired);
    QFETCH(QList<QSslError::SslError>, errorsFor127);

    const auto certificates = ServerCertificates::generate(now);
    QVERIFY2(certificates, qPrintable(certificates.error()));
    const QSslCertificate ca = certificates->ca();
    QCOMPARE(certificates->trustAnchors(), QList<QSslCertificate>{ca});
    QCOMPARE(certificates->trustAnchorsPem(), ca.toPem());
    const QList<QSslCertificate> chain = certificates->chain(fault);
    QCOMPARE(chain.size(), 1); // the server's certificate alone: the client must know the issuer
    const QSslCertificate c = chain.first();
    QVERIFY(CertificateFactory::keyMatches(c, certificates->key(fault)));
    QCOMPARE(certificates->key(fault).length(), CertificateFactory::keyBits);

    if (issuer == QLatin1String("ca"))
        QCOMPARE(c.issuerDisplayName(), ca.subjectDisplayName());
    else if (issuer == QLatin1String("self"))
        QVERIFY(c.isSelfSigned());
    else
        QVERIFY(!c.isSelfSigned() && c.issuerDisplayName() != ca.subjectDisplayName());
    QCOMPARE(alternativeNames(c, QSsl::DnsEntry), dnsNames);
    QCOMPARE(alternativeNames(c, QSsl::IpAddressEntry).size(), ipCount);
    if (expired) {
        QCOMPARE(c.expiryDate(), now.addDays(-1));
        QCOMPARE(c.effectiveDate(), now.addDays(-30));
    } else {
        QCOMPARE(c.effectiveDate(), now.addSecs(-3600));
        QCOMPARE(c.expiryDate(), now.addDays(30));
    }

    const QSslConfiguration saved = QSslConfiguration::defaultConfiguration();
    QSslConfiguration trusting = saved;
    trusting.addCaCertificate(ca);
    QSslConfiguration::setDefaultConfiguration(trusting);
    const QList<QSslError::SslError> errors = verify(chain, QStringLiteral("127.0.0.1"));
    QSslConfiguration::setDefaultConfiguration(saved);
    QCOMPARE(errors, errorsFor127);
}

void TestCertificateFactory::serverCertificates_nameANonLoopbackAddress()
{
    const auto certificates = ServerCertificates::generate(now, QHostAddress(QStringLiteral("192.0.2.7")));
    QVERIFY(certificates);
    QVERIFY(alternativeNames(certificates->chain(TlsFault::Pass).first(), QSsl::IpAddressEntry)
                .contains(QStringLiteral("192.0.2.7")));
    QVERIFY(!alternativeNames(certificates->chain(TlsFault::WrongHost).first(), QSsl::IpAddressEntry)
                 .contains(QStringLiteral("192.0.2.7")));
    const auto wildcard = ServerCertificates::generate(now, QHostAddress(QHostAddress::Any));
    QVERIFY(wildcard);
    QCOMPARE(alternativeNames(wildcard->chain(TlsFault::Pass).first(), QSsl::IpAddressEntry).size(), 2);
}

void TestCertificateFactory::serverCertificates_configurationPresentsTheChain()
{
    const auto certificates = ServerCertificates::generate(now);
    QVERIFY(certificates);
    for (const TlsFault fault :
        {TlsFault::Pass, TlsFault::UnknownCa, TlsFault::SelfSigned, TlsFault::Expired, TlsFault::WrongHost}) {
        const QSslConfiguration c = certificates->configuration(fault);
        QCOMPARE(c.localCertificateChain(), certificates->chain(fault));
        QCOMPARE(c.privateKey(), certificates->key(fault));
        QCOMPARE(c.peerVerifyMode(), QSslSocket::VerifyNone);
    }
    for (const TlsFault fault : {TlsFault::HandshakeCut, TlsFault::Alert, TlsFault::PlainHttp})
        QVERIFY(certificates->chain(fault).isEmpty());
    // Every certificate has a key of its own.
    QSet<QByteArray> keys;
    for (const TlsFault fault :
        {TlsFault::Pass, TlsFault::UnknownCa, TlsFault::SelfSigned, TlsFault::Expired, TlsFault::WrongHost})
        keys.insert(certificates->key(fault).toDer());
    QCOMPARE(keys.size(), 5);
}

QTEST_GUILESS_MAIN(TestCertificateFactory)
#include "tst_certificatefactory.moc"
