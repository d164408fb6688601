// The proxy's transport against real upstreams on 127.0.0.1: the project's
// fault server, nginx with a large static file, a capturing server for what
// goes upstream, and a small chunked server of the suite's own.

#include "core/faultserver/faultserver.h"
#include "core/http/httpresponsestream.h"
#include "core/proxy/proxyconnection.h"
#include "core/proxy/proxyserver.h"

#include "tests/core/capturingserver.h"
#include "tests/core/executor/realservers.h"
#include "tests/core/proxy/proxytesting.h"
#include "tests/tools/requiredtool.h"

#include <QCryptographicHash>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>

using namespace RetryLab::Core;
using ProxyTesting::Answer;

namespace {

/// Reads whole responses from a raw socket, however they arrive; `methods`
/// says which requests they answer where one was HEAD (no body).
QList<HttpResponseStream::Head> readResponses(
    QTcpSocket &socket, int count, QList<QByteArray> *bodies, const QList<QByteArray> &methods = {})
{
    HttpResponseStream stream;
    stream.setRequestMethod(methods.value(0, "GET"));
    QList<HttpResponseStream::Head> heads;
    QByteArray body;
    HttpResponseStream::Status status = HttpResponseStream::Status::NeedMore;
    while (heads.size() < count) {
        if (status == HttpResponseStream::Status::Complete) {
            stream.setRequestMethod(methods.value(heads.size(), "GET"));
            status = stream.next();
        } else {
            // The proxy runs in this thread: wait with the event loop running.
            if (socket.bytesAvailable() == 0) {
                QSignalSpy ready(&socket, &QTcpSocket::readyRead);
                if (!ready.wait(10'000))
                    break;
            }
            status = stream.feed(socket.readAll());
        }
        body += stream.body();
        if (status == HttpResponseStream::Status::Complete) {
            heads.append(stream.head());
            bodies->append(body);
            body.clear();
        } else if (status == HttpResponseStream::Status::Error) {
            break;
        }
    }
    return heads;
}

/// An upstream of the suite's own whose every connection is answered by
/// `answer`: it gets the connection's index, the request's index on it and the
/// socket, and writes what it likes (or closes). Requests are split at the
/// blank line; they carry no body.
class ScriptedUpstream : public QTcpServer
{
public:
    using Answer = std::function<void(int connection, int request, QTcpSocket *socket)>;
    explicit ScriptedUpstream(Answer answer) : m_answer(std::move(answer))
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                const int connection = connections++;
                auto buffer = std::make_shared<QByteArray>();
                auto count = std::make_shared<int>(0);
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket, connection, buffer, count] {
                    *buffer += socket->readAll();
                    qsizetype end = 0;
                    while ((end = buffer->indexOf("\r\n\r\n")) >= 0) {
                        buffer->remove(0, end + 4);
                        ++requests;
                        m_answer(connection, (*count)++, socket);
                    }
                });
            }
        });
        listen(QHostAddress::LocalHost);
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(serverPort())); }
    int connections = 0;
    int requests = 0;

private:
    Answer m_answer;
};

/// An upstream of the suite's own that answers every request with 16 MiB, written
/// as fast as the kernel takes it.
class FastUpstream : public QTcpServer
{
public:
    static constexpr qint64 bodyBytes = 16 * 1024 * 1024;

    FastUpstream()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            QTcpSocket *s = nextPendingConnection();
            connect(s, &QTcpSocket::readyRead, s, [s] {
                s->readAll();
                const QByteArray chunk(1024 * 1024, 'z');
                s->write("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(bodyBytes) + "\r\n\r\n");
                for (qint64 sent = 0; sent < bodyBytes; sent += chunk.size())
                    s->write(chunk);
            });
        });
        listen(QHostAddress::LocalHost);
    }
};

} // namespace

class TestProxyServer : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<FaultServer> m_upstream;
    std::unique_ptr<ProxyServer> m_proxy;
    QList<ServerLogEntry> m_log;

    bool startProxy(const QUrl &upstream, bool keepHost = false)
    {
        ProxyOptions options;
        options.upstream = upstream;
        options.keepHost = keepHost;
        m_proxy = std::make_unique<ProxyServer>(options);
        connect(m_proxy.get(), &ProxyServer::exchangeFinished, this,
            [this](const ServerLogEntry &entry) { m_log.append(entry); });
        return m_proxy->listen();
    }

    QUrl via(const QString &path) const { return m_proxy->listenUrl().resolved(QUrl(path)); }

