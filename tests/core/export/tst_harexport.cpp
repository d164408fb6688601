#include "core/export/harexport.h"

#include "tests/core/export/exportsamples.h"
#include "tests/tools/harvalidator.h"
#include "tests/tools/requiredtool.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

namespace {

QJsonObject logOf(const RunRecord &run, const ExportOptions &options = {})
{
    return HarExport::toJsonObject(run, options).value(QStringLiteral("log")).toObject();
}

QJsonObject entry(const QJsonObject &log, int index)
{
    return log.value(QStringLiteral("entries")).toArray().at(index).toObject();
}

QJsonObject named(const QJsonArray &items, const QString &name)
{
    for (const QJsonValue &item : items) {
        if (item.toObject().value(QStringLiteral("name")).toString() == name)
            return item.toObject();
    }
    return {};
}

QString writeHar(const QTemporaryDir &dir, const QString &name, const QByteArray &json)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(json);
    return path;
}

} // namespace

class TestHarExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void schema_harValidatorAcceptsEveryExport();
    void schema_harValidatorRejectsABrokenHar();
    void log_creatorPagesAndEntries();
    void entry_responseWithEveryField();
    void entry_networkErrorIsStillValid();
    void entry_timeoutAndReusedConnection();
    void entry_binaryPostToAnIpAddress();
    void entry_readModifyWriteSteps();
    void entry_hugeValuesAndDeadline();
    void entry_redirectHopThenTheLastExchange();
    void streamed_equalsTheWholeDocument();
    void entry_protocolAndTls_ignoredErrorsSaid();
    void timings_data();
    void timings();
    void timings_measuredPhases_data();
    void timings_measuredPhases();
    void redactedByDefault_noSecretAnywhere();
    void unredacted_containsSecretsAndWarns();
};

void TestHarExport::schema_harValidatorAcceptsEveryExport()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    RunRecord onlyFailures = ExportSamples::sampleRun();
    onlyFailures.attempts = {onlyFailures.attempts.at(6), onlyFailures.attempts.at(7)};
    RunRecord noClock = ExportSamples::sampleRun();
    noClock.startedAt = QDateTime();
    for (AttemptRecord &a : noClock.attempts)
        a.startWall = QDateTime();

    QStringList files{
        writeHar(dir, QStringLiteral("redacted.har"), HarExport::toJson(ExportSamples::sampleRun())),
        writeHar(
            dir, QStringLiteral("unredacted.har"), HarExport::toJson(ExportSamples::sampleRun(), ExportOptions{false})),
        writeHar(dir, QStringLiteral("empty.har"), HarExport::toJson(RunRecord{})),
        writeHar(dir, QStringLiteral("failures.har"), HarExport::toJson(onlyFailures)),
        writeHar(dir, QStringLiteral("no-clock.har"), HarExport::toJson(noClock)),
        writeHar(dir, QStringLiteral("transport.har"), HarExport::toJson(ExportSamples::transportRun())),
    };
    const QString written = dir.filePath(QStringLiteral("written.har"));
    const auto result = HarExport::writeFile(written, ExportSamples::sampleRun());
    QVERIFY2(result.ok(), qPrintable(result.error()));
    files.append(written);
    QVERIFY(!files.contains(QString()));

    const HarValidator::Run run = HarValidator::validate(files);
    if (run.skipped)
        RETRYLAB_MISSING_TOOL("node is not installed, so the HAR schema cannot be checked: install the Debian package "
                              "nodejs (scripts/deps.sh does)");
    if (run.exitCode == 3)
        QFAIL(qPrintable(QStringLiteral("har-validator is not installed in " RETRYLAB_NODE_TOOLS_DIR
                                        " (the node_tools_install test installs it): ")
            + run.output));
    QVERIFY2(run.exitCode == 0, qPrintable(run.output));
    QCOMPARE(run.output.count(QLatin1String("valid HAR")), files.size());
}

