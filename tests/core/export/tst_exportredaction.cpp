#include "core/export/csvexport.h"
#include "core/export/curlcommand.h"
#include "core/export/harexport.h"
#include "core/export/junitexport.h"
#include "core/export/reportjson.h"
#include "core/record/recordredactor.h"

#include "tests/core/export/exportsamples.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <functional>

using namespace RetryLab::Core;

namespace {

using Writer = std::function<QByteArray(const RunRecord &, const ExportOptions &, const QList<ExpectationResult> &)>;

// A request whose URL failed, then its fallback, redirected twice: once followed to
// the same origin, once not to another. Credentials sit where no other suite plants
// them: in the fallback URL, in both hops' URLs and in the note of the hop not followed.
RunRecord fallbackRun()
{
    RunRecord run;
    run.startedAt = QDateTime(QDate(2026, 11, 29), QTime(9, 0), Qt::UTC);
    run.epochNs = 0;

    RequestSpec spec;
    spec.method = "GET";
    spec.url = QUrl(QStringLiteral("https://api.example/v1/items?page=1"));
    // An API key under a name the name rule does not know: masked by its value.
    spec.auth.kind = AuthSpec::Kind::ApiKey;
    spec.auth.key = QStringLiteral("X-Tenant");
    spec.auth.value = QStringLiteral("SECRET-TENANT-11");
    spec.headers = {{"Authorization", "Bearer SECRET-BEARER-1"}, {"X-Tenant", "SECRET-TENANT-11"}};
    spec.fallbackUrls
        = {QUrl(QStringLiteral("https://fb-user:SECRET-FB-2@fallback.example/v1/items?token=SECRET-FB-3"))};
    spec.label = QStringLiteral("fallback with api_key=SECRET-LABEL-4");
    run.requests.insert(1, spec);

    AttemptRecord first;
    first.requestId = 1;
    first.method = "GET";
    first.url = spec.url;
    first.requestHeaders = spec.headers;
    first.startNs = 1'000'000;
    first.endNs = 2'000'000;
    first.finishedNs = first.endNs;
    first.httpStatus = 503;
    first.reasonPhrase = "Service Unavailable";
    first.decision = Classification::Decision::RetryAfterDelay;
    first.cause = QStringLiteral("http-503");
    first.reason = QStringLiteral("HTTP 503: the policy gave up; trying the fallback");

    AttemptRecord second = first;
    second.attemptIndex = 1;
    second.fallback = 1;
    second.url = spec.fallbackUrls.at(0);
    second.startNs = 3'000'000;
    second.endNs = 9'000'000;
    second.finishedNs = second.endNs;
    RedirectHop followed;
    followed.status = 302;
    followed.method = "GET";
    followed.from = second.url;
    followed.to
        = QUrl(QStringLiteral("https://fb-user:SECRET-FB-2@fallback.example/v2/items?access_token=SECRET-HOP-5"));
    followed.startNs = 3'000'000;
    followed.finishedNs = 4'000'000;
    RedirectHop refused;
    refused.status = 307;
    refused.method = "GET";
    refused.from = followed.to;
    refused.to = QUrl(QStringLiteral("https://hop-user:SECRET-HOP-6@other.example/items?sig=SECRET-HOP-7"));
    refused.followed = false;
    refused.crossOrigin = true;
    refused.droppedHeaders = {"Authorization"};
    refused.note = QStringLiteral("not followed: Authorization: Bearer SECRET-HOP-8 would reach another origin");
    second.redirects = {followed, refused};
    second.httpStatus = 307;
    second.reasonPhrase = "Temporary Redirect";
    second.responseHeaders = {{"Location", refused.to.toEncoded()}, {"Set-Cookie", "fb=SECRET-COOKIE-9; Path=/"}};
    second.errorString = QStringLiteral("redirect to %1 not followed").arg(refused.to.toString());
    second.decision = Classification::Decision::GiveUp;
    second.cause = QStringLiteral("redirect-not-followed");
    second.reason = QStringLiteral("the fallback redirected to another origin");

    run.attempts = {first, second};
    RequestResult result;
    result.requestId = 1;
    result.outcome = RequestOutcome::GaveUp;
    result.attempts = 2;
    result.fallback = 1;
    result.reason = QStringLiteral("gave up at %1").arg(second.url.toString());
    result.finalStatus = 307;
    result.startNs = first.startNs;
    result.endNs = second.endNs;
    run.results = {result};
    return run;
}

QList<ExpectationResult> verdicts()
{
    return {{QStringLiteral("fallback answers"), false,
        QStringLiteral("GET https://fb-user:SECRET-FB-2@fallback.example/ gave up"), 8.0, {1}}};
}

// The run as one redacting pass leaves it: the results' bodies read by their
// request's last response (in finishing order), as the reports read them.
RunRecord redactedRun(const RunRecord &run)
{
    const RecordRedactor redactor(true, run);
    RunRecord out = run;
    QHash<quint64, HeaderList> lastResponseHeaders;
    for (AttemptRecord &a : out.attempts) {
        lastResponseHeaders.insert(a.requestId, a.responseHeaders);
        a = redactor.redacted(a);
    }
    for (RequestSpec &spec : out.requests)
        spec = redactor.redacted(spec);
    for (RequestResult &r : out.results)
        r = redactor.redacted(r, lastResponseHeaders.value(r.requestId));
    return out;
}

// An export without the places that say whether it was redacted.
QByteArray withoutRedactionMarks(const QString &format, const QByteArray &exported)
{
    if (format == QLatin1String("csv")) {
        QList<QByteArray> lines = exported.split('\n');
        for (qsizetype i = 1; i < lines.size(); ++i) {
            if (lines[i].startsWith("true,"))
                lines[i] = lines[i].mid(5);
            else if (lines[i].startsWith("false,"))
                lines[i] = lines[i].mid(6);
        }
        return lines.join('\n');
    }
    QJsonObject root = QJsonDocument::fromJson(exported).object();
    if (format == QLatin1String("har")) {
        QJsonObject log = root.value(QStringLiteral("log")).toObject();
        log.remove(QStringLiteral("_redacted"));
        log.remove(QStringLiteral("comment"));
        root.insert(QStringLiteral("log"), log);
    } else {
        root.remove(QStringLiteral("redacted"));
        root.remove(QStringLiteral("credentialsWarning"));
    }
    return QJsonDocument(root).toJson();
}

Writer writerFor(const QString &format)
{
    if (format == QLatin1String("csv"))
        return [](const RunRecord &run, const ExportOptions &options, const auto &) {
            return CsvExport::toCsv(run, options);
        };
    if (format == QLatin1String("har"))
        return [](const RunRecord &run, const ExportOptions &options, const auto &) {
            return HarExport::toJson(run, options);
        };
    return [](const RunRecord &run, const ExportOptions &options, const QList<ExpectationResult> &expectations) {
        return ReportJson::toJson(run, options, expectations);
    };
}

} // namespace

