#include "core/export/reportjson.h"

#include "tests/core/export/exportsamples.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace RetryLab::Core;

namespace {

QList<ExpectationResult> sampleExpectations()
{
    return {
        {QStringLiteral("request 1 succeeds"), true, QStringLiteral("4 attempts"), 17530.0, {1}},
        {QStringLiteral("upload is retried"), false,
            QStringLiteral("expected 3 attempts, got 1 (see https://h/?token=tok-SECRET-1)"), 45.0, {2, 3}},
    };
}

void compareHeaders(const HeaderList &actual, const HeaderList &expected)
{
    QCOMPARE(actual.size(), expected.size());
    for (qsizetype i = 0; i < actual.size(); ++i) {
        QCOMPARE(actual.at(i).first, expected.at(i).first);
        QCOMPARE(actual.at(i).second, expected.at(i).second);
    }
}

void compareAttempt(const AttemptRecord &a, const AttemptRecord &b)
{
    QCOMPARE(a.requestId, b.requestId);
    QCOMPARE(a.attemptIndex, b.attemptIndex);
    QCOMPARE(a.step, b.step);
    QCOMPARE(a.sequenceRound, b.sequenceRound);
    QCOMPARE(a.method, b.method);
    QCOMPARE(a.url, b.url);
    compareHeaders(a.requestHeaders, b.requestHeaders);
    QCOMPARE(a.queuedNs, b.queuedNs);
    QCOMPARE(a.startNs, b.startNs);
    QCOMPARE(a.endNs, b.endNs);
    QCOMPARE(a.startWall, b.startWall);
    QCOMPARE(a.redirects.size(), b.redirects.size());
    for (qsizetype i = 0; i < a.redirects.size(); ++i) {
        const RedirectHop &x = a.redirects.at(i);
        const RedirectHop &y = b.redirects.at(i);
        QCOMPARE(x.status, y.status);
        QCOMPARE(x.method, y.method);
        QCOMPARE(x.from, y.from);
        QCOMPARE(x.to, y.to);
        QCOMPARE(x.followed, y.followed);
        QCOMPARE(x.crossOrigin, y.crossOrigin);
        QCOMPARE(x.droppedHeaders, y.droppedHeaders);
        QCOMPARE(x.note, y.note);
        QCOMPARE(x.startNs, y.startNs);
        QCOMPARE(x.connectionStartedNs, y.connectionStartedNs);
        QCOMPARE(x.requestSentNs, y.requestSentNs);
        QCOMPARE(x.firstByteNs, y.firstByteNs);
        QCOMPARE(x.finishedNs, y.finishedNs);
    }
    QCOMPARE(a.plannedDelayMs, b.plannedDelayMs);
    QCOMPARE(a.actualDelayMs, b.actualDelayMs);
    QCOMPARE(a.connectionStartedNs, b.connectionStartedNs);
    QCOMPARE(a.requestSentNs, b.requestSentNs);
    QCOMPARE(a.firstByteNs, b.firstByteNs);
    QCOMPARE(a.finishedNs, b.finishedNs);
    QCOMPARE(a.lookupStartNs, b.lookupStartNs);
    QCOMPARE(a.lookupEndNs, b.lookupEndNs);
    QCOMPARE(a.connectedNs, b.connectedNs);
    QCOMPARE(a.encryptedNs, b.encryptedNs);
    QCOMPARE(a.connectAddress, b.connectAddress);
    QCOMPARE(a.connectTimedOut, b.connectTimedOut);
    QCOMPARE(a.end, b.end);
    QCOMPARE(a.httpStatus, b.httpStatus);
    QCOMPARE(a.reasonPhrase, b.reasonPhrase);
    QCOMPARE(a.networkError, b.networkError);
    QCOMPARE(a.errorString, b.errorString);
    compareHeaders(a.responseHeaders, b.responseHeaders);
    QCOMPARE(a.bytesReceived, b.bytesReceived);
    QCOMPARE(a.expectedBytes, b.expectedBytes);
    QCOMPARE(a.decision, b.decision);
    QCOMPARE(a.cause, b.cause);
    QCOMPARE(a.reason, b.reason);
    QCOMPARE(a.retryAfterMs, b.retryAfterMs);
    QCOMPARE(a.retryAfterRaw, b.retryAfterRaw);
    QCOMPARE(a.nextDelayMs, b.nextDelayMs);
    QCOMPARE(a.protocol, b.protocol);
    QCOMPARE(a.tls, b.tls);
}

void compareRequest(const RequestSpec &a, const RequestSpec &b)
{
    QCOMPARE(a.kind, b.kind);
    QCOMPARE(a.method, b.method);
    QCOMPARE(a.url, b.url);
    compareHeaders(a.headers, b.headers);
    QCOMPARE(a.body, b.body);
    QCOMPARE(a.attemptHeaders, b.attemptHeaders);
    QCOMPARE(a.idempotent, b.idempotent);
    QCOMPARE(a.attemptTimeoutMs, b.attemptTimeoutMs);
    QCOMPARE(a.label, b.label);
    QCOMPARE(a.increment, b.increment);
    QCOMPARE(a.seed, b.seed);
    QCOMPARE(a.seedStream, b.seedStream);
    // Everything but the secrets, which a report never holds.
    TransportOptions expected = b.transport;
    expected.clientKeyPassphrase.clear();
    expected.proxyUser.clear();
    expected.proxyPassword.clear();
    QCOMPARE(a.transport, expected);
}

void compareResult(const RequestResult &a, const RequestResult &b)
{
    QCOMPARE(a.requestId, b.requestId);
    QCOMPARE(a.outcome, b.outcome);
    QCOMPARE(a.attempts, b.attempts);
    QCOMPARE(a.reason, b.reason);
    QCOMPARE(a.finalStatus, b.finalStatus);
    QCOMPARE(a.startNs, b.startNs);
    QCOMPARE(a.endNs, b.endNs);
    QCOMPARE(a.body, b.body);
}

QJsonObject sampleObject()
{
    return ReportJson::toJsonObject(ExportSamples::sampleRun(), ExportOptions{false}, sampleExpectations());
}

using Mutation = std::function<void(QJsonObject &)>;

// Replaces one field of an element of a top-level array.
Mutation setInArray(const QString &array, int index, const QString &key, const QJsonValue &value)
{
    return [=](QJsonObject &o) {
        QJsonArray items = o.value(array).toArray();
        QJsonObject item = items.at(index).toObject();
        item.insert(key, value);
        items.replace(index, item);
        o.insert(array, items);
    };
}

} // namespace

