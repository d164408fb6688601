#include "core/import/postmanimport.h"

#include "tests/core/import/postmanfixtures.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <utility>

using namespace RetryLab::Core;

namespace {

QStringList headerLines(const HeaderList &headers)
{
    QStringList lines;
    for (const auto &[name, value] : headers)
        lines.append(QString::fromUtf8(name + ": " + value));
    return lines;
}

PostmanImport::Environment staging()
{
    const auto environment = PostmanImport::readEnvironment(PostmanFixtures::environment());
    return environment.ok() ? environment.value() : PostmanImport::Environment{};
}

QByteArray basic(const QByteArray &credentials)
{
    return "Authorization: Basic " + credentials.toBase64();
}

// A collection of the given items around the version check.
QByteArray collectionWith(const QByteArray &items, const QByteArray &extra = {})
{
    return R"({"info": {"name": "t", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},)"
        + extra + "\"item\": " + items + "}";
}

const QString folderScript = QStringLiteral("pre-request script of folder \"Orders\" (not run)");

} // namespace

class TestPostmanImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void environment_enabledValuesOnly();
    void requests_data();
    void requests();
    void collection_orderFoldersAndUnresolved();
    void withoutEnvironment_variablesStayAsWrittenAndListed();
    void variables_environmentWinsAndNestingStopsAfterOneLevel();
    void urlObject_rawOnly_andHeaderString();
    void version_data();
    void version();
    void malformed_data();
    void malformed();
    void environmentMalformed_data();
    void environmentMalformed();
    void readFile_tooLargeAndMissing();
};

void TestPostmanImport::environment_enabledValuesOnly()
{
    const auto environment = PostmanImport::readEnvironment(PostmanFixtures::environment());
    QVERIFY2(environment.ok(), qPrintable(environment.error()));
    QCOMPARE(environment->name, QStringLiteral("Staging"));
    QStringList names;
    for (const auto &[name, value] : environment->values)
        names.append(name);
    QCOMPARE(names,
        (QStringList{QStringLiteral("host"), QStringLiteral("apiKey"), QStringLiteral("productId"),
            QStringLiteral("orderId"), QStringLiteral("password")}));
}

