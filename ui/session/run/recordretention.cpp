#include "ui/session/run/recordretention.h"

#include "ui/session/run/attemptstore.h"

#include <QSet>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

RecordRetention::RecordRetention(AttemptStore &store) : m_store(store)
{ }

void RecordRetention::clear()
{
    m_fullAttempts.clear();
    m_fullResults.clear();
    m_droppedAttempts = 0;
    m_droppedResults = 0;
    m_heldBodies.clear();
    m_bodyBytes = 0;
    m_droppedBodies = 0;
}

qsizetype RecordRetention::firstKeptAttempt() const
{
    return m_store.finishedCount() - qsizetype(m_fullAttempts.size());
}

qsizetype RecordRetention::firstKeptResult() const
{
    return m_store.resultCount() - qsizetype(m_fullResults.size());
}

void RecordRetention::holdSpecBody(qsizetype specIndex, qsizetype bytes)
{
    holdBody(HeldBody::Spec, specIndex, bytes);
}

void RecordRetention::keepAttempt(const AttemptRecord &record, qsizetype finishedIndex)
{
    if (m_retainLimit <= 0) {
        ++m_droppedAttempts;
        return;
    }
    KeptAttempt kept;
    kept.record = record;
    const RequestSpec *s = m_store.spec(m_store.laneOf(record.requestId));
    if (!record.requestBody.isEmpty() && s && s->body == record.requestBody) {
        kept.record.requestBody = QByteArray();
        kept.requestBodyInSpec = true;
    }
    const qsizetype requestBytes = kept.record.requestBody.size();
    m_fullAttempts.push_back(std::move(kept));
    holdBody(HeldBody::AttemptRequest, finishedIndex, requestBytes);
    holdBody(HeldBody::AttemptResponse, finishedIndex, record.responseBody.size());
    if (qsizetype(m_fullAttempts.size()) > m_retainLimit) {
        m_bodyBytes -= heldBytesOf(m_fullAttempts.front());
        m_fullAttempts.pop_front();
        ++m_droppedAttempts;
    }
}

void RecordRetention::keepResult(const RequestResult &result)
{
    if (m_retainLimit <= 0) {
        ++m_droppedResults;
        return;
    }
    KeptResult kept;
    kept.result = result;
    // The executor's result carries its last attempt's response body: keep it once.
    const AttemptStore::Lane &l = m_store.lane(m_store.laneOf(result.requestId));
    const qsizetype last = l.lastFinished == AttemptStore::noRow ? -1 : qsizetype(l.lastFinished);
    if (!result.body.isEmpty() && last >= firstKeptAttempt()
        && m_fullAttempts[std::size_t(last - firstKeptAttempt())].record.responseBody == result.body) {
        kept.result.body = QByteArray();
        kept.bodyOfAttempt = last;
    }
    const qsizetype bodyBytes = kept.result.body.size();
    m_fullResults.push_back(std::move(kept));
    holdBody(HeldBody::Result, m_store.resultCount() - 1, bodyBytes);
    if (qsizetype(m_fullResults.size()) > m_retainLimit) {
        m_bodyBytes -= m_fullResults.front().result.body.size();
        m_fullResults.pop_front();
        ++m_droppedResults;
    }
}

void RecordRetention::setRetainedRecordLimit(qsizetype limit)
{
    m_retainLimit = std::max<qsizetype>(0, limit);
    while (qsizetype(m_fullAttempts.size()) > m_retainLimit) {
        m_bodyBytes -= heldBytesOf(m_fullAttempts.front());
        m_fullAttempts.pop_front();
        ++m_droppedAttempts;
    }
    while (qsizetype(m_fullResults.size()) > m_retainLimit) {
        m_bodyBytes -= m_fullResults.front().result.body.size();
        m_fullResults.pop_front();
        ++m_droppedResults;
    }
}

void RecordRetention::setBodyBudget(qint64 bytes)
{
    m_bodyBudget = std::max<qint64>(0, bytes);
    enforceBodyBudget();
}

qint64 RecordRetention::heldBytesOf(const KeptAttempt &kept)
{
    return kept.record.requestBody.size() + kept.record.responseBody.size();
}

void RecordRetention::holdBody(HeldBody::Kind kind, qsizetype index, qsizetype bytes)
{
    if (bytes <= 0)
        return;
    m_heldBodies.push_back({kind, index});
    m_bodyBytes += bytes;
    enforceBodyBudget();
}

