#pragma once

#include "core/executor/threadedexecutor.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/circuitbreaker.h"
#include "core/record/attemptrecord.h"
#include "core/record/runrecord.h"
#include "core/record/runstatistics.h"
#include "ui/session/run/chunkedvector.h"
#include "ui/session/run/stringpool.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QTimer>

#include <array>
#include <deque>
#include <limits>

namespace RetryLab::Core {
class Clock;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

/// The live store of one run, shared by the error log, the timeline and the charts.
///
/// It listens to a ThreadedExecutor (or is fed records directly) and keeps:
/// - one compact AttemptRow per attempt, in the order attempts started (in-flight ones
///   included), with every string interned: 88 bytes per row, no heap per row;
/// - the finished attempts in the order they finished (4 bytes each), which is the
///   order of RunRecord::attempts;
/// - one Lane per logical request, with its spec, its retry plan and its result;
/// - RunStatistics, fed as records arrive;
/// - the full AttemptRecord / RequestResult of the most recent retainedRecordLimit()
///   finished attempts and results. Older ones are rebuilt from the compact rows when a
///   RunRecord is asked for: everything but the headers (taken from the request spec
///   instead), connection timing points and response bodies. isRecordComplete() says
///   whether that happened;
/// - request bodies (in the specs and in the attempts) and response bodies (in the
///   attempts and the results) only within bodyBudget() bytes in all: beyond it the
///   oldest bodies are dropped, while the records and statistics stay complete.
///   droppedBodyCount() says how many, and each record says which of its bodies went
///   (AttemptRecord::requestBodyDropped, responseBodyDropped). A body held twice is
///   counted once: an attempt's request body that is its spec's, and a result's body
///   that is its last attempt's response, are taken from there when asked for.
///
/// Views are told about changes through updated(), coalesced to at most one signal per
/// updateInterval() (33 ms, about 30 per second), however fast records arrive.
class RunSession final : public QObject
{
    Q_OBJECT

public:
    static constexpr quint32 noRow = std::numeric_limits<quint32>::max();

    /// One attempt, compact. Times are on the executor's monotonic clock.
    struct AttemptRow
    {
        qint64 startNs = -1;
        qint64 endNs = -1; ///< -1 while in flight
        quint32 lane = 0;
        quint32 attemptIndex = 0;
        quint32 nextInLane = noRow; ///< the next attempt row of the same request
        float plannedDelayMs = 0.0F; ///< the delay the policy chose before this attempt
        float actualDelayMs = 0.0F; ///< what the timer gave
        float nextDelayMs = -1.0F; ///< the delay scheduled after it; -1 none
        float retryAfterMs = -1.0F; ///< the server's Retry-After; -1 none
        float queuedMs = 0.0F;
        float firstByteMs = -1.0F; ///< since startNs; -1 not reported
        quint32 bytesReceived = 0; ///< saturates at 4 GiB
        quint32 cause = 0; ///< interned strings (see string())
        quint32 reason = 0;
        quint32 errorString = 0;
        quint32 retryNote = 0; ///< why and how the next retry was scheduled
        quint32 detail = 0; ///< interned step, method, reason phrase, Retry-After, round
        qint16 httpStatus = -1;
        qint16 networkError = 0;
        quint8 end = 0; ///< Core::AttemptEnd
        quint8 decision = 0; ///< Core::Classification::Decision
        quint8 fallback = 0; ///< Core::AttemptRecord::fallback: 0 the request's URL, n its n-th fallback
        Core::AttemptOutcome outcome = Core::AttemptOutcome::InFlight;

        bool inFlight() const { return outcome == Core::AttemptOutcome::InFlight; }
    };

