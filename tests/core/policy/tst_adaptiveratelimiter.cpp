#include "core/policy/adaptiveratelimiter.h"
#include "core/util/clock.h"

#include <QTest>

#include <cmath>

using namespace RetryLab::Core;

namespace {

RateLimiterSettings adaptive()
{
    RateLimiterSettings s;
    s.kind = RateLimiterKind::AwsAdaptive;
    return s;
}

// Answers `count` attempts evenly spaced at `perSecond`, successes unless told,
// moving the clock along; returns the time of the last one.
double answerAt(AdaptiveRateLimiter &limiter, ManualClock &clock, int perSecond, int count, bool throttled = false)
{
    for (int i = 0; i < count; ++i) {
        clock.advanceMs(1000 / perSecond);
        limiter.onResponse(double(clock.nowMs()), throttled);
    }
    return double(clock.nowMs());
}

// The rate botocore's formulas give after a success at `nowMs`, for a throttle at
// `throttleMs` with the rate `lastMax` in use then.
double cubicRate(double nowMs, double throttleMs, double lastMax, double measured)
{
    const double k = std::cbrt(lastMax * (1.0 - 0.7) / 0.4);
    const double t = (nowMs - throttleMs) / 1000.0;
    return std::max(0.5, std::min(0.4 * std::pow(t - k, 3.0) + lastMax, 2.0 * measured));
}

} // namespace

class TestAdaptiveRateLimiter final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void isThrottling_429OrACodeBotocoreKnows_data();
    void isThrottling_429OrACodeBotocoreKnows();
    void none_neverLimitsNorEnables();
    void beforeTheFirstThrottle_nothingWaits();
    void measuredRate_followsTheResponses();
    void throttle_dropsTheRateToBetaTimesTheMeasuredRate();
    void successes_growBackAlongTheCubic();
    void growth_isCappedAtTwiceTheMeasuredRate();
    void rate_neverBelowTheMinimum_data();
    void rate_neverBelowTheMinimum();
    void bucket_spacesAttemptsAtOneOverTheRate();
};

void TestAdaptiveRateLimiter::none_neverLimitsNorEnables()
{
    ManualClock clock;
    AdaptiveRateLimiter limiter;
    QVERIFY(!limiter.active());
    answerAt(limiter, clock, 10, 30, true);
    QVERIFY(!limiter.enabled());
    for (int i = 0; i < 100; ++i)
        QCOMPARE(limiter.acquireDelayMs(double(clock.nowMs())), 0.0);
}

void TestAdaptiveRateLimiter::beforeTheFirstThrottle_nothingWaits()
{
    ManualClock clock;
    AdaptiveRateLimiter limiter(adaptive());
    QVERIFY(limiter.active());
    for (int i = 0; i < 50; ++i) {
        // Many attempts at one instant, far above any rate: none waits.
        QCOMPARE(limiter.acquireDelayMs(double(clock.nowMs())), 0.0);
        QCOMPARE(limiter.acquireDelayMs(double(clock.nowMs())), 0.0);
        answerAt(limiter, clock, 20, 1);
    }
    QVERIFY(!limiter.enabled());
}

void TestAdaptiveRateLimiter::measuredRate_followsTheResponses()
{
    ManualClock clock;
    AdaptiveRateLimiter limiter(adaptive());
    answerAt(limiter, clock, 10, 50);
    QVERIFY2(std::abs(limiter.measuredRate() - 10.0) < 0.5, qPrintable(QString::number(limiter.measuredRate())));
    // Slower answers pull it down, smoothed: not at once.
    answerAt(limiter, clock, 2, 1);
    QVERIFY(limiter.measuredRate() < 10.0);
    QVERIFY(limiter.measuredRate() > 2.0);
    answerAt(limiter, clock, 2, 20);
    QVERIFY2(std::abs(limiter.measuredRate() - 2.0) < 0.2, qPrintable(QString::number(limiter.measuredRate())));
}

