#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/subcommand.h"
#include "core/faultserver/faultserver.h"
#include "core/observe/observationreport.h"
#include "core/observe/observer.h"
#include "core/util/exportfile.h"
#include "core/util/randomsource.h"

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
        line += Tr::tr("  after %1 ms").arg(qRound64(*a.delayMs));
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

} // namespace

int runObserve(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Runs the fault server on loopback and watches the clients you point at it: groups their attempts into\n"
               "logical requests, serves each logical request the observation plan, infers each client's retry policy\n"
               "and judges it against the rules of the source documents. Runs until Ctrl+C, --duration or --requests;\n"
               "exit 0 when every verdict passes, 1 when one fails, 2 for usage errors."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption portOption(
        QStringLiteral("port"), Tr::tr("Port to listen on; 0 (the default) lets the system choose."), Tr::tr("N"));
    const QCommandLineOption planOption(QStringLiteral("plan"),
        Tr::tr("What each logical request is served: a plan name (default 503x3; --list-plans) or a JSON file."),
        Tr::tr("NAME|FILE"));
    const QCommandLineOption listPlansOption(QStringLiteral("list-plans"), Tr::tr("List the observation plans."));
    const QCommandLineOption durationOption(
        QStringLiteral("duration"), Tr::tr("Stop after this many seconds."), Tr::tr("S"));
    const QCommandLineOption requestsOption(
        QStringLiteral("requests"), Tr::tr("Stop once this many logical requests have finished."), Tr::tr("N"));
    const QCommandLineOption reportOption(QStringLiteral("report"),
        Tr::tr("Write the observation (format retrylab-observation, version 1) to this JSON file."), Tr::tr("FILE"));
    const QCommandLineOption junitOption(
        QStringLiteral("junit"), Tr::tr("Write the verdicts as JUnit XML (one test case per rule)."), Tr::tr("FILE"));
    const QCommandLineOption gapOption(QStringLiteral("gap-window"),
        Tr::tr("Longest pause in ms between an answer and a retry of the same request (default %1).")
            .arg(qRound64(Core::AttemptGrouper::Settings{}.gapWindowMs)),
        Tr::tr("MS"));
    const QCommandLineOption seedOption(
        QStringLiteral("seed"), Tr::tr("Seed of the random plans (default: a fresh one, printed)."), Tr::tr("S"));
    const QCommandLineOption keepOption(QStringLiteral("max-logical-requests"),
        Tr::tr("Logical requests kept in memory; older ones are dropped and counted (default 20000)."), Tr::tr("N"));
    const QCommandLineOption quietOption(
        {QStringLiteral("q"), QStringLiteral("quiet")}, Tr::tr("Print no line per attempt, only the verdicts."));
    parser.addOptions({helpOption, portOption, planOption, listPlansOption, durationOption, requestsOption,
        reportOption, junitOption, gapOption, seedOption, keepOption, quietOption});

    const auto usage = [&err](const QString &message) {
        err << Tr::tr("retrylab observe: %1; see retrylab observe --help").arg(message) << Qt::endl;
        return ExitUsage;
    };
    if (!parser.parse(subcommandArguments(arguments)))
        return usage(parser.errorText());
    if (parser.isSet(helpOption)) {
        out << subcommandHelp(parser, Tr::tr("Usage: retrylab observe [options]")) << Qt::endl << planList();
        return ExitOk;
    }
    if (parser.isSet(listPlansOption)) {
        out << planList();
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty())
        return usage(Tr::tr("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));

    const auto number = [&](const QCommandLineOption &option, double min, double max, double fallback,
                            bool whole) -> std::optional<double> {
        if (!parser.isSet(option))
            return fallback;
        bool ok = false;
        const double n = parser.value(option).toDouble(&ok);
        if (!ok || !std::isfinite(n) || n < min || n > max || (whole && n != std::floor(n))) {
            usage(Tr::tr("--%1 must be %2 from %3 to %4 (got \"%5\")")
                      .arg(option.names().constLast(), whole ? Tr::tr("a whole number") : Tr::tr("a number"))
                      .arg(min)
                      .arg(max)
                      .arg(parser.value(option)));
            return std::nullopt;
        }
        return n;
    };
    const auto port = number(portOption, 0, 65535, 0, true);
    const auto duration = number(durationOption, 0.001, 7 * 24 * 3600, 0, false);
    const auto requests = number(requestsOption, 1, 1e9, 0, true);
    const auto gap = number(gapOption, 1, 24 * 3600 * 1000.0, Core::AttemptGrouper::Settings{}.gapWindowMs, false);
    const auto seed = number(seedOption, 0, 9e15, double(Core::RandomSource::freshSeed()), true);
    const auto keep = number(keepOption, 1, 1'000'000, 20'000, true);
    if (!port || !duration || !requests || !gap || !seed || !keep)
        return ExitUsage;
    if (parser.isSet(durationOption) && parser.isSet(requestsOption))
        return usage(Tr::tr("--duration and --requests cannot be used together"));

    Core::ObservationPlan plan = Core::ObservationPlan::defaultPlan();
    if (parser.isSet(planOption)) {
        const auto loaded = Core::ObservationPlan::load(parser.value(planOption));
        if (!loaded)
            return usage(Tr::tr("--plan: %1").arg(loaded.error()));
        plan = *loaded;
    }
    const QString reportPath = parser.value(reportOption);
    const QString junitPath = parser.value(junitOption);

    Core::FaultServerOptions options;
    options.port = static_cast<quint16>(*port);
    Core::FaultServer server(options);
    if (!server.listen()) {
        err << Tr::tr("retrylab observe: %1").arg(server.errorString()) << Qt::endl;
        return ExitFailed;
    }
    Core::Observer observer;
    observer.setPlan(plan);
    observer.setSeed(static_cast<quint64>(*seed));
    observer.setGroupingSettings(Core::AttemptGrouper::Settings{*gap});
    observer.setMaxLogicalRequests(static_cast<int>(*keep));
    observer.attach(&server);

    const QDateTime started = QDateTime::currentDateTimeUtc();
    out << Tr::tr("RetryLab observing on %1 with plan %2 (%3), seed %4")
               .arg(server.baseUrl().toString(), plan.id, plan.name)
               .arg(static_cast<quint64>(*seed))
        << Qt::endl;
    if (!parser.isSet(quietOption)) {
        out << Tr::tr("Point a client at any path but the endpoints, e.g. curl --retry 3 %1/items/1; Ctrl+C stops.")
                   .arg(server.baseUrl().toString())
            << Qt::endl;
        QObject::connect(&observer, &Core::Observer::attemptFinished, &observer,
            [&out, &observer](const Core::ObservedAttempt &a) { out << attemptLine(observer, a) << Qt::endl; });
    }

    // Stopping: leave the last answers time to reach their clients (they sit in
    // socket buffers) by waiting until the clients close, for at most two seconds.
    QElapsedTimer draining;
    QTimer drainPoll;
    drainPoll.setInterval(20);
    QObject::connect(&drainPoll, &QTimer::timeout, &server, [&] {
        if (server.connectionCount() == 0 || draining.elapsed() > 2000)
            QCoreApplication::quit();
    });
    const auto stop = [&] {
        if (draining.isValid())
            return;
        draining.start();
        drainPoll.start();
    };
    InterruptWatcher interrupts;
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &observer, stop);
    QTimer deadline;
    deadline.setSingleShot(true);
    if (parser.isSet(durationOption)) {
        QObject::connect(&deadline, &QTimer::timeout, &observer, stop);
        deadline.start(static_cast<int>(std::min(*duration * 1000.0, 2'000'000'000.0)));
    }
    if (parser.isSet(requestsOption)) {
        QObject::connect(&observer, &Core::Observer::logicalRequestClosed, &observer, [&] {
            if (observer.finishedLogicalRequests() >= *requests)
                stop();
        });
    }
    QCoreApplication::exec();
    observer.attach(nullptr);
    observer.finish();

    Core::ObservationReport report = Core::ObservationReport::from(observer);
    report.started = started;
    report.finished = QDateTime::currentDateTimeUtc();
    report.serverUrl = server.baseUrl().toString();
    server.close();

    out << Qt::endl << report.toText();
    if (observer.droppedLogicalRequests() > 0)
        out << Tr::tr("%1 older logical requests were dropped to keep memory bounded.")
                   .arg(observer.droppedLogicalRequests())
            << Qt::endl;
    bool written = true;
    if (!reportPath.isEmpty()) {
        const auto result
            = Core::ExportFile::write(reportPath, QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented));
        if (!result) {
            err << Tr::tr("retrylab observe: --report: %1").arg(result.error()) << Qt::endl;
            written = false;
        }
    }
    if (!junitPath.isEmpty()) {
        if (const auto result = Core::ExportFile::write(junitPath, report.toJunitXml()); !result) {
            err << Tr::tr("retrylab observe: --junit: %1").arg(result.error()) << Qt::endl;
            written = false;
        }
    }
    if (!written)
        return ExitUsage;
    return report.allPass() ? ExitOk : ExitFailed;
}

} // namespace RetryLab::Cli
