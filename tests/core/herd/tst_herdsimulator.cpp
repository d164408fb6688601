#include "core/herd/herdsimulator.h"
#include "core/util/durationtext.h"

#include <QScopeGuard>
#include <QTest>

#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>

using namespace RetryLab::Core;

class TestHerdSimulator : public QObject
{
    Q_OBJECT

private:
    static HerdParameters occ(QList<int> clients, int runs, QList<HerdStrategy> strategies = HerdStrategy::defaults())
    {
        HerdParameters p = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
        p.clientCounts = std::move(clients);
        p.runs = runs;
        p.strategies = std::move(strategies);
        return p;
    }

    // Slow answers of exactly `medianMs` (sigma 0) over a network of exactly 10 ms each way.
    static HerdParameters latency(double medianMs, double failureRate, QList<HerdStrategy> strategies)
    {
        HerdParameters p = HerdParameters::defaultsFor(HerdModel::Latency);
        p.clientCounts = {20};
        p.runs = 1;
        p.strategies = std::move(strategies);
        p.latencyMedianMs = medianMs;
        p.latencySigma = 0.0;
        p.failureRate = failureRate;
        p.networkMeanMs = 10.0;
        p.networkSdMs = 0.0;
        return p;
    }

    static HerdStrategy strategy(const char *name) { return *HerdStrategy::fromName(QString::fromLatin1(name)); }

    static HerdReport mustRun(const HerdParameters &p)
    {
        auto report = HerdSimulator::run(p);
        if (!report)
            qFatal("simulation refused: %s", qPrintable(report.error()));
        return std::move(report).value();
    }

private Q_SLOTS:
    void summarySentence_saysWhatTheLargestRowShowed();
    void takeAway_namesTheStrategyToUse_notTheQuickest();
    void strategies_coverEveryAlgorithmPlusNone();
    void strategies_namesRoundTrip();
    void defaults_areTheAwsFiveAndGoogle();

    void sameSeed_sameCsv();
    void differentSeed_differentCsv();
    void threadCount_doesNotChangeResults();
    void cell_doesNotDependOnTheRestOfTheGrid();
    void runOnce_matchesTheGrid();

    void occ_exactTimeline_usesCoreBackoff();
    void occ_everyClientFinishes_data();
    void occ_everyClientFinishes();
    void occ_noJitterExponential_farSlowerThanFullJitter_data();
    void occ_noJitterExponential_farSlowerThanFullJitter();
    void occ_noBackoff_makesTheMostCalls();
    void occ_immediate_retriesOnceOnly();
    void occ_attemptLimit_clientsGiveUp();

    void capacity_queueAsLargeAsTheHerd_noRetries();
    void capacity_cannotServeFasterThanItsRate();
    void capacity_retryAfter_isHonouredAndBounded();
    void capacity_noBackoff_makesTheMostCalls();
    void capacity_poissonArrivals_spreadTheLoad();

    void outage_nobodySucceedsDuringTheOutage();
    void outage_recoveryMeasuredAfterTheEnd();
    void outage_noBackoff_stormsHarderAtRecovery();

    void latency_hedgesGoOutOnTheDelayAndTheFirstAnswerWins();
    void latency_failedAnswers_sendTheNextHedgeAtOnce();
    void latency_longTail_hedgingTradesLoadForAShorterTail();
    void latency_hedging_refusedByTheOtherModels();
    void capacity_adaptiveRateLimiter_slowsEachThrottledClient();

    void load_binsAddUpToCalls();
    void csv_oneRowPerCellWithTheRequiredColumns();

    void badParameters_rejectedWithClearMessage_data();
    void badParameters_rejectedWithClearMessage();
    void zeroDelay_withAttemptLimit_isAllowedAndEnds();
    void stalledClock_guardStopsTheRunWithAMessage();
    void parseClientCounts_data();
    void parseClientCounts();
    void parseStrategies_namesTheUnknownOne();

    void progress_reachesTheTotal();
    void progress_movesWithinOneRun();
    void loadCurve_boundedAndKeepsPeaks();
    void cancel_stopsTheRun();
    void cancel_fromProgressCallback_stopsEarly();
};

void TestHerdSimulator::strategies_coverEveryAlgorithmPlusNone()
{
    const auto all = HerdStrategy::all();
    QCOMPARE(all.size(), allAlgorithms().size() + 1);
    QVERIFY(!all.first().algorithm);
    for (BackoffAlgorithm a : allAlgorithms())
        QVERIFY(all.contains(HerdStrategy{a}));
}

void TestHerdSimulator::strategies_namesRoundTrip()
{
    for (const HerdStrategy &s : HerdStrategy::all()) {
        const auto back = HerdStrategy::fromName(s.name());
        QVERIFY2(back.has_value(), qPrintable(s.name()));
        QCOMPARE(back->index(), s.index());
        QVERIFY(!s.title().isEmpty());
    }
    QVERIFY(!HerdStrategy::fromName(QStringLiteral("jitterbug")));
}

void TestHerdSimulator::defaults_areTheAwsFiveAndGoogle()
{
    const QStringList expected{QStringLiteral("none"), QStringLiteral("exponential"), QStringLiteral("equal-jitter"),
        QStringLiteral("full-jitter"), QStringLiteral("decorrelated-jitter"),
        QStringLiteral("google-truncated-exponential")};
    QStringList names;
    for (const HerdStrategy &s : HerdStrategy::defaults())
        names.append(s.name());
    QCOMPARE(names, expected);

    const HerdParameters p = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
    QCOMPARE(p.clientCounts.size(), 19);
    QCOMPARE(p.clientCounts.first(), 10);
    QCOMPARE(p.clientCounts.last(), 190);
    QCOMPARE(p.runs, 100);
    QCOMPARE(p.baseDelayMs, 5.0);
    QCOMPARE(p.maxBackoffMs, 2000.0);
    QCOMPARE(p.networkMeanMs, 10.0);
    QCOMPARE(p.networkSdMs, 2.0);
    QVERIFY(p.validate().isEmpty());
}

void TestHerdSimulator::sameSeed_sameCsv()
{
    HerdParameters p = occ({10, 40}, 5);
    p.seed = 42;
    const QString first = mustRun(p).toCsv();
    const QString second = mustRun(p).toCsv();
    QCOMPARE(second, first);
    QCOMPARE(mustRun(p).loadCsv(), mustRun(p).loadCsv());
}

