// The write side of the monitors' history on real SQLite files: every field
// back as it went in, batches, a full disk, refusals (a locked, damaged, foreign
// or newer file, a missing folder), the migration of an older file, retention,
// the size per attempt, and a writer killed in the middle of its work.

#include "core/history/historyquery.h"
#include "core/history/historyschema.h"
#include "core/history/historystore.h"
#include "tests/core/history/historyfixtures.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace RetryLab;
using namespace RetryLab::Core;
using RetryLab::Testing::checkOf;
using RetryLab::Testing::openHistoryQuery;

namespace {

// 2024-03-01T00:00:00Z: times in these tests are fixed, not the machine's clock.
constexpr qint64 nowMs = 1'709'251'200'000;
constexpr qint64 hourMs = 3'600'000;
constexpr qint64 dayMs = 24 * hourMs;

QString describe(const StoredCheck &check)
{
    QStringList attempts;
    for (const StoredAttempt &a : check.attempts)
        attempts << QStringLiteral("{#%1 at %2 ok=%3 status=%4 cause=%5 reason=%6 decision=%7 delay=%8 queued=%9 "
                                   "connect=%10 tls=%11 firstByte=%12 total=%13 bytes=%14 body=%15 dns=%16 send=%17 "
                                   "download=%18}")
                        .arg(a.index)
                        .arg(a.startMs)
                        .arg(a.success)
                        .arg(a.status ? QString::number(*a.status) : QStringLiteral("-"), a.cause, a.reason, a.decision)
                        .arg(a.delayBeforeMs)
                        .arg(a.queuedMs)
                        .arg(a.connectMs)
                        .arg(a.tlsMs)
                        .arg(a.firstByteMs)
                        .arg(a.totalMs)
                        .arg(a.bytes)
                        .arg(a.failureBody.size())
                        .arg(a.dnsMs)
                        .arg(a.sendMs)
                        .arg(a.downloadMs);
    return QStringLiteral("%1/%2 %3..%4 ok=%5 maintenance=%6 outcome=%7 status=%8 reason=%9 %10")
        .arg(check.monitor, check.agent)
        .arg(check.startMs)
        .arg(check.endMs)
        .arg(check.success)
        .arg(check.maintenance)
        .arg(check.outcome, check.finalStatus ? QString::number(*check.finalStatus) : QStringLiteral("-"), check.reason,
            attempts.join(QLatin1Char(' ')));
}

// A raw connection to a file, for what the store must not do itself (hand-made
// files, PRAGMA integrity_check after a crash).
class RawSqlite final
{
public:
    explicit RawSqlite(const QString &path) : m_name(QStringLiteral("raw-%1").arg(++s_counter))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.open();
    }
    ~RawSqlite()
    {
        {
            QSqlDatabase db = QSqlDatabase::database(m_name, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    bool exec(const QString &sql)
    {
        QSqlQuery query(QSqlDatabase::database(m_name));
        if (query.exec(sql))
            return true;
        qWarning() << sql << query.lastError().text();
        return false;
    }
    QStringList column(const QString &sql)
    {
        QSqlQuery query(QSqlDatabase::database(m_name));
        QStringList values;
        if (query.exec(sql)) {
            while (query.next())
                values << query.value(0).toString();
        }
        return values;
    }

private:
    static inline int s_counter = 0;
    QString m_name;
};

} // namespace

class TestHistoryStore : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    static std::unique_ptr<HistoryStore> openStore(
        const QString &file, const QString &agent = QStringLiteral("here"), const HistoryStore::Options &options = {})
    {
        auto store = HistoryStore::open(file, agent, options);
        if (!store) {
            qWarning() << store.error();
            return {};
        }
        return std::move(store).value();
    }

    static StoredCheck everyField()
    {
        StoredCheck check;
        check.monitor = QStringLiteral("payments");
        check.agent = QStringLiteral("eu-west");
        check.startMs = nowMs + 5;
        check.endMs = nowMs + 2350;
        check.success = true;
        check.maintenance = false;
        check.outcome = QStringLiteral("succeeded");
        check.finalStatus = 200;
        StoredAttempt refused;
        refused.index = 0;
        refused.startMs = nowMs + 6;
        refused.success = false;
        refused.cause = QStringLiteral("connection-refused");
        refused.reason = QStringLiteral("connection refused; the request was not sent; retry after a delay");
        refused.decision = QStringLiteral("retry");
        refused.queuedMs = 0.37;
        refused.dnsMs = 0.8;
        refused.connectMs = 3.21;
        refused.totalMs = 3.58;
        refused.failureBody = QByteArray(HistoryLimits::failureBodyBytes + 500, 'x');
        StoredAttempt unavailable;
        unavailable.index = 1;
        unavailable.startMs = nowMs + 1010;
        unavailable.success = false;
        unavailable.status = 503;
        unavailable.cause = QStringLiteral("http-503");
        unavailable.reason = QStringLiteral("HTTP 503: server error; transient, retry after a delay");
        unavailable.decision = QStringLiteral("retry");
        unavailable.delayBeforeMs = 1000.5;
        unavailable.queuedMs = 0.01;
        unavailable.dnsMs = 0.42;
        unavailable.connectMs = 1.5;
        unavailable.tlsMs = 7.25;
        unavailable.sendMs = 0.06;
        unavailable.firstByteMs = 41.03;
        unavailable.downloadMs = 1.17;
        unavailable.totalMs = 42.99;
        unavailable.bytes = 19;
        unavailable.failureBody = "{\"error\":\"overloaded\"}";
        StoredAttempt ok;
        ok.index = 2;
        ok.startMs = nowMs + 2300;
        ok.success = true;
        ok.status = 200;
        ok.cause = QStringLiteral("http-200");
        ok.reason = QStringLiteral("HTTP 200: success");
        ok.decision = QStringLiteral("success");
        ok.delayBeforeMs = 1234.56;
        ok.firstByteMs = 30.0;
        ok.totalMs = 49.99;
        ok.bytes = 5'000'000'000LL;
        ok.failureBody = "kept only for failures";
        check.attempts = {refused, unavailable, ok};
        return check;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void roundTrip_keepsEveryField()
    {
        const QString file = path(QStringLiteral("roundtrip.db"));
        StoredCheck retried = everyField();
        StoredCheck failed;
        failed.monitor = QStringLiteral("payments");
        failed.agent = QString(); // the store's own agent
        failed.startMs = nowMs + 60'000;
        failed.endMs = nowMs + 90'000;
        failed.maintenance = true;
        failed.outcome = QStringLiteral("attempt-timeout");
        failed.reason = QStringLiteral("the per-attempt timeout expired; give up");
        StoredAttempt timeout;
        timeout.startMs = nowMs + 60'000;
        timeout.cause = QStringLiteral("attempt-timeout");
        timeout.reason = failed.reason;
        timeout.decision = QStringLiteral("give-up");
        timeout.totalMs = 30'000.0;
        failed.attempts = {timeout};
        StoredCheck noAttempt;
        noAttempt.monitor = QStringLiteral("ledger");
        noAttempt.agent = QStringLiteral("eu-west");
        noAttempt.startMs = nowMs;
        noAttempt.endMs = nowMs;
        noAttempt.outcome = QStringLiteral("invalid-request");
        noAttempt.reason = QStringLiteral("the URL has no host");
        StateEvent down{QStringLiteral("payments"), QStringLiteral("eu-west"), nowMs + 1, MonitorState::Up,
            MonitorState::Down, QStringLiteral("3 checks failed in a row")};
        StateEvent paused{
            QStringLiteral("payments"), QString(), nowMs + 2, MonitorState::Down, MonitorState::Paused, QString()};
        {
            auto store = openStore(file, QStringLiteral("eu-west"));
            QVERIFY(store);
            store->append(retried);
            store->append(failed);
            store->append(noAttempt);
            store->append(down);
            store->append(paused);
            QVERIFY2(store->flush(), qPrintable(store->warning()));
            QCOMPARE(store->backlog(), 0);
            QCOMPARE(store->warning(), QString());
        }
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        const auto checks = query->checks({});
        QVERIFY2(checks, qPrintable(checks.error()));
        QCOMPARE(checks->size(), 3);

        // What the history keeps of a body: a failure's, at most failureBodyBytes.
        retried.attempts[0].failureBody.truncate(HistoryLimits::failureBodyBytes);
        retried.attempts[2].failureBody.clear();
        failed.agent = QStringLiteral("eu-west");
        const QList<StoredCheck> expected{noAttempt, retried, failed};
        for (qsizetype i = 0; i < expected.size(); ++i)
            QVERIFY2(checks->at(i) == expected.at(i),
                qPrintable(describe(checks->at(i)) + QStringLiteral("\n  expected\n") + describe(expected.at(i))));

        const auto events = query->stateEvents({});
        QVERIFY2(events, qPrintable(events.error()));
        paused.agent = QStringLiteral("eu-west");
        QCOMPARE(events->size(), 2);
        QVERIFY(events->at(0) == down);
        QVERIFY(events->at(1) == paused);
        QCOMPARE(query->monitors().value(), (QStringList{QStringLiteral("ledger"), QStringLiteral("payments")}));
    }

    void append_queuesUntilFlush_thenWritesTheWholeBatch()
    {
        const QString file = path(QStringLiteral("batch.db"));
        auto store = openStore(file);
        QVERIFY(store);
        for (int i = 0; i < 500; ++i)
            store->append(checkOf(QStringLiteral("api"), QString(), nowMs + i * 1000, {true}));
        QCOMPARE(store->backlog(), 500);
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        QCOMPARE(query->checks({})->size(), 0);
        QVERIFY2(store->flush(), qPrintable(store->warning()));
        QCOMPARE(store->backlog(), 0);
        QCOMPARE(query->checks({})->size(), 500);
        QVERIFY(store->flush()); // nothing queued: nothing to do
    }

    void flush_whileAReaderHoldsASnapshot_isNotBlocked()
    {
        const QString file = path(QStringLiteral("wal.db"));
        HistoryStore::Options options;
        options.busyTimeoutMs = 50; // a writer blocked by the reader would fail at once
        auto store = openStore(file, QStringLiteral("here"), options);
        QVERIFY(store);
        store->append(checkOf(QStringLiteral("api"), QString(), nowMs, {true}));
        QVERIFY(store->flush());
        RawSqlite reader(file);
        QVERIFY(reader.exec(QStringLiteral("BEGIN")));
        QCOMPARE(reader.column(QStringLiteral("SELECT count(*) FROM checks")), QStringList{QStringLiteral("1")});
        for (int i = 1; i <= 100; ++i)
            store->append(checkOf(QStringLiteral("api"), QString(), nowMs + i * 1000, {true}));
        QVERIFY2(store->flush(), qPrintable(store->warning()));
        // The reader still sees its snapshot, and the new checks once it ends it.
        QCOMPARE(reader.column(QStringLiteral("SELECT count(*) FROM checks")), QStringList{QStringLiteral("1")});
        QVERIFY(reader.exec(QStringLiteral("COMMIT")));
        QCOMPARE(reader.column(QStringLiteral("SELECT count(*) FROM checks")), QStringList{QStringLiteral("101")});
    }

    void append_checksStartingInOneMillisecond_keepsEachOnce()
    {
        const QString file = path(QStringLiteral("samestart.db"));
        auto store = openStore(file);
        QVERIFY(store);
        const StoredCheck first = checkOf(QStringLiteral("api"), QString(), nowMs, {true}, 20.0);
        const StoredCheck other = checkOf(QStringLiteral("api"), QString(), nowMs, {false, true}, 30.0);
        store->append(first);
        store->append(other);
        QVERIFY2(store->flush(), qPrintable(store->warning()));
        // The same check again (a flush whose commit's answer was lost) is not stored twice.
        store->append(first);
        QVERIFY2(store->flush(), qPrintable(store->warning()));
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        const auto checks = query->checks({});
        QCOMPARE(checks->size(), 2);
        QCOMPARE(checks->at(0).startMs, nowMs);
        QCOMPARE(checks->at(0).attempts.size(), 1);
        QCOMPARE(checks->at(1).startMs, nowMs + 1);
        QCOMPARE(checks->at(1).attempts.size(), 2);
        QCOMPARE(checks->at(1).attempts.at(1).startMs, other.attempts.at(1).startMs);
    }

    void flush_onAFullDisk_keepsTheBacklog_dropsPastTheBound_thenRecovers()
    {
        const QString file = path(QStringLiteral("full.db"));
        HistoryStore::Options options;
        options.maxDatabaseBytes = 256 * 1024;
        options.maxBacklogChecks = 25;
        auto store = openStore(file, QStringLiteral("here"), options);
        QVERIFY(store);
        qint64 at = nowMs - 60 * dayMs;
        const auto failingCheck = [&]() {
            StoredCheck check = checkOf(QStringLiteral("api"), QString(), at, {false});
            check.attempts[0].failureBody = QByteArray(HistoryLimits::failureBodyBytes, 'e');
            at += 1000;
            return check;
        };
        int written = 0;
        bool full = false;
        for (int batch = 0; batch < 100 && !full; ++batch) {
            for (int i = 0; i < 10; ++i)
                store->append(failingCheck());
            full = !store->flush();
            if (!full)
                written += 10;
        }
        QVERIFY2(full, "the capped file never filled");
        QVERIFY(written > 0);
        QCOMPARE(store->backlog(), 10);
        QVERIFY2(store->warning().contains(QLatin1String("full")), qPrintable(store->warning()));
        QVERIFY2(store->warning().contains(QLatin1String("full.db")), qPrintable(store->warning()));
        QCOMPARE(store->droppedChecks(), 0);
        QVERIFY(!store->flush()); // still full: tried again, kept again
        QCOMPARE(store->backlog(), 10);

        // Past the bound the oldest go, and are counted.
        for (int i = 0; i < 30; ++i)
            store->append(checkOf(QStringLiteral("api"), QString(), nowMs + i * 1000, {true}));
        QCOMPARE(store->backlog(), 25);
        QCOMPARE(store->droppedChecks(), 15);

        // Retention frees the space of the old checks: the backlog goes in.
        QVERIFY2(store->applyRetention(nowMs), qPrintable(store->warning()));
        QVERIFY2(store->flush(), qPrintable(store->warning()));
        QCOMPARE(store->backlog(), 0);
        QCOMPARE(store->warning(), QString());
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        QCOMPARE(query->checks({})->size(), 25);
        const auto summaries = query->summaries({});
        QCOMPARE(summaries->size(), 1);
        QCOMPARE(summaries->at(0).checks, written + 25);
        QCOMPARE(summaries->at(0).checksSucceeded, 25);
    }

    void open_aFileAnotherStoreWrites_isRefused()
    {
        const QString file = path(QStringLiteral("locked.db"));
        auto first = openStore(file);
        QVERIFY(first);
        const auto second = HistoryStore::open(file, QStringLiteral("other"));
        QVERIFY(!second);
        QVERIFY2(second.error().contains(QLatin1String("another RetryLab")), qPrintable(second.error()));
        QVERIFY2(
            second.error().contains(QString::number(QCoreApplication::applicationPid())), qPrintable(second.error()));
        first.reset();
        QVERIFY(openStore(file)); // free again once the first store is closed
    }

    void open_garbage_isRefusedAndLeftAsItIs()
    {
        const QString file = path(QStringLiteral("garbage.db"));
        const QByteArray garbage = QByteArray("this is a shopping list, not a database\n").repeated(100);
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(garbage);
        }
        const auto store = HistoryStore::open(file, QStringLiteral("here"));
        QVERIFY(!store);
        QVERIFY2(store.error().contains(QLatin1String("not a SQLite database")), qPrintable(store.error()));
        QVERIFY(!HistoryQuery::open(file));
        QFile in(file);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QCOMPARE(in.readAll(), garbage);
    }

    void open_truncatedDatabase_isRefusedAsDamaged()
    {
        const QString file = path(QStringLiteral("truncated.db"));
        {
            auto store = openStore(file);
            QVERIFY(store);
            for (int i = 0; i < 3000; ++i) {
                StoredCheck check = checkOf(QStringLiteral("api"), QString(), nowMs + i * 1000, {false, i % 2 == 0});
                check.attempts[0].failureBody = QByteArray(300, 'b');
                store->append(check);
            }
            QVERIFY(store->flush());
        }
        QFile database(file);
        const qint64 size = database.size();
        QVERIFY(size > 100'000);
        QVERIFY(database.resize(size * 6 / 10));
        const auto store = HistoryStore::open(file, QStringLiteral("here"));
        QVERIFY(!store);
        QVERIFY2(store.error().contains(QLatin1String("damaged")), qPrintable(store.error()));
        QCOMPARE(QFile(file).size(), size * 6 / 10);
    }

    void open_aForeignSqliteDatabase_isRefused()
    {
        const QString file = path(QStringLiteral("foreign.db"));
        {
            RawSqlite raw(file);
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE recipes (name TEXT)")));
        }
        const auto store = HistoryStore::open(file, QStringLiteral("here"));
        QVERIFY(!store);
        QVERIFY2(store.error().contains(QLatin1String("not a RetryLab history")), qPrintable(store.error()));
        RawSqlite raw(file);
        QCOMPARE(raw.column(QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table'")),
            QStringList{QStringLiteral("recipes")});
    }

    void open_aNewerSchema_isRefused()
    {
        const QString file = path(QStringLiteral("newer.db"));
        {
            auto store = openStore(file);
            QVERIFY(store);
        }
        {
            RawSqlite raw(file);
            QVERIFY(raw.exec(QStringLiteral("UPDATE retrylab_meta SET value = '7' WHERE name = 'schema_version'")));
        }
        const QString expected
            = QStringLiteral("written by a newer RetryLab: schema version 7, this one reads up to %1")
                  .arg(HistorySchema::currentVersion);
        const auto store = HistoryStore::open(file, QStringLiteral("here"));
        QVERIFY(!store);
        QVERIFY2(store.error().contains(expected), qPrintable(store.error()));
        const auto query = HistoryQuery::open(file);
        QVERIFY(!query);
        QVERIFY2(query.error().contains(expected), qPrintable(query.error()));
        RawSqlite raw(file);
        QCOMPARE(raw.column(QStringLiteral("SELECT value FROM retrylab_meta WHERE name = 'schema_version'")),
            QStringList{QStringLiteral("7")});
    }

    void open_aFolderThatDoesNotExist_namesIt()
    {
        const QString folder = path(QStringLiteral("no/such/folder"));
        const auto store = HistoryStore::open(folder + QStringLiteral("/history.db"), QStringLiteral("here"));
        QVERIFY(!store);
        QVERIFY2(store.error().contains(QLatin1String("does not exist")), qPrintable(store.error()));
        QVERIFY2(store.error().contains(folder), qPrintable(store.error()));
        QVERIFY(!QFile::exists(folder));
        const auto query = HistoryQuery::open(path(QStringLiteral("absent.db")));
        QVERIFY(!query);
        QVERIFY2(query.error().contains(QLatin1String("no history")), qPrintable(query.error()));
        QVERIFY(!QFile::exists(path(QStringLiteral("absent.db"))));
    }

    void open_anOlderSchema_isMigrated()
    {
        // Version 0: a history that has its meta table and nothing else yet.
        const QString file = path(QStringLiteral("older.db"));
        {
            RawSqlite raw(file);
            QVERIFY(
                raw.exec(QStringLiteral("CREATE TABLE retrylab_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO retrylab_meta VALUES ('format', 'retrylab-history'),"
                                            " ('schema_version', '0')")));
        }
        QVERIFY2(!HistoryQuery::open(file), "a reader does not migrate");
        {
            auto store = openStore(file);
            QVERIFY(store);
            store->append(checkOf(QStringLiteral("api"), QString(), nowMs, {true}));
            QVERIFY(store->flush());
        }
        {
            RawSqlite raw(file);
            QCOMPARE(raw.column(QStringLiteral("SELECT value FROM retrylab_meta WHERE name = 'schema_version'")),
                QStringList{QString::number(HistorySchema::currentVersion)});
            QCOMPARE(raw.column(QStringLiteral("PRAGMA journal_mode")), QStringList{QStringLiteral("wal")});
        }
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        QCOMPARE(query->checks({})->size(), 1);
    }

    void retention_rollsOldChecksIntoAggregates_andKeepsTheCounts()
    {
        const QString file = path(QStringLiteral("retention.db"));
        auto store = openStore(file);
        QVERIFY(store);
        struct Expected
        {
            qint64 checks = 0, succeeded = 0, attempts = 0, attemptsSucceeded = 0, maintenance = 0;
        };
        // One check an hour, ten minutes past, for 40 days; every 5th fails twice,
        // every 3rd succeeds at its second try, every 7th runs in maintenance.
        const auto expectedSince = [](qint64 sinceMs) {
            Expected e;
            for (int i = 0; i < 40 * 24; ++i) {
                const qint64 start = nowMs - 40 * dayMs + i * hourMs + 10 * 60'000;
                if (start < sinceMs)
                    continue;
                const bool maintenance = i % 7 == 0;
                const QList<bool> outcomes = i % 5 == 0 ? QList<bool>{false, false}
                                                        : (i % 3 == 0 ? QList<bool>{false, true} : QList<bool>{true});
                if (maintenance) {
                    ++e.maintenance;
                    continue;
                }
                ++e.checks;
                e.succeeded += outcomes.constLast() ? 1 : 0;
                e.attempts += outcomes.size();
                e.attemptsSucceeded += outcomes.count(true);
            }
            return e;
        };
        for (int i = 0; i < 40 * 24; ++i) {
            const QList<bool> outcomes
                = i % 5 == 0 ? QList<bool>{false, false} : (i % 3 == 0 ? QList<bool>{false, true} : QList<bool>{true});
            StoredCheck check
                = checkOf(QStringLiteral("api"), QString(), nowMs - 40 * dayMs + i * hourMs + 10 * 60'000, outcomes);
            check.maintenance = i % 7 == 0;
            store->append(check);
        }
        store->append(checkOf(QStringLiteral("api"), QString(), nowMs - 400 * dayMs, {true}));
        QVERIFY(store->flush());
        const qint64 before = store->databaseBytes();
        QVERIFY(before > 0);

        QVERIFY2(store->applyRetention(nowMs), qPrintable(store->warning()));
        QVERIFY2(store->applyRetention(nowMs), "a second run must not count the rolled checks twice");
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        const qint64 cutoff = nowMs - 30 * dayMs;
        // Raw rows older than the raw retention are gone, the newer stay.
        QCOMPARE(query->checks({QString(), QString(), 0, cutoff})->size(), 0);
        QCOMPARE(query->checks({QString(), QString(), cutoff, nowMs})->size(), 30 * 24);

        for (const qint64 since : {qint64(0), nowMs - 35 * dayMs + 30 * 60'000, nowMs - 35 * dayMs + 5 * 60'000}) {
            const auto summaries = query->summaries({QString(), QString(), since, nowMs});
            QVERIFY2(summaries, qPrintable(summaries.error()));
            QCOMPARE(summaries->size(), 1);
            const MonitorSummary &s = summaries->at(0);
            const Expected e = expectedSince(since);
            QVERIFY(s.fromAggregates);
            QCOMPARE(s.rawSinceMs, cutoff);
            QCOMPARE(s.checks, e.checks);
            QCOMPARE(s.checksSucceeded, e.succeeded);
            QCOMPARE(s.attempts, e.attempts);
            QCOMPARE(s.attemptsSucceeded, e.attemptsSucceeded);
            QCOMPARE(s.maintenanceChecks, e.maintenance);
        }
        // Within the raw retention nothing comes from the aggregates.
        const auto recent = query->summaries({QString(), QString(), cutoff, nowMs});
        QCOMPARE(recent->size(), 1);
        QVERIFY(!recent->at(0).fromAggregates);
        QCOMPARE(recent->at(0).checks, expectedSince(cutoff).checks);
    }

    void databaseBytes_growsWithWhatIsWritten()
    {
        auto store = openStore(path(QStringLiteral("size.db")));
        QVERIFY(store);
        const qint64 empty = store->databaseBytes();
        QVERIFY(empty > 0);
        QCOMPARE(empty % 4096, 0);
        for (int i = 0; i < 2000; ++i)
            store->append(checkOf(QStringLiteral("api"), QString(), nowMs + i * 1000, {true}));
        QVERIFY(store->flush());
        QVERIFY(store->databaseBytes() > empty);
    }

    void storage_takesAbout70BytesPerAttempt()
    {
        // A monitor's usual day: most checks pass at once, a few are retried;
        // 100 monitors, one check each every 10 s.
        auto store = openStore(path(QStringLiteral("compact.db")));
        QVERIFY(store);
        const qint64 empty = store->databaseBytes();
        qint64 attempts = 0;
        quint32 noise = 12345;
        const auto next = [&noise](int bound) {
            noise = noise * 1'103'515'245u + 12'345u;
            return static_cast<int>((noise >> 8) % static_cast<quint32>(bound));
        };
        for (int round = 0; round < 400; ++round) {
            for (int monitor = 0; monitor < 100; ++monitor) {
                const bool retried = next(100) < 3;
                StoredCheck check = checkOf(QStringLiteral("monitor-%1").arg(monitor), QString(),
                    nowMs + round * 10'000 + monitor * 37, retried ? QList<bool>{false, true} : QList<bool>{true},
                    20.0 + next(200) + next(100) / 100.0, 500);
                for (StoredAttempt &attempt : check.attempts) {
                    attempt.queuedMs = next(90) / 100.0;
                    attempt.connectMs = attempt.index == 0 ? 1.0 + next(30) : -1.0;
                    // Schema version 3's phases: a lookup and a connect on the first attempt only
                    // (a retry rides on the same connection), sending and the download always.
                    attempt.dnsMs = attempt.index == 0 ? next(300) / 100.0 : -1.0;
                    attempt.sendMs = next(20) / 100.0;
                    attempt.downloadMs = next(400) / 100.0;
                    attempt.firstByteMs = attempt.totalMs - next(5);
                    attempt.bytes = 200 + next(3000);
                }
                attempts += check.attempts.size();
                store->append(check);
            }
            if (round % 50 == 49)
                QVERIFY(store->flush());
        }
        QVERIFY(store->flush());
        const double perAttempt = static_cast<double>(store->databaseBytes() - empty) / static_cast<double>(attempts);
        qInfo("%.1f bytes per stored attempt", perAttempt);
        // 61 bytes before schema version 3; its three phases (lookup, sending, download) add about 8.
        QVERIFY2(perAttempt <= 72.0, qPrintable(QString::number(perAttempt)));
    }

    void flush_afterSigkill_keepsEveryCommittedCheck()
    {
        const QString file = path(QStringLiteral("killed.db"));
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("RETRYLAB_HISTORY_CHILD_DB"), file);
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::SeparateChannels);
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("child_writesAndFlushesUntilKilled")});
        QVERIFY(child.waitForStarted());
        static const QRegularExpression flushedLine(QStringLiteral("^flushed (\\d+)$"));
        qint64 reported = 0;
        int flushes = 0;
        QByteArray pending;
        while (flushes < 40) {
            QVERIFY2(child.waitForReadyRead(30'000), child.readAllStandardError().constData());
            pending += child.readAllStandardOutput();
            qsizetype newline;
            while ((newline = pending.indexOf('\n')) >= 0) {
                const QString line = QString::fromUtf8(pending.left(newline)).trimmed();
                pending.remove(0, newline + 1);
                if (const auto match = flushedLine.match(line); match.hasMatch()) {
                    reported = match.captured(1).toLongLong();
                    ++flushes;
                }
            }
        }
        child.kill(); // SIGKILL: no destructor, no last flush, the lock file stays
        QVERIFY(child.waitForFinished(10'000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        QVERIFY(QFile::exists(file + QStringLiteral(".lock")));

        auto store = openStore(file); // takes the dead process's lock over
        QVERIFY(store);
        {
            RawSqlite raw(file);
            QCOMPARE(raw.column(QStringLiteral("PRAGMA integrity_check")), QStringList{QStringLiteral("ok")});
        }
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        const auto checks = query->checks({});
        QVERIFY2(checks, qPrintable(checks.error()));
        QVERIFY2(checks->size() >= reported, qPrintable(QStringLiteral("%1 < %2").arg(checks->size()).arg(reported)));
        for (qint64 i = 0; i < reported; ++i)
            QCOMPARE(checks->at(i).startMs, nowMs + i * 1000);
    }

    // Run only in the child process of the test above (RETRYLAB_HISTORY_CHILD_DB set).
    void child_writesAndFlushesUntilKilled()
    {
        const QString file = qEnvironmentVariable("RETRYLAB_HISTORY_CHILD_DB");
        if (file.isEmpty())
            return;
        auto store = openStore(file, QStringLiteral("child"));
        QVERIFY(store);
        qint64 appended = 0;
        for (;;) {
            for (int i = 0; i < 50; ++i, ++appended)
                store->append(
                    checkOf(QStringLiteral("crash"), QString(), nowMs + appended * 1000, {appended % 9 != 0}));
            QVERIFY2(store->flush(), qPrintable(store->warning()));
            std::printf("flushed %lld\n", static_cast<long long>(appended));
            std::fflush(stdout);
        }
    }
};

QTEST_GUILESS_MAIN(TestHistoryStore)
#include "tst_historystore.moc"
