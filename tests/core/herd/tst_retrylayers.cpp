#include "core/herd/layersimulation.h"
#include "core/policy/presets.h"
#include "core/policy/retrylayers.h"

#include <QTest>

#include <cmath>

using namespace RetryLab::Core;

namespace {

BackoffPolicy exponential(const char *name, int attempts, double baseMs)
{
    BackoffPolicy p;
    p.name = QString::fromLatin1(name);
    p.algorithm = BackoffAlgorithm::Exponential;
    p.baseDelayMs = baseMs;
    p.multiplier = 2;
    p.maxBackoffMs = 10'000;
    p.maxAttempts = attempts;
    p.attemptTimeoutMs = 0;
    return p;
}

} // namespace

class TestRetryLayers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void twoLayers_exactFigures();
    void everyAttemptFails_simulationMeetsTheWorstCase();
    void deadline_boundsTheAttemptsOfItsLayer();
    void outerTimeout_cutsTheSequenceBelow();
    void fourPresets_warnAndTheSimulationAgrees();
};

void TestRetryLayers::twoLayers_exactFigures()
{
    const QList<BackoffPolicy> stack{exponential("app", 3, 100), exponential("mesh", 2, 100)};
    RetryLayers::Assumptions a;
    a.failureProbability = 0.5;
    a.failureMs = 10;
    const RetryLayers::Result r = RetryLayers::compute(stack, a);
    QCOMPARE(r.layers.size(), 2);
    QCOMPARE(r.layers[0].name, QStringLiteral("app"));
    QCOMPARE(r.layers[0].maxAttempts, 3);
    QCOMPARE(r.layers[1].maxAttempts, 2);
    QCOMPARE(r.worstCaseServerAttempts, 6.0);
    // mesh: 1 + 0.5 attempts per call, fails with 0.25; app: 1 + 0.25 + 0.0625 calls.
    QCOMPARE(r.expectedServerAttempts, 1.5 * 1.3125);
    QCOMPARE(r.failureProbability, std::pow(0.25, 3));
    // mesh gives up after 10 + 100 + 10 ms; app after 3 of those and waits of 100 and 200 ms.
    QCOMPARE(r.layers[1].maxGiveUpMs, 120.0);
    QCOMPARE(r.worstCaseGiveUpMs, 3 * 120.0 + 300.0);
    QCOMPARE(r.amplification, 2.0);
    QVERIFY(!r.exceedsThreshold);
    QVERIFY(r.warning.isEmpty());
    const QString text = RetryLayers::describe(r, a);
    QVERIFY2(text.contains(QLatin1String("at most 6; expected 1.969")), qPrintable(text));
}

void TestRetryLayers::everyAttemptFails_simulationMeetsTheWorstCase()
{
    const QList<BackoffPolicy> stack{exponential("a", 4, 5), exponential("b", 3, 5), exponential("c", 2, 5)};
    RetryLayers::Assumptions a;
    a.failureProbability = 1.0;
    a.failureMs = 2;
    const RetryLayers::Result exact = RetryLayers::compute(stack, a);
    QCOMPARE(exact.worstCaseServerAttempts, 24.0);
    QCOMPARE(exact.expectedServerAttempts, 24.0);
    QCOMPARE(exact.failureProbability, 1.0);
    const LayerSimulationResult played = simulateLayers(stack, a, 200, 7);
    QCOMPARE(played.maxServerAttempts, 24);
    QCOMPARE(played.meanServerAttempts, 24.0);
    QCOMPARE(played.failureRate, 1.0);
    QCOMPARE(played.maxGiveUpMs, exact.worstCaseGiveUpMs); // no jitter: the worst case is every case
}

void TestRetryLayers::deadline_boundsTheAttemptsOfItsLayer()
{
    BackoffPolicy outer = exponential("deadline", 0, 100);
    outer.algorithm = BackoffAlgorithm::Constant;
    outer.deadlineMs = 1000;
    const QList<BackoffPolicy> stack{outer, exponential("inner", 2, 50)};
    RetryLayers::Assumptions a;
    a.failureProbability = 1.0;
    a.failureMs = 25; // inner gives up after 25 + 50 + 25 = 100 ms
    const RetryLayers::Result r = RetryLayers::compute(stack, a);
    QVERIFY(r.layers[0].boundByDeadline);
    // Calls start at 0, 200, 400, 600, 800 ms; the next wait would end at 1000 ms: give up.
    QCOMPARE(r.layers[0].maxAttempts, 5);
    QCOMPARE(r.worstCaseServerAttempts, 10.0);
    QCOMPARE(r.worstCaseGiveUpMs, 900.0);
    const LayerSimulationResult played = simulateLayers(stack, a, 50, 3);
    QCOMPARE(played.maxServerAttempts, 10);
    QCOMPARE(played.maxGiveUpMs, 900.0);
}

void TestRetryLayers::outerTimeout_cutsTheSequenceBelow()
{
    BackoffPolicy outer = exponential("outer", 2, 10);
    outer.attemptTimeoutMs = 150; // the inner sequence would take 10 + 400 + 10 ms
    const QList<BackoffPolicy> stack{outer, exponential("inner", 2, 400)};
    RetryLayers::Assumptions a;
    a.failureProbability = 1.0;
    a.failureMs = 10;
    const RetryLayers::Result r = RetryLayers::compute(stack, a);
    QCOMPARE(r.worstCaseGiveUpMs, 150.0 + 10.0 + 150.0);
    const LayerSimulationResult played = simulateLayers(stack, a, 20, 3);
    QCOMPARE(played.maxGiveUpMs, r.worstCaseGiveUpMs);
}

void TestRetryLayers::fourPresets_warnAndTheSimulationAgrees()
{
    // App (Cloud Storage rules) -> SDK (AWS standard) -> mesh (gRPC) -> sidecar (Polly): jittered delays.
    QList<BackoffPolicy> stack;
    for (const char *id : {"google-cloud-storage", "aws-standard", "grpc-retry-policy", "polly-default"})
        stack.append(*Presets::find(QString::fromLatin1(id)));
    RetryLayers::Assumptions a;
    a.failureProbability = 0.6;
    const RetryLayers::Result exact = RetryLayers::compute(stack, a);
    double product = 1.0;
    for (const BackoffPolicy &p : stack)
        product *= p.maxAttempts;
    QCOMPARE(exact.worstCaseServerAttempts, product);
    QVERIFY(exact.exceedsThreshold);
    QVERIFY(exact.warning.contains(QLatin1String("the layers multiply")));

    const LayerSimulationResult played = simulateLayers(stack, a, 20'000, 11);
    QVERIFY(played.maxServerAttempts <= qint64(exact.worstCaseServerAttempts));
    // The exact expectation lies within four standard errors of the simulated mean.
    QVERIFY2(std::abs(played.meanServerAttempts - exact.expectedServerAttempts) <= 4.0 * played.standardError,
        qPrintable(QStringLiteral("simulated %1 +- %2, exact %3")
                       .arg(played.meanServerAttempts)
                       .arg(played.standardError)
                       .arg(exact.expectedServerAttempts)));
    QVERIFY(std::abs(played.failureRate - exact.failureProbability) < 0.01);
    QVERIFY(played.maxGiveUpMs <= exact.worstCaseGiveUpMs + 1e-6);
}

QTEST_GUILESS_MAIN(TestRetryLayers)
#include "tst_retrylayers.moc"