void TestHerdSimulator::differentSeed_differentCsv()
{
    HerdParameters p = occ({30}, 5);
    p.seed = 1;
    const QString one = mustRun(p).toCsv();
    p.seed = 2;
    QVERIFY(mustRun(p).toCsv() != one);
}

void TestHerdSimulator::threadCount_doesNotChangeResults()
{
    HerdParameters p = occ({10, 20, 30, 40}, 4);
    p.threads = 1;
    const QString single = mustRun(p).toCsv();
    for (int threads : {2, 3, 7}) {
        p.threads = threads;
        QCOMPARE(mustRun(p).toCsv(), single);
    }
}

void TestHerdSimulator::cell_doesNotDependOnTheRestOfTheGrid()
{
    const HerdReport whole = mustRun(occ({20, 50}, 6));
    const HerdReport alone = mustRun(occ({50}, 6, {strategy("full-jitter")}));
    const HerdCellResult *a = whole.find(50, strategy("full-jitter"));
    const HerdCellResult *b = alone.find(50, strategy("full-jitter"));
    QVERIFY(a && b);
    QCOMPARE(a->calls.mean, b->calls.mean);
    QCOMPARE(a->completionMs.mean, b->completionMs.mean);
    QCOMPARE(a->attemptHistogram, b->attemptHistogram);
    QCOMPARE(a->meanLoadPerBin, b->meanLoadPerBin);
}

void TestHerdSimulator::runOnce_matchesTheGrid()
{
    const HerdParameters p = occ({25}, 3, {strategy("decorrelated-jitter")});
    const HerdReport report = mustRun(p);
    double calls = 0;
    double completion = 0;
    for (int run = 0; run < 3; ++run) {
        const auto once = HerdSimulator::runOnce(p, 25, strategy("decorrelated-jitter"), run);
        QVERIFY2(once, qPrintable(once.error()));
        calls += static_cast<double>(once->calls);
        completion += once->completionMs;
    }
    QCOMPARE(report.cells.first().calls.mean, calls / 3);
    QCOMPARE(report.cells.first().completionMs.mean, completion / 3);
}

void TestHerdSimulator::occ_exactTimeline_usesCoreBackoff()
{
    // Without network variance every message takes exactly 10 ms, so the timeline
    // can be worked out by hand: read 10, answer 20, write 30, answer 40. Of three
    // clients writing version 0 at 30 ms one wins; the others back off base * 2^0 =
    // 5 ms, read at 55, write at 75 (one wins), and the last backs off 5 * 2^1 = 10 ms.
    HerdParameters p = occ({3}, 1, {strategy("exponential")});
    p.networkSdMs = 0.0;
    const auto out = HerdSimulator::runOnce(p, 3, strategy("exponential"), 0);
    QVERIFY2(out, qPrintable(out.error()));
    QCOMPARE(out->calls, 6);
    QCOMPARE(out->attempts, (QList<int>{1, 2, 3}));
    QCOMPARE(out->completionMs, 135.0);
    QCOMPARE(out->succeeded, 3);

    // Linear backoff (n + 1) * base: the last client waits 2 * 5 ms as well.
    const auto linear = HerdSimulator::runOnce(p, 3, strategy("linear"), 0);
    QCOMPARE(linear->completionMs, 135.0);
    // Constant: the last client waits only 5 ms the second time.
    const auto constant = HerdSimulator::runOnce(p, 3, strategy("constant"), 0);
    QCOMPARE(constant->completionMs, 130.0);
    // No backoff: a failed client reads again right away.
    const auto none = HerdSimulator::runOnce(p, 3, strategy("none"), 0);
    QCOMPARE(none->completionMs, 120.0);
}

void TestHerdSimulator::occ_everyClientFinishes_data()
{
    QTest::addColumn<QString>("name");
    for (const HerdStrategy &s : HerdStrategy::all())
        QTest::addRow("%s", qPrintable(s.name())) << s.name();
}

void TestHerdSimulator::occ_everyClientFinishes()
{
    QFETCH(QString, name);
    const HerdStrategy s = *HerdStrategy::fromName(name);
    const HerdParameters p = occ({60}, 3, {s});
    const bool once = s.algorithm == BackoffAlgorithm::Immediate;
    for (int run = 0; run < 3; ++run) {
        const auto out = HerdSimulator::runOnce(p, 60, s, run);
        QVERIFY2(out, qPrintable(out.error()));
        if (once) {
            // Immediate retries once only (SPEC section 1): most give up, but every client finishes.
            QCOMPARE(out->succeeded + out->gaveUp, 60);
            QVERIFY(out->gaveUp > 0);
        } else {
            QCOMPARE(out->succeeded, 60);
            QCOMPARE(out->gaveUp, 0);
        }
        QCOMPARE(out->unfinished, 0);
        QCOMPARE(out->attempts.size(), 60);
        QCOMPARE(std::accumulate(out->attempts.cbegin(), out->attempts.cend(), qint64(0)), out->calls);
        for (int a : out->attempts)
            QVERIFY(a >= 1);
        // One write succeeds per version: at least n rounds of two messages each way.
        QVERIFY(out->completionMs > 0.0);
    }
    const HerdReport report = mustRun(p);
    if (!once)
        QCOMPARE(report.cells.first().succeededShare.mean, 1.0);
    QCOMPARE(report.cells.first().unfinished, 0);
}

void TestHerdSimulator::occ_noJitterExponential_farSlowerThanFullJitter_data()
{
    QTest::addColumn<int>("clients");
    QTest::addRow("50") << 50;
    QTest::addRow("100") << 100;
    QTest::addRow("190") << 190;
}

void TestHerdSimulator::occ_noJitterExponential_farSlowerThanFullJitter()
{
    QFETCH(int, clients);
    const HerdReport report = mustRun(occ({clients}, 20, {strategy("exponential"), strategy("full-jitter")}));
    const double exponential = report.find(clients, strategy("exponential"))->completionMs.mean;
    const double fullJitter = report.find(clients, strategy("full-jitter"))->completionMs.mean;
    QVERIFY2(exponential > 3.0 * fullJitter,
        qPrintable(QStringLiteral("exponential %1 ms, full jitter %2 ms").arg(exponential).arg(fullJitter)));
}

