#include "core/export/harexport.h"
#include "core/http/retryheaders.h"
#include "core/import/harimport.h"
#include "core/util/englishplurals.h"

#include "tests/core/export/exportsamples.h"
#include "tests/core/import/harfixtures.h"
#include "tests/tools/harvalidator.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace RetryLab::Core;

namespace {

// A syntax error's offset is the place its message names ("line 2, column 16:
// not valid JSON"), as an index into the text; other errors have none.
void verifyOffsetIsThePlaceNamed(const QByteArray &json, const Error &error)
{
    static const QRegularExpression place(QStringLiteral("^line (\\d+), column (\\d+): "));
    const QRegularExpressionMatch match = place.match(error.message);
    if (!match.hasMatch()) {
        QCOMPARE(error.offset, qsizetype(-1));
        return;
    }
    const QString before = QString::fromUtf8(json).left(error.offset);
    QCOMPARE(before.count(QLatin1Char('\n')) + 1, qsizetype(match.captured(1).toInt()));
    QCOMPARE(before.size() - before.lastIndexOf(QLatin1Char('\n')), qsizetype(match.captured(2).toInt()));
}

QStringList headerLines(const HeaderList &headers)
{
    QStringList lines;
    for (const auto &[name, value] : headers)
        lines.append(QString::fromUtf8(name + ": " + value));
    return lines;
}

QByteArray fixture(const QString &name)
{
    return name == QLatin1String("chrome") ? HarFixtures::chrome() : HarFixtures::firefox();
}

// A minimal HAR around `entries`, for the malformed cases.
QByteArray harWith(const QByteArray &entries, const QByteArray &version = "1.2")
{
    return "{\"log\": {\"version\": \"" + version
        + "\", \"creator\": {\"name\": \"t\", \"version\": \"1\"}, \"entries\": " + entries + "}}";
}

QByteArray entryWith(const QByteArray &request)
{
    return "{\"startedDateTime\": \"2025-01-01T00:00:00.000Z\", \"time\": 1, \"request\": " + request
        + ", \"response\": {\"status\": 200}, \"cache\": {}, \"timings\": {\"send\": 0, \"wait\": 1, \"receive\": 0}}";
}

QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &bytes)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

// A RetryLab run whose attempts carry the headers the executor adds to each one.
RunRecord runWithExecutorHeaders()
{
    RunRecord run = ExportSamples::sampleRun();
    for (AttemptRecord &a : run.attempts) {
        a.requestHeaders.append({QByteArray(RetryHeaders::requestId), "1234.1-" + QByteArray::number(a.requestId)});
        a.requestHeaders.append({QByteArray(RetryHeaders::attempt), QByteArray::number(a.attemptIndex + 1)});
    }
    return run;
}

void requireValidator(const HarValidator::Run &run)
{
    if (run.skipped)
        QFAIL("node is not installed, so the HAR schema cannot be checked: install the Debian package nodejs "
              "(scripts/deps.sh does)");
    if (run.exitCode == 3)
        QFAIL(qPrintable(QStringLiteral("har-validator is not installed in " RETRYLAB_NODE_TOOLS_DIR
                                        " (the node_tools_install test installs it): ")
            + run.output));
}

} // namespace

class TestHarImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void browserEntries_data();
    void browserEntries();
    void chrome_nonHttpEntriesAreSkippedWithTheirPlace();
    void chrome_pickerSummaries();
    void postDataParams_multipartWithOurBoundary();
    void pick_returnsTheChosenEntriesInTheGivenOrder();
    void pick_indexOutOfRange_isAnError();
    void malformed_data();
    void malformed();
    void limits_tooManyEntriesRefused();
    void limits_fileTooLargeRefusedBeforeReading();
    void readFile_missingFile();
    void retryLabRun_roundTrip_attemptsBecomeOneRequest();
    void retryLabRun_redacted_keepsTheMaskAndThePolicy();
    void requestEntry_roundTrip_data();
    void requestEntry_roundTrip();
    void requestEntry_redactsByDefault();
    void schema_harValidatorAcceptsRequestEntriesAndFixtures();
};

void TestHarImport::initTestCase()
{
    // As the application does: "1 attempt", "4 attempts".
    EnglishPlurals::install();
}

