#include "core/record/runrecord.h"
#include "core/record/runstatistics.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace RetryLab::Core;

namespace {

constexpr qint64 ms = 1'000'000;

AttemptRecord attempt(quint64 request, int index, qint64 startMs, qint64 endMs, Classification::Decision decision,
    const QString &cause, double nextDelayMs = -1.0, AttemptEnd end = AttemptEnd::Response)
{
    AttemptRecord r;
    r.requestId = request;
    r.attemptIndex = index;
    r.startNs = startMs * ms;
    r.endNs = endMs * ms;
    r.decision = decision;
    r.cause = cause;
    r.nextDelayMs = nextDelayMs;
    r.end = end;
    return r;
}

RequestResult result(quint64 request, RequestOutcome outcome, int attempts, qint64 startMs, qint64 endMs)
{
    RequestResult r;
    r.requestId = request;
    r.outcome = outcome;
    r.attempts = attempts;
    r.startNs = startMs * ms;
    r.endNs = endMs * ms;
    return r;
}

using D = Classification::Decision;

// A small run worked out by hand (times in ms since the origin):
//   request 1: 503 [0,100] retried, 503 [300,420] retried, 200 [900,980]   -> succeeded, 3 attempts
//   request 2: 200 [10,60]                                                 -> succeeded, 1 attempt
//   request 3: refused [20,30] retried, refused [530,540] not retried      -> attempts exhausted, 2
//   request 4: cancelled by the user [40,1040]                             -> cancelled, 1
//   request 5: invalid URL, refused before any attempt                     -> invalid request, 0
RunRecord handRun()
{
    RunRecord run;
    run.attempts = {
        attempt(1, 0, 0, 100, D::RetryAfterDelay, QStringLiteral("http-503"), 200),
        attempt(2, 0, 10, 60, D::Success, QStringLiteral("http-200")),
        attempt(3, 0, 20, 30, D::RetryAfterDelay, QStringLiteral("connection-refused"), 500),
        attempt(1, 1, 300, 420, D::RetryAfterDelay, QStringLiteral("http-503"), 480),
        attempt(3, 1, 530, 540, D::RetryAfterDelay, QStringLiteral("connection-refused")),
        attempt(1, 2, 900, 980, D::Success, QStringLiteral("http-200")),
        attempt(4, 0, 40, 1040, D::GiveUp, QStringLiteral("cancelled"), -1, AttemptEnd::Cancelled),
    };
    run.results = {
        result(2, RequestOutcome::Succeeded, 1, 10, 60),
        result(3, RequestOutcome::AttemptsExhausted, 2, 20, 540),
        result(1, RequestOutcome::Succeeded, 3, 0, 980),
        result(4, RequestOutcome::Cancelled, 1, 40, 1040),
        result(5, RequestOutcome::InvalidRequest, 0, 50, 50),
    };
    return run;
}

} // namespace

class TestRunStatistics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void attemptOutcome_fromRecord_data();
    void attemptOutcome_fromRecord();
    void percentile_nearestRank_data();
    void percentile_nearestRank();
    void percentile_outOfRangeOrEmpty_none();
    void percentile_valuesAddedAfterQuery_areMergedIn();
    void percentile_nonFiniteValues_ignored();
    void handRun_countsAndRates();
    void handRun_histogramAndAmplification();
    void handRun_latencyPercentiles();
    void handRun_errorsOverTimeTable();
    void errorsOverTime_beyondMaxBins_mergesNeighbours();
    void errorsOverTime_hugeOrEarlyTimes_stayBounded();
    void empty_hasNoRates();
    void incremental_equalsFromRecord();
    void clear_keepsSettingsForgetsRecords();
};

