#pragma once

#include "core/collections/requestdraft.h"
#include "core/collections/requesttemplate.h"
#include "core/executor/operationpoller.h"
#include "core/policy/endpointpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/util/result.h"
#include "ui/session/hosting/serverscenario.h"
#include "ui/session/run/requestchecks.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

namespace RetryLab::Core {
class FaultServer;
class ThreadedExecutor;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

class RunSession;

/// Sends what the composer holds: one request, a batch of N, or one request every
/// interval until stopped. Each logical request gets its placeholders expanded with a
/// key of its own ({id}) and, when a server scenario is active, its script: a fresh
/// copy per request (createTest, deleted again when the request finishes) or the one
/// shared copy, selected by X-Retry-Test-Id. Only requests to the embedded server carry
/// the header; a request to another host goes out without the script.
///
/// The runner is the one owner of the executor's settings: the policy (setPolicy()) and
/// the concurrency limit (each send's). At most that many attempts are on the wire at
/// once; a request sleeping before its retry holds no slot.
class RequestRunner final : public QObject
{
    Q_OBJECT

public:
    /// Neither is owned; the session must be attached to the executor.
    RequestRunner(Core::ThreadedExecutor *executor, RunSession *session, QObject *parent = nullptr);

    /// The embedded server, for {server} and scripts; null when it is not running,
    /// then `problem` says why.
    void setServer(Core::FaultServer *server, const QString &problem = {});
    Core::FaultServer *server() const { return m_server; }

    /// The script for the next sends. An invalid one is refused (false): the previous stays.
    bool setScenario(const ServerScenario &scenario);
    const ServerScenario &scenario() const { return m_scenario; }
    /// The shared copy in use (Sharing::Shared), empty until the first send uses it.
    QString sharedTestId() const { return m_sharedTestId; }
    /// The next send starts a fresh shared copy.
    void restartSharedScenario();

    /// Policies of their own for some hosts or paths (the first match wins);
    /// the other requests run under the executor's policy.
    void setEndpointPolicies(const QList<Core::EndpointPolicy> &policies) { m_endpointPolicies = policies; }
    /// The policy of requests no endpoint policy matches, from the next attempt on.
    void setPolicy(const Core::BackoffPolicy &policy);
    const QList<Core::EndpointPolicy> &endpointPolicies() const { return m_endpointPolicies; }

    /// The active environment, for {{name}} in the next sends; an empty name: none.
    /// A repeat that is running resolves its draft with the environment of each tick.
    void setEnvironment(const QString &name, const QHash<QString, QString> &variables);
    QString environmentName() const { return m_environmentName; }

    /// What the placeholders of the next request will stand for (for previews):
    /// the environment's variables, with the values taken from responses over them.
    Core::ExpansionContext nextContext() const;

    /// The checks every request of the next sends carries (the composer's Checks
    /// tab): evaluated on its last attempt when it ends (RunSession::checkVerdict()).
    /// The values its extract rules take become variables of the next sends, over the
    /// environment's, until another environment is chosen (takenVariables()).
    void setChecks(const RequestChecks &checks) { m_checks = checks; }
    const RequestChecks &checks() const { return m_checks; }
    /// The variables taken from responses so far, by name.
    const QHash<QString, QString> &takenVariables() const { return m_taken; }
    void clearTakenVariables();

    /// Sends one request; returns its id or why it was not sent.
    Core::Result<quint64> send(const Core::RequestDraft &draft);
    /// Sends draft.batchCount requests. On a problem, some may have been sent
    /// before it; the message says how many.
    Core::Result<void> startBatch(const Core::RequestDraft &draft);
    /// Sends one request now and another every draft.repeatIntervalMs until stop().
    /// The draft is taken as it is now.
    Core::Result<void> startRepeat(const Core::RequestDraft &draft);
    /// Polls the long-running operation the draft starts or reads (Google's
    /// operations.get): its first request, then the same request again after each
    /// wait of `policy`, until an answer says done. Each is a logical request and
    /// a lane of its own, labelled as the start or as poll N, its retries inside
    /// it; operationFinished() tells how it ended. One operation at a time.
    Core::Result<void> startOperation(const Core::RequestDraft &draft, const Core::PollingPolicy &policy);
    bool isPolling() const { return m_poller && m_poller->isRunning(); }
    /// Stops repeating and polling, and cancels every request (ThreadedExecutor::cancelAll).
    void stop();

