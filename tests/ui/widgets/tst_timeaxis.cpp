#include "ui/widgets/timeaxis.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace RetryLab::Ui;

class TestTimeAxis final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void niceStep_smallestRoundStepAtLeast_data();
    void niceStep_smallestRoundStepAtLeast();
    void niceStep_garbage_givesOne_data();
    void niceStep_garbage_givesOne();
    void timeStep_clockStepsAboveASecond_data();
    void timeStep_clockStepsAboveASecond();
    void unitFor_picksLargestReadableUnit_data();
    void unitFor_picksLargestReadableUnit();
    void linearRange_hasNiceEndsAndFewTicks_data();
    void linearRange_hasNiceEndsAndFewTicks();
    void linearRange_degenerateInput_givesUsableAxis_data();
    void linearRange_degenerateInput_givesUsableAxis();
    void logRange_coversWholeDecades_data();
    void logRange_coversWholeDecades();
    void logScaleHelps_onlyForWideSpans();
    void clampForLog_liftsZeroToTheFloor();
    void integerTickInterval_keepsTicksFew_data();
    void integerTickInterval_keepsTicksFew();
};

void TestTimeAxis::niceStep_smallestRoundStepAtLeast_data()
{
    QTest::addColumn<double>("minStep");
    QTest::addColumn<TimeAxis::StepSeries>("series");
    QTest::addColumn<double>("expected");
    const auto oneTwoFive = TimeAxis::StepSeries::OneTwoFive;
    const auto withHalves = TimeAxis::StepSeries::OneTwoTwoHalfFive;
    QTest::addRow("1-2-5: 0.3 -> 0.5") << 0.3 << oneTwoFive << 0.5;
    QTest::addRow("1-2-5: 0.001 exactly") << 0.001 << oneTwoFive << 0.001;
    QTest::addRow("1-2-5: 1.1 -> 2") << 1.1 << oneTwoFive << 2.0;
    QTest::addRow("1-2-5: 2.4 -> 5") << 2.4 << oneTwoFive << 5.0;
    QTest::addRow("1-2-5: 6.4 -> 10") << 6.4 << oneTwoFive << 10.0;
    QTest::addRow("1-2-5: 100 exactly") << 100.0 << oneTwoFive << 100.0;
    QTest::addRow("1-2-5: 101 -> 200") << 101.0 << oneTwoFive << 200.0;
    QTest::addRow("1-2-5: 250 -> 500") << 250.0 << oneTwoFive << 500.0;
    QTest::addRow("1-2-5: 0.3 / 3 is 0.1") << 0.3 / 3.0 << oneTwoFive << 0.1;
    QTest::addRow("1-2-2.5-5: 2.4 -> 2.5") << 2.4 << withHalves << 2.5;
    QTest::addRow("1-2-2.5-5: 250 exactly") << 250.0 << withHalves << 250.0;
    QTest::addRow("1-2-2.5-5: 0.26 -> 0.5") << 0.26 << withHalves << 0.5;
    QTest::addRow("1-2-2.5-5: 5.33 -> 10") << 32.0 / 6.0 << withHalves << 10.0;
    QTest::addRow("1-2-2.5-5: 1.5 -> 2") << 1.5 << withHalves << 2.0;
}

void TestTimeAxis::niceStep_smallestRoundStepAtLeast()
{
    QFETCH(double, minStep);
    QFETCH(TimeAxis::StepSeries, series);
    QFETCH(double, expected);
    const double step = TimeAxis::niceStep(minStep, series);
    QVERIFY2(qFuzzyCompare(step, expected), qPrintable(QString::number(step, 'g', 17)));
    QVERIFY(step >= minStep * (1.0 - 1e-9));
}

void TestTimeAxis::niceStep_garbage_givesOne_data()
{
    QTest::addColumn<double>("minStep");
    QTest::addRow("zero") << 0.0;
    QTest::addRow("negative") << -3.0;
    QTest::addRow("NaN") << std::nan("");
    QTest::addRow("infinite") << std::numeric_limits<double>::infinity();
}

