#include "core/runner/postmanrun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

namespace {

// A v2.1 collection: nested folders, scripts at three levels, auth at every
// level, every body kind, disabled headers and query parameters, path variables.
const QByteArray v21 = R"json({
  "info": {"_postman_id": "c-1", "name": "Shop",
           "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
  "variable": [{"key": "baseUrl", "value": "http://127.0.0.1:8080"},
               {"key": "off", "value": "x", "disabled": true},
               {"key": "n", "value": 3}],
  "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}", "type": "string"}]},
  "event": [{"listen": "prerequest", "script": {"type": "text/javascript", "exec": ["pm.variables.set('a', 1);"]}},
            {"listen": "test", "script": {"exec": "pm.test('c', function () {});"}}],
  "item": [
    {"name": "Health", "id": "r-0", "request": {"method": "get", "url": "{{baseUrl}}/health"}},
    {"name": "Orders", "id": "f-1",
     "auth": {"type": "basic", "basic": [{"key": "username", "value": "u"}, {"key": "password", "value": "{{pw}}"}]},
     "event": [{"listen": "prerequest", "script": {"exec": ["// the folder's"]}}],
     "item": [
       {"name": "Refunds", "_postman_id": "f-2", "item": [
         {"name": "Create refund", "id": "r-2",
          "event": [{"listen": "test", "script": {"exec": ["pm.test('created', function () {",
                                                             "  pm.response.to.have.status(201);", "});"]}}],
          "request": {"method": "POST",
            "url": {"raw": "{{baseUrl}}/orders/:orderId/refunds?x=1", "host": ["{{baseUrl}}"],
                    "path": ["orders", ":orderId", "refunds"],
                    "query": [{"key": "x", "value": "1"}, {"key": "debug", "value": "true", "disabled": true}],
                    "variable": [{"key": "orderId", "value": "{{orderId}}"}]},
            "header": [{"key": "X-Trace", "value": "{{trace}}"}, {"key": "X-Off", "value": "1", "disabled": true}],
            "body": {"mode": "raw", "raw": "{\"amount\": {{amount}}}", "options": {"raw": {"language": "json"}}}}},
         {"name": "No auth", "request": {"auth": {"type": "noauth"}, "method": "DELETE", "url": "{{baseUrl}}/x"}}
       ]},
       {"name": "Form", "request": {"method": "POST", "url": "{{baseUrl}}/form",
         "body": {"mode": "urlencoded", "urlencoded": [{"key": "name", "value": "a b&{{who}}!'()*~é"},
                                                       {"key": "off", "value": "1", "disabled": true}]}}},
       {"name": "Upload", "request": {"method": "POST", "url": "{{baseUrl}}/upload",
         "auth": {"type": "apikey", "apikey": [{"key": "key", "value": "X-Api-Key"},
                                               {"key": "value", "value": "{{apiKey}}"}, {"key": "in", "value": "header"}]},
         "body": {"mode": "formdata", "formdata": [{"key": "title", "value": "{{title}}", "type": "text"},
                                                   {"key": "avatar", "type": "file", "src": "/tmp/a.png"}]}}},
       {"name": "Query", "request": {"method": "POST", "url": "{{baseUrl}}/graphql",
         "auth": {"type": "oauth2", "oauth2": []},
         "body": {"mode": "graphql", "graphql": {"query": "query { user(id: \"{{id}}\") { name } }",
                                                 "variables": "{\"limit\": {{limit}}}"}}}}
     ]},
    {"name": "Text", "request": {"method": "PUT", "url": "http://example.test/t",
      "header": "X-One: 1\nX-Two: {{two}}", "body": {"mode": "raw", "raw": "hello"}}}
  ]
})json";

