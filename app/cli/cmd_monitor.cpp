#include "app/cli/cmd_monitor.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/subcommand.h"
#include "core/alerts/alertdispatcher.h"
#include "core/history/historylocation.h"
#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "core/metrics/metricsregistry.h"
#include "core/metrics/metricsserver.h"
#include "core/metrics/monitormetrics.h"
#include "core/monitor/incidenttracker.h"
#include "core/monitor/monitorengine.h"
#include "core/monitor/monitorsfile.h"
#include "core/util/durationtext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QLoggingCategory>
#include <QSysInfo>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcMonitorCommand, "retrylab.cli.monitor", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

const QString command = QStringLiteral("monitor");

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption db;
    QCommandLineOption retention;
    QCommandLineOption metrics;
    QCommandLineOption allow;
    QCommandLineOption agent;
    QCommandLineOption env;
    QCommandLineOption duration;
    QCommandLineOption quiet;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      db(QStringLiteral("db"),
          Tr::tr("Keep the history in this SQLite file, or in PostgreSQL at postgresql://USER@HOST:PORT/DB "
                 "(shared by several agents). Default: %1.")
              .arg(QDir::toNativeSeparators(MonitorCommand::defaultDatabase())),
          Tr::tr("FILE|URL")),
      retention(QStringLiteral("retention-days"),
          Tr::tr("Keep raw checks and attempts this many days (default %1), then only per-minute and per-hour "
                 "figures, which are kept a year.")
              .arg(Core::HistoryLimits::defaultRawRetentionDays),
          Tr::tr("N")),
      metrics(QStringLiteral("metrics-listen"),
          Tr::tr("Serve Prometheus metrics at http://HOST:PORT/metrics (loopback only, unless "
                 "--allow-non-loopback; port 0: one the system chooses, printed)."),
          Tr::tr("HOST:PORT")),
      allow(QStringLiteral("allow-non-loopback"),
          Tr::tr("Allow --metrics-listen on an address other machines can reach.")),
      agent(QStringLiteral("agent"),
          Tr::tr("The name this agent's checks are kept under (default: this machine's name)."), Tr::tr("NAME")),
      env(QStringLiteral("env"), Tr::tr("Fill {{variables}} from this environment of the file."), Tr::tr("NAME")),
      duration(QStringLiteral("duration"), Tr::tr("Stop after this many seconds (default: until interrupted)."),
          Tr::tr("S")),
      quiet({QStringLiteral("q"), QStringLiteral("quiet")},
          Tr::tr("Print only changes of state and incidents, no banner and no summary."))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("Runs the monitors of a monitors file until --duration ends or it is interrupted (Ctrl+C, SIGTERM),\n"
               "keeping every check and attempt in the history (read it back with retrylab history), and prints\n"
               "changes of state and incidents as they happen. Interrupted, it lets the checks in flight end,\n"
               "writes what is left and exits 0."));
    parser.addOptions({help, db, retention, metrics, allow, agent, env, duration, quiet});
    parser.addPositionalArgument(QStringLiteral("FILE"), Tr::tr("The monitors file (format retrylab-monitors)."));
}

Core::Result<void> readOptions(
    const QCommandLineParser &parser, const OptionTable &table, MonitorCommand::Options &options)
{
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return Core::Result<void>::failure(Tr::tr("name a monitors file"));
    if (positional.size() > 1)
        return Core::Result<void>::failure(Tr::tr("unexpected argument \"%1\"").arg(positional.at(1)));
    options.file = positional.constFirst();
    options.database = parser.value(table.db);
    if (parser.isSet(table.db) && options.database.trimmed().isEmpty())
        return Core::Result<void>::failure(Tr::tr("--db needs a file or a postgresql:// URL"));
    if (parser.isSet(table.retention)) {
        bool ok = false;
        const int days = parser.value(table.retention).toInt(&ok);
        if (!ok || days < 1 || days > Core::HistoryLimits::aggregateRetentionDays) {
            return Core::Result<void>::failure(
                Tr::tr("--retention-days must be a whole number from 1 to %1 (got \"%2\")")
                    .arg(Core::HistoryLimits::aggregateRetentionDays)
                    .arg(parser.value(table.retention)));
        }
        options.retentionDays = days;
    }
    if (parser.isSet(table.metrics)) {
        const auto listen = Core::MetricsServer::parseListen(parser.value(table.metrics));
        if (!listen)
            return Core::Result<void>::failure(Tr::tr("--metrics-listen: %1").arg(listen.error()));
        options.metricsAddress = listen->first;
        options.metricsPort = listen->second;
    }
    options.allowNonLoopback = parser.isSet(table.allow);
    options.agent = parser.value(table.agent).trimmed();
    if (parser.isSet(table.agent) && (options.agent.isEmpty() || options.agent.size() > 100))
        return Core::Result<void>::failure(Tr::tr("--agent needs a name of 1 to 100 characters"));
    options.environment = parser.value(table.env);
    if (parser.isSet(table.duration)) {
        bool ok = false;
        const double s = parser.value(table.duration).toDouble(&ok);
        if (!ok || !std::isfinite(s) || s <= 0.0 || s > 366.0 * 24 * 3600) {
            return Core::Result<void>::failure(
                Tr::tr("--duration must be a number of seconds above 0 and at most a year (got \"%1\")")
                    .arg(parser.value(table.duration)));
        }
        options.durationS = s;
    }
    options.quiet = parser.isSet(table.quiet);
    return {};
}

