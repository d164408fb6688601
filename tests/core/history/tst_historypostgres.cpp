// The history on a real PostgreSQL 15 cluster the suite starts: two agents
// writing one database at once (and creating its schema at once), a server
// that goes away and comes back, a port that refuses, every field back as it
// went in, and the same figures as from SQLite.

#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "tests/core/history/historyfixtures.h"
#include "tests/core/history/postgrescluster.h"
#include "tests/tools/requiredtool.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <latch>

using namespace RetryLab;
using namespace RetryLab::Core;
using RetryLab::Testing::checkOf;
using RetryLab::Testing::openHistoryQuery;
using RetryLab::Testing::PostgresCluster;

namespace {

constexpr qint64 nowMs = 1'709'251'200'000; // 2024-03-01T00:00:00Z
constexpr qint64 minuteMs = 60'000;
constexpr qint64 dayMs = 24 * 60 * minuteMs;

// A day of a monitor that fails now and then, and retries.
QList<StoredCheck> mixedHistory(const QString &monitor, const QString &agent, qint64 startMs)
{
    QList<StoredCheck> checks;
    for (int i = 0; i < 300; ++i) {
        QList<bool> outcomes{true};
        if (i % 17 == 3)
            outcomes = {false, false, false};
        else if (i % 11 == 5)
            outcomes = {false, true};
        StoredCheck check
            = checkOf(monitor, agent, startMs + i * minuteMs, outcomes, 20.0 + i % 50, 1000 + (i % 3) * 500);
        check.maintenance = i % 37 == 0;
        checks << check;
    }
    return checks;
}

} // namespace

class TestHistoryPostgres : public QObject
{
    Q_OBJECT

private:
    PostgresCluster m_cluster;
    QTemporaryDir m_dir;
    int m_databases = 0;

    QString freshDatabase()
    {
        const QString name = QStringLiteral("history%1").arg(++m_databases);
        const QString made = m_cluster.createDatabase(name);
        if (!made.isEmpty()) {
            qWarning() << made;
            return {};
        }
        return m_cluster.url(name);
    }

    static std::unique_ptr<HistoryStore> openStore(const QString &url, const QString &agent)
    {
        auto store = HistoryStore::open(url, agent);
        if (!store) {
            qWarning() << store.error();
            return {};
        }
        return std::move(store).value();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        if (!PostgresCluster::available())
            RETRYLAB_MISSING_TOOL(
                "PostgreSQL 15's initdb and pg_ctl are missing: install the Debian package postgresql");
        const QString started = m_cluster.start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
    }

