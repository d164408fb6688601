#include "core/collections/dynamicvariables.h"
#include "core/scripting/scriptsandbox.h"
#include "sandboxtesting.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace RetryLab;
using namespace SandboxTesting;
using Core::DynamicVariables;
using Core::ScriptDialect;

namespace {

ScriptSandbox::Options postman(int timeLimitMs = 5000, DynamicVariables *dynamic = nullptr)
{
    ScriptSandbox::Options options;
    options.dialect = ScriptDialect::Postman;
    options.timeLimitMs = timeLimitMs;
    options.dynamic = dynamic;
    return options;
}

} // namespace

// Postman's pm API and legacy globals, the errors of scripts and the time limit.
class TestScriptSandbox final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pmTest_passAndFail_recordsEachWithTheAssertionMessage();
    void pmTest_skip_recordsASkippedTest();
    void pmTest_doneCallback_passesOrFailsWhenCalled();
    void pmResponse_givesCodeStatusHeadersTimeAndBody();
    void pmResponse_jsonOfText_failsTheTestNamingJson();
    void scopes_setGetHasUnsetClear_writeBackWithTheirJavaScriptTypes();
    void pmVariables_resolveNarrowestFirst_andSetTheLocalScope();
    void replaceIn_substitutesVariablesAndSeededDynamicValues();
    void iterationData_readsTheDataRow();
    void pmRequest_inPreRequest_changesWhatIsSent();
    void pmRequest_inTestScript_changesNothing();
    void pmInfo_namesTheEventAndIteration();
    void setNextRequest_nameNullOrNotCalled();
    void executionSkipRequest_inPreRequest_skips();
    void console_printsTextAndObjectsAsJson();
    void legacyGlobals_testsResponseAndPostmanObject();
    void atobBtoa_roundTripBinaryText();
    void uncaughtException_isTheScriptsErrorWithItsFileLine();
    void syntaxError_namesTheLineInTheFile();
    void missingFunction_insideTest_failsThatTestNamingIt();
    void missingFunction_outsideTest_isTheScriptsError();
    void sendRequest_neverSends_andSaysSo();
    void endlessLoop_stopsAtTheTimeLimit_andTheNextScriptRuns();
    void endlessLoopInsideTest_stopsTheScriptNotJustTheTest();
    void declarations_doNotReachTheNextScript();
    void topLevelConstNamedLikeALegacyGlobal_isAllowed();
    void setTimeout_runsAfterTheBody();
    void typicalTestScript_costOfOneRun();
    void newSandbox_costOfItsFirstRun();
};

void TestScriptSandbox::pmTest_passAndFail_recordsEachWithTheAssertionMessage()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
pm.test("status is 200", function () { pm.response.to.have.status(200); });
pm.test("status is 503", () => { pm.expect(pm.response.code).to.equal(503); });
pm.test("after a failure, the next test still runs", () => pm.expect(1).to.be.below(2));
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome),
        QStringList(
            {QStringLiteral("status is 200: pass"), QStringLiteral("status is 503: fail: expected 200 to equal 503"),
                QStringLiteral("after a failure, the next test still runs: pass")}));
}

void TestScriptSandbox::pmTest_skip_recordsASkippedTest()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
pm.test.skip("later", function () { throw new Error("never run"); });
pm.test("no function");
)js"));
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("later: skip"), QStringLiteral("no function: skip")}));
}

void TestScriptSandbox::pmTest_doneCallback_passesOrFailsWhenCalled()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
pm.test("done later", function (done) { setTimeout(function () { done(); }, 10); });
pm.test("done with an error", function (done) { done(new Error("late failure")); });
pm.test("never done", function (done) {});
)js"));
    QCOMPARE(testLines(run.outcome),
        QStringList(
            {QStringLiteral("done later: pass"), QStringLiteral("done with an error: fail: Error: late failure"),
                QStringLiteral("never done: fail: the test never called its done callback")}));
}

