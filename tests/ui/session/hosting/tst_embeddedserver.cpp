#include "ui/session/hosting/embeddedserver.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QThread>

using namespace RetryLab;
using Ui::EmbeddedServer;

class TestEmbeddedServer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void start_listensOnLoopbackInAThreadOfItsOwn();
    void busyGuiThread_doesNotStallTheServer();
    void requestHandled_arrivesOnTheOwnersThread();
    void requestHandled_whileTheOwnerIsBusy_arrivesWholeAndInOrder();
    void portTaken_failsWithTheReason();
    void stop_endsTheThreadAndCanStartAgain();
};

namespace {

// Sends one request on a blocking socket: the calling thread runs no event loop meanwhile.
QByteArray blockingGet(quint16 port, const QByteArray &path)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return {};
    socket.write("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    socket.waitForBytesWritten(5000);
    QByteArray answer;
    while (socket.waitForReadyRead(5000))
        answer += socket.readAll();
    return answer;
}

} // namespace

void TestEmbeddedServer::start_listensOnLoopbackInAThreadOfItsOwn()
{
    EmbeddedServer server;
    QSignalSpy running(&server, &EmbeddedServer::runningChanged);
    QVERIFY2(server.start(), qPrintable(server.errorString()));
    QVERIFY(server.isRunning());
    QCOMPARE(running.count(), 1);
    QCOMPARE(server.baseUrl().host(), QStringLiteral("127.0.0.1"));
    QVERIFY(server.baseUrl().port() > 0);
    QVERIFY(server.server()->thread() != QThread::currentThread());
    QVERIFY(server.server()->isListening());
}

void TestEmbeddedServer::busyGuiThread_doesNotStallTheServer()
{
    EmbeddedServer server;
    QVERIFY(server.start());
    const QByteArray answer = blockingGet(server.server()->serverPort(), "/status/200");
    QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
}

void TestEmbeddedServer::requestHandled_arrivesOnTheOwnersThread()
{
    EmbeddedServer server;
    QVERIFY(server.start());
    QThread *seenOn = nullptr;
    QList<Core::ServerLogEntry> entries;
    connect(&server, &EmbeddedServer::requestHandled, this, [&](const Core::ServerLogEntry &entry) {
        seenOn = QThread::currentThread();
        entries.append(entry);
    });
    QVERIFY(blockingGet(server.server()->serverPort(), "/status/503").startsWith("HTTP/1.1 503"));
    QTRY_COMPARE(entries.size(), 1);
    QCOMPARE(seenOn, QThread::currentThread());
    QCOMPARE(entries.constFirst().status, std::optional<int>(503));
    QCOMPARE(entries.constFirst().target, QStringLiteral("/status/503"));
}

void TestEmbeddedServer::requestHandled_whileTheOwnerIsBusy_arrivesWholeAndInOrder()
{
    // The entries wait on the server's thread while this one takes no events (each
    // request below blocks it), then come in the order the server handled them.
    EmbeddedServer server;
    QVERIFY(server.start());
    QStringList targets;
    connect(&server, &EmbeddedServer::requestHandled, this,
        [&](const Core::ServerLogEntry &entry) { targets.append(entry.target); });
    QStringList sent;
    for (int i = 0; i < 25; ++i) {
        sent.append(QStringLiteral("/status/200?n=%1").arg(i));
        QVERIFY(blockingGet(server.server()->serverPort(), sent.constLast().toLatin1()).startsWith("HTTP/1.1 200"));
    }
    QVERIFY(targets.isEmpty());
    QTRY_COMPARE(targets.size(), sent.size());
    QCOMPARE(targets, sent);
}

void TestEmbeddedServer::portTaken_failsWithTheReason()
{
    QTcpServer squatter;
    QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
    Core::FaultServerOptions options;
    options.port = squatter.serverPort();
    EmbeddedServer server;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("fault server did not start")));
    QVERIFY(!server.start(options));
    QVERIFY(!server.isRunning());
    QVERIFY(!server.errorString().isEmpty());
    QVERIFY(server.server() == nullptr);
    QVERIFY(server.baseUrl().isEmpty());
}

void TestEmbeddedServer::stop_endsTheThreadAndCanStartAgain()
{
    EmbeddedServer server;
    QVERIFY(server.start());
    const quint16 port = server.server()->serverPort();
    QPointer<Core::FaultServer> first = server.server();
    server.stop();
    QVERIFY(!server.isRunning());
    QVERIFY(first.isNull()); // deleted on its thread before stop() returned
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    QVERIFY(!socket.waitForConnected(1000));
    server.stop(); // twice is harmless
    QVERIFY(server.start());
    QVERIFY(blockingGet(server.server()->serverPort(), "/status/204").startsWith("HTTP/1.1 204"));
}

QTEST_GUILESS_MAIN(TestEmbeddedServer)
#include "tst_embeddedserver.moc"
