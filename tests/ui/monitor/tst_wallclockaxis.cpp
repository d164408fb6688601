#include "ui/monitor/wallclockaxis.h"

#include <QDateTime>
#include <QTest>

using namespace RetryLab;
using Ui::TimeScale;
namespace WallClockAxis = Ui::WallClockAxis;

namespace {

qint64 utc(int day, int hour, int minute, int second = 0)
{
    return QDateTime(QDate(2026, 11, day), QTime(hour, minute, second), QTimeZone::utc()).toMSecsSinceEpoch();
}

TimeScale scaleOver(qint64 fromMs, qint64 toMs, double widthPx)
{
    TimeScale scale;
    scale.minSpanMs = 1000.0;
    scale.setWidth(widthPx);
    scale.setBounds(double(fromMs), double(toMs));
    scale.showAll();
    return scale;
}

} // namespace

class TestWallClockAxis : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void label_showsThePrecisionOfTheStep_data();
    void label_showsThePrecisionOfTheStep();
    void ticks_hourSteps_fallOnRoundLocalHours();
    void ticks_daySteps_fallOnLocalMidnights();
    void ticks_secondSteps_readSeconds_andKeepTheirSpacing();
};

void TestWallClockAxis::label_showsThePrecisionOfTheStep_data()
{
    QTest::addColumn<qint64>("ms");
    QTest::addColumn<qint64>("stepMs");
    QTest::addColumn<int>("offsetSeconds");
    QTest::addColumn<QString>("expected");
    QTest::addRow("seconds") << utc(3, 14, 5, 7) << qint64(5000) << 0 << QStringLiteral("14:05:07");
    QTest::addRow("minutes") << utc(3, 14, 5) << qint64(60'000) << 0 << QStringLiteral("14:05");
    QTest::addRow("hours") << utc(3, 14, 0) << qint64(3'600'000) << 0 << QStringLiteral("14:00");
    QTest::addRow("days") << utc(3, 0, 0) << qint64(86'400'000) << 0 << QStringLiteral("3 Nov");
    QTest::addRow("midnight at an hour step is a date")
        << utc(4, 0, 0) << qint64(3'600'000) << 0 << QStringLiteral("4 Nov");
    QTest::addRow("in the zone's local time")
        << utc(3, 14, 5, 7) << qint64(1000) << 2 * 3600 << QStringLiteral("16:05:07");
    QTest::addRow("local midnight, UTC evening")
        << utc(3, 22, 0) << qint64(3'600'000) << 2 * 3600 << QStringLiteral("4 Nov");
}

void TestWallClockAxis::label_showsThePrecisionOfTheStep()
{
    QFETCH(qint64, ms);
    QFETCH(qint64, stepMs);
    QFETCH(int, offsetSeconds);
    QFETCH(QString, expected);
    QCOMPARE(WallClockAxis::label(ms, stepMs, QTimeZone(offsetSeconds), QLocale::c()), expected);
}

void TestWallClockAxis::ticks_hourSteps_fallOnRoundLocalHours()
{
    // India's offset is not a whole hour: ticks on the epoch's hours would read hh:30.
    const QTimeZone zone = QTimeZone(5 * 3600 + 1800);
    const TimeScale scale = scaleOver(utc(3, 0, 17), utc(4, 0, 17), 1000.0);
    const QList<TimeScale::Tick> ticks = WallClockAxis::ticks(scale, 90.0, zone, QLocale::c());
    QVERIFY(ticks.size() >= 4);
    for (qsizetype i = 0; i < ticks.size(); ++i) {
        const QDateTime local = QDateTime::fromMSecsSinceEpoch(qint64(ticks.at(i).ms), zone);
        QCOMPARE(local.time().minute(), 0);
        QCOMPARE(local.time().second(), 0);
        QVERIFY(ticks.at(i).ms >= scale.startMs && ticks.at(i).ms <= scale.endMs);
        QCOMPARE(ticks.at(i).px, scale.toPixel(ticks.at(i).ms));
        if (i > 0)
            QVERIFY(ticks.at(i).px - ticks.at(i - 1).px >= 90.0 - 1e-6);
        if (local.time().hour() != 0)
            QCOMPARE(ticks.at(i).label, local.toString(QStringLiteral("HH:mm")));
    }
}

void TestWallClockAxis::ticks_daySteps_fallOnLocalMidnights()
{
    const QTimeZone zone = QTimeZone(-5 * 3600);
    const TimeScale scale = scaleOver(utc(1, 7, 0), utc(1, 7, 0) + 30LL * 86'400'000, 800.0);
    const QList<TimeScale::Tick> ticks = WallClockAxis::ticks(scale, 90.0, zone, QLocale::c());
    QVERIFY(ticks.size() >= 3);
    for (const TimeScale::Tick &tick : ticks) {
        const QDateTime local = QDateTime::fromMSecsSinceEpoch(qint64(tick.ms), zone);
        QCOMPARE(local.time(), QTime(0, 0));
        QCOMPARE(tick.label, QLocale::c().toString(local.date(), QStringLiteral("d MMM")));
    }
}

void TestWallClockAxis::ticks_secondSteps_readSeconds_andKeepTheirSpacing()
{
    const TimeScale scale = scaleOver(utc(3, 9, 59, 58), utc(3, 10, 0, 8), 1000.0);
    const QList<TimeScale::Tick> ticks = WallClockAxis::ticks(scale, 90.0, QTimeZone::utc(), QLocale::c());
    QVERIFY(ticks.size() >= 5);
    QCOMPARE(ticks.first().label, QStringLiteral("09:59:58"));
    QStringList labels;
    for (const TimeScale::Tick &tick : ticks)
        labels.append(tick.label);
    QVERIFY2(labels.contains(QStringLiteral("10:00:00")), qPrintable(labels.join(QLatin1Char(' '))));
}

QTEST_GUILESS_MAIN(TestWallClockAxis)
#include "tst_wallclockaxis.moc"
