#pragma once

#include "core/history/sqldialect.h"
#include "core/util/result.h"

#include <QSqlDatabase>

namespace RetryLab::Core {

/// Rolls raw checks and attempts older than the raw retention into per-minute
/// aggregates and deletes them (the per-hour aggregates already count them: the
/// writer keeps those up); deletes aggregates and state events older than the
/// aggregate retention. The boundary is a whole hour, so
/// that a minute or an hour is never half raw, half rolled; `retrylab_meta`
/// keeps it as `rolled_until_ms`, where readers switch from aggregates to raw
/// rows. A check stored later with an older start (a backlog written after an
/// outage) is rolled up by the next run. One transaction; agents of one
/// PostgreSQL database take turns.
class HistoryRetention final
{
public:
    HistoryRetention(const QSqlDatabase &db, const SqlDialect &dialect) : m_db(db), m_dialect(dialect) { }

    static constexpr qint64 dayMs = 24LL * 3600 * 1000;

    Result<void> apply(qint64 nowMs, int rawRetentionDays, int aggregateRetentionDays);

    /// The raw boundary for `nowMs`: the whole hour at or before nowMs - days.
    static qint64 rawCutoff(qint64 nowMs, int rawRetentionDays);

private:
    QStringList rollupStatements() const;

    QSqlDatabase m_db;
    SqlDialect m_dialect;
};

} // namespace RetryLab::Core
