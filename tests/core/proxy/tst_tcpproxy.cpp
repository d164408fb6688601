// The TCP proxy and its toxics over real loopback sockets: a client socket of
// the test, the proxy, and an upstream server of the test that echoes, or
// sends what it is told, or closes. Each toxic is seen as a client sees it.

#include "../executor/realservers.h"
#include "core/faultserver/faultserver.h"
#include "core/proxy/tcpproxy.h"
#include "core/proxy/toxic.h"
#include "core/proxy/toxiproxyapi.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace RetryLab::Core;

namespace {

// An upstream of the test: echoes what it gets, or, when `greeting` is set,
// sends it on connecting (and closes after it when `closeAfterGreeting`).
class Upstream : public QObject
{
public:
    explicit Upstream(QObject *parent = nullptr) : QObject(parent)
    {
        connect(&server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = server.nextPendingConnection()) {
                ++accepted;
                sockets << socket;
                if (!greeting.isEmpty()) {
                    socket->write(greeting);
                    if (closeAfterGreeting)
                        socket->disconnectFromHost();
                }
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    const QByteArray bytes = socket->readAll();
                    received += bytes;
                    if (echo && socket->state() == QAbstractSocket::ConnectedState)
                        socket->write(bytes);
                });
                connect(socket, &QTcpSocket::disconnected, this, [this] { ++closed; });
            }
        });
        server.listen(QHostAddress::LocalHost, 0);
    }
    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(server.serverPort()); }

    QTcpServer server;
    QList<QTcpSocket *> sockets;
    QByteArray greeting;
    bool closeAfterGreeting = false;
    bool echo = true;
    QByteArray received;
    int accepted = 0;
    int closed = 0;
};

Toxic toxic(const QString &spec)
{
    const auto parsed = Toxic::parse(spec);
    if (!parsed)
        qFatal("bad toxic in the test: %s", qPrintable(parsed.error()));
    return *parsed;
}

std::unique_ptr<TcpProxy> startProxy(const Upstream &upstream, qint64 maxBuffered = 1024 * 1024)
{
    TcpProxyOptions options;
    options.setUpstream(upstream.address());
    options.maxBufferedBytes = maxBuffered;
    auto proxy = std::make_unique<TcpProxy>(options);
    proxy->setSeed(7);
    if (!proxy->listen())
        qFatal("the proxy does not listen: %s", qPrintable(proxy->errorString()));
    return proxy;
}

std::unique_ptr<QTcpSocket> connectTo(const TcpProxy &proxy)
{
    auto socket = std::make_unique<QTcpSocket>();
    socket->connectToHost(QHostAddress::LocalHost, proxy.serverPort());
    if (!socket->waitForConnected(5000))
        qFatal("no connection to the proxy");
    return socket;
}

// Reads until `size` bytes came or the socket closed; the time each read came in ms since `clock`.
QByteArray readUntil(QTcpSocket &socket, qsizetype size, int timeoutMs, QList<qint64> *arrivals = nullptr,
    const QElapsedTimer *clock = nullptr)
{
    QByteArray all;
    QElapsedTimer waited;
    waited.start();
    while (all.size() < size && waited.elapsed() < timeoutMs) {
        if (socket.bytesAvailable() == 0) {
            if (socket.state() != QAbstractSocket::ConnectedState)
                break;
            QTest::qWait(1);
            continue;
        }
        all += socket.readAll();
        if (arrivals && clock)
            *arrivals << clock->elapsed();
    }
    return all;
}

bool waitClosed(QTcpSocket &socket, int timeoutMs)
{
    return QTest::qWaitFor([&] { return socket.state() == QAbstractSocket::UnconnectedState; }, timeoutMs);
}

} // namespace

class TestTcpProxy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void toxicsReadAsToxiproxyWritesThem();
    void badToxicsAreRefusedNamingTheField();
    void bytesPassBothWaysUnchanged();
    void latencyDelaysEachWay();
    void bandwidthLimitsTheRate();
    void slicerSplitsIntoDelayedWrites();
    void limitDataClosesAfterTheBytes();
    void timeoutDropsDataThenCloses();
    void timeoutOfZeroHoldsUntilRemoved();
    void resetPeerResetsTheConnection();
    void slowCloseDelaysTheClose();
    void toxicityDecidesPerConnectionFromTheSeed();
    void upstreamThatRefusesClosesTheClient();
    void memoryIsBoundedWhenTheClientDoesNotRead();
    void listenAndUpstreamAreChecked();
    void apiAnswersInToxiproxysShapes();
    void apiRefusesWebPages();
    void httpFaultsGoBehindTheToxics();
};

