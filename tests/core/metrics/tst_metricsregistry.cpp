#include "core/metrics/metricsregistry.h"
#include "core/metrics/prometheustext.h"

#include <QRegularExpression>
#include <QTest>
#include <QThread>

#include <atomic>
#include <limits>
#include <memory>

using namespace RetryLab::Core;

// The registry's text is read by Prometheus: each case compares the whole
// exposition with the text the format (version 0.0.4) prescribes.
class TestMetricsRegistry final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void counter_rendersHelpTypeAndEverySeries();
    void gauge_rendersSpecialValuesAsPrometheusSpellsThem_data();
    void gauge_rendersSpecialValuesAsPrometheusSpellsThem();
    void histogram_rendersCumulativeBucketsInfSumAndCount();
    void histogram_withoutLabels_startsEmptyAtZero();
    void labelValues_escapeBackslashQuoteAndNewline();
    void help_escapesBackslashAndNewline();
    void families_sortByName_seriesByLabelValues();
    void labelledFamilyWithoutSeries_isLeftOut();
    void removeSeries_forgetsOneSeries();
    void removeSeriesWith_forgetsEverySeriesWithThatLabelValue();
    void declaration_refusesWhatPrometheusCannotRead_data();
    void declaration_refusesWhatPrometheusCannotRead();
    void update_thatDoesNotFit_changesNothing();
    void concurrentUpdates_whileRendering_keepEveryRenderingConsistent();
};

void TestMetricsRegistry::counter_rendersHelpTypeAndEverySeries()
{
    MetricsRegistry registry;
    QVERIFY(registry.addCounter(QStringLiteral("jobs_total"), QStringLiteral("Jobs done."),
        {QStringLiteral("queue"), QStringLiteral("outcome")}));
    QVERIFY(registry.increment(QStringLiteral("jobs_total"), {QStringLiteral("b"), QStringLiteral("success")}));
    QVERIFY(registry.increment(QStringLiteral("jobs_total"), {QStringLiteral("a"), QStringLiteral("success")}, 2.5));
    QVERIFY(registry.increment(QStringLiteral("jobs_total"), {QStringLiteral("a"), QStringLiteral("success")}));
    QVERIFY(registry.increment(QStringLiteral("jobs_total"), {QStringLiteral("a"), QStringLiteral("failure")}, 0));

    QCOMPARE(registry.exposition(),
        QByteArray("# HELP jobs_total Jobs done.\n"
                   "# TYPE jobs_total counter\n"
                   "jobs_total{queue=\"a\",outcome=\"failure\"} 0\n"
                   "jobs_total{queue=\"a\",outcome=\"success\"} 3.5\n"
                   "jobs_total{queue=\"b\",outcome=\"success\"} 1\n"));
    QCOMPARE(registry.value(QStringLiteral("jobs_total"), {QStringLiteral("a"), QStringLiteral("success")}), 3.5);
    QCOMPARE(registry.seriesCount(QStringLiteral("jobs_total")), 3);
}

void TestMetricsRegistry::gauge_rendersSpecialValuesAsPrometheusSpellsThem_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QByteArray>("text");
    QTest::addRow("zero") << 0.0 << QByteArray("0");
    QTest::addRow("negative zero") << -0.0 << QByteArray("0");
    QTest::addRow("whole") << 42.0 << QByteArray("42");
    QTest::addRow("negative whole") << -7.0 << QByteArray("-7");
    QTest::addRow("unix time") << 1798761600.0 << QByteArray("1798761600");
    QTest::addRow("fraction") << 0.005 << QByteArray("0.005");
    QTest::addRow("shortest round trip") << 0.1 + 0.2 << QByteArray("0.30000000000000004");
    QTest::addRow("tiny") << 1.5e-7 << QByteArray("1.5e-07");
    // Go's ParseFloat reads both forms; Qt picks the shorter.
    QTest::addRow("beyond 2^53") << 1.152921504606847e18 << QByteArray("1152921504606847000");
    QTest::addRow("huge") << 1e300 << QByteArray("1e+300");
    QTest::addRow("NaN") << std::numeric_limits<double>::quiet_NaN() << QByteArray("NaN");
    QTest::addRow("+Inf") << std::numeric_limits<double>::infinity() << QByteArray("+Inf");
    QTest::addRow("-Inf") << -std::numeric_limits<double>::infinity() << QByteArray("-Inf");
}

