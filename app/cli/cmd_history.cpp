#include "app/cli/cmd_history.h"

#include "app/cli/clitr.h"
#include "app/cli/cmd_monitor.h"
#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/policyargument.h"
#include "app/cli/subcommand.h"
#include "app/cli/texttable.h"
#include "core/export/csvexport.h"
#include "core/history/historyquery.h"
#include "core/monitor/monitor.h"
#include "core/util/durationtext.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTextStream>

#include <cmath>

namespace RetryLab::Cli {

namespace {

const QString command = QStringLiteral("history");

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption db;
    QCommandLineOption monitor;
    QCommandLineOption agent;
    QCommandLineOption since;
    QCommandLineOption until;
    QCommandLineOption whatIf;
    QCommandLineOption seed;
    QCommandLineOption objective;
    QCommandLineOption format;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      db(QStringLiteral("db"),
          Tr::tr("The history: a SQLite file or postgresql://USER@HOST:PORT/DB (default: %1).")
              .arg(QDir::toNativeSeparators(MonitorCommand::defaultDatabase())),
          Tr::tr("FILE|URL")),
      monitor(QStringLiteral("monitor"), Tr::tr("Only this monitor."), Tr::tr("NAME")),
      agent(QStringLiteral("agent"), Tr::tr("Only what this agent saw."), Tr::tr("NAME")),
      since(QStringLiteral("since"),
          Tr::tr("From this time: ISO 8601 with its zone, a date, or a span back from now (15m, 24h, 30d; default "
                 "24h)."),
          Tr::tr("T")),
      until(QStringLiteral("until"), Tr::tr("Up to this time, as --since takes it (default: now)."), Tr::tr("T")),
      whatIf(QStringLiteral("what-if"),
          Tr::tr("Replay the window through this policy too: a preset, \"none\" (one attempt per check) or a policy "
                 "file. The result is an estimate."),
          Tr::tr("POLICY")),
      seed(QStringLiteral("seed"), Tr::tr("Seed of the what-if's jitter (default 1)."), Tr::tr("S")),
      objective(QStringLiteral("objective"),
          Tr::tr("An availability objective of checks, such as 0.999: its error budget left and burn rates."),
          Tr::tr("TARGET")),
      format(QStringLiteral("format"), Tr::tr("text (default), json or csv."), Tr::tr("FORMAT"))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        Tr::tr("Reads back what retrylab monitor kept: per monitor and agent, the availability of checks (what a\n"
               "client with the monitor's policy saw) beside that of single attempts (what the server gave),\n"
               "attempts per check, latency, incidents and the ones the retries hid, MTBF and MTTR."));
    parser.addOptions({help, db, monitor, agent, since, until, whatIf, seed, objective, format});
}

qint64 nowUtcMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

