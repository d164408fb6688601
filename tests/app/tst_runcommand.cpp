#include "tests/app/commandtesting.h"
#include "tests/tools/harvalidator.h"

#include "core/export/csvexport.h"
#include "core/export/reportjson.h"
#include "core/faultserver/faultserver.h"
#include "tests/tools/requiredtool.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <csignal>

#include <sys/resource.h>

using namespace RetryLab::Core;
using CommandTesting::Outcome;

namespace {

// Every secret starts with PLANTED, so that one search finds any that leaked.
const QByteArray secretScenario = R"({
    "format": "retrylab-scenario", "version": 1, "name": "secrets, exported",
    "policy": {"preset": "google-cloud-storage",
               "overrides": {"baseDelayMs": 5, "maxBackoffMs": 20, "jitterMs": 5, "maxAttempts": 3}},
    "seed": 9,
    "requests": [
        {"name": "login", )"
                                  // The label's JSON escapes (a quote, a line break) are kept out of the raw
                                  // string: moc's tokenizer loses track of the class after them.
                                  "\"label\": \"batch 1, \\\"first\\\"\\nsecond line\", "
                                  R"("method": "POST",
         "url": "{server}/status/200?access_token=PLANTED-QUERY-SECRET&page=2",
         "headers": {"Authorization": "Bearer PLANTED-BEARER-SECRET", "X-Api-Key": "PLANTED-APIKEY-SECRET",
                     "Idempotency-Key": "order-1"},
         "body": {"user": "ann", "password": "PLANTED-BODY-SECRET"},
         "script": ["return-503"]},
        {"name": "plain", "url": "{server}/status/200"}
    ],
    "expectations": [
        {"name": "login api_key=PLANTED-NAME-SECRET", "request": "login", "outcome": "succeeded", "attempts": 2},
        {"request": "plain", "outcome": "succeeded", "finalStatus": 200}
    ]
})";

const QByteArray failingScenario = R"({
    "format": "retrylab-scenario", "name": "expects too much",
    "policy": {"preset": "google-cloud-storage", "overrides": {"baseDelayMs": 5, "maxBackoffMs": 20, "jitterMs": 5}},
    "requests": [{"name": "read", "url": "{server}/status/200", "script": ["return-503", "return-503"]}],
    "expectations": [
        {"request": "read", "outcome": "succeeded"},
        {"name": "read at once", "request": "read", "attempts": 1}
    ]
})";

// Nothing is expected of the request, but the run cannot finish in time.
const QByteArray stuckScenario = R"({
    "format": "retrylab-scenario", "name": "cut off", "timeoutMs": 300,
    "policy": {"preset": "google-cloud-storage", "overrides": {"attemptTimeoutMs": 60000}},
    "requests": [{"name": "stuck", "url": "{server}/fault/stall"}]
})";

struct Exports
{
    QString report;
    QString har;
    QString csv;
    QString junit;

    QStringList options() const
    {
        return {QStringLiteral("--report"), report, QStringLiteral("--har"), har, QStringLiteral("--csv"), csv,
            QStringLiteral("--junit"), junit};
    }
    QStringList files() const { return {report, har, csv, junit}; }
};

// One request to `server`'s HTTPS port with `transport`, expected to succeed.
QByteArray httpsScenario(const FaultServer &server, const QByteArray &transport)
{
    return QByteArrayLiteral("{\"format\": \"retrylab-scenario\", \"policy\": \"iam\", \"requests\": [{\"name\": "
                             "\"tls\", \"url\": \"")
        + server.httpsBaseUrl().toString().toUtf8() + "/status/200\", \"transport\": " + transport
        + "}], \"expectations\": [{\"request\": \"tls\", \"outcome\": \"succeeded\"}]}";
}

} // namespace

class TestRunCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void help_listsEveryOption();
    void builtInScenario_everyExpectationHolds_exitZero();
    void output_retriesAsTheyHappenThenSummaryAndVerdicts();
    void quiet_printsOnlyTheVerdicts();
    void failingExpectation_exitOne();
    void timeLimit_runFails_exitOne();
    void usageErrors_exitTwo_data();
    void usageErrors_exitTwo();
    void malformedScenario_exitTwoNamingTheProblem_data();
    void malformedScenario_exitTwoNamingTheProblem();
    void exports_writtenAndReadBack();
    void redaction_noSecretInAnyFormatOrOnTheTerminal();
    void noRedact_secretsAppearWithAWarning();
    void seed_sameSeedSameWaits();
    void seed_withoutOne_aFreshSeedIsDrawnPrintedAndReplays();
    void interrupt_cancelsThenReportsWhatWasRecorded();
    void interrupt_withoutExpectations_failsAndCountsTheCancelled();
    void hangUp_endsTheRunLikeCtrlC_reportWritten();
    void readerGone_runCompletesAndWritesItsReport();
    void lowDescriptorLimit_lowersConcurrencyAndEveryRequestSucceeds();
    void reportToStandardOutput_onAPipe();
    void transport_caBesideTheScenario_reachesHttps();
    void transport_insecure_refusedWithoutTheOption();
    void transport_missingCertificate_exitTwoNamingIt();