void TestHarExport::entry_protocolAndTls_ignoredErrorsSaid()
{
    const QJsonObject plain
        = HarExport::toJsonObject(ExportSamples::sampleRun()).value(QStringLiteral("log")).toObject();
    QCOMPARE(plain.value(QStringLiteral("_certificateErrorsIgnored")).toInt(-1), 0);
    QVERIFY(!plain.contains(QStringLiteral("comment")));

    const RunRecord run = ExportSamples::transportRun();
    const QJsonObject log = HarExport::toJsonObject(run).value(QStringLiteral("log")).toObject();
    QCOMPARE(log.value(QStringLiteral("_certificateErrorsIgnored")).toInt(), 1);
    QVERIFY2(log.value(QStringLiteral("comment")).toString().contains(QLatin1String("Certificate errors were ignored")),
        qPrintable(log.value(QStringLiteral("comment")).toString()));
    // Unredacted, both warnings.
    const QString both = HarExport::toJsonObject(run, ExportOptions{false})
                             .value(QStringLiteral("log"))
                             .toObject()
                             .value(QStringLiteral("comment"))
                             .toString();
    QVERIFY2(both.contains(QLatin1String("contains credentials")) && both.contains(QLatin1String("not verified")),
        qPrintable(both));

    QJsonObject first;
    QJsonObject failedHandshake;
    for (const QJsonValue &value : log.value(QStringLiteral("entries")).toArray()) {
        const QJsonObject entry = value.toObject();
        if (entry.value(QStringLiteral("_requestId")).toInt() == 1
            && entry.value(QStringLiteral("_attemptIndex")).toInt() == 0)
            first = entry;
        if (entry.value(QStringLiteral("_requestId")).toInt() == 1
            && entry.value(QStringLiteral("_attemptIndex")).toInt() == 1)
            failedHandshake = entry;
    }
    QCOMPARE(first.value(QStringLiteral("request")).toObject().value(QStringLiteral("httpVersion")).toString(),
        QStringLiteral("HTTP/2"));
    QCOMPARE(first.value(QStringLiteral("response")).toObject().value(QStringLiteral("httpVersion")).toString(),
        QStringLiteral("HTTP/2"));
    const QJsonObject tls = first.value(QStringLiteral("_tls")).toObject();
    QCOMPARE(tls.value(QStringLiteral("protocol")).toString(), QStringLiteral("TLSv1.3"));
    QCOMPARE(tls.value(QStringLiteral("cipher")).toString(), QStringLiteral("TLS_AES_256_GCM_SHA384"));
    QCOMPARE(tls.value(QStringLiteral("peerIssuer")).toString(), QStringLiteral("CN=Example CA"));
    QCOMPARE(tls.value(QStringLiteral("errors")).toArray().size(), 1);
    QVERIFY(tls.value(QStringLiteral("errorsIgnored")).toBool());
    QVERIFY(!failedHandshake.value(QStringLiteral("_tls")).toObject().value(QStringLiteral("errorsIgnored")).toBool());
    QCOMPARE(
        failedHandshake.value(QStringLiteral("request")).toObject().value(QStringLiteral("httpVersion")).toString(),
        QStringLiteral("HTTP/1.1"));

    const QByteArray unredacted = HarExport::toJson(run, ExportOptions{false});
    for (const QString &secret : ExportSamples::transportSecrets())
        QVERIFY2(!unredacted.contains(secret.toUtf8()), qPrintable(secret));
}

void TestHarExport::schema_harValidatorRejectsABrokenHar()
{
    QTemporaryDir dir;
    QJsonObject har = HarExport::toJsonObject(ExportSamples::sampleRun());
    QJsonObject log = har.value(QStringLiteral("log")).toObject();
    QJsonArray entries = log.value(QStringLiteral("entries")).toArray();
    QJsonObject first = entries.at(0).toObject();
    first.remove(QStringLiteral("timings"));
    first.insert(QStringLiteral("startedDateTime"), QStringLiteral("yesterday"));
    entries.replace(0, first);
    log.insert(QStringLiteral("entries"), entries);
    har.insert(QStringLiteral("log"), log);

    const HarValidator::Run run
        = HarValidator::validate({writeHar(dir, QStringLiteral("broken.har"), QJsonDocument(har).toJson())});
    if (run.skipped)
        RETRYLAB_MISSING_TOOL("node is not installed, so the HAR schema cannot be checked: install the Debian package "
                              "nodejs (scripts/deps.sh does)");
    QVERIFY2(run.exitCode == 1, qPrintable(run.output));
    QVERIFY2(run.output.contains(QLatin1String("invalid HAR")), qPrintable(run.output));
}

