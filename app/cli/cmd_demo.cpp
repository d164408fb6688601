#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/headlessoptions.h"
#include "app/cli/runprinter.h"
#include "app/cli/subcommand.h"
#include "app/cli/texttable.h"

#include "app/cli/clitr.h"
#include "core/export/texttimeline.h"
#include "core/faultserver/faultserver.h"
#include "core/record/runstatistics.h"
#include "core/scenario/scenarioreader.h"
#include "core/scenario/scenariorunner.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QUrlQuery>

#include <algorithm>
#include <array>
#include <memory>

namespace {
Q_LOGGING_CATEGORY(lcDemo, "retrylab.cli.demo", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

struct Group
{
    QString title;
    Core::Scenario scenario;
    std::unique_ptr<Core::ScenarioRunner> runner;
    QString failure;
};

double endMs(const Core::RunRecord &run)
{
    double end = 0.0;
    for (const Core::RequestResult &r : run.results)
        end = std::max(end, double(r.endNs - run.epochNs) / 1e6);
    return end;
}

QStringList introduction(const Core::Scenario &plain, const Core::Scenario &jittered, const QUrl &server)
{
    const Core::ScenarioRequest &clients = plain.requests.constFirst();
    const Core::BackoffPolicy &p = plain.policy;
    QString endpoint = clients.urlTemplate;
    endpoint.replace(Core::Scenario::serverPlaceholder(), server.toString());
    const QUrlQuery query(Core::Scenario::resolveUrl(clients.urlTemplate, server, QString()));
    return {
        Tr::tr("RetryLab demo: why retries need jitter"),
        QString(),
        Tr::tr(
            "Two groups of %1 clients each reach one overloaded endpoint at the same moment; it serves %2 requests "
            "per second in bursts of %3 and answers 429 beyond that (the embedded fault server's /ratelimit, on %4).")
            .arg(clients.count)
            .arg(query.queryItemValue(QStringLiteral("rps")), query.queryItemValue(QStringLiteral("burst")),
                server.toString()),
        Tr::tr("Both back off exponentially: %1 first, doubling up to %2, at most %3 attempts, Retry-After ignored so "
               "that the backoff alone decides.")
            .arg(RunPrinter::duration(p.baseDelayMs), RunPrinter::duration(p.maxBackoffMs))
            .arg(p.maxAttempts),
        Tr::tr("\"%1\" waits exactly that long; \"%2\" draws each wait at random up to it (%3).")
            .arg(plain.policy.name, jittered.policy.name, Core::algorithmTitle(jittered.policy.algorithm)),
    };
}

} // namespace

int runDemo(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("A short demonstration in the terminal: two groups of clients retry against an overloaded endpoint on "
               "the embedded fault server, one backing off without jitter and one with full jitter, drawn as text "
               "timelines on one time axis. Takes a few seconds; needs no display."));
    HeadlessOptions options(parser, HeadlessOptions::Seed | HeadlessOptions::Quiet,
        Tr::tr("Print only the comparison, not the timelines."));
    const QCommandLineOption widthOption(
        QStringLiteral("width"), Tr::tr("Characters of the time axis, 20-400 (default 64)."), Tr::tr("N"));
    parser.addOption(widthOption);