void TestHarImport::browserEntries_data()
{
    QTest::addColumn<QString>("browser");
    QTest::addColumn<int>("index");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("headers");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("httpVersion");
    QTest::addColumn<QStringList>("ignored");

    const int h1 = int(TransportOptions::HttpVersion::Http1);
    const int h2 = int(TransportOptions::HttpVersion::Http2);
    QTest::addRow("chrome h2 document: pseudo-headers and accept-encoding out")
        << QStringLiteral("chrome") << 0 << QByteArray("GET")
        << QStringLiteral("https://shop.example.com/?utm_source=mail")
        << QStringList{QStringLiteral("accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"),
               QStringLiteral("accept-language: de-DE,de;q=0.9,en;q=0.8"),
               QStringLiteral("cookie: sid=7f3a9c; consent=yes"),
               QStringLiteral("sec-ch-ua: \"Chromium\";v=\"124\", \"Not-A.Brand\";v=\"99\""),
               QStringLiteral("user-agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0.0.0 Safari/537.36")}
        << QByteArray() << QStringLiteral("https://shop.example.com/") << h2
        << QStringList{QStringLiteral("accept-encoding: gzip, deflate, br, zstd")};
    QTest::addRow("chrome h2 fetch with a JSON body")
        << QStringLiteral("chrome") << 1 << QByteArray("POST")
        << QStringLiteral("https://api.shop.example.com/v2/cart/items")
        << QStringList{QStringLiteral("accept: application/json"),
               QStringLiteral("authorization: Bearer eyJhbGciOiJIUzI1NiJ9.c2hvcA.sig"),
               QStringLiteral("content-type: application/json"),
               QStringLiteral("idempotency-key: 0d6c2c1e-5a54-4c39-a0a1-5f2d7b0e9a11"),
               QStringLiteral("origin: https://shop.example.com")}
        << QByteArray(R"({"sku":"A-1","qty":2})") << QStringLiteral("https://shop.example.com/") << h2 << QStringList{};
    QTest::addRow("chrome form from params, cookies only in cookies, own Host dropped")
        << QStringLiteral("chrome") << 2 << QByteArray("POST")
        << QStringLiteral("http://legacy.shop.example.com:8080/login")
        << QStringList{QStringLiteral("Origin: https://shop.example.com"),
               QStringLiteral("Content-Type: application/x-www-form-urlencoded"),
               QStringLiteral("Cookie: sid=7f3a9c; lang=de")}
        << QByteArray("user=ana+mar%C3%ADa&next=%2Fcart%3Fx%3D1%26y%3D2") << QStringLiteral("https://shop.example.com/")
        << h1 << QStringList{QStringLiteral("Connection: keep-alive")};
    QTest::addRow("chrome blocked request without a response")
        << QStringLiteral("chrome") << 3 << QByteArray("GET") << QStringLiteral("https://ads.tracker.example/pixel.js")
        << QStringList{QStringLiteral("Referer: https://shop.example.com/")} << QByteArray()
        << QStringLiteral("https://shop.example.com/") << h1 << QStringList{};
    QTest::addRow("chrome h3 asks for HTTP/2")
        << QStringLiteral("chrome") << 4 << QByteArray("GET") << QStringLiteral("https://fonts.example.org/inter.woff2")
        << QStringList{QStringLiteral("accept: */*")} << QByteArray() << QStringLiteral("https://shop.example.com/")
        << h2 << QStringList{QStringLiteral("HTTP/3 (Qt does not speak it: HTTP/2 is asked for instead)")};
    QTest::addRow("firefox HTTP/2 page: Host, TE, Connection out; one Cookie")
        << QStringLiteral("firefox") << 0 << QByteArray("GET") << QStringLiteral("https://www.example.org/")
        << QStringList{QStringLiteral(
                           "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"),
               QStringLiteral("Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
               QStringLiteral("Accept-Language: en-US,en;q=0.5"), QStringLiteral("Cookie: theme=dark"),
               QStringLiteral("Upgrade-Insecure-Requests: 1")}
        << QByteArray() << QStringLiteral("Example Domain") << h2
        << QStringList{QStringLiteral("Accept-Encoding: gzip, deflate, br, zstd"),
               QStringLiteral("Connection: keep-alive"), QStringLiteral("TE: trailers")};
    QTest::addRow("firefox multipart text keeps its boundary")
        << QStringLiteral("firefox") << 1 << QByteArray("POST")
        << QStringLiteral("https://www.example.org/api/upload?draft=1")
        << QStringList{QStringLiteral(
                           "Content-Type: multipart/form-data; boundary=---------------------------41184676334"),
               QStringLiteral("Origin: https://www.example.org")}
        << QStringLiteral(
               "-----------------------------41184676334\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n"
               "Hallo Köln\r\n-----------------------------41184676334--\r\n")
               .toUtf8()
        << QStringLiteral("Example Domain") << h2 << QStringList{};
    QTest::addRow("firefox base64 body, a virtual host kept, no page")
        << QStringLiteral("firefox") << 2 << QByteArray("PUT") << QStringLiteral("http://10.0.0.5:8080/blob/7")
        << QStringList{QStringLiteral("Host: storage.internal"),
               QStringLiteral("Content-Type: application/octet-stream")}
        << QByteArray::fromHex("0001ff800a7f") << QString() << h1 << QStringList{};
}

void TestHarImport::browserEntries()
{
    QFETCH(QString, browser);
    QFETCH(int, index);
    QFETCH(QByteArray, method);
    QFETCH(QString, url);
    QFETCH(QStringList, headers);
    QFETCH(QByteArray, body);
    QFETCH(QString, name);
    QFETCH(int, httpVersion);
    QFETCH(QStringList, ignored);

    const auto archive = HarImport::read(fixture(browser));
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    QVERIFY(!archive->fromRetryLab);
    QVERIFY(index < archive->entries.size());
    const ImportedRequest &request = archive->entries.at(index).request;
    QCOMPARE(request.spec.method, method);
    QCOMPARE(request.spec.url, QUrl(url));
    QCOMPARE(request.urlText, url);
    QCOMPARE(headerLines(request.spec.headers), headers);
    QCOMPARE(request.spec.body, body);
    QCOMPARE(request.name, name);
    QCOMPARE(int(request.spec.transport.httpVersion), httpVersion);
    QCOMPARE(request.ignored, ignored);
    QVERIFY(request.unknown.isEmpty());
    QVERIFY(request.folders.isEmpty());
    QCOMPARE(request.spec.kind, RequestSpec::Kind::Single);
}

void TestHarImport::chrome_nonHttpEntriesAreSkippedWithTheirPlace()
{
    const auto archive = HarImport::read(HarFixtures::chrome());
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    QCOMPARE(archive->creator, QStringLiteral("WebInspector"));
    QCOMPARE(archive->entries.size(), 5);
    QCOMPARE(archive->skipped.size(), 2);
    QCOMPARE(archive->skipped.at(0).path, QStringLiteral("log.entries[2].request.url"));
    QVERIFY2(
        archive->skipped.at(0).message.startsWith(QLatin1String("data:")), qPrintable(archive->skipped.at(0).message));
    QCOMPARE(archive->skipped.at(1).path, QStringLiteral("log.entries[3].request.url"));
    QVERIFY2(
        archive->skipped.at(1).message.startsWith(QLatin1String("wss:")), qPrintable(archive->skipped.at(1).message));
    QList<QList<qsizetype>> sources;
    for (const HarImport::Entry &entry : archive->entries)
        sources.append(entry.sourceIndexes);
    QCOMPARE(sources, (QList<QList<qsizetype>>{{0}, {1}, {4}, {5}, {6}}));
}

void TestHarImport::chrome_pickerSummaries()
{
    const auto archive = HarImport::read(HarFixtures::chrome());
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    const QList<HarImport::Entry> &entries = archive->entries;
    QCOMPARE(entries.at(0).status, 200);
    QCOMPARE(entries.at(0).resourceType, QStringLiteral("document"));
    QCOMPARE(entries.at(0).responseMimeType, QStringLiteral("text/html"));
    QCOMPARE(entries.at(0).started, QDateTime(QDate(2025, 5, 6), QTime(9, 14, 3, 118), Qt::UTC));
    QCOMPARE(entries.at(0).summary(), QStringLiteral("GET https://shop.example.com/?utm_source=mail → 200 · 188 ms"));
    // The bearer token is in a header, not in the line; the line masks what a URL could carry.
    QCOMPARE(
        entries.at(1).summary(), QStringLiteral("POST https://api.shop.example.com/v2/cart/items → 201 · 84.3 ms"));
    QCOMPARE(
        entries.at(2).summary(), QStringLiteral("POST http://legacy.shop.example.com:8080/login → 302 Found · 1.25 s"));
    QCOMPARE(entries.at(3).status, 0);
    QCOMPARE(entries.at(3).error, QStringLiteral("net::ERR_BLOCKED_BY_CLIENT"));
    QCOMPARE(entries.at(3).summary(),
        QStringLiteral("GET https://ads.tracker.example/pixel.js → net::ERR_BLOCKED_BY_CLIENT · 0.528 ms"));
    QCOMPARE(entries.at(4).attempts, 1);

    HarImport::Entry secret = entries.at(0);
    secret.request.spec.url = QUrl(QStringLiteral("https://u:pw@api.example.com/x?access_token=abc&page=2"));
    QVERIFY2(!secret.summary().contains(QLatin1String("pw")), qPrintable(secret.summary()));
    QVERIFY2(!secret.summary().contains(QLatin1String("abc")), qPrintable(secret.summary()));
    QVERIFY2(secret.summary().contains(QLatin1String("page=2")), qPrintable(secret.summary()));
}

void TestHarImport::postDataParams_multipartWithOurBoundary()
{
    const QByteArray json = harWith("[" + entryWith(R"({"method": "POST", "url": "https://a.example/upload",
        "headers": [{"name": "Content-Type", "value": "multipart/form-data; boundary=----WebKitFormBoundaryX"}],
        "postData": {"mimeType": "multipart/form-data; boundary=----WebKitFormBoundaryX", "params": [
            {"name": "title", "value": "Grüße"},
            {"name": "photo", "fileName": "cat.jpg", "contentType": "image/jpeg"}]}})")
        + "]");
    const auto archive = HarImport::read(json);
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    const ImportedRequest &request = archive->entries.at(0).request;
    const QByteArray type = headerValue(request.spec.headers, "Content-Type").value_or(QByteArray());
    QCOMPARE(request.spec.headers.size(), 1);
    QVERIFY2(type.startsWith("multipart/form-data; boundary=----RetryLabFormBoundary"), type.constData());
    const QByteArray boundary = type.mid(type.indexOf('=') + 1);
    QCOMPARE(request.spec.body,
        "--" + boundary + "\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n"
            + QStringLiteral("Grüße").toUtf8() + "\r\n--" + boundary + "--\r\n");
    QCOMPARE(
        request.ignored, QStringList{QStringLiteral("file field \"photo\" (cat.jpg): the HAR does not hold the file")});
}