void TestHerdSimulator::occ_noBackoff_makesTheMostCalls()
{
    const HerdReport report = mustRun(occ({50, 100, 150}, 10, HerdStrategy::all()));
    for (int clients : {50, 100, 150}) {
        const double none = report.find(clients, HerdStrategy{})->calls.mean;
        for (const HerdStrategy &s : HerdStrategy::all()) {
            if (!s.algorithm || *s.algorithm == BackoffAlgorithm::Immediate)
                continue;
            QVERIFY2(report.find(clients, s)->calls.mean < none,
                qPrintable(QStringLiteral("%1 clients: %2 makes %3 calls, no backoff %4")
                               .arg(clients)
                               .arg(s.name())
                               .arg(report.find(clients, s)->calls.mean)
                               .arg(none)));
        }
    }
}

void TestHerdSimulator::occ_immediate_retriesOnceOnly()
{
    // Immediate retries once at once (SPEC section 1), then gives up: its first
    // retry matches no backoff (the runs share their random streams), and no
    // client makes a third attempt although the policy sets no limit.
    const HerdReport report = mustRun(occ({40}, 5, {HerdStrategy{}, strategy("immediate")}));
    const HerdCellResult &none = report.cells[0];
    const HerdCellResult &immediate = report.cells[1];
    QCOMPARE(immediate.attemptsMax(), 2);
    QVERIFY(none.attemptsMax() > 2);
    QVERIFY(immediate.gaveUp > 0);
    QCOMPARE(none.gaveUp, 0);
    QVERIFY(immediate.calls.mean < none.calls.mean);
}

void TestHerdSimulator::occ_attemptLimit_clientsGiveUp()
{
    HerdParameters p = occ({50}, 5, {strategy("full-jitter")});
    p.maxAttempts = 2;
    const HerdReport report = mustRun(p);
    const HerdCellResult &c = report.cells.first();
    QVERIFY(c.gaveUp > 0);
    QVERIFY(c.succeededShare.mean < 1.0);
    QCOMPARE(c.attemptsMax(), 2);
    QCOMPARE(qRound64(c.succeededShare.mean * 50 * 5) + c.gaveUp, 250);

    p.maxAttempts = 0;
    p.deadlineMs = 50.0;
    const HerdCellResult d = mustRun(p).cells.first();
    QVERIFY(d.gaveUp > 0);
    QCOMPARE(d.unfinished, 0);
}

void TestHerdSimulator::capacity_queueAsLargeAsTheHerd_noRetries()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {50};
    p.runs = 3;
    p.queueCapacity = 50;
    p.networkSdMs = 0.0;
    const HerdReport report = mustRun(p);
    for (const HerdCellResult &c : report.cells) {
        QCOMPARE(c.calls.mean, 50.0);
        // All arrive at 10 ms, one after the other is served in 5 ms, the last answer takes 10 ms.
        QCOMPARE(c.completionMs.mean, 10.0 + 50 * 5.0 + 10.0);
        QCOMPARE(c.succeededShare.mean, 1.0);
    }
}

void TestHerdSimulator::capacity_cannotServeFasterThanItsRate()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {100};
    p.runs = 5;
    p.serviceRatePerSec = 100.0;
    p.queueCapacity = 5;
    const HerdReport report = mustRun(p);
    for (const HerdCellResult &c : report.cells) {
        QVERIFY2(c.completionMs.min >= 1000.0, qPrintable(c.strategy.name()));
        QCOMPARE(c.succeededShare.mean, 1.0);
        QVERIFY(c.calls.mean > 100.0);
    }
}

void TestHerdSimulator::capacity_retryAfter_isHonouredAndBounded()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {60};
    p.runs = 3;
    p.queueCapacity = 5;
    p.strategies = {HerdStrategy{}};
    const double withoutHeader = mustRun(p).cells.first().calls.mean;

    p.retryAfterS = 2;
    const HerdCellResult honoured = mustRun(p).cells.first();
    // Every rejected client waits the full 2 s, so the last one cannot finish sooner.
    QVERIFY(honoured.completionMs.min >= 2000.0);
    QVERIFY(honoured.calls.mean < withoutHeader);
    QVERIFY(honoured.attemptsMax() <= static_cast<int>(honoured.completionMs.max / 2000.0) + 1);

    p.honourRetryAfter = false;
    QCOMPARE(mustRun(p).cells.first().calls.mean, withoutHeader);

    // The executor's bound: Retry-After beyond maxRetryAfterMs (60 s) is clamped to it.
    p.honourRetryAfter = true;
    p.retryAfterS = 3600;
    p.runs = 1;
    p.clientCounts = {10};
    p.queueCapacity = 0;
    p.serviceRatePerSec = 1000.0;
    const HerdCellResult clamped = mustRun(p).cells.first();
    QVERIFY(clamped.completionMs.max >= 60'000.0);
    QVERIFY(clamped.completionMs.max < 3'600'000.0);
}

void TestHerdSimulator::capacity_noBackoff_makesTheMostCalls()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {100};
    p.runs = 5;
    p.strategies = HerdStrategy::defaults();
    const HerdReport report = mustRun(p);
    const double none = report.find(100, HerdStrategy{})->calls.mean;
    for (const HerdCellResult &c : report.cells) {
        if (c.strategy.algorithm)
            QVERIFY2(c.calls.mean < none, qPrintable(c.strategy.name()));
    }
}

void TestHerdSimulator::capacity_poissonArrivals_spreadTheLoad()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {100};
    p.runs = 5;
    p.strategies = {strategy("full-jitter")};
    const HerdCellResult herd = mustRun(p).cells.first();
    p.arrivals = ArrivalMode::Poisson;
    p.arrivalRatePerSec = 50.0; // well below the 200/s the server can take
    const HerdCellResult stream = mustRun(p).cells.first();
    QVERIFY(stream.calls.mean < herd.calls.mean);
    QVERIFY(stream.peakLoadPerSec.mean < herd.peakLoadPerSec.mean);
    // 100 arrivals at 50/s take about 2 s.
    QVERIFY(stream.completionMs.mean > 1000.0);
}

