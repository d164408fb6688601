#pragma once

#include "core/executor/threadedexecutor.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/circuitbreaker.h"
#include "core/record/attemptrecord.h"
#include "core/record/runrecord.h"
#include "core/record/runstatistics.h"
#include "ui/session/run/attemptstore.h"
#include "ui/session/run/checkedrequests.h"
#include "ui/session/run/recordretention.h"
#include "ui/session/run/runspans.h"
#include "ui/session/run/runtext.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QTimer>

namespace RetryLab::Core {
class Clock;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

/// The live store of one run, shared by the error log, the timeline and the charts.
///
/// It listens to a ThreadedExecutor (or is fed records directly) and hands each record
/// to its parts: the compact rows and lanes (AttemptStore), the whole records kept within
/// a body budget (RecordRetention), the runs (RunSpans) and RunStatistics, fed as records
/// arrive. It keeps the run's clock, the breaker and budget state the executor reports,
/// and tells the views about changes through updated(), coalesced to at most one signal
/// per updateInterval() (33 ms, about 30 per second), however fast records arrive.
class RunSession final : public QObject
{
    Q_OBJECT

public:
    static constexpr quint32 noRow = AttemptStore::noRow;
    using AttemptRow = AttemptStore::AttemptRow;
    using Lane = AttemptStore::Lane;
    using RunSpan = RunSpans::RunSpan;

    explicit RunSession(QObject *parent = nullptr);
    ~RunSession() override;

    /// Listens to `executor` from now on; clears the session first, because request
    /// ids are only unique per executor. Null detaches.
    void attach(Core::ThreadedExecutor *executor);
    Core::ThreadedExecutor *executor() const { return m_executor; }

    /// Submits through the attached executor and remembers the spec; 0 when detached.
    quint64 submit(const Core::RequestSpec &spec);
    /// The same under a policy of the request's own (a policy per endpoint).
    quint64 submit(const Core::RequestSpec &spec, const Core::BackoffPolicy &policy);
    /// Remembers the spec of a request submitted elsewhere (labels, URL, exports).
    void noteRequest(quint64 requestId, const Core::RequestSpec &spec);
    /// The same under a policy of its own (a policy per endpoint), which its lane records.
    void noteRequest(quint64 requestId, const Core::RequestSpec &spec, const Core::BackoffPolicy &policy);

    /// Gives a submitted request checks (before its attempts are reported: right
    /// after submit()); when it ends, they are evaluated on its last attempt and
    /// checksEvaluated() says so. Empty checks are not kept.
    void setChecks(quint64 requestId, const RequestChecks &checks) { m_checked.setChecks(requestId, checks); }
    /// The checks of a request; null when it has none.
    const RequestChecks *checks(quint64 requestId) const { return m_checked.checks(requestId); }
    /// What its checks said; null while it runs or when it has none.
    const ChecksVerdict *checkVerdict(quint64 requestId) const { return m_checked.verdict(requestId); }

    /// Forgets everything; the time origin becomes now. Emits cleared() at once.
    void clear();

    /// Replaces the content with a recorded run (for replays and tests).
    void loadRunRecord(const Core::RunRecord &record);

    // Feeding records directly; the executor's signals end up here too.
    void recordAttemptStarted(quint64 requestId, int attemptIndex, qint64 startNs);
    void recordAttempt(const Core::AttemptRecord &record);
    void recordRetryScheduled(
        quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft, qint64 atNs);
    void recordResult(const Core::RequestResult &result);
    /// A breaker's and the budget's state, for a session with no executor attached
    /// (an attached one's are read from the executor).
    void recordCircuitState(const QString &host, Core::CircuitBreaker::State state);
    void recordBudget(double tokens, double capacity);

    /// The clock used for "now" when no executor is attached (tests); not owned.
    void setClock(const Core::Clock *clock) { m_clock = clock; }
    /// The executor's monotonic time now (or the clock's, or the latest time seen).
    qint64 nowNs() const;
    /// Time 0 of the run's axis: when the session was cleared or attached.
    qint64 originNs() const { return m_store.originNs(); }
    QDateTime startedAt() const { return m_store.startedAt(); }
    /// Latest instant anything happened at (now, while something is in flight or sleeping).
    qint64 latestNs() const;
    /// Milliseconds since originNs().
    double toRunMs(qint64 ns) const { return static_cast<double>(ns - originNs()) / 1e6; }
    QDateTime wallTimeOf(qint64 ns) const { return m_store.wallTimeOf(ns); }

    /// The parts, for readers that want one of them whole.
    const AttemptStore &store() const { return m_store; }
    const RecordRetention &records() const { return m_records; }
    const RunSpans &spans() const { return m_spans; }

    // The rows (AttemptStore).
    qsizetype attemptRowCount() const { return m_store.attemptRowCount(); }
    const AttemptRow &attemptRow(qsizetype row) const { return m_store.attemptRow(row); }
    qsizetype finishedCount() const { return m_store.finishedCount(); }
    quint32 finishedRow(qsizetype finishedIndex) const { return m_store.finishedRow(finishedIndex); }
    qsizetype finishedIndexOfRow(qsizetype row) const { return m_store.finishedIndexOfRow(row); }
    qsizetype laneCount() const { return m_store.laneCount(); }
    const Lane &lane(qsizetype lane) const { return m_store.lane(lane); }
    qsizetype laneOf(quint64 requestId) const { return m_store.laneOf(requestId); }
    const QString &string(quint32 id) const { return m_store.string(id); }
    const StringPool &strings() const { return m_store.strings(); }
    const Core::RequestSpec *spec(qsizetype lane) const { return m_store.spec(lane); }
    qsizetype specCount() const { return m_store.specCount(); }
    const QList<Core::BackoffPolicy> &policies() const { return m_store.policies(); }
    const Core::BackoffPolicy *policy(qsizetype lane) const { return m_store.policy(lane); }
    const Core::RequestSpec &specAt(quint32 index) const { return m_store.specAt(index); }
    QString stepOf(const AttemptRow &row) const { return m_store.stepOf(row); }
    QByteArray methodOf(const AttemptRow &row) const { return m_store.methodOf(row); }
    QByteArray reasonPhraseOf(const AttemptRow &row) const { return m_store.reasonPhraseOf(row); }
    qsizetype detailCount() const { return m_store.detailCount(); }

