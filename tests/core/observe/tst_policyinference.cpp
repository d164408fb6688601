#include "core/observe/policyinference.h"
#include "core/policy/presets.h"

#include "observetesting.h"

#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;
using ObserveTesting::simulate;

namespace {

bool within(double actual, double expected, double fraction)
{
    return std::abs(actual - expected) <= std::abs(expected) * fraction;
}

QString describe(const InferredPolicy &p)
{
    return QStringLiteral("%1 | growth %2 (%3) | jitter %4 (%5) | base %6 x%7 cap %8 | max %9 | %10")
        .arg(p.summary(), PolicyInference::growthName(p.growth), p.growthConfidence.evidence,
            PolicyInference::jitterName(p.jitter), p.jitterConfidence.evidence)
        .arg(p.baseMs.value_or(-1))
        .arg(p.multiplier.value_or(-1))
        .arg(p.capMs.value_or(-1))
        .arg(p.maxAttempts.value_or(-1))
        .arg(p.maxAttemptsConfidence.evidence);
}

ObservedAttempt attempt(double arrivalMs, std::optional<double> delayMs, int status, const QString &action = {})
{
    ObservedAttempt a;
    a.arrivalMs = arrivalMs;
    a.endMs = arrivalMs + 1;
    a.complete = true;
    a.delayMs = delayMs;
    a.action = action.isEmpty() ? QStringLiteral("respond") : action;
    if (action.isEmpty())
        a.status = status;
    return a;
}

LogicalRequest request(quint64 id, const QByteArray &method, QList<ObservedAttempt> attempts,
    GroupingRule rule = GroupingRule::SameRequest)
{
    LogicalRequest r;
    r.id = id;
    r.method = method;
    r.rule = rule;
    r.target = QStringLiteral("/r/%1").arg(id);
    r.attempts = std::move(attempts);
    r.closedBy = QStringLiteral("different request");
    return r;
}

} // namespace

