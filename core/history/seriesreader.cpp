#include "core/history/seriesreader.h"

#include "core/history/historyencoding.h"
#include "core/history/historyretention.h"
#include "core/util/coretr.h"

#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>
#include <array>

namespace RetryLab::Core {

namespace {

// Every query of a series reads one key range: (series, start) leads both keys.
const QString seriesRange = QStringLiteral("series = ? AND start_ms >= ? AND start_ms < ?");
const QString counted = QStringLiteral("(flags & 2) = 0");

// Incidents read the troubled checks through the partial index while they are
// fewer than this; past it one pass over the range costs less than a lookup each.
constexpr qint64 sparseTroubleLimit = 20'000;

void bindRange(QSqlQuery &query, int times, qint64 series, qint64 sinceMs, qint64 untilMs)
{
    for (int i = 0; i < times; ++i) {
        query.addBindValue(series);
        query.addBindValue(sinceMs);
        query.addBindValue(untilMs);
    }
}

// Prepares `sql`, whose one range condition takes (series, since, until), binds them and runs it.
bool runRange(QSqlQuery &query, const QString &sql, qint64 series, qint64 sinceMs, qint64 untilMs)
{
    if (!query.prepare(sql))
        return false;
    bindRange(query, 1, series, sinceMs, untilMs);
    return query.exec();
}

std::optional<int> storedInt(const QVariant &value)
{
    return value.isNull() ? std::nullopt : std::optional<int>(value.toInt());
}

} // namespace

SeriesReader::Counts &SeriesReader::Counts::operator+=(const Counts &other)
{
    checks += other.checks;
    checksSucceeded += other.checksSucceeded;
    attempts += other.attempts;
    attemptsSucceeded += other.attemptsSucceeded;
    maintenanceChecks += other.maintenanceChecks;
    return *this;
}

Error SeriesReader::failure(const QSqlQuery &query) const
{
    QString why = query.lastError().databaseText().simplified();
    if (why.isEmpty())
        why = query.lastError().text().simplified();
    return Error{QString(), Tr::tr("the history cannot be read: %1").arg(why)};
}

void SeriesReader::readAttempt(const QSqlQuery &q, int column, qint64 checkStartMs, StoredAttempt &attempt)
{
    // The columns CheckWriter::bindAttempt() writes, in its order.
    attempt.startMs = checkStartMs + q.value(column++).toLongLong();
    attempt.status = storedInt(q.value(column++));
    attempt.cause = text(q.value(column++));
    attempt.reason = text(q.value(column++));
    attempt.decision = text(q.value(column++));
    attempt.delayBeforeMs = HistoryEncoding::fromAmount(q.value(column++));
    attempt.queuedMs = HistoryEncoding::fromAmount(q.value(column++));
    attempt.connectMs = HistoryEncoding::fromPhase(q.value(column++));
    attempt.tlsMs = HistoryEncoding::fromPhase(q.value(column++));
    attempt.firstByteMs = HistoryEncoding::fromPhase(q.value(column++));
    attempt.totalMs = HistoryEncoding::fromAmount(q.value(column++));
    attempt.bytes = q.value(column++).toLongLong();
    attempt.failureBody = q.value(column++).toByteArray();
    attempt.dnsMs = HistoryEncoding::fromPhase(q.value(column++));
    attempt.sendMs = HistoryEncoding::fromPhase(q.value(column++));
    attempt.downloadMs = HistoryEncoding::fromPhase(q.value(column));
}

QString SeriesReader::text(const QVariant &id)
{
    if (id.isNull())
        return {};
    const qint64 key = id.toLongLong();
    auto it = m_texts.constFind(key);
    if (it != m_texts.constEnd())
        return it.value();
    // Another agent may have added texts since the last read: read them all again.
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (query.exec(QStringLiteral("SELECT id, text FROM texts"))) {
        while (query.next())
            m_texts.insert(query.value(0).toLongLong(), query.value(1).toString());
    }
    return m_texts.value(key);
}

Result<SeriesReader::Counts> SeriesReader::rawCounts(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!query.prepare(QStringLiteral("SELECT COUNT(*), SUM(CASE WHEN %1 THEN 1 ELSE 0 END),"
                                      " SUM(CASE WHEN (flags & 3) = 1 THEN 1 ELSE 0 END),"
                                      " SUM(CASE WHEN %1 THEN attempts ELSE 0 END),"
                                      " SUM(CASE WHEN %1 THEN attempts_ok ELSE 0 END)"
                                      " FROM checks WHERE %2")
                           .arg(counted, seriesRange)))
        return failure(query);
    bindRange(query, 1, series, sinceMs, untilMs);
    if (!query.exec() || !query.next())
        return failure(query);
    Counts counts;
    const qint64 all = query.value(0).toLongLong();
    counts.checks = query.value(1).toLongLong();
    counts.maintenanceChecks = all - counts.checks;
    counts.checksSucceeded = query.value(2).toLongLong();
    counts.attempts = query.value(3).toLongLong();
    counts.attemptsSucceeded = query.value(4).toLongLong();
    return counts;
}