void TestHerdSimulator::outage_nobodySucceedsDuringTheOutage()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::Outage);
    p.clientCounts = {30};
    p.runs = 3;
    p.arrivals = ArrivalMode::Herd;
    p.outageStartMs = 0.0;
    p.outageEndMs = 2000.0;
    const HerdReport report = mustRun(p);
    for (const HerdCellResult &c : report.cells) {
        QVERIFY2(c.completionMs.min > 2000.0, qPrintable(c.strategy.name()));
        QCOMPARE(c.succeededShare.mean, 1.0);
        QVERIFY(c.calls.mean > 30.0);
        QVERIFY(c.recoveryMs.min > 0.0);
        QCOMPARE(c.recoveryMs.mean + 2000.0, c.completionMs.mean);
    }
    // Failing fast during the outage, clients without backoff hammer the front.
    const HerdCellResult *none = report.find(30, HerdStrategy{});
    double outageLoad = 0;
    for (qsizetype b = 0; b < 2000 / p.binMs; ++b)
        outageLoad += none->meanLoadPerBin.value(b);
    QVERIFY(outageLoad > 30 * 20);
}

void TestHerdSimulator::outage_recoveryMeasuredAfterTheEnd()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::Outage);
    p.clientCounts = {5};
    p.runs = 2;
    p.arrivals = ArrivalMode::Herd;
    p.outageStartMs = 1000.0; // the five clients are long done by then
    p.outageEndMs = 2000.0;
    for (const HerdCellResult &c : mustRun(p).cells) {
        QCOMPARE(c.recoveryMs.max, 0.0);
        QVERIFY(c.completionMs.max < 1000.0);
        QCOMPARE(c.calls.mean, 5.0);
    }
}

void TestHerdSimulator::outage_noBackoff_stormsHarderAtRecovery()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::Outage);
    p.clientCounts = {150};
    p.runs = 10;
    p.strategies = {HerdStrategy{}, strategy("full-jitter"), strategy("exponential")};
    const HerdReport report = mustRun(p);
    const HerdCellResult *none = report.find(150, HerdStrategy{});
    const HerdCellResult *full = report.find(150, strategy("full-jitter"));
    QVERIFY(none->recoveryPeakLoadPerSec.mean > 2 * full->recoveryPeakLoadPerSec.mean);
    QVERIFY(none->calls.mean > 5 * full->calls.mean);
    for (const HerdCellResult &c : report.cells) {
        QCOMPARE(c.succeededShare.mean, 1.0);
        QVERIFY(c.recoveryMs.mean > 0.0);
        QVERIFY(c.recoveryPeakLoadPerSec.mean > 0.0);
    }
}

void TestHerdSimulator::latency_hedgesGoOutOnTheDelayAndTheFirstAnswerWins()
{
    // Every answer takes 300 ms: the first attempt goes at 0 and answers at 10 + 300 + 10 = 320 ms;
    // hedges go at 100 and 200 ms (reaching the server at 110 and 210 ms) and lose the race.
    HerdParameters p = latency(300.0, 0.0, {HerdStrategy::hedge(), HerdStrategy{}});
    p.hedgedAttempts = 3;
    p.hedgingDelayMs = 100.0;
    const auto hedged = HerdSimulator::runOnce(p, 20, HerdStrategy::hedge(), 0);
    QVERIFY2(hedged, qPrintable(hedged.error()));
    QCOMPARE(hedged->succeeded, 20);
    QCOMPARE(hedged->calls, 60); // three attempts each reached the server
    QCOMPARE(hedged->completionMs, 320.0);
    QCOMPARE(hedged->latencyP50Ms, 320.0);
    QCOMPARE(hedged->latencyP99Ms, 320.0);
    for (int attempts : hedged->attempts)
        QCOMPARE(attempts, 3);

    // Without hedging: one attempt each, the same answer time.
    const auto single = HerdSimulator::runOnce(p, 20, HerdStrategy{}, 0);
    QCOMPARE(single->calls, 20);
    QCOMPARE(single->latencyP99Ms, 320.0);

    // A delay longer than the answer: no hedge goes out at all.
    p.hedgingDelayMs = 400.0;
    QCOMPARE(HerdSimulator::runOnce(p, 20, HerdStrategy::hedge(), 0)->calls, 20);
}

void TestHerdSimulator::latency_failedAnswers_sendTheNextHedgeAtOnce()
{
    // Every answer fails after 100 ms: each failure sends the next attempt at once (not after the
    // 1 s delay), three in all, 120 ms each, and then the client gives up.
    HerdParameters p = latency(100.0, 1.0, {HerdStrategy::hedge()});
    p.hedgedAttempts = 3;
    p.hedgingDelayMs = 1000.0;
    const auto out = HerdSimulator::runOnce(p, 20, HerdStrategy::hedge(), 0);
    QVERIFY2(out, qPrintable(out.error()));
    QCOMPARE(out->gaveUp, 20);
    QCOMPARE(out->succeeded, 0);
    QCOMPARE(out->calls, 60);
    QCOMPARE(out->completionMs, 360.0);
    QCOMPARE(out->latencyP99Ms, 0.0); // nobody succeeded
}

void TestHerdSimulator::latency_longTail_hedgingTradesLoadForAShorterTail()
{
    // The default latency model: a median of 100 ms and a long tail (sigma 0.8), as
    // /delay/100?dist=lognormal&sigma=0.8 answers; hedging after 250 ms.
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::Latency);
    p.clientCounts = {1000};
    p.runs = 5;
    p.failureRate = 0.0;
    p.strategies = {HerdStrategy{}, HerdStrategy::hedge()};
    const HerdReport report = mustRun(p);
    const HerdCellResult *none = report.find(1000, HerdStrategy{});
    const HerdCellResult *hedging = report.find(1000, HerdStrategy::hedge());
    QVERIFY(none && hedging);
    QCOMPARE(none->calls.mean, 1000.0); // no failure: one attempt each
    // The load hedging adds: the share of answers slower than the delay, about 13 % at sigma 0.8,
    // sends a second attempt, and some of those a third.
    QVERIFY2(
        hedging->calls.mean > 1050.0 && hedging->calls.mean < 1300.0, qPrintable(QString::number(hedging->calls.mean)));
    // The tail it saves: the 99th percentile of a lognormal with sigma 0.8 is 6.4 times the median,
    // about 660 ms here; hedged, an answer needs the first attempt or one sent 250 ms later to be quick.
    QVERIFY2(none->latencyP99Ms.mean > 550.0, qPrintable(QString::number(none->latencyP99Ms.mean)));
    QVERIFY2(hedging->latencyP99Ms.mean < 0.75 * none->latencyP99Ms.mean,
        qPrintable(QStringLiteral("%1 against %2").arg(hedging->latencyP99Ms.mean).arg(none->latencyP99Ms.mean)));
    // The median barely moves: most answers come before the first hedge.
    QVERIFY(std::abs(hedging->latencyP50Ms.mean - none->latencyP50Ms.mean) < 15.0);
    const QString sentence = report.summarySentence();
    QVERIFY2(sentence.startsWith(QStringLiteral("At 1,000 clients Hedging answered 99 % of them within")),
        qPrintable(sentence));
    QVERIFY2(sentence.contains(QStringLiteral("% more load for a ")), qPrintable(sentence));
    const QString csv = report.toCsv();
    QVERIFY(csv.section(QLatin1Char('\n'), 0, 0).endsWith(QLatin1String("latency_p50_ms,latency_p99_ms")));
    QVERIFY(csv.contains(QLatin1String("latency,1000,hedging,5,")));
}

