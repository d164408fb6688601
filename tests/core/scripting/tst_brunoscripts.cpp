#include "core/collections/dynamicvariables.h"
#include "core/scripting/scriptsandbox.h"
#include "sandboxtesting.h"

#include <QTest>

using namespace RetryLab;
using namespace SandboxTesting;
using Core::DynamicVariables;
using Core::ScriptDialect;

namespace {

ScriptSandbox::Options bruno(int timeLimitMs = 5000, DynamicVariables *dynamic = nullptr)
{
    ScriptSandbox::Options options;
    options.dialect = ScriptDialect::Bruno;
    options.timeLimitMs = timeLimitMs;
    options.dynamic = dynamic;
    return options;
}

} // namespace

// Bruno's script API: test, expect, res, req, bru.
class TestBrunoScripts final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void testAndExpect_recordPassAndFailure();
    void res_givesStatusHeadersParsedBodyAndTime();
    void res_textBody_staysText();
    void req_inPreRequest_changesWhatIsSent();
    void bru_variables_goToTheirScopes();
    void bru_getProcessEnv_isUndefinedAndSaysSo();
    void bru_runner_skipRequestAndNextRequest();
    void bru_interpolate_usesVariablesAndDynamicValues();
    void bru_missingFunctions_failNamingThem();
    void require_worksAsInPostmanScripts();
    void pmApi_isNotThere();
    void endlessLoop_stopsAtTheTimeLimit();
};

void TestBrunoScripts::testAndExpect_recordPassAndFailure()
{
    ScriptSandbox sandbox(bruno());
    const Run run = runTest(sandbox, js(R"js(
test("status is 200", function () { expect(res.getStatus()).to.equal(200); });
test("status is 201", function () { expect(res.status).to.equal(201); });
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome),
        QStringList(
            {QStringLiteral("status is 200: pass"), QStringLiteral("status is 201: fail: expected 200 to equal 201")}));
}

void TestBrunoScripts::res_givesStatusHeadersParsedBodyAndTime()
{
    ScriptSandbox sandbox(bruno());
    const Run run = runTest(sandbox, js(R"js(
test("res", function () {
    expect(res.status).to.equal(200);
    expect(res.statusText).to.equal("OK");
    expect(res.getStatusText()).to.equal("OK");
    expect(res.headers["content-type"]).to.equal("application/json");
    expect(res.getHeader("X-Request-Id")).to.equal("abc-123");
    expect(res.getHeaders()).to.have.property("x-request-id");
    expect(res.body.name).to.equal("widget");
    expect(res.getBody().tags).to.eql(["a", "b"]);
    expect(res("nested.ok")).to.equal(true);
    expect(res("tags[1]")).to.equal("b");
    expect(res.responseTime).to.equal(42.5);
    expect(res.getResponseTime()).to.be.below(100);
});
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("res: pass")}));
}

void TestBrunoScripts::res_textBody_staysText()
{
    ScriptSandbox sandbox(bruno());
    ScriptResponse response = jsonResponse(200, QStringLiteral("OK"), "plain words");
    response.headers = {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/plain")}};
    const Run run = runTest(sandbox,
        QStringLiteral("test('text', () => { expect(res.body).to.equal('plain words'); "
                       "expect(res.getBody()).to.be.a('string'); });"),
        response);
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("text: pass")}));
}

void TestBrunoScripts::req_inPreRequest_changesWhatIsSent()
{
    ScriptSandbox sandbox(bruno());
    const Run run = runPreRequest(sandbox, js(R"js(
test("reads", function () {
    expect(req.getUrl()).to.equal("https://{{host}}/api/widgets?page=1&size=10");
    expect(req.getMethod()).to.equal("POST");
    expect(req.getHeader("x-trace")).to.equal("t1");
    expect(req.getHeaders()).to.have.property("Content-Type");
    expect(req.getBody()).to.eql({name: "widget"});
    expect(req.getName()).to.equal("Create widget");
});
req.setUrl("http://localhost:9000/widgets");
req.setMethod("patch");
req.setHeader("X-Trace", "t9");
req.setHeader("Authorization", "Bearer x");
req.deleteHeader("content-type");
req.setBody({name: "gadget"});
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("reads: pass")}));
    QCOMPARE(run.request.url, QStringLiteral("http://localhost:9000/widgets"));
    QCOMPARE(run.request.method, QStringLiteral("PATCH"));
    const QList<QPair<QString, QString>> headers = {{QStringLiteral("X-Trace"), QStringLiteral("t9")},
        {QStringLiteral("Authorization"), QStringLiteral("Bearer x")}};
    QCOMPARE(run.request.headers, headers);
    QCOMPARE(run.request.body, js(R"js({"name":"gadget"})js"));
}