Result<std::optional<SeriesReader::Span>> SeriesReader::rawSpan(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    // Two walks down the key, not a scan: the first check, and the last one.
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    Span span;
    for (const QString &order : {QStringLiteral("ASC"), QStringLiteral("DESC")}) {
        if (!runRange(query,
                QStringLiteral("SELECT start_ms, start_ms + duration_ms FROM checks WHERE %1"
                               " ORDER BY start_ms %2 LIMIT 1")
                    .arg(seriesRange, order),
                series, sinceMs, untilMs))
            return failure(query);
        if (!query.next())
            return std::optional<Span>();
        if (order == QLatin1String("ASC"))
            span.firstStartMs = query.value(0).toLongLong();
        else
            span.lastEndMs = query.value(1).toLongLong();
        query.finish();
    }
    return std::optional<Span>(span);
}

Result<SeriesReader::Counts> SeriesReader::counts(qint64 series, qint64 sinceMs, qint64 untilMs, bool rolledUp)
{
    Counts total;
    if (sinceMs >= untilMs)
        return total;
    const qint64 firstHour = HistoryEncoding::ceilTo(sinceMs, HistoryEncoding::hourMs);
    const qint64 lastHour = HistoryEncoding::floorTo(untilMs, HistoryEncoding::hourMs);
    QList<QPair<qint64, qint64>> edges;
    if (firstHour < lastHour) {
        const auto hours = bucketCounts(QStringLiteral("agg_hour"), series, firstHour, lastHour);
        if (!hours)
            return hours.errorDetail();
        total += *hours;
        edges = {{sinceMs, firstHour}, {lastHour, untilMs}};
    } else {
        edges = {{sinceMs, untilMs}};
    }
    for (const auto &[from, to] : std::as_const(edges)) {
        if (from >= to)
            continue;
        const auto edge
            = rolledUp ? bucketCounts(QStringLiteral("agg_minute"), series, from, to) : rawCounts(series, from, to);
        if (!edge)
            return edge.errorDetail();
        total += *edge;
    }
    return total;
}

Result<SeriesReader::Counts> SeriesReader::bucketCounts(
    const QString &table, qint64 series, qint64 sinceMs, qint64 untilMs)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!query.prepare(QStringLiteral("SELECT CAST(SUM(checks) AS BIGINT), CAST(SUM(checks_ok) AS BIGINT),"
                                      " CAST(SUM(attempts) AS BIGINT), CAST(SUM(attempts_ok) AS BIGINT),"
                                      " CAST(SUM(maintenance_checks) AS BIGINT)"
                                      " FROM %1 WHERE series = ? AND bucket_ms >= ? AND bucket_ms < ?")
                           .arg(table)))
        return failure(query);
    bindRange(query, 1, series, sinceMs, untilMs);
    if (!query.exec() || !query.next())
        return failure(query);
    Counts counts;
    counts.checks = query.value(0).toLongLong();
    counts.checksSucceeded = query.value(1).toLongLong();
    counts.attempts = query.value(2).toLongLong();
    counts.attemptsSucceeded = query.value(3).toLongLong();
    counts.maintenanceChecks = query.value(4).toLongLong();
    return counts;
}

