#pragma once

#include "core/record/runrecord.h"
#include "core/util/clock.h"

#include <QElapsedTimer>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <memory>
#include <vector>

namespace RetryLab::Ui {

class RunSession;

/// A recorded run played back into a session of its own, at a chosen speed: each
/// attempt starts, grows, ends and is followed by its retry's wait when the playhead
/// reaches its time, so a five-second run can be narrated at a tenth of its speed,
/// and every view of the session (timeline, error log, statistics) shows the run as
/// it was at the playhead. The session's clock is the playhead.
///
/// Idle stretches, where no request is running (nothing on the wire, no retry waiting),
/// are not played: a stretch longer than idleSkipThresholdMs of run time is cut to
/// idleKeptMs, and idleSkipped() says how much was left out, so that a report of a few
/// seconds of traffic spread over minutes does not sit still at 10x.
///
/// Seeking to the end shows what RunSession::loadRunRecord() makes of the record (every
/// request it names, each under its own policy); seeking back plays the record again
/// from its start up to the new position (O(events)).
class RunReplay final : public QObject
{
    Q_OBJECT

public:
    static constexpr double minSpeed = 0.1;
    static constexpr double maxSpeed = 10.0;
    static constexpr double idleSkipThresholdMs = 1000.0;
    static constexpr double idleKeptMs = 200.0;

    /// Starts at the end: the whole run shown, not playing.
    explicit RunReplay(Core::RunRecord record, QObject *parent = nullptr);
    ~RunReplay() override;

    RunSession *session() const { return m_session.get(); }
    const Core::RunRecord &record() const { return m_record; }

    /// From the record's epoch to its last event.
    double durationMs() const { return double(m_endNs - m_record.epochNs) / 1e6; }
    double positionMs() const { return double(m_positionNs - m_record.epochNs) / 1e6; }
    double speed() const { return m_speed; }
    bool isPlaying() const { return m_timer.isActive(); }
    bool atEnd() const { return m_positionNs >= m_endNs; }
    /// Attempt starts and ends, retries scheduled and results: all, and played so far.
    qsizetype eventCount() const { return qsizetype(m_events.size()); }
    qsizetype eventsPlayed() const { return m_next; }
    /// Run time left out as idle since the last play from the start.
    double idleSkippedMs() const { return m_idleSkippedMs; }

    /// How often the playhead moves while playing (16 ms: about 60 times a second).
    void setTickInterval(int ms) { m_timer.setInterval(std::max(1, ms)); }

public Q_SLOTS:
    /// Clamped to [minSpeed, maxSpeed]; anything not a number is ignored.
    void setSpeed(double speed);
    /// Plays from the playhead; from the start when it is at the end.
    void play();
    void pause();
    /// Shows the run as it was `ms` after its epoch (clamped to the run).
    void seek(double ms);

Q_SIGNALS:
    void positionChanged(double ms);
    void playingChanged(bool playing);
    /// The playhead reached the end while playing.
    void finished();
    /// An idle stretch was cut while playing; `totalMs` is all that was left out so far.
    void idleSkipped(double ms, double totalMs);

private:
    struct Event
    {
        enum Kind : quint8 { AttemptStarted, AttemptFinished, RetryScheduled, Result };
        qint64 atNs = 0;
        Kind kind = AttemptStarted;
        qsizetype index = 0; ///< into the record's attempts or results
    };

    void tick();
    void restart();
    void playUntil(qint64 ns);
    void apply(const Event &event);
    void noteRequest(quint64 requestId);

    Core::RunRecord m_record;
    std::unique_ptr<RunSession> m_session;
    Core::ManualClock m_clock;
    std::vector<Event> m_events;
    qsizetype m_next = 0;
    QList<quint64> m_noted;
    QSet<quint64> m_running; ///< requests started and not ended at the playhead
    double m_idleSkippedMs = 0.0;
    qint64 m_endNs = 0;
    qint64 m_positionNs = 0;
    double m_speed = 1.0;
    QTimer m_timer;
    QElapsedTimer m_sinceTick;
};

} // namespace RetryLab::Ui
