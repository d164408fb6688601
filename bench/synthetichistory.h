#pragma once

// The synthetic monitor history the benchmarks write: a check every interval,
// a fifth of them answered 503 once and retried, one in a thousand failing for
// good, and a 10-minute outage a day, placed by a generator seeded from the
// monitor's name (the same history for the same name).

#include "core/history/historystore.h"
#include "core/monitor/monitorschedule.h"
#include "core/util/randomsource.h"

#include <QString>

namespace RetryLab::Bench {

inline Core::StoredAttempt syntheticAttempt(int index, qint64 startMs, bool success, double totalMs)
{
    Core::StoredAttempt a;
    a.index = index;
    a.startMs = startMs;
    a.success = success;
    a.status = success ? 200 : 503;
    a.cause = success ? QStringLiteral("http-200") : QStringLiteral("http-503");
    a.reason = success ? QString() : QStringLiteral("HTTP 503: server error; transient, retry after a delay");
    a.decision = success ? QStringLiteral("success") : QStringLiteral("retry-after-delay");
    a.delayBeforeMs = index == 0 ? 0.0 : 120.0;
    a.connectMs = index == 0 ? 0.4 : -1.0;
    a.firstByteMs = totalMs * 0.8;
    a.totalMs = totalMs;
    a.bytes = success ? 16 : 48;
    return a;
}

struct SyntheticCounts
{
    qint64 checks = 0;
    qint64 attempts = 0;
};

/// Appends `name`'s checks of [startMs, endMs) to `store`, flushing every
/// 20,000 checks; false (with the store's warning) when a flush failed.
inline bool writeSyntheticMonitor(Core::HistoryStore &store, const QString &name, qint64 startMs, qint64 endMs,
    qint64 intervalMs, SyntheticCounts &counts)
{
    constexpr qint64 dayMs = 86'400'000;
    Core::RandomSource random(Core::MonitorSchedule::seedOf(name));
    const qint64 phase = Core::MonitorSchedule::phaseMs(name, intervalMs);
    const qint64 outageOfDay = random.uniformInt(0, dayMs - 600'000);
    for (qint64 t = startMs + phase; t < endMs; t += intervalMs) {
        Core::StoredCheck check;
        check.monitor = name;
        check.startMs = t;
        const qint64 ofDay = (t - startMs) % dayMs;
        const bool outage = ofDay >= outageOfDay && ofDay < outageOfDay + 600'000;
        const double draw = random.uniform(0.0, 1.0);
        qint64 at = t;
        if (outage || draw < 0.001) {
            for (int i = 0; i < 3; ++i) {
                check.attempts.append(syntheticAttempt(i, at, false, 20.0));
                at += 140;
            }
            check.success = false;
            check.outcome = QStringLiteral("attempts-exhausted");
            check.finalStatus = 503;
            check.reason = QStringLiteral("gave up after 3 attempts: HTTP 503");
        } else if (draw < 0.2) {
            check.attempts.append(syntheticAttempt(0, at, false, 18.0));
            check.attempts.append(syntheticAttempt(1, at + 138, true, 22.0));
            at += 160;
            check.success = true;
        } else {
            check.attempts.append(syntheticAttempt(0, at, true, 21.0));
            at += 21;
            check.success = true;
        }
        if (check.success) {
            check.outcome = QStringLiteral("succeeded");
            check.finalStatus = 200;
        }
        check.endMs = at;
        counts.attempts += check.attempts.size();
        ++counts.checks;
        store.append(check);
        if (counts.checks % 20'000 == 0 && !store.flush())
            return false;
    }
    return true;
}

} // namespace RetryLab::Bench