void TestHerdSimulator::latency_hedging_refusedByTheOtherModels()
{
    HerdParameters p = occ({10}, 1, {HerdStrategy{}, HerdStrategy::hedge()});
    const QStringList problems = p.validate();
    QVERIFY2(problems.join(QLatin1Char('\n')).contains(QStringLiteral("hedging is played by the latency model only")),
        qPrintable(problems.join(QLatin1Char('\n'))));
    QVERIFY(HerdStrategy::fromName(QStringLiteral("hedging")) == HerdStrategy::hedge());
    QVERIFY(HerdStrategy::allFor(HerdModel::Latency).contains(HerdStrategy::hedge()));
    QVERIFY(!HerdStrategy::all().contains(HerdStrategy::hedge()));
    // Its numbers are checked once hedging is chosen.
    HerdParameters bad = latency(100.0, 0.0, {HerdStrategy::hedge()});
    bad.hedgedAttempts = 1;
    bad.hedgingDelayMs = 0.0;
    const QString text = bad.validate().join(QLatin1Char('\n'));
    QVERIFY2(text.contains(QStringLiteral("hedgedAttempts: 1 is below the minimum of 2.")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("hedgingDelayMs: 0 must be greater than 0.")), qPrintable(text));
}

void TestHerdSimulator::capacity_adaptiveRateLimiter_slowsEachThrottledClient()
{
    // 100 clients at once against a server of 200/s with a queue of 20 that answers 429 without
    // Retry-After; without backoff they retry at every round trip.
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {100};
    p.runs = 3;
    p.overloadStatus = 429;
    p.retryAfterS.reset();
    p.strategies = {HerdStrategy{}};
    const HerdReport free = mustRun(p);
    p.rateLimiter = RateLimiterKind::AwsAdaptive;
    QCOMPARE(p.policyFor(HerdStrategy{}).rateLimiter.kind, RateLimiterKind::AwsAdaptive);
    const HerdReport limited = mustRun(p);
    const HerdCellResult *a = free.find(100, HerdStrategy{});
    const HerdCellResult *b = limited.find(100, HerdStrategy{});
    QCOMPARE(a->succeededShare.mean, 1.0);
    QCOMPARE(b->succeededShare.mean, 1.0);
    // A throttled client's bucket starts from what it measured, at least 0.5/s: it stops hammering.
    QVERIFY2(b->calls.mean < 0.5 * a->calls.mean,
        qPrintable(QStringLiteral("%1 calls limited, %2 free").arg(b->calls.mean).arg(a->calls.mean)));
    QVERIFY2(b->peakLoadPerSec.mean < a->peakLoadPerSec.mean,
        qPrintable(QStringLiteral("%1/s limited, %2/s free").arg(b->peakLoadPerSec.mean).arg(a->peakLoadPerSec.mean)));
    // The price: the throttled ones wait for tokens.
    QVERIFY(b->completionMs.mean > a->completionMs.mean);

    // A 503 is not throttling: the limiter never turns on, and nothing changes.
    p.overloadStatus = 503;
    HerdParameters unthrottled = p;
    unthrottled.rateLimiter = RateLimiterKind::None;
    QCOMPARE(mustRun(p).toCsv(), mustRun(unthrottled).toCsv());
}

void TestHerdSimulator::load_binsAddUpToCalls()
{
    for (HerdModel model : allHerdModels()) {
        HerdParameters p = HerdParameters::defaultsFor(model);
        p.clientCounts = {40};
        p.runs = 4;
        const HerdReport report = mustRun(p);
        for (const HerdCellResult &c : report.cells) {
            const double binned = std::accumulate(c.meanLoadPerBin.cbegin(), c.meanLoadPerBin.cend(), 0.0);
            QVERIFY2(std::abs(binned - c.calls.mean) < 1e-6, qPrintable(herdModelName(model) + c.strategy.name()));
            QVERIFY(c.peakLoadPerSec.mean > 0.0);
            QCOMPARE(c.binMs, p.binMs);
        }
    }
}

void TestHerdSimulator::csv_oneRowPerCellWithTheRequiredColumns()
{
    const HerdReport report = mustRun(occ({10, 20, 30}, 2));
    const QStringList lines = report.toCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 3 * 6);
    const QStringList header = lines.first().split(QLatin1Char(','));
    for (const char *column : {"clients", "strategy", "calls", "completion_ms", "calls_sd", "completion_ms_sd"})
        QVERIFY2(header.contains(QLatin1String(column)), column);
    for (qsizetype i = 1; i < lines.size(); ++i)
        QCOMPARE(lines[i].count(QLatin1Char(',')), header.size() - 1);
    const QStringList first = lines[1].split(QLatin1Char(','));
    QCOMPARE(first[header.indexOf(QLatin1String("clients"))], QStringLiteral("10"));
    QCOMPARE(first[header.indexOf(QLatin1String("strategy"))], QStringLiteral("none"));
}

