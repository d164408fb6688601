#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/policy/circuitbreaker.h"
#include "core/record/attemptrecord.h"

#include <QHash>
#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <variant>
#include <vector>

namespace RetryLab::Core {

class Clock;
class RetryExecutor;

/// A RetryExecutor, with its QNetworkAccessManagers, on a thread of its own, for
/// a caller whose thread has other work: the window paints the timeline, fills the
/// error log and redraws charts, and none of that may delay a retry's timer.
///
/// It offers the executor's interface to the caller's thread. Calls go to the
/// executor's thread in the order they were made, many to one event (so a call may run
/// before an event posted to that thread after the run's event but before the call).
/// Reports come
/// back in batches: the executor's thread appends each one to a list and, when the
/// list was empty, posts one event to the caller's thread; that event re-emits
/// everything the list holds by then, in order, as the signals of RetryExecutor.
/// So however busy the caller's thread is, the executor's thread never waits for
/// it, and a busy caller gets many reports per event instead of one event each.
/// While requests submitted are still on their way to the executor's thread (a batch
/// of a thousand, submitted in one go), that event waits until the last of them has
/// reached the executor (checked as reports are made: about reportHoldLimitMs() at
/// most), so that the two threads do not take turns on the cores while the batch's
/// first attempts go out, and the caller takes their starts in one event.
///
/// What the caller reads (activeCount(), inFlightCount(), circuitState(), hosts(),
/// budgetTokens()) is kept from the reports it has been given, so it always agrees
/// with the records the caller has seen: a request counts as active from submit()
/// until its requestFinished() has been delivered.
class ThreadedExecutor final : public QObject
{
    Q_OBJECT

public:
    explicit ThreadedExecutor(QObject *parent = nullptr);
    /// Stops the executor's thread; requests still running end without a report.
    ~ThreadedExecutor() override;

    void setPolicy(const BackoffPolicy &policy);
    const BackoffPolicy &policy() const { return m_policy; }
    void setConcurrencyLimit(int limit);
    int concurrencyLimit() const { return m_concurrencyLimit; }
    void setSeed(quint64 seed);
    quint64 seed() const { return m_seed; }
    void setResponseBodyLimit(qint64 bytes);
    qint64 responseBodyLimit() const { return m_responseBodyLimit; }
    void setAttemptHeadersEnabled(bool enabled);
    bool attemptHeadersEnabled() const { return m_attemptHeaders; }

    /// The id is known at once; the request starts on the executor's thread, and
    /// a refusal (invalid request, open breaker) is reported like any result.
    quint64 submit(const RequestSpec &request);
    quint64 submit(const RequestSpec &request, const BackoffPolicy &policy);
    /// While a CallBatch lives, calls made on this thread (submissions above all) wait
    /// and go to the executor's thread together when it ends: a batch of a thousand is
    /// then started in one go, whatever the two threads' turns on the cores.
    class CallBatch
    {
    public:
        explicit CallBatch(ThreadedExecutor *executor);
        ~CallBatch();
        CallBatch(const CallBatch &) = delete;
        CallBatch &operator=(const CallBatch &) = delete;

    private:
        QPointer<ThreadedExecutor> m_executor; ///< a slot run meanwhile may delete it
    };
    void cancel(quint64 requestId);
    /// Cancels every request and delivers the results before it returns, as
    /// RetryExecutor::cancelAll() does (it waits for the executor's thread).
    void cancelAll();

    int activeCount() const { return static_cast<int>(m_active.size()); }
    int inFlightCount() const { return m_inFlight; }
    CircuitBreaker::State circuitState(const QString &host) const;
    QStringList hosts() const;
    double budgetTokens() const { return m_budgetTokens; }
    double budgetCapacity() const { return m_budgetCapacity; }

    /// The executor's clock, the time base of every record (safe to read from any thread).
    qint64 nowNs() const;
    /// In a handler of attemptStarted(), retryScheduled() or attemptFinished(): the
    /// executor's time when that happened (a batch arrives later). Elsewhere nowNs().
    qint64 reportedAtNs() const;
    const Clock &clock() const;

    /// The thread the executor and its managers live on.
    QThread *executorThread() { return &m_thread; }
    /// Reports delivered in one go so far: how much batching happened.
    qint64 batchesDelivered() const { return m_batches; }
    /// How long reports may wait for submissions on their way (see the class's comment);
    /// 250 ms unless set.
    qint64 reportHoldLimitMs() const { return m_reportHoldLimitMs.load(); }
    void setReportHoldLimitMs(qint64 ms) { m_reportHoldLimitMs.store(std::max<qint64>(0, ms)); }
    qint64 reportsDelivered() const { return m_reports; }
    /// Whether requests submitted are still on their way to the executor's thread (a
    /// batch's first attempts are going out): work the caller can put off should wait.
    bool hasSubmissionsOnTheirWay() const { return m_submissionsOnTheirWay.load() > 0; }
    /// Calls `then` on this thread, from its event loop, once no submission is on its
    /// way to the executor's thread, or reportHoldLimitMs() (at most a minute) after the
    /// first call waiting, whichever comes first; not at all if `context` or the executor
    /// is destroyed before. Work that would take the cores from a batch's first attempts
    /// waits for them, as reports do. `then` may submit; it deletes the executor only
    /// with deleteLater().
    void whenSubmissionsArrived(QObject *context, std::function<void()> then);

