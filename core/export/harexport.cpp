// The HAR 1.2 writer is one job: an attempt becomes its entries (one per redirect,
// token request or Digest challenge it met, then its last exchange), its pages,
// timings and bodies within the budget, streamed as the file is written.
#include "core/export/harexport.h"
#include "core/export/jsonstream.h"

#include "core/policy/policyjson.h"
#include "core/record/attemptphases.h"
#include "core/record/recordredactor.h"
#include "core/record/transportjson.h"
#include "core/util/exportfile.h"
#include "core/util/version.h"

#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QUrlQuery>

#include <algorithm>
#include <cmath>
#include <functional>

// One job: a run as a HAR 1.2 archive, written as it is produced. Its parts (the skeleton of
// pages, an entry per attempt and per redirect hop, and the timings of each) are HAR's own
// shapes of one record, each read only through the archive or the timings HAR defines.

namespace {
Q_LOGGING_CATEGORY(lcHarExport, "retrylab.core.harexport")
} // namespace

namespace RetryLab::Core::HarExport {

namespace {

double ms(qint64 ns)
{
    return double(ns) / 1e6;
}

QJsonValue number(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

QString text(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes);
}

bool isUtf8(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes).toUtf8() == bytes;
}

QJsonArray headerArray(const HeaderList &headers)
{
    QJsonArray array;
    for (const auto &[name, value] : headers)
        array.append(QJsonObject{{QStringLiteral("name"), text(name)}, {QStringLiteral("value"), text(value)}});
    return array;
}

// Cookies from (already redacted) Cookie headers: "a=1; b=2".
QJsonArray requestCookies(const HeaderList &headers)
{
    QJsonArray cookies;
    for (const auto &[name, value] : headers) {
        if (name.compare("Cookie", Qt::CaseInsensitive) != 0)
            continue;
        for (const QByteArray &pair : value.split(';')) {
            const QByteArray trimmed = pair.trimmed();
            if (trimmed.isEmpty())
                continue;
            const qsizetype eq = trimmed.indexOf('=');
            cookies.append(QJsonObject{
                {QStringLiteral("name"), text(eq < 0 ? QByteArray() : trimmed.left(eq))},
                {QStringLiteral("value"), text(eq < 0 ? trimmed : trimmed.mid(eq + 1))},
            });
        }
    }
    return cookies;
}

// Cookies from (already redacted) Set-Cookie headers: "id=1; Path=/; HttpOnly".
QJsonArray responseCookies(const HeaderList &headers)
{
    QJsonArray cookies;
    for (const auto &[name, value] : headers) {
        if (name.compare("Set-Cookie", Qt::CaseInsensitive) != 0)
            continue;
        const QList<QByteArray> parts = value.split(';');
        const QByteArray first = parts.value(0).trimmed();
        const qsizetype eq = first.indexOf('=');
        QJsonObject cookie{
            {QStringLiteral("name"), text(eq < 0 ? QByteArray() : first.left(eq))},
            {QStringLiteral("value"), text(eq < 0 ? first : first.mid(eq + 1))},
        };
        for (qsizetype i = 1; i < parts.size(); ++i) {
            const QByteArray attribute = parts.at(i).trimmed();
            const qsizetype aeq = attribute.indexOf('=');
            const QByteArray key = (aeq < 0 ? attribute : attribute.left(aeq)).toLower();
            const QByteArray attributeValue = aeq < 0 ? QByteArray() : attribute.mid(aeq + 1);
            if (key == "path")
                cookie.insert(QStringLiteral("path"), text(attributeValue));
            else if (key == "domain")
                cookie.insert(QStringLiteral("domain"), text(attributeValue));
            else if (key == "httponly")
                cookie.insert(QStringLiteral("httpOnly"), true);
            else if (key == "secure")
                cookie.insert(QStringLiteral("secure"), true);
        }
        cookies.append(cookie);
    }
    return cookies;
}

QJsonArray queryArray(const QUrl &url)
{
    QJsonArray items;
    const QUrlQuery query(url);
    for (const auto &[name, value] : query.queryItems(QUrl::FullyDecoded))
        items.append(QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("value"), value}});
    return items;
}

QString mimeTypeOf(const HeaderList &headers, const QString &fallback)
{
    const auto type = headerValue(headers, "Content-Type");
    return type ? text(*type) : fallback;
}

