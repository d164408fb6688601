#pragma once

#include "app/cli/console.h"

#include "core/record/attemptrecord.h"

#include <QHash>
#include <QObject>

namespace RetryLab::Core {
class ScenarioRunner;
struct RunRecord;
} // namespace RetryLab::Core

namespace RetryLab::Cli {

/// What `retrylab run` prints: each retry as it is scheduled (what failed,
/// why, "retrying in N ms, M attempts left"), each request's end, and at the
/// end the summary table (RunStatistics per request entry and in all) and the
/// expectation verdicts.
class RunPrinter final : public QObject
{
    Q_OBJECT

public:
    RunPrinter(Core::ScenarioRunner *runner, Console *console, bool live, QObject *parent = nullptr);

    /// The summary table and the statistics of the finished run.
    void printSummary();
    /// One line per expectation and a closing count.
    void printExpectations();

    /// "HTTP 503 Service Unavailable", "connection reset (RemoteHostClosedError)", ...
    static QString describeFailure(const Core::AttemptRecord &record);

private:
    void handleAttemptFinished(const Core::AttemptRecord &record);
    void handleRetryScheduled(
        quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft);
    void handleRequestFinished(const Core::RequestResult &result);
    QString stamp(qint64 ns) const;

    Core::ScenarioRunner *m_runner;
    Console *m_console;
    QHash<quint64, Core::AttemptRecord> m_lastAttempt;
};

} // namespace RetryLab::Cli