void TestScriptSandbox::pmResponse_givesCodeStatusHeadersTimeAndBody()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
pm.test("fields", function () {
    pm.expect(pm.response.code).to.equal(200);
    pm.expect(pm.response.status).to.equal("OK");
    pm.expect(pm.response.responseTime).to.equal(42.5);
    pm.expect(pm.response.headers.get("content-type")).to.equal("application/json");
    pm.expect(pm.response.headers.has("X-REQUEST-ID")).to.be.true;
    pm.expect(pm.response.headers.has("X-Missing")).to.be.false;
    pm.expect(pm.response.headers.toObject()).to.have.property("x-request-id", "abc-123");
    pm.expect(pm.response.json().tags).to.eql(["a", "b"]);
    pm.expect(pm.response.text()).to.include('"name":"widget"');
    pm.expect(pm.cookies.get("session")).to.equal("s1");
    pm.expect(pm.cookies.has("other")).to.be.false;
});
pm.test("response assertions", function () {
    pm.response.to.be.ok;
    pm.response.to.be.success;
    pm.response.to.not.be.error;
    pm.response.to.have.header("X-Request-Id");
    pm.response.to.have.header("X-Request-Id", "abc-123");
    pm.response.to.have.jsonBody("nested.ok", true);
    pm.response.to.have.jsonBody("tags[1]", "b");
    pm.response.to.have.body();
    pm.response.to.have.responseTime.below(100);
    pm.expect(pm.response).to.have.status("OK");
    pm.response.to.have.jsonSchema({type: "object", required: ["id", "name"]});
});
pm.test("a wrong header value", function () { pm.response.to.have.header("X-Request-Id", "zzz"); });
pm.test("a missing header", function () { pm.expect(pm.response).to.have.header("X-Missing"); });
pm.test("not a client error", function () { pm.response.to.be.clientError; });
pm.test("slow", function () { pm.response.to.have.responseTime.below(10); });
pm.test("a value's schema", function () { pm.expect({id: 1}).to.be.jsonSchema({type: "object", required: ["id"]}); });
pm.test("a value off its schema", function () { pm.expect({id: "x"}).to.be.jsonSchema({properties: {id: {type: "number"}}}); });
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome),
        QStringList({QStringLiteral("fields: pass"), QStringLiteral("response assertions: pass"),
            QStringLiteral("a wrong header value: fail: expected 'X-Request-Id' response header to be 'zzz' but got "
                           "'abc-123'"),
            QStringLiteral("a missing header: fail: expected response to have header with key 'X-Missing'"),
            QStringLiteral("not a client error: fail: expected response code to be 4XX but found 200"),
            QStringLiteral("slow: fail: expected 42.5 to be below 10"), QStringLiteral("a value's schema: pass"),
            QStringLiteral(
                "a value off its schema: fail: expected data to satisfy schema but found following errors: \n"
                "data.id should be number")}));

    const Run serverError
        = runTest(sandbox, js(R"js(pm.test("5xx", () => { pm.response.to.be.serverError; pm.response.to.be.error; });
pm.test("ok", () => { pm.response.to.be.ok; });
pm.test("200", () => { pm.response.to.have.status(200); });)js"),
            jsonResponse(503, QStringLiteral("Service Unavailable"), "{}"));
    QCOMPARE(testLines(serverError.outcome),
        QStringList(
            {QStringLiteral("5xx: pass"), QStringLiteral("ok: fail: expected response code to be 200 but found 503"),
                QStringLiteral("200: fail: expected response to have status code 200 but got 503")}));
}

void TestScriptSandbox::pmResponse_jsonOfText_failsTheTestNamingJson()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(pm.test("json", () => { pm.response.json(); });)js"),
        jsonResponse(200, QStringLiteral("OK"), "<html>"));
    QCOMPARE(run.outcome.tests.size(), 1);
    QVERIFY(!run.outcome.tests.first().passed);
    QVERIFY2(run.outcome.tests.first().error.startsWith(QStringLiteral("JSONError: the response body is not JSON")),
        qPrintable(run.outcome.tests.first().error));
}

