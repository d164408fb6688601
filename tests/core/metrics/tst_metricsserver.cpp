#include "core/metrics/metricsregistry.h"
#include "core/metrics/metricsserver.h"
#include "core/metrics/monitormetrics.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

#include <memory>
#include <optional>

using namespace RetryLab::Core;

namespace {

/// One answer as read off the wire.
struct RawAnswer
{
    int status = 0;
    QMap<QByteArray, QByteArray> headers; ///< names in lower case
    QByteArray body;
    qsizetype wireBytes = 0; ///< status line, headers and body
};

/// A client on a plain socket, for what QNetworkAccessManager will not send
/// (garbage, pipelining, HEAD bodies counted byte by byte). It only collects
/// bytes as the event loop brings them, so that the server in the same thread
/// can answer.
class RawClient
{
public:
    explicit RawClient(quint16 port)
    {
        QObject::connect(&m_socket, &QTcpSocket::readyRead, &m_socket, [this] { m_buffer += m_socket.readAll(); });
        m_socket.connectToHost(QHostAddress(QHostAddress::LocalHost), port);
    }

    QTcpSocket &socket() { return m_socket; }
    bool connected() const { return m_socket.state() == QAbstractSocket::ConnectedState; }
    bool closed() const { return m_socket.state() == QAbstractSocket::UnconnectedState; }
    void send(const QByteArray &bytes) { m_socket.write(bytes); }
    QByteArray buffered() const { return m_buffer; }

    /// Whether a whole answer is buffered (QTRY evaluates its condition once
    /// more after the wait, so the condition must not take the answer).
    bool hasAnswer(bool head = false) const { return parse(head).has_value(); }

    /// The first whole answer buffered, taken out; nothing while it is incomplete.
    /// `head`: the answer to a HEAD, which has no body whatever its Content-Length.
    std::optional<RawAnswer> takeAnswer(bool head = false)
    {
        auto answer = parse(head);
        if (answer)
            m_buffer.remove(0, answer->wireBytes);
        return answer;
    }

private:
    std::optional<RawAnswer> parse(bool head) const
    {
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return std::nullopt;
        RawAnswer answer;
        const QList<QByteArray> lines = m_buffer.left(end).split('\n');
        const QList<QByteArray> statusLine = lines.first().trimmed().split(' ');
        answer.status = statusLine.value(1).toInt();
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines.at(i).indexOf(':');
            answer.headers.insert(lines.at(i).left(colon).trimmed().toLower(), lines.at(i).mid(colon + 1).trimmed());
        }
        const qsizetype length = head ? 0 : answer.headers.value("content-length").toLongLong();
        if (m_buffer.size() < end + 4 + length)
            return std::nullopt;
        answer.body = m_buffer.mid(end + 4, length);
        answer.wireBytes = end + 4 + length;
        return answer;
    }

    QTcpSocket m_socket;
    QByteArray m_buffer;
};

} // namespace

// The metrics server against real clients on 127.0.0.1: Qt's HTTP stack and a
// plain socket for what a careful client never sends.
class TestMetricsServer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void get_answersTheExpositionWithItsContentType();
    void get_seesUpdatesMadeBetweenScrapes();
    void head_answersTheHeadersWithoutABody();
    void otherPath_is404();
    void otherMethod_is405WithAllow_data();
    void otherMethod_is405WithAllow();
    void keepAlive_servesScrapesOneAfterAnotherOnOneConnection();
    void pipelinedScrapes_areAnsweredInOrder();
    void http10_closesAfterTheAnswer();
    void concurrentScrapes_eachGetTheWholeText();
    void garbage_is400AndClose_andTheServerGoesOn_data();
    void garbage_is400AndClose_andTheServerGoesOn();
    void randomBytes_neverStopTheServer();
    void oversizedHeaders_are431();
    void requestThatNeverEnds_is408();
    void idleConnection_isClosed();
    void beyondTheConnectionLimit_is503();
    void nonLoopbackAddress_isRefusedUnlessAllowed();
    void portInUse_saysWhy();
    void close_stopsListeningAndDropsConnections();
    void parseListen_data();
    void parseListen();

