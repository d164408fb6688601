#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/record/runrecord.h"

#include <QList>

#include <deque>

namespace RetryLab::Ui {

class AttemptStore;

/// The whole records of a run beside its compact rows (AttemptStore):
/// - the full AttemptRecord / RequestResult of the most recent retainedRecordLimit()
///   finished attempts and results. Older ones are rebuilt from the rows when asked
///   for: everything but the headers (taken from the request spec instead), connection
///   timing points and response bodies. isComplete() says whether that happened;
/// - request bodies (in the specs and in the attempts) and response bodies (in the
///   attempts and the results) only within bodyBudget() bytes in all: beyond it the
///   oldest bodies are dropped, while the records stay complete. droppedBodyCount()
///   says how many, and each record says which of its bodies went
///   (AttemptRecord::requestBodyDropped, responseBodyDropped). A body held twice is
///   counted once: an attempt's request body that is its spec's, and a result's body
///   that is its last attempt's response, are taken from there when asked for.
class RecordRetention final
{
public:
    /// Reads the rows of `store`, and drops spec bodies there to keep the budget.
    explicit RecordRetention(AttemptStore &store);

    void clear();

    /// A spec entry the store added holds `bytes` of body.
    void holdSpecBody(qsizetype specIndex, qsizetype bytes);
    /// Keeps an attempt the store has just finished under `finishedIndex`.
    void keepAttempt(const Core::AttemptRecord &record, qsizetype finishedIndex);
    /// Keeps a result the store has just noted as its latest.
    void keepResult(const Core::RequestResult &result);

    /// Full records kept for the most recent `limit` finished attempts and results (>= 0).
    void setRetainedRecordLimit(qsizetype limit);
    qsizetype retainedRecordLimit() const { return m_retainLimit; }
    /// True when every record is the executor's original.
    bool isComplete() const { return m_droppedAttempts == 0 && m_droppedResults == 0; }
    /// Bodies kept, at most this many bytes in all (>= 0); the oldest are dropped first.
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
    /// The whole run as the exports read it, `policy` being the run's.
    Core::RunRecord runRecord(const Core::BackoffPolicy &policy) const;
    /// Only the given finished attempts, with the specs and results of their requests.
    Core::RunRecord runRecord(const QList<qsizetype> &finishedIndexes, const Core::BackoffPolicy &policy) const;

private:
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
    /// A body held, in the order they arrived: of the spec entry with this index, of the
    /// result with this index in finishing order, or of the finished attempt with this
    /// index (gone from m_fullResults / m_fullAttempts once it is rebuilt).
    struct HeldBody
    {
        enum Kind : quint8 { Spec, Result, AttemptRequest, AttemptResponse };
        Kind kind = Spec;
        qsizetype index = 0;
    };

    qsizetype firstKeptAttempt() const;
    qsizetype firstKeptResult() const;
    static qint64 heldBytesOf(const KeptAttempt &kept);
    void holdBody(HeldBody::Kind kind, qsizetype index, qsizetype bytes);
    void enforceBodyBudget();
    Core::AttemptRecord rebuildAttempt(quint32 row) const;
    Core::RequestResult rebuildResult(quint32 lane) const;

    AttemptStore &m_store;
    std::deque<KeptAttempt> m_fullAttempts; ///< the last finished ones, in finish order
    std::deque<KeptResult> m_fullResults;
    qsizetype m_retainLimit = 20'000;
    qsizetype m_droppedAttempts = 0;
    qsizetype m_droppedResults = 0;
    std::deque<HeldBody> m_heldBodies;
    qint64 m_bodyBudget = 32LL * 1024 * 1024;
    qint64 m_bodyBytes = 0;
    qsizetype m_droppedBodies = 0;
};

} // namespace RetryLab::Ui
