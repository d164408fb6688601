// The figures read back from a hand-built history, with every expected value
// worked out by hand: availability of checks and of attempts, maintenance left
// out, seen and hidden incidents, MTBF and MTTR, percentiles, per-agent rows,
// and an objective's error budget and burn rates.

#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "tests/core/history/historyfixtures.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Core;
using RetryLab::Testing::checkOf;
using RetryLab::Testing::openHistoryQuery;
using RetryLab::Testing::writeHistory;

namespace {

constexpr qint64 nowMs = 1'709'251'200'000; // 2024-03-01T00:00:00Z
constexpr qint64 minuteMs = 60'000;
constexpr qint64 t0 = nowMs - 24 * 3'600'000;

const QString http503 = QStringLiteral("HTTP 503: server error; transient, retry after a delay");
const QString http502 = QStringLiteral("HTTP 502: bad gateway");
const QString reset = QStringLiteral("the connection was reset; retry after a delay");

qint64 startOf(int i)
{
    return t0 + i * minuteMs;
}

} // namespace

class TestHistoryQuery : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_incidents;

    // Monitor "api" as agent "a", one check a minute; attempts 1 s apart, 20 ms each:
    //  0, 1 ok | 2, 3 failed | 4 failed in maintenance | 5 ok | 6, 7 ok after failed
    //  attempts (6's first attempt 5 ms after its start) | 8 ok | 9 failed | 10 ok after a failed attempt | 11 ok | 12
    //  failed.
    // And agent "b" of the same monitor: three checks, one failed.
    static QList<StoredCheck> handBuilt()
    {
        const QString api = QStringLiteral("api");
        const QString a = QStringLiteral("a");
        QList<StoredCheck> checks;
        checks << checkOf(api, a, startOf(0), {true}) << checkOf(api, a, startOf(1), {true})
               << checkOf(api, a, startOf(2), {false, false});
        StoredCheck three = checkOf(api, a, startOf(3), {false, false, false});
        three.attempts[2].status = 502;
        three.attempts[2].cause = QStringLiteral("http-502");
        three.attempts[2].reason = http502;
        three.finalStatus = 502;
        three.reason = http502;
        StoredCheck maintenance = checkOf(api, a, startOf(4), {false});
        maintenance.maintenance = true;
        // Check 6 waited 5 ms in the queue: its failed attempt starts after the check.
        StoredCheck six = checkOf(api, a, startOf(6), {false, true});
        six.attempts[0].startMs += 5;
        StoredCheck seven = checkOf(api, a, startOf(7), {false, false, true});
        seven.attempts[1].status.reset();
        seven.attempts[1].cause = QStringLiteral("connection-reset");
        seven.attempts[1].reason = reset;
        checks << three << maintenance << checkOf(api, a, startOf(5), {true}) << six << seven
               << checkOf(api, a, startOf(8), {true}) << checkOf(api, a, startOf(9), {false})
               << checkOf(api, a, startOf(10), {false, true}) << checkOf(api, a, startOf(11), {true})
               << checkOf(api, a, startOf(12), {false});
        const QString b = QStringLiteral("b");
        checks << checkOf(api, b, startOf(0) + 500, {true}) << checkOf(api, b, startOf(1) + 500, {false})
               << checkOf(api, b, startOf(2) + 500, {true});
        return checks;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_incidents = m_dir.filePath(QStringLiteral("incidents.db"));
        QVERIFY(writeHistory(m_incidents, handBuilt()));
    }

    void summary_countsChecksAndAttempts_leavesMaintenanceOut()
    {
        auto query = openHistoryQuery(m_incidents);
        QVERIFY(query);
        const auto summaries = query->summaries({});
        QVERIFY2(summaries, qPrintable(summaries.error()));
        QCOMPARE(summaries->size(), 2);
        const MonitorSummary &s = summaries->at(0);
        QCOMPARE(s.monitor, QStringLiteral("api"));
        QCOMPARE(s.agent, QStringLiteral("a"));
        QCOMPARE(s.checks, 12);
        QCOMPARE(s.checksSucceeded, 8);
        QCOMPARE(s.maintenanceChecks, 1);
        // 1+1+2+3 +1+2+3+1 +1+2+1+1 attempts, one success in each succeeded check.
        QCOMPARE(s.attempts, 19);
        QCOMPARE(s.attemptsSucceeded, 8);
        QCOMPARE(s.checkAvailability.value(), 8.0 / 12.0);
        QCOMPARE(s.attemptAvailability.value(), 8.0 / 19.0);
        QCOMPARE(s.attemptsPerCheck.value(), 19.0 / 12.0);
        QVERIFY(!s.fromAggregates);

        const MonitorSummary &b = summaries->at(1);
        QCOMPARE(b.agent, QStringLiteral("b"));
        QCOMPARE(b.checks, 3);
        QCOMPARE(b.checksSucceeded, 2);
        QCOMPARE(b.incidents, 1);
        QCOMPARE(b.mttrMs.value(), 60'000.0);
    }

    void checkPoints_carryAttemptsAndTheirTimes_withoutTexts()
    {
        auto query = openHistoryQuery(m_incidents);
        QVERIFY(query);
        const auto points = query->checkPoints({QStringLiteral("api"), QStringLiteral("a"), startOf(3), startOf(8)});
        QVERIFY2(points, qPrintable(points.error()));
        QCOMPARE(points->size(), 5);
        const CheckPoint &three = points->at(0);
        QCOMPARE(three.startMs, startOf(3));
        QCOMPARE(three.attempts, 3);
        QCOMPARE(three.failedAttempts, 3);
        QVERIFY(!three.success);
        QCOMPARE(three.durationMs, 2020.0F); // three attempts 1 s apart, the last 20 ms long
        QCOMPARE(three.attemptMinMs, 20.0F);
        QCOMPARE(three.attemptMaxMs, 20.0F);
        QVERIFY(points->at(1).maintenance);
        QVERIFY(points->at(2).success);
        QCOMPARE(points->at(2).attempts, 1);
        const CheckPoint &seven = points->at(4);
        QCOMPARE(seven.startMs, startOf(7));
        QCOMPARE(seven.attempts, 3);
        QCOMPARE(seven.failedAttempts, 2);
        QVERIFY(seven.success);
        // Both agents, merged in start order.
        const auto both = query->checkPoints({QStringLiteral("api"), QString(), startOf(0), startOf(2)});
        QCOMPARE(both->size(), 4);
        QCOMPARE(both->at(1).startMs, startOf(0) + 500);
        QVERIFY(!both->at(3).success);
    }

    void summary_filtersByAgentMonitorAndWindow()
    {
        auto query = openHistoryQuery(m_incidents);
        QVERIFY(query);
        const auto onlyB = query->summaries({QStringLiteral("api"), QStringLiteral("b"), 0, nowMs});
        QCOMPARE(onlyB->size(), 1);
        QCOMPARE(onlyB->at(0).agent, QStringLiteral("b"));
        QCOMPARE(query->summaries({QStringLiteral("nothing"), QString(), 0, nowMs})->size(), 0);
        // Checks 5 to 8 of agent a: all succeeded, three after failed attempts.
        const auto window = query->summaries({QString(), QStringLiteral("a"), startOf(5), startOf(9)});
        QCOMPARE(window->size(), 1);
        QCOMPARE(window->at(0).checks, 4);
        QCOMPARE(window->at(0).checksSucceeded, 4);
        QCOMPARE(window->at(0).attempts, 7);
        QCOMPARE(window->at(0).checkAvailability.value(), 1.0);
        QCOMPARE(window->at(0).incidents, 0);
        QCOMPARE(window->at(0).hiddenIncidents, 1);
        QVERIFY(!window->at(0).mtbfMs);
        QVERIFY(!window->at(0).mttrMs);
        const auto empty = query->summaries({QString(), QString(), nowMs, nowMs + minuteMs});
        QCOMPARE(empty->size(), 0);
    }

    void incidents_seenAndHidden_exactly()
    {
        auto query = openHistoryQuery(m_incidents);
        QVERIFY(query);
        const auto incidents = query->incidents({QStringLiteral("api"), QStringLiteral("a"), 0, nowMs});
        QVERIFY2(incidents, qPrintable(incidents.error()));
        QCOMPARE(incidents->size(), 5);

        const Incident &first = incidents->at(0); // checks 2 and 3; 4 is maintenance; 5 ends it
        QVERIFY(!first.hidden);
        QCOMPARE(first.startMs, startOf(2));
        QCOMPARE(first.endMs.value(), startOf(5));
        QCOMPARE(first.durationMs, 3 * minuteMs);
        QCOMPARE(first.firstError, http503);
        QCOMPARE(first.lastError, http502);
        QCOMPARE(first.checks, 2);
        QCOMPARE(first.attempts, 5);

        const Incident &hidden = incidents->at(1); // checks 6 and 7 succeeded after failures
        QVERIFY(hidden.hidden);
        QCOMPARE(hidden.startMs, startOf(6) + 5);
        QCOMPARE(hidden.endMs.value(), startOf(7) + 2020);
        QCOMPARE(hidden.durationMs, minuteMs + 2020 - 5);
        QCOMPARE(hidden.firstError, http503);
        QCOMPARE(hidden.lastError, reset);
        QCOMPARE(hidden.checks, 2);
        QCOMPARE(hidden.attempts, 5);

        const Incident &second = incidents->at(2); // check 9; check 10 succeeded
        QVERIFY(!second.hidden);
        QCOMPARE(second.startMs, startOf(9));
        QCOMPARE(second.endMs.value(), startOf(10));
        QCOMPARE(second.durationMs, minuteMs);
        QCOMPARE(second.attempts, 1);

        const Incident &hiddenAgain = incidents->at(3); // check 10, after a failed attempt
        QVERIFY(hiddenAgain.hidden);
        QCOMPARE(hiddenAgain.startMs, startOf(10));
        QCOMPARE(hiddenAgain.endMs.value(), startOf(10) + 1020);
        QCOMPARE(hiddenAgain.attempts, 2);

        const Incident &open = incidents->at(4); // check 12: still failing at the end
        QVERIFY(!open.hidden);
        QCOMPARE(open.startMs, startOf(12));
        QVERIFY(!open.endMs);
        QCOMPARE(open.durationMs, 20);
        QCOMPARE(open.firstError, http503);

        for (const Incident &incident : *incidents) {
            QCOMPARE(incident.monitor, QStringLiteral("api"));
            QCOMPARE(incident.agent, QStringLiteral("a"));
        }
        // Both agents' incidents come sorted by start.
        const auto all = query->incidents({});
        QCOMPARE(all->size(), 6);
        QCOMPARE(all->at(0).agent, QStringLiteral("b"));
        QCOMPARE(all->at(0).startMs, startOf(1) + 500);
        QCOMPARE(all->at(1).startMs, startOf(2));
    }

    void incidents_ofAMonitorInTroubleForDays_likeThoseOfAFewChecks()
    {
        // Past 20,000 failed or retried checks the incidents come from one pass over
        // the range instead of the partial index: the same rules, the same figures.
        // Blocks of 8 checks a minute apart: failed, failed, retried, clean,
        // retried, retried, clean, clean: one seen incident and two hidden a block.
        const QString file = m_dir.filePath(QStringLiteral("trouble.db"));
        const QList<QList<bool>> block{
            {false}, {false}, {false, true}, {true}, {false, true}, {false, true}, {true}, {true}};
        constexpr int blocks = 4100;
        QList<StoredCheck> checks;
        for (int b = 0; b < blocks; ++b) {
            for (int i = 0; i < block.size(); ++i)
                checks << checkOf(QStringLiteral("busy"), QStringLiteral("a"),
                    nowMs - 30LL * 24 * 3'600'000 + (b * 8 + i) * minuteMs, block.at(i));
        }
        QVERIFY(writeHistory(file, checks));
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        for (const auto &[since, count] : {std::pair<qint64, int>{0, blocks},
                 {checks.at(8 * 100).startMs, blocks - 100}, {checks.at(8 * (blocks - 10)).startMs, 10}}) {
            const auto summaries = query->summaries({QString(), QString(), since, nowMs});
            QVERIFY2(summaries, qPrintable(summaries.error()));
            QCOMPARE(summaries->at(0).incidents, count);
            QCOMPARE(summaries->at(0).hiddenIncidents, 2 * count);
            QCOMPARE(summaries->at(0).mttrMs.value(), 2.0 * minuteMs);
            const auto incidents = query->incidents({QString(), QString(), since, nowMs});
            QCOMPARE(incidents->size(), 3 * count);
            const qint64 first = std::max(since, checks.at(0).startMs);
            QCOMPARE(incidents->at(0).startMs, first);
            QCOMPARE(incidents->at(0).endMs.value(), first + 2 * minuteMs);
            QCOMPARE(incidents->at(1).startMs, first + 2 * minuteMs);
            QCOMPARE(incidents->at(1).checks, 1);
            QCOMPARE(incidents->at(2).startMs, first + 4 * minuteMs);
            QCOMPARE(incidents->at(2).checks, 2);
            QCOMPARE(incidents->at(2).attempts, 4);
        }
    }

    void summary_mtbfAndMttr()
    {
        auto query = openHistoryQuery(m_incidents);
        QVERIFY(query);
        const auto summaries = query->summaries({QString(), QStringLiteral("a"), 0, nowMs});
        const MonitorSummary &s = summaries->at(0);
        QCOMPARE(s.incidents, 3);
        QCOMPARE(s.hiddenIncidents, 2);
        // Repaired: 3 min and 1 min. Observed from check 0's start to check 12's
        // end (12 min + 20 ms); down 3 min + 1 min + 20 ms (the open one); up 8 min
        // between 3 failures.
        QCOMPARE(s.mttrMs.value(), 2.0 * minuteMs);
        QCOMPARE(s.mtbfMs.value(), 8.0 * minuteMs / 3.0);
    }

    void summary_percentiles_nearestRank()
    {
        // Check i (1..100) lasts i ms and its one attempt i ms; ten of them had a
        // retry of 1000 + i ms first; a maintenance check of 5 s is left out.
        const QString file = m_dir.filePath(QStringLiteral("percentiles.db"));
        QList<StoredCheck> checks;
        for (int i = 1; i <= 100; ++i) {
            const bool retried = i % 10 == 0;
            StoredCheck check = checkOf(QStringLiteral("p"), QStringLiteral("a"), t0 + i * minuteMs,
                retried ? QList<bool>{false, true} : QList<bool>{true}, i);
            if (retried)
                check.attempts[0].totalMs = 1000 + i / 10;
            check.endMs = check.startMs + i;
            checks << check;
        }
        StoredCheck maintenance = checkOf(QStringLiteral("p"), QStringLiteral("a"), t0, {true}, 5000);
        maintenance.maintenance = true;
        checks << maintenance;
        QVERIFY(writeHistory(file, checks));
        auto query = openHistoryQuery(file);
        QVERIFY(query);
        const auto summaries = query->summaries({});
        QCOMPARE(summaries->size(), 1);
        const MonitorSummary &s = summaries->at(0);
        QCOMPARE(s.checkLatency.p50Ms.value(), 50.0);
        QCOMPARE(s.checkLatency.p90Ms.value(), 90.0);
        QCOMPARE(s.checkLatency.p99Ms.value(), 99.0);
        // 110 attempts: 1..100 ms and 1001..1010 ms. Ranks 55, 99 and 109.
        QCOMPARE(s.attemptLatency.p50Ms.value(), 55.0);
        QCOMPARE(s.attemptLatency.p90Ms.value(), 99.0);
        QCOMPARE(s.attemptLatency.p99Ms.value(), 1009.0);
        QCOMPARE(s.attempts, 110);
        QCOMPARE(s.hiddenIncidents, 10);
    }

    void objective_budgetAndBurnRates_ofAKnownMonth()
    {
        // One check a minute (at :30) for 30 days before now; the checks 1, 2 and 3
        // minutes ago and 11 to 17 minutes ago failed: 10 failures, 3 of them in
        // the last five minutes.
        const QString file = m_dir.filePath(QStringLiteral("objective.db"));
        QList<StoredCheck> checks;
        for (int k = 0; k < 30 * 24 * 60; ++k) {
            const bool failed = (k >= 0 && k <= 2) || (k >= 10 && k <= 16);
            checks << checkOf(QStringLiteral("slo"), QStringLiteral("a"), nowMs - k * minuteMs - 30'000, {!failed});
        }
        checks << checkOf(QStringLiteral("slo"), QStringLiteral("b"), nowMs - 100 * minuteMs, {true});
        QVERIFY(writeHistory(file, checks));
        auto query = openHistoryQuery(file);
        QVERIFY(query);

        const auto status = query->objective(QStringLiteral("slo"), 0.99, nowMs);
        QVERIFY2(status, qPrintable(status.error()));
        QCOMPARE(status->checks, 43'201);
        QCOMPARE(status->failedChecks, 10);
        QCOMPARE(status->allowedFailures, 0.01 * 43'201);
        QVERIFY(qAbs(*status->budgetRemaining - (1.0 - 10.0 / 432.01)) < 1e-9);
        QCOMPARE(status->longWindow.windowMs, 3'600'000);
        QCOMPARE(status->longWindow.checks, 60);
        QCOMPARE(status->longWindow.failedChecks, 10);
        QVERIFY(qAbs(*status->longWindow.rate - (10.0 / 60.0) / 0.01) < 1e-9); // 16.7
        QCOMPARE(status->shortWindow.checks, 5);
        QCOMPARE(status->shortWindow.failedChecks, 3);
        QVERIFY(qAbs(*status->shortWindow.rate - 60.0) < 1e-9);
        QCOMPARE(status->burnRateThreshold, 14.4);
        QVERIFY(status->alerting);

        // Twenty minutes later the last hour still burns, the last five minutes do not.
        const auto later = query->objective(QStringLiteral("slo"), 0.99, nowMs + 20 * minuteMs);
        QCOMPARE(later->shortWindow.checks, 0);
        QVERIFY(!later->shortWindow.rate);
        QVERIFY(!later->alerting);
        // A laxer objective: 10 failures in an hour is a burn of 1.67, no page.
        const auto lax = query->objective(QStringLiteral("slo"), 0.9, nowMs);
        QVERIFY(!lax->alerting);
        QVERIFY(qAbs(*lax->longWindow.rate - (10.0 / 60.0) / 0.1) < 1e-9);

        QVERIFY(!query->objective(QStringLiteral("slo"), 1.0, nowMs));
        const auto unknown = query->objective(QStringLiteral("nothing"), 0.99, nowMs);
        QVERIFY(!unknown);
        QVERIFY2(unknown.error().contains(QLatin1String("nothing")), qPrintable(unknown.error()));
    }
};

QTEST_GUILESS_MAIN(TestHistoryQuery)
#include "tst_historyquery.moc"
