// How the executor connects and what it sends, against real servers on
// 127.0.0.1 that the suite starts: the fault server (HTTP and HTTPS with its
// TLS fault ports), the TCP fault proxy with latency on the way back, a
// Python server that describes every request it gets (servers/bodyserver.py),
// and a listener whose backlog is full so that a connect hangs. curl, given
// the same request, is the reference for the timings.

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/faultserver/servercertificates.h"
#include "core/proxy/tcpproxy.h"
#include "core/record/attemptphases.h"
#include "executorcollector.h"
#include "realservers.h"
#include "tests/tools/requiredtool.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

using namespace RetryLab::Core;
using namespace RetryLab::Core::Testing;

namespace {

// A loopback port whose accept queue is full: a new connection's SYN is
// dropped by the kernel and its connect() waits, as behind a black hole.
class FullBacklog
{
public:
    FullBacklog()
    {
        m_listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (m_listener < 0 || ::bind(m_listener, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0
            || ::listen(m_listener, 0) != 0)
            return;
        socklen_t length = sizeof address;
        ::getsockname(m_listener, reinterpret_cast<sockaddr *>(&address), &length);
        m_port = ntohs(address.sin_port);
        // Connections nobody accepts fill the queue (backlog 0 holds one); each
        // connect of a blocking socket returns once the kernel queued it.
        for (int i = 0; i < 3; ++i) {
            const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            ::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address);
            m_fillers.append(fd);
        }
    }
    ~FullBacklog()
    {
        for (int fd : std::as_const(m_fillers))
            ::close(fd);
        if (m_listener >= 0)
            ::close(m_listener);
    }
    FullBacklog(const FullBacklog &) = delete;
    FullBacklog &operator=(const FullBacklog &) = delete;

    quint16 port() const { return m_port; }

private:
    int m_listener = -1;
    quint16 m_port = 0;
    QList<int> m_fillers;
};

// The Python server of servers/bodyserver.py, on a port it prints.
class BodyServer
{
public:
    bool start(QString *error)
    {
        m_process.setProgram(QStringLiteral("/usr/bin/python3"));
        m_process.setArguments({QStringLiteral(RETRYLAB_BODY_SERVER_SCRIPT)});
        m_process.start();
        if (!m_process.waitForStarted(10'000)) {
            *error = m_process.errorString();
            return false;
        }
        QDeadlineTimer deadline(20'000);
        while (!m_process.canReadLine() && !deadline.hasExpired())
            m_process.waitForReadyRead(200);
        m_port = quint16(m_process.readLine().trimmed().toUInt());
        if (m_port == 0)
            *error = QString::fromUtf8(m_process.readAllStandardError());
        return m_port != 0;
    }
    ~BodyServer()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    QUrl url(const QString &path, const QString &host = QStringLiteral("127.0.0.1")) const
    {
        return QUrl(QStringLiteral("http://%1:%2%3").arg(host).arg(m_port).arg(path));
    }
    quint16 port() const { return m_port; }

private:
    QProcess m_process;
    quint16 m_port = 0;
};

QJsonObject answerOf(const AttemptRecord &record)
{
    return QJsonDocument::fromJson(record.responseBody).object();
}

// curl's -w times, in milliseconds.
struct CurlTimes
{
    double lookup = -1;
    double connect = -1;
    double tls = -1;
    double ready = -1;
    double firstByte = -1;
    double total = -1;
};

} // namespace

class TestExecutorConnection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void resolve_pinnedName_certificateCheckedForTheName();
    void resolve_pinnedName_certificateWithoutTheName_refused();
    void resolve_plainHttp_hostHeaderKeepsTheName();
    void ipv4_localhost_connectsToAnIpv4Address();

    void connectTimeout_handshakeDelayed_failsAsConnectionFailure();
    void connectTimeout_connectHangs_failsAndRetriesEvenPost();
    void connectTimeout_slowAnswer_notCut();

