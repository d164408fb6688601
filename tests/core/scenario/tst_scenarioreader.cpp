#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/scenario/scenarioreader.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

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

// A valid scenario with `requests` (a JSON array) and `rest` (more top-level fields, with a leading comma).
QByteArray scenarioWith(const QByteArray &requests, const QByteArray &rest = {})
{
    return R"({"format": "retrylab-scenario", "version": 1, "policy": "google-cloud-storage", "requests": )" + requests
        + rest + "}";
}

} // namespace

class TestScenarioReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void builtInScenarios_allReadAndRunOnTheEmbeddedServer();
    void everyField_isRead();
    void policy_presetByIdOrName();
    void policy_presetWithOverrides_mergesNestedFields();
    void policy_inlineObject();
    void seed_numberOrDecimalString();
    void transport_connectionOptions_areRead();
    void malformed_namesTheFieldOrLine_data();
    void malformed_namesTheFieldOrLine();
    void malformed_errorHasThePathApart_data();
    void malformed_errorHasThePathApart();
    void readFile_prefixesTheFileAndDefaultsTheName();
    void resolveUrl_replacesThePlaceholderOnly();
    void endpointPolicies_firstMatchWins();
};

void TestScenarioReader::builtInScenarios_allReadAndRunOnTheEmbeddedServer()
{
    const QStringList files = ScenarioReader::builtInScenarios();
    QVERIFY2(files.size() >= 5, qPrintable(files.join(QLatin1Char(' '))));
    QVERIFY(files.contains(QStringLiteral(":/scenarios/demo-no-jitter.json")));
    QVERIFY(files.contains(QStringLiteral(":/scenarios/demo-full-jitter.json")));
    for (const QString &file : files) {
        const auto scenario = ScenarioReader::readFile(file);
        QVERIFY2(scenario.ok(), qPrintable(scenario.error()));
        QVERIFY2(!scenario->name.isEmpty(), qPrintable(file));
        QVERIFY2(!scenario->description.isEmpty(), qPrintable(file));
        QVERIFY2(scenario->needsServer(), qPrintable(file));
        QVERIFY2(!scenario->expectations.isEmpty(), qPrintable(file));
        QVERIFY2(isUsable(scenario->policy), qPrintable(file));
    }
}

