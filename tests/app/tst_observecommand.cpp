#include "commandtesting.h"

#include "core/observe/observationreport.h"
#include "tests/tools/requiredtool.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace RetryLab;

/// retrylab observe, run as a user would: the suite is the observed client.
class TestObserveCommand : public QObject
{
    Q_OBJECT

private:
    static int get(QNetworkAccessManager &manager, const QUrl &url)
    {
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("observe-suite/1.0"));
        QNetworkReply *reply = manager.get(request);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(10'000))
            return -1;
        reply->deleteLater();
        return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    }

private Q_SLOTS:
    void helpListsThePlans()
    {
        const auto outcome = CommandTesting::run({QStringLiteral("observe"), QStringLiteral("--help")});
        QCOMPARE(outcome.exitCode, 0);
        for (const char *word : {"--plan", "--duration", "--requests", "--report", "--junit", "503x3", "stall-once"})
            QVERIFY2(outcome.out.contains(QLatin1String(word)), word);
        const auto plans = CommandTesting::run({QStringLiteral("observe"), QStringLiteral("--list-plans")});
        QCOMPARE(plans.exitCode, 0);
        QVERIFY(plans.out.contains(QStringLiteral("429-retry-after-2")));
    }

    void usageErrorsExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const auto args
            = [](std::initializer_list<const char *> words) { return CommandTesting::arguments("observe", words); };
        QTest::addRow("unknown plan") << args({"--plan", "nope"}) << "--plan";
        QTest::addRow("negative duration") << args({"--duration", "-1"}) << "--duration";
        QTest::addRow("nan duration") << args({"--duration", "nan"}) << "--duration";
        QTest::addRow("both limits") << args({"--duration", "1", "--requests", "2"}) << "together";
        QTest::addRow("zero requests") << args({"--requests", "0"}) << "--requests";
        QTest::addRow("port") << args({"--port", "70000"}) << "--port";
        QTest::addRow("gap") << args({"--gap-window", "0"}) << "--gap-window";
        QTest::addRow("argument") << args({"extra"}) << "unexpected argument";
        QTest::addRow("option") << args({"--bogus"}) << "bogus";
    }

    void usageErrorsExitTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const auto outcome = CommandTesting::run(arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
    }

    // Every wrong number is named, a line each with the hint; a plan is looked at only after them.
    void everyWrongNumberIsNamed()
    {
        const auto outcome = CommandTesting::run(
            CommandTesting::arguments("observe", {"--plan", "nope", "--gap-window", "0", "--port", "70000"}));
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err,
            QStringLiteral("retrylab observe: --port must be a whole number from 0 to 65535 (got \"70000\"); see "
                           "retrylab observe --help\n"
                           "retrylab observe: --gap-window must be a number from 1 to 8.64e+07 (got \"0\"); see "
                           "retrylab observe --help\n"));
    }

    void aPlanFileThatCannotBeReadIsNamed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QVERIFY(CommandTesting::write(path, "{\"steps\": [\"return-42\"]}"));
        const auto outcome = CommandTesting::run({QStringLiteral("observe"), QStringLiteral("--plan"), path});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(QStringLiteral("broken.json")), qPrintable(outcome.err));
        QVERIFY2(outcome.err.contains(QStringLiteral("steps")), qPrintable(outcome.err));
    }

    void nobodyCameWithinTheDuration()
    {
        QTemporaryDir dir;
        const QString report = dir.filePath(QStringLiteral("r.json"));
        const auto outcome = CommandTesting::run({QStringLiteral("observe"), QStringLiteral("--duration"),
            QStringLiteral("0.3"), QStringLiteral("--report"), report});
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.contains(QStringLiteral("No client")), qPrintable(outcome.out));
        const QJsonObject json = QJsonDocument::fromJson(CommandTesting::read(report)).object();
        QCOMPARE(json.value(QStringLiteral("format")).toString(), QStringLiteral("retrylab-observation"));
        QVERIFY(json.value(QStringLiteral("clients")).toArray().isEmpty());
    }

    void stopsAfterTheLogicalRequestsAndReports()
    {
        QTemporaryDir dir;
        const QString reportPath = dir.filePath(QStringLiteral("observation.json"));
        const QString junitPath = dir.filePath(QStringLiteral("observation.xml"));
        QProcess process;
        const QUrl base = CommandTesting::startObserver(process,
            {QStringLiteral("--requests"), QStringLiteral("2"), QStringLiteral("--report"), reportPath,
                QStringLiteral("--junit"), junitPath});
        QVERIFY2(base.isValid(), qPrintable(QString::fromUtf8(process.readAllStandardError())));
        QSignalSpy finished(&process, &QProcess::finished);

        // Two logical requests under the default plan: 503 three times, then 200.
        QNetworkAccessManager manager;
        for (const char *path : {"/orders/1", "/orders/2"}) {
            QList<int> statuses;
            for (int i = 0; i < 4; ++i)
                statuses.append(get(manager, base.resolved(QUrl(QString::fromLatin1(path)))));
            QCOMPARE(statuses, (QList<int>{503, 503, 503, 200}));
        }
        QVERIFY(finished.wait(15'000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY2(out.contains(QStringLiteral("observe-suite/1.0 @ 127.0.0.1  request 1, attempt 4")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("Client observe-suite/1.0 @ 127.0.0.1: 2 logical requests, 8 attempts")),
            qPrintable(out));

        const auto report
            = Core::ObservationReport::fromJson(QJsonDocument::fromJson(CommandTesting::read(reportPath)).object());
        QVERIFY2(report, qPrintable(report.error()));
        QCOMPARE(report->clients.size(), 1);
        QCOMPARE(report->clients[0].requests.size(), 2);
        QCOMPARE(report->clients[0].requests[0].attempts.size(), 4);
        QCOMPARE(report->clients[0].requests[0].closedBy, QStringLiteral("success"));
        QVERIFY(!report->serverUrl.isEmpty());
        // The exit code is the verdicts': 0 when all pass, 1 when one fails.
        QCOMPARE(process.exitCode(), report->allPass() ? 0 : 1);
        QXmlStreamReader junit(CommandTesting::read(junitPath));
        while (!junit.atEnd())
            junit.readNext();
        QVERIFY2(!junit.hasError(), qPrintable(junit.errorString()));
    }

    void ctrlCStillWritesTheReport()
    {
        QTemporaryDir dir;
        const QString reportPath = dir.filePath(QStringLiteral("interrupted.json"));
        QProcess process;
        const QUrl base = CommandTesting::startObserver(process,
            {QStringLiteral("--plan"), QStringLiteral("always-503"), QStringLiteral("--report"), reportPath,
                QStringLiteral("--quiet")});
        QVERIFY(base.isValid());
        QNetworkAccessManager manager;
        QCOMPARE(get(manager, base.resolved(QUrl(QStringLiteral("/x")))), 503);
        QCOMPARE(get(manager, base.resolved(QUrl(QStringLiteral("/x")))), 503);
        QSignalSpy finished(&process, &QProcess::finished);
        process.terminate(); // SIGTERM, handled as Ctrl+C
        QVERIFY(finished.wait(15'000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY(process.exitCode() == 0 || process.exitCode() == 1);
        const auto report
            = Core::ObservationReport::fromJson(QJsonDocument::fromJson(CommandTesting::read(reportPath)).object());
        QVERIFY2(report, qPrintable(report.error()));
        QCOMPARE(report->clients.size(), 1);
        QCOMPARE(report->clients[0].requests.constFirst().attempts.size(), 2);
    }

    void curlIsObserved()
    {
        const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
        if (curl.isEmpty())
            RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
        QTemporaryDir dir;
        const QString reportPath = dir.filePath(QStringLiteral("curl.json"));
        QProcess observe;
        const QUrl base = CommandTesting::startObserver(observe,
            {QStringLiteral("--plan"), QStringLiteral("503-retry-after-1"), QStringLiteral("--requests"),
                QStringLiteral("1"), QStringLiteral("--report"), reportPath});
        QVERIFY(base.isValid());
        const auto outcome = [&] {
            QProcess client;
            QSignalSpy done(&client, &QProcess::finished);
            // (Not -o /dev/null: curl truncates its output before a retry, which /dev/null refuses.)
            client.start(curl,
                {QStringLiteral("-sS"), QStringLiteral("--retry"), QStringLiteral("3"), QStringLiteral("-o"),
                    dir.filePath(QStringLiteral("body")),
                    base.resolved(QUrl(QStringLiteral("/objects/7"))).toString()});
            return done.wait(30'000) ? client.exitCode() : -1;
        }();
        QCOMPARE(outcome, 0);
        QSignalSpy finished(&observe, &QProcess::finished);
        QVERIFY(observe.state() == QProcess::NotRunning || finished.wait(15'000));
        const auto report
            = Core::ObservationReport::fromJson(QJsonDocument::fromJson(CommandTesting::read(reportPath)).object());
        QVERIFY2(report, qPrintable(report.error()));
        QCOMPARE(report->clients.size(), 1);
        QVERIFY(report->clients[0].client.userAgent.startsWith(QStringLiteral("curl/")));
        const Core::LogicalRequest &request = report->clients[0].requests.constFirst();
        QCOMPARE(request.attempts.size(), 3);
        // curl waits as long as Retry-After says (1 s), not its own 1 s, 2 s: both delays at least 1 s.
        for (int i = 1; i < 3; ++i) {
            QVERIFY(request.attempts[i].delayMs.has_value());
            QVERIFY2(*request.attempts[i].delayMs >= 950.0, qPrintable(QString::number(*request.attempts[i].delayMs)));
            QVERIFY2(*request.attempts[i].delayMs < 1900.0, qPrintable(QString::number(*request.attempts[i].delayMs)));
        }
    }
};

QTEST_GUILESS_MAIN(TestObserveCommand)
#include "tst_observecommand.moc"