// The Content-Type the executor adds when the user gave none.
QString defaultRequestMimeType(const QByteArray &body)
{
    const QByteArray trimmed = body.trimmed();
    return (trimmed.startsWith('{') || trimmed.startsWith('[')) ? QStringLiteral("application/json")
                                                                : QStringLiteral("application/octet-stream");
}

// The postData of a request that sent `sent` with `headers`, written as `body` (the
// redacted copy of `sent`): text as it is, anything else base64 (HAR has no field for bytes).
QJsonObject postDataObject(const QByteArray &sent, const QByteArray &body, const HeaderList &headers)
{
    QJsonObject postData{
        {QStringLiteral("mimeType"), mimeTypeOf(headers, defaultRequestMimeType(sent))},
        {QStringLiteral("params"), QJsonArray()},
    };
    if (isUtf8(body)) {
        postData.insert(QStringLiteral("text"), text(body));
    } else {
        postData.insert(QStringLiteral("text"), QString::fromLatin1(body.toBase64()));
        postData.insert(QStringLiteral("_encoding"), QStringLiteral("base64"));
        postData.insert(QStringLiteral("comment"), QStringLiteral("binary body, base64-encoded"));
    }
    return postData;
}

// The attempt with the bodies its entry shows: its own, or for a record without
// them (an older report) its request's body when it is a single request, and the
// request's final body for its last attempt. The write of a read-modify-write
// sends a body the executor computed.
AttemptRecord withEntryBodies(const AttemptRecord &a, const RunRecord &run, const RequestResult *finalResult)
{
    AttemptRecord out = a;
    const auto spec = run.requests.constFind(a.requestId);
    if (out.requestBody.isEmpty() && spec != run.requests.constEnd() && spec->kind == RequestSpec::Kind::Single)
        out.requestBody = spec->body;
    if (out.responseBody.isEmpty() && finalResult && !a.responseBodyDropped)
        out.responseBody = finalResult->body;
    return out;
}

// `a`: the attempt withEntryBodies() made, whose sizes and bodies decide what is written; `shown`:
// its redacted copy, which is written. `withBodies`: its bodies fit within the export's body budget.
QJsonObject requestObject(const AttemptRecord &a, const AttemptRecord &shown, const RunRecord &run, bool withBodies)
{
    const HeaderList &headers = shown.requestHeaders;
    QJsonObject request{
        {QStringLiteral("method"), text(shown.method)},
        {QStringLiteral("url"), shown.url.toString(QUrl::FullyEncoded)},
        {QStringLiteral("httpVersion"), shown.protocol.isEmpty() ? QStringLiteral("HTTP/1.1") : shown.protocol},
        {QStringLiteral("cookies"), requestCookies(headers)},
        {QStringLiteral("headers"), headerArray(headers)},
        {QStringLiteral("queryString"), queryArray(shown.url)},
        {QStringLiteral("headersSize"), -1},
    };

    const auto spec = run.requests.constFind(a.requestId);
    const bool single = spec != run.requests.constEnd() && spec->kind == RequestSpec::Kind::Single;
    const QByteArray &sent = a.requestBody;
    if (sent.isEmpty() && (a.requestBodyDropped || (!single && a.step != QLatin1String("read")))) {
        request.insert(QStringLiteral("bodySize"), -1);
        return request;
    }
    request.insert(QStringLiteral("bodySize"), double(sent.size()));
    if (!sent.isEmpty() && !withBodies && sent != (single ? spec->body : QByteArray())) {
        request.insert(QStringLiteral("comment"), QStringLiteral("body dropped to bound memory"));
    } else if (!sent.isEmpty()) {
        request.insert(QStringLiteral("postData"), postDataObject(sent, shown.requestBody, headers));
    }
    return request;
}