Q_DECLARE_METATYPE(Mutation)

class TestReportJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_unredacted_isLossless();
    void roundTrip_isStable();
    void attemptHeadersOff_isWrittenAndReadBack();
    void readBack_repeatedHeaders_shareOneCopy();
    void fallbacks_roundTrip_andAbsentWhenNone();
    void hedging_roundTrips_andAbsentWithoutIt();
    void fallbackOn_roundTrip_saysWhatSentIt_absentWithoutAList();
    void readModifyWriteShape_roundTrips();
    void streamed_equalsTheWholeDocument();
    void olderReport_withEnd_readsBack();
    void transportAndTls_roundTrip_withoutSecrets();
    void certificateErrorsIgnored_saidByTheReport();
    void nonFiniteNumbers_comeBackAsNaN();
    void timesAreRelativeAndUtc();
    void phases_perAttempt_nullWhereUnknown();
    void hugeAndBinaryValues_areExact();
    void redactedByDefault_noSecretAnywhere();
    void unredacted_containsSecretsAndWarns();
    void summary_countsOutcomes();
    void malformed_namesTheField_data();
    void malformed_namesTheField();
    void notJson_saysWhere();
    void files_writeAndRead();
    void unreadableFile_namesThePath();
};

void TestReportJson::roundTrip_unredacted_isLossless()
{
    const RunRecord run = ExportSamples::sampleRun();
    const auto back = ReportJson::fromJson(ReportJson::toJson(run, ExportOptions{false}, sampleExpectations()));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    const ReportJson::Report &report = back.value();

    QVERIFY(!report.redacted);
    QVERIFY(report.run.policy == run.policy);
    QCOMPARE(report.run.startedAt, run.startedAt);
    QCOMPARE(report.run.epochNs, run.epochNs);
    QCOMPARE(report.run.seed, run.seed);

    QCOMPARE(report.run.requests.size(), run.requests.size());
    for (auto it = run.requests.cbegin(); it != run.requests.cend(); ++it) {
        QVERIFY(report.run.requests.contains(it.key()));
        compareRequest(report.run.requests.value(it.key()), it.value());
        if (QTest::currentTestFailed())
            QFAIL(qPrintable(QStringLiteral("request %1 differs").arg(it.key())));
    }
    QCOMPARE(report.run.attempts.size(), run.attempts.size());
    for (qsizetype i = 0; i < run.attempts.size(); ++i) {
        compareAttempt(report.run.attempts.at(i), run.attempts.at(i));
        if (QTest::currentTestFailed())
            QFAIL(qPrintable(QStringLiteral("attempt %1 differs").arg(i)));
    }
    QCOMPARE(report.run.results.size(), run.results.size());
    for (qsizetype i = 0; i < run.results.size(); ++i) {
        compareResult(report.run.results.at(i), run.results.at(i));
        if (QTest::currentTestFailed())
            QFAIL(qPrintable(QStringLiteral("result %1 differs").arg(i)));
    }
    QCOMPARE(report.expectations, sampleExpectations());
}

