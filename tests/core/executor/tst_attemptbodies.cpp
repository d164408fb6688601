#include "core/executor/retryexecutor.h"
#include "core/executor/runrecorder.h"
#include "core/faultserver/faultserver.h"
#include "core/policy/backoffpolicy.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace RetryLab::Core;

// What the executor keeps of each attempt's bodies, against the fault server on loopback:
// every attempt its own response body, bounded, and the body it sent; and RunRecorder
// keeping them within its body budget.
class TestAttemptBodies : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void failThenSucceed_eachAttemptHasItsOwnResponseBody();
    void postRetried_everyAttemptRecordsTheBodyItSent();
    void readModifyWrite_writeRecordsTheBodyItComputed();
    void largeBody_keptUpToTheDefaultBound();
    void responseBodyLimit_boundsEachAttempt_data();
    void responseBodyLimit_boundsEachAttempt();
    void attemptCutMidBody_keepsWhatArrived();
    void chunkedBodyWithAContentLength_countedWholeAndKeptToTheLimit();
    void endlessBody_transferEndsAtTheLimit_data();
    void endlessBody_transferEndsAtTheLimit();
    void bodyOfExactlyTheTransferLimit_isWhole();
    void recorder_bodyBudget_dropsOldestFirstAndSaysSo();
    void recorder_sharedBodies_countOnce();

private:
    static BackoffPolicy fastPolicy(int maxAttempts = 4);
    QUrl url(const QString &path) const { return QUrl(m_server.baseUrl().toString() + path); }
    QList<AttemptRecord> run(RetryExecutor &executor, const RequestSpec &spec, RequestResult *result = nullptr);
    /// Stores `body` on the server as /eventual/{name}, visible at once.
    void store(const QString &name, const QByteArray &body, const QByteArray &contentType);

    FaultServer m_server;
    int m_keys = 0;
};

BackoffPolicy TestAttemptBodies::fastPolicy(int maxAttempts)
{
    BackoffPolicy policy;
    policy.name = QStringLiteral("fast");
    policy.algorithm = BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 5.0;
    policy.multiplier = 2.0;
    policy.maxBackoffMs = 50.0;
    policy.maxAttempts = maxAttempts;
    policy.attemptTimeoutMs = 10'000.0;
    return policy;
}

void TestAttemptBodies::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
}

QList<AttemptRecord> TestAttemptBodies::run(RetryExecutor &executor, const RequestSpec &spec, RequestResult *result)
{
    QList<AttemptRecord> attempts;
    QObject context;
    connect(&executor, &RetryExecutor::attemptFinished, &context,
        [&attempts](const AttemptRecord &record) { attempts.append(record); });
    connect(&executor, &RetryExecutor::requestFinished, &context, [result](const RequestResult &r) {
        if (result)
            *result = r;
    });
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    executor.submit(spec);
    if (!idle.wait(20'000))
        return {};
    return attempts;
}

void TestAttemptBodies::store(const QString &name, const QByteArray &body, const QByteArray &contentType)
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(1));
    RequestSpec put;
    put.method = "PUT";
    put.url = url(QStringLiteral("/eventual/%1?hidden_ms=0").arg(name));
    put.headers = {{"Content-Type", contentType}};
    put.body = body;
    put.idempotent = true;
    const auto attempts = run(executor, put);
    QCOMPARE(attempts.size(), 1);
    QVERIFY(attempts.at(0).succeeded());
}

void TestAttemptBodies::failThenSucceed_eachAttemptHasItsOwnResponseBody()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    RequestSpec spec;
    const QString key = QStringLiteral("bodies-%1").arg(++m_keys);
    spec.url = url(QStringLiteral("/fail/1?key=%1").arg(key));
    RequestResult result;
    const auto attempts = run(executor, spec, &result);
    QCOMPARE(attempts.size(), 2);

    const QJsonObject failed = QJsonDocument::fromJson(attempts.at(0).responseBody).object();
    QCOMPARE(attempts.at(0).httpStatus, 503);
    QCOMPARE(failed.value(QStringLiteral("status")).toInt(), 503);
    QCOMPARE(failed.value(QStringLiteral("key")).toString(), key);
    QCOMPARE(failed.value(QStringLiteral("failure")).toInt(), 1);
    const QJsonObject passed = QJsonDocument::fromJson(attempts.at(1).responseBody).object();
    QCOMPARE(attempts.at(1).httpStatus, 200);
    QCOMPARE(passed.value(QStringLiteral("request")).toInt(), 2);
    QCOMPARE(passed.value(QStringLiteral("failures")).toInt(), 1);

    for (const AttemptRecord &a : attempts) {
        QCOMPARE(a.bytesReceived, a.responseBody.size());
        QVERIFY(!a.responseBodyTruncated);
        QVERIFY(!a.responseBodyDropped);
        QVERIFY(a.requestBody.isEmpty()); // a GET sends none
    }
    // The result's body is the last attempt's.
    QCOMPARE(result.body, attempts.at(1).responseBody);
}

