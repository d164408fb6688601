// The executor's HTTP version option against a real nginx on 127.0.0.1:
// HTTP/2 over TLS by ALPN, cleartext HTTP/2 with prior knowledge (nginx's
// `listen ... http2` without ssl), HTTP/1.1 by default; and retries over one
// multiplexed HTTP/2 connection, nginx passing the requests to the project's
// fault server (/fail/2), counted by the executor, the fault server and
// nginx's own access log alike.

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "tests/core/executor/realservers.h"

#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace RetryLab::Core;

namespace {

BackoffPolicy fastPolicy()
{
    BackoffPolicy p;
    p.algorithm = BackoffAlgorithm::Exponential;
    p.baseDelayMs = 20;
    p.multiplier = 2;
    p.maxBackoffMs = 100;
    p.maxAttempts = 5;
    p.attemptTimeoutMs = 10'000;
    return p;
}

// One line of the access log (see RealServers::Nginx): port, connection,
// requests on it, protocol, TLS version, request line, status.
struct AccessLine
{
    int port = 0;
    QString connection;
    QString protocol;
    QString request;
    int status = 0;
};

QList<AccessLine> accessLines(const QString &log)
{
    static const QRegularExpression line(QStringLiteral("^(\\d+) (\\d+) (\\d+) (\\S+) (\\S+) \"([^\"]*)\" (\\d+)$"),
        QRegularExpression::MultilineOption);
    QList<AccessLine> lines;
    for (auto it = line.globalMatch(log); it.hasNext();) {
        const auto match = it.next();
        lines.append({match.captured(1).toInt(), match.captured(2), match.captured(4), match.captured(6),
            match.captured(7).toInt()});
    }
    return lines;
}

} // namespace

class TestExecutorHttp2 : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void overTls_protocolAsAsked_data();
    void overTls_protocolAsAsked();
    void cleartext_priorKnowledgeOnly_data();
    void cleartext_priorKnowledgeOnly();
    void retries_overOneMultiplexedConnection_countedRight();

private:
    QList<AttemptRecord> sendOne(const QUrl &url, TransportOptions::HttpVersion version, RequestResult *result);
    QString lastRequestOn(quint16 port, const QString &path) const;

    QTemporaryDir m_dir;
    RealServers::Certificates m_certificates;
    FaultServer m_faultServer;
    std::unique_ptr<RealServers::Nginx> m_nginx;
    quint16 m_tls = 0; ///< HTTPS, HTTP/2 offered by ALPN
    quint16 m_h2c = 0; ///< cleartext HTTP/2 with prior knowledge only
    quint16 m_plain = 0; ///< cleartext HTTP/1.1
    int m_tlsServer = -1; ///< their indexes in m_nginx
    int m_h2cServer = -1;
    int m_plainServer = -1;
};

void TestExecutorHttp2::initTestCase()
{
    QVERIFY2(!RealServers::findProgram(QStringLiteral("openssl")).isEmpty(),
        RealServers::missingProgram(QStringLiteral("openssl"), QStringLiteral("openssl")).constData());
    const QByteArray nginxProblem = RealServers::Nginx::checkInstalled();
    QVERIFY2(nginxProblem.isEmpty(), nginxProblem.constData());
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_certificates.make(m_dir.filePath(QStringLiteral("certs")), &error), qPrintable(error));
    FaultServerOptions options;
    options.redactLog = false; // the log shows the keys of /fail/2?key=
    m_faultServer.setOptions(options);
    QVERIFY2(m_faultServer.listen(), qPrintable(m_faultServer.errorString()));

    m_nginx = std::make_unique<RealServers::Nginx>(m_dir.filePath(QStringLiteral("nginx")));
    const QString locations = QStringLiteral("        location = /hello { return 200 \"hello $server_protocol\\n\"; }\n"
                                             "        location /fail/ {\n"
                                             "            proxy_pass http://127.0.0.1:%1;\n"
                                             "            proxy_http_version 1.1;\n"
                                             "            proxy_set_header Connection \"\";\n"
                                             "        }\n")
                                  .arg(m_faultServer.serverPort());
    m_tlsServer = m_nginx->addServer(QStringLiteral("ssl http2"),
        QStringLiteral("        ssl_certificate %1;\n        ssl_certificate_key %2;\n"
                       "        ssl_protocols TLSv1.2 TLSv1.3;\n%3")
            .arg(m_certificates.serverPem, m_certificates.serverKey, locations));
    m_h2cServer = m_nginx->addServer(QStringLiteral("http2"), locations);
    m_plainServer = m_nginx->addServer(QString(), locations);
    QVERIFY2(m_nginx->start(&error), qPrintable(error));
    m_tls = m_nginx->port(m_tlsServer);
    m_h2c = m_nginx->port(m_h2cServer);
    m_plain = m_nginx->port(m_plainServer);
}

