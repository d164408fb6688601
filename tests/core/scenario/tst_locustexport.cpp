// The Locust file a scenario becomes, run by Python itself: for every backoff
// algorithm its delays are the core library's (exactly for those without jitter;
// for the jittered ones within the same bounds and with the same distribution, a
// two-sample Kolmogorov-Smirnov test over 10,000 draws each); what Locust cannot
// carry is refused with the entry and feature named.

#include "core/policy/backoff.h"
#include "core/scenario/locustexport.h"
#include "core/scenario/scenarioreader.h"
#include "core/util/randomsource.h"
#include "tests/tools/requiredtool.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace RetryLab::Core;

namespace {

constexpr int samples = 10'000;

Scenario scenarioOf(const QByteArray &requests)
{
    const auto scenario = ScenarioReader::fromJson(
        R"({"format": "retrylab-scenario", "version": 1, "name": "locust", "policy": "aws-standard", "requests": )"
        + requests + "}");
    return scenario.ok() ? scenario.value() : Scenario{};
}

/// Two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical distributions.
double ksStatistic(QList<double> a, QList<double> b)
{
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    qsizetype i = 0;
    qsizetype j = 0;
    double d = 0.0;
    while (i < a.size() && j < b.size()) {
        const double x = std::min(a[i], b[j]);
        while (i < a.size() && a[i] <= x)
            ++i;
        while (j < b.size() && b[j] <= x)
            ++j;
        d = std::max(d, std::abs(double(i) / a.size() - double(j) / b.size()));
    }
    return d;
}

} // namespace

class TestLocustExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void delays_matchTheCoreLibrary_data();
    void delays_matchTheCoreLibrary();
    void file_isPythonWithTheScenarioInside();
    void fallbackOn_notCarried_saidInTheNotes();
    void unsupported_isRefusedNamingIt_data();
    void unsupported_isRefusedNamingIt();

private:
    /// Python's delays for retry indices 0..count-1, `samples` each.
    QList<QList<double>> pythonDelays(const BackoffPolicy &policy, int count, int draws);

    QString m_python;
    QTemporaryDir m_dir;
};

void TestLocustExport::initTestCase()
{
    m_python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (m_python.isEmpty())
        RETRYLAB_MISSING_TOOL("python3 is not installed: install the Debian package python3 (scripts/deps.sh does)");
    QVERIFY(m_dir.isValid());
}

