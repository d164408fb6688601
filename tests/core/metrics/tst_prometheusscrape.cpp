#include "core/metrics/metricsregistry.h"
#include "core/metrics/metricsserver.h"
#include "core/metrics/monitormetrics.h"
#include "tests/tools/requiredtool.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

#include <memory>

#include <csignal>
#include <sys/prctl.h>

using namespace RetryLab::Core;

namespace {

const QByteArray missingPrometheus
    = "promtool and prometheus are not installed: install the Debian package \"prometheus\" (scripts/deps.sh does)";

// Monitor names that test the label escaping on Prometheus's side of the wire.
const QString plainMonitor = QStringLiteral("api");
const QString quotedMonitor = QStringLiteral("say \"hi\" C:\\temp");
const QString twoLineMonitor = QStringLiteral("two\nlines");
const QString unicodeMonitor = QStringLiteral("caf\u00e9 \u2713");

/// The figures of a few monitors, every metric of MonitorMetrics among them.
void fill(MonitorMetrics &metrics)
{
    for (const double seconds : {0.02, 0.03, 0.2, 0.3, 0.4})
        metrics.recordCheck(plainMonitor, seconds < 0.35, seconds);
    metrics.recordAttempt(plainMonitor, true, 0.02);
    metrics.recordAttempt(plainMonitor, false, 1.5);
    metrics.setState(plainMonitor, QStringLiteral("up"));
    metrics.setCertificateExpiry(plainMonitor, 1798761600);
    metrics.recordCheck(quotedMonitor, false, 12);
    metrics.setState(quotedMonitor, QStringLiteral("down"));
    metrics.recordCheck(twoLineMonitor, true, 0.001);
    metrics.setState(twoLineMonitor, QStringLiteral("pending"));
    metrics.recordAttempt(unicodeMonitor, true, 90);
    metrics.setState(unicodeMonitor, QStringLiteral("paused"));
    metrics.setHistoryBacklog(3);
    metrics.addHistoryDropped(2);
}

/// A port on 127.0.0.1 that nothing listens on now (bound, then released).
quint16 freeLoopbackPort()
{
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
}

/// The value of an instant query's only sample, as Prometheus writes it; empty
/// unless there is exactly one.
QString onlyValue(const QJsonArray &result)
{
    if (result.size() != 1)
        return {};
    return result.first().toObject().value(QStringLiteral("value")).toArray().at(1).toString();
}

struct PromtoolRun
{
    int exitCode = -1;
    QByteArray output; ///< stdout and stderr
};

PromtoolRun checkMetrics(const QString &promtool, const QByteArray &exposition)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
    if (!process.waitForStarted(30'000))
        return {-1, process.errorString().toUtf8()};
    process.write(exposition);
    process.closeWriteChannel();
    if (!process.waitForFinished(60'000))
        return {-1, "promtool did not finish"};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAll()};
}

/// Prometheus run by the test, in its own temporary folder, stopped (and
/// killed if it will not stop) when this goes away, whatever the outcome.
class PrometheusProcess
{
public:
    PrometheusProcess()
    {
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        // Should the suite itself be killed (its ctest timeout), Prometheus
        // goes with it instead of scraping a dead port for ever.
        m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    }
    PrometheusProcess(const PrometheusProcess &) = delete;
    PrometheusProcess &operator=(const PrometheusProcess &) = delete;
    ~PrometheusProcess() { stop(); }

    bool start(const QString &program, const QTemporaryDir &dir, quint16 webPort, quint16 targetPort)
    {
        const QString config = dir.filePath(QStringLiteral("prometheus.yml"));
        QFile file(config);
        if (!file.open(QIODevice::WriteOnly))
            return false;
        file.write(QStringLiteral("global:\n"
                                  "  scrape_interval: 1s\n"
                                  "  scrape_timeout: 1s\n"
                                  "  evaluation_interval: 1s\n"
                                  "scrape_configs:\n"
                                  "  - job_name: retrylab\n"
                                  "    static_configs:\n"
                                  "      - targets: ['127.0.0.1:%1']\n")
                       .arg(targetPort)
                       .toUtf8());
        file.close();
        m_base.setScheme(QStringLiteral("http"));
        m_base.setHost(QStringLiteral("127.0.0.1"));
        m_base.setPort(webPort);
        m_process.setWorkingDirectory(dir.path());
        m_process.start(program,
            {QStringLiteral("--config.file=") + config,
                QStringLiteral("--storage.tsdb.path=") + dir.filePath(QStringLiteral("data")),
                QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(webPort)});
        return m_process.waitForStarted(30'000);
    }

    bool running() const { return m_process.state() == QProcess::Running; }

    QString output()
    {
        m_output += QString::fromUtf8(m_process.readAll());
        return m_output.right(4000);
    }

    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(30'000)) {
            m_process.kill();
            m_process.waitForFinished(10'000);
        }
    }

    QUrl url(const QString &path, const QUrlQuery &query = {}) const
    {
        QUrl url = m_base;
        url.setPath(path);
        url.setQuery(query);
        return url;
    }

private:
    QProcess m_process;
    QUrl m_base;
    QString m_output;
};

} // namespace

// What Prometheus itself makes of the exposition: its linter (promtool check
// metrics) and a real Prometheus scraping the MetricsServer every second,
// asked through its HTTP API.
class TestPrometheusScrape final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void promtool_acceptsTheExpositionWithoutAComplaint();
    void promtool_complainsAboutAFlawedExposition();
    void prometheus_scrapesTheServer_andQueriesTheSeries();

private:
    /// The JSON of a GET, or an empty object when there is no answer (yet).
    QJsonObject getJson(const QUrl &url);
    /// The result vector of an instant query; empty when it fails.
    QJsonArray query(const PrometheusProcess &prometheus, const QString &promql);

    QNetworkAccessManager m_manager;
};

void TestPrometheusScrape::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestPrometheusScrape::promtool_acceptsTheExpositionWithoutAComplaint()
{
    const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    if (promtool.isEmpty())
        RETRYLAB_MISSING_TOOL(missingPrometheus.constData());
    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    fill(metrics);
    const PromtoolRun run = checkMetrics(promtool, registry.exposition());
    QVERIFY2(run.exitCode == 0, run.output.constData());
    QVERIFY2(run.output.trimmed().isEmpty(), run.output.constData());
}

void TestPrometheusScrape::promtool_complainsAboutAFlawedExposition()
{
    // The check above means something only if promtool reads what it is given.
    const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    if (promtool.isEmpty())
        RETRYLAB_MISSING_TOOL(missingPrometheus.constData());
    const PromtoolRun unlinted = checkMetrics(promtool, "# TYPE checks counter\nchecks{monitor=\"a\"} 1\n");
    QVERIFY2(unlinted.exitCode != 0, unlinted.output.constData());
    QVERIFY2(unlinted.output.contains("_total"), unlinted.output.constData());
    const PromtoolRun unparsable = checkMetrics(promtool, "checks_total{monitor=\"a\\q\"} 1\n");
    QVERIFY2(unparsable.exitCode != 0, unparsable.output.constData());
}

void TestPrometheusScrape::prometheus_scrapesTheServer_andQueriesTheSeries()
{
    const QString program = QStandardPaths::findExecutable(QStringLiteral("prometheus"));
    if (program.isEmpty())
        RETRYLAB_MISSING_TOOL(missingPrometheus.constData());

    MetricsRegistry registry;
    MonitorMetrics metrics(&registry);
    fill(metrics);
    MetricsServer server(&registry);
    QVERIFY2(server.listen(QHostAddress(QHostAddress::LocalHost), 0), qPrintable(server.errorString()));

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const quint16 webPort = freeLoopbackPort();
    QVERIFY(webPort != 0);
    PrometheusProcess prometheus;
    QElapsedTimer clock;
    clock.start();
    QVERIFY2(prometheus.start(program, dir, webPort, server.serverPort()), qPrintable(prometheus.output()));

    // Ready, or gone: a Prometheus that cannot start says why at once.
    QTRY_VERIFY_WITH_TIMEOUT(
        !prometheus.running() || !getJson(prometheus.url(QStringLiteral("/api/v1/status/buildinfo"))).isEmpty(),
        120'000);
    QVERIFY2(prometheus.running(), qPrintable(prometheus.output()));
    qInfo("Prometheus answered after %lld ms", clock.elapsed());

    // The scrape worked: the target is up, with no error from the parser.
    const auto targetHealth = [&] {
        const QJsonArray targets = getJson(prometheus.url(QStringLiteral("/api/v1/targets")))
                                       .value(QStringLiteral("data"))
                                       .toObject()
                                       .value(QStringLiteral("activeTargets"))
                                       .toArray();
        return targets.size() == 1 ? targets.first().toObject() : QJsonObject();
    };
    QTRY_VERIFY2_WITH_TIMEOUT(targetHealth().value(QStringLiteral("health")) == QLatin1String("up"),
        qPrintable(QString::fromUtf8(QJsonDocument(targetHealth()).toJson()) + prometheus.output()), 60'000);
    QCOMPARE(targetHealth().value(QStringLiteral("lastError")).toString(), QString());

    // Every check counter, its labels decoded back to the monitors' names.
    const auto checkCounts = [&] {
        QMap<QPair<QString, QString>, QString> counts;
        for (const QJsonValue &sample : query(prometheus, QStringLiteral("retrylab_monitor_checks_total"))) {
            const QJsonObject labels = sample.toObject().value(QStringLiteral("metric")).toObject();
            counts.insert({labels.value(QStringLiteral("monitor")).toString(),
                              labels.value(QStringLiteral("outcome")).toString()},
                sample.toObject().value(QStringLiteral("value")).toArray().at(1).toString());
        }
        return counts;
    };
    const QMap<QPair<QString, QString>, QString> expected{
        {{plainMonitor, QStringLiteral("success")}, QStringLiteral("4")},
        {{plainMonitor, QStringLiteral("failure")}, QStringLiteral("1")},
        {{quotedMonitor, QStringLiteral("success")}, QStringLiteral("0")},
        {{quotedMonitor, QStringLiteral("failure")}, QStringLiteral("1")},
        {{twoLineMonitor, QStringLiteral("success")}, QStringLiteral("1")},
        {{twoLineMonitor, QStringLiteral("failure")}, QStringLiteral("0")},
    };
    QTRY_COMPARE_WITH_TIMEOUT(checkCounts(), expected, 60'000);
    qInfo("the series were there after %lld ms", clock.elapsed());

    // The series carry the scrape's own labels as well.
    const QJsonArray up = query(prometheus, QStringLiteral("retrylab_monitor_up{monitor=\"api\"}"));
    QCOMPARE(onlyValue(up), QStringLiteral("1"));
    QCOMPARE(up.first().toObject().value(QStringLiteral("metric")).toObject().value(QStringLiteral("job")).toString(),
        QStringLiteral("retrylab"));
    const QJsonArray paused = query(prometheus, QStringLiteral("retrylab_monitor_state == 1"));
    QStringList states;
    for (const QJsonValue &sample : paused) {
        const QJsonObject labels = sample.toObject().value(QStringLiteral("metric")).toObject();
        states << labels.value(QStringLiteral("monitor")).toString() + QLatin1Char('=')
                + labels.value(QStringLiteral("state")).toString();
    }
    states.sort();
    QCOMPARE(states,
        QStringList({QStringLiteral("api=up"), QStringLiteral("caf\u00e9 \u2713=paused"),
            QStringLiteral("say \"hi\" C:\\temp=down"), QStringLiteral("two\nlines=pending")}));
    QCOMPARE(onlyValue(query(prometheus, QStringLiteral("retrylab_monitor_certificate_expiry_timestamp_seconds"))),
        QStringLiteral("1798761600"));

    // The buckets read as a histogram: of 0.02, 0.03, 0.2, 0.3 and 0.4 s the
    // median falls in (0.1, 0.25], half a sample past its lower bound's 2 of
    // the bucket's 1: 0.1 + 0.15 * 0.5.
    const QJsonArray median = query(prometheus,
        QStringLiteral("histogram_quantile(0.5, retrylab_monitor_check_duration_seconds_bucket{monitor=\"api\"})"));
    QVERIFY(!onlyValue(median).isEmpty());
    QCOMPARE(onlyValue(median).toDouble(), 0.175);
    const QJsonArray attempts = query(prometheus,
        QStringLiteral("sum(retrylab_monitor_attempt_duration_seconds_count) - "
                       "sum(retrylab_monitor_attempts_total)"));
    QCOMPARE(onlyValue(attempts), QStringLiteral("0"));

    // Later scrapes see later figures, and a removed monitor goes stale.
    metrics.recordCheck(plainMonitor, true, 0.05);
    metrics.removeMonitor(quotedMonitor);
    QTRY_COMPARE_WITH_TIMEOUT(
        checkCounts().value({plainMonitor, QStringLiteral("success")}), QStringLiteral("4"), 60'000);
    QTRY_VERIFY_WITH_TIMEOUT(!checkCounts().contains({quotedMonitor, QStringLiteral("failure")}), 60'000);

    prometheus.stop();
    QVERIFY(!prometheus.running());
}

QJsonObject TestPrometheusScrape::getJson(const QUrl &url)
{
    QNetworkRequest request(url);
    request.setTransferTimeout(10'000);
    std::unique_ptr<QNetworkReply> reply(m_manager.get(request));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(15'000))
        return {};
    if (reply->error() != QNetworkReply::NoError)
        return {};
    return QJsonDocument::fromJson(reply->readAll()).object();
}

QJsonArray TestPrometheusScrape::query(const PrometheusProcess &prometheus, const QString &promql)
{
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("query"), promql);
    const QJsonObject answer = getJson(prometheus.url(QStringLiteral("/api/v1/query"), query));
    if (answer.value(QStringLiteral("status")).toString() != QLatin1String("success"))
        return {};
    return answer.value(QStringLiteral("data")).toObject().value(QStringLiteral("result")).toArray();
}

QTEST_GUILESS_MAIN(TestPrometheusScrape)
#include "tst_prometheusscrape.moc"
