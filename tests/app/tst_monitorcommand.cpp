// retrylab monitor, run as a program against the fault server: what it prints
// live, its summary, its exit codes, and an interruption that ends it cleanly.

#include "tests/app/commandtesting.h"

#include "tests/tools/requiredtool.h"

#include "core/faultserver/faultserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <signal.h>

using namespace RetryLab::Core;
using namespace CommandTesting;

class TestMonitorCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void duration_printsStatesIncidentsAndASummary();
    void badInput_exits2NamingIt_data();
    void badInput_exits2NamingIt();
    void sigterm_endsTheChecksInFlightAndExits0();
    void metrics_areServedOnLoopbackAndPassPromtool();
    void metrics_refuseANonLoopbackAddress();
    void history_readsBackWhatTheMonitorKept();
    void history_badInput_exits2NamingIt_data();
    void history_badInput_exits2NamingIt();
    void sigkill_losesNothingAlreadyWritten();
    void defaultDatabase_isInTheDataFolder();
    void secondWriter_isRefused();

private:
    QString writeFile(const QByteArray &monitors);
    FaultServer m_server;
    FaultServer m_https{httpsOptions()};
    static FaultServerOptions httpsOptions()
    {
        FaultServerOptions options;
        options.httpsPort = 0;
        return options;
    }
    QTemporaryDir m_dir;
    int m_files = 0;
};

void TestMonitorCommand::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
    QVERIFY2(m_https.listen(), qPrintable(m_https.errorString()));
    QVERIFY(m_dir.isValid());
    // The default history of the programs this suite starts goes here, never to the user's.
    qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
}

QString TestMonitorCommand::writeFile(const QByteArray &monitors)
{
    QByteArray json = R"({"format": "retrylab-monitors", "version": 1, "monitors": [)" + monitors + "]}";
    json.replace("SERVER", m_server.baseUrl().toString().toUtf8());
    const QString path = m_dir.filePath(QStringLiteral("monitors-%1.json").arg(++m_files));
    write(path, json);
    return path;
}

void TestMonitorCommand::duration_printsStatesIncidentsAndASummary()
{
    const QString path = writeFile(R"({"name": "outage", "url": "SERVER/fail/3?key=cmd-outage", "intervalMs": 200,
        "policy": "none", "downAfter": 2},
        {"name": "retried", "url": "SERVER/fail/1?key={id}", "intervalMs": 200,
         "policy": {"preset": "aws-standard", "overrides": {"baseDelayMs": 10}}})");
    const Outcome o = run({QStringLiteral("monitor"), path, QStringLiteral("--duration"), QStringLiteral("3"),
                              QStringLiteral("--agent"), QStringLiteral("ci-agent")},
        60'000);
    QVERIFY2(o.exitCode == 0, qPrintable(o.err));
    QVERIFY2(o.out.contains(QStringLiteral("as agent ci-agent")), qPrintable(o.out));
    QVERIFY2(o.out.contains(QStringLiteral("outage  pending -> down: 2 checks in a row failed")), qPrintable(o.out));
    QVERIFY2(o.out.contains(QStringLiteral("outage  incident started")), qPrintable(o.out));
    QVERIFY2(o.out.contains(QStringLiteral("outage  incident ended")), qPrintable(o.out));
    QVERIFY2(o.out.contains(QStringLiteral("outage  down -> up")), qPrintable(o.out));
    QVERIFY2(o.out.contains(QStringLiteral("retried  pending -> up")), qPrintable(o.out));
    // Every check of "retried" needs one retry: all its checks succeed, half its attempts fail.
    QVERIFY2(o.out.contains(QStringLiteral("100.000% of checks and 50.000% of attempts succeeded, 2.00 attempts per "
                                           "check")),
        qPrintable(o.out));
    QVERIFY2(!o.err.contains(QStringLiteral("retrylab.core")), qPrintable(o.err));
}

