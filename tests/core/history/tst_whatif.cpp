// What-if replays of recorded histories with known outages: no retries at all,
// the recorded policy itself, a backoff long enough to outlast the outage, the
// gap rule, the seed, and how a recorded cause becomes the classifier's input.

#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "core/history/whatifsimulator.h"
#include "tests/core/history/historyfixtures.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace RetryLab;
using namespace RetryLab::Core;
using RetryLab::Testing::checkOf;
using RetryLab::Testing::writeHistory;

namespace {

constexpr qint64 nowMs = 1'709'251'200'000; // 2024-03-01T00:00:00Z, a whole hour
constexpr qint64 secondMs = 1000;
constexpr qint64 minuteMs = 60 * secondMs;
constexpr qint64 hourMs = 60 * minuteMs;
constexpr qint64 outageStart = nowMs - 6 * hourMs;

// Every attempt fails during the first ten minutes of every hour.
bool inOutage(qint64 atMs)
{
    return (atMs - outageStart) % hourMs < 10 * minuteMs;
}

BackoffPolicy constantPolicy(const QString &name, double delayMs, int maxAttempts)
{
    BackoffPolicy policy;
    policy.name = name;
    policy.algorithm = BackoffAlgorithm::Constant;
    policy.baseDelayMs = delayMs;
    policy.maxBackoffMs = delayMs;
    policy.maxAttempts = maxAttempts;
    return policy;
}

BackoffPolicy noRetries()
{
    return constantPolicy(QStringLiteral("Custom"), 1000.0, 1);
}

} // namespace

