#pragma once

#include "core/grouping/observedattempt.h"
#include "core/observe/observationplan.h"
#include "ui/session/run/observedlanes.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <optional>

namespace RetryLab::Core {
class Observer;
}

namespace RetryLab::Ui {

class EmbeddedServer;
class RunSession;

/// The window's watch on other clients: a Core::Observer on the embedded
/// server's thread (the request hook runs there), switched on and off by the
/// user, started again with the server, and a RunSession fed with what it sees,
/// so that observed logical requests are lanes on the timeline, rows of the
/// error log and figures of the statistics like the executor's own.
///
/// Settings go to the observer's thread queued; the snapshots (clients(),
/// logicalRequests()) are copied from it while the GUI thread waits, which is
/// a memcpy of what the observer holds (bounded by maxLogicalRequests()).
class Observation final : public QObject
{
    Q_OBJECT

public:
    explicit Observation(EmbeddedServer *server, QObject *parent = nullptr);
    ~Observation() override;

    /// Observing changes what the server answers to paths that are not its
    /// endpoints (the plan's steps instead of 404), so it is off until asked for.
    void setEnabled(bool enabled);
    bool isEnabled() const { return m_enabled; }
    /// True while enabled and the server runs.
    bool isActive() const { return m_observer != nullptr; }

    void setPlan(const Core::ObservationPlan &plan);
    const Core::ObservationPlan &plan() const { return m_plan; }
    void setGapWindowMs(double ms);
    double gapWindowMs() const { return m_gapWindowMs; }
    void setMaxLogicalRequests(int count);
    int maxLogicalRequests() const { return m_maxLogicalRequests; }

    /// Forgets every client, logical request and lane.
    void clear();
    /// An empty name gives the client its id again.
    void renameClient(const QString &clientId, const QString &name);

    QList<Core::ObservedClient> clients() const;
    QList<Core::LogicalRequest> logicalRequests(const QString &clientId) const;
    int droppedLogicalRequests() const;

    /// The observed logical requests as lanes, attempts as rows.
    RunSession *session() const { return m_session; }

Q_SIGNALS:
    void enabledChanged(bool enabled);
    /// Observing started or stopped (enabled, or the server started or stopped).
    void activeChanged(bool active);
    void attemptStarted(const RetryLab::Core::ObservedAttempt &attempt);
    void attemptFinished(const RetryLab::Core::ObservedAttempt &attempt);
    /// The list of clients or one of them changed (new, renamed, counts).
    void clientsChanged();
    void cleared();

private:
    void start();
    void stop();
    template<typename F>
    void onObserverThread(F function) const;

    QPointer<EmbeddedServer> m_server;
    Core::Observer *m_observer = nullptr; ///< lives on the server's thread
    RunSession *m_session = nullptr;
    bool m_enabled = false;
    Core::ObservationPlan m_plan;
    double m_gapWindowMs;
    int m_maxLogicalRequests = 20'000;
    ObservedLanes m_lanes;
};

} // namespace RetryLab::Ui
