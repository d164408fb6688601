#pragma once

#include "core/alerts/alertevent.h"
#include "core/alerts/alerttarget.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// Whether an alert goes out to a target: the deduplication and the rate limit
/// of AlertDispatcher, as a plain class over times the caller passes in (the
/// dispatcher's injected clock), so that both are tested without waiting.
///
/// Deduplication: an alert with the dedupe key of one that went to the target
/// less than the target's minIntervalMs ago is held back. Rate limit: the
/// target takes at most maxPerMinute alerts in each minute counted from the
/// first alert of that minute; the rest are held back and counted, and once
/// the minute is over dueSummaries() gives one "N alerts suppressed" event for
/// them. Held-back duplicates are expected repeats and make no summary.
class AlertGate final
{
public:
    enum class Verdict {
        Send,
        Duplicate, ///< the same alert went to the target within its minIntervalMs
        RateLimited, ///< the target had its maxPerMinute alerts this minute
    };
    struct Decision
    {
        Verdict verdict = Verdict::Send;
        QString why; ///< for people; empty for Send
    };
    /// A summary that came due: which target, and the Suppressed event.
    struct Summary
    {
        QString target;
        AlertEvent event;
    };

    /// Decides for one alert at `nowMs` (monotonic milliseconds) and counts it.
    Decision admit(const AlertTarget &target, const AlertEvent &event, qint64 nowMs);
    /// The summaries whose minute has passed at `nowMs`, each once; `wallMs`
    /// (UTC) becomes their time.
    QList<Summary> dueSummaries(qint64 nowMs, qint64 wallMs);
    /// When the next summary comes due (monotonic milliseconds), if one waits.
    std::optional<qint64> nextSummaryDueMs() const;
    /// Alerts held back for the summary not given yet.
    int pendingSuppressed(const QString &target) const;

    /// Forgets the targets not in `names` (their summaries too).
    void retain(const QStringList &names);

private:
    struct TargetState
    {
        QHash<QString, qint64> lastSentMs; ///< dedupe key -> when it last went out
        qint64 windowStartMs = 0;
        bool windowOpen = false;
        int sentInWindow = 0;
        // The summary of the alerts held back: due once the minute they fell in is over.
        int suppressed = 0;
        qint64 summaryDueMs = 0;
        qint64 suppressedSinceMs = 0; ///< UTC wall time of the first one held back
        QStringList suppressedMonitors;
    };

    static void forgetOldKeys(TargetState &state, qint64 minIntervalMs, qint64 nowMs);

    QHash<QString, TargetState> m_states;
};

} // namespace RetryLab::Core
