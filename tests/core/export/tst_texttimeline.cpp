#include "core/export/texttimeline.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

AttemptRecord attempt(quint64 request, int index, double startMs, Classification::Decision decision, double nextDelayMs)
{
    AttemptRecord a;
    a.requestId = request;
    a.attemptIndex = index;
    a.startNs = qint64(startMs * 1e6);
    a.endNs = a.startNs + 1'000'000;
    a.decision = decision;
    a.nextDelayMs = nextDelayMs;
    return a;
}

RequestResult result(quint64 request, RequestOutcome outcome, int attempts, double startMs, double endMs)
{
    RequestResult r;
    r.requestId = request;
    r.outcome = outcome;
    r.attempts = attempts;
    r.startNs = qint64(startMs * 1e6);
    r.endNs = qint64(endMs * 1e6);
    return r;
}

} // namespace

class TestTextTimeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void column_mapsTimeOntoTheAxis_data();
    void column_mapsTimeOntoTheAxis();
    void tickStep_isOneTwoFive_data();
    void tickStep_isOneTwoFive();
    void render_rulerLabelsReadAsDurations();
    void render_lanesRulerAndSummaries();
    void render_hedgedAttemptsRunSideBySide();
    void render_crowdedColumnsCountRetries();
};

void TestTextTimeline::column_mapsTimeOntoTheAxis_data()
{
    QTest::addColumn<double>("ms");
    QTest::addColumn<double>("span");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("column");
    QTest::addRow("start") << 0.0 << 1000.0 << 50 << 0;
    QTest::addRow("middle") << 500.0 << 1000.0 << 50 << 25;
    QTest::addRow("just before a boundary") << 19.9 << 1000.0 << 50 << 0;
    QTest::addRow("end is the last column") << 1000.0 << 1000.0 << 50 << 49;
    QTest::addRow("beyond the end") << 5000.0 << 1000.0 << 50 << 49;
    QTest::addRow("before the start") << -10.0 << 1000.0 << 50 << 0;
    QTest::addRow("no span") << 10.0 << 0.0 << 50 << 0;
    QTest::addRow("not a number") << qQNaN() << 1000.0 << 50 << 0;
}

void TestTextTimeline::column_mapsTimeOntoTheAxis()
{
    QFETCH(double, ms);
    QFETCH(double, span);
    QFETCH(int, width);
    QFETCH(int, column);
    QCOMPARE(TextTimeline::column(ms, span, width), column);
}

void TestTextTimeline::tickStep_isOneTwoFive_data()
{
    QTest::addColumn<double>("span");
    QTest::addColumn<int>("width");
    QTest::addColumn<double>("step");
    QTest::addRow("3 s over 60") << 3000.0 << 60 << 500.0;
    QTest::addRow("3.2 s over 64") << 3202.0 << 64 << 1000.0;
    QTest::addRow("100 ms over 60") << 100.0 << 60 << 20.0;
    QTest::addRow("1 min over 80") << 60'000.0 << 80 << 10'000.0;
}

void TestTextTimeline::tickStep_isOneTwoFive()
{
    QFETCH(double, span);
    QFETCH(int, width);
    QFETCH(double, step);
    QCOMPARE(TextTimeline::tickStepMs(span, width, 10), step);
}

void TestTextTimeline::render_rulerLabelsReadAsDurations()
{
    RunRecord run;
    run.epochNs = 0;
    TextTimeline::Options options;
    options.width = 60;
    options.spanMs = 3000;
    const QStringList lines = TextTimeline::render(run, {}, options);
    QVERIFY(!lines.isEmpty());
    // A tick every 500 ms (see tickStep), each labelled the way every duration reads.
    QCOMPARE(lines[0].simplified(), QStringLiteral("0 ms 500 ms 1 s 1.5 s 2 s 2.5 s"));
}