    /// One logical request.
    struct Lane
    {
        quint64 requestId = 0;
        qint64 firstStartNs = -1;
        qint64 endNs = -1; ///< when its result arrived; -1 while running
        quint32 firstRow = noRow;
        quint32 lastRow = noRow;
        quint32 openRow = noRow; ///< the attempt in flight now
        quint32 attempts = 0; ///< rows so far
        quint32 spec = noRow; ///< index into the spec table; noRow when unknown
        quint32 policy = noRow; ///< index into policies(); noRow when unknown
        quint32 label = 0; ///< interned
        quint32 resultReason = 0; ///< interned
        float pendingDelayMs = -1.0F; ///< a retry is planned and has not started
        quint32 lastFinished = noRow; ///< finished index of its latest finished attempt
        qint64 pendingSinceNs = -1;
        qint32 attemptsLeft = -1;
        qint16 finalStatus = -1;
        quint8 outcome = 0; ///< Core::RequestOutcome, once finished
        bool finished = false;

        bool sleeping() const { return pendingDelayMs >= 0.0F && openRow == noRow && !finished; }
    };

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
    void recordCircuitState(const QString &host, Core::CircuitBreaker::State state);
    void recordBudget(double tokens, double capacity);

    /// The clock used for "now" when no executor is attached (tests); not owned.
    void setClock(const Core::Clock *clock) { m_clock = clock; }
    /// The executor's monotonic time now (or the clock's, or the latest time seen).
    qint64 nowNs() const;
    /// Time 0 of the run's axis: when the session was cleared or attached.
    qint64 originNs() const { return m_originNs; }
    QDateTime startedAt() const { return m_startedAt; }
    /// Latest instant anything happened at (now, while something is in flight or sleeping).
    qint64 latestNs() const;
    /// Milliseconds since originNs().
    double toRunMs(qint64 ns) const { return static_cast<double>(ns - m_originNs) / 1e6; }
    QDateTime wallTimeOf(qint64 ns) const;

    // The rows.
    qsizetype attemptRowCount() const { return m_rows.size(); }
    const AttemptRow &attemptRow(qsizetype row) const { return m_rows[row]; }
    qsizetype finishedCount() const { return m_finished.size(); }
    quint32 finishedRow(qsizetype finishedIndex) const { return m_finished[finishedIndex]; }
    /// The finished-attempt index of an attempt row; -1 while it is in flight. Searches
    /// from the newest, where the rows people click on usually are.
    qsizetype finishedIndexOfRow(qsizetype row) const;
    qsizetype laneCount() const { return m_lanes.size(); }
    const Lane &lane(qsizetype lane) const { return m_lanes[lane]; }
    /// Lane of a request id; -1 when unknown.
    qsizetype laneOf(quint64 requestId) const { return m_laneOf.value(requestId, -1); }
    const QString &string(quint32 id) const { return m_strings.at(id); }
    const StringPool &strings() const { return m_strings; }
    /// The spec of a lane's request, or null when it is not known.
    const Core::RequestSpec *spec(qsizetype lane) const;
    qsizetype specCount() const { return m_specs.size(); }
    /// Every policy requests were sent with, in the order each was first used: the
    /// policy can change between requests of one run.
    const QList<Core::BackoffPolicy> &policies() const { return m_policies; }
    /// The policy a lane's request was sent with, or null when it is not known.
    const Core::BackoffPolicy *policy(qsizetype lane) const;
    const Core::RequestSpec &specAt(quint32 index) const { return m_specs.at(index); }

