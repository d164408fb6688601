#pragma once

#include <QDateTime>
#include <QElapsedTimer>
#include <QtGlobal>

namespace RetryLab::Core {

/// CLOCK_MONOTONIC in nanoseconds (QElapsedTimer's clock on Linux): the clock of
/// timerfd deadlines, which a Clock's own origin cannot give.
qint64 monotonicNowNs();

/// Source of time for everything that schedules or measures. The monotonic part
/// drives delays and deadlines; the wall part only interprets HTTP dates.
/// Tests inject a ManualClock so that every run can be replayed exactly.
class Clock
{
public:
    virtual ~Clock() = default;

    /// Monotonic time in nanoseconds since an arbitrary, fixed origin.
    virtual qint64 nowNs() const = 0;
    /// Current UTC wall time (for Retry-After HTTP dates and report stamps).
    virtual QDateTime wallTime() const = 0;

    qint64 nowMs() const { return nowNs() / 1'000'000; }
};

/// The real clock: QElapsedTimer for monotonic time, the system clock for dates.
class SteadyClock final : public Clock
{
public:
    SteadyClock() { m_timer.start(); }

    qint64 nowNs() const override { return m_timer.nsecsElapsed(); }
    QDateTime wallTime() const override { return QDateTime::currentDateTimeUtc(); }

    /// A process-wide instance for code that is not handed a clock.
    static const SteadyClock &instance();

private:
    QElapsedTimer m_timer;
};

/// A clock that moves only when told to; used by tests and the herd simulator.
class ManualClock final : public Clock
{
public:
    explicit ManualClock(QDateTime wallOrigin = QDateTime(QDate(2025, 1, 1), QTime(0, 0), Qt::UTC))
        : m_wallOrigin(std::move(wallOrigin))
    { }

    qint64 nowNs() const override { return m_ns; }
    QDateTime wallTime() const override { return m_wallOrigin.addMSecs(m_ns / 1'000'000); }

    void advanceMs(qint64 ms) { m_ns += ms * 1'000'000; }
    void advanceNs(qint64 ns) { m_ns += ns; }
    void setNs(qint64 ns) { m_ns = ns; }

private:
    QDateTime m_wallOrigin;
    qint64 m_ns = 0;
};

} // namespace RetryLab::Core