void TestPostmanImport::requests_data()
{
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("folders");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("headers");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QStringList>("ignored");
    QTest::addColumn<QStringList>("unknown");

    const QString base = QStringLiteral("https://staging.shop.example.com/v2");
    const QString fromCollection = QStringLiteral("Authorization: Bearer collection-token");
    const QString orders = QString::fromUtf8(basic("ana:s3cret"));
    QTest::addRow("request as a URL string, collection bearer")
        << 0 << QStringLiteral("Health") << QStringList{} << QByteArray("GET")
        << QStringLiteral("https://status.example.com/health") << QStringList{fromCollection} << QByteArray()
        << QStringList{} << QStringList{};
    QTest::addRow("url object, nested variable, disabled header and query, folder API key header")
        << 1 << QStringLiteral("List products") << QStringList{QStringLiteral("Products")} << QByteArray("GET")
        << base + QStringLiteral("/products?page=2&sort=price&limit")
        << QStringList{QStringLiteral("Accept: application/json"), QStringLiteral("X-API-Key: env-api-key")}
        << QByteArray() << QStringList{} << QStringList{};
    QTest::addRow("path variable, noauth on the item")
        << 2 << QStringLiteral("Get product") << QStringList{QStringLiteral("Products")} << QByteArray("GET")
        << base + QStringLiteral("/products/42") << QStringList{} << QByteArray() << QStringList{} << QStringList{};
    QTest::addRow("inner folder's API key in the query, hash kept")
        << 3 << QStringLiteral("Search products") << QStringList{QStringLiteral("Products"), QStringLiteral("Search")}
        << QByteArray("GET") << base + QStringLiteral("/search?q=red shoes&api_key=env-api-key#top") << QStringList{}
        << QByteArray() << QStringList{} << QStringList{};
    QTest::addRow("raw JSON body, folder basic auth, dynamic and disabled variables unresolved")
        << 4 << QStringLiteral("Create order") << QStringList{QStringLiteral("Orders")} << QByteArray("POST")
        << base + QStringLiteral("/orders")
        << QStringList{QStringLiteral("Content-Type: application/json"), QStringLiteral("Idempotency-Key: {{$guid}}"),
               orders}
        << QByteArray(R"({"sku": "{{sku}}", "qty": 2})") << QStringList{folderScript}
        << QStringList{QStringLiteral("{{$guid}}"), QStringLiteral("{{sku}}")};
    QTest::addRow("urlencoded body, item bearer over folder basic, url from parts")
        << 5 << QStringLiteral("Pay") << QStringList{QStringLiteral("Orders")} << QByteArray("POST")
        << QStringLiteral("https://pay.example.com/charge")
        << QStringList{QStringLiteral("Content-Type: application/x-www-form-urlencoded"),
               QStringLiteral("Authorization: Bearer item-token")}
        << QByteArray("amount=12.50&note=f%C3%BCr+K%C3%B6ln+%26+co") << QStringList{folderScript} << QStringList{};
    // "streamed": the form goes as its parts, the file read from its path when sent.
    QTest::addRow("form-data with a file: streamed parts, test script listed")
        << 6 << QStringLiteral("Upload receipt") << QStringList{QStringLiteral("Orders")} << QByteArray("POST")
        << base + QStringLiteral("/receipts") << QStringList{QStringLiteral("streamed"), orders}
        << QByteArray("orderId=o-7")
        << QStringList{folderScript, QStringLiteral("test script of the request (not run)")} << QStringList{};
    // The oauth2 auth becomes the request's own (client credentials), and stops the folder's basic.
    QTest::addRow("GraphQL as JSON, oauth2 kept and stops the folder's basic")
        << 7 << QStringLiteral("Order total (GraphQL)") << QStringList{QStringLiteral("Orders")} << QByteArray("POST")
        << base + QStringLiteral("/graphql") << QStringList{QStringLiteral("Content-Type: application/json")}
        << QByteArray(R"({"query":"query($id: ID!) { order(id: $id) { total } }","variables":{"id":"o-7"}})")
        << QStringList{folderScript} << QStringList{};
    QTest::addRow("a variable two levels deep stays as written")
        << 8 << QStringLiteral("Deep variable") << QStringList{} << QByteArray("GET")
        << QStringLiteral("https://{{host}}/v2/deep") << QStringList{fromCollection} << QByteArray() << QStringList{}
        << QStringList{QStringLiteral("{{host}}")};
}

void TestPostmanImport::requests()
{
    QFETCH(int, index);
    QFETCH(QString, name);
    QFETCH(QStringList, folders);
    QFETCH(QByteArray, method);
    QFETCH(QString, url);
    QFETCH(QStringList, headers);
    QFETCH(QByteArray, body);
    QFETCH(QStringList, ignored);
    QFETCH(QStringList, unknown);

    const auto collection = PostmanImport::read(PostmanFixtures::collection(), staging());
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QVERIFY(index < collection->requests.size());
    const ImportedRequest &request = collection->requests.at(index);
    QCOMPARE(request.name, name);
    QCOMPARE(request.folders, folders);
    QCOMPARE(request.spec.method, method);
    QCOMPARE(request.urlText, url);
    if (!url.contains(QLatin1String("{{")))
        QCOMPARE(request.spec.url, QUrl(url));
    QCOMPARE(request.ignored, ignored);
    QCOMPARE(request.unknown, unknown);
    if (index == 7) {
        QCOMPARE(request.spec.auth.kind, AuthSpec::Kind::OAuth2ClientCredentials);
        QVERIFY(!headerValue(request.spec.headers, "Authorization"));
    }

    QStringList actual = headerLines(request.spec.headers);
    if (headers.value(0) == QLatin1String("multipart")) {
        // The body's boundary is the one its Content-Type names.
        const QString type = actual.value(0);
        const QString prefix = QStringLiteral("Content-Type: multipart/form-data; boundary=");
        QVERIFY2(type.startsWith(prefix), qPrintable(type));
        const QByteArray boundary = type.mid(prefix.size()).toUtf8();
        QVERIFY(!boundary.isEmpty());
        const qsizetype eq = body.indexOf('=');
        const QByteArray expected = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + body.left(eq)
            + "\"\r\n\r\n" + body.mid(eq + 1) + "\r\n--" + boundary + "--\r\n";
        QCOMPARE(request.spec.body, expected);
        actual.removeFirst();
        headers.removeFirst();
    } else if (headers.value(0) == QLatin1String("streamed")) {
        QVERIFY(request.spec.body.isEmpty());
        QCOMPARE(request.spec.bodySource.kind, BodySource::Kind::Multipart);
        const qsizetype eq = body.indexOf('=');
        QCOMPARE(request.spec.bodySource.parts.size(), 2);
        QCOMPARE(request.spec.bodySource.parts.at(0).name, body.left(eq));
        QCOMPARE(request.spec.bodySource.parts.at(0).value, body.mid(eq + 1));
        QCOMPARE(request.spec.bodySource.parts.at(1).name, QByteArray("receipt"));
        QCOMPARE(request.spec.bodySource.parts.at(1).filePath, QStringLiteral("/home/ana/receipt.pdf"));
        headers.removeFirst();
    } else {
        QCOMPARE(request.spec.body, body);
    }
    QCOMPARE(actual, headers);
    QCOMPARE(request.followRedirects, index != 0);
}

