// The executor's TLS options against a real nginx on 127.0.0.1, with
// certificates made by the openssl command line at test time: a CA bundle
// trusted besides the system's, certificate errors (unknown CA, expired, wrong
// host) refused unless the host is exempt, client certificates (PEM, encrypted
// PEM, PKCS#12), unreadable files refused before any attempt, and the TLS floor.

#include "core/executor/retryexecutor.h"
#include "tests/core/executor/realservers.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace RetryLab::Core;

namespace {

BackoffPolicy fastPolicy(int attempts = 3)
{
    BackoffPolicy p;
    p.algorithm = BackoffAlgorithm::Exponential;
    p.baseDelayMs = 10;
    p.multiplier = 2;
    p.maxBackoffMs = 100;
    p.maxAttempts = attempts;
    p.attemptTimeoutMs = 10'000;
    return p;
}

struct Outcome
{
    RequestResult result;
    QList<AttemptRecord> attempts;
};

} // namespace

class TestExecutorTls : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void caBundle_trustsTheServer_tlsDetailsRecorded();
    void withoutCaBundle_unknownIssuerFails();
    void certificateErrors_failWithoutRetry_data();
    void certificateErrors_failWithoutRetry();
    void certificateErrors_ignoredOnlyForExemptHost_data();
    void certificateErrors_ignoredOnlyForExemptHost();
    void clientCertificate_data();
    void clientCertificate();
    void unreadableFiles_invalidRequestNamingTheFile_data();
    void unreadableFiles_invalidRequestNamingTheFile();
    void tlsFloor_data();
    void tlsFloor();

private:
    Outcome send(const QUrl &url, const TransportOptions &transport, int attempts = 3);
    QUrl url(quint16 port, const QString &path = QStringLiteral("/hello")) const
    {
        return QUrl(QStringLiteral("https://127.0.0.1:%1%2").arg(port).arg(path));
    }

    QTemporaryDir m_dir;
    RealServers::Certificates m_certificates;
    std::unique_ptr<RealServers::Nginx> m_nginx;
    std::unique_ptr<RetryExecutor> m_executor;
    quint16 m_trusted = 0;
    quint16 m_unknownCa = 0;
    quint16 m_expired = 0;
    quint16 m_wrongHost = 0;
    quint16 m_tls12Only = 0;
    quint16 m_clientCertRequired = 0;
    int m_trustedServer = -1;
    int m_unknownCaServer = -1;
    int m_expiredServer = -1;
    int m_wrongHostServer = -1;
    int m_tls12OnlyServer = -1;
    int m_clientCertRequiredServer = -1;
};

void TestExecutorTls::initTestCase()
{
    QVERIFY2(!RealServers::findProgram(QStringLiteral("openssl")).isEmpty(),
        RealServers::missingProgram(QStringLiteral("openssl"), QStringLiteral("openssl")).constData());
    const QByteArray nginxProblem = RealServers::Nginx::checkInstalled();
    QVERIFY2(nginxProblem.isEmpty(), nginxProblem.constData());
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_certificates.make(m_dir.filePath(QStringLiteral("certs")), &error), qPrintable(error));

    m_nginx = std::make_unique<RealServers::Nginx>(m_dir.filePath(QStringLiteral("nginx")));
    const auto server = [this](const QString &certificate, const QString &key, const QString &extra = QString(),
                            const QString &protocols = QStringLiteral("TLSv1.2 TLSv1.3")) {
        return m_nginx->addServer(QStringLiteral("ssl"),
            QStringLiteral("        ssl_certificate %1;\n        ssl_certificate_key %2;\n"
                           "        ssl_protocols %3;\n%4"
                           "        location / { return 200 \"hello $ssl_protocol $ssl_client_s_dn\\n\"; }")
                .arg(certificate, key, protocols, extra));
    };
    const auto &c = m_certificates;
    m_trustedServer = server(c.serverPem, c.serverKey);
    m_unknownCaServer = server(c.unknownServerPem, c.unknownServerKey);
    m_expiredServer = server(c.expiredPem, c.serverKey);
    m_wrongHostServer = server(c.wrongHostPem, c.serverKey);
    m_tls12OnlyServer = server(c.serverPem, c.serverKey, QString(), QStringLiteral("TLSv1.2"));
    m_clientCertRequiredServer = server(c.serverPem, c.serverKey,
        QStringLiteral("        ssl_client_certificate %1;\n        ssl_verify_client on;\n").arg(c.caPem));
    QVERIFY2(m_nginx->start(&error), qPrintable(error));
    m_trusted = m_nginx->port(m_trustedServer);
    m_unknownCa = m_nginx->port(m_unknownCaServer);
    m_expired = m_nginx->port(m_expiredServer);
    m_wrongHost = m_nginx->port(m_wrongHostServer);
    m_tls12Only = m_nginx->port(m_tls12OnlyServer);
    m_clientCertRequired = m_nginx->port(m_clientCertRequiredServer);

    m_executor = std::make_unique<RetryExecutor>();
    m_executor->setPolicy(fastPolicy());
}

