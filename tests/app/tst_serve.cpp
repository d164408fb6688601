#include "tests/core/executor/realservers.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSslConfiguration>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <memory>
#include <vector>

#include <sys/resource.h>

class TestServe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void help_listsOptionsEndpointsAndSteps();
    void badArguments_exitWithUsage_data();
    void badArguments_exitWithUsage();
    void severalMistakes_theFirstIsNamed_data();
    void severalMistakes_theFirstIsNamed();
    void serve_printsUrlAndOneLinePerRequest_thenStopsOnSigterm();
    void serve_stopsCleanlyOnSigint();
    void quiet_printsOnlyTheUrl();
    void lowDescriptorLimit_capFitsAndTheServerKeepsServing();
    void requestCredentials_maskedUnlessNoRedact_data();
    void requestCredentials_maskedUnlessNoRedact();
    void httpsPort_servesTlsWithItsCaAndPrintsTheFaultPorts();
    void tlsCertificateFileUnusable_failsNamingIt();
    void encryptedKey_passFile_servesWithTheGivenCertificate();
    void encryptedKey_wrongOrMissingPassphrase_fails_data();
    void encryptedKey_wrongOrMissingPassphrase_fails();
    void replay_servesWhatProxyRecorded();

private:
    /// A server certificate signed by a CA of the suite's own, its key
    /// encrypted with "serve-passphrase", and a file holding that passphrase.
    void makeEncryptedKey();

    QTemporaryDir m_dir;
    RealServers::Certificates m_certificates;
    QString m_encryptedKey;
    QString m_passFile;

    /// Starts `retrylab serve` and waits for its URL; empty on failure.
    QUrl start(QProcess &process, const QStringList &options);
};