void TestScriptSandbox::scopes_setGetHasUnsetClear_writeBackWithTheirJavaScriptTypes()
{
    ScriptSandbox sandbox(postman());
    ScriptScopes scopes;
    scopes.environment.insert(QStringLiteral("keep"), QStringLiteral("k"));
    scopes.environment.insert(QStringLiteral("drop"), QStringLiteral("d"));
    scopes.collection.insert(QStringLiteral("wipe"), 1);
    scopes.globals.insert(QStringLiteral("g"), true);
    const Run run = runTest(sandbox, js(R"js(
pm.environment.set("count", 5);
pm.environment.set("user", {id: 7, roles: ["admin"]});
pm.environment.unset("drop");
pm.collectionVariables.clear();
pm.collectionVariables.set("token", "abc");
pm.globals.set("flag", false);
pm.test("reads", function () {
    pm.expect(pm.environment.get("keep")).to.equal("k");
    pm.expect(pm.environment.has("drop")).to.be.false;
    pm.expect(pm.environment.get("count")).to.be.a("number");
    pm.expect(pm.globals.get("g")).to.equal(true);
    pm.expect(pm.collectionVariables.toObject()).to.eql({token: "abc"});
    pm.expect(pm.environment.get("nothing")).to.be.undefined;
});
)js"),
        jsonResponse(), scopes);
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("reads: pass")}));
    QCOMPARE(run.scopes.environment.value(QStringLiteral("count")), QJsonValue(5));
    QCOMPARE(run.scopes.environment.value(QStringLiteral("user")),
        QJsonValue(QJsonObject(
            {{QStringLiteral("id"), 7}, {QStringLiteral("roles"), QJsonArray({QStringLiteral("admin")})}})));
    QVERIFY(!run.scopes.environment.contains(QStringLiteral("drop")));
    QCOMPARE(run.scopes.environment.value(QStringLiteral("keep")), QJsonValue(QStringLiteral("k")));
    QCOMPARE(run.scopes.collection.keys(), QStringList({QStringLiteral("token")}));
    QCOMPARE(run.scopes.globals.value(QStringLiteral("flag")), QJsonValue(false));
    QCOMPARE(run.scopes.globals.value(QStringLiteral("g")), QJsonValue(true));
}

void TestScriptSandbox::pmVariables_resolveNarrowestFirst_andSetTheLocalScope()
{
    ScriptSandbox sandbox(postman());
    ScriptScopes scopes;
    scopes.globals.insert(QStringLiteral("a"), QStringLiteral("global"));
    scopes.globals.insert(QStringLiteral("b"), QStringLiteral("global"));
    scopes.collection.insert(QStringLiteral("b"), QStringLiteral("collection"));
    scopes.collection.insert(QStringLiteral("c"), QStringLiteral("collection"));
    scopes.environment.insert(QStringLiteral("c"), QStringLiteral("environment"));
    scopes.environment.insert(QStringLiteral("d"), QStringLiteral("environment"));
    scopes.data.insert(QStringLiteral("d"), QStringLiteral("data"));
    scopes.data.insert(QStringLiteral("e"), QStringLiteral("data"));
    scopes.local.insert(QStringLiteral("e"), QStringLiteral("local"));
    const Run run = runTest(sandbox, js(R"js(
pm.test("order", function () {
    pm.expect(["a", "b", "c", "d", "e"].map(n => pm.variables.get(n)))
        .to.eql(["global", "collection", "environment", "data", "local"]);
    pm.expect(pm.variables.has("c")).to.be.true;
    pm.expect(pm.variables.has("z")).to.be.false;
    pm.expect(pm.variables.toObject()).to.eql({a: "global", b: "collection", c: "environment", d: "data", e: "local"});
});
pm.variables.set("a", 1);
pm.variables.unset("e");
)js"),
        jsonResponse(), scopes);
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("order: pass")}));
    QCOMPARE(run.scopes.local.value(QStringLiteral("a")), QJsonValue(1));
    QVERIFY(!run.scopes.local.contains(QStringLiteral("e")));
    QCOMPARE(run.scopes.globals.value(QStringLiteral("a")), QJsonValue(QStringLiteral("global")));
}

