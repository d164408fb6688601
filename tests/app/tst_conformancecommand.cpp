#include "tests/app/commandtesting.h"

#include "core/export/reportjson.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace RetryLab::Core;
using CommandTesting::Outcome;

class TestConformanceCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void help_describesTheMatrix();
    void builtInPresets_everyCellPasses_data();
    void builtInPresets_everyCellPasses();
    void matrix_rowsSequencesColumnsIdempotency();
    void wrongExpectation_failsWithReasons_exitOne();
    void policyFile_isRead();
    void exports_junitAndReportReadBack();
    void usageErrors_exitTwo_data();
    void usageErrors_exitTwo();

private:
    QTemporaryDir m_dir;
};

void TestConformanceCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestConformanceCommand::help_describesTheMatrix()
{
    const Outcome o = CommandTesting::run({QStringLiteral("conformance"), QStringLiteral("--help")});
    QCOMPARE(o.exitCode, 0);
    for (const char *expected : {"Usage: retrylab conformance [options]", "--policy", "--expect-policy", "--junit",
             "--report", "--seed", "--quiet", "--no-redact", "If-Match"}) {
        QVERIFY2(o.out.contains(QLatin1String(expected)), expected);
    }
}

void TestConformanceCommand::builtInPresets_everyCellPasses_data()
{
    QTest::addColumn<QString>("preset");
    for (const QString &id : Presets::ids())
        QTest::addRow("%s", qPrintable(id)) << id;
}

void TestConformanceCommand::builtInPresets_everyCellPasses()
{
    QFETCH(QString, preset);
    const Outcome o = CommandTesting::run({QStringLiteral("conformance"), QStringLiteral("--policy"), preset});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY2(o.out.contains(QLatin1String(": 46 of 46 cells pass")), qPrintable(o.out));
    QVERIFY(!o.out.contains(QLatin1String("FAIL")));
}

void TestConformanceCommand::matrix_rowsSequencesColumnsIdempotency()
{
    const Outcome o = CommandTesting::run({QStringLiteral("conformance")});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY(o.out.startsWith(QLatin1String("Conformance of \"Google Cloud Storage\" (preset google-cloud-storage)")));
    QVERIFY(o.out.contains(QLatin1String("Waits compressed x")));
    const QStringList lines = o.out.split(QLatin1Char('\n'));
    static const QRegularExpression header(QStringLiteral(
        R"(^  fault sequence\s+always idempotent \(GET\)\s+conditional \(POST \+ If-Match\)\s+conditional \(POST \?ifGenerationMatch=\)\s+never idempotent \(POST\)$)"));
    QVERIFY(std::any_of(lines.cbegin(), lines.cend(), [](const QString &l) { return header.match(l).hasMatch(); }));
    static const QRegularExpression row(
        QStringLiteral(R"(^  (\S.*?)\s+pass (\S+)/(\d+)\s+pass (\S+)/(\d+)\s+pass (\S+)/(\d+)\s+pass (\S+)/(\d+)$)"));
    QStringList rows;
    for (const QString &line : lines) {
        if (const auto m = row.match(line); m.hasMatch())
            rows.append(m.captured(1) + QLatin1Char(' ') + m.captured(2) + QLatin1Char('/') + m.captured(3)
                + QLatin1Char(' ') + m.captured(8) + QLatin1Char('/') + m.captured(9));
    }
    QCOMPARE(rows.size(), 11);
    QCOMPARE(rows[0], QStringLiteral("503, then OK succeeded/2 gave-up/1"));
    QCOMPARE(rows[5], QStringLiteral("400 Bad Request gave-up/1 gave-up/1"));
    // Conflicts of optimistic concurrency: one request cannot read again, so it gives up at once.
    QCOMPARE(rows[7], QStringLiteral("409 ABORTED (a concurrent writer), then OK gave-up/1 gave-up/1"));
    QCOMPARE(rows[8], QStringLiteral("412 Precondition Failed, then OK gave-up/1 gave-up/1"));
    QCOMPARE(rows[9], QStringLiteral("503 on every attempt attempts-exhausted/10 gave-up/1"));
    // Never sent: even a plain POST is retried.
    QCOMPARE(rows[10],
        QStringLiteral("connection refused on every attempt (never sent) attempts-exhausted/10 attempts-exhausted/10"));
}

void TestConformanceCommand::wrongExpectation_failsWithReasons_exitOne()
{
    // curl's rules run, Cloud Storage's are expected: resets and broken streams differ.
    const Outcome o = CommandTesting::run({QStringLiteral("conformance"), QStringLiteral("--policy"),
        QStringLiteral("curl-retry"), QStringLiteral("--expect-policy"), QStringLiteral("google-cloud-storage")});
    QCOMPARE(o.exitCode, 1);
    QVERIFY(o.out.contains(QLatin1String("Expected outcomes follow the rules of \"Google Cloud Storage\"")));
    QVERIFY(o.out.contains(QLatin1String("FAIL  connection reset twice, then OK / always idempotent (GET)")));
    QVERIFY2(o.out.contains(QLatin1String("expected succeeded after 3 attempts, status 200, but it ended gave-up")),
        qPrintable(o.out));
    static const QRegularExpression verdict(QStringLiteral(R"(curl --retry: (\d+) of 46 cells pass)"));
    const auto m = verdict.match(o.out);
    QVERIFY(m.hasMatch());
    QVERIFY(m.captured(1).toInt() < 46);
    QVERIFY(m.captured(1).toInt() > 0);
}

