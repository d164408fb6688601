#include "ui/session/run/attemptstore.h"

#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcStore, "retrylab.ui.attemptstore", QtInfoMsg)
} // namespace

namespace RetryLab::Ui {

using namespace RetryLab::Core;

static_assert(sizeof(AttemptStore::AttemptRow) == 88, "the row size is documented; keep it in step");

namespace {

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
        && a.attemptHeaders == b.attemptHeaders && a.fallbackUrls == b.fallbackUrls && a.fallbackOn == b.fallbackOn;
}

} // namespace

QString AttemptStore::hostOf(const QUrl &url)
{
    return url
        .toString(
            QUrl::RemoveScheme | QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment)
        .remove(0, 2);
}

void AttemptStore::clear()
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
    m_inFlight = 0;
    m_running = 0;
}

void AttemptStore::setOrigin(qint64 originNs, const QDateTime &startedAt)
{
    m_originNs = originNs;
    m_startedAt = startedAt;
}

QDateTime AttemptStore::wallTimeOf(qint64 ns) const
{
    if (!m_startedAt.isValid())
        return {};
    return m_startedAt.addMSecs(static_cast<qint64>(std::floor(static_cast<double>(ns - m_originNs) / 1e6)));
}

quint32 AttemptStore::laneFor(quint64 requestId)
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

qsizetype AttemptStore::noteRequest(quint64 requestId, const RequestSpec &spec)
{
    Lane &l = m_lanes[laneFor(requestId)];
    RequestSpec shared = spec;
    shared.label.clear();
    qsizetype added = -1;
    // A batch repeats one spec: keep it once.
    if (m_specs.isEmpty() || !sameSpec(m_specs.constLast(), shared)) {
        m_specs.append(std::move(shared));
        added = m_specs.size() - 1;
    }
    l.spec = static_cast<quint32>(m_specs.size() - 1);
    l.label = m_strings.intern(spec.label);
    // Once two hosts are in the run, lane titles name the host: "#22 GET /" could be either.
    const QString host = hostOf(spec.url);
    if (m_firstHost.isEmpty())
        m_firstHost = host;
    else if (host != m_firstHost)
        m_mixedHosts = true;
    return added;
}

void AttemptStore::setPolicy(quint64 requestId, const BackoffPolicy &policy)
{
    const quint32 index = policyIndex(policy);
    m_lanes[laneFor(requestId)].policy = index;
}

quint32 AttemptStore::policyIndex(const BackoffPolicy &policy)
{
    for (qsizetype i = m_policies.size() - 1; i >= 0; --i) {
        if (m_policies.at(i) == policy)
            return static_cast<quint32>(i);
    }
    m_policies.append(policy);
    return static_cast<quint32>(m_policies.size() - 1);
}

const BackoffPolicy *AttemptStore::policy(qsizetype laneIndex) const
{
    if (laneIndex < 0 || laneIndex >= m_lanes.size())
        return nullptr;
    const quint32 index = m_lanes[laneIndex].policy;
    return index < quint32(m_policies.size()) ? &m_policies.at(index) : nullptr;
}

quint32 AttemptStore::appendRow(quint32 laneIndex, int attemptIndex, qint64 startNs)
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

quint32 AttemptStore::openRowOf(const Lane &lane, std::optional<quint32> attemptIndex) const
{
    // The latest row of the lane still in flight (of that attempt): a walk along
    // the lane, which only a hedged request with several attempts out needs.
    quint32 found = noRow;
    for (quint32 row = lane.firstRow; row != noRow; row = m_rows[row].nextInLane) {
        const AttemptRow &r = m_rows[row];
        if (r.inFlight() && r.endNs < 0 && (!attemptIndex || r.attemptIndex == *attemptIndex))
            found = row;
    }
    return found;
}

quint32 AttemptStore::startAttempt(quint64 requestId, int attemptIndex, qint64 startNs)
{
    const quint32 laneIndex = laneFor(requestId);
    if (m_lanes[laneIndex].finished) {
        qCWarning(lcStore) << "attempt" << attemptIndex << "of finished request" << requestId << "ignored";
        return noRow;
    }
    const quint32 row = appendRow(laneIndex, attemptIndex, startNs);
    Lane &l = m_lanes[laneIndex];
    // Out beside another: a hedge, drawn on a track of its own before its record says so.
    if (l.openRows > 0)
        m_rows[row].hedging |= AttemptRow::hedgedBit;
    ++l.openRows;
    ++m_inFlight;
    l.openRow = row;
    l.pendingDelayMs = -1.0F;
    l.pendingSinceNs = -1;
    return row;
}

qsizetype AttemptStore::finishAttempt(const AttemptRecord &record)
{
    const quint32 laneIndex = laneFor(record.requestId);
    const auto attemptIndex = quint32(std::max(0, record.attemptIndex));
    quint32 row = noRow;
    {
        Lane &l = m_lanes[laneIndex];
        if (l.openRow != noRow && m_rows[l.openRow].attemptIndex == attemptIndex)
            row = l.openRow;
        else if (l.openRows > 1)
            row = openRowOf(l, attemptIndex); // hedged attempts end in any order
        if (row != noRow) {
            --l.openRows;
            --m_inFlight;
        }
    }
    if (row == noRow)
        row = appendRow(laneIndex, record.attemptIndex, record.startNs);
    fillRow(m_rows[row], record);
    Lane &l = m_lanes[laneIndex];
    if (row == l.openRow)
        l.openRow = l.openRows > 0 ? openRowOf(l, std::nullopt) : noRow;
    if (l.firstStartNs < 0 && record.startNs >= 0)
        l.firstStartNs = record.startNs;
    m_finished.append(row);
    const qsizetype finishedIndex = m_finished.size() - 1;
    l.lastFinished = static_cast<quint32>(finishedIndex);
    return finishedIndex;
}

