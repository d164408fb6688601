#include "core/history/seriesreader.h"

#include "core/history/historyencoding.h"
#include "core/history/historyretention.h"
#include "core/util/coretr.h"

#include <QSqlError>
#include <QSqlQuery>

#include <array>

namespace RetryLab::Core {

namespace {

// Every query of a series reads one key range: (series, start) leads both keys.
const QString seriesRange = QStringLiteral("series = ? AND start_ms >= ? AND start_ms < ?");
const QString counted = QStringLiteral("(flags & 2) = 0");

qint64 ceilTo(qint64 value, qint64 step)
{
    const qint64 floored = value - ((value % step) + step) % step;
    return floored == value ? value : floored + step;
}

qint64 floorTo(qint64 value, qint64 step)
{
    return value - ((value % step) + step) % step;
}

void bindRange(QSqlQuery &query, int times, qint64 series, qint64 sinceMs, qint64 untilMs)
{
    for (int i = 0; i < times; ++i) {
        query.addBindValue(series);
        query.addBindValue(sinceMs);
        query.addBindValue(untilMs);
    }
}

std::optional<int> optionalInt(const QVariant &value)
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
    if (other.firstStartMs)
        firstStartMs = std::min(other.firstStartMs.value(), firstStartMs.value_or(*other.firstStartMs));
    if (other.lastEndMs)
        lastEndMs = std::max(other.lastEndMs.value(), lastEndMs.value_or(*other.lastEndMs));
    return *this;
}

Error SeriesReader::failure(const QSqlQuery &query) const
{
    QString why = query.lastError().databaseText().simplified();
    if (why.isEmpty())
        why = query.lastError().text().simplified();
    return Error{QString(), Tr::tr("the history cannot be read: %1").arg(why)};
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
    query.setForwardOnly(true);
    if (query.exec(QStringLiteral("SELECT id, text FROM texts"))) {
        while (query.next())
            m_texts.insert(query.value(0).toLongLong(), query.value(1).toString());
    }
    return m_texts.value(key);
}

Result<SeriesReader::Counts> SeriesReader::rawCounts(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT COUNT(*), SUM(CASE WHEN %1 THEN 1 ELSE 0 END),"
                                 " SUM(CASE WHEN (flags & 3) = 1 THEN 1 ELSE 0 END),"
                                 " SUM(CASE WHEN %1 THEN attempts ELSE 0 END),"
                                 " SUM(CASE WHEN %1 THEN attempts_ok ELSE 0 END),"
                                 " MIN(start_ms), MAX(start_ms + duration_ms)"
                                 " FROM checks WHERE %2")
                      .arg(counted, seriesRange));
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
    if (!query.value(5).isNull()) {
        counts.firstStartMs = query.value(5).toLongLong();
        counts.lastEndMs = query.value(6).toLongLong();
    }
    return counts;
}

Result<SeriesReader::Counts> SeriesReader::aggregateCounts(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    struct Part
    {
        QString table;
        qint64 since;
        qint64 until;
    };
    QList<Part> parts;
    const qint64 firstHour = ceilTo(sinceMs, HistoryRetention::hourMs);
    const qint64 lastHour = floorTo(untilMs, HistoryRetention::hourMs);
    if (firstHour < lastHour) {
        parts = {{QStringLiteral("agg_minute"), sinceMs, firstHour}, {QStringLiteral("agg_hour"), firstHour, lastHour},
            {QStringLiteral("agg_minute"), lastHour, untilMs}};
    } else {
        parts = {{QStringLiteral("agg_minute"), sinceMs, untilMs}};
    }
    Counts counts;
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    for (const Part &part : std::as_const(parts)) {
        if (part.since >= part.until)
            continue;
        query.prepare(QStringLiteral("SELECT CAST(SUM(checks) AS BIGINT), CAST(SUM(checks_ok) AS BIGINT),"
                                     " CAST(SUM(attempts) AS BIGINT), CAST(SUM(attempts_ok) AS BIGINT),"
                                     " CAST(SUM(maintenance_checks) AS BIGINT)"
                                     " FROM %1 WHERE series = ? AND bucket_ms >= ? AND bucket_ms < ?")
                          .arg(part.table));
        bindRange(query, 1, series, part.since, part.until);
        if (!query.exec() || !query.next())
            return failure(query);
        counts.checks += query.value(0).toLongLong();
        counts.checksSucceeded += query.value(1).toLongLong();
        counts.attempts += query.value(2).toLongLong();
        counts.attemptsSucceeded += query.value(3).toLongLong();
        counts.maintenanceChecks += query.value(4).toLongLong();
        query.finish();
    }
    return counts;
}