    /// Parts of AttemptRow::detail.
    QString stepOf(const AttemptRow &row) const;
    QByteArray methodOf(const AttemptRow &row) const;
    QByteArray reasonPhraseOf(const AttemptRow &row) const;
    /// Interned details (AttemptRow::detail): their count, and method, step and reason
    /// phrase as one searchable text.
    qsizetype detailCount() const { return m_details.size(); }
    QString detailText(quint32 detail) const;
    /// "#12 label" or "#12 GET /path" for lanes and tooltips; credentials never shown.
    /// Once the run holds requests to two hosts, every title names its host
    /// ("#12 GET 127.0.0.1:8080/path", "#12 label @ host").
    QString laneTitle(qsizetype lane) const;
    /// One run: the requests sent from a moment nothing was running until the next
    /// such moment (a send, a batch, a repeat), lanes [firstLane, endLane).
    struct RunSpan
    {
        qsizetype firstLane = 0;
        qsizetype endLane = 0;
        qint64 startNs = -1; ///< its first attempt's start; -1 before any started
        qint64 endNs = -1; ///< when its last request finished; -1 while one runs
        qsizetype requestCount() const { return endLane - firstLane; }
    };
    /// The session's runs, oldest first; none while it is empty. O(lanes) when
    /// anything changed since the last call, else the list kept from it.
    QList<RunSpan> runs() const;
    /// The first lane of the latest run: the requests sent after the last moment
    /// nothing was running (0 when the session never fell idle between requests).
    qsizetype latestRunFirstLane() const;
    /// The statistics of the requests of lanes [firstLane, endLane) alone, errors over
    /// time counted from the first of them. O(attempts) for a part of the session;
    /// statistics() is kept as records arrive, for all of it.
    Core::RunStatistics statisticsOf(qsizetype firstLane, qsizetype endLane) const;
    /// Of lanes [firstLane, endLane): requests not finished, and attempts in flight.
    QPair<int, int> activityOf(qsizetype firstLane, qsizetype endLane) const;
    /// "503 Service Unavailable", "connection refused (ConnectionRefusedError)", "in flight", ...
    QString statusText(const AttemptRow &row) const;

    int inFlightCount() const { return m_inFlight; }
    int runningRequestCount() const { return m_running; }
    bool hasActivity() const { return m_running > 0; }

    const Core::RunStatistics &statistics() const { return m_statistics; }
    const QHash<QString, Core::CircuitBreaker::State> &circuitStates() const { return m_circuitStates; }
    double budgetTokens() const { return m_budgetTokens; }
    double budgetCapacity() const { return m_budgetCapacity; }

    // Exports.
    /// Full records kept for the most recent `limit` finished attempts and results (>= 0).
    void setRetainedRecordLimit(qsizetype limit);
    qsizetype retainedRecordLimit() const { return m_retainLimit; }
    /// True when every record of runRecord() is the executor's original.
    bool isRecordComplete() const;
    /// Request and response bodies kept, at most this many bytes in all (>= 0); the
    /// oldest are dropped first. A long repeat or a large batch would grow without it.
    void setBodyBudget(qint64 bytes);
    qint64 bodyBudget() const { return m_bodyBudget; }
    /// Bytes of request and response bodies held now (<= bodyBudget()).
    qint64 bodyBytesHeld() const { return m_bodyBytes; }
    /// Bodies dropped to stay within the budget.
    qsizetype droppedBodyCount() const { return m_droppedBodies; }
    /// The finished attempt, original or rebuilt from its row.
    Core::AttemptRecord attemptRecord(qsizetype finishedIndex) const;
    /// A request's result, original or rebuilt; `resultIndex` in order of finishing.
    Core::RequestResult requestResult(qsizetype resultIndex) const;
    qsizetype resultCount() const { return qsizetype(m_resultLanes.size()); }
    /// The whole run as the exports read it.
    Core::RunRecord runRecord() const;
    /// Only the given finished attempts (for "export visible rows"), with the specs and
    /// results of their requests.
    Core::RunRecord runRecord(const QList<qsizetype> &finishedIndexes) const;

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

private:
    /// When what the executor reports now happened (a batch reaches this thread later).
    qint64 reportedAtNs() const { return m_executor ? m_executor->reportedAtNs() : nowNs(); }
    void handleAttemptStarted(quint64 requestId, int attemptIndex);
    void handleRetryScheduled(
        quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft);

    quint32 laneFor(quint64 requestId);
    quint32 appendRow(quint32 lane, int attemptIndex, qint64 startNs);
    void fillRow(AttemptRow &row, const Core::AttemptRecord &record);
    quint32 internDetail(const Core::AttemptRecord &record);
    Core::AttemptRecord rebuildAttempt(quint32 row) const;
    Core::RequestResult rebuildResult(quint32 lane) const;
    void noteTime(qint64 ns);
    void enforceBodyBudget();
    void markDirty();
    void resetOrigin();

