#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/policy/pollingpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <optional>

class QTimer;

namespace RetryLab::Core {

class RetryExecutor;
class ThreadedExecutor;

/// One request of a long-running operation: the first (index 0, which starts it or
/// reads it once) or a poll (1, 2, ...), each a logical request of the executor
/// with the attempts its retry policy made.
struct OperationPoll
{
    enum class State {
        NotDone, ///< the answer says the operation runs on
        Done, ///< done, without an error
        OperationFailed, ///< done, with an error at the policy's error pointer
        RequestFailed, ///< the request failed after its retries
        Unreadable, ///< an answer that is not a JSON object, or whose done is not a boolean
    };

    int index = 0; ///< 0 the first request, n the n-th poll
    double delayMs = 0.0; ///< the wait the polling policy scheduled before it
    quint64 requestId = 0; ///< the executor's id of its logical request
    State state = State::NotDone;
    RequestResult request; ///< how its logical request ended
    QList<AttemptRecord> attempts; ///< its attempts, in order

    bool isPoll() const { return index > 0; }
};

QString operationPollStateName(OperationPoll::State state);

/// How the polling of an operation ended, with every request it made.
struct OperationResult
{
    enum class Ending {
        Done, ///< done without an error: the only success
        OperationFailed, ///< done with an error (errorCode, errorMessage)
        RequestFailed, ///< a request failed after its retries
        Unreadable, ///< an answer could not be read as an operation
        TotalTimeout, ///< not done within the policy's total timeout
        PollLimit, ///< not done after the policy's number of polls
        Cancelled,
    };

    Ending ending = Ending::Cancelled;
    QString reason; ///< one sentence for people
    std::optional<qint64> errorCode; ///< the error's "code", when it has one
    QString errorMessage; ///< the error's "message", when it has one
    QByteArray body; ///< the last answer's body
    QList<OperationPoll> polls; ///< the first request, then each poll
    qint64 startNs = -1; ///< on the executor's clock
    qint64 endNs = -1;

    bool succeeded() const { return ending == Ending::Done; }
    int pollCount() const; ///< polls after the first request
    int attemptCount() const; ///< attempts of all requests
    double totalMs() const { return (startNs >= 0 && endNs >= startNs) ? (endNs - startNs) / 1e6 : 0.0; }
};

QString operationEndingName(OperationResult::Ending ending);

/// Polls a long-running operation through a RetryExecutor: sends the first request,
/// then the poll request after each wait of the polling policy (a Qt::PreciseTimer),
/// until an answer says done (success, or failure when it carries an error), the
/// total timeout or the number of polls runs out, or a request fails after the
/// retries of the executor's retry policy. Each request is a logical request of its
/// own, so that its retries stay apart from the polls. Requests of others may share
/// the executor; the poller reads only its own.
class OperationPoller final : public QObject
{
    Q_OBJECT

public:
    explicit OperationPoller(RetryExecutor *executor, QObject *parent = nullptr);
    /// The same through the window's executor on its own thread: the polls' ids are
    /// known at once, their ends arrive queued.
    explicit OperationPoller(ThreadedExecutor *executor, QObject *parent = nullptr);
    ~OperationPoller() override;

    /// Starts polling; refused (nothing sent) when `policy` is not usable or a poll
    /// is already running.
    Result<void> start(const RequestSpec &first, const RequestSpec &poll, const PollingPolicy &policy);
    /// Cancels the request in flight and ends with Ending::Cancelled.
    void cancel();
    /// The retry policy of the requests of the next operations (a policy per
    /// endpoint); none: the executor's.
    void setRequestPolicy(std::optional<BackoffPolicy> policy) { m_requestPolicy = std::move(policy); }
    bool isRunning() const { return m_running; }
    const OperationResult &result() const { return m_result; }

Q_SIGNALS:
    /// A poll will be sent after `delayMs` (index from 1).
    void pollScheduled(int index, double delayMs);
    /// The first request (index 0) or a poll went to the executor as `requestId`.
    void pollStarted(int index, quint64 requestId);
    void pollFinished(const RetryLab::Core::OperationPoll &poll);
    void finished(const RetryLab::Core::OperationResult &result);

private:
    void send(int index, double delayMs);
    void handleAttemptFinished(const AttemptRecord &record);
    void handleRequestFinished(const RequestResult &result);
    void handleDelayElapsed();
    void handleDeadline();
    /// Reads an answer as an operation: its state, and for OperationFailed or
    /// Unreadable the reason (and the error's code and message) in m_result.
    OperationPoll::State readAnswer(const QByteArray &body);
    void finish(OperationResult::Ending ending, const QString &reason);
    /// Ends the operation now, the poll on the wire with it.
    void stop(OperationResult::Ending ending, const QString &reason);

    /// What the poller asks of its executor, whichever it is.
    struct Executor
    {
        QPointer<QObject> object;
        /// The request under `policy`, or under the executor's own when it is null.
        std::function<quint64(const RequestSpec &, const BackoffPolicy *)> submit;
        std::function<void(quint64)> cancel;
        std::function<qint64()> nowNs;
        explicit operator bool() const { return !object.isNull(); }
    };
    template<typename E>
    void attach(E *executor);
    Executor m_executor;
    std::optional<BackoffPolicy> m_requestPolicy;
    QTimer *m_delayTimer = nullptr;
    QTimer *m_deadlineTimer = nullptr;
    RequestSpec m_first;
    RequestSpec m_poll;
    PollingPolicy m_policy;
    OperationResult m_result;
    OperationPoll m_current;
    bool m_inFlight = false;
    bool m_running = false;
};

} // namespace RetryLab::Core

Q_DECLARE_METATYPE(RetryLab::Core::OperationPoll)
Q_DECLARE_METATYPE(RetryLab::Core::OperationResult)
