#include "core/export/curlscript.h"
#include "core/export/envoyretrypolicy.h"
#include "core/export/gobackoffexport.h"
#include "core/export/googlehttpjavaexport.h"
#include "core/export/grpcserviceconfig.h"
#include "core/export/policyexport.h"
#include "core/export/pollyexport.h"
#include "core/export/resilience4jexport.h"
#include "core/policy/presets.h"

#include "tests/tools/requiredtool.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>

using namespace RetryLab::Core;

namespace {

BackoffPolicy preset(const char *id)
{
    return Presets::find(QString::fromLatin1(id)).value();
}

QStringList words(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *w : list)
        out << QString::fromLatin1(w);
    return out;
}

bool hasNote(const SourceText::Code &code, const QString &fragment)
{
    for (const QString &note : code.notes) {
        if (note.contains(fragment))
            return true;
    }
    return false;
}

/// The edge policies every exporter must cope with: no attempt limit, a deadline
/// alone, constant, decorrelated jitter, immediate retries, a single attempt, a breaker.
QList<std::pair<QString, BackoffPolicy>> edgePolicies()
{
    QList<std::pair<QString, BackoffPolicy>> out;
    BackoffPolicy deadlineOnly = preset("iam");
    out.append({QStringLiteral("deadline only"), deadlineOnly});
    BackoffPolicy constant = preset("azure-retry-pattern");
    out.append({QStringLiteral("constant"), constant});
    BackoffPolicy decorrelated = preset("aws-standard");
    decorrelated.algorithm = BackoffAlgorithm::DecorrelatedJitter;
    out.append({QStringLiteral("decorrelated"), decorrelated});
    BackoffPolicy immediate = preset("aws-standard");
    immediate.algorithm = BackoffAlgorithm::Immediate;
    out.append({QStringLiteral("immediate"), immediate});
    BackoffPolicy single = preset("aws-standard");
    single.maxAttempts = 1;
    out.append({QStringLiteral("single attempt"), single});
    BackoffPolicy linear = preset("polly-default");
    linear.algorithm = BackoffAlgorithm::Linear;
    linear.maxBackoffMs = 10'000;
    linear.intervalJitter = IntervalJitter::Full;
    out.append({QStringLiteral("linear"), linear});
    BackoffPolicy breaker = preset("grpc-retry-policy");
    breaker.circuitBreaker.enabled = true;
    out.append({QStringLiteral("breaker"), breaker});
    BackoffPolicy nothing = preset("curl-retry");
    nothing.classification.retryableStatuses.clear();
    for (NetworkFaultClass fault : allNetworkFaultClasses())
        nothing.classification.networkActions[fault] = FaultAction::GiveUp;
    out.append({QStringLiteral("retries nothing"), nothing});
    return out;
}

/// A policy name meant to break out of a comment or string: quotes, line breaks
/// of every kind, a Java unicode escape, YAML and shell syntax.
QString nastyName()
{
    return QStringLiteral("x\"'\\u000a */ \n}\r\n# injected: true\u2028\u0085 $(reboot) `id`");
}

bool bracesBalance(const QString &text)
{
    int depth = 0;
    for (const QChar c : text) {
        if (c == QLatin1Char('{') || c == QLatin1Char('('))
            ++depth;
        else if (c == QLatin1Char('}') || c == QLatin1Char(')'))
            --depth;
        if (depth < 0)
            return false;
    }
    return depth == 0;
}

} // namespace

/// The policy formats beyond Python: Polly (C# and options JSON), Resilience4j
/// and Envoy YAML, Go and Java, the curl script, and the list of formats
/// itself. Field names and values for presets, a note for everything dropped,
/// names that cannot break the text, and YAML that parses (python3-yaml).
class TestPolicyExports : public QObject
{
    Q_OBJECT

private:
    bool m_haveYaml = false;

