#include "ui/widgets/timescale.h"

#include <QTest>

#include <cmath>
#include <limits>

using RetryLab::Ui::TimeScale;

namespace {

TimeScale scale(double start, double end, double width, double boundStart, double boundEnd)
{
    TimeScale s;
    s.widthPx = width;
    s.boundStartMs = boundStart;
    s.boundEndMs = boundEnd;
    s.startMs = start;
    s.endMs = end;
    s.clamp();
    return s;
}

} // namespace

class TestTimeScale : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gaps_idleTimeDrawnNarrow_restAtScale();
    void gaps_thatDoNotFit_areDropped();
    void mapping_pixelAndTime_areInverse();
    void zoomAt_keepsAnchorFixed_data();
    void zoomAt_keepsAnchorFixed();
    void zoomOut_beyondBounds_showsEverything();
    void zoomIn_stopsAtMinimumSpan_anchorStays();
    void zoomAt_nearBound_shiftsInsteadOfLeaving();
    void pan_clampsAtBothBounds();
    void pan_byPixels_movesByPixelWorth();
    void clamp_garbage_becomesValidRange();
    void setBounds_narrowerThanRange_shrinksRange();
    void label_data();
    void label();
    void ticks_firstSecond_tenthsOfSeconds();
    void ticks_offsetRange_startAtFirstMultiple();
    void ticks_minutes_useClockSteps();
    void ticks_spacing_neverBelowMinimum_data();
    void ticks_spacing_neverBelowMinimum();
};

void TestTimeScale::mapping_pixelAndTime_areInverse()
{
    const TimeScale s = scale(200, 1200, 500, 0, 5000);
    QCOMPARE(s.toPixel(200), 0.0);
    QCOMPARE(s.toPixel(1200), 500.0);
    QCOMPARE(s.toPixel(700), 250.0);
    QCOMPARE(s.toTime(250), 700.0);
    QCOMPARE(s.pixelsPerMs(), 0.5);
    for (double px : {0.0, 13.0, 250.5, 499.0})
        QCOMPARE(s.toPixel(s.toTime(px)), px);
}

void TestTimeScale::zoomAt_keepsAnchorFixed_data()
{
    QTest::addColumn<double>("anchorPx");
    QTest::addColumn<double>("factor");
    QTest::addRow("zoom in at the centre") << 500.0 << 2.0;
    QTest::addRow("zoom in near the left") << 10.0 << 4.0;
    QTest::addRow("zoom in near the right") << 990.0 << 1.25;
    QTest::addRow("zoom out a little") << 300.0 << 0.8;
    QTest::addRow("deep zoom in") << 777.0 << 1000.0;
}

