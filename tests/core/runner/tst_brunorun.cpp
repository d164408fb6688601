#include "core/runner/brunoassert.h"
#include "core/runner/brunorun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJSEngine>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

class TestBrunoRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void readFolder_collection_readsFoldersInSeqOrder();
    void readFolder_collection_mapsRequests();
    void readFolder_authInheritance_throughRequests();
    void readFolder_scripts_keepTheirFileLines();
    void readFolder_bodies_eachMode();
    void readFolder_environments_andIgnored();
    void testScript_eachOperator_data();
    void testScript_eachOperator();
    void testScript_generated_isValidJavaScript();
    void helperScript_typesValuesAsBruno();
    void statusAssertion_onlyForAnEqualCode();
    void readFolder_refused_namesFileAndLine_data();
    void readFolder_refused_namesFileAndLine();
    void readFolder_withoutBrunoJson_isRefused();
    void readFolder_badBrunoJson_isRefused();

private:
    QTemporaryDir m_dir;
    RunCollection m_shop;
};

namespace {

QString s(const char *text)
{
    return QString::fromUtf8(text);
}

void writeFile(const QString &root, const QString &relative, const QByteArray &text)
{
    const QString path = QDir(root).filePath(relative);
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
}

const RunItem *child(const RunItem &folder, const QString &name)
{
    for (const RunItem &item : folder.items) {
        if (item.name == name)
            return &item;
    }
    return nullptr;
}

QStringList names(const QList<RunItem> &items)
{
    QStringList out;
    for (const RunItem &item : items)
        out.append(item.name);
    return out;
}

// A shop API collection as Bruno writes it.
void writeShop(const QString &root)
{
    writeFile(root, s("bruno.json"),
        R"({"version": "1", "name": "Shop API", "type": "collection", "ignore": ["node_modules", ".git", "drafts"]})");
    writeFile(root, s("collection.bru"), R"(headers {
  X-Client: retrylab-tests
  Accept: text/plain
}

auth {
  mode: bearer
}

auth:bearer {
  token: {{token}}
}

vars:pre-request {
  apiVersion: v2
  ~unused: x
}

script:pre-request {
  bru.setVar("started", Date.now());
}

docs {
  The shop.
}
)");
    writeFile(root, s("environments/local.bru"), R"(vars {
  baseUrl: http://127.0.0.1:8080
  ~old: http://old
  orgId: 7
}
vars:secret [
  token
]
)");
    writeFile(root, s("environments/ci.bru"), "vars {\n  baseUrl: http://ci:9000\n}\n");
    writeFile(root, s("health.bru"), R"(meta {
  name: Health
  type: http
  seq: 2
}

get {
  url: {{baseUrl}}/health
  body: none
  auth: inherit
}
)");
    writeFile(root, s("login.bru"), R"(meta {
  name: Log in
  seq: 1
}

post {
  url: {{baseUrl}}/login
  body: formUrlEncoded
  auth: none
}

body:form-urlencoded {
  user: {{user}}
  note: a b&c=d
  ~debug: 1
}
)");
    writeFile(root, s("users/folder.bru"), R"(meta {
  name: Users
  seq: 3
}

headers {
  X-Area: users
}

auth {
  mode: basic
}

auth:basic {
  username: admin
  password: {{adminPassword}}
}

vars:pre-request {
  area: users
}

script:pre-request {
  bru.setVar("inUsers", true);
}
)");
    writeFile(root, s("users/create.bru"), R"(meta {
  name: Create user
  type: http
  seq: 2
}

post {
  url: {{baseUrl}}/orgs/:org/users?notify=1
  body: json
  auth: inherit
}

params:query {
  notify: 1
}

params:path {
  org: {{orgId}}
}

headers {
  Accept: application/json
  ~X-Debug: 1
  X-Trace: {{process.env.TRACE_ID}}
}

body:json {
  {
    "name": "{{name}}",
    "tags": ["a"]
  }
}

vars:pre-request {
  name: Ada
}

vars:post-response {
  userId: res.body.id
  ~skipped: res.body.x
}

assert {
  res.status: eq 201
  res.body.name: isString
  ~res.body.off: isNull
}

script:pre-request {
  req.setHeader("X-Pre", "1");
}

script:post-response {
  bru.setVar("created", true);
}