void TestHerdSimulator::badParameters_rejectedWithClearMessage_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("which");

    int i = 0;
    QTest::addRow("no clients") << "clients"
                                << "no client count" << i++;
    QTest::addRow("zero clients") << "clients"
                                  << "below the minimum" << i++;
    QTest::addRow("too many clients") << "clients"
                                      << "beyond the sensible limit" << i++;
    QTest::addRow("zero runs") << "runs"
                               << "below the minimum" << i++;
    QTest::addRow("absurd grid") << "grid"
                                 << "beyond the limit" << i++;
    QTest::addRow("no strategy") << "strategies"
                                 << "no strategy" << i++;
    QTest::addRow("duplicate strategy") << "strategies"
                                        << "listed twice" << i++;
    QTest::addRow("NaN base") << "baseDelayMs"
                              << "not a number" << i++;
    QTest::addRow("negative cap") << "maxBackoffMs"
                                  << "negative" << i++;
    QTest::addRow("multiplier below one") << "multiplier"
                                          << "below 1" << i++;
    QTest::addRow("infinite network mean") << "networkMeanMs"
                                           << "finite" << i++;
    QTest::addRow("negative network sd") << "networkSdMs"
                                         << "below the minimum" << i++;
    QTest::addRow("zero service rate") << "serviceRatePerSec"
                                       << "greater than 0" << i++;
    QTest::addRow("negative queue") << "queueCapacity"
                                    << "below the minimum" << i++;
    QTest::addRow("status 500") << "overloadStatus"
                                << "503 or 429" << i++;
    QTest::addRow("negative Retry-After") << "retryAfterS"
                                          << "below the minimum" << i++;
    QTest::addRow("NaN arrival rate") << "arrivalRatePerSec"
                                      << "not a number" << i++;
    QTest::addRow("outage ends first") << "outageEndMs"
                                       << "not after it starts" << i++;
    QTest::addRow("outage beyond horizon") << "outageEndMs"
                                           << "horizon" << i++;
    QTest::addRow("tiny bins") << "binMs"
                               << "wider bins" << i++;
    QTest::addRow("NaN horizon") << "horizonMs"
                                 << "not a number" << i++;
    QTest::addRow("negative attempts") << "maxAttempts"
                                       << "below the minimum" << i++;
    QTest::addRow("absurd threads") << "threads"
                                    << "beyond the sensible limit" << i++;
    QTest::addRow("no delay, no backoff") << "networkMeanMs"
                                          << "retry for ever at one instant" << i++;
    QTest::addRow("no delay, Retry-After 0") << "networkMeanMs"
                                             << "retry for ever at one instant" << i++;
}

void TestHerdSimulator::badParameters_rejectedWithClearMessage()
{
    QFETCH(QString, field);
    QFETCH(QString, expected);
    QFETCH(int, which);

    HerdParameters p = occ({10}, 2);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (which) {
    case 0:
        p.clientCounts.clear();
        break;
    case 1:
        p.clientCounts = {0, 10};
        break;
    case 2:
        p.clientCounts = {HerdLimits::maxClients + 1};
        break;
    case 3:
        p.runs = 0;
        break;
    case 4:
        p.clientCounts = {10'000, 9'999};
        p.runs = 100'000;
        break;
    case 5:
        p.strategies.clear();
        break;
    case 6:
        p.strategies = {HerdStrategy{}, HerdStrategy{}};
        break;
    case 7:
        p.baseDelayMs = nan;
        break;
    case 8:
        p.maxBackoffMs = -1.0;
        break;
    case 9:
        p.multiplier = 0.5;
        break;
    case 10:
        p.networkMeanMs = std::numeric_limits<double>::infinity();
        break;
    case 11:
        p.networkSdMs = -2.0;
        break;
    case 12:
        p.model = HerdModel::CapacityLimited;
        p.serviceRatePerSec = 0.0;
        break;
    case 13:
        p.model = HerdModel::CapacityLimited;
        p.queueCapacity = -1;
        break;
    case 14:
        p.model = HerdModel::CapacityLimited;
        p.overloadStatus = 500;
        break;
    case 15:
        p.model = HerdModel::CapacityLimited;
        p.retryAfterS = -3;
        break;
    case 16:
        p.arrivals = ArrivalMode::Poisson;
        p.arrivalRatePerSec = nan;
        break;
    case 17:
        p.model = HerdModel::Outage;
        p.outageStartMs = 3000;
        p.outageEndMs = 1000;
        break;
    case 18:
        p.model = HerdModel::Outage;
        p.horizonMs = 2000;
        p.outageEndMs = 5000;
        break;
    case 19:
        p.binMs = 0.001;
        break;
    case 20:
        p.horizonMs = nan;
        break;
    case 21:
        p.maxAttempts = -1;
        break;
    case 22:
        p.threads = 100'000;
        break;
    case 23:
        p.networkMeanMs = 0.0;
        p.networkSdMs = 0.0;
        p.baseDelayMs = 0.0;
        break;
    case 24:
        p.model = HerdModel::CapacityLimited;
        p.networkMeanMs = 0.0;
        p.networkSdMs = 0.0;
        p.retryAfterS = 0;
        break;
    default:
        QFAIL("no such case");
    }
    const QStringList problems = p.validate();
    QVERIFY(!problems.isEmpty());
    const QString joined = problems.join(QLatin1Char('\n'));
    QVERIFY2(joined.contains(field + QLatin1Char(':')), qPrintable(joined));
    QVERIFY2(joined.contains(expected), qPrintable(joined));

    const auto result = HerdSimulator::run(p);
    QVERIFY(!result);
    QCOMPARE(result.error(), joined);
    // runOnce() replaces the grid (cases up to 6) but checks everything else the same way.
    if (which > 6)
        QVERIFY(!HerdSimulator::runOnce(p, 10, strategy("exponential"), 0));
}

void TestHerdSimulator::zeroDelay_withAttemptLimit_isAllowedAndEnds()
{
    HerdParameters p = occ({20}, 2, {HerdStrategy{}, strategy("immediate")});
    p.networkMeanMs = 0.0;
    p.networkSdMs = 0.0;
    QVERIFY(!p.validate().isEmpty()); // "none" alone would spin
    p.maxAttempts = 3;
    QVERIFY2(p.validate().isEmpty(), qPrintable(p.validate().join(QLatin1Char('\n'))));
    const HerdReport report = mustRun(p);
    QCOMPARE(report.find(20, HerdStrategy{})->attemptsMax(), 3);
    QCOMPARE(report.find(20, strategy("immediate"))->attemptsMax(), 2);
}

