#include "core/scripting/scriptsandbox.h"
#include "sandboxtesting.h"

#include <QTest>

using namespace RetryLab;
using namespace SandboxTesting;

// The libraries a script may require(), each doing a real thing, and the chai
// chains real collections use, through pm.expect.
class TestScriptLibraries final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void libraries_areThePostmanSandboxs();
    void require_eachLibrary_doesItsJob_data();
    void require_eachLibrary_doesItsJob();
    void require_unknownLibrary_failsNamingIt();
    void require_keepsALibraryForTheSandboxsNextScripts();
    void chaiChains_passOrFailWithChaisMessage_data();
    void chaiChains_passOrFailWithChaisMessage();
    void firstRequire_cost_data();
    void firstRequire_cost();
};

void TestScriptLibraries::libraries_areThePostmanSandboxs()
{
    QCOMPARE(ScriptSandbox::libraries(),
        QStringList({QStringLiteral("moment"), QStringLiteral("lodash"), QStringLiteral("crypto-js"),
            QStringLiteral("uuid"), QStringLiteral("chai"), QStringLiteral("ajv"), QStringLiteral("tv4")}));
}

void TestScriptLibraries::require_eachLibrary_doesItsJob_data()
{
    QTest::addColumn<QString>("source");
    QTest::addRow("moment") << js(R"js(
const moment = require("moment");
const at = moment.utc("2024-02-29T13:45:00Z");
pm.expect(at.format("YYYY-MM-DD HH:mm")).to.equal("2024-02-29 13:45");
pm.expect(at.clone().add(1, "day").format("MMM D")).to.equal("Mar 1");
pm.expect(moment.utc("2024-03-01").diff(at, "hours")).to.equal(10);
)js");
    QTest::addRow("lodash") << js(R"js(
const lodash = require("lodash");
pm.expect(lodash.chunk([1, 2, 3, 4, 5], 2)).to.eql([[1, 2], [3, 4], [5]]);
pm.expect(lodash.get({a: {b: [{c: 3}]}}, "a.b[0].c")).to.equal(3);
pm.expect(_.uniq([1, 1, 2])).to.eql([1, 2]);
pm.expect(_.VERSION).to.equal("4.17.21");
)js");
    QTest::addRow("crypto-js") << js(R"js(
const CryptoJS = require("crypto-js");
pm.expect(CryptoJS.HmacSHA256("The quick brown fox jumps over the lazy dog", "key").toString())
    .to.equal("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
pm.expect(CryptoJS.MD5("").toString()).to.equal("d41d8cd98f00b204e9800998ecf8427e");
pm.expect(CryptoJS.enc.Base64.stringify(CryptoJS.enc.Utf8.parse("hi"))).to.equal("aGk=");
// A passphrase draws a random salt: crypto.getRandomValues.
const secret = CryptoJS.AES.encrypt("payload", "passphrase").toString();
pm.expect(CryptoJS.AES.decrypt(secret, "passphrase").toString(CryptoJS.enc.Utf8)).to.equal("payload");
)js");
    QTest::addRow("crypto-js global") << js(R"js(
pm.expect(CryptoJS.SHA1("abc").toString()).to.equal("a9993e364706816aba3e25717850c26c9cd0d89d");
)js");
    QTest::addRow("uuid") << js(R"js(
const uuid = require("uuid");
const shape = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const a = uuid.v4(), b = uuid.v4();
pm.expect(a).to.match(shape);
pm.expect(b).to.match(shape);
pm.expect(a).to.not.equal(b);
pm.expect(uuid.validate(a)).to.be.true;
)js");
    QTest::addRow("chai") << js(R"js(
const chai = require("chai");
chai.assert.strictEqual(pm.response.code, 200);
chai.expect([1, 2]).to.have.lengthOf(2);
pm.expect(() => chai.assert.isNull(1)).to.throw("expected 1 to equal null");
)js");
    QTest::addRow("ajv") << js(R"js(
const Ajv = require("ajv");
const ajv = new Ajv({allErrors: true});
const schema = {type: "object", required: ["id", "name"],
                properties: {id: {type: "integer", minimum: 1}, name: {type: "string"}}};
pm.expect(ajv.validate(schema, pm.response.json())).to.be.true;
pm.expect(ajv.validate(schema, {id: 0})).to.be.false;
pm.expect(ajv.errorsText()).to.include("should have required property 'name'");
)js");
    QTest::addRow("tv4") << js(R"js(
const schema = {type: "object", required: ["id"], properties: {id: {type: "number"}}};
pm.expect(tv4.validate(pm.response.json(), schema)).to.be.true;
pm.expect(require("tv4").validate({id: "x"}, schema)).to.be.false;
pm.expect(tv4.error.message).to.equal("Invalid type: string (expected number)");
)js");
}

void TestScriptLibraries::require_eachLibrary_doesItsJob()
{
    QFETCH(QString, source);
    ScriptSandbox sandbox(ScriptSandbox::Options{});
    const Run run
        = runTest(sandbox, QStringLiteral("pm.test('library', function () {") + source + QStringLiteral("});"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome), QStringList({QStringLiteral("library: pass")}));
}

void TestScriptLibraries::require_unknownLibrary_failsNamingIt()
{
    ScriptSandbox sandbox(ScriptSandbox::Options{});
    const Run run
        = runTest(sandbox, QStringLiteral("pm.test('fs', () => { require('fs'); });\nrequire('child_process');"));
    QCOMPARE(testLines(run.outcome),
        QStringList({QStringLiteral("fs: fail: ReferenceError: require('fs'): no such library in this runner (it has "
                                    "moment, lodash, crypto-js, uuid, chai, ajv, tv4)")}));
    QVERIFY2(run.outcome.error.startsWith(QStringLiteral("item[0].event[1], line 2: ReferenceError: "
                                                         "require('child_process'): no such library")),
        qPrintable(run.outcome.error));
}

void TestScriptLibraries::require_keepsALibraryForTheSandboxsNextScripts()
{
    ScriptSandbox sandbox(ScriptSandbox::Options{});
    QCOMPARE(runTest(sandbox, QStringLiteral("require('lodash').marker = 'kept';")).outcome.error, QString());
    const Run second
        = runTest(sandbox, QStringLiteral("pm.test('cached', () => pm.expect(_.marker).to.equal('kept'));"));
    QCOMPARE(testLines(second.outcome), QStringList({QStringLiteral("cached: pass")}));

    ScriptSandbox other(ScriptSandbox::Options{});
    const Run fresh = runTest(other, QStringLiteral("pm.test('own', () => pm.expect(_.marker).to.be.undefined);"));
    QCOMPARE(testLines(fresh.outcome), QStringList({QStringLiteral("own: pass")}));
}

void TestScriptLibraries::chaiChains_passOrFailWithChaisMessage_data()
{
    QTest::addColumn<QString>("assertion");
    QTest::addColumn<QString>("failure"); // empty: passes

    QTest::addRow("equal") << QStringLiteral("pm.expect(pm.response.code).to.equal(200)") << QString();
    QTest::addRow("equal fails") << QStringLiteral("pm.expect(503).to.equal(200)")
                                 << QStringLiteral("expected 503 to equal 200");
    QTest::addRow("eql") << QStringLiteral("pm.expect(pm.response.json().tags).to.eql(['a', 'b'])") << QString();
    QTest::addRow("eql fails") << QStringLiteral("pm.expect({a: 1}).to.eql({a: 2})")
                               << QStringLiteral("expected { a: 1 } to deeply equal { a: 2 }");
    QTest::addRow("above") << QStringLiteral("pm.expect(5).to.be.above(4)") << QString();
    QTest::addRow("above fails") << QStringLiteral("pm.expect(3).to.be.above(4)")
                                 << QStringLiteral("expected 3 to be above 4");
    QTest::addRow("below") << QStringLiteral("pm.expect(pm.response.responseTime).to.be.below(1000)") << QString();
    QTest::addRow("have.property") << QStringLiteral("pm.expect(pm.response.json()).to.have.property('id', 7)")
                                   << QString();
    QTest::addRow("have.property fails") << QStringLiteral("pm.expect({}).to.have.property('id')")
                                         << QStringLiteral("expected {} to have property 'id'");
    QTest::addRow("include string") << QStringLiteral("pm.expect(pm.response.text()).to.include('widget')")
                                    << QString();
    QTest::addRow("include array fails") << QStringLiteral("pm.expect([1, 2]).to.include(3)")
                                         << QStringLiteral("expected [ 1, 2 ] to include 3");
    QTest::addRow("be.ok") << QStringLiteral("pm.expect('x').to.be.ok") << QString();
    QTest::addRow("be.ok fails") << QStringLiteral("pm.expect('').to.be.ok")
                                 << QStringLiteral("expected '' to be truthy");
    QTest::addRow("be.an") << QStringLiteral("pm.expect(pm.response.json().tags).to.be.an('array')") << QString();
    QTest::addRow("be.an fails") << QStringLiteral("pm.expect('x').to.be.an('object')")
                                 << QStringLiteral("expected 'x' to be an object");
    QTest::addRow("not") << QStringLiteral("pm.expect(pm.response.code).to.not.equal(500)") << QString();
    QTest::addRow("not fails") << QStringLiteral("pm.expect(1).to.not.equal(1)")
                               << QStringLiteral("expected 1 to not equal 1");
    QTest::addRow("have.status") << QStringLiteral("pm.expect(pm.response).to.have.status(200)") << QString();
    QTest::addRow("have.status fails") << QStringLiteral("pm.expect(pm.response).to.have.status(201)")
                                       << QStringLiteral("expected response to have status code 201 but got 200");
    QTest::addRow("not.have.status") << QStringLiteral("pm.response.to.not.have.status(404)") << QString();
    QTest::addRow("have.header") << QStringLiteral("pm.expect(pm.response).to.have.header('content-type')")
                                 << QString();
    QTest::addRow("oneOf") << QStringLiteral("pm.expect(pm.response.code).to.be.oneOf([200, 201])") << QString();
    QTest::addRow("message") << QStringLiteral("pm.expect(1, 'the count').to.equal(2)")
                             << QStringLiteral("the count: expected 1 to equal 2");
}

void TestScriptLibraries::chaiChains_passOrFailWithChaisMessage()
{
    QFETCH(QString, assertion);
    QFETCH(QString, failure);
    ScriptSandbox sandbox(ScriptSandbox::Options{});
    const Run run
        = runTest(sandbox, QStringLiteral("pm.test('t', function () { ") + assertion + QStringLiteral("; });"));
    QCOMPARE(run.outcome.error, QString());
    QCOMPARE(testLines(run.outcome),
        QStringList({failure.isEmpty() ? QStringLiteral("t: pass") : QStringLiteral("t: fail: ") + failure}));
}

void TestScriptLibraries::firstRequire_cost_data()
{
    QTest::addColumn<QString>("library");
    for (const QString &library : ScriptSandbox::libraries())
        QTest::addRow("%s", qPrintable(library)) << library;
}

void TestScriptLibraries::firstRequire_cost()
{
    QFETCH(QString, library);
    ScriptSandbox sandbox(ScriptSandbox::Options{});
    const QString source = QStringLiteral("require('%1');").arg(library);
    QBENCHMARK_ONCE
    {
        QCOMPARE(runTest(sandbox, source).outcome.error, QString());
    }
}

QTEST_GUILESS_MAIN(TestScriptLibraries)
#include "tst_scriptlibraries.moc"
