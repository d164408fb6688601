#include "core/faultserver/faultserver.h"
#include "core/tls/certificatefactory.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QSslConfiguration>
#include <QSslError>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>

using namespace RetryLab::Core;

namespace {

/// What QNetworkAccessManager made of one GET.
struct QtOutcome
{
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QList<QSslError::SslError> sslErrors; ///< as the sslErrors() signal listed them
    int status = 0;
    QByteArray body;
    QString errorText;
    QSslCertificate peer;
};

/// What curl made of one GET.
struct CurlOutcome
{
    int exitCode = -1;
    QString errorText;
    QByteArray body;
};

/// "SelfSignedCertificate, HostNameMismatch", for messages.
QString namesOf(const QList<QSslError::SslError> &errors)
{
    QStringList names;
    for (const QSslError::SslError error : errors)
        names.append(QSslError(error).errorString());
    return names.join(QStringLiteral(", "));
}

QtOutcome getWithQt(const QUrl &url, const QList<QSslCertificate> &trust, const QByteArray &testId = {})
{
    // A manager of its own: no connection or TLS session kept from another row.
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(url);
    request.setTransferTimeout(10'000);
    if (!testId.isEmpty())
        request.setRawHeader("X-Retry-Test-Id", testId);
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.addCaCertificates(trust);
    request.setSslConfiguration(tls);
    std::unique_ptr<QNetworkReply> reply(manager.get(request));
    QtOutcome out;
    QObject::connect(reply.get(), &QNetworkReply::sslErrors, reply.get(), [&out](const QList<QSslError> &errors) {
        for (const QSslError &e : errors)
            out.sslErrors.append(e.error());
    });
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    // The server lives on this thread: wait with the event loop running.
    if (!reply->isFinished() && !finished.wait(15'000))
        reply->abort();
    out.error = reply->error();
    out.errorText = reply->errorString();
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.body = reply->readAll();
    out.peer = reply->sslConfiguration().peerCertificate();
    return out;
}

} // namespace

Q_DECLARE_METATYPE(RetryLab::Core::TlsFault)

class TestFaultServerTls : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void httpsIsOffByDefault();
    void https_servesEveryEndpointToAClientTrustingTheCa();
    void https_curlTrustingTheCa_gets200();
    void caPem_isServedOverHttpAndHttps();
    void scriptedTests_workOverHttps();

    void tlsFaults_qtNetworkError_data();
    void tlsFaults_qtNetworkError();
    void tlsFaults_curlExitCode_data();
    void tlsFaults_curlExitCode();
    void certificateFaults_clientThatAcceptsAnyway_reachesHttp_data();
    void certificateFaults_clientThatAcceptsAnyway_reachesHttp();

    void handshakeScript_failsThenPasses();
    void handshakeScript_overControlEndpoint();
    void handshakeScript_badStep_isRefused();

    void userCertificate_isPresented();
    void userCertificate_badFiles_listenNamesTheFile_data();
    void userCertificate_badFiles_listenNamesTheFile();
    void certificates_differBetweenStarts();
    void silentOrLeavingClients_areTimedOutAndLogged();
    void serverInWorkerThread_servesHttpsAndAnswersFromOtherThreads();
    void httpPort_keepsWorkingWhileTlsFaultsHappen();
    void usageText_listsTheTlsFaultsAndControlEndpoints();

private:
    CurlOutcome curl(const QStringList &arguments);
    /// The server's log entries since `before`, the number of entries then.
    QList<ServerLogEntry> logSince(qsizetype before) const { return m_server.log().mid(before); }
    QUrl http(const QString &path) const { return QUrl(m_server.baseUrl().toString() + path); }
    QUrl https(const QString &path) const { return QUrl(m_server.httpsBaseUrl().toString() + path); }
    QUrl faultUrl(TlsFault fault, const QString &path) const
    {
        return QUrl(m_server.tlsFaultUrl(fault).toString() + path);
    }

    FaultServer m_server;
    QTemporaryDir m_dir;
    QString m_caFile; ///< the server's CA, for curl --cacert
    QString m_curl;
};

void TestFaultServerTls::initTestCase()
{
    QVERIFY2(QSslSocket::supportsSsl(), "Qt has no TLS backend: install qt6-base-dev's OpenSSL plugin (libssl3)");
    QVERIFY(m_dir.isValid());
    FaultServerOptions options;
    options.httpsPort = 0;
    m_server.setOptions(options);
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
    QVERIFY(!m_server.httpsBaseUrl().isEmpty());
    QCOMPARE(m_server.httpsBaseUrl().scheme(), QStringLiteral("https"));
    QCOMPARE(m_server.httpsBaseUrl().host(), QStringLiteral("127.0.0.1"));
    QVERIFY(!m_server.caCertificate().isNull());
    m_caFile = m_dir.filePath(QStringLiteral("ca.pem"));
    QFile ca(m_caFile);
    QVERIFY(ca.open(QIODevice::WriteOnly));
    ca.write(m_server.caCertificate().toPem());
    ca.close();
    m_curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
}

void TestFaultServerTls::init()
{
    m_server.reset();
}

CurlOutcome TestFaultServerTls::curl(const QStringList &arguments)
{
    CurlOutcome out;
    if (m_curl.isEmpty()) {
        QTest::qFail("curl is missing: install the Debian package \"curl\" (scripts/deps.sh does)", __FILE__, __LINE__);
        return out;
    }
    QProcess process;
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(m_curl,
        QStringList{QStringLiteral("-sS"), QStringLiteral("--noproxy"), QStringLiteral("*"),
            QStringLiteral("--max-time"), QStringLiteral("10")}
            + arguments);
    if (!process.waitForStarted(10'000)) {
        out.errorText = process.errorString();
        return out;
    }
    // The server lives on this thread: wait with the event loop running.
    if (process.state() != QProcess::NotRunning && finished.isEmpty() && !finished.wait(20'000)) {
        process.kill();
        process.waitForFinished();
    }
    out.exitCode = process.exitCode();
    out.errorText = QString::fromLocal8Bit(process.readAllStandardError()).trimmed();
    out.body = process.readAllStandardOutput();
    return out;
}

void TestFaultServerTls::httpsIsOffByDefault()
{
    FaultServer server;
    QVERIFY(server.listen());
    QVERIFY(server.httpsBaseUrl().isEmpty());
    QVERIFY(server.caCertificate().isNull());
    QVERIFY(server.trustAnchorsPem().isEmpty());
    for (const TlsFault fault : TlsFaults::all())
        QVERIFY(server.tlsFaultUrl(fault).isEmpty());
    const auto script = server.setHandshakeScript({QStringLiteral("tls-cut")});
    QVERIFY(!script);
    QVERIFY2(script.error().contains(QStringLiteral("HTTPS")), qPrintable(script.error()));

    const QtOutcome ca = getWithQt(QUrl(server.baseUrl().toString() + QStringLiteral("/_control/ca.pem")), {});
    QCOMPARE(ca.status, 404);
    QVERIFY2(ca.body.contains("--https-port"), ca.body.constData());
}

void TestFaultServerTls::https_servesEveryEndpointToAClientTrustingTheCa()
{
    const QtOutcome ok = getWithQt(https(QStringLiteral("/status/200")), {m_server.caCertificate()});
    QVERIFY2(ok.error == QNetworkReply::NoError, qPrintable(ok.errorText));
    QCOMPARE(ok.status, 200);
    QVERIFY(ok.sslErrors.isEmpty());
    QCOMPARE(ok.peer.issuerInfo(QSslCertificate::CommonName),
        m_server.caCertificate().subjectInfo(QSslCertificate::CommonName));

    // Any endpoint: the same engine as the plain port.
    const QtOutcome fail = getWithQt(https(QStringLiteral("/fail/1?key=tls1")), {m_server.caCertificate()});
    QCOMPARE(fail.status, 503);
    const QtOutcome again = getWithQt(https(QStringLiteral("/fail/1?key=tls1")), {m_server.caCertificate()});
    QCOMPARE(again.status, 200);
    const QtOutcome delayed = getWithQt(https(QStringLiteral("/delay/50")), {m_server.caCertificate()});
    QCOMPARE(delayed.status, 200);

    // localhost is named by the certificate too.
    QUrl byName = https(QStringLiteral("/status/204"));
    byName.setHost(QStringLiteral("localhost"));
    const QtOutcome named = getWithQt(byName, {m_server.caCertificate()});
    QVERIFY2(named.error == QNetworkReply::NoError, qPrintable(named.errorText));
    QCOMPARE(named.status, 204);

    const QList<ServerLogEntry> log = m_server.log();
    QCOMPARE(log.size(), 5);
    for (const ServerLogEntry &entry : log)
        QCOMPARE(entry.tls, QStringLiteral("pass"));
    QCOMPARE(log.first().toJson().value(QStringLiteral("tls")).toString(), QStringLiteral("pass"));
    QVERIFY2(log.first().summary().contains(QStringLiteral("tls=pass")), qPrintable(log.first().summary()));
}

void TestFaultServerTls::https_curlTrustingTheCa_gets200()
{
    const CurlOutcome out
        = curl({QStringLiteral("--cacert"), m_caFile, https(QStringLiteral("/status/200")).toString()});
    QVERIFY2(out.exitCode == 0, qPrintable(QStringLiteral("exit %1: %2").arg(out.exitCode).arg(out.errorText)));
    QCOMPARE(out.body, QByteArray("{\"status\":200}\n"));
    // Without the CA the certificate is refused, and the server says so in its log.
    const qsizetype before = m_server.log().size();
    const CurlOutcome untrusted = curl({https(QStringLiteral("/status/200")).toString()});
    QCOMPARE(untrusted.exitCode, 60);
    QTRY_COMPARE(logSince(before).size(), 1);
    const ServerLogEntry refused = logSince(before).first();
    QCOMPARE(refused.action, QStringLiteral("tls-refused"));
    QCOMPARE(refused.tls, QStringLiteral("pass"));
    QVERIFY2(refused.detail.contains(QStringLiteral("unknown CA")), qPrintable(refused.detail));
}

void TestFaultServerTls::caPem_isServedOverHttpAndHttps()
{
    const QtOutcome overHttp = getWithQt(http(QStringLiteral("/_control/ca.pem")), {});
    QCOMPARE(overHttp.status, 200);
    QCOMPARE(overHttp.body, m_server.caCertificate().toPem());
    QCOMPARE(overHttp.body, m_server.trustAnchorsPem());
    const QList<QSslCertificate> parsed = QSslCertificate::fromData(overHttp.body, QSsl::Pem);
    QCOMPARE(parsed.size(), 1);
    QCOMPARE(parsed.first(), m_server.caCertificate());

    const QtOutcome overHttps = getWithQt(https(QStringLiteral("/_control/ca.pem")), {m_server.caCertificate()});
    QCOMPARE(overHttps.status, 200);
    QCOMPARE(overHttps.body, overHttp.body);

    const CurlOutcome headers = curl({QStringLiteral("-I"), http(QStringLiteral("/_control/ca.pem")).toString()});
    QCOMPARE(headers.exitCode, 0);
    QVERIFY2(headers.body.contains("Content-Type: application/x-pem-file"), headers.body.constData());

    // The ports, for clients that look them up.
    const QtOutcome tls = getWithQt(http(QStringLiteral("/_control/tls")), {});
    QCOMPARE(tls.status, 200);
    const QJsonObject json = QJsonDocument::fromJson(tls.body).object();
    QCOMPARE(json.value(QStringLiteral("https")).toString(), m_server.httpsBaseUrl().toString());
    QCOMPARE(json.value(QStringLiteral("ca")).toString(), QStringLiteral("/_control/ca.pem"));
    const QJsonObject faults = json.value(QStringLiteral("faults")).toObject();
    QCOMPARE(faults.size(), TlsFaults::all().size());
    for (const TlsFault fault : TlsFaults::all())
        QCOMPARE(faults.value(TlsFaults::name(fault)).toString(), m_server.tlsFaultUrl(fault).toString());
}

void TestFaultServerTls::scriptedTests_workOverHttps()
{
    const auto id = m_server.createTest({QStringLiteral("return-503"), QStringLiteral("return-429-after-1s")});
    QVERIFY(id);
    const QByteArray testId = id->toLatin1();
    QCOMPARE(getWithQt(https(QStringLiteral("/status/200")), {m_server.caCertificate()}, testId).status, 503);
    QCOMPARE(getWithQt(https(QStringLiteral("/status/200")), {m_server.caCertificate()}, testId).status, 429);
    QCOMPARE(getWithQt(https(QStringLiteral("/status/200")), {m_server.caCertificate()}, testId).status, 200);
    QCOMPARE(m_server.consumedInstructions(*id), 2);
}

// ---------------------------------------------------------------------------
// What each TLS fault looks like to a client. The table in docs/fault-server.md comes from here.

void TestFaultServerTls::tlsFaults_qtNetworkError_data()
{
    QTest::addColumn<TlsFault>("fault");
    QTest::addColumn<int>("error");
    QTest::addColumn<QList<QSslError::SslError>>("sslErrors");
    QTest::addColumn<QString>("serverAction"); // of the one log entry: Qt does not resend after a TLS failure

    using E = QSslError;
    using Errors = QList<QSslError::SslError>;
    QTest::addRow("pass") << TlsFault::Pass << int(QNetworkReply::NoError) << Errors{} << "respond";
    QTest::addRow("unknown-ca") << TlsFault::UnknownCa << int(QNetworkReply::SslHandshakeFailedError)
                                << Errors{E::UnableToGetLocalIssuerCertificate, E::UnableToVerifyFirstCertificate}
                                << "tls-refused";
    QTest::addRow("self-signed") << TlsFault::SelfSigned << int(QNetworkReply::SslHandshakeFailedError)
                                 << Errors{E::SelfSignedCertificate} << "tls-refused";
    QTest::addRow("expired") << TlsFault::Expired << int(QNetworkReply::SslHandshakeFailedError)
                             << Errors{E::CertificateExpired} << "tls-refused";
    QTest::addRow("wrong-host") << TlsFault::WrongHost << int(QNetworkReply::SslHandshakeFailedError)
                                << Errors{E::HostNameMismatch} << "tls-refused";
    // Not an SSL error for Qt: the connection closed, as after a reset of a plain connection.
    QTest::addRow("tls-cut") << TlsFault::HandshakeCut << int(QNetworkReply::RemoteHostClosedError) << Errors{}
                             << "tls-cut";
    QTest::addRow("tls-alert") << TlsFault::Alert << int(QNetworkReply::SslHandshakeFailedError) << Errors{}
                               << "tls-alert";
    QTest::addRow("plain-http") << TlsFault::PlainHttp << int(QNetworkReply::SslHandshakeFailedError) << Errors{}
                                << "plain-http";
}

void TestFaultServerTls::tlsFaults_qtNetworkError()
{
    QFETCH(TlsFault, fault);
    QFETCH(int, error);
    QFETCH(QList<QSslError::SslError>, sslErrors);
    QFETCH(QString, serverAction);

    const qsizetype before = m_server.log().size();
    const QtOutcome out = getWithQt(faultUrl(fault, QStringLiteral("/status/200")), {m_server.caCertificate()});
    QVERIFY2(out.error == error,
        qPrintable(
            QStringLiteral("error %1 (%2), sslErrors [%3]").arg(out.error).arg(out.errorText, namesOf(out.sslErrors))));
    QVERIFY2(out.sslErrors == sslErrors, qPrintable(QStringLiteral("sslErrors [%1]").arg(namesOf(out.sslErrors))));
    QCOMPARE(out.status, error == QNetworkReply::NoError ? 200 : 0);
    QCOMPARE(out.body, error == QNetworkReply::NoError ? QByteArray("{\"status\":200}\n") : QByteArray());
    QTRY_COMPARE(logSince(before).size(), 1);
    QCOMPARE(logSince(before).first().action, serverAction);
    QCOMPARE(logSince(before).first().tls, TlsFaults::name(fault));
}

void TestFaultServerTls::tlsFaults_curlExitCode_data()
{
    QTest::addColumn<TlsFault>("fault");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("serverAction");
    QTest::addColumn<QString>("serverDetail");

    QTest::addRow("pass") << TlsFault::Pass << 0 << QString() << "respond" << QString();
    QTest::addRow("unknown-ca") << TlsFault::UnknownCa << 60 << "unable to get local issuer certificate"
                                << "tls-refused"
                                << "alert \"unknown CA\"";
    QTest::addRow("self-signed") << TlsFault::SelfSigned << 60 << "self-signed certificate"
                                 << "tls-refused"
                                 << "alert \"unknown CA\"";
    QTest::addRow("expired") << TlsFault::Expired << 60 << "certificate has expired"
                             << "tls-refused"
                             << "alert \"certificate expired\"";
    // curl checks the host name after the handshake, and leaves without a word.
    QTest::addRow("wrong-host") << TlsFault::WrongHost << 60 << "no alternative certificate subject name matches"
                                << "tls-closed"
                                << "without sending a request";
    QTest::addRow("tls-cut") << TlsFault::HandshakeCut << 35 << "Connection reset by peer"
                             << "tls-cut"
                             << "sent 33 bytes of a 127-byte ServerHello";
    QTest::addRow("tls-alert") << TlsFault::Alert << 35 << "alert handshake failure"
                               << "tls-alert"
                               << "handshake_failure";
    QTest::addRow("plain-http") << TlsFault::PlainHttp << 35 << "wrong version number"
                                << "plain-http"
                                << "400 Bad Request";
}

void TestFaultServerTls::tlsFaults_curlExitCode()
{
    QFETCH(TlsFault, fault);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QFETCH(QString, serverAction);
    QFETCH(QString, serverDetail);

    const qsizetype before = m_server.log().size();
    const CurlOutcome out
        = curl({QStringLiteral("--cacert"), m_caFile, faultUrl(fault, QStringLiteral("/status/200")).toString()});
    QVERIFY2(out.exitCode == exitCode, qPrintable(QStringLiteral("exit %1: %2").arg(out.exitCode).arg(out.errorText)));
    QVERIFY2(out.errorText.contains(message), qPrintable(out.errorText));
    QTRY_COMPARE(logSince(before).size(), 1);
    const ServerLogEntry entry = logSince(before).first();
    QCOMPARE(entry.action, serverAction);
    QVERIFY2(entry.detail.contains(serverDetail), qPrintable(entry.detail));
}

void TestFaultServerTls::certificateFaults_clientThatAcceptsAnyway_reachesHttp_data()
{
    QTest::addColumn<TlsFault>("fault");
    for (const TlsFault fault : TlsFaults::all()) {
        if (TlsFaults::presentsCertificate(fault))
            QTest::addRow("%s", qPrintable(TlsFaults::name(fault))) << fault;
    }
}

void TestFaultServerTls::certificateFaults_clientThatAcceptsAnyway_reachesHttp()
{
    QFETCH(TlsFault, fault);
    const qsizetype before = m_server.log().size();
    const CurlOutcome out
        = curl({QStringLiteral("--insecure"), faultUrl(fault, QStringLiteral("/status/201")).toString()});
    QVERIFY2(out.exitCode == 0, qPrintable(out.errorText));
    QCOMPARE(out.body, QByteArray("{\"status\":201}\n"));
    const QList<ServerLogEntry> log = logSince(before);
    QCOMPARE(log.size(), 1);
    QCOMPARE(log.first().status, 201);
    QCOMPARE(log.first().tls, TlsFaults::name(fault));
}

// ---------------------------------------------------------------------------
// The handshake script

void TestFaultServerTls::handshakeScript_failsThenPasses()
{
    QVERIFY(m_server.setHandshakeScript({QStringLiteral("tls-alert"), QStringLiteral("expired*2")}));
    QCOMPARE(m_server.handshakeScript(),
        QStringList({QStringLiteral("tls-alert"), QStringLiteral("expired"), QStringLiteral("expired")}));
    const QList<QSslCertificate> trust{m_server.caCertificate()};
    const QtOutcome first = getWithQt(https(QStringLiteral("/status/200")), trust);
    QCOMPARE(first.error, QNetworkReply::SslHandshakeFailedError);
    QCOMPARE(m_server.handshakeScript().size(), 2);
    const CurlOutcome second
        = curl({QStringLiteral("--cacert"), m_caFile, https(QStringLiteral("/status/200")).toString()});
    QCOMPARE(second.exitCode, 60);
    const QtOutcome third = getWithQt(https(QStringLiteral("/status/200")), trust);
    QCOMPARE(third.sslErrors, QList<QSslError::SslError>{QSslError::CertificateExpired});
    QVERIFY(m_server.handshakeScript().isEmpty());
    const QtOutcome fourth = getWithQt(https(QStringLiteral("/status/200")), trust);
    QVERIFY2(fourth.error == QNetworkReply::NoError, qPrintable(fourth.errorText));
    QCOMPARE(fourth.status, 200);
}

void TestFaultServerTls::handshakeScript_overControlEndpoint()
{
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(http(QStringLiteral("/_control/tls/handshakes")));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    std::unique_ptr<QNetworkReply> posted(manager.post(request, R"({"steps": ["tls-cut*2", "pass"]})"));
    QSignalSpy postedSpy(posted.get(), &QNetworkReply::finished);
    QVERIFY(postedSpy.wait(5000));
    QCOMPARE(posted->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QCOMPARE(m_server.handshakeScript(),
        QStringList({QStringLiteral("tls-cut"), QStringLiteral("tls-cut"), QStringLiteral("pass")}));

    const QJsonObject described
        = QJsonDocument::fromJson(getWithQt(http(QStringLiteral("/_control/tls")), {}).body).object();
    QCOMPARE(described.value(QStringLiteral("handshakeScript")).toArray().size(), 3);

    const CurlOutcome cut
        = curl({QStringLiteral("--cacert"), m_caFile, https(QStringLiteral("/status/200")).toString()});
    QCOMPARE(cut.exitCode, 35);
    QCOMPARE(m_server.handshakeScript().size(), 2);

    std::unique_ptr<QNetworkReply> deleted(manager.deleteResource(request));
    QSignalSpy deletedSpy(deleted.get(), &QNetworkReply::finished);
    QVERIFY(deletedSpy.wait(5000));
    QCOMPARE(deleted->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QVERIFY(m_server.handshakeScript().isEmpty());
    QCOMPARE(curl({QStringLiteral("--cacert"), m_caFile, https(QStringLiteral("/status/200")).toString()}).exitCode, 0);

    // POST /_control/reset forgets it too.
    QVERIFY(m_server.setHandshakeScript({QStringLiteral("tls-alert")}));
    m_server.reset();
    QVERIFY(m_server.handshakeScript().isEmpty());
}

void TestFaultServerTls::handshakeScript_badStep_isRefused()
{
    QVERIFY(m_server.setHandshakeScript({QStringLiteral("expired")}));
    const auto bad = m_server.setHandshakeScript({QStringLiteral("tls-cut"), QStringLiteral("tls-explode")});
    QVERIFY(!bad);
    QVERIFY2(bad.error().contains(QStringLiteral("step 2")) && bad.error().contains(QStringLiteral("tls-explode")),
        qPrintable(bad.error()));
    QCOMPARE(m_server.handshakeScript(), QStringList{QStringLiteral("expired")}); // unchanged
    QVERIFY(!m_server.setHandshakeScript({QStringLiteral("tls-cut*0")}));
    QVERIFY(!m_server.setHandshakeScript({QStringLiteral("tls-cut*1001")}));

    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(http(QStringLiteral("/_control/tls/handshakes")));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    for (const QByteArray &body : {QByteArray(R"({"steps": ["nope"]})"), QByteArray(R"({"steps": "tls-cut"})"),
             QByteArray("not json"), QByteArray(R"({"steps": [1]})")}) {
        std::unique_ptr<QNetworkReply> reply(manager.post(request, body));
        QSignalSpy spy(reply.get(), &QNetworkReply::finished);
        QVERIFY(spy.wait(5000));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 400);
    }
    QCOMPARE(m_server.handshakeScript(), QStringList{QStringLiteral("expired")});
}

// ---------------------------------------------------------------------------
// Certificates

namespace {

/// A CA and a server certificate for 127.0.0.1 signed by it, made at test time.
struct UserPki
{
    IssuedCertificate ca;
    IssuedCertificate server;
};

UserPki makeUserPki(const QString &commonName)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    CertificateRequest ca;
    ca.commonName = commonName + QStringLiteral(" CA");
    ca.organization = QStringLiteral("RetryLab tests");
    ca.certificateAuthority = true;
    ca.notBefore = now.addSecs(-60);
    ca.notAfter = now.addDays(1);
    const auto caMade = CertificateFactory::selfSigned(ca);
    CertificateRequest server = ca;
    server.commonName = commonName;
    server.certificateAuthority = false;
    server.ipAddresses = {QHostAddress(QHostAddress::LocalHost)};
    const auto serverMade = CertificateFactory::issue(server, *caMade);
    return {*caMade, *serverMade};
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

} // namespace

void TestFaultServerTls::userCertificate_isPresented()
{
    const UserPki pki = makeUserPki(QStringLiteral("user-given.test"));
    const QString certFile = m_dir.filePath(QStringLiteral("user-cert.pem"));
    const QString keyFile = m_dir.filePath(QStringLiteral("user-key.pem"));
    QVERIFY(writeFile(certFile, pki.server.certificate.toPem() + pki.ca.certificate.toPem()));
    QVERIFY(writeFile(keyFile, pki.server.privateKey.toPem("secret phrase")));

    FaultServerOptions options;
    options.httpsPort = 0;
    options.tlsCertificateFile = certFile;
    options.tlsKeyFile = keyFile;
    options.tlsKeyPassphrase = "secret phrase";
    FaultServer server(options);
    QVERIFY2(server.listen(), qPrintable(server.errorString()));

    const QtOutcome out
        = getWithQt(QUrl(server.httpsBaseUrl().toString() + QStringLiteral("/status/200")), {pki.ca.certificate});
    QVERIFY2(out.error == QNetworkReply::NoError, qPrintable(out.errorText + namesOf(out.sslErrors)));
    QCOMPARE(out.status, 200);
    QCOMPARE(out.peer, pki.server.certificate);
    // Trusting the generated CA is not enough for the user's certificate...
    const QtOutcome generatedOnly
        = getWithQt(QUrl(server.httpsBaseUrl().toString() + QStringLiteral("/status/200")), {server.caCertificate()});
    QCOMPARE(generatedOnly.error, QNetworkReply::SslHandshakeFailedError);
    // ...so the anchors served add the last certificate of the user's file; the faults keep theirs.
    const QList<QSslCertificate> anchors = QSslCertificate::fromData(server.trustAnchorsPem(), QSsl::Pem);
    QCOMPARE(anchors, QList<QSslCertificate>({server.caCertificate(), pki.ca.certificate}));
    const QtOutcome expired
        = getWithQt(QUrl(server.tlsFaultUrl(TlsFault::Expired).toString() + QStringLiteral("/")), anchors);
    QCOMPARE(expired.sslErrors, QList<QSslError::SslError>{QSslError::CertificateExpired});
}

void TestFaultServerTls::userCertificate_badFiles_listenNamesTheFile_data()
{
    QTest::addColumn<QString>("certName"); // empty: none given
    QTest::addColumn<QByteArray>("certBytes"); // written unless the name starts with "missing"
    QTest::addColumn<QString>("keyName");
    QTest::addColumn<QByteArray>("keyBytes");
    QTest::addColumn<QByteArray>("passphrase");
    QTest::addColumn<QString>("blamed"); // the file the error names
    QTest::addColumn<QString>("reason");

    const UserPki pki = makeUserPki(QStringLiteral("bad-files.test"));
    const UserPki other = makeUserPki(QStringLiteral("other.test"));
    const QByteArray cert = pki.server.certificate.toPem();
    const QByteArray key = pki.server.privateKey.toPem();

    QTest::addRow("key file missing") << "cert.pem" << cert << "missing-key.pem" << QByteArray() << QByteArray()
                                      << "missing-key.pem"
                                      << "cannot read";
    QTest::addRow("key file not PEM") << "cert.pem" << cert << "garbage-key.pem" << QByteArray("\x01\x02 no key here")
                                      << QByteArray() << "garbage-key.pem"
                                      << "no PEM private key";
    QByteArrayList lines = key.split('\n');
    lines.removeAt(1);
    QTest::addRow("key file truncated") << "cert.pem" << cert << "truncated-key.pem" << lines.join('\n') << QByteArray()
                                        << "truncated-key.pem"
                                        << "damaged";
    // The private number damaged, the public key beside it intact: only a signature tells.
    QTest::addRow("private number damaged")
        << "cert.pem" << cert << "damaged-key.pem" << QByteArray(key).replace(40, 20, QByteArray(20, 'A'))
        << QByteArray() << "damaged-key.pem"
        << "or it is damaged";
    QTest::addRow("key of another certificate")
        << "cert.pem" << cert << "other-key.pem" << other.server.privateKey.toPem() << QByteArray() << "other-key.pem"
        << "does not belong";
    QTest::addRow("encrypted key, no passphrase")
        << "cert.pem" << cert << "encrypted-key.pem" << pki.server.privateKey.toPem("right") << QByteArray()
        << "encrypted-key.pem"
        << "no passphrase";
    QTest::addRow("encrypted key, wrong passphrase")
        << "cert.pem" << cert << "encrypted-key.pem" << pki.server.privateKey.toPem("right") << QByteArray("wrong")
        << "encrypted-key.pem"
        << "passphrase";
    QTest::addRow("certificate file missing")
        << "missing-cert.pem" << QByteArray() << "key.pem" << key << QByteArray() << "missing-cert.pem"
        << "cannot read";
    QTest::addRow("certificate file not PEM")
        << "garbage-cert.pem" << QByteArray("hello") << "key.pem" << key << QByteArray() << "garbage-cert.pem"
        << "no PEM certificate";
    QTest::addRow("certificate without key")
        << "cert.pem" << cert << QString() << QByteArray() << QByteArray() << "cert.pem"
        << "give both";
}

void TestFaultServerTls::userCertificate_badFiles_listenNamesTheFile()
{
    QFETCH(QString, certName);
    QFETCH(QByteArray, certBytes);
    QFETCH(QString, keyName);
    QFETCH(QByteArray, keyBytes);
    QFETCH(QByteArray, passphrase);
    QFETCH(QString, blamed);
    QFETCH(QString, reason);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FaultServerOptions options;
    options.httpsPort = 0;
    options.tlsKeyPassphrase = passphrase;
    if (!certName.isEmpty()) {
        options.tlsCertificateFile = dir.filePath(certName);
        if (!certName.startsWith(QLatin1String("missing")))
            QVERIFY(writeFile(options.tlsCertificateFile, certBytes));
    }
    if (!keyName.isEmpty()) {
        options.tlsKeyFile = dir.filePath(keyName);
        if (!keyName.startsWith(QLatin1String("missing")))
            QVERIFY(writeFile(options.tlsKeyFile, keyBytes));
    }
    FaultServer server(options);
    QVERIFY(!server.listen());
    const QString error = server.errorString();
    QVERIFY2(error.contains(dir.filePath(blamed)), qPrintable(error));
    QVERIFY2(error.contains(reason), qPrintable(error));
    // Nothing listens after a refused start: not the HTTP port either.
    QVERIFY(!server.isListening());
    QVERIFY(server.baseUrl().isEmpty());
    QVERIFY(server.httpsBaseUrl().isEmpty());
    // The files are as they were.
    if (!keyName.isEmpty() && !keyName.startsWith(QLatin1String("missing"))) {
        QFile key(options.tlsKeyFile);
        QVERIFY(key.open(QIODevice::ReadOnly));
        QCOMPARE(key.readAll(), keyBytes);
    }
}

void TestFaultServerTls::certificates_differBetweenStarts()
{
    FaultServerOptions options;
    options.httpsPort = 0;
    FaultServer server(options);
    QVERIFY(server.listen());
    const QSslCertificate firstCa = server.caCertificate();
    const QtOutcome first = getWithQt(QUrl(server.httpsBaseUrl().toString() + QStringLiteral("/")), {firstCa});
    QCOMPARE(first.status, 200);
    server.close();
    QVERIFY(server.caCertificate().isNull());
    QVERIFY(server.listen());
    const QSslCertificate secondCa = server.caCertificate();
    const QtOutcome second = getWithQt(QUrl(server.httpsBaseUrl().toString() + QStringLiteral("/")), {secondCa});
    QCOMPARE(second.status, 200);

    QVERIFY(firstCa != secondCa);
    QVERIFY(firstCa.publicKey().toDer() != secondCa.publicKey().toDer());
    QVERIFY(firstCa.serialNumber() != secondCa.serialNumber());
    QVERIFY(first.peer != second.peer);
    QVERIFY(first.peer.publicKey().toDer() != second.peer.publicKey().toDer());
    // The old CA does not open the new server.
    const QtOutcome stale = getWithQt(QUrl(server.httpsBaseUrl().toString() + QStringLiteral("/")), {firstCa});
    QCOMPARE(stale.error, QNetworkReply::SslHandshakeFailedError);
}

void TestFaultServerTls::silentOrLeavingClients_areTimedOutAndLogged()
{
    FaultServerOptions options;
    options.httpsPort = 0;
    options.idleTimeoutMs = 300;
    FaultServer server(options);
    QVERIFY(server.listen());
    const auto connectTo = [](QTcpSocket &socket, const QUrl &url) {
        socket.connectToHost(QHostAddress(QHostAddress::LocalHost), static_cast<quint16>(url.port()));
        return socket.waitForConnected(5000);
    };
    QTcpSocket silentTls; // says nothing to the HTTPS port
    QTcpSocket silentRaw; // says nothing to a handshake fault's port
    QTcpSocket leaving; // starts a ClientHello and leaves
    QVERIFY(connectTo(silentTls, server.httpsBaseUrl()));
    QVERIFY(connectTo(silentRaw, server.tlsFaultUrl(TlsFault::Alert)));
    QVERIFY(connectTo(leaving, server.tlsFaultUrl(TlsFault::HandshakeCut)));
    leaving.write(QByteArray::fromHex("1603010200")); // a record header announcing 512 bytes
    QVERIFY(leaving.waitForBytesWritten(5000));
    leaving.disconnectFromHost();

    QTRY_COMPARE_WITH_TIMEOUT(server.log().size(), 3, 5000);
    QStringList seen;
    for (const ServerLogEntry &e : server.log())
        seen.append(e.tls + QLatin1Char(' ') + e.action);
    seen.sort();
    QCOMPARE(seen,
        QStringList({QStringLiteral("pass tls-timeout"), QStringLiteral("tls-alert tls-timeout"),
            QStringLiteral("tls-cut client-closed")}));
    QTRY_COMPARE_WITH_TIMEOUT(silentTls.state(), QAbstractSocket::UnconnectedState, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(silentRaw.state(), QAbstractSocket::UnconnectedState, 5000);
}

void TestFaultServerTls::serverInWorkerThread_servesHttpsAndAnswersFromOtherThreads()
{
    QThread worker;
    FaultServerOptions options;
    options.httpsPort = 0;
    auto *server = new FaultServer(options);
    server->moveToThread(&worker);
    worker.start();
    bool listening = false;
    QMetaObject::invokeMethod(
        server, [server, &listening] { listening = server->listen(); }, Qt::BlockingQueuedConnection);
    QVERIFY(listening);

    // From this thread: the URLs, the CA, the script.
    const QSslCertificate ca = server->caCertificate();
    QVERIFY(!ca.isNull());
    QVERIFY(!server->tlsFaultUrl(TlsFault::Expired).isEmpty());
    QVERIFY(server->setHandshakeScript({QStringLiteral("tls-alert")}));
    const QUrl url(server->httpsBaseUrl().toString() + QStringLiteral("/status/200"));
    QCOMPARE(getWithQt(url, {ca}).error, QNetworkReply::SslHandshakeFailedError);
    const QtOutcome ok = getWithQt(url, {ca});
    QVERIFY2(ok.error == QNetworkReply::NoError, qPrintable(ok.errorText));
    QCOMPARE(ok.status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(server->log().size(), 2, 5000);
    QCOMPARE(server->log().first().action, QStringLiteral("tls-alert"));

    QMetaObject::invokeMethod(
        server, [server] { delete server; }, Qt::BlockingQueuedConnection);
    worker.quit();
    QVERIFY(worker.wait(5000));
}

void TestFaultServerTls::httpPort_keepsWorkingWhileTlsFaultsHappen()
{
    // Every TLS fault at once, with Qt and curl, while plain HTTP requests go on.
    QVERIFY2(!m_curl.isEmpty(), "curl is missing: install the Debian package \"curl\" (scripts/deps.sh does)");
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    std::vector<std::unique_ptr<QNetworkReply>> tlsReplies;
    std::vector<std::unique_ptr<QProcess>> curls;
    for (const TlsFault fault : TlsFaults::all()) {
        for (int i = 0; i < 3; ++i) {
            tlsReplies.emplace_back(manager.get(QNetworkRequest(faultUrl(fault, QStringLiteral("/delay/20")))));
        }
        auto process = std::make_unique<QProcess>();
        process->start(m_curl,
            {QStringLiteral("-s"), QStringLiteral("--max-time"), QStringLiteral("10"),
                faultUrl(fault, QStringLiteral("/status/200")).toString()});
        curls.push_back(std::move(process));
    }
    std::vector<std::unique_ptr<QNetworkReply>> httpReplies;
    for (int i = 0; i < 40; ++i)
        httpReplies.emplace_back(manager.get(QNetworkRequest(http(QStringLiteral("/status/200?n=%1").arg(i)))));

    const auto allFinished = [](const auto &replies) {
        return std::all_of(replies.begin(), replies.end(), [](const auto &r) { return r->isFinished(); });
    };
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(httpReplies), 15'000);
    for (const auto &reply : httpReplies) {
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    }
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(tlsReplies), 15'000);
    for (const auto &reply : tlsReplies)
        QVERIFY(reply->error() != QNetworkReply::NoError);
    for (const auto &process : curls) {
        QTRY_COMPARE_WITH_TIMEOUT(process->state(), QProcess::NotRunning, 15'000);
        QVERIFY(process->exitCode() != 0);
    }
    // And after them.
    QCOMPARE(getWithQt(http(QStringLiteral("/status/200")), {}).status, 200);
    QCOMPARE(getWithQt(https(QStringLiteral("/status/200")), {m_server.caCertificate()}).status, 200);
}

void TestFaultServerTls::usageText_listsTheTlsFaultsAndControlEndpoints()
{
    const QString text = FaultServer::usageText();
    for (const TlsFault fault : TlsFaults::all()) {
        QVERIFY2(text.contains(TlsFaults::name(fault)), qPrintable(TlsFaults::name(fault)));
        QVERIFY(text.contains(TlsFaults::description(fault)));
    }
    for (const char *path : {"/_control/ca.pem", "/_control/tls", "/_control/tls/handshakes"})
        QVERIFY2(text.contains(QLatin1String(path)), path);
}

QTEST_GUILESS_MAIN(TestFaultServerTls)
#include "tst_faultservertls.moc"
