// The fault proxy as a forward proxy (HTTP_PROXY, HTTPS_PROXY): Qt, curl and
// Python's requests point at it and reach the fault server's HTTP and HTTPS
// ports through it; fault rules match the host, and a CONNECT tunnel's faults
// act on the connection as curl reports them.

#include "../../tools/requiredtool.h"
#include "../executor/realservers.h"
#include "core/faultserver/faultserver.h"
#include "core/proxy/proxyserver.h"
#include "core/tls/certificatefactory.h"
#include "proxytesting.h"

#include <QElapsedTimer>
#include <QFile>
#include <QNetworkProxy>
#include <QProcess>
#include <QSignalSpy>
#include <QSslConfiguration>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace RetryLab::Core;

namespace {

using ProxyTesting::Finished;
using ProxyTesting::runProgram;
using RealServers::freePort;

} // namespace

class TestForwardProxy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void qtReachesHttpAndHttpsThroughIt();
    void rulesMatchTheHost();
    void aForwardProxyRefusesWhatItCannotForward();
    void connectFaultsAsCurlSeesThem_data();
    void connectFaultsAsCurlSeesThem();
    void anUpstreamThatRefusesIsA502();
    void pythonRequestsUsesItFromTheEnvironment();
    void interceptionAppliesHttpFaultsInsideHttps();
    void interceptionIsRefusedByAClientThatDoesNotTrustItsCa();
    void tunnelsCountAgainstTheConnectionLimit();
    void aReverseProxyRefusesConnect();

private:
    ProxyTesting::Answer get(const QUrl &url);
    Finished curl(const QStringList &arguments);

    FaultServer m_server;
    std::unique_ptr<ProxyServer> m_proxy;
    QList<ServerLogEntry> m_log;
    QTemporaryDir m_dir;
    QString m_caFile;
};

void TestForwardProxy::initTestCase()
{
    FaultServerOptions options;
    options.httpsPort = 0;
    m_server.setOptions(options);
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
    m_caFile = m_dir.filePath(QStringLiteral("ca.pem"));
    QFile ca(m_caFile);
    QVERIFY(ca.open(QIODevice::WriteOnly));
    ca.write(m_server.trustAnchorsPem());
}

void TestForwardProxy::init()
{
    ProxyOptions options;
    options.forward = true;
    m_proxy = std::make_unique<ProxyServer>(options);
    QVERIFY2(m_proxy->listen(), qPrintable(m_proxy->errorString()));
    m_log.clear();
    connect(m_proxy.get(), &ProxyServer::exchangeFinished, this, [this](const ServerLogEntry &e) { m_log << e; });
}

ProxyTesting::Answer TestForwardProxy::get(const QUrl &url)
{
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), m_proxy->listenUrl().port()));
    // The client trusts the fault server's CA for this request only: the proxy, in the same
    // process, must not come to trust it through the default configuration.
    const QSslConfiguration before = QSslConfiguration::defaultConfiguration();
    QSslConfiguration tls = before;
    tls.addCaCertificate(m_server.caCertificate());
    QSslConfiguration::setDefaultConfiguration(tls);
    ProxyTesting::Answer answer = ProxyTesting::fetch(manager, url);
    QSslConfiguration::setDefaultConfiguration(before);
    return answer;
}

Finished TestForwardProxy::curl(const QStringList &arguments)
{
    return runProgram(QStringLiteral("curl"),
        QStringList{QStringLiteral("-sS"), QStringLiteral("-o"), QStringLiteral("/dev/null"), QStringLiteral("-w"),
            QStringLiteral("%{http_code}"), QStringLiteral("--cacert"), m_caFile, QStringLiteral("-x"),
            m_proxy->listenUrl().toString()}
            + arguments);
}

