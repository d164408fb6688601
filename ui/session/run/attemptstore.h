#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/record/runstatistics.h"
#include "ui/session/run/chunkedvector.h"
#include "ui/session/run/stringpool.h"

#include <QDateTime>
#include <QHash>
#include <QList>

#include <limits>
#include <optional>
#include <vector>

namespace RetryLab::Ui {

/// The rows and lanes of one run, compact and interned, on the run's time axis:
/// - one AttemptRow per attempt, in the order attempts started (in-flight ones
///   included), with every string interned: 88 bytes per row, no heap per row;
/// - the finished attempts in the order they finished (4 bytes each), which is the
///   order of RunRecord::attempts, and the lanes of the results in theirs;
/// - one Lane per logical request, with the index of its spec and of its policy.
///
/// A plain store: RunSession feeds it and tells the views, RecordRetention keeps
/// whole records beside it and rebuilds the rest from its rows.
class AttemptStore final
{
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
        quint8 hedging = 0; ///< hedgedBit, winnerBit: Core::AttemptRecord::hedged, hedgeWinner
        Core::AttemptOutcome outcome = Core::AttemptOutcome::InFlight;
        /// Milliseconds from startNs to the end of its last auth step (a token
        /// fetched first, a Digest challenge answered), saturating; 0: none.
        quint16 authMs = 0;

        bool inFlight() const { return outcome == Core::AttemptOutcome::InFlight; }
        static constexpr quint8 hedgedBit = 1;
        static constexpr quint8 winnerBit = 2;
        bool hedged() const { return hedging & hedgedBit; }
        bool hedgeWinner() const { return hedging & winnerBit; }
    };

    /// One logical request.
    struct Lane
    {
        quint64 requestId = 0;
        qint64 firstStartNs = -1;
        qint64 endNs = -1; ///< when its result arrived; -1 while running
        quint32 firstRow = noRow;
        quint32 lastRow = noRow;
        quint32 openRow = noRow; ///< the attempt in flight now; under hedging the latest of those
        quint32 openRows = 0; ///< attempts in flight now: more than one only under hedging
        quint32 attempts = 0; ///< rows so far
        quint32 spec = noRow; ///< index into the spec table; noRow when unknown
        quint32 policy = noRow; ///< index into policies(); noRow when unknown
        quint32 label = 0; ///< interned
        quint32 resultReason = 0; ///< interned
        /// Interned: RequestResult::fallbackTriggers joined by commas (empty for most requests).
        quint32 fallbackTriggers = 0;
        float pendingDelayMs = -1.0F; ///< a retry is planned and has not started
        quint32 lastFinished = noRow; ///< finished index of its latest finished attempt
        qint64 pendingSinceNs = -1;
        qint32 attemptsLeft = -1;
        qint16 finalStatus = -1;
        quint8 outcome = 0; ///< Core::RequestOutcome, once finished
        bool finished = false;

        bool sleeping() const { return pendingDelayMs >= 0.0F && openRow == noRow && !finished; }
    };

    /// What varies little per attempt but is needed to rebuild a record (AttemptRow::detail).
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

    /// "host:port" of a URL (IPv6 in brackets), never its user info: how lanes tell hosts apart.
    static QString hostOf(const QUrl &url);

    /// Forgets every row, lane, spec and policy; the time axis stays.
    void clear();

    // The time axis.
    void setOrigin(qint64 originNs, const QDateTime &startedAt);
    /// Time 0 of the run's axis.
    qint64 originNs() const { return m_originNs; }
    QDateTime startedAt() const { return m_startedAt; }
    /// The wall time of an instant on the axis; invalid when the start is unknown.
    QDateTime wallTimeOf(qint64 ns) const;

