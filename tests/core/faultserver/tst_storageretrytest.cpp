#include "core/faultserver/faultserver.h"
#include "core/faultserver/storageinstruction.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab::Core;

namespace {

struct Reply
{
    int status = 0; ///< 0: no status line arrived
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; ///< names in lower case
    qint64 elapsedMs = 0;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString errorMessage() const
    {
        return json().value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString();
    }
};

QByteArray bytesOf(qint64 size)
{
    QByteArray data(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i)
        data[i] = char('a' + (i * 7 + i / 1024) % 26);
    return data;
}

} // namespace

/// Cloud Storage's retry test API and JSON API on the fault server, over real
/// loopback sockets with QNetworkAccessManager: the tests and their
/// instructions, objects, preconditions, resumable uploads and the memory bound.
class TestStorageRetryTest final : public QObject
{
    Q_OBJECT

private:
    FaultServer *m_server = nullptr;
    QNetworkAccessManager *m_nam = nullptr;
    int m_attempt = 0;

    Reply send(const QByteArray &method, const QString &pathAndQuery, const QByteArray &body = {},
        const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        QNetworkRequest request(QUrl(m_server->baseUrl().toString() + pathAndQuery));
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        // Each request its own attempt: Qt's own resend of one is then recognised as such.
        request.setRawHeader("X-Retry-Request-Id", "storage-test");
        request.setRawHeader("X-Retry-Attempt", QByteArray::number(++m_attempt));
        if (!body.isEmpty() || method == "POST" || method == "PUT")
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        for (const auto &[name, value] : headers)
            request.setRawHeader(name, value);
        QElapsedTimer timer;
        timer.start();
        QNetworkReply *reply = m_nam->sendCustomRequest(request, method, body);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(30'000);
        Reply out;
        out.elapsedMs = timer.elapsed();
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        out.error = reply->error();
        out.body = reply->readAll();
        for (const auto &[name, value] : reply->rawHeaderPairs())
            out.headers.insert(name.toLower(), value);
        reply->deleteLater();
        return out;
    }

    QString createTest(const QJsonObject &instructions)
    {
        const Reply r = send("POST", QStringLiteral("/retry_test"),
            QJsonDocument(QJsonObject{{QStringLiteral("instructions"), instructions}}).toJson());
        if (r.status != 200)
            qWarning() << "creating a retry test failed:" << r.status << r.body;
        return r.json().value(QLatin1String("id")).toString();
    }

    static QList<QPair<QByteArray, QByteArray>> withTest(const QString &id)
    {
        return {{"x-retry-test-id", id.toLatin1()}};
    }

    QJsonObject upload(const QString &object, const QByteArray &data, const QString &query = {})
    {
        const Reply r = send("POST",
            QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=%1%2").arg(object, query), data,
            {{"Content-Type", "application/octet-stream"}});
        if (r.status != 200)
            qWarning() << "upload failed:" << r.status << r.body;
        return r.json();
    }

private Q_SLOTS:
    void init()
    {
        FaultServerOptions options;
        options.maxStorageBytes = 4 * 1024 * 1024;
        m_server = new FaultServer(options, this);
        QVERIFY2(m_server->listen(), qPrintable(m_server->errorString()));
        m_nam = new QNetworkAccessManager(this);
        m_nam->setProxy(QNetworkProxy::NoProxy);
    }

    void cleanup()
    {
        delete m_nam;
        delete m_server;
        m_nam = nullptr;
        m_server = nullptr;
    }

    void retryTest_createShowDelete_likeTheTestbench()
    {
        const QJsonObject instructions{
            {QStringLiteral("storage.objects.get"),
                QJsonArray{QStringLiteral("return-503"), QStringLiteral("return-reset-connection")}},
            {QStringLiteral("storage.buckets.get"), QJsonArray{QStringLiteral("return-429")}}};
        const Reply created = send("POST", QStringLiteral("/retry_test"),
            QJsonDocument(QJsonObject{{QStringLiteral("instructions"), instructions}}).toJson());
        QCOMPARE(created.status, 200);
        const QJsonObject test = created.json();
        const QString id = test.value(QLatin1String("id")).toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^[0-9a-f]{32}$")).match(id).hasMatch(), qPrintable(id));
        QCOMPARE(test.value(QLatin1String("instructions")).toObject(), instructions);
        QCOMPARE(test.value(QLatin1String("completed")), QJsonValue(false));
        QCOMPARE(test.value(QLatin1String("transport")).toString(), QStringLiteral("HTTP"));

        const Reply shown = send("GET", QStringLiteral("/retry_test/") + id);
        QCOMPARE(shown.status, 200);
        QCOMPARE(shown.json(), test);
        const Reply listed = send("GET", QStringLiteral("/retry_tests"));
        QCOMPARE(listed.json().value(QLatin1String("retry_test")).toArray().size(), 1);

        QCOMPARE(send("DELETE", QStringLiteral("/retry_test/") + id).status, 200);
        const Reply gone = send("GET", QStringLiteral("/retry_test/") + id);
        QCOMPARE(gone.status, 404);
        QVERIFY(gone.json().value(QLatin1String("error")).toString().contains(id));
    }

    void retryTest_badInput_isRefusedByName_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("expected");
        QTest::addRow("unknown instruction")
            << QByteArray(R"({"instructions": {"storage.objects.get": ["return-503", "explode-now"]}})")
            << QStringLiteral("\"explode-now\"");
        QTest::addRow("status out of range")
            << QByteArray(R"({"instructions": {"storage.objects.get": ["return-999"]}})")
            << QStringLiteral("\"return-999\"");
        QTest::addRow("trailing text") << QByteArray(R"({"instructions": {"storage.objects.get": ["return-503x"]}})")
                                       << QStringLiteral("\"return-503x\"");
        QTest::addRow("case matters") << QByteArray(R"({"instructions": {"storage.objects.get": ["Return-503"]}})")
                                      << QStringLiteral("\"Return-503\"");
        QTest::addRow("upload fault on a download")
            << QByteArray(R"({"instructions": {"storage.objects.get": ["return-503-after-256K"]}})")
            << QStringLiteral("storage.objects.insert only");
        QTest::addRow("download fault on an upload")
            << QByteArray(R"({"instructions": {"storage.objects.insert": ["return-broken-stream-after-256K"]}})")
            << QStringLiteral("storage.objects.get only");
        QTest::addRow("testbench-only instruction")
            << QByteArray(R"({"instructions": {"storage.objects.get": ["redirect-send-token-x"]}})")
            << QStringLiteral("does not play it");
        QTest::addRow("operation not served")
            << QByteArray(R"({"instructions": {"storage.buckets.patch": ["return-503"]}})")
            << QStringLiteral("storage.buckets.patch is not an operation this server serves");
        QTest::addRow("not a list") << QByteArray(R"({"instructions": {"storage.objects.get": "return-503"}})")
                                    << QStringLiteral("list of instructions");
        QTest::addRow("not a string") << QByteArray(R"({"instructions": {"storage.objects.get": [503]}})")
                                      << QStringLiteral("instructions.storage.objects.get[0]");
        QTest::addRow("no instructions") << QByteArray(R"({"instructions": {}})")
                                         << QStringLiteral("instructions is not defined");
        QTest::addRow("unknown field") << QByteArray(
            R"({"instructions": {"storage.objects.get": ["return-503"]}, "x": 1})")
                                       << QStringLiteral("unknown field");
        QTest::addRow("grpc transport") << QByteArray(
            R"({"instructions": {"storage.objects.get": ["return-503"]}, "transport": "GRPC"})")
                                        << QStringLiteral("only \"HTTP\"");
        QTest::addRow("not JSON") << QByteArray("instructions=return-503") << QStringLiteral("JSON object");
    }