void TestForwardProxy::qtReachesHttpAndHttpsThroughIt()
{
    const QUrl plain = m_server.baseUrl().resolved(QUrl(QStringLiteral("/status/200")));
    ProxyTesting::Answer answer = get(plain);
    QCOMPARE(answer.status, 200);
    QTRY_COMPARE(m_log.size(), 1);
    QCOMPARE(m_log.at(0).method, QByteArray("GET"));
    QCOMPARE(m_log.at(0).target, plain.toString()); // absolute-form, as the client sent it
    QCOMPARE(m_log.at(0).action, QStringLiteral("forwarded"));

    // HTTPS goes through a tunnel: the proxy sees a CONNECT and bytes, never the request.
    const QUrl secure = m_server.httpsBaseUrl().resolved(QUrl(QStringLiteral("/status/201")));
    answer = get(secure);
    QCOMPARE(answer.status, 201);
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->tunnelCount(), 0, 60'000); // the tunnel ends when the client lets go
    QTRY_COMPARE(m_log.size(), 2);
    QCOMPARE(m_log.at(1).method, QByteArray("CONNECT"));
    QCOMPARE(m_log.at(1).target, QStringLiteral("127.0.0.1:%1").arg(m_server.httpsBaseUrl().port()));
    QCOMPARE(m_log.at(1).status, std::optional<int>(200));
    QCOMPARE(m_log.at(1).action, QStringLiteral("tunnel"));
    QVERIFY(m_log.at(1).bytesSent > 0);
}

void TestForwardProxy::rulesMatchTheHost()
{
    m_proxy->setFaultRules(FaultRuleList::fromSpecs({QStringLiteral("status=503 host=localhost")}).value());
    const QString path = QStringLiteral("/status/200");
    QCOMPARE(get(QUrl(QStringLiteral("http://localhost:%1%2").arg(m_server.serverPort()).arg(path))).status, 503);
    QCOMPARE(get(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path))).status, 200);
    QTRY_COMPARE(m_log.size(), 2);
    QCOMPARE(m_log.at(0).action, QStringLiteral("fault-status"));
    QCOMPARE(m_log.at(1).action, QStringLiteral("forwarded"));
}

void TestForwardProxy::aForwardProxyRefusesWhatItCannotForward()
{
    // A request without a host of its own: the client was not told it talks to a proxy.
    QNetworkAccessManager direct;
    const auto origin = ProxyTesting::fetch(direct, m_proxy->listenUrl().resolved(QUrl(QStringLiteral("/status/200"))));
    QCOMPARE(origin.status, 400);
    QVERIFY2(origin.body.contains("this is a forward proxy"), origin.body.constData());

    if (QStandardPaths::findExecutable(QStringLiteral("curl")).isEmpty())
        RETRYLAB_MISSING_TOOL("curl is missing: install the Debian package curl (scripts/deps.sh does)");
    // A tunnel to a port that is not for TLS, elsewhere than loopback (no name is resolved to refuse it).
    const Finished smtp = curl({QStringLiteral("-p"), QStringLiteral("http://mail.example.invalid:25/")});
    QVERIFY2(smtp.err.contains(QStringLiteral("CONNECT tunnel failed, response 403")), qPrintable(smtp.err));
    QTRY_COMPARE(m_log.size(), 2);
    QCOMPARE(m_log.at(1).method, QByteArray("CONNECT"));
    QCOMPARE(m_log.at(1).target, QStringLiteral("mail.example.invalid:25"));
    QVERIFY2(m_log.at(1).detail.contains(QStringLiteral("CONNECT to port 25 is not allowed")),
        qPrintable(m_log.at(1).detail));

    // A reverse proxy's options do not make a forward proxy.
    ProxyOptions both;
    both.forward = true;
    both.upstream = QUrl(QStringLiteral("http://127.0.0.1:1"));
    ProxyServer refused(both);
    QVERIFY(!refused.listen());
    QVERIFY(refused.errorString().contains(QStringLiteral("a forward proxy has no upstream")));
}

