#pragma once

#include <QString>

namespace RetryLab::Core {

/// When a monitor's checks are due. Each monitor has a place in its interval,
/// its phase, taken from its name: a thousand monitors with a 10 s interval
/// spread over the ten seconds instead of all firing at second 0, and a
/// monitor keeps its place across restarts and agents. Due times lie on the
/// grid phase + k * interval, counted from the Unix epoch.
namespace MonitorSchedule {

/// In [0, intervalMs): a hash of the name's UTF-8 (FNV-1a, then mixed), scaled to the interval.
qint64 phaseMs(const QString &name, qint64 intervalMs);
/// The first grid time at or after `nowMs`.
qint64 nextDueMs(qint64 nowMs, qint64 intervalMs, qint64 phaseMs);
/// The seed of a monitor's jitter, from its name (the same hash, unscaled).
quint64 seedOf(const QString &name);

} // namespace MonitorSchedule

} // namespace RetryLab::Core