void TestScriptSandbox::replaceIn_substitutesVariablesAndSeededDynamicValues()
{
    DynamicVariables dynamic(1234);
    ScriptSandbox sandbox(postman(5000, &dynamic));
    ScriptScopes scopes;
    scopes.environment.insert(QStringLiteral("host"), QStringLiteral("api.example.test"));
    scopes.environment.insert(QStringLiteral("count"), 3);
    scopes.local.insert(QStringLiteral("nested"), QStringLiteral("{{host}}/v1"));
    const Run run = runTest(sandbox, js(R"js(
pm.variables.set("text", pm.variables.replaceIn("https://{{nested}}?n={{count}}&id={{$guid}}&r={{$randomInt}}&u={{unknown}}"));
pm.variables.set("envOnly", pm.environment.replaceIn("{{host}} {{nested}}"));
)js"),
        jsonResponse(), scopes);
    QCOMPARE(run.outcome.error, QString());

    DynamicVariables same(1234);
    const QString expected
        = same.expand(QStringLiteral("https://api.example.test/v1?n=3&id={{$guid}}&r={{$randomInt}}&u={{unknown}}"));
    QCOMPARE(run.scopes.local.value(QStringLiteral("text")).toString(), expected);
    QVERIFY(!expected.contains(QStringLiteral("$guid")));
    QCOMPARE(
        run.scopes.local.value(QStringLiteral("envOnly")).toString(), QStringLiteral("api.example.test {{nested}}"));
}

void TestScriptSandbox::iterationData_readsTheDataRow()
{
    ScriptSandbox sandbox(postman());
    ScriptScopes scopes;
    scopes.data.insert(QStringLiteral("user"), QStringLiteral("ada"));
    scopes.data.insert(QStringLiteral("age"), 36);
    const Run run = runTest(sandbox, js(R"js(
pm.test("row", function () {
    pm.expect(pm.iterationData.get("user")).to.equal("ada");
    pm.expect(pm.iterationData.get("age")).to.equal(36);
    pm.expect(pm.iterationData.has("none")).to.be.false;
    pm.expect(pm.iterationData.toObject()).to.eql({user: "ada", age: 36});
    pm.expect(data.user).to.equal("ada");
});
)js"),
        jsonResponse(), scopes);
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("row: pass")}));
}

void TestScriptSandbox::pmRequest_inPreRequest_changesWhatIsSent()
{
    ScriptSandbox sandbox(postman());
    const Run run = runPreRequest(sandbox, js(R"js(
pm.test("reads", function () {
    pm.expect(pm.request.url.toString()).to.equal("https://{{host}}/api/widgets?page=1&size=10");
    pm.expect(pm.request.url.getPath()).to.equal("/api/widgets");
    pm.expect(pm.request.url.query.get("size")).to.equal("10");
    pm.expect(pm.request.method).to.equal("POST");
    pm.expect(pm.request.headers.get("x-trace")).to.equal("t1");
    pm.expect(pm.request.body.raw).to.equal('{"name":"widget"}');
    pm.expect(pm.request.name).to.equal("Create widget");
});
pm.request.headers.add({key: "X-Signature", value: "sig"});
pm.request.headers.upsert({key: "x-trace", value: "t2"});
pm.request.headers.remove("Content-Type");
pm.request.url.query.upsert({key: "page", value: "2"});
pm.request.url.addQueryParams([{key: "q", value: "x"}]);
pm.request.method = "put";
pm.request.body.raw = JSON.stringify({name: "gadget"});
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("reads: pass")}));
    QCOMPARE(run.request.method, QStringLiteral("PUT"));
    QCOMPARE(run.request.url, QStringLiteral("https://{{host}}/api/widgets?page=2&size=10&q=x"));
    const QList<QPair<QString, QString>> headers
        = {{QStringLiteral("X-Trace"), QStringLiteral("t2")}, {QStringLiteral("X-Signature"), QStringLiteral("sig")}};
    QCOMPARE(run.request.headers, headers);
    QCOMPARE(run.request.body, js(R"js({"name":"gadget"})js"));

    const Run replaced = runPreRequest(sandbox, js(R"js(pm.request.url = "http://localhost:8080/other";)js"));
    QCOMPARE(replaced.request.url, QStringLiteral("http://localhost:8080/other"));
}

void TestScriptSandbox::pmRequest_inTestScript_changesNothing()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(pm.request.method = "DELETE"; pm.request.headers.clear();)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(run.request, sampleRequest());
}

