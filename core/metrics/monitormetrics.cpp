#include "core/metrics/monitormetrics.h"

#include "core/metrics/metricsregistry.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcMonitorMetrics, "retrylab.core.monitormetrics")

namespace RetryLab::Core {

namespace {

// The names are RetryLab's interface: dashboards and alert rules use them.
// The HELP texts are part of that protocol, not of the user interface, so
// they are not translated (a scrape must say the same whatever the locale).
const QString upName = QStringLiteral("retrylab_monitor_up");
const QString stateName = QStringLiteral("retrylab_monitor_state");
const QString checksName = QStringLiteral("retrylab_monitor_checks_total");
const QString attemptsName = QStringLiteral("retrylab_monitor_attempts_total");
const QString checkDurationName = QStringLiteral("retrylab_monitor_check_duration_seconds");
const QString attemptDurationName = QStringLiteral("retrylab_monitor_attempt_duration_seconds");
const QString certificateName = QStringLiteral("retrylab_monitor_certificate_expiry_timestamp_seconds");
const QString backlogName = QStringLiteral("retrylab_monitor_history_backlog");
const QString droppedName = QStringLiteral("retrylab_monitor_history_dropped_total");

const QString monitorLabel = QStringLiteral("monitor");
const QString successOutcome = QStringLiteral("success");
const QString failureOutcome = QStringLiteral("failure");

void declare(const Result<void> &declared)
{
    // Only a name clash can fail here: the registry was handed over with one
    // of these names declared already, and the updates will say so too.
    if (!declared)
        qCWarning(lcMonitorMetrics).noquote() << declared.error();
}

} // namespace

MonitorMetrics::MonitorMetrics(MetricsRegistry *registry) : m_registry(registry)
{
    const QStringList monitor{monitorLabel};
    const QStringList outcome{monitorLabel, QStringLiteral("outcome")};
    declare(m_registry->addGauge(upName, QStringLiteral("Whether the monitor is up (1) or not (0)."), monitor));
    declare(m_registry->addGauge(stateName,
        QStringLiteral("The monitor's state: 1 for the current one of up, pending, down and paused, 0 for the others."),
        {monitorLabel, QStringLiteral("state")}));
    declare(m_registry->addCounter(
        checksName, QStringLiteral("Checks the monitor finished (retries included), by outcome."), outcome));
    declare(m_registry->addCounter(
        attemptsName, QStringLiteral("Attempts (requests sent) of the monitor's checks, by outcome."), outcome));
    declare(m_registry->addHistogram(checkDurationName,
        QStringLiteral("How long a check took, from its first attempt to its outcome, retries and waits included."),
        monitor, durationBuckets()));
    declare(m_registry->addHistogram(
        attemptDurationName, QStringLiteral("How long one attempt took."), monitor, durationBuckets()));
    declare(m_registry->addGauge(certificateName,
        QStringLiteral("When the certificate the monitor's endpoint presents expires, as a Unix time in seconds."),
        monitor));
    declare(m_registry->addGauge(backlogName, QStringLiteral("Checks waiting to be written to the history store.")));
    declare(m_registry->addCounter(
        droppedName, QStringLiteral("Checks the history store dropped because its backlog was full.")));
}

QList<double> MonitorMetrics::durationBuckets()
{
    return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

QStringList MonitorMetrics::stateNames()
{
    return {QStringLiteral("up"), QStringLiteral("pending"), QStringLiteral("down"), QStringLiteral("paused")};
}

void MonitorMetrics::recordCheck(const QString &monitor, bool success, double seconds)
{
    // Both outcomes exist from the first check, so that rate() over the
    // failures starts at 0 instead of at the first failure.
    m_registry->increment(checksName, {monitor, successOutcome}, success ? 1 : 0);
    m_registry->increment(checksName, {monitor, failureOutcome}, success ? 0 : 1);
    m_registry->observe(checkDurationName, {monitor}, seconds);
}

void MonitorMetrics::recordAttempt(const QString &monitor, bool success, double seconds)
{
    m_registry->increment(attemptsName, {monitor, successOutcome}, success ? 1 : 0);
    m_registry->increment(attemptsName, {monitor, failureOutcome}, success ? 0 : 1);
    m_registry->observe(attemptDurationName, {monitor}, seconds);
}

void MonitorMetrics::setState(const QString &monitor, const QString &state)
{
    const QStringList states = stateNames();
    if (!states.contains(state))
        qCWarning(lcMonitorMetrics) << "unknown monitor state" << state << "for" << monitor;
    for (const QString &name : states)
        m_registry->set(stateName, {monitor, name}, name == state ? 1 : 0);
    m_registry->set(upName, {monitor}, state == QLatin1String("up") ? 1 : 0);
}

void MonitorMetrics::setCertificateExpiry(const QString &monitor, qint64 unixSeconds)
{
    m_registry->set(certificateName, {monitor}, double(unixSeconds));
}

void MonitorMetrics::setHistoryBacklog(int checks)
{
    m_registry->set(backlogName, {}, checks);
}

void MonitorMetrics::addHistoryDropped(qint64 n)
{
    m_registry->increment(droppedName, {}, double(n));
}

void MonitorMetrics::removeMonitor(const QString &monitor)
{
    m_registry->removeSeriesWith(monitorLabel, monitor);
}

} // namespace RetryLab::Core
