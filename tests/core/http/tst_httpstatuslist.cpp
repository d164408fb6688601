#include "core/http/httpstatuslist.h"

#include <QTest>

using namespace RetryLab::Core;

class TestHttpStatusList : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void format_data();
    void format();
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

QTEST_GUILESS_MAIN(TestHttpStatusList)
#include "tst_httpstatuslist.moc"
