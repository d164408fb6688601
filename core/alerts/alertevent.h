#pragma once

#include "core/history/storedcheck.h"

#include <QByteArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>

class QProcessEnvironment;

namespace RetryLab::Core {

/// Something a monitor tells people about: a change of its state, an incident
/// its retries hid (attempts failed while the checks still succeeded), or an
/// error budget burning faster than its threshold. A plain value: the monitor
/// engine fills it in, AlertDispatcher sends it to the alert targets as a
/// webhook's JSON body (toJson()), a command's environment (environment()) or
/// a desktop notification (title(), text()).
///
/// A fourth kind, Suppressed, is the dispatcher's own: the summary of the
/// alerts a target's rate limit held back.
struct AlertEvent
{
    enum class Kind {
        StateChange, ///< "state-change": `from` -> `to`
        HiddenIncident, ///< "hidden-incident": the retries hid failing attempts
        BurnRate, ///< "burn-rate": `burnRate` over `burnThreshold` in both windows
        Suppressed, ///< "alerts-suppressed": `suppressedCount` alerts held back by a rate limit
    };

    /// The JSON body's "format" and "version" (every format of RetryLab carries both).
    static QString formatName();
    static constexpr int formatVersion = 1;

    Kind kind = Kind::StateChange;
    QString monitor;
    QString agent; ///< the monitor agent that saw it; empty: this machine
    qint64 atMs = 0; ///< UTC wall milliseconds since the epoch
    /// The sentence for people: why the state changed, what the retries hid.
    QString reason;

    // StateChange
    MonitorState from = MonitorState::Pending;
    MonitorState to = MonitorState::Pending;

    // HiddenIncident: when the failing attempts began and ended (UTC wall ms;
    // end 0 while it goes on), how many failed, in how many checks that
    // succeeded only after a retry.
    qint64 incidentStartMs = 0;
    qint64 incidentEndMs = 0;
    int failedAttempts = 0;
    int retriedChecks = 0;

    // BurnRate: the rate at which the error budget burns (1 spends it exactly
    // over the objective's period), the threshold it passed, the two windows
    // it was measured over (a long one and a short one, as multiwindow burn
    // rate alerts do), and the objective (0.999; 0 when not given).
    double burnRate = 0.0;
    double burnThreshold = 0.0;
    qint64 longWindowMs = 0;
    qint64 shortWindowMs = 0;
    double objective = 0.0;

    // Suppressed: how many, since when (UTC wall ms), of which monitors.
    int suppressedCount = 0;
    qint64 suppressedSinceMs = 0;
    QStringList suppressedMonitors;

    /// A state change as the history keeps it.
    static AlertEvent stateChange(const StateEvent &change);

    /// What makes two alerts the same for deduplication: the kind, the monitor
    /// and agent, and what the kind is about (the two states; the incident's
    /// start; the windows and threshold), never the time or the reason. Stable
    /// across runs and versions: a compact JSON array of those strings.
    QString dedupeKey() const;
    /// The Idempotency-Key of a webhook delivery: the same for every attempt of
    /// one event, different for the next event of the same dedupe key. 32 hex
    /// digits of SHA-256 over the dedupe key and the time.
    QByteArray idempotencyKey() const;

    /// One line for a notification's title: "api is down", "api (agent eu-1) is down".
    QString title() const;
    /// The notification's text: the reason and the time.
    QString text() const;

    /// The webhook body: {"format", "version", "event", "monitor", "agent",
    /// "at" (ISO 8601 UTC with milliseconds), "title", "reason"} and the kind's
    /// own fields ("from", "to"; "incidentStart", "incidentEnd",
    /// "failedAttempts", "retriedChecks"; "burnRate", "threshold",
    /// "longWindowMs", "shortWindowMs", "objective"; "suppressed", "since",
    /// "monitors").
    QJsonObject toJson() const;

    /// The variables a command target runs with, as NAME=value: RETRYLAB_EVENT,
    /// RETRYLAB_MONITOR, RETRYLAB_AGENT, RETRYLAB_FROM, RETRYLAB_TO (empty but
    /// for a state change), RETRYLAB_REASON, RETRYLAB_TITLE, RETRYLAB_AT (as
    /// "at") and RETRYLAB_EVENT_JSON (toJson(), compact).
    QStringList environment() const;
    /// The same variables added to `environment`.
    void addToEnvironment(QProcessEnvironment &environment) const;

    friend bool operator==(const AlertEvent &, const AlertEvent &) = default;
};

/// "state-change", "hidden-incident", "burn-rate", "alerts-suppressed".
QString alertKindName(AlertEvent::Kind kind);

} // namespace RetryLab::Core

Q_DECLARE_METATYPE(RetryLab::Core::AlertEvent)