// `a` and `shown` as for requestObject().
QJsonObject responseObject(const AttemptRecord &a, const AttemptRecord &shown, bool withBodies)
{
    const HeaderList &headers = shown.responseHeaders;
    const bool gotResponse = a.httpStatus.has_value();
    const auto location = headerValue(headers, "Location");

    QJsonObject content{
        {QStringLiteral("size"), double(gotResponse ? a.bytesReceived : 0)},
        {QStringLiteral("mimeType"), mimeTypeOf(headers, QStringLiteral("x-unknown"))},
    };
    // Each attempt's own body (the executor keeps the first part of each); records
    // without one (older reports) have at least the final response's.
    const QByteArray &kept = a.responseBody;
    if (gotResponse && (a.responseBodyDropped || (!kept.isEmpty() && !withBodies))) {
        content.insert(QStringLiteral("comment"), QStringLiteral("body dropped to bound memory"));
    } else if (gotResponse && !kept.isEmpty()) {
        const QByteArray &body = shown.responseBody;
        if (isUtf8(body)) {
            content.insert(QStringLiteral("text"), text(body));
        } else {
            content.insert(QStringLiteral("text"), QString::fromLatin1(body.toBase64()));
            content.insert(QStringLiteral("encoding"), QStringLiteral("base64"));
        }
        if (kept.size() < a.bytesReceived) {
            content.insert(QStringLiteral("comment"),
                QStringLiteral("first %1 of %2 bytes").arg(kept.size()).arg(a.bytesReceived));
        }
    }

    QJsonObject response{
        {QStringLiteral("status"), a.httpStatus.value_or(0)},
        {QStringLiteral("statusText"), gotResponse ? text(shown.reasonPhrase) : QString()},
        {QStringLiteral("httpVersion"),
            gotResponse ? (shown.protocol.isEmpty() ? QStringLiteral("HTTP/1.1") : shown.protocol) : QString()},
        {QStringLiteral("cookies"), responseCookies(headers)},
        {QStringLiteral("headers"), headerArray(headers)},
        {QStringLiteral("content"), content},
        {QStringLiteral("redirectURL"), location ? text(*location) : QString()},
        {QStringLiteral("headersSize"), -1},
        {QStringLiteral("bodySize"), gotResponse ? double(a.bytesReceived) : -1.0},
    };
    // Like a browser's export: _error for transport failures, not for HTTP error statuses.
    if (!gotResponse || a.end != AttemptEnd::Response) {
        response.insert(
            QStringLiteral("_error"), shown.errorString.isEmpty() ? attemptEndName(shown.end) : shown.errorString);
    }
    return response;
}

QJsonObject timingsObject(const Timings &t)
{
    return QJsonObject{
        {QStringLiteral("blocked"), t.blocked},
        {QStringLiteral("dns"), t.dns},
        {QStringLiteral("connect"), t.connect},
        {QStringLiteral("ssl"), t.ssl},
        {QStringLiteral("send"), t.send},
        {QStringLiteral("wait"), t.wait},
        {QStringLiteral("receive"), t.receive},
    };
}

QString pageId(quint64 requestId)
{
    return QStringLiteral("request-%1").arg(requestId);
}

// The wall-clock time of a monotonic instant of `a`: derived from the run's
// clock (as the JSON report's "startUtc"), so that one start is written.
QDateTime wallOf(qint64 ns, const AttemptRecord &a, const RunRecord &run)
{
    if (run.startedAt.isValid() && ns >= 0)
        return run.wallTimeOf(std::max<qint64>(ns, run.epochNs)).toUTC();
    if (a.startWall.isValid()) // a record without a run clock (an observed one)
        return a.startWall.toUTC().addMSecs((ns - a.startNs) / 1'000'000);
    // HAR requires a date; the Unix epoch says plainly that none was recorded.
    return QDateTime::fromMSecsSinceEpoch(0, Qt::UTC);
}

QDateTime startOf(const AttemptRecord &a, const RunRecord &run)
{
    return wallOf(a.startNs, a, run);
}

