#pragma once

#include "core/history/historyfigures.h"
#include "core/history/storedcheck.h"
#include "core/monitor/monitor.h"
#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/util/result.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <optional>

class QAction;
class QLabel;
class QMenu;
class QSystemTrayIcon;
class QTimer;

namespace RetryLab::Ui {

class CollectionSidebar;
class HistoryReader;
class IncidentsView;
class MessageBar;
class MonitorHistoryPage;
class MonitorHost;
class MonitorsView;
class OpenedRun;
class Settings;

/// The window's monitors: runs them (MonitorHost, on a thread of its own),
/// reads their history (HistoryReader, on another) and feeds the Monitors tab's
/// pages: the table with its beat bars and availabilities, a monitor's history,
/// the incidents of all. A click on a check opens its attempts in the run views
/// (OpenedRun). Changes of state and hidden faults are told by the tray icon
/// where the platform has one, else by the window's message bar.
///
/// The history is opened once there is a monitor: a window never used for
/// monitoring writes no database. Closing the window while monitors run asks
/// once whether to keep monitoring in the tray (Settings::closeWithMonitors).
class MonitorController final : public QObject
{
    Q_OBJECT

public:
    struct Parts
    {
        Settings *settings = nullptr;
        MonitorsView *monitors = nullptr;
        MonitorHistoryPage *history = nullptr;
        IncidentsView *incidents = nullptr;
        QLabel *databaseLabel = nullptr;
        CollectionSidebar *collections = nullptr;
        OpenedRun *openedRun = nullptr;
        MessageBar *messages = nullptr;
        QWidget *window = nullptr;
        /// A tray icon can be shown (QSystemTrayIcon::isSystemTrayAvailable()).
        bool systemTray = false;
        /// The request being composed, as it would be sent with `idKey` for {id},
        /// and the policy dock's policy.
        std::function<Core::Result<Core::RequestSpec>(const QString &idKey)> currentRequest;
        std::function<Core::BackoffPolicy()> currentPolicy;
        /// The request's URL as typed, its {{variables}} filled in, {server} and {id} kept.
        std::function<QString()> currentUrlTemplate;
        /// Brings a page of the Monitors tab (or the timeline) forward.
        std::function<void(QWidget *page)> showPage;
        std::function<void()> showTimeline;
        /// Shows an attempt of the run on view in the attempt inspector.
        std::function<void(qsizetype attemptRow)> inspectAttempt;
    };

    /// `dataDirectory`: where the monitors file and the default history go;
    /// empty: the application's data folder.
    MonitorController(const Parts &parts, const QString &dataDirectory, QObject *parent = nullptr);
    ~MonitorController() override;

    MonitorHost *host() const { return m_host; }
    HistoryReader *reader() const { return m_reader; }
    QSystemTrayIcon *trayIcon() const { return m_tray; }

    /// Loads the saved monitors and, when there are any, opens the history.
    void start();
    /// The history in use, or the one that will be opened.
    QString database() const;
    /// Preferences chose another history: the settings keep it once it opened.
    void switchDatabase(const QString &database);

    /// What closing the window does: close it, hide it (monitoring goes on with
    /// the tray icon), or nothing (the person cancelled). Asks once.
    enum class Close { Quit, Hide, Cancel };
    Close closeRequested();
    /// The tray's Quit (or a second close): the next closeRequested() quits.
    void setQuitting() { m_quitting = true; }
    /// Stops the monitors, storing the checks in flight.
    void shutdown();

    /// Reads the tables' summaries and the incidents again (every minute anyway).
    void refresh();

Q_SIGNALS:
    /// The history in use changed (empty: none is open).
    void databaseInUseChanged(const QString &database);
    /// The tray's "Show RetryLab".
    void showWindowRequested();
    /// The tray's "Quit".
    void quitRequested();

private:
    void wireHost();
    void wireViews();
    void ensureOpen();
    void handleOpened(const QString &database, const QString &error);
    void notify(const QString &title, const QString &text, bool hiddenFault);
    void readSummaries();
    void readIncidents();
    void readBeats(const QStringList &monitors);
    void readWindow(const QString &monitor, qint64 sinceMs, qint64 untilMs);
    void openCheck(const QString &monitor, qint64 checkStartMs);
    void addFromCurrentRequest();
    void addFromCollection();
    void showDatabase();
    void saveAcknowledgement(const QString &key, bool acknowledged);
    QString defaultDatabase() const;

    Parts m_parts;
    QString m_dataDirectory;
    MonitorHost *m_host;
    HistoryReader *m_reader;
    QSystemTrayIcon *m_tray = nullptr;
    QMenu *m_trayMenu = nullptr;
    QTimer *m_refresh;
    QTimer *m_incidentsSoon;
    std::optional<QString> m_chosenDatabase; ///< a switch under way, kept in the settings once it opened
    bool m_quitting = false;
    bool m_opening = false;

    // The answers awaited, by request id; older ones are dropped.
    quint64 m_dayRead = 0;
    quint64 m_monthRead = 0;
    quint64 m_incidentsRead = 0;
    QHash<quint64, QString> m_beatReads;
    struct WindowRead
    {
        QString monitor;
        quint64 summary = 0;
        quint64 points = 0;
        quint64 incidents = 0;
        quint64 events = 0;
        quint64 objective = 0;
    };
    WindowRead m_window;
    quint64 m_checkRead = 0;
    quint64 m_whatIfRead = 0;
    Core::MonitorSummary m_windowSummary;
    QList<Core::MonitorSummary> m_day;
    /// When each monitor last told of a hidden fault: at most one a quarter of an hour.
    QHash<QString, QDateTime> m_lastHiddenNotice;
    static constexpr int refreshIntervalMs = 60'000;
    static constexpr qint64 hiddenNoticeGapMs = 15 * 60'000;
};

} // namespace RetryLab::Ui
