#pragma once

#include <QtGlobal>
#include <QVariant>

namespace RetryLab::Core {

/// How the history stores values in its rows. An attempt's times are integer
/// hundredths of a millisecond (10 µs), which take two bytes up to 327 ms and
/// three up to 83 s; a phase Qt did not report (-1) is stored as NULL. The
/// `flags` of checks and attempts hold the bits below.
namespace HistoryEncoding {

inline constexpr int successFlag = 1;
inline constexpr int maintenanceFlag = 2;

/// The bits of a check or an attempt.
inline int flags(bool success, bool maintenance)
{
    return (success ? successFlag : 0) | (maintenance ? maintenanceFlag : 0);
}

inline constexpr double perMs = 100.0;

inline constexpr qint64 minuteMs = 60LL * 1000;
inline constexpr qint64 hourMs = 60 * minuteMs;

/// The start of the bucket of `step` milliseconds that holds `value` (also before 1970).
inline qint64 floorTo(qint64 value, qint64 step)
{
    return value - ((value % step) + step) % step;
}

/// The first bucket start at or after `value`.
inline qint64 ceilTo(qint64 value, qint64 step)
{
    const qint64 floored = floorTo(value, step);
    return floored == value ? value : floored + step;
}

/// A duration that is always there (total, queued, the delay before).
inline QVariant amount(double ms)
{
    return qRound64(ms * perMs);
}

/// A phase that may be missing: negative values are "not reported".
inline QVariant phase(double ms)
{
    return ms < 0.0 ? QVariant() : QVariant(qRound64(ms * perMs));
}

inline double fromAmount(const QVariant &stored)
{
    return stored.isNull() ? 0.0 : static_cast<double>(stored.toLongLong()) / perMs;
}

inline double fromPhase(const QVariant &stored)
{
    return stored.isNull() ? -1.0 : static_cast<double>(stored.toLongLong()) / perMs;
}

} // namespace HistoryEncoding

} // namespace RetryLab::Core