tests {
  test("has an id", function() {
    expect(res.body.id).to.be.a("number");
  });
}

docs {
  Creates a user.
}
)");
    writeFile(root, s("users/list.bru"),
        "meta {\n  name: List users\n  seq: 1\n}\n\nget {\n  url: {{baseUrl}}/users\n  auth: inherit\n}\n");
    writeFile(root, s("users/admin/grant.bru"),
        "meta {\n  name: Grant\n}\n\nput {\n  url: {{baseUrl}}/grant\n  auth: inherit\n}\n");
    writeFile(root, s("users/admin/revoke.bru"),
        "meta {\n  name: Revoke\n  seq: 5\n}\n\ndelete {\n  url: {{baseUrl}}/grant\n  auth: bearer\n}\n\nauth:bearer "
        "{\n  token: own\n}\n");
    // Skipped: bruno.json's ignore, hidden folders, node_modules, files that are not .bru.
    writeFile(root, s("drafts/broken.bru"), "this is not bru\n");
    writeFile(root, s(".git/x.bru"), "nor this\n");
    writeFile(root, s("node_modules/y/z.bru"), "nor this\n");
    writeFile(root, s("users/notes.txt"), "not a request\n");
}

} // namespace

void TestBrunoRun::initTestCase()
{
    QVERIFY(m_dir.isValid());
    writeShop(m_dir.path());
    const Result<RunCollection> read = BrunoRun::readFolder(m_dir.path());
    QVERIFY2(read.ok(), qPrintable(read.error()));
    m_shop = *read;
}

void TestBrunoRun::readFolder_collection_readsFoldersInSeqOrder()
{
    QCOMPARE(m_shop.name, s("Shop API"));
    QCOMPARE(m_shop.format, RunCollection::Format::Bruno);
    QCOMPARE(m_shop.dialect, ScriptDialect::Bruno);
    QCOMPARE(m_shop.source, m_dir.path());
    QCOMPARE(names(m_shop.items), (QStringList{s("Log in"), s("Health"), s("Users")}));
    const RunItem &users = m_shop.items.at(2);
    QVERIFY(users.isFolder());
    QCOMPARE(users.place, s("users"));
    // The folder without a seq comes last.
    QCOMPARE(names(users.items), (QStringList{s("List users"), s("Create user"), s("admin")}));
    const RunItem *admin = child(users, s("admin"));
    QVERIFY(admin && admin->isFolder());
    QCOMPARE(names(admin->items), (QStringList{s("Revoke"), s("Grant")}));
    QCOMPARE(m_shop.requestCount(), 6);
    QCOMPARE(m_shop.variables, (QList<QPair<QString, QString>>{{s("apiVersion"), s("v2")}}));
}

void TestBrunoRun::readFolder_collection_mapsRequests()
{
    const RunItem *create = child(m_shop.items.at(2), s("Create user"));
    QVERIFY(create);
    QCOMPARE(create->place, s("users/create.bru"));
    QCOMPARE(create->request.method, s("POST"));
    QCOMPARE(create->request.urlTemplate, s("{{baseUrl}}/orgs/{{orgId}}/users?notify=1"));
    // The collection's and the folder's headers first; the request's Accept replaces the collection's.
    const QList<DraftHeader> headers{{s("X-Client"), s("retrylab-tests"), true}, {s("X-Area"), s("users"), true},
        {s("Accept"), s("application/json"), true}, {s("X-Debug"), s("1"), false},
        {s("X-Trace"), s("{{process.env.TRACE_ID}}"), true}, {s("Content-Type"), s("application/json"), true}};
    QCOMPARE(create->request.headers, headers);
    QCOMPARE(create->request.body, s("{\n  \"name\": \"{{name}}\",\n  \"tags\": [\"a\"]\n}"));
    // The folder's variables, then its own.
    QCOMPARE(create->variables, (QList<QPair<QString, QString>>{{s("area"), s("users")}, {s("name"), s("Ada")}}));
    QCOMPARE(create->assertions.size(), 1);
    QCOMPARE(create->assertions.at(0).kind, Assertion::Kind::StatusEquals);
    QCOMPARE(create->assertions.at(0).statuses, QSet<int>{201});
    QCOMPARE(create->assertions.at(0).name, s("res.status: eq 201"));

    const RunItem &login = m_shop.items.at(0);
    QCOMPARE(login.request.method, s("POST"));
    QCOMPARE(login.request.body, s("user={{user}}&note=a+b%26c%3Dd"));
    QCOMPARE(login.request.headers.last().value, s("application/x-www-form-urlencoded"));
    QCOMPARE(m_shop.items.at(1).request.body, QString());
    QCOMPARE(m_shop.items.at(1).request.headers.size(), 2);
}