// A browser's entry for a redirect that was followed: its request, the 3xx
// with its Location, and the timings of that exchange alone. `a` and `hop` are redacted.
QJsonObject hopEntry(const AttemptRecord &a, const RedirectHop &hop, int index, const RunRecord &run)
{
    const QUrl &from = hop.from;
    const QString to = hop.to.toString(QUrl::FullyEncoded);
    const Timings timings
        = timingsBetween(hop.startNs, hop.connectionStartedNs, hop.requestSentNs, hop.firstByteNs, hop.finishedNs);
    const QString version = a.protocol.isEmpty() ? QStringLiteral("HTTP/1.1") : a.protocol;
    QJsonArray dropped;
    for (const QByteArray &name : hop.droppedHeaders)
        dropped.append(QString::fromLatin1(name));
    // A token request or a Digest challenge leads nowhere: no Location.
    const bool redirect = hop.kind == RedirectHop::Kind::Redirect;
    QJsonArray responseHeaders;
    if (redirect)
        responseHeaders.append(
            QJsonObject{{QStringLiteral("name"), QStringLiteral("Location")}, {QStringLiteral("value"), to}});
    QJsonObject entry{
        {QStringLiteral("pageref"), pageId(a.requestId)},
        {QStringLiteral("startedDateTime"), wallOf(hop.startNs, a, run).toString(Qt::ISODateWithMs)},
        {QStringLiteral("time"), timings.total()},
        {QStringLiteral("request"),
            QJsonObject{
                {QStringLiteral("method"), text(hop.method)},
                {QStringLiteral("url"), from.toString(QUrl::FullyEncoded)},
                {QStringLiteral("httpVersion"), version},
                {QStringLiteral("cookies"), QJsonArray()},
                {QStringLiteral("headers"), QJsonArray()},
                {QStringLiteral("queryString"), queryArray(from)},
                {QStringLiteral("headersSize"), -1},
                {QStringLiteral("bodySize"), -1},
            }},
        {QStringLiteral("response"),
            QJsonObject{
                {QStringLiteral("status"), hop.status},
                {QStringLiteral("statusText"), QString()},
                {QStringLiteral("httpVersion"), version},
                {QStringLiteral("cookies"), QJsonArray()},
                {QStringLiteral("headers"), responseHeaders},
                {QStringLiteral("content"),
                    QJsonObject{
                        {QStringLiteral("size"), 0}, {QStringLiteral("mimeType"), QStringLiteral("x-unknown")}}},
                {QStringLiteral("redirectURL"), redirect ? to : QString()},
                {QStringLiteral("headersSize"), -1},
                {QStringLiteral("bodySize"), -1},
            }},
        {QStringLiteral("cache"), QJsonObject()},
        {QStringLiteral("timings"), timingsObject(timings)},
        {QStringLiteral("_requestId"), double(a.requestId)},
        {QStringLiteral("_attemptIndex"), a.attemptIndex},
        {QStringLiteral("_redirectHop"), index},
        {QStringLiteral("_crossOrigin"), hop.crossOrigin},
        {QStringLiteral("_droppedHeaders"), dropped},
    };
    if (!redirect) {
        entry.insert(QStringLiteral("_hopKind"),
            hop.kind == RedirectHop::Kind::Token ? QStringLiteral("token") : QStringLiteral("challenge"));
    }
    return entry;
}

} // namespace

double Timings::total() const
{
    double sum = 0.0;
    for (double phase : {blocked, dns, connect, ssl, send, wait, receive}) {
        if (phase > 0.0)
            sum += phase;
    }
    // ssl is part of connect in HAR 1.2, so it is not counted twice.
    if (ssl > 0.0)
        sum -= ssl;
    return sum;
}

Timings timingsBetween(qint64 start, qint64 connectionStarted, qint64 requestSent, qint64 firstByte, qint64 end)
{
    Timings t;
    if (start < 0)
        return t;
    end = std::max(start, end);
    const auto within = [end](qint64 point, qint64 from) { return std::clamp(point, from, end); };

    qint64 cursor = start;
    if (connectionStarted >= 0) {
        const qint64 connecting = within(connectionStarted, start);
        t.blocked = ms(connecting - start);
        const qint64 next = requestSent >= 0 ? requestSent : firstByte >= 0 ? firstByte : end;
        cursor = within(next, connecting);
        t.connect = ms(cursor - connecting);
    } else if (requestSent >= 0) {
        cursor = within(requestSent, start);
        t.send = ms(cursor - start);
    }
    if (firstByte >= 0) {
        const qint64 first = within(firstByte, cursor);
        t.wait = ms(first - cursor);
        t.receive = ms(end - first);
    } else {
        t.wait = ms(end - cursor);
    }
    return t;
}

