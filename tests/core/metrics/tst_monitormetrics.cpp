#include "core/metrics/metricsregistry.h"
#include "core/metrics/monitormetrics.h"

#include <QRegularExpression>
#include <QTest>

using namespace RetryLab::Core;

// The monitor's metric names are RetryLab's interface (dashboards and alert
// rules use them): each case reads the series by those exact names.
class TestMonitorMetrics final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void freshRegistry_showsOnlyTheHistoryFigures();
    void recordCheck_countsBothOutcomesAndTheDuration();
    void recordAttempt_countsBothOutcomesAndTheDuration();
    void setState_setsUpAndOneOfFourStates_data();
    void setState_setsUpAndOneOfFourStates();
    void setState_unknownName_leavesEveryStateAtZero();
    void certificateExpiry_isAWholeUnixTime();
    void history_backlogIsAGauge_droppedACounter();
    void removeMonitor_forgetsEverySeriesOfIt();
    void durationBuckets_cover5MsTo60s();
};

namespace {

QStringList linesOf(const QByteArray &exposition, const QString &metricPrefix)
{
    QStringList out;
    for (const QByteArray &line : exposition.split('\n')) {
        if (line.startsWith(metricPrefix.toUtf8()))
            out << QString::fromUtf8(line);
    }
    return out;
}

} // namespace

void TestMonitorMetrics::freshRegistry_showsOnlyTheHistoryFigures()
{
    MetricsRegistry registry;
    const MonitorMetrics metrics(&registry);
    QCOMPARE(registry.exposition(),
        QByteArray("# HELP retrylab_monitor_history_backlog Checks waiting to be written to the history store.\n"
                   "# TYPE retrylab_monitor_history_backlog gauge\n"
                   "retrylab_monitor_history_backlog 0\n"
                   "# HELP retrylab_monitor_history_dropped_total Checks the history store dropped because its "
                   "backlog was full.\n"
                   "# TYPE retrylab_monitor_history_dropped_total counter\n"
                   "retrylab_monitor_history_dropped_total 0\n"));
}

void TestMonitorMetrics::recordCheck_countsBothOutcomesAndTheDuration()
{
    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    metrics.recordCheck(QStringLiteral("api"), true, 0.02);
    metrics.recordCheck(QStringLiteral("api"), true, 0.3);
    metrics.recordCheck(QStringLiteral("api"), false, 75);
    const QByteArray text = registry.exposition();
    QCOMPARE(linesOf(text, QStringLiteral("retrylab_monitor_checks_total")),
        QStringList({QStringLiteral("retrylab_monitor_checks_total{monitor=\"api\",outcome=\"failure\"} 1"),
            QStringLiteral("retrylab_monitor_checks_total{monitor=\"api\",outcome=\"success\"} 2")}));
    QCOMPARE(linesOf(text, QStringLiteral("retrylab_monitor_check_duration_seconds")),
        QStringList({
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"0.005\"} 0"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"0.01\"} 0"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"0.025\"} 1"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"0.05\"} 1"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"0.1\"} 1"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"0.25\"} 1"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"0.5\"} 2"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"1\"} 2"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"2.5\"} 2"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"5\"} 2"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"10\"} 2"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"30\"} 2"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"60\"} 2"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\",le=\"+Inf\"} 3"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_sum{monitor=\"api\"} 75.32"),
            QStringLiteral("retrylab_monitor_check_duration_seconds_count{monitor=\"api\"} 3"),
        }));
    QVERIFY(text.contains("# TYPE retrylab_monitor_checks_total counter\n"));
    QVERIFY(text.contains("# TYPE retrylab_monitor_check_duration_seconds histogram\n"));
    // A check is not an attempt.
    QCOMPARE(registry.seriesCount(QStringLiteral("retrylab_monitor_attempts_total")), 0);
}

void TestMonitorMetrics::recordAttempt_countsBothOutcomesAndTheDuration()
{
    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    metrics.recordAttempt(QStringLiteral("api"), false, 0.2);
    metrics.recordAttempt(QStringLiteral("api"), false, 0.2);
    metrics.recordAttempt(QStringLiteral("api"), true, 0.004);
    QCOMPARE(registry.value(
                 QStringLiteral("retrylab_monitor_attempts_total"), {QStringLiteral("api"), QStringLiteral("failure")}),
        2.0);
    QCOMPARE(registry.value(
                 QStringLiteral("retrylab_monitor_attempts_total"), {QStringLiteral("api"), QStringLiteral("success")}),
        1.0);
    const QByteArray text = registry.exposition();
    QVERIFY(text.contains("retrylab_monitor_attempt_duration_seconds_bucket{monitor=\"api\",le=\"0.005\"} 1\n"));
    QVERIFY(text.contains("retrylab_monitor_attempt_duration_seconds_bucket{monitor=\"api\",le=\"0.25\"} 3\n"));
    QVERIFY(text.contains("retrylab_monitor_attempt_duration_seconds_count{monitor=\"api\"} 3\n"));
    QCOMPARE(registry.seriesCount(QStringLiteral("retrylab_monitor_checks_total")), 0);
}

