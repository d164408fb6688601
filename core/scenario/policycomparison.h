#pragma once

#include "core/record/runrecord.h"
#include "core/scenario/scenario.h"

#include <QList>
#include <QObject>

#include <memory>
#include <optional>

namespace RetryLab::Core {

class FaultServer;
class ScenarioRunner;

/// What one policy did with the compared scenario.
struct ComparisonRow
{
    BackoffPolicy policy;
    QString origin; ///< "preset aws-standard", a file, "current policy"
    RunRecord record;
    int requests = 0;
    int succeeded = 0;
    /// Requests that ended otherwise, not counting those cut by a cancel.
    int failed = 0;
    /// Requests a cancel (Ctrl+C) cut before they could end.
    int cancelled = 0;
    /// Attempts that reached the server: the load the policy put on it.
    int attempts = 0;
    /// The most attempts that started within one second.
    int peakAttemptsPerSecond = 0;
    /// How long the succeeded requests took, first attempt to success.
    std::optional<double> medianSuccessMs;
    std::optional<double> maxSuccessMs;
    /// From the first attempt to the end of the last request.
    double runMs = 0.0;

    /// Fills the figures from `record`.
    void summarise();
};

/// Runs one scripted fault scenario under two to four policies at once, each
/// against its own copy of the scenario's scripts on one embedded server and
/// with the same seed, so that the policies meet the same faults and only the
/// policy differs. Every request of the scenario runs under the compared
/// policy (the scenario's own policy and endpoint policies are replaced).
class PolicyComparison final : public QObject
{
    Q_OBJECT

public:
    static constexpr int minPolicies = 2;
    static constexpr int maxPolicies = 4;

    explicit PolicyComparison(QObject *parent = nullptr);
    ~PolicyComparison() override;

    void setScenario(const Scenario &scenario) { m_scenario = scenario; }
    /// The policies and where each came from; two to four.
    void setPolicies(const QList<BackoffPolicy> &policies, const QStringList &origins = {});
    void setSeed(quint64 seed) { m_seed = seed; }
    quint64 seed() const { return m_seed; }

    bool isRunning() const { return m_running; }
    /// One row per policy, in order; summarised once finished() was emitted.
    const QList<ComparisonRow> &rows() const { return m_rows; }
    /// The longest run, for a common time axis.
    double spanMs() const;

public Q_SLOTS:
    void start();
    void cancel();

Q_SIGNALS:
    void finished();
    void failed(const QString &message);

private:
    void handleRunnerFinished();

    Scenario m_scenario;
    QList<ComparisonRow> m_rows;
    quint64 m_seed = 1;
    bool m_running = false;
    int m_finished = 0;
    std::unique_ptr<FaultServer> m_server;
    std::vector<std::unique_ptr<ScenarioRunner>> m_runners;
};

} // namespace RetryLab::Core
