// Each fault of the proxy as clients see it, over real sockets on 127.0.0.1:
// nginx as the upstream (a static file, its access log telling which requests
// reached it), Debian's httpbin as a second upstream, a QNetworkAccessManager
// and curl as clients, the fault server for counting; the control port
// switching rules while requests flow.

#include "core/faultserver/faultserver.h"
#include "core/http/httpresponsestream.h"
#include "core/proxy/faultrule.h"
#include "core/proxy/proxycontrol.h"
#include "core/proxy/proxyserver.h"

#include "tests/core/executor/realservers.h"
#include "tests/core/proxy/proxytesting.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace RetryLab::Core;
using ProxyTesting::Answer;
using ProxyTesting::fetch;

namespace {

/// curl against `url`; its exit code and the status it saw (-w %{http_code}).
Answer curl(const QUrl &url, int maxTimeS = 20)
{
    QProcess process;
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(QStringLiteral("curl"),
        {QStringLiteral("-s"), QStringLiteral("-o"), QStringLiteral("/dev/null"), QStringLiteral("-w"),
            QStringLiteral("%{http_code}"), QStringLiteral("--max-time"), QString::number(maxTimeS), url.toString()});
    Answer a;
    // The proxy runs on this thread: wait with the event loop running.
    if (!finished.wait((maxTimeS + 10) * 1000))
        return a;
    a.curlExit = process.exitCode();
    a.status = process.readAllStandardOutput().trimmed().toInt();
    return a;
}

int countOf(const QString &text, const QString &what)
{
    return int(text.count(what));
}

} // namespace

