#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// One attempt of a monitor's check, as the history keeps it. Times are UTC
/// wall milliseconds since the epoch (checks run for days, across restarts, on
/// several agents: only wall time compares between them); durations are
/// milliseconds, -1 when Qt did not report that phase (a reused connection has
/// no connect or TLS phase).
struct StoredAttempt
{
    int index = 0; ///< 0 for the first attempt of its check
    qint64 startMs = 0;
    bool success = false;
    std::optional<int> status; ///< the HTTP status, when an answer came
    QString cause; ///< the classification's machine word: "http-503", "connection-reset", "condition"
    QString reason; ///< the sentence for people: why it failed and was (not) retried
    /// The retry decision after it (decisionName()): "success", "retry-after-delay",
    /// "retry-immediately" or "give-up".
    QString decision;
    double delayBeforeMs = 0.0; ///< the delay the timer gave before it (0 for the first)
    double queuedMs = 0.0;
    double dnsMs = -1.0;
    double connectMs = -1.0; ///< over TLS, connect and handshake together (as HAR's connect)
    double tlsMs = -1.0;
    double sendMs = -1.0;
    double firstByteMs = -1.0; ///< from the exchange's start
    double downloadMs = -1.0;
    double totalMs = 0.0;
    qint64 bytes = 0;
    /// The response body of a failed attempt, at most HistoryLimits::failureBodyBytes
    /// of it; always empty for a success.
    QByteArray failureBody;

    friend bool operator==(const StoredAttempt &, const StoredAttempt &) = default;
};

/// One check of a monitor: the logical request with all its attempts.
struct StoredCheck
{
    QString monitor;
    QString agent; ///< the monitor agent that ran it (`--agent`); empty: this machine's name
    qint64 startMs = 0;
    qint64 endMs = 0;
    /// The check succeeded: an attempt succeeded and every condition held.
    bool success = false;
    /// It ran inside a maintenance window: stored, not counted against availability.
    bool maintenance = false;
    QString outcome; ///< requestOutcomeName(): "succeeded", "attempts-exhausted", ...
    std::optional<int> finalStatus;
    /// Why it failed (the last attempt's reason); empty for a success.
    QString reason;
    QList<StoredAttempt> attempts;

    double durationMs() const { return static_cast<double>(endMs - startMs); }

    friend bool operator==(const StoredCheck &, const StoredCheck &) = default;
};

/// The state of a monitor, as its checks decided it.
enum class MonitorState {
    Pending, ///< no verdict yet, or failing but not yet down (flap damping)
    Up,
    Down,
    Paused,
};

QString monitorStateName(MonitorState state);
std::optional<MonitorState> monitorStateFromName(const QString &name);

/// A change of a monitor's state, with the reason shown to people.
struct StateEvent
{
    QString monitor;
    QString agent;
    qint64 atMs = 0;
    MonitorState from = MonitorState::Pending;
    MonitorState to = MonitorState::Pending;
    QString reason;

    friend bool operator==(const StateEvent &, const StateEvent &) = default;
};

namespace HistoryLimits {
/// The most of a failed attempt's body the history keeps.
inline constexpr int failureBodyBytes = 4096;
/// Raw checks and attempts are kept this long by default, then rolled up.
inline constexpr int defaultRawRetentionDays = 30;
/// Per-minute and per-hour aggregates are kept this long.
inline constexpr int aggregateRetentionDays = 365;
} // namespace HistoryLimits

} // namespace RetryLab::Core

Q_DECLARE_METATYPE(RetryLab::Core::StoredCheck)
Q_DECLARE_METATYPE(RetryLab::Core::StateEvent)