Timings timingsOf(const AttemptRecord &a)
{
    // The last exchange only: a redirect's hops are timed on their own.
    const qint64 start = a.lastExchangeStartNs();
    const qint64 end = a.endNs >= 0 ? a.endNs : a.finishedNs;
    const AttemptPhases p = AttemptPhases::of(a);
    const bool measured = a.lookupEndNs >= 0 && p.sendMs && p.firstByteMs && p.downloadMs && end >= start;
    if (!measured) // a record without RetryLab's own points, or an exchange that did not get as far as an answer
        return timingsBetween(start, a.connectionStartedNs, a.requestSentNs, a.firstByteNs, end);
    Timings t;
    if (!p.reusedConnection) {
        t.dns = p.dnsMs.value_or(-1.0);
        // HAR's connect holds the TLS handshake; ssl is that part alone, unknown with Qt (-1).
        t.connect = p.connectTlsMs ? *p.connectTlsMs : p.connectMs.value_or(-1.0);
        t.ssl = p.tlsMs.value_or(-1.0);
        // From the lookup's end (or the start) to Qt starting to connect: queued inside Qt.
        const qint64 from = a.lookupEndNs >= start ? a.lookupEndNs : start;
        t.blocked = a.connectionStartedNs >= from ? ms(a.connectionStartedNs - from) : -1.0;
    } else if (a.lookupEndNs >= start) {
        t.blocked = ms(a.lookupEndNs - start); // a lookup made before it was known that none was needed
    }
    t.send = *p.sendMs;
    t.wait = *p.firstByteMs;
    t.receive = ms(end - a.firstByteNs);
    return t;
}

namespace {

// The attempts in order of start: the order of pages and entries.
QList<const AttemptRecord *> byStart(const RunRecord &run)
{
    QList<const AttemptRecord *> attempts;
    for (const AttemptRecord &a : run.attempts)
        attempts.append(&a);
    std::stable_sort(attempts.begin(), attempts.end(),
        [](const AttemptRecord *x, const AttemptRecord *y) { return x->startNs < y->startNs; });
    return attempts;
}

// The archive without its entries, which writeEntries() produces one at a time.
QJsonObject harSkeleton(const RunRecord &run, const ExportOptions &options)
{
    const RecordRedactor redactor(options.redactCredentials, run);
    const QList<const AttemptRecord *> attempts = byStart(run);
    QJsonArray pages;
    QSet<quint64> paged;
    for (const AttemptRecord *a : std::as_const(attempts)) {
        if (paged.contains(a->requestId))
            continue;
        paged.insert(a->requestId);
        // The title shows the first attempt's method and URL and the request's label: the pass is
        // handed only those, as it would otherwise redact all of the attempt once more for them.
        AttemptRecord titled;
        titled.method = a->method;
        titled.url = a->url;
        const AttemptRecord first = redactor.redacted(titled);
        RequestSpec labelled;
        labelled.label = run.requests.value(a->requestId).label;
        const RequestSpec spec = redactor.redacted(labelled);
        QString title = QStringLiteral("%1 %2").arg(text(first.method), first.url.toString(QUrl::FullyEncoded));
        if (!spec.label.isEmpty())
            title += QStringLiteral(" (%1)").arg(spec.label);
        pages.append(QJsonObject{
            {QStringLiteral("startedDateTime"), startOf(*a, run).toString(Qt::ISODateWithMs)},
            {QStringLiteral("id"), pageId(a->requestId)},
            {QStringLiteral("title"), title},
            {QStringLiteral("pageTimings"),
                QJsonObject{{QStringLiteral("onContentLoad"), -1}, {QStringLiteral("onLoad"), -1}}},
        });
    }

    QJsonObject log{
        {QStringLiteral("version"), QStringLiteral("1.2")},
        {QStringLiteral("creator"),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("RetryLab")},
                {QStringLiteral("version"), QStringLiteral(RETRYLAB_VERSION)}}},
        {QStringLiteral("pages"), pages},
        {QStringLiteral("entries"), QJsonArray()},
        {QStringLiteral("_policy"), PolicyJson::toJsonObject(run.policy)},
        {QStringLiteral("_redacted"), options.redactCredentials},
    };
    QStringList comments;
    if (!options.redactCredentials)
        comments.append(ExportOptions::credentialsWarning());
    const qsizetype ignored = run.certificateErrorsIgnored();
    log.insert(QStringLiteral("_certificateErrorsIgnored"), double(ignored));
    if (ignored > 0)
        comments.append(ExportOptions::insecureWarning(ignored, run.hostsWithCertificateErrorsIgnored()));
    if (!comments.isEmpty())
        log.insert(QStringLiteral("comment"), comments.join(QLatin1Char(' ')));
    return QJsonObject{{QStringLiteral("log"), log}};
}

