#include "core/export/harexport.h"
#include "core/export/reportjson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace RetryLab::Core;

namespace {

constexpr qint64 ms = 1'000'000;

AttemptRecord attempt(quint64 request, int index, const RequestSpec &spec, int status, double startMs)
{
    AttemptRecord a;
    a.requestId = request;
    a.attemptIndex = index;
    a.method = spec.method;
    a.url = spec.url;
    a.requestHeaders = spec.headers;
    a.requestBody = spec.body;
    a.startNs = qint64(startMs * ms);
    a.endNs = a.startNs + 5 * ms;
    a.finishedNs = a.endNs;
    a.httpStatus = status;
    a.reasonPhrase = status == 200 ? "OK" : "Service Unavailable";
    a.responseHeaders = {{"Content-Type", "application/json"}};
    a.decision = status == 200 ? Classification::Decision::Success : Classification::Decision::RetryAfterDelay;
    a.cause = QStringLiteral("http-%1").arg(status);
    return a;
}

// Request 1: a POST answered 503 with a JSON body, then 200 with another. Request 2: a
// read-modify-write whose write sent a body the executor computed. Request 3: a
// binary body the executor kept only the first part of.
RunRecord runWithBodies()
{
    RunRecord run;
    run.startedAt = QDateTime(QDate(2026, 11, 23), QTime(10, 0), Qt::UTC);
    run.epochNs = 0;

    RequestSpec post;
    post.method = "POST";
    post.url = QUrl(QStringLiteral("http://127.0.0.1:8080/orders"));
    post.headers = {{"Content-Type", "application/json"}};
    post.body = R"({"order":42,"password":"SECRET-PW-1"})";
    post.idempotent = true;
    run.requests.insert(1, post);
    AttemptRecord a0 = attempt(1, 0, post, 503, 0.0);
    a0.responseBody = R"({"status":503,"error":"overloaded"})";
    a0.bytesReceived = a0.responseBody.size();
    AttemptRecord a1 = attempt(1, 1, post, 200, 20.0);
    a1.responseBody = R"({"id":"o-42","access_token":"SECRET-TOKEN-2"})";
    a1.bytesReceived = a1.responseBody.size();

    RequestSpec rmw;
    rmw.kind = RequestSpec::Kind::ReadModifyWrite;
    rmw.method = "PUT";
    rmw.url = QUrl(QStringLiteral("http://127.0.0.1:8080/occ/c"));
    run.requests.insert(2, rmw);
    AttemptRecord b0 = attempt(2, 0, rmw, 200, 40.0);
    b0.step = QStringLiteral("read");
    b0.method = "GET";
    b0.responseBody = R"({"value":7})";
    b0.bytesReceived = b0.responseBody.size();
    AttemptRecord b1 = attempt(2, 1, rmw, 200, 50.0);
    b1.step = QStringLiteral("write");
    b1.requestBody = R"({"value":8})";
    b1.responseBody = R"({"value":8})";
    b1.bytesReceived = b1.responseBody.size();

    RequestSpec get;
    get.method = "GET";
    get.url = QUrl(QStringLiteral("http://127.0.0.1:8080/blob"));
    run.requests.insert(3, get);
    AttemptRecord c0 = attempt(3, 0, get, 200, 60.0);
    c0.responseHeaders = {{"Content-Type", "application/octet-stream"}};
    for (int i = 0; i < 300; ++i)
        c0.responseBody.append(char(i % 256));
    c0.bytesReceived = 5000;
    c0.responseBodyTruncated = true;
    c0.transferEnded = true;

    run.attempts = {a0, a1, b0, b1, c0};
    for (quint64 id : {1, 2, 3}) {
        RequestResult r;
        r.requestId = id;
        r.outcome = RequestOutcome::Succeeded;
        r.attempts = id == 3 ? 1 : 2;
        r.finalStatus = 200;
        r.body = id == 1 ? a1.responseBody : id == 2 ? b1.responseBody : c0.responseBody;
        run.results.append(r);
    }
    return run;
}

QJsonArray harEntries(const RunRecord &run, const ExportOptions &options = {})
{
    return HarExport::toJsonObject(run, options)
        .value(QStringLiteral("log"))
        .toObject()
        .value(QStringLiteral("entries"))
        .toArray();
}

} // namespace

// Per-attempt bodies in the JSON report (written, read back, within the body budget) and in HAR.
class TestReportBodies : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void report_unredacted_bodiesRoundTrip();
    void report_requestBodyOnlyWhereItIsNotTheRequests();
    void report_redacted_secretsInBodiesAreGone();
    void report_beyondTheBudget_oldestBodiesLeftOutAndMarked();
    void report_droppedByTheRun_staysMarked();
    void report_olderReportWithoutBodies_readsAsBefore();
    void har_eachEntryHasItsOwnResponseBody();
    void har_writeStepPostsItsComputedBody();
    void har_beyondTheBudget_saysTheBodyWasDropped();
};