void TestBrunoRun::readFolder_authInheritance_throughRequests()
{
    const QList<RunCollection::Request> requests = m_shop.requests();
    QStringList paths;
    for (const RunCollection::Request &request : requests)
        paths.append(request.path);
    QCOMPARE(paths,
        (QStringList{s("Log in"), s("Health"), s("Users/List users"), s("Users/Create user"), s("Users/admin/Revoke"),
            s("Users/admin/Grant")}));
    RunAuth none;
    none.kind = RunAuth::Kind::None;
    RunAuth collection;
    collection.kind = RunAuth::Kind::Bearer;
    collection.token = s("{{token}}");
    RunAuth folder;
    folder.kind = RunAuth::Kind::Basic;
    folder.username = s("admin");
    folder.password = s("{{adminPassword}}");
    RunAuth own;
    own.kind = RunAuth::Kind::Bearer;
    own.token = s("own");
    QCOMPARE(requests.at(0).auth, none);
    QCOMPARE(requests.at(1).auth, collection);
    QCOMPARE(requests.at(2).auth, folder);
    QCOMPARE(requests.at(3).auth, folder);
    QCOMPARE(requests.at(4).auth, own);
    // admin has no folder.bru: it inherits, so Grant gets Users' auth.
    QCOMPARE(requests.at(5).auth, folder);
    QCOMPARE(requests.at(5).folders.size(), 2);
}

void TestBrunoRun::readFolder_scripts_keepTheirFileLines()
{
    QCOMPARE(m_shop.preRequest.source, s("bru.setVar(\"started\", Date.now());"));
    QCOMPARE(m_shop.preRequest.place, s("collection.bru"));
    QCOMPARE(m_shop.preRequest.firstLine, 20);
    QVERIFY(m_shop.test.isEmpty());
    const RunItem &users = m_shop.items.at(2);
    QCOMPARE(users.preRequest.source, s("bru.setVar(\"inUsers\", true);"));
    QCOMPARE(users.preRequest.place, s("users/folder.bru"));
    QCOMPARE(users.preRequest.firstLine, 24);

    const RunItem *create = child(users, s("Create user"));
    QCOMPARE(create->preRequest.source, s("req.setHeader(\"X-Pre\", \"1\");"));
    QCOMPARE(create->preRequest.firstLine, 50);
    // vars:post-response on its own line (39), blank lines down to script:post-response
    // (54) and tests (58), then the asserts that are not a status.
    QStringList expected{s("bru.setVar(\"userId\", res.body.id);")};
    for (int line = 40; line < 54; ++line)
        expected.append(QString());
    expected.append(s("bru.setVar(\"created\", true);"));
    expected.append({QString(), QString(), QString()});
    expected.append(s("test(\"has an id\", function() {"));
    expected.append(s("  expect(res.body.id).to.be.a(\"number\");"));
    expected.append(s("});"));
    expected.append(
        s("test(\"res.body.name: isString\", function () { expect(res.body.name).to.be.a(\"string\"); });"));
    QCOMPARE(create->test.source.split(QLatin1Char('\n')), expected);
    QCOMPARE(create->test.firstLine, 39);
    QCOMPARE(create->test.place, s("users/create.bru"));
}