void TestScriptSandbox::pmInfo_namesTheEventAndIteration()
{
    ScriptSandbox sandbox(postman());
    const QString source = js(R"js(
pm.test(pm.info.eventName, function () {
    pm.expect(pm.info.iteration).to.equal(1);
    pm.expect(pm.info.iterationCount).to.equal(3);
    pm.expect(pm.info.requestName).to.equal("Create widget");
    pm.expect(pm.info.requestId).to.equal("req-1");
});
)js");
    QCOMPARE(testLines(runPreRequest(sandbox, source).outcome), QStringList({QStringLiteral("prerequest: pass")}));
    QCOMPARE(testLines(runTest(sandbox, source).outcome), QStringList({QStringLiteral("test: pass")}));
}

void TestScriptSandbox::setNextRequest_nameNullOrNotCalled()
{
    ScriptSandbox sandbox(postman());
    QCOMPARE(runTest(sandbox, js(R"js(pm.setNextRequest("Delete widget");)js")).outcome.nextRequest,
        std::optional<QString>(QStringLiteral("Delete widget")));
    QCOMPARE(runTest(sandbox, QStringLiteral("pm.setNextRequest(null);")).outcome.nextRequest,
        std::optional<QString>(QString()));
    QCOMPARE(runTest(sandbox, js(R"js(postman.setNextRequest("Legacy");)js")).outcome.nextRequest,
        std::optional<QString>(QStringLiteral("Legacy")));
    QCOMPARE(runTest(sandbox, QStringLiteral("var x = 1;")).outcome.nextRequest, std::nullopt);
}

void TestScriptSandbox::executionSkipRequest_inPreRequest_skips()
{
    ScriptSandbox sandbox(postman());
    QVERIFY(runPreRequest(sandbox, QStringLiteral("pm.execution.skipRequest();")).outcome.skipRequest);
    QVERIFY(!runPreRequest(sandbox, QStringLiteral("var x = 1;")).outcome.skipRequest);
}

void TestScriptSandbox::console_printsTextAndObjectsAsJson()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
console.log("id", pm.response.json().id, {a: [1, "x"]});
console.info("info line");
console.warn("slow");
console.error(new Error("bad"));
console.log(undefined, null, true);
)js"));
    QCOMPARE(run.outcome.console,
        QStringList({js(R"js(id 7 {"a":[1,"x"]})js"), QStringLiteral("info: info line"), QStringLiteral("warn: slow"),
            QStringLiteral("error: Error: bad"), QStringLiteral("undefined null true")}));
}

void TestScriptSandbox::legacyGlobals_testsResponseAndPostmanObject()
{
    ScriptSandbox sandbox(postman());
    ScriptScopes scopes;
    scopes.environment.insert(QStringLiteral("old"), QStringLiteral("value"));
    const Run run = runTest(sandbox, js(R"js(
tests["code is 200"] = responseCode.code === 200;
tests["body has widget"] = responseBody.indexOf("widget") >= 0;
tests["wrong"] = responseCode.code === 404;
tests["header"] = postman.getResponseHeader("x-request-id") === "abc-123";
tests["env"] = postman.getEnvironmentVariable("old") === "value" && environment.old === "value";
tests["time"] = responseTime === 42.5 && responseHeaders["Content-Type"] === "application/json";
postman.setEnvironmentVariable("new", "n");
postman.setGlobalVariable("gl", "g");
postman.clearEnvironmentVariable("old");
)js"),
        jsonResponse(), scopes);
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome),
        QStringList({QStringLiteral("code is 200: pass"), QStringLiteral("body has widget: pass"),
            QStringLiteral("wrong: fail: tests[\"wrong\"] is false"), QStringLiteral("header: pass"),
            QStringLiteral("env: pass"), QStringLiteral("time: pass")}));
    QCOMPARE(run.scopes.environment.value(QStringLiteral("new")), QJsonValue(QStringLiteral("n")));
    QVERIFY(!run.scopes.environment.contains(QStringLiteral("old")));
    QCOMPARE(run.scopes.globals.value(QStringLiteral("gl")), QJsonValue(QStringLiteral("g")));
}

