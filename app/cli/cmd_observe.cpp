#include "app/cli/cmd_observe.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/subcommand.h"
#include "core/faultserver/faultserver.h"
#include "core/observe/observationreport.h"
#include "core/observe/observer.h"
#include "core/util/durationtext.h"
#include "core/util/exportfile.h"
#include "core/util/randomsource.h"
#include "core/util/terminaltext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>

#include <cmath>

namespace RetryLab::Cli {

namespace {

using ObserveCommand::Options;

const QString command = QStringLiteral("observe");

/// "#12 curl/8.0 @ 127.0.0.1  request 3, attempt 2  GET /items -> 503  after 1002 ms  [same-request]".
QString attemptLine(const Core::Observer &observer, const Core::ObservedAttempt &a)
{
    const auto client = observer.client(a.clientId);
    QString line = QStringLiteral("#%1 %2  %3  request %4, attempt %5  %6 %7 -> %8")
                       .arg(a.sequence)
                       .arg(a.time.toString(QStringLiteral("HH:mm:ss.zzz")))
                       .arg(client ? client->name : a.clientId)
                       .arg(a.logicalId)
                       .arg(a.attemptIndex)
                       .arg(QString::fromLatin1(a.method.isEmpty() ? QByteArray("-") : a.method), a.target, a.served());
    if (a.delayMs)
        line += Tr::tr("  after %1").arg(Core::DurationText::format(*a.delayMs));
    line += QStringLiteral("  [%1]").arg(Core::GroupingRules::name(a.rule));
    return line;
}

QString planList()
{
    QString text = Tr::tr("Observation plans (--plan NAME, or a JSON file):\n");
    for (const Core::ObservationPlan &plan : Core::ObservationPlan::presets())
        text += QStringLiteral("  %1  %2\n").arg(plan.id, -18).arg(plan.name);
    text += Tr::tr(
        "A plan file: {\"name\": \"...\", \"steps\": [\"return-503*2\", \"reset\"], \"then\": \"return-200\"}\n"
        "or {\"probability\": 0.3, \"randomStep\": \"return-503\", \"then\": \"return-200\"}; steps as in "
        "retrylab serve --help.\n");
    return text;
}

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption port;
    QCommandLineOption plan;
    QCommandLineOption listPlans;
    QCommandLineOption duration;
    QCommandLineOption requests;
    QCommandLineOption report;
    QCommandLineOption junit;
    QCommandLineOption gap;
    QCommandLineOption seed;
    QCommandLineOption keep;
    QCommandLineOption quiet;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      port(QStringLiteral("port"), Tr::tr("Port to listen on; 0 (the default) lets the system choose."), Tr::tr("N")),
      plan(QStringLiteral("plan"),
          Tr::tr("What each logical request is served: a plan name (default 503x3; --list-plans) or a JSON file."),
          Tr::tr("NAME|FILE")),
      listPlans(QStringLiteral("list-plans"), Tr::tr("List the observation plans.")),
      duration(QStringLiteral("duration"), Tr::tr("Stop after this many seconds."), Tr::tr("S")),
      requests(QStringLiteral("requests"), Tr::tr("Stop once this many logical requests have finished."), Tr::tr("N")),
      report(QStringLiteral("report"),
          Tr::tr("Write the observation (format retrylab-observation, version 1) to this JSON file."), Tr::tr("FILE")),
      junit(
          QStringLiteral("junit"), Tr::tr("Write the verdicts as JUnit XML (one test case per rule)."), Tr::tr("FILE")),
      gap(QStringLiteral("gap-window"),
          Tr::tr("Longest pause in ms between an answer and a retry of the same request (default %1).")
              .arg(qRound64(Core::AttemptGrouper::Settings{}.gapWindowMs)),
          Tr::tr("MS")),
      seed(QStringLiteral("seed"), Tr::tr("Seed of the random plans (default: a fresh one, printed)."), Tr::tr("S")),
      keep(QStringLiteral("max-logical-requests"),
          Tr::tr("Logical requests kept in memory; older ones are dropped and counted (default 20000)."), Tr::tr("N")),
      quiet({QStringLiteral("q"), QStringLiteral("quiet")}, Tr::tr("Print no line per attempt, only the verdicts."))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("Runs the fault server on loopback and watches the clients you point at it: groups their attempts into\n"
               "logical requests, serves each logical request the observation plan, infers each client's retry policy\n"
               "and judges it against the rules of the source documents. Runs until Ctrl+C, --duration or --requests;\n"
               "exit 0 when every verdict passes, 1 when one fails, 2 for usage errors."));
    parser.addOptions({help, port, plan, listPlans, duration, requests, report, junit, gap, seed, keep, quiet});
}

