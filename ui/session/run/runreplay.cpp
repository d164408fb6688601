#include "ui/session/run/runreplay.h"

#include "ui/session/run/runsession.h"

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

using Core::AttemptRecord;
using Core::RequestResult;

RunReplay::RunReplay(Core::RunRecord record, QObject *parent)
    : QObject(parent), m_record(std::move(record)), m_session(std::make_unique<RunSession>())
{
    m_endNs = m_record.epochNs;
    for (qsizetype i = 0; i < m_record.attempts.size(); ++i) {
        const AttemptRecord &a = m_record.attempts.at(i);
        if (a.startNs >= 0)
            m_events.push_back({a.startNs, Event::AttemptStarted, i});
        const qint64 end = std::max(a.startNs, a.endNs);
        m_events.push_back({end, Event::AttemptFinished, i});
        if (a.nextDelayMs >= 0.0)
            m_events.push_back({end, Event::RetryScheduled, i});
        m_endNs = std::max(m_endNs, end);
    }
    for (qsizetype i = 0; i < m_record.results.size(); ++i) {
        const qint64 end = std::max(m_record.results.at(i).startNs, m_record.results.at(i).endNs);
        m_events.push_back({end, Event::Result, i});
        m_endNs = std::max(m_endNs, end);
    }
    // At one instant: an attempt starts before it ends, a retry is planned after the
    // attempt that asked for it, a result comes last.
    std::stable_sort(m_events.begin(), m_events.end(),
        [](const Event &a, const Event &b) { return a.atNs != b.atNs ? a.atNs < b.atNs : a.kind < b.kind; });

    m_timer.setInterval(16);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &RunReplay::tick);
    seek(durationMs());
}

RunReplay::~RunReplay() = default;

void RunReplay::setSpeed(double speed)
{
    if (std::isnan(speed))
        return;
    m_speed = std::clamp(speed, minSpeed, maxSpeed);
}

void RunReplay::play()
{
    if (isPlaying())
        return;
    if (atEnd())
        seek(0.0);
    m_sinceTick.start();
    m_timer.start();
    Q_EMIT playingChanged(true);
}

void RunReplay::pause()
{
    if (!isPlaying())
        return;
    m_timer.stop();
    Q_EMIT playingChanged(false);
}

void RunReplay::seek(double ms)
{
    if (std::isnan(ms))
        return;
    const double clamped = std::clamp(ms, 0.0, durationMs());
    const qint64 target = m_record.epochNs + qint64(std::llround(clamped * 1e6));
    if (target >= m_endNs) {
        // The whole run, exactly as an opened report is shown: every request it
        // names, each under its own policy.
        m_clock.setNs(m_endNs);
        m_session->setClock(&m_clock);
        m_session->loadRunRecord(m_record);
        m_next = eventCount();
        m_positionNs = m_endNs;
    } else {
        if (target < m_positionNs || m_next == 0 || m_next == eventCount())
            restart();
        playUntil(target);
    }
    m_session->flush();
    Q_EMIT positionChanged(positionMs());
}

void RunReplay::tick()
{
    const qint64 elapsedNs = m_sinceTick.nsecsElapsed();
    m_sinceTick.start();
    // Nothing runs and the next event is far: jump to just before it.
    if (m_running.isEmpty() && m_next < eventCount()) {
        const qint64 gapNs = m_events[std::size_t(m_next)].atNs - m_positionNs;
        if (double(gapNs) / 1e6 > idleSkipThresholdMs) {
            const qint64 jumpNs = gapNs - qint64(idleKeptMs * 1e6);
            m_positionNs += jumpNs;
            m_clock.setNs(m_positionNs);
            m_idleSkippedMs += double(jumpNs) / 1e6;
            Q_EMIT idleSkipped(double(jumpNs) / 1e6, m_idleSkippedMs);
        }
    }
    const qint64 target = std::min(m_endNs, m_positionNs + qint64(double(elapsedNs) * m_speed));
    playUntil(target);
    Q_EMIT positionChanged(positionMs());
    if (atEnd()) {
        m_session->flush();
        m_timer.stop();
        Q_EMIT playingChanged(false);
        Q_EMIT finished();
    }
}

void RunReplay::restart()
{
    // The record's epoch, start time and policy, and none of its requests yet.
    Core::RunRecord empty;
    empty.policy = m_record.policy;
    empty.startedAt = m_record.startedAt;
    empty.epochNs = m_record.epochNs;
    empty.seed = m_record.seed;
    m_clock.setNs(m_record.epochNs);
    m_session->setClock(&m_clock);
    m_session->loadRunRecord(empty);
    m_next = 0;
    m_noted.clear();
    m_running.clear();
    m_idleSkippedMs = 0.0;
    m_positionNs = m_record.epochNs;
}

void RunReplay::playUntil(qint64 ns)
{
    while (m_next < eventCount() && m_events[std::size_t(m_next)].atNs <= ns)
        apply(m_events[std::size_t(m_next++)]);
    m_positionNs = std::max(m_positionNs, ns);
    // In-flight bars and planned waits grow up to the playhead.
    m_clock.setNs(m_positionNs);
}

void RunReplay::noteRequest(quint64 requestId)
{
    if (m_noted.contains(requestId))
        return;
    m_noted.append(requestId);
    const auto spec = m_record.requests.constFind(requestId);
    if (spec != m_record.requests.cend())
        m_session->noteRequest(requestId, spec.value());
}

void RunReplay::apply(const Event &event)
{
    m_clock.setNs(event.atNs);
    switch (event.kind) {
    case Event::AttemptStarted: {
        const AttemptRecord &a = m_record.attempts.at(event.index);
        noteRequest(a.requestId);
        m_running.insert(a.requestId);
        m_session->recordAttemptStarted(a.requestId, a.attemptIndex, a.startNs);
        break;
    }
    case Event::AttemptFinished: {
        const AttemptRecord &a = m_record.attempts.at(event.index);
        noteRequest(a.requestId);
        m_session->recordAttempt(a);
        break;
    }
    case Event::RetryScheduled: {
        const AttemptRecord &a = m_record.attempts.at(event.index);
        const int limit = m_record.policyOf(a.requestId).maxAttempts;
        const int left = limit > 0 ? std::max(0, limit - (a.attemptIndex + 1)) : -1;
        m_session->recordRetryScheduled(
            a.requestId, a.attemptIndex + 1, a.nextDelayMs, a.reason, left, std::max(a.startNs, a.endNs));
        break;
    }
    case Event::Result: {
        const RequestResult &r = m_record.results.at(event.index);
        noteRequest(r.requestId);
        m_running.remove(r.requestId);
        m_session->recordResult(r);
        break;
    }
    }
}

} // namespace RetryLab::Ui
