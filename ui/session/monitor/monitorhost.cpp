#include "ui/session/monitor/monitorhost.h"

#include "core/history/historylocation.h"
#include "core/monitor/monitorsfile.h"
#include "core/monitor/monitorsfilewriter.h"
#include "ui/session/monitor/monitorworker.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QStandardPaths>
#include <QSysInfo>
#include <QThread>

namespace RetryLab::Ui {

namespace {

Q_LOGGING_CATEGORY(lcMonitorHost, "retrylab.ui.monitorhost")

// The reader refuses longer names.
constexpr qsizetype maxMonitorName = 100;

QString sentence(const QString &text)
{
    return text.isEmpty() ? text : text.at(0).toUpper() + text.mid(1);
}

// The window's own monitors may use {server}: its engine knows the embedded server.
Core::MonitorsFileReader::ReadOptions windowMonitorsReading()
{
    Core::MonitorsFileReader::ReadOptions options;
    options.allowServer = true;
    return options;
}

} // namespace

MonitorHost::MonitorHost(const QString &monitorsFile, QObject *parent)
    : QObject(parent), m_monitorsFile(monitorsFile.isEmpty() ? defaultMonitorsFile() : monitorsFile),
      m_agent(QSysInfo::machineHostName())
{
    qRegisterMetaType<Core::StoredCheck>();
    qRegisterMetaType<Core::StateEvent>();
    qRegisterMetaType<Core::Incident>();
    qRegisterMetaType<QHash<QString, qint64>>();
    connect(this, &MonitorHost::stateChanged, this, &MonitorHost::handleStateChanged);
    connect(this, &MonitorHost::incidentEnded, this, &MonitorHost::handleIncidentEnded);
}

MonitorHost::~MonitorHost()
{
    shutdown();
}

QString MonitorHost::defaultMonitorsFile()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return QDir(folder.isEmpty() ? QDir::homePath() : folder).filePath(QStringLiteral("monitors.json"));
}

void MonitorHost::startThread()
{
    if (m_thread || m_shutDown)
        return;
    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("monitors"));
    m_worker = new MonitorWorker(m_agent.isEmpty() ? QSysInfo::machineHostName() : m_agent);
    m_worker->setServerUrl(m_serverUrl); // before it moves: still this thread's
    m_worker->moveToThread(m_thread);
    // Queued: the worker emits on its thread, these arrive on the window's.
    connect(m_worker, &MonitorWorker::checkFinished, this, &MonitorHost::checkFinished);
    connect(m_worker, &MonitorWorker::stateChanged, this, &MonitorHost::stateChanged);
    connect(m_worker, &MonitorWorker::incidentStarted, this, &MonitorHost::incidentStarted);
    connect(m_worker, &MonitorWorker::incidentEnded, this, &MonitorHost::incidentEnded);
    connect(m_worker, &MonitorWorker::historyWarning, this, &MonitorHost::historyWarning);
    connect(m_worker, &MonitorWorker::nextDueTimes, this, &MonitorHost::nextDueTimes);
    connect(m_worker, &MonitorWorker::desktopNotification, this, &MonitorHost::alertNotification);
    connect(m_worker, &MonitorWorker::databaseUsed, this, &MonitorHost::handleOpened);
    m_thread->start();
}

template<typename Call>
void MonitorHost::post(Call &&call)
{
    if (!m_worker || m_shutDown)
        return;
    QMetaObject::invokeMethod(m_worker, std::forward<Call>(call), Qt::QueuedConnection);
}

void MonitorHost::setServerUrl(const QUrl &base)
{
    m_serverUrl = base;
    MonitorWorker *worker = m_worker;
    post([worker, base] { worker->setServerUrl(base); });
}

void MonitorHost::open(const QString &database)
{
    if (m_shutDown)
        return;
    QString path = database;
    if (path.isEmpty()) {
        // RetryLab's own folder is made when missing; a folder the user named must exist.
        path = Core::HistoryLocation::defaultDatabase();
        QDir().mkpath(QFileInfo(path).absolutePath());
    }
    const bool switching = isOpen();
    if (switching && path == m_database) {
        // Opening it again would meet its own lock; it is the one in use already.
        Q_EMIT opened(path, QString());
        return;
    }
    startThread();
    MonitorWorker *worker = m_worker;
    post([worker, path, switching, monitors = m_monitors, targets = m_alertTargets] {
        const QString error = worker->useDatabase(path, monitors, targets);
        Q_EMIT worker->databaseUsed(path, error, switching);
    });
}