void TestHarImport::pick_returnsTheChosenEntriesInTheGivenOrder()
{
    const auto archive = HarImport::read(HarFixtures::firefox());
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    const auto picked = HarImport::pick(*archive, {2, 0});
    QVERIFY2(picked.ok(), qPrintable(picked.error()));
    QCOMPARE(picked->size(), 2);
    QCOMPARE(picked->at(0).spec.method, QByteArray("PUT"));
    QCOMPARE(picked->at(1).spec.url, QUrl(QStringLiteral("https://www.example.org/")));
    QCOMPARE(HarImport::pick(*archive, {})->size(), 0);
    QCOMPARE(HarImport::requests(*archive).size(), 3);
}

void TestHarImport::pick_indexOutOfRange_isAnError()
{
    const auto archive = HarImport::read(HarFixtures::firefox());
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    for (qsizetype index : {qsizetype(3), qsizetype(-1)}) {
        const auto picked = HarImport::pick(*archive, {0, index});
        QVERIFY(!picked.ok());
        QVERIFY2(picked.error().contains(QString::number(index)), qPrintable(picked.error()));
        QVERIFY2(picked.error().contains(QLatin1String("3 requests")), qPrintable(picked.error()));
    }
}

void TestHarImport::malformed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    const QByteArray good = R"({"method": "GET", "url": "https://a.example/", "headers": []})";
    QTest::addRow("not JSON") << QByteArray("{\"log\": {\"version\": \"1.2\",\n  \"entries\": [}") << QString()
                              << QStringLiteral("line 2, column 16: not valid JSON");
    QTest::addRow("empty file") << QByteArray("  \n") << QString() << QStringLiteral("the file is empty");
    QTest::addRow("an array") << QByteArray("[]") << QString() << QStringLiteral("holds one JSON object");
    QTest::addRow("no log") << QByteArray(R"({"entries": []})") << QStringLiteral("log")
                            << QStringLiteral("a HAR file holds {\"log\"");
    QTest::addRow("a Postman collection")
        << QByteArray(R"({"info": {"schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"}})")
        << QStringLiteral("log") << QStringLiteral("Postman collection");
    QTest::addRow("log not an object") << QByteArray(R"({"log": []})") << QStringLiteral("log")
                                       << QStringLiteral("expected an object");
    QTest::addRow("wrong version") << harWith("[]", "2.0") << QStringLiteral("log.version")
                                   << QStringLiteral("HAR version \"2.0\" is not supported");
    QTest::addRow("no version") << QByteArray(R"({"log": {"entries": []}})") << QStringLiteral("log.version")
                                << QStringLiteral("missing");
    QTest::addRow("no entries") << QByteArray(R"({"log": {"version": "1.2"}})") << QStringLiteral("log.entries")
                                << QStringLiteral("missing");
    QTest::addRow("entry not an object") << harWith("[" + entryWith(good) + ", \"GET /\"]")
                                         << QStringLiteral("log.entries[1]") << QStringLiteral("expected an object");
    QTest::addRow("no request") << harWith(R"([{"startedDateTime": "2025-01-01T00:00:00Z"}])")
                                << QStringLiteral("log.entries[0].request") << QStringLiteral("missing");
    QTest::addRow("missing url") << harWith("[" + entryWith(good) + "," + entryWith(good) + "," + entryWith(good) + ","
        + entryWith(R"({"method": "GET", "headers": []})") + "]")
                                 << QStringLiteral("log.entries[3].request.url") << QStringLiteral("missing");
    QTest::addRow("url not a string") << harWith("[" + entryWith(R"({"method": "GET", "url": 42})") + "]")
                                      << QStringLiteral("log.entries[0].request.url")
                                      << QStringLiteral("expected a string, got a number");
    QTest::addRow("relative url") << harWith("[" + entryWith(R"({"method": "GET", "url": "/api/x"})") + "]")
                                  << QStringLiteral("log.entries[0].request.url")
                                  << QStringLiteral("not an absolute URL");
    QTest::addRow("url without a host") << harWith("[" + entryWith(R"({"method": "GET", "url": "https:///x"})") + "]")
                                        << QStringLiteral("log.entries[0].request.url")
                                        << QStringLiteral("not a valid URL");
    QTest::addRow("method with a space") << harWith(
        "[" + entryWith(R"({"method": "GET /", "url": "https://a.example/"})") + "]")
                                         << QStringLiteral("log.entries[0].request.method")
                                         << QStringLiteral("is not an HTTP method");
    QTest::addRow("header without a name")
        << harWith(
               "[" + entryWith(R"({"method": "GET", "url": "https://a.example/", "headers": [{"value": "x"}]})") + "]")
        << QStringLiteral("log.entries[0].request.headers[0].name") << QStringLiteral("missing");
    QTest::addRow("header not an object")
        << harWith("[" + entryWith(R"({"method": "GET", "url": "https://a.example/", "headers": ["A: b"]})") + "]")
        << QStringLiteral("log.entries[0].request.headers[0]") << QStringLiteral("expected an object");
    QTest::addRow("bad base64") << harWith("[" + entryWith(R"({"method": "POST", "url": "https://a.example/",
               "postData": {"mimeType": "application/octet-stream", "text": "not base64!", "encoding": "base64"}})")
        + "]") << QStringLiteral("log.entries[0].request.postData.text")
                                << QStringLiteral("not valid base64");
    QTest::addRow("unknown encoding") << harWith("[" + entryWith(R"({"method": "POST", "url": "https://a.example/",
               "postData": {"mimeType": "text/plain", "text": "x", "encoding": "rot13"}})")
        + "]") << QStringLiteral("log.entries[0].request.postData.encoding")
                                      << QStringLiteral("unknown encoding \"rot13\"");
    QTest::addRow("RetryLab entry of an unknown kind")
        << QByteArray(R"({"log": {"version": "1.2", "creator": {"name": "RetryLab", "version": "1"}, "entries": [
               {"request": {"method": "GET", "url": "https://a.example/"}, "_kind": "batch"}]}})")
        << QStringLiteral("log.entries[0]._kind") << QStringLiteral("unknown kind \"batch\"");
    QTest::addRow("param without a name") << harWith("[" + entryWith(R"({"method": "POST", "url": "https://a.example/",
               "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"value": "1"}]}})")
        + "]") << QStringLiteral("log.entries[0].request.postData.params[0].name")
                                          << QStringLiteral("missing");
}

void TestHarImport::malformed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);

    const auto archive = HarImport::read(json);
    QVERIFY(!archive.ok());
    QCOMPARE(archive.errorDetail().path, path);
    QVERIFY2(archive.errorDetail().message.contains(message), qPrintable(archive.error()));
    verifyOffsetIsThePlaceNamed(json, archive.errorDetail());
    if (!path.isEmpty())
        QVERIFY2(archive.error().startsWith(path + QStringLiteral(": ")), qPrintable(archive.error()));
}