LatencyPercentiles SeriesReader::percentilesOf(std::vector<qint64> &values, double divisor)
{
    // Nearest rank: the p-th percentile of n values is the ceil(p * n / 100)-th smallest.
    LatencyPercentiles result;
    const auto n = static_cast<qint64>(values.size());
    if (n == 0)
        return result;
    const std::array<std::pair<int, std::optional<double> *>, 3> wanted{
        {{50, &result.p50Ms}, {90, &result.p90Ms}, {99, &result.p99Ms}}};
    for (const auto &[p, slot] : wanted) {
        const auto nth = values.begin() + ((n * p + 99) / 100 - 1);
        std::nth_element(values.begin(), nth, values.end());
        *slot = static_cast<double>(*nth) / divisor;
    }
    return result;
}

Result<SeriesReader::Latencies> SeriesReader::latencies(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    std::vector<qint64> checkValues;
    std::vector<qint64> attemptValues;
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!runRange(query,
            QStringLiteral("SELECT duration_ms, a_total FROM checks WHERE %1 AND %2").arg(seriesRange, counted), series,
            sinceMs, untilMs))
        return failure(query);
    while (query.next()) {
        checkValues.push_back(query.value(0).toLongLong());
        if (const QVariant total = query.value(1); !total.isNull())
            attemptValues.push_back(total.toLongLong());
    }
    if (query.lastError().isValid())
        return failure(query);
    if (!runRange(query, QStringLiteral("SELECT total FROM attempts WHERE %1 AND %2").arg(seriesRange, counted), series,
            sinceMs, untilMs))
        return failure(query);
    while (query.next())
        attemptValues.push_back(query.value(0).toLongLong());
    Latencies result;
    result.checks = percentilesOf(checkValues, 1.0);
    result.attempts = percentilesOf(attemptValues, HistoryEncoding::perMs);
    return result;
}