void TestRunStatistics::attemptOutcome_fromRecord_data()
{
    QTest::addColumn<int>("decision");
    QTest::addColumn<double>("nextDelayMs");
    QTest::addColumn<int>("end");
    QTest::addColumn<AttemptOutcome>("expected");

    QTest::addRow("success") << int(D::Success) << -1.0 << int(AttemptEnd::Response) << AttemptOutcome::Success;
    QTest::addRow("rmw read then write") << int(D::Success) << 0.0 << int(AttemptEnd::Response)
                                         << AttemptOutcome::Success;
    QTest::addRow("retry scheduled") << int(D::RetryAfterDelay) << 1200.0 << int(AttemptEnd::Response)
                                     << AttemptOutcome::Retried;
    QTest::addRow("immediate retry") << int(D::RetryImmediately) << 0.0 << int(AttemptEnd::NetworkError)
                                     << AttemptOutcome::Retried;
    QTest::addRow("retryable but exhausted")
        << int(D::RetryAfterDelay) << -1.0 << int(AttemptEnd::Response) << AttemptOutcome::Failed;
    QTest::addRow("give up") << int(D::GiveUp) << -1.0 << int(AttemptEnd::Response) << AttemptOutcome::Failed;
    QTest::addRow("cancelled") << int(D::GiveUp) << -1.0 << int(AttemptEnd::Cancelled) << AttemptOutcome::Cancelled;
    QTest::addRow("deadline") << int(D::GiveUp) << -1.0 << int(AttemptEnd::Deadline) << AttemptOutcome::Failed;
}

void TestRunStatistics::attemptOutcome_fromRecord()
{
    QFETCH(int, decision);
    QFETCH(double, nextDelayMs);
    QFETCH(int, end);
    QFETCH(AttemptOutcome, expected);
    AttemptRecord r;
    r.decision = static_cast<D>(decision);
    r.nextDelayMs = nextDelayMs;
    r.end = static_cast<AttemptEnd>(end);
    QCOMPARE(attemptOutcomeOf(r), expected);
}

void TestRunStatistics::percentile_nearestRank_data()
{
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<double>("percentile");
    QTest::addColumn<double>("expected");

    // The textbook nearest-rank example: 15, 20, 35, 40, 50 (given out of order).
    const QList<double> five{40, 15, 50, 35, 20};
    QTest::addRow("5 values p0 is the minimum") << five << 0.0 << 15.0;
    QTest::addRow("5 values p5 -> rank 1") << five << 5.0 << 15.0;
    QTest::addRow("5 values p30 -> rank 2") << five << 30.0 << 20.0;
    QTest::addRow("5 values p40 -> rank 2 exactly") << five << 40.0 << 20.0;
    QTest::addRow("5 values p50 -> rank 3") << five << 50.0 << 35.0;
    QTest::addRow("5 values p100 -> rank 5") << five << 100.0 << 50.0;

    QList<double> ten;
    for (int i = 10; i >= 1; --i)
        ten.append(i * 10.0);
    QTest::addRow("10 values p50 -> rank 5") << ten << 50.0 << 50.0;
    QTest::addRow("10 values p90 -> rank 9, not 10") << ten << 90.0 << 90.0;
    QTest::addRow("10 values p91 -> rank 10") << ten << 91.0 << 100.0;
    QTest::addRow("10 values p99 -> rank 10") << ten << 99.0 << 100.0;

    QList<double> hundred;
    for (int i = 1; i <= 100; ++i)
        hundred.append(i);
    QTest::addRow("100 values p99 -> 99") << hundred << 99.0 << 99.0;
    QTest::addRow("100 values p99.5 -> 100") << hundred << 99.5 << 100.0;
    QTest::addRow("single value") << QList<double>{7.5} << 99.0 << 7.5;
    QTest::addRow("duplicates") << QList<double>{3, 3, 3, 1} << 50.0 << 3.0;
}

void TestRunStatistics::percentile_nearestRank()
{
    QFETCH(QList<double>, values);
    QFETCH(double, percentile);
    QFETCH(double, expected);
    RunStatistics::Sample sample;
    for (double v : values)
        sample.add(v);
    QCOMPARE(sample.count(), values.size());
    QCOMPARE(sample.percentile(percentile), std::optional<double>(expected));
}