// --NAME X: a number in [min, max] (a whole one if `whole`), `fallback` when the option is not given.
Core::Result<double> number(const QCommandLineParser &parser, const QCommandLineOption &option, double min, double max,
    double fallback, bool whole)
{
    if (!parser.isSet(option))
        return fallback;
    bool ok = false;
    const double n = parser.value(option).toDouble(&ok);
    if (!ok || !std::isfinite(n) || n < min || n > max || (whole && n != std::floor(n))) {
        return Core::Result<double>::failure(
            Tr::tr("--%1 must be %2 from %3 to %4 (got \"%5\")")
                .arg(option.names().constLast(), whole ? Tr::tr("a whole number") : Tr::tr("a number"))
                .arg(min)
                .arg(max)
                .arg(parser.value(option)));
    }
    return n;
}

// The numbers. Every one that is wrong is named, a line each (each with the
// help hint, which usageError() adds to the last), as the command always did.
Core::Result<void> readNumbers(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    const auto port = number(parser, table.port, 0, 65535, 0, true);
    const auto duration = number(parser, table.duration, 0.001, 7 * 24 * 3600, 0, false);
    const auto requests = number(parser, table.requests, 1, 1e9, 0, true);
    const auto gap
        = number(parser, table.gap, 1, 24 * 3600 * 1000.0, Core::AttemptGrouper::Settings{}.gapWindowMs, false);
    const auto seed = number(parser, table.seed, 0, 9e15, 0, true);
    const auto keep = number(parser, table.keep, 1, 1'000'000, options.maxLogicalRequests, true);
    QStringList problems;
    for (const Core::Result<double> *read : {&port, &duration, &requests, &gap, &seed, &keep}) {
        if (!*read)
            problems.append(read->error());
    }
    if (!problems.isEmpty()) {
        for (qsizetype i = 0; i + 1 < problems.size(); ++i)
            problems[i] = withHelpHint(command, problems[i]);
        return Core::Result<void>::failure(problems.join(QStringLiteral("\nretrylab %1: ").arg(command)));
    }
    options.port = static_cast<quint16>(*port);
    if (parser.isSet(table.duration))
        options.durationS = *duration;
    if (parser.isSet(table.requests))
        options.requests = static_cast<qint64>(*requests);
    options.gapWindowMs = *gap;
    if (parser.isSet(table.seed))
        options.seed = static_cast<quint64>(*seed);
    options.maxLogicalRequests = static_cast<int>(*keep);
    return {};
}

// Stopping: at Ctrl+C, after --duration or --requests. The last answers are
// left time to reach their clients (they sit in socket buffers) by waiting
// until the clients close, for at most two seconds.
class Stopper final
{
public:
    Stopper(const Options &options, Core::FaultServer &server, Core::Observer &observer) : m_server(server)
    {
        // Every connection has one of the stopper's members as its context, so
        // that none outlives it (the observer goes on emitting in finish()).
        m_drainPoll.setInterval(20);
        QObject::connect(&m_drainPoll, &QTimer::timeout, &m_drainPoll, [this] {
            if (m_server.connectionCount() == 0 || m_draining.elapsed() > 2000)
                QCoreApplication::quit();
        });
        QObject::connect(&m_interrupts, &InterruptWatcher::interrupted, &m_interrupts, [this] { stop(); });
        m_deadline.setSingleShot(true);
        if (options.durationS) {
            QObject::connect(&m_deadline, &QTimer::timeout, &m_deadline, [this] { stop(); });
            m_deadline.start(static_cast<int>(std::min(*options.durationS * 1000.0, 2'000'000'000.0)));
        }
        if (options.requests) {
            QObject::connect(&observer, &Core::Observer::logicalRequestClosed, &m_drainPoll,
                [this, &observer, requests = *options.requests] {
                    if (observer.finishedLogicalRequests() >= requests)
                        stop();
                });
        }
    }

private:
    void stop()
    {
        if (m_draining.isValid())
            return;
        m_draining.start();
        m_drainPoll.start();
    }

    Core::FaultServer &m_server;
    QElapsedTimer m_draining;
    QTimer m_drainPoll;
    QTimer m_deadline;
    InterruptWatcher m_interrupts;
};

// What was seen, judged; the report files. False if one could not be written.
bool printAndWrite(const Options &options, const Core::ObservationReport &report, const Core::Observer &observer,
    QTextStream &out, QTextStream &err)
{
    out << Qt::endl << report.toText();
    if (observer.droppedLogicalRequests() > 0)
        out << Tr::tr("%1 older logical requests were dropped to keep memory bounded.")
                   .arg(observer.droppedLogicalRequests())
            << Qt::endl;
    if (observer.droppedClients() > 0)
        out << Tr::tr("%1 clients seen first were forgotten to keep the table within %2 clients.")
                   .arg(observer.droppedClients())
                   .arg(observer.maxClients())
            << Qt::endl;
    bool written = true;
    if (!options.reportPath.isEmpty()) {
        const auto result = Core::ExportFile::write(
            options.reportPath, QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented));
        if (!result) {
            err << Tr::tr("retrylab observe: --report: %1").arg(result.error()) << Qt::endl;
            written = false;
        }
    }
    if (!options.junitPath.isEmpty()) {
        if (const auto result = Core::ExportFile::write(options.junitPath, report.toJunitXml()); !result) {
            err << Tr::tr("retrylab observe: --junit: %1").arg(result.error()) << Qt::endl;
            written = false;
        }
    }
    return written;
}

Core::Result<void> readOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    if (parser.isSet(table.listPlans)) {
        options.help = planList();
        return {};
    }
    if (const auto none = noPositionalArguments(parser); !none)
        return none;
    if (const auto numbers = readNumbers(parser, table, options); !numbers)
        return numbers;
    if (options.durationS && options.requests)
        return Core::Result<void>::failure(Tr::tr("--duration and --requests cannot be used together"));
    if (parser.isSet(table.plan))
        options.plan = parser.value(table.plan);
    options.reportPath = parser.value(table.report);
    options.junitPath = parser.value(table.junit);
    options.quiet = parser.isSet(table.quiet);
    return {};
}

} // namespace

