#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>

// The window's startup report (RETRYLAB_STARTUP_REPORT, read by scripts/bench-startup.py):
// the real retrylab binary, a fresh user, the offscreen platform.
class TestStartupReport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void report_hasTheMilestonesInOrder();
    void launchTime_countsFromTheLauncher();
    void unwritableReport_exitsWithAMessage();
    void window_writesNoLogLinesToTheTerminal();

private:
    struct Outcome
    {
        int exitCode = -1;
        QString err;
        QJsonObject report;
    };
    Outcome start(const QString &reportFile, const QString &launchNs = {}, bool defaultLogging = false);
    QTemporaryDir m_home;
};

TestStartupReport::Outcome TestStartupReport::start(
    const QString &reportFile, const QString &launchNs, bool defaultLogging)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (defaultLogging)
        env.remove(QStringLiteral("QT_LOGGING_RULES"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("HOME"), m_home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("RETRYLAB_STARTUP_REPORT"), reportFile);
    if (!launchNs.isEmpty())
        env.insert(QStringLiteral("RETRYLAB_STARTUP_T0_NS"), launchNs);
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(RETRYLAB_BINARY), {});
    Outcome outcome;
    if (!process.waitForFinished(120'000)) {
        process.kill();
        process.waitForFinished();
        return outcome;
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    QFile file(reportFile);
    if (file.open(QIODevice::ReadOnly))
        outcome.report = QJsonDocument::fromJson(file.readAll()).object();
    return outcome;
}

void TestStartupReport::report_hasTheMilestonesInOrder()
{
    QVERIFY(m_home.isValid());
    const QString file = m_home.filePath(QStringLiteral("startup.json"));
    const Outcome outcome = start(file);
    QCOMPARE(outcome.exitCode, 0);
    const QJsonObject &r = outcome.report;
    QVERIFY2(
        r.value(QLatin1String("server_ready")).toBool(), qPrintable(r.value(QLatin1String("server_error")).toString()));
    const double main = r.value(QLatin1String("main_ms")).toDouble(-1.0);
    const double app = r.value(QLatin1String("application_ms")).toDouble(-1.0);
    const double window = r.value(QLatin1String("window_and_server_ms")).toDouble(-1.0);
    const double paint = r.value(QLatin1String("first_paint_ms")).toDouble(-1.0);
    // Without a launch time the clock starts at main().
    QCOMPARE(main, 0.0);
    QVERIFY(app >= main);
    QVERIFY(window >= app);
    QVERIFY(paint >= window);
    QCOMPARE(r.value(QLatin1String("platform")).toString(), QStringLiteral("offscreen"));
}

void TestStartupReport::window_writesNoLogLinesToTheTerminal()
{
    // As a user starts it: no QT_LOGGING_RULES. The window starts its server, its monitors
    // and its views, each of which has notes for its logging category; none reach stderr.
    QVERIFY(m_home.isValid());
    const Outcome outcome = start(m_home.filePath(QStringLiteral("quiet.json")), {}, true);
    QCOMPARE(outcome.exitCode, 0);
    for (const QString &line : outcome.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        QVERIFY2(!line.startsWith(QLatin1String("retrylab.")), qPrintable(outcome.err));
}

void TestStartupReport::launchTime_countsFromTheLauncher()
{
    // A launch time one second before now: every milestone counts that second.
    const qint64 now
        = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
              .count();
    const QString file = m_home.filePath(QStringLiteral("launched.json"));
    const Outcome outcome = start(file, QString::number(now - 1'000'000'000LL));
    QCOMPARE(outcome.exitCode, 0);
    const double main = outcome.report.value(QLatin1String("main_ms")).toDouble(-1.0);
    const double paint = outcome.report.value(QLatin1String("first_paint_ms")).toDouble(-1.0);
    QVERIFY2(main >= 1000.0, qPrintable(QString::number(main)));
    QVERIFY(paint > main);
}

void TestStartupReport::unwritableReport_exitsWithAMessage()
{
    const QString file = m_home.filePath(QStringLiteral("no/such/dir/startup.json"));
    const Outcome outcome = start(file);
    QCOMPARE(outcome.exitCode, 1);
    QVERIFY2(outcome.err.contains(QLatin1String("cannot write the startup report")), qPrintable(outcome.err));
}

QTEST_GUILESS_MAIN(TestStartupReport)
#include "tst_startupreport.moc"