Core::Result<void> readOptions(
    const QCommandLineParser &parser, const OptionTable &table, HistoryCommand::Options &options, qint64 nowMs)
{
    if (const auto none = noPositionalArguments(parser); !none)
        return none;
    options.database = parser.value(table.db);
    if (parser.isSet(table.db) && options.database.trimmed().isEmpty())
        return Core::Result<void>::failure(Tr::tr("--db needs a file or a postgresql:// URL"));
    if (options.database.isEmpty())
        options.database = MonitorCommand::defaultDatabase();
    options.monitor = parser.value(table.monitor);
    options.agent = parser.value(table.agent);
    options.sinceText = parser.isSet(table.since) ? parser.value(table.since) : QStringLiteral("24h");
    options.untilText = parser.isSet(table.until) ? parser.value(table.until) : QStringLiteral("now");
    const auto since = HistoryCommand::readTime(options.sinceText, nowMs);
    if (!since)
        return Core::Result<void>::failure(Tr::tr("--since: %1").arg(since.error()));
    const auto until = HistoryCommand::readTime(options.untilText, nowMs);
    if (!until)
        return Core::Result<void>::failure(Tr::tr("--until: %1").arg(until.error()));
    if (*until <= *since)
        return Core::Result<void>::failure(Tr::tr("--until must come after --since"));
    options.sinceMs = *since;
    options.untilMs = *until;
    if (parser.isSet(table.whatIf)) {
        const QString text = parser.value(table.whatIf);
        if (text == QLatin1String("none")) {
            options.whatIf = Core::singleAttemptPolicy();
            options.whatIfOrigin = QStringLiteral("none");
        } else {
            const auto policy = resolvePolicy(text);
            if (!policy)
                return Core::Result<void>::failure(Tr::tr("--what-if: %1").arg(policy.error()));
            options.whatIf = policy->policy;
            options.whatIfOrigin = policy->origin;
        }
    }
    std::optional<quint64> seed;
    if (const auto read = readSeed(parser, table.seed, seed); !read)
        return read;
    options.seed = seed.value_or(1);
    if (parser.isSet(table.objective)) {
        bool ok = false;
        const double target = parser.value(table.objective).toDouble(&ok);
        if (!ok || !std::isfinite(target) || target <= 0.0 || target >= 1.0) {
            return Core::Result<void>::failure(
                Tr::tr("--objective is a fraction between 0 and 1, such as 0.999 (got \"%1\")")
                    .arg(parser.value(table.objective)));
        }
        options.objective = target;
    }
    const QString format = parser.value(table.format);
    if (format.isEmpty() || format == QLatin1String("text"))
        options.format = HistoryCommand::Format::Text;
    else if (format == QLatin1String("json"))
        options.format = HistoryCommand::Format::Json;
    else if (format == QLatin1String("csv"))
        options.format = HistoryCommand::Format::Csv;
    else
        return Core::Result<void>::failure(Tr::tr("--format is text, json or csv (got \"%1\")").arg(format));
    return {};
}

QString isoTime(qint64 utcMs)
{
    return QDateTime::fromMSecsSinceEpoch(utcMs, Qt::UTC).toString(Qt::ISODateWithMs);
}

QJsonValue optionalNumber(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue();
}

QJsonObject latencyJson(const Core::LatencyPercentiles &l)
{
    return {{QStringLiteral("p50Ms"), optionalNumber(l.p50Ms)}, {QStringLiteral("p90Ms"), optionalNumber(l.p90Ms)},
        {QStringLiteral("p99Ms"), optionalNumber(l.p99Ms)}};
}

QJsonObject incidentJson(const Core::Incident &i)
{
    return {{QStringLiteral("start"), isoTime(i.startMs)},
        {QStringLiteral("end"), i.endMs ? QJsonValue(isoTime(*i.endMs)) : QJsonValue()},
        {QStringLiteral("durationMs"), double(i.durationMs)}, {QStringLiteral("hidden"), i.hidden},
        {QStringLiteral("firstError"), i.firstError}, {QStringLiteral("lastError"), i.lastError},
        {QStringLiteral("checks"), double(i.checks)}, {QStringLiteral("attempts"), double(i.attempts)}};
}

QString percent(const std::optional<double> &fraction)
{
    return fraction ? QString::number(*fraction * 100.0, 'f', 3) + QStringLiteral(" %") : QStringLiteral("-");
}

QString milliseconds(const std::optional<double> &ms)
{
    return ms ? Core::DurationText::format(*ms) : QStringLiteral("-");
}

// Everything read for one monitor and agent.
struct Report
{
    Core::MonitorSummary summary;
    QList<Core::Incident> incidents;
    std::optional<Core::ObjectiveStatus> objective;
    std::optional<Core::WhatIf> whatIf;
};

