// retrylab monitor with its history in a real PostgreSQL 15 cluster started by the
// suite: two agents write one history at once and retrylab history sees both; the
// server goes away mid-run and comes back, and the checks made meanwhile arrive.

#include "tests/app/commandtesting.h"
#include "tests/core/history/postgrescluster.h"
#include "tests/tools/requiredtool.h"

#include "core/faultserver/faultserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;
using namespace RetryLab::Testing;
using namespace CommandTesting;

class TestMonitorPostgres : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void twoAgents_writeOneHistory_andHistorySeesBoth();
    void lostConnection_keepsMonitoring_andWritesTheBacklog();
    void refusingServer_exits2NamingIt();

private:
    QString writeMonitors(const QByteArray &monitors);
    // Checks kept per agent of `monitor`, as retrylab history reads them.
    QHash<QString, int> checksByAgent(const QString &url, const QString &monitor);

    FaultServer m_server;
    PostgresCluster m_cluster;
    QTemporaryDir m_dir;
};

void TestMonitorPostgres::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
    QVERIFY(m_dir.isValid());
    qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
    if (!PostgresCluster::available())
        RETRYLAB_MISSING_TOOL(qPrintable(PostgresCluster::missingMessage()));
    const QString why = m_cluster.start();
    QVERIFY2(why.isEmpty(), qPrintable(why));
}

QString TestMonitorPostgres::writeMonitors(const QByteArray &monitors)
{
    QByteArray json = R"({"format": "retrylab-monitors", "version": 1, "monitors": [)" + monitors + "]}";
    json.replace("SERVER", m_server.baseUrl().toString().toUtf8());
    static int n = 0;
    const QString path = m_dir.filePath(QStringLiteral("monitors-%1.json").arg(++n));
    write(path, json);
    return path;
}

QHash<QString, int> TestMonitorPostgres::checksByAgent(const QString &url, const QString &monitor)
{
    const Outcome o = run({QStringLiteral("history"), QStringLiteral("--db"), url, QStringLiteral("--monitor"), monitor,
        QStringLiteral("--format"), QStringLiteral("json")});
    QHash<QString, int> out;
    const QJsonArray monitors
        = QJsonDocument::fromJson(o.out.toUtf8()).object().value(QStringLiteral("monitors")).toArray();
    for (const QJsonValue &m : monitors)
        out.insert(m.toObject().value(QStringLiteral("agent")).toString(),
            m.toObject().value(QStringLiteral("checks")).toInt());
    return out;
}

void TestMonitorPostgres::twoAgents_writeOneHistory_andHistorySeesBoth()
{
    QVERIFY(m_cluster.createDatabase(QStringLiteral("agents")).isEmpty());
    const QString url = m_cluster.url(QStringLiteral("agents"));
    const QString path
        = writeMonitors(R"({"name": "shared", "url": "SERVER/status/200", "intervalMs": 200, "policy": "none"})");
    QProcess east;
    QProcess west;
    for (auto [process, agent] : {std::pair{&east, "east"}, std::pair{&west, "west"}}) {
        process->start(QStringLiteral(RETRYLAB_BINARY),
            {QStringLiteral("monitor"), path, QStringLiteral("--db"), url, QStringLiteral("--agent"),
                QString::fromLatin1(agent), QStringLiteral("--duration"), QStringLiteral("3")});
        QVERIFY(process->waitForStarted());
    }
    QTRY_VERIFY_WITH_TIMEOUT(east.state() == QProcess::NotRunning && west.state() == QProcess::NotRunning, 60'000);
    QCOMPARE(east.exitCode(), 0);
    QVERIFY2(west.exitCode() == 0, west.readAllStandardError().constData());
    const QHash<QString, int> checks = checksByAgent(url, QStringLiteral("shared"));
    QCOMPARE(checks.size(), 2);
    QVERIFY(checks.value(QStringLiteral("east")) >= 10);
    QVERIFY(checks.value(QStringLiteral("west")) >= 10);
}

void TestMonitorPostgres::lostConnection_keepsMonitoring_andWritesTheBacklog()
{
    QVERIFY(m_cluster.createDatabase(QStringLiteral("lost")).isEmpty());
    const QString url = m_cluster.url(QStringLiteral("lost"));
    const QString path
        = writeMonitors(R"({"name": "steady", "url": "SERVER/status/200", "intervalMs": 100, "policy": "none"})");
    QProcess monitor;
    monitor.start(QStringLiteral(RETRYLAB_BINARY),
        {QStringLiteral("monitor"), path, QStringLiteral("--db"), url, QStringLiteral("--agent"), QStringLiteral("a")});
    QVERIFY(monitor.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT(checksByAgent(url, QStringLiteral("steady")).value(QStringLiteral("a")) >= 5, 30'000);
    QVERIFY(m_cluster.stop().isEmpty());
    // The monitor notices at its next write, says so, and goes on checking.
    QTRY_VERIFY_WITH_TIMEOUT((err += monitor.readAllStandardError()).contains("the checks wait in memory"), 30'000);
    QCOMPARE(monitor.state(), QProcess::Running);
    const QString restarted = m_cluster.start();
    QVERIFY2(restarted.isEmpty(), qPrintable(restarted));
    QTRY_VERIFY_WITH_TIMEOUT((err += monitor.readAllStandardError()).contains("the history is written again"), 60'000);
    monitor.terminate();
    QTRY_VERIFY_WITH_TIMEOUT(monitor.state() == QProcess::NotRunning, 30'000);
    QCOMPARE(monitor.exitCode(), 0);
    const QByteArray out = monitor.readAllStandardOutput();
    // Every check it made is in the history, those made while the server was gone too.
    const QRegularExpression summary(QStringLiteral("steady: (\\d+) checks"));
    const auto match = summary.match(QString::fromUtf8(out));
    QVERIFY2(match.hasMatch(), out.constData());
    QCOMPARE(checksByAgent(url, QStringLiteral("steady")).value(QStringLiteral("a")), match.captured(1).toInt());
}

void TestMonitorPostgres::refusingServer_exits2NamingIt()
{
    const QString path
        = writeMonitors(R"({"name": "x", "url": "SERVER/status/200", "intervalMs": 100, "policy": "none"})");
    const int port = PostgresCluster::freePort();
    const Outcome o = run({QStringLiteral("monitor"), path, QStringLiteral("--db"),
        QStringLiteral("postgresql://retrylab:secret@127.0.0.1:%1/none").arg(port), QStringLiteral("--duration"),
        QStringLiteral("1")});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(QStringLiteral("127.0.0.1:%1").arg(port)), qPrintable(o.err));
    QVERIFY2(!o.err.contains(QStringLiteral("secret")), qPrintable(o.err));
}

QTEST_GUILESS_MAIN(TestMonitorPostgres)
#include "tst_monitorpostgres.moc"