QUrl TestServe::start(QProcess &process, const QStringList &options)
{
    process.start(QStringLiteral(RETRYLAB_BINARY), QStringList{QStringLiteral("serve")} + options);
    if (!process.waitForStarted(10'000))
        return {};
    static const QRegularExpression listening(QStringLiteral("listening on (http://\\S+)"));
    QByteArray output;
    QRegularExpressionMatch match;
    const bool ended = QTest::qWaitFor(
        [&] {
            output += process.readAllStandardOutput();
            match = listening.match(QString::fromLocal8Bit(output));
            return match.hasMatch() || process.state() == QProcess::NotRunning;
        },
        10'000);
    return ended && match.hasMatch() ? QUrl(match.captured(1)) : QUrl();
}

void TestServe::help_listsOptionsEndpointsAndSteps()
{
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY), {QStringLiteral("serve"), QStringLiteral("--help")});
    QVERIFY(process.waitForFinished(10'000));
    QCOMPARE(process.exitCode(), 0);
    const QString help = QString::fromLocal8Bit(process.readAllStandardOutput());
    for (const char *expected :
        {"Usage: retrylab serve", "--port", "--bind", "--allow-non-loopback", "--seed", "--quiet", "/status/{code}",
            "/fault/drip", "/_control/tests", "return-<code>-after-<N>s", "reset-after-headers", "<step>*<K>",
            "--https-port", "--tls-cert", "--tls-key", "/_control/ca.pem", "unknown-ca", "tls-cut", "plain-http"}) {
        QVERIFY2(help.contains(QLatin1String(expected)), expected);
    }
}

void TestServe::badArguments_exitWithUsage_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("mentions");
    QTest::addRow("port not a number") << QStringList{QStringLiteral("--port"), QStringLiteral("abc")}
                                       << QStringLiteral("--port must be a whole number");
    QTest::addRow("port too large") << QStringList{QStringLiteral("--port"), QStringLiteral("70000")}
                                    << QStringLiteral("from 0 to 65535");
    QTest::addRow("bind not an address") << QStringList{QStringLiteral("--bind"), QStringLiteral("localhost:80")}
                                         << QStringLiteral("--bind needs an IP address");
    QTest::addRow("non-loopback without permission") << QStringList{QStringLiteral("--bind"),
        QStringLiteral("192.0.2.1")} << QStringLiteral("not a loopback address");
    QTest::addRow("unknown option") << QStringList{QStringLiteral("--frobnicate")} << QStringLiteral("frobnicate");
    QTest::addRow("stray argument") << QStringList{QStringLiteral("now")} << QStringLiteral("unexpected argument");
    QTest::addRow("seed not a number") << QStringList{QStringLiteral("--seed"), QStringLiteral("-1x")}
                                       << QStringLiteral("--seed must be");
    QTest::addRow("https port too large") << QStringList{QStringLiteral("--https-port"), QStringLiteral("65536")}
                                          << QStringLiteral("--https-port must be a whole number from 0 to 65535");
    QTest::addRow("certificate without https")
        << QStringList{QStringLiteral("--tls-cert"), QStringLiteral("c.pem")} << QStringLiteral("need --https-port");
    QTest::addRow("pass file without a key") << QStringList{QStringLiteral("--https-port"), QStringLiteral("0"),
        QStringLiteral("--tls-key-pass-file"), QStringLiteral("p.txt")}
                                             << QStringLiteral("--tls-key-pass-file needs --tls-key");
    QTest::addRow("fault without replay") << QStringList{QStringLiteral("--fault"), QStringLiteral("status=503")}
                                          << QStringLiteral("--fault needs --replay");
    QTest::addRow("replay of nothing") << QStringList{QStringLiteral("--replay"), QStringLiteral("/nonexistent/rec")}
                                       << QStringLiteral("--replay: /nonexistent/rec is no recording");
    QTest::addRow("replay over https") << QStringList{QStringLiteral("--replay"), QStringLiteral("/tmp"),
        QStringLiteral("--https-port"), QStringLiteral("0")}
                                       << QStringLiteral("--replay serves HTTP only");
    QTest::addRow("replay with a bad fault") << QStringList{QStringLiteral("--replay"), QStringLiteral("/tmp"),
        QStringLiteral("--fault"), QStringLiteral("p=2 status=503")}
                                             << QStringLiteral("p: must be a probability");
}

void TestServe::badArguments_exitWithUsage()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, mentions);
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY), QStringList{QStringLiteral("serve")} + arguments);
    QVERIFY(process.waitForFinished(10'000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 2);
    const QString error = QString::fromLocal8Bit(process.readAllStandardError());
    QVERIFY2(error.contains(mentions), qPrintable(error));
}

// The whole of standard error: the first mistake in the order the options are
// read, and the help hint only after the parser's own errors.
void TestServe::severalMistakes_theFirstIsNamed_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("error");
    QTest::addRow("parser's error, with the hint")
        << QStringList{QStringLiteral("--frobnicate"), QStringLiteral("--port"), QStringLiteral("abc")}
        << QStringLiteral("retrylab serve: Unknown option 'frobnicate'.; see retrylab serve --help\n");
    QTest::addRow("port before seed") << QStringList{QStringLiteral("--seed"), QStringLiteral("x"),
        QStringLiteral("--port"), QStringLiteral("abc")}
                                      << QStringLiteral("retrylab serve: --port must be a whole number from 0 to 65535 "
                                                        "(got \"abc\")\n");
    QTest::addRow("idle timeout before seed") << QStringList{QStringLiteral("--seed"), QStringLiteral("x"),
        QStringLiteral("--idle-timeout"), QStringLiteral("5")}
                                              << QStringLiteral("retrylab serve: --idle-timeout must be a whole number "
                                                                "from 100 to 3600000 (got \"5\")\n");
    QTest::addRow("seed before bind") << QStringList{QStringLiteral("--bind"), QStringLiteral("nowhere"),
        QStringLiteral("--seed"), QStringLiteral("x")}
                                      << QStringLiteral("retrylab serve: --seed must be a whole number (got \"x\")\n");
}