// A v2.0 collection: auth parameters as objects, scripts as strings, a URL
// without a scheme, the short form of a request.
const QByteArray v20 = R"json({
  "info": {"name": "Old", "schema": "https://schema.getpostman.com/json/collection/v2.0.0/collection.json"},
  "auth": {"type": "basic", "basic": {"username": "{{user}}", "password": "secret"}},
  "item": [
    {"name": "Keys", "auth": {"type": "apikey", "apikey": {"key": "api_key", "value": "{{key}}", "in": "query"}},
     "event": [{"listen": "prerequest", "script": {"exec": "console.log('folder');"}}],
     "item": [
       {"name": "Search", "id": "s-1",
        "event": [{"listen": "test", "script": {"exec": "pm.test('ok', function () {});"}},
                  {"listen": "test", "script": {"exec": ["pm.test('two', function () {});"]}},
                  {"listen": "test", "disabled": true, "script": {"exec": ["pm.test('off', function () {});"]}}],
        "request": {"method": "GET", "url": {"raw": "example.test/search?q={{q}}"}}},
       {"name": "Bearer", "request": {"method": "GET", "url": "https://example.test/b",
         "auth": {"type": "bearer", "bearer": {"token": "{{t}}"}}}}
     ]},
    {"name": "Short", "request": "https://example.test/short"}
  ]
})json";

QByteArray collectionWith(const QByteArray &items, const QByteArray &extra = {})
{
    return R"({"info": {"name": "t", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},)"
        + extra + "\"item\": " + items + "}";
}

QStringList headerLines(const RequestDraft &draft)
{
    QStringList lines;
    for (const DraftHeader &header : draft.headers)
        lines.append(header.name + QStringLiteral(": ") + header.value);
    return lines;
}

const RunCollection::Request *named(const QList<RunCollection::Request> &requests, const QString &name)
{
    for (const RunCollection::Request &request : requests) {
        if (request.item->name == name)
            return &request;
    }
    return nullptr;
}

RunAuth basic(const QString &username, const QString &password)
{
    RunAuth auth;
    auth.kind = RunAuth::Kind::Basic;
    auth.username = username;
    auth.password = password;
    return auth;
}

} // namespace

class TestPostmanRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void v21_keepsOrderFoldersNamesIdsAndVariables();
    void v21_scriptsAtThreeLevelsWithTheirPlaces();
    void v21_authInheritance_ownOverFolderOverCollection_noauthStops();
    void v21_requests_data();
    void v21_requests();
    void v21_ignoredNamesTheirPlaces();
    void v20_authObjectsScriptStringsAndShortForm();
    void withoutInfo_readAsNewmanDoes_nameAndSingleEvent();
    void malformed_data();
    void malformed();
    void readFile_namesTheFileAndThePlace();
    void readEnvironmentFile_enabledValuesOnly();
};

void TestPostmanRun::v21_keepsOrderFoldersNamesIdsAndVariables()
{
    const auto collection = PostmanRun::read(v21);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->format, RunCollection::Format::Postman);
    QCOMPARE(collection->dialect, ScriptDialect::Postman);
    QCOMPARE(collection->name, QStringLiteral("Shop"));
    QCOMPARE(collection->variables,
        (QList<QPair<QString, QString>>{{QStringLiteral("baseUrl"), QStringLiteral("http://127.0.0.1:8080")},
            {QStringLiteral("n"), QStringLiteral("3")}}));
    QCOMPARE(collection->items.size(), 3);
    const RunItem &orders = collection->items.at(1);
    QVERIFY(orders.isFolder());
    QCOMPARE(orders.id, QStringLiteral("f-1"));
    QCOMPARE(orders.place, QStringLiteral("item[1]"));
    QVERIFY(orders.items.at(0).isFolder());
    QCOMPARE(orders.items.at(0).id, QStringLiteral("f-2"));
    QCOMPARE(orders.items.at(0).items.at(0).place, QStringLiteral("item[1].item[0].item[0]"));

    QStringList paths;
    QStringList ids;
    for (const RunCollection::Request &request : collection->requests()) {
        paths.append(request.path);
        ids.append(request.item->id);
    }
    QCOMPARE(paths,
        (QStringList{QStringLiteral("Health"), QStringLiteral("Orders/Refunds/Create refund"),
            QStringLiteral("Orders/Refunds/No auth"), QStringLiteral("Orders/Form"), QStringLiteral("Orders/Upload"),
            QStringLiteral("Orders/Query"), QStringLiteral("Text")}));
    QCOMPARE(ids.value(0), QStringLiteral("r-0"));
    QCOMPARE(ids.value(1), QStringLiteral("r-2"));
    QCOMPARE(collection->requests({QStringLiteral("Refunds")}).size(), 2);
}

