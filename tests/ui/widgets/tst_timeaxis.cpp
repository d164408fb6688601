#include "ui/widgets/timeaxis.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace RetryLab::Ui;

class TestTimeAxis final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
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