void TestHarExport::log_creatorPagesAndEntries()
{
    const QJsonObject log = logOf(ExportSamples::sampleRun());
    QCOMPARE(log.value(QStringLiteral("version")).toString(), QStringLiteral("1.2"));
    QCOMPARE(log.value(QStringLiteral("creator")).toObject().value(QStringLiteral("name")).toString(),
        QStringLiteral("RetryLab"));
    QCOMPARE(log.value(QStringLiteral("_policy")).toObject().value(QStringLiteral("name")).toString(),
        ExportSamples::sampleRun().policy.name);

    const QJsonArray pages = log.value(QStringLiteral("pages")).toArray();
    QCOMPARE(pages.size(), 4); // request 5 never made an attempt
    QCOMPARE(pages.at(0).toObject().value(QStringLiteral("id")).toString(), QStringLiteral("request-1"));
    QVERIFY(pages.at(0)
                .toObject()
                .value(QStringLiteral("title"))
                .toString()
                .endsWith(QStringLiteral("(batch 1/3 – Übersicht)")));

    const QJsonArray entries = log.value(QStringLiteral("entries")).toArray();
    QCOMPARE(entries.size(), 11); // 10 attempts, one of them redirected once
    QString previous;
    for (const QJsonValue &value : entries) {
        const QJsonObject e = value.toObject();
        const QString started = e.value(QStringLiteral("startedDateTime")).toString();
        QVERIFY2(previous <= started, "entries are sorted by start");
        previous = started;
        QCOMPARE(e.value(QStringLiteral("pageref")).toString(),
            QStringLiteral("request-%1").arg(e.value(QStringLiteral("_requestId")).toInt()));
    }
}