void TestReportJson::transportAndTls_roundTrip_withoutSecrets()
{
    const RunRecord run = ExportSamples::transportRun();
    const QByteArray json = ReportJson::toJson(run, ExportOptions{false});
    for (const QString &secret : ExportSamples::transportSecrets())
        QVERIFY2(!json.contains(secret.toUtf8()), qPrintable(secret));
    const auto back = ReportJson::fromJson(json);
    QVERIFY2(back.ok(), qPrintable(back.error()));
    compareRequest(back->run.requests.value(1), run.requests.value(1));
    QCOMPARE(back->run.requests.value(1).transport.httpVersion, TransportOptions::HttpVersion::Http2);
    QCOMPARE(back->run.attempts.size(), run.attempts.size());
    for (qsizetype i = 0; i < run.attempts.size(); ++i) {
        compareAttempt(back->run.attempts.at(i), run.attempts.at(i));
        if (QTest::currentTestFailed())
            QFAIL(qPrintable(QStringLiteral("attempt %1 differs").arg(i)));
    }
    // Requests with the default transport write none.
    const QJsonObject object = ReportJson::toJsonObject(run);
    QVERIFY(object.value(QStringLiteral("requests")).toArray().at(0).toObject().contains(QStringLiteral("transport")));
    QVERIFY(!object.value(QStringLiteral("requests")).toArray().at(1).toObject().contains(QStringLiteral("transport")));

    // A transport the reader cannot use is refused with its place named.
    QJsonObject broken = object;
    QJsonArray requests = broken.value(QStringLiteral("requests")).toArray();
    QJsonObject first = requests.at(0).toObject();
    QJsonObject transport = first.value(QStringLiteral("transport")).toObject();
    transport.insert(QStringLiteral("proxyMode"), QStringLiteral("ftp"));
    first.insert(QStringLiteral("transport"), transport);
    requests.replace(0, first);
    broken.insert(QStringLiteral("requests"), requests);
    const auto refused = ReportJson::fromJsonObject(broken);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().startsWith(QLatin1String("requests[0].transport.proxyMode")), qPrintable(refused.error()));
}

void TestReportJson::phases_perAttempt_nullWhereUnknown()
{
    const RunRecord run = ExportSamples::transportRun();
    const QJsonObject object = ReportJson::toJsonObject(run, ExportOptions{false});
    const QJsonArray attempts = object.value(QStringLiteral("attempts")).toArray();
    bool sawMeasured = false;
    for (const QJsonValue &value : attempts) {
        const QJsonObject a = value.toObject();
        // Every attempt carries every phase key, a number or null; the instants keep their keys.
        for (const char *key : {"dnsMs", "connectMs", "tlsMs", "connectTlsMs", "sendMs", "waitMs", "downloadMs"})
            QVERIFY2(a.contains(QLatin1String(key)), key);
        QVERIFY(a.contains(QStringLiteral("firstByteMs"))); // the instant, as before
        QVERIFY(a.value(QStringLiteral("connectionReused")).isBool());
        if (a.value(QStringLiteral("connectAddress")).toString() != QLatin1String("127.0.0.1"))
            continue;
        sawMeasured = true;
        QCOMPARE(a.value(QStringLiteral("dnsMs")).toDouble(), 2.0);
        QCOMPARE(a.value(QStringLiteral("connectTlsMs")).toDouble(), 6.5);
        QVERIFY(a.value(QStringLiteral("connectMs")).isNull()); // Qt does not say when TCP ended over TLS
        QVERIFY(a.value(QStringLiteral("tlsMs")).isNull());
        QCOMPARE(a.value(QStringLiteral("sendMs")).toDouble(), 0.25);
        QCOMPARE(a.value(QStringLiteral("connectionReused")).toBool(), false);
    }
    QVERIFY(sawMeasured);
    const QJsonObject transport = object.value(QStringLiteral("requests"))
                                      .toArray()
                                      .at(0)
                                      .toObject()
                                      .value(QStringLiteral("transport"))
                                      .toObject();
    QCOMPARE(transport.value(QStringLiteral("connectTimeoutMs")).toDouble(), 2500.0);
    QCOMPARE(transport.value(QStringLiteral("resolve")).toArray().at(0).toString(),
        QStringLiteral("api.example.com:443:127.0.0.1"));
    QCOMPARE(transport.value(QStringLiteral("ipFamily")).toString(), QStringLiteral("ipv4"));
    QCOMPARE(transport.value(QStringLiteral("keepAlive")).toBool(true), false);
}

void TestReportJson::certificateErrorsIgnored_saidByTheReport()
{
    const QJsonObject plain = ReportJson::toJsonObject(ExportSamples::sampleRun());
    QCOMPARE(plain.value(QStringLiteral("certificateErrorsIgnored")).toInt(-1), 0);
    QVERIFY(!plain.contains(QStringLiteral("insecureWarning")));

    const QJsonObject insecure = ReportJson::toJsonObject(ExportSamples::transportRun());
    QCOMPARE(insecure.value(QStringLiteral("certificateErrorsIgnored")).toInt(), 1);
    const QString warning = insecure.value(QStringLiteral("insecureWarning")).toString();
    QVERIFY2(warning.contains(QLatin1String("Certificate errors were ignored")), qPrintable(warning));
    QVERIFY2(warning.contains(QLatin1String("api.example.com")), qPrintable(warning));
    const QJsonObject first = insecure.value(QStringLiteral("attempts")).toArray().at(0).toObject();
    QVERIFY(first.value(QStringLiteral("tls")).toObject().value(QStringLiteral("errorsIgnored")).toBool());
}

void TestReportJson::attemptHeadersOff_isWrittenAndReadBack()
{
    RunRecord run = ExportSamples::sampleRun();
    const QByteArray usual = ReportJson::toJson(run, ExportOptions{false});
    QVERIFY(!usual.contains("attemptHeaders")); // the usual case adds nothing
    run.requests[1].attemptHeaders = false;
    const QByteArray off = ReportJson::toJson(run, ExportOptions{false});
    QVERIFY(off.contains("\"attemptHeaders\": false"));
    const auto back = ReportJson::fromJson(off);
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QVERIFY(!back.value().run.requests.value(1).attemptHeaders);
    QVERIFY(ReportJson::fromJson(usual).value().run.requests.value(1).attemptHeaders);
}