QList<QList<double>> TestLocustExport::pythonDelays(const BackoffPolicy &policy, int count, int draws)
{
    const Scenario scenario = scenarioOf(R"([{"name": "a", "url": "{server}/status/503"}])");
    const auto generated = LocustExport::locustfile(scenario, policy, QStringLiteral("test-run"), 1);
    if (!generated)
        return {};
    const QString path = m_dir.filePath(QStringLiteral("delays.py"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(generated->locustfile) < 0)
        return {};
    file.close();
    QProcess python;
    python.start(m_python,
        {path, QStringLiteral("--retrylab-delays"), QString::number(count), QString::number(draws),
            QStringLiteral("42")});
    if (!python.waitForFinished(60'000) || python.exitCode() != 0) {
        qWarning().noquote() << python.readAllStandardError();
        return {};
    }
    QList<QList<double>> out;
    for (const QJsonValue &index : QJsonDocument::fromJson(python.readAllStandardOutput()).array()) {
        QList<double> values;
        for (const QJsonValue &v : index.toArray())
            values.append(v.toDouble());
        out.append(values);
    }
    return out;
}

void TestLocustExport::delays_matchTheCoreLibrary_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<int>("intervalJitter");
    for (const auto algorithm : {BackoffAlgorithm::GoogleTruncatedExponential,
             BackoffAlgorithm::IamTruncatedExponential, BackoffAlgorithm::Exponential, BackoffAlgorithm::FullJitter,
             BackoffAlgorithm::EqualJitter, BackoffAlgorithm::DecorrelatedJitter, BackoffAlgorithm::ProportionalJitter,
             BackoffAlgorithm::Constant, BackoffAlgorithm::Linear, BackoffAlgorithm::Immediate})
        QTest::addRow("%s", qPrintable(algorithmName(algorithm))) << int(algorithm) << int(IntervalJitter::None);
    QTest::addRow("constant, equal interval jitter") << int(BackoffAlgorithm::Constant) << int(IntervalJitter::Equal);
    QTest::addRow("linear, proportional interval jitter")
        << int(BackoffAlgorithm::Linear) << int(IntervalJitter::Proportional);
}

void TestLocustExport::delays_matchTheCoreLibrary()
{
    QFETCH(int, algorithm);
    QFETCH(int, intervalJitter);
    BackoffPolicy policy;
    policy.algorithm = BackoffAlgorithm(algorithm);
    policy.intervalJitter = IntervalJitter(intervalJitter);
    policy.baseDelayMs = 100;
    policy.multiplier = 2.5;
    policy.maxBackoffMs = 4000;
    policy.jitterMs = 300;
    policy.jitterFraction = 0.25;

    constexpr int indices = 6;
    const QList<QList<double>> python = pythonDelays(policy, indices, samples);
    QCOMPARE(python.size(), indices);
    RandomSource random(7);
    for (int n = 0; n < indices; ++n) {
        const Backoff::Range range = Backoff::delayRange(policy, n);
        QCOMPARE(python[n].size(), samples);
        QList<double> core;
        for (int i = 0; i < samples; ++i)
            core.append(Backoff::delayMs(policy, n, -1.0, random));
        for (double d : std::as_const(python[n]))
            QVERIFY2(d >= range.minMs - 1e-9 && d <= range.maxMs + 1e-9,
                qPrintable(
                    QStringLiteral("index %1: %2 outside [%3, %4]").arg(n).arg(d).arg(range.minMs).arg(range.maxMs)));
        if (range.minMs == range.maxMs) {
            // No jitter: the very same delay.
            QCOMPARE(python[n].constFirst(), core.constFirst());
            continue;
        }
        // The same distribution: D below its critical value at alpha = 0.001 (1.949 sqrt(2/n)).
        const double d = ksStatistic(python[n], core);
        const double critical = 1.949 * std::sqrt(2.0 / samples);
        QVERIFY2(d < critical, qPrintable(QStringLiteral("index %1: KS D = %2 >= %3").arg(n).arg(d).arg(critical)));
    }
}

void TestLocustExport::fallbackOn_notCarried_saidInTheNotes()
{
    const Scenario scenario = scenarioOf(
        R"([{"name": "orders", "url": "http://127.0.0.1:9/x", "fallbacks": ["http://127.0.0.1:9/y"],
            "fallbackOn": ["503"]}])");
    const auto generated = LocustExport::locustfile(scenario, scenario.policy, QStringLiteral("run-8"), 7);
    QVERIFY2(generated, qPrintable(generated.error()));
    const QString notes = generated->notes.join(QLatin1Char(' '));
    QVERIFY2(notes.contains(QLatin1String("requests[0] (orders): its list of the faults")), qPrintable(notes));
}