void RecordRetention::enforceBodyBudget()
{
    while (m_bodyBytes > m_bodyBudget && !m_heldBodies.empty()) {
        const HeldBody held = m_heldBodies.front();
        m_heldBodies.pop_front();
        if (held.kind == HeldBody::Spec) {
            const qsizetype bytes = m_store.dropSpecBody(held.index);
            if (bytes > 0) {
                m_bodyBytes -= bytes;
                ++m_droppedBodies;
            }
            continue;
        }
        QByteArray *body = nullptr;
        if (held.kind == HeldBody::Result) {
            if (held.index < firstKeptResult())
                continue; // rebuilt without its body already; its bytes were given back then
            body = &m_fullResults[std::size_t(held.index - firstKeptResult())].result.body;
        } else {
            if (held.index < firstKeptAttempt())
                continue; // the same
            AttemptRecord &a = m_fullAttempts[std::size_t(held.index - firstKeptAttempt())].record;
            const bool request = held.kind == HeldBody::AttemptRequest;
            body = request ? &a.requestBody : &a.responseBody;
            (request ? a.requestBodyDropped : a.responseBodyDropped) = !body->isEmpty();
        }
        if (body->isEmpty())
            continue;
        m_bodyBytes -= body->size();
        *body = QByteArray(); // clear() could keep the capacity
        ++m_droppedBodies;
    }
}

AttemptRecord RecordRetention::attemptRecord(qsizetype finishedIndex) const
{
    if (finishedIndex < 0 || finishedIndex >= m_store.finishedCount())
        return {};
    if (finishedIndex < firstKeptAttempt())
        return rebuildAttempt(m_store.finishedRow(finishedIndex));
    const KeptAttempt &kept = m_fullAttempts[std::size_t(finishedIndex - firstKeptAttempt())];
    AttemptRecord record = kept.record;
    if (kept.requestBodyInSpec) {
        const RequestSpec *s = m_store.spec(m_store.attemptRow(m_store.finishedRow(finishedIndex)).lane);
        record.requestBody = s ? s->body : QByteArray();
        record.requestBodyDropped = record.requestBody.isEmpty();
    }
    return record;
}

RequestResult RecordRetention::requestResult(qsizetype resultIndex) const
{
    if (resultIndex < 0 || resultIndex >= m_store.resultCount())
        return {};
    if (resultIndex < firstKeptResult())
        return rebuildResult(m_store.resultLane(resultIndex));
    const KeptResult &kept = m_fullResults[std::size_t(resultIndex - firstKeptResult())];
    RequestResult result = kept.result;
    if (kept.bodyOfAttempt >= 0)
        result.body = attemptRecord(kept.bodyOfAttempt).responseBody;
    return result;
}

AttemptRecord RecordRetention::rebuildAttempt(quint32 rowIndex) const
{
    const AttemptStore::AttemptRow &row = m_store.attemptRow(rowIndex);
    const AttemptStore::Lane &l = m_store.lane(row.lane);
    const AttemptStore::Detail &detail = m_store.detailOf(row);
    AttemptRecord r;
    r.requestId = l.requestId;
    r.attemptIndex = static_cast<int>(row.attemptIndex);
    r.step = detail.step;
    r.sequenceRound = detail.sequenceRound;
    r.method = detail.method;
    const RequestSpec *s = m_store.spec(row.lane);
    if (s) {
        r.url = s->url;
        r.requestHeaders = s->headers;
        // A single request sends its spec's body; a read-modify-write step's was computed.
        if (s->kind == RequestSpec::Kind::Single)
            r.requestBody = s->body;
        else
            r.requestBodyDropped = detail.step == QLatin1String("write");
    }
    r.fallback = row.fallback;
    r.hedged = row.hedged();
    r.hedgeWinner = row.hedgeWinner();
    if (s && row.fallback > 0 && row.fallback <= s->fallbackUrls.size())
        r.url = s->fallbackUrls.at(row.fallback - 1);
    r.responseBodyDropped = row.bytesReceived > 0;
    r.queuedNs = static_cast<qint64>(std::llround(double(row.queuedMs) * 1e6));
    r.startNs = row.startNs;
    r.endNs = row.endNs;
    r.finishedNs = row.endNs;
    r.startWall = m_store.wallTimeOf(row.startNs);
    r.plannedDelayMs = row.plannedDelayMs;
    r.actualDelayMs = row.actualDelayMs;
    if (row.firstByteMs >= 0.0F)
        r.firstByteNs = row.startNs + static_cast<qint64>(std::llround(double(row.firstByteMs) * 1e6));
    r.end = static_cast<AttemptEnd>(row.end);
    if (row.httpStatus >= 0)
        r.httpStatus = row.httpStatus;
    r.reasonPhrase = detail.reasonPhrase;
    r.networkError = static_cast<QNetworkReply::NetworkError>(row.networkError);
    r.errorString = m_store.string(row.errorString);
    r.bytesReceived = row.bytesReceived;
    r.decision = static_cast<Classification::Decision>(row.decision);
    r.cause = m_store.string(row.cause);
    r.reason = m_store.string(row.reason);
    if (row.retryAfterMs >= 0.0F)
        r.retryAfterMs = row.retryAfterMs;
    r.retryAfterRaw = detail.retryAfterRaw;
    r.nextDelayMs = row.nextDelayMs;
    return r;
}