void TestAdaptiveRateLimiter::throttle_dropsTheRateToBetaTimesTheMeasuredRate()
{
    ManualClock clock;
    AdaptiveRateLimiter limiter(adaptive());
    answerAt(limiter, clock, 10, 40);
    answerAt(limiter, clock, 10, 1, true);
    QVERIFY(limiter.enabled());
    const double measured = limiter.measuredRate();
    QVERIFY(measured > 9.0 && measured < 11.0);
    QCOMPARE(limiter.lastMaxRate(), measured);
    QCOMPARE(limiter.currentRate(), 0.7 * measured);

    // Once enabled, a throttle takes the lower of the measured and the bucket's rate.
    const double bucketRate = limiter.currentRate();
    answerAt(limiter, clock, 10, 1, true);
    QVERIFY(limiter.measuredRate() > bucketRate);
    QCOMPARE(limiter.lastMaxRate(), bucketRate);
    QCOMPARE(limiter.currentRate(), 0.7 * bucketRate);

    // Another beta.
    ManualClock clock2;
    RateLimiterSettings half = adaptive();
    half.beta = 0.5;
    AdaptiveRateLimiter halved(half);
    answerAt(halved, clock2, 10, 40);
    answerAt(halved, clock2, 10, 1, true);
    QCOMPARE(halved.currentRate(), 0.5 * halved.measuredRate());
}

void TestAdaptiveRateLimiter::successes_growBackAlongTheCubic()
{
    ManualClock clock;
    AdaptiveRateLimiter limiter(adaptive());
    answerAt(limiter, clock, 10, 40);
    const double throttleMs = answerAt(limiter, clock, 10, 1, true);
    const double lastMax = limiter.lastMaxRate();
    const double k = std::cbrt(lastMax * 0.3 / 0.4);
    double previous = limiter.currentRate();
    bool sawLastMax = false;
    // Four seconds of successes at 10/s, twice K: the rate climbs back to W at K
    // and beyond it, below twice the measured rate.
    for (int i = 0; i < 40; ++i) {
        const double now = answerAt(limiter, clock, 10, 1);
        const double expected = cubicRate(now, throttleMs, lastMax, limiter.measuredRate());
        QVERIFY2(std::abs(limiter.currentRate() - expected) < 1e-9,
            qPrintable(QStringLiteral("at %1 ms: %2, expected %3").arg(now).arg(limiter.currentRate()).arg(expected)));
        QVERIFY(limiter.currentRate() >= previous - 1e-9);
        previous = limiter.currentRate();
        if (std::abs((now - throttleMs) / 1000.0 - k) < 0.05) {
            QVERIFY(std::abs(limiter.currentRate() - lastMax) < 0.01);
            sawLastMax = true;
        }
    }
    QVERIFY(sawLastMax || k > 4.0);
    QVERIFY(limiter.currentRate() > lastMax);
    // Right after the throttle it was 0.7 W: the curve starts there.
    QCOMPARE(cubicRate(throttleMs, throttleMs, lastMax, 100.0), 0.7 * lastMax);
}

void TestAdaptiveRateLimiter::growth_isCappedAtTwiceTheMeasuredRate()
{
    ManualClock clock;
    AdaptiveRateLimiter limiter(adaptive());
    answerAt(limiter, clock, 10, 40);
    answerAt(limiter, clock, 10, 1, true);
    // Ten seconds on, the cubic is far above: 0.4 * (10 - K)^3 + W > 200/s.
    answerAt(limiter, clock, 10, 100);
    QCOMPARE(limiter.currentRate(), 2.0 * limiter.measuredRate());
    QVERIFY(limiter.currentRate() < 25.0);
}

void TestAdaptiveRateLimiter::rate_neverBelowTheMinimum_data()
{
    QTest::addColumn<double>("minRate");
    QTest::addRow("botocore's 0.5/s") << 0.5;
    QTest::addRow("2/s") << 2.0;
}