void TestMonitorMetrics::setState_setsUpAndOneOfFourStates_data()
{
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("up");
    for (const QString &state : MonitorMetrics::stateNames())
        QTest::addRow("%s", qPrintable(state)) << state << (state == QLatin1String("up") ? 1 : 0);
}

void TestMonitorMetrics::setState_setsUpAndOneOfFourStates()
{
    QFETCH(QString, state);
    QFETCH(int, up);
    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    metrics.setState(QStringLiteral("api"), QStringLiteral("paused"));
    metrics.setState(QStringLiteral("api"), state);
    const QByteArray text = registry.exposition();
    QCOMPARE(linesOf(text, QStringLiteral("retrylab_monitor_up")),
        QStringList{QStringLiteral("retrylab_monitor_up{monitor=\"api\"} %1").arg(up)});
    QStringList expected;
    for (const QString &name :
        {QStringLiteral("down"), QStringLiteral("paused"), QStringLiteral("pending"), QStringLiteral("up")}) {
        expected << QStringLiteral("retrylab_monitor_state{monitor=\"api\",state=\"%1\"} %2")
                        .arg(name)
                        .arg(name == state ? 1 : 0);
    }
    QCOMPARE(linesOf(text, QStringLiteral("retrylab_monitor_state")), expected);
    QVERIFY(text.contains("# TYPE retrylab_monitor_up gauge\n"));
    QVERIFY(text.contains("# TYPE retrylab_monitor_state gauge\n"));
}

void TestMonitorMetrics::setState_unknownName_leavesEveryStateAtZero()
{
    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    metrics.setState(QStringLiteral("api"), QStringLiteral("up"));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("unknown monitor state.*sideways")));
    metrics.setState(QStringLiteral("api"), QStringLiteral("sideways"));
    for (const QString &name : MonitorMetrics::stateNames())
        QCOMPARE(registry.value(QStringLiteral("retrylab_monitor_state"), {QStringLiteral("api"), name}), 0.0);
    QCOMPARE(registry.value(QStringLiteral("retrylab_monitor_up"), {QStringLiteral("api")}), 0.0);
    QCOMPARE(registry.seriesCount(QStringLiteral("retrylab_monitor_state")), 4);
}

void TestMonitorMetrics::certificateExpiry_isAWholeUnixTime()
{
    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    metrics.setCertificateExpiry(QStringLiteral("tls"), 1798761600);
    const QByteArray text = registry.exposition();
    QVERIFY(text.contains("# TYPE retrylab_monitor_certificate_expiry_timestamp_seconds gauge\n"
                          "retrylab_monitor_certificate_expiry_timestamp_seconds{monitor=\"tls\"} 1798761600\n"));
}

void TestMonitorMetrics::history_backlogIsAGauge_droppedACounter()
{
    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    metrics.setHistoryBacklog(12);
    metrics.setHistoryBacklog(5);
    metrics.addHistoryDropped(3);
    metrics.addHistoryDropped(4);
    const QByteArray text = registry.exposition();
    QVERIFY(text.contains("\nretrylab_monitor_history_backlog 5\n"));
    QVERIFY(text.contains("\nretrylab_monitor_history_dropped_total 7\n"));
}

void TestMonitorMetrics::removeMonitor_forgetsEverySeriesOfIt()
{
    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    for (const QString &monitor : {QStringLiteral("gone"), QStringLiteral("kept")}) {
        metrics.recordCheck(monitor, true, 0.1);
        metrics.recordAttempt(monitor, true, 0.1);
        metrics.setState(monitor, QStringLiteral("up"));
        metrics.setCertificateExpiry(monitor, 1798761600);
    }
    const QByteArray before = registry.exposition();
    metrics.removeMonitor(QStringLiteral("gone"));
    const QByteArray after = registry.exposition();
    QVERIFY(before.contains("monitor=\"gone\""));
    QVERIFY(!after.contains("monitor=\"gone\""));
    // What is left is exactly the lines of the other monitor.
    QStringList kept;
    for (const QByteArray &line : before.split('\n')) {
        if (!line.contains("monitor=\"gone\""))
            kept << QString::fromUtf8(line);
    }
    QCOMPARE(QString::fromUtf8(after), kept.join(QLatin1Char('\n')));
}

void TestMonitorMetrics::durationBuckets_cover5MsTo60s()
{
    const QList<double> buckets = MonitorMetrics::durationBuckets();
    QCOMPARE(buckets.first(), 0.005);
    QCOMPARE(buckets.last(), 60.0);
    QVERIFY(std::is_sorted(buckets.cbegin(), buckets.cend()));
}

QTEST_GUILESS_MAIN(TestMonitorMetrics)
#include "tst_monitormetrics.moc"