void TestForwardProxy::connectFaultsAsCurlSeesThem_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<int>("curlExit");
    QTest::addColumn<QString>("curlSays");
    QTest::addColumn<QString>("action");
    QTest::addColumn<int>("atLeastMs");
    QTest::addRow("refused") << "status=403 method=CONNECT" << 56 << "CONNECT tunnel failed, response 403"
                             << "fault-status" << 0;
    QTest::addRow("reset unsent") << "reset=unsent method=CONNECT" << 56 << ""
                                  << "reset" << 0;
    QTest::addRow("reset before") << "reset=before method=CONNECT" << 56 << ""
                                  << "reset" << 0;
    QTest::addRow("empty") << "empty method=CONNECT" << 56 << ""
                           << "empty" << 0;
    QTest::addRow("latency") << "latency=400 method=CONNECT" << 0 << ""
                             << "tunnel" << 400;
    QTest::addRow("latency inside") << "latency=150 at=response method=CONNECT" << 0 << ""
                                    << "tunnel" << 300;
    QTest::addRow("cut") << "cut=100 method=CONNECT" << 35 << ""
                         << "broken-stream" << 0;
    QTest::addRow("bandwidth") << "bandwidth=2k method=CONNECT" << 0 << ""
                               << "tunnel" << 400;
    QTest::addRow("corrupt passes") << "corrupt method=CONNECT" << 0 << ""
                                    << "tunnel" << 0;
}

