#pragma once

#include "core/alerts/alertevent.h"
#include "core/alerts/alerttarget.h"
#include "core/history/storedcheck.h"
#include "core/monitor/incidenttracker.h"
#include "core/monitor/monitor.h"
#include "core/monitor/monitorstatemachine.h"
#include "core/record/attemptrecord.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QTimer>
#include <QUrl>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

namespace RetryLab::Core {

class AlertDispatcher;
class Clock;
class HistoryQuery;
class HistoryStore;
class MonitorMetrics;
class RetryExecutor;

/// Runs monitors: each one's checks at its interval, on its own phase
/// (MonitorSchedule), through a RetryExecutor under the monitor's policy; every
/// check with its attempts becomes a StoredCheck, every change of state a
/// StateEvent. The engine, its executor and its timers live on the thread the
/// engine is made on: its timers are members, which moveToThread() would leave
/// behind, so the window makes it on a thread of its own (MonitorWorker), and the
/// headless command runs it on the main thread, which has nothing else to do.
///
/// One timer serves every monitor: the due times wait in a queue, so ten
/// thousand monitors cost one wake-up per due time, not ten thousand timers.
/// A monitor never overlaps itself: its next check is due at the first grid
/// time after its running one ends, so a check longer than the interval skips
/// the times it covered. How late each check started is kept
/// (latenessQuantileMs()). Monitors may be added, replaced and removed while
/// the engine runs; the queue entries of one that is gone go stale, as those of
/// a paused one do.
class MonitorEngine final : public QObject
{
    Q_OBJECT

public:
    explicit MonitorEngine(QObject *parent = nullptr);
    ~MonitorEngine() override;

    /// The agent that runs these monitors, kept with every check (`--agent`).
    void setAgent(const QString &agent) { m_agent = agent; }
    const QString &agent() const { return m_agent; }
    /// The wall clock of due times and stored times (tests may inject one); not owned.
    void setClock(const Clock *clock);
    /// Attempts in flight at once over all monitors.
    void setConcurrencyLimit(int limit) { m_concurrencyLimit = limit; }
    /// The embedded fault server's base URL ("http://127.0.0.1:PORT"): what
    /// {server} in a monitor's URL stands for, read at each check, so it may
    /// change while the engine runs (the window's server gets a new port at every
    /// start). Empty: none is running, and a check of a monitor that uses
    /// {server} fails with that reason (stored like any other failed check).
    void setServerUrl(const QUrl &base) { m_serverUrl = base; }
    const QUrl &serverUrl() const { return m_serverUrl; }
    /// Before start(): the monitors to run (names are unique).
    void setMonitors(const QList<Monitor> &monitors);
    /// Adds a monitor, before start() or while running (then scheduled on its
    /// phase at once, or paused when Monitor::paused). False when the name is taken.
    bool addMonitor(const Monitor &monitor);
    /// Puts `monitor` (which may have another name) in place of `name`: its state
    /// starts again from Pending, its history stays where it is. A check of the
    /// old one in flight ends and is stored under the old name. False when `name`
    /// is unknown or the new name belongs to another monitor.
    bool replaceMonitor(const QString &name, const Monitor &monitor);
    /// Removes a monitor: a check of it in flight ends and is stored, nothing
    /// more is scheduled. False when `name` is unknown.
    bool removeMonitor(const QString &name);
    /// Before start(): the targets monitors name in Monitor::alerts. Each change of
    /// state and each hidden incident of a monitor is raised to its targets.
    void setAlertTargets(const QList<AlertTarget> &targets) { m_alertTargets = targets; }
    /// Where checks, attempts, states and certificate expiries are counted for
    /// Prometheus (`--metrics-listen`); not owned, may be null.
    void setMetrics(MonitorMetrics *metrics) { m_metrics = metrics; }
    /// Where every check and change of state is kept; not owned, may be null. The
    /// store belongs to the engine's thread. Writes go in batches (flushIntervalMs)
    /// and once more when the engine stops; raw rows past the retention are rolled
    /// up at start and every hour.
    void setHistory(HistoryStore *store) { m_store = store; }
    static constexpr int flushIntervalMs = 1000;
    static constexpr int retentionIntervalMs = 3'600'000;
    /// What the burn rates of monitors with an objective are read from (every
    /// burnRateIntervalMs); a burn rate over its threshold raises an alert. Not owned.
    void setObjectiveSource(HistoryQuery *query) { m_objectives = query; }
    static constexpr int burnRateIntervalMs = 60'000;
    /// The dispatcher of the alerts, once started (its signals tell of deliveries).
    AlertDispatcher *alerts() const { return m_alerts; }

    void start();
    /// Starts no more checks; once the checks in flight have ended and the alerts
    /// on their way have been delivered (or stopGraceMs has passed), emits stopped().
    void stop();
    static constexpr int stopGraceMs = 10'000;
    bool isRunning() const { return m_running; }
    bool isStopping() const { return m_stopping; }

    bool pause(const QString &monitor);
    bool resume(const QString &monitor);
    /// Runs a check of `monitor` now, unless one is running.
    bool checkNow(const QString &monitor);