void TestReportJson::readBack_repeatedHeaders_shareOneCopy()
{
    // Every attempt of every request carries the same 60 KB cookie: read back, the
    // run holds its bytes once, not once per request and attempt.
    RunRecord run = ExportSamples::sampleRun();
    const QByteArray cookie = QByteArray(60 * 1024, 'c');
    for (RequestSpec &spec : run.requests)
        spec.headers.append(qMakePair(QByteArray("X-Big"), cookie));
    for (AttemptRecord &a : run.attempts) {
        a.requestHeaders.append(
            qMakePair(QByteArray("X-Big"), QByteArray(cookie.constData(), cookie.size()))); // a copy of its own
        a.responseHeaders.append(qMakePair(QByteArray("Server"), QByteArray("retrylab")));
    }
    const auto back = ReportJson::fromJson(ReportJson::toJson(run, ExportOptions{false}));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QSet<const char *> buffers;
    QSet<const char *> servers;
    int copies = 0;
    const auto look = [&](const HeaderList &headers) {
        for (const auto &[name, value] : headers) {
            if (name == "X-Big") {
                QCOMPARE(value, cookie);
                buffers.insert(value.constData());
                ++copies;
            } else if (name == "Server") {
                servers.insert(value.constData());
            }
        }
    };
    for (const RequestSpec &spec : back->run.requests)
        look(spec.headers);
    for (const AttemptRecord &a : back->run.attempts) {
        look(a.requestHeaders);
        look(a.responseHeaders);
    }
    QCOMPARE(copies, run.requests.size() + run.attempts.size());
    QCOMPARE(buffers.size(), 1);
    QCOMPARE(servers.size(), 1);
}

void TestReportJson::readModifyWriteShape_roundTrips()
{
    RunRecord run = ExportSamples::sampleRun();
    QCOMPARE(run.requests.value(3).kind, RequestSpec::Kind::ReadModifyWrite);
    QVERIFY(!ReportJson::toJson(run, ExportOptions{false}).contains("readModifyWrite"));
    ReadModifyWriteShape &shape = run.requests[3].readModifyWrite;
    shape.readMethod = "POST";
    shape.writeMethod = "POST";
    shape.writeUrl = QUrl(QStringLiteral("http://127.0.0.1:9/v1/p:setIamPolicy"));
    shape.valuePointer = QStringLiteral("/spec/replicas");
    shape.etagPointer = QStringLiteral("/etag");
    shape.writeEnvelope = QStringLiteral("policy");
    const auto back = ReportJson::fromJson(ReportJson::toJson(run, ExportOptions{false}));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QCOMPARE(back->run.requests.value(3).readModifyWrite, shape);
}

void TestReportJson::fallbacks_roundTrip_andAbsentWhenNone()
{
    RunRecord run = ExportSamples::sampleRun();
    QVERIFY(!ReportJson::toJson(run, ExportOptions{false}).contains("fallback")); // reports without stay as they were
    run.requests[1].fallbackUrls = {QUrl(QStringLiteral("http://127.0.0.1:9/alt")),
        QUrl(QStringLiteral("https://u:secret@backup.example/x?token=t"))};
    run.attempts.last().fallback = 2;
    run.results.last().fallback = 2;
    const QByteArray json = ReportJson::toJson(run, ExportOptions{true});
    QVERIFY(!json.contains("secret")); // redacted like every URL
    const auto back = ReportJson::fromJson(ReportJson::toJson(run, ExportOptions{false}));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QCOMPARE(back->run.requests.value(1).fallbackUrls, run.requests.value(1).fallbackUrls);
    QCOMPARE(back->run.attempts.last().fallback, 2);
    QCOMPARE(back->run.results.last().fallback, 2);
    QCOMPARE(back->run.attempts.first().fallback, 0);
    QVERIFY(back->run.requests.value(3).readModifyWrite.isDefault());
    // A fallback that is not a URL is refused with its field named.
    QByteArray bad = ReportJson::toJson(run, ExportOptions{false});
    bad.replace("http://127.0.0.1:9/alt", "not a url");
    const auto refused = ReportJson::fromJson(bad);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().contains(QLatin1String("fallbackUrls")), qPrintable(refused.error()));
}

void TestReportJson::hedging_roundTrips_andAbsentWithoutIt()
{
    RunRecord run = ExportSamples::sampleRun();
    QVERIFY(!ReportJson::toJson(run, ExportOptions{false}).contains("hedge")); // reports without stay as they were
    run.attempts[1].hedged = true;
    run.attempts[1].hedgeWinner = true;
    run.attempts[2].hedged = true;
    const auto back = ReportJson::fromJson(ReportJson::toJson(run, ExportOptions{false}));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    for (qsizetype i = 0; i < run.attempts.size(); ++i) {
        QCOMPARE(back->run.attempts.at(i).hedged, run.attempts.at(i).hedged);
        QCOMPARE(back->run.attempts.at(i).hedgeWinner, run.attempts.at(i).hedgeWinner);
    }
}