void TestBrunoScripts::bru_variables_goToTheirScopes()
{
    ScriptSandbox sandbox(bruno());
    ScriptScopes scopes;
    scopes.environment.insert(QStringLiteral("baseUrl"), QStringLiteral("http://localhost"));
    scopes.collection.insert(QStringLiteral("apiVersion"), QStringLiteral("v2"));
    const Run run = runTest(sandbox, js(R"js(
bru.setVar("widgetId", res.body.id);
bru.setEnvVar("token", "t-1");
bru.setGlobalEnvVar("shared", 3);
test("reads", function () {
    expect(bru.getVar("widgetId")).to.equal(7);
    expect(bru.getEnvVar("baseUrl")).to.equal("http://localhost");
    expect(bru.getCollectionVar("apiVersion")).to.equal("v2");
    expect(bru.getVar("none")).to.be.undefined;
});
)js"),
        jsonResponse(), scopes);
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("reads: pass")}));
    QCOMPARE(run.scopes.local.value(QStringLiteral("widgetId")), QJsonValue(7));
    QCOMPARE(run.scopes.environment.value(QStringLiteral("token")), QJsonValue(QStringLiteral("t-1")));
    QCOMPARE(run.scopes.globals.value(QStringLiteral("shared")), QJsonValue(3));
}

void TestBrunoScripts::bru_getProcessEnv_isUndefinedAndSaysSo()
{
    ScriptSandbox sandbox(bruno());
    const Run run = runTest(
        sandbox, QStringLiteral("test('env', () => { expect(bru.getProcessEnv('HOME')).to.be.undefined; });"));
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("env: pass")}));
    QCOMPARE(run.outcome.console,
        QStringList({QStringLiteral("warn: bru.getProcessEnv(\"HOME\"): the process environment is not available to "
                                    "scripts in this runner; it returns undefined")}));
}

void TestBrunoScripts::bru_runner_skipRequestAndNextRequest()
{
    ScriptSandbox sandbox(bruno());
    const Run skipped = runPreRequest(sandbox, QStringLiteral("bru.runner.skipRequest();"));
    QVERIFY(skipped.outcome.skipRequest);
    QCOMPARE(skipped.outcome.error, QString());
    QCOMPARE(runTest(sandbox, QStringLiteral("bru.setNextRequest('Login');")).outcome.nextRequest,
        std::optional<QString>(QStringLiteral("Login")));
    QCOMPARE(runTest(sandbox, QStringLiteral("bru.runner.stopExecution();")).outcome.nextRequest,
        std::optional<QString>(QString()));
    QVERIFY(runTest(sandbox, QStringLiteral("bru.runner.skipRequest();"))
                .outcome.error.contains(QStringLiteral("pre-request script only")));
}

void TestBrunoScripts::bru_interpolate_usesVariablesAndDynamicValues()
{
    DynamicVariables dynamic(99);
    ScriptSandbox sandbox(bruno(5000, &dynamic));
    ScriptScopes scopes;
    scopes.environment.insert(QStringLiteral("host"), QStringLiteral("example.test"));
    const Run run = runPreRequest(
        sandbox, QStringLiteral("bru.setVar('u', bru.interpolate('{{host}}/{{$randomInt}}'));"), scopes);
    DynamicVariables same(99);
    QCOMPARE(run.scopes.local.value(QStringLiteral("u")).toString(),
        same.expand(QStringLiteral("example.test/{{$randomInt}}")));
}

void TestBrunoScripts::bru_missingFunctions_failNamingThem()
{
    ScriptSandbox sandbox(bruno());
    const Run run = runTest(sandbox, js(R"js(
test("send", function () { bru.sendRequest({url: "http://127.0.0.1:1/"}); });
test("cookies", function () { bru.cookies.jar(); });
)js"));
    QCOMPARE(testLines(run.outcome),
        QStringList({QStringLiteral("send: fail: Error: bru.sendRequest is not available in this runner: a script may "
                                    "not send requests of its own"),
            QStringLiteral("cookies: fail: TypeError: bru.cookies.jar is not a function in this runner")}));
}

void TestBrunoScripts::require_worksAsInPostmanScripts()
{
    ScriptSandbox sandbox(bruno());
    const Run run = runTest(sandbox, js(R"js(
const CryptoJS = require("crypto-js");
const _ = require("lodash");
test("libraries", function () {
    expect(CryptoJS.SHA256("abc").toString()).to.equal("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(_.sum([1, 2, 3])).to.equal(6);
});
)js"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("libraries: pass")}));
}

void TestBrunoScripts::pmApi_isNotThere()
{
    ScriptSandbox sandbox(bruno());
    QCOMPARE(runTest(sandbox, QStringLiteral("pm.test('x', () => {});")).outcome.error,
        QStringLiteral("item[0].event[1], line 1: ReferenceError: pm is not defined"));
}

void TestBrunoScripts::endlessLoop_stopsAtTheTimeLimit()
{
    ScriptSandbox sandbox(bruno(150));
    QVERIFY(runTest(sandbox, QStringLiteral("for (;;) {}")).outcome.timedOut);
    QCOMPARE(
        testLines(runTest(sandbox, QStringLiteral("test('after', () => expect(res.status).to.equal(200));")).outcome),
        QStringList({QStringLiteral("after: pass")}));
}

QTEST_GUILESS_MAIN(TestBrunoScripts)
#include "tst_brunoscripts.moc"
