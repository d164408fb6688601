// The TCP proxy between real clients and real servers from Debian: redis-server
// with redis-cli and redis-py (its reconnect with backoff, observed through the
// proxy), PostgreSQL with psql; and toxiproxy's own Node.js client driving the
// toxiproxy API. Each toxic is seen as these clients report it (docs/fault-proxy.md
// keeps the table). The proxy runs on the test's thread, so every client is
// waited for with QTest::qWaitFor, never a blocking wait.

#include "../../tools/requiredtool.h"
#include "../executor/realservers.h"
#include "../history/postgrescluster.h"
#include "core/proxy/tcpproxy.h"
#include "core/proxy/toxiproxyapi.h"
#include "proxytesting.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace RetryLab::Core;
using RetryLab::Testing::PostgresCluster;

namespace {

using ProxyTesting::Finished;
using ProxyTesting::runProgram;
using RealServers::freePort;

// A redis-server of the suite's own, on a free loopback port, keeping nothing on disk.
class RedisServer
{
public:
    ~RedisServer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(5000))
                m_process.kill();
        }
    }
    static QString missing()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("redis-server")).isEmpty()
            || QStandardPaths::findExecutable(QStringLiteral("redis-cli")).isEmpty()) {
            return QStringLiteral("redis-server and redis-cli are missing: install the Debian packages redis-server "
                                  "and redis-tools (scripts/deps.sh does)");
        }
        return {};
    }
    bool start()
    {
        m_port = freePort();
        m_process.setWorkingDirectory(m_dir.path());
        m_process.start(QStringLiteral("redis-server"),
            {QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                QStringLiteral("--save"), QString(), QStringLiteral("--appendonly"), QStringLiteral("no"),
                QStringLiteral("--dir"), m_dir.path()});
        return QTest::qWaitFor(
            [&] {
                QTcpSocket probe;
                probe.connectToHost(QHostAddress::LocalHost, quint16(m_port));
                return probe.waitForConnected(200);
            },
            15'000);
    }
    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }
    int port() const { return m_port; }

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    int m_port = 0;
};

std::unique_ptr<TcpProxy> proxyTo(const QString &upstream)
{
    TcpProxyOptions options;
    options.setUpstream(upstream);
    auto proxy = std::make_unique<TcpProxy>(options);
    proxy->setSeed(5);
    if (!proxy->listen())
        qFatal("the proxy does not listen: %s", qPrintable(proxy->errorString()));
    return proxy;
}

Toxic toxic(const QString &spec)
{
    return Toxic::parse(spec).value();
}

Finished redisCli(const TcpProxy &proxy, const QStringList &command)
{
    return runProgram(QStringLiteral("redis-cli"),
        QStringList{QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
            QString::number(proxy.serverPort())}
            + command,
        QProcessEnvironment::systemEnvironment(), 30'000);
}

QString sourceFile(const QString &name)
{
    return QStringLiteral(RETRYLAB_SOURCE_DIR "/tests/core/proxy/") + name;
}

} // namespace

class TestTcpProxyClients : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void redisCliSeesEachToxic();
    void redisPyReconnectsWithBackoff();
    void psqlSeesEachToxic();
    void toxiproxyNodeClientDrivesTheApi();

private:
    RedisServer m_redis;
    bool m_redisRunning = false;
};

void TestTcpProxyClients::initTestCase()
{
    if (RedisServer::missing().isEmpty())
        m_redisRunning = m_redis.start();
}