QString timeText(qint64 utcMs)
{
    return QDateTime::fromMSecsSinceEpoch(utcMs, Qt::UTC).toString(Qt::ISODate);
}

QString incidentLine(const Core::Incident &incident)
{
    const QString span = incident.endMs
        ? Tr::tr("%1 to %2 (%3)")
              .arg(timeText(incident.startMs), timeText(*incident.endMs),
                  Core::DurationText::format(static_cast<double>(*incident.endMs - incident.startMs)))
        : Tr::tr("since %1").arg(timeText(incident.startMs));
    if (incident.hidden) {
        return Tr::tr("%1  %2  hidden incident %3: %4 checks succeeded after %5 failed attempts; first error: %6")
            .arg(timeText(incident.endMs.value_or(incident.startMs)), incident.monitor, span)
            .arg(incident.checks)
            .arg(incident.failedAttempts)
            .arg(incident.firstError);
    }
    return Tr::tr("%1  %2  incident ended, %3: %4 failed checks, %5 attempts; last error: %6")
        .arg(timeText(incident.endMs.value_or(incident.startMs)), incident.monitor, span)
        .arg(incident.checks)
        .arg(incident.attempts)
        .arg(incident.lastError);
}

struct Tally
{
    qint64 checks = 0;
    qint64 checksSucceeded = 0;
    qint64 attempts = 0;
    qint64 attemptsSucceeded = 0;
};

QString percent(qint64 part, qint64 whole)
{
    return whole == 0 ? QStringLiteral("-") : QString::number(100.0 * part / whole, 'f', 3) + QLatin1Char('%');
}

} // namespace