    void retryTest_badInput_isRefusedByName()
    {
        QFETCH(QByteArray, body);
        QFETCH(QString, expected);
        const Reply r = send("POST", QStringLiteral("/retry_test"), body);
        QCOMPARE(r.status, 400);
        const QString message = r.json().value(QLatin1String("error")).toString();
        QVERIFY2(message.contains(expected), qPrintable(message));
        QCOMPARE(
            send("GET", QStringLiteral("/retry_tests")).json().value(QLatin1String("retry_test")).toArray().size(), 0);
    }

    void instructions_areUsedPerOperation_inOrder()
    {
        upload(QStringLiteral("obj"), "hello world");
        const QString id = createTest(
            QJsonObject{{QStringLiteral("storage.objects.get"),
                            QJsonArray{QStringLiteral("return-503"), QStringLiteral("return-reset-connection"),
                                QStringLiteral("return-broken-stream")}},
                {QStringLiteral("storage.buckets.get"), QJsonArray{QStringLiteral("return-429")}}});
        QVERIFY(!id.isEmpty());

        const Reply bucket = send("GET", QStringLiteral("/storage/v1/b/bucket"), {}, withTest(id));
        QCOMPARE(bucket.status, 429);
        QCOMPARE(bucket.errorMessage(), QStringLiteral("Retry Test: Caused a 429"));
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket"), {}, withTest(id)).status, 200);

        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket/o/obj"), {}, withTest(id)).status, 503);
        const Reply reset = send("GET", QStringLiteral("/storage/v1/b/bucket/o/obj"), {}, withTest(id));
        QCOMPARE(reset.status, 0);
        QVERIFY2(reset.error == QNetworkReply::RemoteHostClosedError, qPrintable(QString::number(reset.error)));
        const Reply cut = send("GET", QStringLiteral("/storage/v1/b/bucket/o/obj?alt=media"), {}, withTest(id));
        QVERIFY2(cut.error != QNetworkReply::NoError, "the broken stream must fail the download");
        QVERIFY(cut.body.size() < 11);

        const QJsonObject state = send("GET", QStringLiteral("/retry_test/") + id).json();
        QCOMPARE(state.value(QLatin1String("completed")), QJsonValue(true));
        const Reply whole = send("GET", QStringLiteral("/storage/v1/b/bucket/o/obj?alt=media"), {}, withTest(id));
        QCOMPARE(whole.status, 200);
        QCOMPARE(whole.body, QByteArray("hello world"));
    }