void TestScriptSandbox::atobBtoa_roundTripBinaryText()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
pm.test("base64", function () {
    pm.expect(btoa("user:pass")).to.equal("dXNlcjpwYXNz");
    pm.expect(atob("dXNlcjpwYXNz")).to.equal("user:pass");
    pm.expect(atob(btoa("\u00ff\u0000\u0080"))).to.equal("\u00ff\u0000\u0080");
});
)js"));
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("base64: pass")}));
}

void TestScriptSandbox::uncaughtException_isTheScriptsErrorWithItsFileLine()
{
    ScriptSandbox sandbox(postman());
    ScriptScopes scopes;
    ScriptRequest request = sampleRequest();
    const ScriptResponse response = jsonResponse();
    // The script begins on line 10 of its file (a .bru file's block, say).
    const ScriptOutcome thrown = sandbox.run(script(QStringLiteral("pm.test(\"before\", () => {});\n"
                                                                   "pm.environment.set(\"seen\", 1);\n"
                                                                   "throw new Error(\"boom\");\n"
                                                                   "pm.environment.set(\"after\", 1);"),
                                                 10),
        ScriptSandbox::Event::Test, scopes, request, &response, sampleInfo());
    QCOMPARE(thrown.error, QStringLiteral("item[0].event[1], line 12: Error: boom"));
    QCOMPARE(testLines(thrown), QStringList({QStringLiteral("before: pass")}));
    QVERIFY(scopes.environment.contains(QStringLiteral("seen")));
    QVERIFY(!scopes.environment.contains(QStringLiteral("after")));
    QVERIFY(!thrown.timedOut);

    QCOMPARE(runTest(sandbox, QStringLiteral("\n\nvar x = notDefined + 1;")).outcome.error,
        QStringLiteral("item[0].event[1], line 3: ReferenceError: notDefined is not defined"));
    // An assertion outside any test, thrown from inside chai: the script's line still.
    QCOMPARE(runTest(sandbox, QStringLiteral("\npm.expect(1).to.equal(2);")).outcome.error,
        QStringLiteral("item[0].event[1], line 2: AssertionError: expected 1 to equal 2"));
    QCOMPARE(runTest(sandbox, QStringLiteral("throw 'plain';")).outcome.error,
        QStringLiteral("item[0].event[1]: Uncaught plain"));
    // Endless recursion is an error of the script, not the end of the program.
    const QString recursion
        = runTest(sandbox, QStringLiteral("function deeper(n) { return deeper(n + 1) + 1; }\ndeeper(0);"))
              .outcome.error;
    QVERIFY2(recursion.startsWith(QStringLiteral("item[0].event[1], line 1: RangeError")), qPrintable(recursion));
    QCOMPARE(testLines(runTest(sandbox, QStringLiteral("pm.test('after', () => {});")).outcome),
        QStringList({QStringLiteral("after: pass")}));
}

