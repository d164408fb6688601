#pragma once

#include "core/record/attemptrecord.h"
#include "ui/session/run/requestchecks.h"

#include <QHash>

#include <optional>

namespace RetryLab::Ui {

/// The requests of a run that carry checks, and what the checks said: a side
/// table of RunSession keyed by request id, so that requests without checks (most
/// of them) cost nothing. It keeps the last attempt of each checked request whole,
/// body included, until the request ends, whatever the session's body budget.
class CheckedRequests final
{
public:
    void setChecks(quint64 requestId, const RequestChecks &checks);
    const RequestChecks *checks(quint64 requestId) const;

    /// Keeps the attempt when its request has checks.
    void noteAttempt(const Core::AttemptRecord &record);
    /// Checks the request that ended; its verdict, or nothing when it has no checks.
    std::optional<ChecksVerdict> finish(const Core::RequestResult &result);
    /// What the checks said, once the request ended; null before or without checks.
    const ChecksVerdict *verdict(quint64 requestId) const;

    bool isEmpty() const { return m_checks.isEmpty(); }
    void clear();

private:
    QHash<quint64, RequestChecks> m_checks;
    QHash<quint64, Core::AttemptRecord> m_lastAttempts;
    QHash<quint64, ChecksVerdict> m_verdicts;
};

} // namespace RetryLab::Ui
