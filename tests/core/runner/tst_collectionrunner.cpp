#include "core/faultserver/faultserver.h"
#include "core/policy/backoffpolicy.h"
#include "core/runner/collectionrunner.h"
#include "core/runner/runcollection.h"

#include "../capturingserver.h"

#include <QSignalSpy>
#include <QTest>

using namespace RetryLab::Core;

namespace {

RunItem request(const QString &name, const QString &url, const QString &method = QStringLiteral("GET"))
{
    RunItem item;
    item.kind = RunItem::Kind::Request;
    item.name = name;
    item.id = name;
    item.request.method = method;
    item.request.urlTemplate = url;
    return item;
}

RunItem folder(const QString &name, QList<RunItem> items)
{
    RunItem item;
    item.kind = RunItem::Kind::Folder;
    item.name = name;
    item.items = std::move(items);
    return item;
}

Assertion statusIs(int status)
{
    Assertion assertion;
    assertion.kind = Assertion::Kind::StatusEquals;
    assertion.statuses = {status};
    assertion.statusText = QString::number(status);
    return assertion;
}

BackoffPolicy quickRetries(int attempts)
{
    BackoffPolicy policy;
    policy.name = QStringLiteral("quick");
    policy.maxAttempts = attempts;
    policy.baseDelayMs = 5;
    policy.maxBackoffMs = 20;
    policy.jitterMs = 5;
    policy.circuitBreaker = {};
    policy.retryBudget = {};
    return policy;
}

CollectionRunResult runToEnd(RunCollection collection, CollectionRunOptions options)
{
    CollectionRunner runner(std::move(collection), std::move(options));
    QSignalSpy finished(&runner, &CollectionRunner::finished);
    runner.start();
    if (!finished.wait(60'000))
        return {};
    return runner.result();
}

} // namespace

class tst_CollectionRunner final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_server.listen(), qPrintable(m_server.errorString())); }

    void run_takesValuesFromAnswers_intoLaterRequests()
    {
        RunCollection collection;
        collection.name = QStringLiteral("chain");
        RunItem read = request(QStringLiteral("read"), QStringLiteral("{server}/occ/chain-{{suffix}}"));
        ResponseVariables::Rule value;
        value.name = QStringLiteral("value");
        value.pointer = QStringLiteral("/value");
        ResponseVariables::Rule etag;
        etag.name = QStringLiteral("etag");
        etag.from = ResponseVariables::Rule::Source::Header;
        etag.header = QStringLiteral("ETag");
        read.extract = {value, etag};
        read.assertions = {statusIs(200)};
        collection.items = {read, request(QStringLiteral("use"), QStringLiteral("{server}/status/204?v={{value}}"))};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.scopes.environment.insert(QStringLiteral("suffix"), QStringLiteral("a"));

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 2);
        const CollectionRequestRun &first = result.requests.at(0);
        QCOMPARE(first.path, QStringLiteral("read"));
        QVERIFY2(first.errors.isEmpty(), qPrintable(first.errors.join(QLatin1Char('\n'))));
        QCOMPARE(first.assertions.size(), 1);
        QVERIFY(first.assertions.at(0).passed);
        QCOMPARE(first.extracted.size(), 2);
        QCOMPARE(result.requests.at(1).spec.url.query(), QStringLiteral("v=0"));
        QCOMPARE(result.requests.at(1).result->finalStatus, 204);
        QVERIFY(result.passed());
        QCOMPARE(result.record.results.size(), 2);
        QCOMPARE(result.record.attempts.size(), 2);
    }

    void run_withPolicy_passesWhatOneAttemptFails()
    {
        RunCollection collection;
        RunItem flaky = request(QStringLiteral("flaky"), QStringLiteral("{server}/fail/2?key={id}"));
        flaky.assertions = {statusIs(200)};
        collection.items = {flaky};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.defaultPolicy = quickRetries(1);

        CollectionRunResult once = runToEnd(collection, options);
        QCOMPARE(once.requests.size(), 1);
        QCOMPARE(once.requests.at(0).attempts.size(), 1);
        QCOMPARE(once.requests.at(0).failedAssertions(), 1);
        QVERIFY(!once.passed());

        options.defaultPolicy = quickRetries(4);
        options.defaultPolicyName = QStringLiteral("quick");
        const CollectionRunResult retried = runToEnd(collection, options);
        const CollectionRequestRun &run = retried.requests.at(0);
        QCOMPARE(run.attempts.size(), 3);
        QVERIFY(run.retried());
        QVERIFY(retried.passed());
        QCOMPARE(retried.passedAfterRetries(), 1);
        QCOMPARE(run.policyName, QStringLiteral("quick"));
    }

    void run_requestPolicy_overFolderOverCollectionOverRun()
    {
        RunCollection collection;
        RunItem own = request(QStringLiteral("own"), QStringLiteral("{server}/fail/5?key={id}"));
        own.policy = SavedPolicy::from(quickRetries(2));
        RunItem inherits = request(QStringLiteral("inherits"), QStringLiteral("{server}/fail/5?key={id}"));
        RunItem outer = folder(QStringLiteral("outer"), {own, inherits});
        outer.policy = SavedPolicy::from(quickRetries(3));
        collection.items = {outer, request(QStringLiteral("top"), QStringLiteral("{server}/fail/5?key={id}"))};
        collection.policy = SavedPolicy::from(quickRetries(4));
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 3);
        QCOMPARE(result.requests.at(0).attempts.size(), 2);
        QCOMPARE(result.requests.at(1).attempts.size(), 3);
        QCOMPARE(result.requests.at(2).attempts.size(), 4);
        QCOMPARE(result.requests.at(0).path, QStringLiteral("outer/own"));
    }

    void run_bail_stopsAtTheFirstFailure()
    {
        RunCollection collection;
        RunItem failing = request(QStringLiteral("fails"), QStringLiteral("{server}/status/500"));
        failing.assertions = {statusIs(200)};
        collection.items = {request(QStringLiteral("one"), QStringLiteral("{server}/status/200")), failing,
            request(QStringLiteral("never"), QStringLiteral("{server}/status/200"))};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.bail = true;

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 2);
        QVERIFY(result.stoppedEarly.contains(QStringLiteral("fails")));
        QCOMPARE(result.failedRequests(), 1);
    }

    void run_dataRows_oneIterationEach()
    {
        RunCollection collection;
        collection.items = {request(QStringLiteral("row"), QStringLiteral("{server}/status/{{code}}?who={{who}}"))};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.dataRows
            = {{{QStringLiteral("code"), QStringLiteral("200")}, {QStringLiteral("who"), QStringLiteral("ada")}},
                {{QStringLiteral("code"), QStringLiteral("201")}, {QStringLiteral("who"), QStringLiteral("bo")}},
                {{QStringLiteral("code"), QStringLiteral("202")}, {QStringLiteral("who"), QStringLiteral("cy")}}};
        options.iterations = 3;

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(result.requests.at(i).iteration, i);
            QCOMPARE(result.requests.at(i).result->finalStatus, 200 + i);
        }
        QCOMPARE(result.requests.at(2).spec.url.query(), QStringLiteral("who=cy"));
    }

    void run_variableWithoutValue_failsThatRequestOnly()
    {
        RunCollection collection;
        collection.items = {request(QStringLiteral("missing"), QStringLiteral("{server}/status/200?t={{token}}")),
            request(QStringLiteral("fine"), QStringLiteral("{server}/status/200"))};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.environmentName = QStringLiteral("Staging");

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 2);
        QVERIFY(!result.requests.at(0).sent());
        QVERIFY(result.requests.at(0).errors.join(QString()).contains(QStringLiteral("token")));
        QVERIFY(result.requests.at(1).sent());
        QCOMPARE(result.failedRequests(), 1);
    }

    void run_noAnswer_isAFailureThatNamesTheError()
    {
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        const quint16 port = closed.serverPort();
        closed.close();
        RunCollection collection;
        collection.items = {request(QStringLiteral("refused"), QStringLiteral("http://127.0.0.1:%1/x").arg(port))};

        const CollectionRunResult result = runToEnd(collection, {});
        QCOMPARE(result.requests.size(), 1);
        QVERIFY(result.requests.at(0).failed());
        QVERIFY2(result.requests.at(0).errors.join(QString()).contains(QStringLiteral("refused"), Qt::CaseInsensitive),
            qPrintable(result.requests.at(0).errors.join(QString())));
    }

    void run_folders_selectOnlyTheirRequests()
    {
        RunCollection collection;
        collection.items = {folder(QStringLiteral("a"),
                                {request(QStringLiteral("a1"), QStringLiteral("{server}/status/200")),
                                    folder(QStringLiteral("deep"),
                                        {request(QStringLiteral("d1"), QStringLiteral("{server}/status/200"))})}),
            folder(QStringLiteral("b"), {request(QStringLiteral("b1"), QStringLiteral("{server}/status/200"))}),
            request(QStringLiteral("top"), QStringLiteral("{server}/status/200"))};
        QCOMPARE(collection.unknownFolders({QStringLiteral("a/deep"), QStringLiteral("nope")}),
            QStringList{QStringLiteral("nope")});
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.folders = {QStringLiteral("deep"), QStringLiteral("b")};

        const CollectionRunResult result = runToEnd(collection, options);
        QStringList paths;
        for (const CollectionRequestRun &run : result.requests)
            paths.append(run.path);
        QCOMPARE(paths, (QStringList{QStringLiteral("a/deep/d1"), QStringLiteral("b/b1")}));
    }

    void run_auth_inheritedAndSentAsTheKindSays()
    {
        CapturingServer::Server capture;
        QVERIFY(capture.start());
        const QString base = QString::fromLatin1(capture.baseUrl());
        RunCollection collection;
        collection.auth.kind = RunAuth::Kind::Bearer;
        collection.auth.token = QStringLiteral("{{token}}");
        RunItem basic = request(QStringLiteral("basic"), base + QStringLiteral("/basic"));
        basic.auth.kind = RunAuth::Kind::Basic;
        basic.auth.username = QStringLiteral("ada");
        basic.auth.password = QStringLiteral("{{password}}");
        RunItem key = request(QStringLiteral("key"), base + QStringLiteral("/key?x=1"));
        key.auth.kind = RunAuth::Kind::ApiKey;
        key.auth.key = QStringLiteral("api key");
        key.auth.value = QStringLiteral("k&v");
        key.auth.inQuery = true;
        RunItem none = request(QStringLiteral("none"), base + QStringLiteral("/none"));
        none.auth.kind = RunAuth::Kind::None;
        collection.items = {request(QStringLiteral("bearer"), base + QStringLiteral("/bearer")), basic, key, none};
        CollectionRunOptions options;
        options.scopes.environment.insert(QStringLiteral("token"), QStringLiteral("t0k"));
        options.scopes.environment.insert(QStringLiteral("password"), QStringLiteral("s3cret"));

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 4);
        QCOMPARE(capture.requests.size(), 4);
        QCOMPARE(capture.requests.at(0).header("Authorization"), QByteArray("Bearer t0k"));
        QCOMPARE(capture.requests.at(1).header("Authorization"), "Basic " + QByteArray("ada:s3cret").toBase64());
        QCOMPARE(capture.requests.at(2).target, QByteArray("/key?x=1&api%20key=k%26v"));
        QCOMPARE(capture.requests.at(2).header("Authorization"), QByteArray());
        QCOMPARE(capture.requests.at(3).header("Authorization"), QByteArray());
    }

    void run_postmanWithoutAccept_sendsAcceptAnyAsNewman()
    {
        CapturingServer::Server capture;
        QVERIFY(capture.start());
        const QString base = QString::fromLatin1(capture.baseUrl());
        RunItem own = request(QStringLiteral("own"), base + QStringLiteral("/own"));
        own.request.headers.append({QStringLiteral("accept"), QStringLiteral("application/json")});
        RunItem disabled = request(QStringLiteral("disabled"), base + QStringLiteral("/disabled"));
        disabled.request.headers.append({QStringLiteral("Accept"), QStringLiteral("text/plain")});
        disabled.request.headers.last().enabled = false;
        RunCollection collection;
        collection.items = {request(QStringLiteral("none"), base + QStringLiteral("/none")), own, disabled};

        collection.format = RunCollection::Format::Postman;
        QCOMPARE(runToEnd(collection, {}).requests.size(), 3);
        QCOMPARE(capture.requests.size(), 3);
        QCOMPARE(capture.requests.at(0).header("Accept"), QByteArray("*/*"));
        QCOMPARE(capture.requests.at(1).header("Accept"), QByteArray("application/json"));
        QCOMPARE(capture.requests.at(2).header("Accept"), QByteArray("*/*"));

        // Only newman's format: a RetryLab collection sends what it says.
        collection.format = RunCollection::Format::RetryLab;
        QCOMPARE(runToEnd(collection, {}).requests.size(), 3);
        QCOMPARE(capture.requests.size(), 6);
        QCOMPARE(capture.requests.at(3).header("Accept"), QByteArray());
        QCOMPARE(capture.requests.at(4).header("Accept"), QByteArray("application/json"));
    }

    void run_postmanVariableHoldingAVariable_resolvedAsNewman()
    {
        CapturingServer::Server capture;
        QVERIFY(capture.start());
        RunCollection collection;
        collection.format = RunCollection::Format::Postman;
        collection.items = {request(QStringLiteral("nested"), QStringLiteral("{{url}}"))};
        collection.items[0].request.headers.append({QStringLiteral("X-Id"), QStringLiteral("{{id}}")});
        CollectionRunOptions options;
        options.scopes.environment.insert(QStringLiteral("base"), QString::fromLatin1(capture.baseUrl()));
        options.scopes.environment.insert(QStringLiteral("url"), QStringLiteral("{{base}}/get?leaf={{leaf}}"));
        options.scopes.collection.insert(QStringLiteral("leaf"), QStringLiteral("yes"));
        options.scopes.environment.insert(QStringLiteral("id"), QStringLiteral("{{$randomInt}}"));

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 1);
        QVERIFY2(result.requests.at(0).errors.isEmpty(), qPrintable(result.requests.at(0).errors.join(u'\n')));
        QCOMPARE(capture.requests.size(), 1);
        QCOMPARE(capture.requests.at(0).target, QByteArray("/get?leaf=yes"));
        bool number = false;
        capture.requests.at(0).header("X-Id").toInt(&number);
        QVERIFY2(number, capture.requests.at(0).header("X-Id").constData());

        // A RetryLab collection inserts a value as it is: the request is not sent.
        collection.format = RunCollection::Format::RetryLab;
        const CollectionRunResult own = runToEnd(collection, options);
        QCOMPARE(own.requests.size(), 1);
        QVERIFY(!own.requests.at(0).sent());
        QCOMPARE(capture.requests.size(), 1);
    }

    void run_delayRequest_waitsBetweenRequests()
    {
        RunCollection collection;
        collection.items = {request(QStringLiteral("one"), QStringLiteral("{server}/status/200")),
            request(QStringLiteral("two"), QStringLiteral("{server}/status/200"))};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.delayRequestMs = 300;

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 2);
        const qint64 gapNs = result.requests.at(1).attempts.at(0).startNs - result.requests.at(0).attempts.at(0).endNs;
        QVERIFY2(gapNs >= 300'000'000, qPrintable(QString::number(gapNs)));
    }

    void stop_endsTheRunAfterTheRequestInFlight()
    {
        RunCollection collection;
        collection.items = {request(QStringLiteral("slow"), QStringLiteral("{server}/delay/20000")),
            request(QStringLiteral("never"), QStringLiteral("{server}/status/200"))};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        CollectionRunner runner(collection, options);
        QSignalSpy finished(&runner, &CollectionRunner::finished);
        QSignalSpy attempts(&m_server, &FaultServer::requestHandled);
        runner.start();
        QTRY_VERIFY_WITH_TIMEOUT(runner.isRunning() && runner.result().requests.isEmpty(), 10'000);
        QTest::qWait(0);
        runner.stop();
        QVERIFY(finished.wait(20'000));
        QCOMPARE(runner.result().requests.size(), 1);
        QCOMPARE(runner.result().stoppedEarly, QStringLiteral("stopped"));
    }

    void run_scripts_setVariablesTestAnswersAndChangeTheRequest()
    {
        RunCollection collection;
        collection.preRequest.source = QStringLiteral("pm.collectionVariables.set('level', 'collection');");
        RunItem first = request(QStringLiteral("first"), QStringLiteral("{server}/occ/scripts-{{suffix}}"));
        first.preRequest.source = QStringLiteral("pm.variables.set('suffix', 'x' + pm.info.iteration);\n"
                                                 "pm.request.headers.add({key: 'X-From-Script', value: 'yes'});");
        first.test.source = QStringLiteral(
            "pm.test('status is 200', function () { pm.response.to.have.status(200); });\n"
            "pm.test('value is a number', function () { pm.expect(pm.response.json().value).to.be.a('number'); });\n"
            "pm.test('fails on purpose', function () { pm.expect(pm.response.code).to.equal(201); });\n"
            "pm.environment.set('seen', pm.response.json().value + 1);");
        RunItem second
            = request(QStringLiteral("second"), QStringLiteral("{server}/status/200?seen={{seen}}&l={{level}}"));
        collection.items = {first, second};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 2);
        const CollectionRequestRun &run = result.requests.at(0);
        QCOMPARE(run.spec.url.path(), QStringLiteral("/occ/scripts-x0"));
        QVERIFY(std::any_of(run.spec.headers.cbegin(), run.spec.headers.cend(),
            [](const auto &header) { return header.first == "X-From-Script" && header.second == "yes"; }));
        QCOMPARE(run.tests.size(), 3);
        QVERIFY(run.tests.at(0).passed);
        QVERIFY(run.tests.at(1).passed);
        QVERIFY(!run.tests.at(2).passed);
        QVERIFY2(run.tests.at(2).error.contains(QStringLiteral("201")), qPrintable(run.tests.at(2).error));
        QCOMPARE(run.failedTests(), 1);
        QCOMPARE(result.requests.at(1).spec.url.query(), QStringLiteral("seen=1&l=collection"));
    }

    void run_testScripts_seeTheRequestAsSent()
    {
        RunCollection collection;
        collection.format = RunCollection::Format::Postman;
        RunItem item = request(QStringLiteral("sent"), QStringLiteral("{server}/status/200?who={{who}}"));
        item.auth.kind = RunAuth::Kind::Bearer;
        item.auth.token = QStringLiteral("t0k");
        item.test.source = QStringLiteral(
            "pm.test('url', () => pm.expect(pm.request.url.toString()).to.include('who=ada'));\n"
            "pm.test('auth', () => pm.expect(pm.request.headers.get('Authorization')).to.equal('Bearer t0k'));");
        collection.items = {item};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.scopes.environment.insert(QStringLiteral("who"), QStringLiteral("ada"));

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 1);
        const CollectionRequestRun &run = result.requests.at(0);
        QCOMPARE(run.tests.size(), 2);
        QVERIFY2(run.tests.at(0).passed, qPrintable(run.tests.at(0).error));
        QVERIFY2(run.tests.at(1).passed, qPrintable(run.tests.at(1).error));
    }

    void run_setNextRequest_loopsAndStops()
    {
        RunCollection collection;
        RunItem poll = request(QStringLiteral("poll"), QStringLiteral("{server}/status/200"));
        poll.test.source = QStringLiteral("const n = (pm.variables.get('n') || 0) + 1;\n"
                                          "pm.variables.set('n', n);\n"
                                          "if (n < 3) pm.setNextRequest('poll'); else pm.setNextRequest('done');");
        collection.items = {request(QStringLiteral("start"), QStringLiteral("{server}/status/200")), poll,
            request(QStringLiteral("skipped by the jump"), QStringLiteral("{server}/status/200")),
            request(QStringLiteral("done"), QStringLiteral("{server}/status/200?n={{n}}"))};
        RunItem &done = collection.items.last();
        done.test.source = QStringLiteral("postman.setNextRequest(null);");
        collection.items.append(request(QStringLiteral("after the end"), QStringLiteral("{server}/status/200")));
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();

        const CollectionRunResult result = runToEnd(collection, options);
        QStringList names;
        for (const CollectionRequestRun &run : result.requests)
            names.append(run.name);
        QCOMPARE(names,
            (QStringList{QStringLiteral("start"), QStringLiteral("poll"), QStringLiteral("poll"),
                QStringLiteral("poll"), QStringLiteral("done")}));
        QCOMPARE(result.requests.constLast().spec.url.query(), QStringLiteral("n=3"));
        QVERIFY(result.stoppedEarly.contains(QStringLiteral("setNextRequest")));
        QVERIFY(result.passed());
    }

    void run_brokenScripts_failTheirRequestNotTheRun()
    {
        RunCollection collection;
        RunItem throws = request(QStringLiteral("throws"), QStringLiteral("{server}/status/200"));
        throws.test.source = QStringLiteral("throw new Error('boom');");
        throws.test.place = QStringLiteral("item[0].event[0]");
        RunItem loops = request(QStringLiteral("loops"), QStringLiteral("{server}/status/200"));
        loops.preRequest.source = QStringLiteral("while (true) {}");
        RunItem missing = request(QStringLiteral("missing"), QStringLiteral("{server}/status/200"));
        missing.test.source = QStringLiteral("pm.test('cookies', function () { pm.cookies.jar().get('x'); });");
        collection.items
            = {throws, loops, missing, request(QStringLiteral("fine"), QStringLiteral("{server}/status/200"))};
        CollectionRunOptions options;
        options.serverUrl = m_server.baseUrl();
        options.scriptTimeLimitMs = 300;

        const CollectionRunResult result = runToEnd(collection, options);
        QCOMPARE(result.requests.size(), 4);
        QVERIFY2(result.requests.at(0).errors.join(QString()).contains(QStringLiteral("boom")),
            qPrintable(result.requests.at(0).errors.join(QString())));
        QVERIFY(result.requests.at(1).errors.join(QString()).contains(QStringLiteral("time limit")));
        QCOMPARE(result.requests.at(2).tests.size(), 1);
        QVERIFY(!result.requests.at(2).tests.at(0).passed);
        QVERIFY(result.requests.at(2).tests.at(0).error.contains(QStringLiteral("pm.cookies.jar")));
        QVERIFY(!result.requests.at(3).failed());
        QCOMPARE(result.failedRequests(), 3);
    }

private:
    FaultServer m_server;
};

QTEST_GUILESS_MAIN(tst_CollectionRunner)
#include "tst_collectionrunner.moc"
