#pragma once

#include "core/grouping/attemptgrouper.h"
#include "core/grouping/observedattempt.h"
#include "core/observe/observationplan.h"
#include "core/observe/policyinference.h"
#include "core/observe/verdicts.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <deque>
#include <memory>

class QTimer;

namespace RetryLab::Core {

class FaultServer;
class RandomSource;
struct ServerLogEntry;

/// Watches the clients that send requests to a FaultServer: groups their
/// attempts into logical requests (AttemptGrouper), serves each logical request
/// the observation plan's steps, and keeps per client what it needs to infer
/// the client's policy and judge it. Lives on the server's thread.
///
/// Memory is bounded: beyond maxLogicalRequests() the oldest logical requests
/// are forgotten, and their clients count them as dropped; beyond maxClients()
/// the client seen first is forgotten (droppedClients() counts them), and a
/// User-Agent longer than maxUserAgentChars is cut before it names a client.
class Observer final : public QObject
{
    Q_OBJECT

public:
    explicit Observer(QObject *parent = nullptr);
    ~Observer() override;

    /// Starts watching `server` (not owned; it must outlive the observer or be
    /// detached first): installs its request hook. nullptr detaches.
    void attach(FaultServer *server);
    FaultServer *server() const;

    void setPlan(const ObservationPlan &plan);
    const ObservationPlan &plan() const { return m_plan; }
    void setGroupingSettings(AttemptGrouper::Settings settings);
    AttemptGrouper::Settings groupingSettings() const;
    /// Seeds the generator behind probabilistic plans.
    void setSeed(quint64 seed);
    /// Logical requests kept in all (1-1000000).
    void setMaxLogicalRequests(int count);
    int maxLogicalRequests() const { return m_maxLogicalRequests; }
    /// Clients kept in all (1-1000000).
    void setMaxClients(int count);
    int maxClients() const { return m_maxClients; }
    /// Clients forgotten to keep the table within maxClients().
    int droppedClients() const { return m_droppedClients; }
    /// The longest User-Agent kept whole; a longer one is cut and ends in "...".
    static constexpr qsizetype maxUserAgentChars = 256;

    /// Clients in the order they were first seen.
    QList<ObservedClient> clients() const;
    std::optional<ObservedClient> client(const QString &clientId) const;
    /// Renames a client (an empty name restores its id); false for an unknown id.
    bool renameClient(const QString &clientId, const QString &name);
    /// The client's logical requests kept now, oldest first.
    QList<LogicalRequest> logicalRequests(const QString &clientId) const;
    /// Every logical request kept now, in order of their first attempt.
    QList<LogicalRequest> allLogicalRequests() const;
    /// Logical requests whose attempts have all been answered and that the grouping closed.
    int finishedLogicalRequests() const { return m_finished; }
    int totalAttempts() const { return m_totalAttempts; }
    int droppedLogicalRequests() const { return m_dropped; }

    /// Inference and verdicts for a client, computed now from what is kept.
    InferredPolicy inferPolicy(const QString &clientId) const;
    QList<Verdict> verdicts(const QString &clientId) const;

    /// Forgets every client and logical request (the plan and settings stay).
    void clear();
    /// Ends the observation: closes every open logical request whose attempts
    /// have all been answered ("end of observation"), so that a client that
    /// gave up on its last request counts as having given up. Attempts that
    /// arrive afterwards start new logical requests.
    void finish();
    /// Closes ("gap") every open logical request whose last attempt was answered longer
    /// than the gap window before `nowNs` (the server's steady clock) without a retry: the
    /// client gave up. While attached to a server this runs by itself, a few times per
    /// gap window and at least once a second; without one, nothing else would close them.
    void closeIdle(qint64 nowNs);

    /// Feeds one request as the server's hook would, for replaying recorded
    /// logs and for benchmarks: the returned step is what the plan serves.
    /// `planApplies` is false for the server's own endpoints, which answer by their path.
    FaultInstruction observeRequest(ServerLogEntry &entry, bool planApplies = true);
    /// Feeds the server's record of a request that observeRequest() saw.
    void observeAnswer(const ServerLogEntry &entry);

Q_SIGNALS:
    /// A client was seen for the first time.
    void clientAdded(const QString &clientId);
    /// An attempt arrived (not answered yet).
    void attemptStarted(const RetryLab::Core::ObservedAttempt &attempt);
    /// The server finished answering an attempt.
    void attemptFinished(const RetryLab::Core::ObservedAttempt &attempt);
    /// A logical request was closed by the grouping (success, different request, gap).
    void logicalRequestClosed(quint64 logicalId, const QString &clientId);
    /// Something about the client changed: counts, name, rejections.
    void clientChanged(const QString &clientId);
    void cleared();

private:
    struct ClientState
    {
        ObservedClient info;
    };
    struct Pending
    {
        quint64 logicalId = 0;
        qsizetype position = 0; ///< in LogicalRequest::attempts
    };
    ClientState &clientFor(const QString &userAgent, const QString &address);
    /// The address part of a peer ("127.0.0.1:53422"), copied only when it differs from the last one's.
    const QString &addressFor(const QString &peer);
    /// ObservedClient::makeId(), made again only when the client differs from the last one's.
    const QString &clientIdFor(const QString &userAgent, const QString &address);
    LogicalRequest *find(quint64 logicalId);
    const LogicalRequest *find(quint64 logicalId) const;
    void closeRequest(LogicalRequest &request, const QString &why);
    void dropOldest();

    QPointer<FaultServer> m_server;
    ObservationPlan m_plan;
    AttemptGrouper m_grouper;
    std::unique_ptr<RandomSource> m_random;
    int m_maxLogicalRequests = 20'000;
    int m_maxClients = 10'000;
    int m_droppedClients = 0;
    QHash<QString, ClientState> m_clients;
    QStringList m_clientOrder;
    QString m_lastAgent; ///< clientIdFor()'s last client
    QString m_lastAddress;
    QString m_lastClientId;
    QString m_lastPeerAddress; ///< addressFor()'s last address
    /// Oldest first; ids are consecutive, so id - front().id is the position.
    std::deque<LogicalRequest> m_requests;
    QHash<quint64, Pending> m_pending; ///< hook tag -> the attempt waiting for its answer
    quint64 m_nextTag = 1;
    qint64 m_originNs = -1;
    int m_finished = 0;
    QTimer *m_idleTimer;
    int m_totalAttempts = 0;
    int m_dropped = 0;
};

} // namespace RetryLab::Core