    void twoAgents_writingOneDatabaseAtOnce_aQuerySeesBoth()
    {
        const QString url = freshDatabase();
        QVERIFY(!url.isEmpty());
        // Both agents open the new database at the same moment: both create its schema.
        std::latch opened(2);
        QStringList errors(2);
        const auto agent = [&](int which) {
            const QString name = which == 0 ? QStringLiteral("a") : QStringLiteral("b");
            opened.arrive_and_wait();
            auto store = HistoryStore::open(url, name);
            if (!store) {
                errors[which] = store.error();
                return;
            }
            for (int flushIndex = 0; flushIndex < 30; ++flushIndex) {
                for (int i = 0; i < 10; ++i) {
                    const int n = flushIndex * 10 + i;
                    (*store)->append(checkOf(QStringLiteral("shared"), QString(), nowMs + n * 1000 + which,
                        n % 7 == 0 ? QList<bool>{false, true} : QList<bool>{true}));
                }
                if (!(*store)->flush()) {
                    errors[which] = (*store)->warning();
                    return;
                }
            }
        };
        std::unique_ptr<QThread> first(QThread::create(agent, 0));
        std::unique_ptr<QThread> second(QThread::create(agent, 1));
        first->start();
        second->start();
        QVERIFY(first->wait(120'000));
        QVERIFY(second->wait(120'000));
        QVERIFY2(errors.at(0).isEmpty(), qPrintable(errors.at(0)));
        QVERIFY2(errors.at(1).isEmpty(), qPrintable(errors.at(1)));

        auto query = openHistoryQuery(url);
        QVERIFY(query);
        const auto summaries = query->summaries({});
        QVERIFY2(summaries, qPrintable(summaries.error()));
        QCOMPARE(summaries->size(), 2);
        for (const MonitorSummary &summary : *summaries) {
            QCOMPARE(summary.monitor, QStringLiteral("shared"));
            QCOMPARE(summary.checks, 300);
            QCOMPARE(summary.attempts, 300 + 43);
            QCOMPARE(summary.hiddenIncidents, 43);
        }
        QCOMPARE(summaries->at(0).agent, QStringLiteral("a"));
        QCOMPARE(summaries->at(1).agent, QStringLiteral("b"));
        QCOMPARE(query->checks({})->size(), 600);
    }

    void serverGoesAway_flushKeepsTheBacklog_andWritesItWhenBack()
    {
        const QString url = freshDatabase();
        QVERIFY(!url.isEmpty());
        auto store = openStore(url, QStringLiteral("a"));
        QVERIFY(store);
        for (int i = 0; i < 20; ++i)
            store->append(checkOf(QStringLiteral("api"), QString(), nowMs + i * 1000, {true}));
        QVERIFY2(store->flush(), qPrintable(store->warning()));

        const QString stopped = m_cluster.stop();
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        for (int i = 20; i < 50; ++i)
            store->append(checkOf(QStringLiteral("api"), QString(), nowMs + i * 1000, {i % 4 != 0}));
        QVERIFY(!store->flush());
        QCOMPARE(store->backlog(), 30);
        QVERIFY(!store->warning().isEmpty());
        QVERIFY2(store->warning().contains(QStringLiteral("127.0.0.1:%1").arg(m_cluster.port())),
            qPrintable(store->warning()));
        QVERIFY(!store->flush()); // still gone: tried again, kept again
        QCOMPARE(store->backlog(), 30);
        QCOMPARE(store->droppedChecks(), 0);

        const QString started = m_cluster.start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
        QVERIFY2(store->flush(), qPrintable(store->warning()));
        QCOMPARE(store->backlog(), 0);
        QCOMPARE(store->warning(), QString());
        auto query = openHistoryQuery(url);
        QVERIFY(query);
        const auto checks = query->checks({});
        QCOMPARE(checks->size(), 50);
        for (int i = 0; i < 50; ++i)
            QCOMPARE(checks->at(i).startMs, nowMs + i * 1000);
    }

    void refusedPort_namesHostAndPort_neverThePassword()
    {
        const int port = PostgresCluster::freePort();
        const QString url = QStringLiteral("postgresql://retrylab:s3cret-word@127.0.0.1:%1/history").arg(port);
        const auto store = HistoryStore::open(url, QStringLiteral("a"));
        QVERIFY(!store);
        QVERIFY2(store.error().contains(QStringLiteral("127.0.0.1:%1").arg(port)), qPrintable(store.error()));
        QVERIFY2(store.error().contains(QLatin1String("PostgreSQL")), qPrintable(store.error()));
        QVERIFY2(!store.error().contains(QLatin1String("s3cret")), qPrintable(store.error()));
        const auto query = HistoryQuery::open(url);
        QVERIFY(!query);
        QVERIFY2(query.error().contains(QStringLiteral("127.0.0.1:%1").arg(port)), qPrintable(query.error()));
        QVERIFY2(!query.error().contains(QLatin1String("s3cret")), qPrintable(query.error()));
        QVERIFY(!HistoryStore::open(QStringLiteral("postgresql://retrylab@127.0.0.1/"), QStringLiteral("a")));
    }

    void socketUrl_connectsThroughTheUnixSocket()
    {
        const QString tcp = freshDatabase();
        QVERIFY(!tcp.isEmpty());
        const QString socket = m_cluster.socketUrl(QStringLiteral("history%1").arg(m_databases));
        auto store = openStore(socket, QStringLiteral("local"));
        QVERIFY(store);
        store->append(checkOf(QStringLiteral("api"), QString(), nowMs, {true}));
        QVERIFY(store->flush());
        auto query = openHistoryQuery(tcp);
        QVERIFY(query);
        QCOMPARE(query->checks({})->size(), 1);
        QCOMPARE(query->checks({})->at(0).agent, QStringLiteral("local"));
    }

    void roundTrip_keepsEveryField()
    {
        const QString url = freshDatabase();
        QVERIFY(!url.isEmpty());
        StoredCheck check = checkOf(QStringLiteral("api"), QStringLiteral("a"), nowMs, {false, false, true});
        check.attempts[0].failureBody = QByteArray("\x00\x01\xff binary \\ body '\"", 21);
        check.attempts[0].connectMs = 12.34;
        check.attempts[0].tlsMs = 56.78;
        check.attempts[0].queuedMs = 0.01;
        check.attempts[1].status.reset();
        check.attempts[1].cause = QStringLiteral("connection-reset");
        check.attempts[1].reason = QStringLiteral("reset by peer; l'attente «continue»");
        check.attempts[1].failureBody = QByteArray(HistoryLimits::failureBodyBytes, 'z');
        check.attempts[2].bytes = 6'000'000'000LL;
        StoredCheck maintenance = checkOf(QStringLiteral("api"), QStringLiteral("a"), nowMs + 1000, {});
        maintenance.maintenance = true;
        maintenance.finalStatus.reset();
        const StateEvent event{QStringLiteral("api"), QStringLiteral("a"), nowMs + 5, MonitorState::Pending,
            MonitorState::Up, QStringLiteral("first success")};
        {
            auto store = openStore(url, QStringLiteral("a"));
            QVERIFY(store);
            store->append(check);
            store->append(maintenance);
            store->append(event);
            QVERIFY2(store->flush(), qPrintable(store->warning()));
        }
        auto query = openHistoryQuery(url);
        QVERIFY(query);
        const auto checks = query->checks({});
        QVERIFY2(checks, qPrintable(checks.error()));
        QCOMPARE(checks->size(), 2);
        QVERIFY(checks->at(0) == check);
        QVERIFY(checks->at(1) == maintenance);
        const auto events = query->stateEvents({});
        QCOMPARE(events->size(), 1);
        QVERIFY(events->at(0) == event);
    }

    void figures_onPostgres_areThoseOfSqlite()
    {
        const QString url = freshDatabase();
        QVERIFY(!url.isEmpty());
        const QString file = m_dir.filePath(QStringLiteral("same.db"));
        // Forty days: the retention rolls the oldest ten into aggregates on both.
        QList<StoredCheck> checks;
        for (int day = 0; day < 40; day += 3)
            checks += mixedHistory(QStringLiteral("api"), QStringLiteral("a"), nowMs - (40 - day) * dayMs);
        checks += mixedHistory(QStringLiteral("api"), QStringLiteral("b"), nowMs - dayMs);
        for (const QString &database : {url, file}) {
            auto store = openStore(database, QStringLiteral("a"));
            QVERIFY(store);
            for (const StoredCheck &check : std::as_const(checks))
                store->append(check);
            QVERIFY2(store->flush(), qPrintable(store->warning()));
            QVERIFY2(store->applyRetention(nowMs), qPrintable(store->warning()));
            QVERIFY(store->databaseBytes() > 0);
        }
        auto postgres = openHistoryQuery(url);
        auto sqlite = openHistoryQuery(file);
        QVERIFY(postgres && sqlite);

        const auto pgSummaries = postgres->summaries({});
        const auto liteSummaries = sqlite->summaries({});
        QVERIFY2(pgSummaries, qPrintable(pgSummaries.error()));
        QVERIFY2(liteSummaries, qPrintable(liteSummaries.error()));
        QCOMPARE(pgSummaries->size(), 2);
        QCOMPARE(liteSummaries->size(), 2);
        for (int i = 0; i < 2; ++i) {
            const MonitorSummary &pg = pgSummaries->at(i);
            const MonitorSummary &lite = liteSummaries->at(i);
            QCOMPARE(pg.agent, lite.agent);
            QCOMPARE(pg.checks, lite.checks);
            QCOMPARE(pg.checksSucceeded, lite.checksSucceeded);
            QCOMPARE(pg.attempts, lite.attempts);
            QCOMPARE(pg.attemptsSucceeded, lite.attemptsSucceeded);
            QCOMPARE(pg.maintenanceChecks, lite.maintenanceChecks);
            QCOMPARE(pg.checkLatency.p50Ms, lite.checkLatency.p50Ms);
            QCOMPARE(pg.checkLatency.p99Ms, lite.checkLatency.p99Ms);
            QCOMPARE(pg.attemptLatency.p90Ms, lite.attemptLatency.p90Ms);
            QCOMPARE(pg.incidents, lite.incidents);
            QCOMPARE(pg.hiddenIncidents, lite.hiddenIncidents);
            QCOMPARE(pg.mtbfMs, lite.mtbfMs);
            QCOMPARE(pg.mttrMs, lite.mttrMs);
            QCOMPARE(pg.fromAggregates, lite.fromAggregates);
            QVERIFY(pg.checkLatency.p50Ms.has_value());
            QVERIFY(pg.incidents > 0);
        }
        QVERIFY(pgSummaries->at(0).fromAggregates);

        const auto pgIncidents = postgres->incidents({});
        const auto liteIncidents = sqlite->incidents({});
        QCOMPARE(pgIncidents->size(), liteIncidents->size());
        for (qsizetype i = 0; i < pgIncidents->size(); ++i) {
            QCOMPARE(pgIncidents->at(i).startMs, liteIncidents->at(i).startMs);
            QCOMPARE(pgIncidents->at(i).lastError, liteIncidents->at(i).lastError);
        }
        const auto pgObjective = postgres->objective(QStringLiteral("api"), 0.999, nowMs);
        const auto liteObjective = sqlite->objective(QStringLiteral("api"), 0.999, nowMs);
        QVERIFY2(pgObjective, qPrintable(pgObjective.error()));
        QCOMPARE(pgObjective->checks, liteObjective->checks);
        QCOMPARE(pgObjective->failedChecks, liteObjective->failedChecks);
        QCOMPARE(pgObjective->fromAggregates, liteObjective->fromAggregates);

        BackoffPolicy policy;
        policy.maxAttempts = 4;
        const auto pgWhatIf = postgres->whatIf(QStringLiteral("api"), 0, nowMs, policy, 3);
        const auto liteWhatIf = sqlite->whatIf(QStringLiteral("api"), 0, nowMs, policy, 3);
        QVERIFY2(pgWhatIf, qPrintable(pgWhatIf.error()));
        QCOMPARE(pgWhatIf->checksSimulated, liteWhatIf->checksSimulated);
        QCOMPARE(pgWhatIf->checksSucceeded, liteWhatIf->checksSucceeded);
        QCOMPARE(pgWhatIf->attempts, liteWhatIf->attempts);
        QVERIFY(pgWhatIf->checksSimulated > 0);
    }
};

QTEST_GUILESS_MAIN(TestHistoryPostgres)
#include "tst_historypostgres.moc"
