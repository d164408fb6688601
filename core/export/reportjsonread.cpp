#include "core/export/reportjson.h"

#include "core/auth/authjson.h"
#include "core/http/headerinterner.h"
#include "core/policy/fallbacktriggers.h"
#include "core/policy/policyjson.h"
#include "core/record/transportjson.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMetaEnum>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

// Reading a report back: ReportJson::fromJsonObject(), fromJson() and readFile().
// The writer is in reportjson.cpp.

namespace {
Q_LOGGING_CATEGORY(lcReportJson, "retrylab.core.reportjson")
} // namespace

namespace RetryLab::Core::ReportJson {

namespace {

// A report of a long batch run is large, but not this large.
constexpr qint64 maxReportBytes = qint64(512) * 1024 * 1024;

// JsonReader keeps the paths and the first error; these add the report's own
// conventions: null for "none" or for a number that was not finite, decimal
// strings for integers beyond 2^53, {"base64": "..."} for bytes that are not UTF-8.

QString text(JsonReader &r, const QString &key, Presence presence = Presence::Optional)
{
    if (r.value(key).isNull())
        return {};
    return r.string(key, presence).value_or(QString());
}

// null stands for a value that was not finite when written.
double number(JsonReader &r, const QString &key, double fallback)
{
    const QJsonValue v = r.value(key);
    if (v.isUndefined())
        return fallback;
    if (v.isNull())
        return std::nan("");
    return r.number(key).value_or(fallback);
}

std::optional<double> optionalNumber(JsonReader &r, const QString &key)
{
    if (r.value(key).isNull())
        return std::nullopt;
    return r.number(key);
}

// A whole number, written as a JSON number or (beyond 2^53) a decimal string.
std::optional<qint64> integer(JsonReader &r, const QString &key, qint64 min = std::numeric_limits<qint64>::min(),
    qint64 max = std::numeric_limits<qint64>::max(), Presence presence = Presence::Optional)
{
    const QJsonValue v = r.value(key);
    if (!v.isString())
        return r.integer(key, std::max(min, -maxExactInteger), std::min(max, maxExactInteger), presence);
    bool ok = false;
    const qint64 n = v.toString().toLongLong(&ok);
    if (!ok) {
        r.fail(key, Tr::tr("expected a whole number, got \"%1\"").arg(v.toString().left(40)));
        return std::nullopt;
    }
    if (n < min || n > max) {
        r.fail(key, Tr::tr("%1 is out of range (%2 to %3)").arg(n).arg(min).arg(max));
        return std::nullopt;
    }
    return n;
}

std::optional<int> optionalInt(JsonReader &r, const QString &key, int min, int max)
{
    if (r.value(key).isNull())
        return std::nullopt;
    const auto n = integer(r, key, min, max);
    if (!n)
        return std::nullopt;
    return int(*n);
}

// Request ids are unsigned 64-bit: a JSON number up to 2^53, a decimal string beyond.
quint64 requestId(JsonReader &r, const JsonReader::Key &key)
{
    if (!r.require(key))
        return 0;
    const QJsonValue v = r.value(key);
    quint64 id = 0;
    bool ok = false;
    if (v.isDouble()) {
        const double d = v.toDouble();
        ok = d == std::floor(d) && d >= 0 && d <= double(maxExactInteger);
        id = ok ? quint64(d) : 0;
    } else if (v.isString()) {
        id = v.toString().toULongLong(&ok);
    }
    if (!ok)
        r.fail(key, Tr::tr("expected a request id (a whole number of 0 or more)"));
    return id;
}

// A seed: absent or null when there is none.
std::optional<quint64> optionalSeed(JsonReader &r, const QString &key)
{
    if (!r.contains(key) || r.value(key).isNull())
        return std::nullopt;
    const JsonReader::Key k(key);
    return requestId(r, k);
}

QByteArray bytes(JsonReader &r, const QString &key, Presence presence = Presence::Optional)
{
    if (!r.contains(key)) {
        if (presence == Presence::Required)
            r.require(key);
        return {};
    }
    const QJsonValue v = r.value(key);
    if (v.isNull())
        return {};
    if (v.isString())
        return v.toString().toUtf8();
    if (v.isObject() && v.toObject().value(QStringLiteral("base64")).isString()) {
        const QByteArray encoded = v.toObject().value(QStringLiteral("base64")).toString().toLatin1();
        const auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
        if (decoded)
            return *decoded;
        r.fail(key, Tr::tr("invalid base64"));
        return {};
    }
    r.fail(key, Tr::tr("expected a string or {\"base64\": \"...\"}, got %1").arg(JsonReader::describe(v)));
    return {};
}

QUrl url(JsonReader &r, const QString &key)
{
    const QString t = text(r, key, Presence::Required);
    if (t.isEmpty())
        return {};
    const QUrl u(t, QUrl::StrictMode);
    if (!u.isValid())
        r.fail(key, Tr::tr("not a valid URL: %1").arg(u.errorString()));
    return u;
}

QDateTime date(JsonReader &r, const QString &key)
{
    const QString t = text(r, key);
    if (t.isEmpty())
        return {};
    const QDateTime time = QDateTime::fromString(t, Qt::ISODateWithMs);
    if (!time.isValid()) {
        r.fail(key, Tr::tr("expected an ISO 8601 date and time, got \"%1\"").arg(t.left(40)));
        return {};
    }
    return time.toUTC();
}

// Milliseconds as written, within what a qint64 of nanoseconds holds with room to spare.
std::optional<double> milliseconds(const QJsonValue &v)
{
    if (!v.isDouble() || !std::isfinite(v.toDouble()) || std::abs(v.toDouble()) > 9e12)
        return std::nullopt;
    return v.toDouble();
}

// "<key>Ms" relative to the run back to monotonic ns; null means "did not happen".
qint64 instant(JsonReader &r, const QString &key, qint64 epochNs)
{
    const QString name = key + QLatin1String("Ms");
    const QJsonValue v = r.value(name);
    if (v.isUndefined() || v.isNull())
        return -1;
    const auto ms = milliseconds(v);
    if (!ms) {
        r.fail(name, Tr::tr("expected milliseconds or null"));
        return -1;
    }
    return epochNs + std::llround(*ms * 1e6);
}

qint64 duration(JsonReader &r, const QString &key)
{
    const QJsonValue v = r.value(key);
    if (v.isUndefined())
        return 0;
    const auto ms = milliseconds(v);
    if (!ms) {
        r.fail(key, Tr::tr("expected milliseconds"));
        return 0;
    }
    return std::llround(*ms * 1e6);
}

HeaderList headers(JsonReader &r, const QString &key)
{
    HeaderList list;
    const QJsonValue v = r.value(key);
    if (v.isUndefined())
        return list;
    if (!v.isArray()) {
        r.fail(key, Tr::tr("expected an array of {\"name\", \"value\"} objects"));
        return list;
    }
    auto array = r.array(key);
    for (qsizetype i = 0; i < array->size() && !r.failed(); ++i) {
        const QJsonValue item = array->value(i);
        if (!item.isObject() || !item.toObject().contains(QStringLiteral("name"))
            || !item.toObject().contains(QStringLiteral("value"))) {
            array->fail(i, Tr::tr("expected an object with \"name\" and \"value\""));
            break;
        }
        auto header = array->object(i);
        list.append({bytes(*header, QStringLiteral("name")), bytes(*header, QStringLiteral("value"))});
    }
    return list;
}

// A name from `all`; absent, null or empty gives the fallback unless required.
template<typename T>
T named(JsonReader &r, const QString &key, const QList<T> &all, QString (*nameOf)(T), T fallback,
    Presence presence = Presence::Optional)
{
    const QJsonValue v = r.value(key);
    if (presence == Presence::Optional && (v.isUndefined() || v.isNull() || v == QJsonValue(QString())))
        return fallback;
    return r.named(key, all, nameOf, presence).value_or(fallback);
}

const QList<AttemptEnd> allEnds{AttemptEnd::Response, AttemptEnd::NetworkError, AttemptEnd::AttemptTimeout,
    AttemptEnd::Deadline, AttemptEnd::Cancelled};
const QList<Classification::Decision> allDecisions{Classification::Decision::Success,
    Classification::Decision::RetryAfterDelay, Classification::Decision::RetryImmediately,
    Classification::Decision::GiveUp};
const QList<RequestOutcome> allOutcomes{RequestOutcome::Succeeded, RequestOutcome::GaveUp,
    RequestOutcome::AttemptsExhausted, RequestOutcome::DeadlineExceeded, RequestOutcome::Cancelled,
    RequestOutcome::CircuitOpen, RequestOutcome::BudgetExhausted, RequestOutcome::InvalidRequest};
const QList<RequestSpec::Kind> allKinds{RequestSpec::Kind::Single, RequestSpec::Kind::ReadModifyWrite};

QStringList strings(JsonReader &r, const QString &key)
{
    QStringList list;
    if (r.value(key).isUndefined() || r.value(key).isNull())
        return list;
    auto array = r.array(key);
    for (qsizetype i = 0; array && i < array->size() && !r.failed(); ++i) {
        if (!array->value(i).isString()) {
            array->fail(i, Tr::tr("expected a string"));
            break;
        }
        list.append(array->value(i).toString());
    }
    return list;
}

TlsDetails readTls(JsonReader &t)
{
    TlsDetails tls;
    tls.protocol = text(t, QStringLiteral("protocol"));
    tls.cipher = text(t, QStringLiteral("cipher"));
    tls.peerSubject = text(t, QStringLiteral("peerSubject"));
    tls.peerIssuer = text(t, QStringLiteral("peerIssuer"));
    tls.peerNotBefore = text(t, QStringLiteral("peerNotBefore"));
    tls.peerNotAfter = text(t, QStringLiteral("peerNotAfter"));
    tls.errors = strings(t, QStringLiteral("errors"));
    tls.errorsIgnored = t.boolean(QStringLiteral("errorsIgnored")).value_or(false);
    return tls;
}

RequestSpec readRequest(JsonReader &f)
{
    RequestSpec s;
    s.kind = named(f, QStringLiteral("kind"), allKinds, &requestKindName, RequestSpec::Kind::Single);
    s.method = bytes(f, QStringLiteral("method"), Presence::Required);
    s.url = url(f, QStringLiteral("url"));
    s.headers = headers(f, QStringLiteral("headers"));
    s.body = bytes(f, QStringLiteral("body"));
    s.idempotent = f.boolean(QStringLiteral("idempotent")).value_or(false);
    s.attemptHeaders = f.boolean(QStringLiteral("attemptHeaders")).value_or(true);
    s.attemptTimeoutMs = optionalNumber(f, QStringLiteral("attemptTimeoutMs"));
    s.label = text(f, QStringLiteral("label"));
    s.increment = integer(f, QStringLiteral("increment")).value_or(1);
    s.seed = optionalSeed(f, QStringLiteral("seed"));
    if (s.seed)
        s.seedStream = optionalSeed(f, QStringLiteral("seedStream")).value_or(0);
    if (const QJsonValue shape = f.value(QStringLiteral("readModifyWrite")); shape.isObject()) {
        if (auto o = f.object(QStringLiteral("readModifyWrite"))) {
            ReadModifyWriteShape &rmw = s.readModifyWrite;
            rmw.readMethod = bytes(*o, QStringLiteral("readMethod"), Presence::Required);
            rmw.writeMethod = bytes(*o, QStringLiteral("writeMethod"), Presence::Required);
            if (const QString writeUrl = text(*o, QStringLiteral("writeUrl")); !writeUrl.isEmpty())
                rmw.writeUrl = QUrl(writeUrl, QUrl::StrictMode);
            rmw.valuePointer = text(*o, QStringLiteral("valuePointer"));
            rmw.etagPointer = text(*o, QStringLiteral("etagPointer"));
            rmw.writeEnvelope = text(*o, QStringLiteral("writeEnvelope"));
        }
    }
    const QStringList fallbacks = strings(f, QStringLiteral("fallbackUrls"));
    for (const QString &fallback : fallbacks) {
        const QUrl u(fallback, QUrl::StrictMode);
        if (!u.isValid() || u.host().isEmpty()) {
            f.fail(QStringLiteral("fallbackUrls"), Tr::tr("\"%1\" is not a valid URL").arg(fallback));
            break;
        }
        s.fallbackUrls.append(u);
    }
    if (f.contains(QStringLiteral("fallbackOn"))) {
        if (auto list = f.array(QStringLiteral("fallbackOn"))) {
            auto entries = FallbackTriggers::fromJson(list->array());
            if (entries)
                s.fallbackOn = *entries;
            else
                f.fail(QStringLiteral("fallbackOn"), entries.errorDetail());
        }
    }
    if (!f.value(QStringLiteral("transport")).isUndefined() && !f.value(QStringLiteral("transport")).isNull()) {
        if (auto transport = f.object(QStringLiteral("transport")))
            s.transport = TransportJson::read(*transport);
    }
    if (f.contains(QStringLiteral("auth"))) {
        if (auto auth = f.object(QStringLiteral("auth")))
            s.auth = AuthJson::read(*auth);
    }
    return s;
}

// `requests`: read before the attempts; an attempt without "requestBody" sent its request's.
AttemptRecord readAttempt(JsonReader &f, qint64 epochNs, const QHash<quint64, RequestSpec> &requests)
{
    AttemptRecord a;
    a.requestId = requestId(f, QStringLiteral("requestId"));
    a.attemptIndex = int(integer(f, QStringLiteral("attemptIndex"), 0, 1'000'000'000, Presence::Required).value_or(0));
    a.step = text(f, QStringLiteral("step"));
    a.sequenceRound = int(integer(f, QStringLiteral("sequenceRound"), 0, 1'000'000'000).value_or(0));
    a.fallback = int(integer(f, QStringLiteral("fallback"), 0, 1'000).value_or(0));
    a.method = bytes(f, QStringLiteral("method"), Presence::Required);
    a.url = url(f, QStringLiteral("url"));
    a.requestHeaders = headers(f, QStringLiteral("requestHeaders"));
    a.queuedNs = duration(f, QStringLiteral("queuedMs"));
    a.startNs = instant(f, QStringLiteral("start"), epochNs);
    a.endNs = instant(f, QStringLiteral("end"), epochNs);
    a.startWall = date(f, QStringLiteral("startWall")); // reports before the start was derived only
    a.plannedDelayMs = number(f, QStringLiteral("plannedDelayMs"), 0.0);
    a.actualDelayMs = number(f, QStringLiteral("actualDelayMs"), 0.0);
    a.connectionStartedNs = instant(f, QStringLiteral("connectionStarted"), epochNs);
    a.requestSentNs = instant(f, QStringLiteral("requestSent"), epochNs);
    a.firstByteNs = instant(f, QStringLiteral("firstByte"), epochNs);
    a.finishedNs = instant(f, QStringLiteral("finished"), epochNs);
    a.lookupStartNs = instant(f, QStringLiteral("lookupStarted"), epochNs);
    a.lookupEndNs = instant(f, QStringLiteral("lookupFinished"), epochNs);
    a.connectedNs = instant(f, QStringLiteral("connected"), epochNs);
    a.encryptedNs = instant(f, QStringLiteral("encrypted"), epochNs);
    a.connectAddress = text(f, QStringLiteral("connectAddress"));
    a.connectTimedOut = f.value(QStringLiteral("connectTimedOut")).toBool(false);
    const QString ending = f.value(QStringLiteral("ending")).isUndefined() ? QStringLiteral("end") // older reports
                                                                           : QStringLiteral("ending");
    a.end = named(f, ending, allEnds, &attemptEndName, AttemptEnd::Response, Presence::Required);
    a.httpStatus = optionalInt(f, QStringLiteral("httpStatus"), 0, 999);
    a.reasonPhrase = bytes(f, QStringLiteral("reasonPhrase"));

    const QString errorName = text(f, QStringLiteral("networkError"));
    if (!errorName.isEmpty()) {
        bool ok = false;
        const int code
            = QMetaEnum::fromType<QNetworkReply::NetworkError>().keyToValue(errorName.toLatin1().constData(), &ok);
        if (ok)
            a.networkError = QNetworkReply::NetworkError(code);
        else
            f.fail(QStringLiteral("networkError"), Tr::tr("unknown network error \"%1\"").arg(errorName));
    }
    a.errorString = text(f, QStringLiteral("errorString"));
    a.responseHeaders = headers(f, QStringLiteral("responseHeaders"));
    a.bytesReceived = integer(f, QStringLiteral("bytesReceived")).value_or(0);
    a.expectedBytes = integer(f, QStringLiteral("expectedBytes")).value_or(-1);
    a.transferEnded = f.boolean(QStringLiteral("transferEnded")).value_or(false);
    a.hedged = f.boolean(QStringLiteral("hedged")).value_or(false);
    a.hedgeWinner = f.boolean(QStringLiteral("hedgeWinner")).value_or(false);
    a.decision = named(f, QStringLiteral("decision"), allDecisions, &decisionName, Classification::Decision::GiveUp,
        Presence::Required);
    a.cause = text(f, QStringLiteral("cause"));
    a.reason = text(f, QStringLiteral("reason"));
    a.retryAfterMs = optionalNumber(f, QStringLiteral("retryAfterMs"));
    a.retryAfterRaw = bytes(f, QStringLiteral("retryAfterRaw"));
    a.nextDelayMs = number(f, QStringLiteral("nextDelayMs"), -1.0);
    a.requestBodyDropped = f.boolean(QStringLiteral("requestBodyDropped")).value_or(false);
    if (f.contains(QStringLiteral("requestBody")))
        a.requestBody = bytes(f, QStringLiteral("requestBody"));
    else if (!a.requestBodyDropped)
        a.requestBody = requests.value(a.requestId).body;
    a.responseBody = bytes(f, QStringLiteral("responseBody"));
    a.responseBodyTruncated = f.boolean(QStringLiteral("responseBodyTruncated")).value_or(false);
    a.responseBodyDropped = f.boolean(QStringLiteral("responseBodyDropped")).value_or(false);
    a.protocol = text(f, QStringLiteral("protocol"));
    if (!f.value(QStringLiteral("tls")).isUndefined() && !f.value(QStringLiteral("tls")).isNull()) {
        if (auto tls = f.object(QStringLiteral("tls")))
            a.tls = readTls(*tls);
    }
    if (f.contains(QStringLiteral("redirects"))) {
        if (auto hops = f.array(QStringLiteral("redirects"))) {
            for (qsizetype i = 0; i < hops->size(); ++i) {
                auto h = hops->object(i);
                if (!h)
                    break;
                RedirectHop hop;
                const QString kind = text(*h, QStringLiteral("kind"));
                if (kind == QLatin1String("token"))
                    hop.kind = RedirectHop::Kind::Token;
                else if (kind == QLatin1String("challenge"))
                    hop.kind = RedirectHop::Kind::Challenge;
                else if (!kind.isEmpty() && kind != QLatin1String("redirect"))
                    h->fail(QStringLiteral("kind"),
                        Tr::tr("unknown hop kind \"%1\" (known: redirect, token, challenge)").arg(kind));
                const bool redirect = hop.kind == RedirectHop::Kind::Redirect;
                hop.status = int(integer(
                    *h, QStringLiteral("status"), redirect ? 300 : 100, redirect ? 399 : 599, Presence::Required)
                                     .value_or(0));
                hop.method = bytes(*h, QStringLiteral("method"));
                hop.from = url(*h, QStringLiteral("from"));
                hop.to = url(*h, QStringLiteral("to"));
                hop.followed = h->boolean(QStringLiteral("followed")).value_or(true);
                hop.crossOrigin = h->boolean(QStringLiteral("crossOrigin")).value_or(false);
                if (const auto names = h->strings(QStringLiteral("droppedHeaders"))) {
                    for (const QString &name : *names)
                        hop.droppedHeaders.append(name.toLatin1());
                }
                hop.note = text(*h, QStringLiteral("note"));
                hop.startNs = instant(*h, QStringLiteral("start"), epochNs);
                hop.connectionStartedNs = instant(*h, QStringLiteral("connectionStarted"), epochNs);
                hop.requestSentNs = instant(*h, QStringLiteral("requestSent"), epochNs);
                hop.firstByteNs = instant(*h, QStringLiteral("firstByte"), epochNs);
                hop.finishedNs = instant(*h, QStringLiteral("finished"), epochNs);
                a.redirects.append(hop);
            }
        }
    }
    return a;
}

RequestResult readResult(JsonReader &f, qint64 epochNs)
{
    RequestResult r;
    r.requestId = requestId(f, QStringLiteral("requestId"));
    r.outcome = named(
        f, QStringLiteral("outcome"), allOutcomes, &requestOutcomeName, RequestOutcome::GaveUp, Presence::Required);
    r.attempts = int(integer(f, QStringLiteral("attempts"), 0, 1'000'000'000).value_or(0));
    r.reason = text(f, QStringLiteral("reason"));
    r.finalStatus = optionalInt(f, QStringLiteral("finalStatus"), 0, 999);
    r.startNs = instant(f, QStringLiteral("start"), epochNs);
    r.endNs = instant(f, QStringLiteral("end"), epochNs);
    r.body = bytes(f, QStringLiteral("body"));
    r.fallback = int(integer(f, QStringLiteral("fallback"), 0, 1'000).value_or(0));
    r.fallbackTriggers = strings(f, QStringLiteral("fallbackTriggers"));
    return r;
}

ExpectationResult readExpectation(JsonReader &f)
{
    ExpectationResult e;
    e.name = text(f, QStringLiteral("name"), Presence::Required);
    e.passed = f.boolean(QStringLiteral("passed")).value_or(false);
    e.message = text(f, QStringLiteral("message"));
    e.durationMs = number(f, QStringLiteral("durationMs"), 0.0);
    if (auto ids = f.array(QStringLiteral("requestIds"))) {
        for (qsizetype i = 0; i < ids->size() && !f.failed(); ++i)
            e.requestIds.append(requestId(*ids, i));
    }
    return e;
}

// Reads each element of the array `key` with `read`, until the first error.
template<typename Read>
void readEach(JsonReader &top, const QString &key, Presence presence, Read read)
{
    auto array = top.array(key, presence);
    if (!array)
        return;
    for (qsizetype i = 0; i < array->size() && !top.failed(); ++i) {
        if (auto element = array->object(i, Presence::Required))
            read(*element);
    }
}

} // namespace

Result<Report> fromJsonObject(const QJsonObject &object)
{
    JsonReader top(object);
    Report report;

    const QString format = text(top, QStringLiteral("format"), Presence::Required);
    if (!top.failed() && format != QLatin1String(formatName))
        top.fail(
            QStringLiteral("format"), Tr::tr("expected \"%1\", got \"%2\"").arg(QLatin1String(formatName), format));
    const auto version = integer(top, QStringLiteral("version"), std::numeric_limits<qint64>::min(),
        std::numeric_limits<qint64>::max(), Presence::Required);
    if (version && (*version < 1 || *version > formatVersion)) {
        top.fail(QStringLiteral("version"),
            Tr::tr("version %1 is not supported (this build reads up to %2)").arg(*version).arg(formatVersion));
    }
    if (top.failed())
        return top.firstError();

    report.redacted = top.boolean(QStringLiteral("redacted")).value_or(true);
    report.run.startedAt = date(top, QStringLiteral("startedAt"));
    report.run.epochNs = integer(top, QStringLiteral("epochNs")).value_or(0);
    report.run.seed = optionalSeed(top, QStringLiteral("seed"));

    // A policy reports its errors with paths inside it; they go under the report's path.
    const auto readPolicy = [](JsonReader &r, const QString &key) -> std::optional<BackoffPolicy> {
        QJsonObject policyObject;
        if (r.contains(key)) {
            const auto policy = r.object(key);
            if (!policy)
                return std::nullopt;
            policyObject = policy->object();
        }
        auto parsed = PolicyJson::fromJsonObject(policyObject);
        if (!parsed) {
            r.fail(key, parsed.errorDetail());
            return std::nullopt;
        }
        return std::move(parsed).value();
    };
    if (top.require(QStringLiteral("policy"))) {
        if (auto policy = readPolicy(top, QStringLiteral("policy")))
            report.run.policy = std::move(*policy);
    }
    readEach(top, QStringLiteral("policies"), Presence::Optional, [&](JsonReader &entry) {
        if (auto policy = readPolicy(entry, QStringLiteral("policy")))
            report.run.policies.append(std::move(*policy));
    });

    // Each attempt repeats its request's headers: read back, they share one copy.
    HeaderInterner interner;
    readEach(top, QStringLiteral("requests"), Presence::Required, [&](JsonReader &f) {
        const quint64 id = requestId(f, QStringLiteral("id"));
        RequestSpec spec = readRequest(f);
        interner.intern(spec.headers);
        if (!f.failed() && report.run.requests.contains(id))
            f.fail(QStringLiteral("id"), Tr::tr("request %1 appears twice").arg(id));
        report.run.requests.insert(id, std::move(spec));
        if (const auto policyIndex = integer(f, QStringLiteral("policyIndex"), 0, INT_MAX)) {
            if (*policyIndex >= report.run.policies.size()) {
                f.fail(QStringLiteral("policyIndex"), Tr::tr("%1 is not an index into \"policies\"").arg(*policyIndex));
            }
            report.run.requestPolicies.insert(id, int(*policyIndex));
        }
    });

    report.run.attempts.reserve(top.value(QStringLiteral("attempts")).toArray().size());
    readEach(top, QStringLiteral("attempts"), Presence::Required, [&](JsonReader &f) {
        AttemptRecord a = readAttempt(f, report.run.epochNs, report.run.requests);
        interner.intern(a.requestHeaders);
        interner.internRepeating(a.responseHeaders);
        // One wall-clock start, derived from the monotonic one as "startUtc" is.
        if (!a.startWall.isValid() && a.startNs >= 0 && report.run.startedAt.isValid())
            a.startWall = report.run.wallTimeOf(a.startNs);
        report.run.attempts.append(a);
    });
    readEach(top, QStringLiteral("results"), Presence::Required,
        [&](JsonReader &f) { report.run.results.append(readResult(f, report.run.epochNs)); });
    readEach(top, QStringLiteral("expectations"), Presence::Optional,
        [&](JsonReader &f) { report.expectations.append(readExpectation(f)); });

    return top.result(std::move(report));
}

Result<Report> fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return jsonSyntaxError(json, parseError);
    if (!document.isObject())
        return Result<Report>::failure(Tr::tr("a report must hold a JSON object"));
    return fromJsonObject(document.object());
}

Result<Report> readFile(const QString &path)
{
    const QString shown = QDir::toNativeSeparators(path);
    const auto bytes = BoundedFile::read(path, {maxReportBytes, Tr::tr("a report")});
    if (!bytes)
        return bytes.errorDetail();
    auto result = fromJson(*bytes);
    if (!result) {
        qCWarning(lcReportJson).noquote() << "cannot load" << shown << ":" << result.error();
        return Result<Report>::failure(Tr::tr("%1: %2").arg(shown, result.error()));
    }
    return result;
}

} // namespace RetryLab::Core::ReportJson