void TestReportJson::fallbackOn_roundTrip_saysWhatSentIt_absentWithoutAList()
{
    RunRecord run = ExportSamples::sampleRun();
    run.requests[1].fallbackUrls = {QUrl(QStringLiteral("http://127.0.0.1:9/alt"))};
    run.results.last().fallback = 1;
    // Without a list of the request's own, the report keeps its keys.
    const QByteArray without = ReportJson::toJson(run, ExportOptions{false});
    QVERIFY(!without.contains("fallbackOn"));
    QVERIFY(!without.contains("fallbackTriggers"));

    run.requests[1].fallbackOn = {QStringLiteral("503"), QStringLiteral("timeout")};
    run.results.last().fallbackTriggers = {QStringLiteral("timeout")};
    const auto back = ReportJson::fromJson(ReportJson::toJson(run, ExportOptions{false}));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QCOMPARE(back->run.requests.value(1).fallbackOn, run.requests.value(1).fallbackOn);
    QCOMPARE(back->run.results.last().fallbackTriggers, QStringList{QStringLiteral("timeout")});
    QVERIFY(back->run.requests.value(2).fallbackOn.isEmpty());

    // An entry that is none is refused with its place named.
    QByteArray bad = ReportJson::toJson(run, ExportOptions{false});
    bad.replace("\"503\"", "\"6xx\"");
    const auto refused = ReportJson::fromJson(bad);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().contains(QLatin1String("fallbackOn[0]")), qPrintable(refused.error()));
    QVERIFY2(refused.error().contains(QLatin1String("\"6xx\"")), qPrintable(refused.error()));
}

void TestReportJson::roundTrip_isStable()
{
    const QByteArray first = ReportJson::toJson(ExportSamples::sampleRun(), ExportOptions{false}, sampleExpectations());
    const auto back = ReportJson::fromJson(first);
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QCOMPARE(ReportJson::toJson(back->run, ExportOptions{false}, back->expectations), first);
}

void TestReportJson::streamed_equalsTheWholeDocument()
{
    // Written element by element, the report is byte for byte the document Qt would write whole.
    for (const RunRecord &run : {ExportSamples::sampleRun(), ExportSamples::transportRun(), RunRecord{}}) {
        const QByteArray whole
            = QJsonDocument(ReportJson::toJsonObject(run, ExportOptions{false}, sampleExpectations()))
                  .toJson(QJsonDocument::Indented);
        QCOMPARE(ReportJson::toJson(run, ExportOptions{false}, sampleExpectations()), whole);
    }
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.json"));
    const RunRecord run = ExportSamples::sampleRun();
    QVERIFY(ReportJson::writeFile(path, run).ok());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), ReportJson::toJson(run));
}

void TestReportJson::olderReport_withEnd_readsBack()
{
    // Reports written before "ending" named how an attempt ended "end": they open as they did.
    QJsonObject o = sampleObject();
    QJsonArray attempts = o.value(QStringLiteral("attempts")).toArray();
    QStringList endings;
    for (qsizetype i = 0; i < attempts.size(); ++i) {
        QJsonObject a = attempts.at(i).toObject();
        endings.append(a.value(QStringLiteral("ending")).toString());
        a.insert(QStringLiteral("end"), a.take(QStringLiteral("ending")));
        attempts.replace(i, a);
    }
    o.insert(QStringLiteral("attempts"), attempts);
    const auto older = ReportJson::fromJsonObject(o);
    QVERIFY2(older.ok(), qPrintable(older.error()));
    const auto current = ReportJson::fromJsonObject(sampleObject());
    QVERIFY(current.ok());
    QCOMPARE(older->run.attempts.size(), current->run.attempts.size());
    for (qsizetype i = 0; i < older->run.attempts.size(); ++i)
        QCOMPARE(older->run.attempts.at(i).end, current->run.attempts.at(i).end);
    QVERIFY(endings.contains(QStringLiteral("network-error")));
}

void TestReportJson::nonFiniteNumbers_comeBackAsNaN()
{
    RunRecord run = ExportSamples::sampleRun();
    run.attempts[0].plannedDelayMs = std::nan("");
    run.attempts[0].actualDelayMs = std::numeric_limits<double>::infinity();
    const QJsonObject o = ReportJson::toJsonObject(run);
    QVERIFY(o.value(QStringLiteral("attempts"))
                .toArray()
                .at(0)
                .toObject()
                .value(QStringLiteral("plannedDelayMs"))
                .isNull());
    const auto back = ReportJson::fromJsonObject(o);
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QVERIFY(std::isnan(back->run.attempts.at(0).plannedDelayMs));
    QVERIFY(std::isnan(back->run.attempts.at(0).actualDelayMs));
}