    // Feeding. Each returns what RecordRetention needs to keep the record beside the row.
    /// The lane of a request, made (and counted as running) when it is new.
    quint32 laneFor(quint64 requestId);
    /// Notes a request's spec and label. Returns the index of the spec entry it added,
    /// or -1 when it repeats the previous request's spec (a batch keeps one).
    qsizetype noteRequest(quint64 requestId, const Core::RequestSpec &spec);
    /// Notes the policy a request was sent with.
    void setPolicy(quint64 requestId, const Core::BackoffPolicy &policy);
    /// An attempt started: its row, or noRow when its request had already finished.
    quint32 startAttempt(quint64 requestId, int attemptIndex, qint64 startNs);
    /// An attempt finished: its finished index.
    qsizetype finishAttempt(const Core::AttemptRecord &record);
    /// A retry was planned after the request's latest attempt.
    void scheduleRetry(quint64 requestId, double delayMs, const QString &reason, int attemptsLeft, qint64 atNs);
    /// A request's result: its lane, or noRow when the request had a result already.
    quint32 finishRequest(const Core::RequestResult &result);
    /// Drops the body of a spec entry; returns the bytes it held.
    qsizetype dropSpecBody(qsizetype specIndex);

    // Reading.
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
    /// Results in the order they arrived, each by its lane.
    qsizetype resultCount() const { return qsizetype(m_resultLanes.size()); }
    quint32 resultLane(qsizetype resultIndex) const { return m_resultLanes[std::size_t(resultIndex)]; }
    const QString &string(quint32 id) const { return m_strings.at(id); }
    const StringPool &strings() const { return m_strings; }
    /// The spec of a lane's request, or null when it is not known.
    const Core::RequestSpec *spec(qsizetype lane) const;
    qsizetype specCount() const { return m_specs.size(); }
    const Core::RequestSpec &specAt(quint32 index) const { return m_specs.at(index); }
    /// Every policy requests were sent with, in the order each was first used.
    const QList<Core::BackoffPolicy> &policies() const { return m_policies; }
    /// The policy a lane's request was sent with, or null when it is not known.
    const Core::BackoffPolicy *policy(qsizetype lane) const;
    /// Whether requests went to more than one host (lane titles then name hosts).
    bool mixedHosts() const { return m_mixedHosts; }

    /// Parts of AttemptRow::detail.
    const Detail &detailOf(const AttemptRow &row) const;
    QString stepOf(const AttemptRow &row) const { return detailOf(row).step; }
    QByteArray methodOf(const AttemptRow &row) const;
    QByteArray reasonPhraseOf(const AttemptRow &row) const { return detailOf(row).reasonPhrase; }
    qsizetype detailCount() const { return m_details.size(); }
    const Detail &detail(quint32 id) const;

    int inFlightCount() const { return m_inFlight; } ///< attempts in flight, hedged ones each
    int runningRequestCount() const { return m_running; }

private:
    quint32 appendRow(quint32 lane, int attemptIndex, qint64 startNs);
    /// The latest row of `lane` still in flight, of that attempt when given; noRow for none.
    quint32 openRowOf(const Lane &lane, std::optional<quint32> attemptIndex) const;
    void fillRow(AttemptRow &row, const Core::AttemptRecord &record);
    quint32 internDetail(const Core::AttemptRecord &record);
    quint32 policyIndex(const Core::BackoffPolicy &policy);

    qint64 m_originNs = 0;
    QDateTime m_startedAt;

    ChunkedVector<AttemptRow> m_rows;
    ChunkedVector<quint32> m_finished;
    ChunkedVector<Lane> m_lanes;
    QHash<quint64, qsizetype> m_laneOf;
    std::vector<quint32> m_resultLanes;
    StringPool m_strings;
    QList<Detail> m_details;
    QHash<Detail, quint32> m_detailIds;
    QList<Core::RequestSpec> m_specs; ///< consecutive equal specs (a batch) share one entry
    QString m_firstHost; ///< host:port of the first request noted
    bool m_mixedHosts = false;
    QList<Core::BackoffPolicy> m_policies;
    int m_inFlight = 0;
    int m_running = 0;
};

} // namespace RetryLab::Ui