private:
    QString path(const QString &name) const { return m_dir.filePath(name); }
    QString scenarioFile(const QString &name, const QByteArray &json)
    {
        const QString file = path(name);
        return CommandTesting::write(file, json) ? file : QString();
    }
    Exports exports(const QString &prefix) const
    {
        return {path(prefix + QStringLiteral(".json")), path(prefix + QStringLiteral(".har")),
            path(prefix + QStringLiteral(".csv")), path(prefix + QStringLiteral(".xml"))};
    }

    static FaultServerOptions httpsOptions()
    {
        FaultServerOptions options;
        options.httpsPort = 0;
        return options;
    }
    QTemporaryDir m_dir;
    FaultServer m_https{httpsOptions()}; ///< HTTPS with a CA of its own, for the transport tests
};

void TestRunCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(m_https.listen(), qPrintable(m_https.errorString()));
}

void TestRunCommand::help_listsEveryOption()
{
    const Outcome o = CommandTesting::run({QStringLiteral("run"), QStringLiteral("--help")});
    QCOMPARE(o.exitCode, 0);
    for (const char *expected : {"Usage: retrylab run [options] SCENARIO.json", "--report", "--har", "--csv", "--junit",
             "--quiet", "--no-redact", "--seed", "Exit status: 0"}) {
        QVERIFY2(o.out.contains(QLatin1String(expected)), expected);
    }
}

void TestRunCommand::builtInScenario_everyExpectationHolds_exitZero()
{
    // The binary reads its own resources too.
    const Outcome o = CommandTesting::run({QStringLiteral("run"), QStringLiteral(":/scenarios/flaky-service.json")});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY(o.out.contains(QLatin1String("5 of 5 expectations hold")));
}

void TestRunCommand::output_retriesAsTheyHappenThenSummaryAndVerdicts()
{
    const Outcome o = CommandTesting::run(
        {QStringLiteral("run"), QStringLiteral(RETRYLAB_SOURCE_DIR "/resources/scenarios/flaky-service.json")});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    const QStringList lines = o.out.split(QLatin1Char('\n'));
    QVERIFY(lines.first().startsWith(QLatin1String("Scenario \"Flaky service\"")));
    QVERIFY(o.out.contains(QLatin1String("Embedded fault server on http://127.0.0.1:")));
    // Each retry: what failed, why, when and how many attempts are left.
    static const QRegularExpression retry(QStringLiteral(
        R"(^\[\s+\d+\.\d{3} s\] read, attempt 1 failed: HTTP 503 Service Unavailable \[http-503\] - HTTP 503: server error; .+; retrying in \d+ ms, 4 attempts left$)"));
    QVERIFY2(std::any_of(lines.cbegin(), lines.cend(), [](const QString &l) { return retry.match(l).hasMatch(); }),
        qPrintable(o.out));
    QVERIFY(o.out.contains(QLatin1String("read, attempt 2 failed: ")));
    QVERIFY(o.out.contains(QLatin1String("[connection-reset]")));
    QVERIFY(o.out.contains(QLatin1String("rate-limited, attempt 1 failed: HTTP 429")));
    QVERIFY(o.out.contains(QLatin1String("retrying in 1000 ms")));
    // Every final failure with its cause.
    QVERIFY(o.out.contains(QLatin1String("create-order (POST http://127.0.0.1:")));
    QVERIFY(o.out.contains(QLatin1String("gave-up after 1 attempt ")));
    QVERIFY(o.out.contains(QLatin1String("POST is not idempotent")));
    // The summary table and the verdicts.
    for (const char *expected :
        {"request", "requests", "succeeded", "outcomes", "attempts", "amplification", "p50", "p90", "p99"}) {
        QVERIFY2(o.out.contains(QLatin1String(expected)), expected);
    }
    static const QRegularExpression row(QStringLiteral(R"(^  read\s+1\s+1\s+succeeded 1\s+3\s+3\.00\s+\S+ m?s)"));
    QVERIFY2(std::any_of(lines.cbegin(), lines.cend(), [](const QString &l) { return row.match(l).hasMatch(); }),
        qPrintable(o.out));
    QVERIFY(o.out.contains(QLatin1String("  all ")));
    QVERIFY(o.out.contains(QLatin1String("Success rate 60.0 %, retry amplification 1.80: 9 attempts for 5 requests")));
    QVERIFY(o.out.contains(QLatin1String("  PASS  read (succeeded, 3 attempts, status 200)")));
    QVERIFY(o.err.isEmpty());
}

void TestRunCommand::quiet_printsOnlyTheVerdicts()
{
    const Outcome o = CommandTesting::run({QStringLiteral("run"), QStringLiteral("--quiet"),
        scenarioFile(QStringLiteral("failing-quiet.json"), failingScenario)});
    QCOMPARE(o.exitCode, 1);
    QVERIFY(!o.out.contains(QLatin1String("retrying in")));
    QVERIFY(!o.out.contains(QLatin1String("Summary")));
    QVERIFY(o.out.contains(QLatin1String("  FAIL  read at once")));
    QVERIFY(o.out.contains(QLatin1String("1 of 2 expectations holds")));
}

