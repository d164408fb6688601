#pragma once

#include "core/history/historyinterner.h"
#include "core/history/sqldialect.h"
#include "core/history/storedcheck.h"

#include <QHash>
#include <QPair>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

namespace RetryLab::Core {

/// Writes checks, their attempts and state events inside the store's
/// transaction, with statements prepared once per transaction. Two checks of one
/// series cannot share a start: the later is stored a millisecond later (the key
/// is the series and the start). A check already stored with the same key,
/// duration, flags and attempts is one a flush wrote before its commit's answer
/// was lost (PostgreSQL gone at that moment): it is not written twice. The
/// per-hour aggregates of the checks written are added up in memory and merged
/// into `agg_hour` by finish(), one row per series and hour.
class CheckWriter final
{
public:
    CheckWriter(const QSqlDatabase &db, const SqlDialect &dialect, HistoryInterner &interner);

    bool prepare();
    bool write(const StoredCheck &check);
    /// Where the last check write() took is stored: its series and start (a
    /// millisecond later than asked when the start was taken).
    struct Written
    {
        qint64 series = 0;
        qint64 startMs = 0;
    };
    Written lastWritten() const { return m_written; }
    bool write(const StateEvent &event);
    /// Writes the per-hour aggregates; call it last, before the commit.
    bool finish();
    QString lastError() const { return m_lastError; }

private:
    struct Totals
    {
        qint64 checks = 0;
        qint64 checksSucceeded = 0;
        qint64 attempts = 0;
        qint64 attemptsSucceeded = 0;
        qint64 maintenanceChecks = 0;
        qint64 maintenanceAttempts = 0;
        qint64 durationSumMs = 0;
        qint64 durationMaxMs = 0;
        qint64 attemptSum = 0;
        qint64 attemptMax = 0;
    };
    void count(const StoredCheck &check, qint64 series, qint64 startMs);

    enum class Insert { Written, Taken, Failed };
    Insert insertCheck(const StoredCheck &check, qint64 series, qint64 startMs);
    bool sameCheckStored(const StoredCheck &check, qint64 series, qint64 startMs);
    bool failed(const QSqlQuery &query);
    QVariant text(const QString &value);
    /// Binds an attempt's thirteen columns from `column` on (start offset to body).
    void bindAttempt(QSqlQuery &q, int column, const StoredAttempt &attempt, qint64 checkStartMs);

    QSqlDatabase m_db;
    SqlDialect m_dialect;
    Written m_written;
    HistoryInterner &m_interner;
    QHash<QPair<qint64, qint64>, Totals> m_hours;
    QSqlQuery m_checkInsert;
    QSqlQuery m_attemptInsert;
    QSqlQuery m_eventInsert;
    QSqlQuery m_existing;
    QString m_lastError;
    bool m_textFailed = false;
};

} // namespace RetryLab::Core