void TestPostmanRun::v21_scriptsAtThreeLevelsWithTheirPlaces()
{
    const auto collection = PostmanRun::read(v21);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->preRequest,
        (RunScript{QStringLiteral("pm.variables.set('a', 1);"), QStringLiteral("event[0]"), 0}));
    QCOMPARE(
        collection->test, (RunScript{QStringLiteral("pm.test('c', function () {});"), QStringLiteral("event[1]"), 0}));
    const RunItem &orders = collection->items.at(1);
    QCOMPARE(orders.preRequest, (RunScript{QStringLiteral("// the folder's"), QStringLiteral("item[1].event[0]"), 0}));
    QVERIFY(orders.test.isEmpty());
    const RunItem &create = orders.items.at(0).items.at(0);
    QCOMPARE(create.test.place, QStringLiteral("item[1].item[0].item[0].event[0]"));
    QCOMPARE(create.test.source,
        QStringLiteral("pm.test('created', function () {\n  pm.response.to.have.status(201);\n});"));
    QVERIFY(create.preRequest.isEmpty());
}

void TestPostmanRun::v21_authInheritance_ownOverFolderOverCollection_noauthStops()
{
    const auto collection = PostmanRun::read(v21);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    const auto requests = collection->requests();
    RunAuth bearer;
    bearer.kind = RunAuth::Kind::Bearer;
    bearer.token = QStringLiteral("{{token}}");
    RunAuth apiKey;
    apiKey.kind = RunAuth::Kind::ApiKey;
    apiKey.key = QStringLiteral("X-Api-Key");
    apiKey.value = QStringLiteral("{{apiKey}}");
    const RunAuth folderBasic = basic(QStringLiteral("u"), QStringLiteral("{{pw}}"));

    QCOMPARE(collection->auth, bearer);
    QCOMPARE(named(requests, QStringLiteral("Health"))->auth, bearer);
    QCOMPARE(named(requests, QStringLiteral("Create refund"))->auth, folderBasic);
    QCOMPARE(named(requests, QStringLiteral("Form"))->auth, folderBasic);
    QCOMPARE(named(requests, QStringLiteral("No auth"))->auth.kind, RunAuth::Kind::None);
    QCOMPARE(named(requests, QStringLiteral("Upload"))->auth, apiKey);
    // An auth this runner cannot send stops the search too: nothing is sent.
    QCOMPARE(named(requests, QStringLiteral("Query"))->auth.kind, RunAuth::Kind::None);
    QCOMPARE(named(requests, QStringLiteral("Text"))->auth, bearer);
}