    QPointer<Core::ThreadedExecutor> m_executor;
    const Core::Clock *m_clock = nullptr;
    Core::BackoffPolicy m_policy;
    qint64 m_originNs = 0;
    QDateTime m_startedAt;
    qint64 m_latestNs = 0;

    ChunkedVector<AttemptRow> m_rows;
    ChunkedVector<quint32> m_finished;
    ChunkedVector<Lane> m_lanes;
    QHash<quint64, qsizetype> m_laneOf;
    std::vector<quint32> m_resultLanes;
    StringPool m_strings;
    /// What varies little per attempt but is needed to rebuild a record.
    struct Detail
    {
        QString step;
        QByteArray method;
        QByteArray reasonPhrase;
        QByteArray retryAfterRaw;
        int sequenceRound = 0;

        friend bool operator==(const Detail &, const Detail &) = default;
        friend size_t qHash(const Detail &d, size_t seed = 0)
        {
            return qHashMulti(seed, d.step, d.method, d.reasonPhrase, d.retryAfterRaw, d.sequenceRound);
        }
    };
    QList<Detail> m_details;
    const Detail &detailOf(const AttemptRow &row) const;
    QHash<Detail, quint32> m_detailIds;
    QList<Core::RequestSpec> m_specs; ///< consecutive equal specs (a batch) share one entry
    QString m_firstHost; ///< host:port of the first request noted
    bool m_mixedHosts = false; ///< a request went to another host: lane titles name hosts
    QList<Core::BackoffPolicy> m_policies;
    quint32 policyIndex(const Core::BackoffPolicy &policy);

    /// A finished attempt kept whole. Its request body, when it is its spec's, is
    /// not kept twice: attemptRecord() takes it from the spec.
    struct KeptAttempt
    {
        Core::AttemptRecord record;
        bool requestBodyInSpec = false;
    };
    /// A result kept whole. Its body, when it is its last attempt's response body,
    /// is not kept twice: requestResult() takes it from that attempt.
    struct KeptResult
    {
        Core::RequestResult result;
        qsizetype bodyOfAttempt = -1; ///< finished index, or -1
    };
    std::deque<KeptAttempt> m_fullAttempts; ///< the last finished ones, in finish order
    std::deque<KeptResult> m_fullResults;
    qsizetype firstKeptAttempt() const { return m_finished.size() - qsizetype(m_fullAttempts.size()); }
    qsizetype firstKeptResult() const { return resultCount() - qsizetype(m_fullResults.size()); }
    static qint64 heldBytesOf(const KeptAttempt &kept);
    qsizetype m_retainLimit = 20'000;
    qsizetype m_droppedAttempts = 0;
    qsizetype m_droppedResults = 0;

    /// A body held, in the order they arrived: of m_specs[index], of the result with
    /// this index in finishing order, or of the finished attempt with this index
    /// (gone from m_fullResults / m_fullAttempts once it is rebuilt).
    struct HeldBody
    {
        enum Kind : quint8 { Spec, Result, AttemptRequest, AttemptResponse };
        Kind kind = Spec;
        qsizetype index = 0;
    };
    void holdBody(HeldBody::Kind kind, qsizetype index, qsizetype bytes);
    std::deque<HeldBody> m_heldBodies;
    qint64 m_bodyBudget = 32LL * 1024 * 1024;
    qint64 m_bodyBytes = 0;
    qsizetype m_droppedBodies = 0;

    Core::RunStatistics m_statistics;
    mutable QList<RunSpan> m_runs; ///< runs(), as of the sizes in m_runsKey
    mutable std::array<qsizetype, 3> m_runsKey{-1, -1, -1};
    QHash<QString, Core::CircuitBreaker::State> m_circuitStates;
    double m_budgetTokens = 0.0;
    double m_budgetCapacity = 0.0;

    int m_inFlight = 0;
    int m_running = 0;
    bool m_dirty = false;
    quint64 m_revision = 0;
    QTimer m_flushTimer;
};

} // namespace RetryLab::Ui