Result<QList<IncidentCheck>> SeriesReader::incidentChecks(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    // The partial index's condition, word for word: SQLite uses the index only
    // for a query that states it.
    const QString troubled = QStringLiteral("(flags & 2) = 0 AND ((flags & 1) = 0 OR attempts_ok < attempts)");
    const QString index = m_dialect.indexedBy(QStringLiteral("checks_trouble"));
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!query.prepare(
            QStringLiteral("SELECT COUNT(*) FROM checks%1 WHERE %2 AND %3").arg(index, seriesRange, troubled)))
        return failure(query);
    bindRange(query, 1, series, sinceMs, untilMs);
    if (!query.exec() || !query.next())
        return failure(query);
    const bool sparse = query.value(0).toLongLong() <= sparseTroubleLimit;
    query.finish();

    // The failed retries, whole: PostgreSQL streams one query at a time per
    // connection, and they are few next to the checks.
    struct FailedRetry
    {
        qint64 checkStartMs;
        qint64 startOffsetMs;
        QVariant reason;
    };
    QList<FailedRetry> failedRetries;
    if (!runRange(query,
            QStringLiteral("SELECT start_ms, start_off, reason FROM attempts WHERE %1 AND (flags & 3) = 0"
                           " ORDER BY start_ms, idx")
                .arg(seriesRange),
            series, sinceMs, untilMs))
        return failure(query);
    while (query.next())
        failedRetries.append({query.value(0).toLongLong(), query.value(1).toLongLong(), query.value(2)});
    query.finish();

    // Each troubled check with the start of the counted check after it.
    const QString columns = QStringLiteral(
        "start_ms, duration_ms, flags, attempts, attempts_ok, reason, a_success, a_start_off, a_reason");
    QSqlQuery checks(m_db);
    checks.setForwardOnly(m_dialect.streamsRows());
    if (sparse) {
        if (!checks.prepare(QStringLiteral(
                "SELECT %1, (SELECT n.start_ms FROM checks AS n WHERE n.series = c.series"
                " AND n.start_ms > c.start_ms AND n.start_ms < ? AND (n.flags & 2) = 0"
                " ORDER BY n.start_ms LIMIT 1) AS next_start FROM checks AS c%2 WHERE %3 AND %4 ORDER BY c.start_ms")
                                .arg(columns, index, seriesRange, troubled)))
            return failure(checks);
        checks.addBindValue(untilMs);
    } else {
        if (!checks.prepare(
                QStringLiteral("SELECT %1, next_start FROM (SELECT %1, LEAD(start_ms) OVER (ORDER BY start_ms)"
                               " AS next_start FROM checks WHERE %2 AND (flags & 2) = 0) AS w"
                               " WHERE (flags & 1) = 0 OR attempts_ok < attempts ORDER BY start_ms")
                    .arg(columns, seriesRange)))
            return failure(checks);
    }
    bindRange(checks, 1, series, sinceMs, untilMs);
    if (!checks.exec())
        return failure(checks);

    QList<IncidentCheck> result;
    qsizetype retry = 0;
    std::optional<qint64> cleanAfter; // the check after the last troubled one, unless troubled too
    const auto cleanCheckAt = [](qint64 startMs) {
        IncidentCheck clean;
        clean.startMs = startMs;
        clean.endMs = startMs;
        clean.success = true;
        return clean;
    };
    while (checks.next()) {
        IncidentCheck check;
        check.startMs = checks.value(0).toLongLong();
        if (cleanAfter && *cleanAfter != check.startMs)
            result.append(cleanCheckAt(*cleanAfter));
        check.endMs = check.startMs + checks.value(1).toLongLong();
        check.success = (checks.value(2).toInt() & HistoryEncoding::successFlag) != 0;
        check.attempts = checks.value(3).toInt();
        check.failedAttempts = check.attempts - checks.value(4).toInt();
        while (retry < failedRetries.size() && failedRetries.at(retry).checkStartMs < check.startMs)
            ++retry;
        if (!check.success) {
            check.reason = text(checks.value(5));
        } else {
            bool first = true;
            const auto failedAttempt = [&](qint64 startMs, const QVariant &reason) {
                if (first) {
                    check.firstFailedAttemptStartMs = startMs;
                    check.firstFailedReason = text(reason);
                    first = false;
                }
                check.lastFailedReason = text(reason);
            };
            if (!checks.value(6).isNull() && checks.value(6).toInt() == 0)
                failedAttempt(check.startMs + checks.value(7).toLongLong(), checks.value(8));
            for (; retry < failedRetries.size() && failedRetries.at(retry).checkStartMs == check.startMs; ++retry)
                failedAttempt(check.startMs + failedRetries.at(retry).startOffsetMs, failedRetries.at(retry).reason);
            if (first)
                check.firstFailedAttemptStartMs = check.startMs;
        }
        result.append(check);
        cleanAfter = checks.value(9).isNull() ? std::nullopt : std::optional<qint64>(checks.value(9).toLongLong());
    }
    if (checks.lastError().isValid())
        return failure(checks);
    if (cleanAfter)
        result.append(cleanCheckAt(*cleanAfter));
    return result;
}

Result<std::optional<qint64>> SeriesReader::incidentCoverFrom(qint64 series)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!query.prepare(QStringLiteral("SELECT from_ms FROM incident_cover WHERE series = ?")))
        return failure(query);
    query.addBindValue(series);
    if (!query.exec())
        return failure(query);
    if (!query.next())
        return std::optional<qint64>();
    return std::optional<qint64>(query.value(0).toLongLong());
}