void TestRunCommand::failingExpectation_exitOne()
{
    const Exports files = exports(QStringLiteral("failing"));
    const Outcome o = CommandTesting::run(
        QStringList{QStringLiteral("run"), scenarioFile(QStringLiteral("failing.json"), failingScenario)}
        + files.options());
    QCOMPARE(o.exitCode, 1);
    QVERIFY(o.out.contains(QLatin1String("  PASS  read (succeeded)")));
    QVERIFY(o.out.contains(QLatin1String("  FAIL  read at once")));
    QVERIFY2(o.out.contains(QLatin1String("expected 1 attempt; but read made 3 attempts")), qPrintable(o.out));
    // The files are written all the same, and say what failed.
    QXmlStreamReader xml(CommandTesting::read(files.junit));
    int failures = 0;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("failure"))
            ++failures;
    }
    QVERIFY(!xml.hasError());
    QCOMPARE(failures, 1);
    const auto report = ReportJson::readFile(files.report);
    QVERIFY2(report.ok(), qPrintable(report.error()));
    QCOMPARE(report->expectations.size(), 2);
    QVERIFY(report->expectations[0].passed);
    QVERIFY(!report->expectations[1].passed);
}

void TestRunCommand::timeLimit_runFails_exitOne()
{
    const Outcome o = CommandTesting::run(
        {QStringLiteral("run"), scenarioFile(QStringLiteral("stuck.json"), stuckScenario)}, 20'000);
    QCOMPARE(o.exitCode, 1);
    QVERIFY2(o.err.contains(QLatin1String("time limit of 300 ms ran out")), qPrintable(o.err));
    QVERIFY2(o.out.contains(QLatin1String("FAIL  time limit")), qPrintable(o.out));
}

void TestRunCommand::usageErrors_exitTwo_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("mentions");
    const QString good = QStringLiteral(":/scenarios/flaky-service.json");
    QTest::addRow("no scenario") << QStringList{} << QStringLiteral("retrylab run: name a scenario file");
    QTest::addRow("two scenarios") << QStringList{good, good} << QStringLiteral("unexpected argument");
    QTest::addRow("unknown option") << QStringList{QStringLiteral("--frobnicate"), good}
                                    << QStringLiteral("Unknown option 'frobnicate'");
    QTest::addRow("seed not a number") << QStringList{QStringLiteral("--seed"), QStringLiteral("x1"), good}
                                       << QStringLiteral("--seed must be a whole number");
    QTest::addRow("negative seed") << QStringList{QStringLiteral("--seed"), QStringLiteral("-3"), good}
                                   << QStringLiteral("--seed must be a whole number");
    QTest::addRow("missing file") << QStringList{QStringLiteral("/nonexistent/x.json")}
                                  << QStringLiteral("cannot read /nonexistent/x.json: no such file");
    QTest::addRow("report into a missing directory")
        << QStringList{QStringLiteral("--report"), QStringLiteral("/nonexistent/dir/r.json"), good}
        << QStringLiteral(
               "--report /nonexistent/dir/r.json: cannot write there: the directory /nonexistent/dir does not exist");
    QTest::addRow("csv onto a directory") << QStringList{QStringLiteral("--csv"), QStringLiteral("/tmp"), good}
                                          << QStringLiteral("--csv /tmp: cannot write there: it is a directory");
    QTest::addRow("report without a file")
        << QStringList{good, QStringLiteral("--report")} << QStringLiteral("Missing value after '--report'");
    QTest::addRow("two options, one file") << QStringList{QStringLiteral("--har"), QStringLiteral("/tmp/same-file"),
        QStringLiteral("--csv"), QStringLiteral("/tmp/same-file"), good}
                                           << QStringLiteral("--csv names a file that another option writes too");
}

void TestRunCommand::usageErrors_exitTwo()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, mentions);
    const Outcome o = CommandTesting::run(QStringList{QStringLiteral("run")} + arguments);
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(mentions), qPrintable(o.err));
    QVERIFY(o.out.isEmpty());
}