    void keepAlive_off_everyRequestOpensAConnection();
    void phases_reusedConnection_haveNoLookupConnectOrTls();
    void phases_matchCurl_data();
    void phases_matchCurl();

    void streamedFile_everyAttemptSendsTheWholeFile();
    void multipart_fieldsAndFilesArrive();
    void bodyFile_missing_requestRefused();
    void expectContinue_serverSendsContinue_finalAnswerKept();
    void expectContinue_qtDoesNotWaitForContinue();
    void expectContinue_finalAnswerWithoutContinue();

private:
    struct Sent
    {
        RequestResult result;
        QList<AttemptRecord> attempts;
    };
    Sent send(const RequestSpec &spec, const BackoffPolicy &policy = fastPolicy(1));
    std::optional<CurlTimes> curlTimes(const QStringList &arguments, QString *error);

    QTemporaryDir m_dir;
    std::unique_ptr<FaultServer> m_server;
    std::unique_ptr<BodyServer> m_bodies;
    std::unique_ptr<RetryExecutor> m_executor;
    QString m_caFile;
};

void TestExecutorConnection::initTestCase()
{
    QVERIFY(m_dir.isValid());
    FaultServerOptions options;
    options.httpsPort = 0;
    m_server = std::make_unique<FaultServer>(options);
    QVERIFY2(m_server->listen(), qPrintable(m_server->errorString()));
    m_caFile = m_dir.filePath(QStringLiteral("ca.pem"));
    QVERIFY(RealServers::writeText(m_caFile, QString::fromLatin1(m_server->caCertificate().toPem())));

    if (!QFileInfo::exists(QStringLiteral("/usr/bin/python3")))
        RETRYLAB_MISSING_TOOL("python3 is not installed: install the Debian package python3 (scripts/deps.sh does)");
    m_bodies = std::make_unique<BodyServer>();
    QString error;
    QVERIFY2(m_bodies->start(&error), qPrintable(error));
    m_executor = std::make_unique<RetryExecutor>();
}

void TestExecutorConnection::cleanupTestCase()
{
    m_executor.reset();
    m_bodies.reset();
    m_server.reset();
}

TestExecutorConnection::Sent TestExecutorConnection::send(const RequestSpec &spec, const BackoffPolicy &policy)
{
    Collector collector(m_executor.get());
    const quint64 id = m_executor->submit(spec, policy);
    [&] { QTRY_VERIFY_WITH_TIMEOUT(collector.resultOf(id).has_value(), 30'000); }();
    Sent sent;
    if (const auto result = collector.resultOf(id))
        sent.result = *result;
    sent.attempts = collector.attemptsOf(id);
    return sent;
}

std::optional<CurlTimes> TestExecutorConnection::curlTimes(const QStringList &arguments, QString *error)
{
    // Waited for with the event loop running: the servers live on this thread.
    QProcess curl;
    curl.start(RealServers::findProgram(QStringLiteral("curl")),
        QStringList{QStringLiteral("-sS"), QStringLiteral("-o"), QStringLiteral("/dev/null"), QStringLiteral("-w"),
            QStringLiteral("%{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} "
                           "%{time_starttransfer} %{time_total}")}
            + arguments);
    QSignalSpy finished(&curl, &QProcess::finished);
    if (curl.state() != QProcess::NotRunning && finished.isEmpty())
        finished.wait(30'000);
    if (curl.state() != QProcess::NotRunning || curl.exitCode() != 0) {
        *error = QString::fromUtf8(curl.readAllStandardError());
        return std::nullopt;
    }
    const QList<QByteArray> fields = curl.readAllStandardOutput().trimmed().split(' ');
    if (fields.size() != 6) {
        *error = QStringLiteral("unexpected -w output");
        return std::nullopt;
    }
    CurlTimes t;
    t.lookup = fields.at(0).toDouble() * 1000.0;
    t.connect = fields.at(1).toDouble() * 1000.0;
    t.tls = fields.at(2).toDouble() * 1000.0;
    t.ready = fields.at(3).toDouble() * 1000.0;
    t.firstByte = fields.at(4).toDouble() * 1000.0;
    t.total = fields.at(5).toDouble() * 1000.0;
    return t;
}

void TestExecutorConnection::resolve_pinnedName_certificateCheckedForTheName()
{
    // The wrong-host port presents a certificate, signed by the server's CA, for
    // wrong-host.invalid only: pinned, that name connects to 127.0.0.1 and passes
    // the check, because the check is made for the name and not the address.
    const QUrl faultPort = m_server->tlsFaultUrl(TlsFault::WrongHost);
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("https://%1:%2/status/200")
                        .arg(QLatin1String(ServerCertificates::wrongHostName))
                        .arg(faultPort.port()));
    spec.transport.caBundlePath = m_caFile;
    spec.transport.resolve = {HostPin::parse(
        QStringLiteral("%1:%2:127.0.0.1").arg(QLatin1String(ServerCertificates::wrongHostName)).arg(faultPort.port()))
                                  .value()};
    const Sent sent = send(spec);
    QCOMPARE(sent.result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(sent.attempts.size(), 1);
    const AttemptRecord &a = sent.attempts.first();
    QCOMPARE(a.httpStatus, 200);
    QVERIFY2(a.tls.errors.isEmpty(), qPrintable(a.tls.errors.join(QLatin1Char(';'))));
    QVERIFY(!a.tls.protocol.isEmpty());
    QCOMPARE(a.connectAddress, QStringLiteral("127.0.0.1"));
    QCOMPARE(a.url.host(), QString::fromLatin1(ServerCertificates::wrongHostName)); // the record keeps the name

    // Without the pin the same port, asked as localhost, fails the check.
    RequestSpec direct = spec;
    direct.transport.resolve.clear();
    direct.url.setHost(QStringLiteral("localhost"));
    const Sent refused = send(direct);
    QCOMPARE(refused.attempts.first().networkError, QNetworkReply::SslHandshakeFailedError);
}

void TestExecutorConnection::resolve_pinnedName_certificateWithoutTheName_refused()
{
    // The HTTPS port's certificate is for localhost and 127.0.0.1: a name pinned
    // to 127.0.0.1 that the certificate does not carry is refused, though the
    // address itself would pass.
    const quint16 port = quint16(m_server->httpsBaseUrl().port());
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("https://elsewhere.invalid:%1/status/200").arg(port));
    spec.transport.caBundlePath = m_caFile;
    spec.transport.resolve = {HostPin::parse(QStringLiteral("elsewhere.invalid:%1:127.0.0.1").arg(port)).value()};
    const Sent refused = send(spec);
    QCOMPARE(refused.result.outcome, RequestOutcome::GaveUp);
    const AttemptRecord &a = refused.attempts.first();
    QCOMPARE(a.networkError, QNetworkReply::SslHandshakeFailedError);
    QVERIFY(!a.tls.errors.isEmpty());

    spec.url.setHost(QStringLiteral("localhost"));
    spec.transport.resolve = {HostPin::parse(QStringLiteral("localhost:%1:127.0.0.1").arg(port)).value()};
    QCOMPARE(send(spec).attempts.first().httpStatus, 200);
}

void TestExecutorConnection::resolve_plainHttp_hostHeaderKeepsTheName()
{
    RequestSpec spec;
    spec.url = m_bodies->url(QStringLiteral("/echo"), QStringLiteral("api.example.test"));
    spec.transport.resolve
        = {HostPin::parse(QStringLiteral("api.example.test:%1:127.0.0.1").arg(m_bodies->port())).value()};
    const Sent sent = send(spec);
    QCOMPARE(sent.attempts.first().httpStatus, 200);
    const QJsonObject answer = answerOf(sent.attempts.first());
    QCOMPARE(answer.value(QStringLiteral("headers")).toObject().value(QStringLiteral("host")).toString(),
        QStringLiteral("api.example.test:%1").arg(m_bodies->port()));
    // Nothing was looked up: the pin gave the address.
    QCOMPARE(AttemptPhases::of(sent.attempts.first()).dnsMs, 0.0);
}

void TestExecutorConnection::ipv4_localhost_connectsToAnIpv4Address()
{
    RequestSpec spec;
    spec.url = m_bodies->url(QStringLiteral("/echo"), QStringLiteral("localhost"));
    spec.transport.ipFamily = TransportOptions::IpFamily::V4;
    const Sent sent = send(spec);
    const AttemptRecord &a = sent.attempts.first();
    QCOMPARE(a.httpStatus, 200);
    QCOMPARE(a.connectAddress, QStringLiteral("127.0.0.1"));
    QCOMPARE(answerOf(a).value(QStringLiteral("headers")).toObject().value(QStringLiteral("host")).toString(),
        QStringLiteral("localhost:%1").arg(m_bodies->port()));
    // The name was looked up, and timed.
    QVERIFY(a.lookupStartNs >= a.startNs);
    QVERIFY(a.lookupEndNs >= a.lookupStartNs);
}

void TestExecutorConnection::connectTimeout_handshakeDelayed_failsAsConnectionFailure()
{
    // The TCP proxy holds every byte from the server for 1.5 s: the TLS
    // handshake cannot finish within the connect timeout of 300 ms.
    TcpProxyOptions options;
    options.upstreamHost = QStringLiteral("127.0.0.1");
    options.upstreamPort = quint16(m_server->httpsBaseUrl().port());
    TcpProxy proxy(options);
    QVERIFY2(proxy.listen(), qPrintable(proxy.errorString()));
    Toxic latency;
    latency.type = Toxic::Type::Latency;
    latency.latencyMs = 1500;
    QVERIFY(proxy.addToxic(latency));

    RequestSpec spec;
    spec.method = "POST"; // not idempotent: retried only because it was never sent
    spec.body = "{}";
    spec.url = QUrl(QStringLiteral("https://localhost:%1/status/200").arg(proxy.serverPort()));
    spec.transport.caBundlePath = m_caFile;
    spec.transport.connectTimeoutMs = 300;
    const Sent sent = send(spec, fastPolicy(2));
    QCOMPARE(sent.result.outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(sent.attempts.size(), 2);
    for (const AttemptRecord &a : sent.attempts) {
        QVERIFY(a.connectTimedOut);
        QCOMPARE(a.end, AttemptEnd::NetworkError);
        QCOMPARE(a.networkError, QNetworkReply::TimeoutError);
        QCOMPARE(a.cause, QStringLiteral("connect-timeout"));
        QVERIFY2(a.errorString.contains(QLatin1String("connect timeout of 300 ms")), qPrintable(a.errorString));
        QVERIFY2(a.durationMs() >= 290 && a.durationMs() < 1400, qPrintable(QString::number(a.durationMs())));
        QVERIFY(!a.httpStatus);
    }
    QCOMPARE(sent.attempts.first().decision, Classification::Decision::RetryAfterDelay);
    QVERIFY2(
        sent.attempts.first().reason.contains(QLatin1String("not sent")), qPrintable(sent.attempts.first().reason));
}

void TestExecutorConnection::connectTimeout_connectHangs_failsAndRetriesEvenPost()
{
    FullBacklog blackHole;
    QVERIFY(blackHole.port() != 0);
    RequestSpec spec;
    spec.method = "POST";
    spec.body = "x";
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:%1/").arg(blackHole.port()));
    spec.transport.connectTimeoutMs = 250;
    const Sent sent = send(spec, fastPolicy(2));
    QCOMPARE(sent.attempts.size(), 2);
    // Qt began to connect (the second attempt may wait on the connect Qt still has pending).
    QVERIFY(sent.attempts.first().connectionStartedNs >= 0);
    for (const AttemptRecord &a : sent.attempts) {
        QVERIFY(a.connectTimedOut);
        QCOMPARE(a.cause, QStringLiteral("connect-timeout"));
        QVERIFY(a.requestSentNs < 0);
        QVERIFY2(a.durationMs() >= 240 && a.durationMs() < 3000, qPrintable(QString::number(a.durationMs())));
    }
}

void TestExecutorConnection::connectTimeout_slowAnswer_notCut()
{
    // Connected at once, answered after 600 ms: the connect timeout of 200 ms is over once connected.
    RequestSpec spec;
    spec.url = m_server->baseUrl().resolved(QUrl(QStringLiteral("/delay/600")));
    spec.transport.connectTimeoutMs = 200;
    const Sent sent = send(spec);
    QCOMPARE(sent.result.outcome, RequestOutcome::Succeeded);
    const AttemptRecord &a = sent.attempts.first();
    QVERIFY(!a.connectTimedOut);
    QVERIFY(a.durationMs() >= 590);
}

void TestExecutorConnection::keepAlive_off_everyRequestOpensAConnection()
{
    RequestSpec spec;
    spec.url = m_bodies->url(QStringLiteral("/echo"));
    spec.transport.keepAlive = false;
    for (int i = 0; i < 2; ++i) {
        const Sent sent = send(spec);
        const AttemptRecord &a = sent.attempts.first();
        QCOMPARE(a.httpStatus, 200);
        QVERIFY2(a.connectionStartedNs >= 0, "a new connection for every request");
        QCOMPARE(answerOf(a).value(QStringLiteral("headers")).toObject().value(QStringLiteral("connection")).toString(),
            QStringLiteral("close"));
    }
}

void TestExecutorConnection::phases_reusedConnection_haveNoLookupConnectOrTls()
{
    // Over TLS with keep-alive, the second request rides on the first one's connection.
    RequestSpec spec;
    spec.url = m_server->httpsBaseUrl().resolved(QUrl(QStringLiteral("/status/200")));
    spec.url.setHost(QStringLiteral("localhost"));
    spec.transport.caBundlePath = m_caFile;
    const AttemptRecord first = send(spec).attempts.first();
    const AttemptRecord second = send(spec).attempts.first();
    QCOMPARE(first.httpStatus, 200);
    QCOMPARE(second.httpStatus, 200);

    const AttemptPhases opened = AttemptPhases::of(first);
    QVERIFY(!opened.reusedConnection);
    QVERIFY(opened.dnsMs.has_value());
    QVERIFY(opened.connectTlsMs.has_value());
    QVERIFY(!opened.connectMs); // Qt reports no point between the TCP connect and the handshake's end
    QVERIFY(!opened.tlsMs);
    QVERIFY(opened.sendMs && opened.firstByteMs && opened.downloadMs);

    const AttemptPhases reused = AttemptPhases::of(second);
    QVERIFY(reused.reusedConnection);
    QVERIFY(!reused.dnsMs && !reused.connectMs && !reused.tlsMs && !reused.connectTlsMs);
    QVERIFY(reused.sendMs && reused.firstByteMs && reused.downloadMs);
}

void TestExecutorConnection::phases_matchCurl_data()
{
    QTest::addColumn<bool>("tls");
    QTest::addColumn<int>("proxyLatencyMs");
    QTest::addColumn<int>("serverDelayMs");
    QTest::addRow("loopback, the server waits") << false << 0 << 300;
    QTest::addRow("TLS through the proxy, latency") << true << 250 << 0;
}

void TestExecutorConnection::phases_matchCurl()
{
    QFETCH(bool, tls);
    QFETCH(int, proxyLatencyMs);
    QFETCH(int, serverDelayMs);
    if (RealServers::findProgram(QStringLiteral("curl")).isEmpty())
        RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");

    std::unique_ptr<TcpProxy> proxy;
    quint16 port = quint16(tls ? m_server->httpsBaseUrl().port() : m_server->baseUrl().port());
    if (proxyLatencyMs > 0) {
        TcpProxyOptions options;
        options.upstreamHost = QStringLiteral("127.0.0.1");
        options.upstreamPort = port;
        proxy = std::make_unique<TcpProxy>(options);
        QVERIFY2(proxy->listen(), qPrintable(proxy->errorString()));
        Toxic latency;
        latency.type = Toxic::Type::Latency;
        latency.latencyMs = proxyLatencyMs;
        QVERIFY(proxy->addToxic(latency));
        port = proxy->serverPort();
    }
    const QString path
        = serverDelayMs > 0 ? QStringLiteral("/delay/%1").arg(serverDelayMs) : QStringLiteral("/status/200");
    const QUrl url(QStringLiteral("%1://localhost:%2%3")
                       .arg(tls ? QStringLiteral("https") : QStringLiteral("http"))
                       .arg(port)
                       .arg(path));

    RequestSpec spec;
    spec.url = url;
    spec.transport.keepAlive = false; // a connection of its own, as curl's
    if (tls)
        spec.transport.caBundlePath = m_caFile;
    const Sent sent = send(spec);
    const AttemptRecord &a = sent.attempts.first();
    QCOMPARE(a.httpStatus, 200);
    const AttemptPhases ours = AttemptPhases::of(a);

    QString error;
    QStringList curlArguments{url.toString()};
    if (tls)
        curlArguments << QStringLiteral("--cacert") << m_caFile;
    const std::optional<CurlTimes> curl = curlTimes(curlArguments, &error);
    QVERIFY2(curl, qPrintable(error));

    qInfo().noquote() << QStringLiteral(
        "RetryLab: dns %1, connect %2, connect+TLS %3, send %4, wait %5, download %6, total %7")
                             .arg(ours.dnsMs.value_or(-1))
                             .arg(ours.connectMs.value_or(-1))
                             .arg(ours.connectTlsMs.value_or(-1))
                             .arg(ours.sendMs.value_or(-1))
                             .arg(ours.firstByteMs.value_or(-1))
                             .arg(ours.downloadMs.value_or(-1))
                             .arg(ours.totalMs.value_or(-1));
    qInfo().noquote() << QStringLiteral(
        "curl -w: namelookup %1, connect %2, appconnect %3, pretransfer %4, starttransfer %5, total %6")
                             .arg(curl->lookup)
                             .arg(curl->connect)
                             .arg(curl->tls)
                             .arg(curl->ready)
                             .arg(curl->firstByte)
                             .arg(curl->total);
    // The phases the delay belongs to, as curl sees them and as RetryLab does.
    const double tolerance = 150.0;
    const auto near = [tolerance](double x, double y) { return std::abs(x - y) <= tolerance; };
    QVERIFY(ours.dnsMs && ours.sendMs && ours.firstByteMs && ours.downloadMs && ours.totalMs);
    const double curlWait = curl->firstByte - curl->ready;
    QVERIFY2(near(*ours.firstByteMs, curlWait),
        qPrintable(QStringLiteral("wait: RetryLab %1 ms, curl %2 ms").arg(*ours.firstByteMs).arg(curlWait)));
    QVERIFY2(near(*ours.dnsMs, curl->lookup),
        qPrintable(QStringLiteral("lookup: RetryLab %1 ms, curl %2 ms").arg(*ours.dnsMs).arg(curl->lookup)));
    QVERIFY2(near(*ours.totalMs, curl->total),
        qPrintable(QStringLiteral("total: RetryLab %1 ms, curl %2 ms").arg(*ours.totalMs).arg(curl->total)));
    if (tls) {
        // Connect and handshake together: from the lookup's end to the handshake's end.
        QVERIFY(ours.connectTlsMs);
        const double curlConnectTls = curl->tls - curl->lookup;
        QVERIFY2(near(*ours.connectTlsMs, curlConnectTls),
            qPrintable(
                QStringLiteral("connect+TLS: RetryLab %1 ms, curl %2 ms").arg(*ours.connectTlsMs).arg(curlConnectTls)));
        // Every flight of the handshake from the server waited for the proxy's latency.
        QVERIFY(*ours.connectTlsMs >= proxyLatencyMs - 10);
        QVERIFY(curlConnectTls >= proxyLatencyMs - 10);
    } else {
        QVERIFY(ours.connectMs);
        QVERIFY2(near(*ours.connectMs, curl->connect - curl->lookup),
            qPrintable(QStringLiteral("connect: RetryLab %1 ms, curl %2 ms")
                           .arg(*ours.connectMs)
                           .arg(curl->connect - curl->lookup)));
        QVERIFY(*ours.firstByteMs >= serverDelayMs - 10);
        QVERIFY(curlWait >= serverDelayMs - 10);
    }
}

void TestExecutorConnection::streamedFile_everyAttemptSendsTheWholeFile()
{
    // 3 MiB from a file, sent twice: the first answer is a 503, the retry sends every byte again.
    QByteArray content;
    content.reserve(3 * 1024 * 1024);
    for (int i = 0; content.size() < 3 * 1024 * 1024; ++i)
        content += QByteArray::number(i) + '\n';
    const QString path = m_dir.filePath(QStringLiteral("upload.bin"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write(content) == content.size());
    file.close();

    RequestSpec spec;
    spec.method = "PUT";
    spec.idempotent = true;
    spec.url = m_bodies->url(QStringLiteral("/fail-once/streamed"));
    spec.bodySource.kind = BodySource::Kind::File;
    spec.bodySource.filePath = path;
    const Sent sent = send(spec, fastPolicy(3));
    QCOMPARE(sent.result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(sent.attempts.size(), 2);
    QCOMPARE(sent.attempts.first().httpStatus, 503);
    const QJsonObject answer = answerOf(sent.attempts.last());
    QCOMPARE(answer.value(QStringLiteral("length")).toInteger(), content.size());
    QCOMPARE(answer.value(QStringLiteral("sha256")).toString(),
        QString::fromLatin1(QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex()));
    QVERIFY(sent.attempts.last().requestBody.isEmpty()); // never held in memory
}

void TestExecutorConnection::multipart_fieldsAndFilesArrive()
{
    const QString path = m_dir.filePath(QStringLiteral("note.txt"));
    QVERIFY(RealServers::writeText(path, QStringLiteral("file content\n")));
    RequestSpec spec;
    spec.method = "POST";
    spec.url = m_bodies->url(QStringLiteral("/fail-once/multipart"));
    spec.idempotent = true;
    spec.bodySource.kind = BodySource::Kind::Multipart;
    spec.bodySource.parts
        = {FormPart{"title", "hello", {}, {}, {}}, FormPart{"upload", {}, path, "renamed.txt", "text/plain"}};
    const Sent sent = send(spec, fastPolicy(3));
    QCOMPARE(sent.result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(sent.attempts.size(), 2);
    const QJsonObject answer = answerOf(sent.attempts.last());
    QVERIFY(answer.value(QStringLiteral("headers"))
                .toObject()
                .value(QStringLiteral("content-type"))
                .toString()
                .startsWith(QLatin1String("multipart/form-data; boundary=")));
    const QJsonArray parts = answer.value(QStringLiteral("parts")).toArray();
    QCOMPARE(parts.size(), 2);
    QCOMPARE(parts.at(0).toObject().value(QStringLiteral("name")).toString(), QStringLiteral("title"));
    QCOMPARE(parts.at(0).toObject().value(QStringLiteral("text")).toString(), QStringLiteral("hello"));
    QCOMPARE(parts.at(1).toObject().value(QStringLiteral("name")).toString(), QStringLiteral("upload"));
    QCOMPARE(parts.at(1).toObject().value(QStringLiteral("filename")).toString(), QStringLiteral("renamed.txt"));
    QCOMPARE(parts.at(1).toObject().value(QStringLiteral("contentType")).toString(), QStringLiteral("text/plain"));
    QCOMPARE(parts.at(1).toObject().value(QStringLiteral("text")).toString(), QStringLiteral("file content\n"));
}

void TestExecutorConnection::bodyFile_missing_requestRefused()
{
    RequestSpec spec;
    spec.method = "PUT";
    spec.url = m_bodies->url(QStringLiteral("/echo"));
    spec.bodySource.kind = BodySource::Kind::File;
    spec.bodySource.filePath = m_dir.filePath(QStringLiteral("missing.bin"));
    const Sent sent = send(spec);
    QCOMPARE(sent.result.outcome, RequestOutcome::InvalidRequest);
    QVERIFY(sent.attempts.isEmpty());
    QVERIFY2(sent.result.reason.contains(QLatin1String("missing.bin"))
            && sent.result.reason.contains(QLatin1String("does not exist")),
        qPrintable(sent.result.reason));
}

void TestExecutorConnection::expectContinue_serverSendsContinue_finalAnswerKept()
{
    // Python answers "100 Continue", then the final answer once the body arrived;
    // Qt passes over the interim answer and the attempt keeps the final one.
    RequestSpec spec;
    spec.method = "POST";
    spec.url = m_bodies->url(QStringLiteral("/echo"));
    spec.headers = {{"Expect", "100-continue"}, {"Content-Type", "text/plain"}};
    spec.body = QByteArray(200 * 1024, 'b');
    const Sent sent = send(spec);
    const AttemptRecord &a = sent.attempts.first();
    QCOMPARE(a.httpStatus, 200);
    QCOMPARE(sent.result.outcome, RequestOutcome::Succeeded);
    const QJsonObject answer = answerOf(a);
    QCOMPARE(answer.value(QStringLiteral("length")).toInteger(), spec.body.size());
    QCOMPARE(answer.value(QStringLiteral("headers")).toObject().value(QStringLiteral("expect")).toString(),
        QStringLiteral("100-continue"));
}

void TestExecutorConnection::expectContinue_qtDoesNotWaitForContinue()
{
    // The server holds its "100 Continue" for up to a second and says whether
    // the body came meanwhile: Qt 6.4 sends it at once, with the headers.
    RequestSpec spec;
    spec.method = "PUT";
    spec.url = m_bodies->url(QStringLiteral("/expect-observe"));
    spec.headers = {{"Expect", "100-continue"}, {"Content-Type", "text/plain"}};
    spec.body = QByteArray(4096, 'b');
    const Sent sent = send(spec);
    const AttemptRecord &a = sent.attempts.first();
    QCOMPARE(a.httpStatus, 200);
    const QJsonObject answer = answerOf(a);
    QVERIFY(answer.contains(QStringLiteral("bodyBeforeContinue")));
    QCOMPARE(answer.value(QStringLiteral("bodyBeforeContinue")).toBool(), true);
    QCOMPARE(answer.value(QStringLiteral("length")).toInteger(), spec.body.size());
}

void TestExecutorConnection::expectContinue_finalAnswerWithoutContinue()
{
    // The server answers 417 at once, without "100 Continue" and without reading
    // the body, then closes. Qt sends the body without waiting for a 100; the
    // attempt ends with the server's answer when Qt read it before the close.
    RequestSpec spec;
    spec.method = "POST";
    spec.url = m_bodies->url(QStringLiteral("/expect-refused"));
    spec.headers = {{"Expect", "100-continue"}, {"Content-Type", "text/plain"}};
    spec.body = QByteArray(16 * 1024, 'b');
    const Sent sent = send(spec);
    const AttemptRecord &a = sent.attempts.first();
    QCOMPARE(a.httpStatus, 417);
    QCOMPARE(sent.result.finalStatus, 417);
    QCOMPARE(sent.result.outcome, RequestOutcome::GaveUp); // 417 is not transient
}

QTEST_GUILESS_MAIN(TestExecutorConnection)
#include "tst_executorconnection.moc"