void TestTcpProxy::toxicsReadAsToxiproxyWritesThem()
{
    const QByteArray json = R"({"name": "slow", "type": "latency", "stream": "upstream", "toxicity": 0.5,
        "attributes": {"latency": 1000, "jitter": 100}})";
    const auto read = Toxic::fromJson(QJsonDocument::fromJson(json).object());
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->name, QStringLiteral("slow"));
    QCOMPARE(read->type, Toxic::Type::Latency);
    QCOMPARE(read->stream, Toxic::Stream::Upstream);
    QCOMPARE(read->toxicity, 0.5);
    QCOMPARE(read->latencyMs, 1000);
    QCOMPARE(read->jitterMs, 100);
    QCOMPARE(Toxic::fromJson(read->toJson()).value(), *read);

    // Defaults as toxiproxy's: name <type>_<stream>, downstream, toxicity 1.
    const auto defaults
        = Toxic::fromJson(QJsonDocument::fromJson(R"({"type": "limit_data", "attributes": {"bytes": 9}})").object());
    QVERIFY(defaults);
    QCOMPARE(defaults->name, QStringLiteral("limit_data_downstream"));
    QCOMPARE(defaults->stream, Toxic::Stream::Downstream);
    QCOMPARE(defaults->toxicity, 1.0);
    QCOMPARE(
        defaults->toJson().value(QStringLiteral("attributes")).toObject().value(QStringLiteral("bytes")).toInt(), 9);

    // The command line's spelling.
    const Toxic line
        = toxic(QStringLiteral("slicer average_size=64 size_variation=8 delay=1000 stream=up toxicity=0.25 name=s"));
    QCOMPARE(line.type, Toxic::Type::Slicer);
    QCOMPARE(line.averageSize, 64);
    QCOMPARE(line.sizeVariation, 8);
    QCOMPARE(line.delayUs, 1000);
    QCOMPARE(line.stream, Toxic::Stream::Upstream);
    QCOMPARE(line.toxicity, 0.25);
    QCOMPARE(line.name, QStringLiteral("s"));
    for (const QString &type : Toxic::typeNames())
        QVERIFY2(type == QLatin1String("slicer") || type == QLatin1String("bandwidth") || Toxic::parse(type),
            qPrintable(type));
}

void TestTcpProxy::badToxicsAreRefusedNamingTheField()
{
    const auto error = [](const char *json) { return Toxic::fromJson(QJsonDocument::fromJson(json).object()).error(); };
    QCOMPARE(error(R"({"type": "latenzy"})"),
        QStringLiteral("type: \"latenzy\" is not a toxic (one of latency, bandwidth, slow_close, timeout, reset_peer, "
                       "slicer, limit_data)"));
    QVERIFY(error(R"({})").startsWith(QStringLiteral("type: is required")));
    QCOMPARE(error(R"({"type": "latency", "attributes": {"latency": -5}})"),
        QStringLiteral("attributes.latency: must be a whole number 0 or more (got -5)"));
    QCOMPARE(error(R"({"type": "latency", "attributes": {"rate": 5}})"),
        QStringLiteral("attributes.rate: is not an attribute of latency (it has latency, jitter)"));
    QCOMPARE(error(R"({"type": "latency", "toxicity": 1.5})"),
        QStringLiteral("toxicity: must be a probability from 0 to 1 (got 1.5)"));
    QCOMPARE(error(R"({"type": "latency", "stream": "sideways"})"),
        QStringLiteral("stream: must be \"upstream\" or \"downstream\" (got \"sideways\")"));
    QVERIFY(error(R"({"type": "latency", "attributes": {"latency": 1e300}})")
                .startsWith(QStringLiteral("attributes.latency: must be at most")));
    QCOMPARE(error(R"({"type": "bandwidth", "attributes": {"rate": 0}})"),
        QStringLiteral("attributes.rate: must be 1 KB/s or more"));
    QCOMPARE(error(R"({"type": "latency", "colour": "red"})").left(7), QStringLiteral("colour:"));
    QVERIFY(!Toxic::parse(QStringLiteral("latency 1000")));
    QVERIFY(!Toxic::parse(QString()));

    Toxic kept = toxic(QStringLiteral("latency latency=10"));
    QVERIFY(!kept.update(QJsonDocument::fromJson(R"({"type": "bandwidth"})").object()));
    QVERIFY(!kept.update(QJsonDocument::fromJson(R"({"attributes": {"latency": "soon"}})").object()));
    QCOMPARE(kept.latencyMs, 10); // a refused update changes nothing
    QVERIFY(kept.update(QJsonDocument::fromJson(R"({"attributes": {"latency": 20}, "toxicity": 0.5})").object()));
    QCOMPARE(kept.latencyMs, 20);
    QCOMPARE(kept.toxicity, 0.5);
}