    // Their texts (RunText).
    QString detailText(quint32 detail) const { return RunText::detailText(m_store, detail); }
    QString laneTitle(qsizetype lane) const { return RunText::laneTitle(m_store, lane); }
    QString statusText(const AttemptRow &row) const { return RunText::statusText(m_store, row); }

    // The runs (RunSpans).
    QList<RunSpan> runs() const { return m_spans.runs(); }
    qsizetype latestRunFirstLane() const { return m_spans.latestRunFirstLane(); }
    Core::RunStatistics statisticsOf(qsizetype firstLane, qsizetype endLane) const
    {
        return m_spans.statisticsOf(firstLane, endLane, originNs());
    }
    QPair<int, int> activityOf(qsizetype firstLane, qsizetype endLane) const
    {
        return m_spans.activityOf(firstLane, endLane);
    }

    int inFlightCount() const { return m_store.inFlightCount(); }
    int runningRequestCount() const { return m_store.runningRequestCount(); }
    bool hasActivity() const { return runningRequestCount() > 0; }

    const Core::RunStatistics &statistics() const { return m_statistics; }

    // The breakers and the retry budget: the one place the window reads them from.
    /// The circuit breaker of each host: the executor's, as it last reported them, while
    /// one is attached (a breaker outlives the run it opened in); else what was recorded.
    QHash<QString, Core::CircuitBreaker::State> circuitStates() const;
    /// The retry budget's tokens and capacity, from the same source.
    double budgetTokens() const;
    double budgetCapacity() const;

    // The records (RecordRetention), for exports.
    void setRetainedRecordLimit(qsizetype limit) { m_records.setRetainedRecordLimit(limit); }
    qsizetype retainedRecordLimit() const { return m_records.retainedRecordLimit(); }
    bool isRecordComplete() const { return m_records.isComplete(); }
    void setBodyBudget(qint64 bytes) { m_records.setBodyBudget(bytes); }
    qint64 bodyBudget() const { return m_records.bodyBudget(); }
    qint64 bodyBytesHeld() const { return m_records.bodyBytesHeld(); }
    qsizetype droppedBodyCount() const { return m_records.droppedBodyCount(); }
    Core::AttemptRecord attemptRecord(qsizetype finishedIndex) const { return m_records.attemptRecord(finishedIndex); }
    Core::RequestResult requestResult(qsizetype resultIndex) const { return m_records.requestResult(resultIndex); }
    qsizetype resultCount() const { return m_store.resultCount(); }
    /// The whole run as the exports read it.
    Core::RunRecord runRecord() const { return m_records.runRecord(m_policy); }
    /// Only the given finished attempts (for "export visible rows"), with the specs and
    /// results of their requests.
    Core::RunRecord runRecord(const QList<qsizetype> &finishedIndexes) const
    {
        return m_records.runRecord(finishedIndexes, m_policy);
    }

    void setUpdateInterval(int ms) { m_flushTimer.setInterval(ms); }
    int updateInterval() const { return m_flushTimer.interval(); }
    /// Counts flushes; views compare it to see whether anything changed.
    quint64 revision() const { return m_revision; }

public Q_SLOTS:
    /// Emits updated() now if anything changed since the last one.
    void flush();

Q_SIGNALS:
    /// Rows, lanes or statistics changed (coalesced).
    void updated();
    /// Everything was forgotten; models reset.
    void cleared();
    /// A request with checks ended and they were evaluated (checkVerdict()); at once,
    /// not coalesced, so that values it took reach the next request.
    void checksEvaluated(quint64 requestId);

private:
    /// When what the executor reports now happened (a batch reaches this thread later).
    qint64 reportedAtNs() const { return m_executor ? m_executor->reportedAtNs() : nowNs(); }
    void handleAttemptStarted(quint64 requestId, int attemptIndex);
    void handleRetryScheduled(
        quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft);
    void noteTime(qint64 ns);
    void markDirty();
    /// The timer's flush(): put off while a batch is on its way to the executor.
    void flushWhenDue();
    void resetOrigin();

    QPointer<Core::ThreadedExecutor> m_executor;
    const Core::Clock *m_clock = nullptr;
    Core::BackoffPolicy m_policy;
    qint64 m_latestNs = 0;

    AttemptStore m_store;
    RecordRetention m_records{m_store};
    RunSpans m_spans{m_store, m_records};
    Core::RunStatistics m_statistics;
    CheckedRequests m_checked;
    QHash<QString, Core::CircuitBreaker::State> m_circuitStates;
    double m_budgetTokens = 0.0;
    double m_budgetCapacity = 0.0;

    bool m_dirty = false;
    quint64 m_revision = 0;
    QTimer m_flushTimer;
    bool m_flushAwaits = false; ///< a flush waits for a batch on its way to the executor
};

} // namespace RetryLab::Ui