void TestBrunoRun::readFolder_bodies_eachMode()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeFile(dir.path(), s("bruno.json"), R"({"name": "Bodies"})");
    writeFile(dir.path(), s("text.bru"),
        "meta {\n  seq: 1\n}\npost {\n  url: http://h/t\n  body: text\n}\nbody:text {\n  hello {{who}}\n}\n");
    writeFile(dir.path(), s("xml.bru"),
        "meta {\n  seq: 2\n}\npost {\n  url: http://h/x\n  body: xml\n}\nheaders {\n  content-type: "
        "text/xml\n}\nbody:xml {\n  <a/>\n}\n");
    writeFile(dir.path(), s("multipart.bru"), R"(meta {
  seq: 3
}
post {
  url: http://h/m
  body: multipartForm
}
body:multipart-form {
  name: {{name}}
  meta: {"a":1} @contentType(application/json)
  avatar: @file(images/a.png)
  ~off: x
}
)");
    writeFile(dir.path(), s("graphql.bru"), R"(meta {
  type: graphql
  seq: 4
}
post {
  url: http://h/graphql
  body: graphql
  auth: apikey
}
auth:apikey {
  key: api_key
  value: {{key}}
  placement: queryparams
}
body:graphql {
  query { user(id: 1) { name } }
}
body:graphql:vars {
  {"id": 1}
}
)");
    writeFile(dir.path(), s("purge.bru"), "meta {\n  seq: 6\n}\nhttp {\n  method: purge\n  url: http://h/cache\n}\n");
    writeFile(dir.path(), s("socket.bru"), "meta {\n  type: ws\n  seq: 7\n}\nws {\n  url: ws://h/s\n}\n");
    writeFile(dir.path(), s("unused.bru"),
        "meta {\n  seq: 5\n}\nget {\n  url: http://h/u\n  auth: ntlm\n}\nbody:json {\n  {\"a\": 1}\n}\n");
    const Result<RunCollection> read = BrunoRun::readFolder(dir.path());
    QVERIFY2(read.ok(), qPrintable(read.error()));
    const QList<RunItem> &items = read->items;
    QCOMPARE(items.size(), 6);
    QCOMPARE(items.at(5).request.method, s("PURGE"));
    QCOMPARE(items.at(5).request.urlTemplate, s("http://h/cache"));
    QCOMPARE(items.at(0).request.body, s("hello {{who}}"));
    QCOMPARE(items.at(0).request.headers, (QList<DraftHeader>{{s("Content-Type"), s("text/plain"), true}}));
    // A Content-Type of its own is kept, not doubled.
    QCOMPARE(items.at(1).request.headers, (QList<DraftHeader>{{s("content-type"), s("text/xml"), true}}));
    QCOMPARE(items.at(1).request.body, s("<a/>"));

    const RequestDraft &multipart = items.at(2).request;
    QCOMPARE(multipart.headers.size(), 1);
    QVERIFY(multipart.headers.at(0).value.startsWith(s("multipart/form-data; boundary=")));
    const QString boundary = multipart.headers.at(0).value.section(QLatin1Char('='), 1);
    QVERIFY(multipart.body.contains(s("name=\"name\"\r\n\r\n{{name}}\r\n--") + boundary));
    QVERIFY(multipart.body.contains(s("Content-Type: application/json\r\n\r\n{\"a\":1}\r\n")));
    QVERIFY(!multipart.body.contains(s("avatar")));
    QVERIFY(!multipart.body.contains(s("off")));

    QCOMPARE(items.at(3).request.body, s(R"({"query":"query { user(id: 1) { name } }","variables":{"id":1}})"));
    RunAuth apiKey;
    apiKey.kind = RunAuth::Kind::ApiKey;
    apiKey.key = s("api_key");
    apiKey.value = s("{{key}}");
    apiKey.inQuery = true;
    QCOMPARE(items.at(3).auth, apiKey);
    // No body mode: no body, although a body block is there.
    QCOMPARE(items.at(4).request.body, QString());
    QCOMPARE(items.at(4).auth.kind, RunAuth::Kind::None);
    QCOMPARE(read->ignored,
        (QStringList{s("multipart.bru:11: file field \"avatar\" (images/a.png) is not sent: files are not read"),
            s("socket.bru:5: a ws request is not run"),
            s("unused.bru:6: auth ntlm is not sent: the runner sends basic, bearer, apikey, digest, awsv4 and "
              "oauth2")}));
}

void TestBrunoRun::readFolder_environments_andIgnored()
{
    QCOMPARE(m_shop.environments.size(), 2);
    QCOMPARE(m_shop.environments.at(0).name, s("ci"));
    QCOMPARE(m_shop.environments.at(0).values, (QList<QPair<QString, QString>>{{s("baseUrl"), s("http://ci:9000")}}));
    QCOMPARE(m_shop.environments.at(1).name, s("local"));
    QCOMPARE(m_shop.environments.at(1).values,
        (QList<QPair<QString, QString>>{{s("baseUrl"), s("http://127.0.0.1:8080")}, {s("orgId"), s("7")}}));
    QCOMPARE(m_shop.ignored,
        (QStringList{s("collection.bru:23: docs are not used"),
            s("environments/local.bru:7: secret variable \"token\": Bruno keeps its value outside the file; give it "
              "with --var token=VALUE"),
            s("users/create.bru:24: {{process.env.TRACE_ID}} is left as written: process.env is not read"),
            s("users/create.bru:63: docs are not used")}));
}