// Every export takes its redaction from RecordRedactor's one pass per record.
class TestExportRedaction : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyFormat_masksFallbackAndRedirectCredentials_data();
    void everyFormat_masksFallbackAndRedirectCredentials();
    void writers_showWhatThePassLeaves_data();
    void writers_showWhatThePassLeaves();
};

void TestExportRedaction::everyFormat_masksFallbackAndRedirectCredentials_data()
{
    QTest::addColumn<QByteArray>("redacted");
    QTest::addColumn<QByteArray>("unredacted");
    QTest::addColumn<QStringList>("secrets");

    const RunRecord run = fallbackRun();
    const ExportOptions off{false};
    const QStringList all{QStringLiteral("SECRET-BEARER-1"), QStringLiteral("SECRET-FB-2"),
        QStringLiteral("SECRET-FB-3"), QStringLiteral("SECRET-LABEL-4"), QStringLiteral("SECRET-HOP-5"),
        QStringLiteral("SECRET-HOP-6"), QStringLiteral("SECRET-HOP-7"), QStringLiteral("SECRET-HOP-8"),
        QStringLiteral("SECRET-COOKIE-9"), QStringLiteral("SECRET-TENANT-11")};
    // What each format writes of the run: CSV has no bodies, HAR follows redirects into
    // entries of their own, the report keeps the request's fallback URLs.
    QTest::addRow("csv") << CsvExport::toCsv(run) << CsvExport::toCsv(run, off) << all;
    // HAR writes no redirect note: a hop not followed shows as its Location header.
    QStringList harSecrets = all;
    harSecrets.removeAll(QStringLiteral("SECRET-HOP-8"));
    QTest::addRow("har") << HarExport::toJson(run) << HarExport::toJson(run, off) << harSecrets;
    QTest::addRow("report") << ReportJson::toJson(run, {}, verdicts()) << ReportJson::toJson(run, off, verdicts())
                            << all;
    const RequestSpec spec = run.requests.value(1);
    RequestSpec atFallback = spec;
    atFallback.url = spec.fallbackUrls.at(0);
    QTest::addRow("curl") << CurlCommand::build(atFallback).commandLine.toUtf8()
                          << CurlCommand::build(atFallback, off).commandLine.toUtf8()
                          << QStringList{QStringLiteral("SECRET-BEARER-1"), QStringLiteral("SECRET-FB-2"),
                                 QStringLiteral("SECRET-FB-3"), QStringLiteral("SECRET-TENANT-11")};
    QTest::addRow("har request") << QJsonDocument(HarExport::requestHar(atFallback)).toJson()
                                 << QJsonDocument(HarExport::requestHar(atFallback, off)).toJson()
                                 << QStringList{QStringLiteral("SECRET-BEARER-1"), QStringLiteral("SECRET-FB-2"),
                                        QStringLiteral("SECRET-FB-3"), QStringLiteral("SECRET-LABEL-4"),
                                        QStringLiteral("SECRET-TENANT-11")};
    const JUnitExport::Suite suite
        = JUnitExport::suiteFor(QStringLiteral("fallback token=SECRET-SUITE-10"), run, verdicts());
    QTest::addRow("junit") << JUnitExport::toXml({suite}) << JUnitExport::toXml({suite}, off)
                           << QStringList{QStringLiteral("SECRET-FB-2"), QStringLiteral("SECRET-SUITE-10")};
}