void TestTextTimeline::render_lanesRulerAndSummaries()
{
    using D = Classification::Decision;
    RunRecord run;
    run.epochNs = 0;
    // Request 1: fails at 0, retried at 100 and 300, succeeds at 300.
    run.attempts = {attempt(1, 0, 0, D::RetryAfterDelay, 100), attempt(1, 1, 100, D::RetryAfterDelay, 200),
        attempt(1, 2, 300, D::Success, -1),
        // Request 2: one attempt that fails for good at 500.
        attempt(2, 0, 500, D::GiveUp, -1)};
    run.results = {result(1, RequestOutcome::Succeeded, 3, 0, 301), result(2, RequestOutcome::GaveUp, 1, 500, 501)};

    TextTimeline::Options options;
    options.width = 20;
    options.spanMs = 1000;
    const QStringList lines
        = TextTimeline::render(run, {{QStringLiteral("first"), 1}, {QStringLiteral("second"), 2}}, options);
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines[0], QStringLiteral("         0 ms      500 ms"));
    QCOMPARE(lines[1], QStringLiteral("        |+---------+---------|"));
    QCOMPARE(lines[2], QStringLiteral("first   |x-x---o             |  3 attempt(s), 301 ms"));
    QCOMPARE(lines[3], QStringLiteral("second  |          !         |  1 attempt(s), gave-up after 1 ms"));
    QVERIFY(TextTimeline::legend().contains(QLatin1String("o succeeded")));
}

void TestTextTimeline::render_hedgedAttemptsRunSideBySide()
{
    // One request: attempt 1 from 0 to 600 ms, cut when attempt 2 (a hedge from 200 ms) answered at 600 ms.
    RunRecord run;
    run.epochNs = 0;
    AttemptRecord first;
    first.requestId = 1;
    first.startNs = 0;
    first.endNs = 600'000'000;
    first.end = AttemptEnd::Cancelled;
    first.decision = Classification::Decision::GiveUp;
    AttemptRecord hedge = first;
    hedge.attemptIndex = 1;
    hedge.startNs = 200'000'000;
    hedge.end = AttemptEnd::Response;
    hedge.httpStatus = 200;
    hedge.decision = Classification::Decision::Success;
    hedge.hedged = true;
    hedge.hedgeWinner = true;
    run.attempts = {hedge, first};
    RequestResult result;
    result.requestId = 1;
    result.outcome = RequestOutcome::Succeeded;
    result.attempts = 2;
    result.startNs = 0;
    result.endNs = 600'000'000;
    run.results = {result};
    TextTimeline::Options options;
    options.width = 12;
    options.spanMs = 1200.0;
    const QStringList lines = TextTimeline::render(run, {{QStringLiteral("r"), 1}}, options);
    QCOMPARE(lines.size(), 3);
    // c at 0, o at 200 ms, and '=' while they ran, not '-' for a wait.
    QVERIFY2(lines.at(2).startsWith(QStringLiteral("r  |c=o====     |")), qPrintable(lines.at(2)));
    QVERIFY(TextTimeline::legend().contains(QLatin1String("= hedged")));
}

void TestTextTimeline::render_crowdedColumnsCountRetries()
{
    using D = Classification::Decision;
    RunRecord run;
    run.attempts = {attempt(1, 0, 0, D::RetryAfterDelay, 1), attempt(1, 1, 2, D::RetryAfterDelay, 1),
        attempt(1, 2, 4, D::RetryAfterDelay, 1), attempt(1, 3, 500, D::RetryAfterDelay, 1),
        attempt(1, 4, 501, D::Success, -1)};
    run.results = {result(1, RequestOutcome::Succeeded, 5, 0, 502)};
    // Still running: no result yet, the lane ends at the last attempt.
    run.attempts.append(attempt(2, 0, 0, D::RetryAfterDelay, 5));
    TextTimeline::Options options;
    options.width = 10;
    options.spanMs = 1000;
    const QStringList lines = TextTimeline::render(run, {{QStringLiteral("a"), 1}, {QStringLiteral("b"), 2}}, options);
    QCOMPARE(lines[2], QStringLiteral("a  |3----o    |  5 attempt(s), 502 ms"));
    QCOMPARE(lines[3], QStringLiteral("b  |x         |  1 attempt(s) so far"));
}

QTEST_GUILESS_MAIN(TestTextTimeline)
#include "tst_texttimeline.moc"
