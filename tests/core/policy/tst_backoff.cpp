#include "core/policy/backoff.h"
#include "core/policy/policyfields.h"
#include "core/util/randomsource.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace RetryLab::Core;

class TestBackoff : public QObject
{
    Q_OBJECT

private:
    static BackoffPolicy policy(
        BackoffAlgorithm algorithm, double base = 1000, double multiplier = 2, double cap = 32'000)
    {
        BackoffPolicy p;
        p.algorithm = algorithm;
        p.baseDelayMs = base;
        p.multiplier = multiplier;
        p.maxBackoffMs = cap;
        return p;
    }

private Q_SLOTS:
    void deterministicSchedules_data();
    void deterministicSchedules();
    void googleTruncated_addsRedrawnMillisecondsThenTruncates();
    void iam_addsFractionOfASecond();
    void fullJitter_matchesFormulaExactly();
    void equalJitter_matchesFormulaExactly();
    void decorrelatedJitter_usesPreviousDelay();
    void proportionalJitter_matchesFormulaExactly();
    void sameSeed_sameSchedule();
    void intervalJitter_constantAndLinear_matchTheirFormulas();
    void delayFactor_scalesButNeverPassesTheCap();
    void statistics_boundsNeverCrossed_data();
    void statistics_boundsNeverCrossed();
    void fullJitter_meanNearHalfTheEnvelope();
    void equalJitter_meanNearThreeQuarters();
    void hugeRetryIndex_isFiniteAndCapped_data();
    void hugeRetryIndex_isFiniteAndCapped();
    void invalidValues_neverProduceNegativeOrNaN_data();
    void invalidValues_neverProduceNegativeOrNaN();
    void cap_reachedThenKeptWithoutGrowing();
    void preview_envelopeAndCumulative();
    void preview_samplesMatchSequence();
    void preview_retriesWithinDeadline();
    void preview_isBounded();
};

void TestBackoff::deterministicSchedules_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<double>("base");
    QTest::addColumn<double>("multiplier");
    QTest::addColumn<double>("cap");
    QTest::addColumn<QList<double>>("expected");

    QTest::addRow("exponential x2") << int(BackoffAlgorithm::Exponential) << 1000.0 << 2.0 << 32'000.0
                                    << QList<double>{1000, 2000, 4000, 8000, 16000, 32000, 32000, 32000};
    QTest::addRow("exponential x1.5") << int(BackoffAlgorithm::Exponential) << 100.0 << 1.5 << 1000.0
                                      << QList<double>{100, 150, 225, 337.5, 506.25, 759.375, 1000, 1000};
    QTest::addRow("exponential cap not power of two")
        << int(BackoffAlgorithm::Exponential) << 1000.0 << 2.0 << 5000.0 << QList<double>{1000, 2000, 4000, 5000, 5000};
    QTest::addRow("constant") << int(BackoffAlgorithm::Constant) << 2000.0 << 1.0 << 2000.0
                              << QList<double>{2000, 2000, 2000, 2000};
    QTest::addRow("linear") << int(BackoffAlgorithm::Linear) << 500.0 << 1.0 << 1800.0
                            << QList<double>{500, 1000, 1500, 1800, 1800};
    QTest::addRow("immediate") << int(BackoffAlgorithm::Immediate) << 1000.0 << 2.0 << 32'000.0
                               << QList<double>{0, 0, 0};
}

void TestBackoff::deterministicSchedules()
{
    QFETCH(int, algorithm);
    QFETCH(double, base);
    QFETCH(double, multiplier);
    QFETCH(double, cap);
    QFETCH(QList<double>, expected);

    const BackoffPolicy p = policy(BackoffAlgorithm(algorithm), base, multiplier, cap);
    RandomSource random(1);
    Backoff::Sequence sequence(p);
    for (int n = 0; n < expected.size(); ++n) {
        QCOMPARE(sequence.next(random), expected.at(n));
        const auto range = Backoff::delayRange(p, n);
        QCOMPARE(range.minMs, expected.at(n));
        QCOMPARE(range.maxMs, expected.at(n));
    }
}