class TestPolicyInference : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyPresetIsRecovered_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<quint64>("seed");
        for (const Presets::Preset &preset : Presets::all()) {
            for (const quint64 seed : {11, 23, 37, 41, 59})
                QTest::addRow("%s seed %llu", qPrintable(preset.id), seed) << preset.id << seed;
        }
    }

    void everyPresetIsRecovered()
    {
        QFETCH(QString, id);
        QFETCH(quint64, seed);
        const BackoffPolicy preset = *Presets::find(id);
        const InferredPolicy p = PolicyInference::infer(simulate(preset, ObserveTesting::traffic(30, seed)));
        const QString why = describe(p);
        const auto algorithm = p.algorithm();
        QVERIFY2(algorithm, qPrintable(why));
        const auto normal = [](BackoffAlgorithm a) {
            return a == BackoffAlgorithm::IamTruncatedExponential ? BackoffAlgorithm::GoogleTruncatedExponential : a;
        };
        QVERIFY2(normal(*algorithm) == normal(preset.algorithm),
            qPrintable(algorithmName(*algorithm) + QStringLiteral(": ") + why));
        QVERIFY2(within(*p.baseMs, preset.baseDelayMs, 0.10), qPrintable(why));
        if (preset.algorithm != BackoffAlgorithm::Constant)
            QVERIFY2(within(*p.multiplier, preset.multiplier, 0.10), qPrintable(why));
        // The cap, where the delays reach it within the attempts.
        int retries = preset.maxAttempts > 0 ? preset.maxAttempts - 1 : 12;
        if (preset.deadlineMs > 0) {
            // Only the retries whose delays fit into the deadline are seen.
            double spent = 0.0;
            int fitting = 0;
            while (fitting < retries) {
                const double delay
                    = std::min(preset.maxBackoffMs, preset.baseDelayMs * std::pow(preset.multiplier, fitting));
                if (spent + delay > preset.deadlineMs)
                    break;
                spent += delay;
                ++fitting;
            }
            retries = fitting;
        }
        const bool capReached = preset.algorithm != BackoffAlgorithm::Constant
            && preset.baseDelayMs * std::pow(preset.multiplier, retries - 2) >= preset.maxBackoffMs;
        if (capReached) {
            QVERIFY2(p.capMs, qPrintable(why));
            QVERIFY2(within(*p.capMs, preset.maxBackoffMs, 0.10), qPrintable(why));
        }
        if (preset.maxAttempts > 0)
            QVERIFY2(p.maxAttempts == preset.maxAttempts, qPrintable(why));
        else
            QVERIFY2(p.maxAttempts || p.deadlineMs, qPrintable(why));
        QVERIFY2(p.growthConfidence.value > 0.5, qPrintable(why));
        // What it would retry like is a usable policy.
        const BackoffPolicy like = p.toPolicy(QStringLiteral("client"));
        QVERIFY2(isUsable(like), qPrintable(describeIssues(validatePolicy(like))));
    }

    void eachJitterKind_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<double>("base");
        QTest::addColumn<double>("multiplier");
        QTest::addColumn<int>("jitter");
        QTest::addColumn<quint64>("seed");
        QTest::addRow("none seed 3") << int(BackoffAlgorithm::Exponential) << 50.0 << 2.0 << int(JitterKind::None)
                                     << quint64(3);
        QTest::addRow("none seed 5") << int(BackoffAlgorithm::Exponential) << 50.0 << 2.0 << int(JitterKind::None)
                                     << quint64(5);
        QTest::addRow("none seed 8") << int(BackoffAlgorithm::Exponential) << 50.0 << 2.0 << int(JitterKind::None)
                                     << quint64(8);
        QTest::addRow("full seed 3") << int(BackoffAlgorithm::FullJitter) << 50.0 << 2.0 << int(JitterKind::Full)
                                     << quint64(3);
        QTest::addRow("full seed 5") << int(BackoffAlgorithm::FullJitter) << 50.0 << 2.0 << int(JitterKind::Full)
                                     << quint64(5);
        QTest::addRow("full seed 8") << int(BackoffAlgorithm::FullJitter) << 50.0 << 2.0 << int(JitterKind::Full)
                                     << quint64(8);
        QTest::addRow("equal seed 3") << int(BackoffAlgorithm::EqualJitter) << 50.0 << 2.0 << int(JitterKind::Equal)
                                      << quint64(3);
        QTest::addRow("equal seed 5") << int(BackoffAlgorithm::EqualJitter) << 50.0 << 2.0 << int(JitterKind::Equal)
                                      << quint64(5);
        QTest::addRow("equal seed 8") << int(BackoffAlgorithm::EqualJitter) << 50.0 << 2.0 << int(JitterKind::Equal)
                                      << quint64(8);
        QTest::addRow("additive seed 3") << int(BackoffAlgorithm::GoogleTruncatedExponential) << 50.0 << 2.0
                                         << int(JitterKind::Additive) << quint64(3);
        QTest::addRow("additive seed 5") << int(BackoffAlgorithm::GoogleTruncatedExponential) << 50.0 << 2.0
                                         << int(JitterKind::Additive) << quint64(5);
        QTest::addRow("additive seed 8") << int(BackoffAlgorithm::GoogleTruncatedExponential) << 50.0 << 2.0
                                         << int(JitterKind::Additive) << quint64(8);
        QTest::addRow("proportional seed 3")
            << int(BackoffAlgorithm::ProportionalJitter) << 50.0 << 2.0 << int(JitterKind::Proportional) << quint64(3);
        QTest::addRow("proportional seed 5")
            << int(BackoffAlgorithm::ProportionalJitter) << 50.0 << 2.0 << int(JitterKind::Proportional) << quint64(5);
        QTest::addRow("proportional seed 8")
            << int(BackoffAlgorithm::ProportionalJitter) << 50.0 << 2.0 << int(JitterKind::Proportional) << quint64(8);
        QTest::addRow("decorrelated seed 3")
            << int(BackoffAlgorithm::DecorrelatedJitter) << 50.0 << 2.0 << int(JitterKind::Decorrelated) << quint64(3);
        QTest::addRow("decorrelated seed 5")
            << int(BackoffAlgorithm::DecorrelatedJitter) << 50.0 << 2.0 << int(JitterKind::Decorrelated) << quint64(5);
        QTest::addRow("decorrelated seed 8")
            << int(BackoffAlgorithm::DecorrelatedJitter) << 50.0 << 2.0 << int(JitterKind::Decorrelated) << quint64(8);
        QTest::addRow("full x3 seed 3") << int(BackoffAlgorithm::FullJitter) << 20.0 << 3.0 << int(JitterKind::Full)
                                        << quint64(3);
        QTest::addRow("full x3 seed 5") << int(BackoffAlgorithm::FullJitter) << 20.0 << 3.0 << int(JitterKind::Full)
                                        << quint64(5);
        QTest::addRow("full x3 seed 8") << int(BackoffAlgorithm::FullJitter) << 20.0 << 3.0 << int(JitterKind::Full)
                                        << quint64(8);
    }

    void eachJitterKind()
    {
        QFETCH(int, algorithm);
        QFETCH(double, base);
        QFETCH(double, multiplier);
        QFETCH(int, jitter);
        QFETCH(quint64, seed);
        BackoffPolicy policy = ObserveTesting::policy(BackoffAlgorithm(algorithm), base, multiplier, 1e6, 5);
        policy.jitterMs = 40.0;
        policy.jitterFraction = 0.2;
        const InferredPolicy p = PolicyInference::infer(simulate(policy, ObserveTesting::traffic(30, seed)));
        QVERIFY2(int(p.jitter) == jitter, qPrintable(describe(p)));
        QVERIFY2(p.jitterConfidence.value > 0.3, qPrintable(describe(p)));
        QVERIFY(!p.jitterConfidence.evidence.isEmpty());
        if (BackoffAlgorithm(algorithm) != BackoffAlgorithm::DecorrelatedJitter) {
            QVERIFY2(within(*p.baseMs, base, 0.10), qPrintable(describe(p)));
            QVERIFY2(within(*p.multiplier, multiplier, 0.10), qPrintable(describe(p)));
        }
        if (jitter == int(JitterKind::Additive))
            QVERIFY2(within(p.additiveJitterMs.value_or(0), 40.0, 0.25), qPrintable(describe(p)));
        if (jitter == int(JitterKind::Proportional))
            QVERIFY2(within(p.jitterFraction.value_or(0), 0.2, 0.25), qPrintable(describe(p)));
    }

    void growthKinds_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<int>("growth");
        QTest::addColumn<double>("base");
        QTest::addRow("constant") << int(BackoffAlgorithm::Constant) << int(Growth::Constant) << 80.0;
        QTest::addRow("linear") << int(BackoffAlgorithm::Linear) << int(Growth::Linear) << 30.0;
        QTest::addRow("exponential") << int(BackoffAlgorithm::Exponential) << int(Growth::Exponential) << 10.0;
        QTest::addRow("immediate") << int(BackoffAlgorithm::Immediate) << int(Growth::None) << 0.0;
    }

    void growthKinds()
    {
        QFETCH(int, algorithm);
        QFETCH(int, growth);
        QFETCH(double, base);
        const BackoffPolicy policy = ObserveTesting::policy(BackoffAlgorithm(algorithm), base, 2.0, 1e6, 6);
        const InferredPolicy p = PolicyInference::infer(simulate(policy, ObserveTesting::traffic(5, 1)));
        QVERIFY2(int(p.growth) == growth, qPrintable(describe(p)));
        QVERIFY2(within(p.baseMs.value_or(-1), base, 0.10) || (base == 0 && p.baseMs.value_or(-1) == 0),
            qPrintable(describe(p)));
        QCOMPARE(p.maxAttempts.value_or(-1), 6);
        QCOMPARE(p.delays.size(), 5);
    }

    void aCapIsSeenWhereTheDelaysStopGrowing()
    {
        const BackoffPolicy policy = ObserveTesting::policy(BackoffAlgorithm::Exponential, 10, 2, 100, 10);
        const InferredPolicy p = PolicyInference::infer(simulate(policy, ObserveTesting::traffic(3, 1)));
        QVERIFY2(p.capMs, qPrintable(describe(p)));
        QVERIFY2(within(*p.capMs, 100, 0.05), qPrintable(describe(p)));
        QVERIFY2(within(*p.baseMs, 10, 0.10), qPrintable(describe(p)));
        QVERIFY2(within(*p.multiplier, 2, 0.10), qPrintable(describe(p)));
        QVERIFY(!p.capConfidence.evidence.isEmpty());
    }

    void aFirstImmediateRetryIsUrllib3sSchedule()
    {
        // urllib3 1.26, backoff_factor 0.1: 0, 0.2 s, 0.4 s, 0.8 s.
        QList<LogicalRequest> requests;
        for (int r = 0; r < 3; ++r) {
            const double t = r * 10'000.0;
            requests.append(request(quint64(r + 1), "GET",
                {attempt(t, std::nullopt, 503), attempt(t + 1, 0.3, 503), attempt(t + 202, 200.4, 503),
                    attempt(t + 604, 401.0, 503), attempt(t + 1406, 801.0, 503)}));
        }
        const InferredPolicy p = PolicyInference::infer(requests);
        QVERIFY2(p.firstRetryImmediate, qPrintable(describe(p)));
        QCOMPARE(p.growth, Growth::Exponential);
        QVERIFY2(within(*p.baseMs, 100, 0.10), qPrintable(describe(p)));
        QVERIFY2(within(*p.multiplier, 2, 0.10), qPrintable(describe(p)));
        QCOMPARE(p.maxAttempts.value_or(-1), 5);
    }

    void aFirstImmediateRetry_lateOnALoadedMachine_data()
    {
        QTest::addColumn<QList<double>>("delays");
        QTest::addColumn<bool>("atOnce");
        // urllib3's 0, 0.1 s, 0.2 s, 0.4 s with the first retry 8 ms late, as a loaded machine delays it.
        QTest::addRow("urllib3, first late") << QList<double>{8.0, 100.4, 200.6, 401.0} << true;
        // A steep exponential is not an immediate first retry: every step is as large as the first.
        QTest::addRow("x10 exponential") << QList<double>{10.0, 100.0, 1000.0, 10'000.0} << false;
        QTest::addRow("x2 exponential") << QList<double>{20.0, 40.0, 80.0, 160.0} << false;
    }

    void aFirstImmediateRetry_lateOnALoadedMachine()
    {
        QFETCH(QList<double>, delays);
        QFETCH(bool, atOnce);
        QList<LogicalRequest> requests;
        for (int r = 0; r < 4; ++r) {
            double t = r * 100'000.0;
            QList<ObservedAttempt> attempts{attempt(t, std::nullopt, 503)};
            for (qsizetype i = 0; i < delays.size(); ++i) {
                const double delay = delays[i] + (r % 2) * 1.5; // a little spread, as real timers give
                t += delay + 1.0;
                attempts.append(attempt(t, delay, 503));
            }
            requests.append(request(quint64(r + 1), "GET", attempts));
        }
        const InferredPolicy p = PolicyInference::infer(requests);
        QCOMPARE(p.firstRetryImmediate, atOnce);
        QCOMPARE(p.growth, Growth::Exponential);
    }

    void noJitter_aFewRetriesHeldUp_isStillNoJitter()
    {
        // curl --retry on a loaded machine: 100, 200, 400 ms exactly, but three of the thirty
        // logical requests had each retry held up by 12 to 20 ms. That is not a random amount added.
        QList<LogicalRequest> requests;
        for (int r = 0; r < 30; ++r) {
            const double late = r % 10 == 3 ? 12.0 + (r % 7) : 0.0;
            double t = r * 10'000.0;
            QList<ObservedAttempt> attempts{attempt(t, std::nullopt, 503)};
            for (double delay : {100.0, 200.0, 400.0}) {
                t += delay + late + 1.0;
                attempts.append(attempt(t, delay + late + (r % 3) * 0.5, 503));
            }
            requests.append(request(quint64(r + 1), "GET", attempts));
        }
        const InferredPolicy p = PolicyInference::infer(requests);
        QVERIFY2(p.jitter == JitterKind::None, qPrintable(describe(p)));
        QCOMPARE(p.growth, Growth::Exponential);
    }

    void retryAfter_data()
    {
        QTest::addColumn<double>("honour");
        QTest::addColumn<bool>("honoured");
        QTest::addRow("waits the value") << 5.0 << true;
        QTest::addRow("ignores it") << -1.0 << false;
    }

    void retryAfter()
    {
        QFETCH(double, honour);
        QFETCH(bool, honoured);
        auto t = ObserveTesting::traffic(10, 1);
        t.retryAfterMs = 1000.0;
        t.honourRetryAfter = honour;
        const InferredPolicy p = PolicyInference::infer(
            simulate(ObserveTesting::policy(BackoffAlgorithm::Exponential, 10, 2, 1000, 3), t));
        QVERIFY(p.honoursRetryAfter.value.has_value());
        QCOMPARE(*p.honoursRetryAfter.value, honoured);
        QVERIFY(p.honoursRetryAfter.confidence.value > 0.5);
        QVERIFY(!p.honoursRetryAfter.evidence.isEmpty());
        // Without any Retry-After served, there is nothing to say.
        const InferredPolicy none = PolicyInference::infer(simulate(
            ObserveTesting::policy(BackoffAlgorithm::Exponential, 10, 2, 1000, 3), ObserveTesting::traffic(5, 1)));
        QVERIFY(!none.honoursRetryAfter.value);
    }

    void nonIdempotentRetries()
    {
        const auto retried = request(1, "POST", {attempt(0, std::nullopt, 503), attempt(100, 99, 200)});
        QCOMPARE(PolicyInference::infer({retried}).retriesNonIdempotent.value, std::optional<bool>(true));
        const auto keyed
            = request(1, "POST", {attempt(0, std::nullopt, 503), attempt(100, 99, 200)}, GroupingRule::IdempotencyKey);
        QCOMPARE(PolicyInference::infer({keyed}).retriesNonIdempotent.value, std::optional<bool>());
        const auto leftAlone = request(1, "POST", {attempt(0, std::nullopt, 503)});
        QCOMPARE(PolicyInference::infer({leftAlone}).retriesNonIdempotent.value, std::optional<bool>(false));
        const auto get = request(1, "GET", {attempt(0, std::nullopt, 503), attempt(100, 99, 200)});
        QCOMPARE(PolicyInference::infer({get}).retriesNonIdempotent.value, std::optional<bool>());
    }

    void permanentErrors()
    {
        const auto retried = request(1, "GET", {attempt(0, std::nullopt, 403), attempt(100, 99, 200)});
        QCOMPARE(PolicyInference::infer({retried}).retriesPermanentErrors.value, std::optional<bool>(true));
        const auto notRetried = request(1, "GET", {attempt(0, std::nullopt, 400)});
        QCOMPARE(PolicyInference::infer({notRetried}).retriesPermanentErrors.value, std::optional<bool>(false));
        const auto none = request(1, "GET", {attempt(0, std::nullopt, 503), attempt(100, 99, 200)});
        QCOMPARE(PolicyInference::infer({none}).retriesPermanentErrors.value, std::optional<bool>());
        // 404 is IAM's to retry (eventual consistency): not a permanent error retried, but said.
        const auto notFound = request(1, "GET", {attempt(0, std::nullopt, 404), attempt(100, 99, 200)});
        const Finding f = PolicyInference::infer({notFound}).retriesPermanentErrors;
        QCOMPARE(f.value, std::optional<bool>());
        QVERIFY2(f.evidence.contains(QStringLiteral("404 was retried 1 time")), qPrintable(f.evidence));
    }

    void resetsAndStalls()
    {
        const auto reset
            = request(1, "GET", {attempt(0, std::nullopt, 0, QStringLiteral("reset")), attempt(50, 49, 200)});
        const InferredPolicy afterReset = PolicyInference::infer({reset});
        QCOMPARE(afterReset.retriesAfterReset.value, std::optional<bool>(true));
        QCOMPARE(afterReset.retriesAfterStall.value, std::optional<bool>());

        const auto stall
            = request(1, "GET", {attempt(0, std::nullopt, 0, QStringLiteral("stall")), attempt(5000, 4999, 200)});
        const InferredPolicy afterStall = PolicyInference::infer({stall});
        QCOMPARE(afterStall.retriesAfterStall.value, std::optional<bool>(true));
        QCOMPARE(afterStall.stallGiveUpMs.value_or(-1), 5000.0);
        // The stall's wait is the client's timeout, not its backoff: no delay is fitted from it.
        QVERIFY(afterStall.delays.isEmpty());

        const auto gaveUp = request(1, "GET", {attempt(0, std::nullopt, 0, QStringLiteral("empty"))});
        QCOMPARE(PolicyInference::infer({gaveUp}).retriesAfterReset.value, std::optional<bool>(false));
    }

    void wavesAndSpread()
    {
        // Ten logical requests that start together; without jitter they come back together.
        auto together = ObserveTesting::traffic(10, 1);
        together.gapMs = 0.0;
        auto herd = simulate(ObserveTesting::policy(BackoffAlgorithm::Exponential, 100, 2, 1e5, 4), together);
        // simulate() runs requests one after another: put them side by side.
        for (LogicalRequest &r : herd) {
            const double shift = r.attempts.first().arrivalMs - 3.0 * (r.id - 1);
            for (ObservedAttempt &a : r.attempts) {
                a.arrivalMs -= shift;
                a.endMs -= shift;
            }
        }
        const InferredPolicy waves = PolicyInference::infer(herd);
        QCOMPARE(waves.waves.value, std::optional<bool>(true));

        auto jittered = simulate(ObserveTesting::policy(BackoffAlgorithm::FullJitter, 1000, 2, 1e5, 4), together);
        for (LogicalRequest &r : jittered) {
            const double shift = r.attempts.first().arrivalMs - 3.0 * (r.id - 1);
            for (ObservedAttempt &a : r.attempts) {
                a.arrivalMs -= shift;
                a.endMs -= shift;
            }
        }
        QCOMPARE(PolicyInference::infer(jittered).waves.value, std::optional<bool>(false));
        // Requests far apart say nothing about waves.
        QCOMPARE(PolicyInference::infer(simulate(ObserveTesting::policy(BackoffAlgorithm::Exponential, 100, 2, 1e5, 4)))
                     .waves.value,
            std::optional<bool>());
    }

    void anAnnouncedLimitWins()
    {
        auto requests = simulate(
            ObserveTesting::policy(BackoffAlgorithm::FullJitter, 10, 2, 1000, 3), ObserveTesting::traffic(4, 1));
        for (LogicalRequest &r : requests) {
            for (ObservedAttempt &a : r.attempts)
                a.sdkMaxAttempts = 5;
        }
        const InferredPolicy p = PolicyInference::infer(requests);
        QCOMPARE(p.maxAttempts.value_or(-1), 5);
        QVERIFY(p.maxAttemptsConfidence.evidence.contains(QStringLiteral("announced")));
    }

    void garbageGivesNoNonsense_data()
    {
        QTest::addColumn<QList<LogicalRequest>>("requests");
        QTest::addRow("nothing") << QList<LogicalRequest>{};
        QTest::addRow("no attempts") << QList<LogicalRequest>{request(1, "GET", {})};
        QTest::addRow("one attempt") << QList<LogicalRequest>{request(1, "GET", {attempt(0, std::nullopt, 503)})};
        QTest::addRow("zero delays") << QList<LogicalRequest>{
            request(1, "GET", {attempt(0, std::nullopt, 503), attempt(1, 0, 503), attempt(2, 0, 503)})};
        QTest::addRow("huge delays") << QList<LogicalRequest>{
            request(1, "GET", {attempt(0, std::nullopt, 503), attempt(1e12, 1e12, 503), attempt(3e12, 2e12, 503)})};
        QTest::addRow("incomplete") << QList<LogicalRequest>{request(1, "GET", [] {
            auto a = attempt(0, std::nullopt, 503);
            a.complete = false;
            a.status.reset();
            return QList<ObservedAttempt>{a, a};
        }())};
    }

    void garbageGivesNoNonsense()
    {
        QFETCH(QList<LogicalRequest>, requests);
        const InferredPolicy p = PolicyInference::infer(requests);
        for (const auto &value : {p.baseMs, p.multiplier, p.capMs, p.deadlineMs, p.stallGiveUpMs})
            QVERIFY(!value || std::isfinite(*value));
        for (const Confidence &c : {p.growthConfidence, p.baseConfidence, p.jitterConfidence, p.capConfidence})
            QVERIFY(c.value >= 0.0 && c.value <= 1.0);
        QVERIFY(!p.summary().isEmpty());
        const QJsonObject json = p.toJson();
        for (const char *key :
            {"algorithm", "baseMs", "multiplier", "capMs", "jitter", "maxAttempts", "honoursRetryAfter"})
            QVERIFY2(json.contains(QLatin1String(key)), key);
        QVERIFY(isUsable(p.toPolicy(QStringLiteral("x"))));
    }

    void manyAttemptsStayLinear()
    {
        // 10,000 attempts: sorting per index is the only super-linear step.
        const auto requests = simulate(
            ObserveTesting::policy(BackoffAlgorithm::FullJitter, 10, 2, 1000, 10), ObserveTesting::traffic(1000, 9));
        const InferredPolicy p = PolicyInference::infer(requests);
        QCOMPARE(p.logicalRequests, 1000);
        QCOMPARE(p.jitter, JitterKind::Full);
        QVERIFY2(within(*p.baseMs, 10, 0.10), qPrintable(describe(p)));
    }
};

QTEST_GUILESS_MAIN(TestPolicyInference)
#include "tst_policyinference.moc"