namespace {

// The stored incidents of a range: first check inside, closing check before its end.
const QString storedIncidentRange
    = QStringLiteral("series = ? AND first_check_ms >= ? AND first_check_ms < ? AND first_check_ms + closed_off < ?");

} // namespace

Result<QList<SeriesReader::StoredIncident>> SeriesReader::storedIncidents(
    qint64 series, const QString &monitor, const QString &agent, qint64 sinceMs, qint64 untilMs)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!query.prepare(QStringLiteral("SELECT first_check_ms, start_off, end_off, closed_off, hidden, checks, attempts,"
                                      " failed_attempts, first_error, last_error FROM incidents WHERE %1"
                                      " ORDER BY first_check_ms")
                           .arg(storedIncidentRange)))
        return failure(query);
    for (const qint64 value : {series, sinceMs, untilMs, untilMs})
        query.addBindValue(value);
    if (!query.exec())
        return failure(query);
    QList<StoredIncident> result;
    while (query.next()) {
        StoredIncident stored;
        Incident &incident = stored.incident;
        incident.monitor = monitor;
        incident.agent = agent;
        incident.firstCheckMs = query.value(0).toLongLong();
        incident.startMs = incident.firstCheckMs + query.value(1).toLongLong();
        incident.endMs = incident.firstCheckMs + query.value(2).toLongLong();
        incident.durationMs = *incident.endMs - incident.startMs;
        stored.closedMs = incident.firstCheckMs + query.value(3).toLongLong();
        incident.hidden = query.value(4).toInt() != 0;
        incident.checks = query.value(5).toLongLong();
        incident.attempts = query.value(6).toLongLong();
        incident.failedAttempts = query.value(7).toLongLong();
        incident.firstError = text(query.value(8));
        incident.lastError = text(query.value(9));
        result.append(std::move(stored));
    }
    if (query.lastError().isValid())
        return failure(query);
    return result;
}

Result<SeriesReader::StoredTotals> SeriesReader::storedIncidentTotals(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!query.prepare(QStringLiteral("SELECT SUM(1 - hidden), SUM(hidden),"
                                      " SUM(CASE WHEN hidden = 0 THEN end_off - start_off ELSE 0 END),"
                                      " MIN(first_check_ms), MAX(first_check_ms + closed_off) FROM incidents WHERE %1")
                           .arg(storedIncidentRange)))
        return failure(query);
    for (const qint64 value : {series, sinceMs, untilMs, untilMs})
        query.addBindValue(value);
    if (!query.exec() || !query.next())
        return failure(query);
    StoredTotals result;
    if (query.value(3).isNull())
        return result;
    // Every one of them ended inside the window.
    result.totals.seen = query.value(0).toLongLong();
    result.totals.hidden = query.value(1).toLongLong();
    result.totals.seenDownMs = query.value(2).toLongLong();
    result.totals.seenEnded = result.totals.seen;
    result.totals.seenEndedMs = result.totals.seenDownMs;
    result.firstCheckMs = query.value(3).toLongLong();
    result.lastClosedMs = query.value(4).toLongLong();
    return result;
}