void TestScriptSandbox::syntaxError_namesTheLineInTheFile()
{
    ScriptSandbox sandbox(postman());
    ScriptScopes scopes;
    ScriptRequest request = sampleRequest();
    const ScriptResponse response = jsonResponse();
    const ScriptOutcome outcome = sandbox.run(script(QStringLiteral("var a = 1;\nvar b = ;\n"), 20),
        ScriptSandbox::Event::Test, scopes, request, &response, sampleInfo());
    QVERIFY2(
        outcome.error.startsWith(QStringLiteral("item[0].event[1], line 21: SyntaxError")), qPrintable(outcome.error));
    QVERIFY(outcome.tests.isEmpty());

    const QString unclosed = runTest(sandbox, QStringLiteral("pm.test('x', function () {\n")).outcome.error;
    QVERIFY2(unclosed.contains(QStringLiteral("SyntaxError")), qPrintable(unclosed));
}

void TestScriptSandbox::missingFunction_insideTest_failsThatTestNamingIt()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
pm.test("cookie jar", function () { pm.cookies.jar().get("https://x", "a", function () {}); });
pm.test("vault", function () { pm.vault.get("secret"); });
pm.test("cheerio", function () { cheerio.load("<p>"); });
pm.test("still runs", function () {});
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome),
        QStringList(
            {QStringLiteral("cookie jar: fail: TypeError: pm.cookies.jar is not a function in this runner (there "
                            "is no cookie jar)"),
                QStringLiteral("vault: fail: TypeError: pm.vault.get is not a function in this runner"),
                QStringLiteral("cheerio: fail: TypeError: cheerio.load is not a function in this runner"),
                QStringLiteral("still runs: pass")}));
}

void TestScriptSandbox::missingFunction_outsideTest_isTheScriptsError()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, QStringLiteral("pm.test('first', () => {});\npm.iterationData.set('x', 1);"));
    QVERIFY2(run.outcome.error.startsWith(QStringLiteral("item[0].event[1], line 2: TypeError")),
        qPrintable(run.outcome.error));
    QVERIFY2(run.outcome.error.contains(QStringLiteral("'set'")), qPrintable(run.outcome.error));
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("first: pass")}));

    QCOMPARE(runTest(sandbox,
                 QStringLiteral("pm.collectionVariables.set('a', 1);\npm.visualizer.set('<p/>');\n"
                                "pm.unknownThing();"))
                 .outcome.error,
        QStringLiteral("item[0].event[1], line 3: TypeError: pm.unknownThing is not a function in this runner"));
}

void TestScriptSandbox::sendRequest_neverSends_andSaysSo()
{
    ScriptSandbox sandbox(postman());
    const Run inTest = runTest(
        sandbox, js(R"js(pm.test("send", function () { pm.sendRequest("http://127.0.0.1:1/", function () {}); });)js"));
    QCOMPARE(testLines(inTest.outcome),
        QStringList({QStringLiteral("send: fail: Error: pm.sendRequest is not available in this runner: a script may "
                                    "not send requests of its own")}));
    const Run outside = runPreRequest(sandbox, QStringLiteral("pm.sendRequest('http://127.0.0.1:1/');"));
    QCOMPARE(outside.outcome.error,
        QStringLiteral("item[0].event[1], line 1: Error: pm.sendRequest is not available in this runner: a script may "
                       "not send requests of its own"));
}

void TestScriptSandbox::endlessLoop_stopsAtTheTimeLimit_andTheNextScriptRuns()
{
    ScriptSandbox sandbox(postman(300));
    QElapsedTimer elapsed;
    elapsed.start();
    const Run looped = runTest(sandbox,
        QStringLiteral("pm.test('before', () => {});\npm.environment.set('a', 1);\n"
                       "while (true) { try { for (;;) {} } catch (e) {} }"));
    QVERIFY(looped.outcome.timedOut);
    QVERIFY2(elapsed.elapsed() < 5000, qPrintable(QString::number(elapsed.elapsed())));
    QCOMPARE(looped.outcome.error, QStringLiteral("item[0].event[1]: stopped after the time limit of 300 ms"));
    QCOMPARE(testLines(looped.outcome), QStringList({QStringLiteral("before: pass")}));
    QCOMPARE(looped.scopes.environment.value(QStringLiteral("a")), QJsonValue(1));

    const Run next = runTest(sandbox, QStringLiteral("pm.test('next', () => { pm.response.to.have.status(200); });"));
    QVERIFY(!next.outcome.timedOut);
    QCOMPARE(next.outcome.error, QString());
    QCOMPARE(testLines(next.outcome), QStringList({QStringLiteral("next: pass")}));
}

void TestScriptSandbox::endlessLoopInsideTest_stopsTheScriptNotJustTheTest()
{
    ScriptSandbox sandbox(postman(200));
    const Run looped = runTest(
        sandbox, QStringLiteral("pm.test('spins', () => { while (true) {} });\npm.test('never reached', () => {});"));
    QVERIFY(looped.outcome.timedOut);
    QVERIFY(looped.outcome.tests.isEmpty());
    QCOMPARE(runTest(sandbox, QStringLiteral("pm.test('after', () => {});")).outcome.tests.size(), 1);
}

void TestScriptSandbox::declarations_doNotReachTheNextScript()
{
    ScriptSandbox sandbox(postman());
    const Run first
        = runTest(sandbox, QStringLiteral("var declared = 1; let scoped = 2; function helper() {} undeclared = 3;"));
    QCOMPARE(first.outcome.error, QString());
    const Run second = runTest(sandbox, js(R"js(
pm.test("clean", function () {
    pm.expect(typeof declared).to.equal("undefined");
    pm.expect(typeof scoped).to.equal("undefined");
    pm.expect(typeof helper).to.equal("undefined");
    pm.expect(typeof undeclared).to.equal("undefined");
});
)js"));
    QCOMPARE(testLines(second.outcome), QStringList({QStringLiteral("clean: pass")}));
}

void TestScriptSandbox::topLevelConstNamedLikeALegacyGlobal_isAllowed()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
const data = pm.response.json();
let request = data.name;
pm.test("shadowed", () => pm.expect(request).to.equal("widget"));
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("shadowed: pass")}));
}