void TestRunCommand::malformedScenario_exitTwoNamingTheProblem_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("mentions");
    const QByteArray head = R"({"format": "retrylab-scenario", "policy": "iam", "requests": [)";
    QTest::addRow("bad JSON") << QByteArray(
        "{\n  \"format\": \"retrylab-scenario\",\n  \"policy\": \"iam\"\n  \"requests\": []\n}")
                              << QStringLiteral("line 4, column 4: not valid JSON: unterminated object");
    QTest::addRow("empty file") << QByteArray() << QStringLiteral("line 1, column 1: not valid JSON");
    QTest::addRow("binary garbage") << QByteArray("\x00\xff\xfe garbage", 11) << QStringLiteral("not valid JSON");
    QTest::addRow("wrong type") << head + R"({"name": "a", "url": "{server}/", "count": "3"}]})"
                                << QStringLiteral("requests[0].count: expected a whole number, got a string");
    QTest::addRow("unknown preset") << QByteArray(R"({"format": "retrylab-scenario", "policy": "gcs", "requests": []})")
                                    << QStringLiteral("policy: unknown preset \"gcs\"");
    QTest::addRow("bad URL") << head
            + R"({"name": "a", "url": "{server}/"}, {"name": "b", "url": "{server}/"}, {"name": "c", "url": "mailto:x@y"}]})"
                             << QStringLiteral("requests[2].url: \"mailto:x@y\" is not an http or https URL");
    QTest::addRow("negative count") << head + R"({"name": "a", "url": "{server}/", "count": -5}]})"
                                    << QStringLiteral("requests[0].count: -5 is out of range");
    QTest::addRow("unknown instruction") << head
            + R"({"name": "a", "url": "{server}/", "script": ["return-503", "meltdown"]}]})"
                                         << QStringLiteral("requests[0].script[1]: unknown instruction \"meltdown\"");
    QTest::addRow("unknown field") << head + R"({"name": "a", "url": "{server}/", "retries": 3}]})"
                                   << QStringLiteral("requests[0].retries: unknown field");
    QTest::addRow("a policy file") << QByteArray(R"({"format": "retrylab-policy", "version": 1})")
                                   << QStringLiteral("format: \"retrylab-policy\" is not a scenario");
    QTest::addRow("expectation for nobody")
        << head + R"({"name": "a", "url": "{server}/"}], "expectations": [{"request": "b", "outcome": "succeeded"}]})"
        << QStringLiteral("expectations[0].request: no request is named \"b\"");
    QTest::addRow("number beyond a double")
        << head + R"({"name": "a", "url": "{server}/", "attemptTimeoutMs": 1e999}]})"
        << QStringLiteral("not valid JSON: illegal number");
    QTest::addRow("transport: misspelt key")
        << head + R"({"name": "a", "url": "{server}/", "transport": {"proxyMod": "http"}}]})"
        << QStringLiteral("requests[0].transport.proxyMod: unknown field; did you mean \"proxyMode\"?");
    QTest::addRow("transport: unknown TLS floor")
        << head + R"({"name": "a", "url": "{server}/", "transport": {"tlsFloor": "ssl3"}}]})"
        << QStringLiteral("requests[0].transport.tlsFloor: ");
    QTest::addRow("transport: proxy without a port")
        << head + R"({"name": "a", "url": "{server}/", "transport": {"proxyMode": "http", "proxyHost": "h"}}]})"
        << QStringLiteral("requests[0].transport: ");
    QTest::addRow("huge number") << head + R"({"name": "a", "url": "{server}/", "attemptTimeoutMs": 1e300}]})"
                                 << QStringLiteral("requests[0].attemptTimeoutMs: 1e+300 is out of range");
}

void TestRunCommand::malformedScenario_exitTwoNamingTheProblem()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, mentions);
    const QString file
        = scenarioFile(QStringLiteral("malformed-%1.json").arg(QString::fromLatin1(QTest::currentDataTag())), json);
    QVERIFY(!file.isEmpty());
    const Outcome o = CommandTesting::run({QStringLiteral("run"), file});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.startsWith(QStringLiteral("retrylab run: %1: ").arg(file)), qPrintable(o.err));
    QVERIFY2(o.err.contains(mentions), qPrintable(o.err));
    QCOMPARE(o.err.count(QLatin1Char('\n')), 1);
    QVERIFY(o.out.isEmpty());
}