void TestMetricsRegistry::gauge_rendersSpecialValuesAsPrometheusSpellsThem()
{
    QFETCH(double, value);
    QFETCH(QByteArray, text);
    MetricsRegistry registry;
    QVERIFY(registry.addGauge(QStringLiteral("level"), QStringLiteral("A level.")));
    QVERIFY(registry.set(QStringLiteral("level"), {}, value));
    QCOMPARE(registry.exposition(), "# HELP level A level.\n# TYPE level gauge\nlevel " + text + '\n');
    QCOMPARE(PrometheusText::number(value), text);
}

void TestMetricsRegistry::histogram_rendersCumulativeBucketsInfSumAndCount()
{
    MetricsRegistry registry;
    QVERIFY(registry.addHistogram(
        QStringLiteral("wait_seconds"), QStringLiteral("Waits."), {QStringLiteral("m")}, {0.1, 1, 2.5}));
    // 0.1 is on a bound: buckets are "less than or equal".
    for (const double seconds : {0.1, 0.25, 0.5, 4.0, 0.0})
        QVERIFY(registry.observe(QStringLiteral("wait_seconds"), {QStringLiteral("a")}, seconds));
    QVERIFY(registry.observe(QStringLiteral("wait_seconds"), {QStringLiteral("b")}, 100));

    QCOMPARE(registry.exposition(),
        QByteArray("# HELP wait_seconds Waits.\n"
                   "# TYPE wait_seconds histogram\n"
                   "wait_seconds_bucket{m=\"a\",le=\"0.1\"} 2\n"
                   "wait_seconds_bucket{m=\"a\",le=\"1\"} 4\n"
                   "wait_seconds_bucket{m=\"a\",le=\"2.5\"} 4\n"
                   "wait_seconds_bucket{m=\"a\",le=\"+Inf\"} 5\n"
                   "wait_seconds_sum{m=\"a\"} 4.85\n"
                   "wait_seconds_count{m=\"a\"} 5\n"
                   "wait_seconds_bucket{m=\"b\",le=\"0.1\"} 0\n"
                   "wait_seconds_bucket{m=\"b\",le=\"1\"} 0\n"
                   "wait_seconds_bucket{m=\"b\",le=\"2.5\"} 0\n"
                   "wait_seconds_bucket{m=\"b\",le=\"+Inf\"} 1\n"
                   "wait_seconds_sum{m=\"b\"} 100\n"
                   "wait_seconds_count{m=\"b\"} 1\n"));
}

void TestMetricsRegistry::histogram_withoutLabels_startsEmptyAtZero()
{
    MetricsRegistry registry;
    QVERIFY(registry.addHistogram(QStringLiteral("size_bytes"), QStringLiteral("Sizes."), {}, {1024}));
    QCOMPARE(registry.exposition(),
        QByteArray("# HELP size_bytes Sizes.\n"
                   "# TYPE size_bytes histogram\n"
                   "size_bytes_bucket{le=\"1024\"} 0\n"
                   "size_bytes_bucket{le=\"+Inf\"} 0\n"
                   "size_bytes_sum 0\n"
                   "size_bytes_count 0\n"));
    QVERIFY(registry.observe(QStringLiteral("size_bytes"), {}, 2048));
    QVERIFY(registry.exposition().contains("size_bytes_bucket{le=\"+Inf\"} 1\nsize_bytes_sum 2048\n"));
}