QJsonObject reportJson(const Report &r, const HistoryCommand::Options &options)
{
    const Core::MonitorSummary &s = r.summary;
    QJsonArray incidents;
    for (const Core::Incident &i : r.incidents)
        incidents.append(incidentJson(i));
    QJsonObject o{{QStringLiteral("name"), s.monitor}, {QStringLiteral("agent"), s.agent},
        {QStringLiteral("checks"), double(s.checks)}, {QStringLiteral("checksSucceeded"), double(s.checksSucceeded)},
        {QStringLiteral("attempts"), double(s.attempts)},
        {QStringLiteral("attemptsSucceeded"), double(s.attemptsSucceeded)},
        {QStringLiteral("maintenanceChecks"), double(s.maintenanceChecks)},
        {QStringLiteral("availability"),
            QJsonObject{{QStringLiteral("checks"), optionalNumber(s.checkAvailability)},
                {QStringLiteral("attempts"), optionalNumber(s.attemptAvailability)}}},
        {QStringLiteral("attemptsPerCheck"), optionalNumber(s.attemptsPerCheck)},
        {QStringLiteral("latency"),
            QJsonObject{{QStringLiteral("checks"), latencyJson(s.checkLatency)},
                {QStringLiteral("attempts"), latencyJson(s.attemptLatency)}}},
        {QStringLiteral("incidentCount"), s.incidents}, {QStringLiteral("hiddenIncidentCount"), s.hiddenIncidents},
        {QStringLiteral("mtbfMs"), optionalNumber(s.mtbfMs)}, {QStringLiteral("mttrMs"), optionalNumber(s.mttrMs)},
        {QStringLiteral("fromAggregates"), s.fromAggregates}, {QStringLiteral("incidents"), incidents}};
    if (r.objective) {
        const Core::ObjectiveStatus &b = *r.objective;
        o.insert(QStringLiteral("objective"),
            QJsonObject{{QStringLiteral("target"), b.target},
                {QStringLiteral("budgetWindowMs"), double(b.budgetWindowMs)},
                {QStringLiteral("availability"), optionalNumber(b.availability)},
                {QStringLiteral("budgetRemaining"), optionalNumber(b.budgetRemaining)},
                {QStringLiteral("burnRate"),
                    QJsonObject{{QStringLiteral("longWindowMs"), double(b.longWindow.windowMs)},
                        {QStringLiteral("long"), optionalNumber(b.longWindow.rate)},
                        {QStringLiteral("shortWindowMs"), double(b.shortWindow.windowMs)},
                        {QStringLiteral("short"), optionalNumber(b.shortWindow.rate)},
                        {QStringLiteral("threshold"), b.burnRateThreshold}}},
                {QStringLiteral("alerting"), b.alerting}});
    }
    if (r.whatIf) {
        const Core::WhatIf &w = *r.whatIf;
        o.insert(QStringLiteral("whatIf"),
            QJsonObject{{QStringLiteral("policy"), options.whatIfOrigin}, {QStringLiteral("policyName"), w.policyName},
                {QStringLiteral("availability"),
                    QJsonObject{{QStringLiteral("checks"), optionalNumber(w.checkAvailability)}}},
                {QStringLiteral("attemptsPerCheck"), optionalNumber(w.attemptsPerCheck)},
                {QStringLiteral("checksSimulated"), double(w.checksSimulated)},
                {QStringLiteral("unknownChecks"), double(w.unknownChecks)},
                {QStringLiteral("incidentCount"), w.incidents},
                {QStringLiteral("hiddenIncidentCount"), w.hiddenIncidents}, {QStringLiteral("gapMs"), double(w.gapMs)},
                {QStringLiteral("seed"), QString::number(options.seed)}, {QStringLiteral("estimate"), w.estimate}});
    }
    return o;
}

