#include "core/history/checkwriter.h"

#include "core/history/historyencoding.h"
#include "core/history/historyschema.h"

#include <QSqlError>

namespace RetryLab::Core {

namespace {

// Beyond this many checks of one series in one millisecond something is wrong
// with the clock, not with the monitor.
constexpr int maxStartShiftMs = 1000;

QVariant nullableInt(const std::optional<int> &value)
{
    return value ? QVariant(*value) : QVariant();
}

QVariant failureBody(const StoredAttempt &attempt)
{
    if (attempt.success || attempt.failureBody.isEmpty())
        return QVariant();
    return attempt.failureBody.left(HistoryLimits::failureBodyBytes);
}

} // namespace

CheckWriter::CheckWriter(const QSqlDatabase &db, const SqlDialect &dialect, HistoryInterner &interner)
    : m_db(db), m_dialect(dialect), m_interner(interner), m_checkInsert(db), m_attemptInsert(db), m_eventInsert(db),
      m_existing(db)
{ }

bool CheckWriter::prepare()
{
    const bool prepared
        = m_checkInsert.prepare(
              QStringLiteral("INSERT INTO checks (series, start_ms, duration_ms, flags, attempts, attempts_ok,"
                             " outcome, final_status, reason, a_success, a_start_off, a_status, a_cause, a_reason,"
                             " a_decision, a_delay, a_queued, a_connect, a_tls, a_first_byte, a_total, a_bytes, a_body,"
                             " a_dns, a_send, a_download)"
                             " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                             " ON CONFLICT (series, start_ms) DO NOTHING"))
        && m_attemptInsert.prepare(QStringLiteral(
            "INSERT INTO attempts (series, start_ms, idx, flags, start_off, status, cause, reason,"
            " decision, delay, queued, connect, tls, first_byte, total, bytes, body, dns, send, download)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
        && m_eventInsert.prepare(QStringLiteral(
            "INSERT INTO state_events (series, at_ms, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?)"))
        && m_existing.prepare(QStringLiteral(
            "SELECT duration_ms, flags, attempts, attempts_ok FROM checks WHERE series = ? AND start_ms = ?"));
    if (!prepared) {
        for (const QSqlQuery *query : {&m_checkInsert, &m_attemptInsert, &m_eventInsert, &m_existing}) {
            if (query->lastError().isValid())
                return failed(*query);
        }
    }
    return prepared;
}

bool CheckWriter::failed(const QSqlQuery &query)
{
    m_lastError = query.lastError().databaseText().simplified();
    if (m_lastError.isEmpty())
        m_lastError = query.lastError().text().simplified();
    return false;
}

QVariant CheckWriter::text(const QString &value)
{
    if (value.isEmpty())
        return QVariant();
    const auto id = m_interner.id(HistoryInterner::Table::Texts, value);
    if (!id) {
        m_textFailed = true;
        return QVariant();
    }
    return *id;
}

bool CheckWriter::write(const StoredCheck &check)
{
    m_textFailed = false;
    m_lastError.clear();
    const auto series = m_interner.series(check.monitor, check.agent);
    if (!series) {
        m_lastError = m_interner.lastError();
        return false;
    }
    qint64 startMs = check.startMs;
    for (int shift = 0;; ++shift, ++startMs) {
        const Insert inserted = insertCheck(check, *series, startMs);
        if (inserted == Insert::Failed)
            return false;
        if (inserted == Insert::Written)
            break;
        if (sameCheckStored(check, *series, startMs)) {
            m_written = {*series, startMs};
            return true;
        }
        if (!m_lastError.isEmpty())
            return false;
        if (shift == maxStartShiftMs) {
            m_lastError
                = QStringLiteral("more than %1 checks of one monitor start in one millisecond").arg(maxStartShiftMs);
            return false;
        }
    }
    count(check, *series, startMs);
    m_written = {*series, startMs};
    const int maintenance = check.maintenance ? HistoryEncoding::maintenanceFlag : 0;
    for (qsizetype i = 1; i < check.attempts.size(); ++i) {
        const StoredAttempt &attempt = check.attempts.at(i);
        QSqlQuery &q = m_attemptInsert;
        q.bindValue(0, *series);
        q.bindValue(1, startMs);
        q.bindValue(2, static_cast<int>(i));
        q.bindValue(3, HistoryEncoding::flags(attempt.success, false) | maintenance);
        bindAttempt(q, 4, attempt, startMs);
        if (m_textFailed) {
            m_lastError = m_interner.lastError();
            return false;
        }
        if (!q.exec())
            return failed(q);
    }
    return true;
}

void CheckWriter::bindAttempt(QSqlQuery &q, int column, const StoredAttempt &attempt, qint64 checkStartMs)
{
    // The same sixteen columns in `attempts` (a retry) and in `checks` (its first attempt, a_...).
    q.bindValue(column++, attempt.startMs - checkStartMs);
    q.bindValue(column++, nullableInt(attempt.status));
    q.bindValue(column++, text(attempt.cause));
    q.bindValue(column++, text(attempt.reason));
    q.bindValue(column++, text(attempt.decision));
    q.bindValue(column++, HistoryEncoding::amount(attempt.delayBeforeMs));
    q.bindValue(column++, HistoryEncoding::amount(attempt.queuedMs));
    q.bindValue(column++, HistoryEncoding::phase(attempt.connectMs));
    q.bindValue(column++, HistoryEncoding::phase(attempt.tlsMs));
    q.bindValue(column++, HistoryEncoding::phase(attempt.firstByteMs));
    q.bindValue(column++, HistoryEncoding::amount(attempt.totalMs));
    q.bindValue(column++, attempt.bytes);
    q.bindValue(column++, failureBody(attempt));
    // Schema version 3's phases, after version 1's columns.
    q.bindValue(column++, HistoryEncoding::phase(attempt.dnsMs));
    q.bindValue(column++, HistoryEncoding::phase(attempt.sendMs));
    q.bindValue(column, HistoryEncoding::phase(attempt.downloadMs));
}

CheckWriter::Insert CheckWriter::insertCheck(const StoredCheck &check, qint64 series, qint64 startMs)
{
    int succeeded = 0;
    for (const StoredAttempt &attempt : check.attempts)
        succeeded += attempt.success ? 1 : 0;
    QSqlQuery &q = m_checkInsert;
    q.bindValue(0, series);
    q.bindValue(1, startMs);
    q.bindValue(2, check.endMs - check.startMs);
    q.bindValue(3, HistoryEncoding::flags(check.success, check.maintenance));
    q.bindValue(4, static_cast<int>(check.attempts.size()));
    q.bindValue(5, succeeded);
    q.bindValue(6, text(check.outcome));
    q.bindValue(7, nullableInt(check.finalStatus));
    q.bindValue(8, text(check.reason));
    if (check.attempts.isEmpty()) {
        for (int column = 9; column <= 25; ++column)
            q.bindValue(column, QVariant());
    } else {
        const StoredAttempt &first = check.attempts.constFirst();
        q.bindValue(9, first.success ? 1 : 0);
        bindAttempt(q, 10, first, startMs);
    }
    if (m_textFailed) {
        m_lastError = m_interner.lastError();
        return Insert::Failed;
    }
    if (!q.exec()) {
        failed(q);
        return Insert::Failed;
    }
    return q.numRowsAffected() > 0 ? Insert::Written : Insert::Taken;
}

bool CheckWriter::sameCheckStored(const StoredCheck &check, qint64 series, qint64 startMs)
{
    int succeeded = 0;
    for (const StoredAttempt &attempt : check.attempts)
        succeeded += attempt.success ? 1 : 0;
    QSqlQuery &q = m_existing;
    q.bindValue(0, series);
    q.bindValue(1, startMs);
    if (!q.exec())
        return failed(q);
    m_lastError.clear();
    const bool same = q.next() && q.value(0).toLongLong() == check.endMs - check.startMs
        && q.value(1).toInt() == HistoryEncoding::flags(check.success, check.maintenance)
        && q.value(2).toInt() == check.attempts.size() && q.value(3).toInt() == succeeded;
    q.finish();
    return same;
}

void CheckWriter::count(const StoredCheck &check, qint64 series, qint64 startMs)
{
    Totals &totals = m_hours[qMakePair(series, HistoryEncoding::floorTo(startMs, HistoryEncoding::hourMs))];
    if (check.maintenance) {
        totals.maintenanceChecks += 1;
        totals.maintenanceAttempts += check.attempts.size();
        return;
    }
    totals.checks += 1;
    totals.checksSucceeded += check.success ? 1 : 0;
    totals.attempts += check.attempts.size();
    const qint64 durationMs = check.endMs - check.startMs;
    totals.durationSumMs += durationMs;
    totals.durationMaxMs = std::max(totals.durationMaxMs, durationMs);
    for (const StoredAttempt &attempt : check.attempts) {
        totals.attemptsSucceeded += attempt.success ? 1 : 0;
        const qint64 total = HistoryEncoding::amount(attempt.totalMs).toLongLong();
        totals.attemptSum += total;
        totals.attemptMax = std::max(totals.attemptMax, total);
    }
}

bool CheckWriter::finish()
{
    if (m_hours.isEmpty())
        return true;
    QSqlQuery q(m_db);
    if (!q.prepare(QStringLiteral("INSERT INTO agg_hour (series, bucket_ms, %1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                                  " ?, ?)%2")
                       .arg(QLatin1String(HistorySchema::aggregateColumns),
                           HistorySchema::aggregateMerge(QStringLiteral("agg_hour"), m_dialect))))
        return failed(q);
    for (auto it = m_hours.cbegin(); it != m_hours.cend(); ++it) {
        const Totals &t = it.value();
        const QList<qint64> values{it.key().first, it.key().second, t.checks, t.checksSucceeded, t.attempts,
            t.attemptsSucceeded, t.maintenanceChecks, t.maintenanceAttempts, t.durationSumMs, t.durationMaxMs,
            t.attemptSum, t.attemptMax};
        for (int i = 0; i < values.size(); ++i)
            q.bindValue(i, values.at(i));
        if (!q.exec())
            return failed(q);
    }
    m_hours.clear();
    return true;
}

bool CheckWriter::write(const StateEvent &event)
{
    m_textFailed = false;
    const auto series = m_interner.series(event.monitor, event.agent);
    if (!series) {
        m_lastError = m_interner.lastError();
        return false;
    }
    QSqlQuery &q = m_eventInsert;
    q.bindValue(0, *series);
    q.bindValue(1, event.atMs);
    q.bindValue(2, static_cast<int>(event.from));
    q.bindValue(3, static_cast<int>(event.to));
    q.bindValue(4, text(event.reason));
    if (m_textFailed) {
        m_lastError = m_interner.lastError();
        return false;
    }
    if (!q.exec())
        return failed(q);
    return true;
}

} // namespace RetryLab::Core
