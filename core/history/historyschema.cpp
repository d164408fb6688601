#include "core/history/historyschema.h"

#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

#include <array>

namespace {
Q_LOGGING_CATEGORY(lcHistorySchema, "retrylab.core.history.schema")
} // namespace

namespace RetryLab::Core::HistorySchema {

namespace {

const QString formatKey = QStringLiteral("format");
const QString versionKey = QStringLiteral("schema_version");

// Version 0 -> 1: every table of the first version. The reasons for the shape are
// in historyschema.h.
QStringList createVersion1()
{
    return {
        QStringLiteral("CREATE TABLE monitors (id %ID%, name TEXT NOT NULL UNIQUE)"),
        QStringLiteral("CREATE TABLE agents (id %ID%, name TEXT NOT NULL UNIQUE)"),
        QStringLiteral("CREATE TABLE texts (id %ID%, text TEXT NOT NULL UNIQUE)"),
        QStringLiteral("CREATE TABLE series (id %ID%, monitor INTEGER NOT NULL, agent INTEGER NOT NULL,"
                       " UNIQUE (monitor, agent))"),
        QStringLiteral("CREATE TABLE checks (series INTEGER NOT NULL, start_ms %BIG% NOT NULL,"
                       " duration_ms %BIG% NOT NULL, flags INTEGER NOT NULL,"
                       " attempts INTEGER NOT NULL, attempts_ok INTEGER NOT NULL,"
                       " outcome INTEGER, final_status INTEGER, reason INTEGER,"
                       " a_success INTEGER, a_start_off %BIG%, a_status INTEGER, a_cause INTEGER, a_reason INTEGER,"
                       " a_decision INTEGER, a_delay %BIG%, a_queued %BIG%, a_connect %BIG%, a_tls %BIG%,"
                       " a_first_byte %BIG%, a_total %BIG%, a_bytes %BIG%, a_body %BLOB%,"
                       " PRIMARY KEY (series, start_ms))%COMPACT%"),
        // The failed and the retried checks, for incidents: a few percent of the
        // rows of a healthy monitor.
        QStringLiteral("CREATE INDEX checks_trouble ON checks (series, start_ms)"
                       " WHERE (flags & 2) = 0 AND ((flags & 1) = 0 OR attempts_ok < attempts)"),
        QStringLiteral("CREATE TABLE attempts (series INTEGER NOT NULL, start_ms %BIG% NOT NULL, idx INTEGER NOT NULL,"
                       " flags INTEGER NOT NULL, start_off %BIG%, status INTEGER, cause INTEGER, reason INTEGER,"
                       " decision INTEGER, delay %BIG%, queued %BIG%, connect %BIG%, tls %BIG%, first_byte %BIG%,"
                       " total %BIG%, bytes %BIG%, body %BLOB%,"
                       " PRIMARY KEY (series, start_ms, idx))%COMPACT%"),
        QStringLiteral("CREATE TABLE state_events (id %BIGID%, series INTEGER NOT NULL, at_ms %BIG% NOT NULL,"
                       " from_state INTEGER NOT NULL, to_state INTEGER NOT NULL, reason INTEGER)"),
        QStringLiteral("CREATE INDEX state_events_series_at ON state_events (series, at_ms)"),
        QStringLiteral("CREATE TABLE agg_minute (series INTEGER NOT NULL, bucket_ms %BIG% NOT NULL,"
                       " checks %BIG% NOT NULL, checks_ok %BIG% NOT NULL, attempts %BIG% NOT NULL,"
                       " attempts_ok %BIG% NOT NULL, maintenance_checks %BIG% NOT NULL,"
                       " maintenance_attempts %BIG% NOT NULL, duration_sum_ms %BIG% NOT NULL,"
                       " duration_max_ms %BIG% NOT NULL, attempt_sum %BIG% NOT NULL, attempt_max %BIG% NOT NULL,"
                       " PRIMARY KEY (series, bucket_ms))%COMPACT%"),
        QStringLiteral("CREATE TABLE agg_hour (series INTEGER NOT NULL, bucket_ms %BIG% NOT NULL,"
                       " checks %BIG% NOT NULL, checks_ok %BIG% NOT NULL, attempts %BIG% NOT NULL,"
                       " attempts_ok %BIG% NOT NULL, maintenance_checks %BIG% NOT NULL,"
                       " maintenance_attempts %BIG% NOT NULL, duration_sum_ms %BIG% NOT NULL,"
                       " duration_max_ms %BIG% NOT NULL, attempt_sum %BIG% NOT NULL, attempt_max %BIG% NOT NULL,"
                       " PRIMARY KEY (series, bucket_ms))%COMPACT%"),
    };
}

// Version 1 -> 2: incidents kept as they end, so that a month's incidents are
// read, not found again among a month of checks.
QStringList createVersion2()
{
    return {
        QStringLiteral("CREATE TABLE incidents (series INTEGER NOT NULL, first_check_ms %BIG% NOT NULL,"
                       " start_off %BIG% NOT NULL, end_off %BIG% NOT NULL, closed_off %BIG% NOT NULL,"
                       " hidden INTEGER NOT NULL, checks %BIG% NOT NULL, attempts %BIG% NOT NULL,"
                       " failed_attempts %BIG% NOT NULL, first_error INTEGER, last_error INTEGER,"
                       " PRIMARY KEY (series, first_check_ms))%COMPACT%"),
        QStringLiteral("CREATE TABLE incident_cover (series INTEGER NOT NULL PRIMARY KEY, from_ms %BIG% NOT NULL)"),
    };
}

// Version 2 -> 3: the phases of an attempt that version 1 did not keep (name
// lookup, sending the request, the download), beside connect, TLS and first
// byte; NULL where unknown, and for every attempt written before.
QStringList createVersion3()
{
    return {
        QStringLiteral("ALTER TABLE checks ADD COLUMN a_dns %BIG%"),
        QStringLiteral("ALTER TABLE checks ADD COLUMN a_send %BIG%"),
        QStringLiteral("ALTER TABLE checks ADD COLUMN a_download %BIG%"),
        QStringLiteral("ALTER TABLE attempts ADD COLUMN dns %BIG%"),
        QStringLiteral("ALTER TABLE attempts ADD COLUMN send %BIG%"),
        QStringLiteral("ALTER TABLE attempts ADD COLUMN download %BIG%"),
    };
}

struct Migration
{
    int from;
    QStringList (*statements)();
};

// One entry per version step, in order; a new version appends its step here.
const std::array<Migration, 3> migrations{{
    {0, &createVersion1},
    {1, &createVersion2},
    {2, &createVersion3},
}};
static_assert(migrations.size() == currentVersion, "one migration per version step");

QString newerMessage(const QString &where, int version)
{
    return Tr::tr("%1 was written by a newer RetryLab: schema version %2, this one reads up to %3")
        .arg(where)
        .arg(version)
        .arg(currentVersion);
}

QStringList sqliteTables(const QSqlDatabase &db)
{
    QSqlQuery query(db);
    QStringList tables;
    if (query.exec(QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table'"))) {
        while (query.next())
            tables.append(query.value(0).toString());
    }
    return tables;
}

bool metaTableExists(const QSqlDatabase &db, const SqlDialect &dialect)
{
    if (!dialect.isPostgres())
        return sqliteTables(db).contains(QStringLiteral("retrylab_meta"));
    QSqlQuery query(db);
    return query.exec(QStringLiteral("SELECT to_regclass('retrylab_meta') IS NOT NULL")) && query.next()
        && query.value(0).toBool();
}

Result<void> refuse(QSqlQuery &query, const QString &message)
{
    query.exec(QStringLiteral("ROLLBACK"));
    return Result<void>::failure(message);
}

Result<void> cannotPrepare(QSqlQuery &query, const QString &where, const QString &why)
{
    return refuse(query, Tr::tr("the schema of %1 cannot be prepared: %2").arg(where, why.simplified()));
}

// Runs `statement`; on failure rolls back and says what failed.
Result<void> run(QSqlQuery &query, const QString &statement, const QString &where)
{
    if (query.exec(statement))
        return {};
    qCWarning(lcHistorySchema) << statement << "failed:" << query.lastError().text();
    return cannotPrepare(query, where, query.lastError().databaseText());
}

} // namespace

QString aggregateMerge(const QString &table, const SqlDialect &dialect)
{
    QStringList sets;
    for (const char *column : {"checks", "checks_ok", "attempts", "attempts_ok", "maintenance_checks",
             "maintenance_attempts", "duration_sum_ms", "attempt_sum"})
        sets << QStringLiteral("%2 = %1.%2 + excluded.%2").arg(table, QLatin1String(column));
    for (const char *column : {"duration_max_ms", "attempt_max"}) {
        const QString name = QLatin1String(column);
        sets << name + QStringLiteral(" = ")
                + dialect.greatest(table + QLatin1Char('.') + name, QStringLiteral("excluded.") + name);
    }
    return QStringLiteral(" ON CONFLICT (series, bucket_ms) DO UPDATE SET ") + sets.join(QStringLiteral(", "));
}

QString metaValue(const QSqlDatabase &db, const QString &name)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT value FROM retrylab_meta WHERE name = ?"));
    query.addBindValue(name);
    if (query.exec() && query.next())
        return query.value(0).toString();
    return {};
}

Result<void> setMetaValue(const QSqlDatabase &db, const QString &name, const QString &value)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("INSERT INTO retrylab_meta (name, value) VALUES (?, ?)"
                                 " ON CONFLICT (name) DO UPDATE SET value = excluded.value"));
    query.addBindValue(name);
    query.addBindValue(value);
    if (query.exec())
        return {};
    return Result<void>::failure(query.lastError().databaseText());
}