void TestBrunoRun::testScript_eachOperator_data()
{
    QTest::addColumn<QString>("lhs");
    QTest::addColumn<QString>("rhs");
    QTest::addColumn<QString>("expect");
    const auto row = [](const char *lhs, const char *rhs, const char *expect) {
        QTest::addRow("%s: %s", lhs, rhs) << s(lhs) << s(rhs) << s(expect);
    };
    row("res.status", "eq 200", "expect(res.status).to.eql(200)");
    row("res.body.name", "eq Ada", "expect(res.body.name).to.eql(\"Ada\")");
    row("res.body.name", "eq \"2\"", "expect(res.body.name).to.eql(\"2\")");
    row("res.body.ok", "eq true", "expect(res.body.ok).to.eql(true)");
    row("res.body.tags", "eq [\"a\", 1]", "expect(res.body.tags).to.eql([\"a\",1])");
    row("res.body.id", "7", "expect(res.body.id).to.eql(7)");
    row("res.status", "neq 500", "expect(res.status).to.not.eql(500)");
    row("res.body.n", "gt 1.5", "expect(res.body.n).to.be.above(1.5)");
    row("res.body.n", "gte -2", "expect(res.body.n).to.be.at.least(-2)");
    row("res.body.n", "lt 10", "expect(res.body.n).to.be.below(10)");
    row("res.responseTime", "lte 500", "expect(res.responseTime).to.be.at.most(500)");
    row("res.status", "in 200, 201", "expect(res.status).to.be.oneOf([200, 201])");
    row("res.body.kind", "notIn [\"a\", b]", "expect(res.body.kind).to.not.be.oneOf([\"a\", \"b\"])");
    row("res.body.text", "contains ok", "expect(res.body.text).to.include(\"ok\")");
    row("res.body.text", "notContains 'error'", "expect(res.body.text).to.not.include(\"error\")");
    row("res.body.items", "length 3", "expect(res.body.items).to.have.lengthOf(3)");
    row("res.body.email", "matches ^[a-z]+@", "expect(res.body.email).to.match(new RegExp(\"^[a-z]+@\"))");
    row("res.body.email", "notMatches /x+/i", "expect(res.body.email).to.not.match(new RegExp(\"x+\", \"i\"))");
    row("res.body.url", "startsWith http://a.b",
        "expect(res.body.url).to.match(new RegExp(\"^http:\\\\/\\\\/a\\\\.b\"))");
    row("res.body.file", "endsWith .json", "expect(res.body.file).to.match(new RegExp(\"\\\\.json$\"))");
    row("res.body.n", "between 1, 10", "expect(res.body.n).to.be.within(1, 10)");
    row("res.body.list", "isEmpty", "expect(res.body.list).to.be.empty");
    row("res.body.a", "isNull", "expect(res.body.a).to.be.null");
    row("res.body.a", "isUndefined", "expect(res.body.a).to.be.undefined");
    row("res.body.a", "isDefined", "expect(res.body.a).to.not.be.undefined");
    row("res.body.a", "isTruthy", "expect(res.body.a).to.be.ok");
    row("res.body.a", "isFalsy", "expect(res.body.a).to.not.be.ok");
    row("res.body", "isJson",
        "expect(res.body).to.satisfy(function (value) { return Object.prototype.toString.call(value) === \"[object "
        "Object]\"; })");
    row("res.body.n", "isNumber", "expect(res.body.n).to.be.a(\"number\")");
    row("res.body.s", "isString", "expect(res.body.s).to.be.a(\"string\")");
    row("res.body.b", "isBoolean", "expect(res.body.b).to.be.a(\"boolean\")");
    row("res.body.l", "isArray", "expect(res.body.l).to.be.an(\"array\")");
    row("res.headers['content-type']", "contains json", "expect(res.headers['content-type']).to.include(\"json\")");
    row("res.body.id", "eq {{userId}}", "expect(res.body.id).to.eql(__bruValue(String(__bruVar(\"userId\"))))");
    row("res.body.name", "eq \"Dr {{ name }}\"", "expect(res.body.name).to.eql(String(\"Dr \" + __bruVar(\"name\")))");
}