void TestExecutorTls::cleanupTestCase()
{
    m_executor.reset();
    if (m_nginx)
        m_nginx->stop();
}

Outcome TestExecutorTls::send(const QUrl &target, const TransportOptions &transport, int attempts)
{
    m_executor->setPolicy(fastPolicy(attempts));
    Outcome outcome;
    QSignalSpy finished(m_executor.get(), &RetryExecutor::requestFinished);
    QObject context;
    connect(m_executor.get(), &RetryExecutor::attemptFinished, &context,
        [&outcome](const AttemptRecord &record) { outcome.attempts.append(record); });
    RequestSpec spec;
    spec.url = target;
    spec.transport = transport;
    m_executor->submit(spec);
    if (!finished.wait(20'000))
        qWarning("the request did not finish");
    if (!finished.isEmpty())
        outcome.result = finished.first().first().value<RequestResult>();
    return outcome;
}

void TestExecutorTls::caBundle_trustsTheServer_tlsDetailsRecorded()
{
    TransportOptions transport;
    transport.caBundlePath = m_certificates.caPem;
    const Outcome o = send(url(m_trusted), transport);
    QCOMPARE(o.result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(o.attempts.size(), 1);
    const AttemptRecord &a = o.attempts.first();
    QCOMPARE(a.httpStatus, 200);
    QCOMPARE(a.protocol, QStringLiteral("HTTP/1.1"));
    QCOMPARE(a.tls.protocol, QStringLiteral("TLSv1.3"));
    QVERIFY2(!a.tls.cipher.isEmpty(), "no cipher recorded");
    QVERIFY2(a.tls.peerSubject.contains(QLatin1String("CN=localhost")), qPrintable(a.tls.peerSubject));
    QVERIFY2(a.tls.peerIssuer.contains(QLatin1String("CN=RetryLab Test CA")), qPrintable(a.tls.peerIssuer));
    const QDateTime notBefore = QDateTime::fromString(a.tls.peerNotBefore, Qt::ISODate);
    const QDateTime notAfter = QDateTime::fromString(a.tls.peerNotAfter, Qt::ISODate);
    QVERIFY2(notBefore.isValid() && notAfter.isValid(), qPrintable(a.tls.peerNotBefore + u' ' + a.tls.peerNotAfter));
    QVERIFY(notBefore <= QDateTime::currentDateTimeUtc() && QDateTime::currentDateTimeUtc() < notAfter);
    QVERIFY(a.tls.errors.isEmpty());
    QVERIFY(!a.tls.errorsIgnored);
    QVERIFY2(o.result.body.startsWith("hello TLSv1.3"), o.result.body.constData());
}

void TestExecutorTls::withoutCaBundle_unknownIssuerFails()
{
    // Today's behaviour, kept: the system does not know the test CA, nothing is ignored.
    const Outcome o = send(url(m_trusted), TransportOptions{});
    QCOMPARE(o.result.outcome, RequestOutcome::GaveUp);
    QCOMPARE(o.attempts.size(), 1);
    QCOMPARE(o.attempts.first().networkError, QNetworkReply::SslHandshakeFailedError);
    QCOMPARE(o.attempts.first().cause, QStringLiteral("tls-failure"));
    QVERIFY(!o.attempts.first().tls.errors.isEmpty());
    QVERIFY(!o.attempts.first().tls.errorsIgnored);
}

void TestExecutorTls::certificateErrors_failWithoutRetry_data()
{
    QTest::addColumn<int>("server"); // 0 unknown CA, 1 expired, 2 wrong host
    QTest::addColumn<QString>("error"); // part of the error Qt names
    QTest::addColumn<QString>("issuer");
    QTest::addRow("unknown CA") << 0 << QStringLiteral("issuer certificate") << QStringLiteral("CN=Unknown Test CA");
    QTest::addRow("expired") << 1 << QStringLiteral("expired") << QStringLiteral("CN=RetryLab Test CA");
    QTest::addRow("wrong host") << 2 << QStringLiteral("host name did not match")
                                << QStringLiteral("CN=RetryLab Test CA");
}

void TestExecutorTls::certificateErrors_failWithoutRetry()
{
    QFETCH(int, server);
    QFETCH(QString, error);
    QFETCH(QString, issuer);
    const quint16 port = QList<quint16>{m_unknownCa, m_expired, m_wrongHost}.at(server);
    TransportOptions transport;
    transport.caBundlePath = m_certificates.caPem;
    const Outcome o = send(url(port), transport, 5);
    QCOMPARE(o.result.outcome, RequestOutcome::GaveUp);
    QCOMPARE(o.result.attempts, 1); // a TLS failure is not transient
    const AttemptRecord &a = o.attempts.first();
    QCOMPARE(a.networkError, QNetworkReply::SslHandshakeFailedError);
    QCOMPARE(a.cause, QStringLiteral("tls-failure"));
    QVERIFY(!a.tls.errorsIgnored);
    const QString errors = a.tls.errors.join(QStringLiteral("; "));
    QVERIFY2(errors.contains(error, Qt::CaseInsensitive), qPrintable(errors));
    QVERIFY2(a.errorString.contains(error, Qt::CaseInsensitive), qPrintable(a.errorString));
    QVERIFY2(a.errorString.contains(QLatin1String("not ignored")), qPrintable(a.errorString));
    QVERIFY2(a.tls.peerIssuer.contains(issuer), qPrintable(a.tls.peerIssuer));
}

void TestExecutorTls::certificateErrors_ignoredOnlyForExemptHost_data()
{
    certificateErrors_failWithoutRetry_data();
}

void TestExecutorTls::certificateErrors_ignoredOnlyForExemptHost()
{
    QFETCH(int, server);
    QFETCH(QString, error);
    const quint16 port = QList<quint16>{m_unknownCa, m_expired, m_wrongHost}.at(server);
    TransportOptions transport;
    transport.caBundlePath = m_certificates.caPem;

    // Another host exempt: nothing changes.
    transport.insecureHosts = {QStringLiteral("localhost")};
    Outcome o = send(url(port), transport);
    QCOMPARE(o.result.outcome, RequestOutcome::GaveUp);
    QCOMPARE(o.attempts.first().networkError, QNetworkReply::SslHandshakeFailedError);

    // This host exempt: the errors are ignored and said.
    transport.insecureHosts = {QStringLiteral("127.0.0.1")};
    o = send(url(port), transport);
    QCOMPARE(o.result.outcome, RequestOutcome::Succeeded);
    const AttemptRecord &a = o.attempts.first();
    QCOMPARE(a.httpStatus, 200);
    QVERIFY(a.tls.errorsIgnored);
    const QString errors = a.tls.errors.join(QStringLiteral("; "));
    QVERIFY2(errors.contains(error, Qt::CaseInsensitive), qPrintable(errors));
    QCOMPARE(a.tls.protocol, QStringLiteral("TLSv1.3"));

    // The connection the exempt request opened is not reused by a request that exempts nothing.
    transport.insecureHosts.clear();
    o = send(url(port), transport);
    QCOMPARE(o.result.outcome, RequestOutcome::GaveUp);
    QCOMPARE(o.attempts.first().networkError, QNetworkReply::SslHandshakeFailedError);
}

void TestExecutorTls::clientCertificate_data()
{
    QTest::addColumn<int>("kind"); // 0 none, 1 PEM + key file, 2 PEM + encrypted key, 3 PKCS#12
    QTest::addColumn<int>("status");
    QTest::addRow("none: nginx answers 400") << 0 << 400;
    QTest::addRow("PEM certificate and key") << 1 << 200;
    QTest::addRow("PEM certificate, encrypted key and passphrase") << 2 << 200;
    QTest::addRow("PKCS#12 and passphrase") << 3 << 200;
}

void TestExecutorTls::clientCertificate()
{
    QFETCH(int, kind);
    QFETCH(int, status);
    const auto &c = m_certificates;
    TransportOptions transport;
    transport.caBundlePath = c.caPem;
    if (kind == 1) {
        transport.clientCertificatePath = c.clientPem;
        transport.clientKeyPath = c.clientKey;
    } else if (kind == 2) {
        transport.clientCertificatePath = c.clientPem;
        transport.clientKeyPath = c.clientEncryptedKey;
        transport.clientKeyPassphrase = QString::fromLatin1(RealServers::Certificates::passphrase);
    } else if (kind == 3) {
        transport.clientCertificatePath = c.clientP12;
        transport.clientKeyPassphrase = QString::fromLatin1(RealServers::Certificates::passphrase);
    }
    const Outcome o = send(url(m_clientCertRequired), transport);
    QCOMPARE(o.attempts.size(), 1);
    QCOMPARE(o.attempts.first().httpStatus, status);
    if (status == 200) {
        QCOMPARE(o.result.outcome, RequestOutcome::Succeeded);
        QVERIFY2(o.result.body.contains("CN=retrylab-client"), o.result.body.constData());
    } else {
        QCOMPARE(o.result.outcome, RequestOutcome::GaveUp);
    }
}

void TestExecutorTls::unreadableFiles_invalidRequestNamingTheFile_data()
{
    QTest::addColumn<QString>("caBundle");
    QTest::addColumn<QString>("certificate");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("passphrase");
    QTest::addColumn<QString>("file"); // named in the reason
    QTest::addColumn<QString>("problem"); // part of the reason

    // Files by name: see the table in the test.
    const auto s = [](const char *text) { return QString::fromLatin1(text); };
    QTest::addRow("missing CA bundle") << s("missing") << s("") << s("") << s("") << s("missing")
                                       << s("does not exist");
    QTest::addRow("CA bundle that is not a certificate")
        << s("garbage") << s("") << s("") << s("") << s("garbage") << s("holds no certificate");
    QTest::addRow("client certificate that is not a certificate")
        << s("") << s("garbage") << s("") << s("") << s("garbage") << s("neither PEM");
    QTest::addRow("PKCS#12 with a wrong passphrase")
        << s("") << s("p12") << s("") << s("wrong-passphrase") << s("p12") << s("the passphrase is wrong");
    QTest::addRow("PKCS#12 without a passphrase")
        << s("") << s("p12") << s("") << s("") << s("p12") << s("give its passphrase");
    QTest::addRow("encrypted key with a wrong passphrase")
        << s("") << s("client") << s("encrypted") << s("wrong-passphrase") << s("encrypted")
        << s("the passphrase is wrong");
    QTest::addRow("encrypted key without a passphrase")
        << s("") << s("client") << s("encrypted") << s("") << s("encrypted") << s("give its passphrase");
    QTest::addRow("certificate without its key")
        << s("") << s("client") << s("") << s("") << s("client") << s("holds no private key");
    QTest::addRow("missing key") << s("") << s("client") << s("missing") << s("") << s("missing")
                                 << s("does not exist");
}

void TestExecutorTls::unreadableFiles_invalidRequestNamingTheFile()
{
    QFETCH(QString, caBundle);
    QFETCH(QString, certificate);
    QFETCH(QString, key);
    QFETCH(QString, passphrase);
    QFETCH(QString, file);
    QFETCH(QString, problem);
    const auto &c = m_certificates;
    const QHash<QString, QString> paths{
        {QStringLiteral("missing"), m_dir.filePath(QStringLiteral("certs/no-such-file.pem"))},
        {QStringLiteral("garbage"), c.garbage},
        {QStringLiteral("p12"), c.clientP12},
        {QStringLiteral("client"), c.clientPem},
        {QStringLiteral("encrypted"), c.clientEncryptedKey},
    };
    TransportOptions transport;
    transport.caBundlePath = paths.value(caBundle);
    transport.clientCertificatePath = paths.value(certificate);
    transport.clientKeyPath = paths.value(key);
    transport.clientKeyPassphrase = passphrase;
    const Outcome o = send(url(m_trusted), transport);
    QCOMPARE(o.result.outcome, RequestOutcome::InvalidRequest);
    QCOMPARE(o.result.attempts, 0);
    QVERIFY(o.attempts.isEmpty());
    const QString &reason = o.result.reason;
    QVERIFY2(reason.contains(QDir::toNativeSeparators(paths.value(file))), qPrintable(reason));
    QVERIFY2(reason.contains(problem), qPrintable(reason));
    if (!passphrase.isEmpty())
        QVERIFY2(!reason.contains(passphrase), qPrintable(reason));
}

void TestExecutorTls::tlsFloor_data()
{
    QTest::addColumn<int>("floor"); // TransportOptions::TlsFloor
    QTest::addColumn<bool>("succeeds");
    QTest::addRow("any") << int(TransportOptions::TlsFloor::Any) << true;
    QTest::addRow("TLS 1.2") << int(TransportOptions::TlsFloor::Tls12) << true;
    QTest::addRow("TLS 1.3 against a server limited to 1.2") << int(TransportOptions::TlsFloor::Tls13) << false;
}

void TestExecutorTls::tlsFloor()
{
    QFETCH(int, floor);
    QFETCH(bool, succeeds);
    TransportOptions transport;
    transport.caBundlePath = m_certificates.caPem;
    transport.tlsFloor = TransportOptions::TlsFloor(floor);
    const Outcome o = send(url(m_tls12Only), transport);
    QCOMPARE(o.attempts.size(), 1);
    const AttemptRecord &a = o.attempts.first();
    if (succeeds) {
        QCOMPARE(o.result.outcome, RequestOutcome::Succeeded);
        QCOMPARE(a.tls.protocol, QStringLiteral("TLSv1.2"));
    } else {
        QCOMPARE(o.result.outcome, RequestOutcome::GaveUp);
        QCOMPARE(a.networkError, QNetworkReply::SslHandshakeFailedError);
        QCOMPARE(a.cause, QStringLiteral("tls-failure"));
        QVERIFY(a.tls.protocol.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestExecutorTls)
#include "tst_executortls.moc"