void TestRunStatistics::percentile_outOfRangeOrEmpty_none()
{
    RunStatistics::Sample sample;
    QVERIFY(!sample.percentile(50));
    sample.add(1.0);
    QVERIFY(!sample.percentile(-1));
    QVERIFY(!sample.percentile(100.5));
    QVERIFY(!sample.percentile(std::numeric_limits<double>::quiet_NaN()));
}

void TestRunStatistics::percentile_valuesAddedAfterQuery_areMergedIn()
{
    RunStatistics::Sample sample;
    for (double v : {5.0, 1.0, 9.0})
        sample.add(v);
    QCOMPARE(sample.percentile(50), std::optional<double>(5.0));
    // Smaller and larger values arrive after the first sort.
    for (double v : {0.5, 7.0, 2.0, 10.0})
        sample.add(v);
    // 0.5 1 2 5 7 9 10: p50 -> rank 4 -> 5; p90 -> rank ceil(6.3) = 7 -> 10; p0 -> 0.5
    QCOMPARE(sample.percentile(50), std::optional<double>(5.0));
    QCOMPARE(sample.percentile(90), std::optional<double>(10.0));
    QCOMPARE(sample.percentile(0), std::optional<double>(0.5));
    QCOMPARE(sample.percentile(30), std::optional<double>(2.0)); // rank ceil(2.1) = 3
}

void TestRunStatistics::percentile_nonFiniteValues_ignored()
{
    RunStatistics::Sample sample;
    sample.add(std::numeric_limits<double>::quiet_NaN());
    sample.add(std::numeric_limits<double>::infinity());
    sample.add(4.0);
    QCOMPARE(sample.count(), 1);
    QCOMPARE(sample.percentile(99), std::optional<double>(4.0));
}

void TestRunStatistics::handRun_countsAndRates()
{
    const RunStatistics s = RunStatistics::fromRecord(handRun());
    QCOMPARE(s.attemptCount(), 7);
    QCOMPARE(s.attemptCount(AttemptOutcome::Success), 2);
    QCOMPARE(s.attemptCount(AttemptOutcome::Retried), 3);
    QCOMPARE(s.attemptCount(AttemptOutcome::Failed), 1);
    QCOMPARE(s.attemptCount(AttemptOutcome::Cancelled), 1);
    QCOMPARE(s.attemptCount(AttemptOutcome::InFlight), 0);

    QCOMPARE(s.requestCount(), 5);
    QCOMPARE(s.requestCount(RequestOutcome::Succeeded), 2);
    QCOMPARE(s.requestCount(RequestOutcome::AttemptsExhausted), 1);
    QCOMPARE(s.requestCount(RequestOutcome::Cancelled), 1);
    QCOMPARE(s.requestCount(RequestOutcome::InvalidRequest), 1);
    QCOMPARE(s.requestCount(RequestOutcome::CircuitOpen), 0);
    // 2 succeeded of the 5 finished: the cancelled one counts against the rate.
    QCOMPARE(s.successRate(), std::optional<double>(0.4));
}

void TestRunStatistics::handRun_histogramAndAmplification()
{
    const RunStatistics s = RunStatistics::fromRecord(handRun());
    const QMap<int, qint64> expected{{0, 1}, {1, 2}, {2, 1}, {3, 1}};
    QCOMPARE(s.attemptsHistogram(), expected);
    QCOMPARE(s.attemptsOfFinishedRequests(), 7);
    QCOMPARE(s.retryAmplification(), std::optional<double>(7.0 / 5.0));
}