void TestPostmanImport::collection_orderFoldersAndUnresolved()
{
    const auto collection = PostmanImport::read(PostmanFixtures::collection(), staging());
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->name, QStringLiteral("Shop API"));
    QCOMPARE(collection->requests.size(), 9);
    QCOMPARE(collection->unresolvedVariables,
        (QStringList{QStringLiteral("$guid"), QStringLiteral("sku"), QStringLiteral("host")}));
}

void TestPostmanImport::withoutEnvironment_variablesStayAsWrittenAndListed()
{
    const auto collection = PostmanImport::read(PostmanFixtures::collection());
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->unresolvedVariables,
        (QStringList{QStringLiteral("apiKey"), QStringLiteral("productId"), QStringLiteral("$guid"),
            QStringLiteral("sku"), QStringLiteral("password"), QStringLiteral("orderId"), QStringLiteral("host")}));
    const ImportedRequest &list = collection->requests.at(1);
    QCOMPARE(list.urlText, QStringLiteral("https://api.shop.example.com/v2/products?page=2&sort=price&limit"));
    QCOMPARE(headerLines(list.spec.headers),
        (QStringList{QStringLiteral("Accept: application/json"), QStringLiteral("X-API-Key: {{apiKey}}")}));
    QCOMPARE(list.unknown, QStringList{QStringLiteral("{{apiKey}}")});
    const ImportedRequest &product = collection->requests.at(2);
    QCOMPARE(product.urlText, QStringLiteral("https://api.shop.example.com/v2/products/{{productId}}"));
    const ImportedRequest &create = collection->requests.at(4);
    QCOMPARE(headerLines(create.spec.headers).constLast(), QString::fromUtf8(basic("ana:{{password}}")));
    QCOMPARE(create.unknown,
        (QStringList{QStringLiteral("{{$guid}}"), QStringLiteral("{{sku}}"), QStringLiteral("{{password}}")}));
}