void TestLocustExport::file_isPythonWithTheScenarioInside()
{
    // Quotes and backslashes in the scenario cannot break the file.
    const Scenario scenario = scenarioOf(R"([{"name": "it's", "url": "{server}/status/503?q=a'''b", "method": "POST",
        "headers": {"X-Note": "back\\slash \"quoted\" '''"}, "body": "{\"a\": 1}", "idempotent": true,
        "count": 10, "concurrency": 3},
        {"name": "plain", "url": "http://127.0.0.1:9/x", "attemptTimeoutMs": 1500}])");
    QCOMPARE(scenario.requests.size(), 2);
    const auto generated = LocustExport::locustfile(scenario, scenario.policy, QStringLiteral("run-7"), 99);
    QVERIFY2(generated, qPrintable(generated.error()));
    QVERIFY(generated->locustfile.contains("tested with Locust 2.12.1"));
    // The AWS preset's retry quota is not carried, and the file says so.
    QVERIFY(generated->notes.join(QLatin1Char(' ')).contains(QLatin1String("retry budget")));
    QVERIFY(generated->locustfile.contains("# Not carried: the policy's retry budget"));

    const QString path = m_dir.filePath(QStringLiteral("scenario.py"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(generated->locustfile);
    file.close();
    // Read back by Python: the entries as the scenario has them, the URL of {server} a path on Locust's host.
    QProcess python;
    python.start(m_python,
        {QStringLiteral("-c"),
            QStringLiteral("import ast, json, sys; src = open(sys.argv[1]).read(); ast.parse(src); "
                           "ns = {'__name__': 'probe'}; "
                           "exec(src.split('# ---- the delays')[0], ns); "
                           "print(json.dumps([ns['META'], ns['ENTRIES'], ns['POLICY']['name']]))"),
            path});
    QVERIFY(python.waitForFinished(30'000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    const QJsonArray read = QJsonDocument::fromJson(python.readAllStandardOutput()).array();
    QCOMPARE(read.at(0).toObject().value(QStringLiteral("run")).toString(), QStringLiteral("run-7"));
    QCOMPARE(read.at(0).toObject().value(QStringLiteral("seed")).toString(), QStringLiteral("99"));
    const QJsonObject first = read.at(1).toArray().at(0).toObject();
    QCOMPARE(first.value(QStringLiteral("name")).toString(), QStringLiteral("it's"));
    QCOMPARE(first.value(QStringLiteral("url")).toString(), QStringLiteral("/status/503?q=a'''b"));
    QCOMPARE(first.value(QStringLiteral("method")).toString(), QStringLiteral("POST"));
    QCOMPARE(first.value(QStringLiteral("headers")).toObject().value(QStringLiteral("X-Note")).toString(),
        QStringLiteral("back\\slash \"quoted\" '''"));
    QCOMPARE(first.value(QStringLiteral("count")).toInt(), 10);
    QCOMPARE(first.value(QStringLiteral("concurrency")).toInt(), 3);
    const QJsonObject second = read.at(1).toArray().at(1).toObject();
    QCOMPARE(second.value(QStringLiteral("url")).toString(), QStringLiteral("http://127.0.0.1:9/x"));
    QCOMPARE(second.value(QStringLiteral("attemptTimeoutMs")).toDouble(), 1500.0);
    QCOMPARE(read.at(2).toString(), scenario.policy.name);
}

void TestLocustExport::unsupported_isRefusedNamingIt_data()
{
    QTest::addColumn<QByteArray>("requests");
    QTest::addColumn<QString>("error");
    QTest::addRow("script") << QByteArray(R"([{"name": "s", "url": "{server}/status/200", "script": ["return-503"]}])")
                            << QStringLiteral("requests[0] (s): the embedded server's scripted steps");
    QTest::addRow("transport") << QByteArray(
        R"([{"name": "t", "url": "https://127.0.0.1:9/", "transport": {"httpVersion": "http2"}}])")
                               << QStringLiteral("requests[0] (t): HTTP/2 is not carried");
    QTest::addRow("PKCS#12") << QByteArray(
        R"([{"name": "p", "url": "https://127.0.0.1:9/", "transport": {"clientCertificatePath": "/tmp/c.p12"}}])")
                             << QStringLiteral("requests[0] (p): a PKCS#12 client certificate");
}

void TestLocustExport::unsupported_isRefusedNamingIt()
{
    QFETCH(QByteArray, requests);
    QFETCH(QString, error);
    const Scenario scenario = scenarioOf(requests);
    QVERIFY(!scenario.requests.isEmpty());
    const auto generated = LocustExport::locustfile(scenario, scenario.policy, QStringLiteral("r"), 1);
    QVERIFY(!generated);
    QVERIFY2(generated.error().startsWith(error), qPrintable(generated.error()));
}

QTEST_GUILESS_MAIN(TestLocustExport)
#include "tst_locustexport.moc"
