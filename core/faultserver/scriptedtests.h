#pragma once

#include "core/faultserver/faultinstruction.h"
#include "core/util/result.h"

#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// A scripted test as the server keeps it.
struct ScriptedTestStatus
{
    QString id;
    QStringList instructions; ///< canonical text of each step
    int consumed = 0; ///< steps used so far
    /// Requests that repeated an attempt already served (see ServerLogEntry::replayed).
    int replays = 0;
};

/// The step of a scripted test that a request gets.
struct ScriptedStep
{
    QString testId;
    FaultInstruction instruction;
    int index = 0; ///< 0-based
    int stepCount = 0; ///< steps of the test
    bool replayed = false; ///< the same attempt was served this step before

    /// "step 2 of 4 (return-503) of test t1", for the log.
    QString describe() const;
};

/// The fault server's scripted tests: lists of FaultInstruction steps stored
/// under an id, used one step per request that names the id.
///
/// A request that also names its logical request and attempt (X-Retry-Request-Id,
/// X-Retry-Attempt) and repeats a pair already served gets the same step again
/// without using a new one: that is the client's HTTP library resending the same
/// attempt (Qt resends a request up to three times when a connection closes
/// before the status line), and counting it would make scripts depend on the
/// library's internals.
///
/// Bounded: at most maxTests() tests and maxTotalSteps steps in all. Ids are
/// never reused, so that a late request cannot hit another script. Safe from any thread.
class ScriptedTests final
{
public:
    /// Steps of all tests together.
    static constexpr qsizetype maxTotalSteps = 1'000'000;
    /// Request id and attempt come from the client; longer pairs are not remembered.
    static constexpr qsizetype maxReplayKeyLength = 256;

    explicit ScriptedTests(int maxTests = 10'000) : m_maxTests(maxTests) { }

    int maxTests() const;
    /// Tests held at once (at least 1); createTest() refuses more.
    void setMaxTests(int maxTests);

    /// Stores a script and returns its id ("t1", "t2", ...), or why it was refused
    /// (a bad step, no step, the store full).
    Result<QString> create(const QStringList &instructions);
    /// The next step of test `id` for a request, or the step that `requestId` and
    /// `attempt` were served before; nullopt once the steps are used up (the
    /// request is answered by its path). An error for an unknown id.
    Result<std::optional<ScriptedStep>> take(const QString &id, QByteArrayView requestId, const QString &attempt);

    std::optional<ScriptedTestStatus> status(const QString &id) const;
    /// Every test, in no particular order.
    QList<ScriptedTestStatus> statuses() const;
    /// Steps of the test used so far; -1 for an unknown id.
    int consumed(const QString &id) const;
    /// Forgets a test, so that its place and steps count no more; false for an unknown id.
    bool remove(const QString &id);
    int count() const;
    /// Forgets every test; ids go on counting.
    void clear();

private:
    struct Test
    {
        QString id;
        QList<FaultInstruction> steps;
        int consumed = 0;
        int replays = 0;
        QHash<QString, int> served; ///< "request-id#attempt" -> step index
    };
    static ScriptedTestStatus statusOf(const Test &test);

    mutable QMutex m_mutex; // guards everything below
    int m_maxTests;
    QHash<QString, Test> m_tests;
    quint64 m_nextNumber = 1;
    qsizetype m_totalSteps = 0;
};

} // namespace RetryLab::Core