    bool isRepeating() const { return m_repeatTimer.isActive(); }
    int repeatCount() const { return m_repeatCount; }
    bool isBatchRunning() const { return m_batchFinished < m_batchTotal; }
    int batchTotal() const { return m_batchTotal; }
    int batchFinished() const { return m_batchFinished; }
    int batchSucceeded() const { return m_batchSucceeded; }
    /// Forgets the last batch's progress (the run was cleared).
    void resetBatch();

    /// The seed of the last send, batch or repeat (every request of it draws its
    /// jitter from this seed and its place in the send); 0 before the first.
    quint64 lastSeed() const { return m_runSeed; }

Q_SIGNALS:
    void batchProgress(int finished, int total, int succeeded);
    void repeatingChanged(bool repeating);
    /// A request was handed to the executor.
    void sent(quint64 requestId);
    /// A repeat could not send (the scenario or the URL stopped working); repeating stops.
    void failed(const QString &message);
    /// A send, batch or repeat starts with `seed`: the draft's, or a fresh one (`drawn`).
    void seedChosen(quint64 seed, bool drawn);
    /// The variables taken from responses changed (a request's extract rules, or
    /// cleared): previews of the next request should be redrawn (nextContext()).
    void takenVariablesChanged();
    /// The operation startOperation() polls ended: done, failed, or not done in time.
    void operationFinished(const RetryLab::Core::OperationResult &result);

private:
    /// Makes `built` (the draft expanded with nextKey()) the next logical request:
    /// attaches the scenario and consumes the key. Errors say what is wrong; nothing
    /// is consumed then.
    Core::Result<Core::RequestSpec> prepare(Core::Result<Core::RequestSpec> built, const QString &label = {});
    void handleRequestFinished(const Core::RequestResult &result);
    void handleChecksEvaluated(quint64 requestId);
    void handleRepeatTick();
    QString nextKey() const;
    /// True when the URL reaches the embedded server (same scheme, host and port as its HTTP or HTTPS port).
    bool targetsServer(const QUrl &url) const;
    void deleteTest(const QString &id);
    Core::Result<quint64> submit(const Core::RequestDraft &draft, const QString &label);
    /// Sends `built` (from the draft with nextKey()) with the draft's concurrency limit.
    Core::Result<quint64> submitBuilt(Core::Result<Core::RequestSpec> built, int concurrency, const QString &label);
    /// Reads the files of the draft's transport; the error names the file.
    static Core::Result<void> checkTransportFiles(const Core::RequestDraft &draft);
    /// A send, a batch or a repeat begins: its seed is the draft's or a fresh one.
    void beginRun(const Core::RequestDraft &draft);

    QPointer<Core::ThreadedExecutor> m_executor;
    QPointer<RunSession> m_session;
    QPointer<Core::FaultServer> m_server;
    QString m_serverProblem;
    QString m_environmentName;
    QHash<QString, QString> m_variables;
    RequestChecks m_checks;
    QHash<QString, QString> m_taken; ///< from responses, over m_variables

    ServerScenario m_scenario;
    QList<Core::EndpointPolicy> m_endpointPolicies;
    QString m_sharedTestId;
    QHash<quint64, QString> m_perRequestTests; ///< request id -> its copy of the script
    QString m_unsentTestId; ///< made by prepare(), not yet filed under a request id
    Core::OperationPoller *m_poller = nullptr; ///< made at the first operation
    Core::RequestSpec m_operationSpec; ///< every request of the operation polled now
    std::optional<Core::BackoffPolicy> m_operationPolicy; ///< its endpoint's policy; none: the executor's
    QString m_operationTestId; ///< its copy of the scenario, deleted when it ends

    /// Keys are "<token>-<n>": the token differs per run of the program, so that keys
    /// stay fresh on a server that outlives the window (retrylab serve).
    QString m_keyToken;
    quint64 m_keyCounter = 1;

    QSet<quint64> m_batchIds;
    int m_batchTotal = 0;
    int m_batchFinished = 0;
    int m_batchSucceeded = 0;

    quint64 m_runSeed = 0;
    quint64 m_runStream = 0; ///< the next request's place in the run

    Core::RequestDraft m_repeatDraft;
    QTimer m_repeatTimer;
    int m_repeatCount = 0;
};

} // namespace RetryLab::Ui