void TestBackoff::googleTruncated_addsRedrawnMillisecondsThenTruncates()
{
    BackoffPolicy p = policy(BackoffAlgorithm::GoogleTruncatedExponential, 1000, 2, 32'000);
    p.jitterMs = 1000;
    RandomSource random(42);
    RandomSource mirror(42);
    QSet<double> fractions;
    for (int n = 0; n < 10; ++n) {
        const double expected = std::min(std::pow(2.0, n) * 1000.0 + mirror.uniform(0, 1000), 32'000.0);
        const double actual = Backoff::delayMs(p, n, -1, random);
        QCOMPARE(actual, expected);
        if (n < 5)
            fractions.insert(actual - std::pow(2.0, n) * 1000.0);
    }
    // the random part is redrawn for every retry
    QCOMPARE(fractions.size(), 5);
}

void TestBackoff::iam_addsFractionOfASecond()
{
    BackoffPolicy p = policy(BackoffAlgorithm::IamTruncatedExponential, 1000, 2, 32'000);
    p.jitterMs = 1000;
    p.deadlineMs = 300'000;
    RandomSource random(7);
    for (int n = 0; n < 8; ++n) {
        const double d = Backoff::delayMs(p, n, -1, random);
        const double term = std::min(std::pow(2.0, n) * 1000.0, 32'000.0);
        QVERIFY2(d >= term && d <= std::min(term + 1000.0, 32'000.0), qPrintable(QString::number(d)));
    }
}

void TestBackoff::fullJitter_matchesFormulaExactly()
{
    const BackoffPolicy p = policy(BackoffAlgorithm::FullJitter, 100, 3, 5000);
    RandomSource random(11), mirror(11);
    for (int n = 0; n < 8; ++n) {
        const double v = std::min(5000.0, 100.0 * std::pow(3.0, n));
        QCOMPARE(Backoff::delayMs(p, n, -1, random), mirror.uniform(0, v));
    }
}

void TestBackoff::equalJitter_matchesFormulaExactly()
{
    const BackoffPolicy p = policy(BackoffAlgorithm::EqualJitter, 100, 2, 3000);
    RandomSource random(12), mirror(12);
    for (int n = 0; n < 8; ++n) {
        const double v = std::min(3000.0, 100.0 * std::pow(2.0, n));
        QCOMPARE(Backoff::delayMs(p, n, -1, random), v / 2 + mirror.uniform(0, v / 2));
    }
}

void TestBackoff::decorrelatedJitter_usesPreviousDelay()
{
    const BackoffPolicy p = policy(BackoffAlgorithm::DecorrelatedJitter, 100, 2, 10'000);
    RandomSource random(13), mirror(13);
    Backoff::Sequence sequence(p);
    double previous = 100.0; // previous starts at base
    for (int n = 0; n < 20; ++n) {
        const double expected = std::min(10'000.0, mirror.uniform(100.0, previous * 3.0));
        const double actual = sequence.next(random);
        QCOMPARE(actual, expected);
        previous = actual;
    }
}

void TestBackoff::proportionalJitter_matchesFormulaExactly()
{
    BackoffPolicy p = policy(BackoffAlgorithm::ProportionalJitter, 1000, 1.6, 120'000);
    p.jitterFraction = 0.2; // gRPC connection backoff
    RandomSource random(14), mirror(14);
    for (int n = 0; n < 12; ++n) {
        const double v = std::min(120'000.0, 1000.0 * std::pow(1.6, n));
        QCOMPARE(Backoff::delayMs(p, n, -1, random), std::min(120'000.0, v * mirror.uniform(0.8, 1.2)));
    }
}

void TestBackoff::sameSeed_sameSchedule()
{
    for (auto algorithm : allAlgorithms()) {
        const BackoffPolicy p = policy(algorithm, 50, 2, 4000);
        RandomSource a(99), b(99);
        Backoff::Sequence sa(p), sb(p);
        for (int n = 0; n < 30; ++n)
            QCOMPARE(sa.next(a), sb.next(b));
    }
}

void TestBackoff::intervalJitter_constantAndLinear_matchTheirFormulas()
{
    for (const auto algorithm : {BackoffAlgorithm::Constant, BackoffAlgorithm::Linear}) {
        BackoffPolicy p = policy(algorithm, 400, 1, 1500);
        p.jitterFraction = 0.25;
        for (const IntervalJitter jitter : allIntervalJitters()) {
            p.intervalJitter = jitter;
            RandomSource random(7), mirror(7);
            for (int n = 0; n < 6; ++n) {
                const double v = std::min(1500.0, algorithm == BackoffAlgorithm::Constant ? 400.0 : 400.0 * (n + 1));
                double expected = v;
                if (jitter == IntervalJitter::Full)
                    expected = mirror.uniform(0.0, v);
                else if (jitter == IntervalJitter::Equal)
                    expected = v / 2.0 + mirror.uniform(0.0, v / 2.0);
                else if (jitter == IntervalJitter::Proportional)
                    expected = std::min(1500.0, v * mirror.uniform(0.75, 1.25));
                QCOMPARE(Backoff::delayMs(p, n, -1, random), expected);
                const Backoff::Range range = Backoff::delayRange(p, n);
                QVERIFY(range.minMs <= expected && expected <= range.maxMs);
                if (jitter == IntervalJitter::None)
                    QCOMPARE(range.minMs, range.maxMs);
                else
                    QVERIFY(range.minMs < range.maxMs);
            }
            QCOMPARE(hasJitter(p), jitter != IntervalJitter::None);
        }
    }
    // The exponential family keeps its own jitter: the setting changes nothing there.
    BackoffPolicy exponential = policy(BackoffAlgorithm::Exponential, 100, 2, 1000);
    exponential.intervalJitter = IntervalJitter::Full;
    RandomSource random(1);
    QCOMPARE(Backoff::delayMs(exponential, 2, -1, random), 400.0);
    QVERIFY(!hasJitter(exponential));
}

void TestBackoff::delayFactor_scalesButNeverPassesTheCap()
{
    const BackoffPolicy p = policy(BackoffAlgorithm::Exponential, 100, 2, 1000);
    QCOMPARE(Backoff::scaledDelayMs(p, 800, 0.25), 200.0);
    QCOMPARE(Backoff::scaledDelayMs(p, 800, 2.0), 1000.0);
    QCOMPARE(Backoff::scaledDelayMs(p, 800, 0.0), 0.0);
    QCOMPARE(Backoff::scaledDelayMs(p, 800, std::nan("")), 800.0);
}

void TestBackoff::statistics_boundsNeverCrossed_data()
{
    QTest::addColumn<int>("algorithm");
    for (auto algorithm : allAlgorithms())
        QTest::addRow("%s", qPrintable(algorithmName(algorithm))) << int(algorithm);
}

void TestBackoff::statistics_boundsNeverCrossed()
{
    QFETCH(int, algorithm);
    BackoffPolicy p = policy(BackoffAlgorithm(algorithm), 100, 2, 2500);
    p.jitterMs = 700;
    p.jitterFraction = 0.3;
    RandomSource random(2024);
    for (int run = 0; run < 1000; ++run) {
        Backoff::Sequence sequence(p);
        for (int n = 0; n < 10; ++n) { // 10,000 draws per algorithm
            const auto range = Backoff::delayRange(p, n);
            const double d = sequence.next(random);
            QVERIFY(std::isfinite(d));
            QVERIFY2(d >= range.minMs && d <= range.maxMs,
                qPrintable(QStringLiteral("n=%1 d=%2 range=[%3, %4]").arg(n).arg(d).arg(range.minMs).arg(range.maxMs)));
            QVERIFY(d <= p.maxBackoffMs);
            QVERIFY(d >= 0.0);
        }
    }
}

void TestBackoff::fullJitter_meanNearHalfTheEnvelope()
{
    const BackoffPolicy p = policy(BackoffAlgorithm::FullJitter, 1000, 2, 32'000);
    RandomSource random(5);
    for (int n : {0, 3, 10}) {
        const double v = Backoff::exponentialTermMs(p, n);
        double sum = 0;
        const int draws = 10'000;
        for (int i = 0; i < draws; ++i)
            sum += Backoff::delayMs(p, n, -1, random);
        const double mean = sum / draws;
        // standard error of U[0, v] over 10,000 draws is v / sqrt(12 * 10000) ~ 0.0029 v
        QVERIFY2(std::abs(mean - v / 2) < 0.015 * v, qPrintable(QStringLiteral("mean %1 for v %2").arg(mean).arg(v)));
    }
}

void TestBackoff::equalJitter_meanNearThreeQuarters()
{
    const BackoffPolicy p = policy(BackoffAlgorithm::EqualJitter, 1000, 2, 32'000);
    RandomSource random(6);
    const double v = Backoff::exponentialTermMs(p, 4);
    double sum = 0;
    for (int i = 0; i < 10'000; ++i)
        sum += Backoff::delayMs(p, 4, -1, random);
    QVERIFY(std::abs(sum / 10'000 - 0.75 * v) < 0.01 * v);
}

void TestBackoff::hugeRetryIndex_isFiniteAndCapped_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<qint64>("retryIndex");
    for (auto algorithm : allAlgorithms()) {
        for (qint64 n : {qint64(64), qint64(1024), qint64(1'000'000), std::numeric_limits<qint64>::max()})
            QTest::addRow("%s n=%lld", qPrintable(algorithmName(algorithm)), static_cast<long long>(n))
                << int(algorithm) << n;
    }
}

void TestBackoff::hugeRetryIndex_isFiniteAndCapped()
{
    QFETCH(int, algorithm);
    QFETCH(qint64, retryIndex);
    BackoffPolicy p = policy(BackoffAlgorithm(algorithm), 1000, 2, 64'000);
    RandomSource random(3);
    const double d = Backoff::delayMs(p, retryIndex, 64'000, random);
    QVERIFY(std::isfinite(d));
    QVERIFY(d >= 0);
    QVERIFY(d <= 64'000);
    const auto range = Backoff::delayRange(p, retryIndex);
    QVERIFY(std::isfinite(range.minMs) && std::isfinite(range.maxMs));
    QVERIFY(range.maxMs <= 64'000);
    if (BackoffAlgorithm(algorithm) == BackoffAlgorithm::Exponential)
        QCOMPARE(d, 64'000.0);

    p.multiplier = 100; // the largest multiplier validation accepts
    QVERIFY(Backoff::delayMs(p, retryIndex, -1, random) <= 64'000);
}

void TestBackoff::invalidValues_neverProduceNegativeOrNaN_data()
{
    QTest::addColumn<double>("base");
    QTest::addColumn<double>("multiplier");
    QTest::addColumn<double>("cap");
    QTest::addColumn<double>("jitter");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QTest::addRow("negative base") << -100.0 << 2.0 << 1000.0 << 100.0;
    QTest::addRow("nan base") << nan << 2.0 << 1000.0 << 100.0;
    QTest::addRow("nan multiplier") << 100.0 << nan << 1000.0 << 100.0;
    QTest::addRow("infinite multiplier") << 100.0 << inf << 1000.0 << 100.0;
    QTest::addRow("negative cap") << 100.0 << 2.0 << -1.0 << 100.0;
    QTest::addRow("nan cap") << 100.0 << 2.0 << nan << 100.0;
    QTest::addRow("infinite cap") << 100.0 << 2.0 << inf << 100.0;
    QTest::addRow("negative jitter") << 100.0 << 2.0 << 1000.0 << -50.0;
    QTest::addRow("nan jitter") << 100.0 << 2.0 << 1000.0 << nan;
    QTest::addRow("multiplier below one") << 100.0 << 0.5 << 1000.0 << 100.0;
}

void TestBackoff::invalidValues_neverProduceNegativeOrNaN()
{
    // Validation refuses these policies; the maths must stay safe even so.
    QFETCH(double, base);
    QFETCH(double, multiplier);
    QFETCH(double, cap);
    QFETCH(double, jitter);
    for (auto algorithm : allAlgorithms()) {
        BackoffPolicy p = policy(algorithm, base, multiplier, cap);
        p.jitterMs = jitter;
        p.jitterFraction = jitter;
        RandomSource random(8);
        Backoff::Sequence sequence(p);
        for (qint64 n : {0, 1, 5, 1024}) {
            Q_UNUSED(n)
            const double d = sequence.next(random);
            QVERIFY2(std::isfinite(d) && d >= 0, qPrintable(algorithmName(algorithm)));
        }
    }
}

void TestBackoff::cap_reachedThenKeptWithoutGrowing()
{
    BackoffPolicy p = policy(BackoffAlgorithm::GoogleTruncatedExponential, 1000, 2, 64'000);
    RandomSource random(1);
    for (int n = 6; n < 40; ++n)
        QCOMPARE(Backoff::delayMs(p, n, -1, random), 64'000.0);
}

void TestBackoff::preview_envelopeAndCumulative()
{
    BackoffPolicy p = policy(BackoffAlgorithm::GoogleTruncatedExponential, 1000, 2, 32'000);
    p.jitterMs = 1000;
    const auto preview = previewSchedule(p, 7, 0, 1);
    QCOMPARE(preview.envelope.size(), 7);
    const QList<double> mins{1000, 2000, 4000, 8000, 16000, 32000, 32000};
    const QList<double> maxs{2000, 3000, 5000, 9000, 17000, 32000, 32000};
    double cumMin = 0, cumMax = 0;
    for (int n = 0; n < 7; ++n) {
        QCOMPARE(preview.envelope[n].minMs, mins[n]);
        QCOMPARE(preview.envelope[n].maxMs, maxs[n]);
        cumMin += mins[n];
        cumMax += maxs[n];
        QCOMPARE(preview.envelope[n].cumulativeMinMs, cumMin);
        QCOMPARE(preview.envelope[n].cumulativeMaxMs, cumMax);
    }
    QVERIFY(preview.samples.isEmpty());
}

void TestBackoff::preview_samplesMatchSequence()
{
    const BackoffPolicy p = policy(BackoffAlgorithm::DecorrelatedJitter, 100, 2, 5000);
    const auto preview = previewSchedule(p, 12, 3, 500);
    QCOMPARE(preview.samples.size(), 3);
    for (int k = 0; k < 3; ++k) {
        RandomSource random(500 + k);
        Backoff::Sequence sequence(p);
        QCOMPARE(preview.samples[k].size(), 12);
        for (int n = 0; n < 12; ++n) {
            const double d = sequence.next(random);
            QCOMPARE(preview.samples[k][n], d);
            QVERIFY(d >= preview.envelope[n].minMs && d <= preview.envelope[n].maxMs);
        }
    }
}

void TestBackoff::preview_retriesWithinDeadline()
{
    BackoffPolicy p = policy(BackoffAlgorithm::Exponential, 1000, 2, 32'000);
    p.deadlineMs = 10'000;
    // 1 + 2 + 4 = 7 s fit, 1 + 2 + 4 + 8 = 15 s do not
    QCOMPARE(previewSchedule(p, 10, 0, 1).retriesWithinDeadline, 3);
    p.deadlineMs = 0;
    QCOMPARE(previewSchedule(p, 10, 0, 1).retriesWithinDeadline, -1);
}

void TestBackoff::preview_isBounded()
{
    const BackoffPolicy p = policy(BackoffAlgorithm::FullJitter);
    const auto preview = previewSchedule(p, 1'000'000, 1000, 1);
    QCOMPARE(preview.envelope.size(), maxPreviewRetries);
    QVERIFY(preview.truncatedByDisplayLimit);
    QCOMPARE(preview.samples.size(), 100);
    BackoffPolicy limited = p;
    limited.maxAttempts = 5;
    QCOMPARE(plannedRetries(limited), 4);
    limited.maxAttempts = 0;
    limited.deadlineMs = 1000;
    QCOMPARE(plannedRetries(limited, 20), 20);
}

QTEST_GUILESS_MAIN(TestBackoff)
#include "tst_backoff.moc"
