// Record and replay: the proxy records what the fault server (and a chunked
// server of the suite's own) answered; the replay server serves it back
// offline, matched by method, path, query and body, with the recorded timing,
// and with fault rules on top through a proxy in front. Bad recordings and
// folders are refused with the file, line and reason.

#include "core/faultserver/faultserver.h"
#include "core/proxy/proxyserver.h"
#include "core/proxy/recording.h"
#include "core/proxy/replayserver.h"
#include "proxytesting.h"

#include <QDir>
#include <QFile>
#include <QNetworkAccessManager>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace RetryLab::Core;

namespace {

ProxyTesting::Answer fetch(const QUrl &url, const QByteArray &method = "GET", const QByteArray &body = {},
    const QList<QPair<QByteArray, QByteArray>> &headers = {})
{
    QNetworkAccessManager manager;
    QNetworkRequest request(url);
    request.setTransferTimeout(20'000);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QElapsedTimer clock;
    clock.start();
    // A HEAD through head(): as a custom verb Qt would wait for the body its length announces.
    QNetworkReply *reply = method == "HEAD" ? manager.head(request) : manager.sendCustomRequest(request, method, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(40'000))
        return {};
    ProxyTesting::Answer a;
    a.elapsedMs = clock.elapsed();
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.body = reply->readAll();
    a.headers = reply->rawHeaderPairs();
    reply->deleteLater();
    return a;
}

QByteArray header(const ProxyTesting::Answer &answer, const QByteArray &name)
{
    for (const auto &[n, v] : answer.headers) {
        if (n.compare(name, Qt::CaseInsensitive) == 0)
            return v;
    }
    return {};
}

// The fault server, and a proxy in front of it recording into a folder of its own.
struct RecordingSession
{
    FaultServer server;
    QTemporaryDir dir;
    std::unique_ptr<RecordingWriter> writer;
    std::unique_ptr<ProxyServer> proxy;

    bool start()
    {
        auto opened = RecordingWriter::open(dir.path());
        if (!server.listen() || !opened)
            return false;
        writer = std::move(opened).value();
        ProxyOptions options;
        options.upstream = server.baseUrl();
        proxy = std::make_unique<ProxyServer>(options);
        proxy->setRecorder(writer.get());
        return proxy->listen();
    }
    QUrl url(const QString &path) const { return proxy->listenUrl().resolved(QUrl(path)); }
    Recording recording() const { return Recording::read(dir.path()).value(); }
};

} // namespace

class TestRecordReplay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void recordsWhatTheServiceAnsweredAndReplaysIt();
    void replayKeepsTheRecordedTimingUnlessToldNot();
    void aRequestNotRecordedGetsA404NamingIt();
    void faultRulesApplyOnTopOfAReplay();
    void badFoldersAndRecordingsAreRefusedSayingWhere();
    void aLineCutOffByACrashIsLeftBehind();
    void pipelinedRequestsWaitTheirTurnAtAReplay();
};

void TestRecordReplay::recordsWhatTheServiceAnsweredAndReplaysIt()
{
    FaultServer server;
    QVERIFY(server.listen());
    // A server of the suite's own that answers chunked: the recording keeps the content, not the framing.
    QTcpServer chunked;
    QVERIFY(chunked.listen(QHostAddress::LocalHost, 0));
    connect(&chunked, &QTcpServer::newConnection, this, [&chunked] {
        QTcpSocket *socket = chunked.nextPendingConnection();
        connect(socket, &QTcpSocket::readyRead, socket, [socket] {
            socket->readAll();
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
        });
    });
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("recording"));
    auto writer = RecordingWriter::open(folder);
    QVERIFY2(writer, qPrintable(writer.error()));

    ProxyOptions options;
    options.upstream = server.baseUrl();
    ProxyServer proxy(options);
    proxy.setRecorder(writer->get());
    QVERIFY(proxy.listen());
    const QUrl base = proxy.listenUrl();
    // The same request twice, answered differently (503, then 200): both are kept, in order.
    QCOMPARE(fetch(base.resolved(QUrl(QStringLiteral("/fail/1?key=twice")))).status, 503);
    QCOMPARE(fetch(base.resolved(QUrl(QStringLiteral("/fail/1?key=twice")))).status, 200);
    const QByteArray json = R"({"name": "x"})";
    QCOMPARE(fetch(base.resolved(QUrl(QStringLiteral("/status/201?token=s3cret"))), "POST", json,
                 {{"Authorization", "Bearer s3cret"}})
                 .status,
        201);
    ProxyOptions chunkedOptions;
    chunkedOptions.upstream = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(chunked.serverPort()));
    ProxyServer chunkedProxy(chunkedOptions);
    chunkedProxy.setRecorder(writer->get());
    QVERIFY(chunkedProxy.listen());
    QCOMPARE(fetch(chunkedProxy.listenUrl().resolved(QUrl(QStringLiteral("/words")))).body, QByteArray("hello world"));
    QCOMPARE((*writer)->count(), 4);