    /// The YAML document as JSON, read by python3-yaml's safe_load.
    std::optional<QJsonObject> yamlAsJson(const QString &yaml, QString *error)
    {
        QProcess python;
        python.start(QStringLiteral("/usr/bin/python3"),
            {QStringLiteral("-c"),
                QStringLiteral("import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))")});
        if (!python.waitForStarted(10'000)) {
            *error = python.errorString();
            return std::nullopt;
        }
        python.write(yaml.toUtf8());
        python.closeWriteChannel();
        if (!python.waitForFinished(30'000) || python.exitCode() != 0) {
            *error = QString::fromUtf8(python.readAllStandardError());
            return std::nullopt;
        }
        return QJsonDocument::fromJson(python.readAllStandardOutput()).object();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QProcess probe;
        probe.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QStringLiteral("import yaml")});
        m_haveYaml
            = probe.waitForFinished(20'000) && probe.exitStatus() == QProcess::NormalExit && probe.exitCode() == 0;
    }

    void formats_listEveryFormatOnce()
    {
        QCOMPARE(PolicyExport::names(),
            words({"grpc", "curl", "json", "tenacity", "urllib3", "botocore", "polly", "polly-options", "resilience4j",
                "envoy", "go-backoff", "google-http-java"}));
        QCOMPARE(PolicyExport::runnableNames(), words({"curl", "tenacity", "urllib3", "botocore", "go-backoff"}));
        QCOMPARE(PolicyExport::find(QStringLiteral("polly"))->suffix, QStringLiteral("cs"));
        QCOMPARE(PolicyExport::find(QStringLiteral("envoy"))->suffix, QStringLiteral("yaml"));
        QCOMPARE(PolicyExport::find(QStringLiteral("go-backoff"))->suffix, QStringLiteral("go"));
        QVERIFY(!PolicyExport::find(QStringLiteral("yaml")));
        for (const PolicyExport::Format &f : PolicyExport::formats())
            QVERIFY2(!f.title.isEmpty() && !f.suffix.isEmpty(), qPrintable(f.name));
    }

    // Every preset and every edge policy in every format, snippet and program: text that ends with a
    // line break, no "nan" or "inf", the same notes for snippet and program.
    void everyPolicyInEveryFormat()
    {
        QList<std::pair<QString, BackoffPolicy>> policies = edgePolicies();
        for (const Presets::Preset &p : Presets::all())
            policies.append({p.id, p.policy});
        const QString url = QStringLiteral("http://127.0.0.1:1/a");
        for (const auto &[label, policy] : std::as_const(policies)) {
            for (const PolicyExport::Format &f : PolicyExport::formats()) {
                const auto snippet = PolicyExport::write(f.name, policy);
                const QString where = label + QStringLiteral(" as ") + f.name;
                // curl's flags for a single attempt are none at all: the note says why.
                QVERIFY2(
                    snippet.text.endsWith(QLatin1Char('\n')) && (snippet.text.size() > 20 || !snippet.notes.isEmpty()),
                    qPrintable(where));
                QVERIFY2(!snippet.text.contains(QLatin1String("nan")) && !snippet.text.contains(QLatin1String("inf ")),
                    qPrintable(where));
                if (f.name != QLatin1String("json") && f.name != QLatin1String("polly-options")
                    && f.name != QLatin1String("grpc"))
                    QVERIFY2(bracesBalance(snippet.text), qPrintable(where));
                if (f.runnable) {
                    const auto program = PolicyExport::write(f.name, policy, {url, {}, {}});
                    QVERIFY2(program.text != snippet.text, qPrintable(where));
                    QVERIFY2(program.text.contains(url), qPrintable(where));
                    QCOMPARE(program.notes, snippet.notes);
                }
            }
        }
    }

    // The name goes into a comment only; no kind of line break, quote or escape in it adds a line.
    void policyName_cannotBreakTheText()
    {
        BackoffPolicy plain = preset("aws-standard");
        BackoffPolicy nasty = plain;
        nasty.name = nastyName();
        nasty.description = nastyName();
        for (const PolicyExport::Format &f : PolicyExport::formats()) {
            const QString a = PolicyExport::write(f.name, plain).text;
            const QString b = PolicyExport::write(f.name, nasty).text;
            if (f.name == QLatin1String("json"))
                continue; // RetryLab's own JSON keeps the name, escaped by QJsonDocument
            QCOMPARE(b.count(QLatin1Char('\n')), a.count(QLatin1Char('\n')));
            QVERIFY2(!b.contains(QChar(0x2028)) && !b.contains(QChar(0x85)) && !b.contains(QLatin1Char('\r')),
                qPrintable(f.name));
            // Java would read a line break in a \u000a that no backslash escapes.
            static const QRegularExpression javaEscape(QStringLiteral("(?<!\\\\)\\\\u000a"));
            QVERIFY2(!b.contains(javaEscape), qPrintable(f.name));
            if (f.name == QLatin1String("resilience4j")) // the instance name is a slug of the name
                QVERIFY(b.contains(QLatin1String("      x-u000a-injected-true-reboot-id:\n")));
        }
        const QString json = PolicyExport::write(QStringLiteral("json"), nasty).text;
        QCOMPARE(QJsonDocument::fromJson(json.toUtf8()).object().value(QLatin1String("name")).toString(), nastyName());
    }

    void slugAndStatusCondition()
    {
        QCOMPARE(SourceText::slug(QStringLiteral("AWS SDK standard mode"), QStringLiteral("x")),
            QStringLiteral("aws-sdk-standard-mode"));
        QCOMPARE(SourceText::slug(QStringLiteral("--- ÿ ---"), QStringLiteral("fallback")), QStringLiteral("fallback"));
        QCOMPARE(SourceText::statusCondition({}, QStringLiteral("s")), QStringLiteral("false"));
        QCOMPARE(SourceText::statusCondition({504, 429, 500, 502, 503}, QStringLiteral("s")),
            QStringLiteral("s == 429 || s == 500 || (s >= 502 && s <= 504)"));
        QCOMPARE(SourceText::comment(QStringLiteral("// "), QStringLiteral("a\nb\\u000a")),
            QStringLiteral("// a b\\\\u000a"));
    }

    void polly_text()
    {
        QCOMPARE(PollyExport::timeSpan(200), QStringLiteral("00:00:00.2000000"));
        QCOMPARE(PollyExport::timeSpan(3'723'500), QStringLiteral("01:02:03.5000000"));
        QCOMPARE(PollyExport::timeSpan(86'400'000), QStringLiteral("1.00:00:00.0000000"));

        const auto aws = PollyExport::snippet(preset("aws-standard"));
        QVERIFY2(aws.text.contains(QStringLiteral("new ResiliencePipelineBuilder<HttpResponseMessage>()")),
            qPrintable(aws.text));
        QVERIFY(aws.text.contains(QStringLiteral(".AddRetry(new RetryStrategyOptions<HttpResponseMessage>")));
        QVERIFY(aws.text.contains(QStringLiteral("MaxRetryAttempts = 2,")));
        QVERIFY(aws.text.contains(QStringLiteral("BackoffType = DelayBackoffType.Exponential,")));
        QVERIFY(aws.text.contains(QStringLiteral("UseJitter = true,")));
        QVERIFY(aws.text.contains(QStringLiteral("Delay = TimeSpan.FromMilliseconds(1000),")));
        QVERIFY(aws.text.contains(QStringLiteral("MaxDelay = TimeSpan.FromMilliseconds(20000),")));
        QVERIFY(aws.text.contains(QStringLiteral(".Handle<HttpRequestException>()")));
        QVERIFY(aws.text.contains(QStringLiteral("DelayGenerator = static args =>")));
        QVERIFY(aws.text.contains(QStringLiteral("Headers.RetryAfter")));
        QVERIFY(aws.text.contains(QStringLiteral(".AddTimeout(TimeSpan.FromMilliseconds(30000))")));
        QVERIFY(aws.text.contains(
            QStringLiteral("static bool IsRetryableStatus(int status) => status == 429 || status == 500 || "
                           "(status >= 502 && status <= 504);")));
        QVERIFY(hasNote(aws, QStringLiteral("decorrelated jitter v2")));
        QVERIFY(hasNote(aws, QStringLiteral("Polly has no retry budget")));

        const auto polly = PollyExport::snippet(preset("polly-default"));
        QVERIFY(polly.text.contains(QStringLiteral("BackoffType = DelayBackoffType.Constant,")));
        QVERIFY(polly.text.contains(QStringLiteral("UseJitter = false,")));
        QVERIFY(polly.text.contains(QStringLiteral("MaxRetryAttempts = 3,")));
        QVERIFY(!polly.text.contains(QStringLiteral("MaxDelay")));
        QVERIFY(polly.text.contains(QStringLiteral("(status >= 500 && status <= 599)")));
        QVERIFY(!hasNote(polly, QStringLiteral("decorrelated")));

        // A deadline alone: no retry limit, the deadline as the outer timeout.
        const auto iam = PollyExport::snippet(preset("iam"));
        QVERIFY(iam.text.contains(QStringLiteral("MaxRetryAttempts = int.MaxValue,")));
        QVERIFY(iam.text.indexOf(QStringLiteral(".AddTimeout(TimeSpan.FromMilliseconds(300000))"))
            < iam.text.indexOf(QStringLiteral(".AddRetry(")));
        QVERIFY(hasNote(iam, QStringLiteral("does not give up early")));

        BackoffPolicy triple = preset("curl-retry");
        triple.multiplier = 3;
        triple.classification.honourRetryAfter = false;
        const auto t = PollyExport::snippet(triple);
        QVERIFY(hasNote(t, QStringLiteral("always doubles; the policy's multiplier 3")));
        QVERIFY(!t.text.contains(QStringLiteral("DelayGenerator")));
        BackoffPolicy single = triple;
        single.maxAttempts = 1;
        QVERIFY(!PollyExport::snippet(single).text.contains(QStringLiteral("AddRetry")));
        QVERIFY(hasNote(PollyExport::snippet(single), QStringLiteral("single attempt")));

        BackoffPolicy breaker = preset("aws-standard");
        breaker.circuitBreaker.enabled = true;
        breaker.circuitBreaker.openMs = 200;
        const auto b = PollyExport::snippet(breaker);
        QVERIFY(b.text.contains(
            QStringLiteral(".AddCircuitBreaker(new CircuitBreakerStrategyOptions<HttpResponseMessage>")));
        QVERIFY(b.text.contains(QStringLiteral("MinimumThroughput = 5,")));
        QVERIFY(b.text.contains(QStringLiteral("BreakDuration = TimeSpan.FromMilliseconds(500),")));
        QVERIFY(hasNote(b, QStringLiteral("cannot count failures in a row")));
        QVERIFY(hasNote(b, QStringLiteral("at least 0.5 s")));
        QVERIFY(!hasNote(b, QStringLiteral("has no circuit breaker")));
    }

    void pollyOptions_areJsonWithTheDocumentedNames()
    {
        const auto interactive = PollyExport::options(preset("azure-interactive"));
        QJsonParseError error{};
        const QJsonObject o = QJsonDocument::fromJson(interactive.text.toUtf8(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(o.keys(), words({"AttemptTimeout", "Retry", "TotalRequestTimeout"}));
        const QJsonObject retry = o.value(QLatin1String("Retry")).toObject();
        QCOMPARE(retry.value(QLatin1String("MaxRetryAttempts")).toInt(), 2);
        QCOMPARE(retry.value(QLatin1String("BackoffType")).toString(), QStringLiteral("Constant"));
        QCOMPARE(retry.value(QLatin1String("UseJitter")).toBool(), true);
        QCOMPARE(retry.value(QLatin1String("Delay")).toString(), QStringLiteral("00:00:00.5000000"));
        QCOMPARE(retry.value(QLatin1String("ShouldRetryAfterHeader")).toBool(), true);
        QCOMPARE(o.value(QLatin1String("TotalRequestTimeout")).toObject().value(QLatin1String("Timeout")).toString(),
            QStringLiteral("00:00:05.0000000"));
        QCOMPARE(o.value(QLatin1String("AttemptTimeout")).toObject().value(QLatin1String("Timeout")).toString(),
            QStringLiteral("00:00:02.0000000"));
        QVERIFY(hasNote(interactive, QStringLiteral("options cannot list statuses")));
        QVERIFY(hasNote(interactive, QStringLiteral("always has one; its defaults")));

        // Polly's own default: 408, 429 and 5xx are what the handler retries anyway.
        const auto polly = PollyExport::options(preset("polly-default"));
        QVERIFY(!hasNote(polly, QStringLiteral("cannot list statuses")));
        QVERIFY(hasNote(polly, QStringLiteral("always has a total timeout")));

        BackoffPolicy breaker = preset("aws-standard");
        breaker.circuitBreaker.enabled = true;
        breaker.circuitBreaker.failureRatio = 0.5;
        breaker.circuitBreaker.window = 20;
        const QJsonObject cb = QJsonDocument::fromJson(PollyExport::options(breaker).text.toUtf8())
                                   .object()
                                   .value(QLatin1String("CircuitBreaker"))
                                   .toObject();
        QCOMPARE(cb.value(QLatin1String("FailureRatio")).toDouble(), 0.5);
        QCOMPARE(cb.value(QLatin1String("MinimumThroughput")).toInt(), 20);
        // At least twice the 30 s attempt timeout, as the handler's validation asks.
        QCOMPARE(cb.value(QLatin1String("SamplingDuration")).toString(), QStringLiteral("00:01:00.0000000"));
        QCOMPARE(cb.value(QLatin1String("BreakDuration")).toString(), QStringLiteral("00:00:10.0000000"));

        BackoffPolicy single = preset("aws-standard");
        single.maxAttempts = 1;
        const auto s = PollyExport::options(single);
        QVERIFY(!QJsonDocument::fromJson(s.text.toUtf8()).object().contains(QLatin1String("Retry")));
        QVERIFY(hasNote(s, QStringLiteral("always retries")));
    }

    void resilience4j_yaml()
    {
        const auto aws = Resilience4jExport::yaml(preset("aws-standard"));
        QVERIFY2(aws.text.contains(
                     QStringLiteral("resilience4j:\n  retry:\n    instances:\n      aws-sdk-standard-mode:\n")),
            qPrintable(aws.text));
        QVERIFY(aws.text.contains(QStringLiteral("        maxAttempts: 3\n")));
        QVERIFY(aws.text.contains(QStringLiteral("        waitDuration: 1000ms\n")));
        QVERIFY(aws.text.contains(QStringLiteral("        enableExponentialBackoff: true\n")));
        QVERIFY(aws.text.contains(QStringLiteral("        exponentialBackoffMultiplier: 2\n")));
        QVERIFY(aws.text.contains(QStringLiteral("        exponentialMaxWaitDuration: 20000ms\n")));
        QVERIFY(aws.text.contains(QStringLiteral("        enableRandomizedWait: true\n")));
        QVERIFY(aws.text.contains(QStringLiteral("          - java.io.IOException\n")));
        QVERIFY(hasNote(aws, QStringLiteral("retryOnResultPredicate is needed")));
        QVERIFY(hasNote(aws, QLatin1String(Resilience4jExport::resultPredicateClass)));
        QVERIFY(hasNote(aws, QStringLiteral("Resilience4j ignores Retry-After")));

        const auto curl = Resilience4jExport::yaml(preset("curl-retry"));
        QVERIFY(curl.text.contains(QStringLiteral("        enableRandomizedWait: false\n")));
        QVERIFY(!curl.text.contains(QStringLiteral("randomizedWaitFactor")));
        const auto iam = Resilience4jExport::yaml(preset("iam"));
        QVERIFY(hasNote(iam, QStringLiteral("no deadline across retries and needs maxAttempts")));
        QVERIFY(hasNote(iam, QStringLiteral("cannot add the policy's random 0-1000 ms")));
        const auto constant = Resilience4jExport::yaml(preset("azure-retry-pattern"));
        QVERIFY(constant.text.contains(
            QStringLiteral("        waitDuration: 5000ms\n        enableExponentialBackoff: false\n")));

        if (!m_haveYaml)
            RETRYLAB_MISSING_TOOL(
                "python3-yaml is missing: install the Debian package python3-yaml (scripts/deps.sh does)");
        BackoffPolicy breaker = preset("aws-standard");
        breaker.name = nastyName();
        breaker.circuitBreaker.enabled = true;
        QString error;
        const auto doc = yamlAsJson(Resilience4jExport::yaml(breaker).text, &error);
        QVERIFY2(doc, qPrintable(error));
        QCOMPARE(doc->keys(), words({"resilience4j"}));
        const QJsonObject r4j = doc->value(QLatin1String("resilience4j")).toObject();
        QCOMPARE(r4j.keys(), words({"circuitbreaker", "retry", "timelimiter"}));
        const QJsonObject instance = r4j.value(QLatin1String("retry"))
                                         .toObject()
                                         .value(QLatin1String("instances"))
                                         .toObject()
                                         .value(Resilience4jExport::instanceName(breaker))
                                         .toObject();
        QCOMPARE(instance.value(QLatin1String("maxAttempts")).toInt(), 3);
        QCOMPARE(instance.value(QLatin1String("randomizedWaitFactor")).toDouble(), 0.5);
        QCOMPARE(instance.value(QLatin1String("retryExceptions")).toArray().size(), 2);
        const QJsonObject cb = r4j.value(QLatin1String("circuitbreaker"))
                                   .toObject()
                                   .value(QLatin1String("instances"))
                                   .toObject()
                                   .value(Resilience4jExport::instanceName(breaker))
                                   .toObject();
        QCOMPARE(cb.value(QLatin1String("slidingWindowSize")).toInt(), 5);
        QCOMPARE(cb.value(QLatin1String("failureRateThreshold")).toInt(), 100);
        QCOMPARE(cb.value(QLatin1String("waitDurationInOpenState")).toString(), QStringLiteral("10000ms"));
    }

    void envoy_yaml()
    {
        const auto aws = EnvoyRetryPolicy::yaml(preset("aws-standard"));
        QVERIFY2(aws.text.contains(QStringLiteral("    retry_on: \"reset,connect-failure,retriable-status-codes\"\n")),
            qPrintable(aws.text));
        QVERIFY(aws.text.contains(QStringLiteral("    retriable_status_codes: [429, 500, 502, 503, 504]\n")));
        QVERIFY(aws.text.contains(QStringLiteral("    num_retries: 2\n")));
        QVERIFY(aws.text.contains(QStringLiteral("    per_try_timeout: 30s\n")));
        QVERIFY(aws.text.contains(QStringLiteral("      base_interval: 1s\n      max_interval: 20s\n")));
        QVERIFY(aws.text.contains(QStringLiteral("        - name: retry-after\n          format: SECONDS\n")));
        QVERIFY(aws.text.contains(QStringLiteral("  timeout: 0s")));
        // Full jitter doubling is Envoy's own backoff: no note about it.
        QVERIFY(!hasNote(aws, QStringLiteral("Envoy's backoff")));
        QVERIFY(hasNote(aws, QStringLiteral("retry budget is a cluster setting")));

        // Every 5xx with resets and connection failures: the 5xx condition, the rest listed.
        const auto gcs = EnvoyRetryPolicy::yaml(preset("google-cloud-storage"));
        QVERIFY(gcs.text.contains(QStringLiteral("    retry_on: \"5xx,retriable-status-codes\"\n")));
        QVERIFY(gcs.text.contains(QStringLiteral("    retriable_status_codes: [408, 429]\n")));
        QVERIFY(gcs.text.contains(QStringLiteral("    num_retries: 9\n")));
        QVERIFY(hasNote(gcs, QStringLiteral("Envoy's backoff is full jitter")));
        const auto interactive = EnvoyRetryPolicy::yaml(preset("azure-interactive"));
        QVERIFY(interactive.text.contains(QStringLiteral("  timeout: 5s\n")));
        QVERIFY(interactive.text.contains(QStringLiteral("      base_interval: 0.500s\n      max_interval: 0.500s\n")));
        QVERIFY(hasNote(interactive, QStringLiteral("max_interval equal to base_interval")));
        QVERIFY(hasNote(interactive, QStringLiteral("does not give up early")));
        const auto iam = EnvoyRetryPolicy::yaml(preset("iam"));
        QVERIFY(hasNote(iam, QStringLiteral("bounded only by its deadline")));
        BackoffPolicy triple = preset("curl-retry");
        triple.multiplier = 3;
        QVERIFY(hasNote(EnvoyRetryPolicy::yaml(triple), QStringLiteral("always doubles; the policy's multiplier 3")));

        if (!m_haveYaml)
            RETRYLAB_MISSING_TOOL(
                "python3-yaml is missing: install the Debian package python3-yaml (scripts/deps.sh does)");
        BackoffPolicy nasty = preset("memorystore");
        nasty.name = nastyName();
        QString error;
        const auto doc = yamlAsJson(EnvoyRetryPolicy::yaml(nasty).text, &error);
        QVERIFY2(doc, qPrintable(error));
        QCOMPARE(doc->keys(), words({"route"}));
        const QJsonObject route = doc->value(QLatin1String("route")).toObject();
        QCOMPARE(route.keys(), words({"retry_policy", "timeout"}));
        const QJsonObject policy = route.value(QLatin1String("retry_policy")).toObject();
        QCOMPARE(policy.keys(),
            words({"num_retries", "per_try_timeout", "rate_limited_retry_back_off", "retriable_status_codes",
                "retry_back_off", "retry_on"}));
        QCOMPARE(policy.value(QLatin1String("num_retries")).toInt(), 9);
        QCOMPARE(policy.value(QLatin1String("retriable_status_codes")).toArray(), QJsonArray({429}));
        QCOMPARE(policy.value(QLatin1String("rate_limited_retry_back_off"))
                     .toObject()
                     .value(QLatin1String("reset_headers"))
                     .toArray()
                     .size(),
            1);
    }

    // Hedging (grpc-hedging): gRPC's hedgingPolicy, Polly's AddHedging and its hedging handler's options,
    // Envoy's hedge on the per-try timeout; every other format says it cannot hedge.
    void hedging_exportedWhereTheTargetHedges_notedElsewhere()
    {
        const BackoffPolicy hedged = preset("grpc-hedging");
        QVERIFY(hedged.hedging.enabled);

        const GrpcServiceConfig::Export grpc = GrpcServiceConfig::fromPolicy(hedged);
        const QJsonObject method = grpc.serviceConfig.value(QLatin1String("methodConfig")).toArray().at(0).toObject();
        QVERIFY(!method.contains(QLatin1String("retryPolicy"))); // exclusive with hedgingPolicy
        const QJsonObject hedging = method.value(QLatin1String("hedgingPolicy")).toObject();
        QCOMPARE(hedging.value(QLatin1String("maxAttempts")).toInt(), 4);
        QCOMPARE(hedging.value(QLatin1String("hedgingDelay")).toString(), QStringLiteral("0.500s"));
        QCOMPARE(hedging.value(QLatin1String("nonFatalStatusCodes")).toArray(),
            QJsonArray({QStringLiteral("ABORTED"), QStringLiteral("INTERNAL"), QStringLiteral("UNKNOWN"),
                QStringLiteral("UNAVAILABLE")}));
        QVERIFY(grpc.serviceConfig.contains(QLatin1String("retryThrottling"))); // it throttles hedges too
        // No note about a backoff the export does not write.
        QVERIFY(std::none_of(grpc.warnings.cbegin(), grpc.warnings.cend(),
            [](const QString &w) { return w.contains(QLatin1String("random time in [0, backoff]")); }));
        BackoffPolicy six = hedged;
        six.hedging.maxAttempts = 6;
        const QStringList sixWarnings = GrpcServiceConfig::fromPolicy(six).warnings;
        QVERIFY(std::any_of(sixWarnings.cbegin(), sixWarnings.cend(),
            [](const QString &w) { return w.contains(QLatin1String("treat anything above 5 as 5")); }));

        const auto polly = PollyExport::snippet(hedged);
        QVERIFY2(
            polly.text.contains(QStringLiteral("    .AddHedging(new HedgingStrategyOptions<HttpResponseMessage>\n")),
            qPrintable(polly.text));
        QVERIFY(polly.text.contains(QStringLiteral("        MaxHedgedAttempts = 3,\n")));
        QVERIFY(polly.text.contains(QStringLiteral("        Delay = TimeSpan.FromMilliseconds(500),\n")));
        QVERIFY(polly.text.contains(QStringLiteral("using Polly.Hedging;")));
        QVERIFY(!polly.text.contains(QStringLiteral("AddRetry")));
        QVERIFY(!hasNote(polly, QStringLiteral("cannot, so the export retries")));

        QString error;
        const auto options = QJsonDocument::fromJson(PollyExport::options(hedged).text.toUtf8()).object();
        QCOMPARE(
            options.value(QLatin1String("Hedging")).toObject().value(QLatin1String("MaxHedgedAttempts")).toInt(), 3);
        QCOMPARE(options.value(QLatin1String("Hedging")).toObject().value(QLatin1String("Delay")).toString(),
            QStringLiteral("00:00:00.5000000"));
        QVERIFY(options.value(QLatin1String("Endpoint")).toObject().contains(QLatin1String("Timeout")));
        QVERIFY(!options.contains(QLatin1String("Retry")));

        const auto envoy = EnvoyRetryPolicy::yaml(hedged);
        QVERIFY2(envoy.text.contains(QStringLiteral("    per_try_timeout: 0.500s\n")), qPrintable(envoy.text));
        QVERIFY(envoy.text.contains(QStringLiteral("    num_retries: 3\n")));
        QVERIFY(envoy.text.contains(QStringLiteral("  hedge_policy:\n    hedge_on_per_try_timeout: true\n")));
        QVERIFY(hasNote(envoy, QStringLiteral("Envoy hedges only when a per-try timeout passes")));
        if (m_haveYaml) {
            const auto route = yamlAsJson(envoy.text, &error);
            QVERIFY2(route, qPrintable(error));
            QVERIFY(route->value(QLatin1String("route"))
                        .toObject()
                        .value(QLatin1String("hedge_policy"))
                        .toObject()
                        .value(QLatin1String("hedge_on_per_try_timeout"))
                        .toBool());
        }

        const QStringList hedgers{QStringLiteral("grpc"), QStringLiteral("polly"), QStringLiteral("polly-options"),
            QStringLiteral("envoy"), QStringLiteral("json")};
        for (const PolicyExport::Format &f : PolicyExport::formats()) {
            const auto out = PolicyExport::write(f.name, hedged);
            QVERIFY2(hasNote(out, QStringLiteral("cannot, so the export retries one attempt at a time"))
                    == !hedgers.contains(f.name),
                qPrintable(f.name));
            QVERIFY(!hasNote(PolicyExport::write(f.name, preset("grpc-retry-policy")), QStringLiteral("hedges")));
        }
        QVERIFY(PolicyExport::write(QStringLiteral("json"), hedged).text.contains(QStringLiteral("\"hedging\"")));
    }

    // The client rate limiter (aws-adaptive) is botocore's adaptive mode; every other format notes its absence.
    void rateLimiter_isNotedWhereItIsNotExported()
    {
        const BackoffPolicy adaptive = preset("aws-adaptive");
        QCOMPARE(adaptive.rateLimiter.kind, RateLimiterKind::AwsAdaptive);
        for (const PolicyExport::Format &f : PolicyExport::formats()) {
            if (f.name == QLatin1String("json"))
                continue;
            const auto out = PolicyExport::write(f.name, adaptive);
            QCOMPARE(hasNote(out, QStringLiteral("has no such limiter")), f.name != QLatin1String("botocore"));
            QVERIFY(!hasNote(PolicyExport::write(f.name, preset("aws-standard")), QStringLiteral("no such limiter")));
        }
        QVERIFY(
            PolicyExport::write(QStringLiteral("json"), adaptive).text.contains(QStringLiteral("\"aws-adaptive\"")));
    }

    // What the policy reads in an answer beyond its status: no target reads the content, and
    // only Envoy waits for X-RateLimit-Reset; every export says what it leaves out.
    void responseReading_isNotedByEveryFormat()
    {
        BackoffPolicy p = preset("aws-standard");
        p.classification.retryOnResponse
            = {ResponseRetryCondition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")),
                ResponseRetryCondition::headerPresent(QStringLiteral("X-Pending"))};
        p.classification.honourRateLimitReset = true;
        QVERIFY2(isUsable(p), qPrintable(firstPolicyError(p)));
        for (const PolicyExport::Format &f : PolicyExport::formats()) {
            if (f.name == QLatin1String("json"))
                continue; // the policy itself, nothing left out
            const auto out = PolicyExport::write(f.name, p);
            QVERIFY2(hasNote(out, QStringLiteral("json /status = \"PENDING\"; header X-Pending")),
                qPrintable(f.name + QLatin1Char(':') + out.notes.join(QLatin1Char('\n'))));
            QCOMPARE(
                hasNote(out, QStringLiteral("waits for a spent rate limit's reset")), f.name != QLatin1String("envoy"));
        }
        const auto envoy = EnvoyRetryPolicy::yaml(p);
        QVERIFY2(envoy.text.contains(
                     QStringLiteral("        - name: x-ratelimit-reset\n          format: UNIX_TIMESTAMP\n")),
            qPrintable(envoy.text));
        QVERIFY(hasNote(envoy, QStringLiteral("X-RateLimit-Reset only as a Unix time")));
        // Without the option, Envoy is not told to wait for the reset either.
        p.classification.honourRateLimitReset = false;
        p.classification.retryOnResponse.clear();
        const auto plain = EnvoyRetryPolicy::yaml(p);
        QVERIFY(!plain.text.contains(QStringLiteral("x-ratelimit-reset")));
        for (const PolicyExport::Format &f : PolicyExport::formats()) {
            const auto out = PolicyExport::write(f.name, p);
            QVERIFY(!hasNote(out, QStringLiteral("succeed by status but say otherwise")));
            QVERIFY(!hasNote(out, QStringLiteral("rate limit's reset")));
        }
    }

    void goBackoff_text()
    {
        const auto aws = GoBackoffExport::snippet(preset("aws-standard"));
        QVERIFY2(aws.text.contains(QStringLiteral("\t\"github.com/cenkalti/backoff/v4\"\n")), qPrintable(aws.text));
        QVERIFY(aws.text.contains(QStringLiteral("package retrypolicy\n")));
        QVERIFY(aws.text.contains(QStringLiteral("\tb := backoff.NewExponentialBackOff()\n")));
        // Full jitter U[0, base * 2^n] is half the interval with a randomization factor of 1.
        QVERIFY(aws.text.contains(QStringLiteral("\tb.InitialInterval = 500000 * time.Microsecond\n")));
        QVERIFY(aws.text.contains(QStringLiteral("\tb.RandomizationFactor = 1\n")));
        QVERIFY(aws.text.contains(QStringLiteral("\tb.Multiplier = 2\n")));
        QVERIFY(aws.text.contains(QStringLiteral("\tb.MaxInterval = 10000000 * time.Microsecond\n")));
        QVERIFY(aws.text.contains(QStringLiteral("\tb.MaxElapsedTime = 0")));
        QVERIFY(aws.text.contains(QStringLiteral("\treturn backoff.WithMaxRetries(b, 2)\n")));
        QVERIFY(aws.text.contains(QStringLiteral("return backoff.Permanent(err)")));
        QVERIFY(aws.text.contains(QStringLiteral("err := backoff.Retry(operation, newBackOff())")));
        QVERIFY(aws.text.contains(QStringLiteral("&http.Client{Timeout: 30000000 * time.Microsecond}")));
        QVERIFY(!aws.text.contains(QStringLiteral("func main()")));
        QVERIFY(hasNote(aws, QStringLiteral("ignores Retry-After")));
        QVERIFY(!hasNote(aws, QStringLiteral("decorrelated")));

        const auto curl = GoBackoffExport::snippet(preset("curl-retry"));
        QVERIFY(curl.text.contains(QStringLiteral("\tb.RandomizationFactor = 0\n")));
        QVERIFY(curl.text.contains(QStringLiteral("\tif errors.Is(err, syscall.ECONNREFUSED) { // connection-refused\n"
                                                  "\t\treturn false\n")));
        // Equal jitter U[v/2, v]: three quarters of the interval, factor 1/3.
        const auto batch = GoBackoffExport::snippet(preset("azure-batch"));
        QVERIFY(batch.text.contains(QStringLiteral("\tb.InitialInterval = 750000 * time.Microsecond\n")));
        QVERIFY(batch.text.contains(QStringLiteral("\tb.RandomizationFactor = 0.3333333333333333\n")));
        // A deadline alone: no retry limit; MaxElapsedTime and a context bound it.
        const auto iam = GoBackoffExport::program(preset("iam"), QStringLiteral("http://127.0.0.1:1/"));
        QVERIFY(!iam.text.contains(QStringLiteral("WithMaxRetries")));
        QVERIFY(iam.text.contains(QStringLiteral("\tb.MaxElapsedTime = 300000000 * time.Microsecond\n")));
        QVERIFY(iam.text.contains(
            QStringLiteral("context.WithTimeout(context.Background(), 300000000 * time.Microsecond)")));
        QVERIFY(iam.text.contains(QStringLiteral("backoff.WithContext(newBackOff(), ctx)")));
        QVERIFY(iam.text.contains(QStringLiteral("package main\n")));
        QVERIFY(iam.text.contains(QStringLiteral("\t\"os\"\n")));
        QVERIFY(iam.text.contains(QStringLiteral("func main() {\n")));
        QVERIFY(iam.text.contains(QStringLiteral("if len(os.Args) > 1 {")));
        QVERIFY(iam.text.contains(QStringLiteral("if response.StatusCode >= 400 {\n\t\tos.Exit(1)")));
        QVERIFY(iam.text.contains(QStringLiteral("const userAgent = \"retrylab-go-backoff/1.0\"")));
        QVERIFY(hasNote(iam, QStringLiteral("cannot add the policy's random 0-1000 ms")));

        QCOMPARE(GoBackoffExport::stringLiteral(QStringLiteral("http://h/a\"b\\c\nd\u2028e\u00e9")),
            QStringLiteral("\"http://h/a\\\"b\\\\c\\x0ad\\u2028e\u00e9\""));
        QCOMPARE(GoBackoffExport::stringLiteral(QString(QChar(0xd800))), QStringLiteral("\"\\ufffd\""));
        const auto nasty = GoBackoffExport::program(preset("aws-standard"), QStringLiteral("http://h/\"\n}"));
        QVERIFY(nasty.text.contains(QStringLiteral("const defaultURL = \"http://h/\\\"\\x0a}\"\n")));
    }

    void googleHttpJava_text()
    {
        const auto gcs = GoogleHttpJavaExport::snippet(preset("google-cloud-storage"));
        QVERIFY2(gcs.text.contains(QStringLiteral("import com.google.api.client.util.ExponentialBackOff;\n")),
            qPrintable(gcs.text));
        QVERIFY(gcs.text.contains(QStringLiteral("new ExponentialBackOff.Builder()\n")));
        QVERIFY(gcs.text.contains(QStringLiteral(".setInitialIntervalMillis(1000)\n")));
        QVERIFY(gcs.text.contains(QStringLiteral(".setRandomizationFactor(0)\n")));
        QVERIFY(gcs.text.contains(QStringLiteral(".setMultiplier(2)\n")));
        QVERIFY(gcs.text.contains(QStringLiteral(".setMaxIntervalMillis(32000)\n")));
        QVERIFY(gcs.text.contains(QStringLiteral(".setMaxElapsedTimeMillis(Integer.MAX_VALUE)\n")));
        QVERIFY(gcs.text.contains(QStringLiteral("request.setNumberOfRetries(9);")));
        QVERIFY(gcs.text.contains(QStringLiteral("new HttpBackOffUnsuccessfulResponseHandler(newBackOff())")));
        QVERIFY(gcs.text.contains(
            QStringLiteral(".setBackOffRequired(response -> isRetryableStatus(response.getStatusCode()))")));
        QVERIFY(gcs.text.contains(QStringLiteral("new HttpBackOffIOExceptionHandler(newBackOff())")));
        QVERIFY(
            gcs.text.contains(QStringLiteral("status == 408 || status == 429 || (status >= 500 && status <= 599)")));
        QVERIFY(hasNote(gcs, QStringLiteral("cannot add the policy's random 0-1000 ms")));
        QVERIFY(hasNote(gcs, QStringLiteral("google-http-java-client ignores Retry-After")));

        const auto aws = GoogleHttpJavaExport::snippet(preset("aws-standard"));
        QVERIFY(aws.text.contains(QStringLiteral(".setRandomizationFactor(0.999)\n")));
        QVERIFY(hasNote(aws, QStringLiteral("randomization factor below 1")));
        const auto iam = GoogleHttpJavaExport::snippet(preset("iam"));
        QVERIFY(iam.text.contains(QStringLiteral(".setMaxElapsedTimeMillis(300000)\n")));
        QVERIFY(iam.text.contains(QStringLiteral("request.setNumberOfRetries(Integer.MAX_VALUE);")));
        BackoffPolicy immediate = preset("aws-standard");
        immediate.algorithm = BackoffAlgorithm::Immediate;
        const auto now = GoogleHttpJavaExport::snippet(immediate);
        QVERIFY(now.text.contains(QStringLiteral(".setInitialIntervalMillis(1)\n")));
        QVERIFY(hasNote(now, QStringLiteral("initial interval of at least 1 ms")));
        BackoffPolicy nothing = preset("curl-retry");
        for (NetworkFaultClass fault : allNetworkFaultClasses())
            nothing.classification.networkActions[fault] = FaultAction::GiveUp;
        QVERIFY(!GoogleHttpJavaExport::snippet(nothing).text.contains(QStringLiteral("IOExceptionHandler(")));
    }

    // The script's syntax passes sh -n, with a URL full of shell syntax.
    void curlScript_isAShellScript()
    {
        const QString url = QStringLiteral("http://127.0.0.1:1/a'b$(id)`x`;\"c");
        const auto script = CurlScript::program(preset("curl-retry"), url);
        QVERIFY2(script.text.startsWith(QStringLiteral("#!/bin/sh\n")), qPrintable(script.text));
        QVERIFY(script.text.contains(QStringLiteral("--retry 3")));
        QVERIFY(script.text.contains(QStringLiteral("--max-time 30")));
        QVERIFY(script.text.contains(QStringLiteral("--user-agent retrylab-curl/1.0")));
        QVERIFY(script.text.contains(QStringLiteral("url='http://127.0.0.1:1/a'\\''b$(id)`x`;\"c'\n")));
        QVERIFY(hasNote(script, QStringLiteral("curl honours Retry-After")));
        if (!QFileInfo::exists(QStringLiteral("/bin/sh")))
            QSKIP("no /bin/sh");
        for (const Presets::Preset &p : Presets::all()) {
            BackoffPolicy named = p.policy;
            named.name = nastyName();
            QProcess sh;
            sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-n")});
            QVERIFY(sh.waitForStarted(10'000));
            sh.write(CurlScript::program(named, url).text.toUtf8());
            sh.closeWriteChannel();
            QVERIFY(sh.waitForFinished(10'000));
            QVERIFY2(sh.exitCode() == 0, qPrintable(p.id + QString::fromUtf8(sh.readAllStandardError())));
        }
    }
};

QTEST_GUILESS_MAIN(TestPolicyExports)
#include "tst_policyexports.moc"
