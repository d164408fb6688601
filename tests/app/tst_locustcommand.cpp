// retrylab export-locust and import-locust with the real Locust (Debian's
// python3-locust, installed by scripts/deps.sh): retrylab serve, then Locust
// headless as a master with two workers on loopback running the generated file,
// then the workers' attempt logs read back and checked against the policy and
// against the fault server's own log.

#include "core/export/reportjson.h"
#include "core/http/retryheaders.h"
#include "core/import/locustimport.h"
#include "core/policy/presets.h"
#include "core/scenario/conformancesuite.h"
#include "core/scenario/locustexport.h"
#include "tests/app/commandtesting.h"
#include "tests/tools/requiredtool.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

using namespace RetryLab;
using CommandTesting::Outcome;

namespace {

// Exponential from 50 ms, four attempts: an endpoint that fails twice per key
// (twenty requests, three attempts each), one that always fails (six, four each),
// twelve read-modify-writes of one resource by four users at once, and four requests
// to a service that is down, answered by their second fallback.
constexpr char scenarioJson[] = R"({"format": "retrylab-scenario", "version": 1, "name": "locust run",
 "policy": {"format": "retrylab-policy", "version": 1, "name": "exp 4", "algorithm": "exponential",
            "baseDelayMs": 50, "multiplier": 2, "maxBackoffMs": 1000, "maxAttempts": 4, "attemptTimeoutMs": 5000},
 "requests": [{"name": "orders", "url": "{server}/fail/2?key={id}", "count": 20, "concurrency": 4},
              {"name": "down", "url": "{server}/status/503", "count": 6, "concurrency": 2},
              {"name": "counter", "kind": "read-modify-write", "url": "{server}/occ/locust-counter?delay_ms=5",
               "count": 12, "concurrency": 4, "increment": 2},
              {"name": "degraded", "url": "{server}/status/503?service=primary",
               "fallbacks": ["{server}/status/502?service=replica", "{server}/status/200?service=fallback"],
               "count": 4, "concurrency": 2}],
 "expectations": [{"request": "orders", "outcome": "succeeded", "attempts": 3, "finalStatus": 200},
                  {"request": "down", "outcome": "attempts-exhausted", "attempts": 4},
                  {"request": "degraded", "outcome": "succeeded", "attempts": 6}]})";

quint16 freePort()
{
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
}

} // namespace

class TestLocustCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void masterAndTwoWorkers_everyAttemptAccountedFor();
    void conformanceMatrix_cellByCell();
    void https_caFileTrusted_otherwiseRefused();
    void badInput_refusedNamingIt();

private:
    /// Starts retrylab serve on a port of its choosing; its base URL, empty when it did not start.
    static QUrl startServe(QProcess &serve, const QStringList &options = {}, QString *banner = nullptr)
    {
        serve.start(QStringLiteral(RETRYLAB_CLI_BINARY),
            QStringList{QStringLiteral("serve"), QStringLiteral("--port"), QStringLiteral("0")} + options);
        QString printed;
        if (!QTest::qWaitFor(
                [&] {
                    return (printed += QString::fromUtf8(serve.readAllStandardOutput()))
                        .contains(QLatin1String("Ctrl+C"));
                },
                30'000))
            return {};
        if (banner)
            *banner = printed;
        const auto match
            = QRegularExpression(QStringLiteral("listening on (http://127\\.0\\.0\\.1:\\d+)")).match(printed);
        return match.hasMatch() ? QUrl(match.captured(1)) : QUrl();
    }

    /// Starts Locust in the suite's folder, its attempt logs going to `logs`.
    void startLocust(QProcess &locust, const QString &logs, const QStringList &arguments)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("RETRYLAB_ATTEMPT_LOG"), logs);
        locust.setProcessEnvironment(environment);
        locust.setWorkingDirectory(m_dir.path());
        locust.setProcessChannelMode(QProcess::MergedChannels);
        locust.start(m_locust, arguments);
    }
    /// One headless Locust process: `users` users of `locustfile` against `host` for `runTime`.
    static QStringList headless(const QString &locustfile, int users, const QString &host, const QString &runTime)
    {
        return {QStringLiteral("-f"), locustfile, QStringLiteral("--headless"), QStringLiteral("--users"),
            QString::number(users), QStringLiteral("--spawn-rate"), QString::number(users), QStringLiteral("--host"),
            host, QStringLiteral("--run-time"), runTime};
    }

    QString m_locust;
    QTemporaryDir m_dir;
};