void TestRunCommand::exports_writtenAndReadBack()
{
    const Exports files = exports(QStringLiteral("exports"));
    const Outcome o = CommandTesting::run(
        QStringList{QStringLiteral("run"), scenarioFile(QStringLiteral("exports.json"), secretScenario)}
        + files.options());
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    for (const QString &file : files.files())
        QVERIFY2(o.out.contains(QStringLiteral(" to %1 (").arg(file)), qPrintable(o.out));

    // JSON report: read back by RetryLab itself.
    const auto report = ReportJson::readFile(files.report);
    QVERIFY2(report.ok(), qPrintable(report.error()));
    QCOMPARE(report->run.requests.size(), 2);
    QCOMPARE(report->run.attempts.size(), 3);
    QCOMPARE(report->run.results.size(), 2);
    QCOMPARE(report->run.policy.name, QStringLiteral("Google Cloud Storage (modified)"));
    QCOMPARE(report->expectations.size(), 2);
    QVERIFY(report->expectations[0].passed && report->expectations[1].passed);
    QVERIFY(report->redacted);

    // HAR: one entry per attempt, valid against the HAR 1.2 schema.
    const QJsonObject har = QJsonDocument::fromJson(CommandTesting::read(files.har)).object();
    const QJsonArray entries = har.value(QStringLiteral("log")).toObject().value(QStringLiteral("entries")).toArray();
    QCOMPARE(entries.size(), 3);
    QVERIFY(entries.first().toObject().contains(QStringLiteral("_attemptIndex")));
    const HarValidator::Run validation = HarValidator::validate({files.har});
    if (validation.skipped)
        RETRYLAB_MISSING_TOOL("node is not installed, so the HAR schema cannot be checked: install the Debian package "
                              "nodejs (scripts/deps.sh does)");
    QVERIFY2(validation.exitCode == 0, qPrintable(validation.output));

    // JUnit: well-formed XML, one test case per expectation.
    QXmlStreamReader xml(CommandTesting::read(files.junit));
    QStringList testCases;
    QString suiteTests;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("testsuite"))
            suiteTests = xml.attributes().value(QLatin1String("tests")).toString();
        if (xml.name() == QLatin1String("testcase"))
            testCases.append(xml.attributes().value(QLatin1String("name")).toString());
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(suiteTests, QStringLiteral("2"));
    QCOMPARE(testCases.size(), 2);
    QCOMPARE(testCases[1], QStringLiteral("plain (succeeded, status 200)"));

    // CSV: RFC 4180 with the label's comma, quotes and line break intact.
    const QList<QStringList> rows = CommandTesting::parseCsv(CommandTesting::read(files.csv));
    QCOMPARE(rows.size(), 4);
    QCOMPARE(rows.first(), CsvExport::columns());
    const qsizetype label = CsvExport::columns().indexOf(QStringLiteral("label"));
    const qsizetype method = CsvExport::columns().indexOf(QStringLiteral("method"));
    int loginRows = 0;
    for (qsizetype i = 1; i < rows.size(); ++i) {
        QCOMPARE(rows[i].size(), CsvExport::columns().size());
        if (rows[i][method] == QLatin1String("POST")) {
            ++loginRows;
            QCOMPARE(rows[i][label], QStringLiteral("batch 1, \"first\"\nsecond line"));
        }
    }
    QCOMPARE(loginRows, 2);
}

void TestRunCommand::redaction_noSecretInAnyFormatOrOnTheTerminal()
{
    const Exports files = exports(QStringLiteral("redacted"));
    const Outcome o = CommandTesting::run(
        QStringList{QStringLiteral("run"), scenarioFile(QStringLiteral("redacted.json"), secretScenario)}
        + files.options());
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    // The secrets were sent (the terminal shows where they were), and nothing shows them.
    QVERIFY2(o.out.contains(QLatin1String("access_token=REDACTED&page=2")), qPrintable(o.out));
    QVERIFY(o.out.contains(QLatin1String("login api_key=REDACTED")));
    QVERIFY2(!o.out.contains(QLatin1String("PLANTED")), qPrintable(o.out));
    QVERIFY2(!o.err.contains(QLatin1String("PLANTED")), qPrintable(o.err));
    for (const QString &file : files.files()) {
        const QByteArray content = CommandTesting::read(file);
        QVERIFY2(!content.isEmpty(), qPrintable(file));
        QVERIFY2(!content.contains("PLANTED"), qPrintable(file + QLatin1Char('\n') + QString::fromUtf8(content)));
        QVERIFY2(content.contains("REDACTED"), qPrintable(file));
    }
    // The non-secret parts of the same requests are kept.
    const QByteArray har = CommandTesting::read(files.har);
    QVERIFY(har.contains("order-1")); // Idempotency-Key is not a credential
    QVERIFY(har.contains("Bearer REDACTED"));
}

void TestRunCommand::noRedact_secretsAppearWithAWarning()
{
    const Exports files = exports(QStringLiteral("unredacted"));
    const Outcome o = CommandTesting::run(QStringList{QStringLiteral("run"), QStringLiteral("--no-redact"),
                                              scenarioFile(QStringLiteral("unredacted.json"), secretScenario)}
        + files.options());
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY2(o.err.contains(QLatin1String("warning: --no-redact")), qPrintable(o.err));
    QVERIFY(o.out.contains(QLatin1String("access_token=PLANTED-QUERY-SECRET")));
    QVERIFY(o.out.contains(QLatin1String("api_key=PLANTED-NAME-SECRET")));

    const QByteArray report = CommandTesting::read(files.report);
    for (const char *secret : {"PLANTED-QUERY-SECRET", "PLANTED-BEARER-SECRET", "PLANTED-APIKEY-SECRET"}) {
        QVERIFY2(report.contains(secret), secret);
        QVERIFY2(CommandTesting::read(files.har).contains(secret), secret);
        QVERIFY2(CommandTesting::read(files.csv).contains(secret), secret);
    }
    QVERIFY(CommandTesting::read(files.junit).contains("PLANTED-NAME-SECRET"));
    const auto parsed = ReportJson::readFile(files.report);
    QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
    QVERIFY(!parsed->redacted);
    QVERIFY(report.contains("without redaction"));
}

