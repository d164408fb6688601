#pragma once

#include "core/record/runrecord.h"

#include <QHash>
#include <QObject>

#include <deque>

namespace RetryLab::Core {

class RetryExecutor;

/// Collects an executor's signals into a RunRecord.
///
/// Request and response bodies are kept within bodyBudget() bytes in all, as in the
/// window: beyond it the oldest are dropped first and their records say so
/// (AttemptRecord::requestBodyDropped, responseBodyDropped), so that a long
/// scenario does not hold every body it ever received. A request body that is
/// the request's own (the spec's, shared) costs nothing; so does a result's body,
/// which is its last attempt's.
class RunRecorder final : public QObject
{
    Q_OBJECT

public:
    static constexpr qint64 defaultBodyBudget = 32LL * 1024 * 1024;

    explicit RunRecorder(RetryExecutor *executor, QObject *parent = nullptr);

    /// Submits through the executor and remembers the request.
    quint64 submit(const RequestSpec &request);
    /// Submits under a policy of the request's own (RetryExecutor::submit(spec, policy)).
    quint64 submit(const RequestSpec &request, const BackoffPolicy &policy);

    const RunRecord &record() const { return m_record; }
    RunRecord takeRecord();
    /// The seed the whole run was drawn from (RunRecord::seed); kept by clear().
    void setRunSeed(std::optional<quint64> seed) { m_record.seed = seed; }
    void clear();

    /// At most this many bytes of bodies are held (>= 0); the oldest go first.
    void setBodyBudget(qint64 bytes);
    qint64 bodyBudget() const { return m_bodyBudget; }
    qint64 bodyBytesHeld() const { return m_bodyBytes; }
    /// Bodies dropped to stay within the budget.
    qsizetype droppedBodyCount() const { return m_droppedBodies; }

private:
    void handleAttemptFinished(const AttemptRecord &record);
    void handleRequestFinished(const RequestResult &result);

    struct HeldBody
    {
        enum class Kind : quint8 { AttemptRequest, AttemptResponse, Result };
        Kind kind = Kind::AttemptResponse;
        qsizetype index = 0; ///< into attempts or results
    };
    void hold(HeldBody::Kind kind, qsizetype index, qsizetype bytes);
    void enforceBodyBudget();

    RetryExecutor *m_executor;
    RunRecord m_record;
    QHash<quint64, qsizetype> m_lastAttempt; ///< request id -> index into attempts
    QHash<quint64, qsizetype> m_resultOf; ///< request id -> index into results
    std::deque<HeldBody> m_heldBodies;
    qint64 m_bodyBudget = defaultBodyBudget;
    qint64 m_bodyBytes = 0;
    qsizetype m_droppedBodies = 0;
};

} // namespace RetryLab::Core
