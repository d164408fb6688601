#pragma once

#include "core/policy/classifier.h"

#include <QHash>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The hosts whose rate limit is spent, and until when: after an answer whose
/// rate-limit fields say none of the quota is left and when it comes back
/// (Classification::rateLimitExhausted), the executor holds back new attempts
/// to that host until the reset instead of sending them into certain 429s
/// (ClassificationRules::honourRateLimitReset). Times are the executor's
/// monotonic nanoseconds.
class RateLimitHold final
{
public:
    struct Hold
    {
        qint64 untilNs = 0;
        /// Why, for the record of the attempt held back: the host and what its fields said.
        QString reason;
    };

    /// Notes what the answer of an attempt to `host` said at `nowNs`; the hold
    /// lasts until the reset, at most `maxWaitMs` (the policy's bound on
    /// Retry-After), and a later reset never shortens a hold already there.
    void note(const QString &host, const Classification &classification, double maxWaitMs, qint64 nowNs);
    /// The hold on `host` still running at `nowNs`, if any; one that ran out is forgotten.
    std::optional<Hold> holdOn(const QString &host, qint64 nowNs);
    bool isEmpty() const { return m_holds.isEmpty(); }

private:
    QHash<QString, Hold> m_holds;
};

} // namespace RetryLab::Core