RequestResult RecordRetention::rebuildResult(quint32 laneIndex) const
{
    const AttemptStore::Lane &l = m_store.lane(laneIndex);
    RequestResult r;
    r.requestId = l.requestId;
    r.outcome = static_cast<RequestOutcome>(l.outcome);
    r.attempts = static_cast<int>(l.attempts);
    r.reason = m_store.string(l.resultReason);
    if (l.finalStatus >= 0)
        r.finalStatus = l.finalStatus;
    r.startNs = l.firstStartNs;
    r.endNs = l.endNs;
    r.fallback = l.lastRow != AttemptStore::noRow ? m_store.attemptRow(l.lastRow).fallback : 0;
    // Entries and outcome names hold no comma.
    r.fallbackTriggers = m_store.string(l.fallbackTriggers).split(QLatin1Char(','), Qt::SkipEmptyParts);
    return r;
}

RunRecord RecordRetention::runRecord(const BackoffPolicy &policy) const
{
    QList<qsizetype> all;
    all.reserve(m_store.finishedCount());
    for (qsizetype i = 0; i < m_store.finishedCount(); ++i)
        all.append(i);
    RunRecord record = runRecord(all, policy);
    // Requests that made no attempt (refused, cancelled while queued) belong to the run too.
    for (qsizetype i = 0; i < m_store.laneCount(); ++i) {
        const AttemptStore::Lane &l = m_store.lane(i);
        if (const RequestSpec *s = m_store.spec(i); s && !record.requests.contains(l.requestId)) {
            RequestSpec copy = *s;
            copy.label = m_store.string(l.label);
            record.requests.insert(l.requestId, copy);
        }
    }
    // Every policy of the session, in the order of first use, and each request's.
    record.policies = m_store.policies();
    record.requestPolicies.clear();
    for (qsizetype i = 0; i < m_store.laneCount(); ++i) {
        const AttemptStore::Lane &l = m_store.lane(i);
        if (l.policy != AttemptStore::noRow)
            record.requestPolicies.insert(l.requestId, int(l.policy));
    }
    record.results.clear();
    record.results.reserve(m_store.resultCount());
    for (qsizetype i = 0; i < m_store.resultCount(); ++i)
        record.results.append(requestResult(i));
    return record;
}

RunRecord RecordRetention::runRecord(const QList<qsizetype> &finishedIndexes, const BackoffPolicy &policy) const
{
    RunRecord record;
    record.policy = policy;
    record.startedAt = m_store.startedAt();
    record.epochNs = m_store.originNs();
    QSet<quint32> lanes;
    record.attempts.reserve(finishedIndexes.size());
    for (qsizetype index : finishedIndexes) {
        if (index < 0 || index >= m_store.finishedCount())
            continue;
        record.attempts.append(attemptRecord(index));
        lanes.insert(m_store.attemptRow(m_store.finishedRow(index)).lane);
    }
    QList<quint32> laneOrder = lanes.values();
    std::sort(laneOrder.begin(), laneOrder.end()); // lanes are in submission order: policies in order of use
    for (quint32 laneIndex : std::as_const(laneOrder)) {
        const AttemptStore::Lane &l = m_store.lane(laneIndex);
        if (const RequestSpec *s = m_store.spec(laneIndex)) {
            RequestSpec copy = *s;
            copy.label = m_store.string(l.label);
            record.requests.insert(l.requestId, copy);
        }
        if (const BackoffPolicy *p = m_store.policy(laneIndex))
            record.notePolicy(l.requestId, *p);
    }
    for (qsizetype i = 0; i < m_store.resultCount(); ++i) {
        if (lanes.contains(m_store.resultLane(i)))
            record.results.append(requestResult(i));
    }
    return record;
}

} // namespace RetryLab::Ui
