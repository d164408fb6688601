#include "core/history/historyquery.h"

#include "core/history/historyconnection.h"
#include "core/history/historyschema.h"
#include "core/history/incidentfinder.h"
#include "core/history/seriesreader.h"
#include "core/history/whatifsimulator.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcHistoryQuery, "retrylab.core.history.query")
} // namespace

namespace RetryLab::Core {

namespace {

std::optional<double> ratio(qint64 part, qint64 whole)
{
    if (whole <= 0)
        return std::nullopt;
    return static_cast<double>(part) / static_cast<double>(whole);
}

// Recorded outcomes a what-if may borrow beyond its window, besides the policy's reach.
constexpr qint64 replayMarginMs = 6LL * 3600 * 1000;

} // namespace

Result<std::unique_ptr<HistoryQuery>> HistoryQuery::open(const QString &database)
{
    const Result<HistoryLocation> location = HistoryLocation::parse(database);
    if (!location)
        return location.errorDetail();
    auto connection = HistoryConnection::open(*location, HistoryConnection::Role::Reader, {});
    if (!connection)
        return connection.errorDetail();
    std::unique_ptr<HistoryQuery> query(new HistoryQuery);
    query->m_connection = std::move(connection).value();
    if (Result<void> readable = HistorySchema::checkForReading(
            query->m_connection->database(), query->m_connection->dialect(), location->describe());
        !readable)
        return readable.errorDetail();
    query->m_reader = std::make_unique<SeriesReader>(query->m_connection->database(), query->m_connection->dialect());
    return query;
}

HistoryQuery::~HistoryQuery() = default;

QString HistoryQuery::where() const
{
    return m_connection->location().describe();
}

Result<QList<HistoryQuery::Series>> HistoryQuery::series(const QString &monitor, const QString &agent)
{
    QSqlQuery query(m_connection->database());
    query.setForwardOnly(m_connection->dialect().streamsRows());
    QString sql = QStringLiteral("SELECT s.id, m.name, a.name FROM series AS s JOIN monitors AS m ON m.id = s.monitor"
                                 " JOIN agents AS a ON a.id = s.agent WHERE 1 = 1");
    if (!monitor.isEmpty())
        sql += QStringLiteral(" AND m.name = ?");
    if (!agent.isEmpty())
        sql += QStringLiteral(" AND a.name = ?");
    query.prepare(sql + QStringLiteral(" ORDER BY m.name, a.name"));
    if (!monitor.isEmpty())
        query.addBindValue(monitor);
    if (!agent.isEmpty())
        query.addBindValue(agent);
    if (!query.exec())
        return Result<QList<Series>>::failure(
            Tr::tr("the history cannot be read: %1").arg(query.lastError().databaseText()));
    QList<Series> result;
    while (query.next())
        result.append({query.value(0).toLongLong(), query.value(1).toString(), query.value(2).toString()});
    return result;
}

qint64 HistoryQuery::rolledUntilMs() const
{
    return HistorySchema::metaValue(m_connection->database(), QStringLiteral("rolled_until_ms")).toLongLong();
}

Result<QStringList> HistoryQuery::monitors()
{
    QSqlQuery query(m_connection->database());
    query.setForwardOnly(m_connection->dialect().streamsRows());
    if (!query.exec(QStringLiteral("SELECT name FROM monitors ORDER BY name")))
        return Result<QStringList>::failure(
            Tr::tr("the history cannot be read: %1").arg(query.lastError().databaseText()));
    QStringList names;
    while (query.next())
        names.append(query.value(0).toString());
    return names;
}

Result<SeriesReader::Counts> HistoryQuery::count(
    qint64 series, qint64 sinceMs, qint64 untilMs, qint64 rolledUntil, bool *fromAggregates)
{
    // Before rolledUntil the raw rows are gone: the edges of the window there are
    // counted from the per-minute aggregates.
    const auto rolled = m_reader->counts(series, sinceMs, std::min(untilMs, rolledUntil), true);
    if (!rolled)
        return rolled;
    const auto raw = m_reader->counts(series, std::max(sinceMs, rolledUntil), untilMs, false);
    if (!raw)
        return raw;
    if (fromAggregates && rolled->checks + rolled->maintenanceChecks > 0)
        *fromAggregates = true;
    SeriesReader::Counts total = *rolled;
    total += *raw;
    return total;
}

Result<QList<Incident>> HistoryQuery::foundIncidents(const Series &series, qint64 sinceMs, qint64 untilMs)
{
    const auto checks = m_reader->incidentChecks(series.id, sinceMs, untilMs);
    if (!checks)
        return checks.errorDetail();
    IncidentFinder finder(series.monitor, series.agent);
    for (const IncidentCheck &check : *checks)
        finder.add(check);
    return finder.finish();
}

Result<std::optional<qint64>> HistoryQuery::storedSince(const Series &series, qint64 sinceMs)
{
    const auto cover = m_reader->incidentCoverFrom(series.id);
    if (!cover)
        return cover.errorDetail();
    if (!cover->has_value())
        return std::optional<qint64>();
    return std::optional<qint64>(std::max(sinceMs, **cover));
}

// Runs break only at a clean check, and every stored incident was found with all
// the checks before it: a stored incident whose checks lie in the window is the
// one the window's checks alone make. Before the first stored one, its first
// check is read too (it ends a seen incident going on) and what starts with it
// is left to the stored ones; after the last, the checks from the one that ended
// it on.
Result<QList<Incident>> HistoryQuery::seriesIncidents(const Series &series, qint64 sinceMs, qint64 untilMs)
{
    const auto from = storedSince(series, sinceMs);
    if (!from)
        return from.errorDetail();
    if (!from->has_value())
        return foundIncidents(series, sinceMs, untilMs);
    const auto stored = m_reader->storedIncidents(series.id, series.monitor, series.agent, **from, untilMs);
    if (!stored)
        return stored.errorDetail();
    if (stored->isEmpty())
        return foundIncidents(series, sinceMs, untilMs);
    const qint64 firstMs = stored->constFirst().incident.firstCheckMs;
    auto before = foundIncidents(series, sinceMs, firstMs + 1);
    if (!before)
        return before.errorDetail();
    auto after = foundIncidents(series, stored->constLast().closedMs, untilMs);
    if (!after)
        return after.errorDetail();
    QList<Incident> result;
    result.reserve(before->size() + stored->size() + after->size());
    for (const Incident &incident : *before) {
        if (incident.startMs < firstMs)
            result.append(incident);
    }
    for (const SeriesReader::StoredIncident &one : *stored)
        result.append(one.incident);
    result += std::move(after).value();
    return result;
}

Result<IncidentTotals> HistoryQuery::seriesIncidentTotals(
    const Series &series, qint64 sinceMs, qint64 untilMs, qint64 spanStartMs, qint64 spanEndMs)
{
    const auto addUp = [&](const QList<Incident> &incidents, bool (*keep)(const Incident &, qint64), qint64 limit) {
        IncidentTotals totals;
        for (const Incident &incident : incidents) {
            if (keep(incident, limit))
                totals.add(incident, spanStartMs, spanEndMs);
        }
        return totals;
    };
    const auto all = [](const Incident &, qint64) { return true; };
    const auto from = storedSince(series, sinceMs);
    if (!from)
        return from.errorDetail();
    SeriesReader::StoredTotals stored;
    if (from->has_value()) {
        auto read = m_reader->storedIncidentTotals(series.id, **from, untilMs);
        if (!read)
            return read.errorDetail();
        stored = *read;
    }
    if (stored.totals.seen + stored.totals.hidden == 0) {
        const auto found = foundIncidents(series, sinceMs, untilMs);
        if (!found)
            return found.errorDetail();
        return addUp(*found, all, 0);
    }
    const auto before = foundIncidents(series, sinceMs, stored.firstCheckMs + 1);
    if (!before)
        return before.errorDetail();
    const auto after = foundIncidents(series, stored.lastClosedMs, untilMs);
    if (!after)
        return after.errorDetail();
    IncidentTotals totals = addUp(
        *before, [](const Incident &incident, qint64 firstMs) { return incident.startMs < firstMs; },
        stored.firstCheckMs);
    totals += stored.totals;
    totals += addUp(*after, all, 0);
    return totals;
}

Result<MonitorSummary> HistoryQuery::summarize(
    const Series &series, const HistoryFilter &filter, qint64 rolledUntil, SummaryDetail detail)
{
    MonitorSummary summary;
    summary.monitor = series.monitor;
    summary.agent = series.agent;
    const qint64 rawSince = std::max(filter.sinceMs, rolledUntil);
    summary.rawSinceMs = rawSince;
    const auto counts = count(series.id, filter.sinceMs, filter.untilMs, rolledUntil, &summary.fromAggregates);
    if (!counts)
        return counts.errorDetail();
    summary.checks = counts->checks;
    summary.checksSucceeded = counts->checksSucceeded;
    summary.attempts = counts->attempts;
    summary.attemptsSucceeded = counts->attemptsSucceeded;
    summary.maintenanceChecks = counts->maintenanceChecks;
    summary.checkAvailability = ratio(counts->checksSucceeded, counts->checks);
    summary.attemptAvailability = ratio(counts->attemptsSucceeded, counts->attempts);
    summary.attemptsPerCheck = ratio(counts->attempts, counts->checks);
    const auto span = m_reader->rawSpan(series.id, rawSince, filter.untilMs);
    if (!span)
        return span.errorDetail();
    if (!span->has_value())
        return summary;

    if (detail == SummaryDetail::Full) {
        const auto latencies = m_reader->latencies(series.id, rawSince, filter.untilMs);
        if (!latencies)
            return latencies.errorDetail();
        summary.checkLatency = latencies->checks;
        summary.attemptLatency = latencies->attempts;
    }

    const auto totals
        = seriesIncidentTotals(series, rawSince, filter.untilMs, (*span)->firstStartMs, (*span)->lastEndMs);
    if (!totals)
        return totals.errorDetail();
    summary.incidents = totals->seen;
    summary.hiddenIncidents = totals->hidden;
    summary.mtbfMs = totals->mtbfMs((*span)->firstStartMs, (*span)->lastEndMs);
    summary.mttrMs = totals->mttrMs();
    return summary;
}

Result<QList<MonitorSummary>> HistoryQuery::summaries(const HistoryFilter &filter, SummaryDetail detail)
{
    const auto found = series(filter.monitor, filter.agent);
    if (!found)
        return found.errorDetail();
    const qint64 rolledUntil = rolledUntilMs();
    QList<MonitorSummary> result;
    for (const Series &one : *found) {
        auto summary = summarize(one, filter, rolledUntil, detail);
        if (!summary)
            return summary.errorDetail();
        if (summary->checks + summary->maintenanceChecks > 0)
            result.append(std::move(summary).value());
    }
    return result;
}

Result<QList<Incident>> HistoryQuery::incidents(const HistoryFilter &filter)
{
    const auto found = series(filter.monitor, filter.agent);
    if (!found)
        return found.errorDetail();
    const qint64 rawSince = std::max(filter.sinceMs, rolledUntilMs());
    QList<Incident> result;
    for (const Series &one : *found) {
        auto incidents = seriesIncidents(one, rawSince, filter.untilMs);
        if (!incidents)
            return incidents.errorDetail();
        result += std::move(incidents).value();
    }
    std::stable_sort(
        result.begin(), result.end(), [](const Incident &a, const Incident &b) { return a.startMs < b.startMs; });
    return result;
}

Result<QList<CheckPoint>> HistoryQuery::checkPoints(const HistoryFilter &filter)
{
    const auto found = series(filter.monitor, filter.agent);
    if (!found)
        return found.errorDetail();
    QList<CheckPoint> result;
    for (const Series &one : *found) {
        auto points = m_reader->checkPoints(one.id, filter.sinceMs, filter.untilMs);
        if (!points)
            return points.errorDetail();
        result += std::move(points).value();
    }
    if (found->size() > 1)
        std::stable_sort(result.begin(), result.end(),
            [](const CheckPoint &a, const CheckPoint &b) { return a.startMs < b.startMs; });
    return result;
}

Result<QList<StoredCheck>> HistoryQuery::checks(const HistoryFilter &filter)
{
    const auto found = series(filter.monitor, filter.agent);
    if (!found)
        return found.errorDetail();
    QList<StoredCheck> result;
    for (const Series &one : *found) {
        auto checks = m_reader->checks(one.id, one.monitor, one.agent, filter.sinceMs, filter.untilMs);
        if (!checks)
            return checks.errorDetail();
        result += std::move(checks).value();
    }
    std::stable_sort(
        result.begin(), result.end(), [](const StoredCheck &a, const StoredCheck &b) { return a.startMs < b.startMs; });
    return result;
}

Result<QList<StateEvent>> HistoryQuery::stateEvents(const HistoryFilter &filter)
{
    const auto found = series(filter.monitor, filter.agent);
    if (!found)
        return found.errorDetail();
    QList<StateEvent> result;
    for (const Series &one : *found) {
        auto events = m_reader->events(one.id, one.monitor, one.agent, filter.sinceMs, filter.untilMs);
        if (!events)
            return events.errorDetail();
        result += std::move(events).value();
    }
    std::stable_sort(
        result.begin(), result.end(), [](const StateEvent &a, const StateEvent &b) { return a.atMs < b.atMs; });
    return result;
}

Result<ObjectiveStatus> HistoryQuery::objective(
    const QString &monitor, double target, qint64 nowMs, const ObjectiveWindows &windows)
{
    if (!(target > 0.0 && target < 1.0))
        return Result<ObjectiveStatus>::failure(
            Tr::tr("an availability objective lies between 0 and 1 (0.999 is 99.9 %), not %1").arg(target));
    const auto found = series(monitor, QString());
    if (!found)
        return found.errorDetail();
    if (found->isEmpty())
        return Result<ObjectiveStatus>::failure(Tr::tr("the history has no monitor named %1").arg(monitor));
    const qint64 rolledUntil = rolledUntilMs();
    bool fromAggregates = false;
    // The checks of every agent of the monitor that started in [sinceMs, nowMs).
    const auto countSince = [&](qint64 sinceMs) -> Result<SeriesReader::Counts> {
        SeriesReader::Counts total;
        for (const Series &one : *found) {
            const auto counted = count(one.id, sinceMs, nowMs, rolledUntil, &fromAggregates);
            if (!counted)
                return counted;
            total += *counted;
        }
        return total;
    };
    const double budgetRate = 1.0 - target;
    const auto burn = [&](qint64 windowMs) -> Result<BurnRate> {
        const auto counted = countSince(nowMs - windowMs);
        if (!counted)
            return counted.errorDetail();
        BurnRate rate;
        rate.windowMs = windowMs;
        rate.checks = counted->checks;
        rate.failedChecks = counted->checks - counted->checksSucceeded;
        if (const auto errorRate = ratio(rate.failedChecks, rate.checks))
            rate.rate = *errorRate / budgetRate;
        return rate;
    };

    ObjectiveStatus status;
    status.monitor = monitor;
    status.target = target;
    status.nowMs = nowMs;
    status.budgetWindowMs = windows.budgetWindowMs;
    status.burnRateThreshold = windows.burnRateThreshold;
    const auto budget = countSince(nowMs - windows.budgetWindowMs);
    if (!budget)
        return budget.errorDetail();
    status.fromAggregates = fromAggregates;
    status.checks = budget->checks;
    status.failedChecks = budget->checks - budget->checksSucceeded;
    status.availability = ratio(budget->checksSucceeded, budget->checks);
    status.allowedFailures = budgetRate * static_cast<double>(status.checks);
    if (status.checks > 0)
        status.budgetRemaining = 1.0 - static_cast<double>(status.failedChecks) / status.allowedFailures;
    const auto longWindow = burn(windows.longWindowMs);
    if (!longWindow)
        return longWindow.errorDetail();
    const auto shortWindow = burn(windows.shortWindowMs);
    if (!shortWindow)
        return shortWindow.errorDetail();
    status.longWindow = *longWindow;
    status.shortWindow = *shortWindow;
    status.alerting = status.longWindow.rate && status.shortWindow.rate
        && *status.longWindow.rate > windows.burnRateThreshold && *status.shortWindow.rate > windows.burnRateThreshold;
    return status;
}

Result<WhatIf> HistoryQuery::whatIf(const QString &monitor, qint64 sinceMs, qint64 untilMs, const BackoffPolicy &policy,
    quint64 seed, const WhatIfOptions &options)
{
    if (!isUsable(policy))
        return Result<WhatIf>::failure(
            Tr::tr("the policy %1 cannot be replayed: %2").arg(policy.name, firstPolicyError(policy)));
    const auto found = series(monitor, options.agent);
    if (!found)
        return found.errorDetail();
    if (found->isEmpty())
        return Result<WhatIf>::failure(options.agent.isEmpty()
                ? Tr::tr("the history has no monitor named %1").arg(monitor)
                : Tr::tr("the history has no monitor named %1 checked by agent %2").arg(monitor, options.agent));
    const qint64 reach = WhatIfSimulator::reachMs(policy);
    qint64 margin = std::max(replayMarginMs, options.gapMs.value_or(0));
    for (;;) {
        QList<qint64> starts;
        QList<ReplayAttempt> recorded;
        const qint64 poolSince = sinceMs > std::numeric_limits<qint64>::min() + margin ? sinceMs - margin : sinceMs;
        const qint64 poolUntil
            = untilMs < std::numeric_limits<qint64>::max() - reach - margin ? untilMs + reach + margin : untilMs;
        for (const Series &one : *found) {
            if (Result<void> read
                = m_reader->replayInputs(one.id, sinceMs, untilMs, poolSince, poolUntil, &starts, &recorded);
                !read)
                return read.errorDetail();
        }
        std::sort(starts.begin(), starts.end());
        const qint64 gap = options.gapMs.value_or(WhatIfSimulator::defaultGapMs(starts));
        if (gap > margin) {
            // Sparse checks: the recorded outcomes beyond the window that the gap reaches were not read.
            margin = gap;
            continue;
        }
        qCDebug(lcHistoryQuery) << "what-if of" << monitor << "under" << policy.name << ":" << starts.size()
                                << "checks," << recorded.size() << "recorded attempts, gap" << gap << "ms";
        WhatIfSimulator simulator(policy, seed);
        return simulator.run(std::move(starts), std::move(recorded), gap);
    }
}

} // namespace RetryLab::Core