void TestHarExport::entry_responseWithEveryField()
{
    const QJsonObject e = entry(logOf(ExportSamples::sampleRun()), 0);
    QCOMPARE(e.value(QStringLiteral("startedDateTime")).toString(), QStringLiteral("2025-03-04T05:06:07.089Z"));
    QCOMPARE(e.value(QStringLiteral("time")).toDouble(), 120.5);
    QCOMPARE(e.value(QStringLiteral("_requestId")).toInt(), 1);
    QCOMPARE(e.value(QStringLiteral("_attemptIndex")).toInt(), 0);
    QCOMPARE(e.value(QStringLiteral("_plannedDelayMs")).toDouble(), 0.0);
    QCOMPARE(e.value(QStringLiteral("_actualDelayMs")).toDouble(), 0.0);
    QCOMPARE(e.value(QStringLiteral("_queuedMs")).toDouble(), 1.5);
    QCOMPARE(e.value(QStringLiteral("_nextDelayMs")).toDouble(), 1234.5);
    QCOMPARE(e.value(QStringLiteral("_retryAfterMs")).toDouble(), 1000.0);
    QCOMPARE(e.value(QStringLiteral("_classification")).toString(), QStringLiteral("http-503"));
    QCOMPARE(e.value(QStringLiteral("_decision")).toString(), QStringLiteral("retry-after-delay"));
    QCOMPARE(
        e.value(QStringLiteral("_reason")).toString(), QStringLiteral("HTTP 503 is transient: retry after a delay"));
    QCOMPARE(e.value(QStringLiteral("_end")).toString(), QStringLiteral("response"));
    QVERIFY(!e.contains(QStringLiteral("serverIPAddress"))); // a host name, not an address

    const QJsonObject request = e.value(QStringLiteral("request")).toObject();
    QCOMPARE(request.value(QStringLiteral("method")).toString(), QStringLiteral("GET"));
    QCOMPARE(request.value(QStringLiteral("url")).toString(),
        QStringLiteral(
            "https://REDACTED:REDACTED@api.example.com/v1/items?page=2&access_token=REDACTED&note=a%2Cb%22c"));
    QCOMPARE(request.value(QStringLiteral("httpVersion")).toString(), QStringLiteral("HTTP/1.1"));
    QCOMPARE(request.value(QStringLiteral("bodySize")).toInt(), 0);
    QVERIFY(!request.contains(QStringLiteral("postData")));
    const QJsonArray query = request.value(QStringLiteral("queryString")).toArray();
    QCOMPARE(query.size(), 3);
    QCOMPARE(named(query, QStringLiteral("note")).value(QStringLiteral("value")).toString(), QStringLiteral("a,b\"c"));
    QCOMPARE(named(query, QStringLiteral("access_token")).value(QStringLiteral("value")).toString(),
        QStringLiteral("REDACTED"));
    const QJsonArray headers = request.value(QStringLiteral("headers")).toArray();
    QCOMPARE(headers.size(), 6);
    QCOMPARE(named(headers, QStringLiteral("X-Note")).value(QStringLiteral("value")).toString(),
        QString::fromUtf8(ExportSamples::noteHeaderValue()));
    QCOMPARE(named(headers, QStringLiteral("X-Unicode")).value(QStringLiteral("value")).toString(),
        QString::fromUtf8(ExportSamples::unicodeHeaderValue()));
    const QJsonArray cookies = request.value(QStringLiteral("cookies")).toArray();
    QCOMPARE(cookies.size(), 2);
    QCOMPARE(
        named(cookies, QStringLiteral("theme")).value(QStringLiteral("value")).toString(), QStringLiteral("REDACTED"));

    const QJsonObject response = e.value(QStringLiteral("response")).toObject();
    QCOMPARE(response.value(QStringLiteral("status")).toInt(), 503);
    QCOMPARE(response.value(QStringLiteral("statusText")).toString(), QStringLiteral("Service Unavailable"));
    QCOMPARE(response.value(QStringLiteral("httpVersion")).toString(), QStringLiteral("HTTP/1.1"));
    QCOMPARE(response.value(QStringLiteral("bodySize")).toInt(), 17);
    QCOMPARE(response.value(QStringLiteral("redirectURL")).toString(), QString());
    QVERIFY(!response.contains(QStringLiteral("_error"))); // an HTTP status is not a transport error
    const QJsonObject content = response.value(QStringLiteral("content")).toObject();
    QCOMPARE(content.value(QStringLiteral("size")).toInt(), 17);
    QCOMPARE(content.value(QStringLiteral("mimeType")).toString(), QStringLiteral("text/plain; charset=utf-8"));
    QVERIFY(!content.contains(QStringLiteral("text"))); // only the final response's body is recorded
    const QJsonObject cookie = response.value(QStringLiteral("cookies")).toArray().at(0).toObject();
    QCOMPARE(cookie.value(QStringLiteral("name")).toString(), QStringLiteral("sid"));
    QCOMPARE(cookie.value(QStringLiteral("value")).toString(), QStringLiteral("REDACTED"));
    QCOMPARE(cookie.value(QStringLiteral("path")).toString(), QStringLiteral("/"));
    QCOMPARE(cookie.value(QStringLiteral("httpOnly")).toBool(), true);

    const QJsonObject timings = e.value(QStringLiteral("timings")).toObject();
    QCOMPARE(timings.value(QStringLiteral("blocked")).toDouble(), 1.25);
    QCOMPARE(timings.value(QStringLiteral("dns")).toDouble(), -1.0);
    QCOMPARE(timings.value(QStringLiteral("connect")).toDouble(), 18.75);
    QCOMPARE(timings.value(QStringLiteral("ssl")).toDouble(), -1.0);
    QCOMPARE(timings.value(QStringLiteral("send")).toDouble(), 0.0);
    QCOMPARE(timings.value(QStringLiteral("wait")).toDouble(), 80.0);
    QCOMPARE(timings.value(QStringLiteral("receive")).toDouble(), 20.5);
}