void printText(const QList<Report> &reports, const HistoryCommand::Options &options, Console &console)
{
    console.print(
        Tr::tr("History in %1, %2 to %3")
            .arg(QDir::toNativeSeparators(options.database), isoTime(options.sinceMs), isoTime(options.untilMs)));
    if (reports.isEmpty()) {
        console.print(Tr::tr("No check in this window."));
        return;
    }
    TextTable table({Tr::tr("monitor"), Tr::tr("agent"), Tr::tr("checks"), Tr::tr("checks ok"), Tr::tr("attempts ok"),
        Tr::tr("attempts/check"), Tr::tr("p50"), Tr::tr("p99"), Tr::tr("incidents"), Tr::tr("hidden"), Tr::tr("MTBF"),
        Tr::tr("MTTR")});
    for (const Report &r : reports) {
        const Core::MonitorSummary &s = r.summary;
        table.addRow({s.monitor, s.agent, QString::number(s.checks), percent(s.checkAvailability),
            percent(s.attemptAvailability),
            s.attemptsPerCheck ? QString::number(*s.attemptsPerCheck, 'f', 2) : QStringLiteral("-"),
            milliseconds(s.checkLatency.p50Ms), milliseconds(s.checkLatency.p99Ms), QString::number(s.incidents),
            QString::number(s.hiddenIncidents), milliseconds(s.mtbfMs), milliseconds(s.mttrMs)});
    }
    console.print(table.lines());
    for (const Report &r : reports) {
        const Core::MonitorSummary &s = r.summary;
        if (s.fromAggregates) {
            console.print(Tr::tr("%1 (%2): counts before %3 come from the roll-ups; latency and incidents start there")
                              .arg(s.monitor, s.agent, isoTime(s.rawSinceMs)));
        }
        for (const Core::Incident &i : r.incidents) {
            console.print(Tr::tr("%1 (%2): %3 %4 to %5 (%6), %7 checks, %8 attempts; first error: %9")
                              .arg(s.monitor, s.agent, i.hidden ? Tr::tr("hidden incident") : Tr::tr("incident"),
                                  isoTime(i.startMs), i.endMs ? isoTime(*i.endMs) : Tr::tr("now"),
                                  Core::DurationText::format(double(i.durationMs)))
                              .arg(i.checks)
                              .arg(i.attempts)
                              .arg(i.firstError));
        }
        if (r.objective) {
            const Core::ObjectiveStatus &b = *r.objective;
            console.print(
                Tr::tr("%1: objective %2 over 30 days: %3 available, %4 of the error budget left; burn rate "
                       "%5 over 1 h, %6 over 5 min (alert above %7)%8")
                    .arg(s.monitor, percent(b.target), percent(b.availability),
                        b.budgetRemaining ? percent(*b.budgetRemaining) : QStringLiteral("-"),
                        b.longWindow.rate ? QString::number(*b.longWindow.rate, 'f', 1) : QStringLiteral("-"),
                        b.shortWindow.rate ? QString::number(*b.shortWindow.rate, 'f', 1) : QStringLiteral("-"),
                        QString::number(b.burnRateThreshold), b.alerting ? Tr::tr(": ALERTING") : QString()));
        }
        if (r.whatIf) {
            const Core::WhatIf &w = *r.whatIf;
            console.print(
                Tr::tr("%1: what-if %2 (an estimate): %3 instead of %4, %5 attempts per check instead of %6; "
                       "%7 incidents (%8 hidden) instead of %9 (%10)")
                    .arg(s.monitor, options.whatIfOrigin, percent(w.checkAvailability), percent(s.checkAvailability),
                        w.attemptsPerCheck ? QString::number(*w.attemptsPerCheck, 'f', 2) : QStringLiteral("-"),
                        s.attemptsPerCheck ? QString::number(*s.attemptsPerCheck, 'f', 2) : QStringLiteral("-"))
                    .arg(w.incidents)
                    .arg(w.hiddenIncidents)
                    .arg(s.incidents)
                    .arg(s.hiddenIncidents));
            if (w.unknownChecks > 0) {
                console.print(Tr::tr("  %1 checks left out: no recorded attempt within %2 of a replayed one")
                                  .arg(w.unknownChecks)
                                  .arg(Core::DurationText::format(double(w.gapMs))));
            }
        }
    }
}

QString csvNumber(const std::optional<double> &value)
{
    return value ? QString::number(*value, 'g', 10) : QString();
}

