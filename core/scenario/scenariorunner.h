#pragma once

#include "core/executor/runrecorder.h"
#include "core/record/expectationresult.h"
#include "core/record/runrecord.h"
#include "core/scenario/scenario.h"
#include "core/util/result.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <memory>
#include <optional>

namespace RetryLab::Core {

class FaultServer;
class RetryExecutor;

/// Runs a Scenario on Qt's event loop: starts the embedded fault server when
/// the scenario needs one (loopback, an ephemeral port, the scenario's seed)
/// unless one is handed over, stores the scripts, feeds each request entry to
/// a RetryExecutor at most `concurrency` logical requests at a time, records
/// the run, and judges the expectations when the last request has finished.
///
/// Every step is a signal, so a terminal or a window can show the run live.
/// finished() always follows start() unless failed() does instead (the
/// server could not listen, a script was refused); nothing is run then.
class ScenarioRunner final : public QObject
{
    Q_OBJECT

public:
    explicit ScenarioRunner(QObject *parent = nullptr);
    ~ScenarioRunner() override;

    /// Takes effect at the next start().
    void setScenario(const Scenario &scenario);
    const Scenario &scenario() const { return m_scenario; }
    /// Bytes of each response body kept (RetryExecutor::setResponseBodyLimit);
    /// takes effect at the next start().
    void setResponseBodyLimit(qint64 bytes) { m_responseBodyLimit = bytes; }
    /// Bytes of a response body read before the transfer is ended
    /// (RetryExecutor::setTransferLimit); takes effect at the next start().
    void setTransferLimit(qint64 bytes) { m_transferLimit = bytes; }
    /// Plays scripts on this server instead of starting one. Not owned.
    void setFaultServer(FaultServer *server);

    bool isRunning() const { return m_running; }
    /// The embedded server's base URL while it is needed; empty otherwise.
    QUrl serverUrl() const { return m_serverUrl; }
    /// The entry a logical request came from ("flaky-get") and its label in
    /// the run ("flaky-get #2"; just the name for an entry of one request).
    QString requestName(quint64 requestId) const { return m_names.value(requestId); }
    QString requestLabel(quint64 requestId) const;
    const QHash<quint64, QString> &requestNames() const { return m_names; }
    int totalRequests() const { return m_total; }
    /// The seed of the current or last run: the scenario's, or a fresh one.
    quint64 seed() const { return m_seed; }
    int finishedRequests() const { return m_finished; }

    /// The run so far (complete after finished()).
    const RunRecord &record() const;
    const QList<ExpectationResult> &expectationResults() const { return m_verdicts; }
    bool allExpectationsHold() const;
    /// Whether the scenario's time limit cut the run short. Such a run fails:
    /// expectationResults() then ends with a failed "time limit" verdict.
    bool timedOut() const { return m_timedOut; }

public Q_SLOTS:
    void start();
    /// Cancels every request; finished() follows with what was recorded.
    void cancel();

Q_SIGNALS:
    /// The server (if any) is listening and the first requests are submitted.
    void started(const QUrl &serverUrl);
    void attemptStarted(quint64 requestId, int attemptIndex);
    void attemptFinished(const RetryLab::Core::AttemptRecord &record);
    void retryScheduled(
        quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft);
    void requestFinished(const RetryLab::Core::RequestResult &result);
    void progress(int finishedRequests, int totalRequests);
    void finished();
    void failed(const QString &message);

private:
    struct Group
    {
        int entry = 0; ///< index into m_scenario.requests
        int submitted = 0;
        int outstanding = 0;
        QString sharedTestId;
    };

    Result<void> prepareServer();
    Result<void> prepareScripts();
    void submitMore(Group &group);
    void handleRequestFinished(const RequestResult &result);
    void handleTimeout();
    void conclude();
    void teardown();

    Scenario m_scenario;
    std::optional<qint64> m_responseBodyLimit;
    std::optional<qint64> m_transferLimit;
    QPointer<FaultServer> m_externalServer;
    std::unique_ptr<FaultServer> m_ownServer;
    FaultServer *m_server = nullptr;
    QUrl m_serverUrl;
    std::unique_ptr<RetryExecutor> m_executor;
    std::unique_ptr<RunRecorder> m_recorder;
    RunRecord m_record; ///< the recorder's record once the run has finished
    quint64 m_seed = 0;
    QString m_keyPrefix; ///< what every {id} of the run starts with, from the seed
    int m_keysMade = 0;
    QList<Group> m_groups;
    QHash<quint64, int> m_groupOf;
    QHash<quint64, QString> m_names;
    QHash<quint64, int> m_indexInGroup;
    QList<ExpectationResult> m_verdicts;
    QTimer m_timeout;
    int m_total = 0;
    int m_finished = 0;
    bool m_running = false;
    bool m_timedOut = false;
    bool m_stopping = false; ///< cancelled or timed out: submit nothing more
    bool m_submitting = false;
    QList<QPair<quint64, int>> m_heldStarts; ///< attemptStarted during submit(), emitted after it
};

} // namespace RetryLab::Core