void TestConformanceCommand::policyFile_isRead()
{
    BackoffPolicy policy = *Presets::find(QStringLiteral("google-cloud-storage"));
    policy.name = QStringLiteral("Retry POST too");
    policy.classification.retryNonIdempotent = true;
    const QString file = m_dir.filePath(QStringLiteral("policy.json"));
    QVERIFY(PolicyJson::writeFile(file, policy));
    const Outcome o = CommandTesting::run({QStringLiteral("conformance"), QStringLiteral("--policy"), file});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY(o.out.contains(QStringLiteral("Conformance of \"Retry POST too\" (%1)").arg(file)));
    // A plain POST is now retried like the others.
    static const QRegularExpression row(QStringLiteral(
        R"(^  503, then OK\s+pass succeeded/2\s+pass succeeded/2\s+pass succeeded/2\s+pass succeeded/2$)"));
    const QStringList lines = o.out.split(QLatin1Char('\n'));
    QVERIFY2(std::any_of(lines.cbegin(), lines.cend(), [](const QString &l) { return row.match(l).hasMatch(); }),
        qPrintable(o.out));
}

void TestConformanceCommand::exports_junitAndReportReadBack()
{
    const QString junit = m_dir.filePath(QStringLiteral("conformance.xml"));
    const QString report = m_dir.filePath(QStringLiteral("conformance.json"));
    const QString csv = m_dir.filePath(QStringLiteral("conformance.csv"));
    const Outcome o = CommandTesting::run(
        {QStringLiteral("conformance"), QStringLiteral("-q"), QStringLiteral("--policy"), QStringLiteral("memorystore"),
            QStringLiteral("--junit"), junit, QStringLiteral("--report"), report, QStringLiteral("--csv"), csv});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY(!o.out.contains(QLatin1String("fault sequence"))); // quiet: no matrix
    QVERIFY(o.out.contains(QLatin1String("Memorystore for Redis: 46 of 46 cells pass")));

    QXmlStreamReader xml(CommandTesting::read(junit));
    QStringList cases;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("testcase"))
            cases.append(xml.attributes().value(QLatin1String("name")).toString());
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(cases.size(), 46);
    QCOMPARE(cases.first(), QStringLiteral("503, then OK / always idempotent (GET)"));

    const auto read = ReportJson::readFile(report);
    QVERIFY2(read.ok(), qPrintable(read.error()));
    QCOMPARE(read->run.requests.size(), 46);
    QCOMPARE(read->expectations.size(), 46);
    QVERIFY(read->run.attempts.size() > 46);
    const QList<QStringList> rows = CommandTesting::parseCsv(CommandTesting::read(csv));
    QCOMPARE(rows.size(), read->run.attempts.size() + 1);

    // Several policies go into one JUnit file, a suite each.
    const QString both = m_dir.filePath(QStringLiteral("both.xml"));
    const Outcome two = CommandTesting::run(
        {QStringLiteral("conformance"), QStringLiteral("-q"), QStringLiteral("--policy"), QStringLiteral("iam"),
            QStringLiteral("--policy"), QStringLiteral("polly-default"), QStringLiteral("--junit"), both});
    QVERIFY2(two.exitCode == 0, qPrintable(two.out + two.err));
    QXmlStreamReader suites(CommandTesting::read(both));
    int suiteCount = 0;
    while (!suites.atEnd()) {
        if (suites.readNext() == QXmlStreamReader::StartElement && suites.name() == QLatin1String("testsuite"))
            ++suiteCount;
    }
    QCOMPARE(suiteCount, 2);
}

void TestConformanceCommand::usageErrors_exitTwo_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("mentions");
    const QString broken = m_dir.filePath(QStringLiteral("broken-policy.json"));
    CommandTesting::write(broken, R"({"format": "retrylab-policy", "maxAttempts": -1})");
    QTest::addRow("unknown preset") << QStringList{QStringLiteral("--policy"), QStringLiteral("nope")}
                                    << QStringLiteral("--policy: \"nope\" is neither a policy file nor a preset");
    QTest::addRow("broken policy file") << QStringList{QStringLiteral("--policy"), broken}
                                        << QStringLiteral("maxAttempts");
    QTest::addRow("unknown expectation policy") << QStringList{QStringLiteral("--expect-policy"), QStringLiteral("x")}
                                                << QStringLiteral("--expect-policy: \"x\" is neither");
    QTest::addRow("report for several policies") << QStringList{QStringLiteral("--policy"), QStringLiteral("all"),
        QStringLiteral("--report"), m_dir.filePath(QStringLiteral("r.json"))}
                                                 << QStringLiteral("give one --policy");
    QTest::addRow("stray argument") << QStringList{QStringLiteral("iam")}
                                    << QStringLiteral("unexpected argument \"iam\"");
    QTest::addRow("junit into a missing directory") << QStringList{QStringLiteral("--junit"),
        QStringLiteral("/nonexistent/j.xml")} << QStringLiteral("--junit /nonexistent/j.xml: cannot write there");
}

void TestConformanceCommand::usageErrors_exitTwo()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, mentions);
    const Outcome o = CommandTesting::run(QStringList{QStringLiteral("conformance")} + arguments);
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(mentions), qPrintable(o.err));
}

QTEST_GUILESS_MAIN(TestConformanceCommand)
#include "tst_conformancecommand.moc"