    void objects_uploadGetListDelete_withPreconditions()
    {
        const QJsonObject first = upload(QStringLiteral("a%2Fb"), "one");
        QCOMPARE(first.value(QLatin1String("name")).toString(), QStringLiteral("a/b"));
        QCOMPARE(first.value(QLatin1String("size")).toString(), QStringLiteral("3"));
        const QString generation = first.value(QLatin1String("generation")).toString();

        // ifGenerationMatch=0: only when the object does not exist yet.
        const Reply again = send("POST",
            QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=a%2Fb&ifGenerationMatch=0"), "two");
        QCOMPARE(again.status, 412);
        QVERIFY2(again.errorMessage().contains(QLatin1String("ifGenerationMatch=0")), qPrintable(again.errorMessage()));
        const QJsonObject second
            = upload(QStringLiteral("a%2Fb"), "two", QStringLiteral("&ifGenerationMatch=") + generation);
        QVERIFY(second.value(QLatin1String("generation")).toString() != generation);

        const Reply metadata = send("GET", QStringLiteral("/storage/v1/b/bucket/o/a%2Fb"));
        QCOMPARE(metadata.status, 200);
        QCOMPARE(metadata.json().value(QLatin1String("generation")), second.value(QLatin1String("generation")));
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket/o/a%2Fb?alt=media")).body, QByteArray("two"));
        QCOMPARE(
            send("GET", QStringLiteral("/download/storage/v1/b/bucket/o/a%2Fb?alt=media")).body, QByteArray("two"));
        QCOMPARE(
            send("GET", QStringLiteral("/storage/v1/b/bucket/o/a%2Fb?alt=media"), {}, {{"Range", "bytes=1-"}}).body,
            QByteArray("wo"));
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket/o/a%2Fb?ifMetagenerationMatch=2")).status, 412);

        upload(QStringLiteral("c"), "three");
        const QJsonArray items
            = send("GET", QStringLiteral("/storage/v1/b/bucket/o")).json().value(QLatin1String("items")).toArray();
        QCOMPARE(items.size(), 2);
        QCOMPARE(items[0].toObject().value(QLatin1String("name")).toString(), QStringLiteral("a/b"));
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket/o?prefix=c"))
                     .json()
                     .value(QLatin1String("items"))
                     .toArray()
                     .size(),
            1);
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/other-bucket/o"))
                     .json()
                     .value(QLatin1String("items"))
                     .toArray()
                     .size(),
            0);