void TestPostmanRun::v21_requests_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("headers");
    QTest::addColumn<QString>("body");

    QTest::addRow("lower-case method, URL string with a variable")
        << QStringLiteral("Health") << QStringLiteral("GET") << QStringLiteral("{{baseUrl}}/health") << QStringList{}
        << QString();
    QTest::addRow("URL object: path variable, disabled query and header left out, raw JSON")
        << QStringLiteral("Create refund") << QStringLiteral("POST")
        << QStringLiteral("{{baseUrl}}/orders/{{orderId}}/refunds?x=1")
        << QStringList{QStringLiteral("X-Trace: {{trace}}"), QStringLiteral("Content-Type: application/json")}
        << QStringLiteral("{\"amount\": {{amount}}}");
    // Encoded as newman encodes it (qs, RFC 3986): every byte but A-Z a-z 0-9 - . _ ~ as %XX, a space too.
    QTest::addRow("urlencoded as newman, variables kept, disabled field left out")
        << QStringLiteral("Form") << QStringLiteral("POST") << QStringLiteral("{{baseUrl}}/form")
        << QStringList{QStringLiteral("Content-Type: application/x-www-form-urlencoded")}
        << QStringLiteral("name=a%20b%26{{who}}%21%27%28%29%2A~%C3%A9");
    QTest::addRow("GraphQL as JSON, variables JSON once filled in")
        << QStringLiteral("Query") << QStringLiteral("POST") << QStringLiteral("{{baseUrl}}/graphql")
        << QStringList{QStringLiteral("Content-Type: application/json")}
        << QStringLiteral(R"({"query":"query { user(id: \"{{id}}\") { name } }","variables":{"limit": {{limit}}}})");
    QTest::addRow("headers as lines, raw without a language is text")
        << QStringLiteral("Text") << QStringLiteral("PUT") << QStringLiteral("http://example.test/t")
        << QStringList{QStringLiteral("X-One: 1"), QStringLiteral("X-Two: {{two}}"),
               QStringLiteral("Content-Type: text/plain")}
        << QStringLiteral("hello");
}

void TestPostmanRun::v21_requests()
{
    QFETCH(QString, name);
    QFETCH(QString, method);
    QFETCH(QString, url);
    QFETCH(QStringList, headers);
    QFETCH(QString, body);

    const auto collection = PostmanRun::read(v21);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    const auto requests = collection->requests();
    const RunCollection::Request *request = named(requests, name);
    QVERIFY(request);
    const RequestDraft &draft = request->item->request;
    QCOMPARE(draft.method, method);
    QCOMPARE(draft.urlTemplate, url);
    QCOMPARE(headerLines(draft), headers);
    QCOMPARE(draft.body, body);
}

void TestPostmanRun::v21_ignoredNamesTheirPlaces()
{
    const auto collection = PostmanRun::read(v21);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->ignored,
        (QStringList{QStringLiteral(
            "item[1].item[3].request.auth: oauth2 authorization: oauth2 with the authorization code grant needs a "
            "person at a browser, and no token or refresh token was kept; sent without authorization")}));

    // With a file, the form is sent streamed as newman sends it: the text field
    // a part with its variable kept, the file read from its path when sent.
    const RequestDraft &upload = collection->items.at(1).items.at(2).request;
    QVERIFY(headerLines(upload).isEmpty()); // the boundary's Content-Type comes with the form
    QVERIFY(upload.body.isEmpty());
    QCOMPARE(upload.bodyFrom.mode, DraftBody::Mode::Multipart);
    QCOMPARE(upload.bodyFrom.fields,
        (QList<DraftFormField>{{QStringLiteral("title"), QStringLiteral("{{title}}"), {}, {}, {}, true},
            {QStringLiteral("avatar"), {}, QStringLiteral("/tmp/a.png"), {}, {}, true}}));
}