// Every attempt in order of start, each redirect hop before the exchange it led to.
bool writeEntries(
    const RunRecord &run, const ExportOptions &options, const std::function<bool(const QJsonObject &)> &emit)
{
    const RecordRedactor redactor(options.redactCredentials, run);

    const QList<const AttemptRecord *> attempts = byStart(run);

    // The last attempt of a request (in finishing order) carries the final body.
    QHash<quint64, const AttemptRecord *> lastAttempt;
    for (const AttemptRecord &a : run.attempts)
        lastAttempt.insert(a.requestId, &a);
    QHash<quint64, const RequestResult *> results;
    for (const RequestResult &r : run.results)
        results.insert(r.requestId, &r);

    const QList<bool> bodiesWithin = run.attemptBodiesWithin(options.bodyBudget);
    QHash<const AttemptRecord *, bool> withBodies;
    for (qsizetype i = 0; i < run.attempts.size(); ++i)
        withBodies.insert(&run.attempts.at(i), bodiesWithin.at(i));

    for (const AttemptRecord *original : std::as_const(attempts)) {
        const RequestResult *finalResult
            = lastAttempt.value(original->requestId) == original ? results.value(original->requestId) : nullptr;
        const bool bodies = withBodies.value(original);
        // Redacted as a whole as its entries are written, one attempt at a time.
        const AttemptRecord written = withEntryBodies(*original, run, finalResult);
        const AttemptRecord shown = redactor.redacted(written);

        // One entry per redirect followed, as browsers write them, then the last exchange's.
        const RedirectHop *lastFollowed = nullptr;
        for (qsizetype i = 0; i < shown.redirects.size(); ++i) {
            if (!shown.redirects.at(i).followed)
                continue;
            if (!emit(hopEntry(shown, shown.redirects.at(i), int(i), run)))
                return false;
            if (shown.redirects.at(i).kind == RedirectHop::Kind::Redirect)
                lastFollowed = &shown.redirects.at(i);
        }
        QJsonObject request = requestObject(written, shown, run, bodies);
        if (lastFollowed) {
            request.insert(QStringLiteral("method"), text(lastFollowed->nextMethod()));
            request.insert(QStringLiteral("url"), lastFollowed->to.toString(QUrl::FullyEncoded));
            request.insert(QStringLiteral("queryString"), queryArray(lastFollowed->to));
        }

        const Timings timings = timingsOf(shown);
        QJsonObject entry{
            {QStringLiteral("pageref"), pageId(shown.requestId)},
            {QStringLiteral("startedDateTime"),
                wallOf(shown.lastExchangeStartNs(), shown, run).toString(Qt::ISODateWithMs)},
            {QStringLiteral("time"), timings.total()},
            {QStringLiteral("request"), request},
            {QStringLiteral("response"), responseObject(written, shown, bodies)},
            {QStringLiteral("cache"), QJsonObject()},
            {QStringLiteral("timings"), timingsObject(timings)},
            {QStringLiteral("_requestId"), double(shown.requestId)},
            {QStringLiteral("_attemptIndex"), shown.attemptIndex},
            {QStringLiteral("_step"), shown.step},
            {QStringLiteral("_sequenceRound"), shown.sequenceRound},
            {QStringLiteral("_plannedDelayMs"), number(shown.plannedDelayMs)},
            {QStringLiteral("_actualDelayMs"), number(shown.actualDelayMs)},
            {QStringLiteral("_queuedMs"), ms(shown.queuedNs)},
            {QStringLiteral("_nextDelayMs"), shown.nextDelayMs >= 0.0 ? number(shown.nextDelayMs) : QJsonValue()},
            {QStringLiteral("_retryAfterMs"), shown.retryAfterMs ? number(*shown.retryAfterMs) : QJsonValue()},
            {QStringLiteral("_end"), attemptEndName(shown.end)},
            {QStringLiteral("_classification"), shown.cause},
            {QStringLiteral("_decision"), decisionName(shown.decision)},
            {QStringLiteral("_reason"), shown.reason},
        };
        // The seed that drew this request's jitter, to replay it.
        if (const auto spec = run.requests.constFind(shown.requestId); spec != run.requests.cend() && spec->seed) {
            entry.insert(QStringLiteral("_seed"), QString::number(*spec->seed));
            entry.insert(QStringLiteral("_seedStream"), double(spec->seedStream));
        } else if (run.seed) {
            entry.insert(QStringLiteral("_seed"), QString::number(*run.seed));
        }
        if (!shown.tls.isEmpty()) {
            // What the browsers' exports keep of TLS, and whether errors were ignored.
            entry.insert(QStringLiteral("_tls"),
                QJsonObject{
                    {QStringLiteral("protocol"), shown.tls.protocol},
                    {QStringLiteral("cipher"), shown.tls.cipher},
                    {QStringLiteral("peerSubject"), shown.tls.peerSubject},
                    {QStringLiteral("peerIssuer"), shown.tls.peerIssuer},
                    {QStringLiteral("peerNotBefore"), shown.tls.peerNotBefore},
                    {QStringLiteral("peerNotAfter"), shown.tls.peerNotAfter},
                    {QStringLiteral("errors"), QJsonArray::fromStringList(shown.tls.errors)},
                    {QStringLiteral("errorsIgnored"), shown.tls.errorsIgnored},
                });
        }
        const QHostAddress address(shown.url.host());
        if (!address.isNull())
            entry.insert(QStringLiteral("serverIPAddress"), address.toString());
        if (!emit(entry))
            return false;
    }
    return true;
}