        QCOMPARE(
            send("DELETE", QStringLiteral("/storage/v1/b/bucket/o/a%2Fb?ifGenerationMatch=") + generation).status, 412);
        QCOMPARE(send("DELETE",
                     QStringLiteral("/storage/v1/b/bucket/o/a%2Fb?ifGenerationMatch=")
                         + second.value(QLatin1String("generation")).toString())
                     .status,
            204);
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket/o/a%2Fb")).status, 404);
        QCOMPARE(send("DELETE", QStringLiteral("/storage/v1/b/bucket/o/a%2Fb")).status, 404);
    }

    void objects_badRequests_getClearErrors_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("expected");
        QTest::addRow("bucket name") << QByteArray("GET") << QStringLiteral("/storage/v1/b/B!") << 400
                                     << QStringLiteral("bucket name");
        QTest::addRow("precondition") << QByteArray("GET")
                                      << QStringLiteral("/storage/v1/b/bucket/o/x?ifGenerationMatch=-1") << 400
                                      << QStringLiteral("ifGenerationMatch");
        QTest::addRow("no uploadType") << QByteArray("POST") << QStringLiteral("/upload/storage/v1/b/bucket/o?name=x")
                                       << 400 << QStringLiteral("uploadType");
        QTest::addRow("multipart") << QByteArray("POST")
                                   << QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=multipart&name=x") << 400
                                   << QStringLiteral("multipart");
        QTest::addRow("no name") << QByteArray("POST")
                                 << QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media") << 400
                                 << QStringLiteral("name");
        QTest::addRow("unknown upload") << QByteArray("PUT")
                                        << QStringLiteral("/upload/storage/v1/b/bucket/o?upload_id=u999") << 404
                                        << QStringLiteral("u999");
        QTest::addRow("method") << QByteArray("PATCH") << QStringLiteral("/storage/v1/b/bucket/o/x") << 405
                                << QStringLiteral("GET, DELETE");
        QTest::addRow("resource") << QByteArray("GET") << QStringLiteral("/storage/v1/b/bucket/acl") << 404
                                  << QStringLiteral("no Cloud Storage resource");
    }

    void objects_badRequests_getClearErrors()
    {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        QFETCH(int, status);
        QFETCH(QString, expected);
        const Reply r = send(method, path, method == "GET" ? QByteArray() : QByteArray("x"));
        QCOMPARE(r.status, status);
        QVERIFY2(r.errorMessage().contains(expected), qPrintable(r.errorMessage()));
    }

    void resumableUpload_chunks_queryAndFinish()
    {
        const Reply start
            = send("POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=resumable&ifGenerationMatch=0"),
                R"({"name": "big", "contentType": "text/plain"})");
        QCOMPARE(start.status, 200);
        const QByteArray location = start.headers.value("location");
        QVERIFY2(location.startsWith(m_server->baseUrl().toString().toLatin1()), location.constData());
        const QString path = QString::fromLatin1(location.mid(m_server->baseUrl().toString().size()));

        const QByteArray data = bytesOf(300 * 1024);
        const Reply part = send("PUT", path, data.first(256 * 1024), {{"Content-Range", "bytes 0-262143/*"}});
        QCOMPARE(part.status, 308);
        QCOMPARE(part.headers.value("range"), QByteArray("bytes=0-262143"));
        const Reply state = send("PUT", path, {}, {{"Content-Range", "bytes */*"}});
        QCOMPARE(state.status, 308);
        QCOMPARE(state.headers.value("range"), QByteArray("bytes=0-262143"));
        // A gap is refused; a chunk overlapping what is persisted is taken from where it stopped.
        QCOMPARE(
            send("PUT", path, data.sliced(270'000, 100), {{"Content-Range", "bytes 270000-270099/*"}}).status, 400);
        const Reply done = send("PUT", path, data.sliced(200'000),
            {{"Content-Range",
                QByteArray("bytes 200000-") + QByteArray::number(data.size() - 1) + '/'
                    + QByteArray::number(data.size())}});
        QCOMPARE(done.status, 200);
        QCOMPARE(done.json().value(QLatin1String("size")).toString(), QString::number(data.size()));
        QCOMPARE(done.json().value(QLatin1String("contentType")).toString(), QStringLiteral("text/plain"));
        QCOMPARE(send("PUT", path, {}, {{"Content-Range", "bytes */*"}}).status, 200);
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket/o/big?alt=media")).body, data);
    }

    void resumableUpload_503After256K_keepsTheBytesBeforeIt()
    {
        const QString id = createTest(QJsonObject{
            {QStringLiteral("storage.objects.insert"), QJsonArray{QStringLiteral("return-503-after-256K")}}});
        const Reply start = send(
            "POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=resumable&name=r"), {}, withTest(id));
        QCOMPARE(start.status, 200); // starting a session sends no bytes: the instruction waits
        const QString path
            = QString::fromLatin1(start.headers.value("location").mid(m_server->baseUrl().toString().size()));
        const QByteArray data = bytesOf(512 * 1024);
        const Reply failed
            = send("PUT", path, data, {{"x-retry-test-id", id.toLatin1()}, {"Content-Range", "bytes 0-524287/524288"}});
        QCOMPARE(failed.status, 503);
        const Reply state = send("PUT", path, {}, {{"x-retry-test-id", id.toLatin1()}, {"Content-Range", "bytes */*"}});
        QCOMPARE(state.status, 308);
        QCOMPARE(state.headers.value("range"), QByteArray("bytes=0-262143"));
        const Reply resumed = send("PUT", path, data.sliced(262144),
            {{"x-retry-test-id", id.toLatin1()}, {"Content-Range", "bytes 262144-524287/524288"}});
        QCOMPARE(resumed.status, 200);
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket/o/r?alt=media")).body, data);
        QCOMPARE(send("GET", QStringLiteral("/retry_test/") + id).json().value(QLatin1String("completed")),
            QJsonValue(true));
    }

    void mediaUpload_afterBytes_waitsForItsThreshold()
    {
        const QString id = createTest(QJsonObject{
            {QStringLiteral("storage.objects.insert"), QJsonArray{QStringLiteral("return-503-after-256K")}}});
        // Smaller than 256 KiB: the instruction stays, as in the testbench.
        QCOMPARE(
            send("POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=s"), "small", withTest(id))
                .status,
            200);
        QCOMPARE(send("POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=s"),
                     bytesOf(256 * 1024), withTest(id))
                     .status,
            503);
        QCOMPARE(send("POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=s"),
                     bytesOf(256 * 1024), withTest(id))
                     .status,
            200);
    }

    void download_brokenAfter256K_thenWhole()
    {
        const QByteArray data = bytesOf(512 * 1024);
        upload(QStringLiteral("d"), data);
        const QString id = createTest(QJsonObject{
            {QStringLiteral("storage.objects.get"), QJsonArray{QStringLiteral("return-broken-stream-after-256K")}}});
        qint64 received = 0;
        // Qt may send a GET again by itself when its connection breaks mid-body; the attempt's
        // id and number make the server give that resend the same instruction, not the next.
        auto attempt = [&id](const char *number) {
            auto headers = withTest(id);
            headers.append({QByteArrayLiteral("X-Retry-Request-Id"), QByteArrayLiteral("download-cut")});
            headers.append({QByteArrayLiteral("X-Retry-Attempt"), QByteArray(number)});
            return headers;
        };
        const Reply cut = send("GET", QStringLiteral("/storage/v1/b/bucket/o/d?alt=media"), {}, attempt("1"));
        received = cut.body.size();
        QVERIFY2(cut.error != QNetworkReply::NoError, "a download cut after 256 KiB must fail");
        QVERIFY2(received <= 256 * 1024, qPrintable(QString::number(received)));
        const Reply whole = send("GET", QStringLiteral("/storage/v1/b/bucket/o/d?alt=media"), {}, attempt("2"));
        QCOMPARE(whole.error, QNetworkReply::NoError);
        QCOMPARE(whole.body, data);
    }

    void download_stallAfter128K_pausesThenCompletes()
    {
        const QByteArray data = bytesOf(256 * 1024);
        upload(QStringLiteral("s"), data);
        const QString id = createTest(QJsonObject{
            {QStringLiteral("storage.objects.get"), QJsonArray{QStringLiteral("stall-for-1s-after-128K")}}});
        const Reply stalled = send("GET", QStringLiteral("/storage/v1/b/bucket/o/s?alt=media"), {}, withTest(id));
        QCOMPARE(stalled.status, 200);
        QCOMPARE(stalled.body, data);
        QVERIFY2(stalled.elapsedMs >= 950, qPrintable(QString::number(stalled.elapsedMs)));
    }

    void objects_areBounded_withClearErrors()
    {
        // The server of this suite keeps 4 MiB of objects.
        QCOMPARE(send("POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=a"),
                     bytesOf(3 * 1024 * 1024))
                     .status,
            200);
        const Reply full = send(
            "POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=b"), bytesOf(2 * 1024 * 1024));
        QCOMPARE(full.status, 507);
        QVERIFY2(full.errorMessage().contains(QLatin1String("delete objects first")), qPrintable(full.errorMessage()));
        const Reply huge = send(
            "POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=c"), bytesOf(5 * 1024 * 1024));
        QCOMPARE(huge.status, 413);
        // Replacing an object frees its bytes first; deleting frees them too.
        QCOMPARE(send("POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=a"),
                     bytesOf(3 * 1024 * 1024))
                     .status,
            200);
        QCOMPARE(send("DELETE", QStringLiteral("/storage/v1/b/bucket/o/a")).status, 204);
        QCOMPARE(send("POST", QStringLiteral("/upload/storage/v1/b/bucket/o?uploadType=media&name=b"),
                     bytesOf(2 * 1024 * 1024))
                     .status,
            200);
        // A reset forgets objects and retry tests.
        m_server->reset();
        QCOMPARE(send("GET", QStringLiteral("/storage/v1/b/bucket/o/b")).status, 404);
    }

    void scriptedTests_keepWorking_besideRetryTests()
    {
        const auto scripted = m_server->createTest({QStringLiteral("return-503")});
        QVERIFY(scripted);
        QCOMPARE(send("GET", QStringLiteral("/status/200"), {}, withTest(*scripted)).status, 503);
        QCOMPARE(send("GET", QStringLiteral("/status/200"), {}, withTest(*scripted)).status, 200);
        // A retry test's id on another path: the path answers.
        const QString id = createTest(
            QJsonObject{{QStringLiteral("storage.objects.get"), QJsonArray{QStringLiteral("return-503")}}});
        QCOMPARE(send("GET", QStringLiteral("/status/201"), {}, withTest(id)).status, 201);
        QCOMPARE(send("GET", QStringLiteral("/retry_test/") + id).json().value(QLatin1String("completed")),
            QJsonValue(false));
    }
};

QTEST_GUILESS_MAIN(TestStorageRetryTest)
#include "tst_storageretrytest.moc"