void TestHerdSimulator::stalledClock_guardStopsTheRunWithAMessage()
{
    // A delay too small to move a clock that reads more than 0 passes validation
    // but stands the clock still: overloaded clients retry at the same instant.
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {10};
    p.runs = 1;
    p.strategies = {strategy("exponential")};
    p.arrivals = ArrivalMode::Poisson;
    p.arrivalRatePerSec = 100.0;
    p.serviceRatePerSec = 1.0; // the first client holds the server for a second
    p.queueCapacity = 0;
    p.networkMeanMs = 0.0;
    p.networkSdMs = 0.0;
    p.baseDelayMs = 1e-300;
    p.maxBackoffMs = 1e-300;
    p.jitterMs = 0.0;
    QVERIFY2(p.validate().isEmpty(), qPrintable(p.validate().join(QLatin1Char('\n'))));
    const auto report = HerdSimulator::run(p);
    QVERIFY(!report);
    QVERIFY2(report.error().contains(QLatin1String("made no progress")), qPrintable(report.error()));
    const auto once = HerdSimulator::runOnce(p, 10, strategy("exponential"), 0);
    QVERIFY(!once);
    QVERIFY2(once.error().contains(QLatin1String("virtual clock stood still")), qPrintable(once.error()));
}

void TestHerdSimulator::parseClientCounts_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<int>>("expected");
    QTest::addColumn<QString>("error");

    QList<int> grid;
    for (int n = 10; n <= 190; n += 10)
        grid.append(n);
    QTest::addRow("range") << "10:190:10" << grid << QString();
    QTest::addRow("range with spaces") << " 10 : 190 : 10 " << grid << QString();
    QTest::addRow("single") << "50" << QList<int>{50} << QString();
    QTest::addRow("list sorted and distinct") << "20,5,20,10" << QList<int>{5, 10, 20} << QString();
    QTest::addRow("range end not on a step") << "1:10:4" << QList<int>{1, 5, 9} << QString();
    QTest::addRow("empty") << "" << QList<int>{} << "empty";
    QTest::addRow("two parts") << "10:190" << QList<int>{} << "first:last:step";
    QTest::addRow("words") << "a:b:c" << QList<int>{} << "not a whole number";
    QTest::addRow("backwards") << "100:10:10" << QList<int>{} << "below the first";
    QTest::addRow("zero clients") << "0:10:5" << QList<int>{} << "outside 1..";
    QTest::addRow("zero step") << "10:20:0" << QList<int>{} << "outside 1..";
    QTest::addRow("negative") << "-5" << QList<int>{} << "outside 1..";
    QTest::addRow("huge") << "99999999999" << QList<int>{} << "outside 1..";
    QTest::addRow("too many counts") << "1:5000:1" << QList<int>{} << "more than 1000";
    QTest::addRow("nan") << "nan" << QList<int>{} << "not a whole number";
}

void TestHerdSimulator::parseClientCounts()
{
    QFETCH(QString, text);
    QFETCH(QList<int>, expected);
    QFETCH(QString, error);
    const auto counts = RetryLab::Core::parseClientCounts(text);
    if (error.isEmpty()) {
        QVERIFY2(counts, qPrintable(counts.error()));
        QCOMPARE(*counts, expected);
        QCOMPARE(*RetryLab::Core::parseClientCounts(formatClientCounts(*counts)), expected);
    } else {
        QVERIFY(!counts);
        QVERIFY2(counts.error().startsWith(QLatin1String("clients:")), qPrintable(counts.error()));
        QVERIFY2(counts.error().contains(error), qPrintable(counts.error()));
    }
}

void TestHerdSimulator::parseStrategies_namesTheUnknownOne()
{
    const auto ok = parseStrategies(QStringLiteral("full-jitter, none"));
    QVERIFY2(ok, qPrintable(ok.error()));
    QCOMPARE(ok->size(), 2);
    QCOMPARE(ok->first().name(), QStringLiteral("full-jitter"));

    const auto bad = parseStrategies(QStringLiteral("full-jitter,jitterbug"));
    QVERIFY(!bad);
    QVERIFY2(bad.error().contains(QLatin1String("\"jitterbug\"")), qPrintable(bad.error()));
    QVERIFY2(bad.error().contains(QLatin1String("decorrelated-jitter")), qPrintable(bad.error()));

    QVERIFY(parseStrategies(QStringLiteral("none,none")).error().contains(QLatin1String("twice")));
    QVERIFY(!parseStrategies(QStringLiteral(" , ")));
}

void TestHerdSimulator::progress_reachesTheTotal()
{
    HerdControl control;
    QList<qint64> seen;
    qint64 total = 0;
    control.setProgressCallback([&](qint64 done, qint64 all) {
        seen.append(done);
        total = all;
    });
    HerdParameters p = occ({10, 20}, 3);
    p.threads = 2;
    QVERIFY(HerdSimulator::run(p, &control));
    QCOMPARE(total, 2 * 6 * 3);
    QCOMPARE(seen.size(), 36);
    QCOMPARE(*std::max_element(seen.cbegin(), seen.cend()), qint64(36));
    QCOMPARE(control.runsDone(), control.runsTotal());
    QCOMPARE(control.clientsTotal(), (10 + 20) * 6 * 3);
    QCOMPARE(control.clientsDone(), control.clientsTotal());
    QCOMPARE(control.fractionDone(), 1.0);
}

