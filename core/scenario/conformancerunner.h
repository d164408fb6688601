#pragma once

#include "core/record/expectationresult.h"
#include "core/record/runrecord.h"
#include "core/scenario/conformancesuite.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <optional>

namespace RetryLab::Core {

class FaultServer;
class RetryExecutor;

/// One cell of a conformance run: the case, and once it finished, what happened.
struct ConformanceCellResult
{
    ConformanceCase cell;
    bool done = false;
    ConformanceVerdict verdict;
    RequestResult result;
    QList<AttemptRecord> attempts;
    int stepsUsed = -1; ///< scripted steps the server used, -1 when unknown
};

/// Runs the conformance matrix (Conformance::cases()) for a policy against
/// the embedded fault server, every cell at once and each with a client of
/// its own (its own executor, network manager, breaker and budget), so that
/// cells cannot disturb one another. The policy runs with its timing
/// compressed (Conformance::compressed()); the whole matrix takes a few seconds.
///
/// The server is the one handed over, or one started on loopback for the run.
class ConformanceRunner final : public QObject
{
    Q_OBJECT

public:
    explicit ConformanceRunner(QObject *parent = nullptr);
    ~ConformanceRunner() override;

    /// The policy under test. The cells are planned at once (cells() shows
    /// them, not done) and run at the next start().
    void setPolicy(const BackoffPolicy &policy);
    const BackoffPolicy &policy() const { return m_policy; }
    /// Derives the expected outcomes from another policy instead, to see
    /// where two policies behave differently (every differing cell fails).
    void setExpectationPolicy(const std::optional<BackoffPolicy> &policy);
    /// Plays the scripts on this server instead of starting one. Not owned.
    void setFaultServer(FaultServer *server);
    void setSeed(quint64 seed) { m_seed = seed; }
    /// Cancels whatever still runs after this long, so that a run cannot go on
    /// for hours. 0 (the default) follows the policy: a minute, or half a minute
    /// plus twice the longest cell the model plans when that is more, so that
    /// many attempts (maxAttempts 1000) are not cut short by the limit.
    void setTimeLimitMs(int milliseconds) { m_timeLimitMs = std::max(0, milliseconds); }
    /// The limit the next run keeps.
    int timeLimitMs() const;
    /// Whether the last run reached the time limit (its unfinished cells were cancelled).
    bool timedOut() const { return m_timedOut; }

    /// The compressed policy the cells run with.
    BackoffPolicy runPolicy() const { return Conformance::compressed(m_policy); }
    bool isRunning() const { return m_running; }
    const QList<ConformanceCellResult> &cells() const { return m_cells; }
    /// The cells played (ConformanceCase::applies()); the others are done at once.
    int playedCount() const;
    /// Of the played cells, those finished and those that passed.
    int finishedCount() const;
    int passedCount() const;
    bool allPassed() const;

    /// The cells' runs as one record (request i+1 is cell i), for the exports.
    RunRecord record() const;
    /// One verdict per played cell, named after it, for JUnit and the JSON report.
    QList<ExpectationResult> expectationResults() const;

public Q_SLOTS:
    void start();
    void cancel();

Q_SIGNALS:
    void started();
    void cellFinished(int index);
    void finished();
    void failed(const QString &message);

private:
    struct Client;

    void planCells();
    void handleCellFinished(int index, const RequestResult &result);
    void conclude();
    void releaseClients();

    BackoffPolicy m_policy;
    std::optional<BackoffPolicy> m_expectationPolicy;
    QPointer<FaultServer> m_externalServer;
    std::unique_ptr<FaultServer> m_ownServer;
    FaultServer *m_server = nullptr;
    quint64 m_seed = 0x5EEDULL;
    int m_timeLimitMs = 0;
    QList<ConformanceCellResult> m_cells;
    QList<RunRecord> m_records; ///< per cell, its own time base
    std::vector<std::unique_ptr<Client>> m_clients;
    QList<QString> m_testIds;
    QTimer m_timeLimit;
    bool m_running = false;
    bool m_timedOut = false;
};

} // namespace RetryLab::Core