void TestHarImport::limits_tooManyEntriesRefused()
{
    QByteArray entries = "[";
    for (qsizetype i = 0; i <= HarImport::maxEntries; ++i)
        entries += i == 0 ? "{}" : ",{}";
    entries += "]";
    const auto archive = HarImport::read(harWith(entries));
    QVERIFY(!archive.ok());
    QCOMPARE(archive.errorDetail().path, QStringLiteral("log.entries"));
    QCOMPARE(archive.errorDetail().message,
        QStringLiteral("100001 entries; HAR files with more than 100000 entries are refused"));
}

void TestHarImport::limits_fileTooLargeRefusedBeforeReading()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A sparse file: its size is over the limit without writing 256 MiB.
    const QString path = dir.filePath(QStringLiteral("huge.har"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QVERIFY(file.resize(HarImport::maxFileBytes + 1));
    file.close();
    const auto archive = HarImport::readFile(path);
    QVERIFY(!archive.ok());
    QCOMPARE(archive.error(), QStringLiteral("the file is 268435457 bytes; HAR files over 256 MiB are refused"));

    // At the limit a file is read (and here refused as JSON, not as too large).
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.resize(HarImport::maxFileBytes));
    file.close();
    const auto atLimit = HarImport::readFile(path);
    QVERIFY(!atLimit.ok());
    QVERIFY2(atLimit.error().contains(QLatin1String("not valid JSON")), qPrintable(atLimit.error()));
}

