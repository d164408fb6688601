#pragma once

#include "core/assertions/assertionresult.h"
#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/record/runrecord.h"
#include "core/runner/runcollection.h"
#include "core/scripting/scriptsandbox.h"

#include <QDateTime>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QUrl>

#include <memory>
#include <optional>

namespace RetryLab::Core {

class DynamicVariables;
class RetryExecutor;
class RunRecorder;

/// How `retrylab run COLLECTION` (and the window's runner) runs a collection.
struct CollectionRunOptions
{
    /// Only the requests inside these folders (names or paths); empty: all.
    QStringList folders;
    /// Times the whole selection runs; with data rows and no count of its own, one per row.
    int iterations = 1;
    /// --data: one row per iteration (the row of iteration i is rows[i % rows]).
    QList<QHash<QString, QString>> dataRows;
    /// A pause between two requests.
    int delayRequestMs = 0;
    /// Stop at the first request that fails.
    bool bail = false;
    /// The policy of requests whose collection, folder and own say none; by
    /// default one attempt, as newman sends them.
    BackoffPolicy defaultPolicy = singleAttemptPolicy();
    /// What defaultPolicy is called, for the report ("aws-standard", "none", a file).
    QString defaultPolicyName = QStringLiteral("none");
    /// Each attempt's timeout where the request does not set its own (newman's --timeout-request).
    std::optional<double> attemptTimeoutMs;
    /// Ignore certificate errors for every host the run sends to.
    bool insecure = false;
    /// The variables the run starts with (globals, environment, --var); the
    /// collection's own are added to scopes.collection.
    ScriptScopes scopes;
    /// The environment's name, for the message about a variable without a value.
    QString environmentName;
    /// Draws the jitter of every request and the dynamic variables ({{$guid}}...).
    quint64 seed = 0;
    int scriptTimeLimitMs = 5000;
    /// The most of a response body kept for scripts, assertions and the report.
    qint64 responseBodyLimit = 1024 * 1024;
    /// What {server} stands for; empty when no fault server runs.
    QUrl serverUrl;
    /// At most this many requests in one run, so that a setNextRequest loop ends.
    int maxRequests = 100'000;
};

/// One request of a run, as it went: what was sent, every attempt, and every verdict.
struct CollectionRequestRun
{
    int index = 0; ///< in the run, from 0
    int iteration = 0;
    QString path; ///< "Orders/Create"
    QString name;
    QString itemId;
    /// Set once the request was handed to the executor.
    quint64 requestId = 0;
    RequestSpec spec;
    QString policyName;
    QList<AttemptRecord> attempts;
    std::optional<RequestResult> result;
    QList<AssertionResult> assertions;
    /// pm.test and Bruno test() verdicts of every script of the request, in order.
    QList<ScriptTest> tests;
    QStringList console;
    /// What stopped a part of it: a script's error, a variable without a value, a
    /// request that cannot be built, no answer at all ("ConnectionRefusedError ...").
    QStringList errors;
    /// Variables its answer set (extract rules), name and value.
    QList<QPair<QString, QString>> extracted;
    /// A pre-request script skipped it (bru.runner.skipRequest()).
    bool skipped = false;

    bool sent() const { return result.has_value(); }
    /// More than one attempt was sent.
    bool retried() const;
    /// It passed, after more than one attempt: what a runner without retries would have failed.
    bool passedAfterRetries() const { return retried() && !failed(); }
    int failedAssertions() const;
    int failedTests() const;
    bool failed() const;
};

/// What a whole run gave.
struct CollectionRunResult
{
    QString collectionName;
    QString source;
    QString format; ///< RunCollection::formatName()
    quint64 seed = 0;
    QDateTime startedAt;
    double durationMs = 0.0;
    int iterations = 1;
    QList<CollectionRequestRun> requests;
    /// Every request and attempt, for the JSON report, the HAR file and the window.
    RunRecord record;
    /// Why the run ended early ("--bail: ...", "pm.setNextRequest(null)", "stopped"); empty when it ran to its end.
    QString stoppedEarly;
    /// What the collection holds that was not used (RunCollection::ignored).
    QStringList ignored;

    int failedRequests() const;
    /// The requests that passed only after retries.
    int passedAfterRetries() const;
    bool passed() const { return failedRequests() == 0; }
};

/// Runs the requests of a collection one after another through a RetryExecutor
/// (each with its policy: its own, its folder's, the collection's, else the
/// run's), with their pre-request and test scripts (ScriptSandbox), declarative
/// assertions and variables taken from answers; setNextRequest, --bail, delays,
/// iterations and data rows as newman has them. Lives in the thread that
/// starts it; the executor works in the same thread's event loop.
class CollectionRunner final : public QObject
{
    Q_OBJECT

public:
    CollectionRunner(RunCollection collection, CollectionRunOptions options, QObject *parent = nullptr);
    ~CollectionRunner() override;

    /// The requests the run will go through in one iteration, in order.
    const QList<RunCollection::Request> &selection() const { return m_selection; }
    void start();
    /// Stops after cancelling the request in flight; finished() follows.
    void stop();
    bool isRunning() const { return m_running; }
    const CollectionRunResult &result() const { return m_result; }

Q_SIGNALS:
    void requestStarted(int index, const QString &path, int iteration);
    void attemptFinished(const RetryLab::Core::AttemptRecord &record);
    void requestFinished(const RetryLab::Core::CollectionRequestRun &run);
    void finished();

private:
    void next();
    void runRequest(int position);
    void sendPrepared();
    void onAttemptFinished(const AttemptRecord &record);
    void onRequestFinished(const RequestResult &result);
    void afterResponse();
    void conclude();
    void finish(const QString &stoppedEarly);
    void runScripts(ScriptSandbox::Event event, const ScriptResponse *response);
    /// Where the run goes after the request at `position`; -1: the end of the iteration.
    int positionAfter(int position) const;

    RunCollection m_collection;
    CollectionRunOptions m_options;
    QList<RunCollection::Request> m_selection;
    std::unique_ptr<DynamicVariables> m_dynamic;
    std::unique_ptr<ScriptSandbox> m_sandbox;
    RetryExecutor *m_executor = nullptr;
    RunRecorder *m_recorder = nullptr;
    CollectionRunResult m_result;
    ScriptScopes m_scopes;
    bool m_running = false;
    bool m_stopping = false;
    int m_iteration = 0;
    int m_position = -1;
    int m_iterationCount = 1;
    std::optional<QString> m_nextRequest;
    CollectionRequestRun m_current;
    ScriptRequest m_scriptRequest;
    qint64 m_startNs = 0;
};

} // namespace RetryLab::Core
