#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QNetworkAccessManager;
QT_END_NAMESPACE

namespace RetryLab::Core {

class FaultServer;
class RetryExecutor;

/// One run of Google's Cloud Storage retry conformance cases
/// (googleapis/conformance-tests, storage/v1/retry_tests.json): one instruction
/// list of one case against one method, and how it went.
struct StorageConformanceRun
{
    enum class State { Planned, Running, Passed, Failed, Cancelled };

    int caseId = 0;
    QString description; ///< the case's, e.g. "always_idempotent"
    int listIndex = 0; ///< which of the case's instruction lists
    QStringList instructions;
    QString method; ///< "storage.objects.get"
    bool precondition = false; ///< the case provides one (ifGenerationMatch)
    bool expectSuccess = false;

    State state = State::Planned;
    bool succeeded = false;
    int attempts = 0;
    QString detail; ///< why it failed, or what happened

    /// "case 1 (always_idempotent) storage.objects.get [return-503, return-503]".
    QString name() const;
};

/// The cases as RetryLab plays them: one run per case, instruction list and
/// method the fault server's Cloud Storage API serves (StorageOperations::served());
/// the methods it does not serve are listed with the reason, never skipped silently.
struct StorageConformanceSuite
{
    QList<StorageConformanceRun> runs;
    /// Methods of the file not played, each with why.
    QHash<QString, QString> notPlayed;
    int caseCount = 0;
    /// Where the cases come from, for people.
    static QString source();

    /// Reads retry_tests.json; errors name what is missing. A method neither
    /// served nor known as unsupported is an error: a newer file must be looked at.
    static Result<StorageConformanceSuite> fromJson(const QByteArray &json);
    /// The copy the program carries (resources/conformance/retry_tests.json).
    static Result<StorageConformanceSuite> bundled();
    /// The methods the fault server does not serve, and why.
    static QHash<QString, QString> unsupportedMethods();
};

/// Plays a StorageConformanceSuite through RetryLab's executor under a policy
/// against the fault server's retry test API (POST /retry_test, x-retry-test-id):
/// for each run an object to act on, a retry test with its instructions, and a
/// request the policy's classifier decides about (never marked idempotent;
/// preconditions as the case says). A run passes when success or failure is what
/// the case expects, and a success used every instruction, one per attempt.
/// Each run has an executor of its own: runs go at once, and one shared network
/// manager would let one run's reset fail another's pooled connection. It plays
/// on a fault server of its own on loopback, which takes the large uploads the
/// "after 8192K" faults need, so that the window's server log is left alone.
class StorageConformanceRunner final : public QObject
{
    Q_OBJECT

public:
    explicit StorageConformanceRunner(QObject *parent = nullptr);
    ~StorageConformanceRunner() override;

    void setSuite(const StorageConformanceSuite &suite);
    const StorageConformanceSuite &suite() const { return m_suite; }
    /// The policy the runs take; its waits (not its timeouts or deadline) are
    /// compressed as the conformance matrix compresses them (Conformance::compressed())
    /// unless `realTiming`.
    void setPolicy(const BackoffPolicy &policy, bool realTiming = false);
    void setSeed(quint64 seed) { m_seed = seed; }

    bool isRunning() const { return m_running; }
    void start();
    void cancel();
    int passedCount() const;

Q_SIGNALS:
    void runFinished(int index);
    void finished(int passed, int total);
    /// The run could not start (no server, a setup request refused).
    void failed(const QString &message);

private:
    void setUp(int index);
    void submit(int index, const QString &testId, const QString &generation);
    void finishRun(int index, bool succeeded, int attempts, const QString &reason);
    void checkUsed(int index, bool succeeded, int attempts, const QString &reason);
    void done();
    QString base() const;

    StorageConformanceSuite m_suite;
    BackoffPolicy m_policy;
    std::unique_ptr<FaultServer> m_server;
    QNetworkAccessManager *m_manager;
    std::vector<std::unique_ptr<RetryExecutor>> m_executors;
    QHash<int, QString> m_testIds;
    quint64 m_seed = 20'240'101;
    int m_pending = 0;
    bool m_running = false;
    quint64 m_generation = 0; ///< counts starts, so that late answers of a cancelled run are ignored
};

} // namespace RetryLab::Core