Result<QList<CheckPoint>> SeriesReader::checkPoints(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    // The retries' times and outcomes first (one streaming query at a time).
    struct Retry
    {
        qint64 checkStartMs;
        float totalMs;
        bool success;
    };
    std::vector<Retry> retries;
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!runRange(query,
            QStringLiteral("SELECT start_ms, total, flags FROM attempts WHERE %1 ORDER BY start_ms, idx")
                .arg(seriesRange),
            series, sinceMs, untilMs))
        return failure(query);
    while (query.next())
        retries.push_back({query.value(0).toLongLong(), static_cast<float>(HistoryEncoding::fromAmount(query.value(1))),
            (query.value(2).toInt() & HistoryEncoding::successFlag) != 0});
    query.finish();

    if (!runRange(query,
            QStringLiteral("SELECT start_ms, duration_ms, flags, a_success, a_total FROM checks WHERE %1"
                           " ORDER BY start_ms")
                .arg(seriesRange),
            series, sinceMs, untilMs))
        return failure(query);
    QList<CheckPoint> result;
    std::size_t retry = 0;
    while (query.next()) {
        CheckPoint point;
        point.startMs = query.value(0).toLongLong();
        point.durationMs = query.value(1).toFloat();
        const int flags = query.value(2).toInt();
        point.success = (flags & HistoryEncoding::successFlag) != 0;
        point.maintenance = (flags & HistoryEncoding::maintenanceFlag) != 0;
        bool any = false;
        const auto addAttempt = [&](float totalMs, bool success) {
            point.attemptMinMs = any ? std::min(point.attemptMinMs, totalMs) : totalMs;
            point.attemptMaxMs = any ? std::max(point.attemptMaxMs, totalMs) : totalMs;
            any = true;
            ++point.attempts;
            if (!success)
                ++point.failedAttempts;
        };
        if (!query.value(3).isNull())
            addAttempt(static_cast<float>(HistoryEncoding::fromAmount(query.value(4))), query.value(3).toInt() != 0);
        while (retry < retries.size() && retries[retry].checkStartMs < point.startMs)
            ++retry;
        for (; retry < retries.size() && retries[retry].checkStartMs == point.startMs; ++retry)
            addAttempt(retries[retry].totalMs, retries[retry].success);
        result.append(point);
    }
    if (query.lastError().isValid())
        return failure(query);
    return result;
}

Result<QList<StoredCheck>> SeriesReader::checks(
    qint64 series, const QString &monitor, const QString &agent, qint64 sinceMs, qint64 untilMs)
{
    // The retries first, whole (PostgreSQL streams one query at a time per connection).
    QList<QPair<qint64, StoredAttempt>> retries;
    {
        QSqlQuery query(m_db);
        query.setForwardOnly(m_dialect.streamsRows());
        if (!runRange(query,
                QStringLiteral(
                    "SELECT start_ms, idx, flags, start_off, status, cause, reason, decision, delay,"
                    " queued, connect, tls, first_byte, total, bytes, body, dns, send, download FROM attempts WHERE %1"
                    " ORDER BY start_ms, idx")
                    .arg(seriesRange),
                series, sinceMs, untilMs))
            return failure(query);
        while (query.next()) {
            const qint64 checkStart = query.value(0).toLongLong();
            StoredAttempt attempt;
            attempt.index = query.value(1).toInt();
            attempt.success = (query.value(2).toInt() & HistoryEncoding::successFlag) != 0;
            readAttempt(query, 3, checkStart, attempt);
            retries.append({checkStart, attempt});
        }
    }
    QSqlQuery checks(m_db);
    checks.setForwardOnly(m_dialect.streamsRows());
    if (!runRange(checks,
            QStringLiteral("SELECT start_ms, duration_ms, flags, outcome, final_status, reason, a_success,"
                           " a_start_off, a_status, a_cause, a_reason, a_decision, a_delay, a_queued, a_connect,"
                           " a_tls, a_first_byte, a_total, a_bytes, a_body, a_dns, a_send, a_download FROM checks"
                           " WHERE %1 ORDER BY start_ms")
                .arg(seriesRange),
            series, sinceMs, untilMs))
        return failure(checks);
    qsizetype retry = 0;

    QList<StoredCheck> result;
    while (checks.next()) {
        StoredCheck check;
        check.monitor = monitor;
        check.agent = agent;
        check.startMs = checks.value(0).toLongLong();
        check.endMs = check.startMs + checks.value(1).toLongLong();
        const int flags = checks.value(2).toInt();
        check.success = (flags & HistoryEncoding::successFlag) != 0;
        check.maintenance = (flags & HistoryEncoding::maintenanceFlag) != 0;
        check.outcome = text(checks.value(3));
        check.finalStatus = storedInt(checks.value(4));
        check.reason = text(checks.value(5));
        if (!checks.value(6).isNull()) {
            StoredAttempt first;
            first.index = 0;
            first.success = checks.value(6).toInt() != 0;
            readAttempt(checks, 7, check.startMs, first);
            check.attempts.append(first);
        }
        while (retry < retries.size() && retries.at(retry).first < check.startMs)
            ++retry;
        for (; retry < retries.size() && retries.at(retry).first == check.startMs; ++retry)
            check.attempts.append(retries.at(retry).second);
        result.append(check);
    }
    if (checks.lastError().isValid())
        return failure(checks);
    return result;
}