void TestRunStatistics::handRun_latencyPercentiles()
{
    const RunStatistics s = RunStatistics::fromRecord(handRun());
    // Attempts without the cancelled one: 100 50 10 120 10 80 -> 10 10 50 80 100 120.
    QCOMPARE(s.attemptLatencyCount(), 6);
    QCOMPARE(s.attemptLatency().p50, std::optional<double>(50.0)); // rank 3
    QCOMPARE(s.attemptLatency().p90, std::optional<double>(120.0)); // rank ceil(5.4) = 6
    QCOMPARE(s.attemptLatency().p99, std::optional<double>(120.0));
    QCOMPARE(s.attemptLatencyMs(20), std::optional<double>(10.0)); // rank ceil(1.2) = 2
    QCOMPARE(s.attemptLatencyMs(60), std::optional<double>(80.0)); // rank ceil(3.6) = 4

    // Requests: 50 (r2), 520 (r3), 980 (r1); r4 cancelled and r5 without attempts are left out.
    QCOMPARE(s.requestLatencyCount(), 3);
    QCOMPARE(s.requestLatency().p50, std::optional<double>(520.0)); // rank ceil(1.5) = 2
    QCOMPARE(s.requestLatency().p90, std::optional<double>(980.0));
    QCOMPARE(s.requestLatency().p99, std::optional<double>(980.0));
    QCOMPARE(s.requestLatencyMs(33), std::optional<double>(50.0)); // rank ceil(0.99) = 1
}

void TestRunStatistics::handRun_errorsOverTimeTable()
{
    const RunStatistics s = RunStatistics::fromRecord(handRun(), 250.0, 240);
    // Errors by end time: 503 @100, refused @30, 503 @420, refused @540. The cancelled
    // attempt is not an error; successes are not either.
    QCOMPARE(s.errorCount(), 4);
    QCOMPARE(s.errorCauses(), (QStringList{QStringLiteral("http-503"), QStringLiteral("connection-refused")}));
    QCOMPARE(s.errorCount(QStringLiteral("http-503")), 2);
    QCOMPARE(s.errorCount(QStringLiteral("connection-refused")), 2);
    QCOMPARE(s.errorCount(QStringLiteral("http-200")), 0);
    QCOMPARE(s.binWidthMs(), 250.0);

    // bin:            0 [0,250)  1 [250,500)  2 [500,750)
    // http-503            1          1           0
    // connection-refused  1          0           1
    QCOMPARE(s.binCount(), 3);
    const qint64 table[3][2] = {{1, 1}, {1, 0}, {0, 1}};
    for (int bin = 0; bin < 3; ++bin) {
        QCOMPARE(s.binStartMs(bin), bin * 250.0);
        QCOMPARE(s.errorsInBin(bin, 0), table[bin][0]);
        QCOMPARE(s.errorsInBin(bin, 1), table[bin][1]);
        QCOMPARE(s.errorsInBin(bin), table[bin][0] + table[bin][1]);
    }
    QCOMPARE(s.errorsInBin(3), 0);
    QCOMPARE(s.errorsInBin(-1), 0);
    QCOMPARE(s.errorsInBin(0, 2), 0);
}

void TestRunStatistics::errorsOverTime_beyondMaxBins_mergesNeighbours()
{
    RunStatistics s(100.0, 4);
    s.setOriginNs(1000 * ms);
    const auto error
        = [&](qint64 endMs, const QString &cause) { s.addAttempt(attempt(1, 0, 0, 1000 + endMs, D::GiveUp, cause)); };
    const QString a = QStringLiteral("a");
    const QString b = QStringLiteral("b");
    error(50, a);
    error(150, b);
    error(160, a);
    error(350, b);
    QCOMPARE(s.binCount(), 4);
    QCOMPARE(s.binWidthMs(), 100.0);
    // 450 ms is bin 4 of 100 ms, beyond 4 bins: bins merge to 200 ms and it lands in bin 2.
    error(450, a);
    QCOMPARE(s.binWidthMs(), 200.0);
    QCOMPARE(s.binCount(), 3);
    // bin:  0 [0,200)  1 [200,400)  2 [400,600)
    // a         2          0            1
    // b         1          1            0
    const qint64 table[3][2] = {{2, 1}, {0, 1}, {1, 0}};
    for (int bin = 0; bin < 3; ++bin) {
        QCOMPARE(s.errorsInBin(bin, 0), table[bin][0]);
        QCOMPARE(s.errorsInBin(bin, 1), table[bin][1]);
    }
    // 1700 ms needs two more doublings: 800 ms bins, bin 2.
    error(1700, b);
    QCOMPARE(s.binWidthMs(), 800.0);
    QCOMPARE(s.binCount(), 3);
    QCOMPARE(s.errorsInBin(0), 5);
    QCOMPARE(s.errorsInBin(1), 0);
    QCOMPARE(s.errorsInBin(2, 1), 1);
    QCOMPARE(s.errorCount(), 6);
}