void TestHarExport::entry_redirectHopThenTheLastExchange()
{
    // As browsers write a redirect: the 302 with its Location and its own timings, then the exchange that
    // answered, starting where the hop finished; each entry's time is the sum of its timings.
    const QJsonObject log = logOf(ExportSamples::sampleRun());
    const QJsonObject hop = entry(log, 9);
    const QJsonObject last = entry(log, 10);
    QCOMPARE(hop.value(QStringLiteral("_redirectHop")).toInt(-1), 0);
    QCOMPARE(hop.value(QStringLiteral("_attemptIndex")).toInt(), 3);
    QVERIFY(hop.value(QStringLiteral("_crossOrigin")).toBool());
    const QJsonObject response = hop.value(QStringLiteral("response")).toObject();
    QCOMPARE(response.value(QStringLiteral("status")).toInt(), 302);
    const QString location = response.value(QStringLiteral("redirectURL")).toString();
    QVERIFY2(location.startsWith(QLatin1String("http://127.0.0.1:9999/moved?token=")), qPrintable(location));
    QVERIFY(!location.contains(QLatin1String("SECRET")));
    QCOMPARE(hop.value(QStringLiteral("startedDateTime")).toString(), QStringLiteral("2025-03-04T05:06:24.569Z"));
    const QJsonObject hopTimings = hop.value(QStringLiteral("timings")).toObject();
    QCOMPARE(hopTimings.value(QStringLiteral("send")).toDouble(), 0.2);
    QCOMPARE(hopTimings.value(QStringLiteral("wait")).toDouble(), 0.4);
    QCOMPARE(hopTimings.value(QStringLiteral("receive")).toDouble(), 0.2);
    QCOMPARE(hop.value(QStringLiteral("time")).toDouble(), 0.8);

    QVERIFY(!last.contains(QStringLiteral("_redirectHop")));
    QCOMPARE(last.value(QStringLiteral("request")).toObject().value(QStringLiteral("url")).toString(), location);
    QCOMPARE(last.value(QStringLiteral("response")).toObject().value(QStringLiteral("status")).toInt(), 200);
    // 17480.8 ms after the run's start: the hop's end.
    QCOMPARE(last.value(QStringLiteral("startedDateTime")).toString(), QStringLiteral("2025-03-04T05:06:24.569Z"));
    const QJsonObject timings = last.value(QStringLiteral("timings")).toObject();
    QCOMPARE(timings.value(QStringLiteral("send")).toDouble(), 0.2); // 17480.8 to 17481.0
    QCOMPARE(timings.value(QStringLiteral("wait")).toDouble(), 39.0);
    QCOMPARE(timings.value(QStringLiteral("receive")).toDouble(), 10.0);
    QCOMPARE(last.value(QStringLiteral("time")).toDouble(), 49.2);
}

void TestHarExport::streamed_equalsTheWholeDocument()
{
    // Entries written one at a time give the document Qt would write whole, empty runs included.
    for (const RunRecord &run : {ExportSamples::sampleRun(), RunRecord{}}) {
        const QByteArray whole
            = QJsonDocument(HarExport::toJsonObject(run, ExportOptions{false})).toJson(QJsonDocument::Indented);
        QCOMPARE(HarExport::toJson(run, ExportOptions{false}), whole);
    }
}

void TestHarExport::entry_networkErrorIsStillValid()
{
    const QJsonObject e = entry(logOf(ExportSamples::sampleRun()), 7);
    QCOMPARE(e.value(QStringLiteral("_attemptIndex")).toInt(), 1);
    QCOMPARE(e.value(QStringLiteral("_plannedDelayMs")).toDouble(), 1234.5);
    QCOMPARE(e.value(QStringLiteral("_actualDelayMs")).toDouble(), 1239.75);
    QCOMPARE(e.value(QStringLiteral("_classification")).toString(), QStringLiteral("connection-refused"));
    QCOMPARE(e.value(QStringLiteral("_end")).toString(), QStringLiteral("network-error"));
    QCOMPARE(e.value(QStringLiteral("time")).toDouble(), 2.25);
    const QJsonObject response = e.value(QStringLiteral("response")).toObject();
    QCOMPARE(response.value(QStringLiteral("status")).toInt(-1), 0);
    QCOMPARE(response.value(QStringLiteral("httpVersion")).toString(QStringLiteral("x")), QString());
    QCOMPARE(response.value(QStringLiteral("bodySize")).toInt(), -1);
    QCOMPARE(response.value(QStringLiteral("content")).toObject().value(QStringLiteral("size")).toInt(-1), 0);
    const QString error = response.value(QStringLiteral("_error")).toString();
    QVERIFY2(error.startsWith(QLatin1String("Connection refused while sending Authorization: Bearer REDACTED")),
        qPrintable(error));
    const QJsonObject timings = e.value(QStringLiteral("timings")).toObject();
    QCOMPARE(timings.value(QStringLiteral("blocked")).toDouble(), 0.5);
    QCOMPARE(timings.value(QStringLiteral("connect")).toDouble(), 1.75);
    QCOMPARE(timings.value(QStringLiteral("wait")).toDouble(), 0.0);
    QCOMPARE(timings.value(QStringLiteral("receive")).toDouble(), 0.0);
}

