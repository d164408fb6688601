#pragma once

#include "core/grouping/observedattempt.h"
#include "core/record/attemptrecord.h"

#include <QHash>
#include <QString>
#include <QUrl>

#include <optional>

namespace RetryLab::Ui {

class RunSession;

/// Observed attempts as lanes of a RunSession: one lane per logical request,
/// one row per attempt, so that what other clients did is drawn by the same
/// timeline, error log and statistics as the executor's own runs. Fed by an
/// observer's attemptStarted / attemptFinished / logicalRequestClosed, on the
/// session's thread. Used by the Clients tab (the embedded server) and the
/// Proxy tab (the fault proxies).
class ObservedLanes
{
public:
    explicit ObservedLanes(RunSession *session) : m_session(session) { }

    /// Where the attempts' targets go ("http://127.0.0.1:PORT"); they are shown resolved against it.
    void setBaseUrl(const QUrl &url) { m_baseUrl = url; }
    /// Says what answered in each row's reason: "served" (the server) or another word ("through the proxy").
    void setAnsweredBy(const QString &words) { m_answeredBy = words; }
    /// Lanes kept open at most (twice this): logical requests the observer dropped never close.
    void setMaxLogicalRequests(int count) { m_maxLogicalRequests = count; }

    void started(const Core::ObservedAttempt &attempt);
    void finished(const Core::ObservedAttempt &attempt);
    void closed(quint64 logicalId);
    /// Forgets the open lanes (the session is cleared by its owner).
    void clear() { m_lanes.clear(); }

private:
    QUrl urlOf(const QString &target) const;

    RunSession *m_session;
    QUrl m_baseUrl;
    QString m_answeredBy;
    int m_maxLogicalRequests = 20'000;
    /// Per logical request: its first attempt's start, for the result when it
    /// closes, and its last answered attempt, kept back until it is known whether
    /// the client retried it (the next attempt arrives) or not (it closes): the
    /// lanes colour an attempt "retried" or "final failure" by that.
    struct LaneState
    {
        int attempts = 0;
        qint64 firstStartNs = -1;
        qint64 lastEndNs = -1;
        std::optional<int> lastStatus;
        bool succeeded = false;
        std::optional<Core::AttemptRecord> pending;
    };
    QHash<quint64, LaneState> m_lanes;
};

} // namespace RetryLab::Ui
