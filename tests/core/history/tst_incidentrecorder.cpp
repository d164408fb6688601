// Incidents kept as the writer found them (IncidentRecorder) against the
// incidents the checks alone make: random histories written in random batches,
// by writers that stop and start again in the middle of outages, part of them
// by a writer from before incidents were kept; then random windows read back
// through HistoryQuery and compared, field by field, with IncidentFinder fed the
// same checks.

#include "core/history/historyquery.h"
#include "core/history/historyschema.h"
#include "core/history/historystore.h"
#include "core/history/incidentfinder.h"
#include "core/util/randomsource.h"
#include "tests/core/history/historyfixtures.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Core;
using RetryLab::Testing::checkOf;
using RetryLab::Testing::openHistoryQuery;

namespace {

constexpr qint64 originMs = 1'709'251'200'000; // 2024-03-01T00:00:00Z
constexpr qint64 intervalMs = 10'000;
const QString monitorName = QStringLiteral("flaky");
const QString agentName = QStringLiteral("writer");

// Checks in runs: clean stretches, outages, stretches the retries hid, mixes of
// both, and now and then a maintenance check; attempt texts vary so that first
// and last errors are told apart.
QList<StoredCheck> randomHistory(RandomSource &random, int count)
{
    QList<StoredCheck> checks;
    int mode = 0;
    for (int i = 0; i < count; ++i) {
        if (random.uniform(0.0, 1.0) < 0.15)
            mode = random.uniformInt(0, 3);
        QList<bool> outcomes{true};
        const double draw = random.uniform(0.0, 1.0);
        if (mode == 1 || (mode == 3 && draw < 0.5))
            outcomes = QList<bool>(random.uniformInt(1, 3), false);
        else if (mode == 2 || (mode == 3 && draw < 0.8))
            outcomes = QList<bool>(random.uniformInt(1, 2), false) << true;
        StoredCheck check = checkOf(monitorName, agentName, originMs + i * intervalMs, outcomes, 20.0, 100);
        for (StoredAttempt &attempt : check.attempts) {
            if (!attempt.success)
                attempt.reason = QStringLiteral("HTTP %1: failure number %2").arg(500 + random.uniformInt(0, 4)).arg(i);
        }
        if (!check.success)
            check.reason = check.attempts.constLast().reason;
        check.maintenance = random.uniform(0.0, 1.0) < 0.02;
        checks.append(check);
    }
    return checks;
}

QList<Incident> expectedIncidents(const QList<StoredCheck> &checks, qint64 sinceMs, qint64 untilMs)
{
    IncidentFinder finder(monitorName, agentName);
    for (const StoredCheck &check : checks) {
        if (!check.maintenance && check.startMs >= sinceMs && check.startMs < untilMs)
            finder.add(incidentCheckOf(check));
    }
    return finder.finish();
}

QString describe(const Incident &i)
{
    return QStringLiteral("%1 %2 first %3 end %4 dur %5 checks %6 attempts %7/%8 [%9] [%10]")
        .arg(i.hidden ? QStringLiteral("hidden") : QStringLiteral("seen"))
        .arg(i.startMs - originMs)
        .arg(i.firstCheckMs - originMs)
        .arg(i.endMs ? QString::number(*i.endMs - originMs) : QStringLiteral("open"))
        .arg(i.durationMs)
        .arg(i.checks)
        .arg(i.failedAttempts)
        .arg(i.attempts)
        .arg(i.firstError, i.lastError);
}

QStringList described(const QList<Incident> &incidents)
{
    QStringList lines;
    for (const Incident &incident : incidents)
        lines << describe(incident);
    return lines;
}

// Writes `checks` in batches of random size, opening the store anew (a restart)
// every so often.
bool writeInBatches(const QString &file, const QList<StoredCheck> &checks, RandomSource &random)
{
    std::unique_ptr<HistoryStore> store;
    for (qsizetype i = 0; i < checks.size();) {
        if (!store || random.uniform(0.0, 1.0) < 0.2) {
            store.reset();
            auto opened = HistoryStore::open(file, agentName);
            if (!opened) {
                qWarning() << opened.error();
                return false;
            }
            store = std::move(opened).value();
        }
        const qsizetype batch = random.uniformInt(1, 200);
        for (qsizetype n = 0; n < batch && i < checks.size(); ++n, ++i)
            store->append(checks.at(i));
        if (!store->flush())
            return false;
    }
    return true;
}

} // namespace

