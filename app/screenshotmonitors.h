#pragma once

#include "core/monitor/monitor.h"
#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QUrl>

namespace RetryLab::App {

/// The monitors the screenshots show, named like real endpoints, and three
/// days of a history for them, made up: outages, stretches where retries hid
/// failures, a maintenance window, latencies with a daily rhythm and jitter.
/// The same seed gives the same history (relative to the time it ends at), so
/// the pictures come out the same every time. The monitors themselves run
/// against the embedded fault server and go on writing that history live.
namespace ScreenshotMonitors {

/// How often every one of them is checked, in the history and live.
inline constexpr qint64 intervalMs = 30'000;
/// How far back the history goes.
inline constexpr qint64 historyMs = 3LL * 24 * 3600 * 1000;

/// The monitor with the most to show: incidents seen and hidden, a maintenance
/// window, changes of state and an objective.
QString featuredMonitor();
/// The monitor whose outage the incidents picture shows acknowledged.
QString acknowledgedMonitor();

/// The monitors against the embedded server at `server`, for a history that
/// ends at `nowMs` (UTC epoch ms): the featured one's maintenance window lies
/// where the history has it.
Core::Result<QList<Core::Monitor>> monitors(const QUrl &server, qint64 nowMs);

/// Writes the checks (with their attempts) and state changes of
/// [nowMs - historyMs, nowMs) to the SQLite file `database` (created when
/// missing), through Core::HistoryStore, and closes it again. The problem, or
/// an empty string.
QString writeHistory(const QString &database, qint64 nowMs, quint64 seed = 29);

} // namespace ScreenshotMonitors

} // namespace RetryLab::App