void TestAttemptBodies::postRetried_everyAttemptRecordsTheBodyItSent()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    RequestSpec spec;
    spec.method = "POST";
    spec.url = url(QStringLiteral("/fail/2?key=post-%1").arg(++m_keys));
    spec.body = R"({"order": 42, "items": ["a", "b"]})";
    spec.idempotent = true;
    const auto attempts = run(executor, spec);
    QCOMPARE(attempts.size(), 3);
    for (const AttemptRecord &a : attempts)
        QCOMPARE(a.requestBody, spec.body);
}

void TestAttemptBodies::readModifyWrite_writeRecordsTheBodyItComputed()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    RequestSpec spec;
    spec.kind = RequestSpec::Kind::ReadModifyWrite;
    spec.url = url(QStringLiteral("/occ/bodies-%1").arg(++m_keys));
    spec.increment = 5;
    const auto attempts = run(executor, spec);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.at(0).step, QStringLiteral("read"));
    QVERIFY(attempts.at(0).requestBody.isEmpty());
    const qint64 read
        = QJsonDocument::fromJson(attempts.at(0).responseBody).object().value(QStringLiteral("value")).toInteger();
    QCOMPARE(attempts.at(1).step, QStringLiteral("write"));
    QCOMPARE(QJsonDocument::fromJson(attempts.at(1).requestBody).object().value(QStringLiteral("value")).toInteger(),
        read + 5);
    QCOMPARE(QJsonDocument::fromJson(attempts.at(1).responseBody).object().value(QStringLiteral("value")).toInteger(),
        read + 5);
}

void TestAttemptBodies::largeBody_keptUpToTheDefaultBound()
{
    // 2.5 MiB, every byte position recognisable.
    QByteArray big;
    big.reserve(5 * 512 * 1024);
    for (int i = 0; big.size() < 5 * 512 * 1024; ++i)
        big.append(QByteArray::number(i).rightJustified(8, '0'));
    big.truncate(5 * 512 * 1024);
    store(QStringLiteral("big"), big, "application/octet-stream");

    RetryExecutor executor;
    QCOMPARE(executor.responseBodyLimit(), RetryExecutor::defaultResponseBodyLimit);
    QCOMPARE(RetryExecutor::defaultResponseBodyLimit, qint64(1024 * 1024));
    executor.setPolicy(fastPolicy(1));
    RequestSpec spec;
    spec.url = url(QStringLiteral("/eventual/big"));
    RequestResult result;
    const auto attempts = run(executor, spec, &result);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &a = attempts.at(0);
    QVERIFY(a.succeeded());
    QCOMPARE(a.bytesReceived, big.size());
    QCOMPARE(a.responseBody.size(), RetryExecutor::defaultResponseBodyLimit);
    QCOMPARE(a.responseBody, big.left(RetryExecutor::defaultResponseBodyLimit));
    QVERIFY(a.responseBodyTruncated);
    QCOMPARE(result.body, a.responseBody);
}

void TestAttemptBodies::responseBodyLimit_boundsEachAttempt_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("bodyBytes");
    QTest::addColumn<qint64>("kept");
    QTest::addRow("8 KiB of 20 KiB") << qint64(8 * 1024) << qint64(20'000) << qint64(8 * 1024);
    QTest::addRow("exactly the limit") << qint64(8 * 1024) << qint64(8 * 1024) << qint64(8 * 1024);
    QTest::addRow("below the floor: 4 KiB") << qint64(100) << qint64(20'000) << qint64(4 * 1024);
    QTest::addRow("smaller body, whole") << qint64(64 * 1024) << qint64(20'000) << qint64(20'000);
}

void TestAttemptBodies::responseBodyLimit_boundsEachAttempt()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, bodyBytes);
    QFETCH(qint64, kept);
    const QString name = QStringLiteral("limit-%1").arg(++m_keys);
    store(name, QByteArray(bodyBytes, 'z'), "text/plain");

    RetryExecutor executor;
    executor.setResponseBodyLimit(limit);
    executor.setPolicy(fastPolicy(1));
    RequestSpec spec;
    spec.url = url(QStringLiteral("/eventual/%1").arg(name));
    const auto attempts = run(executor, spec);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.at(0).bytesReceived, bodyBytes);
    QCOMPARE(attempts.at(0).responseBody.size(), kept);
    QCOMPARE(attempts.at(0).responseBodyTruncated, kept < bodyBytes);
}

