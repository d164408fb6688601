#include "core/http/httpstatuslist.h"

#include <QTest>

using namespace RetryLab::Core;

class TestHttpStatusList final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void format_data();
    void format();
    void format_set_collapsesRunsOfThree_data();
    void format_set_collapsesRunsOfThree();
    void parse_readsCodesRangesAndClasses_data();
    void parse_readsCodesRangesAndClasses();
    void parse_refusesWithTheBadPart_data();
    void parse_refusesWithTheBadPart();
    void formatThenParse_isLossless();
    void factors_readAndWritten_data();
    void factors_readAndWritten();
};

void TestHttpStatusList::format_data()
{
    QTest::addColumn<QList<int>>("statuses");
    QTest::addColumn<QString>("expected");
    QTest::addRow("empty") << QList<int>{} << QString();
    QTest::addRow("one") << QList<int>{503} << QStringLiteral("503");
    QTest::addRow("two in a row stay apart") << QList<int>{502, 503} << QStringLiteral("502, 503");
    QTest::addRow("three make a range") << QList<int>{502, 503, 504} << QStringLiteral("502-504");
    QTest::addRow("unsorted with repeats")
        << QList<int>{504, 408, 503, 502, 503, 429} << QStringLiteral("408, 429, 502-504");
    QList<int> storage{429, 501};
    for (int s = 505; s <= 599; ++s)
        storage.append(s);
    QTest::addRow("storage preset") << storage << QStringLiteral("429, 501, 505-599");
}

void TestHttpStatusList::format()
{
    QFETCH(QList<int>, statuses);
    QFETCH(QString, expected);
    QCOMPARE(HttpStatusList::format(statuses), expected);
}

// The editor's field shows a QSet; the same rule as for a list.
void TestHttpStatusList::format_set_collapsesRunsOfThree_data()
{
    QTest::addColumn<QList<int>>("codes");
    QTest::addColumn<QString>("expected");
    QTest::addRow("empty") << QList<int>{} << QString();
    QTest::addRow("one") << QList<int>{503} << QStringLiteral("503");
    QTest::addRow("pair stays a list") << QList<int>{503, 502} << QStringLiteral("502, 503");
    QTest::addRow("run of three") << QList<int>{500, 501, 502} << QStringLiteral("500-502");
    QTest::addRow("iam") << QList<int>{504, 500, 502, 503} << QStringLiteral("500, 502-504");
}

void TestHttpStatusList::format_set_collapsesRunsOfThree()
{
    QFETCH(QList<int>, codes);
    QFETCH(QString, expected);
    const QSet<int> set(codes.cbegin(), codes.cend());
    QCOMPARE(HttpStatusList::format(set), expected);
    QCOMPARE(HttpStatusList::format(set), HttpStatusList::format(codes));
}

void TestHttpStatusList::parse_readsCodesRangesAndClasses_data()
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

void TestHttpStatusList::parse_readsCodesRangesAndClasses()
{
    QFETCH(QString, text);
    QFETCH(int, count);
    QFETCH(QList<int>, contains);
    const auto result = HttpStatusList::parse(text);
    QVERIFY2(result.ok(), qPrintable(result.error()));
    QCOMPARE(result->size(), count);
    for (int code : contains)
        QVERIFY2(result->contains(code), qPrintable(QString::number(code)));
}

void TestHttpStatusList::parse_refusesWithTheBadPart_data()
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

void TestHttpStatusList::parse_refusesWithTheBadPart()
{
    QFETCH(QString, text);
    QFETCH(QString, quoted);
    const auto result = HttpStatusList::parse(text);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().contains(quoted), qPrintable(result.error()));
}

void TestHttpStatusList::formatThenParse_isLossless()
{
    // ClassificationRules::defaultRetryableStatuses(), spelt out: this suite links http only.
    QSet<int> defaults{429};
    for (int code = 500; code <= 599; ++code)
        defaults.insert(code);
    QCOMPARE(HttpStatusList::format(defaults), QStringLiteral("429, 500-599"));
    const QSet<int> odd{404, 408, 429, 500, 502, 503, 504, 520, 521};
    for (const QSet<int> &set : {defaults, odd}) {
        const auto parsed = HttpStatusList::parse(HttpStatusList::format(set));
        QVERIFY(parsed.ok());
        QCOMPARE(*parsed, set);
    }
}

void TestHttpStatusList::factors_readAndWritten_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("formatted"); // null: refused
    QTest::addColumn<QString>("error");
    QTest::addRow("none") << QString() << QStringLiteral("") << QString();
    QTest::addRow("two, sorted") << QStringLiteral("503=0.5, 429=2") << QStringLiteral("429=2, 503=0.5") << QString();
    QTest::addRow("spaces and semicolons")
        << QStringLiteral("429 = 3 ; 500=.25") << QStringLiteral("429=3, 500=0.25") << QString();
    QTest::addRow("times sign") << QStringLiteral("429\u00d72") << QStringLiteral("429=2") << QString();
    QTest::addRow("no factor") << QStringLiteral("429") << QString() << QStringLiteral("\"429\" is not STATUS=FACTOR");
    QTest::addRow("negative") << QStringLiteral("429=-1") << QString() << QStringLiteral("is not STATUS=FACTOR");
    QTest::addRow("no status") << QStringLiteral("99=2") << QString()
                               << QStringLiteral("HTTP status codes lie between 100 and 599");
    QTest::addRow("twice") << QStringLiteral("429=2 429=3") << QString() << QStringLiteral("status 429 is given twice");
}

void TestHttpStatusList::factors_readAndWritten()
{
    QFETCH(QString, text);
    QFETCH(QString, formatted);
    QFETCH(QString, error);
    const auto parsed = HttpStatusList::parseFactors(text);
    QCOMPARE(parsed.ok(), !formatted.isNull());
    if (!parsed) {
        QVERIFY2(parsed.error().contains(error), qPrintable(parsed.error()));
        return;
    }
    QCOMPARE(HttpStatusList::formatFactors(*parsed), formatted);
    QCOMPARE(HttpStatusList::parseFactors(formatted).value(), *parsed);
}

QTEST_GUILESS_MAIN(TestHttpStatusList)
#include "tst_httpstatuslist.moc"