void TestMonitorCommand::badInput_exits2NamingIt_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("words");
    QTest::addRow("no file") << QStringList{} << "name a monitors file";
    QTest::addRow("missing file") << QStringList{QStringLiteral("/nonexistent/monitors.json")}
                                  << "/nonexistent/monitors.json";
    QTest::addRow("interval 0") << QStringList{QStringLiteral("INTERVAL0")} << "monitors[0].intervalMs";
    QTest::addRow("duration 0") << QStringList{QStringLiteral("GOOD"), QStringLiteral("--duration"),
        QStringLiteral("0")} << "--duration";
    QTest::addRow("duration NaN") << QStringList{QStringLiteral("GOOD"), QStringLiteral("--duration"),
        QStringLiteral("nan")} << "--duration";
    QTest::addRow("unknown environment") << QStringList{QStringLiteral("GOOD"), QStringLiteral("--env"),
        QStringLiteral("prod")} << "\"prod\" is not an environment";
    QTest::addRow("unknown option") << QStringList{QStringLiteral("GOOD"), QStringLiteral("--intervall")}
                                    << "intervall";
    QTest::addRow("retention 0") << QStringList{QStringLiteral("GOOD"), QStringLiteral("--retention-days"),
        QStringLiteral("0")} << "--retention-days";
}

void TestMonitorCommand::badInput_exits2NamingIt()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, words);
    for (QString &a : arguments) {
        if (a == QLatin1String("GOOD"))
            a = writeFile(R"({"name": "a", "url": "SERVER/status/200", "intervalMs": 1000, "policy": "none"})");
        if (a == QLatin1String("INTERVAL0"))
            a = writeFile(R"({"name": "a", "url": "SERVER/status/200", "intervalMs": 0, "policy": "none"})");
    }
    const Outcome o = run(QStringList{QStringLiteral("monitor")} + arguments);
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(words), qPrintable(o.err));
    QVERIFY2(o.err.startsWith(QStringLiteral("retrylab monitor: ")), qPrintable(o.err));
}

void TestMonitorCommand::sigterm_endsTheChecksInFlightAndExits0()
{
    const QString path = writeFile(R"({"name": "slow", "url": "SERVER/delay/300", "intervalMs": 100,
        "policy": "none"})");
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY), {QStringLiteral("monitor"), path});
    QVERIFY(process.waitForStarted());
    QByteArray out;
    // The first check succeeds (the monitor goes up): then a check is in flight or about to be.
    QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).contains("slow  pending -> up"), 30'000);
    process.terminate();
    QTRY_VERIFY_WITH_TIMEOUT(process.state() == QProcess::NotRunning, 30'000);
    out += process.readAllStandardOutput();
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    QVERIFY2(out.contains("slow: "), out.constData());
}

