#pragma once

#include "core/alerts/alerttarget.h"
#include "core/history/historyfigures.h"
#include "core/history/storedcheck.h"
#include "core/monitor/monitor.h"
#include "core/util/result.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>

#include <memory>

class QTimer;

namespace RetryLab::Core {
class HistoryQuery;
class HistoryStore;
class MonitorEngine;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

/// MonitorHost's half on the monitors' thread: the engine (with its
/// RetryExecutor), the HistoryStore it writes and the HistoryQuery its burn
/// rates read, all made and used on that thread, as Qt SQL connections and the
/// engine's timers require. It is made without a parent on the window's thread,
/// moved to the monitors' thread, and from then on only called there (queued
/// calls from MonitorHost); it makes its engine the first time a database opens.
class MonitorWorker final : public QObject
{
    Q_OBJECT

public:
    explicit MonitorWorker(const QString &agent);
    ~MonitorWorker() override;

    /// Opens the history at `database` as this worker would write it: the test
    /// before a switch. Refuses what HistoryStore::open refuses, with its words.
    static Core::Result<std::unique_ptr<Core::HistoryStore>> testDatabase(
        const QString &database, const QString &agent);

    /// Opens `database`; once it is open, the engine runs on it: started with
    /// `monitors` and `targets` the first time, moved from the old database
    /// (flushed and closed) later. On failure nothing changes: the error.
    QString useDatabase(
        const QString &database, const QList<Core::Monitor> &monitors, const QList<Core::AlertTarget> &targets);
    /// The monitors and targets as a whole (a saved file loaded anew).
    void setMonitors(const QList<Core::Monitor> &monitors, const QList<Core::AlertTarget> &targets);
    void setAlertTargets(const QList<Core::AlertTarget> &targets);
    void addMonitor(const Core::Monitor &monitor);
    void replaceMonitor(const QString &name, const Core::Monitor &monitor);
    void removeMonitor(const QString &name);
    void pause(const QString &name);
    void resume(const QString &name);
    void checkNow(const QString &name);
    /// What {server} in a monitor's URL stands for (empty: no server); kept for
    /// an engine made later.
    void setServerUrl(const QUrl &base);

    /// Stops the engine (its checks in flight end and are stored), closes the
    /// history, quits the thread; finished() then.
    void stop();
    /// The same at once: checks in flight are abandoned, what is queued is written.
    void stopNow();

    Core::MonitorEngine *engine() const { return m_engine; }

    /// How often nextDueTimes() is sent.
    static constexpr int dueTimesIntervalMs = 1000;

Q_SIGNALS:
    void checkFinished(const RetryLab::Core::StoredCheck &check);
    void stateChanged(const RetryLab::Core::StateEvent &event);
    void incidentStarted(const RetryLab::Core::Incident &incident);
    void incidentEnded(const RetryLab::Core::Incident &incident);
    void historyWarning(const QString &message);
    void nextDueTimes(const QHash<QString, qint64> &dueMs);
    /// A desktop alert target of the monitors file was raised.
    void desktopNotification(const QString &title, const QString &text);
    /// The answer to a useDatabase() MonitorHost posted (`error` empty: in use).
    void databaseUsed(const QString &database, const QString &error, bool switching);
    void finished();

private:
    void startEngine(const QList<Core::Monitor> &monitors, const QList<Core::AlertTarget> &targets);
    void openObjectives(const QString &database);
    void sendDueTimes();
    void tearDown();

    QString m_agent;
    QUrl m_serverUrl;
    std::unique_ptr<Core::HistoryStore> m_store;
    std::unique_ptr<Core::HistoryQuery> m_objectives;
    Core::MonitorEngine *m_engine = nullptr;
    QTimer *m_dueTimer = nullptr;
    bool m_tornDown = false;
};

} // namespace RetryLab::Ui