    const auto recording = Recording::read(folder);
    QVERIFY2(recording, qPrintable(recording.error()));
    QCOMPARE(recording->exchanges().size(), 4);
    const RecordedExchange &post = recording->exchanges().at(2);
    QCOMPARE(post.method, QByteArray("POST"));
    QCOMPARE(post.query, QByteArray("token=REDACTED")); // credentials masked, in the query too
    QCOMPARE(headerValue(post.requestHeaders, "Authorization"), std::optional<QByteArray>("Bearer REDACTED"));
    QCOMPARE(post.bodySha256, RecordedExchange::sha256Of(json));
    QVERIFY(!QFile(folder + QStringLiteral("/exchanges.jsonl")).readAll().contains("s3cret"));
    QCOMPARE(recording->exchanges().at(3).body, QByteArray("hello world"));
    QVERIFY(!headerValue(recording->exchanges().at(3).headers, "Transfer-Encoding"));

    // Offline: the services are gone, the recording answers.
    server.close();
    chunked.close();
    ReplayServer::Options replayOptions;
    replayOptions.recordedTiming = false;
    ReplayServer replay(*recording, replayOptions);
    QVERIFY(replay.listen());
    const QUrl offline = replay.baseUrl();
    const auto first = fetch(offline.resolved(QUrl(QStringLiteral("/fail/1?key=twice"))));
    QCOMPARE(first.status, 503);
    QCOMPARE(header(first, "X-RetryLab-Replay"), QByteArray("recorded"));
    QCOMPARE(fetch(offline.resolved(QUrl(QStringLiteral("/fail/1?key=twice")))).status, 200);
    QCOMPARE(fetch(offline.resolved(QUrl(QStringLiteral("/fail/1?key=twice")))).status, 200); // the last again
    // The token differs, masked it matches; the body must be the same.
    QCOMPARE(fetch(offline.resolved(QUrl(QStringLiteral("/status/201?token=other"))), "POST", json).status, 201);
    QCOMPARE(
        fetch(offline.resolved(QUrl(QStringLiteral("/status/201?token=s3cret"))), "POST", R"({"name": "y"})").status,
        404);
    QCOMPARE(fetch(offline.resolved(QUrl(QStringLiteral("/words")))).body, QByteArray("hello world"));
}

void TestRecordReplay::replayKeepsTheRecordedTimingUnlessToldNot()
{
    RecordingSession recorded;
    QVERIFY(recorded.start());
    QCOMPARE(fetch(recorded.url(QStringLiteral("/delay/400"))).status, 200);
    const auto recording = Recording::read(recorded.dir.path());
    QVERIFY(recording);
    QVERIFY2(recording->exchanges().at(0).firstByteMs >= 395,
        qPrintable(QString::number(recording->exchanges().at(0).firstByteMs)));

    ReplayServer timed(*recording, {});
    QVERIFY(timed.listen());
    const auto slow = fetch(timed.baseUrl().resolved(QUrl(QStringLiteral("/delay/400"))));
    QCOMPARE(slow.status, 200);
    QVERIFY2(slow.elapsedMs >= 390, qPrintable(QString::number(slow.elapsedMs)));

    ReplayServer::Options untimed;
    untimed.recordedTiming = false;
    ReplayServer quick(*recording, untimed);
    QVERIFY(quick.listen());
    const auto fast = fetch(quick.baseUrl().resolved(QUrl(QStringLiteral("/delay/400"))));
    QCOMPARE(fast.status, 200);
    QVERIFY2(fast.elapsedMs < 390, qPrintable(QString::number(fast.elapsedMs)));
}