void TestBrunoRun::testScript_eachOperator()
{
    QFETCH(QString, lhs);
    QFETCH(QString, rhs);
    QFETCH(QString, expect);
    const QString name = BrunoAssert::jsString(lhs + s(": ") + rhs);
    QCOMPARE(BrunoAssert::testScript(lhs, rhs), s("test(%1, function () { %2; });").arg(name, expect));
}

void TestBrunoRun::testScript_generated_isValidJavaScript()
{
    QStringList lines{BrunoAssert::helperScript()};
    for (const char *rhs : {"eq 200", "in 1, 2", "notMatches /a\\/b/g", "startsWith {{p}}.x", "endsWith a$(b)",
             "between 1", "between {{a}}, 3", "isJson", "eq \"quote \\\" and \\\\\""})
        lines.append(BrunoAssert::testScript(s("res.body.a"), s(rhs)));
    lines.append(BrunoAssert::setVarScript(s("id"), s("res.body.id")));
    // Parsed as a function, not run: whether what the runner hands its sandbox is JavaScript.
    QJSEngine engine;
    const QJSValue parsed = engine.evaluate(s("(function () {\n") + lines.join(QLatin1Char('\n')) + s("\n})"));
    QVERIFY2(!parsed.isError(), qPrintable(parsed.toString() + QLatin1Char('\n') + lines.join(QLatin1Char('\n'))));
    QVERIFY(parsed.isCallable());
    QCOMPARE(BrunoAssert::testScript(s("res.body.n"), s("between 1")),
        s("test(\"res.body.n: between 1\", function () { throw new Error(\"between needs two values, as \\\"between "
          "1, 10\\\"\"); });"));
}

void TestBrunoRun::helperScript_typesValuesAsBruno()
{
    QJSEngine engine;
    const QJSValue helpers = engine.evaluate(BrunoAssert::helperScript());
    QVERIFY2(!helpers.isError(), qPrintable(helpers.toString()));
    QCOMPARE(engine.evaluate(s("__bruValue(\"200\") === 200")).toBool(), true);
    QCOMPARE(engine.evaluate(s("__bruValue(\"true\") === true")).toBool(), true);
    QCOMPARE(engine.evaluate(s("__bruValue(\"null\") === null")).toBool(), true);
    QCOMPARE(engine.evaluate(s("__bruValue(\"Ada\") === \"Ada\"")).toBool(), true);
    QCOMPARE(engine.evaluate(s("__bruValue(\"\") === \"\"")).toBool(), true);
    // The escape of a startsWith with a variable, run on a value full of specials.
    const QString expression = BrunoAssert::testScript(s("x"), s("startsWith {{p}}"))
                                   .section(s("to.match("), 1)
                                   .section(s("); });"), 0, 0)
                                   .replace(s("__bruVar(\"p\")"), s("\"a.b(c)[d]*/\""));
    QCOMPARE(engine.evaluate(expression + s(".test(\"a.b(c)[d]*/ and more\")")).toBool(), true);
    QCOMPARE(engine.evaluate(expression + s(".test(\"aXb(c)[d]*/\")")).toBool(), false);
}

void TestBrunoRun::statusAssertion_onlyForAnEqualCode()
{
    QVERIFY(BrunoAssert::statusAssertion(s("res.status"), s("eq 404")));
    QCOMPARE(BrunoAssert::statusAssertion(s("res.status"), s("204"))->statusText, s("204"));
    QVERIFY(!BrunoAssert::statusAssertion(s("res.status"), s("neq 200")));
    QVERIFY(!BrunoAssert::statusAssertion(s("res.status"), s("eq {{code}}")));
    QVERIFY(!BrunoAssert::statusAssertion(s("res.status"), s("eq 2000")));
    QVERIFY(!BrunoAssert::statusAssertion(s("res.body.status"), s("eq 200")));
}