void TestPostmanRun::v20_authObjectsScriptStringsAndShortForm()
{
    const auto collection = PostmanRun::read(v20);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->auth, basic(QStringLiteral("{{user}}"), QStringLiteral("secret")));
    const RunItem &keys = collection->items.at(0);
    RunAuth query;
    query.kind = RunAuth::Kind::ApiKey;
    query.key = QStringLiteral("api_key");
    query.value = QStringLiteral("{{key}}");
    query.inQuery = true;
    QCOMPARE(keys.auth, query);
    QCOMPARE(
        keys.preRequest, (RunScript{QStringLiteral("console.log('folder');"), QStringLiteral("item[0].event[0]"), 0}));

    const auto requests = collection->requests();
    QCOMPARE(requests.size(), 3);
    const RunItem &search = *requests.at(0).item;
    QCOMPARE(search.id, QStringLiteral("s-1"));
    QCOMPARE(search.request.urlTemplate, QStringLiteral("http://example.test/search?q={{q}}"));
    // Two test scripts run one after the other; the disabled one not at all.
    QCOMPARE(search.test.source, QStringLiteral("pm.test('ok', function () {});\npm.test('two', function () {});"));
    QCOMPARE(search.test.place, QStringLiteral("item[0].item[0].event[0]"));
    QCOMPARE(requests.at(0).auth, query);
    RunAuth bearer;
    bearer.kind = RunAuth::Kind::Bearer;
    bearer.token = QStringLiteral("{{t}}");
    QCOMPARE(requests.at(1).auth, bearer);
    QCOMPARE(requests.at(2).path, QStringLiteral("Short"));
    QCOMPARE(requests.at(2).item->request.method, QStringLiteral("GET"));
    QCOMPARE(requests.at(2).item->request.urlTemplate, QStringLiteral("https://example.test/short"));
    QCOMPARE(requests.at(2).auth, basic(QStringLiteral("{{user}}"), QStringLiteral("secret")));
}

void TestPostmanRun::withoutInfo_readAsNewmanDoes_nameAndSingleEvent()
{
    // As newman's test/integration/inherited-entities: no "info", and an
    // event that is an object rather than a list of one.
    const QByteArray json = R"json({
      "name": "Inherited",
      "item": [{"name": "f", "item": [
        {"name": "a", "request": "http://x/a",
         "event": {"listen": "test", "script": {"exec": ["pm.test('t', function () {});"]}}}]}]
    })json";
    const auto collection = PostmanRun::read(json);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->name, QStringLiteral("Inherited"));
    QCOMPARE(collection->format, RunCollection::Format::Postman);
    const auto requests = collection->requests();
    QCOMPARE(requests.size(), 1);
    QCOMPARE(requests.at(0).item->test,
        (RunScript{QStringLiteral("pm.test('t', function () {});"), QStringLiteral("item[0].item[0].event[0]"), 0}));

    // A broken single event is named where it is.
    const auto broken = PostmanRun::read(R"({"item": [{"name": "a", "request": "http://x/a",
        "event": {"listen": "test", "script": {"exec": [1]}}}]})");
    QVERIFY(!broken.ok());
    QCOMPARE(broken.errorDetail().path, QStringLiteral("item[0].event[0].script.exec[0]"));
}

