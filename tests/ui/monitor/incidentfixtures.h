#pragma once

#include "core/history/historyfigures.h"

#include <QList>

namespace RetryLab::Fixtures {

// Three incidents of two monitors, in this order:
//   0: "api" on a1, seen, 10:00 for 5 min, "HTTP 503" then "connection refused"
//   1: "api" on a2, hidden, 09:00 for 2 min, "timeout, after 5 s" (a comma) then `said "no"` (quotes)
//   2: "billing" on a1, seen and still going since 11:00, "=cmd|' /C calc'!A0" (a formula) then a line break
inline QList<Core::Incident> threeIncidents(qint64 dayStartMs)
{
    constexpr qint64 minuteMs = 60'000;
    Core::Incident seen;
    seen.monitor = QStringLiteral("api");
    seen.agent = QStringLiteral("a1");
    seen.startMs = dayStartMs + 600 * minuteMs;
    seen.endMs = seen.startMs + 5 * minuteMs;
    seen.durationMs = 5 * minuteMs;
    seen.firstError = QStringLiteral("HTTP 503");
    seen.lastError = QStringLiteral("connection refused");
    seen.checks = 30;
    seen.attempts = 90;
    seen.failedAttempts = 90;
    Core::Incident hidden;
    hidden.monitor = QStringLiteral("api");
    hidden.agent = QStringLiteral("a2");
    hidden.startMs = dayStartMs + 540 * minuteMs;
    hidden.endMs = hidden.startMs + 2 * minuteMs;
    hidden.durationMs = 2 * minuteMs;
    hidden.firstError = QStringLiteral("timeout, after 5 s");
    hidden.lastError = QStringLiteral("said \"no\"");
    hidden.checks = 12;
    hidden.attempts = 20;
    hidden.failedAttempts = 8;
    hidden.hidden = true;
    Core::Incident ongoing;
    ongoing.monitor = QStringLiteral("billing");
    ongoing.agent = QStringLiteral("a1");
    ongoing.startMs = dayStartMs + 660 * minuteMs;
    ongoing.durationMs = 3 * minuteMs;
    ongoing.firstError = QStringLiteral("=cmd|' /C calc'!A0");
    ongoing.lastError = QStringLiteral("line one\nline two");
    ongoing.checks = 18;
    ongoing.attempts = 54;
    ongoing.failedAttempts = 54;
    return {seen, hidden, ongoing};
}

} // namespace RetryLab::Fixtures
