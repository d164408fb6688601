#include "tests/app/commandtesting.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTest>

using CommandTesting::Outcome;

class TestDemoCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void demo_finishesWithReadableTimelines();
    void width_setsTheTimeAxis();
    void quiet_printsOnlyTheComparison();
    void badArguments_exitTwo_data();
    void badArguments_exitTwo();
};

void TestDemoCommand::demo_finishesWithReadableTimelines()
{
    QElapsedTimer clock;
    clock.start();
    const Outcome o = CommandTesting::run({QStringLiteral("demo")}, 30'000);
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    qInfo() << "the demo took" << clock.elapsed() << "ms";
    QVERIFY(o.err.isEmpty());

    const QStringList lines = o.out.split(QLatin1Char('\n'));
    QCOMPARE(lines.first(), QStringLiteral("RetryLab demo: why retries need jitter"));
    QVERIFY(o.out.contains(QLatin1String("Two groups of 10 clients")));
    QVERIFY(o.out.contains(QLatin1String("Exponential, no jitter (Ten clients, no jitter)")));
    QVERIFY(o.out.contains(QLatin1String("Exponential, full jitter (Ten clients, full jitter)")));

    // One lane per client and group, all on one axis of 64 characters.
    static const QRegularExpression lane(QStringLiteral(R"(^client #(\d+)\s+\|([ox!c\-2-9+ ]{64})\|  (\d+) attempt)"));
    int lanes = 0;
    int marks = 0;
    for (const QString &line : lines) {
        const auto m = lane.match(line);
        if (!m.hasMatch())
            continue;
        ++lanes;
        QVERIFY2(
            m.captured(2).contains(QLatin1Char('o')) || m.captured(2).contains(QLatin1Char('!')), qPrintable(line));
        marks += m.captured(2).count(QLatin1Char('x'));
        QVERIFY(line.size() < 140);
    }
    QCOMPARE(lanes, 20);
    QVERIFY(marks > 0); // somebody had to retry
    static const QRegularExpression ruler(QStringLiteral(R"(^\s+\|\+[-+]{63}\|$)"));
    QCOMPARE(
        std::count_if(lines.cbegin(), lines.cend(), [](const QString &l) { return ruler.match(l).hasMatch(); }), 2);
    QVERIFY(o.out.contains(QLatin1String("o succeeded   x failed, retried")));

    static const QRegularExpression row(QStringLiteral(R"(^(no jitter|full jitter)\s+(\d+) of 10\s+(\d+)\s+)"));
    int rows = 0;
    for (const QString &line : lines) {
        if (const auto m = row.match(line); m.hasMatch()) {
            ++rows;
            QVERIFY(m.captured(3).toInt() >= 10); // at least one call per client
        }
    }
    QCOMPARE(rows, 2);
    QVERIFY(o.out.contains(QLatin1String("With full jitter the last client was through"))
        || o.out.contains(QLatin1String("In this run full jitter did not finish sooner")));
}

void TestDemoCommand::width_setsTheTimeAxis()
{
    const Outcome o = CommandTesting::run({QStringLiteral("demo"), QStringLiteral("--width"), QStringLiteral("30"),
                                              QStringLiteral("--seed"), QStringLiteral("3")},
        30'000);
    QVERIFY2(o.exitCode == 0, qPrintable(o.err));
    static const QRegularExpression lane(QStringLiteral(R"(^client #\d+\s+\|.{30}\|  )"));
    const QStringList lines = o.out.split(QLatin1Char('\n'));
    QCOMPARE(
        std::count_if(lines.cbegin(), lines.cend(), [](const QString &l) { return lane.match(l).hasMatch(); }), 20);
}

void TestDemoCommand::quiet_printsOnlyTheComparison()
{
    const Outcome o = CommandTesting::run({QStringLiteral("demo"), QStringLiteral("-q")}, 30'000);
    QVERIFY2(o.exitCode == 0, qPrintable(o.err));
    QVERIFY(!o.out.contains(QLatin1String("client #")));
    QVERIFY(o.out.contains(QLatin1String("no jitter")));
    QVERIFY(o.out.contains(QLatin1String("full jitter")));
}

void TestDemoCommand::badArguments_exitTwo_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("mentions");
    QTest::addRow("width too small") << QStringList{QStringLiteral("--width"), QStringLiteral("5")}
                                     << QStringLiteral("--width must be a whole number from 20 to 400 (got \"5\")");
    QTest::addRow("width not a number") << QStringList{QStringLiteral("--width"), QStringLiteral("wide")}
                                        << QStringLiteral("--width must be");
    QTest::addRow("seed not a number") << QStringList{QStringLiteral("--seed"), QStringLiteral("abc")}
                                       << QStringLiteral("--seed must be");
    QTest::addRow("stray argument") << QStringList{QStringLiteral("now")}
                                    << QStringLiteral("unexpected argument \"now\"");
    QTest::addRow("option of another command") << QStringList{QStringLiteral("--report"), QStringLiteral("x.json")}
                                               << QStringLiteral("Unknown option 'report'");
}

void TestDemoCommand::badArguments_exitTwo()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, mentions);
    const Outcome o = CommandTesting::run(QStringList{QStringLiteral("demo")} + arguments);
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(mentions), qPrintable(o.err));
}

QTEST_GUILESS_MAIN(TestDemoCommand)
#include "tst_democommand.moc"