void TestForwardProxy::connectFaultsAsCurlSeesThem()
{
    QFETCH(QString, rule);
    QFETCH(int, curlExit);
    QFETCH(QString, curlSays);
    QFETCH(QString, action);
    QFETCH(int, atLeastMs);
    if (QStandardPaths::findExecutable(QStringLiteral("curl")).isEmpty())
        RETRYLAB_MISSING_TOOL("curl is missing: install the Debian package curl (scripts/deps.sh does)");
    m_proxy->setFaultRules(FaultRuleList::fromSpecs({rule}).value());
    const Finished run = curl({m_server.httpsBaseUrl().resolved(QUrl(QStringLiteral("/status/200"))).toString()});
    QVERIFY2(run.exitCode == curlExit, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
    if (!curlSays.isEmpty())
        QVERIFY2(run.err.contains(curlSays), qPrintable(run.err));
    if (curlExit == 0)
        QCOMPARE(run.out, QStringLiteral("200"));
    QVERIFY2(run.ms >= atLeastMs, qPrintable(QString::number(run.ms)));
    QTRY_COMPARE_WITH_TIMEOUT(m_log.size(), 1, 20'000);
    QCOMPARE(m_log.at(0).method, QByteArray("CONNECT"));
    QCOMPARE(m_log.at(0).action, action);
    if (rule.startsWith(QLatin1String("corrupt")))
        QVERIFY2(m_log.at(0).detail.contains(QStringLiteral("corrupt does not apply inside a tunnel")),
            qPrintable(m_log.at(0).detail));
}

void TestForwardProxy::anUpstreamThatRefusesIsA502()
{
    if (QStandardPaths::findExecutable(QStringLiteral("curl")).isEmpty())
        RETRYLAB_MISSING_TOOL("curl is missing: install the Debian package curl (scripts/deps.sh does)");
    const quint16 port = freePort();
    const Finished tunnel = curl({QStringLiteral("https://127.0.0.1:%1/").arg(port)});
    QVERIFY2(tunnel.err.contains(QStringLiteral("CONNECT tunnel failed, response 502")), qPrintable(tunnel.err));
    const Finished plain = curl({QStringLiteral("http://127.0.0.1:%1/").arg(port)});
    QCOMPARE(plain.out, QStringLiteral("502"));
    QTRY_COMPARE(m_log.size(), 2);
    QCOMPARE(m_log.at(0).action, QStringLiteral("upstream-unreachable"));
    QCOMPARE(m_log.at(0).status, std::optional<int>(502));
    QVERIFY2(
        m_log.at(0).detail.contains(QStringLiteral("refused"), Qt::CaseInsensitive), qPrintable(m_log.at(0).detail));
    QCOMPARE(m_log.at(1).action, QStringLiteral("upstream-unreachable"));
}

void TestForwardProxy::pythonRequestsUsesItFromTheEnvironment()
{
    const Finished probe
        = runProgram(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QStringLiteral("import requests")});
    if (probe.exitCode != 0)
        RETRYLAB_MISSING_TOOL(
            "requests is missing: install the Debian package python3-requests (scripts/deps.sh does)");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HTTP_PROXY"), m_proxy->listenUrl().toString());
    environment.insert(QStringLiteral("HTTPS_PROXY"), m_proxy->listenUrl().toString());
    environment.insert(QStringLiteral("NO_PROXY"), QString());
    environment.insert(QStringLiteral("REQUESTS_CA_BUNDLE"), m_caFile);
    m_proxy->setFaultRules(FaultRuleList::fromSpecs({QStringLiteral("status=503 first=1 method=GET")}).value());
    const QString script
        = QStringLiteral("import sys, requests\n"
                         "from requests.adapters import HTTPAdapter\n"
                         "from urllib3.util.retry import Retry\n"
                         "session = requests.Session()\n"
                         "session.mount('http://', HTTPAdapter(max_retries=Retry(total=3, backoff_factor=0.1, "
                         "status_forcelist=[503])))\n"
                         "print(session.get(sys.argv[1]).status_code, requests.get(sys.argv[2]).status_code)\n");
    const Finished python = runProgram(QStringLiteral("/usr/bin/python3"),
        {QStringLiteral("-c"), script, m_server.baseUrl().resolved(QUrl(QStringLiteral("/status/200"))).toString(),
            m_server.httpsBaseUrl().resolved(QUrl(QStringLiteral("/status/200"))).toString()},
        environment);
    QVERIFY2(python.exitCode == 0, qPrintable(python.err.right(2000)));
    QCOMPARE(python.out.trimmed(), QStringLiteral("200 200"));
    // urllib3 retried the 503 the rule gave its first attempt; the HTTPS request went through a tunnel.
    QTRY_COMPARE(m_log.size(), 3);
    QCOMPARE(m_log.at(0).status, std::optional<int>(503));
    QCOMPARE(m_log.at(1).status, std::optional<int>(200));
    QCOMPARE(m_log.at(2).method, QByteArray("CONNECT"));
}

namespace {

// A CA for interception, as retrylab proxy --intercept makes one; its certificate in `path`.
IssuedCertificate interceptionCa(const QString &path)
{
    CertificateRequest request;
    request.commonName = QStringLiteral("interception test CA");
    request.certificateAuthority = true;
    request.notBefore = QDateTime::currentDateTimeUtc().addSecs(-60);
    request.notAfter = QDateTime::currentDateTimeUtc().addDays(1);
    IssuedCertificate ca = CertificateFactory::selfSigned(request).value();
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(ca.certificate.toPem());
    return ca;
}

} // namespace

void TestForwardProxy::interceptionAppliesHttpFaultsInsideHttps()
{
    if (QStandardPaths::findExecutable(QStringLiteral("curl")).isEmpty())
        RETRYLAB_MISSING_TOOL("curl is missing: install the Debian package curl (scripts/deps.sh does)");
    const QString caPath = m_dir.filePath(QStringLiteral("intercept-ca.pem"));
    const IssuedCertificate ca = interceptionCa(caPath);
    ProxyOptions options;
    options.forward = true;
    options.intercept = true;
    options.interceptCaCertificate = ca.certificate;
    options.interceptCaKey = ca.privateKey;
    options.caBundlePath = m_caFile; // the proxy checks the fault server's certificate as any client would
    m_proxy = std::make_unique<ProxyServer>(options);
    QVERIFY2(m_proxy->listen(), qPrintable(m_proxy->errorString()));
    connect(m_proxy.get(), &ProxyServer::exchangeFinished, this, [this](const ServerLogEntry &e) { m_log << e; });
    m_proxy->setFaultRules(
        FaultRuleList::fromSpecs({QStringLiteral("status=503 retry-after=1 path=/status/202")}).value());

    const QString base = m_server.httpsBaseUrl().toString(QUrl::StripTrailingSlash);
    const auto through = [&](const QString &path) {
        return runProgram(QStringLiteral("curl"),
            {QStringLiteral("-sS"), QStringLiteral("-o"), QStringLiteral("/dev/null"), QStringLiteral("-w"),
                QStringLiteral("%{http_code}"), QStringLiteral("--cacert"), caPath, QStringLiteral("-x"),
                m_proxy->listenUrl().toString(), base + path});
    };
    // The rule answers inside the TLS the client thinks it has with the server.
    const Finished faulted = through(QStringLiteral("/status/202"));
    QVERIFY2(faulted.exitCode == 0, qPrintable(faulted.err));
    QCOMPARE(faulted.out, QStringLiteral("503"));
    const Finished passed = through(QStringLiteral("/status/201"));
    QCOMPARE(passed.out, QStringLiteral("201"));
    QTRY_COMPARE(m_log.size(), 4);
    QCOMPARE(m_log.at(0).method, QByteArray("CONNECT"));
    QCOMPARE(m_log.at(0).action, QStringLiteral("intercept"));
    QCOMPARE(m_log.at(1).target, base + QStringLiteral("/status/202"));
    QCOMPARE(m_log.at(1).action, QStringLiteral("fault-status"));
    QCOMPARE(m_log.at(3).target, base + QStringLiteral("/status/201"));
    QCOMPARE(m_log.at(3).action, QStringLiteral("forwarded"));
    QCOMPARE(m_log.at(3).status, std::optional<int>(201));

    // Python's http.client tunnels with an HTTP/1.0 CONNECT: the intercepted tunnel stays open for it.
    const Finished probe
        = runProgram(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QStringLiteral("import requests")});
    if (probe.exitCode != 0)
        RETRYLAB_MISSING_TOOL(
            "requests is missing: install the Debian package python3-requests (scripts/deps.sh does)");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HTTPS_PROXY"), m_proxy->listenUrl().toString());
    environment.insert(QStringLiteral("NO_PROXY"), QString());
    environment.insert(QStringLiteral("REQUESTS_CA_BUNDLE"), caPath);
    const Finished python = runProgram(QStringLiteral("/usr/bin/python3"),
        {QStringLiteral("-c"),
            QStringLiteral("import sys, requests\n"
                           "print(requests.get(sys.argv[1] + '/status/202').status_code, "
                           "requests.get(sys.argv[1] + '/status/203').status_code)\n"),
            base},
        environment);
    QVERIFY2(python.exitCode == 0, qPrintable(python.err.right(2000)));
    QCOMPARE(python.out.trimmed(), QStringLiteral("503 203"));

    // Without the fault server's CA the proxy refuses the server, as a client would: 502 with the reason.
    options.caBundlePath.clear();
    m_proxy = std::make_unique<ProxyServer>(options);
    QVERIFY(m_proxy->listen());
    m_log.clear();
    connect(m_proxy.get(), &ProxyServer::exchangeFinished, this, [this](const ServerLogEntry &e) { m_log << e; });
    QCOMPARE(through(QStringLiteral("/status/200")).out, QStringLiteral("502"));
    QTRY_COMPARE(m_log.size(), 2);
    QCOMPARE(m_log.at(1).action, QStringLiteral("upstream-tls"));
}