void TestPostmanImport::variables_environmentWinsAndNestingStopsAfterOneLevel()
{
    const QByteArray json = collectionWith(R"([{"name": "r", "request": {"method": "GET",
        "header": [{"key": "X-A", "value": "{{a}}"}, {"key": "{{headerName}}", "value": "{{b}} and {{ c }}"}],
        "url": "{{scheme}}://example.com/{{a}}"}}])",
        R"("variable": [{"key": "a", "value": "from-collection"}, {"key": "b", "value": "{{a}}+{{c2}}"},
            {"key": "c2", "value": "{{a}}"}, {"key": "headerName", "value": "X-B"}, {"key": "scheme", "value": "https"}],)");
    PostmanImport::Environment environment;
    environment.values = {{QStringLiteral("a"), QStringLiteral("from-environment")}};
    const auto collection = PostmanImport::read(json, environment);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    const ImportedRequest &request = collection->requests.at(0);
    QCOMPARE(request.urlText, QStringLiteral("https://example.com/from-environment"));
    // b is one level deep: its {{a}} and {{c2}} resolve, c2's own {{a}} would be a second level.
    QCOMPARE(headerLines(request.spec.headers),
        (QStringList{
            QStringLiteral("X-A: from-environment"), QStringLiteral("X-B: from-environment+{{a}} and {{ c }}")}));
    QCOMPARE(request.unknown, (QStringList{QStringLiteral("{{a}}"), QStringLiteral("{{ c }}")}));
}

void TestPostmanImport::urlObject_rawOnly_andHeaderString()
{
    const QByteArray json = collectionWith(R"([
        {"name": "raw only", "request": {"method": "delete", "header": "X-One: 1\nX-Two:  two ",
         "url": {"raw": "api.example.com/items/:id?force=true", "variable": [{"key": "id", "value": "9"}]}}},
        {"name": "host as a string, path as a string, port", "request": {"url": {"protocol": "http", "host": "localhost",
         "port": "8080", "path": "v1/ping"}, "body": {"mode": "raw", "raw": "<ping/>", "options": {"raw": {"language": "xml"}}}}},
        {"name": "disabled body", "request": {"method": "POST", "url": "https://example.com/",
         "body": {"mode": "raw", "raw": "x", "disabled": true}}},
        {"name": "file body", "request": {"method": "PUT", "url": "https://example.com/f",
         "body": {"mode": "file", "file": {"src": "/tmp/a.bin"}}}}
    ])");
    const auto collection = PostmanImport::read(json);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->requests.size(), 4);
    const ImportedRequest &raw = collection->requests.at(0);
    QCOMPARE(raw.spec.method, QByteArray("DELETE"));
    QCOMPARE(raw.urlText, QStringLiteral("http://api.example.com/items/9?force=true"));
    QCOMPARE(headerLines(raw.spec.headers), (QStringList{QStringLiteral("X-One: 1"), QStringLiteral("X-Two: two")}));
    const ImportedRequest &parts = collection->requests.at(1);
    QCOMPARE(parts.spec.method, QByteArray("GET"));
    QCOMPARE(parts.spec.url, QUrl(QStringLiteral("http://localhost:8080/v1/ping")));
    QCOMPARE(headerLines(parts.spec.headers), QStringList{QStringLiteral("Content-Type: application/xml")});
    QCOMPARE(parts.spec.body, QByteArray("<ping/>"));
    QVERIFY(collection->requests.at(2).spec.body.isEmpty());
    QVERIFY(collection->requests.at(2).spec.headers.isEmpty());
    QVERIFY(collection->requests.at(3).ignored.isEmpty());
    QCOMPARE(collection->requests.at(3).spec.bodySource.kind, BodySource::Kind::File);
    QCOMPARE(collection->requests.at(3).spec.bodySource.filePath, QStringLiteral("/tmp/a.bin"));
}

