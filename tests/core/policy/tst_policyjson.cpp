#include "core/policy/backoff.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"

#include <QJsonDocument>
#include <QJsonObject>
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

} // namespace

class TestPolicyJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_isLossless();
    void presets_allLoadAndRoundTrip();
    void presets_matchTheirSources();
    void invalidFiles_nameTheField_data();
    void invalidFiles_nameTheField();
    void notJson_givesTheOffsetOfThePlace();
    void missingFields_keepDefaults();
    void retryOnResponse_readsTheDocumentedForm();
    void files_writeAndRead();
    void unreadableFile_saysWhy();
};

void TestPolicyJson::roundTrip_isLossless()
{
    BackoffPolicy p;
    p.name = QStringLiteral("Ünïcode \"quoted\"");
    p.description = QStringLiteral("line 1\nline 2");
    p.algorithm = BackoffAlgorithm::DecorrelatedJitter;
    p.baseDelayMs = 12.5;
    p.multiplier = 1.7;
    p.maxBackoffMs = 12345.678;
    p.jitterMs = 3.25;
    p.jitterFraction = 0.125;
    p.maxAttempts = 0;
    p.deadlineMs = 99'999;
    p.attemptTimeoutMs = 1500;
    p.classification.retryableStatuses = {404, 429, 503};
    p.classification.retryConflictAborted = false;
    p.classification.honourRetryAfter = false;
    p.classification.maxRetryAfterMs = 1234;
    p.classification.networkActions[NetworkFaultClass::HostNotFound] = FaultAction::RetryImmediately;
    p.classification.networkDelayFactors[NetworkFaultClass::ConnectionReset] = 0.5;
    p.classification.statusDelayFactors = {{429, 2.5}, {503, 0.5}};
    p.classification.putDeleteNeedPrecondition = true;
    p.intervalJitter = IntervalJitter::Equal;
    p.circuitBreaker = {true, 3, 0.5, 10, 2500, 2};
    p.retryBudget.kind = RetryBudgetKind::GrpcThrottling;
    p.retryBudget.grpcMaxTokens = 7;
    p.retryBudget.grpcTokenRatio = 0.25;
    p.rateLimiter = {RateLimiterKind::AwsAdaptive, 0.6, 0.5, 1.5};
    p.hedging = {true, 4, 250.0};
    p.classification.honourRateLimitReset = true;
    p.classification.retryOnResponse = {
        ResponseRetryCondition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")),
        ResponseRetryCondition::jsonEquals(QStringLiteral("/error/retryable"), true),
        ResponseRetryCondition::jsonEquals(QStringLiteral("/a~1b/0"), QJsonObject{{QStringLiteral("x"), 1.5}}),
        ResponseRetryCondition::jsonEquals(QStringLiteral(""), QJsonValue::Null),
        ResponseRetryCondition::headerPresent(QStringLiteral("X-Retry"), QStringLiteral("yes")),
        ResponseRetryCondition::headerPresent(QStringLiteral("X-Pending")),
        ResponseRetryCondition::headerPresent(QStringLiteral("X-Empty"), QString()),
        ResponseRetryCondition::bodyContains(QStringLiteral(" try again ")),
    };

    const auto back = PolicyJson::fromJson(PolicyJson::toJson(p));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QVERIFY(back.value() == p);
    QCOMPARE(PolicyJson::toJson(back.value()), PolicyJson::toJson(p));
}

void TestPolicyJson::presets_allLoadAndRoundTrip()
{
    const QStringList expected{QStringLiteral("aws-adaptive"), QStringLiteral("aws-standard"),
        QStringLiteral("azure-batch"), QStringLiteral("azure-interactive"), QStringLiteral("azure-retry-pattern"),
        QStringLiteral("curl-retry"), QStringLiteral("google-cloud-storage"),
        QStringLiteral("google-cloud-storage-client"), QStringLiteral("grpc-hedging"),
        QStringLiteral("grpc-retry-policy"), QStringLiteral("iam"), QStringLiteral("iam-retry-404"),
        QStringLiteral("memorystore"), QStringLiteral("polly-default")};
    QCOMPARE(Presets::ids(), expected);
    for (const auto &preset : Presets::all()) {
        QVERIFY2(isUsable(preset.policy), qPrintable(preset.id));
        QVERIFY2(!preset.policy.source.isEmpty(), qPrintable(preset.id));
        QVERIFY2(!preset.policy.description.isEmpty(), qPrintable(preset.id));
        const auto back = PolicyJson::fromJson(PolicyJson::toJson(preset.policy));
        QVERIFY2(back.ok(), qPrintable(back.error()));
        QVERIFY(back.value() == preset.policy);
        QCOMPARE(Presets::find(preset.id), preset.policy);
        QCOMPARE(Presets::find(preset.policy.name.toUpper()), preset.policy);
    }
    QVERIFY(!Presets::find(QStringLiteral("no-such-preset")));
}

