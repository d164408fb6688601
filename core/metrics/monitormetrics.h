#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

class MetricsRegistry;

/// The monitor engine's metrics, by their names in RetryLab's interface, over
/// a MetricsRegistry (which it declares them in; the registry must outlive it):
///
///     retrylab_monitor_up{monitor}                              gauge, 1 up, 0 otherwise
///     retrylab_monitor_state{monitor,state}                     gauge, 1 for the current one of
///                                                               up, pending, down, paused
///     retrylab_monitor_checks_total{monitor,outcome}            counter, outcome success|failure
///     retrylab_monitor_attempts_total{monitor,outcome}          counter, outcome success|failure
///     retrylab_monitor_check_duration_seconds{monitor}          histogram
///     retrylab_monitor_attempt_duration_seconds{monitor}        histogram
///     retrylab_monitor_certificate_expiry_timestamp_seconds{monitor}  gauge, Unix seconds
///     retrylab_monitor_history_backlog                          gauge, checks not stored yet
///     retrylab_monitor_history_dropped_total                    counter, checks never stored
///
/// Thread-safe as the registry is: call it from the engine's thread.
class MonitorMetrics final
{
public:
    explicit MonitorMetrics(MetricsRegistry *registry);

    /// A check ended (after its retries), and how long it took in seconds.
    void recordCheck(const QString &monitor, bool success, double seconds);
    /// One attempt of a check ended, and how long it took in seconds.
    void recordAttempt(const QString &monitor, bool success, double seconds);
    /// The monitor's state: "up", "pending", "down" or "paused". Sets
    /// retrylab_monitor_up and the four retrylab_monitor_state series. Any
    /// other name is a bug of the caller: it is logged and every series is 0.
    void setState(const QString &monitor, const QString &stateName);
    /// When the certificate of the monitor's endpoint expires (notAfter), in Unix seconds.
    void setCertificateExpiry(const QString &monitor, qint64 unixSeconds);
    /// How many checks wait to be written to the history store.
    void setHistoryBacklog(int checks);
    /// Checks the history store dropped (its backlog was full).
    void addHistoryDropped(qint64 n);
    /// Forgets every series of the monitor (it was deleted).
    void removeMonitor(const QString &monitor);

    /// The bucket bounds of both duration histograms, in seconds: 5 ms to 60 s.
    static QList<double> durationBuckets();
    /// The states setState() knows, in the order of their series.
    static QStringList stateNames();

private:
    MetricsRegistry *m_registry;
};

} // namespace RetryLab::Core
