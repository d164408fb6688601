#include "core/export/grpcserviceconfig.h"
#include "core/policy/presets.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;

namespace {

BackoffPolicy preset(const char *id)
{
    return Presets::find(QString::fromLatin1(id)).value();
}

QJsonObject methodConfig(const GrpcServiceConfig::Export &e)
{
    return e.serviceConfig.value(QStringLiteral("methodConfig")).toArray().at(0).toObject();
}

QJsonObject retryPolicy(const GrpcServiceConfig::Export &e)
{
    return methodConfig(e).value(QStringLiteral("retryPolicy")).toObject();
}

QStringList codes(const GrpcServiceConfig::Export &e)
{
    QStringList list;
    for (const QJsonValue &v : retryPolicy(e).value(QStringLiteral("retryableStatusCodes")).toArray())
        list.append(v.toString());
    return list;
}

bool warns(const GrpcServiceConfig::Export &e, const QString &fragment)
{
    for (const QString &w : e.warnings) {
        if (w.contains(fragment, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace

class TestGrpcServiceConfig : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void grpcPreset_mapsExactly();
    void maxAttemptsAboveFive_warnsAboutClamping();
    void storagePreset_mapsStatusesAndNamesTheRest();
    void httpStatusMapping_data();
    void httpStatusMapping();
    void durations_data();
    void durations();
    void algorithms_warnUnlessFullJitter_data();
    void algorithms_warnUnlessFullJitter();
    void constantAndImmediate_useTheClosestConfig();
    void deadlineOnly_becomesTimeoutAndMaxAttempts();
    void singleAttempt_writesNoRetryPolicy();
    void connectionFaults_addUnavailable();
    void throttling_roundsToWhatGrpcAccepts();
    void awsBudget_isNotExported();
    void methodName_isWritten();
    void json_isAServiceConfig();
};

void TestGrpcServiceConfig::grpcPreset_mapsExactly()
{
    const auto e = GrpcServiceConfig::fromPolicy(preset("grpc-retry-policy"));
    const QJsonObject p = retryPolicy(e);
    QCOMPARE(p.value(QStringLiteral("maxAttempts")).toInt(), 4);
    QCOMPARE(p.value(QStringLiteral("initialBackoff")).toString(), QStringLiteral("0.100s"));
    QCOMPARE(p.value(QStringLiteral("maxBackoff")).toString(), QStringLiteral("1s"));
    QCOMPARE(p.value(QStringLiteral("backoffMultiplier")).toDouble(), 2.0);
    QCOMPARE(codes(e), QStringList{QStringLiteral("UNAVAILABLE")});
    const QJsonObject throttling = e.serviceConfig.value(QStringLiteral("retryThrottling")).toObject();
    QCOMPARE(throttling.value(QStringLiteral("maxTokens")).toDouble(), 10.0);
    QCOMPARE(throttling.value(QStringLiteral("tokenRatio")).toDouble(), 0.1);
    QVERIFY(!methodConfig(e).contains(QStringLiteral("timeout")));
    // Full jitter is gRPC's own backoff: no warning about it, and none about clamping.
    QVERIFY(!warns(e, QStringLiteral("jitter")));
    QVERIFY(!warns(e, QStringLiteral("random time")));
    QVERIFY(!warns(e, QStringLiteral("above 5")));
    // What gRPC cannot say is still named.
    QVERIFY(warns(e, QStringLiteral("per-attempt timeout of 10000 ms")));
    QVERIFY(warns(e, QStringLiteral("Retry-After")));
    QVERIFY(warns(e, QStringLiteral("idempotent")));
    QVERIFY(warns(e, QStringLiteral("read-modify-write")));
}

void TestGrpcServiceConfig::maxAttemptsAboveFive_warnsAboutClamping()
{
    BackoffPolicy p = preset("grpc-retry-policy");
    p.maxAttempts = 8;
    const auto e = GrpcServiceConfig::fromPolicy(p);
    QCOMPARE(retryPolicy(e).value(QStringLiteral("maxAttempts")).toInt(), 8);
    QVERIFY(warns(e, QStringLiteral("maxAttempts 8 is above 5")));
    p.maxAttempts = 5;
    QVERIFY(!warns(GrpcServiceConfig::fromPolicy(p), QStringLiteral("above 5")));
}

void TestGrpcServiceConfig::storagePreset_mapsStatusesAndNamesTheRest()
{
    const auto e = GrpcServiceConfig::fromPolicy(preset("google-cloud-storage"));
    QCOMPARE(codes(e),
        (QStringList{QStringLiteral("RESOURCE_EXHAUSTED"), QStringLiteral("INTERNAL"), QStringLiteral("UNKNOWN"),
            QStringLiteral("UNIMPLEMENTED"), QStringLiteral("UNAVAILABLE"), QStringLiteral("DEADLINE_EXCEEDED")}));
    QCOMPARE(retryPolicy(e).value(QStringLiteral("maxAttempts")).toInt(), 10);
    QCOMPARE(retryPolicy(e).value(QStringLiteral("initialBackoff")).toString(), QStringLiteral("1s"));
    QCOMPARE(retryPolicy(e).value(QStringLiteral("maxBackoff")).toString(), QStringLiteral("32s"));
    // 408 is retryable in Cloud Storage and has no gRPC code of its own either.
    QVERIFY(warns(e, QStringLiteral("HTTP 408, 505-599 has no gRPC status code")));
    QVERIFY(warns(e, QStringLiteral("random 0-1000 ms")));
    QVERIFY(warns(e, QStringLiteral("above 5")));
}

void TestGrpcServiceConfig::httpStatusMapping_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QStringList>("expected");
    QTest::addRow("401") << 401 << QStringList{QStringLiteral("UNAUTHENTICATED")};
    QTest::addRow("403") << 403 << QStringList{QStringLiteral("PERMISSION_DENIED")};
    QTest::addRow("404") << 404 << QStringList{QStringLiteral("NOT_FOUND")};
    QTest::addRow("409") << 409 << QStringList{QStringLiteral("ABORTED")};
    QTest::addRow("429") << 429 << QStringList{QStringLiteral("RESOURCE_EXHAUSTED")};
    QTest::addRow("499") << 499 << QStringList{QStringLiteral("CANCELLED")};
    QTest::addRow("500") << 500 << QStringList{QStringLiteral("INTERNAL"), QStringLiteral("UNKNOWN")};
    QTest::addRow("501") << 501 << QStringList{QStringLiteral("UNIMPLEMENTED")};
    QTest::addRow("502") << 502 << QStringList{QStringLiteral("UNAVAILABLE")};
    QTest::addRow("503") << 503 << QStringList{QStringLiteral("UNAVAILABLE")};
    QTest::addRow("504") << 504 << QStringList{QStringLiteral("DEADLINE_EXCEEDED")};
    QTest::addRow("400 is ambiguous") << 400 << QStringList{};
    QTest::addRow("408 has none") << 408 << QStringList{};
    QTest::addRow("412 has none") << 412 << QStringList{};
    QTest::addRow("507 has none") << 507 << QStringList{};
}

void TestGrpcServiceConfig::httpStatusMapping()
{
    QFETCH(int, status);
    QFETCH(QStringList, expected);
    QCOMPARE(GrpcServiceConfig::grpcCodesForHttpStatus(status), expected);
}

void TestGrpcServiceConfig::durations_data()
{
    QTest::addColumn<double>("ms");
    QTest::addColumn<QString>("expected");
    QTest::addRow("whole seconds") << 32000.0 << QStringLiteral("32s");
    QTest::addRow("zero") << 0.0 << QStringLiteral("0s");
    QTest::addRow("milliseconds") << 100.0 << QStringLiteral("0.100s");
    QTest::addRow("seconds and ms") << 1500.0 << QStringLiteral("1.500s");
    QTest::addRow("microseconds") << 0.25 << QStringLiteral("0.000250s");
    QTest::addRow("nanoseconds") << 0.000001 << QStringLiteral("0.000000001s");
    QTest::addRow("one day") << 86'400'000.0 << QStringLiteral("86400s");
    QTest::addRow("negative is zero") << -5.0 << QStringLiteral("0s");
}

void TestGrpcServiceConfig::durations()
{
    QFETCH(double, ms);
    QFETCH(QString, expected);
    QCOMPARE(GrpcServiceConfig::durationString(ms), expected);
}

void TestGrpcServiceConfig::algorithms_warnUnlessFullJitter_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<QString>("fragment");
    QTest::addRow("exponential") << int(BackoffAlgorithm::Exponential) << QStringLiteral("without jitter");
    QTest::addRow("google") << int(BackoffAlgorithm::GoogleTruncatedExponential) << QStringLiteral("random 0-");
    QTest::addRow("iam") << int(BackoffAlgorithm::IamTruncatedExponential) << QStringLiteral("random 0-");
    QTest::addRow("equal") << int(BackoffAlgorithm::EqualJitter) << QStringLiteral("equal jitter");
    QTest::addRow("decorrelated") << int(BackoffAlgorithm::DecorrelatedJitter) << QStringLiteral("decorrelated");
    QTest::addRow("proportional") << int(BackoffAlgorithm::ProportionalJitter)
                                  << QStringLiteral("proportional jitter (+/-20%)");
    QTest::addRow("linear") << int(BackoffAlgorithm::Linear) << QStringLiteral("linearly");
    QTest::addRow("full jitter") << int(BackoffAlgorithm::FullJitter) << QString();
}

void TestGrpcServiceConfig::algorithms_warnUnlessFullJitter()
{
    QFETCH(int, algorithm);
    QFETCH(QString, fragment);
    BackoffPolicy p;
    p.algorithm = BackoffAlgorithm(algorithm);
    p.jitterFraction = 0.2;
    const auto e = GrpcServiceConfig::fromPolicy(p);
    QVERIFY(e.serviceConfig.contains(QStringLiteral("methodConfig")));
    if (fragment.isEmpty()) {
        QVERIFY(!warns(e, QStringLiteral("random time")));
        QVERIFY(!warns(e, QStringLiteral("jitter")));
    } else {
        QVERIFY2(warns(e, fragment), qPrintable(e.warnings.join(QLatin1Char('\n'))));
    }
}

void TestGrpcServiceConfig::constantAndImmediate_useTheClosestConfig()
{
    const auto azure = GrpcServiceConfig::fromPolicy(preset("azure-retry-pattern"));
    QCOMPARE(retryPolicy(azure).value(QStringLiteral("initialBackoff")).toString(), QStringLiteral("5s"));
    QCOMPARE(retryPolicy(azure).value(QStringLiteral("maxBackoff")).toString(), QStringLiteral("5s"));
    QCOMPARE(retryPolicy(azure).value(QStringLiteral("backoffMultiplier")).toDouble(), 1.0);
    QVERIFY(warns(azure, QStringLiteral("constant 5000 ms")));

    BackoffPolicy immediate;
    immediate.algorithm = BackoffAlgorithm::Immediate;
    immediate.baseDelayMs = 0.0;
    const auto e = GrpcServiceConfig::fromPolicy(immediate);
    QCOMPARE(retryPolicy(e).value(QStringLiteral("initialBackoff")).toString(), QStringLiteral("0.000001s"));
    QCOMPARE(retryPolicy(e).value(QStringLiteral("maxBackoff")).toString(), QStringLiteral("0.000001s"));
    QVERIFY(warns(e, QStringLiteral("cannot retry at once")));
}

void TestGrpcServiceConfig::deadlineOnly_becomesTimeoutAndMaxAttempts()
{
    const auto e = GrpcServiceConfig::fromPolicy(preset("iam"));
    QCOMPARE(methodConfig(e).value(QStringLiteral("timeout")).toString(), QStringLiteral("300s"));
    // The shortest waits 1, 2, 4, 8, 16 s and then 32 s eight times add up to 287 s <= 300 s: 13 retries.
    QCOMPARE(retryPolicy(e).value(QStringLiteral("maxAttempts")).toInt(), 14);
    QVERIFY(warns(e, QStringLiteral("bounded only by its deadline")));
    QVERIFY(warns(e, QStringLiteral("above 5")));
    QVERIFY(warns(e, QStringLiteral("does not give up early")));
}

void TestGrpcServiceConfig::singleAttempt_writesNoRetryPolicy()
{
    BackoffPolicy p;
    p.maxAttempts = 1;
    const auto e = GrpcServiceConfig::fromPolicy(p);
    QVERIFY(!methodConfig(e).contains(QStringLiteral("retryPolicy")));
    QVERIFY(warns(e, QStringLiteral("single attempt")));

    BackoffPolicy unmapped;
    unmapped.classification.retryableStatuses = {408};
    for (auto &action : unmapped.classification.networkActions)
        action = FaultAction::GiveUp;
    const auto none = GrpcServiceConfig::fromPolicy(unmapped);
    QVERIFY(!methodConfig(none).contains(QStringLiteral("retryPolicy")));
    QVERIFY(warns(none, QStringLiteral("non-empty")));
}

void TestGrpcServiceConfig::connectionFaults_addUnavailable()
{
    BackoffPolicy p;
    p.classification.retryableStatuses = {429};
    p.classification.networkActions[NetworkFaultClass::ConnectionRefused] = FaultAction::RetryAfterDelay;
    const auto e = GrpcServiceConfig::fromPolicy(p);
    QCOMPARE(codes(e), (QStringList{QStringLiteral("RESOURCE_EXHAUSTED"), QStringLiteral("UNAVAILABLE")}));
    QVERIFY(warns(e, QStringLiteral("UNAVAILABLE was added")));

    BackoffPolicy strict;
    strict.classification.retryableStatuses = {503};
    for (auto &action : strict.classification.networkActions)
        action = FaultAction::GiveUp;
    QVERIFY(warns(GrpcServiceConfig::fromPolicy(strict), QStringLiteral("although the policy gives up on them")));
}

void TestGrpcServiceConfig::throttling_roundsToWhatGrpcAccepts()
{
    BackoffPolicy p = preset("grpc-retry-policy");
    p.retryBudget.grpcMaxTokens = 7.6;
    p.retryBudget.grpcTokenRatio = 0.12345;
    const auto e = GrpcServiceConfig::fromPolicy(p);
    const QJsonObject t = e.serviceConfig.value(QStringLiteral("retryThrottling")).toObject();
    QCOMPARE(t.value(QStringLiteral("maxTokens")).toDouble(), 8.0);
    QCOMPARE(t.value(QStringLiteral("tokenRatio")).toDouble(), 0.123);
    QVERIFY(warns(e, QStringLiteral("7.6 became 8")));
    QVERIFY(warns(e, QStringLiteral("0.12345 became 0.123")));
}

void TestGrpcServiceConfig::awsBudget_isNotExported()
{
    const auto e = GrpcServiceConfig::fromPolicy(preset("aws-standard"));
    QVERIFY(!e.serviceConfig.contains(QStringLiteral("retryThrottling")));
    QVERIFY(warns(e, QStringLiteral("AWS retry quota")));
}

void TestGrpcServiceConfig::methodName_isWritten()
{
    const auto e
        = GrpcServiceConfig::fromPolicy(BackoffPolicy{}, QStringLiteral("pkg.Storage"), QStringLiteral("Read"));
    const QJsonObject name = methodConfig(e).value(QStringLiteral("name")).toArray().at(0).toObject();
    QCOMPARE(name.value(QStringLiteral("service")).toString(), QStringLiteral("pkg.Storage"));
    QCOMPARE(name.value(QStringLiteral("method")).toString(), QStringLiteral("Read"));
    const auto all = GrpcServiceConfig::fromPolicy(BackoffPolicy{});
    QCOMPARE(methodConfig(all).value(QStringLiteral("name")).toArray().at(0).toObject(), QJsonObject());
    QVERIFY(warns(
        GrpcServiceConfig::fromPolicy(BackoffPolicy{}, {}, QStringLiteral("Read")), QStringLiteral("needs a service")));
}

void TestGrpcServiceConfig::json_isAServiceConfig()
{
    const QByteArray json = GrpcServiceConfig::toJson(GrpcServiceConfig::fromPolicy(preset("grpc-retry-policy")));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonObject root = doc.object();
    QCOMPARE(root.keys(), (QStringList{QStringLiteral("methodConfig"), QStringLiteral("retryThrottling")}));
    const QJsonObject p = root.value(QStringLiteral("methodConfig"))
                              .toArray()
                              .at(0)
                              .toObject()
                              .value(QStringLiteral("retryPolicy"))
                              .toObject();
    QCOMPARE(p.keys(),
        (QStringList{QStringLiteral("backoffMultiplier"), QStringLiteral("initialBackoff"),
            QStringLiteral("maxAttempts"), QStringLiteral("maxBackoff"), QStringLiteral("retryableStatusCodes")}));
    QVERIFY(json.contains("\"maxAttempts\": 4"));
}

QTEST_GUILESS_MAIN(TestGrpcServiceConfig)
#include "tst_grpcserviceconfig.moc"