void TestForwardProxy::interceptionIsRefusedByAClientThatDoesNotTrustItsCa()
{
    if (QStandardPaths::findExecutable(QStringLiteral("curl")).isEmpty())
        RETRYLAB_MISSING_TOOL("curl is missing: install the Debian package curl (scripts/deps.sh does)");
    const IssuedCertificate ca = interceptionCa(m_dir.filePath(QStringLiteral("other-ca.pem")));
    ProxyOptions options;
    options.forward = true;
    options.intercept = true;
    options.interceptCaCertificate = ca.certificate;
    options.interceptCaKey = ca.privateKey;
    m_proxy = std::make_unique<ProxyServer>(options);
    QVERIFY(m_proxy->listen());
    connect(m_proxy.get(), &ProxyServer::exchangeFinished, this, [this](const ServerLogEntry &e) { m_log << e; });
    // The client trusts the server's CA only: the interception's certificate is refused, nothing is sent.
    const Finished refused = curl({m_server.httpsBaseUrl().resolved(QUrl(QStringLiteral("/status/200"))).toString()});
    QCOMPARE(refused.exitCode, 60);
    QTRY_COMPARE(m_log.size(), 2);
    QCOMPARE(m_log.at(1).action, QStringLiteral("intercept-refused"));
    QVERIFY2(
        m_log.at(1).detail.contains(QStringLiteral("does it trust the proxy's CA?")), qPrintable(m_log.at(1).detail));

    // A reverse proxy does not intercept, and interception needs its CA.
    ProxyOptions reverse;
    reverse.upstream = QUrl(QStringLiteral("http://127.0.0.1:1"));
    reverse.intercept = true;
    QVERIFY(!ProxyServer(reverse).listen());
    ProxyOptions noCa;
    noCa.forward = true;
    noCa.intercept = true;
    ProxyServer withoutCa(noCa);
    QVERIFY(!withoutCa.listen());
    QVERIFY(withoutCa.errorString().contains(QStringLiteral("needs a CA certificate")));
}