void TestAdaptiveRateLimiter::rate_neverBelowTheMinimum()
{
    QFETCH(double, minRate);
    ManualClock clock;
    RateLimiterSettings settings = adaptive();
    settings.minRate = minRate;
    AdaptiveRateLimiter limiter(settings);
    // Throttled from the first answer, when nothing was measured yet.
    answerAt(limiter, clock, 10, 1, true);
    QCOMPARE(limiter.measuredRate(), 0.0);
    QCOMPARE(limiter.currentRate(), minRate);
    // Throttled again and again at a trickle.
    answerAt(limiter, clock, 1, 30, true);
    QCOMPARE(limiter.currentRate(), minRate);
    // The attempts are spaced at 1 / minimum rate at most.
    const double now = double(clock.nowMs());
    limiter.acquireDelayMs(now);
    const double first = limiter.acquireDelayMs(now);
    const double second = limiter.acquireDelayMs(now);
    QCOMPARE(second - first, 1000.0 / minRate);
}

void TestAdaptiveRateLimiter::bucket_spacesAttemptsAtOneOverTheRate()
{
    ManualClock clock;
    AdaptiveRateLimiter limiter(adaptive());
    answerAt(limiter, clock, 10, 40);
    answerAt(limiter, clock, 10, 1, true);
    const double rate = limiter.currentRate();
    QVERIFY(rate > 5.0 && rate < 8.0);

    // A client that sends as soon as it may, with no answer changing the rate:
    // after what the bucket held, one attempt every 1/rate seconds.
    double now = double(clock.nowMs());
    QList<double> sent;
    for (int i = 0; i < 20; ++i) {
        now += limiter.acquireDelayMs(now);
        sent.append(now);
    }
    for (qsizetype i = 10; i < sent.size(); ++i)
        QVERIFY2(std::abs(sent.at(i) - sent.at(i - 1) - 1000.0 / rate) < 1e-6, qPrintable(QString::number(i)));
    // At most the bucket's capacity (max(rate, 1) tokens) went at once.
    int atOnce = 0;
    while (atOnce < sent.size() && sent.at(atOnce) == sent.first())
        ++atOnce;
    QVERIFY(atOnce <= int(std::ceil(std::max(rate, 1.0))));

    // Several attempts asking at one instant queue up behind each other.
    const double later = now + 10'000.0; // the bucket is full again
    QList<double> waits;
    for (int i = 0; i < 12; ++i)
        waits.append(limiter.acquireDelayMs(later));
    QCOMPARE(waits.first(), 0.0);
    QVERIFY(std::abs(waits.last() - waits.at(waits.size() - 2) - 1000.0 / rate) < 1e-6);
}

void TestAdaptiveRateLimiter::isThrottling_429OrACodeBotocoreKnows_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("throttling");
    QTest::addRow("429") << 429 << QByteArray() << true;
    QTest::addRow("503 SlowDown (S3)") << 503
                                       << QByteArray(
                                              "<Error><Code>SlowDown</Code><Message>Please reduce</Message></Error>")
                                       << true;
    QTest::addRow("400 ThrottlingException")
        << 400 << QByteArray(R"({"__type":"ThrottlingException","message":"Rate exceeded"})") << true;
    QTest::addRow("plain 503") << 503 << QByteArray("Service Unavailable") << false;
    QTest::addRow("200 saying SlowDown") << 200 << QByteArray("SlowDown") << false;
    QTest::addRow("code beyond 4 KiB") << 503 << (QByteArray(5000, ' ') + "SlowDown") << false;
}

void TestAdaptiveRateLimiter::isThrottling_429OrACodeBotocoreKnows()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(bool, throttling);
    QCOMPARE(AdaptiveRateLimiter::isThrottling(status, body), throttling);
    QVERIFY(!AdaptiveRateLimiter::isThrottling(std::nullopt, body)); // no answer: a network fault
}

QTEST_GUILESS_MAIN(TestAdaptiveRateLimiter)
#include "tst_adaptiveratelimiter.moc"