void TestServe::severalMistakes_theFirstIsNamed()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, error);
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY), QStringList{QStringLiteral("serve")} + arguments);
    QVERIFY(process.waitForFinished(10'000));
    QCOMPARE(process.exitCode(), 2);
    QCOMPARE(QString::fromLocal8Bit(process.readAllStandardError()), error);
    QVERIFY(process.readAllStandardOutput().isEmpty());
}

void TestServe::serve_printsUrlAndOneLinePerRequest_thenStopsOnSigterm()
{
    QProcess process;
    const QUrl base = start(
        process, {QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--seed"), QStringLiteral("7")});
    QVERIFY2(base.isValid(), process.readAllStandardError().constData());
    QCOMPARE(base.host(), QStringLiteral("127.0.0.1"));
    QVERIFY(base.port() > 0);

    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkReply *reply = manager.get(QNetworkRequest(QUrl(base.toString() + QStringLiteral("/status/503"))));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10'000);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 503);
    delete reply;

    QByteArray output;
    QTRY_VERIFY_WITH_TIMEOUT(
        (output += process.readAllStandardOutput()).contains("GET /status/503 -> 503 respond"), 10'000);

    process.terminate(); // SIGTERM
    QTRY_COMPARE_WITH_TIMEOUT(process.state(), QProcess::NotRunning, 10'000);
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(process.readAllStandardError().contains("stopped after 1 request"));
}

void TestServe::serve_stopsCleanlyOnSigint()
{
    // Ctrl+C, and the terminal closing (SIGHUP) alike.
    for (const int signal : {SIGINT, SIGHUP}) {
        QProcess process;
        QVERIFY(start(process, {}).isValid());
        ::kill(static_cast<pid_t>(process.processId()), signal);
        QTRY_COMPARE_WITH_TIMEOUT(process.state(), QProcess::NotRunning, 10'000);
        QVERIFY2(process.exitStatus() == QProcess::NormalExit, signal == SIGHUP ? "SIGHUP" : "SIGINT");
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(process.readAllStandardError().contains("stopped after"));
    }
}

void TestServe::lowDescriptorLimit_capFitsAndTheServerKeepsServing()
{
    // Under a hard limit of 256 descriptors the configured 2048 connections cannot be: the cap is derived from
    // what is left, connections beyond it are turned away at once, and the ones held are still served.
    QProcess process;
    process.setChildProcessModifier([] {
        rlimit limit{256, 256};
        ::setrlimit(RLIMIT_NOFILE, &limit);
    });
    process.start(QStringLiteral(RETRYLAB_BINARY),
        {QStringLiteral("serve"), QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--quiet")});
    static const QRegularExpression atMost(
        QStringLiteral(R"(listening on (http://\S+)[\s\S]*At most (\d+) connections at once \(file descriptors: 256)"));
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT(
        atMost.match(QString::fromUtf8(out += process.readAllStandardOutput())).hasMatch(), 10'000);
    const QRegularExpressionMatch match = atMost.match(QString::fromUtf8(out));
    const QUrl base(match.captured(1));
    const int cap = match.captured(2).toInt();
    QVERIFY2(cap > 10 && cap < 256 - 64, out.constData());

    std::vector<std::unique_ptr<QTcpSocket>> held;
    for (int i = 0; i < 400; ++i) {
        auto socket = std::make_unique<QTcpSocket>();
        socket->connectToHost(QHostAddress::LocalHost, quint16(base.port()));
        held.push_back(std::move(socket));
    }
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(held.cbegin(), held.cend(),
                                 [](const auto &s) { return s->state() != QAbstractSocket::ConnectingState; }),
        10'000);
    // With every slot held by an idle connection, a new client is still served: the longest idle gives way.
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    for (int i = 0; i < 3; ++i) {
        std::unique_ptr<QNetworkReply> reply(
            manager.get(QNetworkRequest(QUrl(base.toString() + QStringLiteral("/status/200")))));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10'000);
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    }
    // And once the held connections go, as usual.
    held.clear();
    std::unique_ptr<QNetworkReply> reply(
        manager.get(QNetworkRequest(QUrl(base.toString() + QStringLiteral("/status/200")))));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10'000);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QCOMPARE(process.state(), QProcess::Running);
    process.terminate();
    QTRY_COMPARE_WITH_TIMEOUT(process.state(), QProcess::NotRunning, 10'000);
}

void TestServe::quiet_printsOnlyTheUrl()
{
    QProcess process;
    const QUrl base = start(process, {QStringLiteral("--quiet")});
    QVERIFY(base.isValid());
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkReply *reply = manager.get(QNetworkRequest(QUrl(base.toString() + QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10'000);
    delete reply;
    process.terminate();
    QTRY_COMPARE_WITH_TIMEOUT(process.state(), QProcess::NotRunning, 10'000);
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(!process.readAllStandardOutput().contains("/status/200"));
    QVERIFY(process.readAllStandardError().contains("stopped after 1 request"));
}

void TestServe::requestCredentials_maskedUnlessNoRedact_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<bool>("shown");
    QTest::addRow("default") << QStringList{} << false;
    QTest::addRow("--no-redact") << QStringList{QStringLiteral("--no-redact")} << true;
}

void TestServe::requestCredentials_maskedUnlessNoRedact()
{
    QFETCH(QStringList, options);
    QFETCH(bool, shown);
    QProcess process;
    const QUrl base = start(process, options);
    QVERIFY2(base.isValid(), process.readAllStandardError().constData());

    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    manager.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    const auto get = [&](const QString &pathAndQuery) {
        QNetworkReply *reply = manager.get(QNetworkRequest(QUrl(base.toString() + pathAndQuery)));
        // QTRY_* returns from the function it is in: wait here, check the answer below.
        const bool answered = QTest::qWaitFor([reply] { return reply->isFinished(); }, 10'000);
        QByteArray body = answered ? reply->readAll() : QByteArray("(no answer)");
        delete reply;
        return body;
    };
    get(QStringLiteral("/status/200?token=tok-secret-1&api_key=key-secret-2&page=3"));
    // The target of a redirect carries a password in its user info.
    get(QStringLiteral("/redirect?to=http%3A%2F%2Fuser%3Apw-secret-3%40127.0.0.1%3A9%2Fx"));
    const QByteArray log = get(QStringLiteral("/_control/log"));
    QVERIFY2(log.contains("\"entries\"") || log.contains("/status/200"), log.constData());

    QByteArray output;
    QTRY_VERIFY_WITH_TIMEOUT((output += process.readAllStandardOutput()).contains("/redirect"), 10'000);
    process.terminate();
    QTRY_COMPARE_WITH_TIMEOUT(process.state(), QProcess::NotRunning, 10'000);
    output += process.readAllStandardOutput();

    for (const QByteArray &where : {output, log}) {
        QVERIFY2(where.contains("page=3"), where.constData());
        for (const char *secret : {"tok-secret-1", "key-secret-2", "pw-secret-3"})
            QVERIFY2(where.contains(secret) == shown, where.constData());
        QVERIFY2(where.contains("REDACTED") != shown, where.constData());
    }
}

void TestServe::httpsPort_servesTlsWithItsCaAndPrintsTheFaultPorts()
{
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY),
        {QStringLiteral("serve"), QStringLiteral("--https-port"), QStringLiteral("0")});
    QVERIFY(process.waitForStarted(10'000));
    static const QRegularExpression lines(
        QStringLiteral("listening on (http://\\S+)\n.*HTTPS on (https://\\S+) .*tls-alert (\\d+)"));
    QByteArray output;
    QRegularExpressionMatch match;
    QTRY_VERIFY_WITH_TIMEOUT(
        (match = lines.match(QString::fromLocal8Bit(output += process.readAllStandardOutput()))).hasMatch(), 10'000);
    const QUrl base(match.captured(1));
    const QUrl https(match.captured(2));
    const int alertPort = match.captured(3).toInt();

    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    const auto get = [&manager](const QUrl &url, const QList<QSslCertificate> &trust) {
        QNetworkRequest request(url);
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.addCaCertificates(trust);
        request.setSslConfiguration(tls);
        return std::unique_ptr<QNetworkReply>(manager.get(request));
    };
    const auto ca = get(QUrl(base.toString() + QStringLiteral("/_control/ca.pem")), {});
    QTRY_VERIFY_WITH_TIMEOUT(ca->isFinished(), 10'000);
    const QList<QSslCertificate> trust = QSslCertificate::fromData(ca->readAll(), QSsl::Pem);
    QCOMPARE(trust.size(), 1);
    const auto ok = get(QUrl(https.toString() + QStringLiteral("/status/200")), trust);
    QTRY_VERIFY_WITH_TIMEOUT(ok->isFinished(), 10'000);
    QCOMPARE(ok->error(), QNetworkReply::NoError);
    QCOMPARE(ok->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QUrl alertUrl = https;
    alertUrl.setPort(alertPort);
    const auto alert = get(alertUrl, trust);
    QTRY_VERIFY_WITH_TIMEOUT(alert->isFinished(), 10'000);
    QCOMPARE(alert->error(), QNetworkReply::SslHandshakeFailedError);
    QTRY_VERIFY_WITH_TIMEOUT((output += process.readAllStandardOutput()).contains("tls-alert (")
            && output.contains("GET /status/200 -> 200 respond") && output.contains("tls=pass"),
        10'000);

    process.terminate();
    QTRY_COMPARE_WITH_TIMEOUT(process.state(), QProcess::NotRunning, 10'000);
    QCOMPARE(process.exitCode(), 0);
}

void TestServe::tlsCertificateFileUnusable_failsNamingIt()
{
    QTemporaryFile notPem;
    QVERIFY(notPem.open());
    notPem.write("not a certificate\n");
    notPem.close();
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY),
        {QStringLiteral("serve"), QStringLiteral("--https-port"), QStringLiteral("0"), QStringLiteral("--tls-cert"),
            notPem.fileName(), QStringLiteral("--tls-key"), QStringLiteral("/nonexistent/key.pem")});
    QVERIFY(process.waitForFinished(10'000));
    QCOMPARE(process.exitCode(), 1);
    const QString error = QString::fromLocal8Bit(process.readAllStandardError());
    // The certificate file is read first.
    QVERIFY2(
        error.contains(notPem.fileName()) && error.contains(QStringLiteral("no PEM certificate")), qPrintable(error));
}

void TestServe::makeEncryptedKey()
{
    if (!m_encryptedKey.isEmpty())
        return;
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_certificates.make(m_dir.filePath(QStringLiteral("certificates")), &error), qPrintable(error));
    const QString key = m_dir.filePath(QStringLiteral("server-encrypted.key"));
    QVERIFY2(RealServers::run(RealServers::findProgram(QStringLiteral("openssl")),
                 {QStringLiteral("pkey"), QStringLiteral("-in"), m_certificates.serverKey, QStringLiteral("-aes256"),
                     QStringLiteral("-passout"), QStringLiteral("pass:serve-passphrase"), QStringLiteral("-out"), key},
                 m_dir.path(), &error),
        qPrintable(error));
    m_passFile = m_dir.filePath(QStringLiteral("pass.txt"));
    QVERIFY(RealServers::writeText(m_passFile, QStringLiteral("serve-passphrase\n")));
    m_encryptedKey = key;
}

void TestServe::encryptedKey_passFile_servesWithTheGivenCertificate()
{
    makeEncryptedKey();
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY),
        {QStringLiteral("serve"), QStringLiteral("--https-port"), QStringLiteral("0"), QStringLiteral("--tls-cert"),
            m_certificates.serverPem, QStringLiteral("--tls-key"), m_encryptedKey,
            QStringLiteral("--tls-key-pass-file"), m_passFile});
    QVERIFY(process.waitForStarted(10'000));
    static const QRegularExpression lines(QStringLiteral("HTTPS on (https://\\S+) "));
    QByteArray output;
    QRegularExpressionMatch match;
    QTRY_VERIFY2_WITH_TIMEOUT(
        (match = lines.match(QString::fromLocal8Bit(output += process.readAllStandardOutput()))).hasMatch()
            || process.state() == QProcess::NotRunning,
        qPrintable(QString::fromLocal8Bit(output + process.readAllStandardError())), 10'000);
    QVERIFY2(match.hasMatch(), qPrintable(QString::fromLocal8Bit(output + process.readAllStandardError())));

    // A client trusting the suite's CA reaches it: the certificate given is the one presented.
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(QUrl(match.captured(1) + QStringLiteral("/status/200")));
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.addCaCertificates(m_certificates.caPem);
    request.setSslConfiguration(tls);
    std::unique_ptr<QNetworkReply> reply(manager.get(request));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10'000);
    QCOMPARE(reply->error(), QNetworkReply::NoError);
    QCOMPARE(reply->sslConfiguration().peerCertificate().subjectInfo(QSslCertificate::CommonName),
        QStringList{QStringLiteral("localhost")});
    process.terminate();
    QTRY_COMPARE_WITH_TIMEOUT(process.state(), QProcess::NotRunning, 10'000);
}

void TestServe::encryptedKey_wrongOrMissingPassphrase_fails_data()
{
    makeEncryptedKey();
    QTest::addColumn<QStringList>("passOptions");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString wrong = m_dir.filePath(QStringLiteral("wrong-pass.txt"));
    QVERIFY(RealServers::writeText(wrong, QStringLiteral("PLANTED-WRONG\n")));
    QTest::addRow("wrong passphrase") << QStringList{QStringLiteral("--tls-key-pass-file"), wrong} << 1
                                      << m_encryptedKey;
    QTest::addRow("no passphrase") << QStringList{} << 1 << m_encryptedKey;
    QTest::addRow("missing pass file")
        << QStringList{QStringLiteral("--tls-key-pass-file"), m_dir.filePath(QStringLiteral("none.txt"))} << 2
        << QStringLiteral("--tls-key-pass-file %1: cannot read").arg(m_dir.filePath(QStringLiteral("none.txt")));
}

void TestServe::encryptedKey_wrongOrMissingPassphrase_fails()
{
    QFETCH(QStringList, passOptions);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY),
        QStringList{QStringLiteral("serve"), QStringLiteral("--https-port"), QStringLiteral("0"),
            QStringLiteral("--tls-cert"), m_certificates.serverPem, QStringLiteral("--tls-key"), m_encryptedKey}
            + passOptions);
    QVERIFY(process.waitForFinished(10'000));
    QCOMPARE(process.exitCode(), exitCode);
    const QString error = QString::fromLocal8Bit(process.readAllStandardError());
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY2(!error.contains(QLatin1String("PLANTED")), qPrintable(error));
}

// retrylab proxy --record in front of a fault server, then retrylab serve --replay of what it wrote, offline.
void TestServe::replay_servesWhatProxyRecorded()
{
    QProcess upstream;
    const QUrl upstreamUrl = start(upstream, {QStringLiteral("--quiet")});
    QVERIFY(upstreamUrl.isValid());
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("rec"));
    QProcess recorder;
    recorder.start(QStringLiteral(RETRYLAB_BINARY),
        {QStringLiteral("proxy"), QStringLiteral("--upstream"), upstreamUrl.toString(), QStringLiteral("--record"),
            folder, QStringLiteral("--quiet")});
    QVERIFY(recorder.waitForStarted(10'000));
    static const QRegularExpression proxyUrl(QStringLiteral("proxy on (http://\\S+) ->"));
    QByteArray output;
    QRegularExpressionMatch match;
    QVERIFY(QTest::qWaitFor(
        [&] {
            output += recorder.readAllStandardOutput();
            match = proxyUrl.match(QString::fromLocal8Bit(output));
            return match.hasMatch();
        },
        10'000));
    QNetworkAccessManager manager;
    const auto get = [&](const QUrl &url) {
        QNetworkReply *reply = manager.get(QNetworkRequest(url));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        finished.wait(20'000);
        reply->deleteLater();
        return std::pair{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    };
    const QUrl proxied(match.captured(1));
    QCOMPARE(get(proxied.resolved(QUrl(QStringLiteral("/status/418")))).first, 418);
    recorder.terminate();
    QVERIFY(recorder.waitForFinished(15'000));
    const QByteArray closing = recorder.readAllStandardOutput();
    QVERIFY2(closing.contains("answers recorded into ") && closing.contains(": 1"), closing.constData());
    upstream.terminate();
    QVERIFY(upstream.waitForFinished(15'000));

    QProcess replay;
    const QUrl replayUrl = start(replay,
        {QStringLiteral("--replay"), folder, QStringLiteral("--fault"),
            QStringLiteral("status=503 first=1 path=/status/418"), QStringLiteral("--seed"), QStringLiteral("1")});
    QVERIFY(replayUrl.isValid());
    QCOMPARE(get(replayUrl.resolved(QUrl(QStringLiteral("/status/418")))).first, 503);
    QCOMPARE(get(replayUrl.resolved(QUrl(QStringLiteral("/status/418")))).first, 418);
    const auto missing = get(replayUrl.resolved(QUrl(QStringLiteral("/status/419"))));
    QCOMPARE(missing.first, 404);
    QVERIFY2(missing.second.startsWith("not recorded: GET /status/419; nothing was recorded for /status/419"),
        missing.second.constData());
    replay.terminate();
    QVERIFY(replay.waitForFinished(15'000));
    const QString log = QString::fromLocal8Bit(replay.readAllStandardOutput());
    QVERIFY2(log.contains(QStringLiteral("GET /status/418 -> 418 replayed")), qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("404 not-recorded")), qPrintable(log));
}

QTEST_MAIN(TestServe)
#include "tst_serve.moc"