void TestHarExport::entry_timeoutAndReusedConnection()
{
    const QJsonObject log = logOf(ExportSamples::sampleRun());
    const QJsonObject timeout = entry(log, 8);
    QCOMPARE(timeout.value(QStringLiteral("_end")).toString(), QStringLiteral("attempt-timeout"));
    QCOMPARE(timeout.value(QStringLiteral("response")).toObject().value(QStringLiteral("_error")).toString(),
        QStringLiteral("per-attempt timeout of 10000 ms expired"));
    const QJsonObject t = timeout.value(QStringLiteral("timings")).toObject();
    QCOMPARE(t.value(QStringLiteral("connect")).toDouble(), 4.5);
    QCOMPARE(t.value(QStringLiteral("wait")).toDouble(), 9995.0);
    QCOMPARE(timeout.value(QStringLiteral("time")).toDouble(), 10000.0);

    const QJsonObject reused = entry(log, 10); // after its redirect hop (entry 9)
    const QJsonObject r = reused.value(QStringLiteral("timings")).toObject();
    QCOMPARE(r.value(QStringLiteral("blocked")).toDouble(), -1.0);
    QCOMPARE(r.value(QStringLiteral("connect")).toDouble(), -1.0);
    QCOMPARE(r.value(QStringLiteral("send")).toDouble(), 0.2); // from the end of the hop
    QCOMPARE(r.value(QStringLiteral("wait")).toDouble(), 39.0);
    QCOMPARE(r.value(QStringLiteral("receive")).toDouble(), 10.0);
    // The final attempt carries the request's final body, redacted.
    const QJsonObject content
        = reused.value(QStringLiteral("response")).toObject().value(QStringLiteral("content")).toObject();
    const QJsonObject body
        = QJsonDocument::fromJson(content.value(QStringLiteral("text")).toString().toUtf8()).object();
    QCOMPARE(body.value(QStringLiteral("refresh_token")).toString(), QStringLiteral("REDACTED"));
    QCOMPARE(body.value(QStringLiteral("items")).toArray().at(0).toString(), QStringLiteral("Grüße"));
    QCOMPARE(content.value(QStringLiteral("mimeType")).toString(), QStringLiteral("application/json"));
}

void TestHarExport::entry_binaryPostToAnIpAddress()
{
    const QJsonObject e = entry(logOf(ExportSamples::sampleRun()), 1);
    QCOMPARE(e.value(QStringLiteral("serverIPAddress")).toString(), QStringLiteral("127.0.0.1"));
    const QJsonObject request = e.value(QStringLiteral("request")).toObject();
    QCOMPARE(request.value(QStringLiteral("method")).toString(), QStringLiteral("POST"));
    QCOMPARE(request.value(QStringLiteral("bodySize")).toInt(), 256);
    const QJsonObject postData = request.value(QStringLiteral("postData")).toObject();
    QCOMPARE(postData.value(QStringLiteral("mimeType")).toString(), QStringLiteral("application/octet-stream"));
    QCOMPARE(postData.value(QStringLiteral("_encoding")).toString(), QStringLiteral("base64"));
    QCOMPARE(QByteArray::fromBase64(postData.value(QStringLiteral("text")).toString().toLatin1()),
        ExportSamples::binaryBody());
    QCOMPARE(named(request.value(QStringLiteral("headers")).toArray(), QStringLiteral("Proxy-Authorization"))
                 .value(QStringLiteral("value"))
                 .toString(),
        QStringLiteral("Basic REDACTED"));
    const QJsonObject response = e.value(QStringLiteral("response")).toObject();
    QCOMPARE(response.value(QStringLiteral("status")).toInt(), 500);
    QCOMPARE(response.value(QStringLiteral("statusText")).toString(), QStringLiteral("-Internal, \"Error\"\r\nsplit"));
    QCOMPARE(e.value(QStringLiteral("_decision")).toString(), QStringLiteral("give-up"));
}

void TestHarExport::entry_readModifyWriteSteps()
{
    const QJsonObject log = logOf(ExportSamples::sampleRun(), ExportOptions{false});
    const QJsonObject read = entry(log, 2);
    const QJsonObject write = entry(log, 3);
    QCOMPARE(read.value(QStringLiteral("_step")).toString(), QStringLiteral("read"));
    QCOMPARE(write.value(QStringLiteral("_step")).toString(), QStringLiteral("write"));
    QCOMPARE(read.value(QStringLiteral("serverIPAddress")).toString(), QStringLiteral("::1"));
    QCOMPARE(read.value(QStringLiteral("request")).toObject().value(QStringLiteral("bodySize")).toInt(), 0);
    // The write's body is computed by the executor and not recorded.
    QCOMPARE(write.value(QStringLiteral("request")).toObject().value(QStringLiteral("bodySize")).toInt(), -1);
    QVERIFY(!write.value(QStringLiteral("request")).toObject().contains(QStringLiteral("postData")));
    QCOMPARE(write.value(QStringLiteral("response")).toObject().value(QStringLiteral("status")).toInt(), 409);
    QCOMPARE(entry(log, 6).value(QStringLiteral("_sequenceRound")).toInt(), 1);
    // The seed that drew each request's jitter, exactly (a string: beyond 2^53).
    QCOMPARE(read.value(QStringLiteral("_seed")).toString(), QStringLiteral("18446744073709551615"));
    QCOMPARE(entry(log, 0).value(QStringLiteral("_seed")).toString(), QStringLiteral("987654321"));
    QCOMPARE(entry(log, 0).value(QStringLiteral("_seedStream")).toInt(), 2);
}

