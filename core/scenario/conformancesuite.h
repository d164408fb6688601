#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

/// How safe a conformance request is to repeat (the columns of the matrix),
/// after the idempotency classes of the Cloud Storage retry conformance tests.
enum class IdempotencyClass {
    Always, ///< GET: idempotent by its method
    Conditional, ///< POST with a precondition (If-Match): a repeat cannot apply twice
    /// POST with Cloud Storage's ifGenerationMatch query parameter: conditional too
    GenerationMatch,
    Never, ///< plain POST: it may have been applied although its response was lost
};

/// A row of the matrix: what the embedded server does to successive attempts.
struct FaultSequence
{
    QString id; ///< stable, e.g. "503-then-401"
    QString title; ///< for people, e.g. "503, then 401"
    QStringList steps; ///< FaultInstruction texts, one per attempt
    /// What the path answers once the steps are used up: 200, or 503 for a
    /// fault that never ends.
    int thenStatus = 200;
    /// Every attempt goes to a port where nothing listens (connection
    /// refused): the request never leaves the client.
    bool unreachable = false;
    /// The request is a whole read-modify-write, and the steps script its reads
    /// and writes in turn: a read of /occ/{name}, then a write carrying the
    /// version it read (which makes it conditional, the only column it plays).
    enum class ReadModifyWrite {
        None, ///< a single request
        Iam, ///< IAM's shape: POST :getIamPolicy, POST :setIamPolicy with the etag in the body
        IfMatch, ///< HTTP's: GET with an ETag, PUT with If-Match
    };
    ReadModifyWrite readModifyWrite = ReadModifyWrite::None;
};

/// What the policy's rules say a cell must do, derived from the retry rules
/// (retryable statuses and network faults, idempotency, Retry-After, attempt
/// limit, deadline, retry budget, circuit breaker), independently of the
/// classifier and executor that the run then checks.
struct ConformanceExpectation
{
    QList<RequestOutcome> outcomes; ///< any of these
    int minAttempts = 1;
    int maxAttempts = 1; ///< -1: no upper bound (a deadline ends it, after an unknown number)
    bool checkFinalStatus = true;
    std::optional<int> finalStatus;
    /// The wait planned before the second attempt when a Retry-After is honoured.
    std::optional<double> retryAfterDelayMs;
    /// Steps in the script (after expanding "step*K"); the server must have
    /// used one per attempt, min(attempts, scriptSteps) in all.
    int scriptSteps = 0;
    /// The policy's total deadline (0: none) and the longest wait the model
    /// planned before a retry. A deadline that ends a cell after fewer attempts
    /// than modelled is still right when the attempts ran slower than the model
    /// assumes (a loaded machine, a sanitizer build) and the time really ran out:
    /// the request lasted at least the deadline less that wait.
    double deadlineMs = 0.0;
    double longestWaitMs = 0.0;
    /// The longest the cell may run by the model: every attempt as slow as its
    /// upper bound and every wait as long as it can be, ended by the deadline
    /// when there is one.
    double longestMs = 0.0;
    /// The rule applied at each attempt, for the tooltip and the report.
    QStringList explanation;

    /// "succeeded after 2 attempts, status 200".
    QString summary() const;
};

/// One cell: a fault sequence met by a request of one idempotency class.
struct ConformanceCase
{
    FaultSequence sequence;
    IdempotencyClass idempotency = IdempotencyClass::Always;
    ConformanceExpectation expected;

    /// "503, then OK / never (POST)"; the JUnit test case name.
    QString name() const;
    /// Whether the cell is played: a read-modify-write's write carries the version
    /// it read, so only the conditional column applies to its rows.
    bool applies() const;
    /// Why a cell that does not apply is not played.
    static QString notApplicableReason();
    /// The request against a server at `base`; `testId` selects the script (empty: none).
    /// An unreachable sequence goes to `unreachable` instead (a closed port).
    RequestSpec request(const QUrl &base, const QString &testId, const QUrl &unreachable = {}) const;
};

/// The verdict on one cell.
struct ConformanceVerdict
{
    bool passed = false;
    QString message; ///< what was expected, what happened, and why it differs
};

/// The conformance library shared by `retrylab conformance` and the GUI's
/// matrix: the fault sequences x idempotency classes, the expected outcome of
/// each for a policy, the policy's timing compressed so that the whole matrix
/// runs in seconds, and the judgement of a finished cell.
namespace Conformance {

QList<FaultSequence> sequences();
QList<IdempotencyClass> idempotencyClasses();
QString idempotencyName(IdempotencyClass idempotency); ///< "always", "conditional", "generation-match", "never"
QString idempotencyTitle(IdempotencyClass idempotency); ///< "always idempotent (GET)"

/// Outcomes depend on what is retried and how often, not on how long the
/// waits are; so the run divides the policy's base delay, cap and additive
/// jitter by one factor, making the base delay at most 10 ms and the cap at
/// most 100 ms. A deadline shrinks by the same factor but stays at least 2 s
/// (so that a Retry-After of 1 s fits); the per-attempt timeout is at most 5 s
/// and never longer than the deadline. Retry-After bounds, attempt limits,
/// budgets and breaker settings are kept.
BackoffPolicy compressed(const BackoffPolicy &policy);
double compressionFactor(const BackoffPolicy &policy);

/// The expected result of a sequence for a request class under `policy`
/// (pass the compressed policy that will run).
ConformanceExpectation expect(const BackoffPolicy &policy, const FaultSequence &sequence, IdempotencyClass idempotency);
/// Every cell, row by row, with expectations from `policy`.
QList<ConformanceCase> cases(const BackoffPolicy &policy);

/// Judges a finished cell: its result, its attempts in order, and the steps
/// the server used (-1 when unknown).
ConformanceVerdict judge(
    const ConformanceCase &cell, const RequestResult &result, const QList<AttemptRecord> &attempts, int stepsUsed);

} // namespace Conformance

} // namespace RetryLab::Core