void TestTcpProxy::bytesPassBothWaysUnchanged()
{
    Upstream upstream;
    auto proxy = startProxy(upstream);
    QSignalSpy closed(proxy.get(), &TcpProxy::linkClosed);
    auto client = connectTo(*proxy);
    // Bytes that are no protocol at all pass as they are: the proxy does not parse.
    QByteArray garbage(300'000, Qt::Uninitialized);
    QRandomGenerator random(3);
    for (char &c : garbage)
        c = char(random.bounded(256));
    client->write(garbage);
    QCOMPARE(readUntil(*client, garbage.size(), 20'000), garbage);
    QCOMPARE(upstream.received, garbage);
    client->disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(closed.size(), 1, 10'000);
    const auto summary = closed.at(0).at(0).value<TcpLinkSummary>();
    QCOMPARE(summary.end, QStringLiteral("client-closed"));
    QCOMPARE(summary.bytesUpstream, garbage.size());
    QCOMPARE(summary.bytesDownstream, garbage.size());
    QCOMPARE(summary.bytesDropped, 0);
    QTRY_COMPARE(upstream.closed, 1);
    QCOMPARE(proxy->connectionCount(), 0);
}

void TestTcpProxy::latencyDelaysEachWay()
{
    Upstream upstream;
    auto proxy = startProxy(upstream);
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("latency latency=300"))));
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("latency latency=200 jitter=50 stream=upstream"))));
    // The same name twice is refused, as toxiproxy refuses it.
    QVERIFY(!proxy->addToxic(toxic(QStringLiteral("latency latency=1"))));
    auto client = connectTo(*proxy);
    QElapsedTimer clock;
    clock.start();
    client->write("ping");
    QCOMPARE(readUntil(*client, 4, 10'000), QByteArray("ping"));
    const qint64 roundTrip = clock.elapsed();
    QVERIFY2(roundTrip >= 300 + 150 - 5, qPrintable(QString::number(roundTrip)));
    QVERIFY2(roundTrip < 5000, qPrintable(QString::number(roundTrip)));

    // Taken away, the next exchange is quick again (generously bounded).
    QVERIFY(proxy->removeToxic(QStringLiteral("latency_downstream")));
    QVERIFY(proxy->removeToxic(QStringLiteral("latency_upstream")));
    QVERIFY(!proxy->removeToxic(QStringLiteral("latency_upstream")));
    clock.restart();
    client->write("pong");
    QCOMPARE(readUntil(*client, 4, 10'000), QByteArray("pong"));
    QVERIFY2(clock.elapsed() < 300, qPrintable(QString::number(clock.elapsed())));
}

void TestTcpProxy::bandwidthLimitsTheRate()
{
    Upstream upstream;
    upstream.greeting = QByteArray(100'000, 'b');
    auto proxy = startProxy(upstream);
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("bandwidth rate=200")))); // 200 KB/s: 100 KB in 0.5 s
    QElapsedTimer clock;
    clock.start();
    auto client = connectTo(*proxy);
    QCOMPARE(readUntil(*client, 100'000, 20'000).size(), 100'000);
    QVERIFY2(clock.elapsed() >= 450, qPrintable(QString::number(clock.elapsed())));
}

void TestTcpProxy::slicerSplitsIntoDelayedWrites()
{
    Upstream upstream;
    upstream.greeting = QByteArray(1000, 's');
    auto proxy = startProxy(upstream);
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("slicer average_size=100 size_variation=20 delay=30000"))));
    QElapsedTimer clock;
    clock.start();
    auto client = connectTo(*proxy);
    QList<qint64> arrivals;
    QCOMPARE(readUntil(*client, 1000, 20'000, &arrivals, &clock).size(), 1000);
    // About ten slices 30 ms apart: they arrive in several reads over at least 200 ms.
    QVERIFY2(arrivals.size() >= 5, qPrintable(QString::number(arrivals.size())));
    QVERIFY2(
        arrivals.last() - arrivals.first() >= 200, qPrintable(QString::number(arrivals.last() - arrivals.first())));
}

void TestTcpProxy::limitDataClosesAfterTheBytes()
{
    Upstream upstream;
    upstream.greeting = QByteArray(5000, 'l');
    auto proxy = startProxy(upstream);
    QSignalSpy closed(proxy.get(), &TcpProxy::linkClosed);
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("limit_data bytes=1000"))));
    auto client = connectTo(*proxy);
    QVERIFY(waitClosed(*client, 10'000));
    QCOMPARE(client->readAll().size(), 1000);
    QTRY_COMPARE_WITH_TIMEOUT(closed.size(), 1, 10'000);
    const auto summary = closed.at(0).at(0).value<TcpLinkSummary>();
    QCOMPARE(summary.end, QStringLiteral("limit_data"));
    QCOMPARE(summary.bytesDownstream, 1000);
    QCOMPARE(summary.toxics, QStringList{QStringLiteral("limit_data_downstream")});
    QTRY_COMPARE(upstream.closed, 1);
}

void TestTcpProxy::timeoutDropsDataThenCloses()
{
    Upstream upstream;
    auto proxy = startProxy(upstream);
    QSignalSpy closed(proxy.get(), &TcpProxy::linkClosed);
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("timeout timeout=400 stream=upstream"))));
    QElapsedTimer clock;
    clock.start();
    auto client = connectTo(*proxy);
    client->write("lost");
    QVERIFY(waitClosed(*client, 10'000));
    QVERIFY2(clock.elapsed() >= 390, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(client->readAll(), QByteArray());
    QCOMPARE(upstream.received, QByteArray());
    QTRY_COMPARE(closed.size(), 1);
    const auto summary = closed.at(0).at(0).value<TcpLinkSummary>();
    QCOMPARE(summary.end, QStringLiteral("timeout"));
    QCOMPARE(summary.bytesDropped, 4);
}

void TestTcpProxy::timeoutOfZeroHoldsUntilRemoved()
{
    Upstream upstream;
    auto proxy = startProxy(upstream);
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("timeout timeout=0"))));
    auto client = connectTo(*proxy);
    client->write("held");
    QTest::qWait(300);
    QCOMPARE(client->bytesAvailable(), 0);
    QCOMPARE(client->state(), QAbstractSocket::ConnectedState);
    QCOMPARE(upstream.received, QByteArray("held")); // the upstream direction has no toxic
    proxy->removeAllToxics();
    client->write("free");
    QCOMPARE(readUntil(*client, 4, 10'000), QByteArray("free")); // the echo of "held" was dropped
}

void TestTcpProxy::resetPeerResetsTheConnection()
{
    Upstream upstream;
    auto proxy = startProxy(upstream);
    QSignalSpy closed(proxy.get(), &TcpProxy::linkClosed);
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("reset_peer timeout=200"))));
    // A socket of the system's own, because Qt reports a reset and a close in the same words.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    QVERIFY(fd >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(proxy->serverPort());
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address);
    QVERIFY(QTest::qWaitFor([&] { return ::send(fd, "before", 6, MSG_NOSIGNAL) == 6; }, 5000));
    QByteArray echoed;
    int failure = 0;
    QVERIFY(QTest::qWaitFor(
        [&] {
            char buffer[64];
            const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
            if (got > 0)
                echoed.append(buffer, got);
            else if (got == 0)
                failure = -1; // an orderly close
            else if (errno != EAGAIN && errno != EWOULDBLOCK)
                failure = errno;
            return failure != 0;
        },
        10'000));
    ::close(fd);
    QCOMPARE(echoed, QByteArray("before")); // data passes until the reset
    QCOMPARE(failure, ECONNRESET);
    QTRY_COMPARE(closed.size(), 1);
    QCOMPARE(closed.at(0).at(0).value<TcpLinkSummary>().end, QStringLiteral("reset_peer"));
}

void TestTcpProxy::slowCloseDelaysTheClose()
{
    Upstream upstream;
    upstream.greeting = "bye";
    upstream.closeAfterGreeting = true;
    auto proxy = startProxy(upstream);
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("slow_close delay=500"))));
    QElapsedTimer clock;
    clock.start();
    auto client = connectTo(*proxy);
    QCOMPARE(readUntil(*client, 3, 10'000), QByteArray("bye"));
    const qint64 data = clock.elapsed();
    QVERIFY(waitClosed(*client, 10'000));
    QVERIFY2(clock.elapsed() - data >= 400, qPrintable(QStringLiteral("%1 then %2").arg(data).arg(clock.elapsed())));
}

void TestTcpProxy::toxicityDecidesPerConnectionFromTheSeed()
{
    const auto pattern = [](quint64 seed) {
        Upstream upstream;
        auto proxy = startProxy(upstream);
        proxy->setSeed(seed);
        QSignalSpy closed(proxy.get(), &TcpProxy::linkClosed);
        proxy->addToxic(toxic(QStringLiteral("limit_data bytes=0 toxicity=0.5")));
        QString applied;
        for (int i = 0; i < 16; ++i) {
            auto client = connectTo(*proxy);
            client->write("x");
            const QByteArray echoed = readUntil(*client, 1, 2000);
            applied += echoed.isEmpty() ? QLatin1Char('1') : QLatin1Char('0');
            client->abort();
        }
        return applied;
    };
    const QString first = pattern(11);
    QCOMPARE(pattern(11), first);
    QVERIFY2(first.contains(QLatin1Char('1')) && first.contains(QLatin1Char('0')), qPrintable(first));
}

void TestTcpProxy::upstreamThatRefusesClosesTheClient()
{
    const quint16 freePort = RealServers::freePort();
    TcpProxyOptions options;
    QVERIFY(options.setUpstream(QStringLiteral("127.0.0.1:%1").arg(freePort)));
    TcpProxy proxy(options);
    QVERIFY(proxy.listen());
    QSignalSpy closed(&proxy, &TcpProxy::linkClosed);
    auto client = connectTo(proxy);
    QVERIFY(waitClosed(*client, 10'000));
    QTRY_COMPARE(closed.size(), 1);
    const auto summary = closed.at(0).at(0).value<TcpLinkSummary>();
    QCOMPARE(summary.end, QStringLiteral("upstream-refused"));
    QVERIFY2(summary.detail.contains(QStringLiteral("refused"), Qt::CaseInsensitive), qPrintable(summary.detail));
    QVERIFY(summary.summary().contains(QStringLiteral("upstream-refused")));
}

void TestTcpProxy::memoryIsBoundedWhenTheClientDoesNotRead()
{
    Upstream upstream;
    const qint64 limit = 256 * 1024;
    auto proxy = startProxy(upstream, limit);
    auto client = connectTo(*proxy);
    client->setReadBufferSize(64 * 1024); // the client reads nothing for now
    QTRY_VERIFY(!upstream.sockets.isEmpty());
    QTcpSocket *server = upstream.sockets.first();
    const QByteArray block(1024 * 1024, 'm');
    for (int i = 0; i < 16; ++i)
        server->write(block);
    // The upstream keeps writing 16 MiB; the proxy holds its limit (one read over at most) and no more.
    QTest::qWait(500);
    QVERIFY2(proxy->bufferedBytes() <= limit + 64 * 1024, qPrintable(QString::number(proxy->bufferedBytes())));
    QVERIFY(server->bytesToWrite() > 0);
    client->setReadBufferSize(0);
    QCOMPARE(readUntil(*client, 16 * block.size(), 60'000).size(), 16 * block.size());
}

void TestTcpProxy::listenAndUpstreamAreChecked()
{
    TcpProxyOptions options;
    QCOMPARE(options.setUpstream(QStringLiteral("redis")).error(),
        QStringLiteral("the upstream needs HOST:PORT, e.g. 127.0.0.1:6379 (got \"redis\")"));
    QVERIFY(!options.setUpstream(QStringLiteral("host:0")));
    QVERIFY(!options.setUpstream(QStringLiteral("host:70000")));
    QVERIFY(options.setUpstream(QStringLiteral("[::1]:6379")));
    QCOMPARE(options.upstream(), QStringLiteral("[::1]:6379"));
    QVERIFY(options.setListen(QStringLiteral("localhost:0")));
    QVERIFY(options.address.isLoopback());
    QVERIFY(!options.setListen(QStringLiteral("example.org:80")));

    TcpProxyOptions none;
    TcpProxy withoutUpstream(none);
    QVERIFY(!withoutUpstream.listen());
    QVERIFY(withoutUpstream.errorString().contains(QStringLiteral("no upstream")));

    TcpProxyOptions open;
    QVERIFY(open.setUpstream(QStringLiteral("127.0.0.1:1")));
    open.address = QHostAddress::AnyIPv4;
    TcpProxy exposed(open);
    QVERIFY(!exposed.listen());
    QVERIFY(exposed.errorString().contains(QStringLiteral("not a loopback address")));

    Upstream upstream;
    auto first = startProxy(upstream);
    TcpProxyOptions same = first->options();
    same.port = first->serverPort();
    TcpProxy taken(same);
    QVERIFY(!taken.listen());
    QVERIFY2(
        taken.errorString().startsWith(QStringLiteral("cannot listen on 127.0.0.1:")), qPrintable(taken.errorString()));
}

namespace {

HttpRequest apiRequest(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
    QList<QPair<QByteArray, QByteArray>> headers = {{"Host", "127.0.0.1:8474"}})
{
    HttpRequest request;
    request.method = method;
    request.path = path;
    request.target = path;
    request.body = body;
    request.headers = std::move(headers);
    return request;
}

} // namespace

void TestTcpProxy::apiAnswersInToxiproxysShapes()
{
    Upstream upstream;
    ToxiproxyApi api;
    const QByteArray create
        = R"({"name": "svc", "listen": "localhost:0", "upstream": ")" + upstream.address().toLatin1() + R"("})";
    auto answer = api.handle(apiRequest("POST", "/proxies", create));
    QCOMPARE(answer.status, 201);
    const QJsonObject proxy = QJsonDocument::fromJson(answer.body).object();
    QCOMPARE(proxy.value(QStringLiteral("name")).toString(), QStringLiteral("svc"));
    QCOMPARE(proxy.value(QStringLiteral("enabled")).toBool(), true);
    QCOMPARE(proxy.value(QStringLiteral("toxics")).toArray().size(), 0);
    QVERIFY(proxy.value(QStringLiteral("listen")).toString().startsWith(QStringLiteral("127.0.0.1:")));
    QCOMPARE(api.handle(apiRequest("POST", "/proxies", create)).body,
        QByteArray(R"({"error":"proxy already exists","status":409})"));
    QCOMPARE(api.handle(apiRequest("POST", "/proxies", R"({"name": "x", "upstream": "nowhere"})")).status, 400);
    QCOMPARE(api.handle(apiRequest(
                            "POST", "/proxies", R"({"name": "x", "upstream": "127.0.0.1:1", "listen": "10.0.0.1:80"})"))
                 .status,
        400);
    QCOMPARE(api.handle(apiRequest("POST", "/proxies", "{not json")).status, 400);
    answer
        = api.handle(apiRequest("POST", "/proxies/svc/toxics", R"({"type": "latency", "attributes": {"latency": 5}})"));
    QCOMPARE(answer.status, 200);
    QCOMPARE(QJsonDocument::fromJson(answer.body).object().value(QStringLiteral("name")).toString(),
        QStringLiteral("latency_downstream"));
    QCOMPARE(api.handle(apiRequest("POST", "/proxies/svc/toxics", R"({"type": "latency"})")).status, 409);
    QCOMPARE(api.handle(apiRequest("GET", "/proxies/svc/toxics/nothing")).body,
        QByteArray(R"({"error":"toxic not found","status":404})"));
    QCOMPARE(
        api.handle(apiRequest("POST", "/proxies/svc/toxics/latency_downstream", R"({"attributes": {"latency": 9}})"))
            .status,
        200);
    QCOMPARE(api.proxy(QStringLiteral("svc"))->toxic(QStringLiteral("latency_downstream"))->latencyMs, 9);
    QCOMPARE(api.handle(apiRequest("PUT", "/proxies/svc")).status, 405);
    QCOMPARE(api.handle(apiRequest("GET", "/elsewhere")).status, 404);
    QCOMPARE(api.handle(apiRequest("POST", "/reset")).status, 204);
    QVERIFY(api.proxy(QStringLiteral("svc"))->toxics().isEmpty());
    QCOMPARE(api.handle(apiRequest("GET", "/version")).body, QByteArray(R"({"version":"2.12.0"})"));
    answer
        = api.handle(apiRequest("POST", "/populate", R"([{"name": "svc", "upstream": "127.0.0.1:1"}, {"name": 5}])"));
    QCOMPARE(answer.status, 400);
    QVERIFY2(answer.body.contains("proxies[1]"), answer.body.constData());
    QCOMPARE(api.handle(apiRequest("DELETE", "/proxies/svc")).status, 204);
    QCOMPARE(api.handle(apiRequest("GET", "/proxies")).body, QByteArray("{}"));
}

void TestTcpProxy::apiRefusesWebPages()
{
    ToxiproxyApi api;
    QCOMPARE(api.handle(apiRequest("GET", "/proxies", {}, {{"Host", "evil.example:8474"}})).status, 421);
    QCOMPARE(
        api.handle(apiRequest("POST", "/reset", {}, {{"Host", "localhost:8474"}, {"Origin", "https://evil.example"}}))
            .status,
        403);
    QCOMPARE(
        api.handle(apiRequest("POST", "/reset", {}, {{"Host", "localhost:8474"}, {"Sec-Fetch-Site", "cross-site"}}))
            .status,
        403);
    QCOMPARE(api.handle(apiRequest("POST", "/reset", {}, {{"Host", "localhost:8474"}, {"User-Agent", "Mozilla/5.0"}}))
                 .status,
        204);
}

// A proxy of the API in front of an HTTP upstream takes the HTTP fault rules too (RetryLab's own route).
void TestTcpProxy::httpFaultsGoBehindTheToxics()
{
    FaultServer server;
    QVERIFY(server.listen());
    ToxiproxyApi api;
    const QByteArray create = R"({"name": "web", "listen": "127.0.0.1:0", "upstream": "127.0.0.1:)"
        + QByteArray::number(server.serverPort()) + R"("})";
    QCOMPARE(api.handle(apiRequest("POST", "/proxies", create)).status, 201);
    TcpProxy *proxy = api.proxy(QStringLiteral("web"));
    QSignalSpy exchanges(&api, &ToxiproxyApi::httpExchangeFinished);
    auto answer = api.handle(apiRequest("POST", "/proxies/web/faults",
        R"({"format": "retrylab-faults", "version": 1, "rules": [{"status": 503, "every": 2, "name": "half"}]})"));
    QCOMPARE(answer.status, 200);
    QVERIFY2(answer.body.contains("\"half\""), answer.body.constData());
    QVERIFY(proxy->addToxic(toxic(QStringLiteral("latency latency=100"))));
    QNetworkAccessManager manager;
    const QUrl url(QStringLiteral("http://127.0.0.1:%1/status/200").arg(proxy->serverPort()));
    QList<int> statuses;
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < 4; ++i) {
        QNetworkReply *reply = manager.get(QNetworkRequest(url));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QVERIFY(finished.wait(10'000));
        statuses << reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
    }
    QCOMPARE(statuses, (QList<int>{200, 503, 200, 503}));
    QVERIFY2(clock.elapsed() >= 400, qPrintable(QString::number(clock.elapsed()))); // the toxic acted too
    QCOMPARE(server.log().size(), 2); // the 503s never reached it
    QTRY_COMPARE(exchanges.size(), 4);
    QCOMPARE(exchanges.at(1).at(0).toString(), QStringLiteral("web"));
    QCOMPARE(exchanges.at(1).at(1).value<ServerLogEntry>().action, QStringLiteral("fault-status"));
    QVERIFY(api.handle(apiRequest("GET", "/proxies/web/faults")).body.contains("\"half\""));
    QCOMPARE(api.handle(apiRequest("POST", "/proxies/web/faults", R"({"format": "retrylab-faults", "version": 1,
        "rules": [{"status": 700}]})"))
                 .status,
        400);
    QCOMPARE(api.handle(apiRequest("DELETE", "/proxies/web/faults")).status, 204);
    QVERIFY(!proxy->hasHttpFaults());
    QCOMPARE(api.handle(apiRequest("GET", "/proxies/web/faults")).body, QByteArray("{}"));
}

QTEST_MAIN(TestTcpProxy)
#include "tst_tcpproxy.moc"