namespace MonitorCommand {

QString defaultDatabase()
{
    return Core::HistoryLocation::defaultDatabase();
}

Core::Result<Options> parse(const QStringList &arguments)
{
    return parseOptionTable<Options, OptionTable>(
        arguments, Tr::tr("Usage: retrylab monitor [options] FILE"), &readOptions, QStringLiteral("\n"), command);
}

int run(const Options &options)
{
    Console::installMessageHandler(true);
    Console console;
    const auto file = Core::MonitorsFileReader::readFile(options.file, options.environment);
    if (!file)
        return usageError(command, file.error());

    const QString agent = options.agent.isEmpty() ? QSysInfo::machineHostName() : options.agent;
    QString database = options.database;
    if (database.isEmpty()) {
        // The default folder is RetryLab's own: made when missing. A folder the user named must exist.
        database = defaultDatabase();
        QDir().mkpath(QFileInfo(database).absolutePath());
    }
    Core::HistoryStore::Options storeOptions;
    storeOptions.rawRetentionDays = options.retentionDays;
    auto store = Core::HistoryStore::open(database, agent, storeOptions);
    if (!store)
        return usageError(command, Tr::tr("--db: %1").arg(store.error()));
    std::unique_ptr<Core::HistoryQuery> objectives;
    if (std::any_of(file->monitors.cbegin(), file->monitors.cend(),
            [](const Core::Monitor &m) { return m.objective && !m.alerts.isEmpty(); })) {
        auto query = Core::HistoryQuery::open(database);
        if (!query)
            return usageError(command, Tr::tr("--db: %1").arg(query.error()));
        objectives = std::move(query).value();
    }

    Core::MonitorEngine engine;
    engine.setAgent(agent);
    engine.setHistory(store->get());
    engine.setObjectiveSource(objectives.get());
    QObject::connect(&engine, &Core::MonitorEngine::historyWarning, &engine, [&console](const QString &message) {
        if (message.isEmpty())
            console.error(Tr::tr("the history is written again"));
        else
            console.error(
                Tr::tr("warning: %1; the checks wait in memory and are written when it works again").arg(message));
    });
    engine.setMonitors(file->monitors);

    engine.setAlertTargets(file->alertTargets);

    Core::MetricsRegistry registry;
    Core::MonitorMetrics metrics(&registry);
    Core::MetricsServer metricsServer(&registry);
    if (options.metricsAddress) {
        if (!metricsServer.listen(*options.metricsAddress, options.metricsPort, options.allowNonLoopback)) {
            if (!options.metricsAddress->isLoopback() && !options.allowNonLoopback)
                return usageError(command, metricsServer.errorString());
            console.error(Tr::tr("retrylab monitor: %1").arg(metricsServer.errorString()));
            return ExitFailed;
        }
        engine.setMetrics(&metrics);
    }
    QHash<QString, Tally> tallies;
    QObject::connect(&engine, &Core::MonitorEngine::stateChanged, &engine, [&console](const Core::StateEvent &e) {
        console.print(Tr::tr("%1  %2  %3 -> %4: %5")
                          .arg(timeText(e.atMs), e.monitor, Core::monitorStateName(e.from),
                              Core::monitorStateName(e.to), e.reason));
    });
    QObject::connect(&engine, &Core::MonitorEngine::checkFinished, &engine, [&tallies](const Core::StoredCheck &check) {
        if (check.maintenance)
            return;
        Tally &t = tallies[check.monitor];
        ++t.checks;
        t.checksSucceeded += check.success ? 1 : 0;
        for (const Core::StoredAttempt &a : check.attempts) {
            ++t.attempts;
            t.attemptsSucceeded += a.success ? 1 : 0;
        }
    });
    QObject::connect(
        &engine, &Core::MonitorEngine::incidentStarted, &engine, [&console](const Core::Incident &incident) {
            console.print(Tr::tr("%1  %2  incident started: %3")
                              .arg(timeText(incident.startMs), incident.monitor, incident.firstError));
        });
    QObject::connect(&engine, &Core::MonitorEngine::incidentEnded, &engine,
        [&console](const Core::Incident &incident) { console.print(incidentLine(incident)); });

    InterruptWatcher interrupts;
    if (!interrupts.isActive())
        qCWarning(lcMonitorCommand) << "could not install the signal handlers; stop the monitors with SIGKILL";
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &engine, [&engine] { engine.stop(); });
    QObject::connect(&engine, &Core::MonitorEngine::stopped, &engine, [] { QCoreApplication::quit(); });
    QTimer durationTimer;
    durationTimer.setSingleShot(true);
    if (options.durationS) {
        QObject::connect(&durationTimer, &QTimer::timeout, &engine, [&engine] { engine.stop(); });
        durationTimer.start(static_cast<int>(std::min(*options.durationS * 1000.0, 2'000'000'000.0)));
    }

    if (!options.quiet) {
        console.print(QCoreApplication::translate("monitor", "Monitoring %n endpoint(s) from %1 as agent %2", nullptr,
            static_cast<int>(file->monitors.size()))
                          .arg(QDir::toNativeSeparators(options.file), engine.agent()));
        const qint64 bytes = (*store)->databaseBytes();
        console.print(bytes >= 0 ? Tr::tr("History in %1 (%2 MiB; raw checks kept %3 days)")
                                       .arg((*store)->where())
                                       .arg(double(bytes) / 1048576.0, 0, 'f', 1)
                                       .arg(options.retentionDays)
                                 : Tr::tr("History in %1").arg((*store)->where()));
    }
    if (metricsServer.isListening())
        console.print(Tr::tr("Prometheus metrics at %1").arg(metricsServer.url().toString()));
    engine.start();
    Core::AlertDispatcher *alerts = engine.alerts();
    QObject::connect(alerts, &Core::AlertDispatcher::failed, &engine,
        [&console](const QString &target, const Core::AlertEvent &event, const QString &reason) {
            console.error(Tr::tr("warning: the alert \"%1\" of %2 did not reach %3: %4")
                              .arg(event.title(), event.monitor, target, reason));
        });
    QObject::connect(alerts, &Core::AlertDispatcher::deliveryFinished, &engine,
        [&console](const QString &target, const Core::RequestResult &result) {
            if (result.outcome == Core::RequestOutcome::Succeeded) {
                console.print(QCoreApplication::translate(
                    "monitor", "alert delivered to %1 after %n attempt(s)", nullptr, result.attempts)
                                  .arg(target));
            }
        });
    QObject::connect(alerts, &Core::AlertDispatcher::desktopNotification, &engine,
        [&console](const QString &title, const QString &text) {
            console.print(
                Tr::tr("notification: %1: %2").arg(title, QString(text).replace(QLatin1Char('\n'), QLatin1Char(' '))));
        });
    QCoreApplication::exec();

    if ((*store)->backlog() > 0) {
        console.error(Tr::tr("warning: %1 checks and changes of state could not be written to the history: %2")
                          .arg((*store)->backlog())
                          .arg((*store)->warning()));
    }
    if ((*store)->droppedChecks() > 0) {
        console.error(Tr::tr("warning: %1 checks were dropped while the history could not be written")
                          .arg((*store)->droppedChecks()));
    }
    if (!options.quiet) {
        for (const Core::Monitor &monitor : file->monitors) {
            const Tally t = tallies.value(monitor.name);
            console.print(Tr::tr("%1: %2 checks, %3 of checks and %4 of attempts succeeded, %5 attempts per check")
                              .arg(monitor.name)
                              .arg(t.checks)
                              .arg(percent(t.checksSucceeded, t.checks), percent(t.attemptsSucceeded, t.attempts),
                                  t.checks == 0 ? QStringLiteral("-")
                                                : QString::number(double(t.attempts) / double(t.checks), 'f', 2)));
        }
    }
    return ExitOk;
}

} // namespace MonitorCommand

int runMonitor(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &MonitorCommand::parse, &MonitorCommand::run);
}

} // namespace RetryLab::Cli