void TestPostmanRun::malformed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    QTest::addRow("not JSON") << QByteArray("{\"info\": {\n  \"name\": }") << QString()
                              << QStringLiteral("line 2, column 12: not valid JSON");
    QTest::addRow("v1 schema") << QByteArray(
        R"({"info": {"name": "t", "schema": "https://schema.getpostman.com/json/collection/v1.0.0/collection.json"}, "item": []})")
                               << QStringLiteral("info.schema")
                               << QStringLiteral("Postman collection v1 is not supported");
    QTest::addRow("v1 file") << QByteArray(R"({"id": "x", "name": "t", "order": [], "requests": []})") << QString()
                             << QStringLiteral("Postman collection v1 is not supported");
    QTest::addRow("unknown schema") << QByteArray(
        R"({"info": {"name": "t", "schema": "https://example.com/x.json"}, "item": []})")
                                    << QStringLiteral("info.schema")
                                    << QStringLiteral("\"https://example.com/x.json\" is not the schema");
    QTest::addRow("item not a list") << collectionWith("{}") << QStringLiteral("item")
                                     << QStringLiteral("expected an array, got an object");
    QTest::addRow("nested request without url")
        << collectionWith(R"([{"name": "a", "request": "http://x/a"},
                              {"name": "f", "item": [{"name": "b", "request": {"method": "GET"}}]}])")
        << QStringLiteral("item[1].item[0].request.url") << QStringLiteral("missing");
    QTest::addRow("headers of the wrong type")
        << collectionWith(R"([{"name": "a", "request": {"url": "http://x/a", "header": 5}}])")
        << QStringLiteral("item[0].request.header") << QStringLiteral("expected an array, got a number");
    QTest::addRow("script line not a string")
        << collectionWith(R"([{"name": "a", "event": [{"listen": "test", "script": {"exec": [1]}}],
                               "request": "http://x/a"}])")
        << QStringLiteral("item[0].event[0].script.exec[0]") << QStringLiteral("expected a string, got a number");
    QTest::addRow("unknown body mode") << collectionWith(
        R"([{"name": "a", "request": {"url": "http://x/a", "body": {"mode": "smoke"}}}])")
                                       << QStringLiteral("item[0].request.body.mode")
                                       << QStringLiteral("unknown body mode \"smoke\"");
    QTest::addRow("neither request nor folder")
        << collectionWith(R"([{"name": "a"}])") << QStringLiteral("item[0]") << QStringLiteral("neither a request");
    QTest::addRow("auth without type") << collectionWith("[]", R"("auth": {"basic": []},)")
                                       << QStringLiteral("auth.type") << QStringLiteral("missing");
    QTest::addRow("variable without key") << collectionWith("[]", R"("variable": [{"value": 1}],)")
                                          << QStringLiteral("variable[0].key") << QStringLiteral("missing");
}

void TestPostmanRun::malformed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);

    const auto collection = PostmanRun::read(json);
    QVERIFY(!collection.ok());
    QCOMPARE(collection.errorDetail().path, path);
    QVERIFY2(collection.errorDetail().message.startsWith(message), qPrintable(collection.error()));
}

void TestPostmanRun::readFile_namesTheFileAndThePlace()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString good = dir.filePath(QStringLiteral("shop.postman_collection.json"));
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    for (const auto &[path, bytes] :
        {std::pair{good, v21}, std::pair{bad, collectionWith(R"([{"name": "a", "request": {"method": "GET"}}])")}}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
    }
    const auto collection = PostmanRun::readFile(good);
    QVERIFY2(collection.ok(), qPrintable(collection.error()));
    QCOMPARE(collection->source, good);
    QCOMPARE(collection->requestCount(), 7);

    const auto refused = PostmanRun::readFile(bad);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.errorDetail().path, bad);
    QVERIFY2(refused.errorDetail().message.startsWith(QStringLiteral("item[0].request.url: missing")),
        qPrintable(refused.error()));

    const QString missing = dir.filePath(QStringLiteral("none.json"));
    QCOMPARE(PostmanRun::readFile(missing).errorDetail().path, missing);
}

void TestPostmanRun::readEnvironmentFile_enabledValuesOnly()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("staging.postman_environment.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"name": "Staging", "values": [{"key": "baseUrl", "value": "http://127.0.0.1:1", "enabled": true},
        {"key": "off", "value": "x", "enabled": false}, {"key": "token", "value": "t"}],
        "_postman_variable_scope": "environment"})");
    file.close();
    const auto environment = PostmanRun::readEnvironmentFile(path);
    QVERIFY2(environment.ok(), qPrintable(environment.error()));
    QCOMPARE(environment->name, QStringLiteral("Staging"));
    QCOMPARE(environment->values,
        (QList<QPair<QString, QString>>{{QStringLiteral("baseUrl"), QStringLiteral("http://127.0.0.1:1")},
            {QStringLiteral("token"), QStringLiteral("t")}}));

    const QString collection = dir.filePath(QStringLiteral("c.json"));
    QFile other(collection);
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write(v21);
    other.close();
    const auto refused = PostmanRun::readEnvironmentFile(collection);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.errorDetail().path, collection);
}

QTEST_GUILESS_MAIN(TestPostmanRun)
#include "tst_postmanrun.moc"