void TestMetricsRegistry::labelValues_escapeBackslashQuoteAndNewline()
{
    MetricsRegistry registry;
    QVERIFY(registry.addGauge(QStringLiteral("up"), QStringLiteral("Up."), {QStringLiteral("monitor")}));
    QVERIFY(registry.set(QStringLiteral("up"), {QStringLiteral("C:\\dir \"quoted\"\nnext line")}, 1));
    QVERIFY(registry.set(QStringLiteral("up"), {QStringLiteral("caf\u00e9 {x=1}, #y")}, 0));
    QCOMPARE(registry.exposition(),
        QByteArray("# HELP up Up.\n"
                   "# TYPE up gauge\n"
                   "up{monitor=\"C:\\\\dir \\\"quoted\\\"\\nnext line\"} 1\n"
                   "up{monitor=\"caf\xc3\xa9 {x=1}, #y\"} 0\n"));
}

void TestMetricsRegistry::help_escapesBackslashAndNewline()
{
    MetricsRegistry registry;
    QVERIFY(registry.addCounter(QStringLiteral("x_total"), QStringLiteral("Two\nlines, a \\ and \"quotes\".")));
    // Quotes stay as they are in HELP; only backslash and line feed are escaped.
    QCOMPARE(registry.exposition(),
        QByteArray("# HELP x_total Two\\nlines, a \\\\ and \"quotes\".\n"
                   "# TYPE x_total counter\n"
                   "x_total 0\n"));
}

void TestMetricsRegistry::families_sortByName_seriesByLabelValues()
{
    MetricsRegistry registry;
    QVERIFY(registry.addGauge(QStringLiteral("zeta"), QStringLiteral("Z."), {QStringLiteral("k")}));
    QVERIFY(registry.addGauge(QStringLiteral("alpha"), QStringLiteral("A."), {QStringLiteral("k")}));
    for (const char *k : {"m", "b", "z", "a"}) {
        QVERIFY(registry.set(QStringLiteral("zeta"), {QLatin1String(k)}, 1));
        QVERIFY(registry.set(QStringLiteral("alpha"), {QLatin1String(k)}, 2));
    }
    const QByteArray text = registry.exposition();
    QCOMPARE(text,
        QByteArray("# HELP alpha A.\n# TYPE alpha gauge\n"
                   "alpha{k=\"a\"} 2\nalpha{k=\"b\"} 2\nalpha{k=\"m\"} 2\nalpha{k=\"z\"} 2\n"
                   "# HELP zeta Z.\n# TYPE zeta gauge\n"
                   "zeta{k=\"a\"} 1\nzeta{k=\"b\"} 1\nzeta{k=\"m\"} 1\nzeta{k=\"z\"} 1\n"));
    QCOMPARE(registry.exposition(), text);
}

void TestMetricsRegistry::labelledFamilyWithoutSeries_isLeftOut()
{
    MetricsRegistry registry;
    QVERIFY(registry.addGauge(QStringLiteral("up"), QStringLiteral("Up."), {QStringLiteral("monitor")}));
    QVERIFY(registry.addGauge(QStringLiteral("backlog"), QStringLiteral("Backlog.")));
    QCOMPARE(registry.exposition(), QByteArray("# HELP backlog Backlog.\n# TYPE backlog gauge\nbacklog 0\n"));
}

void TestMetricsRegistry::removeSeries_forgetsOneSeries()
{
    MetricsRegistry registry;
    QVERIFY(registry.addGauge(QStringLiteral("up"), QStringLiteral("Up."), {QStringLiteral("monitor")}));
    QVERIFY(registry.addGauge(QStringLiteral("backlog"), QStringLiteral("Backlog.")));
    QVERIFY(registry.set(QStringLiteral("up"), {QStringLiteral("a")}, 1));
    QVERIFY(registry.set(QStringLiteral("up"), {QStringLiteral("b")}, 0));
    QVERIFY(registry.removeSeries(QStringLiteral("up"), {QStringLiteral("a")}));
    QVERIFY(!registry.removeSeries(QStringLiteral("up"), {QStringLiteral("a")}));
    QVERIFY(!registry.removeSeries(QStringLiteral("backlog"), {}));
    QVERIFY(!registry.removeSeries(QStringLiteral("nothing"), {}));
    QCOMPARE(registry.exposition(),
        QByteArray("# HELP backlog Backlog.\n# TYPE backlog gauge\nbacklog 0\n"
                   "# HELP up Up.\n# TYPE up gauge\nup{monitor=\"b\"} 0\n"));
    QVERIFY(registry.removeSeries(QStringLiteral("up"), {QStringLiteral("b")}));
    QCOMPARE(registry.exposition(), QByteArray("# HELP backlog Backlog.\n# TYPE backlog gauge\nbacklog 0\n"));
    // A removed series starts again from nothing.
    QVERIFY(registry.set(QStringLiteral("up"), {QStringLiteral("b")}, 1));
    QCOMPARE(registry.value(QStringLiteral("up"), {QStringLiteral("b")}), 1.0);
}