void TestMonitorCommand::metrics_areServedOnLoopbackAndPassPromtool()
{
    const QString ca = m_dir.filePath(QStringLiteral("ca.pem"));
    QVERIFY(write(ca, m_https.caCertificate().toPem()));
    QByteArray entries = R"({"name": "tls", "url": "HTTPS/status/200", "intervalMs": 200, "policy": "none",
        "transport": {"caBundlePath": "CA"}, "conditions": [{"certificateValidDays": 0}]},
        {"name": "flaky", "url": "SERVER/fail/1?key={id}", "intervalMs": 200,
         "policy": {"preset": "aws-standard", "overrides": {"baseDelayMs": 10}}})";
    entries.replace("HTTPS", m_https.httpsBaseUrl().toString().toUtf8());
    entries.replace("CA", ca.toUtf8());
    const QString path = writeFile(entries);
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY),
        {QStringLiteral("monitor"), path, QStringLiteral("--metrics-listen"), QStringLiteral("127.0.0.1:0")});
    QVERIFY(process.waitForStarted());
    QByteArray out;
    const QRegularExpression urlLine(QStringLiteral("Prometheus metrics at (http://127\\.0\\.0\\.1:\\d+/metrics)"));
    QTRY_VERIFY_WITH_TIMEOUT(
        urlLine.match(QString::fromUtf8(out += process.readAllStandardOutput())).hasMatch(), 30'000);
    const QUrl url(urlLine.match(QString::fromUtf8(out)).captured(1));
    QNetworkAccessManager manager;
    QByteArray text;
    const auto scrape = [&] {
        QNetworkReply *reply = manager.get(QNetworkRequest(url));
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!done.wait(10'000))
            return QByteArray();
        reply->deleteLater();
        return reply->readAll();
    };
    // Both monitors up, and "flaky" with a failed and a good attempt per check.
    QTRY_VERIFY_WITH_TIMEOUT((text = scrape()).contains("retrylab_monitor_up{monitor=\"tls\"} 1")
            && text.contains("retrylab_monitor_up{monitor=\"flaky\"} 1")
            && text.contains("retrylab_monitor_attempts_total{monitor=\"flaky\",outcome=\"failure\"} 2"),
        30'000);
    QVERIFY2(text.contains("retrylab_monitor_checks_total{monitor=\"flaky\",outcome=\"success\"}"), text.constData());
    QVERIFY2(text.contains("retrylab_monitor_check_duration_seconds_bucket{monitor=\"flaky\",le=\"+Inf\"}"),
        text.constData());
    QVERIFY2(text.contains("retrylab_monitor_attempt_duration_seconds_count{monitor=\"tls\"}"), text.constData());
    const QRegularExpression expiry(QStringLiteral("retrylab_monitor_certificate_expiry_timestamp_seconds\\{monitor="
                                                   "\"tls\"\\} (\\d+)"));
    const auto match = expiry.match(QString::fromUtf8(text));
    QVERIFY2(match.hasMatch(), text.constData());
    QVERIFY(match.captured(1).toLongLong() > QDateTime::currentSecsSinceEpoch());
    process.terminate();
    QTRY_VERIFY_WITH_TIMEOUT(process.state() == QProcess::NotRunning, 30'000);
    QCOMPARE(process.exitCode(), 0);

    const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    if (promtool.isEmpty())
        RETRYLAB_MISSING_TOOL("promtool is missing: install the Debian package prometheus");
    QProcess check;
    check.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
    QVERIFY(check.waitForStarted());
    check.write(text);
    check.closeWriteChannel();
    QVERIFY(check.waitForFinished(60'000));
    const QByteArray said = check.readAllStandardOutput() + check.readAllStandardError();
    QVERIFY2(check.exitCode() == 0 && said.trimmed().isEmpty(), said.constData());
}

void TestMonitorCommand::metrics_refuseANonLoopbackAddress()
{
    const QString path
        = writeFile(R"({"name": "a", "url": "SERVER/status/200", "intervalMs": 1000, "policy": "none"})");
    const Outcome o = run({QStringLiteral("monitor"), path, QStringLiteral("--metrics-listen"),
        QStringLiteral("0.0.0.0:0"), QStringLiteral("--duration"), QStringLiteral("1")});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(QStringLiteral("--allow-non-loopback")), qPrintable(o.err));
    const Outcome garbage
        = run({QStringLiteral("monitor"), path, QStringLiteral("--metrics-listen"), QStringLiteral("127.0.0.1")});
    QCOMPARE(garbage.exitCode, 2);
    QVERIFY2(garbage.err.contains(QStringLiteral("--metrics-listen")), qPrintable(garbage.err));
}

void TestMonitorCommand::history_readsBackWhatTheMonitorKept()
{
    const QString db = m_dir.filePath(QStringLiteral("kept.sqlite"));
    const QString path = writeFile(R"({"name": "outage", "url": "SERVER/fail/3?key=history-outage", "intervalMs": 200,
        "policy": "none", "downAfter": 2},
        {"name": "retried", "url": "SERVER/fail/1?key={id}", "intervalMs": 200,
         "policy": {"preset": "aws-standard", "overrides": {"baseDelayMs": 10}}})");
    const Outcome monitored = run({QStringLiteral("monitor"), path, QStringLiteral("--db"), db,
        QStringLiteral("--duration"), QStringLiteral("3"), QStringLiteral("--agent"), QStringLiteral("east")});
    QVERIFY2(monitored.exitCode == 0, qPrintable(monitored.err));

    const Outcome json
        = run({QStringLiteral("history"), QStringLiteral("--db"), db, QStringLiteral("--since"), QStringLiteral("1h"),
            QStringLiteral("--what-if"), QStringLiteral("none"), QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(json.exitCode == 0, qPrintable(json.err));
    const QJsonObject root = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QCOMPARE(root.value(QStringLiteral("format")).toString(), QStringLiteral("retrylab-history"));
    const QJsonArray monitors = root.value(QStringLiteral("monitors")).toArray();
    QCOMPARE(monitors.size(), 2);
    QJsonObject outage;
    QJsonObject retried;
    for (const QJsonValue &m : monitors) {
        const QJsonObject o = m.toObject();
        QCOMPARE(o.value(QStringLiteral("agent")).toString(), QStringLiteral("east"));
        (o.value(QStringLiteral("name")).toString() == QLatin1String("outage") ? outage : retried) = o;
    }
    QVERIFY(outage.value(QStringLiteral("checks")).toInt() >= 5);
    QCOMPARE(
        outage.value(QStringLiteral("checks")).toInt() - outage.value(QStringLiteral("checksSucceeded")).toInt(), 3);
    const QJsonArray outageIncidents = outage.value(QStringLiteral("incidents")).toArray();
    QCOMPARE(outageIncidents.size(), 1);
    QVERIFY(!outageIncidents.at(0).toObject().value(QStringLiteral("hidden")).toBool());
    QVERIFY(outageIncidents.at(0).toObject().value(QStringLiteral("end")).isString());
    // Every check of "retried" succeeded after one failed attempt: one long hidden incident.
    const QJsonObject availability = retried.value(QStringLiteral("availability")).toObject();
    QCOMPARE(availability.value(QStringLiteral("checks")).toDouble(), 1.0);
    QCOMPARE(availability.value(QStringLiteral("attempts")).toDouble(), 0.5);
    QCOMPARE(retried.value(QStringLiteral("attempts")).toInt(), 2 * retried.value(QStringLiteral("checks")).toInt());
    QCOMPARE(
        retried.value(QStringLiteral("attemptsSucceeded")).toInt(), retried.value(QStringLiteral("checks")).toInt());
    const QJsonArray hidden = retried.value(QStringLiteral("incidents")).toArray();
    QCOMPARE(hidden.size(), 1);
    QVERIFY(hidden.at(0).toObject().value(QStringLiteral("hidden")).toBool());
    // Without retries, the same night: each check takes the failed first attempt nearest to it.
    const QJsonObject whatIf = retried.value(QStringLiteral("whatIf")).toObject();
    QCOMPARE(whatIf.value(QStringLiteral("policy")).toString(), QStringLiteral("none"));
    QVERIFY(whatIf.value(QStringLiteral("estimate")).toBool());
    QCOMPARE(whatIf.value(QStringLiteral("attemptsPerCheck")).toDouble(), 1.0);
    QVERIFY2(whatIf.value(QStringLiteral("availability")).toObject().value(QStringLiteral("checks")).toDouble() < 0.5,
        qPrintable(json.out));

    const Outcome text = run({QStringLiteral("history"), QStringLiteral("--db"), db, QStringLiteral("--monitor"),
        QStringLiteral("retried"), QStringLiteral("--what-if"), QStringLiteral("none"), QStringLiteral("--objective"),
        QStringLiteral("0.999")});
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains(QStringLiteral("hidden incident")), qPrintable(text.out));
    QVERIFY2(text.out.contains(QStringLiteral("what-if none (an estimate)")), qPrintable(text.out));
    QVERIFY2(text.out.contains(QStringLiteral("objective 99.900 %")), qPrintable(text.out));
    QVERIFY2(!text.out.contains(QStringLiteral("outage")), qPrintable(text.out));

    const Outcome csv = run(
        {QStringLiteral("history"), QStringLiteral("--db"), db, QStringLiteral("--format"), QStringLiteral("csv")});
    QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
    const QList<QStringList> rows = parseCsv(csv.out.toUtf8());
    QCOMPARE(rows.size(), 3);
    QCOMPARE(rows.at(0).at(0), QStringLiteral("monitor"));
    QVERIFY(rows.at(0).contains(QStringLiteral("availabilityAttempts")));
}

void TestMonitorCommand::history_badInput_exits2NamingIt_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("words");
    QTest::addRow("missing database") << QStringList{QStringLiteral("--db"), QStringLiteral("/nonexistent/h.sqlite")}
                                      << "/nonexistent";
    QTest::addRow("damaged database") << QStringList{QStringLiteral("--db"), QStringLiteral("DAMAGED")} << "damaged";
    QTest::addRow("bad since") << QStringList{QStringLiteral("--since"), QStringLiteral("yesterday")} << "--since";
    QTest::addRow("until before since") << QStringList{QStringLiteral("--since"), QStringLiteral("1h"),
        QStringLiteral("--until"), QStringLiteral("2h")}
                                        << "--until";
    QTest::addRow("unknown policy") << QStringList{QStringLiteral("--what-if"), QStringLiteral("nope")} << "--what-if";
    QTest::addRow("objective 1") << QStringList{QStringLiteral("--objective"), QStringLiteral("1")} << "--objective";
    QTest::addRow("format") << QStringList{QStringLiteral("--format"), QStringLiteral("xml")} << "--format";
    QTest::addRow("refusing PostgreSQL") << QStringList{QStringLiteral("--db"),
        QStringLiteral("postgresql://nobody@127.0.0.1:1/none")}
                                         << "127.0.0.1:1";
}

void TestMonitorCommand::history_badInput_exits2NamingIt()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, words);
    const QString damaged = m_dir.filePath(QStringLiteral("damaged.sqlite"));
    write(damaged, QByteArray("SQLite format 3") + QByteArray(5000, 'x'));
    for (QString &a : arguments) {
        if (a == QLatin1String("DAMAGED"))
            a = damaged;
    }
    const Outcome o = run(QStringList{QStringLiteral("history")} + arguments);
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(words), qPrintable(o.err));
    // Refused, never replaced.
    QCOMPARE(read(damaged).left(15), QByteArray("SQLite format 3"));
}