void TestScenarioReader::everyField_isRead()
{
    const QByteArray json = R"({
        "format": "retrylab-scenario", "version": 1,
        "name": "All fields", "description": "every field once",
        "policy": "iam", "seed": 99, "concurrency": 12, "timeoutMs": 9000,
        "requests": [
            {"name": "get", "label": "a read", "method": "head", "url": "{server}/status/200",
             "headers": {"Authorization": "Bearer abc", "X-Trace": "1"}, "body": "plain text",
             "idempotent": true, "attemptTimeoutMs": 250, "count": 4, "concurrency": 2,
             "script": {"steps": ["return-503", "reset*2"], "shared": true}},
            {"name": "post", "method": "POST", "url": "https://example.test/items", "body": {"a": [1, 2]},
             "fallbacks": ["https://backup.example.test/items", "{server}/status/200"],
             "fallbackOn": ["503", "5XX", "timeout"]},
            {"name": "rmw", "kind": "read-modify-write", "url": "{server}/occ/x", "increment": -3,
             "script": ["pass"]}
        ],
        "expectations": [
            {"name": "reads", "request": "get", "outcome": ["succeeded", "gave-up"], "attempts": {"min": 1, "max": 3},
             "finalStatus": 200, "minTotalMs": 1, "maxTotalMs": 5000, "minSuccessRate": 0.5,
             "lastCause": "http-200"},
            {"request": "post", "attempts": 2, "finalStatus": null},
            {"request": "rmw", "outcome": "succeeded"}
        ]
    })";
    const auto result = ScenarioReader::fromJson(json);
    QVERIFY2(result.ok(), qPrintable(result.error()));
    const Scenario &s = result.value();
    QCOMPARE(s.name, QStringLiteral("All fields"));
    QCOMPARE(s.description, QStringLiteral("every field once"));
    QCOMPARE(s.policy.name, QStringLiteral("IAM"));
    QCOMPARE(s.seed, 99u);
    QCOMPARE(s.concurrency, 12);
    QCOMPARE(s.timeoutMs, 9000.0);
    QCOMPARE(s.requests.size(), 3);
    QCOMPARE(s.totalRequests(), 6);
    QVERIFY(s.needsServer());

    const ScenarioRequest &get = s.requests[0];
    QCOMPARE(get.name, QStringLiteral("get"));
    QCOMPARE(get.spec.label, QStringLiteral("a read"));
    QCOMPARE(get.spec.method, QByteArray("HEAD"));
    QCOMPARE(get.urlTemplate, QStringLiteral("{server}/status/200"));
    QVERIFY(get.fallbackTemplates.isEmpty());
    QCOMPARE(s.requests[1].fallbackTemplates,
        (QStringList{QStringLiteral("https://backup.example.test/items"), QStringLiteral("{server}/status/200")}));
    QCOMPARE(get.spec.headers.size(), 2);
    QCOMPARE(headerValue(get.spec.headers, "authorization").value_or(QByteArray()), QByteArray("Bearer abc"));
    QCOMPARE(get.spec.body, QByteArray("plain text"));
    QVERIFY(get.spec.idempotent);
    QCOMPARE(get.spec.attemptTimeoutMs.value_or(-1), 250.0);
    QCOMPARE(get.count, 4);
    QCOMPARE(get.concurrency, 2);
    QVERIFY(get.script);
    QCOMPARE(get.script->steps, (QStringList{QStringLiteral("return-503"), QStringLiteral("reset*2")}));
    QVERIFY(get.script->shared);

    const ScenarioRequest &post = s.requests[1];
    QCOMPARE(post.spec.body, QByteArray(R"({"a":[1,2]})"));
    QCOMPARE(post.count, 1);
    QCOMPARE(post.concurrency, 1);
    QVERIFY(post.usesServer()); // its URL is elsewhere, but its second fallback is {server}'s
    QVERIFY(!post.spec.attemptTimeoutMs);
    QCOMPARE(
        post.spec.fallbackOn, (QStringList{QStringLiteral("503"), QStringLiteral("5xx"), QStringLiteral("timeout")}));
    QVERIFY(get.spec.fallbackOn.isEmpty());

    const ScenarioRequest &rmw = s.requests[2];
    QCOMPARE(rmw.spec.kind, RequestSpec::Kind::ReadModifyWrite);
    QCOMPARE(rmw.spec.increment, -3);
    QVERIFY(!rmw.script->shared);

    QCOMPARE(s.expectations.size(), 3);
    const ScenarioExpectation &e = s.expectations[0];
    QCOMPARE(e.name, QStringLiteral("reads"));
    QCOMPARE(e.outcomes, (QList<RequestOutcome>{RequestOutcome::Succeeded, RequestOutcome::GaveUp}));
    QCOMPARE(e.minAttempts.value_or(-1), 1);
    QCOMPARE(e.maxAttempts.value_or(-1), 3);
    QVERIFY(e.checkFinalStatus);
    QCOMPARE(e.finalStatus.value_or(-1), 200);
    QCOMPARE(e.minTotalMs.value_or(-1), 1.0);
    QCOMPARE(e.maxTotalMs.value_or(-1), 5000.0);
    QCOMPARE(e.minSuccessRate.value_or(-1), 0.5);
    QCOMPARE(e.lastCause, QStringLiteral("http-200"));
    QCOMPARE(s.expectations[1].minAttempts.value_or(-1), 2);
    QCOMPARE(s.expectations[1].maxAttempts.value_or(-1), 2);
    QVERIFY(s.expectations[1].checkFinalStatus);
    QVERIFY(!s.expectations[1].finalStatus);
    QVERIFY(!s.expectations[2].checkFinalStatus);
}

void TestScenarioReader::policy_presetByIdOrName()
{
    for (const char *name : {"google-cloud-storage", "Google Cloud Storage"}) {
        const QByteArray json = R"({"format": "retrylab-scenario", "policy": ")" + QByteArray(name)
            + R"(", "requests": [{"name": "a", "url": "http://127.0.0.1:1/"}]})";
        const auto s = ScenarioReader::fromJson(json);
        QVERIFY2(s.ok(), qPrintable(s.error()));
        QCOMPARE(s->policy, *Presets::find(QStringLiteral("google-cloud-storage")));
        QVERIFY(s->policyOrigin.contains(QLatin1String(name)));
    }
}

void TestScenarioReader::policy_presetWithOverrides_mergesNestedFields()
{
    const QByteArray json = R"({"format": "retrylab-scenario",
        "policy": {"preset": "iam", "overrides": {"baseDelayMs": 20, "deadlineMs": 5000,
                   "classification": {"retryableStatuses": [503], "networkActions": {"timeout": "give-up"}}}},
        "requests": [{"name": "a", "url": "http://127.0.0.1:1/"}]})";
    const auto s = ScenarioReader::fromJson(json);
    QVERIFY2(s.ok(), qPrintable(s.error()));
    BackoffPolicy expected = *Presets::find(QStringLiteral("iam"));
    expected.name = QStringLiteral("IAM (modified)");
    expected.baseDelayMs = 20;
    expected.deadlineMs = 5000;
    expected.classification.retryableStatuses = {503};
    expected.classification.networkActions[NetworkFaultClass::Timeout] = FaultAction::GiveUp;
    QCOMPARE(s->policy, expected);
    // Untouched network actions stay as the preset has them.
    QCOMPARE(s->policy.classification.networkActions.value(NetworkFaultClass::ConnectionReset),
        FaultAction::RetryAfterDelay);
    QVERIFY(s->policyOrigin.contains(QLatin1String("baseDelayMs")));
}