void TestHarExport::entry_hugeValuesAndDeadline()
{
    const QJsonObject e = entry(logOf(ExportSamples::sampleRun()), 4);
    QCOMPARE(e.value(QStringLiteral("_end")).toString(), QStringLiteral("deadline"));
    QCOMPARE(e.value(QStringLiteral("_plannedDelayMs")).toDouble(), 86'400'000.0);
    QCOMPARE(e.value(QStringLiteral("time")).toDouble(), 86'400'000.0);
    const QJsonObject response = e.value(QStringLiteral("response")).toObject();
    QCOMPARE(response.value(QStringLiteral("status")).toInt(), 200);
    QCOMPARE(
        response.value(QStringLiteral("_error")).toString(), QStringLiteral("total deadline of 86400000 ms reached"));
    QCOMPARE(response.value(QStringLiteral("content")).toObject().value(QStringLiteral("size")).toDouble(),
        double(qint64(1) << 60));
    const QJsonObject request = e.value(QStringLiteral("request")).toObject();
    QCOMPARE(named(request.value(QStringLiteral("queryString")).toArray(), QStringLiteral("q"))
                 .value(QStringLiteral("value"))
                 .toString(),
        QStringLiteral("東京"));
    QCOMPARE(named(request.value(QStringLiteral("headers")).toArray(), QStringLiteral("X-Huge"))
                 .value(QStringLiteral("value"))
                 .toString()
                 .size(),
        200 * 1024);
}

void TestHarExport::timings_data()
{
    QTest::addColumn<QList<qint64>>("points"); // start, connectionStarted, requestSent, firstByte, end (ms; -1 unknown)
    QTest::addColumn<QList<double>>("expected"); // blocked, connect, send, wait, receive

    QTest::addRow("all points") << QList<qint64>{0, 2, 10, 30, 35} << QList<double>{2, 8, 0, 20, 5};
    QTest::addRow("reused connection") << QList<qint64>{0, -1, 1, 30, 35} << QList<double>{-1, -1, 1, 29, 5};
    QTest::addRow("refused") << QList<qint64>{0, 1, -1, -1, 4} << QList<double>{1, 3, 0, 0, 0};
    QTest::addRow("no response") << QList<qint64>{0, 1, 3, -1, 100} << QList<double>{1, 2, 0, 97, 0};
    QTest::addRow("nothing but start and end") << QList<qint64>{0, -1, -1, -1, 7} << QList<double>{-1, -1, 0, 7, 0};
    QTest::addRow("headers without requestSent") << QList<qint64>{0, 1, -1, 5, 9} << QList<double>{1, 4, 0, 0, 4};
    QTest::addRow("points out of order are clamped")
        << QList<qint64>{10, 5, 50, 40, 30} << QList<double>{0, 20, 0, 0, 0};
    QTest::addRow("never started") << QList<qint64>{-1, -1, -1, -1, -1} << QList<double>{-1, -1, 0, 0, 0};
}

void TestHarExport::timings()
{
    QFETCH(QList<qint64>, points);
    QFETCH(QList<double>, expected);
    const auto ns = [](qint64 ms) { return ms < 0 ? qint64(-1) : ms * 1'000'000; };
    AttemptRecord a;
    a.startNs = ns(points.at(0));
    a.connectionStartedNs = ns(points.at(1));
    a.requestSentNs = ns(points.at(2));
    a.firstByteNs = ns(points.at(3));
    a.endNs = ns(points.at(4));
    const HarExport::Timings t = HarExport::timingsOf(a);
    QCOMPARE(t.blocked, expected.at(0));
    QCOMPARE(t.connect, expected.at(1));
    QCOMPARE(t.send, expected.at(2));
    QCOMPARE(t.wait, expected.at(3));
    QCOMPARE(t.receive, expected.at(4));
    QCOMPARE(t.dns, -1.0);
    QCOMPARE(t.ssl, -1.0);
    // The phases add up to the attempt's duration.
    QCOMPARE(t.total(), a.durationMs());
}