void TestRecordReplay::aRequestNotRecordedGetsA404NamingIt()
{
    RecordingSession recorded;
    QVERIFY(recorded.start());
    QCOMPARE(fetch(recorded.url(QStringLiteral("/status/200?page=1"))).status, 200);

    ReplayServer replay(recorded.recording(), {});
    QVERIFY(replay.listen());
    QSignalSpy handled(&replay, &ReplayServer::requestHandled);
    const auto otherPage = fetch(replay.baseUrl().resolved(QUrl(QStringLiteral("/status/200?page=2"))));
    QCOMPARE(otherPage.status, 404);
    QCOMPARE(header(otherPage, "X-RetryLab-Replay"), QByteArray("not-recorded"));
    QCOMPARE(otherPage.body.trimmed(),
        QByteArray("not recorded: GET /status/200?page=2; recorded for this path: GET /status/200?page=1"));
    const auto elsewhere = fetch(replay.baseUrl().resolved(QUrl(QStringLiteral("/nothing"))), "DELETE");
    QVERIFY2(
        elsewhere.body.startsWith("not recorded: DELETE /nothing; nothing was recorded for /nothing (1 exchanges in"),
        elsewhere.body.constData());
    QCOMPARE(replay.notRecordedCount(), quint64(2));
    QTRY_COMPARE(handled.size(), 2);
    QCOMPARE(handled.at(0).at(0).value<ServerLogEntry>().action, QStringLiteral("not-recorded"));
}

void TestRecordReplay::faultRulesApplyOnTopOfAReplay()
{
    RecordingSession recorded;
    QVERIFY(recorded.start());
    QCOMPARE(fetch(recorded.url(QStringLiteral("/status/200"))).status, 200);

    ReplayServer::Options replayOptions;
    replayOptions.recordedTiming = false;
    ReplayServer replay(recorded.recording(), replayOptions);
    QVERIFY(replay.listen());
    ProxyOptions front;
    front.upstream = replay.baseUrl();
    ProxyServer faults(front);
    faults.setFaultRules(FaultRuleList::fromSpecs({QStringLiteral("status=503 every=2")}).value());
    QVERIFY(faults.listen());
    const QUrl url = faults.listenUrl().resolved(QUrl(QStringLiteral("/status/200")));
    QCOMPARE(fetch(url).status, 200);
    QCOMPARE(fetch(url).status, 503);
    QCOMPARE(fetch(url).status, 200);
    QCOMPARE(replay.answered(), quint64(2)); // the 503 never reached the recording
}

void TestRecordReplay::badFoldersAndRecordingsAreRefusedSayingWhere()
{
    QTemporaryDir dir;
    // A folder that cannot be made: its parent is a file.
    QFile blocker(dir.filePath(QStringLiteral("file")));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    const auto unmade = RecordingWriter::open(dir.filePath(QStringLiteral("file/recording")));
    QVERIFY(!unmade);
    QVERIFY2(unmade.error().startsWith(QStringLiteral("cannot make the recording folder")), qPrintable(unmade.error()));

    // A folder of something else is not added to.
    const QString other = dir.filePath(QStringLiteral("other"));
    QDir().mkpath(other);
    QFile header(other + QStringLiteral("/recording.json"));
    QVERIFY(header.open(QIODevice::WriteOnly));
    header.write(R"({"format": "retrylab-faults", "version": 1})");
    header.close();
    QVERIFY(RecordingWriter::open(other).error().contains(QStringLiteral("not a retrylab-recording file")));
    QVERIFY(
        Recording::read(dir.filePath(QStringLiteral("nowhere"))).error().contains(QStringLiteral("is no recording")));

    // A recording with a broken line: the line is named; what came before it is not lost on disk.
    const QString broken = dir.filePath(QStringLiteral("broken"));
    auto writer = RecordingWriter::open(broken);
    QVERIFY(writer);
    RecordedExchange good;
    good.method = "GET";
    good.path = "/a";
    good.bodySha256 = RecordedExchange::sha256Of({});
    good.status = 200;
    good.body = "a";
    QVERIFY((*writer)->append(good));
    writer.value().reset();
    QFile lines(broken + QStringLiteral("/exchanges.jsonl"));
    QVERIFY(lines.open(QIODevice::Append));
    lines.write("{\"method\": \"GET\", \"path\": \"no-slash\"}\n");
    lines.write("{\"method\": \"GET\", \"path\": \"/b\", \"status\": 200, \"bodySha256\": \""
        + RecordedExchange::sha256Of({})
        + "\", \"requestHeaders\": [], \"headers\": [], \"body\": \"../../etc/passwd\"}\n");
    lines.close();
    const QString error = Recording::read(broken).error();
    QVERIFY2(error.contains(QStringLiteral("exchanges.jsonl line 2")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("a path starting with /")), qPrintable(error));
    // Appending refuses too, rather than add to what cannot be replayed.
    QVERIFY(!RecordingWriter::open(broken));
    QFile rewrite(broken + QStringLiteral("/exchanges.jsonl"));
    QVERIFY(rewrite.open(QIODevice::ReadOnly));
    const QList<QByteArray> kept = rewrite.readAll().split('\n');
    rewrite.close();
    QVERIFY(rewrite.open(QIODevice::WriteOnly | QIODevice::Truncate));
    rewrite.write(kept.at(0) + '\n' + kept.at(2) + '\n');
    rewrite.close();
    QVERIFY2(Recording::read(broken).error().contains(QStringLiteral("body must name a file under bodies/")),
        qPrintable(Recording::read(broken).error()));
}