void AttemptStore::fillRow(AttemptRow &row, const AttemptRecord &record)
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
    row.authMs = 0;
    for (const RedirectHop &hop : record.redirects) {
        if (hop.kind != RedirectHop::Kind::Redirect && hop.finishedNs >= record.startNs && record.startNs >= 0) {
            const qint64 ms = std::max<qint64>(1, (hop.finishedNs - record.startNs + 500'000) / 1'000'000);
            row.authMs = static_cast<quint16>(std::min<qint64>(ms, 0xffff));
        }
    }
    row.cause = m_strings.intern(record.cause);
    row.reason = m_strings.intern(record.reason);
    row.errorString = m_strings.intern(record.errorString);
    row.detail = internDetail(record);
    row.httpStatus = record.httpStatus ? toInt16(*record.httpStatus) : qint16(-1);
    row.networkError = toInt16(record.networkError);
    row.end = static_cast<quint8>(record.end);
    row.decision = static_cast<quint8>(record.decision);
    row.fallback = static_cast<quint8>(std::clamp(record.fallback, 0, 255));
    row.hedging
        = quint8((record.hedged ? AttemptRow::hedgedBit : 0) | (record.hedgeWinner ? AttemptRow::winnerBit : 0));
    row.outcome = attemptOutcomeOf(record);
}

quint32 AttemptStore::internDetail(const AttemptRecord &record)
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

void AttemptStore::scheduleRetry(
    quint64 requestId, double delayMs, const QString &reason, int attemptsLeft, qint64 atNs)
{
    Lane &l = m_lanes[laneFor(requestId)];
    l.pendingDelayMs = std::max(0.0F, toFloat(delayMs, 0.0F));
    l.pendingSinceNs = atNs;
    l.attemptsLeft = attemptsLeft;
    if (l.lastRow != noRow)
        m_rows[l.lastRow].retryNote = m_strings.intern(reason);
}

quint32 AttemptStore::finishRequest(const RequestResult &result)
{
    const quint32 laneIndex = laneFor(result.requestId);
    Lane &l = m_lanes[laneIndex];
    if (l.finished) {
        qCWarning(lcStore) << "second result for request" << result.requestId << "ignored";
        return noRow;
    }
    l.finished = true;
    --m_running;
    l.endNs = result.endNs;
    l.outcome = static_cast<quint8>(result.outcome);
    l.finalStatus = result.finalStatus ? toInt16(*result.finalStatus) : qint16(-1);
    l.resultReason = m_strings.intern(result.reason);
    l.fallbackTriggers = m_strings.intern(result.fallbackTriggers.join(QLatin1Char(',')));
    l.pendingDelayMs = -1.0F;
    l.pendingSinceNs = -1;
    if (l.firstStartNs < 0)
        l.firstStartNs = result.startNs >= 0 ? result.startNs : result.endNs;
    while (l.openRows > 0) {
        // An attempt that never reported back: close it so that it stops growing.
        const quint32 open = l.openRow != noRow ? l.openRow : openRowOf(l, std::nullopt);
        if (open == noRow)
            break;
        AttemptRow &row = m_rows[open];
        row.endNs = std::max(row.startNs, result.endNs);
        row.outcome = AttemptOutcome::Cancelled;
        row.end = static_cast<quint8>(AttemptEnd::Cancelled);
        l.openRow = noRow;
        --l.openRows;
        --m_inFlight;
    }
    l.openRow = noRow;
    m_resultLanes.push_back(laneIndex);
    return laneIndex;
}

qsizetype AttemptStore::dropSpecBody(qsizetype specIndex)
{
    if (specIndex < 0 || specIndex >= m_specs.size())
        return 0;
    QByteArray &body = m_specs[specIndex].body;
    const qsizetype bytes = body.size();
    body = QByteArray(); // clear() could keep the capacity
    return bytes;
}

qsizetype AttemptStore::finishedIndexOfRow(qsizetype row) const
{
    if (row < 0 || row >= m_rows.size() || m_rows[row].inFlight())
        return -1;
    for (qsizetype f = m_finished.size() - 1; f >= 0; --f) {
        if (m_finished[f] == quint32(row))
            return f;
    }
    return -1;
}

const RequestSpec *AttemptStore::spec(qsizetype laneIndex) const
{
    if (laneIndex < 0 || laneIndex >= m_lanes.size())
        return nullptr;
    const quint32 index = m_lanes[laneIndex].spec;
    return index < quint32(m_specs.size()) ? &m_specs.at(index) : nullptr;
}

const AttemptStore::Detail &AttemptStore::detail(quint32 id) const
{
    static const Detail none;
    return id < quint32(m_details.size()) ? m_details.at(id) : none;
}

const AttemptStore::Detail &AttemptStore::detailOf(const AttemptRow &row) const
{
    return detail(row.detail);
}

QByteArray AttemptStore::methodOf(const AttemptRow &row) const
{
    if (!row.inFlight())
        return detailOf(row).method;
    // In flight there is no record yet: the spec says what is being sent.
    const RequestSpec *s = spec(row.lane);
    return s ? s->method : QByteArray();
}

} // namespace RetryLab::Ui