    int monitorCount() const { return static_cast<int>(m_byName.size()); }
    MonitorState state(const QString &monitor) const;
    QStringList monitorNames() const;
    /// The wall time (UTC epoch ms) of `monitor`'s next check; empty while it is
    /// paused or running a check, when the engine is not running, or for a name it
    /// does not know.
    std::optional<qint64> nextDueMs(const QString &monitor) const;
    qint64 checksStarted() const { return m_checksStarted; }
    qint64 checksFinished() const { return m_checksFinished; }
    int checksInFlight() const { return static_cast<int>(m_byRequest.size()); }

    /// How late checks started after they were due, in ms: the samples kept
    /// (the last lateSampleCount) and their quantile q (0..1).
    double latenessQuantileMs(double q) const;
    qint64 latenessSamples() const { return m_lateCount; }
    static constexpr int lateSampleCount = 1 << 16;

Q_SIGNALS:
    void checkStarted(const QString &monitor);
    /// One attempt of a check ended (the monitor is in `monitor`).
    void attemptFinished(const QString &monitor, const RetryLab::Core::AttemptRecord &record);
    void checkFinished(const RetryLab::Core::StoredCheck &check);
    void stateChanged(const RetryLab::Core::StateEvent &event);
    /// A run of failed checks began (IncidentTracker).
    void incidentStarted(const RetryLab::Core::Incident &incident);
    /// An incident, or a hidden one, ended.
    void incidentEnded(const RetryLab::Core::Incident &incident);
    /// Writing the history failed (the checks wait in memory, see HistoryStore),
    /// or works again after it failed (an empty message).
    void historyWarning(const QString &message);
    /// Every check in flight at stop() has ended.
    void stopped();

private:
    struct Entry
    {
        Monitor monitor;
        BackoffPolicy policy; ///< Monitor::checkPolicy(), made once
        MonitorStateMachine machine;
        qint64 phaseMs = 0;
        qint64 intervalMs = 0;
        quint64 seed = 0;
        quint64 checks = 0; ///< started so far, the check's stream of the seed and its {id}
        quint64 generation = 0; ///< bumped when its due time changes: older queue entries are stale
        qint64 dueMs = -1;
        bool inFlight = false;
        quint64 requestId = 0;
        qint64 startedMs = 0;
        QList<StoredAttempt> attempts;
        /// Removed or replaced: no longer named; its slot is free once a check in flight has ended.
        bool retired = false;
    };
    struct Due
    {
        qint64 atMs;
        int index;
        quint64 generation;
        bool operator>(const Due &other) const { return atMs > other.atMs; }
    };

    qint64 nowMs() const;
    void schedule(int index, qint64 atMs);
    void scheduleNext(int index);
    void armTimer();
    void handleTimer();
    void startCheck(int index, qint64 dueMs);
    void handleAttemptFinished(const AttemptRecord &record);
    void handleRequestFinished(const RequestResult &result);
    void finishStopping(bool graceOver = false);
    void flushHistory();
    void applyRetention();
    void checkBurnRates();
    void trackIncidents(const Entry &entry, const StoredCheck &check);
    void raise(const Entry &entry, const AlertEvent &event);
    void applyChange(Entry &entry, const std::optional<MonitorStateMachine::Change> &change, qint64 atMs);
    int indexOf(const QString &monitor) const;
    Entry makeEntry(const Monitor &monitor) const;
    int insert(Entry entry);
    void activate(int index);
    void retire(int index);
    void release(int index);

    QString m_agent;
    const Clock *m_clock = nullptr;
    QString m_keyToken; ///< the start of every {id} of this engine's checks
    QUrl m_serverUrl; ///< what {server} stands for; empty: no embedded server
    int m_concurrencyLimit = 512;
    /// A deque: adding a monitor from a signal's handler leaves references to the others valid.
    std::deque<Entry> m_entries;
    std::vector<int> m_freeSlots; ///< slots of retired entries, reused with their generation counting on
    QHash<QString, quint64> m_retiredChecks; ///< checks started under a name that is gone: its {id}s go on from there
    QHash<QString, int> m_byName;
    QHash<quint64, int> m_byRequest;
    std::priority_queue<Due, std::vector<Due>, std::greater<>> m_queue;
    QTimer m_timer;
    RetryExecutor *m_executor = nullptr;
    QList<AlertTarget> m_alertTargets;
    AlertDispatcher *m_alerts = nullptr;
    MonitorMetrics *m_metrics = nullptr;
    HistoryStore *m_store = nullptr;
    HistoryQuery *m_objectives = nullptr;
    QTimer m_flushTimer;
    QTimer m_retentionTimer;
    QTimer m_burnRateTimer;
    QString m_historyWarning;
    qint64 m_droppedReported = 0;
    QSet<QString> m_burning; ///< monitors whose burn rate alert holds now
    IncidentTracker m_incidents;
    bool m_running = false;
    bool m_stopping = false;
    QTimer m_stopGrace;
    qint64 m_checksStarted = 0;
    qint64 m_checksFinished = 0;
    std::vector<float> m_late;
    qint64 m_lateCount = 0;
};

/// What the history keeps of one attempt (bodies only on failure, bounded).
StoredAttempt storedAttemptOf(const AttemptRecord &record);

} // namespace RetryLab::Core