void TestRecordReplay::aLineCutOffByACrashIsLeftBehind()
{
    QTemporaryDir dir;
    RecordedExchange exchange;
    exchange.method = "GET";
    exchange.path = "/a";
    exchange.bodySha256 = RecordedExchange::sha256Of({});
    exchange.status = 200;
    {
        auto writer = RecordingWriter::open(dir.path());
        QVERIFY(writer);
        QVERIFY(writer.value()->append(exchange));
    }
    QFile lines(dir.filePath(QStringLiteral("exchanges.jsonl")));
    QVERIFY(lines.open(QIODevice::Append));
    lines.write("{\"method\": \"GET\", \"pa"); // the recorder stopped mid-line
    lines.close();
    QCOMPARE(Recording::read(dir.path()).value().exchanges().size(), 1);
    // The next recorder cuts the half line away and goes on after the last whole one.
    auto writer = RecordingWriter::open(dir.path());
    QVERIFY2(writer, qPrintable(writer.error()));
    exchange.path = "/b";
    QVERIFY(writer.value()->append(exchange));
    writer.value().reset();
    const auto recording = Recording::read(dir.path());
    QVERIFY2(recording, qPrintable(recording.error()));
    QCOMPARE(recording->exchanges().size(), 2);
    QCOMPARE(recording->exchanges().at(1).path, QByteArray("/b"));

    // A header that would split the answer on the wire is refused.
    QVERIFY(lines.open(QIODevice::Append));
    lines.write("{\"method\": \"GET\", \"path\": \"/c\", \"status\": 200, \"bodySha256\": \""
        + RecordedExchange::sha256Of({})
        + "\", \"requestHeaders\": [], \"headers\": [[\"X-A\", \"1\\r\\nSet-Cookie: x\"]]}\n");
    lines.close();
    QVERIFY2(Recording::read(dir.path()).error().contains(QStringLiteral("headers[0]: is not a header field")),
        qPrintable(Recording::read(dir.path()).error()));
}

void TestRecordReplay::pipelinedRequestsWaitTheirTurnAtAReplay()
{
    RecordingSession recorded;
    QVERIFY(recorded.start());
    QCOMPARE(fetch(recorded.url(QStringLiteral("/delay/200"))).status, 200);
    QCOMPARE(fetch(recorded.url(QStringLiteral("/status/201"))).status, 201);
    QCOMPARE(fetch(recorded.url(QStringLiteral("/status/201")), "HEAD").status, 201);

    ReplayServer replay(recorded.recording(), {});
    QVERIFY(replay.listen());
    // Two requests at once: the second waits for the first's recorded 200 ms, then is answered too.
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, replay.baseUrl().port());
    QVERIFY(socket.waitForConnected(5000));
    socket.write("GET /delay/200 HTTP/1.1\r\nHost: x\r\n\r\nGET /status/201 HTTP/1.1\r\nHost: x\r\n\r\n"
                 "HEAD /status/201 HTTP/1.1\r\nHost: x\r\n\r\n");
    QByteArray answers;
    QVERIFY(QTest::qWaitFor(
        [&] {
            answers += socket.readAll();
            return answers.count("X-RetryLab-Replay: recorded") == 3;
        },
        10'000));
    QVERIFY(answers.indexOf("HTTP/1.1 200") < answers.indexOf("HTTP/1.1 201"));
    // The HEAD's answer keeps the length of the body it did not send.
    const qsizetype head = answers.lastIndexOf("HTTP/1.1 201");
    QVERIFY2(answers.mid(head).contains("Content-Length: ") && !answers.mid(head).contains("Content-Length: 0"),
        answers.mid(head).constData());
}

QTEST_MAIN(TestRecordReplay)
#include "tst_recordreplay.moc"