private:
    std::unique_ptr<MetricsRegistry> m_registry;
    std::unique_ptr<MonitorMetrics> m_metrics;
    std::unique_ptr<MetricsServer> m_server;
};

void TestMetricsServer::init()
{
    m_registry = std::make_unique<MetricsRegistry>();
    m_metrics = std::make_unique<MonitorMetrics>(m_registry.get());
    m_metrics->recordCheck(QStringLiteral("api \"prod\""), true, 0.12);
    m_metrics->recordAttempt(QStringLiteral("api \"prod\""), false, 0.05);
    m_metrics->setState(QStringLiteral("api \"prod\""), QStringLiteral("up"));
    m_server = std::make_unique<MetricsServer>(m_registry.get());
    QVERIFY2(m_server->listen(QHostAddress(QHostAddress::LocalHost), 0), qPrintable(m_server->errorString()));
    QVERIFY(m_server->serverPort() != 0);
    QCOMPARE(m_server->url(), QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(m_server->serverPort())));
}

void TestMetricsServer::cleanup()
{
    m_server.reset();
    m_metrics.reset();
    m_registry.reset();
}

void TestMetricsServer::get_answersTheExpositionWithItsContentType()
{
    QNetworkAccessManager manager;
    std::unique_ptr<QNetworkReply> reply(manager.get(QNetworkRequest(m_server->url())));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    QVERIFY(finished.wait(10'000));
    QCOMPARE(reply->error(), QNetworkReply::NoError);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QCOMPARE(reply->rawHeader("Content-Type"), QByteArray("text/plain; version=0.0.4; charset=utf-8"));
    const QByteArray body = reply->readAll();
    QCOMPARE(body, m_registry->exposition());
    QVERIFY(body.contains("retrylab_monitor_up{monitor=\"api \\\"prod\\\"\"} 1\n"));
}

void TestMetricsServer::get_seesUpdatesMadeBetweenScrapes()
{
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.hasAnswer(), 10'000);
    const std::optional<RawAnswer> first = client.takeAnswer();
    QVERIFY(
        first->body.contains("retrylab_monitor_checks_total{monitor=\"api \\\"prod\\\"\",outcome=\"success\"} 1\n"));

    m_metrics->recordCheck(QStringLiteral("api \"prod\""), true, 0.12);
    m_metrics->setState(QStringLiteral("api \"prod\""), QStringLiteral("down"));
    client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.hasAnswer(), 10'000);
    const std::optional<RawAnswer> second = client.takeAnswer();
    QVERIFY(
        second->body.contains("retrylab_monitor_checks_total{monitor=\"api \\\"prod\\\"\",outcome=\"success\"} 2\n"));
    QVERIFY(second->body.contains("retrylab_monitor_up{monitor=\"api \\\"prod\\\"\"} 0\n"));
}

void TestMetricsServer::head_answersTheHeadersWithoutABody()
{
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    client.send("HEAD /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.hasAnswer(true), 10'000);
    const std::optional<RawAnswer> head = client.takeAnswer(true);
    QCOMPARE(head->status, 200);
    QCOMPARE(head->headers.value("content-type"), QByteArray("text/plain; version=0.0.4; charset=utf-8"));
    QCOMPARE(head->headers.value("content-length").toLongLong(), m_registry->exposition().size());
    // The next bytes on the connection are the GET's answer, not a body.
    QTRY_VERIFY_WITH_TIMEOUT(client.hasAnswer(), 10'000);
    const std::optional<RawAnswer> get = client.takeAnswer();
    QCOMPARE(get->status, 200);
    QCOMPARE(get->body, m_registry->exposition());
}

void TestMetricsServer::otherPath_is404()
{
    QNetworkAccessManager manager;
    QUrl url = m_server->url();
    url.setPath(QStringLiteral("/"));
    std::unique_ptr<QNetworkReply> reply(manager.get(QNetworkRequest(url)));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    QVERIFY(finished.wait(10'000));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 404);
    QVERIFY(reply->readAll().contains("/metrics"));
    url.setPath(QStringLiteral("/metrics/"));
    reply.reset(manager.get(QNetworkRequest(url)));
    QSignalSpy again(reply.get(), &QNetworkReply::finished);
    QVERIFY(again.wait(10'000));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 404);
}

void TestMetricsServer::otherMethod_is405WithAllow_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::addRow("POST with a body") << QByteArray(
        "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello");
    QTest::addRow("DELETE") << QByteArray("DELETE /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTest::addRow("OPTIONS") << QByteArray("OPTIONS /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
}

void TestMetricsServer::otherMethod_is405WithAllow()
{
    QFETCH(QByteArray, request);
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    client.send(request + "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.hasAnswer(), 10'000);
    const std::optional<RawAnswer> refused = client.takeAnswer();
    QCOMPARE(refused->status, 405);
    QCOMPARE(refused->headers.value("allow"), QByteArray("GET, HEAD"));
    // The connection stays usable: the refusal was a well-formed exchange.
    QTRY_VERIFY_WITH_TIMEOUT(client.hasAnswer(), 10'000);
    const std::optional<RawAnswer> scrape = client.takeAnswer();
    QCOMPARE(scrape->status, 200);
}

void TestMetricsServer::keepAlive_servesScrapesOneAfterAnotherOnOneConnection()
{
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    for (int i = 0; i < 5; ++i) {
        client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(client.hasAnswer(), 10'000);
        const std::optional<RawAnswer> answer = client.takeAnswer();
        QCOMPARE(answer->status, 200);
        QCOMPARE(answer->headers.value("connection"), QByteArray("keep-alive"));
        QCOMPARE(answer->body, m_registry->exposition());
        QVERIFY(client.connected());
    }
    QCOMPARE(m_server->connectionCount(), 1);
}

void TestMetricsServer::pipelinedScrapes_areAnsweredInOrder()
{
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    client.send("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n"
                "GET /nothing HTTP/1.1\r\nHost: a\r\n\r\n"
                "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.closed(), 10'000);
    QList<int> statuses;
    while (const auto answer = client.takeAnswer())
        statuses << answer->status;
    QCOMPARE(statuses, QList<int>({200, 404, 200}));
}

void TestMetricsServer::http10_closesAfterTheAnswer()
{
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    client.send("GET /metrics HTTP/1.0\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.closed(), 10'000);
    const auto answer = client.takeAnswer();
    QVERIFY(answer);
    QCOMPARE(answer->status, 200);
    QCOMPARE(answer->headers.value("connection"), QByteArray("close"));
    QCOMPARE(answer->body, m_registry->exposition());
}

void TestMetricsServer::concurrentScrapes_eachGetTheWholeText()
{
    // Enough series that an answer takes more than one read.
    for (int i = 0; i < 300; ++i)
        m_metrics->recordCheck(QStringLiteral("monitor-%1").arg(i), i % 3 != 0, i / 100.0);
    const QByteArray expected = m_registry->exposition();
    QVERIFY(expected.size() > 256 * 1024);

    std::vector<std::unique_ptr<RawClient>> clients;
    for (int i = 0; i < 12; ++i)
        clients.push_back(std::make_unique<RawClient>(m_server->serverPort()));
    for (auto &client : clients) {
        QTRY_VERIFY_WITH_TIMEOUT(client->connected(), 10'000);
        client->send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    }
    QNetworkAccessManager manager;
    std::vector<std::unique_ptr<QNetworkReply>> replies;
    for (int i = 0; i < 6; ++i)
        replies.emplace_back(manager.get(QNetworkRequest(m_server->url())));

    for (auto &client : clients) {
        QTRY_VERIFY_WITH_TIMEOUT(client->hasAnswer(), 30'000);
        const std::optional<RawAnswer> answer = client->takeAnswer();
        QCOMPARE(answer->status, 200);
        QCOMPARE(answer->body, expected);
    }
    for (auto &reply : replies) {
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 30'000);
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        QCOMPARE(reply->readAll(), expected);
    }
}

void TestMetricsServer::garbage_is400AndClose_andTheServerGoesOn_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("status");
    QTest::addRow("binary") << QByteArray("\x00\x01\x02\xff garbage\r\n\r\n", 16) << 400;
    QTest::addRow("no version") << QByteArray("GET /metrics\r\n\r\n") << 400;
    QTest::addRow("HTTP/2 preface") << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") << 505;
    QTest::addRow("header without colon") << QByteArray("GET /metrics HTTP/1.1\r\nHost a\r\n\r\n") << 400;
    QTest::addRow("TLS hello") << QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15) << 400;
    QTest::addRow("content length and chunked")
        << QByteArray("POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
        << 400;
    QTest::addRow("body too large") << QByteArray("POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n")
                                    << 413;
}

void TestMetricsServer::garbage_is400AndClose_andTheServerGoesOn()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);
    {
        RawClient client(m_server->serverPort());
        QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
        client.send(bytes);
        QTRY_VERIFY_WITH_TIMEOUT(client.closed(), 10'000);
        const auto answer = client.takeAnswer();
        QVERIFY2(answer, client.buffered().constData());
        QCOMPARE(answer->status, status);
        QCOMPARE(answer->headers.value("connection"), QByteArray("close"));
    }
    RawClient next(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(next.connected(), 10'000);
    next.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(next.hasAnswer(), 10'000);
    const std::optional<RawAnswer> answer = next.takeAnswer();
    QCOMPARE(answer->status, 200);
}

void TestMetricsServer::randomBytes_neverStopTheServer()
{
    // Bytes at random, some after a valid request line, in pieces, from many
    // clients at once; some hang up in the middle. The server answers what it
    // can, closes what it must, and serves the next scrape.
    QRandomGenerator random(20261129);
    std::vector<std::unique_ptr<RawClient>> clients;
    for (int i = 0; i < 40; ++i) {
        auto client = std::make_unique<RawClient>(m_server->serverPort());
        QTRY_VERIFY_WITH_TIMEOUT(client->connected(), 10'000);
        QByteArray bytes = i % 2 == 0 ? QByteArray("GET /metrics HTTP/1.1\r\n") : QByteArray();
        const int length = int(random.bounded(1, 3000));
        for (int b = 0; b < length; ++b) {
            // Mostly printable, with line ends and NULs among them.
            const quint32 pick = random.bounded(100);
            bytes += pick < 5 ? '\n' : pick < 10 ? '\r' : pick < 12 ? '\0' : char(random.bounded(32, 127));
        }
        for (qsizetype at = 0; at < bytes.size();) {
            const qsizetype piece = random.bounded(1, 500);
            client->send(bytes.mid(at, piece));
            at += piece;
        }
        if (i % 5 == 0)
            client->socket().abort();
        clients.push_back(std::move(client));
    }
    RawClient next(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(next.connected(), 10'000);
    next.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(next.hasAnswer(), 10'000);
    QCOMPARE(next.takeAnswer()->status, 200);
    clients.clear();
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 1, 10'000);
}

void TestMetricsServer::oversizedHeaders_are431()
{
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + QByteArray(20 * 1024, 'x') + "\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.closed(), 10'000);
    const auto answer = client.takeAnswer();
    QVERIFY(answer);
    QCOMPARE(answer->status, 431);

    RawClient longLine(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(longLine.connected(), 10'000);
    longLine.send("GET /metrics?" + QByteArray(8 * 1024, 'q') + " HTTP/1.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(longLine.closed(), 10'000);
    const auto tooLong = longLine.takeAnswer();
    QVERIFY(tooLong);
    QCOMPARE(tooLong->status, 414);
}

void TestMetricsServer::requestThatNeverEnds_is408()
{
    m_server->setLimits({.maxConnections = 64, .requestTimeoutMs = 300, .idleTimeoutMs = 60'000});
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.closed(), 10'000);
    const auto answer = client.takeAnswer();
    QVERIFY(answer);
    QCOMPARE(answer->status, 408);
}

void TestMetricsServer::idleConnection_isClosed()
{
    m_server->setLimits({.maxConnections = 64, .requestTimeoutMs = 10'000, .idleTimeoutMs = 300});
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.hasAnswer(), 10'000);
    const std::optional<RawAnswer> answer = client.takeAnswer();
    QCOMPARE(answer->status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(client.closed(), 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 0, 10'000);
}

void TestMetricsServer::beyondTheConnectionLimit_is503()
{
    m_server->setLimits({.maxConnections = 2, .requestTimeoutMs = 10'000, .idleTimeoutMs = 60'000});
    RawClient first(m_server->serverPort());
    RawClient second(m_server->serverPort());
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 2, 10'000);
    RawClient third(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(third.closed(), 10'000);
    const auto refused = third.takeAnswer();
    QVERIFY(refused);
    QCOMPARE(refused->status, 503);
    QCOMPARE(refused->headers.value("retry-after"), QByteArray("1"));

    // The ones let in are served, and a place that frees up is given again.
    first.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(first.closed(), 10'000);
    QCOMPARE(first.takeAnswer()->status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 1, 10'000);
    RawClient fourth(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(fourth.connected(), 10'000);
    fourth.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(fourth.hasAnswer(), 10'000);
    const std::optional<RawAnswer> answer = fourth.takeAnswer();
    QCOMPARE(answer->status, 200);
}

void TestMetricsServer::nonLoopbackAddress_isRefusedUnlessAllowed()
{
    MetricsServer server(m_registry.get());
    for (const QHostAddress &address : {QHostAddress(QHostAddress::AnyIPv4), QHostAddress(QHostAddress::Any),
             QHostAddress(QStringLiteral("192.0.2.1"))}) {
        QVERIFY(!server.listen(address, 0));
        QVERIFY(!server.isListening());
        QVERIFY2(
            server.errorString().contains(QLatin1String("not a loopback address")), qPrintable(server.errorString()));
        QVERIFY2(
            server.errorString().contains(QLatin1String("--allow-non-loopback")), qPrintable(server.errorString()));
        QVERIFY(server.errorString().contains(address.toString()));
    }
    // Allowed, the address is tried: 192.0.2.1 (TEST-NET-1) belongs to no
    // machine, so the system refuses it, and the test opens nothing to others.
    QVERIFY(!server.listen(QHostAddress(QStringLiteral("192.0.2.1")), 0, true));
    QVERIFY2(server.errorString().startsWith(QLatin1String("cannot listen for metrics on 192.0.2.1")),
        qPrintable(server.errorString()));
    QVERIFY(!server.errorString().contains(QLatin1String("not a loopback address")));
    // The other loopback addresses are loopback too.
    QVERIFY2(server.listen(QHostAddress(QStringLiteral("127.0.0.2")), 0), qPrintable(server.errorString()));
    QVERIFY(server.isListening());
}

void TestMetricsServer::portInUse_saysWhy()
{
    MetricsServer other(m_registry.get());
    QVERIFY(!other.listen(QHostAddress(QHostAddress::LocalHost), m_server->serverPort()));
    QVERIFY2(other.errorString().contains(QString::number(m_server->serverPort())), qPrintable(other.errorString()));
    QVERIFY(!other.isListening());
    QCOMPARE(other.serverPort(), quint16(0));
    QVERIFY(other.url().isEmpty());
}

void TestMetricsServer::close_stopsListeningAndDropsConnections()
{
    RawClient client(m_server->serverPort());
    QTRY_VERIFY_WITH_TIMEOUT(client.connected(), 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 1, 10'000);
    const quint16 port = m_server->serverPort();
    m_server->close();
    QVERIFY(!m_server->isListening());
    QTRY_VERIFY_WITH_TIMEOUT(client.closed(), 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 0, 10'000);
    RawClient late(port);
    QTRY_VERIFY_WITH_TIMEOUT(late.closed(), 10'000);
    QVERIFY(late.socket().error() == QAbstractSocket::ConnectionRefusedError);
}

void TestMetricsServer::parseListen_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("address"); // empty: refused
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("error");
    QTest::addRow("IPv4") << "127.0.0.1:9464"
                          << "127.0.0.1" << 9464 << QString();
    QTest::addRow("IPv6 in brackets") << "[::1]:9464"
                                      << "::1" << 9464 << QString();
    QTest::addRow("localhost") << "localhost:9464"
                               << "127.0.0.1" << 9464 << QString();
    QTest::addRow("LOCALHOST") << "LOCALHOST:80"
                               << "127.0.0.1" << 80 << QString();
    QTest::addRow("any free port") << "127.0.0.1:0"
                                   << "127.0.0.1" << 0 << QString();
    QTest::addRow("highest port") << "127.0.0.1:65535"
                                  << "127.0.0.1" << 65535 << QString();
    QTest::addRow("spaces around") << "  127.0.0.1:9464 "
                                   << "127.0.0.1" << 9464 << QString();
    QTest::addRow("wildcard (refused later by listen)") << "0.0.0.0:9464"
                                                        << "0.0.0.0" << 9464 << QString();
    QTest::addRow("empty") << "" << QString() << 0 << "the address is empty";
    QTest::addRow("no port") << "127.0.0.1" << QString() << 0 << "the port is missing";
    QTest::addRow("colon, no port") << "127.0.0.1:" << QString() << 0 << "the port is missing";
    QTest::addRow("IPv6, no port") << "[::1]" << QString() << 0 << "the port is missing";
    QTest::addRow("port too large") << "127.0.0.1:65536" << QString() << 0 << "at most 65535";
    QTest::addRow("port far too large") << "127.0.0.1:99999999999999999999" << QString() << 0 << "at most 65535";
    QTest::addRow("negative port") << "127.0.0.1:-1" << QString() << 0 << "a number from 0";
    QTest::addRow("port with sign") << "127.0.0.1:+80" << QString() << 0 << "a number from 0";
    QTest::addRow("port not a number") << "127.0.0.1:http" << QString() << 0 << "a number from 0";
    QTest::addRow("no host") << ":9464" << QString() << 0 << "the host is missing";
    QTest::addRow("host name") << "example.com:9464" << QString() << 0 << "not an IPv4 address or localhost";
    QTest::addRow("garbage") << "%%%:1" << QString() << 0 << "not an IPv4 address or localhost";
    QTest::addRow("bare IPv6") << "::1:9464" << QString() << 0 << "goes in brackets";
    QTest::addRow("IPv4 in brackets") << "[127.0.0.1]:9464" << QString() << 0 << "not an IPv6 address";
    QTest::addRow("unclosed bracket") << "[::1:9464" << QString() << 0 << "no closing bracket";
    QTest::addRow("junk after bracket") << "[::1]x9464" << QString() << 0 << "the port is missing";
    QTest::addRow("address out of range") << "127.0.0.256:80" << QString() << 0 << "not an IPv4 address";
}

void TestMetricsServer::parseListen()
{
    QFETCH(QString, text);
    QFETCH(QString, address);
    QFETCH(int, port);
    QFETCH(QString, error);
    const auto parsed = MetricsServer::parseListen(text);
    if (address.isEmpty()) {
        QVERIFY(!parsed);
        QVERIFY2(parsed.error().contains(error), qPrintable(parsed.error()));
        QVERIFY2(parsed.error().contains(QLatin1String("HOST:PORT")), qPrintable(parsed.error()));
        return;
    }
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->first, QHostAddress(address));
    QCOMPARE(parsed->second, quint16(port));
}

QTEST_GUILESS_MAIN(TestMetricsServer)
#include "tst_metricsserver.moc"