void TestPostmanImport::version_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    QTest::addRow("v1") << QByteArray(R"({"id": "c1", "name": "Old", "order": ["r1"], "folders": [],
        "requests": [{"id": "r1", "url": "https://example.com", "method": "GET"}]})")
                        << QString() << QStringLiteral("Postman collection v1");
    QTest::addRow("v1 schema") << QByteArray(R"({"info": {"name": "x",
        "schema": "https://schema.getpostman.com/json/collection/v1.0.0/collection.json"}, "item": []})")
                               << QStringLiteral("info.schema") << QStringLiteral("Postman collection v1");
    QTest::addRow("v2.0") << QByteArray(R"({"info": {"name": "x",
        "schema": "https://schema.getpostman.com/json/collection/v2.0.0/collection.json"}, "item": []})")
                          << QStringLiteral("info.schema")
                          << QStringLiteral("this is a Postman collection v2.0: export it again from Postman as "
                                            "Collection v2.1");
    QTest::addRow("another schema") << QByteArray(R"({"info": {"name": "x", "schema": "https://json-schema.org/x"},
        "item": []})") << QStringLiteral("info.schema")
                                    << QStringLiteral("\"https://json-schema.org/x\" is not the schema of a Postman "
                                                      "collection v2.1");
    QTest::addRow("no schema") << QByteArray(R"({"info": {"name": "x"}, "item": []})") << QStringLiteral("info.schema")
                               << QStringLiteral("missing; a Postman collection v2.1 names its schema");
    QTest::addRow("no info") << QByteArray(R"({"item": []})") << QStringLiteral("info")
                             << QStringLiteral("missing: a Postman collection v2.1 starts with \"info\"");
    QTest::addRow("an environment") << PostmanFixtures::environment() << QString()
                                    << QStringLiteral("this is a Postman environment, not a collection");
    QTest::addRow("a HAR file") << QByteArray(R"({"log": {"version": "1.2", "entries": []}})") << QString()
                                << QStringLiteral("this is a HAR file, not a Postman collection");
    QTest::addRow("not JSON") << QByteArray("{\"info\": {\n\"name\": \"x\",,}}") << QString()
                              << QStringLiteral("line 2, column ");
    QTest::addRow("an array") << QByteArray("[{}]") << QString()
                              << QStringLiteral("a Postman collection holds one JSON object, not an array");
}

void TestPostmanImport::version()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto collection = PostmanImport::read(json);
    QVERIFY(!collection.ok());
    QVERIFY2(collection.errorDetail().path == path, qPrintable(collection.error()));
    QVERIFY2(collection.errorDetail().message.contains(message), qPrintable(collection.error()));
}

void TestPostmanImport::malformed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    const QByteArray ok = R"({"name": "ok", "request": {"method": "GET", "url": "https://example.com/"}})";
    QTest::addRow("no item list") << collectionWith("{}") << QStringLiteral("item")
                                  << QStringLiteral("expected an array, got an object");
    QTest::addRow("item not an object") << collectionWith("[" + ok + ", 42]") << QStringLiteral("item[1]")
                                        << QStringLiteral("expected an object, got a number");
    QTest::addRow("neither request nor folder") << collectionWith("[" + ok + ", " + ok + R"(, {"name": "x"}])")
                                                << QStringLiteral("item[2]") << QStringLiteral("neither a request");
    QTest::addRow("missing url in a folder")
        << collectionWith(R"([)" + ok + R"(, {"name": "f", "item": [{"name": "r", "request": {"method": "GET"}}]}])")
        << QStringLiteral("item[1].item[0].request.url") << QStringLiteral("missing; a request needs a URL");
    QTest::addRow("url object without raw or host")
        << collectionWith(R"([{"name": "r", "request": {"url": {"query": []}}}])")
        << QStringLiteral("item[0].request.url") << QStringLiteral("neither \"raw\" nor \"host\"");
    QTest::addRow("empty url") << collectionWith(R"([{"name": "r", "request": {"url": "  "}}])")
                               << QStringLiteral("item[0].request.url") << QStringLiteral("empty");
    QTest::addRow("folder items not a list") << collectionWith(R"([{"name": "f", "item": {}}])")
                                             << QStringLiteral("item[0].item") << QStringLiteral("expected an array");
    QTest::addRow("header without key") << collectionWith(
        R"([{"name": "r", "request": {"url": "https://e.com", "header": [{"value": "v"}]}}])")
                                        << QStringLiteral("item[0].request.header[0].key") << QStringLiteral("missing");
    QTest::addRow("unknown body mode") << collectionWith(
        R"([{"name": "r", "request": {"url": "https://e.com", "body": {"mode": "soap"}}}])")
                                       << QStringLiteral("item[0].request.body.mode")
                                       << QStringLiteral("unknown body mode \"soap\"");
    QTest::addRow("folder auth without type")
        << collectionWith(R"([{"name": "f", "auth": {"basic": []}, "item": [)" + ok + "]}]")
        << QStringLiteral("item[0].auth.type") << QStringLiteral("missing");
    QTest::addRow("auth parameter without key")
        << collectionWith(R"([{"name": "r", "request": {"url": "https://e.com",
               "auth": {"type": "bearer", "bearer": [{"value": "t"}]}}}])")
        << QStringLiteral("item[0].request.auth.bearer[0].key") << QStringLiteral("missing");
    QTest::addRow("collection variable without key")
        << collectionWith("[" + ok + "]", R"("variable": [{"value": "x"}],)") << QStringLiteral("variable[0].key")
        << QStringLiteral("missing");
    QTest::addRow("header value an object")
        << collectionWith(
               R"([{"name": "r", "request": {"url": "https://e.com", "header": [{"key": "A", "value": {}}]}}])")
        << QStringLiteral("item[0].request.header[0].value") << QStringLiteral("expected a string, got an object");
}