void TestScenarioReader::policy_inlineObject()
{
    BackoffPolicy policy;
    policy.name = QStringLiteral("Mine");
    policy.algorithm = BackoffAlgorithm::EqualJitter;
    policy.maxAttempts = 7;
    const QByteArray json = R"({"format": "retrylab-scenario", "policy": )" + PolicyJson::toJson(policy)
        + R"(, "requests": [{"name": "a", "url": "http://127.0.0.1:1/"}]})";
    const auto s = ScenarioReader::fromJson(json);
    QVERIFY2(s.ok(), qPrintable(s.error()));
    QCOMPARE(s->policy, policy);
    QCOMPARE(s->policyOrigin, QStringLiteral("inline"));
}

void TestScenarioReader::seed_numberOrDecimalString()
{
    const auto big = ScenarioReader::fromJson(
        scenarioWith(R"([{"name": "a", "url": "http://127.0.0.1:1/"}])", R"(, "seed": "18446744073709551615")"));
    QVERIFY2(big.ok(), qPrintable(big.error()));
    QCOMPARE(big->seed, std::numeric_limits<quint64>::max());
    const auto small
        = ScenarioReader::fromJson(scenarioWith(R"([{"name": "a", "url": "http://127.0.0.1:1/"}])", R"(, "seed": 0)"));
    QVERIFY2(small.ok(), qPrintable(small.error()));
    QCOMPARE(small->seed, 0u);
}

void TestScenarioReader::transport_connectionOptions_areRead()
{
    const auto s = ScenarioReader::fromJson(scenarioWith(
        R"([{"name": "a", "url": "https://api.example.test/", "transport": {"connectTimeoutMs": 1500,
            "resolve": ["api.example.test:443:127.0.0.1"], "ipFamily": "ipv6", "keepAlive": false}}])"));
    QVERIFY2(s.ok(), qPrintable(s.error()));
    const TransportOptions &t = s->requests.first().spec.transport;
    QCOMPARE(t.connectTimeoutMs, 1500.0);
    QCOMPARE(t.resolve.size(), 1);
    QCOMPARE(t.resolve.first().address, QStringLiteral("127.0.0.1"));
    QCOMPARE(t.ipFamily, TransportOptions::IpFamily::V6);
    QCOMPARE(t.keepAlive, false);
}

void TestScenarioReader::malformed_namesTheFieldOrLine_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");

    const QByteArray one = R"([{"name": "a", "url": "{server}/status/200"}])";
    const auto request = [](const QByteArray &fields) {
        return scenarioWith(R"([{"name": "a", "url": "{server}/status/200"}, {"name": "b", )" + fields + "}]");
    };
    const auto expectation = [&one](const QByteArray &fields) {
        return scenarioWith(one, R"(, "expectations": [{"request": "a", "outcome": "succeeded"}, )" + fields + "]");
    };

    QTest::addRow("transport: a pin without an address")
        << request(R"("url": "{server}/b", "transport": {"resolve": ["api.example.test:443"]})")
        << QStringLiteral("requests[1].transport.resolve: \"api.example.test:443\" is not HOST:PORT:ADDRESS");
    QTest::addRow("transport: a connect timeout of 0")
        << request(R"("url": "{server}/b", "transport": {"connectTimeoutMs": 0})")
        << QStringLiteral("requests[1].transport.connectTimeoutMs: expected milliseconds above 0");
    QTest::addRow("endpoint policy unknown preset")
        << scenarioWith(one, R"(, "endpointPolicies": [{"path": "/upload/*", "policy": "nope"}])")
        << QStringLiteral("endpointPolicies[0].policy: unknown preset \"nope\"");
    QTest::addRow("endpoint policy path without slash")
        << scenarioWith(one, R"(, "endpointPolicies": [{"path": "upload/*", "policy": "iam"}])")
        << QStringLiteral("endpointPolicies[0].path: a path pattern starts with /");
    QTest::addRow("unknown placeholder in a URL")
        << request(R"("url": "{server}/fail/2?key={ide}")")
        << QStringLiteral("requests[1].url: {ide} is not a placeholder; a URL may use {server}");
    QTest::addRow("unknown placeholder in a fallback")
        << request(R"("url": "{server}/b", "fallbacks": ["{sever}/c"])")
        << QStringLiteral("requests[1].fallbacks[0]: {sever} is not a placeholder");
    QTest::addRow("endpoint policy unknown field")
        << scenarioWith(one, R"(, "endpointPolicies": [{"hots": "x", "policy": "iam"}])")
        << QStringLiteral("endpointPolicies[0].hots");
    QTest::addRow("fallbacks not a list") << request(R"("url": "{server}/b", "fallbacks": "http://x.test/")")
                                          << QStringLiteral("requests[1].fallbacks: expected an array of URLs");
    QTest::addRow("fallback not a URL") << request(
        R"("url": "{server}/b", "fallbacks": ["http://x.test/", "ftp://y.test/"])")
                                        << QStringLiteral("requests[1].fallbacks[1]: \"ftp://y.test/\" is not an http");
    QTest::addRow("fallbackOn entry not a fault")
        << request(R"("url": "{server}/b", "fallbacks": ["http://x.test/"], "fallbackOn": ["503", "reset"])")
        << QStringLiteral("requests[1].fallbackOn[1]: \"reset\" is not a fault that can lead to a fallback");
    QTest::addRow("fallbackOn entry not a string")
        << request(R"("url": "{server}/b", "fallbacks": ["http://x.test/"], "fallbackOn": [503])")
        << QStringLiteral("requests[1].fallbackOn[0]: expected a status");
    QTest::addRow("fallbackOn without fallbacks") << request(R"("url": "{server}/b", "fallbackOn": ["503"])")
                                                  << QStringLiteral("requests[1].fallbackOn: names the faults");
    QTest::addRow("fallback of a read-modify-write")
        << request(R"("url": "{server}/occ/b", "kind": "read-modify-write", "fallbacks": ["http://x.test/"])")
        << QStringLiteral("requests[1].fallbacks: fallback endpoints are for single requests");
    QTest::addRow("bad JSON names the line")
        << QByteArray("{\n  \"format\": \"retrylab-scenario\",\n  \"policy\": iam\n}")
        << QStringLiteral("line 3, column");
    QTest::addRow("trailing comma") << QByteArray("{\"format\": \"retrylab-scenario\",\n}")
                                    << QStringLiteral("line 2, column 2: not valid JSON");
    QTest::addRow("not an object") << QByteArray("[1, 2]") << QStringLiteral("a scenario file holds one JSON object");
    QTest::addRow("format missing") << QByteArray(R"({"policy": "iam", "requests": []})")
                                    << QStringLiteral("format: missing");
    QTest::addRow("a policy file") << PolicyJson::toJson(BackoffPolicy{})
                                   << QStringLiteral("format: \"retrylab-policy\" is not a scenario");
    QTest::addRow("version from the future")
        << scenarioWith(one, R"(, "version": 7)") << QStringLiteral("version: version 7 is not supported");
    QTest::addRow("version not a number")
        << scenarioWith(one, R"(, "version": "1")") << QStringLiteral("version: expected a whole number, got a string");
    QTest::addRow("unknown top-level field") << scenarioWith(
        one, R"(, "expectation": [])") << QStringLiteral("expectation: unknown field; did you mean \"expectations\"?");
    QTest::addRow("unknown field without a near name")
        << scenarioWith(one, R"(, "zzzzzzzz": 1)") << QStringLiteral("zzzzzzzz: unknown field (known: format");
    QTest::addRow("policy missing") << QByteArray(R"({"format": "retrylab-scenario", "requests": []})")
                                    << QStringLiteral("policy: missing");
    QTest::addRow("unknown preset") << QByteArray(R"({"format": "retrylab-scenario", "policy": "gcs", "requests": []})")
                                    << QStringLiteral(
                                           "policy: unknown preset \"gcs\" (known: aws-adaptive, aws-standard");
    QTest::addRow("policy a number") << QByteArray(R"({"format": "retrylab-scenario", "policy": 3, "requests": []})")
                                     << QStringLiteral(
                                            "policy: expected a preset name or a policy object, got a number");
    QTest::addRow("unknown preset in object")
        << QByteArray(R"({"format": "retrylab-scenario", "policy": {"preset": "nope"}, "requests": []})")
        << QStringLiteral("policy.preset: unknown preset \"nope\"");
    QTest::addRow("override of the wrong type") << QByteArray(
        R"({"format": "retrylab-scenario", "policy": {"preset": "iam", "overrides": {"maxAttempts": "3"}}, "requests": []})")
                                                << QStringLiteral(
                                                       "policy.overrides.maxAttempts: expected a whole number");
    QTest::addRow("override that the policy rejects") << QByteArray(
        R"({"format": "retrylab-scenario", "policy": {"preset": "iam", "overrides": {"multiplier": 0.5}}, "requests": []})")
                                                      << QStringLiteral("policy.overrides.multiplier: a multiplier of "
                                                                        "0.5 is below 1");
    QTest::addRow("override of an unknown field") << QByteArray(
        R"({"format": "retrylab-scenario", "policy": {"preset": "iam", "overrides": {"maxAtempts": 3}}, "requests": []})")
                                                  << QStringLiteral("policy.overrides.maxAtempts: unknown field");
    QTest::addRow("overrides not an object")
        << QByteArray(
               R"({"format": "retrylab-scenario", "policy": {"preset": "iam", "overrides": []}, "requests": []})")
        << QStringLiteral("policy.overrides: expected an object of policy fields, got an array");
    QTest::addRow("unknown field next to the preset")
        << QByteArray(R"({"format": "retrylab-scenario", "policy": {"preset": "iam", "seed": 1}, "requests": []})")
        << QStringLiteral("policy.seed: unknown field");
    QTest::addRow("inline policy with an unknown algorithm")
        << QByteArray(R"({"format": "retrylab-scenario", "policy": {"algorithm": "fibonacci"}, "requests": []})")
        << QStringLiteral("policy.algorithm: unknown algorithm \"fibonacci\"");
    QTest::addRow("negative seed") << scenarioWith(one, R"(, "seed": -1)")
                                   << QStringLiteral("seed: -1 is out of range");
    QTest::addRow("seed string with a sign")
        << scenarioWith(one, R"(, "seed": "-5")") << QStringLiteral("seed: \"-5\" is not a whole number");
    QTest::addRow("fractional concurrency") << scenarioWith(one, R"(, "concurrency": 1.5)")
                                            << QStringLiteral("concurrency: expected a whole number, got 1.5");
    QTest::addRow("zero concurrency") << scenarioWith(one, R"(, "concurrency": 0)")
                                      << QStringLiteral("concurrency: 0 is out of range (1 to 1000)");
    QTest::addRow("huge number") << scenarioWith(one, R"(, "timeoutMs": 1e300)")
                                 << QStringLiteral("timeoutMs: 1e+300 is out of range");
    QTest::addRow("negative time limit") << scenarioWith(one, R"(, "timeoutMs": -5)")
                                         << QStringLiteral("timeoutMs: -5 is out of range");
    QTest::addRow("requests missing") << QByteArray(R"({"format": "retrylab-scenario", "policy": "iam"})")
                                      << QStringLiteral("requests: missing");
    QTest::addRow("requests empty") << scenarioWith("[]") << QStringLiteral("requests: empty");
    QTest::addRow("requests an object") << scenarioWith("{}")
                                        << QStringLiteral("requests: expected an array of requests, got an object");
    QTest::addRow("request not an object") << scenarioWith(R"([{"name": "a", "url": "{server}/"}, 5])")
                                           << QStringLiteral("requests[1]: expected an object, got a number");
    QTest::addRow("name missing") << scenarioWith(R"([{"url": "{server}/"}])")
                                  << QStringLiteral("requests[0].name: missing");
    QTest::addRow("name empty") << request(R"("name": "")") << QStringLiteral("requests[1].name: a name has 1 to 100");
    QTest::addRow("name twice") << scenarioWith(
        R"([{"name": "a", "url": "{server}/"}, {"name": "a", "url": "{server}/"}])")
                                << QStringLiteral("requests[1].name: \"a\" is already the name of requests[0]");
    QTest::addRow("url missing") << scenarioWith(R"([{"name": "a"}])") << QStringLiteral("requests[0].url: missing");
    QTest::addRow("url of the wrong type") << scenarioWith(R"([{"name": "a", "url": 80}])")
                                           << QStringLiteral("requests[0].url: expected a string, got a number");
    QTest::addRow("ftp url") << request(R"("url": "ftp://example.test/x")")
                             << QStringLiteral("requests[1].url: \"ftp://example.test/x\" is not an http or https URL");
    QTest::addRow("url without a host") << request(R"("url": "http:///path")")
                                        << QStringLiteral("requests[1].url: \"http:///path\" has no host");
    QTest::addRow("url not a URL") << request(R"("url": "http://exa mple.test/")")
                                   << QStringLiteral("requests[1].url: \"http://exa mple.test/\" is not a valid URL");
    QTest::addRow("url with spaces around") << request(R"("url": " {server}/x")")
                                            << QStringLiteral("requests[1].url: \" {server}/x\" has spaces around it");
    QTest::addRow("url empty") << request(R"("url": "")") << QStringLiteral("requests[1].url: empty");
    QTest::addRow("unknown kind") << request(R"("url": "{server}/", "kind": "batch")")
                                  << QStringLiteral("requests[1].kind: unknown kind \"batch\"");
    QTest::addRow("method with a space") << request(R"("url": "{server}/", "method": "GET X")")
                                         << QStringLiteral("requests[1].method: \"GET X\" is not an HTTP method");
    QTest::addRow("method for read-modify-write")
        << request(R"("url": "{server}/occ/x", "kind": "read-modify-write", "method": "POST")")
        << QStringLiteral("requests[1].method: a read-modify-write request sends GET, then PUT");
    QTest::addRow("body for read-modify-write")
        << request(R"("url": "{server}/occ/x", "kind": "read-modify-write", "body": "x")")
        << QStringLiteral("requests[1].body: a read-modify-write request writes");
    QTest::addRow("increment for a single request") << request(
        R"("url": "{server}/", "increment": 2)") << QStringLiteral("requests[1].increment: only a read-modify-write");
    QTest::addRow("headers an array") << request(R"("url": "{server}/", "headers": [["a", "b"]])")
                                      << QStringLiteral("requests[1].headers: expected an object of header names");
    QTest::addRow("header value a number")
        << request(R"("url": "{server}/", "headers": {"X-N": 5})")
        << QStringLiteral("requests[1].headers.X-N: expected a string, got a number");
    QTest::addRow("header value with a line break")
        << request(R"("url": "{server}/", "headers": {"X-A": "1\r\nX-B: 2"})")
        << QStringLiteral("requests[1].headers.X-A: a carriage return (CR) at byte 2 cannot stand in a header value");
    QTest::addRow("header value with an escape")
        << request(R"("url": "{server}/", "headers": {"X-A": "1\u001b[2J"})")
        << QStringLiteral("requests[1].headers.X-A: the byte 0x1b at byte 2 cannot stand in a header value");
    QTest::addRow("header name with a space")
        << request(R"("url": "{server}/", "headers": {"X A": "1"})")
        << QStringLiteral("requests[1].headers.X A: \"X A\" is not a valid header name");
    QTest::addRow("body a number") << request(R"("url": "{server}/", "body": 12)")
                                   << QStringLiteral("requests[1].body: expected a string or a JSON object or array");
    QTest::addRow("idempotent a string") << request(R"("url": "{server}/", "idempotent": "yes")")
                                         << QStringLiteral(
                                                "requests[1].idempotent: expected true or false, got a string");
    QTest::addRow("misspelt field") << request(R"("url": "{server}/", "idempotnet": true)")
                                    << QStringLiteral(
                                           "requests[1].idempotnet: unknown field; did you mean \"idempotent\"?");
    QTest::addRow("negative count") << request(R"("url": "{server}/", "count": -1)")
                                    << QStringLiteral("requests[1].count: -1 is out of range (1 to 100000)");
    QTest::addRow("zero count") << request(R"("url": "{server}/", "count": 0)")
                                << QStringLiteral("requests[1].count: 0 is out of range");
    QTest::addRow("too many requests in all") << scenarioWith(
        R"([{"name": "a", "url": "{server}/", "count": 60000}, {"name": "b", "url": "{server}/", "count": 60000}])")
                                              << QStringLiteral("requests[1].count: the scenario would send 120000 "
                                                                "requests; at most 100000");
    QTest::addRow("negative attempt timeout") << request(R"("url": "{server}/", "attemptTimeoutMs": -1)")
                                              << QStringLiteral("requests[1].attemptTimeoutMs: -1 is out of range");
    QTest::addRow("zero group concurrency") << request(R"("url": "{server}/", "concurrency": 0)")
                                            << QStringLiteral("requests[1].concurrency: 0 is out of range");
    QTest::addRow("unknown instruction") << request(R"("url": "{server}/", "script": ["return-503", "explode"])")
                                         << QStringLiteral("requests[1].script[1]: unknown instruction \"explode\"");
    QTest::addRow("instruction with a bad status")
        << request(R"("url": "{server}/", "script": ["return-700"])")
        << QStringLiteral("requests[1].script[0]: \"return-700\": the status must be from 200 to 599");
    QTest::addRow("repeat of zero")
        << request(R"("url": "{server}/", "script": ["reset*0"])")
        << QStringLiteral("requests[1].script[0]: \"reset*0\": the repeat count must be from 1 to 1000");
    QTest::addRow("step not a string")
        << request(R"("url": "{server}/", "script": [503])")
        << QStringLiteral("requests[1].script[0]: expected a step such as \"return-503\", got a number");
    QTest::addRow("empty script") << request(R"("url": "{server}/", "script": [])")
                                  << QStringLiteral("requests[1].script: empty");
    QTest::addRow("script object without steps") << request(R"("url": "{server}/", "script": {"shared": true})")
                                                 << QStringLiteral("requests[1].script.steps: missing");
    QTest::addRow("script object with an unknown field")
        << request(R"("url": "{server}/", "script": {"steps": ["pass"], "loop": true})")
        << QStringLiteral("requests[1].script.loop: unknown field");
    QTest::addRow("script step in an object")
        << request(R"("url": "{server}/", "script": {"steps": ["pass", "boom"]})")
        << QStringLiteral("requests[1].script.steps[1]: unknown instruction \"boom\"");
    QTest::addRow("script on another server")
        << request(R"("url": "http://127.0.0.1:9/", "script": ["pass"])")
        << QStringLiteral("requests[1].script: a script is played by the embedded server");
    QTest::addRow("expectations an object") << scenarioWith(one, R"(, "expectations": {})")
                                            << QStringLiteral("expectations: expected an array, got an object");
    QTest::addRow("expectation for no request")
        << expectation(R"({"request": "zz", "outcome": "succeeded"})")
        << QStringLiteral("expectations[1].request: no request is named \"zz\" (requests: a)");
    QTest::addRow("expectation without request")
        << expectation(R"({"outcome": "succeeded"})") << QStringLiteral("expectations[1].request: missing");
    QTest::addRow("unknown outcome") << expectation(R"({"request": "a", "outcome": "fine"})")
                                     << QStringLiteral(
                                            "expectations[1].outcome: unknown outcome \"fine\" (known: succeeded");
    QTest::addRow("unknown outcome in a list") << expectation(R"({"request": "a", "outcome": ["succeeded", "ok"]})")
                                               << QStringLiteral("expectations[1].outcome[1]: unknown outcome \"ok\"");
    QTest::addRow("attempts min above max")
        << expectation(R"({"request": "a", "attempts": {"min": 3, "max": 2}})")
        << QStringLiteral("expectations[1].attempts: min (3) is larger than max (2)");
    QTest::addRow("attempts negative") << expectation(R"({"request": "a", "attempts": -2})")
                                       << QStringLiteral("expectations[1].attempts: -2 is out of range");
    QTest::addRow("attempts a string") << expectation(R"({"request": "a", "attempts": "3"})")
                                       << QStringLiteral("expectations[1].attempts: expected a whole number or");
    QTest::addRow("attempts object empty") << expectation(R"({"request": "a", "attempts": {}})")
                                           << QStringLiteral("expectations[1].attempts: give \"min\", \"max\" or both");
    QTest::addRow("final status 42") << expectation(R"({"request": "a", "finalStatus": 42})")
                                     << QStringLiteral("expectations[1].finalStatus: 42 is out of range (100 to 599)");
    QTest::addRow("success rate above 1")
        << expectation(R"({"request": "a", "minSuccessRate": 1.5})")
        << QStringLiteral("expectations[1].minSuccessRate: 1.5 is out of range (0 to 1)");
    QTest::addRow("min time above max") << expectation(R"({"request": "a", "minTotalMs": 9, "maxTotalMs": 1})")
                                        << QStringLiteral(
                                               "expectations[1].minTotalMs: 9 is larger than maxTotalMs (1)");
    QTest::addRow("expectation checking nothing")
        << expectation(R"({"request": "a"})") << QStringLiteral("expectations[1]: checks nothing");
    QTest::addRow("expectation with an unknown field")
        << expectation(R"({"request": "a", "outcomes": "succeeded"})")
        << QStringLiteral("expectations[1].outcomes: unknown field; did you mean \"outcome\"?");
}

void TestScenarioReader::malformed_namesTheFieldOrLine()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    const auto result = ScenarioReader::fromJson(json);
    QVERIFY2(!result.ok(), "a malformed scenario was accepted");
    QVERIFY2(result.error().startsWith(error), qPrintable(result.error()));
    verifyOffsetIsThePlaceNamed(json, result.errorDetail());
}

void TestScenarioReader::malformed_errorHasThePathApart_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    const auto withPolicy = [](const QByteArray &policy) -> QByteArray {
        return R"({"format": "retrylab-scenario", "policy": )" + policy
            + R"(, "requests": [{"name": "a", "url": "{server}/"}]})";
    };
    // A policy reports paths inside itself; the scenario puts them under its own.
    QTest::addRow("inline policy, nested field of the wrong type")
        << withPolicy(R"({"classification": {"maxRetryAfterMs": "soon"}})") << "policy.classification.maxRetryAfterMs"
        << "expected a number, got a string";
    QTest::addRow("inline policy, nested field the validation refuses")
        << withPolicy(R"({"classification": {"maxRetryAfterMs": -5}})") << "policy.classification.maxRetryAfterMs"
        << "cannot be negative (got -5 ms).";
    QTest::addRow("override of a nested field the validation refuses")
        << withPolicy(R"({"preset": "iam", "overrides": {"classification": {"maxRetryAfterMs": -5}}})")
        << "policy.overrides.classification.maxRetryAfterMs"
        << "cannot be negative (got -5 ms).";
    QTest::addRow("misspelt override of a nested field")
        << withPolicy(R"({"preset": "iam", "overrides": {"circuitBreaker": {"openMS": 5}}})")
        << "policy.overrides.circuitBreaker.openMS"
        << "unknown field; did you mean \"openMs\"?";
    QTest::addRow("overridden format") << withPolicy(R"({"preset": "iam", "overrides": {"format": "x"}})")
                                       << "policy.overrides.format"
                                       << "cannot be overridden";
    QTest::addRow("header of a request") << scenarioWith(
        R"([{"name": "a", "url": "{server}/"}, {"name": "b", "url": "{server}/", "headers": {"X-N": 5}}])")
                                         << "requests[1].headers.X-N"
                                         << "expected a string, got a number";
    QTest::addRow("step of a script") << scenarioWith(
        R"([{"name": "a", "url": "{server}/", "script": {"steps": ["pass", "boom"]}}])")
                                      << "requests[0].script.steps[1]"
                                      << "unknown instruction \"boom\"";
    QTest::addRow("the whole file") << QByteArray("[1]") << QString() << "a scenario file holds one JSON object";
}

void TestScenarioReader::malformed_errorHasThePathApart()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto result = ScenarioReader::fromJson(json);
    QVERIFY(!result.ok());
    QCOMPARE(result.errorDetail().path, path);
    QVERIFY2(result.errorDetail().message.startsWith(message), qPrintable(result.error()));
}

void TestScenarioReader::readFile_prefixesTheFileAndDefaultsTheName()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString good = dir.filePath(QStringLiteral("nightly-check.json"));
    QFile file(good);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(scenarioWith(R"([{"name": "a", "url": "http://127.0.0.1:1/"}])"));
    file.close();
    const auto read = ScenarioReader::readFile(good);
    QVERIFY2(read.ok(), qPrintable(read.error()));
    QCOMPARE(read->name, QStringLiteral("nightly-check"));

    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile badFile(bad);
    QVERIFY(badFile.open(QIODevice::WriteOnly));
    badFile.write(scenarioWith(R"([{"name": "a", "url": "http://127.0.0.1:1/", "count": -4}])"));
    badFile.close();
    const auto refused = ScenarioReader::readFile(bad);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error(), bad + QStringLiteral(": requests[0].count: -4 is out of range (1 to 100000)"));

    const auto missing = ScenarioReader::readFile(dir.filePath(QStringLiteral("absent.json")));
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error(),
        QStringLiteral("cannot read %1: no such file").arg(dir.filePath(QStringLiteral("absent.json"))));
}

void TestScenarioReader::resolveUrl_replacesThePlaceholderOnly()
{
    const QUrl base(QStringLiteral("http://127.0.0.1:4321"));
    const QString key = QStringLiteral("k1-7");
    QCOMPARE(Scenario::resolveUrl(QStringLiteral("{server}/status/503?x=1"), base, key),
        QUrl(QStringLiteral("http://127.0.0.1:4321/status/503?x=1")));
    QCOMPARE(Scenario::resolveUrl(QStringLiteral("{server}/a"), QUrl(QStringLiteral("http://127.0.0.1:4321/")), key),
        QUrl(QStringLiteral("http://127.0.0.1:4321/a")));
    QCOMPARE(Scenario::resolveUrl(QStringLiteral("https://example.test/x"), base, key),
        QUrl(QStringLiteral("https://example.test/x")));
    // {id} is the request's key, as in the window.
    QCOMPARE(Scenario::resolveUrl(QStringLiteral("{server}/fail/2?key={id}"), base, key),
        QUrl(QStringLiteral("http://127.0.0.1:4321/fail/2?key=k1-7")));
    QCOMPARE(Scenario::expand(QStringLiteral(R"({"order": "{id}", "{x}": 1})"), base, key),
        QStringLiteral(R"({"order": "k1-7", "{x}": 1})"));
}

void TestScenarioReader::endpointPolicies_firstMatchWins()
{
    const auto s = ScenarioReader::fromJson(scenarioWith(R"([{"name": "a", "url": "{server}/status/200"}])",
        R"(, "endpointPolicies": [
            {"host": "*.storage.example", "path": "/upload/*", "policy": "azure-batch"},
            {"path": "/upload/*", "policy": {"preset": "iam", "overrides": {"maxAttempts": 2}}},
            {"host": "API.example", "policy": "azure-interactive"}])"));
    QVERIFY2(s, qPrintable(s.error()));
    QCOMPARE(s->endpointPolicies.size(), 3);
    QCOMPARE(s->endpointPolicies[0].origin, QStringLiteral("preset azure-batch"));
    QCOMPARE(s->endpointPolicies[0].describe(), QStringLiteral("host *.storage.example, path /upload/*"));
    QCOMPARE(s->policyFor(QUrl(QStringLiteral("https://eu.storage.example/upload/x"))).name,
        QStringLiteral("Azure Retry pattern, batch"));
    QCOMPARE(s->policyFor(QUrl(QStringLiteral("http://127.0.0.1:80/upload/x"))).maxAttempts, 2);
    QCOMPARE(s->policyFor(QUrl(QStringLiteral("http://api.example/v1/items"))).name,
        QStringLiteral("Azure Retry pattern, interactive"));
    QCOMPARE(s->policyFor(QUrl(QStringLiteral("http://other.example/upload"))), s->policy); // /upload is not /upload/*
    QVERIFY(!s->endpointPolicies[1].matches(QUrl(QStringLiteral("http://h/uploads/x"))));
}

QTEST_GUILESS_MAIN(TestScenarioReader)
#include "tst_scenarioreader.moc"
