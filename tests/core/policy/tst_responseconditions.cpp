#include "core/policy/responseconditions.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;
using Condition = ResponseRetryCondition;

// The editor's text of ClassificationRules::retryOnResponse, and what each condition may hold.
class TestResponseConditions final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void text_readsEachKind();
    void text_roundTrips();
    void text_refusesALineAndNamesIt_data();
    void text_refusesALineAndNamesIt();
    void problemOf_namesTheKeyAtFault();
};

void TestResponseConditions::text_readsEachKind()
{
    const auto read = ResponseConditions::parse(QStringLiteral("json /status = \"PENDING\"\n"
                                                               "  json /error/retryable=true  \n"
                                                               "\n"
                                                               "# a comment\n"
                                                               "header X-Retry = yes\n"
                                                               "header X-Pending\n"
                                                               "HEADER X-Empty =\n"
                                                               "body try again\n"
                                                               "body \" padded \"\n"));
    QVERIFY2(read, qPrintable(read.error()));
    const QList<Condition> expected{
        Condition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")),
        Condition::jsonEquals(QStringLiteral("/error/retryable"), true),
        Condition::headerPresent(QStringLiteral("X-Retry"), QStringLiteral("yes")),
        Condition::headerPresent(QStringLiteral("X-Pending")),
        Condition::headerPresent(QStringLiteral("X-Empty"), QString()),
        Condition::bodyContains(QStringLiteral("try again")),
        Condition::bodyContains(QStringLiteral(" padded ")),
    };
    QCOMPARE(read->size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i)
        QVERIFY2(read->at(i) == expected.at(i), qPrintable(ResponseConditions::formatLine(read->at(i))));
    QVERIFY(ResponseConditions::parse(QString())->isEmpty());
}

void TestResponseConditions::text_roundTrips()
{
    const QList<Condition> conditions{
        Condition::jsonEquals(QStringLiteral("/a~1b/0"), QJsonObject{{QStringLiteral("x"), QJsonArray{1, 2}}}),
        Condition::jsonEquals(QString(), QJsonValue::Null),
        Condition::jsonEquals(QStringLiteral("/n"), 2.5),
        Condition::jsonEquals(QStringLiteral("/s"), QStringLiteral("a = \"b\"")),
        Condition::headerPresent(QStringLiteral("X-Retry"), QStringLiteral("yes please")),
        Condition::headerPresent(QStringLiteral("X-Pending")),
        Condition::bodyContains(QStringLiteral("\"quoted\"")),
        Condition::bodyContains(QStringLiteral("try again ")),
        Condition::bodyContains(QStringLiteral("ünïcode")),
    };
    const QString text = ResponseConditions::format(conditions);
    QCOMPARE(text.count(QLatin1Char('\n')), conditions.size() - 1);
    QVERIFY(text.startsWith(QStringLiteral("json /a~1b/0 = {\"x\":[1,2]}\n")));
    const auto back = ResponseConditions::parse(text);
    QVERIFY2(back, qPrintable(back.error()));
    QVERIFY2(*back == conditions, qPrintable(text));
}

void TestResponseConditions::text_refusesALineAndNamesIt_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::addRow("unknown kind") << QStringLiteral("header X\njsn /a = 1") << "line 2: \"jsn\" is not a kind";
    QTest::addRow("json without a value") << QStringLiteral("json /status") << "line 1: write json POINTER = VALUE";
    QTest::addRow("json value not json") << QStringLiteral("json /status = PENDING")
                                         << "line 1: \"PENDING\" is not a JSON value";
    QTest::addRow("json two values") << QStringLiteral("json /status = 1, 2") << "is not a JSON value";
    QTest::addRow("header without a name") << QStringLiteral("header") << "line 1: write header NAME";
    QTest::addRow("header of only a value") << QStringLiteral("header = yes") << "write header NAME";
    QTest::addRow("body without text") << QStringLiteral("\n\nbody") << "line 3: write body TEXT";
}

void TestResponseConditions::text_refusesALineAndNamesIt()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const auto read = ResponseConditions::parse(text);
    QVERIFY(!read);
    QVERIFY2(read.error().contains(message), qPrintable(read.error()));
}

void TestResponseConditions::problemOf_namesTheKeyAtFault()
{
    QVERIFY(!ResponseConditions::problemOf(Condition::jsonEquals(QStringLiteral("/a"), 1)));
    QVERIFY(!ResponseConditions::problemOf(Condition::jsonEquals(QString(), 1))); // the whole body
    QCOMPARE(ResponseConditions::problemOf(Condition::jsonEquals(QStringLiteral("a"), 1))->key,
        QStringLiteral("jsonPointer"));
    QCOMPARE(ResponseConditions::problemOf(Condition::jsonEquals(QStringLiteral("/a~"), 1))->key,
        QStringLiteral("jsonPointer"));
    QCOMPARE(ResponseConditions::problemOf(Condition::jsonEquals(QStringLiteral("/a"), QJsonValue::Undefined))->key,
        QStringLiteral("equals"));
    QCOMPARE(ResponseConditions::problemOf(Condition::headerPresent(QString()))->key, QStringLiteral("header"));
    QCOMPARE(
        ResponseConditions::problemOf(Condition::headerPresent(QStringLiteral("X:Y")))->key, QStringLiteral("header"));
    QCOMPARE(ResponseConditions::problemOf(Condition::bodyContains(QString()))->key, QStringLiteral("bodyContains"));
    QVERIFY(!ResponseConditions::problemOf(Condition::headerPresent(QStringLiteral("X-Pending"))));
}

QTEST_GUILESS_MAIN(TestResponseConditions)
#include "tst_responseconditions.moc"
