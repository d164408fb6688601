#include "app/cli/cmd_demo.h"

#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/headlessoptions.h"
#include "app/cli/runprinter.h"
#include "app/cli/runseed.h"
#include "app/cli/subcommand.h"
#include "app/cli/texttable.h"

#include "app/cli/clitr.h"
#include "core/export/texttimeline.h"
#include "core/faultserver/faultserver.h"
#include "core/record/runstatistics.h"
#include "core/scenario/scenarioreader.h"
#include "core/scenario/scenariorunner.h"
#include "core/util/durationtext.h"

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

using DemoCommand::Options;

const QString command = QStringLiteral("demo");

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
            .arg(Core::DurationText::format(p.baseDelayMs), Core::DurationText::format(p.maxBackoffMs))
            .arg(p.maxAttempts),
        Tr::tr("\"%1\" waits exactly that long; \"%2\" draws each wait at random up to it (%3).")
            .arg(plain.policy.name, jittered.policy.name, Core::algorithmTitle(jittered.policy.algorithm)),
    };
}

// The two groups' scenarios, built into the binary, with the run's seed.
Core::Result<void> readScenarios(std::array<Group, 2> &groups, quint64 seed)
{
    const std::array<QString, 2> files{
        QStringLiteral(":/scenarios/demo-no-jitter.json"), QStringLiteral(":/scenarios/demo-full-jitter.json")};
    const std::array<QString, 2> titles{Tr::tr("no jitter"), Tr::tr("full jitter")};
    for (std::size_t i = 0; i < groups.size(); ++i) {
        auto scenario = Core::ScenarioReader::readFile(files[i]);
        if (!scenario)
            return scenario.errorDetail();
        groups[i].title = titles[i];
        groups[i].scenario = std::move(scenario).value();
        groups[i].scenario.seed = seed;
    }
    return {};
}

// Both groups at once against the one server, until both have finished.
void execute(std::array<Group, 2> &groups, Core::FaultServer &server)
{
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
}

// Each group's attempts as a text timeline, on one time axis, and the legend.
void printTimelines(const std::array<Group, 2> &groups, int width, Console &console)
{
    double span = 0.0;
    for (const Group &group : groups)
        span = std::max(span, endMs(group.runner->record()));
    Core::TextTimeline::Options timelineOptions;
    timelineOptions.width = width;
    timelineOptions.spanMs = span * 1.02 + 1.0;
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

// The table of the two groups, then what this run showed, not what it was meant to show.
void printComparison(const std::array<Group, 2> &groups, Console &console)
{
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
            QString::number(calls[i]), median ? Core::DurationText::format(*median) : QStringLiteral("-"),
            Core::DurationText::format(lastDone[i])});
    }
    console.print();
    console.print(table.lines());
    console.print();

    const double saved = lastDone[0] - lastDone[1];
    if (saved > 0.0) {
        console.print(Tr::tr("With full jitter the last client was through %1 sooner, with %2 calls instead of %3: the "
                             "retries no longer arrive in waves, so the endpoint's capacity is used as it refills.")
                          .arg(Core::DurationText::format(saved))
                          .arg(calls[1])
                          .arg(calls[0]));
    } else {
        console.print(Tr::tr("In this run full jitter did not finish sooner (%1 later, %2 calls instead of %3); run "
                             "the demo again, or with another --seed, to see how much the outcome varies.")
                          .arg(Core::DurationText::format(-saved))
                          .arg(calls[1])
                          .arg(calls[0]));
    }
    qCDebug(lcDemo) << "last done" << lastDone[0] << "ms without jitter," << lastDone[1] << "ms with";
}

} // namespace

namespace DemoCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("A short demonstration in the terminal: two groups of clients retry against an overloaded endpoint on "
               "the embedded fault server, one backing off without jitter and one with full jitter, drawn as text "
               "timelines on one time axis. Takes a few seconds; needs no display."));
    const HeadlessOptions::Table shared(
        HeadlessOptions::Seed | HeadlessOptions::Quiet, Tr::tr("Print only the comparison, not the timelines."));
    parser.addOptions(shared.options());
    const QCommandLineOption widthOption(
        QStringLiteral("width"), Tr::tr("Characters of the time axis, 20-400 (default 64)."), Tr::tr("N"));
    parser.addOption(widthOption);

    if (const auto parsed = parseSubcommand(parser, arguments); !parsed)
        return Core::Result<Options>::failure(withHelpHint(command, parsed.error()));
    Options options;
    if (shared.helpRequested(parser)) {
        options.help = subcommandHelp(parser, Tr::tr("Usage: retrylab demo [options]")) + QLatin1Char('\n');
        return options;
    }
    auto values = shared.read(parser);
    if (!values)
        return Core::Result<Options>::failure(withHelpHint(command, values.error()));
    options.shared = std::move(values).value();
    if (!parser.positionalArguments().isEmpty()) {
        return Core::Result<Options>::failure(
            Tr::tr("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    }
    if (parser.isSet(widthOption)) {
        bool ok = false;
        options.width = parser.value(widthOption).toInt(&ok);
        if (!ok || options.width < 20 || options.width > 400) {
            return Core::Result<Options>::failure(
                Tr::tr("--width must be a whole number from 20 to 400 (got \"%1\")").arg(parser.value(widthOption)));
        }
    }
    return options;
}

int run(const Options &options)
{
    Console console;
    Console::installMessageHandler(true);
    const RunSeed seed(options.shared.seed);
    std::array<Group, 2> groups;
    if (const auto read = readScenarios(groups, seed.value()); !read) {
        console.error(Tr::tr("retrylab demo: the built-in scenario is damaged: %1").arg(read.error()));
        return ExitFailed;
    }
    Core::FaultServerOptions serverOptions;
    serverOptions.seed = seed.value();
    Core::FaultServer server(serverOptions);
    if (!server.listen()) {
        console.error(Tr::tr("retrylab demo: the embedded fault server cannot listen: %1").arg(server.errorString()));
        return ExitFailed;
    }
    if (!options.shared.quiet) {
        console.print(introduction(groups[0].scenario, groups[1].scenario, server.baseUrl()));
        console.print(Tr::tr("Jitter drawn with %1.").arg(seed.text()));
        console.print();
        console.print(Tr::tr("Running both groups at once..."));
    }

    execute(groups, server);
    for (const Group &group : groups) {
        if (!group.failure.isEmpty()) {
            console.error(Tr::tr("retrylab demo: %1: %2").arg(group.title, group.failure));
            return ExitFailed;
        }
    }
    if (!options.shared.quiet)
        printTimelines(groups, options.width, console);
    printComparison(groups, console);
    return ExitOk;
}

} // namespace DemoCommand

int runDemo(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &DemoCommand::parse, &DemoCommand::run);
}

} // namespace RetryLab::Cli