void TestReportBodies::report_unredacted_bodiesRoundTrip()
{
    const RunRecord run = runWithBodies();
    ExportOptions options;
    options.redactCredentials = false;
    const auto report = ReportJson::fromJson(ReportJson::toJson(run, options));
    QVERIFY2(report, qPrintable(report.error()));
    QCOMPARE(report->run.attempts.size(), run.attempts.size());
    for (qsizetype i = 0; i < run.attempts.size(); ++i) {
        const AttemptRecord &read = report->run.attempts.at(i);
        const AttemptRecord &written = run.attempts.at(i);
        QCOMPARE(read.requestBody, written.requestBody);
        QCOMPARE(read.responseBody, written.responseBody);
        QCOMPARE(read.responseBodyTruncated, written.responseBodyTruncated);
        QCOMPARE(read.transferEnded, written.transferEnded);
        QCOMPARE(read.requestBodyDropped, false);
        QCOMPARE(read.responseBodyDropped, false);
        QCOMPARE(read.bytesReceived, written.bytesReceived);
    }
    // Binary bytes survive as base64.
    QCOMPARE(report->run.attempts.at(4).responseBody.size(), 300);
    QCOMPARE(report->run.results.at(0).body, run.results.at(0).body);
}

void TestReportBodies::report_requestBodyOnlyWhereItIsNotTheRequests()
{
    const QJsonObject json = ReportJson::toJsonObject(runWithBodies());
    const QJsonArray attempts = json.value(QStringLiteral("attempts")).toArray();
    // The POST's attempts sent the request's own body: written once, under "requests".
    QVERIFY(!attempts.at(0).toObject().contains(QStringLiteral("requestBody")));
    QVERIFY(!attempts.at(1).toObject().contains(QStringLiteral("requestBody")));
    // The write step sent one of its own.
    QCOMPARE(
        attempts.at(3).toObject().value(QStringLiteral("requestBody")).toString(), QStringLiteral("{\"value\":8}"));
    QCOMPARE(attempts.at(4)
                 .toObject()
                 .value(QStringLiteral("responseBody"))
                 .toObject()
                 .value(QStringLiteral("base64"))
                 .toString()
                 .isEmpty(),
        false);
    QCOMPARE(attempts.at(4).toObject().value(QStringLiteral("responseBodyTruncated")).toBool(), true);
    QCOMPARE(attempts.at(4).toObject().value(QStringLiteral("transferEnded")).toBool(), true);
    QVERIFY(!attempts.at(0).toObject().contains(QStringLiteral("transferEnded")));
}

void TestReportBodies::report_redacted_secretsInBodiesAreGone()
{
    const QByteArray json = ReportJson::toJson(runWithBodies());
    QVERIFY(!json.contains("SECRET-PW-1"));
    QVERIFY(!json.contains("SECRET-TOKEN-2"));
    const auto report = ReportJson::fromJson(json);
    QVERIFY2(report, qPrintable(report.error()));
    const QJsonObject body = QJsonDocument::fromJson(report->run.attempts.at(1).responseBody).object();
    QCOMPARE(body.value(QStringLiteral("id")).toString(), QStringLiteral("o-42"));
    QCOMPARE(body.value(QStringLiteral("access_token")).toString(), QStringLiteral("REDACTED"));
    // The request body comes from the request, redacted there.
    QVERIFY(report->run.attempts.at(0).requestBody.contains("REDACTED"));
}

void TestReportBodies::report_beyondTheBudget_oldestBodiesLeftOutAndMarked()
{
    const RunRecord run = runWithBodies();
    ExportOptions options;
    options.redactCredentials = false;
    // Room for the newest two attempts' bodies only (the write step and the binary one).
    const qint64 newestTwo = run.attempts.at(4).responseBody.size() + run.attempts.at(3).responseBody.size()
        + run.attempts.at(3).requestBody.size();
    options.bodyBudget = newestTwo;
    const QByteArray json = ReportJson::toJson(run, options);
    QVERIFY(!json.contains("overloaded"));
    const auto report = ReportJson::fromJson(json);
    QVERIFY2(report, qPrintable(report.error()));
    const auto &attempts = report->run.attempts;
    for (int i = 0; i < 3; ++i) {
        QVERIFY(attempts.at(i).responseBody.isEmpty());
        QVERIFY(attempts.at(i).responseBodyDropped);
    }
    // The POST's request body is the request's own: still there, not dropped.
    QCOMPARE(attempts.at(0).requestBody, run.requests.value(1).body);
    QVERIFY(!attempts.at(0).requestBodyDropped);
    QCOMPARE(attempts.at(3).requestBody, run.attempts.at(3).requestBody);
    QCOMPARE(attempts.at(3).responseBody, run.attempts.at(3).responseBody);
    QCOMPARE(attempts.at(4).responseBody, run.attempts.at(4).responseBody);
    QVERIFY(!attempts.at(4).responseBodyDropped);
}

