#include "core/history/incidentfinder.h"

#include <algorithm>
#include <utility>

namespace RetryLab::Core {

void IncidentFinder::add(const IncidentCheck &check)
{
    if (!check.success) {
        closeHidden();
        if (!m_failing) {
            Incident incident;
            incident.monitor = m_monitor;
            incident.agent = m_agent;
            incident.startMs = check.startMs;
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
    qint64 seen = 0;
    qint64 downMs = 0;
    for (const Incident &incident : incidents) {
        if (incident.hidden)
            continue;
        ++seen;
        const qint64 end = incident.endMs.value_or(spanEndMs);
        downMs += std::max<qint64>(0, std::min(end, spanEndMs) - std::max(incident.startMs, spanStartMs));
    }
    if (seen == 0)
        return std::nullopt;
    return static_cast<double>(std::max<qint64>(0, spanEndMs - spanStartMs - downMs)) / static_cast<double>(seen);
}

std::optional<double> IncidentFinder::mttrMs(const QList<Incident> &incidents)
{
    qint64 ended = 0;
    qint64 totalMs = 0;
    for (const Incident &incident : incidents) {
        if (incident.hidden || !incident.endMs)
            continue;
        ++ended;
        totalMs += incident.durationMs;
    }
    if (ended == 0)
        return std::nullopt;
    return static_cast<double>(totalMs) / static_cast<double>(ended);
}

} // namespace RetryLab::Core