Result<LatencyPercentiles> SeriesReader::percentiles(
    const QString &valuesSql, int placeholders, qint64 series, qint64 sinceMs, qint64 untilMs, double divisor)
{
    // Nearest rank: the p-th percentile of n values is the ceil(p * n / 100)-th
    // smallest. The database ranks; three rows come back.
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT n, rn, v FROM (SELECT v, ROW_NUMBER() OVER (ORDER BY v) AS rn,"
                                 " COUNT(*) OVER () AS n FROM (%1) AS u) AS r"
                                 " WHERE rn = (n * 50 + 99) / 100 OR rn = (n * 90 + 99) / 100"
                                 " OR rn = (n * 99 + 99) / 100")
                      .arg(valuesSql));
    bindRange(query, placeholders, series, sinceMs, untilMs);
    if (!query.exec())
        return failure(query);
    LatencyPercentiles result;
    while (query.next()) {
        const qint64 n = query.value(0).toLongLong();
        const qint64 rank = query.value(1).toLongLong();
        const double value = static_cast<double>(query.value(2).toLongLong()) / divisor;
        const std::array<std::pair<int, std::optional<double> *>, 3> wanted{
            {{50, &result.p50Ms}, {90, &result.p90Ms}, {99, &result.p99Ms}}};
        for (const auto &[p, slot] : wanted) {
            if (rank == (n * p + 99) / 100)
                *slot = value;
        }
    }
    return result;
}

Result<LatencyPercentiles> SeriesReader::checkLatency(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    return percentiles(QStringLiteral("SELECT duration_ms AS v FROM checks WHERE %1 AND %2").arg(seriesRange, counted),
        1, series, sinceMs, untilMs, 1.0);
}

Result<LatencyPercentiles> SeriesReader::attemptLatency(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    return percentiles(QStringLiteral("SELECT a_total AS v FROM checks WHERE %1 AND %2 AND a_total IS NOT NULL"
                                      " UNION ALL SELECT total AS v FROM attempts WHERE %1 AND %2")
                           .arg(seriesRange, counted),
        2, series, sinceMs, untilMs, HistoryEncoding::perMs);
}