void printCsv(const QList<Report> &reports, QTextStream &out)
{
    out << "monitor,agent,checks,checksSucceeded,attempts,attemptsSucceeded,availabilityChecks,"
           "availabilityAttempts,attemptsPerCheck,checkP50Ms,checkP99Ms,attemptP50Ms,attemptP99Ms,incidents,"
           "hiddenIncidents,mtbfMs,mttrMs,whatIfAvailabilityChecks,whatIfAttemptsPerCheck\r\n";
    for (const Report &r : reports) {
        const Core::MonitorSummary &s = r.summary;
        const QStringList fields{Core::CsvExport::quoteField(s.monitor), Core::CsvExport::quoteField(s.agent),
            QString::number(s.checks), QString::number(s.checksSucceeded), QString::number(s.attempts),
            QString::number(s.attemptsSucceeded), csvNumber(s.checkAvailability), csvNumber(s.attemptAvailability),
            csvNumber(s.attemptsPerCheck), csvNumber(s.checkLatency.p50Ms), csvNumber(s.checkLatency.p99Ms),
            csvNumber(s.attemptLatency.p50Ms), csvNumber(s.attemptLatency.p99Ms), QString::number(s.incidents),
            QString::number(s.hiddenIncidents), csvNumber(s.mtbfMs), csvNumber(s.mttrMs),
            r.whatIf ? csvNumber(r.whatIf->checkAvailability) : QString(),
            r.whatIf ? csvNumber(r.whatIf->attemptsPerCheck) : QString()};
        out << fields.join(QLatin1Char(',')) << "\r\n";
    }
}

} // namespace

