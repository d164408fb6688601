#include "core/policy/circuitbreaker.h"
#include "core/util/clock.h"

#include <QTest>

using namespace RetryLab::Core;
using State = CircuitBreaker::State;

class TestCircuitBreaker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void disabled_alwaysLetsThrough();
    void consecutiveFailures_openThenHalfOpenThenClosed();
    void halfOpen_failedTrial_reopens();
    void halfOpen_limitsTrials();
    void successes_resetConsecutiveCount();
    void failureRatio_opensOverWindow();
    void release_returnsUnusedTrial();
    void halfOpen_onlyTheTrialDecides();
};

static CircuitBreakerSettings settings(
    int consecutive = 3, double ratio = 0.0, int window = 10, double openMs = 1000, int trials = 1)
{
    CircuitBreakerSettings s;
    s.enabled = true;
    s.consecutiveFailures = consecutive;
    s.failureRatio = ratio;
    s.window = window;
    s.openMs = openMs;
    s.halfOpenTrials = trials;
    return s;
}

void TestCircuitBreaker::disabled_alwaysLetsThrough()
{
    ManualClock clock;
    CircuitBreaker breaker(CircuitBreakerSettings{}, clock);
    for (int i = 0; i < 100; ++i) {
        QVERIFY(breaker.tryAcquire());
        breaker.recordFailure(false);
    }
    QCOMPARE(breaker.state(), State::Closed);
}

void TestCircuitBreaker::consecutiveFailures_openThenHalfOpenThenClosed()
{
    ManualClock clock;
    CircuitBreaker breaker(settings(3), clock);
    for (int i = 0; i < 2; ++i) {
        QVERIFY(breaker.tryAcquire());
        breaker.recordFailure(false);
        QCOMPARE(breaker.state(), State::Closed);
    }
    QVERIFY(breaker.tryAcquire());
    breaker.recordFailure(false);
    QCOMPARE(breaker.state(), State::Open);
    QVERIFY(!breaker.tryAcquire());
    QCOMPARE(breaker.remainingOpenMs(), 1000.0);

    clock.advanceMs(999);
    QCOMPARE(breaker.state(), State::Open);
    QVERIFY(!breaker.tryAcquire());
    clock.advanceMs(1);
    QCOMPARE(breaker.state(), State::HalfOpen);
    QVERIFY(breaker.tryAcquire());
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), State::Closed);
    QCOMPARE(breaker.consecutiveFailures(), 0);
}

void TestCircuitBreaker::halfOpen_failedTrial_reopens()
{
    ManualClock clock;
    CircuitBreaker breaker(settings(1), clock);
    QVERIFY(breaker.tryAcquire());
    breaker.recordFailure(false);
    QCOMPARE(breaker.state(), State::Open);
    clock.advanceMs(1000);
    QVERIFY(breaker.tryAcquire());
    breaker.recordFailure(true);
    QCOMPARE(breaker.state(), State::Open);
    QCOMPARE(breaker.remainingOpenMs(), 1000.0); // a fresh open period
}

void TestCircuitBreaker::halfOpen_limitsTrials()
{
    ManualClock clock;
    CircuitBreaker breaker(settings(1, 0, 10, 500, 2), clock);
    breaker.tryAcquire();
    breaker.recordFailure(false);
    clock.advanceMs(500);
    QVERIFY(breaker.tryAcquire());
    QVERIFY(breaker.tryAcquire());
    QVERIFY(!breaker.tryAcquire()); // only two trials
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), State::HalfOpen); // both trials must succeed
    QVERIFY(!breaker.tryAcquire());
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), State::Closed);
}

void TestCircuitBreaker::successes_resetConsecutiveCount()
{
    ManualClock clock;
    CircuitBreaker breaker(settings(3), clock);
    for (int i = 0; i < 10; ++i) {
        breaker.recordFailure(false);
        breaker.recordFailure(false);
        breaker.recordSuccess(false);
    }
    QCOMPARE(breaker.state(), State::Closed);
}

void TestCircuitBreaker::failureRatio_opensOverWindow()
{
    ManualClock clock;
    CircuitBreaker breaker(settings(0, 0.5, 10), clock);
    // alternate: 50 % failures, but only once the window is full
    for (int i = 0; i < 9; ++i) {
        if (i % 2)
            breaker.recordFailure(false);
        else
            breaker.recordSuccess(false);
        QCOMPARE(breaker.state(), State::Closed);
    }
    QCOMPARE(breaker.failureRatio(), 4.0 / 9.0);
    breaker.recordFailure(false);
    QCOMPARE(breaker.state(), State::Open);
}

void TestCircuitBreaker::release_returnsUnusedTrial()
{
    ManualClock clock;
    CircuitBreaker breaker(settings(1), clock);
    breaker.recordFailure(false);
    clock.advanceMs(1000);
    QVERIFY(breaker.tryAcquire());
    QVERIFY(!breaker.tryAcquire());
    breaker.release();
    QVERIFY(breaker.tryAcquire());
}

void TestCircuitBreaker::halfOpen_onlyTheTrialDecides()
{
    ManualClock clock;
    CircuitBreaker breaker(settings(2), clock);
    // Two requests go out while closed; one fails, a third fails and opens the breaker.
    QVERIFY(breaker.tryAcquire());
    QVERIFY(breaker.tryAcquire());
    QVERIFY(breaker.tryAcquire());
    breaker.recordFailure(false);
    breaker.recordFailure(false);
    QCOMPARE(breaker.state(), State::Open);
    clock.advanceMs(1000);
    QCOMPARE(breaker.state(), State::HalfOpen);
    QVERIFY(breaker.tryAcquire()); // the trial
    // The old request ends now: it was no trial, so it neither closes nor reopens the breaker.
    breaker.recordSuccess(false);
    QCOMPARE(breaker.state(), State::HalfOpen);
    breaker.recordFailure(false);
    QCOMPARE(breaker.state(), State::HalfOpen);
    QVERIFY(!breaker.tryAcquire()); // the one trial is still out
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), State::Closed);
}

QTEST_GUILESS_MAIN(TestCircuitBreaker)
#include "tst_circuitbreaker.moc"