void TestReportBodies::report_droppedByTheRun_staysMarked()
{
    RunRecord run = runWithBodies();
    run.attempts[0].responseBody.clear();
    run.attempts[0].responseBodyDropped = true;
    run.attempts[3].requestBody.clear();
    run.attempts[3].requestBodyDropped = true;
    const auto report = ReportJson::fromJson(ReportJson::toJson(run));
    QVERIFY2(report, qPrintable(report.error()));
    QVERIFY(report->run.attempts.at(0).responseBodyDropped);
    QVERIFY(report->run.attempts.at(3).requestBodyDropped);
    QVERIFY(report->run.attempts.at(3).requestBody.isEmpty());
}

void TestReportBodies::report_olderReportWithoutBodies_readsAsBefore()
{
    QJsonObject json = ReportJson::toJsonObject(runWithBodies());
    QJsonArray attempts = json.value(QStringLiteral("attempts")).toArray();
    for (qsizetype i = 0; i < attempts.size(); ++i) {
        QJsonObject a = attempts.at(i).toObject();
        for (const char *key :
            {"requestBody", "responseBody", "responseBodyTruncated", "requestBodyDropped", "responseBodyDropped"})
            a.remove(QLatin1String(key));
        attempts[i] = a;
    }
    json.insert(QStringLiteral("attempts"), attempts);
    const auto report = ReportJson::fromJsonObject(json);
    QVERIFY2(report, qPrintable(report.error()));
    QVERIFY(report->run.attempts.at(1).responseBody.isEmpty());
    QVERIFY(!report->run.attempts.at(1).responseBodyDropped);
    // A request body it does not name is its request's.
    QVERIFY(!report->run.attempts.at(0).requestBody.isEmpty());
}

void TestReportBodies::har_eachEntryHasItsOwnResponseBody()
{
    ExportOptions options;
    options.redactCredentials = false;
    const QJsonArray entries = harEntries(runWithBodies(), options);
    const auto contentOf = [&](int i) {
        return entries.at(i)
            .toObject()
            .value(QStringLiteral("response"))
            .toObject()
            .value(QStringLiteral("content"))
            .toObject();
    };
    // Sorted by start: the 503 first, with its own body (the old HAR carried only the final one).
    QCOMPARE(contentOf(0).value(QStringLiteral("text")).toString(),
        QStringLiteral(R"({"status":503,"error":"overloaded"})"));
    QVERIFY(contentOf(1).value(QStringLiteral("text")).toString().contains(QStringLiteral("o-42")));
    const QJsonObject binary = contentOf(4);
    QCOMPARE(binary.value(QStringLiteral("encoding")).toString(), QStringLiteral("base64"));
    QCOMPARE(QByteArray::fromBase64(binary.value(QStringLiteral("text")).toString().toLatin1()).size(), 300);
    QCOMPARE(binary.value(QStringLiteral("comment")).toString(), QStringLiteral("first 300 of 5000 bytes"));
}

void TestReportBodies::har_writeStepPostsItsComputedBody()
{
    const QJsonArray entries = harEntries(runWithBodies());
    const QJsonObject write = entries.at(3).toObject().value(QStringLiteral("request")).toObject();
    QCOMPARE(write.value(QStringLiteral("bodySize")).toInt(), 11);
    QCOMPARE(write.value(QStringLiteral("postData")).toObject().value(QStringLiteral("text")).toString(),
        QStringLiteral("{\"value\":8}"));
    const QJsonObject read = entries.at(2).toObject().value(QStringLiteral("request")).toObject();
    QCOMPARE(read.value(QStringLiteral("bodySize")).toInt(), 0);
}

void TestReportBodies::har_beyondTheBudget_saysTheBodyWasDropped()
{
    ExportOptions options;
    options.bodyBudget = 0;
    const QJsonArray entries = harEntries(runWithBodies(), options);
    const QJsonObject content = entries.at(0)
                                    .toObject()
                                    .value(QStringLiteral("response"))
                                    .toObject()
                                    .value(QStringLiteral("content"))
                                    .toObject();
    QVERIFY(!content.contains(QStringLiteral("text")));
    QCOMPARE(content.value(QStringLiteral("comment")).toString(), QStringLiteral("body dropped to bound memory"));
}

QTEST_GUILESS_MAIN(TestReportBodies)
#include "tst_reportbodies.moc"