void TestHarImport::readFile_missingFile()
{
    QTemporaryDir dir;
    const auto archive = HarImport::readFile(dir.filePath(QStringLiteral("gone.har")));
    QVERIFY(!archive.ok());
    QCOMPARE(
        archive.error(), QStringLiteral("cannot read %1: no such file").arg(dir.filePath(QStringLiteral("gone.har"))));

    const QString path = writeFile(dir, QStringLiteral("firefox.har"), HarFixtures::firefox());
    QVERIFY(!path.isEmpty());
    const auto read = HarImport::readFile(path);
    QVERIFY2(read.ok(), qPrintable(read.error()));
    QCOMPARE(read->entries.size(), 3);
}

void TestHarImport::retryLabRun_roundTrip_attemptsBecomeOneRequest()
{
    const RunRecord run = runWithExecutorHeaders();
    const auto archive = HarImport::read(HarExport::toJson(run, ExportOptions{false}));
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    QVERIFY(archive->fromRetryLab);
    QVERIFY(!archive->redacted);
    QVERIFY(archive->skipped.isEmpty());
    QVERIFY(archive->policy.has_value());
    QCOMPARE(*archive->policy, run.policy);

    // Requests 1 to 4 made attempts (request 1 four, request 3 four steps); 5 none.
    QCOMPARE(archive->entries.size(), 4);
    const QList<int> attempts{4, 1, 4, 1};
    // The export sorts attempts by start time: 1.0 2.0 3.0 3.1 4.0 3.2 3.3 1.1 1.2 (its redirect) 1.3; a
    // redirect's entry belongs to the attempt that follows it.
    const QList<QList<qsizetype>> sources{{0, 7, 8, 10}, {1}, {2, 3, 5, 6}, {4}};
    for (qsizetype i = 0; i < archive->entries.size(); ++i) {
        const HarImport::Entry &entry = archive->entries.at(i);
        const RequestSpec original = run.requests.value(quint64(i + 1));
        const RequestSpec &spec = entry.request.spec;
        QCOMPARE(entry.attempts, attempts.at(i));
        QCOMPARE(entry.sourceIndexes, sources.at(i));
        QCOMPARE(spec.kind, original.kind);
        QCOMPARE(spec.method, original.method);
        QCOMPARE(spec.url, original.url);
        QCOMPARE(spec.headers, original.headers);
        QCOMPARE(spec.label, original.label);
        QCOMPARE(entry.request.name, original.label);
        if (original.kind == RequestSpec::Kind::Single)
            QCOMPARE(spec.body, original.body);
    }
    const HarImport::Entry &first = archive->entries.at(0);
    QCOMPARE(first.status, 200);
    // 17530 ms less the 0.8 ms lost where the last exchange's start (after its redirect, at 17480.8 ms) is
    // written to the millisecond, as HAR dates are.
    QVERIFY2(std::abs(first.timeMs - 17529.2) < 0.01, qPrintable(QString::number(first.timeMs)));
    QCOMPARE(first.summary(),
        QStringLiteral("GET https://REDACTED:REDACTED@api.example.com/v1/items?page=2&access_token=REDACTED"
                       "&note=a%2Cb%22c → 200 OK · 17.5 s · 4 attempts"));
    QVERIFY2(archive->entries.at(2).request.ignored.join(QLatin1Char('\n')).contains(QLatin1String("increment")),
        qPrintable(archive->entries.at(2).request.ignored.join(QLatin1Char('\n'))));
    QCOMPARE(archive->entries.at(1).status, 500);
}