void TestLocustCommand::initTestCase()
{
    m_locust = QStandardPaths::findExecutable(QStringLiteral("locust"));
    if (m_locust.isEmpty())
        RETRYLAB_MISSING_TOOL(
            "Locust is not installed: install the Debian package python3-locust (scripts/deps.sh does)");
    QVERIFY(m_dir.isValid());
}

void TestLocustCommand::masterAndTwoWorkers_everyAttemptAccountedFor()
{
    const QString scenario = m_dir.filePath(QStringLiteral("scenario.json"));
    QVERIFY(CommandTesting::write(scenario, scenarioJson));
    const QString locustfile = m_dir.filePath(QStringLiteral("locustfile.py"));
    const Outcome exported
        = CommandTesting::run({QStringLiteral("export-locust"), scenario, QStringLiteral("-o"), locustfile});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));

    // retrylab serve, on a port of its choosing.
    QProcess serve;
    const QString host = startServe(serve).toString();
    QVERIFY(!host.isEmpty());

    const QString logs = m_dir.filePath(QStringLiteral("attempts"));
    const QString masterPort = QString::number(freePort());
    std::vector<std::unique_ptr<QProcess>> workers;
    for (int i = 0; i < 2; ++i) {
        auto worker = std::make_unique<QProcess>();
        startLocust(*worker, logs,
            {QStringLiteral("-f"), locustfile, QStringLiteral("--worker"), QStringLiteral("--master-host"),
                QStringLiteral("127.0.0.1"), QStringLiteral("--master-port"), masterPort});
        QVERIFY(worker->waitForStarted(10'000));
        workers.push_back(std::move(worker));
    }
    QProcess master;
    startLocust(master, logs,
        headless(locustfile, 12, host, QStringLiteral("10s"))
            << QStringLiteral("--master") << QStringLiteral("--master-bind-host") << QStringLiteral("127.0.0.1")
            << QStringLiteral("--master-bind-port") << masterPort << QStringLiteral("--expect-workers")
            << QStringLiteral("2"));
    // Locust exits 1 when requests failed, as these do on purpose: it must finish, not succeed.
    QTRY_VERIFY_WITH_TIMEOUT(master.state() == QProcess::NotRunning, 90'000);
    const QString masterOutput = QString::fromUtf8(master.readAll());
    for (const auto &worker : workers) {
        if (!worker->waitForFinished(20'000))
            worker->kill();
    }
    QVERIFY2(masterOutput.contains(QLatin1String("orders")), qPrintable(masterOutput.right(3000)));

    // The attempts, read back.
    const QString report = m_dir.filePath(QStringLiteral("report.json"));
    const QString har = m_dir.filePath(QStringLiteral("run.har"));
    const QString csv = m_dir.filePath(QStringLiteral("run.csv"));
    const QString junit = m_dir.filePath(QStringLiteral("run.xml"));
    const Outcome imported = CommandTesting::run(
        {QStringLiteral("import-locust"), logs, QStringLiteral("-o"), report, QStringLiteral("--har"), har,
            QStringLiteral("--csv"), csv, QStringLiteral("--scenario"), scenario, QStringLiteral("--junit"), junit});
    QVERIFY2(imported.exitCode == 0, qPrintable(imported.err + imported.out + masterOutput.right(2000)));
    QVERIFY2(imported.out.contains(QLatin1String("from 2 workers")), qPrintable(imported.out));
    // The scenario's expectations, judged on the imported run, in the report and as JUnit.
    QVERIFY2(imported.out.contains(QLatin1String("expectations: 3 passed, 0 failed")), qPrintable(imported.out));
    const QByteArray xml = CommandTesting::read(junit);
    QCOMPARE(xml.count("<testcase "), 3);
    QVERIFY2(!xml.contains("<failure"), xml.constData());
    const auto read = Core::ReportJson::readFile(report);
    QVERIFY2(read, qPrintable(read.error()));
    const Core::RunRecord &run = read->run;
    QCOMPARE(read->expectations.size(), 3);

    // Every logical request accounted for, each ended as the policy dictates.
    QCOMPARE(run.requests.size(), 20 + 6 + 12 + 4);
    QCOMPARE(run.results.size(), 20 + 6 + 12 + 4);
    int orders = 0;
    int counters = 0;
    int written = 0;
    int degraded = 0;
    qsizetype counterAttempts = 0;
    for (const Core::RequestResult &result : run.results) {
        const QString label = run.requests.value(result.requestId).label;
        if (label.startsWith(QLatin1String("counter-"))) {
            // Four writers of one resource collide: a conflict restarts the sequence, and one that
            // loses four times in a row (the policy has no jitter) runs out of attempts.
            ++counters;
            counterAttempts += result.attempts;
            QCOMPARE(run.requests.value(result.requestId).kind, Core::RequestSpec::Kind::ReadModifyWrite);
            QVERIFY2(result.outcome == Core::RequestOutcome::Succeeded
                    || result.outcome == Core::RequestOutcome::AttemptsExhausted,
                qPrintable(result.reason));
            written += result.outcome == Core::RequestOutcome::Succeeded;
            continue;
        }
        if (label.startsWith(QLatin1String("degraded-"))) {
            // Four attempts at the service, then one at each fallback: the second answers.
            ++degraded;
            QCOMPARE(result.outcome, Core::RequestOutcome::Succeeded);
            QCOMPARE(result.attempts, 6);
            QCOMPARE(result.fallback, 2);
            continue;
        }
        const bool down = label.startsWith(QLatin1String("down-"));
        orders += !down;
        QCOMPARE(result.outcome, down ? Core::RequestOutcome::AttemptsExhausted : Core::RequestOutcome::Succeeded);
        QCOMPARE(result.attempts, down ? 4 : 3);
    }
    QCOMPARE(orders, 20);
    QCOMPARE(counters, 12);
    QCOMPARE(degraded, 4);
    QVERIFY(written > 0);
    QCOMPARE(run.attempts.size(), 20 * 3 + 6 * 4 + counterAttempts + 4 * 6);
    // The same run as HAR and CSV: an entry and a row per attempt.
    QCOMPARE(QJsonDocument::fromJson(CommandTesting::read(har))
                 .object()
                 .value(QStringLiteral("log"))
                 .toObject()
                 .value(QStringLiteral("entries"))
                 .toArray()
                 .size(),
        run.attempts.size());
    QCOMPARE(CommandTesting::read(csv).count("\r\n"), run.attempts.size() + 1);
    // The delays are the policy's: 50, 100, 200 ms before the second, third and fourth attempt,
    // and the workers really waited them.
    for (const Core::AttemptRecord &a : run.attempts) {
        if (!a.step.isEmpty() || a.fallback > 0)
            continue; // a read-modify-write's write, and a fallback, go out at once
        const double planned = a.attemptIndex == 0 ? 0.0 : 50.0 * (1 << (a.attemptIndex - 1));
        QCOMPARE(a.plannedDelayMs, planned);
        QVERIFY2(a.actualDelayMs >= planned - 1.0, qPrintable(QString::number(a.actualDelayMs)));
    }

    // The fault server's own log saw exactly these attempts.
    QNetworkAccessManager manager;
    std::unique_ptr<QNetworkReply> log(
        manager.get(QNetworkRequest(QUrl(host + QStringLiteral("/_control/log?limit=1000")))));
    QTRY_VERIFY_WITH_TIMEOUT(log->isFinished(), 10'000);
    int served = 0;
    for (const QJsonValue &entry :
        QJsonDocument::fromJson(log->readAll()).object().value(QStringLiteral("entries")).toArray())
        served += entry.toObject()
                      .value(QStringLiteral("identityHeaders"))
                      .toObject()
                      .contains(QStringLiteral("x-retry-request-id"));
    QCOMPARE(served, run.attempts.size());
    // Every increment that succeeded landed, once: writes of 2.
    std::unique_ptr<QNetworkReply> counter(
        manager.get(QNetworkRequest(QUrl(host + QStringLiteral("/occ/locust-counter")))));
    QTRY_VERIFY_WITH_TIMEOUT(counter->isFinished(), 10'000);
    QCOMPARE(QJsonDocument::fromJson(counter->readAll()).object().value(QStringLiteral("value")).toInt(), 2 * written);
    serve.terminate();
    QVERIFY(serve.waitForFinished(10'000));
}

void TestLocustCommand::conformanceMatrix_cellByCell()
{
    // The conformance matrix's fault sequences, each a scripted test on retrylab serve,
    // sent by the Locust file instead of RetryLab's executor: every cell must end as
    // the matrix expects for the same (compressed) policy.
    QProcess serve;
    const QUrl host = startServe(serve);
    QVERIFY(!host.isEmpty());

    const Core::BackoffPolicy policy
        = Core::Conformance::compressed(*Core::Presets::find(QStringLiteral("google-cloud-storage")));
    const QList<Core::ConformanceCase> cases = Core::Conformance::cases(policy);
    QUrl unreachable = host;
    unreachable.setPort(freePort()); // nothing listens there
    unreachable.setPath(QStringLiteral("/status/200"));
    QNetworkAccessManager manager;
    Core::Scenario scenario;
    scenario.name = QStringLiteral("conformance");
    scenario.policy = policy;
    qsizetype played = 0;
    for (qsizetype i = 0; i < cases.size(); ++i) {
        if (!cases[i].applies())
            continue; // the matrix does not play it either
        ++played;
        QString testId;
        if (!cases[i].sequence.steps.isEmpty()) {
            QNetworkRequest create(host.resolved(QUrl(QStringLiteral("/_control/tests"))));
            create.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
            std::unique_ptr<QNetworkReply> reply(manager.post(create,
                QJsonDocument(
                    QJsonObject{{QStringLiteral("instructions"), QJsonArray::fromStringList(cases[i].sequence.steps)}})
                    .toJson()));
            QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10'000);
            testId = QJsonDocument::fromJson(reply->readAll()).object().value(QStringLiteral("id")).toString();
            QVERIFY(!testId.isEmpty());
        }
        Core::ScenarioRequest entry;
        entry.name = QStringLiteral("cell%1").arg(i);
        entry.spec = cases[i].request(host, testId, unreachable);
        entry.urlTemplate = entry.spec.url.toString();
        scenario.requests.append(entry);
    }
    const auto generated = Core::LocustExport::locustfile(scenario, policy, QStringLiteral("matrix"), 3);
    QVERIFY2(generated, qPrintable(generated.error()));
    const QString locustfile = m_dir.filePath(QStringLiteral("matrix.py"));
    QVERIFY(CommandTesting::write(locustfile, generated->locustfile));

    const QString logs = m_dir.filePath(QStringLiteral("matrix-attempts"));
    QProcess locust;
    startLocust(locust, logs, headless(locustfile, int(played), host.toString(), QStringLiteral("12s")));
    QTRY_VERIFY_WITH_TIMEOUT(locust.state() == QProcess::NotRunning, 90'000);
    const QString output = QString::fromUtf8(locust.readAll());

    const auto imported = Core::LocustImport::read({logs});
    QVERIFY2(imported, qPrintable(imported.error() + output.right(2000)));
    QCOMPARE(imported->unfinished, 0);
    QStringList misses;
    for (qsizetype i = 0; i < cases.size(); ++i) {
        if (!cases[i].applies())
            continue;
        const QString prefix = QStringLiteral("cell%1-").arg(i);
        std::optional<Core::RequestResult> result;
        for (const Core::RequestResult &r : imported->run.results) {
            if (imported->run.requests.value(r.requestId).label.startsWith(prefix))
                result = r;
        }
        if (!result) {
            misses.append(QStringLiteral("%1: no result").arg(cases[i].name()));
            continue;
        }
        QList<Core::AttemptRecord> attempts;
        for (const Core::AttemptRecord &a : imported->run.attempts) {
            if (a.requestId == result->requestId)
                attempts.append(a);
        }
        const Core::ConformanceVerdict verdict = Core::Conformance::judge(cases[i], *result, attempts, -1);
        if (!verdict.passed)
            misses.append(cases[i].name() + QStringLiteral(": ") + verdict.message);
    }
    QVERIFY2(misses.isEmpty(), qPrintable(misses.join(QStringLiteral("\n\n"))));
    QCOMPARE(imported->run.results.size(), played);
    serve.terminate();
    QVERIFY(serve.waitForFinished(10'000));
}

void TestLocustCommand::https_caFileTrusted_otherwiseRefused()
{
    // retrylab serve over HTTPS with a certificate of its own making: the request that
    // trusts its CA file gets through; the one that does not fails its handshake and,
    // as the policy says of a TLS failure, gives up at once.
    QProcess serve;
    QString banner;
    QVERIFY(!startServe(serve, {QStringLiteral("--https-port"), QStringLiteral("0")}, &banner).isEmpty());
    const auto https = QRegularExpression(QStringLiteral("HTTPS on (https://127\\.0\\.0\\.1:\\d+) \\(trust (\\S+)\\)"))
                           .match(banner);
    QVERIFY2(https.hasMatch(), qPrintable(banner));
    QNetworkAccessManager manager;
    std::unique_ptr<QNetworkReply> ca(manager.get(QNetworkRequest(QUrl(https.captured(2)))));
    QTRY_VERIFY_WITH_TIMEOUT(ca->isFinished(), 10'000);
    const QString caFile = m_dir.filePath(QStringLiteral("ca.pem"));
    QVERIFY(CommandTesting::write(caFile, ca->readAll()));

    const QString scenario = m_dir.filePath(QStringLiteral("https.json"));
    QVERIFY(CommandTesting::write(scenario,
        QStringLiteral(R"({"format": "retrylab-scenario", "version": 1, "policy": "google-cloud-storage",
            "requests": [{"name": "trusted", "url": "%1/status/200", "count": 2, "concurrency": 1,
                          "transport": {"caBundlePath": "%2"}},
                         {"name": "untrusted", "url": "%1/status/200"}]})")
            .arg(https.captured(1), caFile)
            .toUtf8()));
    const QString locustfile = m_dir.filePath(QStringLiteral("https.py"));
    const Outcome exported
        = CommandTesting::run({QStringLiteral("export-locust"), scenario, QStringLiteral("-o"), locustfile});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
    QVERIFY2(exported.err.contains(QLatin1String("trusts only its CA file")), qPrintable(exported.err));

    const QString logs = m_dir.filePath(QStringLiteral("https-attempts"));
    QProcess locust;
    startLocust(locust, logs, headless(locustfile, 2, https.captured(1), QStringLiteral("5s")));
    QTRY_VERIFY_WITH_TIMEOUT(locust.state() == QProcess::NotRunning, 60'000);
    const auto imported = Core::LocustImport::read({logs});
    QVERIFY2(imported, qPrintable(imported.error() + QString::fromUtf8(locust.readAll()).right(2000)));
    QCOMPARE(imported->run.results.size(), 3);
    int trusted = 0;
    for (const Core::RequestResult &r : imported->run.results) {
        const bool isTrusted = imported->run.requests.value(r.requestId).label.startsWith(QLatin1String("trusted-"));
        trusted += isTrusted;
        QCOMPARE(r.outcome, isTrusted ? Core::RequestOutcome::Succeeded : Core::RequestOutcome::GaveUp);
        QCOMPARE(r.attempts, 1);
        if (!isTrusted)
            QCOMPARE(r.reason.left(11), QStringLiteral("tls-failure"));
    }
    QCOMPARE(trusted, 2);
    serve.terminate();
    QVERIFY(serve.waitForFinished(10'000));
}

void TestLocustCommand::badInput_refusedNamingIt()
{
    // A scenario feature Locust cannot carry.
    const QString scripted = m_dir.filePath(QStringLiteral("scripted.json"));
    QVERIFY(CommandTesting::write(scripted,
        R"({"format": "retrylab-scenario", "version": 1, "policy": "aws-standard",
            "requests": [{"name": "s", "url": "{server}/status/200", "script": ["return-503"]}]})"));
    const Outcome refused = CommandTesting::run(
        {QStringLiteral("export-locust"), scripted, QStringLiteral("-o"), m_dir.filePath(QStringLiteral("no.py"))});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QLatin1String("requests[0] (s): the embedded server's scripted steps")),
        qPrintable(refused.err));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("no.py"))));

    // An attempt log cut short names its file and line.
    const QString folder = m_dir.filePath(QStringLiteral("cut"));
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(CommandTesting::write(folder + QStringLiteral("/w.jsonl"),
        R"({"format":"retrylab-locust-attempts","version":1,"run":"r","worker":"w","startUnixMs":1,"startMonoNs":0})"
        "\n{\"run\":\"r\",\"request\":\"x\""));
    const Outcome cut = CommandTesting::run(
        {QStringLiteral("import-locust"), folder, QStringLiteral("-o"), m_dir.filePath(QStringLiteral("cut.json"))});
    QCOMPARE(cut.exitCode, 2);
    QVERIFY2(cut.err.contains(QLatin1String("w.jsonl:2: the line is cut short")), qPrintable(cut.err));
}

QTEST_GUILESS_MAIN(TestLocustCommand)
#include "tst_locustcommand.moc"
