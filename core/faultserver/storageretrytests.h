#pragma once

#include "core/faultserver/storageinstruction.h"
#include "core/util/result.h"

#include <QByteArrayView>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// The Cloud Storage operations the fault server's storage API serves, and so
/// the ones a retry test may name.
namespace StorageOperations {
QStringList served();
}

/// The retry tests of Cloud Storage's retry test API (POST /retry_test), as the
/// storage-testbench keeps them: per operation ("storage.objects.get") a queue of
/// StorageInstruction, used one per request that names the test
/// (x-retry-test-id) and is that operation. A test is "completed" once every
/// queue is empty.
///
/// As ScriptedTests does, a request that repeats a request id and attempt
/// (X-Retry-Request-Id, X-Retry-Attempt) already served gets the same
/// instruction again: that is the client's HTTP library resending one attempt.
///
/// Bounded: at most maxTests tests, maxTotalInstructions instructions in all.
/// Ids are 32 hex digits, as the testbench's, never those of ScriptedTests
/// ("t1"), so one x-retry-test-id header serves both. Safe from any thread.
class StorageRetryTests final
{
public:
    static constexpr qsizetype maxTotalInstructions = 100'000;
    static constexpr qsizetype maxInstructionsPerTest = 1'000;

    explicit StorageRetryTests(int maxTests = 10'000) : m_maxTests(maxTests) { }
    void setMaxTests(int maxTests);

    /// Reads the body of POST /retry_test ({"instructions": {...}, "transport": "HTTP"})
    /// and stores the test; its JSON (id, instructions, completed, transport), or why
    /// not: the error names the operation or instruction at fault.
    Result<QJsonObject> create(const QJsonObject &body);
    bool contains(const QString &id) const;
    /// The test as GET /retry_test/{id} shows it; nullopt for an unknown id.
    std::optional<QJsonObject> describe(const QString &id) const;
    QList<QJsonObject> describeAll() const;
    bool remove(const QString &id);
    void clear();
    int count() const;

    /// The instruction `operation` gets next in test `id` (not used yet, see
    /// consume()), or the one this request id and attempt were served before.
    std::optional<StorageInstruction> next(const QString &id, const QString &operation, const QString &replayKey) const;
    /// Uses the instruction next() gave (a replay uses nothing) and remembers
    /// it for `replayKey` (empty: not remembered).
    void consume(const QString &id, const QString &operation, const QString &replayKey);

private:
    struct Test
    {
        QString id;
        QList<QPair<QString, QList<StorageInstruction>>> queues; ///< in the order given
        QHash<QString, StorageInstruction> served; ///< replay key -> instruction
        qsizetype left = 0;
    };
    static QJsonObject toJson(const Test &test);

    mutable QMutex m_mutex; // guards everything below
    int m_maxTests;
    QHash<QString, Test> m_tests;
    qsizetype m_totalInstructions = 0;
};

} // namespace RetryLab::Core
