#include "core/history/incidentfinder.h"

#include <algorithm>
#include <utility>

namespace RetryLab::Core {

IncidentCheck incidentCheckOf(const StoredCheck &check)
{
    IncidentCheck c;
    c.startMs = check.startMs;
    c.endMs = check.endMs;
    c.success = check.success;
    c.attempts = static_cast<int>(check.attempts.size());
    c.reason = check.reason;
    bool first = true;
    for (const StoredAttempt &a : check.attempts) {
        if (a.success)
            continue;
        ++c.failedAttempts;
        if (first) {
            c.firstFailedAttemptStartMs = a.startMs;
            c.firstFailedReason = a.reason;
            first = false;
        }
        c.lastFailedReason = a.reason;
    }
    return c;
}

void IncidentTotals::add(const Incident &incident, qint64 spanStartMs, qint64 spanEndMs)
{
    if (incident.hidden) {
        ++hidden;
        return;
    }
    ++seen;
    const qint64 end = incident.endMs.value_or(spanEndMs);
    seenDownMs += std::max<qint64>(0, std::min(end, spanEndMs) - std::max(incident.startMs, spanStartMs));
    if (incident.endMs) {
        ++seenEnded;
        seenEndedMs += incident.durationMs;
    }
}

IncidentTotals &IncidentTotals::operator+=(const IncidentTotals &other)
{
    seen += other.seen;
    hidden += other.hidden;
    seenDownMs += other.seenDownMs;
    seenEnded += other.seenEnded;
    seenEndedMs += other.seenEndedMs;
    return *this;
}

std::optional<double> IncidentTotals::mtbfMs(qint64 spanStartMs, qint64 spanEndMs) const
{
    if (seen == 0)
        return std::nullopt;
    return static_cast<double>(std::max<qint64>(0, spanEndMs - spanStartMs - seenDownMs)) / static_cast<double>(seen);
}

std::optional<double> IncidentTotals::mttrMs() const
{
    if (seenEnded == 0)
        return std::nullopt;
    return static_cast<double>(seenEndedMs) / static_cast<double>(seenEnded);
}

void IncidentFinder::add(const IncidentCheck &check)
{
    if (!check.success) {
        closeHidden();
        if (!m_failing) {
            Incident incident;
            incident.monitor = m_monitor;
            incident.agent = m_agent;
            incident.startMs = check.startMs;
            incident.firstCheckMs = check.startMs;
            incident.firstError = check.reason;
            m_failing = incident;
        }
        m_failing->lastError = check.reason;
        m_failing->checks += 1;
        m_failing->attempts += check.attempts;
        m_failing->failedAttempts += check.failedAttempts;
        m_failingLastEndMs = std::max(m_failingLastEndMs, check.endMs);
        return;
    }
    closeFailing(check.startMs);
    if (check.failedAttempts <= 0) {
        closeHidden();
        return;
    }
    if (!m_hidden) {
        Incident incident;
        incident.monitor = m_monitor;
        incident.agent = m_agent;
        incident.startMs = check.firstFailedAttemptStartMs;
        incident.firstCheckMs = check.startMs;
        incident.firstError = check.firstFailedReason;
        incident.hidden = true;
        m_hidden = incident;
    }
    m_hidden->lastError = check.lastFailedReason;
    m_hidden->checks += 1;
    m_hidden->attempts += check.attempts;
    m_hidden->failedAttempts += check.failedAttempts;
    m_hidden->endMs = std::max(m_hidden->endMs.value_or(check.endMs), check.endMs);
}

void IncidentFinder::closeFailing(std::optional<qint64> endMs)
{
    if (!m_failing)
        return;
    m_failing->endMs = endMs;
    m_failing->durationMs = (endMs ? *endMs : m_failingLastEndMs) - m_failing->startMs;
    m_incidents.append(*m_failing);
    m_failing.reset();
    m_failingLastEndMs = 0;
}

void IncidentFinder::closeHidden()
{
    if (!m_hidden)
        return;
    m_hidden->durationMs = *m_hidden->endMs - m_hidden->startMs;
    m_incidents.append(*m_hidden);
    m_hidden.reset();
}

QList<Incident> IncidentFinder::takeEnded()
{
    return std::exchange(m_incidents, {});
}

QList<Incident> IncidentFinder::finish()
{
    closeFailing(std::nullopt);
    closeHidden();
    QList<Incident> incidents = std::move(m_incidents);
    m_incidents.clear();
    std::stable_sort(
        incidents.begin(), incidents.end(), [](const Incident &a, const Incident &b) { return a.startMs < b.startMs; });
    return incidents;
}

std::optional<double> IncidentFinder::mtbfMs(const QList<Incident> &incidents, qint64 spanStartMs, qint64 spanEndMs)
{
    IncidentTotals totals;
    for (const Incident &incident : incidents)
        totals.add(incident, spanStartMs, spanEndMs);
    return totals.mtbfMs(spanStartMs, spanEndMs);
}

std::optional<double> IncidentFinder::mttrMs(const QList<Incident> &incidents)
{
    IncidentTotals totals;
    for (const Incident &incident : incidents)
        totals.add(incident, 0, 0);
    return totals.mttrMs();
}

} // namespace RetryLab::Core
