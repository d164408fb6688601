#pragma once

#include "core/alerts/alerttarget.h"
#include "core/history/historyfigures.h"
#include "core/history/storedcheck.h"
#include "core/monitor/monitor.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>

class QThread;

namespace RetryLab::Ui {

class MonitorWorker;

/// The window's monitors: the list a person edits, kept in a monitors file,
/// and the engine that runs them on a thread of its own, with the history it
/// writes. Made and used on the window's thread; every call returns at once
/// (the engine's thread does the work) and every signal arrives on the window's
/// thread.
///
/// Typical use: loadSaved(), then open() (an empty database is
/// HistoryLocation::defaultDatabase()); opened() says whether the history
/// opened, and from then on the monitors run. Edits (addMonitor() and the rest)
/// are saved at once and reach the running engine in the order they were made.
/// shutdown() (or the destructor) stops the engine: checks in flight end and
/// are stored, the history is flushed and closed.
class MonitorHost final : public QObject
{
    Q_OBJECT

public:
    /// `monitorsFile`: where the list is kept; empty: defaultMonitorsFile().
    explicit MonitorHost(const QString &monitorsFile = {}, QObject *parent = nullptr);
    /// shutdown() with its bounded wait.
    ~MonitorHost() override;

    /// monitors.json in QStandardPaths::AppDataLocation.
    static QString defaultMonitorsFile();
    QString monitorsFile() const { return m_monitorsFile; }
    /// The agent checks are stored under; before open(). Empty: the host name.
    void setAgent(const QString &agent) { m_agent = agent; }
    QString agent() const { return m_agent; }
    /// The embedded fault server's base URL, which {server} in a monitor's URL
    /// stands for at each check; empty while it is not running (such checks then
    /// fail, saying so). May be called at any time, before open() too; it stays
    /// across database switches. The monitors file keeps {server} as written.
    void setServerUrl(const QUrl &base);
    QUrl serverUrl() const { return m_serverUrl; }

    /// Opens the history and runs the monitors on it; opened() tells. While
    /// running, the same as switchDatabase().
    void open(const QString &database = {});
    /// Opens `database` (on the engine's thread) and moves the running engine to
    /// it; opened() when it has, or databaseSwitchFailed() when it cannot be
    /// opened, and then the engine goes on writing the old one.
    void switchDatabase(const QString &database);
    /// The history the engine writes; empty until one opened.
    QString database() const { return m_database; }
    bool isOpen() const { return !m_database.isEmpty(); }

    /// Reads the monitors file (a missing one is an empty list); its monitors may
    /// use {server} (see setServerUrl()), as may those importFile() adds. A file that
    /// cannot be read is left as it is: monitorsFileFailed() says why, false,
    /// and nothing is saved over it until a later loadSaved() succeeds.
    bool loadSaved();
    /// Adds the monitors of a monitors file (and its alert targets: where a
    /// target's name is taken, the one already here stays); a monitor's name
    /// already taken gets " (2)", " (3)" ... The error naming the file, or empty.
    QString importFile(const QString &path);

    const QList<Core::Monitor> &monitors() const { return m_monitors; }
    const QList<Core::AlertTarget> &alertTargets() const { return m_alertTargets; }
    /// The monitor named so, or null.
    const Core::Monitor *monitor(const QString &name) const;
    /// False when the name is empty or taken.
    bool addMonitor(const Core::Monitor &monitor);
    /// An edit, possibly renaming it. False when `name` is unknown or the new
    /// name belongs to another monitor.
    bool replaceMonitor(const QString &name, const Core::Monitor &monitor);
    bool removeMonitor(const QString &name);
    /// Pausing is kept in the file (Monitor::paused).
    bool pause(const QString &name);
    bool resume(const QString &name);
    /// A check now, unless one is running or it is paused. False before opened().
    bool checkNow(const QString &name);

    /// Stops the engine (checks in flight end and are stored), flushes and
    /// closes the history and ends the thread, waiting at most `waitMs` for it
    /// and a little more for a forced end. False when it did not end in time.
    bool shutdown(int waitMs = shutdownWaitMs);
    static constexpr int shutdownWaitMs = 5000;
    static constexpr int forcedStopWaitMs = 3000;

Q_SIGNALS:
    /// The answer to open(): `error` is empty when the history opened.
    void opened(const QString &database, const QString &error);
    void databaseSwitchFailed(const QString &error);
    void checkFinished(const RetryLab::Core::StoredCheck &check);
    void stateChanged(const RetryLab::Core::StateEvent &event);
    void incidentStarted(const RetryLab::Core::Incident &incident);
    void incidentEnded(const RetryLab::Core::Incident &incident);
    /// Writing the history fails (the checks wait in memory), or works again (empty).
    void historyWarning(const QString &message);
    void monitorsChanged();
    /// Every second: the wall time (UTC epoch ms) of each monitor's next check;
    /// a monitor paused or running a check is missing.
    void nextDueTimes(const QHash<QString, qint64> &dueMs);
    /// For a tray icon or a banner: a monitor went down, came back up, or its
    /// retries hid a fault.
    void notification(const QString &title, const QString &text);
    /// A desktop alert target of the monitors file was raised (a burn rate over
    /// its threshold, a change of state it names): the dispatcher's words.
    void alertNotification(const QString &title, const QString &text);
    /// The monitors file could not be read or written.
    void monitorsFileFailed(const QString &error);

private:
    void handleOpened(const QString &database, const QString &error, bool switching);
    void handleStateChanged(const Core::StateEvent &event);
    void handleIncidentEnded(const Core::Incident &incident);
    void save();
    QString freeName(const QString &name) const;
    int indexOf(const QString &name) const;
    void startThread();
    template<typename Call>
    void post(Call &&call);

    QString m_monitorsFile;
    QString m_agent;
    QUrl m_serverUrl;
    QString m_database;
    QList<Core::Monitor> m_monitors;
    QList<Core::AlertTarget> m_alertTargets;
    /// Why the monitors file could not be read; while set, nothing is saved over it.
    QString m_unreadFile;
    QThread *m_thread = nullptr;
    MonitorWorker *m_worker = nullptr;
    bool m_shutDown = false;
};

} // namespace RetryLab::Ui