void TestRunStatistics::errorsOverTime_hugeOrEarlyTimes_stayBounded()
{
    RunStatistics s(250.0, 240);
    s.setOriginNs(500 * ms);
    s.addAttempt(attempt(1, 0, 0, 100, D::GiveUp, QString())); // ends before the origin
    AttemptRecord far = attempt(2, 0, 0, 0, D::GiveUp, QStringLiteral("x"));
    far.endNs = std::numeric_limits<qint64>::max();
    s.addAttempt(far);
    QVERIFY(s.binCount() <= 240);
    QCOMPARE(s.errorsInBin(0, 0), 1);
    QCOMPARE(s.errorCauses().first(), QStringLiteral("unknown"));
    QCOMPARE(s.errorCount(QString()), 1);
    QCOMPARE(s.errorCount(), 2);
    // Garbage results do not break the histogram either.
    RequestResult bad;
    bad.attempts = -3;
    s.addResult(bad);
    QCOMPARE(s.attemptsHistogram().value(0), 1);
    QCOMPARE(s.requestLatencyCount(), 0);
}

void TestRunStatistics::empty_hasNoRates()
{
    const RunStatistics s;
    QVERIFY(!s.successRate());
    QVERIFY(!s.retryAmplification());
    QVERIFY(!s.requestLatency().p50);
    QVERIFY(!s.attemptLatency().p99);
    QCOMPARE(s.binCount(), 0);

    // Only cancelled requests: none succeeded, and the rate says so.
    RunStatistics cancelledOnly;
    cancelledOnly.addResult(result(1, RequestOutcome::Cancelled, 1, 0, 10));
    QCOMPARE(cancelledOnly.successRate(), std::optional<double>(0.0));
    QCOMPARE(cancelledOnly.retryAmplification(), std::optional<double>(1.0));
}

void TestRunStatistics::incremental_equalsFromRecord()
{
    const RunRecord run = handRun();
    RunStatistics live;
    // Interleave the way a live run delivers them, querying in between.
    for (int i = 0; i < run.attempts.size(); ++i) {
        live.addAttempt(run.attempts.at(i));
        if (i < run.results.size())
            live.addResult(run.results.at(i));
        (void)live.attemptLatency();
        (void)live.requestLatency();
    }
    const RunStatistics whole = RunStatistics::fromRecord(run);
    QCOMPARE(live.attemptLatency().p50, whole.attemptLatency().p50);
    QCOMPARE(live.attemptLatency().p90, whole.attemptLatency().p90);
    QCOMPARE(live.requestLatency().p50, whole.requestLatency().p50);
    QCOMPARE(live.attemptsHistogram(), whole.attemptsHistogram());
    QCOMPARE(live.successRate(), whole.successRate());
    QCOMPARE(live.errorCauses(), whole.errorCauses());
    for (int bin = 0; bin < whole.binCount(); ++bin)
        QCOMPARE(live.errorsInBin(bin), whole.errorsInBin(bin));
}

void TestRunStatistics::clear_keepsSettingsForgetsRecords()
{
    RunStatistics s(100.0, 2);
    s.setOriginNs(7 * ms);
    const RunRecord run = handRun();
    for (const auto &a : run.attempts)
        s.addAttempt(a);
    QVERIFY(s.binWidthMs() > 100.0);
    s.clear();
    QCOMPARE(s.attemptCount(), 0);
    QCOMPARE(s.errorCount(), 0);
    QCOMPARE(s.binCount(), 0);
    QCOMPARE(s.binWidthMs(), 100.0);
    QCOMPARE(s.maxBins(), 2);
    QCOMPARE(s.originNs(), 7 * ms);
    QVERIFY(s.errorCauses().isEmpty());
    QVERIFY(!s.attemptLatency().p50);
}

QTEST_GUILESS_MAIN(TestRunStatistics)
#include "tst_runstatistics.moc"