void TestTcpProxyClients::redisCliSeesEachToxic()
{
    if (const QString missing = RedisServer::missing(); !missing.isEmpty())
        RETRYLAB_MISSING_TOOL(qPrintable(missing));
    QVERIFY2(m_redisRunning, "redis-server did not start");
    auto proxy = proxyTo(m_redis.address());

    Finished clean
        = redisCli(*proxy, {QStringLiteral("SET"), QStringLiteral("greeting"), QString(4000, QLatin1Char('h'))});
    QCOMPARE(clean.out.trimmed(), QStringLiteral("OK"));
    clean = redisCli(*proxy, {QStringLiteral("PING")});
    QCOMPARE(clean.out.trimmed(), QStringLiteral("PONG"));

    proxy->addToxic(toxic(QStringLiteral("latency latency=600")));
    const Finished slow = redisCli(*proxy, {QStringLiteral("PING")});
    QCOMPARE(slow.out.trimmed(), QStringLiteral("PONG"));
    QVERIFY2(slow.ms >= 600, qPrintable(QString::number(slow.ms)));
    proxy->removeAllToxics();

    // redis-cli's words for each way a connection can end early.
    proxy->addToxic(toxic(QStringLiteral("limit_data bytes=100")));
    const Finished limited = redisCli(*proxy, {QStringLiteral("GET"), QStringLiteral("greeting")});
    QVERIFY2(limited.out.contains(QStringLiteral("Error: Server closed the connection"))
            || limited.err.contains(QStringLiteral("Error: Server closed the connection")),
        qPrintable(limited.out.left(200) + limited.err));
    proxy->removeAllToxics();

    proxy->addToxic(toxic(QStringLiteral("reset_peer timeout=0")));
    const Finished reset = redisCli(*proxy, {QStringLiteral("PING")});
    QVERIFY2(QString(reset.out + reset.err).contains(QStringLiteral("Connection reset by peer")),
        qPrintable(reset.out + reset.err));
    proxy->removeAllToxics();

    proxy->addToxic(toxic(QStringLiteral("timeout timeout=500 stream=upstream")));
    const Finished timedOut = redisCli(*proxy, {QStringLiteral("PING")});
    QVERIFY2(QString(timedOut.out + timedOut.err).contains(QStringLiteral("Error: Server closed the connection")),
        qPrintable(timedOut.out + timedOut.err));
    QVERIFY2(timedOut.ms >= 500, qPrintable(QString::number(timedOut.ms)));
    proxy->removeAllToxics();

    proxy->addToxic(toxic(QStringLiteral("bandwidth rate=8"))); // 8 KB/s: 4 KB take half a second
    const Finished narrow = redisCli(*proxy, {QStringLiteral("GET"), QStringLiteral("greeting")});
    QCOMPARE(narrow.out.trimmed().size(), 4000);
    QVERIFY2(narrow.ms >= 450, qPrintable(QString::number(narrow.ms)));
    proxy->removeAllToxics();

    proxy->addToxic(toxic(QStringLiteral("slicer average_size=10 delay=2000")));
    const Finished sliced = redisCli(*proxy, {QStringLiteral("GET"), QStringLiteral("greeting")});
    QCOMPARE(sliced.out.trimmed(), QString(4000, QLatin1Char('h'))); // RESP reassembles whatever the writes
}

void TestTcpProxyClients::redisPyReconnectsWithBackoff()
{
    if (const QString missing = RedisServer::missing(); !missing.isEmpty())
        RETRYLAB_MISSING_TOOL(qPrintable(missing));
    const Finished probe
        = runProgram(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QStringLiteral("import redis")});
    if (probe.exitCode != 0)
        RETRYLAB_MISSING_TOOL("redis-py is missing: install the Debian package python3-redis (scripts/deps.sh does)");
    QVERIFY2(m_redisRunning, "redis-server did not start");
    auto proxy = proxyTo(m_redis.address());
    QList<qint64> opened;
    QElapsedTimer clock;
    clock.start();
    connect(proxy.get(), &TcpProxy::linkOpened, proxy.get(), [&] { opened << clock.elapsed(); });
    // Every connection is reset until three have been; the fourth gets through.
    proxy->addToxic(toxic(QStringLiteral("reset_peer timeout=0")));
    connect(proxy.get(), &TcpProxy::linkClosed, proxy.get(), [&] {
        if (opened.size() >= 3)
            proxy->removeAllToxics();
    });
    const QString script = QStringLiteral(
        "import sys, redis\n"
        "from redis.retry import Retry\n"
        "from redis.backoff import ExponentialBackoff\n"
        "from redis.exceptions import ConnectionError\n"
        "client = redis.Redis(host='127.0.0.1', port=int(sys.argv[1]), socket_timeout=5,\n"
        "    retry=Retry(ExponentialBackoff(cap=2.0, base=0.1), 5), retry_on_error=[ConnectionError])\n"
        "print('ping', client.ping())\n");
    const Finished python = runProgram(
        QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), script, QString::number(proxy->serverPort())});
    QVERIFY2(python.exitCode == 0, qPrintable(python.err.right(2000)));
    QCOMPARE(python.out.trimmed(), QStringLiteral("ping True"));
    // redis-py waits base * 2^failures between connections: 0.2 s, 0.4 s, 0.8 s, seen as the gaps between them.
    QVERIFY2(opened.size() >= 4, qPrintable(QString::number(opened.size())));
    QList<qint64> gaps;
    for (qsizetype i = 1; i < opened.size(); ++i)
        gaps << opened.at(i) - opened.at(i - 1);
    const QString seen = [&] {
        QStringList text;
        for (qint64 gap : gaps)
            text << QString::number(gap);
        return text.join(QStringLiteral(", "));
    }();
    QVERIFY2(gaps.at(0) >= 190 && gaps.at(1) >= 390 && gaps.at(2) >= 790, qPrintable(seen));
    QVERIFY2(double(gaps.at(2)) / double(gaps.at(0)) >= 3.0, qPrintable(seen)); // doubling, not constant
}

