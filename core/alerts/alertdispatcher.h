#pragma once

#include "core/alerts/alertevent.h"
#include "core/alerts/alertgate.h"
#include "core/alerts/alerttarget.h"
#include "core/record/attemptrecord.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace RetryLab::Core {

class Clock;
class RetryExecutor;

/// What became of the alerts raised for one target so far.
struct AlertTargetStats
{
    int delivered = 0;
    int failed = 0;
    int duplicates = 0; ///< held back by deduplication
    int rateLimited = 0; ///< held back by the rate limit (and summed up later)
    int summaries = 0; ///< "N alerts suppressed" summaries sent

    friend bool operator==(const AlertTargetStats &, const AlertTargetStats &) = default;
};

/// Sends a monitor's alerts to the targets it names. Lives on the monitor's
/// thread, beside the RetryExecutor that carries the monitor's checks:
///
/// - a webhook is a POST of AlertEvent::toJson() through that executor under
///   the target's own policy, marked idempotent and carrying an
///   Idempotency-Key made from the event, so that a retried delivery is safe;
///   each of its attempts is reported by deliveryAttempt() to be recorded like
///   any request's;
/// - a command runs without a shell with the event in its environment
///   (AlertCommand), killed at its timeout;
/// - the desktop target emits desktopNotification(), which the window shows.
///
/// Every alert first passes the target's AlertGate: duplicates and alerts over
/// the rate limit are held back, counted and reported by suppressed(); a
/// summary of the rate-limited ones goes out once their minute is over. A
/// broken target (refused, timing out, exiting non-zero, unknown) is reported
/// by failed() and never blocks or stops anything: raise() returns at once.
class AlertDispatcher final : public QObject
{
    Q_OBJECT

public:
    /// `executor` carries the webhooks (not owned; held by QPointer: once it is
    /// gone, deliveries in flight and later webhooks fail). `clock` times the
    /// deduplication and the rate limit (not owned; null: the steady clock).
    explicit AlertDispatcher(RetryExecutor *executor, const Clock *clock = nullptr, QObject *parent = nullptr);
    /// Cancels the webhooks in flight and kills the commands still running, without reporting them.
    ~AlertDispatcher() override;

    /// The targets alerts may name. Deduplication and rate-limit state is kept
    /// for the names that stay; deliveries in flight finish with the target
    /// they started with.
    void setTargets(const QList<AlertTarget> &targets);
    const QList<AlertTarget> &targets() const { return m_targets; }

    /// Sends `event` to each target named (an unknown name is reported by
    /// failed()). Summaries that came due go out first.
    void raise(const RetryLab::Core::AlertEvent &event, const QStringList &targetNames);

    /// Sends the "N alerts suppressed" summaries whose minute has passed on the
    /// clock. A timer calls it when the next one comes due on the steady clock;
    /// raise() calls it too; a caller with a manual clock calls it after moving it.
    void flushSummaries();

    AlertTargetStats stats(const QString &target) const { return m_stats.value(target); }
    /// Webhooks and commands under way.
    int pendingDeliveries() const { return int(m_webhooks.size()) + m_commandsRunning; }

Q_SIGNALS:
    /// The target took the alert: the webhook answered with a success, the
    /// command exited with status 0, the notification was handed to the window.
    void delivered(const QString &target, const RetryLab::Core::AlertEvent &event);
    /// The target did not take it, and why (credentials redacted).
    void failed(const QString &target, const RetryLab::Core::AlertEvent &event, const QString &reason);
    /// The gate held it back: a duplicate or over the rate limit, and why.
    void suppressed(const QString &target, const RetryLab::Core::AlertEvent &event, const QString &why);
    /// For the window: a desktop notification (a QSystemTrayIcon message where there is a tray).
    void desktopNotification(const QString &title, const QString &text);
    /// One attempt of a webhook delivery, as the executor recorded it.
    void deliveryAttempt(const QString &target, const RetryLab::Core::AttemptRecord &record);
    /// The end of a webhook delivery, as the executor reported it.
    void deliveryFinished(const QString &target, const RetryLab::Core::RequestResult &result);

private:
    struct Delivery
    {
        QString target;
        AlertEvent event;
    };

    void send(const AlertTarget &target, const AlertEvent &event);
    void sendWebhook(const AlertTarget &target, const AlertEvent &event);
    void runCommand(const AlertTarget &target, const AlertEvent &event);
    void handleAttemptFinished(const RetryLab::Core::AttemptRecord &record);
    void handleRequestFinished(const RetryLab::Core::RequestResult &result);
    void handleExecutorDestroyed();
    void noteDelivered(const QString &target, const AlertEvent &event);
    void noteFailed(const QString &target, const AlertEvent &event, const QString &reason);
    void scheduleSummaries();
    const AlertTarget *findTarget(const QString &name) const;

    QPointer<RetryExecutor> m_executor;
    const Clock *m_clock = nullptr;
    QList<AlertTarget> m_targets;
    AlertGate m_gate;
    QHash<QString, AlertTargetStats> m_stats;
    QHash<quint64, Delivery> m_webhooks; ///< request id -> what it delivers
    int m_commandsRunning = 0;
    QTimer m_summaryTimer;
};

} // namespace RetryLab::Core