void TestReportJson::timesAreRelativeAndUtc()
{
    const QJsonObject o = ReportJson::toJsonObject(ExportSamples::sampleRun());
    QCOMPARE(o.value(QStringLiteral("startedAt")).toString(), QStringLiteral("2025-03-04T05:06:07.089Z"));
    const QJsonArray attempts = o.value(QStringLiteral("attempts")).toArray();
    const QJsonObject first = attempts.at(0).toObject(); // request 1, attempt 0
    QCOMPARE(first.value(QStringLiteral("startMs")).toDouble(), 0.0);
    QCOMPARE(first.value(QStringLiteral("startUtc")).toString(), QStringLiteral("2025-03-04T05:06:07.089Z"));
    QCOMPARE(first.value(QStringLiteral("endMs")).toDouble(), 120.5);
    QCOMPARE(first.value(QStringLiteral("endUtc")).toString(), QStringLiteral("2025-03-04T05:06:07.209Z"));
    QCOMPARE(first.value(QStringLiteral("connectionStartedMs")).toDouble(), 1.25);
    QCOMPARE(first.value(QStringLiteral("queuedMs")).toDouble(), 1.5);
    QCOMPARE(first.value(QStringLiteral("durationMs")).toDouble(), 120.5);
    QCOMPARE(first.value(QStringLiteral("ending")).toString(), QStringLiteral("response"));
    QVERIFY(!first.contains(QStringLiteral("end"))); // a jq keyword; "endMs" and "endUtc" are the instant
    QCOMPARE(first.value(QStringLiteral("httpStatus")).toInt(), 503);
    QCOMPARE(first.value(QStringLiteral("decision")).toString(), QStringLiteral("retry-after-delay"));
    QCOMPARE(first.value(QStringLiteral("networkError")).toString(), QStringLiteral("ServiceUnavailableError"));
    // No network error is named too (the CSV leaves that cell empty).
    QVERIFY(std::any_of(attempts.begin(), attempts.end(), [](const QJsonValue &a) {
        return a.toObject().value(QStringLiteral("networkError")).toString() == QLatin1String("NoError");
    }));

    const QJsonObject refused = attempts.at(6).toObject(); // request 1, attempt 1
    QCOMPARE(refused.value(QStringLiteral("attemptIndex")).toInt(), 1);
    QVERIFY(refused.value(QStringLiteral("httpStatus")).isNull());
    QVERIFY(refused.value(QStringLiteral("requestSentMs")).isNull());
    QVERIFY(refused.value(QStringLiteral("requestSentUtc")).isNull());
    QCOMPARE(refused.value(QStringLiteral("ending")).toString(), QStringLiteral("network-error"));
    QCOMPARE(refused.value(QStringLiteral("plannedDelayMs")).toDouble(), 1234.5);
    QCOMPARE(refused.value(QStringLiteral("actualDelayMs")).toDouble(), 1239.75);
}