Result<void> prepareForWriting(const QSqlDatabase &db, const SqlDialect &dialect, const QString &where)
{
    QSqlQuery query(db);
    if (Result<void> begun = run(query, dialect.beginWrite(), where); !begun)
        return begun;
    if (!dialect.exclusiveLock().isEmpty()) {
        if (Result<void> locked = run(query, dialect.exclusiveLock(), where); !locked)
            return locked;
    }
    if (!dialect.isPostgres()) {
        const QStringList tables = sqliteTables(db);
        if (!tables.isEmpty() && !tables.contains(QStringLiteral("retrylab_meta")))
            return refuse(
                query, Tr::tr("%1 is a SQLite database but not a RetryLab history; it was left as it is").arg(where));
    }
    if (Result<void> created = run(query,
            QStringLiteral("CREATE TABLE IF NOT EXISTS retrylab_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"),
            where);
        !created)
        return created;
    const QString format = metaValue(db, formatKey);
    if (format.isEmpty()) {
        Result<void> written = setMetaValue(db, formatKey, QLatin1String(formatName));
        if (written)
            written = setMetaValue(db, versionKey, QStringLiteral("0"));
        if (!written)
            return cannotPrepare(query, where, written.error());
    } else if (format != QLatin1String(formatName)) {
        return refuse(query, Tr::tr("%1 is not a RetryLab history: its format is \"%2\"").arg(where, format));
    }
    bool ok = false;
    const int version = metaValue(db, versionKey).toInt(&ok);
    if (!ok || version < 0)
        return refuse(query, Tr::tr("%1 is damaged: its schema version is not a number").arg(where));
    if (version > currentVersion)
        return refuse(query, newerMessage(where, version));
    for (const Migration &migration : migrations) {
        if (migration.from < version)
            continue;
        qCDebug(lcHistorySchema) << "migrating" << where << "from schema version" << migration.from;
        for (const QString &statement : migration.statements()) {
            if (Result<void> done = run(query, dialect.ddl(statement), where); !done)
                return done;
        }
        if (Result<void> written = setMetaValue(db, versionKey, QString::number(migration.from + 1)); !written)
            return cannotPrepare(query, where, written.error());
    }
    return run(query, QStringLiteral("COMMIT"), where);
}

Result<void> checkForReading(const QSqlDatabase &db, const SqlDialect &dialect, const QString &where)
{
    if (!metaTableExists(db, dialect))
        return Result<void>::failure(Tr::tr("%1 holds no RetryLab history").arg(where));
    const QString format = metaValue(db, formatKey);
    if (format != QLatin1String(formatName))
        return Result<void>::failure(Tr::tr("%1 is not a RetryLab history: its format is \"%2\"").arg(where, format));
    bool ok = false;
    const int version = metaValue(db, versionKey).toInt(&ok);
    if (!ok)
        return Result<void>::failure(Tr::tr("%1 is damaged: its schema version is not a number").arg(where));
    if (version > currentVersion)
        return Result<void>::failure(newerMessage(where, version));
    if (version < currentVersion)
        return Result<void>::failure(
            Tr::tr("%1 has schema version %2, older than this RetryLab's %3: a monitor writing to it upgrades it")
                .arg(where)
                .arg(version)
                .arg(currentVersion));
    return {};
}

} // namespace RetryLab::Core::HistorySchema