void TestTcpProxyClients::psqlSeesEachToxic()
{
    if (!PostgresCluster::available())
        RETRYLAB_MISSING_TOOL(qPrintable(PostgresCluster::missingMessage()));
    PostgresCluster cluster;
    if (const QString failed = cluster.start(); !failed.isEmpty())
        QFAIL(qPrintable(failed));
    auto proxy = proxyTo(QStringLiteral("127.0.0.1:%1").arg(cluster.port()));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PGCONNECT_TIMEOUT"), QStringLiteral("10"));
    const auto psql = [&](const QString &sql) {
        return runProgram(QStringLiteral("psql"),
            {QStringLiteral("-X"), QStringLiteral("-A"), QStringLiteral("-t"), QStringLiteral("-h"),
                QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(proxy->serverPort()),
                QStringLiteral("-U"), QStringLiteral("retrylab"), QStringLiteral("-d"), QStringLiteral("postgres"),
                QStringLiteral("-c"), sql},
            environment);
    };
    Finished clean = psql(QStringLiteral("select 40 + 2"));
    QVERIFY2(clean.exitCode == 0, qPrintable(clean.err));
    QCOMPARE(clean.out.trimmed(), QStringLiteral("42"));

    proxy->addToxic(toxic(QStringLiteral("latency latency=200")));
    const Finished slow = psql(QStringLiteral("select 1"));
    QCOMPARE(slow.out.trimmed(), QStringLiteral("1"));
    // Startup, authentication and the query each wait a round trip, or more.
    QVERIFY2(slow.ms >= 400, qPrintable(QString::number(slow.ms)));
    proxy->removeAllToxics();

    // The answer to the query is cut: psql says the server closed the connection.
    proxy->addToxic(toxic(QStringLiteral("limit_data bytes=1000")));
    const Finished cut = psql(QStringLiteral("select repeat('x', 5000)"));
    QVERIFY(cut.exitCode != 0);
    QVERIFY2(cut.err.contains(QStringLiteral("server closed the connection unexpectedly")), qPrintable(cut.err));
    proxy->removeAllToxics();

    proxy->addToxic(toxic(QStringLiteral("reset_peer timeout=0")));
    const Finished reset = psql(QStringLiteral("select 1"));
    QVERIFY(reset.exitCode != 0);
    QVERIFY2(reset.err.contains(QStringLiteral("Connection reset by peer"))
            || reset.err.contains(QStringLiteral("server closed the connection unexpectedly")),
        qPrintable(reset.err));
    proxy->removeAllToxics();

    clean = psql(QStringLiteral("select 'again'"));
    QCOMPARE(clean.out.trimmed(), QStringLiteral("again"));
}

void TestTcpProxyClients::toxiproxyNodeClientDrivesTheApi()
{
    const QString clientDir
        = QStringLiteral(RETRYLAB_SOURCE_DIR "/third_party/toxiproxy-client/node_modules/toxiproxy-node-client");
    if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty() || !QFileInfo::exists(clientDir)) {
        RETRYLAB_MISSING_TOOL("node or toxiproxy-node-client is missing: install Debian's nodejs and run "
                              "scripts/deps.sh (npm ci in third_party/toxiproxy-client)");
    }
    if (const QString missing = RedisServer::missing(); !missing.isEmpty())
        RETRYLAB_MISSING_TOOL(qPrintable(missing));
    QVERIFY2(m_redisRunning, "redis-server did not start");
    ToxiproxyApi api;
    QVERIFY2(api.listen(QHostAddress::LocalHost, 0), qPrintable(api.errorString()));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(
        QStringLiteral("NODE_PATH"), QStringLiteral(RETRYLAB_SOURCE_DIR "/third_party/toxiproxy-client/node_modules"));
    const Finished node = runProgram(QStringLiteral("node"),
        {sourceFile(QStringLiteral("toxiproxyclient.js")), api.url().toString(QUrl::StripTrailingSlash),
            m_redis.address()},
        environment, 120'000);
    QVERIFY2(node.exitCode == 0, qPrintable(node.out + node.err));
    QVERIFY2(node.out.trimmed().endsWith(QStringLiteral("done")), qPrintable(node.out));
    for (const char *step :
        {"version", "create", "latency", "update", "limit_data", "errors", "disabled", "reset", "populate", "remove"})
        QVERIFY2(node.out.contains(QStringLiteral("step %1 ").arg(QLatin1String(step))), step);
    QVERIFY(node.out.contains(QLatin1String(ToxiproxyApi::apiVersion)));
    QVERIFY(api.proxies().isEmpty()); // the script removed what it made
}

QTEST_MAIN(TestTcpProxyClients)
#include "tst_tcpproxyclients.moc"
