#pragma once

#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "core/history/storedcheck.h"

#include <QDebug>
#include <QList>
#include <QString>

#include <memory>

namespace RetryLab::Testing {

/// Builds the checks the history suites store: one attempt per outcome given,
/// `spacingMs` apart, each `attemptMs` long; the check ends with its last attempt.
/// A failed attempt is an HTTP 503, a successful one an HTTP 200.
inline Core::StoredCheck checkOf(const QString &monitor, const QString &agent, qint64 startMs,
    const QList<bool> &attemptOutcomes, double attemptMs = 20.0, qint64 spacingMs = 1000)
{
    Core::StoredCheck check;
    check.monitor = monitor;
    check.agent = agent;
    check.startMs = startMs;
    qint64 at = startMs;
    for (int i = 0; i < attemptOutcomes.size(); ++i) {
        Core::StoredAttempt attempt;
        attempt.index = i;
        attempt.startMs = at;
        attempt.success = attemptOutcomes.at(i);
        attempt.status = attempt.success ? 200 : 503;
        attempt.cause = attempt.success ? QStringLiteral("http-200") : QStringLiteral("http-503");
        attempt.reason = attempt.success ? QStringLiteral("HTTP 200: success")
                                         : QStringLiteral("HTTP 503: server error; transient, retry after a delay");
        const bool last = i + 1 == attemptOutcomes.size();
        attempt.decision = attempt.success ? QStringLiteral("success")
                                           : (last ? QStringLiteral("give-up") : QStringLiteral("retry"));
        attempt.delayBeforeMs = i == 0 ? 0.0 : static_cast<double>(spacingMs) - attemptMs;
        attempt.totalMs = attemptMs;
        attempt.firstByteMs = attemptMs - 1.0;
        attempt.bytes = 120;
        check.attempts.append(attempt);
        check.endMs = at + static_cast<qint64>(attemptMs);
        at += spacingMs;
    }
    check.success = !attemptOutcomes.isEmpty() && attemptOutcomes.constLast();
    check.outcome = check.success ? QStringLiteral("succeeded") : QStringLiteral("attempts-exhausted");
    check.finalStatus = check.attempts.isEmpty() ? std::nullopt : check.attempts.constLast().status;
    check.reason = check.success || check.attempts.isEmpty() ? QString() : check.attempts.constLast().reason;
    return check;
}

/// Writes `checks` to the history at `file` in one flush, as agent "writer".
inline bool writeHistory(const QString &file, const QList<Core::StoredCheck> &checks)
{
    auto store = Core::HistoryStore::open(file, QStringLiteral("writer"));
    if (!store) {
        qWarning() << store.error();
        return false;
    }
    for (const Core::StoredCheck &check : checks)
        (*store)->append(check);
    return (*store)->flush();
}

/// A reader of the history at `file` (or URL); null, with the reason logged, when it cannot be opened.
inline std::unique_ptr<Core::HistoryQuery> openHistoryQuery(const QString &file)
{
    auto query = Core::HistoryQuery::open(file);
    if (!query) {
        qWarning() << query.error();
        return {};
    }
    return std::move(query).value();
}

} // namespace RetryLab::Testing
