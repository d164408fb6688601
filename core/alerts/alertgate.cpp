#include "core/alerts/alertgate.h"

#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <algorithm>

namespace RetryLab::Core {

namespace {

// Keys are dropped once they can no longer hold anything back, but only now and
// then: a handful of monitors make a handful of keys.
constexpr qsizetype gateKeysBeforeSweep = 256;

} // namespace

AlertGate::Decision AlertGate::admit(const AlertTarget &target, const AlertEvent &event, qint64 nowMs)
{
    TargetState &state = m_states[target.name];
    const QString key = event.dedupeKey();
    if (target.minIntervalMs > 0) {
        const auto last = state.lastSentMs.constFind(key);
        if (last != state.lastSentMs.constEnd() && nowMs - *last < target.minIntervalMs) {
            return {Verdict::Duplicate,
                Tr::tr("the same alert went to \"%1\" %2 ago (at most one in %3)")
                    .arg(target.name, DurationText::format(double(nowMs - *last)),
                        DurationText::format(double(target.minIntervalMs)))};
        }
    }
    if (!state.windowOpen || nowMs - state.windowStartMs >= AlertTarget::rateWindowMs) {
        state.windowOpen = true;
        state.windowStartMs = nowMs;
        state.sentInWindow = 0;
    }
    if (state.sentInWindow >= target.maxPerMinute) {
        if (state.suppressed == 0) {
            state.summaryDueMs = state.windowStartMs + AlertTarget::rateWindowMs;
            state.suppressedSinceMs = event.atMs;
        }
        ++state.suppressed;
        if (!event.monitor.isEmpty() && !state.suppressedMonitors.contains(event.monitor))
            state.suppressedMonitors.append(event.monitor);
        return {Verdict::RateLimited,
            Tr::tr("\"%1\" takes at most %n alert(s) a minute", nullptr, target.maxPerMinute).arg(target.name)};
    }
    ++state.sentInWindow;
    state.lastSentMs.insert(key, nowMs);
    if (state.lastSentMs.size() > gateKeysBeforeSweep)
        forgetOldKeys(state, target.minIntervalMs, nowMs);
    return {};
}

QList<AlertGate::Summary> AlertGate::dueSummaries(qint64 nowMs, qint64 wallMs)
{
    QList<Summary> due;
    for (auto it = m_states.begin(); it != m_states.end(); ++it) {
        TargetState &state = it.value();
        if (state.suppressed == 0 || nowMs < state.summaryDueMs)
            continue;
        AlertEvent summary;
        summary.kind = AlertEvent::Kind::Suppressed;
        summary.atMs = wallMs;
        summary.suppressedCount = state.suppressed;
        summary.suppressedSinceMs = state.suppressedSinceMs;
        summary.suppressedMonitors = state.suppressedMonitors;
        summary.suppressedMonitors.sort();
        summary.reason
            = Tr::tr("%n alert(s) to \"%1\" were held back by its rate limit", nullptr, state.suppressed).arg(it.key());
        if (!summary.suppressedMonitors.isEmpty()) {
            summary.reason += QLatin1String(" (")
                + Tr::tr("monitors: %1").arg(summary.suppressedMonitors.join(QStringLiteral(", "))) + QLatin1Char(')');
        }
        due.append({it.key(), summary});
        state.suppressed = 0;
        state.suppressedMonitors.clear();
    }
    std::sort(due.begin(), due.end(), [](const Summary &a, const Summary &b) { return a.target < b.target; });
    return due;
}

std::optional<qint64> AlertGate::nextSummaryDueMs() const
{
    std::optional<qint64> next;
    for (const TargetState &state : m_states) {
        if (state.suppressed > 0 && (!next || state.summaryDueMs < *next))
            next = state.summaryDueMs;
    }
    return next;
}

int AlertGate::pendingSuppressed(const QString &target) const
{
    const auto it = m_states.constFind(target);
    return it == m_states.constEnd() ? 0 : it->suppressed;
}

void AlertGate::retain(const QStringList &names)
{
    for (auto it = m_states.begin(); it != m_states.end();) {
        if (names.contains(it.key()))
            ++it;
        else
            it = m_states.erase(it);
    }
}

void AlertGate::forgetOldKeys(TargetState &state, qint64 minIntervalMs, qint64 nowMs)
{
    for (auto it = state.lastSentMs.begin(); it != state.lastSentMs.end();) {
        if (nowMs - it.value() >= minIntervalMs)
            it = state.lastSentMs.erase(it);
        else
            ++it;
    }
}

} // namespace RetryLab::Core