namespace HistoryCommand {

Core::Result<qint64> readTime(const QString &text, qint64 nowMs)
{
    const QString t = text.trimmed();
    if (t == QLatin1String("now"))
        return nowMs;
    static const QRegularExpression span(QStringLiteral("^(\\d{1,9})(s|m|h|d|w)$"));
    if (const auto m = span.match(t); m.hasMatch()) {
        const qint64 n = m.captured(1).toLongLong();
        const QChar unit = m.captured(2).at(0);
        const qint64 unitMs = unit == QLatin1Char('s') ? 1000
            : unit == QLatin1Char('m')                 ? 60'000
            : unit == QLatin1Char('h')                 ? 3'600'000
            : unit == QLatin1Char('d')                 ? 86'400'000
                                                       : 7 * 86'400'000LL;
        if (n > 100LL * 365 * 86'400'000 / unitMs)
            return Core::Result<qint64>::failure(Tr::tr("\"%1\" reaches back more than a century").arg(text));
        return nowMs - n * unitMs;
    }
    QDateTime at = QDateTime::fromString(t, Qt::ISODateWithMs);
    if (!at.isValid()) {
        const QDate day = QDate::fromString(t, Qt::ISODate);
        if (day.isValid())
            at = QDateTime(day, QTime(0, 0), Qt::UTC);
    }
    if (!at.isValid() || (at.timeSpec() == Qt::LocalTime && t.contains(QLatin1Char('T')))) {
        return Core::Result<qint64>::failure(
            Tr::tr("\"%1\" is not a time: give ISO 8601 with its zone (2026-11-29T02:00:00Z), a date (2026-11-29), "
                   "\"now\", or a span back from now (15m, 24h, 30d)")
                .arg(text));
    }
    return at.toMSecsSinceEpoch();
}

Core::Result<Options> parse(const QStringList &arguments, qint64 nowMs)
{
    const OptionTable table;
    QCommandLineParser parser;
    table.addTo(parser);
    if (const auto parsed = parseSubcommand(parser, arguments); !parsed)
        return Core::Result<Options>::failure(withHelpHint(command, parsed.error()));
    Options options;
    if (parser.isSet(table.help)) {
        options.help = subcommandHelp(parser, Tr::tr("Usage: retrylab history [options]")) + QLatin1Char('\n');
        return options;
    }
    if (const auto done = readOptions(parser, table, options, nowMs); !done)
        return done.errorDetail();
    return options;
}

Core::Result<Options> parse(const QStringList &arguments)
{
    return parse(arguments, nowUtcMs());
}

int run(const Options &options)
{
    Console::installMessageHandler(true);
    Console console;
    auto query = Core::HistoryQuery::open(options.database);
    if (!query)
        return usageError(command, query.error());
    Core::HistoryFilter filter;
    filter.monitor = options.monitor;
    filter.agent = options.agent;
    filter.sinceMs = options.sinceMs;
    filter.untilMs = options.untilMs;
    const auto summaries = (*query)->summaries(filter);
    if (!summaries) {
        console.error(Tr::tr("retrylab history: %1").arg(summaries.error()));
        return ExitFailed;
    }
    if (!options.monitor.isEmpty() && summaries->isEmpty()) {
        const auto known = (*query)->monitors();
        if (known && !known->contains(options.monitor)) {
            return usageError(command,
                Tr::tr("--monitor \"%1\": %2 has no such monitor (it has %3)")
                    .arg(options.monitor, (*query)->where(),
                        known->isEmpty() ? Tr::tr("none") : known->join(QStringLiteral(", "))));
        }
    }
    const auto incidents = (*query)->incidents(filter);
    if (!incidents) {
        console.error(Tr::tr("retrylab history: %1").arg(incidents.error()));
        return ExitFailed;
    }
    QList<Report> reports;
    for (const Core::MonitorSummary &summary : *summaries) {
        Report report;
        report.summary = summary;
        for (const Core::Incident &i : *incidents) {
            if (i.monitor == summary.monitor && i.agent == summary.agent)
                report.incidents.append(i);
        }
        if (options.objective) {
            auto objective = (*query)->objective(summary.monitor, *options.objective, options.untilMs);
            if (!objective) {
                console.error(Tr::tr("retrylab history: %1").arg(objective.error()));
                return ExitFailed;
            }
            report.objective = *objective;
        }
        if (options.whatIf) {
            Core::WhatIfOptions whatIfOptions;
            whatIfOptions.agent = summary.agent;
            auto whatIf = (*query)->whatIf(
                summary.monitor, options.sinceMs, options.untilMs, *options.whatIf, options.seed, whatIfOptions);
            if (!whatIf) {
                console.error(Tr::tr("retrylab history: %1").arg(whatIf.error()));
                return ExitFailed;
            }
            report.whatIf = *whatIf;
        }
        reports.append(report);
    }

    QTextStream out(stdout);
    switch (options.format) {
    case Format::Text:
        printText(reports, options, console);
        break;
    case Format::Json: {
        QJsonArray monitors;
        for (const Report &r : reports)
            monitors.append(reportJson(r, options));
        QJsonObject root{{QStringLiteral("format"), QStringLiteral("retrylab-history")}, {QStringLiteral("version"), 1},
            {QStringLiteral("database"), (*query)->where()}, {QStringLiteral("since"), isoTime(options.sinceMs)},
            {QStringLiteral("until"), isoTime(options.untilMs)}, {QStringLiteral("monitors"), monitors}};
        if (options.whatIf) {
            root.insert(QStringLiteral("whatIfMethod"),
                QStringLiteral("each recorded check is replayed under the policy; an attempt at time t takes the "
                               "outcome of the recorded attempt of that monitor nearest to t, unknown past the gap"));
        }
        out << QJsonDocument(root).toJson(QJsonDocument::Indented);
        break;
    }
    case Format::Csv:
        printCsv(reports, out);
        break;
    }
    return ExitOk;
}

} // namespace HistoryCommand

int runHistory(const QStringList &arguments)
{
    return parseAndRun(command, arguments,
        static_cast<Core::Result<HistoryCommand::Options> (*)(const QStringList &)>(&HistoryCommand::parse),
        &HistoryCommand::run);
}

} // namespace RetryLab::Cli