Result<QList<IncidentCheck>> SeriesReader::incidentChecks(qint64 series, qint64 sinceMs, qint64 untilMs)
{
    // 1: failed, 2: succeeded after a failed attempt, 0: clean. A clean check is
    // read only when it ends a run (the check before it was not clean).
    const QString kind
        = QStringLiteral("CASE WHEN (flags & 1) = 0 THEN 1 WHEN attempts_ok < attempts THEN 2 ELSE 0 END");
    // The failed retries first, whole: PostgreSQL streams one query at a time per
    // connection, and they are few next to the checks.
    struct FailedRetry
    {
        qint64 checkStartMs;
        qint64 startOffsetMs;
        QVariant reason;
    };
    QList<FailedRetry> failedRetries;
    {
        QSqlQuery retries(m_db);
        retries.setForwardOnly(true);
        retries.prepare(QStringLiteral("SELECT start_ms, start_off, reason FROM attempts WHERE %1 AND (flags & 3) = 0"
                                       " ORDER BY start_ms, idx")
                            .arg(seriesRange));
        bindRange(retries, 1, series, sinceMs, untilMs);
        if (!retries.exec())
            return failure(retries);
        while (retries.next())
            failedRetries.append({retries.value(0).toLongLong(), retries.value(1).toLongLong(), retries.value(2)});
    }
    QSqlQuery checks(m_db);
    checks.setForwardOnly(true);
    checks.prepare(QStringLiteral("SELECT start_ms, duration_ms, kind, attempts, attempts_ok, reason, a_success,"
                                  " a_start_off, a_reason FROM (SELECT start_ms, duration_ms, attempts, attempts_ok,"
                                  " reason, a_success, a_start_off, a_reason, %1 AS kind,"
                                  " LAG(%1) OVER (ORDER BY start_ms) AS previous_kind"
                                  " FROM checks WHERE %2 AND %3) AS w"
                                  " WHERE kind <> 0 OR previous_kind <> 0 ORDER BY start_ms")
                       .arg(kind, seriesRange, counted));
    bindRange(checks, 1, series, sinceMs, untilMs);
    if (!checks.exec())
        return failure(checks);
    qsizetype retry = 0;

    QList<IncidentCheck> result;
    while (checks.next()) {
        IncidentCheck check;
        check.startMs = checks.value(0).toLongLong();
        check.endMs = check.startMs + checks.value(1).toLongLong();
        const int checkKind = checks.value(2).toInt();
        check.success = checkKind != 1;
        check.attempts = checks.value(3).toInt();
        check.failedAttempts = check.attempts - checks.value(4).toInt();
        if (checkKind == 1)
            check.reason = text(checks.value(5));
        // The failed retries of this check (and skip those of checks not read).
        while (retry < failedRetries.size() && failedRetries.at(retry).checkStartMs < check.startMs)
            ++retry;
        if (checkKind == 2) {
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
    }
    if (checks.lastError().isValid())
        return failure(checks);
    return result;
}

Result<QList<StoredCheck>> SeriesReader::checks(
    qint64 series, const QString &monitor, const QString &agent, qint64 sinceMs, qint64 untilMs)
{
    // The retries first, whole (PostgreSQL streams one query at a time per connection).
    QList<QPair<qint64, StoredAttempt>> retries;
    {
        QSqlQuery query(m_db);
        query.setForwardOnly(true);
        query.prepare(QStringLiteral("SELECT start_ms, idx, flags, start_off, status, cause, reason, decision, delay,"
                                     " queued, connect, tls, first_byte, total, bytes, body FROM attempts WHERE %1"
                                     " ORDER BY start_ms, idx")
                          .arg(seriesRange));
        bindRange(query, 1, series, sinceMs, untilMs);
        if (!query.exec())
            return failure(query);
        while (query.next()) {
            const qint64 checkStart = query.value(0).toLongLong();
            StoredAttempt attempt;
            attempt.index = query.value(1).toInt();
            attempt.success = (query.value(2).toInt() & HistoryEncoding::successFlag) != 0;
            attempt.startMs = checkStart + query.value(3).toLongLong();
            attempt.status = optionalInt(query.value(4));
            attempt.cause = text(query.value(5));
            attempt.reason = text(query.value(6));
            attempt.decision = text(query.value(7));
            attempt.delayBeforeMs = HistoryEncoding::fromAmount(query.value(8));
            attempt.queuedMs = HistoryEncoding::fromAmount(query.value(9));
            attempt.connectMs = HistoryEncoding::fromPhase(query.value(10));
            attempt.tlsMs = HistoryEncoding::fromPhase(query.value(11));
            attempt.firstByteMs = HistoryEncoding::fromPhase(query.value(12));
            attempt.totalMs = HistoryEncoding::fromAmount(query.value(13));
            attempt.bytes = query.value(14).toLongLong();
            attempt.failureBody = query.value(15).toByteArray();
            retries.append({checkStart, attempt});
        }
    }
    QSqlQuery checks(m_db);
    checks.setForwardOnly(true);
    checks.prepare(
        QStringLiteral("SELECT start_ms, duration_ms, flags, outcome, final_status, reason, a_success,"
                       " a_start_off, a_status, a_cause, a_reason, a_decision, a_delay, a_queued, a_connect,"
                       " a_tls, a_first_byte, a_total, a_bytes, a_body FROM checks WHERE %1 ORDER BY start_ms")
            .arg(seriesRange));
    bindRange(checks, 1, series, sinceMs, untilMs);
    if (!checks.exec())
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
        check.finalStatus = optionalInt(checks.value(4));
        check.reason = text(checks.value(5));
        if (!checks.value(6).isNull()) {
            StoredAttempt first;
            first.index = 0;
            first.success = checks.value(6).toInt() != 0;
            first.startMs = check.startMs + checks.value(7).toLongLong();
            first.status = optionalInt(checks.value(8));
            first.cause = text(checks.value(9));
            first.reason = text(checks.value(10));
            first.decision = text(checks.value(11));
            first.delayBeforeMs = HistoryEncoding::fromAmount(checks.value(12));
            first.queuedMs = HistoryEncoding::fromAmount(checks.value(13));
            first.connectMs = HistoryEncoding::fromPhase(checks.value(14));
            first.tlsMs = HistoryEncoding::fromPhase(checks.value(15));
            first.firstByteMs = HistoryEncoding::fromPhase(checks.value(16));
            first.totalMs = HistoryEncoding::fromAmount(checks.value(17));
            first.bytes = checks.value(18).toLongLong();
            first.failureBody = checks.value(19).toByteArray();
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
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT at_ms, from_state, to_state, reason FROM state_events"
                                 " WHERE series = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms, id"));
    bindRange(query, 1, series, sinceMs, untilMs);
    if (!query.exec())
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
    checks.setForwardOnly(true);
    checks.prepare(QStringLiteral("SELECT start_ms, start_ms + a_start_off, a_success, a_status, a_cause, a_reason,"
                                  " a_total FROM checks WHERE %1 AND %2")
                       .arg(seriesRange, counted));
    bindRange(checks, 1, series, poolSinceMs, poolUntilMs);
    if (!checks.exec())
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
        attempt.status = optionalInt(checks.value(3));
        attempt.cause = text(checks.value(4));
        attempt.reason = text(checks.value(5));
        attempt.totalMs = HistoryEncoding::fromAmount(checks.value(6));
        attempts->append(attempt);
    }
    if (checks.lastError().isValid())
        return failure(checks);
    QSqlQuery retries(m_db);
    retries.setForwardOnly(true);
    retries.prepare(QStringLiteral("SELECT start_ms + start_off, flags, status, cause, reason, total FROM attempts"
                                   " WHERE %1 AND %2")
                        .arg(seriesRange, counted));
    bindRange(retries, 1, series, poolSinceMs, poolUntilMs);
    if (!retries.exec())
        return failure(retries);
    while (retries.next()) {
        ReplayAttempt attempt;
        attempt.startMs = retries.value(0).toLongLong();
        attempt.success = (retries.value(1).toInt() & HistoryEncoding::successFlag) != 0;
        attempt.status = optionalInt(retries.value(2));
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