void TestScriptSandbox::setTimeout_runsAfterTheBody()
{
    ScriptSandbox sandbox(postman());
    const Run run = runTest(sandbox, js(R"js(
var order = [];
setTimeout(function () { order.push("late"); pm.environment.set("order", order.join(",")); }, 50);
setTimeout(function () { order.push("early"); }, 5);
var cancelled = setTimeout(function () { order.push("cancelled"); }, 1);
clearTimeout(cancelled);
order.push("body");
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(run.scopes.environment.value(QStringLiteral("order")), QJsonValue(QStringLiteral("body,early,late")));
}

void TestScriptSandbox::typicalTestScript_costOfOneRun()
{
    ScriptSandbox sandbox(postman());
    const QString source = js(R"js(
pm.test("Status code is 200", function () { pm.response.to.have.status(200); });
pm.test("Body has the widget", function () {
    const body = pm.response.json();
    pm.expect(body.name).to.eql("widget");
    pm.expect(body.tags).to.include("a");
    pm.expect(body).to.have.property("id");
});
pm.test("Content-Type is JSON", function () { pm.response.to.have.header("Content-Type"); });
pm.test("Fast", function () { pm.expect(pm.response.responseTime).to.be.below(500); });
pm.environment.set("widgetId", pm.response.json().id);
)js");
    const ScriptResponse response = jsonResponse();
    // The first run loads chai; the benchmark measures the runs after it.
    QCOMPARE(runTest(sandbox, source, response).outcome.tests.size(), 4);
    QBENCHMARK
    {
        const Run run = runTest(sandbox, source, response);
        QCOMPARE(run.outcome.tests.size(), 4);
    }
}

void TestScriptSandbox::newSandbox_costOfItsFirstRun()
{
    // A new engine with the sandbox's own JavaScript, then a script that loads chai.
    QBENCHMARK
    {
        ScriptSandbox sandbox(postman());
        QCOMPARE(
            runTest(sandbox, QStringLiteral("pm.test('t', () => pm.expect(1).to.equal(1));")).outcome.tests.size(), 1);
    }
}

QTEST_GUILESS_MAIN(TestScriptSandbox)
#include "tst_scriptsandbox.moc"