void TestPolicyJson::presets_matchTheirSources()
{
    const auto iam = *Presets::find(QStringLiteral("iam"));
    QCOMPARE(iam.algorithm, BackoffAlgorithm::IamTruncatedExponential);
    QCOMPARE(iam.deadlineMs, 300'000.0);
    QCOMPARE(iam.classification.retryableStatuses, (QSet<int>{500, 502, 503, 504}));
    QVERIFY(iam.classification.retryConflictAborted);
    QVERIFY(Presets::find(QStringLiteral("iam-retry-404"))->classification.retryableStatuses.contains(404));

    const auto gcs = *Presets::find(QStringLiteral("google-cloud-storage"));
    QCOMPARE(gcs.algorithm, BackoffAlgorithm::GoogleTruncatedExponential);
    QCOMPARE(gcs.jitterMs, 1000.0);
    QVERIFY(gcs.classification.retryableStatuses.contains(429));
    QVERIFY(gcs.classification.retryableStatuses.contains(500));
    QVERIFY(gcs.classification.retryableStatuses.contains(599));
    QCOMPARE(Backoff::delayRange(gcs, 0).minMs, 1000.0);
    QCOMPARE(Backoff::delayRange(gcs, 0).maxMs, 2000.0);
    QVERIFY(gcs.classification.retryableStatuses.contains(408)); // the Cloud Storage retry strategy
    QCOMPARE(gcs.maxBackoffMs, 32'000.0);
    QCOMPARE(Presets::find(QStringLiteral("memorystore"))->maxBackoffMs, 64'000.0);
    QCOMPARE(iam.maxBackoffMs, 32'000.0);

    // The client libraries' defaults: 1 s, x2, 60 s cap, 120 s deadline.
    const auto gcsClient = *Presets::find(QStringLiteral("google-cloud-storage-client"));
    QCOMPARE(gcsClient.baseDelayMs, 1000.0);
    QCOMPARE(gcsClient.multiplier, 2.0);
    QCOMPARE(gcsClient.maxBackoffMs, 60'000.0);
    QCOMPARE(gcsClient.deadlineMs, 120'000.0);
    QCOMPARE(gcsClient.maxAttempts, 0);
    QVERIFY(gcsClient.classification.retryableStatuses.contains(408));

    // Memorystore, Cloud Storage and IAM wait 2^n + random before every retry: a
    // protocol failure is no exception to it (the Retry pattern's "retry at once"
    // for a rare fault is not theirs).
    for (const char *google :
        {"memorystore", "google-cloud-storage", "google-cloud-storage-client", "iam", "iam-retry-404"}) {
        const BackoffPolicy p = *Presets::find(QLatin1String(google));
        QCOMPARE(
            p.classification.networkActions.value(NetworkFaultClass::ProtocolFailure), FaultAction::RetryAfterDelay);
    }

    const auto aws = *Presets::find(QStringLiteral("aws-standard"));
    QCOMPARE(aws.maxAttempts, 3);
    QCOMPARE(aws.retryBudget.kind, RetryBudgetKind::AwsStandard);
    QCOMPARE(aws.retryBudget.awsCapacity, 500.0);
    QCOMPARE(aws.maxBackoffMs, 20'000.0);

    // Adaptive mode is standard mode and botocore's rate limiter.
    auto adaptive = *Presets::find(QStringLiteral("aws-adaptive"));
    QCOMPARE(adaptive.rateLimiter.kind, RateLimiterKind::AwsAdaptive);
    QCOMPARE(adaptive.rateLimiter.beta, 0.7);
    QCOMPARE(adaptive.rateLimiter.scale, 0.4);
    QCOMPARE(adaptive.rateLimiter.minRate, 0.5);
    QVERIFY(adaptive.source.contains(QLatin1String("adaptive mode")));
    adaptive.rateLimiter = {};
    adaptive.name = aws.name;
    adaptive.description = aws.description;
    adaptive.source = aws.source;
    QVERIFY(adaptive == aws);
    // Without a limiter the file has no "rateLimiter" object.
    QVERIFY(!PolicyJson::toJsonObject(aws).contains(QLatin1String("rateLimiter")));

    // gRPC's hedging example: maxAttempts 4, hedgingDelay 0.5 s, UNAVAILABLE, INTERNAL and ABORTED non-fatal.
    const auto hedging = *Presets::find(QStringLiteral("grpc-hedging"));
    QCOMPARE(hedging.hedging, (HedgingSettings{true, 4, 500.0}));
    QCOMPARE(hedging.classification.retryableStatuses, (QSet<int>{409, 500, 503}));
    QVERIFY(hedging.classification.retryConflictAborted);
    QCOMPARE(hedging.retryBudget.kind, RetryBudgetKind::GrpcThrottling);
    // Without hedging the file has no "hedging" object.
    QVERIFY(!PolicyJson::toJsonObject(aws).contains(QLatin1String("hedging")));
    QVERIFY(PolicyJson::toJsonObject(hedging).contains(QLatin1String("hedging")));

    const auto grpc = *Presets::find(QStringLiteral("grpc-retry-policy"));
    QCOMPARE(grpc.maxAttempts, 4);
    QCOMPARE(grpc.baseDelayMs, 100.0);
    QCOMPARE(grpc.maxBackoffMs, 1000.0);

    const auto curl = *Presets::find(QStringLiteral("curl-retry"));
    QCOMPARE(curl.maxBackoffMs, 600'000.0);
    QCOMPARE(curl.classification.networkActions.value(NetworkFaultClass::ConnectionRefused), FaultAction::GiveUp);

    const auto polly = *Presets::find(QStringLiteral("polly-default"));
    QCOMPARE(polly.algorithm, BackoffAlgorithm::Constant);
    QCOMPARE(polly.baseDelayMs, 2000.0);
    QCOMPARE(polly.maxAttempts, 4);
}

void TestPolicyJson::invalidFiles_nameTheField_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("messageContains");

    QTest::addRow("not json") << QByteArray("{nope") << QString() << "not valid JSON";
    QTest::addRow("array") << QByteArray("[1,2]") << QString() << "JSON object";
    QTest::addRow("wrong format") << QByteArray(R"({"format":"other"})") << "format"
                                  << "expected \"retrylab-policy\", got \"other\"";
    QTest::addRow("future version") << QByteArray(R"({"version":99})") << "version"
                                    << "version 99 is not supported";
    QTest::addRow("unknown interval jitter") << QByteArray(R"({"intervalJitter":"wild"})") << "intervalJitter"
                                             << "unknown interval jitter \"wild\"";
    QTest::addRow("delay factor too big")
        << QByteArray(R"({"classification":{"networkDelayFactors":{"connection-reset":11}}})")
        << "classification.networkDelayFactors.connection-reset"
        << "";
    QTest::addRow("delay factor of an unknown fault")
        << QByteArray(R"({"classification":{"networkDelayFactors":{"conection-reset":0.5}}})")
        << "classification.networkDelayFactors.conection-reset"
        << "did you mean \"connection-reset\"";
    QTest::addRow("status delay factor too big")
        << QByteArray(R"({"classification":{"statusDelayFactors":{"429":11}}})")
        << "classification.statusDelayFactors.429"
        << "";
    QTest::addRow("status delay factor of no status")
        << QByteArray(R"({"classification":{"statusDelayFactors":{"4290":2}}})")
        << "classification.statusDelayFactors.4290"
        << "not an HTTP status code";
    QTest::addRow("attempts beyond an int") << QByteArray(R"({"maxAttempts":9007199254740992})") << "maxAttempts"
                                            << "9007199254740992 is beyond the sensible limit of 1000";
    QTest::addRow("base as string") << QByteArray(R"({"baseDelayMs":"fast"})") << "baseDelayMs"
                                    << "expected a number, got a string";
    QTest::addRow("negative base") << QByteArray(R"({"baseDelayMs":-5})") << "baseDelayMs"
                                   << "cannot be negative";
    QTest::addRow("unknown algorithm") << QByteArray(R"({"algorithm":"quantum"})") << "algorithm"
                                       << "unknown algorithm \"quantum\" (known: google-truncated-exponential";
    QTest::addRow("fractional attempts") << QByteArray(R"({"maxAttempts":2.5})") << "maxAttempts"
                                         << "expected a whole number, got 2.5";
    QTest::addRow("absurd attempts") << QByteArray(R"({"maxAttempts":1e10})") << "maxAttempts"
                                     << "10000000000 is beyond the sensible limit of 1000";
    QTest::addRow("limiter beta of 1") << QByteArray(R"({"rateLimiter":{"kind":"aws-adaptive","beta":1}})")
                                       << "rateLimiter.beta"
                                       << "beta must lie strictly between 0 and 1 (got 1)";
    QTest::addRow("limiter beta of 0") << QByteArray(R"({"rateLimiter":{"kind":"aws-adaptive","beta":0}})")
                                       << "rateLimiter.beta"
                                       << "beta must lie strictly between 0 and 1 (got 0)";
    QTest::addRow("negative limiter scale")
        << QByteArray(R"({"rateLimiter":{"kind":"aws-adaptive","scale":-0.4}})") << "rateLimiter.scale"
        << "must be above 0";
    QTest::addRow("limiter minimum rate of 0")
        << QByteArray(R"({"rateLimiter":{"kind":"aws-adaptive","minRate":0}})") << "rateLimiter.minRate"
        << "must be above 0";
    QTest::addRow("unknown limiter") << QByteArray(R"({"rateLimiter":{"kind":"aws-cautious"}})") << "rateLimiter.kind"
                                     << "unknown kind of rate limiter \"aws-cautious\" (known: none, aws-adaptive)";
    QTest::addRow("unknown limiter field")
        << QByteArray(R"({"rateLimiter":{"kind":"aws-adaptive","bta":0.5}})") << "rateLimiter.bta"
        << "did you mean \"beta\"?";
    QTest::addRow("hedging delay of 0") << QByteArray(R"({"hedging":{"enabled":true,"delayMs":0}})")
                                        << "hedging.delayMs"
                                        << "the hedging delay must be above 0 ms (got 0): with no delay every "
                                           "attempt goes out at once";
    QTest::addRow("negative hedging delay")
        << QByteArray(R"({"hedging":{"enabled":true,"delayMs":-5}})") << "hedging.delayMs"
        << "must be above 0 ms (got -5)";
    QTest::addRow("one hedged attempt") << QByteArray(R"({"hedging":{"enabled":true,"maxAttempts":1}})")
                                        << "hedging.maxAttempts"
                                        << "must lie between 2 and 10 (got 1)";
    QTest::addRow("too many hedged attempts")
        << QByteArray(R"({"hedging":{"enabled":true,"maxAttempts":11}})") << "hedging.maxAttempts"
        << "(got 11)";
    QTest::addRow("hedging delay as text")
        << QByteArray(R"({"hedging":{"enabled":true,"delayMs":"fast"}})") << "hedging.delayMs"
        << "expected a number";
    QTest::addRow("unknown hedging field")
        << QByteArray(R"({"hedging":{"enabled":true,"delay":100}})") << "hedging.delay"
        << "did you mean \"delayMs\"?";
    QTest::addRow("unknown field") << QByteArray(R"({"baseDelay":5})") << "baseDelay"
                                   << "unknown field; did you mean \"baseDelayMs\"?";
    QTest::addRow("unknown nested field") << QByteArray(R"({"circuitBreaker":{"openMS":5}})") << "circuitBreaker.openMS"
                                          << "did you mean \"openMs\"?";
    QTest::addRow("bad status") << QByteArray(R"({"classification":{"retryableStatuses":[503,"x"]}})")
                                << "classification.retryableStatuses[1]"
                                << "expected a whole number, got a string";
    QTest::addRow("status out of range") << QByteArray(R"({"classification":{"retryableStatuses":[600]}})")
                                         << "classification.retryableStatuses[0]"
                                         << "600 is out of range (100 to 599)";
    QTest::addRow("statuses not a list") << QByteArray(R"({"classification":{"retryableStatuses":503}})")
                                         << "classification.retryableStatuses"
                                         << "expected an array, got a number";
    QTest::addRow("bad network action") << QByteArray(R"({"classification":{"networkActions":{"timeout":"pray"}}})")
                                        << "classification.networkActions.timeout"
                                        << "unknown action \"pray\" (known: retry-after-delay";
    QTest::addRow("unknown fault class") << QByteArray(
        R"({"classification":{"networkActions":{"gremlins":"give-up"}}})")
                                         << "classification.networkActions.gremlins"
                                         << "unknown network fault class (known: connection-refused";
    QTest::addRow("misspelt fault class") << QByteArray(R"({"classification":{"networkActions":{"timout":"give-up"}}})")
                                          << "classification.networkActions.timout"
                                          << "did you mean \"timeout\"?";
    QTest::addRow("breaker not object") << QByteArray(R"({"circuitBreaker":3})") << "circuitBreaker"
                                        << "expected an object, got a number";
    QTest::addRow("budget kind") << QByteArray(R"({"retryBudget":{"kind":"lots"}})") << "retryBudget.kind"
                                 << "unknown kind of retry budget \"lots\"";
    QTest::addRow("cap below base") << QByteArray(R"({"baseDelayMs":5000,"maxBackoffMs":10})") << "maxBackoffMs"
                                    << "below the base delay";
    QTest::addRow("huge deadline") << QByteArray(R"({"deadlineMs":1e15})") << "deadlineMs"
                                   << "beyond the sensible limit";
    // Validation names the classification fields as the editor does; the error
    // names them where they are in the file.
    QTest::addRow("retry-after cap out of range")
        << QByteArray(R"({"classification":{"maxRetryAfterMs":-1}})") << "classification.maxRetryAfterMs"
        << "cannot be negative (got -1 ms)";
    QTest::addRow("breaker window") << QByteArray(R"({"circuitBreaker":{"enabled":true,"window":0}})")
                                    << "circuitBreaker.window"
                                    << "must lie between 1 and 100000 (got 0)";

    // Conditions on a response: the reader refuses their shape, validatePolicy() their contents;
    // both name the condition where it is in the file.
    const auto conditions = [](const QByteArray &list) -> QByteArray {
        return QByteArray(R"({"classification":{"retryOnResponse":)") + list + QByteArray("}}");
    };
    QTest::addRow("rate-limit switch not a boolean")
        << QByteArray(R"({"classification":{"honourRateLimitReset":"yes"}})") << "classification.honourRateLimitReset"
        << "expected true or false, got a string";
    QTest::addRow("conditions not a list") << conditions(R"({"header":"X"})") << "classification.retryOnResponse"
                                           << "expected an array, got an object";
    QTest::addRow("condition not an object") << conditions("[3]") << "classification.retryOnResponse[0]"
                                             << "expected an object, got a number";
    QTest::addRow("condition of no kind")
        << conditions(R"([{"header":"X"},{"equals":1}])") << "classification.retryOnResponse[1]"
        << "a condition needs one of jsonPointer, header or bodyContains";
    QTest::addRow("condition of two kinds")
        << conditions(R"([{"header":"X","bodyContains":"y"}])") << "classification.retryOnResponse[0]"
        << "a condition has one kind, not 2 (header, bodyContains)";
    QTest::addRow("condition key misspelt")
        << conditions(R"([{"jsonPointer":"/a","equal":1}])") << "classification.retryOnResponse[0].equal"
        << "did you mean \"equals\"?";
    QTest::addRow("json pointer without a value")
        << conditions(R"([{"jsonPointer":"/a"}])") << "classification.retryOnResponse[0].equals"
        << "missing";
    QTest::addRow("json pointer not a string")
        << conditions(R"([{"jsonPointer":5,"equals":1}])") << "classification.retryOnResponse[0].jsonPointer"
        << "expected a string, got a number";
    QTest::addRow("json pointer that does not parse")
        << conditions(R"([{"bodyContains":"x"},{"jsonPointer":"status","equals":"PENDING"}])")
        << "classification.retryOnResponse[1].jsonPointer"
        << "\"status\" is not a JSON pointer";
    QTest::addRow("json pointer with a bad escape")
        << conditions(R"([{"jsonPointer":"/a~2","equals":1}])") << "classification.retryOnResponse[0].jsonPointer"
        << "is not a JSON pointer";
    QTest::addRow("empty header name") << conditions(R"([{"header":""}])") << "classification.retryOnResponse[0].header"
                                       << "the header's name is empty";
    QTest::addRow("header name with a space")
        << conditions(R"([{"header":"X Retry","equals":"yes"}])") << "classification.retryOnResponse[0].header"
        << "\"X Retry\" is not a header name";
    QTest::addRow("header value not a string")
        << conditions(R"([{"header":"X-Retry","equals":true}])") << "classification.retryOnResponse[0].equals"
        << "expected a string, got true";
    QTest::addRow("empty body text") << conditions(R"([{"bodyContains":""}])")
                                     << "classification.retryOnResponse[0].bodyContains"
                                     << "the text is empty";
    QTest::addRow("body text with a value")
        << conditions(R"([{"bodyContains":"x","equals":"y"}])") << "classification.retryOnResponse[0].equals"
        << "leave equals out";
    QByteArray many = "[";
    for (int i = 0; i < 33; ++i)
        many += QByteArray(i ? "," : "") + R"({"header":"X-Pending"})";
    many += "]";
    QTest::addRow("too many conditions") << conditions(many) << "classification.retryOnResponse"
                                         << "33 conditions are more than the 32 a policy may have";
}

void TestPolicyJson::invalidFiles_nameTheField()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, messageContains);
    const auto result = PolicyJson::fromJson(json);
    QVERIFY(!result.ok());
    const Error error = result.errorDetail();
    QCOMPARE(error.path, path);
    QVERIFY2(error.message.contains(messageContains), qPrintable(error.message));
    QCOMPARE(result.error(), error.text());
}

void TestPolicyJson::retryOnResponse_readsTheDocumentedForm()
{
    // The example of docs/executor.md ("Retrying on what the response says"), key for key.
    const auto read = PolicyJson::fromJson(R"({"classification": {"honourRateLimitReset": true, "retryOnResponse": [
        {"jsonPointer": "/status", "equals": "PENDING"},
        {"jsonPointer": "/error/retryable", "equals": true},
        {"header": "X-Retry", "equals": "yes"},
        {"header": "X-Pending"},
        {"bodyContains": "try again"}]}})");
    QVERIFY2(read, qPrintable(read.error()));
    const ClassificationRules &rules = read->classification;
    QVERIFY(rules.honourRateLimitReset);
    const QList<ResponseRetryCondition> expected{
        ResponseRetryCondition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")),
        ResponseRetryCondition::jsonEquals(QStringLiteral("/error/retryable"), true),
        ResponseRetryCondition::headerPresent(QStringLiteral("X-Retry"), QStringLiteral("yes")),
        ResponseRetryCondition::headerPresent(QStringLiteral("X-Pending")),
        ResponseRetryCondition::bodyContains(QStringLiteral("try again")),
    };
    QVERIFY(rules.retryOnResponse == expected);

    // Without conditions the key is not written, so that files stay as they were.
    const QJsonObject plain = PolicyJson::toJsonObject(BackoffPolicy{});
    QVERIFY(!plain.value(QStringLiteral("classification")).toObject().contains(QStringLiteral("retryOnResponse")));
    QCOMPARE(plain.value(QStringLiteral("classification")).toObject().value(QStringLiteral("honourRateLimitReset")),
        QJsonValue(false));
}

void TestPolicyJson::missingFields_keepDefaults()
{
    const auto result = PolicyJson::fromJson(R"({"algorithm":"full-jitter"})");
    QVERIFY(result.ok());
    BackoffPolicy expected;
    expected.algorithm = BackoffAlgorithm::FullJitter;
    QVERIFY(result.value() == expected);
}

void TestPolicyJson::files_writeAndRead()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("policy.json"));
    const BackoffPolicy p = *Presets::find(QStringLiteral("iam"));
    QVERIFY(PolicyJson::writeFile(path, p));
    const auto back = PolicyJson::readFile(path);
    QVERIFY(back.ok());
    QVERIFY(back.value() == p);
}

void TestPolicyJson::unreadableFile_saysWhy()
{
    const auto result = PolicyJson::readFile(QStringLiteral("/nonexistent/dir/policy.json"));
    QVERIFY(!result.ok());
    QVERIFY(result.error().contains(QLatin1String("/nonexistent/dir/policy.json")));
    QVERIFY(!PolicyJson::writeFile(QStringLiteral("/nonexistent/dir/p.json"), BackoffPolicy{}));
}

void TestPolicyJson::notJson_givesTheOffsetOfThePlace()
{
    // Characters of two bytes before the error: the offset counts characters, as an editor does.
    const QByteArray json = QStringLiteral("{\n  \"name\": \"d\u00e9j\u00e0 vu\",\n  \"baseDelayMs\": ,\n}").toUtf8();
    const auto result = PolicyJson::fromJson(json);
    QVERIFY(!result);
    const Error error = result.errorDetail();
    QVERIFY(error.path.isEmpty());
    QVERIFY2(error.message.startsWith(QLatin1String("line 3, column ")), qPrintable(error.message));
    verifyOffsetIsThePlaceNamed(json, error);
}

QTEST_GUILESS_MAIN(TestPolicyJson)
#include "tst_policyjson.moc"
