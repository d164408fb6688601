#include "core/policy/circuitbreaker.h"

#include "core/util/clock.h"

#include <algorithm>

namespace RetryLab::Core {

CircuitBreaker::CircuitBreaker(CircuitBreakerSettings settings, const Clock &clock)
    : m_settings(std::move(settings)), m_clock(&clock)
{ }

QString CircuitBreaker::stateName(State state)
{
    switch (state) {
    case State::Closed:
        return QStringLiteral("closed");
    case State::Open:
        return QStringLiteral("open");
    case State::HalfOpen:
        return QStringLiteral("half-open");
    }
    return {};
}

void CircuitBreaker::refreshState() const
{
    if (m_state == State::Open && remainingOpenMs() <= 0.0)
        m_state = State::HalfOpen;
}

CircuitBreaker::State CircuitBreaker::state() const
{
    if (!m_settings.enabled)
        return State::Closed;
    refreshState();
    return m_state;
}

double CircuitBreaker::remainingOpenMs() const
{
    if (m_state != State::Open)
        return 0.0;
    const double elapsedMs = (m_clock->nowNs() - m_openedAtNs) / 1e6;
    return std::max(0.0, m_settings.openMs - elapsedMs);
}

double CircuitBreaker::failureRatio() const
{
    if (m_window.isEmpty())
        return 0.0;
    const auto failures = std::count(m_window.cbegin(), m_window.cend(), true);
    return static_cast<double>(failures) / static_cast<double>(m_window.size());
}

bool CircuitBreaker::tryAcquire()
{
    if (!m_settings.enabled)
        return true;
    refreshState();
    switch (m_state) {
    case State::Closed:
        return true;
    case State::Open:
        return false;
    case State::HalfOpen:
        if (m_trialsInFlight + m_trialSuccesses >= m_settings.halfOpenTrials)
            return false;
        ++m_trialsInFlight;
        return true;
    }
    return false;
}

void CircuitBreaker::release()
{
    if (m_state == State::HalfOpen && m_trialsInFlight > 0)
        --m_trialsInFlight;
}

void CircuitBreaker::recordSuccess(bool trial)
{
    if (!m_settings.enabled)
        return;
    refreshState();
    if (m_state == State::Open || (m_state == State::HalfOpen && !trial))
        return;
    m_consecutiveFailures = 0;
    if (m_state == State::HalfOpen) {
        m_trialsInFlight = std::max(0, m_trialsInFlight - 1);
        // Every trial must succeed before the breaker closes again.
        if (++m_trialSuccesses >= m_settings.halfOpenTrials)
            close();
        return;
    }
    pushOutcome(false);
}

void CircuitBreaker::recordFailure(bool trial)
{
    if (!m_settings.enabled)
        return;
    refreshState();
    if (m_state == State::HalfOpen && !trial)
        return;
    if (m_state == State::HalfOpen) {
        // A failed trial sends the breaker straight back to open.
        open();
        return;
    }
    if (m_state == State::Open)
        return;
    ++m_consecutiveFailures;
    pushOutcome(true);
    const bool consecutiveTrip
        = m_settings.consecutiveFailures > 0 && m_consecutiveFailures >= m_settings.consecutiveFailures;
    const bool ratioTrip = m_settings.failureRatio > 0.0 && m_window.size() >= m_settings.window
        && failureRatio() >= m_settings.failureRatio;
    if (consecutiveTrip || ratioTrip)
        open();
}

void CircuitBreaker::pushOutcome(bool failure)
{
    m_window.append(failure);
    while (m_window.size() > std::max(1, m_settings.window))
        m_window.removeFirst();
}

void CircuitBreaker::open()
{
    m_state = State::Open;
    m_openedAtNs = m_clock->nowNs();
    m_trialsInFlight = 0;
    m_trialSuccesses = 0;
}

void CircuitBreaker::close()
{
    m_state = State::Closed;
    m_consecutiveFailures = 0;
    m_trialsInFlight = 0;
    m_trialSuccesses = 0;
    m_window.clear();
}

} // namespace RetryLab::Core