void TestReportJson::hugeAndBinaryValues_areExact()
{
    const QJsonObject o = ReportJson::toJsonObject(ExportSamples::sampleRun());
    const QJsonObject deadline = o.value(QStringLiteral("attempts")).toArray().at(9).toObject();
    // Beyond 2^53 a JSON number would round; such values are decimal strings.
    QCOMPARE(deadline.value(QStringLiteral("bytesReceived")).toString(), QString::number(qint64(1) << 60));
    QCOMPARE(deadline.value(QStringLiteral("expectedBytes")).toString(), QString::number((qint64(1) << 62) + 1));
    QCOMPARE(deadline.value(QStringLiteral("endMs")).toDouble(), 86'400'300.0);

    const QJsonObject post = o.value(QStringLiteral("requests")).toArray().at(1).toObject();
    QCOMPARE(post.value(QStringLiteral("id")).toInt(), 2);
    const QJsonObject body = post.value(QStringLiteral("body")).toObject();
    QCOMPARE(QByteArray::fromBase64(body.value(QStringLiteral("base64")).toString().toLatin1()),
        ExportSamples::binaryBody());

    const QJsonObject huge = o.value(QStringLiteral("requests")).toArray().at(3).toObject();
    QCOMPARE(huge.value(QStringLiteral("headers"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("value"))
                 .toString()
                 .size(),
        200 * 1024);
}

void TestReportJson::redactedByDefault_noSecretAnywhere()
{
    const QByteArray json = ReportJson::toJson(ExportSamples::sampleRun(), ExportOptions{}, sampleExpectations());
    for (const QString &secret : ExportSamples::secrets())
        QVERIFY2(!json.contains(secret.toUtf8()), qPrintable(secret));
    QVERIFY(json.contains("REDACTED"));
    const auto back = ReportJson::fromJson(json);
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QVERIFY(back->redacted);
    QVERIFY(!QJsonDocument::fromJson(json).object().contains(QStringLiteral("credentialsWarning")));
    // What is not secret survives redaction.
    QCOMPARE(back->run.requests.value(1).headers.at(3).second, ExportSamples::noteHeaderValue());
    QCOMPARE(back->run.requests.value(1).headers.at(5).second, QByteArray("idem-42"));
    QCOMPARE(back->run.requests.value(1).url.host(), QStringLiteral("api.example.com"));
}

void TestReportJson::unredacted_containsSecretsAndWarns()
{
    const QByteArray json = ReportJson::toJson(ExportSamples::sampleRun(), ExportOptions{false}, sampleExpectations());
    for (const QString &secret : ExportSamples::secrets())
        QVERIFY2(json.contains(secret.toUtf8()), qPrintable(secret));
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    QCOMPARE(o.value(QStringLiteral("redacted")).toBool(true), false);
    QCOMPARE(o.value(QStringLiteral("credentialsWarning")).toString(), ExportOptions::credentialsWarning());
}

void TestReportJson::summary_countsOutcomes()
{
    const QJsonObject o = ReportJson::toJsonObject(ExportSamples::sampleRun());
    QCOMPARE(o.value(QStringLiteral("format")).toString(), QStringLiteral("retrylab-report"));
    QCOMPARE(o.value(QStringLiteral("version")).toInt(), ReportJson::formatVersion);
    const QJsonObject summary = o.value(QStringLiteral("summary")).toObject();
    QCOMPARE(summary.value(QStringLiteral("requests")).toInt(), 5);
    QCOMPARE(summary.value(QStringLiteral("attempts")).toInt(), 10);
    QCOMPARE(summary.value(QStringLiteral("retries")).toInt(), 6);
    const QJsonObject outcomes = summary.value(QStringLiteral("outcomes")).toObject();
    QCOMPARE(outcomes.value(QStringLiteral("succeeded")).toInt(), 2);
    QCOMPARE(outcomes.value(QStringLiteral("gave-up")).toInt(), 1);
    QCOMPARE(outcomes.value(QStringLiteral("deadline-exceeded")).toInt(), 1);
    QCOMPARE(outcomes.value(QStringLiteral("invalid-request")).toInt(), 1);
}

void TestReportJson::malformed_namesTheField_data()
{
    QTest::addColumn<Mutation>("mutate");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    QTest::addRow("wrong format") << Mutation([](QJsonObject &o) {
        o.insert(QStringLiteral("format"), QStringLiteral("har"));
    }) << QStringLiteral("format") << QStringLiteral("expected \"retrylab-report\", got \"har\"");
    QTest::addRow("future version") << Mutation([](QJsonObject &o) { o.insert(QStringLiteral("version"), 99); })
                                    << QStringLiteral("version") << QStringLiteral("version 99 is not supported");
    QTest::addRow("no attempts") << Mutation([](QJsonObject &o) { o.remove(QStringLiteral("attempts")); })
                                 << QStringLiteral("attempts") << QStringLiteral("missing");
    QTest::addRow("attempts not an array")
        << Mutation([](QJsonObject &o) { o.insert(QStringLiteral("attempts"), QStringLiteral("many")); })
        << QStringLiteral("attempts") << QStringLiteral("expected an array");
    QTest::addRow("attempt not an object") << Mutation([](QJsonObject &o) {
        QJsonArray a = o.value(QStringLiteral("attempts")).toArray();
        a.replace(2, 7);
        o.insert(QStringLiteral("attempts"), a);
    }) << QStringLiteral("attempts[2]") << QStringLiteral("expected an object");
    QTest::addRow("status is text") << setInArray(QStringLiteral("attempts"), 3, QStringLiteral("httpStatus"),
        QStringLiteral("abc")) << QStringLiteral("attempts[3].httpStatus")
                                    << QStringLiteral("expected a whole number");
    QTest::addRow("status out of range") << setInArray(QStringLiteral("attempts"), 3, QStringLiteral("httpStatus"),
        12345) << QStringLiteral("attempts[3].httpStatus")
                                         << QStringLiteral("12345 is out of range (0 to 999)");
    QTest::addRow("unknown end") << setInArray(
        QStringLiteral("attempts"), 0, QStringLiteral("ending"), QStringLiteral("exploded"))
                                 << QStringLiteral("attempts[0].ending")
                                 << QStringLiteral("unknown value \"exploded\"");
    QTest::addRow("no request id") << Mutation([](QJsonObject &o) {
        QJsonArray a = o.value(QStringLiteral("attempts")).toArray();
        QJsonObject item = a.at(1).toObject();
        item.remove(QStringLiteral("requestId"));
        a.replace(1, item);
        o.insert(QStringLiteral("attempts"), a);
    }) << QStringLiteral("attempts[1].requestId")
                                   << QStringLiteral("missing");
    QTest::addRow("negative request id") << setInArray(QStringLiteral("attempts"), 1, QStringLiteral("requestId"), -4)
                                         << QStringLiteral("attempts[1].requestId")
                                         << QStringLiteral("expected a request id");
    QTest::addRow("header not an object")
        << setInArray(QStringLiteral("attempts"), 1, QStringLiteral("requestHeaders"), QJsonArray{5})
        << QStringLiteral("attempts[1].requestHeaders[0]")
        << QStringLiteral("expected an object with \"name\" and \"value\"");
    QTest::addRow("start is text") << setInArray(
        QStringLiteral("attempts"), 0, QStringLiteral("startMs"), QStringLiteral("soon"))
                                   << QStringLiteral("attempts[0].startMs") << QStringLiteral("expected milliseconds");
    QTest::addRow("bad start wall") << setInArray(QStringLiteral("attempts"), 0, QStringLiteral("startWall"),
        QStringLiteral("yesterday")) << QStringLiteral("attempts[0].startWall")
                                    << QStringLiteral("expected an ISO 8601");
    QTest::addRow("unknown network error")
        << setInArray(QStringLiteral("attempts"), 0, QStringLiteral("networkError"), QStringLiteral("GremlinError"))
        << QStringLiteral("attempts[0].networkError") << QStringLiteral("unknown network error \"GremlinError\"");
    QTest::addRow("bad url") << setInArray(
        QStringLiteral("requests"), 0, QStringLiteral("url"), QStringLiteral("http://[bad"))
                             << QStringLiteral("requests[0].url") << QStringLiteral("not a valid URL");
    QTest::addRow("bad base64") << setInArray(QStringLiteral("requests"), 1, QStringLiteral("body"),
        QJsonObject{{QStringLiteral("base64"), QStringLiteral("!!")}})
                                << QStringLiteral("requests[1].body") << QStringLiteral("invalid base64");
    QTest::addRow("duplicate request") << setInArray(QStringLiteral("requests"), 1, QStringLiteral("id"), 1)
                                       << QStringLiteral("requests[1].id") << QStringLiteral("request 1 appears twice");
    QTest::addRow("unknown outcome") << setInArray(
        QStringLiteral("results"), 2, QStringLiteral("outcome"), QStringLiteral("meh"))
                                     << QStringLiteral("results[2].outcome") << QStringLiteral("unknown value \"meh\"");
    QTest::addRow("bad expectation id") << setInArray(QStringLiteral("expectations"), 0, QStringLiteral("requestIds"),
        QJsonArray{-1}) << QStringLiteral("expectations[0].requestIds[0]")
                                        << QStringLiteral("expected a request id");
    QTest::addRow("bad policy") << Mutation([](QJsonObject &o) {
        QJsonObject p = o.value(QStringLiteral("policy")).toObject();
        p.insert(QStringLiteral("maxAttempts"), -1);
        o.insert(QStringLiteral("policy"), p);
    }) << QStringLiteral("policy.maxAttempts")
                                << QStringLiteral("the number of attempts cannot be negative");
    QTest::addRow("bad policy in the list") << Mutation([](QJsonObject &o) {
        QJsonObject policy = o.value(QStringLiteral("policy")).toObject();
        policy.insert(
            QStringLiteral("classification"), QJsonObject{{QStringLiteral("maxRetryAfterMs"), QStringLiteral("x")}});
        o.insert(QStringLiteral("policies"),
            QJsonArray{QJsonObject{{QStringLiteral("index"), 0}, {QStringLiteral("policy"), policy}}});
    }) << QStringLiteral("policies[0].policy.classification.maxRetryAfterMs")
                                            << QStringLiteral("expected a number, got a string");
    QTest::addRow("policy index beyond the list")
        << setInArray(QStringLiteral("requests"), 2, QStringLiteral("policyIndex"), 7)
        << QStringLiteral("requests[2].policyIndex") << QStringLiteral("7 is not an index into \"policies\"");
}

void TestReportJson::malformed_namesTheField()
{
    QFETCH(Mutation, mutate);
    QFETCH(QString, path);
    QFETCH(QString, message);
    QJsonObject o = sampleObject();
    QVERIFY(ReportJson::fromJsonObject(o).ok());
    mutate(o);
    const auto result = ReportJson::fromJsonObject(o);
    QVERIFY(!result.ok());
    QCOMPARE(result.errorDetail().path, path);
    QVERIFY2(result.errorDetail().message.startsWith(message), qPrintable(result.error()));
}

void TestReportJson::notJson_saysWhere()
{
    const QByteArray cut = "{\"format\": \"retrylab-report\",,}";
    auto result = ReportJson::fromJson(cut);
    QVERIFY(!result.ok());
    // A single line of ASCII: the column is the offset plus one.
    const Error error = result.errorDetail();
    QVERIFY2(error.offset > 0 && error.offset < cut.size(), qPrintable(QString::number(error.offset)));
    QVERIFY2(error.message.startsWith(QStringLiteral("line 1, column %1: not valid JSON").arg(error.offset + 1)),
        qPrintable(result.error()));
    result = ReportJson::fromJson("[1, 2]");
    QVERIFY(!result.ok());
    QVERIFY(result.error().contains(QLatin1String("JSON object")));
}

void TestReportJson::files_writeAndRead()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("run.json"));
    const auto written = ReportJson::writeFile(path, ExportSamples::sampleRun(), ExportOptions{false});
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QVERIFY(written.value() > 200 * 1024);
    const auto read = ReportJson::readFile(path);
    QVERIFY2(read.ok(), qPrintable(read.error()));
    QCOMPARE(read->run.attempts.size(), 10);
}

void TestReportJson::unreadableFile_namesThePath()
{
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("missing.json"));
    auto result = ReportJson::readFile(missing);
    QVERIFY(!result.ok());
    QVERIFY(result.error().contains(QDir::toNativeSeparators(missing)));

    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QFile file(broken);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"format\": \"retrylab-report\", \"version\": 1}");
    file.close();
    result = ReportJson::readFile(broken);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().contains(QDir::toNativeSeparators(broken)), qPrintable(result.error()));
    QVERIFY2(result.error().endsWith(QLatin1String("broken.json: policy: missing")), qPrintable(result.error()));
}

QTEST_GUILESS_MAIN(TestReportJson)
#include "tst_reportjson.moc"
