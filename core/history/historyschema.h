#pragma once

#include "core/history/sqldialect.h"
#include "core/util/result.h"

#include <QSqlDatabase>
#include <QString>

namespace RetryLab::Core {

/// The history's tables, their version, and the forward migrations between
/// versions. `retrylab_meta` names the format and its schema version; a store
/// opening an older file runs each migration from that version up, in one
/// transaction; a newer file is refused, never rewritten. Creating a database is
/// the migration from version 0 (nothing but the meta table) to 1.
///
/// Version 1, and why it is shaped so (SQLite; PostgreSQL has the same tables):
/// - `monitors`, `agents` and `texts` intern names, causes, reasons, outcomes and
///   decisions: a row stores a small integer where the text repeats.
/// - `series` is one monitor as one agent sees it; every figure is per series,
///   and its id leads every key, so one series' time range is one B-tree range.
/// - `checks`: key (series, start_ms), WITHOUT ROWID (the table is its own index
///   on monitor and start). A check's first attempt lives in the check's row (the
///   `a_` columns): most checks have one attempt, and a row of its own would cost
///   about 45 bytes more. Its retries (attempts 2, 3, ...) are rows of `attempts`,
///   key (series, start_ms, idx). `attempts` and `attempts_ok` count them all, so
///   the availability of attempts is a SUM.
/// - Times are integer milliseconds since the epoch; an attempt's phases are
///   integer hundredths of a millisecond (10 µs), -1 stored as NULL; a start
///   within a check is an offset from the check's start. Small integers take one
///   or two bytes, 0 and 1 none.
/// - `checks_trouble`: a partial index of the failed and retried checks (maintenance
///   left out), which is all that incidents read of a healthy monitor.
/// - `agg_hour`: per-hour counts and durations, kept up by every flush, so that a
///   month's availability is 720 rows. `agg_minute`: per-minute counts, made by
///   retention from the raw checks it deletes, for the edges of a window.
/// - `state_events`: the monitors' state changes.
///
/// Version 2 adds the incidents as the writer found them when they ended
/// (IncidentRecorder): `incidents`, key (series, first_check_ms), with the
/// incident's start, end and the start of the check that ended it as offsets
/// from its first check; and `incident_cover`, per series the time from which
/// every incident is there. A month of a flaky monitor holds tens of thousands
/// of incidents among 259,200 checks: reading them beats finding them again.
///
/// Version 3 adds the phases of an attempt version 1 did not keep, as the
/// reports split them (AttemptPhases): the name lookup, sending the request
/// and the download (`a_dns`, `a_send`, `a_download` in `checks`; `dns`,
/// `send`, `download` in `attempts`), after the columns of version 1.
namespace HistorySchema {

inline constexpr int currentVersion = 3;
inline constexpr char formatName[] = "retrylab-history";

/// Creates or migrates the schema for a writer; `where` names the database in
/// messages. Two agents doing it at once on one PostgreSQL database take turns.
Result<void> prepareForWriting(const QSqlDatabase &db, const SqlDialect &dialect, const QString &where);
/// Checks that a reader understands the schema: the format, and a version it knows.
Result<void> checkForReading(const QSqlDatabase &db, const SqlDialect &dialect, const QString &where);

/// The columns of `agg_minute` and `agg_hour` after (series, bucket_ms), in order.
inline constexpr char aggregateColumns[] = "checks, checks_ok, attempts, attempts_ok, maintenance_checks,"
                                           " maintenance_attempts, duration_sum_ms, duration_max_ms, attempt_sum,"
                                           " attempt_max";
/// The end of an upsert into an aggregate table: a bucket already there adds
/// the new counts and sums and keeps the larger maxima.
QString aggregateMerge(const QString &table, const SqlDialect &dialect);

/// A `retrylab_meta` value; empty when absent.
QString metaValue(const QSqlDatabase &db, const QString &name);
/// Inserts or replaces a `retrylab_meta` value (inside the caller's transaction).
Result<void> setMetaValue(const QSqlDatabase &db, const QString &name, const QString &value);

} // namespace HistorySchema

} // namespace RetryLab::Core