void TestAttemptBodies::attemptCutMidBody_keepsWhatArrived()
{
    RetryExecutor executor;
    BackoffPolicy policy = fastPolicy(1);
    policy.attemptTimeoutMs = 400.0;
    executor.setPolicy(policy);
    RequestSpec spec;
    spec.url = url(QStringLiteral("/fault/drip?bytes=100&ms=20"));
    const auto attempts = run(executor, spec);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &a = attempts.at(0);
    QCOMPARE(a.end, AttemptEnd::AttemptTimeout);
    QVERIFY2(a.bytesReceived > 0 && a.bytesReceived < 100, qPrintable(QString::number(a.bytesReceived)));
    QCOMPARE(a.responseBody.size(), a.bytesReceived);
    QVERIFY(!a.responseBodyTruncated);
}

void TestAttemptBodies::chunkedBodyWithAContentLength_countedWholeAndKeptToTheLimit()
{
    // A server that announces 10 bytes and sends 20,000 in chunks: Qt reads the
    // chunks, so the announced length says nothing about what arrives. The record
    // counts every byte and keeps the first 4 KiB.
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    connect(&server, &QTcpServer::newConnection, &server, [&server] {
        QTcpSocket *socket = server.nextPendingConnection();
        connect(socket, &QTcpSocket::readyRead, socket, [socket] {
            if (!socket->readAll().contains("\r\n\r\n"))
                return;
            QByteArray answer("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
                              "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            for (int i = 0; i < 20; ++i)
                answer += "3e8\r\n" + QByteArray(1000, char('a' + i)) + "\r\n";
            answer += "0\r\n\r\n";
            socket->write(answer);
            socket->disconnectFromHost();
        });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    });

    RetryExecutor executor;
    executor.setResponseBodyLimit(RetryExecutor::minResponseBodyLimit);
    executor.setPolicy(fastPolicy(1));
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:%1/chunked").arg(server.serverPort()));
    const auto attempts = run(executor, spec);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &a = attempts.at(0);
    QCOMPARE(a.httpStatus, 200);
    QCOMPARE(a.bytesReceived, 20'000);
    QCOMPARE(a.responseBody.size(), RetryExecutor::minResponseBodyLimit);
    QCOMPARE(a.responseBody.left(1000), QByteArray(1000, 'a'));
    QCOMPARE(a.responseBody.mid(4000), QByteArray(96, 'e'));
    QVERIFY(a.responseBodyTruncated);
}

void TestAttemptBodies::endlessBody_transferEndsAtTheLimit_data()
{
    QTest::addColumn<bool>("chunked");
    QTest::addRow("10 GB announced") << false;
    QTest::addRow("chunked, no end") << true;
}

void TestAttemptBodies::endlessBody_transferEndsAtTheLimit()
{
    // A server that never stops sending: the attempt ends when the body reaches
    // the transfer limit, judged by its status, not by its timeout.
    QFETCH(bool, chunked);
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    connect(&server, &QTcpServer::newConnection, &server, [&server, chunked] {
        QTcpSocket *socket = server.nextPendingConnection();
        const QByteArray piece(16 * 1024, 'x');
        const auto more = [socket, piece, chunked] {
            while (socket->state() == QAbstractSocket::ConnectedState && socket->bytesToWrite() < 256 * 1024)
                socket->write(chunked ? "4000\r\n" + piece + "\r\n" : piece);
        };
        connect(socket, &QTcpSocket::readyRead, socket, [socket, more, chunked] {
            if (!socket->readAll().contains("\r\n\r\n"))
                return;
            socket->write(chunked ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  : "HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n");
            more();
            connect(socket, &QTcpSocket::bytesWritten, socket, more);
        });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    });

    RetryExecutor executor;
    executor.setResponseBodyLimit(RetryExecutor::minResponseBodyLimit);
    constexpr qint64 limit = 1024 * 1024 + 1;
    executor.setTransferLimit(limit);
    QCOMPARE(executor.transferLimit(), limit);
    BackoffPolicy policy = fastPolicy(3);
    policy.attemptTimeoutMs = 60'000.0;
    executor.setPolicy(policy);
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:%1/endless").arg(server.serverPort()));
    RequestResult result;
    const auto attempts = run(executor, spec, &result);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &a = attempts.at(0);
    QCOMPARE(a.end, AttemptEnd::Response);
    QCOMPARE(a.httpStatus, 200);
    QVERIFY2(a.succeeded(), qPrintable(a.reason + a.errorString));
    QCOMPARE(a.networkError, QNetworkReply::NoError);
    QVERIFY(a.transferEnded);
    QCOMPARE(a.bytesReceived, limit);
    QCOMPARE(a.responseBody, QByteArray(RetryExecutor::minResponseBodyLimit, 'x'));
    QVERIFY(a.responseBodyTruncated);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
}

void TestAttemptBodies::bodyOfExactlyTheTransferLimit_isWhole()
{
    constexpr qint64 limit = 64 * 1024;
    store(QStringLiteral("exact-transfer"), QByteArray(limit, 'q'), "application/octet-stream");
    RetryExecutor executor;
    executor.setResponseBodyLimit(RetryExecutor::minResponseBodyLimit);
    executor.setTransferLimit(limit);
    QCOMPARE(RetryExecutor().transferLimit(), RetryExecutor::defaultTransferLimit);
    executor.setPolicy(fastPolicy(1));
    RequestSpec spec;
    spec.url = url(QStringLiteral("/eventual/exact-transfer"));
    const auto attempts = run(executor, spec);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &a = attempts.at(0);
    QVERIFY(a.succeeded());
    QVERIFY(!a.transferEnded);
    QCOMPARE(a.bytesReceived, limit);
}

void TestAttemptBodies::recorder_bodyBudget_dropsOldestFirstAndSaysSo()
{
    constexpr qsizetype bodyBytes = 20'000;
    const QString name = QStringLiteral("budget-%1").arg(++m_keys);
    store(name, QByteArray(bodyBytes, 'b'), "text/plain");

    RetryExecutor executor;
    executor.setPolicy(fastPolicy(1));
    RunRecorder recorder(&executor);
    QCOMPARE(recorder.bodyBudget(), RunRecorder::defaultBodyBudget);
    recorder.setBodyBudget(3 * bodyBytes + 100); // room for three response bodies
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    for (int i = 0; i < 5; ++i) {
        RequestSpec spec;
        spec.url = url(QStringLiteral("/eventual/%1").arg(name));
        recorder.submit(spec);
        QVERIFY(idle.wait(10'000));
        QVERIFY(recorder.bodyBytesHeld() <= recorder.bodyBudget());
    }

    const RunRecord &record = recorder.record();
    QCOMPARE(record.attempts.size(), 5);
    QCOMPARE(recorder.droppedBodyCount(), qsizetype(2));
    QCOMPARE(recorder.bodyBytesHeld(), qint64(3 * bodyBytes));
    for (int i = 0; i < 5; ++i) {
        const AttemptRecord &a = record.attempts.at(i);
        const bool dropped = i < 2;
        QCOMPARE(a.responseBodyDropped, dropped);
        QCOMPARE(a.responseBody.size(), dropped ? 0 : bodyBytes);
        QCOMPARE(a.bytesReceived, bodyBytes); // the record itself stays whole
        // The result shared the dropped buffer: it went with it.
        QCOMPARE(record.results.at(i).body.size(), dropped ? 0 : bodyBytes);
    }
}

void TestAttemptBodies::recorder_sharedBodies_countOnce()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    RunRecorder recorder(&executor);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    RequestSpec spec;
    spec.method = "PUT";
    spec.url = url(QStringLiteral("/fail/2?key=shared-%1").arg(++m_keys));
    spec.body = QByteArray(10'000, 'p');
    spec.idempotent = true;
    recorder.submit(spec);
    QVERIFY(idle.wait(10'000));

    const RunRecord &record = recorder.record();
    QCOMPARE(record.attempts.size(), 3);
    qint64 responses = 0;
    for (const AttemptRecord &a : record.attempts) {
        QCOMPARE(a.requestBody, spec.body); // each attempt says what it sent
        responses += a.responseBody.size();
    }
    // The request body is the spec's and the result's body the last attempt's: neither is counted again.
    QCOMPARE(recorder.bodyBytesHeld(), responses);
    QCOMPARE(recorder.droppedBodyCount(), qsizetype(0));
}

QTEST_GUILESS_MAIN(TestAttemptBodies)
#include "tst_attemptbodies.moc"