namespace ObserveCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    return parseOptionTable<Options, OptionTable>(
        arguments, Tr::tr("Usage: retrylab observe [options]"), &readOptions, QLatin1Char('\n') + planList());
}

int run(const Options &options)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    Core::ObservationPlan plan = Core::ObservationPlan::defaultPlan();
    if (options.plan) {
        const auto loaded = Core::ObservationPlan::load(*options.plan);
        if (!loaded)
            return usageError(command, Tr::tr("--plan: %1").arg(loaded.error()), UsageHint::SeeHelp);
        plan = *loaded;
    }
    const quint64 seed = options.seed.value_or(Core::RandomSource::freshSeed());

    Core::FaultServerOptions serverOptions;
    serverOptions.port = options.port;
    Core::FaultServer server(serverOptions);
    if (!server.listen()) {
        err << Tr::tr("retrylab observe: %1").arg(server.errorString()) << Qt::endl;
        return ExitFailed;
    }
    Core::Observer observer;
    observer.setPlan(plan);
    observer.setSeed(seed);
    observer.setGroupingSettings(Core::AttemptGrouper::Settings{options.gapWindowMs});
    observer.setMaxLogicalRequests(options.maxLogicalRequests);
    observer.attach(&server);

    const QDateTime started = QDateTime::currentDateTimeUtc();
    out << Tr::tr("RetryLab observing on %1 with plan %2 (%3), seed %4")
               .arg(server.baseUrl().toString(), Core::TerminalText::escaped(plan.id),
                   Core::TerminalText::escaped(plan.name))
               .arg(seed)
        << Qt::endl;
    if (!options.quiet) {
        out << Tr::tr("Point a client at any path but the endpoints, e.g. curl --retry 3 %1/items/1; Ctrl+C stops.")
                   .arg(server.baseUrl().toString())
            << Qt::endl;
        QObject::connect(&observer, &Core::Observer::attemptFinished, &observer,
            [&out, &observer](const Core::ObservedAttempt &a) { out << attemptLine(observer, a) << Qt::endl; });
    }
    Stopper stopper(options, server, observer);
    QCoreApplication::exec();
    observer.attach(nullptr);
    observer.finish();

    Core::ObservationReport observation = Core::ObservationReport::from(observer);
    observation.started = started;
    observation.finished = QDateTime::currentDateTimeUtc();
    observation.serverUrl = server.baseUrl().toString();
    server.close();
    if (!printAndWrite(options, observation, observer, out, err))
        return ExitUsage;
    return observation.allPass() ? ExitOk : ExitFailed;
}

} // namespace ObserveCommand

int runObserve(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &ObserveCommand::parse, &ObserveCommand::run, UsageHint::SeeHelp);
}

} // namespace RetryLab::Cli