void TestBrunoRun::readFolder_refused_namesFileAndLine_data()
{
    QTest::addColumn<QString>("relative");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    const QByteArray meta = "meta {\n  name: Create\n  seq: 1\n}\n\n";
    QTest::addRow("unclosed block") << s("users/create.bru")
                                    << meta + "post {\n  url: http://x\n  body: json\n}\n\nbody:json {\n  {\"a\": 1}\n"
                                    << s("users/create.bru:11: unclosed block body:json");
    QTest::addRow("line outside any block") << s("users/create.bru") << meta + "url: http://x\n"
                                            << s("users/create.bru:6: a line outside any block: \"url: http://x\"");
    QTest::addRow("unknown method block") << s("users/create.bru") << meta + "fetch {\n  url: http://x\n}\n"
                                          << s("users/create.bru:6: unknown block \"fetch\"");
    QTest::addRow("bad key line") << s("users/create.bru") << meta + "get {\n  url http://x\n}\n"
                                  << s("users/create.bru:7: expected \"name: value\" in block get, not \"url "
                                       "http://x\"");
    QTest::addRow("no request block") << s("users/create.bru") << meta + "headers {\n  a: b\n}\n"
                                      << s("users/create.bru:1: no request block (get, post, put, patch, delete, "
                                           "options, head, connect, trace)");
    QTest::addRow("two request blocks") << s("users/create.bru")
                                        << meta + "get {\n  url: http://x\n}\npost {\n  url: http://x\n}\n"
                                        << s("users/create.bru:9: a second request block (post); the first is get at "
                                             "line 6");
    QTest::addRow("bad environment") << s("environments/local.bru") << QByteArray("vars {\n  baseUrl\n}\n")
                                     << s("environments/local.bru:2: expected \"name: value\" in block vars, not "
                                          "\"baseUrl\"");
    QTest::addRow("bad folder.bru") << s("users/folder.bru") << QByteArray("meta {\n  name: Users\n")
                                    << s("users/folder.bru:1: unclosed block meta");
    QTest::addRow("bad collection.bru") << s("collection.bru") << QByteArray("script:pre-request {\n  x();\n")
                                        << s("collection.bru:1: unclosed block script:pre-request");
}

void TestBrunoRun::readFolder_refused_namesFileAndLine()
{
    QFETCH(QString, relative);
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeFile(dir.path(), s("bruno.json"), R"({"name": "Broken"})");
    writeFile(dir.path(), s("users/list.bru"), "get {\n  url: http://x\n}\n");
    writeFile(dir.path(), relative, text);
    const Result<RunCollection> read = BrunoRun::readFolder(dir.path());
    QVERIFY(!read.ok());
    QCOMPARE(read.error(), error);
}

void TestBrunoRun::readFolder_withoutBrunoJson_isRefused()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeFile(dir.path(), s("list.bru"), "get {\n  url: http://x\n}\n");
    const Result<RunCollection> read = BrunoRun::readFolder(dir.path());
    QVERIFY(!read.ok());
    QCOMPARE(read.errorDetail().path, dir.path());
    QCOMPARE(read.errorDetail().message, s("not a Bruno collection: the folder has no bruno.json"));
    const Result<RunCollection> missing = BrunoRun::readFolder(dir.filePath(s("nothing")));
    QCOMPARE(missing.error(), dir.filePath(s("nothing")) + s(": no such folder"));
}

void TestBrunoRun::readFolder_badBrunoJson_isRefused()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeFile(dir.path(), s("bruno.json"), "{\"name\": ");
    Result<RunCollection> read = BrunoRun::readFolder(dir.path());
    QVERIFY(!read.ok());
    QVERIFY2(read.error().startsWith(s("bruno.json: not valid JSON: ")), qPrintable(read.error()));
    writeFile(dir.path(), s("bruno.json"), "{\"name\": 3}");
    read = BrunoRun::readFolder(dir.path());
    QVERIFY(!read.ok());
    QVERIFY2(read.errorDetail().path.startsWith(s("bruno.json")), qPrintable(read.error()));
    // No name: the folder's.
    writeFile(dir.path(), s("bruno.json"), "{\"version\": \"1\"}");
    read = BrunoRun::readFolder(dir.path());
    QVERIFY2(read.ok(), qPrintable(read.error()));
    QCOMPARE(read->name, QFileInfo(dir.path()).fileName());
    QVERIFY(read->items.isEmpty());
}

QTEST_GUILESS_MAIN(TestBrunoRun)
#include "tst_brunorun.moc"