void TestPostmanImport::malformed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto collection = PostmanImport::read(json);
    QVERIFY(!collection.ok());
    QVERIFY2(collection.errorDetail().path == path, qPrintable(collection.error()));
    QVERIFY2(collection.errorDetail().message.contains(message), qPrintable(collection.error()));
}

void TestPostmanImport::environmentMalformed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::addRow("no values") << QByteArray(R"({"name": "e"})") << QStringLiteral("values")
                               << QStringLiteral("missing");
    QTest::addRow("value without key") << QByteArray(R"({"values": [{"key": "a", "value": "1"}, {"value": "2"}]})")
                                       << QStringLiteral("values[1].key") << QStringLiteral("missing");
    QTest::addRow("enabled not a boolean")
        << QByteArray(R"({"values": [{"key": "a", "value": "1", "enabled": 1}]})")
        << QStringLiteral("values[0].enabled") << QStringLiteral("expected true or false");
    QTest::addRow("a collection") << PostmanFixtures::collection() << QString()
                                  << QStringLiteral("this is a Postman collection, not an environment");
    QTest::addRow("not JSON") << QByteArray("{values: []}") << QString() << QStringLiteral("not valid JSON");
}

void TestPostmanImport::environmentMalformed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto environment = PostmanImport::readEnvironment(json);
    QVERIFY(!environment.ok());
    QCOMPARE(environment.errorDetail().path, path);
    QVERIFY2(environment.errorDetail().message.contains(message), qPrintable(environment.error()));
}

void TestPostmanImport::readFile_tooLargeAndMissing()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("huge.postman_collection.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QVERIFY(file.resize(PostmanImport::maxFileBytes + 1));
    file.close();
    const auto huge = PostmanImport::readFile(path);
    QVERIFY(!huge.ok());
    QCOMPARE(huge.error(), QStringLiteral("the file is 67108865 bytes; Postman collections over 64 MiB are refused"));

    const auto missing = PostmanImport::readEnvironmentFile(dir.filePath(QStringLiteral("none.json")));
    QVERIFY(!missing.ok());
    QCOMPARE(
        missing.error(), QStringLiteral("cannot read %1: no such file").arg(dir.filePath(QStringLiteral("none.json"))));

    const QString collectionPath = dir.filePath(QStringLiteral("shop.postman_collection.json"));
    const QString environmentPath = dir.filePath(QStringLiteral("staging.postman_environment.json"));
    for (const auto &[target, bytes] : {std::pair{collectionPath, PostmanFixtures::collection()},
             std::pair{environmentPath, PostmanFixtures::environment()}}) {
        QFile out(target);
        QVERIFY(out.open(QIODevice::WriteOnly));
        QCOMPARE(out.write(bytes), bytes.size());
    }
    const auto environment = PostmanImport::readEnvironmentFile(environmentPath);
    QVERIFY2(environment.ok(), qPrintable(environment.error()));
    const auto collection = PostmanImport::readFile(collectionPath, *environment);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->requests.at(2).urlText, QStringLiteral("https://staging.shop.example.com/v2/products/42"));
}

QTEST_GUILESS_MAIN(TestPostmanImport)
#include "tst_postmanimport.moc"
