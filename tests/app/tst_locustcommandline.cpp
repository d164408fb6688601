// retrylab export-locust and import-locust as far as they go without Locust:
// their usage errors, which mistake of several they name, and what they print.
// tst_locustcommand runs them with the real Locust.

#include "commandtesting.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using CommandTesting::Outcome;

namespace {

// (Plain literals: with this scenario as a multi-line raw string, moc 6.4 found no class in the file.)
constexpr char scenarioJson[]
    = "{\"format\": \"retrylab-scenario\", \"version\": 1, \"name\": \"two\", \"seed\": 7,"
      " \"policy\": \"aws-standard\", \"requests\": ["
      "{\"name\": \"a\", \"url\": \"http://127.0.0.1:1/x\", \"count\": 2, \"concurrency\": 3},"
      "{\"name\": \"b\", \"url\": \"http://127.0.0.1:1/y\"}]}";

constexpr char logHeader[] = "{\"format\":\"retrylab-locust-attempts\",\"version\":1,\"run\":\"r\",\"worker\":\"w\","
                             "\"startUnixMs\":1,\"startMonoNs\":0}\n";

QStringList arguments(const char *command, const QStringList &words)
{
    return QStringList{QString::fromLatin1(command)} + words;
}

} // namespace

class TestLocustCommandLine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void usageErrors_data();
    void usageErrors();
    void export_printsTheFileTheRunAndTheSeed();
    void import_writesTheReportAndSaysWhat();

private:
    QTemporaryDir m_dir;
    QString m_scenario;
    QString m_logs;
};

void TestLocustCommandLine::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_scenario = m_dir.filePath(QStringLiteral("scenario.json"));
    QVERIFY(CommandTesting::write(m_scenario, scenarioJson));
    m_logs = m_dir.filePath(QStringLiteral("logs"));
    QVERIFY(QDir().mkpath(m_logs));
    QVERIFY(CommandTesting::write(m_logs + QStringLiteral("/w.jsonl"), logHeader));
}

// Standard error: one line, the first mistake in the order they are checked, and the hint.
void TestLocustCommandLine::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    const QString out = m_dir.filePath(QStringLiteral("out.py"));
    const QString hint = QStringLiteral("; see retrylab export-locust --help\n");
    QTest::addRow("export: no scenario") << arguments("export-locust", {QStringLiteral("-o"), out})
                                         << QStringLiteral("retrylab export-locust: give one scenario file") + hint;
    QTest::addRow("export: no -o") << arguments(
        "export-locust", {m_scenario, QStringLiteral("--seed"), QStringLiteral("x")})
                                   << QStringLiteral("retrylab export-locust: -o FILE is required") + hint;
    QTest::addRow("export: scenario before policy and seed")
        << arguments("export-locust",
               {QStringLiteral("/nonexistent.json"), QStringLiteral("-o"), out, QStringLiteral("--policy"),
                   QStringLiteral("nope"), QStringLiteral("--seed"), QStringLiteral("x")})
        << QStringLiteral("retrylab export-locust: cannot read /nonexistent.json: no such file") + hint;
    QTest::addRow("export: policy before seed")
        << arguments("export-locust",
               {m_scenario, QStringLiteral("-o"), out, QStringLiteral("--policy"), QStringLiteral("nope"),
                   QStringLiteral("--seed"), QStringLiteral("x")})
        << QStringLiteral("retrylab export-locust: --policy nope: \"nope\" is neither a policy file nor a preset")
            + hint;
    QTest::addRow("export: seed") << arguments(
        "export-locust", {m_scenario, QStringLiteral("-o"), out, QStringLiteral("--seed"), QStringLiteral("-1")})
                                  << QStringLiteral(
                                         "retrylab export-locust: --seed must be a whole number (got \"-1\")")
            + hint;

    const QString report = m_dir.filePath(QStringLiteral("report.json"));
    const QString importHint = QStringLiteral("; see retrylab import-locust --help\n");
    QTest::addRow("import: no logs") << arguments("import-locust", {QStringLiteral("-o"), report})
                                     << QStringLiteral("retrylab import-locust: give the folder of attempt logs, or "
                                                       "the files")
            + importHint;
    QTest::addRow("import: no -o") << arguments("import-locust", {m_logs, QStringLiteral("--junit"), report})
                                   << QStringLiteral("retrylab import-locust: -o FILE is required") + importHint;
    QTest::addRow("import: junit without scenario")
        << arguments("import-locust", {m_logs, QStringLiteral("-o"), report, QStringLiteral("--junit"), report})
        << QStringLiteral("retrylab import-locust: --junit needs --scenario (the expectations it reports)")
            + importHint;
    QTest::addRow("import: scenario unreadable")
        << arguments("import-locust",
               {m_logs, QStringLiteral("-o"), report, QStringLiteral("--scenario"),
                   QStringLiteral("/nonexistent.json")})
        << QStringLiteral("retrylab import-locust: cannot read /nonexistent.json: no such file") + importHint;
}