QList<JsonStream::StreamedArray> harArrays(const RunRecord &run, const ExportOptions &options)
{
    return {{{QStringLiteral("log"), QStringLiteral("entries")},
        [&run, options](const auto &emit) { return writeEntries(run, options, emit); }}};
}

} // namespace

QJsonObject toJsonObject(const RunRecord &run, const ExportOptions &options)
{
    QJsonObject har = harSkeleton(run, options);
    QJsonArray entries;
    writeEntries(run, options, [&entries](const QJsonObject &entry) {
        entries.append(entry);
        return true;
    });
    QJsonObject log = har.value(QStringLiteral("log")).toObject();
    log.insert(QStringLiteral("entries"), entries);
    har.insert(QStringLiteral("log"), log);
    qCDebug(lcHarExport) << "wrote" << entries.size() << "entries";
    return har;
}

QByteArray toJson(const RunRecord &run, const ExportOptions &options)
{
    return JsonStream::toJson(harSkeleton(run, options), harArrays(run, options));
}

Result<qint64> writeFile(const QString &path, const RunRecord &run, const ExportOptions &options)
{
    // Written as it is produced: one entry in memory at a time.
    const QJsonObject skeleton = harSkeleton(run, options);
    const QList<JsonStream::StreamedArray> arrays = harArrays(run, options);
    return ExportFile::writeWith(path, [&](QIODevice &device) { return JsonStream::write(device, skeleton, arrays); });
}

