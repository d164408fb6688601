#include "core/runner/harrun.h"
#include "core/runner/runcollectionreader.h"
#include "tests/core/runner/runfixtures.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

using namespace RunFixtures;

class TestRunCollectionReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void read_detectsTheFormatByContent_data();
    void read_detectsTheFormatByContent();
    void read_errorsNameTheFileAndThePlace_data();
    void read_errorsNameTheFileAndThePlace();
    void read_folder_isReadAsABrunoCollection();
    void har_eachEntryOneRequestInOrder_noFolders();

private:
    QString writeFile(const QString &name, const QByteArray &bytes);

    QTemporaryDir m_dir;
};

QString TestRunCollectionReader::writeFile(const QString &name, const QByteArray &bytes)
{
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(bytes);
    return path;
}

void TestRunCollectionReader::read_detectsTheFormatByContent_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<RunCollection::Format>("format");
    QTest::addColumn<int>("requests");

    QTest::addRow("Postman by schema") << postmanSchema << RunCollection::Format::Postman << 1;
    QTest::addRow("Postman by id") << postmanId << RunCollection::Format::Postman << 1;
    // As Postman's API and its exports write it (OWASP crAPI ships one); newman runs it.
    QTest::addRow("Postman wrapped in {\"collection\": ...}")
        << QByteArray("{\"collection\": " + postmanSchema + "}") << RunCollection::Format::Postman << 1;
    // Without "info", as Postman's SDK reads it (newman's inherited-entities test collection).
    QTest::addRow("Postman without info")
        << QByteArray(R"j({"name": "n", "item": [{"request": "http://x/a"}]})j") << RunCollection::Format::Postman << 1;
    QTest::addRow("RetryLab") << retryLab() << RunCollection::Format::RetryLab << 1;
    QTest::addRow("HAR") << har() << RunCollection::Format::Har << 3;
}

void TestRunCollectionReader::read_detectsTheFormatByContent()
{
    QFETCH(QByteArray, bytes);
    QFETCH(RunCollection::Format, format);
    QFETCH(int, requests);

    // The name says nothing: the content decides.
    const QString path = writeFile(QStringLiteral("collection.txt"), bytes);
    const auto collection = RunCollectionReader::read(path);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->format, format);
    QCOMPARE(collection->source, path);
    QCOMPARE(collection->requestCount(), requests);
}

void TestRunCollectionReader::read_errorsNameTheFileAndThePlace_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");

    QTest::addRow("not JSON") << QByteArray("{\n  \"info\": nope}")
                              << QStringLiteral("line 2, column 13: not valid JSON");
    QTest::addRow("Postman request without a URL")
        << postmanNoUrl << QStringLiteral("item[0].item[0].request.url: missing");
    QTest::addRow("Postman v1") << postmanV1 << QStringLiteral("Postman collection v1 is not supported");
    QTest::addRow("HAR entry without a URL") << QByteArray(
        R"j({"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [)j"
        + entry(R"j({"method": "GET", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                   "cookies": [], "headersSize": -1, "bodySize": 0})j")
        + "]}}") << QStringLiteral("log.entries[0].request.url: missing");
    QTest::addRow("RetryLab item left out")
        << QByteArray(R"j({"formatVersion": 1, "name": "R", "items": [{"type": "fodler", "name": "x"}]})j")
        << QStringLiteral("items[0].type: must be \"folder\" or \"request\"");
    QTest::addRow("unknown JSON names what it looked for")
        << QByteArray(R"j({"name": "something else"})j")
        << QStringLiteral("not a collection retrylab run knows: no \"info.schema\" or \"info._postman_id\" (a Postman "
                          "collection), no \"formatVersion\" and \"items\" (a RetryLab collection), no "
                          "\"log.entries\" (a HAR file)");
}

void TestRunCollectionReader::read_errorsNameTheFileAndThePlace()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);

    const QString path = writeFile(QStringLiteral("bad.json"), bytes);
    const auto collection = RunCollectionReader::read(path);
    QVERIFY(!collection.ok());
    QCOMPARE(collection.errorDetail().path, path);
    QVERIFY2(collection.errorDetail().message.startsWith(message), qPrintable(collection.error()));
}

void TestRunCollectionReader::read_folder_isReadAsABrunoCollection()
{
    const QString folder = m_dir.filePath(QStringLiteral("bruno"));
    QVERIFY(QDir().mkpath(folder));
    const auto notYet = RunCollectionReader::read(folder);
    QVERIFY(!notYet);
    QVERIFY2(notYet.error().contains(QLatin1String("bruno.json")), qPrintable(notYet.error()));

    QFile manifest(QDir(folder).filePath(QStringLiteral("bruno.json")));
    QVERIFY(manifest.open(QIODevice::WriteOnly));
    manifest.write(R"({"version": "1", "name": "Shop", "type": "collection"})");
    manifest.close();
    QFile request(QDir(folder).filePath(QStringLiteral("ping.bru")));
    QVERIFY(request.open(QIODevice::WriteOnly));
    request.write("meta {\n  name: ping\n  seq: 1\n}\n\nget {\n  url: {{base}}/ping\n}\n");
    request.close();
    const auto collection = RunCollectionReader::read(folder);
    QVERIFY2(collection, qPrintable(collection.error()));
    QCOMPARE(collection->format, RunCollection::Format::Bruno);
    QCOMPARE(collection->name, QStringLiteral("Shop"));
    QCOMPARE(collection->requestCount(), 1);
}

void TestRunCollectionReader::har_eachEntryOneRequestInOrder_noFolders()
{
    const QString path = writeFile(QStringLiteral("session.har"), har());
    const auto collection = HarRun::readFile(path);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->format, RunCollection::Format::Har);
    QCOMPARE(collection->name, QStringLiteral("session"));
    QCOMPARE(collection->items.size(), 3);
    for (const RunItem &item : collection->items)
        QVERIFY(!item.isFolder());

    const RunItem &get = collection->items.at(0);
    QCOMPARE(get.place, QStringLiteral("log.entries[0]"));
    QCOMPARE(get.request.method, QStringLiteral("GET"));
    QCOMPARE(get.request.urlTemplate, QStringLiteral("http://127.0.0.1:1/items?page=2"));
    QCOMPARE(get.name, QStringLiteral("GET http://127.0.0.1:1/items?page=2"));
    QCOMPARE(get.request.headers,
        (QList<DraftHeader>{{QStringLiteral("Accept"), QStringLiteral("application/json"), true}}));

    const RunItem &post = collection->items.at(1);
    QCOMPARE(post.place, QStringLiteral("log.entries[2]"));
    QCOMPARE(post.request.method, QStringLiteral("POST"));
    QCOMPARE(post.request.body, QStringLiteral("{\"name\": \"a\"}"));
    QCOMPARE(collection->items.at(2).request.method, QStringLiteral("DELETE"));
    QCOMPARE(collection->items.at(2).place, QStringLiteral("log.entries[3]"));

    // The hop-by-hop header and the data: entry are named, with their places.
    QVERIFY2(collection->ignored.size() == 2, qPrintable(collection->ignored.join(QLatin1Char('\n'))));
    QVERIFY2(collection->ignored.at(0).startsWith(QLatin1String("log.entries[0]: "))
            && collection->ignored.at(0).contains(QLatin1String("Connection")),
        qPrintable(collection->ignored.at(0)));
    QVERIFY2(
        collection->ignored.at(1).startsWith(QLatin1String("log.entries[1]")), qPrintable(collection->ignored.at(1)));
}

QTEST_GUILESS_MAIN(TestRunCollectionReader)
#include "tst_runcollectionreader.moc"