void TestHarImport::retryLabRun_redacted_keepsTheMaskAndThePolicy()
{
    const RunRecord run = runWithExecutorHeaders();
    const auto archive = HarImport::read(HarExport::toJson(run));
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    QVERIFY(archive->redacted);
    QCOMPARE(*archive->policy, run.policy);
    for (const HarImport::Entry &entry : archive->entries) {
        const RequestSpec &spec = entry.request.spec;
        const QString all = spec.url.toString() + QString::fromUtf8(spec.body) + entry.request.name
            + headerLines(spec.headers).join(QLatin1Char('\n'));
        for (const QString &secret : ExportSamples::secrets())
            QVERIFY2(!all.contains(secret), qPrintable(secret + QStringLiteral(" in ") + all.left(400)));
    }
    const HeaderList headers = archive->entries.at(0).request.spec.headers;
    QCOMPARE(headerValue(headers, "Authorization").value_or(QByteArray()), QByteArray("Bearer REDACTED"));
    QCOMPARE(headerValue(headers, "Idempotency-Key").value_or(QByteArray()), QByteArray("idem-42"));
}

void TestHarImport::requestEntry_roundTrip_data()
{
    QTest::addColumn<RequestSpec>("spec");

    RequestSpec get;
    get.url = QUrl(QStringLiteral("https://api.example.com/v1/items?page=2&q=K%C3%B6ln"));
    get.headers = {{"Accept", "application/json"}, {"Cookie", "a=1; b=2"}, {"X-Note", "a, \"quoted\" value"}};
    get.label = QStringLiteral("list items – Übersicht");
    QTest::addRow("GET with a label and cookies") << get;

    RequestSpec post;
    post.method = "POST";
    post.url = QUrl(QStringLiteral("http://127.0.0.1:8080/orders"));
    post.headers = {{"Content-Type", "application/json"}, {"Idempotency-Key", "k-1"}};
    post.body = R"({"sku":"A-1","qty":2})";
    post.idempotent = true;
    post.attemptTimeoutMs = 2500.0;
    QTest::addRow("idempotent POST with a timeout") << post;

    RequestSpec binary;
    binary.method = "PUT";
    binary.url = QUrl(QStringLiteral("https://blobs.example.com/b/7"));
    binary.body = ExportSamples::binaryBody();
    binary.transport.httpVersion = TransportOptions::HttpVersion::Http2;
    QTest::addRow("binary PUT over HTTP/2, no Content-Type") << binary;

    RequestSpec rmw;
    rmw.kind = RequestSpec::Kind::ReadModifyWrite;
    rmw.method = "PUT";
    rmw.url = QUrl(QStringLiteral("http://[::1]:9000/counter"));
    rmw.increment = -3;
    rmw.transport.httpVersion = TransportOptions::HttpVersion::Http2PriorKnowledge;
    QTest::addRow("read-modify-write, h2c") << rmw;
}

