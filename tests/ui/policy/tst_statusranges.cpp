#include "core/policy/backoffpolicy.h"
#include "ui/policy/statusranges.h"

#include <QTest>

using namespace RetryLab;
namespace StatusRanges = RetryLab::Ui::StatusRanges;

class TestStatusRanges final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void format_collapsesRuns_data();
    void format_collapsesRuns();
    void parse_readsCodesRangesAndClasses_data();
    void parse_readsCodesRangesAndClasses();
    void parse_refusesWithTheBadPart_data();
    void parse_refusesWithTheBadPart();
    void formatThenParse_isLossless();
};

void TestStatusRanges::format_collapsesRuns_data()
{
    QTest::addColumn<QList<int>>("codes");
    QTest::addColumn<QString>("expected");
    QTest::addRow("empty") << QList<int>{} << QString();
    QTest::addRow("one") << QList<int>{503} << QStringLiteral("503");
    QTest::addRow("pair stays a list") << QList<int>{503, 502} << QStringLiteral("502, 503");
    QTest::addRow("run of three") << QList<int>{500, 501, 502} << QStringLiteral("500-502");
    QTest::addRow("iam") << QList<int>{504, 500, 502, 503} << QStringLiteral("500, 502-504");
}

void TestStatusRanges::format_collapsesRuns()
{
    QFETCH(QList<int>, codes);
    QFETCH(QString, expected);
    QCOMPARE(StatusRanges::format(QSet<int>(codes.cbegin(), codes.cend())), expected);
}

void TestStatusRanges::parse_readsCodesRangesAndClasses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("count");
    QTest::addColumn<QList<int>>("contains");
    QTest::addRow("empty") << QString() << 0 << QList<int>{};
    QTest::addRow("commas") << QStringLiteral("429, 503") << 2 << QList<int>{429, 503};
    QTest::addRow("spaces and semicolons") << QStringLiteral(" 404 ;429  503 ") << 3 << QList<int>{404, 429, 503};
    QTest::addRow("range") << QStringLiteral("500-599") << 100 << QList<int>{500, 550, 599};
    QTest::addRow("range with spaces") << QStringLiteral("500 - 504") << 5 << QList<int>{500, 504};
    QTest::addRow("en dash") << QStringLiteral("500\u2013502") << 3 << QList<int>{501};
    QTest::addRow("class") << QStringLiteral("429, 5xx") << 101 << QList<int>{429, 500, 599};
    QTest::addRow("duplicates merge") << QStringLiteral("503, 500-504, 503") << 5 << QList<int>{503};
}

void TestStatusRanges::parse_readsCodesRangesAndClasses()
{
    QFETCH(QString, text);
    QFETCH(int, count);
    QFETCH(QList<int>, contains);
    const auto result = StatusRanges::parse(text);
    QVERIFY2(result.ok(), qPrintable(result.error()));
    QCOMPARE(result->size(), count);
    for (int code : contains)
        QVERIFY2(result->contains(code), qPrintable(QString::number(code)));
}

void TestStatusRanges::parse_refusesWithTheBadPart_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("quoted");
    QTest::addRow("word") << QStringLiteral("429, five hundred") << QStringLiteral("\"five\"");
    QTest::addRow("reversed range") << QStringLiteral("599-500") << QStringLiteral("\"599-500\"");
    QTest::addRow("above 599") << QStringLiteral("700") << QStringLiteral("\"700\"");
    QTest::addRow("below 100") << QStringLiteral("99") << QStringLiteral("\"99\"");
    QTest::addRow("six class") << QStringLiteral("6xx") << QStringLiteral("\"6xx\"");
    QTest::addRow("negative") << QStringLiteral("-5") << QStringLiteral("\"-5\"");
    QTest::addRow("decimal") << QStringLiteral("503.5") << QStringLiteral("\"503.5\"");
}

void TestStatusRanges::parse_refusesWithTheBadPart()
{
    QFETCH(QString, text);
    QFETCH(QString, quoted);
    const auto result = StatusRanges::parse(text);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().contains(quoted), qPrintable(result.error()));
}

void TestStatusRanges::formatThenParse_isLossless()
{
    const QSet<int> defaults = Core::ClassificationRules::defaultRetryableStatuses();
    QCOMPARE(StatusRanges::format(defaults), QStringLiteral("429, 500-599"));
    const QSet<int> odd{404, 408, 429, 500, 502, 503, 504, 520, 521};
    for (const QSet<int> &set : {defaults, odd}) {
        const auto parsed = StatusRanges::parse(StatusRanges::format(set));
        QVERIFY(parsed.ok());
        QCOMPARE(*parsed, set);
    }
}

QTEST_GUILESS_MAIN(TestStatusRanges)
#include "tst_statusranges.moc"
