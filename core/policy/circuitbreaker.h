#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>

namespace RetryLab::Core {

class Clock;

/// A per-host circuit breaker: closed (requests flow), open (fail fast for a
/// while), half-open (a limited number of trial requests decide). Pure logic
/// over an injected clock; the executor keeps one per host.
class CircuitBreaker
{
public:
    enum class State { Closed, Open, HalfOpen };

    CircuitBreaker(CircuitBreakerSettings settings, const Clock &clock);

    /// May a request (or retry) go out now? Moves open -> half-open when the open
    /// period has passed, and counts half-open trials handed out.
    bool tryAcquire();
    /// Reports the outcome of a request that tryAcquire() let through; `trial`
    /// says it went out as a half-open trial. Only trials decide a half-open
    /// breaker: a request let through before the breaker opened tells nothing
    /// about the service now, so its outcome is ignored while the breaker is
    /// open or half-open.
    void recordSuccess(bool trial);
    void recordFailure(bool trial);
    /// Returns a half-open trial slot that was acquired but never used.
    void release();

    State state() const;
    /// Milliseconds until an open breaker lets a trial through (0 otherwise).
    double remainingOpenMs() const;
    int consecutiveFailures() const { return m_consecutiveFailures; }
    double failureRatio() const;
    const CircuitBreakerSettings &settings() const { return m_settings; }

    static QString stateName(State state);

private:
    void open();
    void close();
    void pushOutcome(bool failure);
    void refreshState() const;

    CircuitBreakerSettings m_settings;
    const Clock *m_clock;
    mutable State m_state = State::Closed;
    qint64 m_openedAtNs = 0;
    int m_consecutiveFailures = 0;
    int m_trialsInFlight = 0;
    int m_trialSuccesses = 0;
    QList<bool> m_window; ///< recent outcomes, true = failure
};

} // namespace RetryLab::Core