void TestMetricsRegistry::removeSeriesWith_forgetsEverySeriesWithThatLabelValue()
{
    MetricsRegistry registry;
    QVERIFY(registry.addCounter(QStringLiteral("checks_total"), QStringLiteral("Checks."),
        {QStringLiteral("agent"), QStringLiteral("monitor")}));
    QVERIFY(registry.addHistogram(
        QStringLiteral("check_seconds"), QStringLiteral("Durations."), {QStringLiteral("monitor")}, {1}));
    QVERIFY(registry.addGauge(QStringLiteral("other"), QStringLiteral("No monitor label."), {QStringLiteral("x")}));
    QVERIFY(registry.increment(QStringLiteral("checks_total"), {QStringLiteral("one"), QStringLiteral("gone")}));
    QVERIFY(registry.increment(QStringLiteral("checks_total"), {QStringLiteral("two"), QStringLiteral("gone")}));
    QVERIFY(registry.increment(QStringLiteral("checks_total"), {QStringLiteral("one"), QStringLiteral("kept")}));
    QVERIFY(registry.observe(QStringLiteral("check_seconds"), {QStringLiteral("gone")}, 0.5));
    QVERIFY(registry.set(QStringLiteral("other"), {QStringLiteral("gone")}, 1));

    QCOMPARE(registry.removeSeriesWith(QStringLiteral("monitor"), QStringLiteral("gone")), 3);
    QCOMPARE(registry.exposition(),
        QByteArray("# HELP checks_total Checks.\n# TYPE checks_total counter\n"
                   "checks_total{agent=\"one\",monitor=\"kept\"} 1\n"
                   "# HELP other No monitor label.\n# TYPE other gauge\nother{x=\"gone\"} 1\n"));
    QCOMPARE(registry.removeSeriesWith(QStringLiteral("monitor"), QStringLiteral("gone")), 0);
}

void TestMetricsRegistry::declaration_refusesWhatPrometheusCannotRead_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("labels");
    QTest::addColumn<QList<double>>("buckets");
    QTest::addColumn<QString>("error");
    QTest::addRow("empty name") << "gauge" << QString() << QStringList() << QList<double>()
                                << "not a valid metric name";
    QTest::addRow("name with a dash") << "counter"
                                      << "a-b_total" << QStringList() << QList<double>() << "not a valid metric name";
    QTest::addRow("name starting with a digit")
        << "gauge"
        << "1up" << QStringList() << QList<double>() << "not a valid metric name";
    QTest::addRow("label with a dot") << "gauge"
                                      << "g" << QStringList{QStringLiteral("a.b")} << QList<double>()
                                      << "\"a.b\" is not a valid label name";
    QTest::addRow("reserved label") << "gauge"
                                    << "g" << QStringList{QStringLiteral("__name__")} << QList<double>()
                                    << "\"__name__\" is not a valid label name";
    QTest::addRow("label twice") << "gauge"
                                 << "g" << QStringList{QStringLiteral("a"), QStringLiteral("a")} << QList<double>()
                                 << "the label \"a\" is named twice";
    QTest::addRow("le on a histogram") << "histogram"
                                       << "h" << QStringList{QStringLiteral("le")} << QList<double>{1}
                                       << "cannot have a label named \"le\"";
    QTest::addRow("buckets decreasing") << "histogram"
                                        << "h" << QStringList() << QList<double>{1, 0.5} << "strictly increasing";
    QTest::addRow("buckets repeated") << "histogram"
                                      << "h" << QStringList() << QList<double>{1, 1} << "strictly increasing";
    QTest::addRow("infinite bucket") << "histogram"
                                     << "h" << QStringList()
                                     << QList<double>{1, std::numeric_limits<double>::infinity()} << "finite";
    QTest::addRow("declared twice") << "gauge"
                                    << "taken" << QStringList() << QList<double>() << "declared already";
}