void TestRunCommand::seed_sameSeedSameWaits()
{
    const QString file = scenarioFile(QStringLiteral("seeded.json"), R"({
        "format": "retrylab-scenario", "policy": {"preset": "google-cloud-storage",
            "overrides": {"baseDelayMs": 5, "maxBackoffMs": 100, "jitterMs": 50}},
        "requests": [{"name": "r", "url": "{server}/status/200", "script": ["return-503*4"]}]})");
    const auto waits = [&file](const QString &seed) {
        const Outcome o = CommandTesting::run({QStringLiteral("run"), QStringLiteral("--seed"), seed, file});
        static const QRegularExpression wait(QStringLiteral("retrying in (\\d+) ms"));
        QStringList found;
        for (auto it = wait.globalMatch(o.out); it.hasNext();)
            found.append(it.next().captured(1));
        return found;
    };
    const QStringList first = waits(QStringLiteral("1234"));
    QCOMPARE(first.size(), 4);
    QCOMPARE(waits(QStringLiteral("1234")), first);
    QVERIFY(waits(QStringLiteral("98765")) != first);
}

void TestRunCommand::seed_withoutOne_aFreshSeedIsDrawnPrintedAndReplays()
{
    // The scenario names no seed: each run draws another, prints it and reports it.
    const QString file = scenarioFile(QStringLiteral("unseeded.json"), R"({
        "format": "retrylab-scenario", "policy": {"preset": "google-cloud-storage",
            "overrides": {"baseDelayMs": 5, "maxBackoffMs": 100, "jitterMs": 50}},
        "requests": [{"name": "r", "url": "{server}/status/200", "script": ["return-503*4"]}]})");
    struct Run
    {
        QString seed;
        QStringList waits;
        std::optional<quint64> reported;
    };
    const auto run = [this, &file](const QStringList &extra) {
        const QString report = path(QStringLiteral("seeded-report.json"));
        QFile::remove(report);
        const Outcome o
            = CommandTesting::run(QStringList{QStringLiteral("run"), file, QStringLiteral("--report"), report} + extra);
        Run r;
        static const QRegularExpression drawn(QStringLiteral("seed (\\d+) \\(drawn; --seed \\1 repeats it\\)"));
        static const QRegularExpression given(QStringLiteral("Policy \"[^\"]+\" \\([^)]*\\), seed (\\d+),"));
        const auto m = (extra.isEmpty() ? drawn : given).match(o.out);
        r.seed = m.captured(1);
        static const QRegularExpression wait(QStringLiteral("retrying in (\\d+) ms"));
        for (auto it = wait.globalMatch(o.out); it.hasNext();)
            r.waits.append(it.next().captured(1));
        if (const auto read = ReportJson::readFile(report))
            r.reported = read->run.seed;
        return r;
    };
    const Run a = run({});
    const Run b = run({});
    QVERIFY2(!a.seed.isEmpty() && !b.seed.isEmpty(), "the drawn seed is printed");
    QVERIFY(a.seed != b.seed);
    QCOMPARE(a.reported, std::optional<quint64>(a.seed.toULongLong()));
    QCOMPARE(a.waits.size(), 4);
    QVERIFY(a.waits != b.waits);
    // --seed with the printed seed replays the waits exactly.
    const Run replay = run({QStringLiteral("--seed"), a.seed});
    QCOMPARE(replay.seed, a.seed);
    QCOMPARE(replay.waits, a.waits);
    QCOMPARE(replay.reported, a.reported);
}

namespace {

struct Interrupted
{
    bool finished = false;
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Runs retrylab, and sends `signal` (SIGTERM: as Ctrl+C) once the request named "ok" has finished.
Interrupted interruptAfterOk(const QStringList &arguments, int signal = SIGTERM)
{
    Interrupted r;
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY), arguments);
    if (!QTest::qWaitFor([&] { return (r.out += process.readAllStandardOutput()).contains("ok (GET "); }, 10'000))
        return r;
    ::kill(pid_t(process.processId()), signal);
    r.finished = process.waitForFinished(10'000) && process.exitStatus() == QProcess::NormalExit;
    r.exitCode = process.exitCode();
    r.out += process.readAllStandardOutput();
    r.err = process.readAllStandardError();
    return r;
}

} // namespace

void TestRunCommand::interrupt_cancelsThenReportsWhatWasRecorded()
{
    // "stuck" would wait for IAM's 300 s deadline; SIGTERM (as Ctrl+C) stops it.
    const QString file = scenarioFile(QStringLiteral("stalled.json"), R"({
        "format": "retrylab-scenario", "policy": "iam",
        "requests": [{"name": "ok", "url": "{server}/status/200"},
                     {"name": "stuck", "url": "{server}/fault/stall", "attemptTimeoutMs": 0}],
        "expectations": [{"request": "stuck", "outcome": "succeeded"}]})");
    const QString report = path(QStringLiteral("interrupted.json"));
    const Interrupted run = interruptAfterOk({QStringLiteral("run"), file, QStringLiteral("--report"), report});
    QVERIFY(run.finished);
    const QByteArray &out = run.out;
    const QByteArray &err = run.err;
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(err.contains("retrylab run: interrupted"), err.constData());
    QVERIFY2(out.contains("stuck (GET ") && out.contains(" cancelled after 1 attempt "), out.constData());
    QVERIFY(out.contains("Summary"));
    QVERIFY(out.contains("  FAIL  stuck (succeeded)"));
    const auto written = ReportJson::readFile(report);
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QCOMPARE(written->run.results.size(), 2);
}

// The terminal closing (SIGHUP, as when an ssh session drops) ends a run as Ctrl+C does.
void TestRunCommand::hangUp_endsTheRunLikeCtrlC_reportWritten()
{
    const QString file = scenarioFile(QStringLiteral("hung-up.json"), R"({
        "format": "retrylab-scenario", "policy": "iam",
        "requests": [{"name": "ok", "url": "{server}/status/200"},
                     {"name": "stuck", "url": "{server}/fault/stall", "attemptTimeoutMs": 0}]})");
    const QString report = path(QStringLiteral("hung-up-report.json"));
    const Interrupted run = interruptAfterOk({QStringLiteral("run"), file, QStringLiteral("--report"), report}, SIGHUP);
    QVERIFY2(run.finished, "SIGHUP killed the run instead of ending it");
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("retrylab run: interrupted"), run.err.constData());
    const auto written = ReportJson::readFile(report);
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QCOMPARE(written->run.results.size(), 2);
}