void TestLocustCommandLine::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const Outcome outcome = CommandTesting::run(arguments);
    QCOMPARE(outcome.exitCode, 2);
    // A message that lists what there is (the presets) is compared up to the list.
    const QString hint = QStringLiteral("; see retrylab %1 --help\n").arg(arguments.constFirst());
    QVERIFY2(outcome.err.startsWith(expected.chopped(hint.size())), qPrintable(outcome.err));
    QVERIFY2(outcome.err.endsWith(hint), qPrintable(outcome.err));
    QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
    QVERIFY(outcome.out.isEmpty());
}

void TestLocustCommandLine::export_printsTheFileTheRunAndTheSeed()
{
    const QString out = m_dir.filePath(QStringLiteral("locustfile.py"));
    const QString path = QDir::toNativeSeparators(out);
    const auto heading = [&](const QString &seed) {
        return QRegularExpression(QStringLiteral("^wrote %1: 2 request entries under the policy \"[^\"]+\", run "
                                                 "[0-9a-f-]{13}, seed %2\nrun it on one machine:  locust -f %1 "
                                                 "--headless --users 3 --spawn-rate 3 ")
                                      .arg(QRegularExpression::escape(path), seed));
    };
    // The scenario's seed, unless --seed says another.
    const Outcome own = CommandTesting::run(arguments("export-locust", {m_scenario, QStringLiteral("-o"), out}));
    QCOMPARE(own.exitCode, 0);
    QVERIFY2(heading(QStringLiteral("7")).match(own.out).hasMatch(), qPrintable(own.out));
    QVERIFY(QFile::exists(out));
    const Outcome given = CommandTesting::run(arguments(
        "export-locust", {m_scenario, QStringLiteral("-o"), out, QStringLiteral("--seed"), QStringLiteral("5")}));
    QCOMPARE(given.exitCode, 0);
    QVERIFY2(heading(QStringLiteral("5")).match(given.out).hasMatch(), qPrintable(given.out));
}

void TestLocustCommandLine::import_writesTheReportAndSaysWhat()
{
    const QString report = m_dir.filePath(QStringLiteral("imported.json"));
    const Outcome outcome = CommandTesting::run(arguments("import-locust", {m_logs, QStringLiteral("-o"), report}));
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(outcome.out,
        QStringLiteral("wrote %1: run r, 0 attempts of 0 logical requests from 1 worker, 0 succeeded\n")
            .arg(QDir::toNativeSeparators(report)));
    QVERIFY2(outcome.err.startsWith(QLatin1String("note: w: its clock started")), qPrintable(outcome.err));
    QVERIFY(QFile::exists(report));

    const Outcome unwritable = CommandTesting::run(
        arguments("import-locust", {m_logs, QStringLiteral("-o"), m_dir.filePath(QStringLiteral("no/such/dir.json"))}));
    QCOMPARE(unwritable.exitCode, 2);
    QVERIFY2(
        unwritable.err.startsWith(QLatin1String("retrylab import-locust: cannot write ")), qPrintable(unwritable.err));
    QVERIFY(unwritable.out.isEmpty());
    // The file is named once: "cannot write X: cannot write X: ..." said it twice.
    const Outcome full
        = CommandTesting::run(arguments("import-locust", {m_logs, QStringLiteral("-o"), QStringLiteral("/dev/full")}));
    QCOMPARE(full.exitCode, 2);
    QVERIFY2(
        full.err.startsWith(QLatin1String("retrylab import-locust: cannot write /dev/full: No space left on device")),
        qPrintable(full.err));
    QCOMPARE(full.err.count(QLatin1String("cannot write")), 1);
}

QTEST_GUILESS_MAIN(TestLocustCommandLine)
#include "tst_locustcommandline.moc"