void TestMetricsRegistry::declaration_refusesWhatPrometheusCannotRead()
{
    QFETCH(QString, type);
    QFETCH(QString, name);
    QFETCH(QStringList, labels);
    QFETCH(QList<double>, buckets);
    QFETCH(QString, error);
    MetricsRegistry registry;
    QVERIFY(registry.addGauge(QStringLiteral("taken"), QStringLiteral("Taken.")));
    const Result<void> added = type == QLatin1String("counter")
        ? registry.addCounter(name, QStringLiteral("Help."), labels)
        : type == QLatin1String("gauge") ? registry.addGauge(name, QStringLiteral("Help."), labels)
                                         : registry.addHistogram(name, QStringLiteral("Help."), labels, buckets);
    QVERIFY(!added);
    QVERIFY2(added.error().contains(error), qPrintable(added.error()));
    QCOMPARE(added.errorDetail().path, name);
    QCOMPARE(registry.seriesCount(name), name == QLatin1String("taken") ? 1 : 0);
}

void TestMetricsRegistry::update_thatDoesNotFit_changesNothing()
{
    MetricsRegistry registry;
    QVERIFY(registry.addCounter(QStringLiteral("c_total"), QStringLiteral("C."), {QStringLiteral("k")}));
    QVERIFY(registry.addGauge(QStringLiteral("g"), QStringLiteral("G.")));
    QVERIFY(registry.addHistogram(QStringLiteral("h"), QStringLiteral("H."), {}, {1}));
    const QByteArray before = registry.exposition();

    const auto warn
        = [](const char *pattern) { QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QLatin1String(pattern))); };
    warn("no metric .*nothing");
    QVERIFY(!registry.increment(QStringLiteral("nothing"), {}));
    warn("is a gauge not a counter");
    QVERIFY(!registry.increment(QStringLiteral("g"), {}));
    warn("is a counter not a gauge");
    QVERIFY(!registry.set(QStringLiteral("c_total"), {QStringLiteral("a")}, 1));
    warn("takes the labels");
    QVERIFY(!registry.increment(QStringLiteral("c_total"), {}));
    warn("takes the labels");
    QVERIFY(!registry.increment(QStringLiteral("c_total"), {QStringLiteral("a"), QStringLiteral("b")}));
    warn("only goes up");
    QVERIFY(!registry.increment(QStringLiteral("c_total"), {QStringLiteral("a")}, -1));
    warn("only goes up");
    QVERIFY(!registry.increment(QStringLiteral("c_total"), {QStringLiteral("a")}, qQNaN()));
    warn("only goes up");
    QVERIFY(!registry.increment(QStringLiteral("c_total"), {QStringLiteral("a")}, qInf()));
    warn("NaN observation");
    QVERIFY(!registry.observe(QStringLiteral("h"), {}, qQNaN()));
    warn("is a histogram not a gauge");
    QVERIFY(!registry.set(QStringLiteral("h"), {}, 1));

    QCOMPARE(registry.exposition(), before);
    QCOMPARE(registry.value(QStringLiteral("h"), {}), std::nullopt);
    QCOMPARE(registry.value(QStringLiteral("c_total"), {QStringLiteral("a")}), std::nullopt);
}