// `retrylab run ... | head -1`: the reader goes away; printing stops, the run and its report complete.
void TestRunCommand::readerGone_runCompletesAndWritesItsReport()
{
    const QString file = scenarioFile(QStringLiteral("piped.json"), R"({
        "format": "retrylab-scenario", "policy": "aws-standard",
        "requests": [{"name": "ok", "url": "{server}/status/200"},
                     {"name": "later", "url": "{server}/delay/300", "count": 3}]})");
    const QString report = path(QStringLiteral("piped-report.json"));
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY), {QStringLiteral("run"), file, QStringLiteral("--report"), report});
    QByteArray out;
    QVERIFY(QTest::qWaitFor([&] { return (out += process.readAllStandardOutput()).contains("ok (GET "); }, 10'000));
    process.closeReadChannel(QProcess::StandardOutput); // as head does after its first line
    QVERIFY(process.waitForFinished(20'000));
    QVERIFY2(process.exitStatus() == QProcess::NormalExit, "SIGPIPE killed the run");
    QCOMPARE(process.exitCode(), 0);
    const auto written = ReportJson::readFile(report);
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QCOMPARE(written->run.results.size(), 4);
}

void TestRunCommand::interrupt_withoutExpectations_failsAndCountsTheCancelled()
{
    // No expectation to miss: the interruption itself fails the run, and the rate counts the cancelled request
    // and the ones it never sent (one "ok", one "stuck", three "later" that wait behind it).
    const QString file = scenarioFile(QStringLiteral("interrupted-plain.json"), R"({
        "format": "retrylab-scenario", "policy": "iam", "concurrency": 2,
        "requests": [{"name": "ok", "url": "{server}/status/200"},
                     {"name": "stuck", "url": "{server}/fault/stall", "attemptTimeoutMs": 0},
                     {"name": "later", "url": "{server}/fault/stall", "attemptTimeoutMs": 0, "count": 3}]})");
    const Interrupted run = interruptAfterOk({QStringLiteral("run"), file});
    QVERIFY(run.finished);
    const QByteArray &out = run.out;
    const QByteArray &err = run.err;
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(err.contains("interrupted; the run fails"), err.constData());
    QVERIFY2(!out.contains("Success rate 100.0 %"), out.constData());
    static const QRegularExpression rate(QStringLiteral(R"(Success rate 20\.0 %.*, 4 requests cancelled\))"));
    QVERIFY2(rate.match(QString::fromUtf8(out)).hasMatch(), out.constData());
}

void TestRunCommand::lowDescriptorLimit_lowersConcurrencyAndEveryRequestSucceeds()
{
    // 1,000 in flight under a hard limit of 256 descriptors: fewer run at once, with a warning naming the numbers,
    // and no request fails for the tool's own lack of descriptors.
    const QString file = scenarioFile(QStringLiteral("wide.json"), R"({
        "format": "retrylab-scenario", "policy": "aws-standard", "concurrency": 1000,
        "requests": [{"name": "many", "url": "{server}/status/200", "count": 1000, "concurrency": 1000}],
        "expectations": [{"request": "many", "outcome": "succeeded"}]})");
    QProcess process;
    process.setChildProcessModifier([] {
        rlimit limit{256, 256};
        ::setrlimit(RLIMIT_NOFILE, &limit);
    });
    process.start(QStringLiteral(RETRYLAB_BINARY), {QStringLiteral("run"), QStringLiteral("--quiet"), file});
    QVERIFY(process.waitForFinished(120'000));
    const QByteArray err = process.readAllStandardError();
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 0, QByteArray(err + process.readAllStandardOutput()).constData());
    QVERIFY2(err.contains("warning: 1000 attempts in flight need about 3064 file descriptors, but the limit is 256"),
        err.constData());
    QVERIFY2(err.contains("running "), err.constData());
}

void TestRunCommand::reportToStandardOutput_onAPipe()
{
    // /dev/stdout is the pipe to this test: written in place, not replaced by a renamed file.
    const QString file = scenarioFile(QStringLiteral("to-stdout.json"), R"({
        "format": "retrylab-scenario", "policy": "aws-standard",
        "requests": [{"name": "one", "url": "{server}/status/200"}]})");
    QProcess process;
    process.start(QStringLiteral(RETRYLAB_BINARY),
        {QStringLiteral("run"), QStringLiteral("--quiet"), QStringLiteral("--report"), QStringLiteral("/dev/stdout"),
            file});
    QVERIFY(process.waitForFinished(30'000));
    const QByteArray out = process.readAllStandardOutput();
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    const auto report = ReportJson::fromJson(out.mid(out.indexOf('{')));
    QVERIFY2(report.ok(), qPrintable(report.error() + QLatin1Char('\n') + QString::fromUtf8(out.left(300))));
    QCOMPARE(report->run.results.size(), 1);
}

void TestRunCommand::transport_caBesideTheScenario_reachesHttps()
{
    // "ca.pem" is found beside the scenario, whatever the working directory.
    QDir(m_dir.path()).mkpath(QStringLiteral("tls"));
    QVERIFY(CommandTesting::write(path(QStringLiteral("tls/ca.pem")), m_https.trustAnchorsPem()));
    const QString file = scenarioFile(QStringLiteral("tls/https.json"),
        httpsScenario(m_https, R"({"caBundlePath": "ca.pem", "tlsFloor": "tls1.2"})"));
    const Exports files = exports(QStringLiteral("https"));
    const Outcome o = CommandTesting::run({QStringLiteral("run"), QStringLiteral("--report"), files.report, file});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    const QJsonObject report = QJsonDocument::fromJson(CommandTesting::read(files.report)).object();
    const QJsonObject attempt = report.value(QStringLiteral("attempts"))[0].toObject();
    QVERIFY(attempt.value(QStringLiteral("tls"))[QStringLiteral("protocol")].toString().startsWith(
        QLatin1String("TLSv1.")));
    const QJsonObject transport = report.value(QStringLiteral("requests"))[0][QStringLiteral("transport")].toObject();
    QCOMPARE(transport.value(QStringLiteral("caBundlePath")).toString(), path(QStringLiteral("tls/ca.pem")));
    QCOMPARE(transport.value(QStringLiteral("tlsFloor")).toString(), QStringLiteral("tls1.2"));

    // Without the CA the same request fails its expectation.
    const QString untrusted = scenarioFile(QStringLiteral("tls/untrusted.json"), httpsScenario(m_https, "{}"));
    const Outcome failed = CommandTesting::run({QStringLiteral("run"), untrusted});
    QVERIFY2(failed.exitCode == 1, qPrintable(failed.out + failed.err));
}

void TestRunCommand::transport_insecure_refusedWithoutTheOption()
{
    const QString file
        = scenarioFile(QStringLiteral("insecure.json"), httpsScenario(m_https, R"({"insecureHosts": ["127.0.0.1"]})"));
    Outcome o = CommandTesting::run({QStringLiteral("run"), file});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(QLatin1String("the scenario ignores certificate errors for \"tls\" (127.0.0.1); give "
                                          "--insecure to allow that")),
        qPrintable(o.err));
    QVERIFY(o.out.isEmpty());

    const Exports files = exports(QStringLiteral("insecure"));
    o = CommandTesting::run({QStringLiteral("run"), QStringLiteral("--insecure"), QStringLiteral("--report"),
        files.report, QStringLiteral("--junit"), files.junit, file});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY2(o.err.contains(QLatin1String("warning: --insecure: certificate errors are ignored for \"tls\"")),
        qPrintable(o.err));
    QVERIFY(CommandTesting::read(files.report).contains("Certificate errors were ignored for 1 attempt"));
    QVERIFY(CommandTesting::read(files.junit).contains("Certificate errors were ignored for 1 attempt"));
}

void TestRunCommand::transport_missingCertificate_exitTwoNamingIt()
{
    const QString file = scenarioFile(QStringLiteral("missing-cert.json"),
        httpsScenario(m_https, R"({"clientCertificatePath": "nobody.pem", "clientKeyPath": "nobody.key"})"));
    const Outcome o = CommandTesting::run({QStringLiteral("run"), file});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(QLatin1String("request \"tls\": ")), qPrintable(o.err));
    QVERIFY2(o.err.contains(path(QStringLiteral("nobody.pem"))), qPrintable(o.err));
    QVERIFY(o.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestRunCommand)
#include "tst_runcommand.moc"