class TestWhatIf : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_outages;
    QString m_gappy;

    static std::unique_ptr<HistoryQuery> openQuery(const QString &file)
    {
        auto query = HistoryQuery::open(file);
        if (!query) {
            qWarning() << query.error();
            return {};
        }
        return std::move(query).value();
    }

    std::optional<WhatIf> outagesUnder(const BackoffPolicy &policy, quint64 seed = 1)
    {
        auto query = openQuery(m_outages);
        if (!query)
            return std::nullopt;
        const auto result = query->whatIf(QStringLiteral("shop"), outageStart, nowMs, policy, seed);
        if (!result) {
            qWarning() << result.error();
            return std::nullopt;
        }
        return *result;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());

        // Six hours of checks every 10 s, recorded under up to 4 attempts 2 min
        // apart (each 50 ms): a check that starts within 4 min of an outage's start
        // fails; one that starts later succeeds once the outage is over.
        m_outages = m_dir.filePath(QStringLiteral("outages.db"));
        QList<StoredCheck> outages;
        for (qint64 t = outageStart; t < nowMs; t += 10 * secondMs) {
            QList<bool> attempts;
            for (int k = 0; k < 4; ++k) {
                attempts << !inOutage(t + k * 2 * minuteMs);
                if (attempts.constLast())
                    break;
            }
            outages << checkOf(QStringLiteral("shop"), QStringLiteral("a"), t, attempts, 50.0, 2 * minuteMs);
        }
        QVERIFY(writeHistory(m_outages, outages));

        // Two hours of checks every minute, but none from minute 30 to minute 89
        // (the agent was down); the checks at minutes 27, 28 and 29 failed.
        m_gappy = m_dir.filePath(QStringLiteral("gappy.db"));
        QList<StoredCheck> gappy;
        const qint64 start = nowMs - 2 * hourMs;
        for (int minute = 0; minute < 120; ++minute) {
            if (minute >= 30 && minute < 90)
                continue;
            const bool failed = minute >= 27 && minute <= 29;
            gappy << checkOf(QStringLiteral("gappy"), QStringLiteral("a"), start + minute * minuteMs, {!failed}, 50.0);
        }
        QVERIFY(writeHistory(m_gappy, gappy));
    }

    void recorded_hidesPartOfEachOutage()
    {
        auto query = openQuery(m_outages);
        QVERIFY(query);
        const auto summaries = query->summaries({});
        QCOMPARE(summaries->size(), 1);
        const MonitorSummary &recorded = summaries->at(0);
        QCOMPARE(recorded.checks, 6 * 360);
        QCOMPARE(recorded.checksSucceeded, 6 * (360 - 24));
        QCOMPARE(recorded.incidents, 6);
        QCOMPARE(recorded.hiddenIncidents, 6);
    }

    void none_availabilityDropsToThatOfFirstAttempts()
    {
        const auto none = outagesUnder(noRetries());
        QVERIFY(none);
        QCOMPARE(none->policyName, QStringLiteral("none"));
        QVERIFY(none->estimate);
        QCOMPARE(none->checksSimulated, 6 * 360);
        QCOMPARE(none->unknownChecks, 0);
        // Each check borrows its own first attempt: it fails for the 60 checks of
        // the ten minutes of outage of each hour, as the first attempts did.
        QCOMPARE(none->checksSucceeded, 6 * 300);
        QCOMPARE(none->checkAvailability.value(), 300.0 / 360.0);
        QCOMPARE(none->attemptsPerCheck.value(), 1.0);
        QCOMPARE(none->incidents, 6);
        QCOMPARE(none->hiddenIncidents, 0);
        QCOMPARE(none->gapMs, minuteMs); // twice the 10 s interval is below the 60 s floor
    }

    void recordedPolicy_givesBackTheRecordedFigures()
    {
        const auto replay = outagesUnder(constantPolicy(QStringLiteral("recorded"), 2.0 * minuteMs, 4));
        QVERIFY(replay);
        QCOMPARE(replay->policyName, QStringLiteral("recorded"));
        QCOMPARE(replay->checksSimulated, 6 * 360);
        QCOMPARE(replay->checksSucceeded, 6 * (360 - 24));
        QCOMPARE(replay->incidents, 6);
        QCOMPARE(replay->hiddenIncidents, 6);
    }

    void longBackoff_hidesTheOutage()
    {
        const auto none = outagesUnder(noRetries());
        const auto longer = outagesUnder(constantPolicy(QStringLiteral("patient"), 4.0 * minuteMs, 4));
        QVERIFY(none && longer);
        // Retries 4 min apart: the fourth attempt of any check lands after the outage.
        QCOMPARE(longer->checkAvailability.value(), 1.0);
        QVERIFY(*longer->checkAvailability > *none->checkAvailability);
        QVERIFY(*longer->attemptsPerCheck > *none->attemptsPerCheck);
        QCOMPARE(longer->incidents, 0);
        QCOMPARE(longer->hiddenIncidents, 6);
    }

    void gap_attemptsFarFromAnyRecordedOne_areUnknown()
    {
        auto query = openQuery(m_gappy);
        QVERIFY(query);
        const BackoffPolicy policy = constantPolicy(QStringLiteral("five minutes"), 5.0 * minuteMs, 3);
        // Default gap: twice the median interval (1 min), so 2 min. The retries of the
        // three failed checks fall 3 to 5 min after the last recorded attempt.
        const auto byDefault = query->whatIf(QStringLiteral("gappy"), 0, nowMs, policy, 1);
        QVERIFY2(byDefault, qPrintable(byDefault.error()));
        QCOMPARE(byDefault->gapMs, 2 * minuteMs);
        QCOMPARE(byDefault->unknownChecks, 3);
        QCOMPARE(byDefault->checksSimulated, 57);
        QCOMPARE(byDefault->checkAvailability.value(), 1.0);
        QCOMPARE(byDefault->incidents, 0);

        // A 15 min gap lets them borrow the failure at minute 29: they fail three times.
        WhatIfOptions wide;
        wide.gapMs = 15 * minuteMs;
        const auto widened = query->whatIf(QStringLiteral("gappy"), 0, nowMs, policy, 1, wide);
        QVERIFY2(widened, qPrintable(widened.error()));
        QCOMPARE(widened->gapMs, 15 * minuteMs);
        QCOMPARE(widened->unknownChecks, 0);
        QCOMPARE(widened->checksSimulated, 60);
        QCOMPARE(widened->checksSucceeded, 57);
        QCOMPARE(widened->attempts, 57 + 3 * 3);
        QCOMPARE(widened->incidents, 1);

        // The gap in the rule is the median interval, so one long hole does not widen it.
        QList<qint64> starts{0, 60'000, 120'000, 180'000, 3'780'000};
        QCOMPARE(WhatIfSimulator::defaultGapMs(starts), 2 * minuteMs);
        QCOMPARE(WhatIfSimulator::defaultGapMs({0, 10'000, 20'000}), minuteMs);
        QCOMPARE(WhatIfSimulator::defaultGapMs({}), minuteMs);
    }

    void seed_sameSeedSameFigures_otherSeedsOtherDraws()
    {
        BackoffPolicy jittered;
        jittered.name = QStringLiteral("full jitter");
        jittered.algorithm = BackoffAlgorithm::FullJitter;
        jittered.baseDelayMs = 30'000.0;
        jittered.multiplier = 2.0;
        jittered.maxBackoffMs = 600'000.0;
        jittered.maxAttempts = 6;
        const auto first = outagesUnder(jittered, 7);
        const auto again = outagesUnder(jittered, 7);
        QVERIFY(first && again);
        QCOMPARE(again->checksSucceeded, first->checksSucceeded);
        QCOMPARE(again->attempts, first->attempts);
        QCOMPARE(again->incidents, first->incidents);
        QCOMPARE(again->hiddenIncidents, first->hiddenIncidents);
        QCOMPARE(again->unknownChecks, first->unknownChecks);
        std::set<qint64> attempts;
        for (quint64 seed = 1; seed <= 5; ++seed)
            attempts.insert(outagesUnder(jittered, seed)->attempts);
        QVERIFY2(attempts.size() > 1, "the seed changes nothing");
    }

    void whatIf_refusesAnUnknownMonitorAndABrokenPolicy()
    {
        auto query = openQuery(m_outages);
        QVERIFY(query);
        const auto unknown = query->whatIf(QStringLiteral("nope"), 0, nowMs, noRetries(), 1);
        QVERIFY(!unknown);
        QVERIFY2(unknown.error().contains(QLatin1String("nope")), qPrintable(unknown.error()));
        BackoffPolicy broken = noRetries();
        broken.maxAttempts = 0;
        broken.deadlineMs = 0.0;
        QVERIFY(!query->whatIf(QStringLiteral("shop"), 0, nowMs, broken, 1));
    }

    void observationOf_recordedCauses_data()
    {
        QTest::addColumn<int>("status"); // 0: none
        QTest::addColumn<QString>("cause");
        QTest::addColumn<bool>("retried");
        QTest::addRow("a 503 is retried") << 503 << QStringLiteral("http-503") << true;
        QTest::addRow("a 404 is not") << 404 << QStringLiteral("http-404") << false;
        QTest::addRow("a refused connection is retried") << 0 << QStringLiteral("connection-refused") << true;
        QTest::addRow("a reset is retried") << 0 << QStringLiteral("connection-reset") << true;
        QTest::addRow("an unknown host is not") << 0 << QStringLiteral("host-not-found") << false;
        QTest::addRow("an attempt timeout is retried") << 0 << QStringLiteral("attempt-timeout") << true;
        QTest::addRow("a failed condition is retried as a 5xx") << 200 << QStringLiteral("condition") << true;
        QTest::addRow("a monitor's GET may be repeated") << 503 << QStringLiteral("http-503/not-idempotent") << true;
        QTest::addRow("a broken stream is retried") << 200 << QStringLiteral("broken-stream") << true;
    }

    void observationOf_recordedCauses()
    {
        QFETCH(int, status);
        QFETCH(QString, cause);
        QFETCH(bool, retried);
        const AttemptObservation observation
            = WhatIfSimulator::observationOf(status ? std::optional<int>(status) : std::nullopt, cause);
        QCOMPARE(observation.method, QByteArray("GET"));
        const Classification c = classify(observation, ClassificationRules());
        QCOMPARE(c.isRetry(), retried);
    }

    void policyThatRetriesNo5xx_behavesAsNone()
    {
        BackoffPolicy only429 = constantPolicy(QStringLiteral("429 only"), 4.0 * minuteMs, 4);
        only429.classification.retryableStatuses = {429};
        const auto result = outagesUnder(only429);
        QVERIFY(result);
        QCOMPARE(result->checksSucceeded, 6 * 300);
        QCOMPARE(result->attemptsPerCheck.value(), 1.0);
    }
};

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_whatif.moc"
