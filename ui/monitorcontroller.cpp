#include "ui/monitorcontroller.h"

#include "core/history/historylocation.h"
#include "core/monitor/checkrun.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/monitor/incidentlistmodel.h"
#include "ui/monitor/incidentsview.h"
#include "ui/monitor/monitordraft.h"
#include "ui/monitor/monitorhistorypage.h"
#include "ui/monitor/monitorhistoryview.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/monitor/monitorsview.h"
#include "ui/openedrun.h"
#include "ui/session/monitor/historyreader.h"
#include "ui/session/monitor/monitorhost.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/messagebar.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QIcon>
#include <QLabel>
#include <QLoggingCategory>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QPolygonF>
#include <QPushButton>
#include <QSet>
#include <QSystemTrayIcon>
#include <QTimer>

namespace {
Q_LOGGING_CATEGORY(lcMonitorController, "retrylab.ui.monitors")
} // namespace

namespace RetryLab::Ui {

namespace {

constexpr qint64 hourMs = 3'600'000;
constexpr qint64 dayMs = 24 * hourMs;
constexpr qint64 monthMs = 30 * dayMs;

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

// The application's icon where the desktop has it installed; else a drawn one:
// a tray icon must have a picture.
QIcon trayIconPicture()
{
    const QIcon installed = QIcon::fromTheme(QStringLiteral("retrylab"), QApplication::windowIcon());
    if (!installed.isNull())
        return installed;
    QPixmap picture(32, 32);
    picture.fill(Qt::transparent);
    QPainter painter(&picture);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setBrush(QColor(0x2b, 0x6c, 0xb0));
    painter.setPen(Qt::NoPen);
    painter.drawEllipse(QRectF(1, 1, 30, 30));
    painter.setPen(QPen(Qt::white, 2.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.drawPolyline(QPolygonF({{5, 17}, {11, 17}, {14, 9}, {18, 24}, {21, 14}, {27, 14}}));
    return QIcon(picture);
}

QString localTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

} // namespace

MonitorController::MonitorController(const Parts &parts, const QString &dataDirectory, QObject *parent)
    : QObject(parent), m_parts(parts), m_dataDirectory(dataDirectory),
      m_host(new MonitorHost(
          dataDirectory.isEmpty() ? QString() : QDir(dataDirectory).filePath(QStringLiteral("monitors.json")), this)),
      m_reader(new HistoryReader({}, this)), m_refresh(new QTimer(this)), m_incidentsSoon(new QTimer(this))
{
    setObjectName(QStringLiteral("monitorController"));
    m_host->setObjectName(QStringLiteral("monitorHost"));
    m_reader->setObjectName(QStringLiteral("historyReader"));
    m_refresh->setInterval(refreshIntervalMs);
    connect(m_refresh, &QTimer::timeout, this, &MonitorController::refresh);
    // Incidents end in bursts (a flaky endpoint): read them once the burst settles.
    m_incidentsSoon->setSingleShot(true);
    m_incidentsSoon->setInterval(2000);
    connect(m_incidentsSoon, &QTimer::timeout, this, &MonitorController::readIncidents);

    if (parts.systemTray) {
        m_tray = new QSystemTrayIcon(trayIconPicture(), this);
        m_tray->setObjectName(QStringLiteral("monitorTray"));
        m_tray->setToolTip(tr("RetryLab monitors"));
        m_trayMenu = new QMenu;
        m_trayMenu->addAction(tr("Show RetryLab"), this, &MonitorController::showWindowRequested);
        m_trayMenu->addSeparator();
        m_trayMenu->addAction(tr("Quit"), this, [this] {
            m_quitting = true;
            Q_EMIT quitRequested();
        });
        m_tray->setContextMenu(m_trayMenu);
        connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
            if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
                Q_EMIT showWindowRequested();
        });
    }
    wireHost();
    wireViews();
    showDatabase();
}

MonitorController::~MonitorController()
{
    delete m_trayMenu;
}

QString MonitorController::defaultDatabase() const
{
    return m_dataDirectory.isEmpty() ? Core::HistoryLocation::defaultDatabase()
                                     : QDir(m_dataDirectory).filePath(QStringLiteral("history.sqlite"));
}

QString MonitorController::database() const
{
    if (m_host->isOpen())
        return m_host->database();
    const QString chosen = m_parts.settings->monitorDatabase();
    return chosen.isEmpty() ? defaultDatabase() : chosen;
}

void MonitorController::start()
{
    m_host->loadSaved();
    m_parts.monitors->model()->setMonitors(m_host->monitors());
    if (!m_host->monitors().isEmpty())
        ensureOpen();
}

void MonitorController::ensureOpen()
{
    if (m_host->isOpen() || m_opening)
        return;
    m_opening = true;
    m_host->open(database());
}

void MonitorController::switchDatabase(const QString &database)
{
    m_chosenDatabase = database;
    const QString target = database.isEmpty() ? defaultDatabase() : database;
    if (!m_host->isOpen()) {
        // Nothing runs yet: the choice is kept, and used with the first monitor.
        m_parts.settings->setMonitorDatabase(database);
        m_chosenDatabase.reset();
        showDatabase();
        if (!m_host->monitors().isEmpty())
            ensureOpen();
        return;
    }
    m_host->switchDatabase(target);
}

void MonitorController::wireHost()
{
    connect(m_host, &MonitorHost::opened, this, &MonitorController::handleOpened);
    connect(m_host, &MonitorHost::databaseSwitchFailed, this, [this](const QString &error) {
        m_chosenDatabase.reset();
        m_parts.messages->showMessage(FieldMessage::Kind::Error,
            tr("The monitors' history was not switched: %1. They go on writing %2.")
                .arg(error, QDir::toNativeSeparators(m_host->database())));
    });
    connect(m_host, &MonitorHost::monitorsFileFailed, this,
        [this](const QString &error) { m_parts.monitors->showMessage(error); });
    connect(m_host, &MonitorHost::historyWarning, this, [this](const QString &message) {
        if (message.isEmpty())
            m_parts.monitors->messageBar()->clear();
        else
            m_parts.monitors->showMessage(message);
    });
    connect(m_host, &MonitorHost::monitorsChanged, this, [this] {
        m_parts.monitors->model()->setMonitors(m_host->monitors());
        QStringList names;
        for (const Core::Monitor &monitor : m_host->monitors())
            names.append(monitor.name);
        m_parts.history->setMonitors(names);
        if (!m_host->monitors().isEmpty())
            ensureOpen();
    });
    MonitorListModel *model = m_parts.monitors->model();
    connect(m_host, &MonitorHost::checkFinished, model, &MonitorListModel::addCheck);
    connect(m_host, &MonitorHost::stateChanged, model,
        [model](const Core::StateEvent &event) { model->setState(event.monitor, event.to); });
    connect(m_host, &MonitorHost::nextDueTimes, model, &MonitorListModel::setNextDue);
    connect(m_host, &MonitorHost::incidentStarted, m_incidentsSoon, qOverload<>(&QTimer::start));
    connect(m_host, &MonitorHost::incidentEnded, m_incidentsSoon, qOverload<>(&QTimer::start));
    connect(m_host, &MonitorHost::notification, this, [this](const QString &title, const QString &text) {
        notify(title, text, title.contains(QLatin1String(": ")));
    });
    connect(m_host, &MonitorHost::alertNotification, this,
        [this](const QString &title, const QString &text) { notify(title, text, false); });
    connect(m_host, &MonitorHost::stateChanged, this, [this](const Core::StateEvent &) {
        // A change of state changes the day's figures: read them soon, not in a minute.
        m_incidentsSoon->start();
    });

    connect(m_reader, &HistoryReader::summariesRead, this,
        [this](quint64 id, const QList<Core::MonitorSummary> &summaries) {
            if (id == m_dayRead) {
                m_day = summaries;
            } else if (id == m_monthRead) {
                m_parts.monitors->model()->setSummaries(m_day, summaries);
            } else if (id == m_window.summary) {
                m_windowSummary = summaries.isEmpty() ? Core::MonitorSummary{} : summaries.constFirst();
                if (m_windowSummary.monitor.isEmpty())
                    m_windowSummary.monitor = m_window.monitor;
                m_parts.history->setSummary(m_windowSummary);
            }
        });
    connect(m_reader, &HistoryReader::checkPointsRead, this, [this](quint64 id, const QList<Core::CheckPoint> &points) {
        if (id == m_window.points) {
            m_parts.history->setCheckPoints(points);
            return;
        }
        const QString monitor = m_beatReads.take(id);
        if (!monitor.isEmpty())
            m_parts.monitors->model()->setCheckHistory(monitor, points);
    });
    connect(m_reader, &HistoryReader::incidentsRead, this, [this](quint64 id, const QList<Core::Incident> &incidents) {
        if (id == m_incidentsRead)
            m_parts.incidents->setIncidents(incidents);
        else if (id == m_window.incidents)
            m_parts.history->setIncidents(incidents);
    });
    connect(m_reader, &HistoryReader::stateEventsRead, this, [this](quint64 id, const QList<Core::StateEvent> &events) {
        if (id == m_window.events)
            m_parts.history->setStateEvents(events);
    });
    connect(m_reader, &HistoryReader::objectiveRead, this, [this](quint64 id, const Core::ObjectiveStatus &status) {
        if (id == m_window.objective)
            m_parts.history->setObjective(status);
    });
    connect(m_reader, &HistoryReader::whatIfRead, this, [this](quint64 id, const Core::WhatIf &whatIf) {
        if (id != m_whatIfRead)
            return;
        m_parts.history->setWhatIfBusy(false);
        m_parts.history->setWhatIfResult(whatIf, m_windowSummary);
    });
    connect(m_reader, &HistoryReader::checksRead, this, [this](quint64 id, const QList<Core::StoredCheck> &checks) {
        if (id != m_checkRead)
            return;
        if (checks.isEmpty()) {
            m_parts.messages->showMessage(
                FieldMessage::Kind::Warning, tr("That check is no longer in the history (retention removed it)."));
            return;
        }
        const Core::StoredCheck &check = checks.constFirst();
        m_parts.openedRun->showRecord(Core::runRecordOf(check, m_host->monitor(check.monitor)),
            tr("Check of %1 at %2 from the monitor history").arg(check.monitor, localTime(check.startMs)));
        if (m_parts.showTimeline)
            m_parts.showTimeline();
        // The attempt that tells most: the first that failed, else the only one.
        if (m_parts.inspectAttempt) {
            qsizetype row = 0;
            for (qsizetype i = 0; i < check.attempts.size(); ++i) {
                if (!check.attempts.at(i).success) {
                    row = i;
                    break;
                }
            }
            m_parts.inspectAttempt(row);
        }
    });
    connect(m_reader, &HistoryReader::readFailed, this, [this](quint64 id, const QString &error) {
        qCInfo(lcMonitorController).noquote() << "a history read failed:" << error;
        if (id == m_whatIfRead) {
            m_parts.history->setWhatIfBusy(false);
            m_parts.history->setWhatIfError(error);
        } else if (id == m_checkRead || id == m_window.points || id == m_incidentsRead) {
            m_parts.monitors->showMessage(tr("The history could not be read: %1").arg(error));
        }
    });
}

void MonitorController::wireViews()
{
    MonitorsView *view = m_parts.monitors;
    connect(view, &MonitorsView::addFromCurrentRequestRequested, this, &MonitorController::addFromCurrentRequest);
    connect(view, &MonitorsView::addFromCollectionRequested, this, &MonitorController::addFromCollection);
    connect(view, &MonitorsView::importRequested, this, [this, view](const QString &path) {
        const QString error = m_host->importFile(path);
        if (!error.isEmpty())
            view->showMessage(error);
    });
    connect(view, &MonitorsView::addRequested, this, [this, view](const Core::Monitor &monitor) {
        if (!m_host->addMonitor(monitor))
            view->showMessage(tr("A monitor named \u201c%1\u201d exists already.").arg(monitor.name));
        else
            readBeats({monitor.name});
    });
    connect(
        view, &MonitorsView::replaceRequested, this, [this, view](const QString &name, const Core::Monitor &monitor) {
            if (!m_host->replaceMonitor(name, monitor))
                view->showMessage(tr("\u201c%1\u201d could not be changed: the name \u201c%2\u201d is taken or it is "
                                     "gone.")
                                      .arg(name, monitor.name));
        });
    connect(view, &MonitorsView::removeRequested, m_host, &MonitorHost::removeMonitor);
    connect(view, &MonitorsView::pauseRequested, m_host, &MonitorHost::pause);
    connect(view, &MonitorsView::resumeRequested, m_host, &MonitorHost::resume);
    connect(view, &MonitorsView::checkNowRequested, this, [this, view](const QString &name) {
        if (!m_host->checkNow(name))
            view->showMessage(tr("\u201c%1\u201d cannot be checked now: it is paused, a check is running, or the "
                                 "history is not open.")
                                  .arg(name));
    });
    connect(view, &MonitorsView::historyRequested, this, [this](const QString &name) {
        m_parts.history->setCurrentMonitor(name);
        if (m_parts.showPage)
            m_parts.showPage(m_parts.history);
    });

    MonitorHistoryPage *history = m_parts.history;
    history->setNowSource(&nowMs);
    connect(history, &MonitorHistoryPage::windowRequested, this, &MonitorController::readWindow);
    connect(history, &MonitorHistoryPage::checkActivated, this, &MonitorController::openCheck);
    connect(history, &MonitorHistoryPage::whatIfRequested, this,
        [this](const QString &monitor, qint64 sinceMs, qint64 untilMs, const Core::BackoffPolicy &policy,
            const QString &) {
            if (!m_host->isOpen())
                return;
            m_parts.history->setWhatIfBusy(true);
            // One seed for a monitor's replays: the same night gives the same estimate.
            m_whatIfRead = m_reader->whatIf(monitor, sinceMs, untilMs, policy, 1, {}, QStringLiteral("whatIf"));
        });

    IncidentsView *incidents = m_parts.incidents;
    QSet<QString> acknowledged;
    for (const QString &key : m_parts.settings->acknowledgedIncidents())
        acknowledged.insert(key);
    incidents->setAcknowledged(acknowledged);
    connect(incidents, &IncidentsView::acknowledgementChanged, this, &MonitorController::saveAcknowledgement);
    connect(incidents, &IncidentsView::incidentActivated, this, [this](const Core::Incident &incident) {
        m_parts.history->setCurrentMonitor(incident.monitor);
        if (m_parts.showPage)
            m_parts.showPage(m_parts.history);
        const qint64 end = incident.endMs.value_or(nowMs());
        const qint64 margin = std::max<qint64>(60'000, (end - incident.startMs) / 2);
        m_parts.history->historyView()->setVisibleRange(incident.startMs - margin, end + margin);
    });
}

void MonitorController::saveAcknowledgement(const QString &key, bool acknowledged)
{
    QStringList keys = m_parts.settings->acknowledgedIncidents();
    keys.removeAll(key);
    if (acknowledged)
        keys.append(key);
    m_parts.settings->setAcknowledgedIncidents(keys);
}

void MonitorController::handleOpened(const QString &database, const QString &error)
{
    m_opening = false;
    if (!error.isEmpty()) {
        const bool switching = m_chosenDatabase.has_value();
        m_chosenDatabase.reset();
        m_parts.messages->showMessage(FieldMessage::Kind::Error,
            switching ? tr("The monitors' history was not switched: %1").arg(error)
                      : tr("The monitors' history could not be opened: %1. The monitors do not run; choose another "
                           "history in Tools > Preferences.")
                            .arg(error));
        showDatabase();
        return;
    }
    if (m_chosenDatabase) {
        m_parts.settings->setMonitorDatabase(*m_chosenDatabase);
        m_chosenDatabase.reset();
    }
    m_reader->setDatabase(database);
    showDatabase();
    Q_EMIT databaseInUseChanged(database);
    QStringList names;
    for (const Core::Monitor &monitor : m_host->monitors())
        names.append(monitor.name);
    m_parts.history->setMonitors(names);
    readBeats(names);
    refresh();
    m_refresh->start();
    if (m_tray)
        m_tray->show();
}

void MonitorController::showDatabase()
{
    if (!m_parts.databaseLabel)
        return;
    const QString where = QDir::toNativeSeparators(database());
    m_parts.databaseLabel->setText(
        m_host->isOpen() ? tr("History: %1").arg(where) : tr("History: %1 (opened with the first monitor)").arg(where));
}

void MonitorController::refresh()
{
    if (!m_host->isOpen())
        return;
    readSummaries();
    readIncidents();
}

void MonitorController::readSummaries()
{
    const qint64 now = nowMs();
    // The table needs counts, not percentiles: the cheaper read.
    m_dayRead = m_reader->summaries({QString(), QString(), now - dayMs, now + 1},
        Core::HistoryQuery::SummaryDetail::WithoutLatency, QStringLiteral("day"));
    m_monthRead = m_reader->summaries({QString(), QString(), now - monthMs, now + 1},
        Core::HistoryQuery::SummaryDetail::WithoutLatency, QStringLiteral("month"));
}

void MonitorController::readIncidents()
{
    if (!m_host->isOpen())
        return;
    const qint64 now = nowMs();
    m_incidentsRead = m_reader->incidents({QString(), QString(), now - monthMs, now + 1}, QStringLiteral("incidents"));
}

void MonitorController::readBeats(const QStringList &monitors)
{
    if (!m_host->isOpen())
        return;
    const qint64 now = nowMs();
    for (const QString &name : monitors) {
        const Core::Monitor *monitor = m_host->monitor(name);
        if (!monitor)
            continue;
        const auto span = static_cast<qint64>(monitor->intervalMs * MonitorListModel::beatCount * 2);
        const quint64 id
            = m_reader->checkPoints({name, QString(), now - span, now + 1}, QStringLiteral("beats:") + name);
        m_beatReads.insert(id, name);
    }
}

void MonitorController::readWindow(const QString &monitor, qint64 sinceMs, qint64 untilMs)
{
    if (!m_host->isOpen() || monitor.isEmpty())
        return;
    const Core::HistoryFilter filter{monitor, QString(), sinceMs, untilMs};
    m_window = {};
    m_window.monitor = monitor;
    // In the order a person sees them: the chart first, its bands, then the
    // figures (percentiles of a month take a while).
    m_window.points = m_reader->checkPoints(filter, QStringLiteral("window"));
    m_window.incidents = m_reader->incidents(filter, QStringLiteral("window"));
    m_window.events = m_reader->stateEvents(filter, QStringLiteral("window"));
    m_window.summary = m_reader->summaries(filter, Core::HistoryQuery::SummaryDetail::Full, QStringLiteral("window"));
    const Core::Monitor *known = m_host->monitor(monitor);
    if (known) {
        m_parts.history->setMaintenance(known->maintenance);
        if (known->objective)
            m_window.objective = m_reader->objective(monitor, *known->objective, untilMs, {}, QStringLiteral("window"));
        else
            m_parts.history->setObjective(std::nullopt);
    }
    if (m_parts.currentPolicy)
        m_parts.history->setCurrentPolicy(m_parts.currentPolicy());
}

void MonitorController::openCheck(const QString &monitor, qint64 checkStartMs)
{
    if (!m_host->isOpen())
        return;
    m_checkRead = m_reader->checks({monitor, QString(), checkStartMs, checkStartMs + 1}, QStringLiteral("check"));
}

void MonitorController::addFromCurrentRequest()
{
    if (!m_parts.currentRequest)
        return;
    // {id} in the request becomes a key of each check: built with a stand-in,
    // the stand-in turns back into {id} in the monitor's URL.
    const QString idKey = QStringLiteral("retrylab-monitor-id");
    const auto spec = m_parts.currentRequest(idKey);
    if (!spec) {
        m_parts.monitors->showMessage(tr("The current request cannot be monitored: %1").arg(spec.error()));
        return;
    }
    const Core::BackoffPolicy policy = m_parts.currentPolicy ? m_parts.currentPolicy() : Core::BackoffPolicy{};
    // The URL as typed keeps {server}: the embedded server's port changes at
    // every start, and the monitor must outlive it.
    Core::Monitor monitor
        = monitorFromRequest(*spec, m_parts.currentUrlTemplate ? m_parts.currentUrlTemplate() : QString(), policy,
            m_parts.monitors->model()->names());
    monitor.urlTemplate.replace(idKey, QStringLiteral("{id}"));
    m_parts.monitors->editNewMonitor(monitor);
}

void MonitorController::addFromCollection()
{
    const auto source = m_parts.collections ? m_parts.collections->monitorSource() : std::nullopt;
    if (!source) {
        m_parts.monitors->showMessage(tr("Choose a saved request, a folder or a collection in the Collections dock "
                                         "first (View > Collections); its requests become monitors."));
        return;
    }
    const CollectionMonitors made = monitorsFromCollection(source->collectionFile, source->path,
        source->environmentFile, source->environmentName, m_parts.monitors->model()->names(), true);
    if (!made.errors.isEmpty())
        m_parts.monitors->showMessage(made.errors.join(QLatin1Char('\n')));
    if (made.monitors.size() == 1)
        m_parts.monitors->editNewMonitor(made.monitors.constFirst());
    else if (!made.monitors.isEmpty())
        m_parts.monitors->addMonitors(made.monitors);
}

void MonitorController::notify(const QString &title, const QString &text, bool hiddenFault)
{
    if (hiddenFault) {
        // A flaky endpoint hides faults every few minutes: tell of it now and then.
        const QString monitor = title.section(QStringLiteral(": "), 0, 0);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const auto last = m_lastHiddenNotice.constFind(monitor);
        if (last != m_lastHiddenNotice.constEnd() && last->msecsTo(now) < hiddenNoticeGapMs)
            return;
        m_lastHiddenNotice.insert(monitor, now);
    }
    if (m_tray && m_tray->isVisible() && QSystemTrayIcon::supportsMessages()) {
        m_tray->showMessage(title, text, hiddenFault ? QSystemTrayIcon::Information : QSystemTrayIcon::Warning);
        return;
    }
    m_parts.messages->showMessage(hiddenFault ? FieldMessage::Kind::Note : FieldMessage::Kind::Warning,
        QStringLiteral("%1. %2").arg(title, text));
}

MonitorController::Close MonitorController::closeRequested()
{
    if (m_quitting || m_host->monitors().isEmpty() || !m_host->isOpen() || !m_tray)
        return Close::Quit;
    switch (m_parts.settings->closeWithMonitors()) {
    case Settings::CloseWithMonitors::KeepMonitoring:
        return Close::Hide;
    case Settings::CloseWithMonitors::Quit:
        return Close::Quit;
    case Settings::CloseWithMonitors::Ask:
        break;
    }
    QMessageBox box(QMessageBox::Question, tr("Keep monitoring?"),
        tr("%n monitor(s) are running. Keep monitoring with RetryLab in the tray, or stop them and quit?", nullptr,
            static_cast<int>(m_host->monitors().size())),
        QMessageBox::NoButton, m_parts.window);
    box.setObjectName(QStringLiteral("keepMonitoring"));
    box.setInformativeText(
        tr("The answer is kept; Tools > Preferences changes it. The tray icon's menu shows the window or quits."));
    QPushButton *keep = box.addButton(tr("&Keep monitoring"), QMessageBox::AcceptRole);
    QPushButton *quit = box.addButton(tr("&Stop and quit"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(keep);
    box.exec();
    if (box.clickedButton() == keep) {
        m_parts.settings->setCloseWithMonitors(Settings::CloseWithMonitors::KeepMonitoring);
        return Close::Hide;
    }
    if (box.clickedButton() == quit) {
        m_parts.settings->setCloseWithMonitors(Settings::CloseWithMonitors::Quit);
        return Close::Quit;
    }
    return Close::Cancel;
}

void MonitorController::shutdown()
{
    m_refresh->stop();
    m_incidentsSoon->stop();
    m_host->shutdown();
    if (m_tray)
        m_tray->hide();
}

} // namespace RetryLab::Ui