namespace {

// `spec` as composed, whose body's size is written; `shown` its redacted copy.
QJsonObject specRequestObject(const RequestSpec &spec, const RequestSpec &shown)
{
    const HeaderList &headers = shown.headers;
    const QUrl &url = shown.url;
    const bool http2 = shown.transport.httpVersion != TransportOptions::HttpVersion::Http1;
    QJsonObject request{
        {QStringLiteral("method"), text(shown.method.trimmed().toUpper())},
        {QStringLiteral("url"), url.toString(QUrl::FullyEncoded)},
        {QStringLiteral("httpVersion"), http2 ? QStringLiteral("HTTP/2.0") : QStringLiteral("HTTP/1.1")},
        {QStringLiteral("cookies"), requestCookies(headers)},
        {QStringLiteral("headers"), headerArray(headers)},
        {QStringLiteral("queryString"), queryArray(url)},
        {QStringLiteral("headersSize"), -1},
        {QStringLiteral("bodySize"), double(spec.body.size())},
    };
    if (!spec.body.isEmpty())
        request.insert(QStringLiteral("postData"), postDataObject(spec.body, shown.body, headers));
    return request;
}

QString pageTitle(const RequestSpec &shown) // redacted
{
    QString title
        = QStringLiteral("%1 %2").arg(text(shown.method.trimmed().toUpper()), shown.url.toString(QUrl::FullyEncoded));
    if (!shown.label.isEmpty())
        title += QStringLiteral(" (%1)").arg(shown.label);
    return title;
}

// requestEntry() of `request` and its redacted copy `shown`.
QJsonObject specEntry(
    const RequestSpec &request, const RequestSpec &shown, const ExportOptions &options, const QDateTime &started)
{
    const QDateTime when = started.isValid() ? started.toUTC() : QDateTime::currentDateTimeUtc();
    QJsonObject entry{
        {QStringLiteral("startedDateTime"), when.toString(Qt::ISODateWithMs)},
        {QStringLiteral("time"), 0},
        {QStringLiteral("request"), specRequestObject(request, shown)},
        {QStringLiteral("response"),
            QJsonObject{
                {QStringLiteral("status"), 0},
                {QStringLiteral("statusText"), QString()},
                {QStringLiteral("httpVersion"), QString()},
                {QStringLiteral("cookies"), QJsonArray()},
                {QStringLiteral("headers"), QJsonArray()},
                {QStringLiteral("content"),
                    QJsonObject{
                        {QStringLiteral("size"), 0}, {QStringLiteral("mimeType"), QStringLiteral("x-unknown")}}},
                {QStringLiteral("redirectURL"), QString()},
                {QStringLiteral("headersSize"), -1},
                {QStringLiteral("bodySize"), -1},
                {QStringLiteral("comment"), QStringLiteral("not sent: a request exported from RetryLab")},
            }},
        {QStringLiteral("cache"), QJsonObject()},
        {QStringLiteral("timings"), timingsObject(Timings{})},
        {QStringLiteral("_label"), shown.label},
        {QStringLiteral("_idempotent"), request.idempotent},
        {QStringLiteral("_attemptTimeoutMs"),
            request.attemptTimeoutMs ? number(*request.attemptTimeoutMs) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("_kind"),
            request.kind == RequestSpec::Kind::ReadModifyWrite ? QStringLiteral("read-modify-write")
                                                               : QStringLiteral("single")},
        {QStringLiteral("_increment"), double(request.increment)},
        {QStringLiteral("_httpVersion"), TransportJson::httpVersionName(request.transport.httpVersion)},
    };
    const QHostAddress address(shown.url.host());
    if (!address.isNull())
        entry.insert(QStringLiteral("serverIPAddress"), address.toString());
    if (!options.redactCredentials)
        entry.insert(QStringLiteral("comment"), ExportOptions::credentialsWarning());
    return entry;
}

} // namespace

QJsonObject requestEntry(const RequestSpec &request, const ExportOptions &options, const QDateTime &started)
{
    return specEntry(request, RecordRedactor(options.redactCredentials).redacted(request), options, started);
}

QJsonObject requestHar(const RequestSpec &request, const ExportOptions &options, const QDateTime &started)
{
    // Redacted once, for the entry and the page's title.
    const RequestSpec shown = RecordRedactor(options.redactCredentials).redacted(request);
    QJsonObject entry = specEntry(request, shown, options, started);
    const QString page = QStringLiteral("request");
    entry.insert(QStringLiteral("pageref"), page);
    QJsonObject log{
        {QStringLiteral("version"), QStringLiteral("1.2")},
        {QStringLiteral("creator"),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("RetryLab")},
                {QStringLiteral("version"), QStringLiteral(RETRYLAB_VERSION)}}},
        {QStringLiteral("pages"),
            QJsonArray{QJsonObject{
                {QStringLiteral("startedDateTime"), entry.value(QStringLiteral("startedDateTime"))},
                {QStringLiteral("id"), page},
                {QStringLiteral("title"), pageTitle(shown)},
                {QStringLiteral("pageTimings"),
                    QJsonObject{{QStringLiteral("onContentLoad"), -1}, {QStringLiteral("onLoad"), -1}}},
            }}},
        {QStringLiteral("entries"), QJsonArray{entry}},
        {QStringLiteral("_redacted"), options.redactCredentials},
    };
    if (!options.redactCredentials)
        log.insert(QStringLiteral("comment"), ExportOptions::credentialsWarning());
    return QJsonObject{{QStringLiteral("log"), log}};
}

} // namespace RetryLab::Core::HarExport