class TestProxyFaults : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QByteArray m_file; ///< /file.bin on nginx: 1024 bytes
    QByteArray m_large; ///< /large.bin on nginx: 40 KiB
    std::unique_ptr<RealServers::Nginx> m_nginx;
    RealServers::Certificates m_certificates;
    int m_tlsServer = -1;
    std::unique_ptr<ProxyServer> m_proxy;
    QList<ServerLogEntry> m_log;

    bool startProxy(const QUrl &upstream, const QStringList &rules, quint64 seed = 1, const QString &caBundle = {},
        qint64 maxHeldBytes = ProxyOptions().maxHeldBytes)
    {
        ProxyOptions options;
        options.upstream = upstream;
        options.caBundlePath = caBundle;
        options.maxHeldBytes = maxHeldBytes;
        m_proxy = std::make_unique<ProxyServer>(options);
        connect(m_proxy.get(), &ProxyServer::exchangeFinished, this,
            [this](const ServerLogEntry &entry) { m_log.append(entry); });
        const Result<FaultRuleList> list = FaultRuleList::fromSpecs(rules);
        if (!list) {
            qWarning().noquote() << list.error();
            return false;
        }
        m_proxy->setFaultRules(*list);
        m_proxy->setFaultSeed(seed);
        return m_proxy->listen();
    }

    QUrl nginxUrl() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_nginx->port(0))); }
    QUrl via(const QString &path) const { return m_proxy->listenUrl().resolved(QUrl(path)); }
    /// Requests nginx logged for `path`.
    int nginxSaw(const QString &path) const
    {
        return countOf(m_nginx->accessLog(), QStringLiteral("GET %1 ").arg(path));
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QByteArray missing = RealServers::Nginx::checkInstalled();
        if (!missing.isEmpty())
            QFAIL(missing.constData());
        const QString root = m_dir.filePath(QStringLiteral("www"));
        QDir().mkpath(root);
        QRandomGenerator generator(11);
        m_file.resize(1024);
        generator.fillRange(reinterpret_cast<quint32 *>(m_file.data()), m_file.size() / 4);
        m_large.resize(40 * 1024);
        generator.fillRange(reinterpret_cast<quint32 *>(m_large.data()), m_large.size() / 4);
        QVERIFY(RealServers::writeText(root + QStringLiteral("/index.html"), QStringLiteral("hello\n")));
        for (const auto &[name, bytes] :
            {std::pair(QStringLiteral("/file.bin"), m_file), std::pair(QStringLiteral("/large.bin"), m_large)}) {
            QFile out(root + name);
            QVERIFY(out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size());
        }
        m_nginx = std::make_unique<RealServers::Nginx>(m_dir.filePath(QStringLiteral("nginx")));
        m_nginx->addServer(
            QString(), QStringLiteral("        root %1;\n        location /gone { return 503; }").arg(root));
        QString error;
        QVERIFY2(m_certificates.make(m_dir.filePath(QStringLiteral("certs")), &error), qPrintable(error));
        m_tlsServer = m_nginx->addServer(QStringLiteral("ssl"),
            QStringLiteral("        ssl_certificate %1;\n        ssl_certificate_key %2;\n        root %3;")
                .arg(m_certificates.serverPem, m_certificates.serverKey, root));
        QVERIFY2(m_nginx->start(&error), qPrintable(error));
    }

    void cleanupTestCase() { m_nginx.reset(); }

    void init() { m_log.clear(); }

    void cleanup() { m_proxy.reset(); }

    void aStatusFaultNeverReachesTheUpstream()
    {
        QVERIFY(startProxy(nginxUrl(), {QStringLiteral("status=503 retry-after=2 path=/api/*")}));
        QNetworkAccessManager manager;
        const Answer faulted = fetch(manager, via(QStringLiteral("/api/orders")));
        QCOMPARE(faulted.status, 503);
        QCOMPARE(faulted.retryAfter, QByteArray("2"));
        const Answer passed = fetch(manager, via(QStringLiteral("/index.html")));
        QCOMPARE(passed.status, 200);
        QCOMPARE(passed.body, QByteArray("hello\n"));
        QTRY_COMPARE(m_log.size(), 2);
        QCOMPARE(m_log[0].action, QStringLiteral("fault-status"));
        QCOMPARE(m_log[0].retryAfter, QByteArray("2"));
        QVERIFY2(m_log[0].detail.contains(QStringLiteral("\"rule-1\"")), qPrintable(m_log[0].detail));
        QCOMPARE(m_log[1].action, QStringLiteral("forwarded"));
        QTRY_COMPARE(nginxSaw(QStringLiteral("/index.html")), 1);
        QCOMPARE(nginxSaw(QStringLiteral("/api/orders")), 0);
        QCOMPARE(m_proxy->upstreamRequestCount(), quint64(1));
    }

    void eachFaultAsQtSeesIt_data()
    {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<int>("error"); // QNetworkReply::NetworkError; -1: NoError or RemoteHostClosedError
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("bodyBytes");
        QTest::addColumn<QString>("action");
        QTest::addColumn<bool>("reachesUpstream");
        using E = QNetworkReply::NetworkError;
        QTest::newRow("status") << "status=429 retry-after=3" << int(E::UnknownContentError) << 429 << -1
                                << "fault-status" << false;
        QTest::newRow("reset unsent") << "reset=unsent" << int(E::RemoteHostClosedError) << 0 << 0 << "reset" << false;
        QTest::newRow("reset before") << "reset=before" << int(E::RemoteHostClosedError) << 0 << 0 << "reset" << true;
        QTest::newRow("reset after") << "reset=after" << -1 << 200 << 0 << "reset-after-headers" << true;
        QTest::newRow("empty") << "empty" << int(E::RemoteHostClosedError) << 0 << 0 << "empty" << false;
        QTest::newRow("cut") << "cut=512" << int(E::RemoteHostClosedError) << 200 << 512 << "broken-stream" << true;
        QTest::newRow("corrupt") << "corrupt=100" << int(E::NoError) << 200 << 1024 << "corrupt" << true;
        QTest::newRow("stall") << "stall" << int(E::OperationCanceledError) << 0 << 0 << "stall" << false;
        QTest::newRow("latency before forwarding")
            << "latency=300" << int(E::NoError) << 200 << 1024 << "forwarded" << true;
        QTest::newRow("latency before responding")
            << "latency=300 at=response" << int(E::NoError) << 200 << 1024 << "forwarded" << true;
    }

    void eachFaultAsQtSeesIt()
    {
        QFETCH(QString, rule);
        QFETCH(int, error);
        QFETCH(int, status);
        QFETCH(int, bodyBytes);
        QFETCH(QString, action);
        QFETCH(bool, reachesUpstream);
        const int before = nginxSaw(QStringLiteral("/file.bin"));
        QVERIFY(startProxy(nginxUrl(), {rule}));
        QNetworkAccessManager manager;
        const bool stall = action == QLatin1String("stall");
        const Answer a = fetch(manager, via(QStringLiteral("/file.bin")), stall ? 1500 : 20'000);
        if (error >= 0)
            QCOMPARE(int(a.error), error);
        else
            QVERIFY2(a.error == QNetworkReply::NoError || a.error == QNetworkReply::RemoteHostClosedError,
                qPrintable(QString::number(a.error)));
        QCOMPARE(a.status, status);
        if (bodyBytes >= 0)
            QCOMPARE(a.body.size(), bodyBytes);
        QTRY_VERIFY(!m_log.isEmpty());
        QCOMPARE(m_log.first().action, action);
        // Qt sends a request again after a reset or an empty reply: every one of them got the fault.
        for (const ServerLogEntry &e : std::as_const(m_log))
            QCOMPARE(e.action, action);
        if (reachesUpstream)
            QTRY_VERIFY(nginxSaw(QStringLiteral("/file.bin")) > before);
        else
            QCOMPARE(nginxSaw(QStringLiteral("/file.bin")), before);
        if (rule.startsWith(QLatin1String("latency")))
            QVERIFY2(a.elapsedMs >= 290, qPrintable(QString::number(a.elapsedMs)));
        if (action == QLatin1String("corrupt")) {
            for (int i = 0; i < m_file.size(); ++i)
                QCOMPARE(a.body.at(i), i % 100 == 0 ? char(~m_file.at(i)) : m_file.at(i));
        } else if (action == QLatin1String("forwarded") || action == QLatin1String("broken-stream")) {
            QCOMPARE(a.body, m_file.left(a.body.size()));
        }
    }

    void eachFaultAsCurlSeesIt_data()
    {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<int>("status");
        QTest::newRow("status") << "status=503" << 0 << 503;
        QTest::newRow("reset before") << "reset=before" << 56 << 0;
        QTest::newRow("empty") << "empty" << 52 << 0;
        QTest::newRow("cut") << "cut=512" << 18 << 200;
        QTest::newRow("stall") << "stall" << 28 << 0;
    }

    void eachFaultAsCurlSeesIt()
    {
        QFETCH(QString, rule);
        QFETCH(int, exitCode);
        QFETCH(int, status);
        QVERIFY(startProxy(nginxUrl(), {rule}));
        const Answer a = curl(via(QStringLiteral("/file.bin")), rule == QLatin1String("stall") ? 1 : 20);
        QCOMPARE(a.curlExit, exitCode);
        QCOMPARE(a.status, status);
        QTRY_COMPARE(m_log.size(), 1); // curl does not resend
    }

    void bandwidthIsLimited()
    {
        // 40 KiB at 20 KiB/s: about two seconds, and the bytes unchanged.
        QVERIFY(startProxy(nginxUrl(), {QStringLiteral("bandwidth=20k")}));
        QNetworkAccessManager manager;
        const Answer a = fetch(manager, via(QStringLiteral("/large.bin")));
        QCOMPARE(a.error, QNetworkReply::NoError);
        QCOMPARE(a.body, m_large);
        QVERIFY2(a.elapsedMs >= 1700, qPrintable(QString::number(a.elapsedMs)));
        QTRY_COMPARE(m_log.size(), 1);
        QCOMPARE(m_log[0].action, QStringLiteral("forwarded"));
    }

    void aClientThatLeavesMidAnswer_endsItsConnectionAtOnce_data()
    {
        QTest::addColumn<bool>("readingPaused");
        QTest::newRow("read on") << false;
        // A second request larger than the proxy holds: the proxy stops reading the client
        // while the first is answered, and learns of the reset only from a write that fails.
        QTest::newRow("reading paused") << true;
    }

    void aClientThatLeavesMidAnswer_endsItsConnectionAtOnce()
    {
        QFETCH(bool, readingPaused);
        // 40 KiB dripped at 20 KiB/s; the client takes the head and leaves with bytes
        // unread (a reset). The exchange ends then, not when the drip would have ended.
        QVERIFY(startProxy(nginxUrl(), {QStringLiteral("bandwidth=20k path=/large.bin")}, 1, QString(), 64 * 1024));
        // The proxy runs on this thread: the client waits through the event loop.
        QTcpSocket client;
        QByteArray received;
        connect(&client, &QTcpSocket::readyRead, this, [&] { received += client.readAll(); });
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QElapsedTimer clock;
        clock.start();
        client.write("GET /large.bin HTTP/1.1\r\nHost: example.test\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(received.contains("\r\n\r\n"), 5000);
        QVERIFY2(received.startsWith("HTTP/1.1 200"), received.left(200).constData());
        if (readingPaused) {
            const QByteArray body(128 * 1024, 'x');
            client.write("POST /index.html HTTP/1.1\r\nHost: example.test\r\nContent-Length: "
                + QByteArray::number(body.size()) + "\r\n\r\n" + body);
            QTRY_VERIFY_WITH_TIMEOUT(client.bytesToWrite() == 0, 5000);
        }
        QTRY_COMPARE(m_proxy->connectionCount(), 1);
        client.abort();
        QTRY_COMPARE_WITH_TIMEOUT(m_log.size(), 1, 5000);
        QCOMPARE(m_log[0].action, QStringLiteral("client-closed"));
        QCOMPARE(m_log[0].status, std::optional<int>(200));
        QTRY_COMPARE(m_proxy->connectionCount(), 0);
        QVERIFY2(clock.elapsed() < 1700, qPrintable(QString::number(clock.elapsed())));
        // The proxy goes on serving.
        QNetworkAccessManager manager;
        QCOMPARE(fetch(manager, via(QStringLiteral("/index.html"))).body, QByteArray("hello\n"));
    }

    void probabilityHoldsThroughTheProxy()
    {
        // A seeded run of 400 requests on keep-alive connections: about 30 % get
        // 503 from the proxy, and exactly the others reach the upstream.
        FaultServer upstream;
        QVERIFY(upstream.listen());
        int upstreamSaw = 0;
        connect(&upstream, &FaultServer::requestHandled, this, [&] { ++upstreamSaw; });
        QVERIFY(startProxy(upstream.baseUrl(), {QStringLiteral("status=503 p=0.3")}, 2024));
        QNetworkAccessManager manager;
        constexpr int n = 400;
        int faulted = 0;
        for (int i = 0; i < n; ++i) {
            const Answer a = fetch(manager, via(QStringLiteral("/status/200")));
            QVERIFY(a.status == 200 || a.status == 503);
            faulted += a.status == 503 ? 1 : 0;
        }
        const double sd = std::sqrt(n * 0.3 * 0.7);
        QVERIFY2(std::abs(faulted - n * 0.3) <= 5 * sd, qPrintable(QString::number(faulted)));
        QTRY_COMPARE(upstreamSaw, n - faulted);
        QCOMPARE(m_proxy->faultCounts(0).fired, quint64(faulted));
    }

    void firstAttemptsOfEachLogicalRequestFail()
    {
        QVERIFY(startProxy(nginxUrl(), {QStringLiteral("status=503 first=2")}));
        QNetworkAccessManager manager;
        QList<int> statuses;
        for (int i = 0; i < 3; ++i)
            statuses << fetch(manager, via(QStringLiteral("/index.html"))).status;
        // A new logical request after the success: its first two attempts fail again.
        for (int i = 0; i < 3; ++i)
            statuses << fetch(manager, via(QStringLiteral("/file.bin"))).status;
        QCOMPARE(statuses, (QList<int>{503, 503, 200, 503, 503, 200}));
    }

    void controlPortSwitchesFaultsOnTheNextRequest()
    {
        QVERIFY(
            startProxy(nginxUrl(), {QStringLiteral("status=503 name=outage"), QStringLiteral("latency=1 name=slow")}));
        ProxyControl control(m_proxy.get());
        QVERIFY2(control.listen(), qPrintable(control.errorString()));
        QNetworkAccessManager manager;
        const QUrl url = via(QStringLiteral("/index.html"));
        QCOMPARE(fetch(manager, url).status, 503);

        // Off by the query, as a person would with curl.
        QUrl off = control.url();
        off.setQuery(QStringLiteral("rule=outage&enabled=false"));
        const Answer switched = fetch(manager, off, 20'000, "POST");
        QCOMPARE(switched.status, 200);
        const QJsonObject state = QJsonDocument::fromJson(switched.body).object();
        QCOMPARE(state.value(QStringLiteral("rules")).toArray().at(0).toObject().value(QStringLiteral("enabled")),
            QJsonValue(false));
        QCOMPARE(fetch(manager, url).status, 200);

        // On again by a JSON body.
        QCOMPARE(fetch(manager, control.url(), 20'000, "POST", R"({"rule":"outage","enabled":true})").status, 200);
        QCOMPARE(fetch(manager, url).status, 503);
        // All off.
        QCOMPARE(fetch(manager, control.url(), 20'000, "POST", R"({"enabled":false})").status, 200);
        QCOMPARE(fetch(manager, url).status, 200);
        // New rules replace the old ones.
        const QByteArray rules = R"({"format":"retrylab-faults","version":1,"rules":[{"name":"teapot","status":418}]})";
        QCOMPARE(fetch(manager, control.url(), 20'000, "POST", rules).status, 200);
        QCOMPARE(fetch(manager, url).status, 418);
        const Answer read = fetch(manager, control.url());
        QCOMPARE(read.status, 200);
        const QJsonArray counts = QJsonDocument::fromJson(read.body).object().value(QStringLiteral("counts")).toArray();
        QCOMPARE(counts.size(), 1);
        QCOMPARE(counts.at(0).toObject().value(QStringLiteral("fired")).toInt(), 1);

        // Mistakes get a reason, and change nothing.
        QUrl unknown = control.url();
        unknown.setQuery(QStringLiteral("rule=nothing&enabled=false"));
        const Answer notFound = fetch(manager, unknown, 20'000, "POST");
        QCOMPARE(notFound.status, 404);
        QVERIFY2(notFound.body.contains("teapot"), notFound.body.constData());
        const Answer bad = fetch(manager, control.url(), 20'000, "POST",
            R"({"format":"retrylab-faults","version":1,"rules":[{"name":"x","status":99}]})");
        QCOMPARE(bad.status, 400);
        QVERIFY2(bad.body.contains("rules[0] (\\\"x\\\").status"), bad.body.constData());
        QCOMPARE(fetch(manager, control.url(), 20'000, "POST", "{nope").status, 400);
        QCOMPARE(fetch(manager, control.url(), 20'000, "DELETE").status, 405);
        // What a web page could send is refused: a form POST, a rebound host name.
        for (const QByteArray &headers :
            {QByteArray("Host: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"),
                QByteArray("Host: attacker.example\r\nContent-Type: application/json\r\n")}) {
            // The control port answers on this thread's event loop: wait while processing events.
            QTcpSocket socket;
            QByteArray answer;
            connect(&socket, &QTcpSocket::connected, &socket, [&socket, &headers] {
                socket.write("POST /_control/faults?enabled=false HTTP/1.1\r\n" + headers
                    + "Content-Length: 0\r\nConnection: close\r\n\r\n");
            });
            connect(&socket, &QTcpSocket::readyRead, &socket, [&socket, &answer] { answer += socket.readAll(); });
            socket.connectToHost(QHostAddress::LocalHost, quint16(control.url().port()));
            QVERIFY(QTest::qWaitFor([&socket] { return socket.state() == QAbstractSocket::UnconnectedState; }, 10'000));
            answer += socket.readAll();
            QVERIFY2(answer.startsWith("HTTP/1.1 415 ") || answer.startsWith("HTTP/1.1 421 "), answer.constData());
        }
        QCOMPARE(fetch(manager, url).status, 418); // the rules stay on
        QCOMPARE(fetch(manager, url).status, 418);

        ProxyControl elsewhere(m_proxy.get());
        QVERIFY(!elsewhere.listen(QHostAddress(QHostAddress::AnyIPv4)));
        QVERIFY(elsewhere.errorString().contains(QStringLiteral("loopback")));
    }

    void httpsUpstreamCertificateChecked()
    {
        const QUrl upstream(QStringLiteral("https://localhost:%1").arg(m_nginx->port(m_tlsServer)));
        QNetworkAccessManager manager;
        // A private CA the system does not trust: refused, with the reason, never ignored.
        QVERIFY(startProxy(upstream, {}));
        const Answer refused = fetch(manager, via(QStringLiteral("/index.html")));
        QCOMPARE(refused.status, 502);
        QVERIFY2(refused.body.contains("certificate"), refused.body.constData());
        QTRY_COMPARE(m_log.size(), 1);
        QCOMPARE(m_log[0].action, QStringLiteral("upstream-tls"));
        m_proxy.reset();
        // Trusted through the CA bundle: forwarded, faults applied as over plain HTTP.
        QVERIFY(startProxy(upstream, {QStringLiteral("status=503 path=/gone*")}, 1, m_certificates.caPem));
        const Answer trusted = fetch(manager, via(QStringLiteral("/index.html")));
        QCOMPARE(trusted.status, 200);
        QCOMPARE(trusted.body, QByteArray("hello\n"));
        QCOMPARE(fetch(manager, via(QStringLiteral("/gone"))).status, 503);
        // A bundle without a certificate is refused before anything listens.
        m_proxy.reset();
        QVERIFY(!startProxy(upstream, {}, 1, m_certificates.garbage));
        QVERIFY2(
            m_proxy->errorString().contains(QStringLiteral("no PEM certificate")), qPrintable(m_proxy->errorString()));
    }

    void httpbinAsUpstream()
    {
        const QByteArray missing = RealServers::Httpbin::checkInstalled();
        if (!missing.isEmpty())
            QFAIL(missing.constData());
        RealServers::Httpbin httpbin;
        QString error;
        QVERIFY2(httpbin.start(&error), qPrintable(error));
        const QUrl upstream(QStringLiteral("http://127.0.0.1:%1").arg(httpbin.port()));
        QVERIFY(startProxy(upstream,
            {QStringLiteral("status=503 path=/status/*"), QStringLiteral("cut=1000 path=/stream-bytes/1500"),
                QStringLiteral("corrupt=1000 path=/stream-bytes/*")}));
        QNetworkAccessManager manager;

        // Forwarded unchanged: the same bytes as straight from httpbin.
        const QString bytes = QStringLiteral("/bytes/4096?seed=3");
        const Answer direct = fetch(manager, upstream.resolved(QUrl(bytes)));
        const Answer through = fetch(manager, via(bytes));
        QCOMPARE(through.status, 200);
        QCOMPARE(through.body.size(), 4096);
        QCOMPARE(through.body, direct.body);

        // Answered by the proxy: httpbin never sees it.
        QCOMPARE(fetch(manager, via(QStringLiteral("/status/200"))).status, 503);

        // A chunked body corrupted in its content, its framing intact.
        const QString stream = QStringLiteral("/stream-bytes/5000?chunk_size=300&seed=2");
        const Answer clean = fetch(manager, upstream.resolved(QUrl(stream)));
        const Answer corrupted = fetch(manager, via(stream));
        QCOMPARE(corrupted.error, QNetworkReply::NoError);
        QCOMPARE(clean.body.size(), 5000);
        QCOMPARE(corrupted.body.size(), 5000);
        for (int i = 0; i < 5000; ++i)
            QCOMPARE(corrupted.body.at(i), i % 1000 == 0 ? char(~clean.body.at(i)) : clean.body.at(i));

        // cut=N counts the content's bytes, not the chunk framing around them.
        QTcpSocket raw;
        raw.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(raw.waitForConnected(5000));
        raw.write("GET /stream-bytes/1500?chunk_size=300&seed=2 HTTP/1.1\r\nHost: a\r\n\r\n");
        QByteArray wire;
        QSignalSpy closed(&raw, &QTcpSocket::disconnected);
        QTRY_VERIFY_WITH_TIMEOUT((wire += raw.readAll(), !closed.isEmpty()), 20'000);
        wire += raw.readAll();
        HttpResponseStream decoded;
        QCOMPARE(decoded.feed(wire), HttpResponseStream::Status::NeedMore);
        qint64 content = 0;
        for (const HttpResponseStream::Piece &piece : decoded.payload())
            content += piece.length;
        QCOMPARE(content, qint64(1000));
        QCOMPARE(decoded.finish(), HttpResponseStream::Status::Error); // the client sees the body cut short

        QTRY_COMPARE(m_log.size(), 4);
        QCOMPARE(m_log[1].action, QStringLiteral("fault-status"));
        QCOMPARE(m_log[2].action, QStringLiteral("corrupt"));
        QCOMPARE(m_log[3].action, QStringLiteral("broken-stream"));
        QTRY_COMPARE(httpbin.requests().filter(QStringLiteral("/stream-bytes/")).size(), 3);
        QCOMPARE(httpbin.requests().filter(QStringLiteral("/status/")).size(), 0);
        QCOMPARE(httpbin.requests().filter(QStringLiteral("/bytes/4096")).size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestProxyFaults)
#include "tst_proxyfaults.moc"