class TestIncidentRecorder : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // Compares the incidents of many random windows, and their totals in the summary.
    static void compareWindows(const QString &file, const QList<StoredCheck> &checks, RandomSource &random)
    {
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        const qint64 endMs = originMs + checks.size() * intervalMs;
        QList<QPair<qint64, qint64>> windows{{originMs, endMs}};
        for (int i = 0; i < 60; ++i) {
            const qint64 a = originMs + random.uniformInt(0, checks.size()) * intervalMs + random.uniformInt(-1, 1);
            const qint64 b = originMs + random.uniformInt(0, checks.size()) * intervalMs + random.uniformInt(-1, 1);
            windows.append({std::min(a, b), std::max(a, b) + 1});
        }
        for (const auto &[sinceMs, untilMs] : windows) {
            const HistoryFilter filter{monitorName, QString(), sinceMs, untilMs};
            const auto read = query->incidents(filter);
            QVERIFY2(read, qPrintable(read.error()));
            const QList<Incident> expected = expectedIncidents(checks, sinceMs, untilMs);
            QCOMPARE(described(*read), described(expected));

            const auto summaries = query->summaries(filter, HistoryQuery::SummaryDetail::WithoutLatency);
            QVERIFY2(summaries, qPrintable(summaries.error()));
            if (summaries->isEmpty())
                continue;
            const MonitorSummary &summary = summaries->constFirst();
            qint64 seen = 0;
            for (const Incident &incident : expected)
                seen += incident.hidden ? 0 : 1;
            QCOMPARE(summary.incidents, seen);
            QCOMPARE(summary.hiddenIncidents, expected.size() - seen);
            QCOMPARE(summary.mttrMs, IncidentFinder::mttrMs(expected));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void storedIncidents_matchTheChecks_overRandomWindowsAndRestarts_data()
    {
        QTest::addColumn<quint64>("seed");
        for (const quint64 seed : {1ULL, 2ULL, 3ULL, 42ULL, 2026ULL})
            QTest::addRow("seed %llu", static_cast<unsigned long long>(seed)) << seed;
    }

    void storedIncidents_matchTheChecks_overRandomWindowsAndRestarts()
    {
        QFETCH(quint64, seed);
        RandomSource random(seed);
        const QList<StoredCheck> checks = randomHistory(random, 2000);
        const QString file = m_dir.filePath(QStringLiteral("random-%1.db").arg(seed));
        QVERIFY(writeInBatches(file, checks, random));
        {
            auto query = openHistoryQuery(file);
            QVERIFY(query);
            // The recorder kept them: a full window reads stored rows, not only checks.
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("count"));
            db.setDatabaseName(file);
            QVERIFY(db.open());
            QSqlQuery count(db);
            QVERIFY(count.exec(QStringLiteral("SELECT COUNT(*) FROM incidents")) && count.next());
            QVERIFY2(count.value(0).toLongLong() > 50, qPrintable(count.value(0).toString()));
        }
        QSqlDatabase::removeDatabase(QStringLiteral("count"));
        compareWindows(file, checks, random);
    }

    void migratedHistory_findsOldIncidentsInChecks_andKeepsNewOnes()
    {
        RandomSource random(7);
        const QList<StoredCheck> checks = randomHistory(random, 1500);
        const QString file = m_dir.filePath(QStringLiteral("migrated.db"));
        // The first half written as by a version-1 writer: no incidents kept.
        QVERIFY(writeInBatches(file, checks.mid(0, 750), random));
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("downgrade"));
            db.setDatabaseName(file);
            QVERIFY(db.open());
            QSqlQuery sql(db);
            QVERIFY(sql.exec(QStringLiteral("DROP TABLE incidents")));
            QVERIFY(sql.exec(QStringLiteral("DROP TABLE incident_cover")));
            // Nor the phases version 3 added.
            for (const char *column :
                {"checks DROP COLUMN a_dns", "checks DROP COLUMN a_send", "checks DROP COLUMN a_download",
                    "attempts DROP COLUMN dns", "attempts DROP COLUMN send", "attempts DROP COLUMN download"})
                QVERIFY2(sql.exec(QStringLiteral("ALTER TABLE ") + QLatin1String(column)), column);
            QVERIFY(sql.exec(QStringLiteral("UPDATE retrylab_meta SET value = '1' WHERE name = 'schema_version'")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("downgrade"));
        {
            // A writer upgrades it when it opens it.
            auto store = HistoryStore::open(file, agentName);
            QVERIFY2(store, qPrintable(store.error()));
        }
        compareWindows(file, checks.mid(0, 750), random);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(writeInBatches(file, checks.mid(750), random));
        compareWindows(file, checks, random);
    }

    void retention_dropsIncidentsWithTheirChecks_andTheEdgeIsFoundAgain()
    {
        RandomSource random(11);
        const QList<StoredCheck> checks = randomHistory(random, 1200);
        const QString file = m_dir.filePath(QStringLiteral("retention.db"));
        QVERIFY(writeInBatches(file, checks, random));
        // Retention cuts at a whole hour: check 360.
        const qint64 cutoffMs = originMs + 3'600'000;
        {
            HistoryStore::Options options;
            options.rawRetentionDays = 1;
            auto store = HistoryStore::open(file, agentName, options);
            QVERIFY2(store, qPrintable(store.error()));
            QVERIFY((*store)->applyRetention(cutoffMs + 86'400'000));
        }
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        const auto read = query->incidents({monitorName, QString(), originMs, originMs + 1200 * intervalMs});
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(described(*read), described(expectedIncidents(checks, cutoffMs, originMs + 1200 * intervalMs)));
    }
};

QTEST_GUILESS_MAIN(TestIncidentRecorder)
#include "tst_incidentrecorder.moc"