void TestHarImport::requestEntry_roundTrip()
{
    QFETCH(RequestSpec, spec);
    const QDateTime started(QDate(2025, 5, 6), QTime(7, 8, 9, 10), Qt::UTC);
    const QJsonObject har = HarExport::requestHar(spec, ExportOptions{false}, started);
    QCOMPARE(har.value(QStringLiteral("log"))
                 .toObject()
                 .value(QStringLiteral("entries"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("startedDateTime"))
                 .toString(),
        QStringLiteral("2025-05-06T07:08:09.010Z"));

    const auto archive = HarImport::read(QJsonDocument(har).toJson());
    QVERIFY2(archive.ok(), qPrintable(archive.error()));
    QVERIFY(archive->fromRetryLab);
    QCOMPARE(archive->entries.size(), 1);
    const HarImport::Entry &entry = archive->entries.at(0);
    const RequestSpec &back = entry.request.spec;
    QCOMPARE(back.kind, spec.kind);
    QCOMPARE(back.method, spec.method);
    QCOMPARE(back.url, spec.url);
    QCOMPARE(headerLines(back.headers), headerLines(spec.headers));
    QCOMPARE(back.body, spec.body);
    QCOMPARE(back.label, spec.label);
    QCOMPARE(entry.request.name, spec.label);
    QCOMPARE(back.idempotent, spec.idempotent);
    QCOMPARE(back.attemptTimeoutMs, spec.attemptTimeoutMs);
    QCOMPARE(back.increment, spec.increment);
    QCOMPARE(back.transport.httpVersion, spec.transport.httpVersion);
    QCOMPARE(entry.status, 0);
    QCOMPARE(entry.started, started);
    QVERIFY(entry.request.ignored.isEmpty());
}

void TestHarImport::requestEntry_redactsByDefault()
{
    RequestSpec spec;
    spec.method = "POST";
    spec.url = QUrl(QStringLiteral("https://user:pw-SECRET@api.example.com/x?api_key=SECRET-KEY&page=1"));
    spec.headers = {{"Authorization", "Bearer SECRET-TOKEN"}, {"Content-Type", "application/json"}};
    spec.body = R"({"password":"SECRET-BODY","name":"ana"})";
    spec.label = QStringLiteral("login token=SECRET-LABEL");

    const QByteArray redacted = QJsonDocument(HarExport::requestHar(spec)).toJson();
    QVERIFY2(!redacted.contains("SECRET"), redacted.constData());
    QVERIFY(redacted.contains("Bearer REDACTED"));
    QVERIFY(!redacted.contains("without redaction"));

    const QJsonObject entry = HarExport::requestEntry(spec, ExportOptions{false});
    const QByteArray plain = QJsonDocument(entry).toJson();
    for (const char *secret : {"pw-SECRET", "SECRET-KEY", "SECRET-TOKEN", "SECRET-BODY", "SECRET-LABEL"})
        QVERIFY2(plain.contains(secret), secret);
    QCOMPARE(entry.value(QStringLiteral("comment")).toString(), ExportOptions::credentialsWarning());
}

void TestHarImport::schema_harValidatorAcceptsRequestEntriesAndFixtures()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    RequestSpec post;
    post.method = "POST";
    post.url = QUrl(QStringLiteral("https://user:pw@api.example.com/orders?access_token=t&x=1"));
    post.headers = {{"Authorization", "Basic dTpw"}, {"Cookie", "sid=1; theme=dark"}};
    post.body = R"({"password":"p","qty":2})";
    post.label = QStringLiteral("create – Übersicht");
    RequestSpec binary;
    binary.method = "PUT";
    binary.url = QUrl(QStringLiteral("http://10.0.0.5:8080/blob"));
    binary.body = ExportSamples::binaryBody();
    binary.transport.httpVersion = TransportOptions::HttpVersion::Http2;
    RequestSpec bare;
    bare.url = QUrl(QStringLiteral("https://example.com/"));

    QStringList files{
        writeFile(dir, QStringLiteral("post.har"), QJsonDocument(HarExport::requestHar(post)).toJson()),
        writeFile(dir, QStringLiteral("post-plain.har"),
            QJsonDocument(HarExport::requestHar(post, ExportOptions{false})).toJson()),
        writeFile(dir, QStringLiteral("binary.har"), QJsonDocument(HarExport::requestHar(binary)).toJson()),
        writeFile(dir, QStringLiteral("bare.har"), QJsonDocument(HarExport::requestHar(bare)).toJson()),
        writeFile(dir, QStringLiteral("chrome.har"), HarFixtures::chrome()),
        writeFile(dir, QStringLiteral("firefox.har"), HarFixtures::firefox()),
    };
    QVERIFY(!files.contains(QString()));
    const HarValidator::Run run = HarValidator::validate(files);
    requireValidator(run);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(run.exitCode == 0, qPrintable(run.output));
    QCOMPARE(run.output.count(QLatin1String("valid HAR")), files.size());
}

QTEST_GUILESS_MAIN(TestHarImport)
#include "tst_harimport.moc"