void TestTimeScale::zoomAt_keepsAnchorFixed()
{
    QFETCH(double, anchorPx);
    QFETCH(double, factor);
    TimeScale s = scale(10'000, 20'000, 1000, 0, 60'000);
    const double anchorMs = s.toTime(anchorPx);
    const double span = s.spanMs();
    s.zoomAt(anchorPx, factor);
    QCOMPARE(s.spanMs(), span / factor);
    QCOMPARE(s.toTime(anchorPx), anchorMs);
    QCOMPARE(s.toPixel(anchorMs), anchorPx);
}

void TestTimeScale::zoomOut_beyondBounds_showsEverything()
{
    TimeScale s = scale(10'000, 20'000, 1000, 0, 30'000);
    s.zoomAt(900, 0.01);
    QCOMPARE(s.startMs, 0.0);
    QCOMPARE(s.endMs, 30'000.0);
}

void TestTimeScale::zoomIn_stopsAtMinimumSpan_anchorStays()
{
    TimeScale s = scale(0, 1000, 1000, 0, 1000);
    s.minSpanMs = 0.5;
    const double anchorMs = s.toTime(250);
    s.zoomAt(250, 1e9);
    QCOMPARE(s.spanMs(), 0.5);
    QCOMPARE(s.toTime(250), anchorMs);
}

void TestTimeScale::zoomAt_nearBound_shiftsInsteadOfLeaving()
{
    // Zooming out at the right edge would push the start before 0: the range shifts.
    TimeScale s = scale(0, 1000, 1000, 0, 10'000);
    s.zoomAt(1000, 0.5);
    QCOMPARE(s.startMs, 0.0);
    QCOMPARE(s.endMs, 2000.0);
}

void TestTimeScale::pan_clampsAtBothBounds()
{
    TimeScale s = scale(1000, 2000, 1000, 0, 5000);
    s.panByMs(-5000);
    QCOMPARE(s.startMs, 0.0);
    QCOMPARE(s.endMs, 1000.0);
    s.panByMs(1e9);
    QCOMPARE(s.startMs, 4000.0);
    QCOMPARE(s.endMs, 5000.0);
    s.panByMs(std::numeric_limits<double>::quiet_NaN());
    QCOMPARE(s.startMs, 4000.0);
}

void TestTimeScale::pan_byPixels_movesByPixelWorth()
{
    TimeScale s = scale(1000, 2000, 500, 0, 5000); // 2 ms per pixel
    s.panByPixels(100);
    QCOMPARE(s.startMs, 1200.0);
    s.panByPixels(-50);
    QCOMPARE(s.startMs, 1100.0);
    QCOMPARE(s.spanMs(), 1000.0);
}

void TestTimeScale::clamp_garbage_becomesValidRange()
{
    TimeScale s;
    s.widthPx = std::numeric_limits<double>::quiet_NaN();
    s.startMs = std::numeric_limits<double>::infinity();
    s.endMs = -5;
    s.boundStartMs = 0;
    s.boundEndMs = -100; // reversed bounds
    s.minSpanMs = -1;
    s.clamp();
    QCOMPARE(s.widthPx, 1.0);
    QVERIFY(s.spanMs() > 0);
    QVERIFY(std::isfinite(s.startMs) && std::isfinite(s.endMs));
    QCOMPARE(s.startMs, 0.0);
    s.zoomAt(std::numeric_limits<double>::quiet_NaN(), 2.0);
    s.zoomAt(0, 0.0);
    QVERIFY(s.spanMs() > 0);
}

void TestTimeScale::setBounds_narrowerThanRange_shrinksRange()
{
    TimeScale s = scale(0, 10'000, 1000, 0, 10'000);
    s.setBounds(0, 4000);
    QCOMPARE(s.startMs, 0.0);
    QCOMPARE(s.endMs, 4000.0);
    // Growing bounds leave the range where it is.
    s.setBounds(0, 60'000);
    QCOMPARE(s.endMs, 4000.0);
}

void TestTimeScale::label_data()
{
    QTest::addColumn<double>("ms");
    QTest::addColumn<double>("step");
    QTest::addColumn<QString>("expected");
    QTest::addRow("zero, tenths") << 0.0 << 100.0 << QStringLiteral("0.0 s");
    QTest::addRow("tenths") << 1500.0 << 100.0 << QStringLiteral("1.5 s");
    QTest::addRow("whole seconds") << 4000.0 << 1000.0 << QStringLiteral("4 s");
    QTest::addRow("hundredths") << 20.0 << 10.0 << QStringLiteral("0.02 s");
    QTest::addRow("milliseconds") << 1003.0 << 1.0 << QStringLiteral("1.003 s");
    QTest::addRow("sub-millisecond") << 0.25 << 0.05 << QStringLiteral("0.25 ms");
    QTest::addRow("sub-millisecond later") << 1500.5 << 0.5 << QStringLiteral("1500.5 ms");
    QTest::addRow("minutes") << 150'000.0 << 30'000.0 << QStringLiteral("2:30");
    QTest::addRow("minutes with tenths") << 65'500.0 << 500.0 << QStringLiteral("1:05.5");
    QTest::addRow("rounds up into minutes") << 59'990.0 << 100.0 << QStringLiteral("1:00.0");
    QTest::addRow("hours") << 3'750'000.0 << 30'000.0 << QStringLiteral("1:02:30");
    QTest::addRow("before the origin") << -2000.0 << 1000.0 << QStringLiteral("-2 s");
}

void TestTimeScale::label()
{
    QFETCH(double, ms);
    QFETCH(double, step);
    QFETCH(QString, expected);
    QCOMPARE(TimeScale::label(ms, step), expected);
}

void TestTimeScale::ticks_firstSecond_tenthsOfSeconds()
{
    const TimeScale s = scale(0, 1000, 1000, 0, 10'000);
    const auto ticks = s.ticks(90);
    QCOMPARE(ticks.size(), 11);
    for (int i = 0; i < ticks.size(); ++i) {
        QCOMPARE(ticks.at(i).ms, i * 100.0);
        QCOMPARE(ticks.at(i).px, i * 100.0);
    }
    QCOMPARE(ticks.first().label, QStringLiteral("0.0 s"));
    QCOMPARE(ticks.at(3).label, QStringLiteral("0.3 s"));
    QCOMPARE(ticks.last().label, QStringLiteral("1.0 s"));
}

void TestTimeScale::ticks_offsetRange_startAtFirstMultiple()
{
    // 1234..3234 ms over 400 px: 90 px is 450 ms, so the step is 500 ms.
    const TimeScale s = scale(1234, 3234, 400, 0, 10'000);
    const auto ticks = s.ticks(90);
    QCOMPARE(ticks.size(), 4);
    QCOMPARE(ticks.at(0).ms, 1500.0);
    QCOMPARE(ticks.at(3).ms, 3000.0);
    QCOMPARE(ticks.at(0).px, (1500.0 - 1234.0) / 5.0);
    QCOMPARE(ticks.at(1).label, QStringLiteral("2.0 s"));
}

void TestTimeScale::ticks_minutes_useClockSteps()
{
    // 10 minutes over 1000 px: 90 px is 54 s, the step is a minute.
    const TimeScale s = scale(0, 600'000, 1000, 0, 3'600'000);
    const auto ticks = s.ticks(90);
    QCOMPARE(ticks.size(), 11);
    QCOMPARE(ticks.at(1).label, QStringLiteral("1:00"));
    QCOMPARE(ticks.at(10).label, QStringLiteral("10:00"));
}

void TestTimeScale::ticks_spacing_neverBelowMinimum_data()
{
    QTest::addColumn<double>("span");
    QTest::addColumn<double>("width");
    for (double span : {0.01, 3.7, 999.0, 12'345.0, 7'200'000.0})
        QTest::addRow("span %g ms", span) << span << 777.0;
}

void TestTimeScale::ticks_spacing_neverBelowMinimum()
{
    QFETCH(double, span);
    QFETCH(double, width);
    const TimeScale s = scale(5, 5 + span, width, 0, 1e9);
    const auto ticks = s.ticks(80);
    QVERIFY(!ticks.isEmpty());
    for (int i = 1; i < ticks.size(); ++i)
        QVERIFY2(ticks.at(i).px - ticks.at(i - 1).px >= 80.0 - 1e-6, qPrintable(ticks.at(i).label));
    for (const auto &tick : ticks) {
        QVERIFY(tick.px >= -1e-6 && tick.px <= width + 1e-6);
        QVERIFY(!tick.label.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestTimeScale)
void TestTimeScale::gaps_idleTimeDrawnNarrow_restAtScale()
{
    // 62 s on 1036 px with an idle minute in the middle drawn 36 px wide: the other
    // two seconds share 1000 px.
    TimeScale s = scale(0.0, 62'000.0, 1036.0, 0.0, 62'000.0);
    s.gapPx = 36.0;
    s.gaps = {{1000.0, 61'000.0}};
    s.clamp();
    QCOMPARE(s.gaps.size(), 1);
    QCOMPARE(s.pixelsPerMs(), 0.5);
    QCOMPARE(s.toPixel(500.0), 250.0);
    QCOMPARE(s.toPixel(1000.0), 500.0);
    QCOMPARE(s.toPixel(31'000.0), 518.0); // half-way through the gap
    QCOMPARE(s.toPixel(61'000.0), 536.0);
    QCOMPARE(s.toPixel(62'000.0), 1036.0);
    for (double ms : {0.0, 700.0, 1000.0, 20'000.0, 61'000.0, 61'500.0, 62'000.0})
        QVERIFY2(std::abs(s.toTime(s.toPixel(ms)) - ms) < 1e-6, qPrintable(QString::number(ms)));
    QVERIFY(s.gapAt(30'000.0));
    QVERIFY(!s.gapAt(500.0));
    QVERIFY(!s.gapAt(61'500.0));

    // Ticks on both sides at the linear rate, none inside the gap or over its label.
    const QList<TimeScale::Tick> ticks = s.ticks(90.0);
    bool before = false;
    bool after = false;
    for (qsizetype i = 0; i < ticks.size(); ++i) {
        const TimeScale::Tick &tick = ticks.at(i);
        QVERIFY2(!s.gapAt(tick.ms), qPrintable(tick.label));
        QVERIFY2(std::abs(tick.px - 518.0) >= 54.0, qPrintable(tick.label));
        if (i > 0)
            QVERIFY(tick.px - ticks.at(i - 1).px >= 90.0 * 0.75);
        before = before || tick.ms < 1000.0;
        after = after || tick.ms > 61'000.0;
    }
    QVERIFY(before);
    QVERIFY(after);

    // Zooming keeps the time under the pointer where it is (here half-way through
    // the gap, where no bound is in the way), and draws at scale.
    const double under = s.toTime(518.0);
    QCOMPARE(under, 31'000.0);
    s.zoomAt(518.0, 10.0);
    QVERIFY(s.gaps.isEmpty());
    QCOMPARE(s.spanMs(), 6200.0);
    QVERIFY2(std::abs(s.toTime(518.0) - under) < 1e-6, qPrintable(QString::number(s.toTime(518.0))));
}

void TestTimeScale::gaps_thatDoNotFit_areDropped()
{
    TimeScale s = scale(0.0, 10'000.0, 1000.0, 0.0, 10'000.0);
    s.gaps = {{2000.0, 3000.0}, {2500.0, 4000.0}, {9000.0, 12'000.0}, {5000.0, 4000.0}};
    s.clamp();
    QCOMPARE(s.gaps.size(), 1); // overlapping, beyond the range, backwards: gone
    QCOMPARE(s.gaps.at(0).fromMs, 2000.0);
    // More gaps than half the width can hold: drawn at scale instead.
    s.gapPx = 200.0;
    s.gaps = {{1000.0, 2000.0}, {3000.0, 4000.0}, {5000.0, 6000.0}};
    s.clamp();
    QVERIFY(s.gaps.isEmpty());
    s.gaps = {{1000.0, 2000.0}};
    s.panByMs(10.0);
    QVERIFY(s.gaps.isEmpty());
}

#include "tst_timescale.moc"