    Console console;
    if (const auto parsed = options.parse(parser, arguments); !parsed) {
        console.error(Tr::tr("retrylab demo: %1; see retrylab demo --help").arg(parsed.error()));
        return ExitUsage;
    }
    if (options.helpRequested()) {
        console.print(subcommandHelp(parser, Tr::tr("Usage: retrylab demo [options]")));
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        console.error(Tr::tr("retrylab demo: unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
        return ExitUsage;
    }
    int width = 64;
    if (parser.isSet(widthOption)) {
        bool ok = false;
        width = parser.value(widthOption).toInt(&ok);
        if (!ok || width < 20 || width > 400) {
            console.error(Tr::tr("retrylab demo: --width must be a whole number from 20 to 400 (got \"%1\")")
                              .arg(parser.value(widthOption)));
            return ExitUsage;
        }
    }
    Console::installMessageHandler(true);

    std::array<Group, 2> groups;
    const std::array<QString, 2> files{
        QStringLiteral(":/scenarios/demo-no-jitter.json"), QStringLiteral(":/scenarios/demo-full-jitter.json")};
    const std::array<QString, 2> titles{Tr::tr("no jitter"), Tr::tr("full jitter")};
    for (std::size_t i = 0; i < groups.size(); ++i) {
        auto scenario = Core::ScenarioReader::readFile(files[i]);
        if (!scenario) {
            console.error(Tr::tr("retrylab demo: the built-in scenario is damaged: %1").arg(scenario.error()));
            return ExitFailed;
        }
        groups[i].title = titles[i];
        groups[i].scenario = std::move(scenario).value();
        groups[i].scenario.seed = options.runSeed();
    }

    Core::FaultServerOptions serverOptions;
    serverOptions.seed = options.runSeed();
    Core::FaultServer server(serverOptions);
    if (!server.listen()) {
        console.error(Tr::tr("retrylab demo: the embedded fault server cannot listen: %1").arg(server.errorString()));
        return ExitFailed;
    }

    if (!options.quiet()) {
        console.print(introduction(groups[0].scenario, groups[1].scenario, server.baseUrl()));
        console.print(Tr::tr("Jitter drawn with %1.").arg(options.seedText(options.runSeed())));
        console.print();
        console.print(Tr::tr("Running both groups at once..."));
    }

    QEventLoop loop;
    int running = 0;
    for (Group &group : groups) {
        group.runner = std::make_unique<Core::ScenarioRunner>();
        group.runner->setScenario(group.scenario);
        group.runner->setFaultServer(&server);
        const auto done = [&loop, &running] {
            if (--running == 0)
                loop.quit();
        };
        QObject::connect(group.runner.get(), &Core::ScenarioRunner::finished, &loop, done);
        QObject::connect(group.runner.get(), &Core::ScenarioRunner::failed, &loop, [&group, done](const QString &m) {
            group.failure = m;
            done();
        });
        ++running;
    }
    for (Group &group : groups)
        group.runner->start();
    loop.exec();

    for (const Group &group : groups) {
        if (!group.failure.isEmpty()) {
            console.error(Tr::tr("retrylab demo: %1: %2").arg(group.title, group.failure));
            return ExitFailed;
        }
    }

    double span = 0.0;
    for (const Group &group : groups)
        span = std::max(span, endMs(group.runner->record()));
    Core::TextTimeline::Options timelineOptions;
    timelineOptions.width = width;
    timelineOptions.spanMs = span * 1.02 + 1.0;

    if (!options.quiet()) {
        for (const Group &group : groups) {
            const Core::RunRecord &run = group.runner->record();
            QList<Core::TextTimeline::Lane> lanes;
            QList<quint64> ids = group.runner->requestNames().keys();
            std::sort(ids.begin(), ids.end());
            for (quint64 id : std::as_const(ids))
                lanes.append({group.runner->requestLabel(id), id});
            console.print();
            console.print(Tr::tr("%1 (%2)").arg(group.scenario.policy.name, group.scenario.name));
            console.print(Core::TextTimeline::render(run, lanes, timelineOptions));
        }
        console.print();
        console.print(Core::TextTimeline::legend());
    }

    TextTable table({Tr::tr("group"), Tr::tr("through"), Tr::tr("calls"), Tr::tr("median done"), Tr::tr("last done")});
    for (int column : {1, 2, 3, 4})
        table.setRightAligned(column);
    std::array<double, 2> lastDone{};
    std::array<qint64, 2> calls{};
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const Core::RunRecord &run = groups[i].runner->record();
        const Core::RunStatistics stats = Core::RunStatistics::fromRecord(run);
        calls[i] = stats.attemptCount();
        lastDone[i] = endMs(run);
        Core::RunStatistics::Sample done;
        for (const Core::RequestResult &r : run.results)
            done.add(double(r.endNs - run.epochNs) / 1e6);
        const auto median = done.percentile(50.0);
        table.addRow({groups[i].title,
            Tr::tr("%1 of %2").arg(stats.requestCount(Core::RequestOutcome::Succeeded)).arg(stats.requestCount()),
            QString::number(calls[i]), median ? RunPrinter::duration(*median) : QStringLiteral("-"),
            RunPrinter::duration(lastDone[i])});
    }
    console.print();
    console.print(table.lines());
    console.print();

    // Say what this run showed, not what it was meant to show.
    const double saved = lastDone[0] - lastDone[1];
    if (saved > 0.0) {
        console.print(Tr::tr("With full jitter the last client was through %1 sooner, with %2 calls instead of %3: the "
                             "retries no longer arrive in waves, so the endpoint's capacity is used as it refills.")
                          .arg(RunPrinter::duration(saved))
                          .arg(calls[1])
                          .arg(calls[0]));
    } else {
        console.print(Tr::tr("In this run full jitter did not finish sooner (%1 later, %2 calls instead of %3); run "
                             "the demo again, or with another --seed, to see how much the outcome varies.")
                          .arg(RunPrinter::duration(-saved))
                          .arg(calls[1])
                          .arg(calls[0]));
    }
    qCDebug(lcDemo) << "last done" << lastDone[0] << "ms without jitter," << lastDone[1] << "ms with";
    return ExitOk;
}

} // namespace RetryLab::Cli