void MonitorHost::switchDatabase(const QString &database)
{
    open(database);
}

void MonitorHost::handleOpened(const QString &database, const QString &error, bool switching)
{
    if (error.isEmpty()) {
        m_database = database;
        qCInfo(lcMonitorHost).noquote() << "history in" << database;
        Q_EMIT opened(database, QString());
    } else if (switching) {
        qCWarning(lcMonitorHost).noquote() << "the history stays in" << m_database << "because:" << error;
        Q_EMIT databaseSwitchFailed(error);
    } else {
        Q_EMIT opened(database, error);
    }
}

bool MonitorHost::loadSaved()
{
    if (!QFileInfo::exists(m_monitorsFile)) {
        m_unreadFile.clear();
        return true;
    }
    const auto file = Core::MonitorsFileReader::readFile(m_monitorsFile, {}, windowMonitorsReading());
    if (!file) {
        m_unreadFile = file.error();
        qCWarning(lcMonitorHost).noquote() << "the saved monitors cannot be read:" << m_unreadFile;
        Q_EMIT monitorsFileFailed(m_unreadFile);
        return false;
    }
    m_unreadFile.clear();
    m_monitors = file->monitors;
    m_alertTargets = file->alertTargets;
    MonitorWorker *worker = m_worker;
    post([worker, monitors = m_monitors, targets = m_alertTargets] { worker->setMonitors(monitors, targets); });
    Q_EMIT monitorsChanged();
    return true;
}

QString MonitorHost::importFile(const QString &path)
{
    const auto file = Core::MonitorsFileReader::readFile(path, {}, windowMonitorsReading());
    if (!file)
        return file.error();
    for (const Core::AlertTarget &target : file->alertTargets) {
        const bool known = std::any_of(m_alertTargets.cbegin(), m_alertTargets.cend(),
            [&target](const Core::AlertTarget &t) { return t.name == target.name; });
        if (!known)
            m_alertTargets.append(target);
    }
    MonitorWorker *worker = m_worker;
    post([worker, targets = m_alertTargets] { worker->setAlertTargets(targets); });
    for (Core::Monitor monitor : file->monitors) {
        const QString original = monitor.name;
        monitor.name = freeName(original);
        if (monitor.request.label == original)
            monitor.request.label = monitor.name;
        m_monitors.append(monitor);
        post([worker, monitor] { worker->addMonitor(monitor); });
    }
    save();
    Q_EMIT monitorsChanged();
    return {};
}

QString MonitorHost::freeName(const QString &name) const
{
    if (indexOf(name) < 0)
        return name;
    for (int n = 2;; ++n) {
        const QString suffix = QStringLiteral(" (%1)").arg(n);
        const QString candidate = name.left(maxMonitorName - suffix.size()) + suffix;
        if (indexOf(candidate) < 0)
            return candidate;
    }
}

int MonitorHost::indexOf(const QString &name) const
{
    for (int i = 0; i < m_monitors.size(); ++i) {
        if (m_monitors[i].name == name)
            return i;
    }
    return -1;
}

const Core::Monitor *MonitorHost::monitor(const QString &name) const
{
    const int index = indexOf(name);
    return index < 0 ? nullptr : &m_monitors[index];
}

bool MonitorHost::addMonitor(const Core::Monitor &monitor)
{
    if (monitor.name.isEmpty() || indexOf(monitor.name) >= 0)
        return false;
    m_monitors.append(monitor);
    MonitorWorker *worker = m_worker;
    post([worker, monitor] { worker->addMonitor(monitor); });
    save();
    Q_EMIT monitorsChanged();
    return true;
}

bool MonitorHost::replaceMonitor(const QString &name, const Core::Monitor &monitor)
{
    const int index = indexOf(name);
    if (index < 0 || monitor.name.isEmpty() || (monitor.name != name && indexOf(monitor.name) >= 0))
        return false;
    m_monitors[index] = monitor;
    MonitorWorker *worker = m_worker;
    post([worker, name, monitor] { worker->replaceMonitor(name, monitor); });
    save();
    Q_EMIT monitorsChanged();
    return true;
}