Result<QList<StateEvent>> SeriesReader::events(
    qint64 series, const QString &monitor, const QString &agent, qint64 sinceMs, qint64 untilMs)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(m_dialect.streamsRows());
    if (!runRange(query,
            QStringLiteral("SELECT at_ms, from_state, to_state, reason FROM state_events"
                           " WHERE series = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms, id"),
            series, sinceMs, untilMs))
        return failure(query);
    QList<StateEvent> result;
    const auto state = [](const QVariant &value) {
        const int number = value.toInt();
        return number >= 0 && number <= static_cast<int>(MonitorState::Paused) ? static_cast<MonitorState>(number)
                                                                               : MonitorState::Pending;
    };
    while (query.next()) {
        StateEvent event;
        event.monitor = monitor;
        event.agent = agent;
        event.atMs = query.value(0).toLongLong();
        event.from = state(query.value(1));
        event.to = state(query.value(2));
        event.reason = text(query.value(3));
        result.append(event);
    }
    return result;
}

Result<void> SeriesReader::replayInputs(qint64 series, qint64 sinceMs, qint64 untilMs, qint64 poolSinceMs,
    qint64 poolUntilMs, QList<qint64> *checkStartsMs, QList<ReplayAttempt> *attempts)
{
    QSqlQuery checks(m_db);
    checks.setForwardOnly(m_dialect.streamsRows());
    if (!runRange(checks,
            QStringLiteral("SELECT start_ms, start_ms + a_start_off, a_success, a_status, a_cause, a_reason,"
                           " a_total FROM checks WHERE %1 AND %2")
                .arg(seriesRange, counted),
            series, poolSinceMs, poolUntilMs))
        return failure(checks);
    while (checks.next()) {
        const qint64 start = checks.value(0).toLongLong();
        if (start >= sinceMs && start < untilMs)
            checkStartsMs->append(start);
        if (checks.value(2).isNull())
            continue;
        ReplayAttempt attempt;
        attempt.startMs = checks.value(1).toLongLong();
        attempt.success = checks.value(2).toInt() != 0;
        attempt.status = storedInt(checks.value(3));
        attempt.cause = text(checks.value(4));
        attempt.reason = text(checks.value(5));
        attempt.totalMs = HistoryEncoding::fromAmount(checks.value(6));
        attempts->append(attempt);
    }
    if (checks.lastError().isValid())
        return failure(checks);
    QSqlQuery retries(m_db);
    retries.setForwardOnly(m_dialect.streamsRows());
    if (!runRange(retries,
            QStringLiteral("SELECT start_ms + start_off, flags, status, cause, reason, total FROM attempts"
                           " WHERE %1 AND %2")
                .arg(seriesRange, counted),
            series, poolSinceMs, poolUntilMs))
        return failure(retries);
    while (retries.next()) {
        ReplayAttempt attempt;
        attempt.startMs = retries.value(0).toLongLong();
        attempt.success = (retries.value(1).toInt() & HistoryEncoding::successFlag) != 0;
        attempt.status = storedInt(retries.value(2));
        attempt.cause = text(retries.value(3));
        attempt.reason = text(retries.value(4));
        attempt.totalMs = HistoryEncoding::fromAmount(retries.value(5));
        attempts->append(attempt);
    }
    if (retries.lastError().isValid())
        return failure(retries);
    return {};
}

} // namespace RetryLab::Core