    /// Re-emits every report waiting for this thread now (the posted event does the same).
    void deliverPending();

Q_SIGNALS:
    void attemptStarted(quint64 requestId, int attemptIndex);
    void attemptFinished(const RetryLab::Core::AttemptRecord &record);
    void retryScheduled(
        quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft);
    void requestFinished(const RetryLab::Core::RequestResult &result);
    void circuitStateChanged(const QString &host, RetryLab::Core::CircuitBreaker::State state);
    void budgetChanged(double tokens, double capacity);
    /// Every submitted request has finished, and the breaker and budget changes
    /// their last attempts made have been reported before it.
    void idle();

private:
    struct Started
    {
        quint64 requestId;
        int attemptIndex;
        qint64 atNs;
    };
    struct Retry
    {
        quint64 requestId;
        int nextAttemptIndex;
        double delayMs;
        QString reason;
        int attemptsLeft;
        qint64 atNs;
    };
    struct Circuit
    {
        QString host;
        CircuitBreaker::State state;
    };
    struct Budget
    {
        double tokens;
        double capacity;
    };
    /// What the executor holds after a change of policy: it overrules the reports made before.
    struct Snapshot
    {
        QHash<QString, CircuitBreaker::State> circuits;
        double tokens = 0.0;
        double capacity = 0.0;
    };
    struct Idle
    {
    };
    using Report = std::variant<Started, AttemptRecord, Retry, RequestResult, Circuit, Budget, Snapshot, Idle>;

    /// On the executor's thread: keeps a report and wakes this thread if it sleeps.
    void post(Report &&report);
    /// On the executor's thread: posts its breakers and budget as they are now.
    void postSnapshot();
    void deliver(Report &report);
    /// Runs `call` on the executor's thread after every call made before it.
    template<typename Call>
    void onExecutorThread(Call &&call);
    /// On the executor's thread: runs the calls made so far, and those made meanwhile.
    void runCalls();

    QThread m_thread;
    RetryExecutor *m_executor = nullptr; ///< lives on m_thread
    QObject *m_executorContext = nullptr; ///< lives on m_thread; the target of queued calls

    /// Both submit()s: the executor's policy unless one is given.
    quint64 submitWith(const RequestSpec &request, std::optional<BackoffPolicy> policy);
    /// On the executor's thread, after a submission has reached the executor.
    void submissionArrived();
    /// whenSubmissionsArrived()'s calls are owed: posts runAfterArrival() as soon as no
    /// submission is on its way (now, or when the last one arrives).
    void awaitArrival();
    /// Runs whenSubmissionsArrived()'s calls if no submission is on its way (or `anyway`).
    void runAfterArrival(bool anyway);

    /// Calls for the executor's thread, in the order made. One posted event runs every
    /// call made by the time it runs, before the executor's thread takes its next event:
    /// a batch of a thousand is started as headless starts it, in one go, before the
    /// answers to its first attempts are taken in.
    QMutex m_callsMutex;
    std::vector<std::function<void()>> m_calls;
    int m_callBatches = 0; ///< CallBatch objects alive (the caller's thread's)
    bool m_runOwed = false; ///< calls wait for the last CallBatch to end

    QMutex m_mutex; ///< guards m_pending, m_wakeOwed and m_heldSinceNs
    std::vector<Report> m_pending;
    std::atomic<int> m_submissionsOnTheirWay{0};
    std::atomic<qint64> m_reportHoldLimitMs{250};
    bool m_wakeOwed = false; ///< reports wait in m_pending for submissions on their way
    qint64 m_heldSinceNs = 0;
    /// Set by this thread while whenSubmissionsArrived() calls wait; the executor's thread
    /// takes it when the last submission on its way arrives, and posts runAfterArrival().
    std::atomic<bool> m_arrivalAwaited{false};
    std::vector<std::pair<QPointer<QObject>, std::function<void()>>> m_afterArrival;
    QTimer m_arrivalLimit; ///< reportHoldLimitMs() from the first waiting call
    std::vector<Report> m_delivered; ///< the batch being delivered (its room kept for the next)
    bool m_delivering = false;
    bool m_deferred = false; ///< a call came while delivering
    qint64 m_reportedAtNs = -1;

    BackoffPolicy m_policy;
    int m_concurrencyLimit = 6;
    quint64 m_seed = 0x5EEDULL;
    qint64 m_responseBodyLimit = 0;
    bool m_attemptHeaders = true;

    QHash<quint64, QString> m_active; ///< request id -> host, until its result is delivered
    int m_inFlight = 0;
    QSet<QString> m_hosts;
    QHash<QString, CircuitBreaker::State> m_circuits;
    double m_budgetTokens = 0.0;
    double m_budgetCapacity = 0.0;
    qint64 m_batches = 0;
    qint64 m_reports = 0;
};

} // namespace RetryLab::Core