void TestMetricsRegistry::concurrentUpdates_whileRendering_keepEveryRenderingConsistent()
{
    MetricsRegistry registry;
    QVERIFY(registry.addCounter(QStringLiteral("ops_total"), QStringLiteral("Ops."), {QStringLiteral("worker")}));
    QVERIFY(registry.addHistogram(
        QStringLiteral("op_seconds"), QStringLiteral("Op times."), {QStringLiteral("worker")}, {0.01, 0.1, 1}));
    QVERIFY(registry.addGauge(QStringLiteral("last"), QStringLiteral("Last op."), {QStringLiteral("worker")}));

    constexpr int perWorker = 20'000;
    std::atomic<bool> go{false};
    const auto work = [&](const QString &worker) {
        while (!go.load())
            QThread::yieldCurrentThread();
        for (int i = 0; i < perWorker; ++i) {
            registry.increment(QStringLiteral("ops_total"), {worker});
            registry.observe(QStringLiteral("op_seconds"), {worker}, (i % 200) / 100.0);
            registry.set(QStringLiteral("last"), {worker}, i);
            if (i % 1000 == 999) {
                // A monitor deleted and added again while the other thread renders.
                registry.removeSeriesWith(QStringLiteral("worker"), worker + QStringLiteral("-transient"));
                registry.set(QStringLiteral("last"), {worker + QStringLiteral("-transient")}, i);
            }
        }
    };
    std::unique_ptr<QThread> first(QThread::create(work, QStringLiteral("first")));
    std::unique_ptr<QThread> second(QThread::create(work, QStringLiteral("second")));
    first->start();
    second->start();
    go = true;

    // Every rendering, taken while both update, is whole: each histogram's +Inf
    // bucket equals its count and no bucket holds more than the next one.
    static const QRegularExpression bucketLine(
        QStringLiteral("^op_seconds_bucket\\{worker=\"(\\w+)\",le=\"([^\"]+)\"\\} (\\d+)$"));
    static const QRegularExpression countLine(QStringLiteral("^op_seconds_count\\{worker=\"(\\w+)\"\\} (\\d+)$"));
    int renderings = 0;
    QString problem; // the threads are joined before the test may return
    while ((!first->isFinished() || !second->isFinished() || renderings < 10) && problem.isEmpty()) {
        const QList<QByteArray> lines = registry.exposition().split('\n');
        QHash<QString, qint64> lastBucket;
        QHash<QString, qint64> infBucket;
        for (const QByteArray &line : lines) {
            const QString text = QString::fromUtf8(line);
            if (const auto m = bucketLine.match(text); m.hasMatch()) {
                const qint64 n = m.captured(3).toLongLong();
                if (n < lastBucket.value(m.captured(1)))
                    problem = QStringLiteral("a bucket below the one before it: ") + text;
                lastBucket[m.captured(1)] = n;
                if (m.captured(2) == QLatin1String("+Inf"))
                    infBucket[m.captured(1)] = n;
            } else if (const auto c = countLine.match(text); c.hasMatch()) {
                if (c.captured(2).toLongLong() != infBucket.value(c.captured(1)))
                    problem = QStringLiteral("a count unlike its +Inf bucket: ") + text;
                lastBucket.remove(c.captured(1));
            }
        }
        ++renderings;
    }
    QVERIFY(first->wait(60'000));
    QVERIFY(second->wait(60'000));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    for (const QString &worker : {QStringLiteral("first"), QStringLiteral("second")}) {
        QCOMPARE(registry.value(QStringLiteral("ops_total"), {worker}), double(perWorker));
        QCOMPARE(registry.value(QStringLiteral("last"), {worker}), double(perWorker - 1));
        QVERIFY(
            registry.exposition().contains(QByteArray("op_seconds_count{worker=\"" + worker.toUtf8() + "\"} 20000\n")));
    }
    qInfo("%d renderings while two threads updated", renderings);
}

QTEST_GUILESS_MAIN(TestMetricsRegistry)
#include "tst_metricsregistry.moc"
