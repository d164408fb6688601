// retrylab run COLLECTION: Postman, Bruno, RetryLab and HAR files run by the
// built binary against the suite's fault server on 127.0.0.1, with their exit
// status, console, JUnit and JSON report checked.
#include "commandtesting.h"

#include "core/collections/collectionjson.h"
#include "core/export/reportjson.h"
#include "core/faultserver/faultserver.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;
using CommandTesting::Outcome;

namespace {

QJsonObject script(const char *listen, const QStringList &lines)
{
    return QJsonObject{{QStringLiteral("listen"), QString::fromLatin1(listen)},
        {QStringLiteral("script"), QJsonObject{{QStringLiteral("exec"), QJsonArray::fromStringList(lines)}}}};
}

QJsonObject postmanRequest(
    const QString &name, const QString &url, const QStringList &tests = {}, const QStringList &preRequest = {})
{
    QJsonArray events;
    if (!preRequest.isEmpty())
        events.append(script("prerequest", preRequest));
    if (!tests.isEmpty())
        events.append(script("test", tests));
    return QJsonObject{{QStringLiteral("name"), name},
        {QStringLiteral("request"),
            QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")}, {QStringLiteral("url"), url}}},
        {QStringLiteral("event"), events}};
}

QByteArray postmanCollection(const QJsonArray &items)
{
    const QJsonObject info{{QStringLiteral("name"), QStringLiteral("Suite")},
        {QStringLiteral("schema"),
            QStringLiteral("https://schema.getpostman.com/json/collection/v2.1.0/collection.json")}};
    return QJsonDocument(QJsonObject{{QStringLiteral("info"), info}, {QStringLiteral("item"), items}}).toJson();
}

QStringList args(std::initializer_list<QString> words)
{
    return QStringList(words);
}

} // namespace

class tst_RunCollectionCommand final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
        QVERIFY(m_dir.isValid());
        m_base = m_server.baseUrl().toString();
        QVERIFY(CommandTesting::write(path("env.postman.json"),
            QJsonDocument(QJsonObject{{QStringLiteral("name"), QStringLiteral("Local")},
                              {QStringLiteral("values"),
                                  QJsonArray{QJsonObject{{QStringLiteral("key"), QStringLiteral("base")},
                                      {QStringLiteral("value"), m_base}, {QStringLiteral("enabled"), true}}}}})
                .toJson()));
    }

    void postman_passingAndFailingTests_giveExitZeroAndOne()
    {
        const QString passing = path("passing.json");
        QVERIFY(CommandTesting::write(passing,
            postmanCollection({postmanRequest(QStringLiteral("read"), QStringLiteral("{{base}}/occ/cli-read"),
                                   {QStringLiteral("pm.test('is 200', () => pm.response.to.have.status(200));"),
                                       QStringLiteral("pm.environment.set('value', pm.response.json().value);")}),
                postmanRequest(QStringLiteral("use"), QStringLiteral("{{base}}/status/204?value={{value}}"),
                    {QStringLiteral("pm.test('is 204', () => pm.expect(pm.response.code).to.equal(204));")})})));
        Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), passing, QStringLiteral("--env"),
            path("env.postman.json"), QStringLiteral("--seed"), QStringLiteral("7")}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.out + outcome.err));
        QVERIFY(outcome.out.contains(QStringLiteral("✓ is 200")));
        QVERIFY(outcome.out.contains(QStringLiteral("/status/204?value=0")));

        const QString failing = path("failing.json");
        QVERIFY(CommandTesting::write(failing,
            postmanCollection({postmanRequest(QStringLiteral("wrong"), QStringLiteral("{{base}}/status/404"),
                {QStringLiteral("pm.test('is 200', () => pm.response.to.have.status(200));")})})));
        outcome = CommandTesting::run(
            args({QStringLiteral("run"), failing, QStringLiteral("--env"), path("env.postman.json")}));
        QCOMPARE(outcome.exitCode, 1);
        QVERIFY2(
            outcome.out.contains(QStringLiteral("✗ is 200: expected response to have status code 200 but got 404")),
            qPrintable(outcome.out));
    }

    void postman_withPolicy_passesWhatNewmanWouldFail_andSaysSo()
    {
        const QString file = path("flaky.json");
        QVERIFY(CommandTesting::write(file,
            postmanCollection({postmanRequest(QStringLiteral("flaky"), QStringLiteral("{{base}}/fail/2?key={{$guid}}"),
                {QStringLiteral("pm.test('is 200', () => pm.response.to.have.status(200));")})})));
        Outcome once = CommandTesting::run(
            args({QStringLiteral("run"), file, QStringLiteral("--env"), path("env.postman.json")}));
        QCOMPARE(once.exitCode, 1);

        const QString junit = path("flaky.xml");
        const QString report = path("flaky.report.json");
        const Outcome retried = CommandTesting::run(args(
            {QStringLiteral("run"), file, QStringLiteral("--env"), path("env.postman.json"), QStringLiteral("--policy"),
                QStringLiteral("aws-standard"), QStringLiteral("--junit"), junit, QStringLiteral("--report"), report}));
        QVERIFY2(retried.exitCode == 0, qPrintable(retried.out + retried.err));
        QVERIFY(retried.out.contains(QStringLiteral("after 3 attempts: 503 → 503 → 200")));
        QVERIFY(retried.out.contains(QStringLiteral("passed after retries")));
        const QByteArray xml = CommandTesting::read(junit);
        QVERIFY(xml.contains(R"(<property name="retried" value="true"/>)"));
        QVERIFY(xml.contains(R"(<property name="attempts" value="3"/>)"));
        const auto read = ReportJson::readFile(report);
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(read->run.attempts.size(), 3);
        QCOMPARE(read->run.attempts.at(0).httpStatus, 503);
        QCOMPARE(read->run.attempts.at(2).httpStatus, 200);
        QCOMPARE(read->expectations.size(), 1);
        QVERIFY(read->expectations.at(0).passed);
        QCOMPARE(read->expectations.at(0).name, QStringLiteral("flaky › is 200"));
    }

    void postman_collectionOAuth2_inheritedTokenFetchedOnceAndSecretHidden()
    {
        // The collection's client-credentials auth, inherited by both requests: the token endpoint is the
        // fault server's, the client secret an environment variable.
        const QJsonArray oauth{
            QJsonObject{{QStringLiteral("key"), QStringLiteral("grant_type")},
                {QStringLiteral("value"), QStringLiteral("client_credentials")}},
            QJsonObject{{QStringLiteral("key"), QStringLiteral("accessTokenUrl")},
                {QStringLiteral("value"), QStringLiteral("{{base}}/oauth/token")}},
            QJsonObject{{QStringLiteral("key"), QStringLiteral("clientId")},
                {QStringLiteral("value"), QStringLiteral("retrylab")}},
            QJsonObject{{QStringLiteral("key"), QStringLiteral("clientSecret")},
                {QStringLiteral("value"), QStringLiteral("retrylab-secret")}},
            QJsonObject{
                {QStringLiteral("key"), QStringLiteral("tokenRequestParams")}, {QStringLiteral("value"), QJsonArray()}},
        };
        QJsonObject collection = QJsonDocument::fromJson(
            postmanCollection({postmanRequest(QStringLiteral("first"), QStringLiteral("{{base}}/oauth/protected"),
                                   {QStringLiteral("pm.test('is 200', () => pm.response.to.have.status(200));")}),
                postmanRequest(QStringLiteral("second"), QStringLiteral("{{base}}/oauth/protected"),
                    {QStringLiteral("pm.test('is 200', () => pm.response.to.have.status(200));")})}))
                                     .object();
        collection.insert(QStringLiteral("auth"),
            QJsonObject{{QStringLiteral("type"), QStringLiteral("oauth2")}, {QStringLiteral("oauth2"), oauth}});
        const QString file = path("oauth.json");
        QVERIFY(CommandTesting::write(file, QJsonDocument(collection).toJson()));
        const QString report = path("oauth.report.json");
        const Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), file, QStringLiteral("--env"),
            path("env.postman.json"), QStringLiteral("--report"), report}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.out + outcome.err));
        QVERIFY(!outcome.out.contains(QStringLiteral("retrylab-secret")));
        QVERIFY(!outcome.err.contains(QStringLiteral("retrylab-secret")));
        const auto read = ReportJson::readFile(report);
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(read->run.attempts.size(), 2);
        // One token for both: the first attempt fetched it, the second took it from the cache.
        QCOMPARE(read->run.attempts.at(0).redirects.size(), 1);
        QCOMPARE(read->run.attempts.at(0).redirects.at(0).kind, RedirectHop::Kind::Token);
        QVERIFY(read->run.attempts.at(1).redirects.isEmpty());
        QVERIFY(!CommandTesting::read(report).contains("retrylab-secret"));
    }

    void dataFile_runsOneIterationPerRow()
    {
        const QString file = path("rows.json");
        QVERIFY(CommandTesting::write(file,
            postmanCollection({postmanRequest(QStringLiteral("row"),
                QStringLiteral("{{base}}/status/{{code}}?who={{who}}"),
                {QStringLiteral("pm.test('code from the row', () => "
                                "pm.expect(pm.response.code).to.equal(Number(pm.iterationData.get('code'))));")})})));
        const QString data = path("rows.csv");
        QVERIFY(CommandTesting::write(data, "code,who\n200,ada\n201,bo\n202,\"cy, jr\"\n"));
        const QString report = path("rows.report.json");
        const Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), file, QStringLiteral("--env"),
            path("env.postman.json"), QStringLiteral("--data"), data, QStringLiteral("--report"), report}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.out + outcome.err));
        const auto read = ReportJson::readFile(report);
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(read->run.attempts.size(), 3);
        QStringList seen;
        for (const AttemptRecord &attempt : read->run.attempts)
            seen.append(
                QString::number(*attempt.httpStatus) + QLatin1Char(' ') + attempt.url.query(QUrl::FullyDecoded));
        QCOMPARE(seen,
            (QStringList{
                QStringLiteral("200 who=ada"), QStringLiteral("201 who=bo"), QStringLiteral("202 who=cy, jr")}));
        QVERIFY(outcome.out.contains(QStringLiteral("iteration 3/3")));
    }

    void folderIterationsAndBail()
    {
        QJsonObject folder{{QStringLiteral("name"), QStringLiteral("Orders")},
            {QStringLiteral("item"),
                QJsonArray{postmanRequest(QStringLiteral("list"), QStringLiteral("{{base}}/status/200")),
                    postmanRequest(QStringLiteral("broken"), QStringLiteral("{{base}}/status/500"),
                        {QStringLiteral("pm.test('ok', () => pm.response.to.be.ok);")}),
                    postmanRequest(QStringLiteral("after"), QStringLiteral("{{base}}/status/200"))}}};
        const QString file = path("folders.json");
        QVERIFY(CommandTesting::write(file,
            postmanCollection(
                {postmanRequest(QStringLiteral("outside"), QStringLiteral("{{base}}/status/200")), folder})));
        const QString report = path("folders.report.json");
        Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), file, QStringLiteral("--env"),
            path("env.postman.json"), QStringLiteral("--folder"), QStringLiteral("Orders"),
            QStringLiteral("--iterations"), QStringLiteral("2"), QStringLiteral("--report"), report}));
        QCOMPARE(outcome.exitCode, 1);
        // Both iterations had a failed request.
        QVERIFY2(QRegularExpression(QStringLiteral("iterations +2 +2\\n")).match(outcome.out).hasMatch(),
            qPrintable(outcome.out));
        auto read = ReportJson::readFile(report);
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(read->run.attempts.size(), 6);

        outcome = CommandTesting::run(args({QStringLiteral("run"), file, QStringLiteral("--env"),
            path("env.postman.json"), QStringLiteral("--bail"), QStringLiteral("--report"), report}));
        QCOMPARE(outcome.exitCode, 1);
        read = ReportJson::readFile(report);
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(read->run.attempts.size(), 3);
        QVERIFY(outcome.out.contains(QStringLiteral("--bail")));
    }

    void bruno_folderWithEnvironmentAssertsAndTests()
    {
        const QString folder = path("bruno");
        QVERIFY(QDir().mkpath(folder + QStringLiteral("/environments")));
        QVERIFY(QDir().mkpath(folder + QStringLiteral("/orders")));
        QVERIFY(CommandTesting::write(
            folder + QStringLiteral("/bruno.json"), R"({"version": "1", "name": "Shop", "type": "collection"})"));
        QVERIFY(CommandTesting::write(folder + QStringLiteral("/environments/Local.bru"),
            "vars {\n  base: " + m_base.toUtf8() + "\n  resource: bruno-occ\n}\n"));
        QVERIFY(CommandTesting::write(folder + QStringLiteral("/orders/read.bru"),
            "meta {\n  name: read\n  seq: 1\n}\n\nget {\n  url: {{base}}/occ/{{resource}}\n  body: none\n  auth: "
            "none\n}\n\n"
            "vars:post-response {\n  current: res.body.value\n}\n\n"
            "assert {\n  res.status: eq 200\n  res.body.value: isNumber\n}\n\n"
            "tests {\n  test(\"has an etag\", function() {\n    expect(res.getHeader(\"etag\")).to.be.a(\"string\");\n "
            " });\n}\n"));
        QVERIFY(CommandTesting::write(folder + QStringLiteral("/orders/use.bru"),
            "meta {\n  name: use\n  seq: 2\n}\n\nget {\n  url: {{base}}/status/201?current={{current}}\n  body: none\n "
            " auth: none\n}\n\n"
            "assert {\n  res.status: eq 201\n}\n"));
        const QString junit = path("bruno.xml");
        Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), folder, QStringLiteral("--env"),
            QStringLiteral("Local"), QStringLiteral("--junit"), junit}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.out + outcome.err));
        QVERIFY(outcome.out.contains(QStringLiteral("Bruno collection \"Shop\"")));
        QVERIFY(outcome.out.contains(QStringLiteral("/status/201?current=0")));
        QVERIFY(outcome.out.contains(QStringLiteral("✓ has an etag")));
        QVERIFY(outcome.out.contains(QStringLiteral("✓ res.body.value: isNumber")));

        outcome = CommandTesting::run(
            args({QStringLiteral("run"), folder, QStringLiteral("--env"), QStringLiteral("Nope")}));
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(
            outcome.err.contains(QStringLiteral("no environment \"Nope\" (it has: Local)")), qPrintable(outcome.err));
    }

    void retrylabCollection_assertionsAndExtraction()
    {
        Collection collection;
        collection.name = QStringLiteral("Saved");
        RequestDraft read;
        read.urlTemplate = QStringLiteral("{server}/occ/saved");
        CollectionItem first = CollectionItem::makeRequest(QStringLiteral("read"), read, SavedPolicy{});
        first.policy.preset = QStringLiteral("aws-standard");
        ResponseVariables::Rule value;
        value.name = QStringLiteral("value");
        value.pointer = QStringLiteral("/value");
        first.extract = {value};
        Assertion status;
        status.statuses = {200};
        status.statusText = QStringLiteral("200");
        first.assertions = {status};
        RequestDraft use;
        use.urlTemplate = QStringLiteral("{server}/status/202?v={{value}}");
        CollectionItem second = CollectionItem::makeRequest(QStringLiteral("use"), use, SavedPolicy{});
        second.policy.preset = QStringLiteral("aws-standard");
        Assertion wrong = status;
        wrong.statuses = {200};
        second.assertions = {wrong};
        collection.items = {first, second};
        const QString file = path("saved.json");
        QVERIFY(CommandTesting::write(file, CollectionJson::toJson(collection)));

        const Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), file}));
        QCOMPARE(outcome.exitCode, 1);
        QVERIFY2(outcome.out.contains(QStringLiteral("Embedded fault server on")), qPrintable(outcome.out));
        QVERIFY(outcome.out.contains(QStringLiteral("?v=0")));
        QVERIFY(outcome.out.contains(QStringLiteral("✓ status 200")));
        QVERIFY(outcome.out.contains(QStringLiteral("✗ status 200")));
    }

    void malformedFiles_exitTwoNamingThePlace_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << QStringLiteral("broken.json") << QByteArray("{\"info\": {,}")
                                  << QStringLiteral("line 1, column");
        QTest::newRow("no URL") << QStringLiteral("nourl.json")
                                << postmanCollection({QJsonObject{{QStringLiteral("name"), QStringLiteral("x")},
                                       {QStringLiteral("request"),
                                           QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")}}}}})
                                << QStringLiteral("item[0].request.url: missing");
        QTest::newRow("v1") << QStringLiteral("v1.json")
                            << QByteArray(R"({"id": "x", "name": "old", "order": [], "requests": []})")
                            << QStringLiteral("v1");
    }

    void malformedFiles_exitTwoNamingThePlace()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        QVERIFY(CommandTesting::write(path(name.toUtf8().constData()), content));
        const Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), path(name.toUtf8().constData())}));
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
        QVERIFY(outcome.err.contains(name));
    }

    void malformedBruno_namesFileAndLine()
    {
        const QString folder = path("badbruno");
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(CommandTesting::write(
            folder + QStringLiteral("/bruno.json"), R"({"version": "1", "name": "Bad", "type": "collection"})"));
        QVERIFY(CommandTesting::write(folder + QStringLiteral("/broken.bru"),
            "meta {\n  name: broken\n}\n\npost {\n  url: http://127.0.0.1:1/x\n  body: json\n}\n\nbody:json {\n  "
            "{\"a\": 1}\n"));
        const Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), folder}));
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(QStringLiteral("broken.bru:10")), qPrintable(outcome.err));
    }

    void scenarioFile_refusesCollectionOptions()
    {
        const QString scenario = path("scenario.json");
        QVERIFY(CommandTesting::write(scenario,
            R"({"format": "retrylab-scenario", "version": 1, "name": "s", "policy": {"preset": "aws-standard"},)"
            R"( "requests": [{"name": "r", "url": "{server}/status/200"}]})"));
        const Outcome outcome = CommandTesting::run(
            args({QStringLiteral("run"), scenario, QStringLiteral("--folder"), QStringLiteral("x")}));
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(QStringLiteral("only a collection takes --folder")), qPrintable(outcome.err));
    }

    void har_runsItsEntriesInOrder()
    {
        QJsonArray entries;
        for (const char *status : {"200", "201"}) {
            entries.append(QJsonObject{{QStringLiteral("request"),
                QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")},
                    {QStringLiteral("url"), QString(m_base + QStringLiteral("/status/") + QLatin1String(status))},
                    {QStringLiteral("httpVersion"), QStringLiteral("HTTP/1.1")},
                    {QStringLiteral("headers"), QJsonArray{}}, {QStringLiteral("queryString"), QJsonArray{}},
                    {QStringLiteral("cookies"), QJsonArray{}}, {QStringLiteral("headersSize"), -1},
                    {QStringLiteral("bodySize"), 0}}}});
        }
        const QString file = path("two.har");
        QVERIFY(CommandTesting::write(file,
            QJsonDocument(QJsonObject{{QStringLiteral("log"),
                              QJsonObject{{QStringLiteral("version"), QStringLiteral("1.2")},
                                  {QStringLiteral("creator"),
                                      QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                          {QStringLiteral("version"), QStringLiteral("1")}}},
                                  {QStringLiteral("entries"), entries}}}})
                .toJson()));
        const Outcome outcome = CommandTesting::run(args({QStringLiteral("run"), file}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.out + outcome.err));
        QVERIFY(
            outcome.out.indexOf(QStringLiteral("/status/200")) < outcome.out.indexOf(QStringLiteral("/status/201")));
        QVERIFY(outcome.out.contains(QStringLiteral("HAR file")));
    }

private:
    QString path(const char *name) const { return m_dir.filePath(QString::fromUtf8(name)); }

    FaultServer m_server;
    QTemporaryDir m_dir;
    QString m_base;
};

QTEST_GUILESS_MAIN(tst_RunCollectionCommand)
#include "tst_runcollectioncommand.moc"