void TestTimeAxis::niceStep_garbage_givesOne()
{
    QFETCH(double, minStep);
    QCOMPARE(TimeAxis::niceStep(minStep, TimeAxis::StepSeries::OneTwoFive), 1.0);
    QCOMPARE(TimeAxis::niceStep(minStep, TimeAxis::StepSeries::OneTwoTwoHalfFive), 1.0);
    QCOMPARE(TimeAxis::timeStep(minStep), 1.0);
}

void TestTimeAxis::timeStep_clockStepsAboveASecond_data()
{
    QTest::addColumn<double>("minimum");
    QTest::addColumn<double>("expected");
    QTest::addRow("0.3 ms -> 0.5 ms") << 0.3 << 0.5;
    QTest::addRow("0.001 ms exactly") << 0.001 << 0.001;
    QTest::addRow("80 ms -> 100 ms") << 80.0 << 100.0;
    QTest::addRow("100 ms exactly") << 100.0 << 100.0;
    QTest::addRow("101 ms -> 200 ms") << 101.0 << 200.0;
    QTest::addRow("250 ms -> 500 ms") << 250.0 << 500.0;
    QTest::addRow("999 ms -> 1 s") << 999.0 << 1000.0;
    QTest::addRow("1.2 s -> 2 s") << 1200.0 << 2000.0;
    QTest::addRow("7 s -> 10 s") << 7000.0 << 10'000.0;
    QTest::addRow("12 s -> 15 s") << 12'000.0 << 15'000.0;
    QTest::addRow("40 s -> 1 min") << 40'000.0 << 60'000.0;
    QTest::addRow("100 s -> 2 min") << 100'000.0 << 120'000.0;
    QTest::addRow("50 min -> 1 h") << 3'000'000.0 << 3'600'000.0;
    QTest::addRow("4 h -> 6 h") << 14'400'000.0 << 21'600'000.0;
    QTest::addRow("30 h -> 2 days") << 108'000'000.0 << 172'800'000.0;
    QTest::addRow("garbage -> 1 ms") << -3.0 << 1.0;
}

void TestTimeAxis::timeStep_clockStepsAboveASecond()
{
    QFETCH(double, minimum);
    QFETCH(double, expected);
    QCOMPARE(TimeAxis::timeStep(minimum), expected);
}

void TestTimeAxis::unitFor_picksLargestReadableUnit_data()
{
    QTest::addColumn<double>("maxMs");
    QTest::addColumn<double>("msPerUnit");
    QTest::addRow("zero") << 0.0 << 1.0;
    QTest::addRow("NaN") << std::nan("") << 1.0;
    QTest::addRow("999 ms") << 999.0 << 1.0;
    QTest::addRow("1 s") << 1000.0 << 1000.0;
    QTest::addRow("64 s") << 64'000.0 << 1000.0;
    QTest::addRow("5 min") << 300'000.0 << 60'000.0;
    QTest::addRow("3 h") << 3.0 * 3'600'000.0 << 3'600'000.0;
}

void TestTimeAxis::unitFor_picksLargestReadableUnit()
{
    QFETCH(double, maxMs);
    QFETCH(double, msPerUnit);
    QCOMPARE(TimeAxis::unitFor(maxMs).msPerUnit, msPerUnit);
    QVERIFY(!TimeAxis::unitFor(maxMs).symbol.isEmpty());
}

void TestTimeAxis::linearRange_hasNiceEndsAndFewTicks_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<double>("step");
    QTest::addRow("0..32") << 0.0 << 32.0 << 0.0 << 40.0 << 10.0;
    QTest::addRow("0..64") << 0.0 << 64.0 << 0.0 << 80.0 << 20.0;
    QTest::addRow("0..1") << 0.0 << 1.0 << 0.0 << 1.0 << 0.2;
    QTest::addRow("0..2.2") << 0.0 << 2.2 << 0.0 << 2.5 << 0.5;
    QTest::addRow("0..300") << 0.0 << 300.0 << 0.0 << 300.0 << 50.0;
    QTest::addRow("0..999") << 0.0 << 999.0 << 0.0 << 1000.0 << 200.0;
}

