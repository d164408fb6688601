#include "commandtesting.h"

#include "core/policy/policyjson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <signal.h>

using namespace RetryLab;

class TestCompareCommand : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString policyFile(const char *name, int maxAttempts)
    {
        Core::BackoffPolicy p;
        p.name = QString::fromLatin1(name);
        p.algorithm = Core::BackoffAlgorithm::Exponential;
        p.baseDelayMs = 10;
        p.maxBackoffMs = 40;
        p.maxAttempts = maxAttempts;
        const QString path = m_dir.filePath(QString::fromLatin1(name) + QStringLiteral(".json"));
        return Core::PolicyJson::writeFile(path, p) ? path : QString();
    }

    QString scenarioFile()
    {
        // Five requests, each failing twice with 503 before it succeeds.
        const QString path = m_dir.filePath(QStringLiteral("flaky.json"));
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(R"({"format": "retrylab-scenario", "name": "flaky", "policy": "iam", "concurrency": 5,
            "requests": [{"name": "r", "url": "{server}/status/200", "count": 5, "script": ["return-503*2"]}]})");
        return path;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void usageErrorsExitTwo()
    {
        const QString scenario = scenarioFile();
        const auto one = CommandTesting::run({QStringLiteral("compare"), QStringLiteral("--policy"),
            QStringLiteral("iam"), QStringLiteral("--scenario"), scenario});
        QCOMPARE(one.exitCode, 2);
        QVERIFY2(one.err.contains(QLatin1String("give 2 to 4 --policy options")), qPrintable(one.err));
        const auto noScenario
            = CommandTesting::run(CommandTesting::arguments("compare", {"--policy", "iam", "--policy", "curl-retry"}));
        QCOMPARE(noScenario.exitCode, 2);
        QVERIFY(noScenario.err.contains(QLatin1String("--scenario FILE is required")));
        const auto badScenario = CommandTesting::run(CommandTesting::arguments(
            "compare", {"--policy", "iam", "--policy", "curl-retry", "--scenario", "/nonexistent.json"}));
        QCOMPARE(badScenario.exitCode, 2);
    }

    void usageError_namesTheCommandAndItsHelp()
    {
        const auto outcome = CommandTesting::run(CommandTesting::arguments("compare", {"--policy", "iam"}));
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err,
            QStringLiteral("retrylab compare: give 2 to 4 --policy options (got 1); see retrylab compare --help\n"));
        QVERIFY(outcome.out.isEmpty());
    }

    // The scenario is read before --width and --seed are looked at: its problem is the one named.
    void aScenarioThatCannotBeRead_isNamedBeforeTheOtherOptions()
    {
        const auto outcome = CommandTesting::run(CommandTesting::arguments("compare",
            {"--policy", "iam", "--policy", "curl-retry", "--scenario", "/nonexistent.json", "--width", "5", "--seed",
                "x"}));
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(QLatin1String("nonexistent.json")), qPrintable(outcome.err));
        QVERIFY2(!outcome.err.contains(QLatin1String("--width")), qPrintable(outcome.err));
        QVERIFY2(!outcome.err.contains(QLatin1String("--seed")), qPrintable(outcome.err));
    }

    void heading_namesTheScenarioThePoliciesAndTheSeed()
    {
        const QString scenario = scenarioFile();
        const auto given = CommandTesting::run({QStringLiteral("compare"), QStringLiteral("--policy"),
            QStringLiteral("iam"), QStringLiteral("--policy"), QStringLiteral("curl-retry"),
            QStringLiteral("--scenario"), scenario, QStringLiteral("--seed"), QStringLiteral("4")});
        QCOMPARE(given.exitCode, 0);
        QCOMPARE(given.out.section(QLatin1Char('\n'), 0, 1),
            QStringLiteral("Scenario \"flaky\" (%1) under 2 policies, seed 4\n").arg(scenario));
        const auto drawn
            = CommandTesting::run({QStringLiteral("compare"), QStringLiteral("--policy"), QStringLiteral("iam"),
                QStringLiteral("--policy"), QStringLiteral("curl-retry"), QStringLiteral("--scenario"), scenario});
        QCOMPARE(drawn.exitCode, 0);
        static const QRegularExpression heading(
            QStringLiteral("^Scenario \"flaky\" \\(.*\\) under 2 policies, seed (\\d+) \\(drawn; --seed (\\d+) "
                           "repeats it\\)\n\n"));
        const QRegularExpressionMatch match = heading.match(drawn.out);
        QVERIFY2(match.hasMatch(), qPrintable(drawn.out));
        QCOMPARE(match.captured(1), match.captured(2));
    }

    void twoPolicies_sameFaults_differentOutcomes()
    {
        const QString patient = policyFile("patient", 4);
        const QString hasty = policyFile("hasty", 2);
        const QString scenario = scenarioFile();
        const auto outcome = CommandTesting::run({QStringLiteral("compare"), QStringLiteral("--policy"), patient,
            QStringLiteral("--policy"), hasty, QStringLiteral("--scenario"), scenario, QStringLiteral("--seed"),
            QStringLiteral("4"), QStringLiteral("--json")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const QJsonObject json = QJsonDocument::fromJson(outcome.out.toUtf8()).object();
        QCOMPARE(json.value(QStringLiteral("seed")).toString(), QStringLiteral("4"));
        const QJsonArray rows = json.value(QStringLiteral("policies")).toArray();
        QCOMPARE(rows.size(), 2);
        const QJsonObject a = rows.at(0).toObject();
        const QJsonObject b = rows.at(1).toObject();
        QCOMPARE(a.value(QStringLiteral("policy")).toString(), QStringLiteral("patient"));
        QCOMPARE(a.value(QStringLiteral("succeeded")).toInt(), 5);
        QCOMPARE(a.value(QStringLiteral("attempts")).toInt(), 15); // each copy of the script: 503, 503, then 200
        QVERIFY(a.value(QStringLiteral("medianSuccessMs")).toDouble() >= 30.0); // two waits of 10 and 20 ms
        QCOMPARE(b.value(QStringLiteral("succeeded")).toInt(), 0);
        QCOMPARE(b.value(QStringLiteral("failed")).toInt(), 5);
        QCOMPARE(b.value(QStringLiteral("attempts")).toInt(), 10);
        QVERIFY(b.value(QStringLiteral("medianSuccessMs")).isNull());
        QVERIFY(a.value(QStringLiteral("peakAttemptsPerSecond")).toInt() >= 5);

        // The text: one timeline per policy on one axis, and the summary table.
        const auto text = CommandTesting::run({QStringLiteral("compare"), QStringLiteral("--policy"), patient,
            QStringLiteral("--policy"), hasty, QStringLiteral("--scenario"), scenario});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(QLatin1String("(drawn; --seed ")), qPrintable(text.out));
        QVERIFY(text.out.contains(QStringLiteral("patient (%1)").arg(patient)));
        QVERIFY(text.out.contains(QStringLiteral("hasty (%1)").arg(hasty)));
        QVERIFY(text.out.contains(QLatin1String("busiest second")));
        QCOMPARE(text.out.count(QLatin1String("r #1")), 2);
    }

    // Hedging against a retry on the same slow answers: the hedge wins the race at the cost of
    // a second attempt per request; the retry policy waits the slow answer out.
    void hedging_againstRetrying_moreAttemptsShorterWaits()
    {
        Core::BackoffPolicy hedged;
        hedged.name = QStringLiteral("hedged");
        hedged.hedging = {true, 3, 100.0};
        hedged.attemptTimeoutMs = 5000;
        const QString hedgedPath = m_dir.filePath(QStringLiteral("hedged.json"));
        QVERIFY(Core::PolicyJson::writeFile(hedgedPath, hedged));
        const QString patient = policyFile("waiting", 3);
        const QString scenario = m_dir.filePath(QStringLiteral("slow.json"));
        QFile file(scenario);
        QVERIFY(file.open(QIODevice::WriteOnly));
        // Each request's first answer takes 600 ms; a second one comes at once. Eight slots: room for the hedges.
        file.write(R"({"format": "retrylab-scenario", "name": "slow", "policy": "iam", "concurrency": 8,
            "requests": [{"name": "r", "url": "{server}/status/200", "count": 4, "script": ["delay-600ms"]}]})");
        file.close();

        const auto outcome = CommandTesting::run({QStringLiteral("compare"), QStringLiteral("--policy"), hedgedPath,
            QStringLiteral("--policy"), patient, QStringLiteral("--scenario"), scenario, QStringLiteral("--seed"),
            QStringLiteral("1"), QStringLiteral("--json")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const QJsonArray rows
            = QJsonDocument::fromJson(outcome.out.toUtf8()).object().value(QStringLiteral("policies")).toArray();
        QCOMPARE(rows.size(), 2);
        const QJsonObject h = rows.at(0).toObject();
        const QJsonObject w = rows.at(1).toObject();
        QCOMPARE(h.value(QStringLiteral("policy")).toString(), QStringLiteral("hedged"));
        QCOMPARE(h.value(QStringLiteral("succeeded")).toInt(), 4);
        QCOMPARE(h.value(QStringLiteral("attempts")).toInt(), 8); // the slow one and its hedge, each
        QCOMPARE(w.value(QStringLiteral("succeeded")).toInt(), 4);
        QCOMPARE(w.value(QStringLiteral("attempts")).toInt(), 4);
        const double hedgedMs = h.value(QStringLiteral("medianSuccessMs")).toDouble();
        const double waitedMs = w.value(QStringLiteral("medianSuccessMs")).toDouble();
        QVERIFY2(hedgedMs >= 95.0 && hedgedMs < 500.0, qPrintable(QString::number(hedgedMs)));
        QVERIFY2(waitedMs >= 590.0, qPrintable(QString::number(waitedMs)));
    }

    void interrupted_countsCutRequestsApartAndFails()
    {
        // "stuck" stalls until its attempt times out (never: the policy has no attempt timeout).
        const QString patient = policyFile("patient", 4);
        const QString hasty = policyFile("hasty", 2);
        const QString path = m_dir.filePath(QStringLiteral("stalled.json"));
        QVERIFY(CommandTesting::write(path, R"({"format": "retrylab-scenario", "name": "stalled", "policy": "iam",
            "requests": [{"name": "ok", "url": "{server}/status/200"},
                         {"name": "stuck", "url": "{server}/fault/stall", "attemptTimeoutMs": 0}]})"));
        QProcess process;
        process.start(QStringLiteral(RETRYLAB_BINARY),
            {QStringLiteral("compare"), QStringLiteral("--policy"), patient, QStringLiteral("--policy"), hasty,
                QStringLiteral("--scenario"), path});
        QByteArray out;
        // The heading shows once Ctrl+C is watched for.
        QVERIFY(
            QTest::qWaitFor([&] { return (out += process.readAllStandardOutput()).contains("Scenario \""); }, 30'000));
        ::kill(pid_t(process.processId()), SIGTERM);
        QVERIFY(process.waitForFinished(30'000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        out += process.readAllStandardOutput();
        const QByteArray err = process.readAllStandardError();
        QCOMPARE(process.exitCode(), 1);
        const QRegularExpression said(
            QStringLiteral("retrylab compare: interrupted; [2-4] requests were cancelled before they ended"));
        QVERIFY2(said.match(QString::fromUtf8(err)).hasMatch(), err.constData());
        // Per policy: "stuck" was cut ("ok" too when the signal came first); none failed.
        const QRegularExpression row(
            QStringLiteral("^(patient|hasty) +2 +[01] +0 +[12] "), QRegularExpression::MultilineOption);
        QCOMPARE(QString::fromUtf8(out).count(row), 2);
        QVERIFY2(out.contains("cancelled"), out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCompareCommand)
#include "tst_comparecommand.moc"