void TestForwardProxy::tunnelsCountAgainstTheConnectionLimit()
{
    ProxyOptions options;
    options.forward = true;
    options.maxConnections = 2;
    m_proxy = std::make_unique<ProxyServer>(options);
    QVERIFY(m_proxy->listen());
    QTcpServer upstream;
    QVERIFY(upstream.listen(QHostAddress::LocalHost, 0));
    const auto open = [&](const QByteArray &request) {
        auto socket = std::make_unique<QTcpSocket>();
        socket->connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        (void)QTest::qWaitFor([&] { return socket->state() == QAbstractSocket::ConnectedState; }, 5000);
        socket->write(request);
        return socket;
    };
    const QByteArray authority = "127.0.0.1:" + QByteArray::number(upstream.serverPort());
    const QByteArray connect = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
    auto first = open(connect);
    auto second = open(connect);
    QVERIFY(QTest::qWaitFor([&] { return m_proxy->tunnelCount() == 2; }, 5000));
    // Both tunnels are busy: a third client is turned away instead of opening more.
    auto third = open("GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n");
    QByteArray answer;
    QVERIFY(QTest::qWaitFor(
        [&] {
            answer += third->readAll();
            return answer.contains("\r\n\r\n");
        },
        5000));
    QVERIFY2(answer.startsWith("HTTP/1.1 503"), answer.constData());
    QCOMPARE(m_proxy->refusedConnections(), quint64(1));
}

void TestForwardProxy::aReverseProxyRefusesConnect()
{
    ProxyOptions options;
    options.upstream = m_server.baseUrl();
    ProxyServer reverse(options);
    QVERIFY(reverse.listen());
    const qsizetype logged = m_server.log().size();
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, reverse.listenUrl().port());
    QVERIFY(socket.waitForConnected(5000));
    socket.write("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    QByteArray answer;
    QVERIFY(QTest::qWaitFor(
        [&] {
            answer += socket.readAll();
            return answer.contains("\r\n\r\n");
        },
        5000));
    QVERIFY2(answer.startsWith("HTTP/1.1 405"), answer.constData());
    QCOMPARE(m_server.log().size(), logged); // nothing went upstream
}

QTEST_MAIN(TestForwardProxy)
#include "tst_forwardproxy.moc"