void TestTimeAxis::linearRange_hasNiceEndsAndFewTicks()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(double, step);
    const auto range = TimeAxis::linearRange(lo, hi, 7);
    QCOMPARE(range.min, min);
    QCOMPARE(range.max, max);
    QVERIFY(qFuzzyCompare(range.step, step));
    QVERIFY(range.max >= hi && range.min <= lo);
    QVERIFY(range.tickCount >= 2 && range.tickCount <= 7);
    QCOMPARE(range.tickCount, static_cast<int>(std::lround((max - min) / step)) + 1);
}

void TestTimeAxis::linearRange_degenerateInput_givesUsableAxis_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addRow("all zero") << 0.0 << 0.0;
    QTest::addRow("inverted") << 5.0 << 1.0;
    QTest::addRow("NaN") << std::nan("") << std::nan("");
    QTest::addRow("infinite") << 0.0 << std::numeric_limits<double>::infinity();
    QTest::addRow("constant 2") << 2.0 << 2.0;
}

void TestTimeAxis::linearRange_degenerateInput_givesUsableAxis()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    const auto range = TimeAxis::linearRange(lo, hi);
    QVERIFY(std::isfinite(range.min) && std::isfinite(range.max));
    QVERIFY(range.max > range.min);
    QVERIFY(range.tickCount >= 2);
}

void TestTimeAxis::logRange_coversWholeDecades_data()
{
    QTest::addColumn<double>("minPositive");
    QTest::addColumn<double>("max");
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    QTest::addRow("1..32") << 1.0 << 32.0 << 1.0 << 100.0;
    QTest::addRow("0.1..64") << 0.1 << 64.0 << 0.1 << 100.0;
    QTest::addRow("0.05..0.3") << 0.05 << 0.3 << 0.01 << 1.0;
    QTest::addRow("single value on a decade") << 10.0 << 10.0 << 10.0 << 100.0;
    QTest::addRow("nonsense") << -1.0 << 0.0 << 1.0 << 10.0;
}

void TestTimeAxis::logRange_coversWholeDecades()
{
    QFETCH(double, minPositive);
    QFETCH(double, max);
    QFETCH(double, low);
    QFETCH(double, high);
    const auto range = TimeAxis::logRange(minPositive, max);
    QVERIFY(qFuzzyCompare(range.min, low));
    QVERIFY(qFuzzyCompare(range.max, high));
    QCOMPARE(range.tickCount, static_cast<int>(std::lround(std::log10(high / low))) + 1);
}

void TestTimeAxis::logScaleHelps_onlyForWideSpans()
{
    QVERIFY(!TimeAxis::logScaleHelps(1000.0, 32'000.0));
    QVERIFY(TimeAxis::logScaleHelps(100.0, 20'000.0));
    QVERIFY(TimeAxis::logScaleHelps(1.0, 50.0));
    QVERIFY(!TimeAxis::logScaleHelps(0.0, 50.0));
    QVERIFY(!TimeAxis::logScaleHelps(5.0, 0.0));
}

void TestTimeAxis::clampForLog_liftsZeroToTheFloor()
{
    QCOMPARE(TimeAxis::clampForLog(0.0, 0.1), 0.1);
    QCOMPARE(TimeAxis::clampForLog(-3.0, 0.1), 0.1);
    QCOMPARE(TimeAxis::clampForLog(std::nan(""), 0.1), 0.1);
    QCOMPARE(TimeAxis::clampForLog(2.5, 0.1), 2.5);
}

void TestTimeAxis::integerTickInterval_keepsTicksFew_data()
{
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("interval");
    QTest::addRow("1") << 1 << 1;
    QTest::addRow("10") << 10 << 1;
    QTest::addRow("11") << 11 << 2;
    QTest::addRow("30") << 30 << 5;
    QTest::addRow("64") << 64 << 10;
    QTest::addRow("1000") << 1000 << 100;
}

void TestTimeAxis::integerTickInterval_keepsTicksFew()
{
    QFETCH(int, count);
    QFETCH(int, interval);
    QCOMPARE(TimeAxis::integerTickInterval(count, 10), interval);
    QVERIFY((count + interval - 1) / interval <= 10);
}

QTEST_GUILESS_MAIN(TestTimeAxis)
#include "tst_timeaxis.moc"
