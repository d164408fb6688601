#include "ui/session/run/runsession.h"

#include "core/executor/threadedexecutor.h"
#include "core/util/clock.h"

#include <QLoggingCategory>
#include <QMetaEnum>
#include <QSet>

#include <algorithm>
#include <cmath>

// One job: the live store of one run: each attempt and result as it arrives, the lanes
// and statistics fed from them, the records kept or rebuilt within the body budget, and
// the texts the views ask for. All of it indexes the same rows and lanes, updated in one
// pass per record; review step 1 gives these parts classes of their own.

namespace {

// "host:port" (IPv6 in brackets), never the user info.
QString hostOf(const QUrl &url)
{
    return url
        .toString(
            QUrl::RemoveScheme | QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment)
        .remove(0, 2);
}
Q_LOGGING_CATEGORY(lcSession, "retrylab.ui.runsession", QtInfoMsg)
} // namespace

namespace RetryLab::Ui {

using namespace RetryLab::Core;

static_assert(sizeof(RunSession::AttemptRow) == 88, "the row size is documented; keep it in step");

namespace {

constexpr int defaultUpdateIntervalMs = 33; // about 30 updates per second at most

float toFloat(double value, float fallback)
{
    if (!std::isfinite(value))
        return fallback;
    // A double beyond float's range would be undefined behaviour to convert.
    return static_cast<float>(std::clamp(value, -3.0e38, 3.0e38));
}

qint16 toInt16(qint64 value)
{
    return static_cast<qint16>(std::clamp<qint64>(value, -32768, 32767));
}

bool sameSpec(const RequestSpec &a, const RequestSpec &b)
{
    return a.kind == b.kind && a.method == b.method && a.url == b.url && a.headers == b.headers && a.body == b.body
        && a.idempotent == b.idempotent && a.attemptTimeoutMs == b.attemptTimeoutMs && a.increment == b.increment
        && a.attemptHeaders == b.attemptHeaders;
}

} // namespace

RunSession::RunSession(QObject *parent) : QObject(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(defaultUpdateIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &RunSession::flush);
    resetOrigin();
}

RunSession::~RunSession() = default;

void RunSession::attach(ThreadedExecutor *executor)
{
    if (m_executor)
        disconnect(m_executor, nullptr, this, nullptr);
    m_executor = executor;
    clear();
    if (!executor)
        return;
    connect(executor, &ThreadedExecutor::attemptStarted, this, &RunSession::handleAttemptStarted);
    connect(executor, &ThreadedExecutor::attemptFinished, this, &RunSession::recordAttempt);
    connect(executor, &ThreadedExecutor::retryScheduled, this, &RunSession::handleRetryScheduled);
    connect(executor, &ThreadedExecutor::requestFinished, this, &RunSession::recordResult);
    connect(executor, &ThreadedExecutor::circuitStateChanged, this, &RunSession::recordCircuitState);
    connect(executor, &ThreadedExecutor::budgetChanged, this, &RunSession::recordBudget);
    m_budgetTokens = executor->budgetTokens();
    m_budgetCapacity = executor->budgetCapacity();
}

quint64 RunSession::submit(const RequestSpec &spec)
{
    if (!m_executor)
        return 0;
    return submit(spec, m_executor->policy());
}

quint64 RunSession::submit(const RequestSpec &spec, const BackoffPolicy &policy)
{
    if (!m_executor)
        return 0;
    if (m_lanes.isEmpty())
        m_policy = m_executor->policy();
    // The lane gets the spec before the executor's thread reports its first attempt.
    const quint64 id = m_executor->submit(spec, policy);
    noteRequest(id, spec);
    m_lanes[laneFor(id)].policy = policyIndex(policy);
    return id;
}

void RunSession::noteRequest(quint64 requestId, const RequestSpec &spec)
{
    Lane &l = m_lanes[laneFor(requestId)];
    RequestSpec shared = spec;
    shared.label.clear();
    // A batch repeats one spec: keep it once.
    if (m_specs.isEmpty() || !sameSpec(m_specs.constLast(), shared)) {
        const qsizetype bodyBytes = shared.body.size();
        m_specs.append(std::move(shared));
        holdBody(HeldBody::Spec, m_specs.size() - 1, bodyBytes);
    }
    l.spec = static_cast<quint32>(m_specs.size() - 1);
    l.label = m_strings.intern(spec.label);
    // Once two hosts are in the run, lane titles name the host: "#22 GET /" could be either.
    const QString host = hostOf(spec.url);
    if (m_firstHost.isEmpty())
        m_firstHost = host;
    else if (host != m_firstHost)
        m_mixedHosts = true;
    // The policy in force now is the one the request was submitted with.
    if (m_executor)
        l.policy = policyIndex(m_executor->policy());
    markDirty();
}

quint32 RunSession::policyIndex(const BackoffPolicy &policy)
{
    for (qsizetype i = m_policies.size() - 1; i >= 0; --i) {
        if (m_policies.at(i) == policy)
            return static_cast<quint32>(i);
    }
    m_policies.append(policy);
    return static_cast<quint32>(m_policies.size() - 1);
}

const BackoffPolicy *RunSession::policy(qsizetype laneIndex) const
{
    if (laneIndex < 0 || laneIndex >= m_lanes.size())
        return nullptr;
    const quint32 index = m_lanes[laneIndex].policy;
    return index < quint32(m_policies.size()) ? &m_policies.at(index) : nullptr;
}

void RunSession::clear()
{
    m_rows.clear();
    m_finished.clear();
    m_lanes.clear();
    m_laneOf.clear();
    m_resultLanes.clear();
    m_strings.clear();
    m_details.clear();
    m_detailIds.clear();
    m_specs.clear();
    m_firstHost.clear();
    m_mixedHosts = false;
    m_policies.clear();
    m_fullAttempts.clear();
    m_fullResults.clear();
    m_droppedAttempts = 0;
    m_droppedResults = 0;
    m_heldBodies.clear();
    m_bodyBytes = 0;
    m_droppedBodies = 0;
    m_circuitStates.clear();
    // A breaker outlives the run it opened in: it still refuses requests after a clear.
    if (m_executor) {
        for (const QString &host : m_executor->hosts())
            m_circuitStates.insert(host, m_executor->circuitState(host));
    }
    m_inFlight = 0;
    m_running = 0;
    m_policy = m_executor ? m_executor->policy() : BackoffPolicy{};
    resetOrigin();
    m_statistics.clear();
    m_statistics.setOriginNs(m_originNs);
    m_runs.clear();
    m_runsKey = {-1, -1, -1};
    m_flushTimer.stop();
    m_dirty = false;
    ++m_revision;
    Q_EMIT cleared();
}

void RunSession::resetOrigin()
{
    m_latestNs = 0;
    if (m_executor) {
        m_originNs = m_executor->nowNs();
        m_startedAt = m_executor->clock().wallTime();
    } else if (m_clock) {
        m_originNs = m_clock->nowNs();
        m_startedAt = m_clock->wallTime();
    } else {
        m_originNs = 0;
        m_startedAt = QDateTime::currentDateTimeUtc();
    }
    m_latestNs = m_originNs;
}

void RunSession::loadRunRecord(const RunRecord &record)
{
    attach(nullptr);
    m_originNs = record.epochNs;
    m_latestNs = record.epochNs;
    m_startedAt = record.startedAt;
    m_policy = record.policy;
    m_statistics.setOriginNs(m_originNs);

    QList<quint64> ids = record.requests.keys();
    std::sort(ids.begin(), ids.end());
    for (quint64 id : std::as_const(ids)) {
        noteRequest(id, record.requests.value(id));
        if (record.requestPolicies.contains(id))
            m_lanes[laneFor(id)].policy = policyIndex(record.policyOf(id));
    }
    for (const AttemptRecord &attempt : record.attempts)
        recordAttempt(attempt);
    for (const RequestResult &result : record.results)
        recordResult(result);
    markDirty();
}

qint64 RunSession::nowNs() const
{
    if (m_executor)
        return m_executor->nowNs();
    if (m_clock)
        return m_clock->nowNs();
    return m_latestNs;
}

qint64 RunSession::latestNs() const
{
    return hasActivity() ? std::max(m_latestNs, nowNs()) : m_latestNs;
}

QDateTime RunSession::wallTimeOf(qint64 ns) const
{
    if (!m_startedAt.isValid())
        return {};
    return m_startedAt.addMSecs(static_cast<qint64>(std::floor(static_cast<double>(ns - m_originNs) / 1e6)));
}

void RunSession::noteTime(qint64 ns)
{
    m_latestNs = std::max(m_latestNs, ns);
}

void RunSession::markDirty()
{
    m_dirty = true;
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void RunSession::flush()
{
    m_flushTimer.stop();
    if (!m_dirty)
        return;
    m_dirty = false;
    ++m_revision;
    Q_EMIT updated();
}

quint32 RunSession::laneFor(quint64 requestId)
{
    const auto it = m_laneOf.constFind(requestId);
    if (it != m_laneOf.cend())
        return static_cast<quint32>(it.value());
    Lane lane;
    lane.requestId = requestId;
    const qsizetype index = m_lanes.size();
    m_lanes.append(lane);
    m_laneOf.insert(requestId, index);
    ++m_running;
    return static_cast<quint32>(index);
}

quint32 RunSession::appendRow(quint32 laneIndex, int attemptIndex, qint64 startNs)
{
    const auto index = static_cast<quint32>(m_rows.size());
    AttemptRow row;
    row.lane = laneIndex;
    row.attemptIndex = static_cast<quint32>(std::max(0, attemptIndex));
    row.startNs = startNs;
    m_rows.append(row);

    Lane &l = m_lanes[laneIndex];
    if (l.lastRow == noRow)
        l.firstRow = index;
    else
        m_rows[l.lastRow].nextInLane = index;
    l.lastRow = index;
    ++l.attempts;
    if (l.firstStartNs < 0 && startNs >= 0)
        l.firstStartNs = startNs;
    return index;
}

void RunSession::handleAttemptStarted(quint64 requestId, int attemptIndex)
{
    recordAttemptStarted(requestId, attemptIndex, reportedAtNs());
}

void RunSession::recordAttemptStarted(quint64 requestId, int attemptIndex, qint64 startNs)
{
    const quint32 laneIndex = laneFor(requestId);
    if (m_lanes[laneIndex].finished) {
        qCWarning(lcSession) << "attempt" << attemptIndex << "of finished request" << requestId << "ignored";
        return;
    }
    const quint32 row = appendRow(laneIndex, attemptIndex, startNs);
    Lane &l = m_lanes[laneIndex];
    if (l.openRow == noRow)
        ++m_inFlight;
    l.openRow = row;
    l.pendingDelayMs = -1.0F;
    l.pendingSinceNs = -1;
    noteTime(startNs);
    markDirty();
}

void RunSession::recordAttempt(const AttemptRecord &record)
{
    const quint32 laneIndex = laneFor(record.requestId);
    quint32 row = noRow;
    {
        Lane &l = m_lanes[laneIndex];
        if (l.openRow != noRow && m_rows[l.openRow].attemptIndex == quint32(std::max(0, record.attemptIndex))) {
            row = l.openRow;
            l.openRow = noRow;
            --m_inFlight;
        }
    }
    if (row == noRow)
        row = appendRow(laneIndex, record.attemptIndex, record.startNs);
    fillRow(m_rows[row], record);
    Lane &l = m_lanes[laneIndex];
    if (l.firstStartNs < 0 && record.startNs >= 0)
        l.firstStartNs = record.startNs;
    m_finished.append(row);
    const qsizetype finishedIndex = m_finished.size() - 1;
    l.lastFinished = static_cast<quint32>(finishedIndex);

    if (m_retainLimit > 0) {
        KeptAttempt kept;
        kept.record = record;
        const RequestSpec *s = spec(laneIndex);
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
    } else {
        ++m_droppedAttempts;
    }
    m_statistics.addAttempt(record);
    noteTime(std::max(record.startNs, record.endNs));
    markDirty();
}

void RunSession::fillRow(AttemptRow &row, const AttemptRecord &record)
{
    if (record.startNs >= 0)
        row.startNs = record.startNs;
    row.endNs = record.endNs >= row.startNs ? record.endNs : row.startNs;
    row.plannedDelayMs = toFloat(record.plannedDelayMs, 0.0F);
    row.actualDelayMs = toFloat(record.actualDelayMs, 0.0F);
    row.nextDelayMs = toFloat(record.nextDelayMs, -1.0F);
    row.retryAfterMs = record.retryAfterMs ? toFloat(*record.retryAfterMs, -1.0F) : -1.0F;
    row.queuedMs = toFloat(static_cast<double>(record.queuedNs) / 1e6, 0.0F);
    row.firstByteMs = record.firstByteNs >= 0 && record.startNs >= 0 && record.firstByteNs >= record.startNs
        ? toFloat(static_cast<double>(record.firstByteNs - record.startNs) / 1e6, -1.0F)
        : -1.0F;
    row.bytesReceived = static_cast<quint32>(std::clamp<qint64>(record.bytesReceived, 0, 0xffffffffLL));
    row.cause = m_strings.intern(record.cause);
    row.reason = m_strings.intern(record.reason);
    row.errorString = m_strings.intern(record.errorString);
    row.detail = internDetail(record);
    row.httpStatus = record.httpStatus ? toInt16(*record.httpStatus) : qint16(-1);
    row.networkError = toInt16(record.networkError);
    row.end = static_cast<quint8>(record.end);
    row.decision = static_cast<quint8>(record.decision);
    row.fallback = static_cast<quint8>(std::clamp(record.fallback, 0, 255));
    row.outcome = attemptOutcomeOf(record);
}

quint32 RunSession::internDetail(const AttemptRecord &record)
{
    Detail detail{record.step, record.method, record.reasonPhrase, record.retryAfterRaw, record.sequenceRound};
    const auto it = m_detailIds.constFind(detail);
    if (it != m_detailIds.cend())
        return it.value();
    const auto id = static_cast<quint32>(m_details.size());
    m_details.append(detail);
    m_detailIds.insert(std::move(detail), id);
    return id;
}

const RunSession::Detail &RunSession::detailOf(const AttemptRow &row) const
{
    static const Detail none;
    return row.detail < quint32(m_details.size()) ? m_details.at(row.detail) : none;
}

QString RunSession::stepOf(const AttemptRow &row) const
{
    return detailOf(row).step;
}

QByteArray RunSession::methodOf(const AttemptRow &row) const
{
    if (!row.inFlight())
        return detailOf(row).method;
    // In flight there is no record yet: the spec says what is being sent.
    const RequestSpec *s = spec(row.lane);
    return s ? s->method : QByteArray();
}

QByteArray RunSession::reasonPhraseOf(const AttemptRow &row) const
{
    return detailOf(row).reasonPhrase;
}

QString RunSession::detailText(quint32 detail) const
{
    if (detail >= quint32(m_details.size()))
        return {};
    const Detail &d = m_details.at(detail);
    return QString::fromLatin1(d.method) + QLatin1Char(' ') + d.step + QLatin1Char(' ')
        + QString::fromLatin1(d.reasonPhrase);
}

void RunSession::handleRetryScheduled(
    quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft)
{
    recordRetryScheduled(requestId, nextAttemptIndex, delayMs, reason, attemptsLeft, reportedAtNs());
}

void RunSession::recordRetryScheduled(
    quint64 requestId, int nextAttemptIndex, double delayMs, const QString &reason, int attemptsLeft, qint64 atNs)
{
    Q_UNUSED(nextAttemptIndex)
    Lane &l = m_lanes[laneFor(requestId)];
    l.pendingDelayMs = std::max(0.0F, toFloat(delayMs, 0.0F));
    l.pendingSinceNs = atNs;
    l.attemptsLeft = attemptsLeft;
    if (l.lastRow != noRow)
        m_rows[l.lastRow].retryNote = m_strings.intern(reason);
    noteTime(atNs);
    markDirty();
}

void RunSession::recordResult(const RequestResult &result)
{
    const quint32 laneIndex = laneFor(result.requestId);
    Lane &l = m_lanes[laneIndex];
    if (l.finished) {
        qCWarning(lcSession) << "second result for request" << result.requestId << "ignored";
        return;
    }
    l.finished = true;
    --m_running;
    l.endNs = result.endNs;
    l.outcome = static_cast<quint8>(result.outcome);
    l.finalStatus = result.finalStatus ? toInt16(*result.finalStatus) : qint16(-1);
    l.resultReason = m_strings.intern(result.reason);
    l.pendingDelayMs = -1.0F;
    l.pendingSinceNs = -1;
    if (l.firstStartNs < 0)
        l.firstStartNs = result.startNs >= 0 ? result.startNs : result.endNs;
    if (l.openRow != noRow) {
        // An attempt that never reported back: close it so that it stops growing.
        AttemptRow &row = m_rows[l.openRow];
        row.endNs = std::max(row.startNs, result.endNs);
        row.outcome = AttemptOutcome::Cancelled;
        row.end = static_cast<quint8>(AttemptEnd::Cancelled);
        l.openRow = noRow;
        --m_inFlight;
    }
    m_resultLanes.push_back(laneIndex);

    if (m_retainLimit > 0) {
        KeptResult kept;
        kept.result = result;
        // The executor's result carries its last attempt's response body: keep it once.
        const qsizetype last = l.lastFinished == noRow ? -1 : qsizetype(l.lastFinished);
        if (!result.body.isEmpty() && last >= firstKeptAttempt()
            && m_fullAttempts[std::size_t(last - firstKeptAttempt())].record.responseBody == result.body) {
            kept.result.body = QByteArray();
            kept.bodyOfAttempt = last;
        }
        const qsizetype bodyBytes = kept.result.body.size();
        m_fullResults.push_back(std::move(kept));
        holdBody(HeldBody::Result, resultCount() - 1, bodyBytes);
        if (qsizetype(m_fullResults.size()) > m_retainLimit) {
            m_bodyBytes -= m_fullResults.front().result.body.size();
            m_fullResults.pop_front();
            ++m_droppedResults;
        }
    } else {
        ++m_droppedResults;
    }
    m_statistics.addResult(result);
    noteTime(result.endNs);
    markDirty();
}

void RunSession::recordCircuitState(const QString &host, CircuitBreaker::State state)
{
    m_circuitStates.insert(host, state);
    markDirty();
}

void RunSession::recordBudget(double tokens, double capacity)
{
    m_budgetTokens = tokens;
    m_budgetCapacity = capacity;
    markDirty();
}

qsizetype RunSession::finishedIndexOfRow(qsizetype row) const
{
    if (row < 0 || row >= m_rows.size() || m_rows[row].inFlight())
        return -1;
    for (qsizetype f = m_finished.size() - 1; f >= 0; --f) {
        if (m_finished[f] == quint32(row))
            return f;
    }
    return -1;
}

const RequestSpec *RunSession::spec(qsizetype laneIndex) const
{
    if (laneIndex < 0 || laneIndex >= m_lanes.size())
        return nullptr;
    const quint32 index = m_lanes[laneIndex].spec;
    return index < quint32(m_specs.size()) ? &m_specs.at(index) : nullptr;
}

QString RunSession::laneTitle(qsizetype laneIndex) const
{
    if (laneIndex < 0 || laneIndex >= m_lanes.size())
        return {};
    const Lane &l = m_lanes[laneIndex];
    const QString id = QLatin1Char('#') + QString::number(l.requestId);
    const RequestSpec *s = spec(laneIndex);
    const QString host = m_mixedHosts && s ? hostOf(s->url) : QString();
    if (l.label != 0)
        return id + QLatin1Char(' ') + m_strings.at(l.label)
            + (host.isEmpty() ? QString() : QStringLiteral(" @ ") + host);
    if (s) {
        const QString path = s->url.path().isEmpty() ? QStringLiteral("/") : s->url.path();
        return id + QLatin1Char(' ') + QString::fromLatin1(s->method) + QLatin1Char(' ') + host + path;
    }
    return id;
}

QList<RunSession::RunSpan> RunSession::runs() const
{
    // Whatever changes a run (a lane, an attempt's start, a result) adds a lane, a row or a result.
    const std::array<qsizetype, 3> key{m_lanes.size(), m_rows.size(), qsizetype(m_resultLanes.size())};
    if (key == m_runsKey)
        return m_runs;
    QList<RunSpan> spans;
    qint64 busyUntil = 0;
    for (qsizetype i = 0; i < m_lanes.size(); ++i) {
        const Lane &l = m_lanes[i];
        if (spans.isEmpty())
            spans.append(RunSpan{i, i, -1, -1});
        if (l.firstStartNs >= 0) {
            if (spans.last().startNs >= 0 && l.firstStartNs > busyUntil) {
                spans.last().endNs = busyUntil;
                spans.append(RunSpan{i, i, l.firstStartNs, -1});
            }
            const qint64 end = l.finished ? std::max(l.endNs, l.firstStartNs) : std::numeric_limits<qint64>::max();
            busyUntil = spans.last().startNs >= 0 ? std::max(busyUntil, end) : end;
            if (spans.last().startNs < 0)
                spans.last().startNs = l.firstStartNs;
        }
        spans.last().endLane = i + 1;
    }
    if (!spans.isEmpty() && spans.last().startNs >= 0 && busyUntil != std::numeric_limits<qint64>::max()
        && m_running == 0)
        spans.last().endNs = busyUntil;
    m_runs = spans;
    m_runsKey = key;
    return spans;
}

qsizetype RunSession::latestRunFirstLane() const
{
    const QList<RunSpan> spans = runs();
    return spans.isEmpty() ? 0 : spans.last().firstLane;
}

RunStatistics RunSession::statisticsOf(qsizetype firstLane, qsizetype endLane) const
{
    firstLane = std::clamp<qsizetype>(firstLane, 0, m_lanes.size());
    endLane = std::clamp<qsizetype>(endLane, firstLane, m_lanes.size());
    RunStatistics stats;
    qint64 origin = std::numeric_limits<qint64>::max();
    for (qsizetype i = firstLane; i < endLane; ++i) {
        if (m_lanes[i].firstStartNs >= 0)
            origin = std::min(origin, m_lanes[i].firstStartNs);
    }
    stats.setOriginNs(origin == std::numeric_limits<qint64>::max() ? m_originNs : origin);
    const auto inRange
        = [firstLane, endLane](quint32 lane) { return qsizetype(lane) >= firstLane && qsizetype(lane) < endLane; };
    for (qsizetype i = 0; i < m_finished.size(); ++i) {
        if (inRange(m_rows[m_finished[i]].lane))
            stats.addAttempt(attemptRecord(i));
    }
    for (std::size_t i = 0; i < m_resultLanes.size(); ++i) {
        if (inRange(m_resultLanes[i]))
            stats.addResult(requestResult(qsizetype(i)));
    }
    return stats;
}

QPair<int, int> RunSession::activityOf(qsizetype firstLane, qsizetype endLane) const
{
    int running = 0;
    int inFlight = 0;
    for (qsizetype i = std::max<qsizetype>(0, firstLane); i < std::min(endLane, m_lanes.size()); ++i) {
        running += m_lanes[i].finished ? 0 : 1;
        inFlight += m_lanes[i].openRow != noRow ? 1 : 0;
    }
    return {running, inFlight};
}

QString RunSession::statusText(const AttemptRow &row) const
{
    if (row.inFlight())
        return tr("in flight");
    const auto end = static_cast<AttemptEnd>(row.end);
    const bool cut = end == AttemptEnd::AttemptTimeout || end == AttemptEnd::Deadline || end == AttemptEnd::Cancelled;
    if (row.httpStatus >= 0 && !cut) {
        const QByteArray phrase = reasonPhraseOf(row);
        return phrase.isEmpty() ? QString::number(row.httpStatus)
                                : QString::number(row.httpStatus) + QLatin1Char(' ') + QString::fromLatin1(phrase);
    }
    if (row.errorString != 0)
        return m_strings.at(row.errorString);
    if (row.networkError != 0) {
        const char *key
            = QMetaEnum::fromType<QNetworkReply::NetworkError>().valueToKey(static_cast<int>(row.networkError));
        return key ? QString::fromLatin1(key) : tr("network error %1").arg(row.networkError);
    }
    return attemptEndName(end);
}

void RunSession::setRetainedRecordLimit(qsizetype limit)
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

void RunSession::setBodyBudget(qint64 bytes)
{
    m_bodyBudget = std::max<qint64>(0, bytes);
    enforceBodyBudget();
}

qint64 RunSession::heldBytesOf(const KeptAttempt &kept)
{
    return kept.record.requestBody.size() + kept.record.responseBody.size();
}

void RunSession::holdBody(HeldBody::Kind kind, qsizetype index, qsizetype bytes)
{
    if (bytes <= 0)
        return;
    m_heldBodies.push_back({kind, index});
    m_bodyBytes += bytes;
    enforceBodyBudget();
}

void RunSession::enforceBodyBudget()
{
    while (m_bodyBytes > m_bodyBudget && !m_heldBodies.empty()) {
        const HeldBody held = m_heldBodies.front();
        m_heldBodies.pop_front();
        QByteArray *body = nullptr;
        if (held.kind == HeldBody::Spec) {
            body = &m_specs[held.index].body;
        } else if (held.kind == HeldBody::Result) {
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

bool RunSession::isRecordComplete() const
{
    return m_droppedAttempts == 0 && m_droppedResults == 0;
}

AttemptRecord RunSession::attemptRecord(qsizetype finishedIndex) const
{
    if (finishedIndex < 0 || finishedIndex >= m_finished.size())
        return {};
    if (finishedIndex < firstKeptAttempt())
        return rebuildAttempt(m_finished[finishedIndex]);
    const KeptAttempt &kept = m_fullAttempts[std::size_t(finishedIndex - firstKeptAttempt())];
    AttemptRecord record = kept.record;
    if (kept.requestBodyInSpec) {
        const RequestSpec *s = spec(m_rows[m_finished[finishedIndex]].lane);
        record.requestBody = s ? s->body : QByteArray();
        record.requestBodyDropped = record.requestBody.isEmpty();
    }
    return record;
}

RequestResult RunSession::requestResult(qsizetype resultIndex) const
{
    if (resultIndex < 0 || resultIndex >= resultCount())
        return {};
    if (resultIndex < firstKeptResult())
        return rebuildResult(m_resultLanes[std::size_t(resultIndex)]);
    const KeptResult &kept = m_fullResults[std::size_t(resultIndex - firstKeptResult())];
    RequestResult result = kept.result;
    if (kept.bodyOfAttempt >= 0)
        result.body = attemptRecord(kept.bodyOfAttempt).responseBody;
    return result;
}

AttemptRecord RunSession::rebuildAttempt(quint32 rowIndex) const
{
    const AttemptRow &row = m_rows[rowIndex];
    const Lane &l = m_lanes[row.lane];
    const Detail &detail = detailOf(row);
    AttemptRecord r;
    r.requestId = l.requestId;
    r.attemptIndex = static_cast<int>(row.attemptIndex);
    r.step = detail.step;
    r.sequenceRound = detail.sequenceRound;
    r.method = detail.method;
    if (const RequestSpec *s = spec(row.lane)) {
        r.url = s->url;
        r.requestHeaders = s->headers;
        // A single request sends its spec's body; a read-modify-write step's was computed.
        if (s->kind == RequestSpec::Kind::Single)
            r.requestBody = s->body;
        else
            r.requestBodyDropped = detail.step == QLatin1String("write");
    }
    r.fallback = row.fallback;
    if (const RequestSpec *s = spec(row.lane); s && row.fallback > 0 && row.fallback <= s->fallbackUrls.size())
        r.url = s->fallbackUrls.at(row.fallback - 1);
    r.responseBodyDropped = row.bytesReceived > 0;
    r.queuedNs = static_cast<qint64>(std::llround(double(row.queuedMs) * 1e6));
    r.startNs = row.startNs;
    r.endNs = row.endNs;
    r.finishedNs = row.endNs;
    r.startWall = wallTimeOf(row.startNs);
    r.plannedDelayMs = row.plannedDelayMs;
    r.actualDelayMs = row.actualDelayMs;
    if (row.firstByteMs >= 0.0F)
        r.firstByteNs = row.startNs + static_cast<qint64>(std::llround(double(row.firstByteMs) * 1e6));
    r.end = static_cast<AttemptEnd>(row.end);
    if (row.httpStatus >= 0)
        r.httpStatus = row.httpStatus;
    r.reasonPhrase = detail.reasonPhrase;
    r.networkError = static_cast<QNetworkReply::NetworkError>(row.networkError);
    r.errorString = m_strings.at(row.errorString);
    r.bytesReceived = row.bytesReceived;
    r.decision = static_cast<Classification::Decision>(row.decision);
    r.cause = m_strings.at(row.cause);
    r.reason = m_strings.at(row.reason);
    if (row.retryAfterMs >= 0.0F)
        r.retryAfterMs = row.retryAfterMs;
    r.retryAfterRaw = detail.retryAfterRaw;
    r.nextDelayMs = row.nextDelayMs;
    return r;
}

RequestResult RunSession::rebuildResult(quint32 laneIndex) const
{
    const Lane &l = m_lanes[laneIndex];
    RequestResult r;
    r.requestId = l.requestId;
    r.outcome = static_cast<RequestOutcome>(l.outcome);
    r.attempts = static_cast<int>(l.attempts);
    r.reason = m_strings.at(l.resultReason);
    if (l.finalStatus >= 0)
        r.finalStatus = l.finalStatus;
    r.startNs = l.firstStartNs;
    r.endNs = l.endNs;
    r.fallback = l.lastRow != noRow ? m_rows[l.lastRow].fallback : 0;
    return r;
}

RunRecord RunSession::runRecord() const
{
    QList<qsizetype> all;
    all.reserve(m_finished.size());
    for (qsizetype i = 0; i < m_finished.size(); ++i)
        all.append(i);
    RunRecord record = runRecord(all);
    // Requests that made no attempt (refused, cancelled while queued) belong to the run too.
    for (qsizetype i = 0; i < m_lanes.size(); ++i) {
        const Lane &l = m_lanes[i];
        if (const RequestSpec *s = spec(i); s && !record.requests.contains(l.requestId)) {
            RequestSpec copy = *s;
            copy.label = m_strings.at(l.label);
            record.requests.insert(l.requestId, copy);
        }
    }
    // Every policy of the session, in the order of first use, and each request's.
    record.policies = m_policies;
    record.requestPolicies.clear();
    for (qsizetype i = 0; i < m_lanes.size(); ++i) {
        if (m_lanes[i].policy != noRow)
            record.requestPolicies.insert(m_lanes[i].requestId, int(m_lanes[i].policy));
    }
    record.results.clear();
    record.results.reserve(resultCount());
    for (qsizetype i = 0; i < resultCount(); ++i)
        record.results.append(requestResult(i));
    return record;
}

RunRecord RunSession::runRecord(const QList<qsizetype> &finishedIndexes) const
{
    RunRecord record;
    record.policy = m_policy;
    record.startedAt = m_startedAt;
    record.epochNs = m_originNs;
    QSet<quint32> lanes;
    record.attempts.reserve(finishedIndexes.size());
    for (qsizetype index : finishedIndexes) {
        if (index < 0 || index >= m_finished.size())
            continue;
        record.attempts.append(attemptRecord(index));
        lanes.insert(m_rows[m_finished[index]].lane);
    }
    QList<quint32> laneOrder = lanes.values();
    std::sort(laneOrder.begin(), laneOrder.end()); // lanes are in submission order: policies in order of use
    for (quint32 laneIndex : std::as_const(laneOrder)) {
        const Lane &l = m_lanes[laneIndex];
        if (const RequestSpec *s = spec(laneIndex)) {
            RequestSpec copy = *s;
            copy.label = m_strings.at(l.label);
            record.requests.insert(l.requestId, copy);
        }
        if (const BackoffPolicy *p = policy(laneIndex))
            record.notePolicy(l.requestId, *p);
    }
    for (qsizetype i = 0; i < resultCount(); ++i) {
        if (lanes.contains(m_resultLanes[std::size_t(i)]))
            record.results.append(requestResult(i));
    }
    return record;
}

} // namespace RetryLab::Ui