void TestHarExport::timings_measuredPhases_data()
{
    // start, lookup start, lookup end, connection started, connected (plain) or encrypted (TLS),
    // request sent, first byte, end (ms; -1 unknown)
    QTest::addColumn<bool>("tls");
    QTest::addColumn<QList<qint64>>("points");
    QTest::addColumn<QList<double>>("expected"); // blocked, dns, connect, ssl, send, wait, receive
    QTest::addRow("plain, new connection")
        << false << QList<qint64>{0, 0, 3, 4, 9, 10, 30, 35} << QList<double>{1, 3, 5, -1, 1, 20, 5};
    QTest::addRow("TLS: connect holds the handshake, ssl unknown")
        << true << QList<qint64>{0, 0, 3, 4, 24, 25, 45, 50} << QList<double>{1, 3, 20, -1, 1, 20, 5};
    QTest::addRow("reused: no dns, connect, ssl")
        << true << QList<qint64>{0, 0, 1, -1, -1, 2, 22, 25} << QList<double>{1, -1, -1, -1, 1, 20, 3};
    QTest::addRow("an address: dns 0") << false << QList<qint64>{0, 0, 0, 0, 2, 2, 12, 13}
                                       << QList<double>{0, 0, 2, -1, 0, 10, 1};
}

void TestHarExport::timings_measuredPhases()
{
    QFETCH(bool, tls);
    QFETCH(QList<qint64>, points);
    QFETCH(QList<double>, expected);
    const auto ns = [](qint64 ms) { return ms < 0 ? qint64(-1) : ms * 1'000'000; };
    AttemptRecord a;
    a.url = QUrl(tls ? QStringLiteral("https://h/") : QStringLiteral("http://h/"));
    a.startNs = ns(points.at(0));
    a.lookupStartNs = ns(points.at(1));
    a.lookupEndNs = ns(points.at(2));
    a.connectionStartedNs = ns(points.at(3));
    (tls ? a.encryptedNs : a.connectedNs) = ns(points.at(4));
    a.requestSentNs = ns(points.at(5));
    a.firstByteNs = ns(points.at(6));
    a.endNs = a.finishedNs = ns(points.at(7));
    const HarExport::Timings t = HarExport::timingsOf(a);
    QCOMPARE(t.blocked, expected.at(0));
    QCOMPARE(t.dns, expected.at(1));
    QCOMPARE(t.connect, expected.at(2));
    QCOMPARE(t.ssl, expected.at(3));
    QCOMPARE(t.send, expected.at(4));
    QCOMPARE(t.wait, expected.at(5));
    QCOMPARE(t.receive, expected.at(6));
    QCOMPARE(t.total(), a.durationMs());
}

void TestHarExport::redactedByDefault_noSecretAnywhere()
{
    const QByteArray har = HarExport::toJson(ExportSamples::sampleRun());
    for (const QString &secret : ExportSamples::secrets())
        QVERIFY2(!har.contains(secret.toUtf8()), qPrintable(secret));
    const QJsonObject log = logOf(ExportSamples::sampleRun());
    QCOMPARE(log.value(QStringLiteral("_redacted")).toBool(), true);
    QVERIFY(!log.contains(QStringLiteral("comment")));
}

void TestHarExport::unredacted_containsSecretsAndWarns()
{
    const QByteArray har = HarExport::toJson(ExportSamples::sampleRun(), ExportOptions{false});
    for (const QString &secret : ExportSamples::secrets()) {
        // The read-modify-write body is never in a HAR (see entry_readModifyWriteSteps).
        if (secret == QLatin1String("SECRET-FORM-9"))
            continue;
        QVERIFY2(har.contains(secret.toUtf8()), qPrintable(secret));
    }
    const QJsonObject log = logOf(ExportSamples::sampleRun(), ExportOptions{false});
    QCOMPARE(log.value(QStringLiteral("_redacted")).toBool(true), false);
    QCOMPARE(log.value(QStringLiteral("comment")).toString(), ExportOptions::credentialsWarning());
}

QTEST_GUILESS_MAIN(TestHarExport)
#include "tst_harexport.moc"