private Q_SLOTS:
    void init()
    {
        m_log.clear();
        m_upstream = std::make_unique<FaultServer>();
        QVERIFY(m_upstream->listen());
    }

    void cleanup()
    {
        m_proxy.reset();
        m_upstream.reset();
    }

    void forwardsStatusHeadersAndBody()
    {
        QVERIFY2(startProxy(m_upstream->baseUrl()), qPrintable(m_proxy->errorString()));
        QNetworkAccessManager manager;
        const Answer direct = ProxyTesting::fetch(
            manager, m_upstream->baseUrl().resolved(QUrl(QStringLiteral("/status/503?retry_after=2"))));
        const Answer proxied = ProxyTesting::fetch(manager, via(QStringLiteral("/status/503?retry_after=2")));
        QCOMPARE(proxied.status, 503);
        QCOMPARE(proxied.body, direct.body);
        QCOMPARE(headerValue(proxied.headers, "Retry-After").value_or(QByteArray()), QByteArray("2"));
        QTRY_COMPARE(m_log.size(), 1);
        QCOMPARE(m_log[0].action, QStringLiteral("forwarded"));
        QCOMPARE(m_log[0].status, std::optional<int>(503));
        QCOMPARE(m_log[0].retryAfter, QByteArray("2"));
        QCOMPARE(m_log[0].method, QByteArray("GET"));
        QCOMPARE(m_log[0].target, QStringLiteral("/status/503?retry_after=2"));
        // The upstream saw the request once.
        QCOMPARE(m_upstream->log().size(), 2);
    }

    void whatGoesUpstream()
    {
        CapturingServer::Server capture;
        QVERIFY(capture.listen(QHostAddress::LocalHost));
        QVERIFY(startProxy(QUrl(QString::fromLatin1(capture.baseUrl()) + QStringLiteral("/prefix"))));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("POST /items?x=1 HTTP/1.1\r\nHost: example.test\r\nConnection: keep-alive, X-Private\r\n"
                     "X-Private: secret\r\nKeep-Alive: timeout=5\r\nTransfer-Encoding: chunked\r\n"
                     "X-Forwarded-For: 10.0.0.1\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        QTRY_COMPARE(capture.requests.size(), 1);
        const CapturingServer::Request &r = capture.requests.first();
        QCOMPARE(r.method, QByteArray("POST"));
        QCOMPARE(r.target, QByteArray("/prefix/items?x=1"));
        QCOMPARE(r.header("Host"), "127.0.0.1:" + QByteArray::number(capture.serverPort()));
        QCOMPARE(r.header("X-Private"), QByteArray());
        QCOMPARE(r.header("Keep-Alive"), QByteArray());
        QCOMPARE(r.header("Connection"), QByteArray());
        QCOMPARE(r.header("Transfer-Encoding"), QByteArray());
        QCOMPARE(r.header("Content-Length"), QByteArray("3"));
        QCOMPARE(r.body, QByteArray("abc"));
        QCOMPARE(r.header("X-Forwarded-For"), QByteArray("10.0.0.1, 127.0.0.1"));
        QVERIFY(r.header("Via").contains("retrylab"));
        QList<QByteArray> bodies;
        QCOMPARE(readResponses(client, 1, &bodies).value(0).status, 200);

        // keepHost sends the client's Host on.
        m_proxy.reset();
        QVERIFY(startProxy(QUrl(QString::fromLatin1(capture.baseUrl())), true));
        QTcpSocket second;
        second.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(second.waitForConnected(5000));
        second.write("GET / HTTP/1.1\r\nHost: example.test\r\n\r\n");
        QTRY_COMPARE(capture.requests.size(), 2);
        QCOMPARE(capture.requests.last().header("Host"), QByteArray("example.test"));
    }

    // The answer's hop-by-hop fields stay between the upstream and the proxy: those RFC 9110
    // names and those its Connection field names, in any case; the rest passes. A Connection
    // field naming "close", in any case, ends the upstream connection after the answer.
    void hopByHopFieldsOfTheAnswerAreDropped_data()
    {
        QTest::addColumn<QByteArray>("connection");
        QTest::addColumn<bool>("upstreamCloses");
        QTest::addRow("keep-alive and a field named") << QByteArray("Keep-Alive, X-Hop") << false;
        QTest::addRow("a field named, spaced") << QByteArray(" x-hop ,keep-alive") << false;
        QTest::addRow("close in capitals") << QByteArray("X-Hop, CLOSE") << true;
        QTest::addRow("close alone") << QByteArray("close") << true;
    }

    void hopByHopFieldsOfTheAnswerAreDropped()
    {
        QFETCH(QByteArray, connection);
        QFETCH(bool, upstreamCloses);
        ScriptedUpstream upstream([connection](int, int, QTcpSocket *socket) {
            socket->write("HTTP/1.1 200 OK\r\nConnection: " + connection
                + "\r\nX-Hop: secret\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\nX-Kept: yes\r\n"
                  "Content-Length: 2\r\n\r\nok");
        });
        QVERIFY(startProxy(upstream.url()));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n");
        QList<QByteArray> bodies;
        const auto heads = readResponses(client, 2, &bodies);
        QCOMPARE(heads.size(), 2);
        for (const HttpResponseStream::Head &head : heads) {
            QCOMPARE(head.status, 200);
            QCOMPARE(headerValue(head.headers, "X-Kept"), std::optional<QByteArray>("yes"));
            QCOMPARE(headerValue(head.headers, "Keep-Alive"), std::nullopt);
            QCOMPARE(headerValue(head.headers, "TE"), std::nullopt);
            QCOMPARE(headerValue(head.headers, "Connection"), std::nullopt);
            const bool named = connection.toLower().contains("x-hop");
            QCOMPARE(headerValue(head.headers, "X-Hop"), named ? std::nullopt : std::optional<QByteArray>("secret"));
        }
        QCOMPARE(bodies, QList<QByteArray>({"ok", "ok"}));
        QCOMPARE(upstream.requests, 2);
        QCOMPARE(upstream.connections, upstreamCloses ? 2 : 1);
    }

    void pipelinedRequestsShareOneUpstreamConnection()
    {
        QVERIFY(startProxy(m_upstream->baseUrl()));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("GET /status/200 HTTP/1.1\r\nHost: a\r\n\r\nGET /status/201 HTTP/1.1\r\nHost: a\r\n\r\n"
                     "HEAD /status/202 HTTP/1.1\r\nHost: a\r\n\r\n");
        QList<QByteArray> bodies;
        const auto heads = readResponses(client, 3, &bodies, {"GET", "GET", "HEAD"});
        QCOMPARE(heads.size(), 3);
        QCOMPARE(heads[0].status, 200);
        QCOMPARE(heads[1].status, 201);
        QCOMPARE(heads[2].status, 202);
        QVERIFY(bodies[2].isEmpty());
        const auto upstreamLog = m_upstream->log();
        QCOMPARE(upstreamLog.size(), 3);
        QCOMPARE(upstreamLog[0].peer, upstreamLog[2].peer); // one upstream connection, kept alive
    }

    void aLargeFileStreamsThroughUnchanged()
    {
        const QByteArray missing = RealServers::Nginx::checkInstalled();
        if (!missing.isEmpty())
            RETRYLAB_MISSING_TOOL(missing.constData());
        QByteArray file(24 * 1024 * 1024, Qt::Uninitialized);
        QRandomGenerator generator(5);
        generator.fillRange(reinterpret_cast<quint32 *>(file.data()), file.size() / 4);
        const QString root = m_dir.filePath(QStringLiteral("www"));
        QDir().mkpath(root);
        QFile out(root + QStringLiteral("/large.bin"));
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(file) == file.size());
        out.close();
        RealServers::Nginx nginx(m_dir.filePath(QStringLiteral("nginx")));
        nginx.addServer(
            QString(), QStringLiteral("        root %1;\n        location /gone { return 503; }").arg(root));
        QString error;
        QVERIFY2(nginx.start(&error), qPrintable(error));
        QVERIFY(startProxy(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(nginx.port(0)))));
        QNetworkAccessManager manager;
        const Answer big = ProxyTesting::fetch(manager, via(QStringLiteral("/large.bin")));
        QCOMPARE(big.status, 200);
        QCOMPARE(big.body.size(), file.size());
        QCOMPARE(QCryptographicHash::hash(big.body, QCryptographicHash::Sha256),
            QCryptographicHash::hash(file, QCryptographicHash::Sha256));
        QCOMPARE(ProxyTesting::fetch(manager, via(QStringLiteral("/gone"))).status, 503);
        QTRY_COMPARE(m_log.size(), 2);
        QCOMPARE(m_log[0].bytesSent > file.size(), true);
    }

    void aSlowClientHoldsTheUpstreamBack()
    {
        // 16 MiB from an upstream of the suite's own that writes as fast as it may,
        // to a client that does not read: what the proxy holds stays near its cap.
        FastUpstream upstream;
        QVERIFY(upstream.isListening());
        QVERIFY(startProxy(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(upstream.serverPort()))));
        QTcpSocket client;
        client.setReadBufferSize(64 * 1024);
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("GET /big HTTP/1.1\r\nHost: a\r\n\r\n");
        // Once the proxy holds about its cap, it must stop there while the client reads nothing.
        QTRY_VERIFY_WITH_TIMEOUT(m_proxy->bufferedBytes() >= m_proxy->options().maxBufferedBytes / 2, 10'000);
        QVERIFY(!QTest::qWaitFor(
            [this] { return m_proxy->bufferedBytes() > 4 * m_proxy->options().maxBufferedBytes; }, 500));
        QVERIFY2(m_proxy->bufferedBytes() <= m_proxy->options().maxBufferedBytes + 512 * 1024,
            qPrintable(QString::number(m_proxy->bufferedBytes())));
        // Reading it all gets every byte.
        qint64 received = 0;
        client.setReadBufferSize(0);
        QList<QByteArray> bodies;
        const auto heads = readResponses(client, 1, &bodies);
        QCOMPARE(heads.value(0).status, 200);
        received = bodies.value(0).size();
        QCOMPARE(received, FastUpstream::bodyBytes);
    }

    void manySlowClientsShareOneBufferLimit()
    {
        // 3,000 clients that never read held 3 GiB: each may hold the total limit's share only.
        FastUpstream upstream;
        QVERIFY(upstream.isListening());
        ProxyOptions options;
        options.upstream = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(upstream.serverPort()));
        options.maxTotalBufferedBytes = 256 * 1024;
        ProxyServer proxy(options);
        QVERIFY2(proxy.listen(), qPrintable(proxy.errorString()));
        std::vector<std::unique_ptr<QTcpSocket>> clients;
        for (int i = 0; i < 4; ++i) {
            auto client = std::make_unique<QTcpSocket>();
            client->setReadBufferSize(64 * 1024);
            client->connectToHost(QHostAddress::LocalHost, quint16(proxy.listenUrl().port()));
            QVERIFY(client->waitForConnected(5000));
            client->write("GET /big HTTP/1.1\r\nHost: a\r\n\r\n");
            clients.push_back(std::move(client));
        }
        QTRY_COMPARE(proxy.connectionCount(), 4);
        QCOMPARE(proxy.bufferLimitPerConnection(), qint64(64 * 1024));
        // Each holds its 64 KiB share, a piece read from its upstream and that socket's buffer: not 1 MiB each.
        const qint64 most = 4 * (64 + 64 + 4 * 64) * 1024;
        QTRY_VERIFY_WITH_TIMEOUT(proxy.bufferedBytes() >= 128 * 1024, 10'000);
        QVERIFY(!QTest::qWaitFor([&] { return proxy.bufferedBytes() > most; }, 1000));
        QVERIFY2(proxy.bufferedBytes() <= most, qPrintable(QString::number(proxy.bufferedBytes())));
    }

    void chunkedAnswersPassThrough()
    {
        QTcpServer upstream;
        QVERIFY(upstream.listen(QHostAddress::LocalHost));
        const QByteArray chunked = "4\r\nWiki\r\n6\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Trailer: yes\r\n\r\n";
        connect(&upstream, &QTcpServer::newConnection, this, [&] {
            QTcpSocket *s = upstream.nextPendingConnection();
            connect(s, &QTcpSocket::readyRead, s, [s, chunked] {
                s->readAll();
                s->write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Trailer\r\n\r\n");
                s->write(chunked.left(7));
                s->flush();
                s->write(chunked.mid(7));
            });
        });
        QVERIFY(startProxy(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(upstream.serverPort()))));
        QNetworkAccessManager manager;
        const Answer a = ProxyTesting::fetch(manager, via(QStringLiteral("/wiki")));
        QCOMPARE(a.status, 200);
        QCOMPARE(a.body, QByteArray("Wikipedia in \r\n\r\nchunks."));
    }

    void failuresUpstreamAreSaid_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("action");
        QTest::addRow("reset") << "/fault/reset" << 502 << "upstream-closed";
        QTest::addRow("empty") << "/fault/empty" << 502 << "upstream-closed";
        QTest::addRow("garbage") << "/fault/garbage" << 502 << "upstream-broken";
    }

    void failuresUpstreamAreSaid()
    {
        QFETCH(QString, path);
        QFETCH(int, status);
        QFETCH(QString, action);
        QVERIFY(startProxy(m_upstream->baseUrl()));
        QNetworkAccessManager manager;
        const Answer a = ProxyTesting::fetch(manager, via(path));
        QCOMPARE(a.status, status);
        QVERIFY(!a.body.isEmpty());
        QTRY_VERIFY(!m_log.isEmpty());
        QCOMPARE(m_log.first().action, action);
    }

    void bareCrOrNulInAnUpstreamHeader_is502_data()
    {
        QTest::addColumn<QByteArray>("head");
        // Passed on, a client splitting at the bare CR reads a Set-Cookie the upstream chose.
        QTest::addRow("bare CR") << QByteArray("X-A: a\rSet-Cookie: session=evil\r\n");
        QTest::addRow("NUL") << QByteArray("X-A: a\0b\r\n", 10);
        QTest::addRow("reason phrase") << QByteArray("");
    }

    void bareCrOrNulInAnUpstreamHeader_is502()
    {
        QFETCH(QByteArray, head);
        const bool inReason = head.isEmpty();
        ScriptedUpstream upstream([head, inReason](int, int, QTcpSocket *s) {
            s->write(QByteArray("HTTP/1.1 200 O") + (inReason ? QByteArray("K\rX", 3) : QByteArray("K")) + "\r\n" + head
                + "Content-Length: 2\r\n\r\nok");
        });
        QVERIFY(startProxy(upstream.url()));
        QNetworkAccessManager manager;
        const Answer a = ProxyTesting::fetch(manager, via(QStringLiteral("/x")));
        QCOMPARE(a.status, 502);
        for (const auto &[name, value] : a.headers)
            QVERIFY2(name.compare("Set-Cookie", Qt::CaseInsensitive) != 0, value.constData());
        QTRY_VERIFY(!m_log.isEmpty());
        QCOMPARE(m_log.first().action, QStringLiteral("upstream-broken"));
    }

    void anUnsolicitedUpstreamAnswer_neverReachesTheNextRequest()
    {
        // The first answer comes with a second one glued on; the next request on the
        // same client connection must get its own answer from a fresh upstream connection.
        ScriptedUpstream upstream([](int connection, int, QTcpSocket *s) {
            if (connection == 0) {
                s->write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"
                         "HTTP/1.1 200 OK\r\nSet-Cookie: session=evil\r\nContent-Length: 5\r\n\r\nevil!");
            } else {
                s->write("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond");
            }
        });
        QVERIFY(startProxy(upstream.url()));
        QNetworkAccessManager manager;
        const Answer first = ProxyTesting::fetch(manager, via(QStringLiteral("/one")));
        QCOMPARE(first.body, QByteArray("first"));
        const Answer second = ProxyTesting::fetch(manager, via(QStringLiteral("/two")));
        QCOMPARE(second.status, 200);
        QCOMPARE(second.body, QByteArray("second"));
        QCOMPARE(upstream.connections, 2);
    }

    void aSlowlorisClientGets408AtTheHeaderDeadline()
    {
        // A byte every 50 ms kept the connection for ever: each byte restarted the idle timer.
        ProxyOptions options;
        options.upstream = m_upstream->baseUrl();
        options.headerTimeoutMs = 300;
        ProxyServer proxy(options);
        QVERIFY2(proxy.listen(), qPrintable(proxy.errorString()));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, quint16(proxy.listenUrl().port()));
        QVERIFY(client.waitForConnected(5000));
        QByteArray received;
        connect(&client, &QTcpSocket::readyRead, &client, [&] { received += client.readAll(); });
        client.write("GET /status/200 HTTP/1.1\r\nX-Slow: ");
        QTimer trickle;
        connect(&trickle, &QTimer::timeout, &client, [&] {
            if (client.state() == QAbstractSocket::ConnectedState)
                client.write("x");
        });
        trickle.start(50);
        QTRY_VERIFY_WITH_TIMEOUT(client.state() == QAbstractSocket::UnconnectedState, 10'000);
        QVERIFY2(received.startsWith("HTTP/1.1 408 "), received.constData());
        QVERIFY(received.contains("not complete 300 ms after its first byte"));
        QCOMPARE(m_upstream->handledCount(), 0);
    }

    void atTheConnectionLimitTheLongestWaitingMakesRoom()
    {
        ProxyOptions options;
        options.upstream = m_upstream->baseUrl();
        options.maxConnections = 2;
        ProxyServer proxy(options);
        QVERIFY2(proxy.listen(), qPrintable(proxy.errorString()));
        QTcpSocket first;
        QTcpSocket second;
        first.connectToHost(QHostAddress::LocalHost, quint16(proxy.listenUrl().port()));
        QVERIFY(first.waitForConnected(5000));
        QTRY_COMPARE(proxy.connectionCount(), 1);
        second.connectToHost(QHostAddress::LocalHost, quint16(proxy.listenUrl().port()));
        QVERIFY(second.waitForConnected(5000));
        QTRY_COMPARE(proxy.connectionCount(), 2);
        // A third client is served; the first, idle the longest, makes room.
        QNetworkAccessManager manager;
        const Answer a = ProxyTesting::fetch(manager, proxy.listenUrl().resolved(QUrl(QStringLiteral("/status/200"))));
        QCOMPARE(a.status, 200);
        QTRY_COMPARE(first.state(), QAbstractSocket::UnconnectedState);
        QCOMPARE(second.state(), QAbstractSocket::ConnectedState);
        QCOMPARE(proxy.evictedConnections(), quint64(1));
        QCOMPARE(proxy.connectionCount(), 2);
    }

    void heldUploadsBeyondTheLimitGet503()
    {
        // 200 clients holding 8 MiB uploads cost 1.8 GiB: the fault server's limit applies here too.
        ProxyOptions options;
        options.upstream = m_upstream->baseUrl();
        options.maxHeldBytes = 512 * 1024;
        ProxyServer proxy(options);
        QVERIFY2(proxy.listen(), qPrintable(proxy.errorString()));
        QList<std::shared_ptr<QTcpSocket>> clients;
        QList<std::shared_ptr<QByteArray>> answers;
        for (int i = 0; i < 4; ++i) {
            auto client = std::make_shared<QTcpSocket>();
            auto answer = std::make_shared<QByteArray>();
            connect(client.get(), &QTcpSocket::readyRead, client.get(),
                [c = client.get(), answer] { *answer += c->readAll(); });
            client->connectToHost(QHostAddress::LocalHost, quint16(proxy.listenUrl().port()));
            QVERIFY(client->waitForConnected(5000));
            // 200 KiB of a 1 MiB upload, then nothing more.
            client->write("PUT /status/200 HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\n");
            client->write(QByteArray(200 * 1024, 'u'));
            clients.append(client);
            answers.append(answer);
            QTRY_VERIFY(proxy.heldBytes() >= (i < 2 ? (i + 1) * 200 * 1024 : 400 * 1024));
        }
        // Two fit; the others are refused and closed; none reached the upstream.
        QTRY_VERIFY_WITH_TIMEOUT(
            answers[2]->startsWith("HTTP/1.1 503 ") && answers[3]->startsWith("HTTP/1.1 503 "), 10'000);
        QVERIFY2(answers[3]->contains("Retry-After: 1"), answers[3]->constData());
        QVERIFY(answers[0]->isEmpty() && answers[1]->isEmpty());
        QVERIFY(proxy.heldBytes() <= options.maxHeldBytes);
        QCOMPARE(m_upstream->handledCount(), 0);
        // Those that left give their bytes back.
        clients[0]->abort();
        clients[1]->abort();
        QTRY_COMPARE(proxy.heldBytes(), qint64(0));
    }

    void aBodyCutShortReachesTheClientCut()
    {
        QVERIFY(startProxy(m_upstream->baseUrl()));
        QNetworkAccessManager manager;
        const Answer a = ProxyTesting::fetch(manager, via(QStringLiteral("/fault/broken")));
        QVERIFY(a.error != QNetworkReply::NoError);
        QTRY_VERIFY(!m_log.isEmpty());
        QCOMPARE(m_log.first().action, QStringLiteral("upstream-broken"));
    }

    void anUnreachableUpstreamGets502()
    {
        const quint16 closed = RealServers::freePort();
        QVERIFY(startProxy(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closed))));
        QNetworkAccessManager manager;
        const Answer a = ProxyTesting::fetch(manager, via(QStringLiteral("/x")));
        QCOMPARE(a.status, 502);
        QVERIFY2(a.body.contains("cannot be reached"), a.body.constData());
        QTRY_COMPARE(m_log.size(), 1);
        QCOMPARE(m_log[0].action, QStringLiteral("upstream-unreachable"));
    }

    void aClientLeavingMidAnswerIsLogged()
    {
        QVERIFY(startProxy(m_upstream->baseUrl()));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("GET /fault/drip?bytes=40&interval=50 HTTP/1.1\r\nHost: a\r\n\r\n");
        QSignalSpy ready(&client, &QTcpSocket::readyRead);
        QVERIFY(ready.wait(5000));
        client.abort();
        QTRY_COMPARE(m_log.size(), 1);
        QCOMPARE(m_log[0].action, QStringLiteral("client-closed"));
    }

    void malformedRequestsAreRefused()
    {
        QVERIFY(startProxy(m_upstream->baseUrl()));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("THIS IS NOT HTTP\r\n\r\n");
        QList<QByteArray> bodies;
        QCOMPARE(readResponses(client, 1, &bodies).value(0).status, 400);
        QTRY_COMPARE(m_log.size(), 1);
        QCOMPARE(m_log[0].action, QStringLiteral("reject"));
        QCOMPARE(m_upstream->log().size(), 0);
    }

    void anInterimAnswerAndTheFinalOneInOneRead()
    {
        ScriptedUpstream upstream([](int, int, QTcpSocket *socket) {
            socket->write("HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n"
                          "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        });
        QVERIFY(startProxy(upstream.url()));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        QList<QByteArray> bodies;
        const auto heads = readResponses(client, 2, &bodies);
        QCOMPARE(heads.size(), 2);
        QCOMPARE(heads[0].status, 103);
        QCOMPARE(heads[1].status, 200);
        QCOMPARE(bodies[1], QByteArray("hello"));
    }

    void aBodyEndedByACloseReachesASlowClientWhole()
    {
        // The upstream sends 3 MiB and closes while the client has not read a
        // byte: what the proxy holds back must still reach it.
        QByteArray body(3 * 1024 * 1024, 'x');
        for (qsizetype i = 0; i < body.size(); i += 4096)
            body[i] = char('a' + (i / 4096) % 26);
        ScriptedUpstream upstream([&body](int, int, QTcpSocket *socket) {
            socket->write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body);
            socket->disconnectFromHost();
        });
        ProxyOptions options;
        options.upstream = upstream.url();
        options.maxBufferedBytes = 64 * 1024;
        m_proxy = std::make_unique<ProxyServer>(options);
        connect(m_proxy.get(), &ProxyServer::exchangeFinished, this,
            [this](const ServerLogEntry &entry) { m_log.append(entry); });
        QVERIFY(m_proxy->listen());
        QTcpSocket client;
        client.setReadBufferSize(16 * 1024);
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("GET /big HTTP/1.1\r\nHost: a\r\n\r\n");
        // Not reading until the upstream has sent everything and gone.
        QTRY_VERIFY_WITH_TIMEOUT(upstream.requests == 1, 10'000);
        QTest::qWait(300); // time for the upstream's close to reach the proxy while the client reads nothing
        QByteArray received;
        QSignalSpy closed(&client, &QTcpSocket::disconnected);
        while (client.state() == QAbstractSocket::ConnectedState || client.bytesAvailable() > 0) {
            received += client.readAll();
            if (client.state() == QAbstractSocket::ConnectedState && client.bytesAvailable() == 0
                && !client.waitForReadyRead(100) && closed.isEmpty())
                QCoreApplication::processEvents();
        }
        received += client.readAll();
        const qsizetype headEnd = received.indexOf("\r\n\r\n");
        QVERIFY(headEnd > 0);
        QCOMPARE(received.size() - headEnd - 4, body.size());
        QVERIFY(received.endsWith(body.right(4096)));
        QTRY_COMPARE(m_log.size(), 1);
        QCOMPARE(m_log[0].action, QStringLiteral("forwarded"));
    }

    void aMalformedRequestIsAnsweredOnce()
    {
        QVERIFY(startProxy(m_upstream->baseUrl()));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        // A header section over the limit, then more of it in a second write.
        client.write("GET / HTTP/1.1\r\nX-Long: " + QByteArray(100 * 1024, 'a'));
        QVERIFY(client.waitForBytesWritten(5000));
        QTRY_COMPARE(m_log.size(), 1);
        client.write(QByteArray(50 * 1024, 'b') + "\r\n\r\n");
        client.waitForBytesWritten(5000);
        QList<QByteArray> bodies;
        const auto heads = readResponses(client, 1, &bodies);
        QCOMPARE(heads.size(), 1);
        QVERIFY(heads[0].status >= 400);
        // The proxy closes the connection after its answer; nothing more is answered or logged.
        QTRY_VERIFY(
            client.state() == QAbstractSocket::UnconnectedState || client.bytesAvailable() > 0 || !client.isValid());
        QCOMPARE(client.readAll(), QByteArray());
        QCOMPARE(m_log.size(), 1);
    }

    void anHttp10ClientGetsAChunkedBodyUnframed()
    {
        ScriptedUpstream upstream([](int, int, QTcpSocket *socket) {
            socket->write(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
        });
        QVERIFY(startProxy(upstream.url()));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy->listenUrl().port());
        QVERIFY(client.waitForConnected(5000));
        client.write("GET / HTTP/1.0\r\n\r\n");
        QByteArray received;
        QSignalSpy closed(&client, &QTcpSocket::disconnected);
        QTRY_VERIFY_WITH_TIMEOUT((received += client.readAll(), !closed.isEmpty()), 10'000);
        received += client.readAll();
        QVERIFY2(received.endsWith("\r\n\r\nhello world"), received.constData());
        QVERIFY(!received.toLower().contains("transfer-encoding"));
        QVERIFY(received.contains("Connection: close"));
    }

    void aKeptAliveUpstreamThatClosesIsTriedOnceMoreForIdempotentRequests()
    {
        // Every upstream connection answers its first request and closes on the second without a word.
        ScriptedUpstream upstream([](int, int request, QTcpSocket *socket) {
            if (request == 0)
                socket->write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
            else
                socket->disconnectFromHost();
        });
        QVERIFY(startProxy(upstream.url()));
        QNetworkAccessManager manager;
        QCOMPARE(ProxyTesting::fetch(manager, via(QStringLiteral("/a"))).status, 200);
        QCOMPARE(
            ProxyTesting::fetch(manager, via(QStringLiteral("/b"))).status, 200); // tried again on a new connection
        QCOMPARE(upstream.connections, 2);
        // A POST may have been acted on: not sent again, the client is told.
        QNetworkRequest post(via(QStringLiteral("/c")));
        post.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("text/plain"));
        QNetworkReply *reply = manager.post(post, QByteArray("x"));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QVERIFY(finished.wait(10'000));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 502);
        reply->deleteLater();
        QCOMPARE(upstream.connections, 2);
    }

    void badOptionsAreRefused_data()
    {
        QTest::addColumn<QString>("upstream");
        QTest::addColumn<QString>("address");
        QTest::addColumn<QString>("expected");
        QTest::addRow("no upstream") << ""
                                     << "127.0.0.1"
                                     << "not a URL";
        QTest::addRow("ftp") << "ftp://127.0.0.1/"
                             << "127.0.0.1"
                             << "http or https";
        QTest::addRow("not loopback") << "http://127.0.0.1:1/"
                                      << "0.0.0.0"
                                      << "loopback";
    }

    void badOptionsAreRefused()
    {
        QFETCH(QString, upstream);
        QFETCH(QString, address);
        QFETCH(QString, expected);
        ProxyOptions options;
        options.upstream = QUrl(upstream);
        options.address = QHostAddress(address);
        ProxyServer proxy(options);
        QVERIFY(!proxy.listen());
        QVERIFY2(proxy.errorString().contains(expected), qPrintable(proxy.errorString()));
    }
};

QTEST_GUILESS_MAIN(TestProxyServer)
#include "tst_proxyserver.moc"