void TestExecutorHttp2::cleanupTestCase()
{
    if (m_nginx)
        m_nginx->stop();
}

QList<AttemptRecord> TestExecutorHttp2::sendOne(
    const QUrl &url, TransportOptions::HttpVersion version, RequestResult *result)
{
    // A fresh executor for each: its managers and connections start empty.
    RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    QList<AttemptRecord> attempts;
    connect(&executor, &RetryExecutor::attemptFinished, &executor,
        [&attempts](const AttemptRecord &record) { attempts.append(record); });
    QSignalSpy finished(&executor, &RetryExecutor::requestFinished);
    RequestSpec spec;
    spec.url = url;
    spec.transport.httpVersion = version;
    if (url.scheme() == QLatin1String("https"))
        spec.transport.caBundlePath = m_certificates.caPem;
    executor.submit(spec);
    if (finished.wait(20'000))
        *result = finished.first().first().value<RequestResult>();
    return attempts;
}

QString TestExecutorHttp2::lastRequestOn(quint16 port, const QString &path) const
{
    QString protocol;
    for (const AccessLine &line : accessLines(m_nginx->accessLog())) {
        if (line.port == port && line.request.contains(path))
            protocol = line.protocol;
    }
    return protocol;
}

void TestExecutorHttp2::overTls_protocolAsAsked_data()
{
    QTest::addColumn<int>("version"); // TransportOptions::HttpVersion
    QTest::addColumn<QString>("recorded");
    QTest::addColumn<QString>("nginxSaw");
    QTest::addRow("HTTP/1.1 by default") << int(TransportOptions::HttpVersion::Http1) << QStringLiteral("HTTP/1.1")
                                         << QStringLiteral("HTTP/1.1");
    QTest::addRow("HTTP/2 by ALPN") << int(TransportOptions::HttpVersion::Http2) << QStringLiteral("HTTP/2")
                                    << QStringLiteral("HTTP/2.0");
    // Over TLS prior knowledge means ALPN too: Qt's direct mode skips ALPN, which nginx refuses.
    QTest::addRow("HTTP/2 with prior knowledge") << int(TransportOptions::HttpVersion::Http2PriorKnowledge)
                                                 << QStringLiteral("HTTP/2") << QStringLiteral("HTTP/2.0");
}

void TestExecutorHttp2::overTls_protocolAsAsked()
{
    QFETCH(int, version);
    QFETCH(QString, recorded);
    QFETCH(QString, nginxSaw);
    const QString path = QStringLiteral("/hello?tls=%1").arg(version);
    RequestResult result;
    const QList<AttemptRecord> attempts = sendOne(QUrl(QStringLiteral("https://127.0.0.1:%1%2").arg(m_tls).arg(path)),
        TransportOptions::HttpVersion(version), &result);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().protocol, recorded);
    QCOMPARE(attempts.first().tls.protocol, QStringLiteral("TLSv1.3"));
    QCOMPARE(result.body, QByteArray("hello " + nginxSaw.toLatin1() + '\n'));
    QTRY_COMPARE(lastRequestOn(m_tls, path), nginxSaw);
}

void TestExecutorHttp2::cleartext_priorKnowledgeOnly_data()
{
    QTest::addColumn<bool>("h2cServer");
    QTest::addColumn<int>("version");
    QTest::addColumn<QString>("recorded");
    QTest::addRow("prior knowledge against h2c")
        << true << int(TransportOptions::HttpVersion::Http2PriorKnowledge) << QStringLiteral("HTTP/2");
    // Qt offers HTTP/2 over cleartext only with prior knowledge (no Upgrade: h2c).
    QTest::addRow("HTTP/2 allowed against HTTP/1.1")
        << false << int(TransportOptions::HttpVersion::Http2) << QStringLiteral("HTTP/1.1");
    QTest::addRow("HTTP/1.1 against HTTP/1.1")
        << false << int(TransportOptions::HttpVersion::Http1) << QStringLiteral("HTTP/1.1");
}

void TestExecutorHttp2::cleartext_priorKnowledgeOnly()
{
    QFETCH(bool, h2cServer);
    QFETCH(int, version);
    QFETCH(QString, recorded);
    const quint16 port = h2cServer ? m_h2c : m_plain;
    const QString path = QStringLiteral("/hello?cleartext=%1").arg(version);
    RequestResult result;
    const QList<AttemptRecord> attempts = sendOne(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path)),
        TransportOptions::HttpVersion(version), &result);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().protocol, recorded);
    QVERIFY(attempts.first().tls.isEmpty());
    const QString nginxSaw = recorded == QLatin1String("HTTP/2") ? QStringLiteral("HTTP/2.0") : recorded;
    QTRY_COMPARE(lastRequestOn(port, path), nginxSaw);
}