void TestExportRedaction::everyFormat_masksFallbackAndRedirectCredentials()
{
    QFETCH(QByteArray, redacted);
    QFETCH(QByteArray, unredacted);
    QFETCH(QStringList, secrets);
    for (const QString &secret : std::as_const(secrets)) {
        // Planted where the format writes it, so that its absence means it was masked.
        QVERIFY2(unredacted.contains(secret.toUtf8()), qPrintable(secret));
        QVERIFY2(!redacted.contains(secret.toUtf8()), qPrintable(secret));
    }
    QVERIFY(!redacted.contains("SECRET"));
    QVERIFY(redacted.contains("REDACTED"));
}

void TestExportRedaction::writers_showWhatThePassLeaves_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<bool>("sample");
    QTest::addRow("csv, sample") << QStringLiteral("csv") << true;
    QTest::addRow("csv, fallback") << QStringLiteral("csv") << false;
    QTest::addRow("report, sample") << QStringLiteral("report") << true;
    QTest::addRow("report, fallback") << QStringLiteral("report") << false;
    // HAR writes the sizes of the bodies as they were, so its run plants none in bodies.
    QTest::addRow("har, fallback") << QStringLiteral("har") << false;
}

// A redacted export is the unredacted export of the records the pass returns: the
// writers hold no redaction of their own, and the pass misses nothing they write.
void TestExportRedaction::writers_showWhatThePassLeaves()
{
    QFETCH(QString, format);
    QFETCH(bool, sample);
    const RunRecord run = sample ? ExportSamples::sampleRun() : fallbackRun();
    const Writer write = writerFor(format);
    const QByteArray redacted = write(run, ExportOptions{}, verdicts());
    QList<ExpectationResult> passedVerdicts;
    for (const ExpectationResult &verdict : verdicts())
        passedVerdicts.append(RecordRedactor().redacted(verdict));
    const QByteArray passedThenWritten = write(redactedRun(run), ExportOptions{false}, passedVerdicts);
    QVERIFY(!redacted.contains("SECRET"));
    QCOMPARE(withoutRedactionMarks(format, passedThenWritten), withoutRedactionMarks(format, redacted));
}

QTEST_GUILESS_MAIN(TestExportRedaction)
#include "tst_exportredaction.moc"
