#include "ui/session/run/checkedrequests.h"

namespace RetryLab::Ui {

void CheckedRequests::setChecks(quint64 requestId, const RequestChecks &checks)
{
    if (checks.isEmpty())
        return;
    m_checks.insert(requestId, checks);
}

const RequestChecks *CheckedRequests::checks(quint64 requestId) const
{
    const auto it = m_checks.constFind(requestId);
    return it == m_checks.cend() ? nullptr : &it.value();
}

void CheckedRequests::noteAttempt(const Core::AttemptRecord &record)
{
    if (!m_checks.contains(record.requestId) || m_verdicts.contains(record.requestId))
        return;
    // Attempts of one request arrive in order; a later one replaces the one before.
    auto it = m_lastAttempts.find(record.requestId);
    if (it == m_lastAttempts.end() || it->attemptIndex <= record.attemptIndex)
        m_lastAttempts.insert(record.requestId, record);
}

std::optional<ChecksVerdict> CheckedRequests::finish(const Core::RequestResult &result)
{
    const auto checks = m_checks.constFind(result.requestId);
    if (checks == m_checks.cend() || m_verdicts.contains(result.requestId))
        return std::nullopt;
    const auto last = m_lastAttempts.constFind(result.requestId);
    ChecksVerdict verdict
        = last == m_lastAttempts.cend() ? RequestChecks::notChecked(result.reason) : checks->evaluate(last.value());
    m_lastAttempts.remove(result.requestId);
    m_verdicts.insert(result.requestId, verdict);
    return verdict;
}

const ChecksVerdict *CheckedRequests::verdict(quint64 requestId) const
{
    const auto it = m_verdicts.constFind(requestId);
    return it == m_verdicts.cend() ? nullptr : &it.value();
}

void CheckedRequests::clear()
{
    m_checks.clear();
    m_lastAttempts.clear();
    m_verdicts.clear();
}

} // namespace RetryLab::Ui