void TestMonitorCommand::sigkill_losesNothingAlreadyWritten()
{
    const QString db = m_dir.filePath(QStringLiteral("killed.sqlite"));
    const QString path = writeFile(R"({"name": "k", "url": "SERVER/status/200", "intervalMs": 100, "policy": "none"})");
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY), {QStringLiteral("monitor"), path, QStringLiteral("--db"), db});
    QVERIFY(process.waitForStarted());
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).contains("k  pending -> up"), 30'000);
    // Past two flushes of the history (one a second), then killed without a chance to write more.
    const auto checksIn = [&db]() -> int {
        const Outcome json = run({QStringLiteral("history"), QStringLiteral("--db"), db, QStringLiteral("--format"),
            QStringLiteral("json")});
        const QJsonArray monitors
            = QJsonDocument::fromJson(json.out.toUtf8()).object().value(QStringLiteral("monitors")).toArray();
        return monitors.isEmpty() ? 0 : monitors.at(0).toObject().value(QStringLiteral("checks")).toInt();
    };
    int before = 0;
    QTRY_VERIFY_WITH_TIMEOUT((before = checksIn()) >= 5, 30'000);
    ::kill(pid_t(process.processId()), SIGKILL);
    QVERIFY(process.waitForFinished(10'000));
    QVERIFY(checksIn() >= before);
    // The file is whole, and a new monitor takes over the lock the killed one left.
    const Outcome again = run({QStringLiteral("monitor"), path, QStringLiteral("--db"), db,
        QStringLiteral("--duration"), QStringLiteral("1")});
    QVERIFY2(again.exitCode == 0, qPrintable(again.err));
    QVERIFY(checksIn() > before);
}

void TestMonitorCommand::defaultDatabase_isInTheDataFolder()
{
    const QString path = writeFile(R"({"name": "d", "url": "SERVER/status/200", "intervalMs": 200, "policy": "none"})");
    const Outcome o = run({QStringLiteral("monitor"), path, QStringLiteral("--duration"), QStringLiteral("1")});
    QVERIFY2(o.exitCode == 0, qPrintable(o.err));
    QVERIFY2(o.out.contains(m_dir.filePath(QStringLiteral("data"))), qPrintable(o.out));
    const Outcome history = run({QStringLiteral("history"), QStringLiteral("--format"), QStringLiteral("csv")});
    QVERIFY2(history.exitCode == 0, qPrintable(history.err));
    QVERIFY2(history.out.contains(QStringLiteral("\r\nd,")), qPrintable(history.out));
    // A folder the user names must exist: it is not made for them.
    const Outcome missing = run({QStringLiteral("monitor"), path, QStringLiteral("--db"),
        m_dir.filePath(QStringLiteral("no/such/folder/h.sqlite")), QStringLiteral("--duration"), QStringLiteral("1")});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains(QStringLiteral("no/such/folder")), qPrintable(missing.err));
}

void TestMonitorCommand::secondWriter_isRefused()
{
    const QString db = m_dir.filePath(QStringLiteral("one-writer.sqlite"));
    const QString path = writeFile(R"({"name": "w", "url": "SERVER/status/200", "intervalMs": 200, "policy": "none"})");
    QProcess first;
    first.start(QStringLiteral(RETRYLAB_BINARY), {QStringLiteral("monitor"), path, QStringLiteral("--db"), db});
    QVERIFY(first.waitForStarted());
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += first.readAllStandardOutput()).contains("w  pending -> up"), 30'000);
    const Outcome second = run({QStringLiteral("monitor"), path, QStringLiteral("--db"), db,
        QStringLiteral("--duration"), QStringLiteral("1")});
    QCOMPARE(second.exitCode, 2);
    QVERIFY2(second.err.contains(db), qPrintable(second.err));
    // Reading while it writes is fine.
    const Outcome history = run({QStringLiteral("history"), QStringLiteral("--db"), db});
    QVERIFY2(history.exitCode == 0, qPrintable(history.err));
    first.terminate();
    QTRY_VERIFY_WITH_TIMEOUT(first.state() == QProcess::NotRunning, 30'000);
    QCOMPARE(first.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestMonitorCommand)
#include "tst_monitorcommand.moc"
