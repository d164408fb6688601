#pragma once

#include "core/history/historyfigures.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/classifier.h"

#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// A recorded attempt, as a what-if borrows its outcome.
struct ReplayAttempt
{
    qint64 startMs = 0;
    double totalMs = 0.0;
    bool success = false;
    std::optional<int> status;
    QString cause; ///< the stored classification word: "http-503", "connection-reset", "condition"
    QString reason;
};

/// Replays recorded checks under another policy (the method is
/// HistoryQuery::whatIf's). Each recorded check time t starts a counterfactual
/// check; its attempt k, at t_k, takes the outcome and the duration of the
/// recorded attempt nearest t_k. A failure is retried as the policy's
/// classifier decides, after the policy's backoff (scaled by its fault and
/// status factors; one immediate retry where the classifier asks for it, as the
/// executor does), until a success, maxAttempts, or the deadline; an attempt
/// longer than the policy's attempt timeout is a timeout at that length. Retry
/// budgets, circuit breakers and Retry-After are not replayed (the history keeps
/// no response headers). Seeded: the same inputs give the same figures.
class WhatIfSimulator final
{
public:
    WhatIfSimulator(const BackoffPolicy &policy, quint64 seed);

    /// The gap used when none is set: twice the median interval between the
    /// sorted check starts, at least 60 s.
    static qint64 defaultGapMs(const QList<qint64> &sortedCheckStartsMs);
    /// How long after its start a check under `policy` may still send an
    /// attempt: how much recorded history past a window the replay may borrow from.
    static qint64 reachMs(const BackoffPolicy &policy);
    /// A recorded attempt's status and cause as the classifier's input, for GET:
    /// a network cause becomes the matching QNetworkReply error, a timeout a cut
    /// by the attempt timeout, a failed condition an HTTP 503 (retried as a 5xx is).
    static AttemptObservation observationOf(std::optional<int> status, const QString &cause);

    /// `checkStartsMs` and `recorded` in any order. Checks with an attempt
    /// farther than `gapMs` from every recorded attempt are unknown.
    WhatIf run(QList<qint64> checkStartsMs, QList<ReplayAttempt> recorded, qint64 gapMs);

private:
    const Classification &classificationOf(const ReplayAttempt &attempt, bool timedOut);
    qsizetype nearest(const QList<ReplayAttempt> &recorded, qint64 atMs) const;

    BackoffPolicy m_policy;
    quint64 m_seed;
    QHash<QString, Classification> m_classifications;
};

} // namespace RetryLab::Core