bool MonitorHost::removeMonitor(const QString &name)
{
    const int index = indexOf(name);
    if (index < 0)
        return false;
    m_monitors.removeAt(index);
    MonitorWorker *worker = m_worker;
    post([worker, name] { worker->removeMonitor(name); });
    save();
    Q_EMIT monitorsChanged();
    return true;
}

bool MonitorHost::pause(const QString &name)
{
    const int index = indexOf(name);
    if (index < 0 || m_monitors[index].paused)
        return false;
    m_monitors[index].paused = true;
    MonitorWorker *worker = m_worker;
    post([worker, name] { worker->pause(name); });
    save();
    Q_EMIT monitorsChanged();
    return true;
}

bool MonitorHost::resume(const QString &name)
{
    const int index = indexOf(name);
    if (index < 0 || !m_monitors[index].paused)
        return false;
    m_monitors[index].paused = false;
    MonitorWorker *worker = m_worker;
    post([worker, name] { worker->resume(name); });
    save();
    Q_EMIT monitorsChanged();
    return true;
}

bool MonitorHost::checkNow(const QString &name)
{
    const int index = indexOf(name);
    if (index < 0 || m_monitors[index].paused || !m_worker || !isOpen())
        return false;
    MonitorWorker *worker = m_worker;
    post([worker, name] { worker->checkNow(name); });
    return true;
}

void MonitorHost::save()
{
    if (!m_unreadFile.isEmpty()) {
        Q_EMIT monitorsFileFailed(
            tr("The monitors are not saved: the file holding them could not be read (%1); fix or move it.")
                .arg(m_unreadFile));
        return;
    }
    // The reader refuses a file without monitors: an empty list is no file.
    if (m_monitors.isEmpty()) {
        if (QFile::exists(m_monitorsFile) && !QFile::remove(m_monitorsFile))
            Q_EMIT monitorsFileFailed(tr("%1 cannot be removed").arg(QDir::toNativeSeparators(m_monitorsFile)));
        return;
    }
    QDir().mkpath(QFileInfo(m_monitorsFile).absolutePath());
    const auto written = Core::MonitorsFileWriter::writeFile(m_monitorsFile, m_monitors, m_alertTargets);
    if (!written) {
        qCWarning(lcMonitorHost).noquote() << "the monitors cannot be saved:" << written.error();
        Q_EMIT monitorsFileFailed(written.error());
    }
}

void MonitorHost::handleStateChanged(const Core::StateEvent &event)
{
    if (event.to == Core::MonitorState::Down)
        Q_EMIT notification(tr("%1 is down").arg(event.monitor), sentence(event.reason));
    else if (event.from == Core::MonitorState::Down && event.to == Core::MonitorState::Up)
        Q_EMIT notification(tr("%1 is up again").arg(event.monitor), sentence(event.reason));
}

void MonitorHost::handleIncidentEnded(const Core::Incident &incident)
{
    if (!incident.hidden)
        return;
    const QString attempts = tr("%n failed attempt(s)", nullptr, static_cast<int>(incident.failedAttempts));
    Q_EMIT notification(tr("%1: the retries hid a fault").arg(incident.monitor),
        tr("%n check(s) succeeded only after %1; the first error: %2", nullptr, static_cast<int>(incident.checks))
            .arg(attempts, incident.firstError));
}

bool MonitorHost::shutdown(int waitMs)
{
    if (m_shutDown)
        return !m_thread;
    m_shutDown = true;
    if (!m_thread)
        return true;
    MonitorWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->stop(); }, Qt::QueuedConnection);
    bool ended = m_thread->wait(QDeadlineTimer(waitMs));
    if (!ended) {
        qCWarning(lcMonitorHost) << "the monitors did not stop within" << waitMs
                                 << "ms; abandoning the checks in flight";
        QMetaObject::invokeMethod(
            worker, [worker] { worker->stopNow(); }, Qt::QueuedConnection);
        ended = m_thread->wait(QDeadlineTimer(forcedStopWaitMs));
    }
    if (!ended) {
        // Deleting a running thread would abort the process; leaving it costs memory only.
        qCCritical(lcMonitorHost) << "the monitors' thread does not end; it is left behind";
        m_worker = nullptr;
        m_thread = nullptr;
        return false;
    }
    // The thread has ended: nothing runs the worker any more, so it can go from here.
    delete m_worker;
    m_worker = nullptr;
    delete m_thread;
    m_thread = nullptr;
    return true;
}

} // namespace RetryLab::Ui