// One run of many clients: the settled clients move while that run goes on, and
// clients still busy at the horizon count as settled when it ends.
void TestHerdSimulator::progress_movesWithinOneRun()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {50'000};
    p.strategies = {*HerdStrategy::fromName(QStringLiteral("full-jitter"))};
    p.runs = 1;
    p.serviceRatePerSec = 10'000.0;
    p.queueCapacity = 500;
    p.horizonMs = 4'000.0; // about 40,000 served: the rest is unfinished
    HerdControl control;
    QList<qint64> settledAtRunEnd;
    std::atomic<bool> sawPartOfTheRun{false};
    control.setProgressCallback([&](qint64, qint64) { settledAtRunEnd.append(control.clientsDone()); });
    std::atomic<bool> stop{false};
    std::thread watcher([&] {
        while (!stop.load()) {
            const qint64 done = control.clientsDone();
            if (done > 0 && done < 50'000)
                sawPartOfTheRun.store(true);
            std::this_thread::yield();
        }
    });
    const auto report = HerdSimulator::run(p, &control);
    stop.store(true);
    watcher.join();
    QVERIFY2(report, qPrintable(report.error()));
    QVERIFY(report->cells.first().unfinished > 0);
    QVERIFY(sawPartOfTheRun.load());
    QCOMPARE(settledAtRunEnd, QList<qint64>{50'000});
    QCOMPARE(control.fractionDone(), 1.0);
}

// A curve of any length is drawn with a bounded number of points that keeps its peaks.
void TestHerdSimulator::loadCurve_boundedAndKeepsPeaks()
{
    HerdCellResult cell;
    cell.binMs = 50.0;
    QCOMPARE(cell.loadCurve(2000).size(), 0);
    cell.meanLoadPerBin = {1.0, 3.0, 2.0};
    const QList<QPointF> few = cell.loadCurve(2000);
    QCOMPARE(few, (QList<QPointF>{{0.025, 20.0}, {0.075, 60.0}, {0.125, 40.0}}));

    // An hour of 50 ms bins with one spike and one dip.
    cell.meanLoadPerBin = QList<double>(72'000, 10.0);
    cell.meanLoadPerBin[12'345] = 500.0;
    cell.meanLoadPerBin[54'321] = 0.0;
    const QList<QPointF> many = cell.loadCurve(2000);
    QVERIFY(many.size() <= 2000);
    QVERIFY(many.size() >= 1000);
    double peak = 0.0;
    double dip = 1e9;
    for (qsizetype i = 0; i < many.size(); ++i) {
        peak = std::max(peak, many[i].y());
        dip = std::min(dip, many[i].y());
        if (i > 0)
            QVERIFY(many[i].x() > many[i - 1].x());
    }
    QCOMPARE(peak, 500.0 * 20.0);
    QCOMPARE(dip, 0.0);
    QCOMPARE(many.first().x(), 0.025);
    QVERIFY(many.last().x() <= 72'000 * 0.05);
    QVERIFY(many.last().x() > 72'000 * 0.05 - 0.05 * 40);
    QCOMPARE(cell.loadCurve(0).size(), 0);
}

void TestHerdSimulator::cancel_stopsTheRun()
{
    HerdControl control;
    control.cancel();
    const auto result = HerdSimulator::run(occ({100}, 50), &control);
    QVERIFY(!result);
    QVERIFY(result.error().contains(QLatin1String("cancelled")));
    QCOMPARE(control.runsDone(), 0);
}

void TestHerdSimulator::cancel_fromProgressCallback_stopsEarly()
{
    HerdControl control;
    control.setProgressCallback([&control](qint64 done, qint64) {
        if (done == 5)
            control.cancel();
    });
    HerdParameters p = occ({50, 100, 150}, 100);
    const auto result = HerdSimulator::run(p, &control);
    QVERIFY(!result);
    QVERIFY(control.isCancelled());
    QVERIFY(control.runsDone() < control.runsTotal() / 2);
}

void TestHerdSimulator::summarySentence_saysWhatTheLargestRowShowed()
{
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    const auto restore = qScopeGuard([&before] { QLocale::setDefault(before); });
    QCOMPARE(HerdReport{}.summarySentence(), QString());
    const auto cell = [](int clients, const QString &name, double completionMs, double calls, double succeeded) {
        HerdCellResult c;
        c.clients = clients;
        c.strategy = *HerdStrategy::fromName(name);
        c.runs = 1;
        c.completionMs.mean = completionMs;
        c.calls.mean = calls;
        c.succeededShare.mean = succeeded;
        return c;
    };
    HerdReport report;
    report.cells = {cell(10, QStringLiteral("none"), 100.0, 50.0, 1.0),
        cell(10, QStringLiteral("full-jitter"), 5000.0, 20.0, 1.0),
        cell(1000, QStringLiteral("none"), 41'200.0, 9870.0, 0.9),
        cell(1000, QStringLiteral("full-jitter"), 9800.0, 2310.0, 1.0)};
    const QString none = HerdStrategy::fromName(QStringLiteral("none"))->title();
    const QString full = HerdStrategy::fromName(QStringLiteral("full-jitter"))->title();
    QCOMPARE(report.summarySentence(),
        QStringLiteral("At 1,000 clients %1 was done first, after 9.8 s and 2,310 calls; %2 took 41.2 s and 9,870 "
                       "calls; under %2 only 90.0 % of the clients got through.")
            .arg(full, none));
}

void TestHerdSimulator::takeAway_namesTheStrategyToUse_notTheQuickest()
{
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    const auto restore = qScopeGuard([&before] { QLocale::setDefault(before); });
    QCOMPARE(HerdReport{}.takeAway(), QString());
    const auto cell = [](int clients, const QString &name, double completionMs, double calls, double succeeded) {
        HerdCellResult c;
        c.clients = clients;
        c.strategy = *HerdStrategy::fromName(name);
        c.runs = 1;
        c.completionMs.mean = completionMs;
        c.calls.mean = calls;
        c.succeededShare.mean = succeeded;
        return c;
    };
    const QString none = HerdStrategy::fromName(QStringLiteral("none"))->title();
    const QString full = HerdStrategy::fromName(QStringLiteral("full-jitter"))->title();
    // The case: no backoff is done first, by hammering the server.
    HerdReport report;
    report.cells = {cell(190, QStringLiteral("none"), 2'000.0, 1'200.0, 1.0),
        cell(190, QStringLiteral("full-jitter"), 6'000.0, 300.0, 1.0)};
    QCOMPARE(report.takeAway(),
        QStringLiteral("Take-away: at 190 clients use %1: it got every client through with the fewest calls, 300; "
                       "%2 was done sooner (%3 against %4) only by sending 300 % more calls.")
            .arg(full, none, DurationText::format(2'000.0), DurationText::format(6'000.0)));
    // Quick because it gave up: getting clients through comes first.
    report.cells = {cell(190, QStringLiteral("none"), 2'000.0, 250.0, 0.8),
        cell(190, QStringLiteral("full-jitter"), 6'000.0, 300.0, 1.0)};
    QCOMPARE(report.takeAway(),
        QStringLiteral("Take-away: at 190 clients use %1: it got every client through with the fewest calls, 300; "
                       "%2 was done sooner (%3 against %4) but got only 80.0 % of the clients through.")
            .arg(full, none, DurationText::format(2'000.0), DurationText::format(6'000.0)));
    report.parameters.model = HerdModel::Latency;
    QCOMPARE(report.takeAway(), QString());
}

QTEST_GUILESS_MAIN(TestHerdSimulator)
#include "tst_herdsimulator.moc"
