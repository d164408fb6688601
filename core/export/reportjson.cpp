#include "core/export/reportjson.h"
#include "core/export/jsonstream.h"

#include "core/auth/authjson.h"
#include "core/policy/fallbacktriggers.h"
#include "core/policy/policyjson.h"
#include "core/record/attemptphases.h"
#include "core/record/recordredactor.h"
#include "core/record/transportjson.h"
#include "core/util/exportfile.h"
#include "core/util/version.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core::ReportJson {

namespace {

// ---- writing -------------------------------------------------------------

QJsonValue bytesValue(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes);
    if (text.toUtf8() == bytes)
        return text;
    return QJsonObject{{QStringLiteral("base64"), QString::fromLatin1(bytes.toBase64())}};
}

QJsonValue integerValue(qint64 value)
{
    if (value > maxExactInteger || value < -maxExactInteger)
        return QString::number(value);
    return double(value);
}

QJsonValue unsignedValue(quint64 value)
{
    if (value > quint64(maxExactInteger))
        return QString::number(value);
    return double(value);
}

QJsonValue numberValue(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

QJsonValue optionalNumber(const std::optional<double> &value)
{
    return value ? numberValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonValue optionalInt(const std::optional<int> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonValue dateValue(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(time.toUTC().toString(Qt::ISODateWithMs)) : QJsonValue(QJsonValue::Null);
}

QJsonArray headerNames(const QList<QByteArray> &names)
{
    QJsonArray array;
    for (const QByteArray &name : names)
        array.append(QString::fromLatin1(name));
    return array;
}

QJsonValue headersValue(const HeaderList &headers)
{
    QJsonArray array;
    for (const auto &[name, value] : headers)
        array.append(
            QJsonObject{{QStringLiteral("name"), bytesValue(name)}, {QStringLiteral("value"), bytesValue(value)}});
    return array;
}

// Writes one monotonic instant as "<key>Ms" (relative to the run) and "<key>Utc".
void insertTime(QJsonObject &object, const QString &key, qint64 ns, const RunRecord &run)
{
    if (ns < 0) {
        object.insert(key + QLatin1String("Ms"), QJsonValue::Null);
        object.insert(key + QLatin1String("Utc"), QJsonValue::Null);
        return;
    }
    object.insert(key + QLatin1String("Ms"), double(ns - run.epochNs) / 1e6);
    object.insert(key + QLatin1String("Utc"),
        run.startedAt.isValid() ? dateValue(run.wallTimeOf(ns)) : QJsonValue(QJsonValue::Null));
}

QJsonObject tlsObject(const TlsDetails &tls)
{
    return QJsonObject{
        {QStringLiteral("protocol"), tls.protocol},
        {QStringLiteral("cipher"), tls.cipher},
        {QStringLiteral("peerSubject"), tls.peerSubject},
        {QStringLiteral("peerIssuer"), tls.peerIssuer},
        {QStringLiteral("peerNotBefore"), tls.peerNotBefore},
        {QStringLiteral("peerNotAfter"), tls.peerNotAfter},
        {QStringLiteral("errors"), QJsonArray::fromStringList(tls.errors)},
        {QStringLiteral("errorsIgnored"), tls.errorsIgnored},
    };
}

// `spec` as redacted.
QJsonObject requestObject(quint64 id, const RequestSpec &spec)
{
    QJsonObject o{
        {QStringLiteral("id"), unsignedValue(id)},
        {QStringLiteral("kind"), requestKindName(spec.kind)},
        {QStringLiteral("method"), bytesValue(spec.method)},
        {QStringLiteral("url"), spec.url.toString(QUrl::FullyEncoded)},
        {QStringLiteral("headers"), headersValue(spec.headers)},
        {QStringLiteral("body"), bytesValue(spec.body)},
        {QStringLiteral("idempotent"), spec.idempotent},
        {QStringLiteral("attemptTimeoutMs"), optionalNumber(spec.attemptTimeoutMs)},
        {QStringLiteral("label"), spec.label},
        {QStringLiteral("increment"), integerValue(spec.increment)},
    };
    if (!spec.transport.isDefault())
        o.insert(QStringLiteral("transport"), TransportJson::toJson(spec.transport));
    // A body sent from a file or as form parts: where it came from, without the fields' values
    // (a form may carry a password); only then, so that other reports stay as they were.
    if (!spec.bodySource.isInline())
        o.insert(QStringLiteral("bodyFrom"), spec.bodySource.description());
    // Which auth, never its secrets; absent without one, as in earlier reports.
    if (!spec.auth.isNone())
        o.insert(QStringLiteral("auth"), AuthJson::toJson(spec.auth, AuthJson::Secrets::Leave));
    // Written only when turned off, the exception: reports of earlier versions stay identical.
    if (!spec.attemptHeaders)
        o.insert(QStringLiteral("attemptHeaders"), false);
    if (spec.seed) {
        o.insert(QStringLiteral("seed"), unsignedValue(*spec.seed));
        o.insert(QStringLiteral("seedStream"), unsignedValue(spec.seedStream));
    }
    if (spec.kind == RequestSpec::Kind::ReadModifyWrite && !spec.readModifyWrite.isDefault()) {
        const ReadModifyWriteShape &shape = spec.readModifyWrite;
        o.insert(QStringLiteral("readModifyWrite"),
            QJsonObject{{QStringLiteral("readMethod"), QString::fromLatin1(shape.readMethod)},
                {QStringLiteral("writeMethod"), QString::fromLatin1(shape.writeMethod)},
                {QStringLiteral("writeUrl"),
                    shape.writeUrl.isEmpty() ? QString() : shape.writeUrl.toString(QUrl::FullyEncoded)},
                {QStringLiteral("valuePointer"), shape.valuePointer},
                {QStringLiteral("etagPointer"), shape.etagPointer},
                {QStringLiteral("writeEnvelope"), shape.writeEnvelope}});
    }
    if (!spec.fallbackUrls.isEmpty()) {
        QJsonArray urls;
        for (const QUrl &url : spec.fallbackUrls)
            urls.append(url.toString(QUrl::FullyEncoded));
        o.insert(QStringLiteral("fallbackUrls"), urls);
    }
    // Only when the request has its own list: reports without one stay as they were.
    if (!spec.fallbackOn.isEmpty())
        o.insert(QStringLiteral("fallbackOn"), FallbackTriggers::toJson(spec.fallbackOn));
    return o;
}

// The request body only where it is not the request's own (a read-modify-write
// step's), so that a batch does not repeat one body per attempt.
bool hasOwnRequestBody(const AttemptRecord &a, const RunRecord &run)
{
    const auto spec = run.requests.constFind(a.requestId);
    return spec == run.requests.cend() || a.requestBody != spec->body;
}

// The attempt as the report writes it, before it is redacted: no request body that is
// its request's, and beyond the body budget no body at all, said instead (the
// request's own body is in "requests").
AttemptRecord attemptAsWritten(const AttemptRecord &a, bool ownRequestBody, bool withBodies)
{
    AttemptRecord out = a;
    if (!withBodies) {
        out.requestBodyDropped = a.requestBodyDropped || (ownRequestBody && !a.requestBody.isEmpty());
        out.responseBodyDropped = a.responseBodyDropped || !a.responseBody.isEmpty();
        out.requestBody.clear();
        out.responseBody.clear();
    }
    if (!ownRequestBody)
        out.requestBody.clear();
    return out;
}

// `a` as attemptAsWritten() made it, and redacted. `withBodies`: the attempt's bodies
// fit within the export's body budget; `ownRequestBody` as hasOwnRequestBody() says.
QJsonObject attemptObject(const AttemptRecord &a, const RunRecord &run, bool withBodies, bool ownRequestBody)
{
    QJsonObject o{
        {QStringLiteral("requestId"), unsignedValue(a.requestId)},
        {QStringLiteral("attemptIndex"), a.attemptIndex},
        {QStringLiteral("step"), a.step},
        {QStringLiteral("sequenceRound"), a.sequenceRound},
        {QStringLiteral("method"), bytesValue(a.method)},
        {QStringLiteral("url"), a.url.toString(QUrl::FullyEncoded)},
        {QStringLiteral("requestHeaders"), headersValue(a.requestHeaders)},
        {QStringLiteral("queuedMs"), double(a.queuedNs) / 1e6},
        {QStringLiteral("durationMs"), a.durationMs()},
        {QStringLiteral("plannedDelayMs"), numberValue(a.plannedDelayMs)},
        {QStringLiteral("actualDelayMs"), numberValue(a.actualDelayMs)},
        // "ending", not "end" (a jq keyword: .end fails to parse); a report written before still reads back.
        {QStringLiteral("ending"), attemptEndName(a.end)},
        {QStringLiteral("httpStatus"), optionalInt(a.httpStatus)},
        {QStringLiteral("reasonPhrase"), bytesValue(a.reasonPhrase)},
        {QStringLiteral("networkError"), networkErrorName(a.networkError)},
        {QStringLiteral("networkErrorCode"), int(a.networkError)},
        {QStringLiteral("errorString"), a.errorString},
        {QStringLiteral("responseHeaders"), headersValue(a.responseHeaders)},
        {QStringLiteral("bytesReceived"), integerValue(a.bytesReceived)},
        {QStringLiteral("expectedBytes"), integerValue(a.expectedBytes)},
        {QStringLiteral("decision"), decisionName(a.decision)},
        {QStringLiteral("cause"), a.cause},
        {QStringLiteral("reason"), a.reason},
        {QStringLiteral("retryAfterMs"), optionalNumber(a.retryAfterMs)},
        {QStringLiteral("retryAfterRaw"), bytesValue(a.retryAfterRaw)},
        {QStringLiteral("nextDelayMs"), numberValue(a.nextDelayMs)},
        {QStringLiteral("protocol"), a.protocol},
        {QStringLiteral("tls"), a.tls.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(tlsObject(a.tls))},
    };
    if (a.transferEnded)
        o.insert(QStringLiteral("transferEnded"), true); // only then: reports of whole bodies stay as they were
    if (a.hedged)
        o.insert(QStringLiteral("hedged"), true); // the hedging keys, too, only under a hedging policy
    if (a.hedgeWinner)
        o.insert(QStringLiteral("hedgeWinner"), true);
    insertTime(o, QStringLiteral("start"), a.startNs, run);
    // "ending" is how the attempt ended; the instant is "endMs" / "endUtc".
    insertTime(o, QStringLiteral("end"), a.endNs, run);
    insertTime(o, QStringLiteral("connectionStarted"), a.connectionStartedNs, run);
    insertTime(o, QStringLiteral("requestSent"), a.requestSentNs, run);
    insertTime(o, QStringLiteral("firstByte"), a.firstByteNs, run);
    insertTime(o, QStringLiteral("finished"), a.finishedNs, run);
    // The points RetryLab measures beside Qt's, only when measured: older reports stay as they were.
    if (a.lookupStartNs >= 0)
        insertTime(o, QStringLiteral("lookupStarted"), a.lookupStartNs, run);
    if (a.lookupEndNs >= 0)
        insertTime(o, QStringLiteral("lookupFinished"), a.lookupEndNs, run);
    if (a.connectedNs >= 0)
        insertTime(o, QStringLiteral("connected"), a.connectedNs, run);
    if (a.encryptedNs >= 0)
        insertTime(o, QStringLiteral("encrypted"), a.encryptedNs, run);
    if (!a.connectAddress.isEmpty())
        o.insert(QStringLiteral("connectAddress"), a.connectAddress);
    if (a.connectTimedOut)
        o.insert(QStringLiteral("connectTimedOut"), true);
    // The phases of the last exchange (AttemptPhases), null where unknown; derived, not read back.
    const AttemptPhases phases = AttemptPhases::of(a);
    o.insert(QStringLiteral("connectionReused"), phases.reusedConnection);
    o.insert(QStringLiteral("dnsMs"), optionalNumber(phases.dnsMs));
    o.insert(QStringLiteral("connectMs"), optionalNumber(phases.connectMs));
    o.insert(QStringLiteral("tlsMs"), optionalNumber(phases.tlsMs));
    o.insert(QStringLiteral("connectTlsMs"), optionalNumber(phases.connectTlsMs));
    o.insert(QStringLiteral("sendMs"), optionalNumber(phases.sendMs));
    // "waitMs", not "firstByteMs": that key is the instant of the first byte.
    o.insert(QStringLiteral("waitMs"), optionalNumber(phases.firstByteMs));
    o.insert(QStringLiteral("downloadMs"), optionalNumber(phases.downloadMs));
    // Each redirect met, with its own timings; the attempt's are those of its last exchange.
    QJsonArray hops;
    for (const RedirectHop &hop : a.redirects) {
        QJsonObject h{
            {QStringLiteral("status"), hop.status},
            {QStringLiteral("method"), bytesValue(hop.method)},
            {QStringLiteral("from"), hop.from.toString(QUrl::FullyEncoded)},
            {QStringLiteral("to"), hop.to.toString(QUrl::FullyEncoded)},
            {QStringLiteral("followed"), hop.followed},
            {QStringLiteral("crossOrigin"), hop.crossOrigin},
            {QStringLiteral("droppedHeaders"), headerNames(hop.droppedHeaders)},
            {QStringLiteral("note"), hop.note},
        };
        // Only for hops that are no redirect: reports without auth stay as they were.
        if (hop.kind == RedirectHop::Kind::Token)
            h.insert(QStringLiteral("kind"), QStringLiteral("token"));
        else if (hop.kind == RedirectHop::Kind::Challenge)
            h.insert(QStringLiteral("kind"), QStringLiteral("challenge"));
        insertTime(h, QStringLiteral("start"), hop.startNs, run);
        insertTime(h, QStringLiteral("connectionStarted"), hop.connectionStartedNs, run);
        insertTime(h, QStringLiteral("requestSent"), hop.requestSentNs, run);
        insertTime(h, QStringLiteral("firstByte"), hop.firstByteNs, run);
        insertTime(h, QStringLiteral("finished"), hop.finishedNs, run);
        hops.append(h);
    }
    o.insert(QStringLiteral("redirects"), hops);
    // Only for an attempt at a fallback endpoint: reports without fallbacks stay as they were.
    if (a.fallback > 0)
        o.insert(QStringLiteral("fallback"), a.fallback);

    if (!withBodies) {
        o.insert(QStringLiteral("requestBodyDropped"), a.requestBodyDropped);
        o.insert(QStringLiteral("responseBodyDropped"), a.responseBodyDropped);
        return o;
    }
    if (ownRequestBody)
        o.insert(QStringLiteral("requestBody"), bytesValue(a.requestBody));
    o.insert(QStringLiteral("responseBody"), bytesValue(a.responseBody));
    o.insert(QStringLiteral("responseBodyTruncated"), a.responseBodyTruncated);
    o.insert(QStringLiteral("requestBodyDropped"), a.requestBodyDropped);
    o.insert(QStringLiteral("responseBodyDropped"), a.responseBodyDropped);
    return o;
}

// `r` as redacted.
QJsonObject resultObject(const RequestResult &r, const RunRecord &run)
{
    QJsonObject o{
        {QStringLiteral("requestId"), unsignedValue(r.requestId)},
        {QStringLiteral("outcome"), requestOutcomeName(r.outcome)},
        {QStringLiteral("attempts"), r.attempts},
        {QStringLiteral("reason"), r.reason},
        {QStringLiteral("finalStatus"), optionalInt(r.finalStatus)},
        {QStringLiteral("totalMs"), r.totalMs()},
        {QStringLiteral("body"), bytesValue(r.body)},
    };
    insertTime(o, QStringLiteral("start"), r.startNs, run);
    insertTime(o, QStringLiteral("end"), r.endNs, run);
    if (r.fallback > 0)
        o.insert(QStringLiteral("fallback"), r.fallback);
    if (!r.fallbackTriggers.isEmpty())
        o.insert(QStringLiteral("fallbackTriggers"), QJsonArray::fromStringList(r.fallbackTriggers));
    return o;
}

QJsonObject summaryObject(const RunRecord &run)
{
    QJsonObject outcomes;
    for (const RequestResult &r : run.results) {
        const QString name = requestOutcomeName(r.outcome);
        outcomes.insert(name, outcomes.value(name).toInt() + 1);
    }
    qsizetype retries = 0;
    for (const AttemptRecord &a : run.attempts) {
        if (a.attemptIndex > 0)
            ++retries;
    }
    return QJsonObject{
        {QStringLiteral("requests"), double(run.requests.size())},
        {QStringLiteral("attempts"), double(run.attempts.size())},
        {QStringLiteral("retries"), double(retries)},
        {QStringLiteral("outcomes"), outcomes},
    };
}

// The report without its three large arrays (requests, attempts, results),
// which are empty here and produced one element at a time by reportArrays().
QJsonObject reportSkeleton(
    const RunRecord &run, const ExportOptions &options, const QList<ExpectationResult> &expectations)
{
    const RecordRedactor redactor(options.redactCredentials, run);
    QList<quint64> ids = run.requests.keys();
    std::sort(ids.begin(), ids.end());
    // The policy may change between requests of one run: each one used, with its requests.
    QJsonArray policies;
    for (int i = 0; i < run.policies.size(); ++i) {
        QJsonArray requestIds;
        for (quint64 id : std::as_const(ids)) {
            if (run.requestPolicies.value(id, -1) == i)
                requestIds.append(unsignedValue(id));
        }
        policies.append(QJsonObject{
            {QStringLiteral("index"), i},
            {QStringLiteral("policy"), PolicyJson::toJsonObject(run.policies.at(i))},
            {QStringLiteral("requestIds"), requestIds},
        });
    }

    QJsonArray verdicts;
    for (const ExpectationResult &verdict : expectations) {
        const ExpectationResult e = redactor.redacted(verdict);
        QJsonArray requestIds;
        for (quint64 id : e.requestIds)
            requestIds.append(unsignedValue(id));
        verdicts.append(QJsonObject{
            {QStringLiteral("name"), e.name},
            {QStringLiteral("passed"), e.passed},
            {QStringLiteral("message"), e.message},
            {QStringLiteral("durationMs"), numberValue(e.durationMs)},
            {QStringLiteral("requestIds"), requestIds},
        });
    }

    QJsonObject report{
        {QStringLiteral("format"), QLatin1String(formatName)},
        {QStringLiteral("version"), formatVersion},
        {QStringLiteral("generator"), QStringLiteral("RetryLab " RETRYLAB_VERSION)},
        {QStringLiteral("redacted"), options.redactCredentials},
        {QStringLiteral("startedAt"), dateValue(run.startedAt)},
        {QStringLiteral("epochNs"), integerValue(run.epochNs)},
        {QStringLiteral("seed"), run.seed ? unsignedValue(*run.seed) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("policy"), PolicyJson::toJsonObject(run.policy)},
        {QStringLiteral("policies"), policies},
        {QStringLiteral("summary"), summaryObject(run)},
        {QStringLiteral("requests"), QJsonArray()},
        {QStringLiteral("attempts"), QJsonArray()},
        {QStringLiteral("results"), QJsonArray()},
        {QStringLiteral("expectations"), verdicts},
    };
    if (!options.redactCredentials)
        report.insert(QStringLiteral("credentialsWarning"), ExportOptions::credentialsWarning());
    const qsizetype ignored = run.certificateErrorsIgnored();
    report.insert(QStringLiteral("certificateErrorsIgnored"), double(ignored));
    if (ignored > 0) {
        report.insert(QStringLiteral("insecureWarning"),
            ExportOptions::insecureWarning(ignored, run.hostsWithCertificateErrorsIgnored()));
    }
    return report;
}

// The large arrays, element by element, each element redacted as it is written: a
// redacted copy of one record at a time, never of the run. The run must outlive the
// producers; the redactor is a value each of them holds.
QList<JsonStream::StreamedArray> reportArrays(const RunRecord &run, const ExportOptions &options)
{
    const RecordRedactor redactor(options.redactCredentials, run);
    QList<JsonStream::StreamedArray> arrays;
    arrays.append({{QStringLiteral("requests")}, [&run, redactor](const auto &emit) {
                       QList<quint64> ids = run.requests.keys();
                       std::sort(ids.begin(), ids.end());
                       for (quint64 id : std::as_const(ids)) {
                           QJsonObject request = requestObject(id, redactor.redacted(run.requests.value(id)));
                           if (const int index = run.requestPolicies.value(id, -1);
                               index >= 0 && index < run.policies.size())
                               request.insert(QStringLiteral("policyIndex"), index);
                           if (!emit(request))
                               return false;
                       }
                       return true;
                   }});
    const qint64 budget = options.bodyBudget;
    arrays.append({{QStringLiteral("attempts")}, [&run, redactor, budget](const auto &emit) {
                       const QList<bool> withBodies = run.attemptBodiesWithin(budget);
                       for (qsizetype i = 0; i < run.attempts.size(); ++i) {
                           const AttemptRecord &a = run.attempts.at(i);
                           const bool ownRequestBody = hasOwnRequestBody(a, run);
                           // Bodies left out are not redacted either.
                           const AttemptRecord shown
                               = redactor.redacted(attemptAsWritten(a, ownRequestBody, withBodies.at(i)));
                           if (!emit(attemptObject(shown, run, withBodies.at(i), ownRequestBody)))
                               return false;
                       }
                       return true;
                   }});
    arrays.append({{QStringLiteral("results")}, [&run, redactor](const auto &emit) {
                       QHash<quint64, const HeaderList *> lastResponseHeaders;
                       for (const AttemptRecord &a : run.attempts)
                           lastResponseHeaders.insert(a.requestId, &a.responseHeaders);
                       for (const RequestResult &r : run.results) {
                           // Its body is read by the headers of the response it came with.
                           const HeaderList *headers = lastResponseHeaders.value(r.requestId);
                           if (!emit(resultObject(redactor.redacted(r, headers ? *headers : HeaderList()), run)))
                               return false;
                       }
                       return true;
                   }});
    return arrays;
}

} // namespace

QJsonObject toJsonObject(
    const RunRecord &run, const ExportOptions &options, const QList<ExpectationResult> &expectations)
{
    QJsonObject report = reportSkeleton(run, options, expectations);
    for (const JsonStream::StreamedArray &array : reportArrays(run, options)) {
        QJsonArray elements;
        array.produce([&elements](const QJsonObject &element) {
            elements.append(element);
            return true;
        });
        report.insert(array.path.first(), elements);
    }
    return report;
}

QByteArray toJson(const RunRecord &run, const ExportOptions &options, const QList<ExpectationResult> &expectations)
{
    return JsonStream::toJson(reportSkeleton(run, options, expectations), reportArrays(run, options));
}

QString requestKindName(RequestSpec::Kind kind)
{
    return kind == RequestSpec::Kind::ReadModifyWrite ? QStringLiteral("read-modify-write") : QStringLiteral("single");
}

Result<qint64> writeFile(const QString &path, const RunRecord &run, const ExportOptions &options,
    const QList<ExpectationResult> &expectations)
{
    // Written as it is produced: one element of the large arrays in memory at a time.
    const QJsonObject skeleton = reportSkeleton(run, options, expectations);
    const QList<JsonStream::StreamedArray> arrays = reportArrays(run, options);
    return ExportFile::writeWith(path, [&](QIODevice &device) { return JsonStream::write(device, skeleton, arrays); });
}

} // namespace RetryLab::Core::ReportJson
