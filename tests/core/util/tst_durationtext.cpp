#include "core/util/durationtext.h"

#include <QTest>

#include <limits>

using namespace RetryLab::Core;

class TestDurationText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void compact_readsAtAGlance_data();
    void compact_readsAtAGlance();
    void exact_keepsEveryTypedDigit_data();
    void exact_keepsEveryTypedDigit();
    void format_defaultsToCompact();
};

void TestDurationText::compact_readsAtAGlance_data()
{
    QTest::addColumn<double>("ms");
    QTest::addColumn<QString>("expected");

    const double inf = std::numeric_limits<double>::infinity();
    QTest::addRow("zero") << 0.0 << QStringLiteral("0 ms");
    QTest::addRow("below what three decimals show") << 0.0004 << QStringLiteral("0 ms");
    QTest::addRow("a microsecond") << 0.001 << QStringLiteral("0.001 ms");
    QTest::addRow("sub-ms") << 0.125 << QStringLiteral("0.125 ms");
    QTest::addRow("sub-ms, trailing zeros dropped") << 0.5 << QStringLiteral("0.5 ms");
    QTest::addRow("sub-ms rounding to one") << 0.9996 << QStringLiteral("1 ms");
    QTest::addRow("one") << 1.0 << QStringLiteral("1 ms");
    QTest::addRow("two decimals below ten") << 2.534 << QStringLiteral("2.53 ms");
    QTest::addRow("one decimal below a hundred") << 25.34 << QStringLiteral("25.3 ms");
    QTest::addRow("ninety-nine point nine six") << 99.96 << QStringLiteral("100 ms");
    QTest::addRow("whole from a hundred") << 250.4 << QStringLiteral("250 ms");
    QTest::addRow("850") << 850.0 << QStringLiteral("850 ms");
    QTest::addRow("999.4 stays in ms") << 999.4 << QStringLiteral("999 ms");
    QTest::addRow("999.5 rounds into seconds") << 999.5 << QStringLiteral("1 s");
    QTest::addRow("1000") << 1000.0 << QStringLiteral("1 s");
    QTest::addRow("1234") << 1234.0 << QStringLiteral("1.23 s");
    QTest::addRow("1500") << 1500.0 << QStringLiteral("1.5 s");
    QTest::addRow("9999 rounds to ten") << 9999.0 << QStringLiteral("10 s");
    QTest::addRow("12345") << 12'345.0 << QStringLiteral("12.3 s");
    QTest::addRow("59,940") << 59'940.0 << QStringLiteral("59.9 s");
    QTest::addRow("59,999 rounds into minutes") << 59'999.0 << QStringLiteral("1 min");
    QTest::addRow("one minute") << 60'000.0 << QStringLiteral("1 min");
    QTest::addRow("two minutes five") << 125'000.0 << QStringLiteral("2 min 5 s");
    QTest::addRow("seconds rounded in minutes") << 125'600.0 << QStringLiteral("2 min 6 s");
    QTest::addRow("59 min 59.6 s rounds into hours") << 3'599'600.0 << QStringLiteral("1 h");
    QTest::addRow("one hour") << 3'600'000.0 << QStringLiteral("1 h");
    QTest::addRow("three hours twenty") << 12'000'000.0 << QStringLiteral("3 h 20 min");
    QTest::addRow("a day is still hours") << 86'400'000.0 << QStringLiteral("24 h");
    QTest::addRow("47 h 59 min") << 172'740'000.0 << QStringLiteral("47 h 59 min");
    QTest::addRow("two days") << 172'800'000.0 << QStringLiteral("2 days");
    QTest::addRow("five days four hours") << 446'400'000.0 << QStringLiteral("5 days 4 h");
    QTest::addRow("a year is still days") << 365.25 * 86'400'000.0 << QStringLiteral("365 days 6 h");
    QTest::addRow("two years") << 2.0 * 365.25 * 86'400'000.0 << QStringLiteral("2 years");
    QTest::addRow("31.7 years") << 1e12 << QStringLiteral("31.7 years");
    QTest::addRow("hundreds of years are whole") << 1e13 << QStringLiteral("317 years");
    QTest::addRow("huge") << 1e300 << QStringLiteral("3.17e+289 years");
    QTest::addRow("largest double") << std::numeric_limits<double>::max() << QStringLiteral("5.7e+297 years");
    QTest::addRow("negative ms") << -250.0 << QStringLiteral("-250 ms");
    QTest::addRow("negative s") << -1500.0 << QStringLiteral("-1.5 s");
    QTest::addRow("negative minutes") << -125'000.0 << QStringLiteral("-2 min 5 s");
    QTest::addRow("negative too small to show") << -0.0004 << QStringLiteral("0 ms");
    QTest::addRow("negative zero") << -0.0 << QStringLiteral("0 ms");
    QTest::addRow("infinity") << inf << QStringLiteral("\u221e");
    QTest::addRow("negative infinity") << -inf << QStringLiteral("-\u221e");
    QTest::addRow("NaN") << std::numeric_limits<double>::quiet_NaN() << QStringLiteral("\u2014");
}

void TestDurationText::compact_readsAtAGlance()
{
    QFETCH(double, ms);
    QFETCH(QString, expected);
    QCOMPARE(DurationText::format(ms, DurationText::Style::Compact), expected);
}

void TestDurationText::exact_keepsEveryTypedDigit_data()
{
    QTest::addColumn<double>("ms");
    QTest::addColumn<QString>("expected");

    const double inf = std::numeric_limits<double>::infinity();
    QTest::addRow("zero") << 0.0 << QStringLiteral("0 ms");
    QTest::addRow("sub-ms") << 0.125 << QStringLiteral("0.125 ms");
    QTest::addRow("digits compact would round") << 0.0004 << QStringLiteral("0.0004 ms");
    QTest::addRow("a typed fraction") << 250.75 << QStringLiteral("250.75 ms");
    QTest::addRow("999.5") << 999.5 << QStringLiteral("999.5 ms");
    QTest::addRow("1000 is read") << 1000.0 << QStringLiteral("1000 ms (1 s)");
    QTest::addRow("59,999") << 59'999.0 << QStringLiteral("59999 ms (1 min)");
    QTest::addRow("minutes") << 90'000.0 << QStringLiteral("90000 ms (1 min 30 s)");
    QTest::addRow("hours") << 86'400'000.0 << QStringLiteral("86400000 ms (24 h)");
    QTest::addRow("sum of decimals") << 0.1 + 0.2 << QStringLiteral("0.3 ms");
    QTest::addRow("negative") << -250.0 << QStringLiteral("-250 ms");
    QTest::addRow("negative seconds") << -1500.0 << QStringLiteral("-1500 ms (-1.5 s)");
    QTest::addRow("huge") << 1e300 << QStringLiteral("1e+300 ms (3.17e+289 years)");
    QTest::addRow("infinity") << inf << QStringLiteral("\u221e");
    QTest::addRow("NaN") << std::numeric_limits<double>::quiet_NaN() << QStringLiteral("\u2014");
}

void TestDurationText::exact_keepsEveryTypedDigit()
{
    QFETCH(double, ms);
    QFETCH(QString, expected);
    QCOMPARE(DurationText::format(ms, DurationText::Style::Exact), expected);
}

void TestDurationText::format_defaultsToCompact()
{
    QCOMPARE(DurationText::format(1500.0), QStringLiteral("1.5 s"));
}

QTEST_GUILESS_MAIN(TestDurationText)
#include "tst_durationtext.moc"