void TestExecutorHttp2::retries_overOneMultiplexedConnection_countedRight()
{
    constexpr int requests = 5;
    RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    executor.setConcurrencyLimit(requests);
    QList<AttemptRecord> attempts;
    QList<RequestResult> results;
    connect(&executor, &RetryExecutor::attemptFinished, &executor,
        [&attempts](const AttemptRecord &record) { attempts.append(record); });
    connect(&executor, &RetryExecutor::requestFinished, &executor,
        [&results](const RequestResult &result) { results.append(result); });
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    QHash<quint64, QString> keys;
    for (int i = 0; i < requests; ++i) {
        RequestSpec spec;
        const QString key = QStringLiteral("h2-%1").arg(i);
        spec.url = QUrl(QStringLiteral("https://127.0.0.1:%1/fail/2?key=%2").arg(m_tls).arg(key));
        spec.transport.caBundlePath = m_certificates.caPem;
        spec.transport.httpVersion = TransportOptions::HttpVersion::Http2;
        keys.insert(executor.submit(spec), key);
    }
    QVERIFY(idle.wait(30'000));

    // The executor: three attempts per request, in order, none overlapping the next.
    QCOMPARE(results.size(), requests);
    QCOMPARE(attempts.size(), requests * 3);
    for (const RequestResult &result : std::as_const(results)) {
        QCOMPARE(result.outcome, RequestOutcome::Succeeded);
        QCOMPARE(result.attempts, 3);
        QList<AttemptRecord> own;
        for (const AttemptRecord &a : std::as_const(attempts)) {
            if (a.requestId == result.requestId)
                own.append(a);
        }
        QCOMPARE(own.size(), 3);
        for (int n = 0; n < own.size(); ++n) {
            QCOMPARE(own.at(n).attemptIndex, n);
            QCOMPARE(own.at(n).protocol, QStringLiteral("HTTP/2"));
            QCOMPARE(own.at(n).tls.protocol, QStringLiteral("TLSv1.3")); // the connection's, reused
            QCOMPARE(own.at(n).httpStatus, n < 2 ? 503 : 200);
            if (n > 0) {
                QVERIFY(own.at(n).startNs >= own.at(n - 1).endNs);
                QVERIFY(own.at(n).plannedDelayMs > 0.0);
            }
        }
    }

    // The fault server: each request's three attempts, once each (no resends by Qt).
    QHash<QString, QStringList> served;
    for (const ServerLogEntry &entry : m_faultServer.log()) {
        const QString key = entry.target.section(QStringLiteral("key="), 1);
        if (key.startsWith(QLatin1String("h2-"))) {
            QVERIFY2(!entry.replayed, qPrintable(entry.summary()));
            served[key].append(entry.clientAttempt);
        }
    }
    QCOMPARE(served.size(), requests);
    for (const QString &key : std::as_const(keys))
        QCOMPARE(served.value(key), (QStringList{QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}));

    // nginx: fifteen HTTP/2 requests, all on one connection.
    QList<AccessLine> lines;
    QTRY_COMPARE_WITH_TIMEOUT((lines =
                                      [this] {
                                          QList<AccessLine> mine;
                                          for (const AccessLine &line : accessLines(m_nginx->accessLog())) {
                                              if (line.request.contains(QLatin1String("key=h2-")))
                                                  mine.append(line);
                                          }
                                          return mine;
                                      }())
                                  .size(),
        requests * 3, 5000);
    QSet<QString> connections;
    for (const AccessLine &line : std::as_const(lines)) {
        QCOMPARE(line.protocol, QStringLiteral("HTTP/2.0"));
        connections.insert(line.connection);
    }
    QCOMPARE(connections.size(), 1);
    // Not a constant: the earlier tests' fresh executors each opened a connection of their own.
    QSet<QString> allConnections;
    for (const AccessLine &line : accessLines(m_nginx->accessLog())) {
        if (line.port == m_tls)
            allConnections.insert(line.connection);
    }
    QVERIFY2(allConnections.size() > 1, qPrintable(m_nginx->accessLog()));
}

QTEST_GUILESS_MAIN(TestExecutorHttp2)
#include "tst_executorhttp2.moc"
