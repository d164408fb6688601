#include "core/export/reportjson.h"

#include "core/http/redactor.h"
#include "core/policy/policyjson.h"
#include "core/util/coretr.h"
#include "core/util/exportfile.h"
#include "core/util/version.h"

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

Q_LOGGING_CATEGORY(lcReportJson, "retrylab.core.reportjson")

namespace RetryLab::Core::ReportJson {

namespace {

// Largest integer a JSON number (a double) holds exactly.
constexpr qint64 maxExactInteger = qint64(1) << 53;
// A report of a long batch run is large, but not this large.
constexpr qint64 maxReportBytes = qint64(512) * 1024 * 1024;

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

QString kindName(RequestSpec::Kind kind)
{
    return kind == RequestSpec::Kind::ReadModifyWrite ? QStringLiteral("read-modify-write") : QStringLiteral("single");
}

QString networkErrorName(QNetworkReply::NetworkError error)
{
    const char *key = QMetaEnum::fromType<QNetworkReply::NetworkError>().valueToKey(error);
    return key ? QString::fromLatin1(key) : QString::number(int(error));
}

QJsonObject requestObject(quint64 id, const RequestSpec &spec, const Redactor &redactor)
{
    return QJsonObject{
        {QStringLiteral("id"), unsignedValue(id)},
        {QStringLiteral("kind"), kindName(spec.kind)},
        {QStringLiteral("method"), bytesValue(spec.method)},
        {QStringLiteral("url"), redactor.urlString(spec.url)},
        {QStringLiteral("headers"), headersValue(redactor.headers(spec.headers))},
        {QStringLiteral("body"), bytesValue(redactor.body(spec.body, spec.headers))},
        {QStringLiteral("idempotent"), spec.idempotent},
        {QStringLiteral("attemptTimeoutMs"), optionalNumber(spec.attemptTimeoutMs)},
        {QStringLiteral("label"), redactor.text(spec.label)},
        {QStringLiteral("increment"), integerValue(spec.increment)},
    };
}

QJsonObject attemptObject(const AttemptRecord &a, const RunRecord &run, const Redactor &redactor)
{
    QJsonObject o{
        {QStringLiteral("requestId"), unsignedValue(a.requestId)},
        {QStringLiteral("attemptIndex"), a.attemptIndex},
        {QStringLiteral("step"), a.step},
        {QStringLiteral("sequenceRound"), a.sequenceRound},
        {QStringLiteral("method"), bytesValue(a.method)},
        {QStringLiteral("url"), redactor.urlString(a.url)},
        {QStringLiteral("requestHeaders"), headersValue(redactor.headers(a.requestHeaders))},
        {QStringLiteral("queuedMs"), double(a.queuedNs) / 1e6},
        {QStringLiteral("startWall"), dateValue(a.startWall)},
        {QStringLiteral("durationMs"), a.durationMs()},
        {QStringLiteral("plannedDelayMs"), numberValue(a.plannedDelayMs)},
        {QStringLiteral("actualDelayMs"), numberValue(a.actualDelayMs)},
        {QStringLiteral("end"), attemptEndName(a.end)},
        {QStringLiteral("httpStatus"), optionalInt(a.httpStatus)},
        {QStringLiteral("reasonPhrase"), bytesValue(redactor.body(a.reasonPhrase, {}))},
        {QStringLiteral("networkError"), networkErrorName(a.networkError)},
        {QStringLiteral("networkErrorCode"), int(a.networkError)},
        {QStringLiteral("errorString"), redactor.text(a.errorString)},
        {QStringLiteral("responseHeaders"), headersValue(redactor.headers(a.responseHeaders))},
        {QStringLiteral("bytesReceived"), integerValue(a.bytesReceived)},
        {QStringLiteral("expectedBytes"), integerValue(a.expectedBytes)},
        {QStringLiteral("decision"), decisionName(a.decision)},
        {QStringLiteral("cause"), a.cause},
        {QStringLiteral("reason"), redactor.text(a.reason)},
        {QStringLiteral("retryAfterMs"), optionalNumber(a.retryAfterMs)},
        {QStringLiteral("retryAfterRaw"), bytesValue(a.retryAfterRaw)},
        {QStringLiteral("nextDelayMs"), numberValue(a.nextDelayMs)},
    };
    insertTime(o, QStringLiteral("start"), a.startNs, run);
    // "end" is how the attempt ended; the instant is "endMs" / "endUtc".
    insertTime(o, QStringLiteral("end"), a.endNs, run);
    insertTime(o, QStringLiteral("connectionStarted"), a.connectionStartedNs, run);
    insertTime(o, QStringLiteral("requestSent"), a.requestSentNs, run);
    insertTime(o, QStringLiteral("firstByte"), a.firstByteNs, run);
    insertTime(o, QStringLiteral("finished"), a.finishedNs, run);
    return o;
}

// `responseHeaders`: the final response's headers, which tell how to redact its body.
QJsonObject resultObject(
    const RequestResult &r, const HeaderList &responseHeaders, const RunRecord &run, const Redactor &redactor)
{
    QJsonObject o{
        {QStringLiteral("requestId"), unsignedValue(r.requestId)},
        {QStringLiteral("outcome"), requestOutcomeName(r.outcome)},
        {QStringLiteral("attempts"), r.attempts},
        {QStringLiteral("reason"), redactor.text(r.reason)},
        {QStringLiteral("finalStatus"), optionalInt(r.finalStatus)},
        {QStringLiteral("totalMs"), r.totalMs()},
        {QStringLiteral("body"), bytesValue(redactor.body(r.body, responseHeaders))},
    };
    insertTime(o, QStringLiteral("start"), r.startNs, run);
    insertTime(o, QStringLiteral("end"), r.endNs, run);
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

// ---- reading -------------------------------------------------------------

// Reads the fields of one JSON object; the first problem is kept with its path.
class Fields
{
public:
    Fields(const QJsonObject &object, QString path, QString *error)
        : m_object(object), m_path(std::move(path)), m_error(error)
    { }

    QString path(const QString &key) const { return m_path.isEmpty() ? key : m_path + QLatin1Char('.') + key; }
    bool failed() const { return !m_error->isEmpty(); }

    void fail(const QString &key, const QString &message)
    {
        if (m_error->isEmpty())
            *m_error = Tr::tr("field \"%1\": %2").arg(path(key), message);
    }

    QJsonValue value(const QString &key, bool required)
    {
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined() && required)
            fail(key, Tr::tr("missing"));
        return v;
    }

    QString string(const QString &key, bool required = false)
    {
        const QJsonValue v = value(key, required);
        if (v.isUndefined() || v.isNull())
            return {};
        if (!v.isString())
            fail(key, Tr::tr("expected a string"));
        return v.toString();
    }

    bool boolean(const QString &key, bool fallback)
    {
        const QJsonValue v = value(key, false);
        if (v.isUndefined())
            return fallback;
        if (!v.isBool())
            fail(key, Tr::tr("expected true or false"));
        return v.toBool();
    }

    // null stands for a value that was not finite when written.
    double number(const QString &key, double fallback)
    {
        const QJsonValue v = value(key, false);
        if (v.isUndefined())
            return fallback;
        if (v.isNull())
            return std::nan("");
        if (!v.isDouble())
            fail(key, Tr::tr("expected a number"));
        return v.toDouble();
    }

    std::optional<double> optionalNumber(const QString &key)
    {
        const QJsonValue v = value(key, false);
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        if (!v.isDouble()) {
            fail(key, Tr::tr("expected a number or null"));
            return std::nullopt;
        }
        return v.toDouble();
    }

    // A whole number, written as a JSON number or (beyond 2^53) a decimal string.
    qint64 integer(const QString &key, qint64 fallback, bool required = false,
        qint64 min = std::numeric_limits<qint64>::min(), qint64 max = std::numeric_limits<qint64>::max())
    {
        const QJsonValue v = value(key, required);
        if (v.isUndefined())
            return fallback;
        qint64 result = 0;
        bool ok = false;
        if (v.isDouble()) {
            const double d = v.toDouble();
            ok = d == std::floor(d) && std::abs(d) <= double(maxExactInteger);
            result = ok ? qint64(d) : 0;
        } else if (v.isString()) {
            result = v.toString().toLongLong(&ok);
        }
        if (!ok) {
            fail(key, Tr::tr("expected a whole number"));
            return fallback;
        }
        if (result < min || result > max) {
            fail(key, Tr::tr("%1 is out of range (%2 to %3)").arg(result).arg(min).arg(max));
            return fallback;
        }
        return result;
    }

    quint64 id(const QString &key)
    {
        const QJsonValue v = value(key, true);
        quint64 result = 0;
        bool ok = false;
        if (v.isDouble()) {
            const double d = v.toDouble();
            ok = d == std::floor(d) && d >= 0 && d <= double(maxExactInteger);
            result = ok ? quint64(d) : 0;
        } else if (v.isString()) {
            result = v.toString().toULongLong(&ok);
        }
        if (!ok && !v.isUndefined())
            fail(key, Tr::tr("expected a request id (a whole number of 0 or more)"));
        return result;
    }

    int smallInt(const QString &key, int fallback, int min, int max)
    {
        return int(integer(key, fallback, false, min, max));
    }

    std::optional<int> optionalInt(const QString &key, int min, int max)
    {
        const QJsonValue v = value(key, false);
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        return int(integer(key, 0, false, min, max));
    }

    QByteArray bytes(const QString &key, bool required = false) { return bytesOf(value(key, required), key); }

    QByteArray bytesOf(const QJsonValue &v, const QString &key)
    {
        if (v.isUndefined() || v.isNull())
            return {};
        if (v.isString())
            return v.toString().toUtf8();
        if (v.isObject() && v.toObject().value(QStringLiteral("base64")).isString()) {
            const QByteArray encoded = v.toObject().value(QStringLiteral("base64")).toString().toLatin1();
            const auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
            if (decoded)
                return *decoded;
            fail(key, Tr::tr("invalid base64"));
            return {};
        }
        fail(key, Tr::tr("expected a string or {\"base64\": \"...\"}"));
        return {};
    }

    QUrl url(const QString &key)
    {
        const QString text = string(key, true);
        if (text.isEmpty())
            return {};
        const QUrl u(text, QUrl::StrictMode);
        if (!u.isValid())
            fail(key, Tr::tr("not a valid URL: %1").arg(u.errorString()));
        return u;
    }

    QDateTime date(const QString &key)
    {
        const QString text = string(key);
        if (text.isEmpty())
            return {};
        QDateTime t = QDateTime::fromString(text, Qt::ISODateWithMs);
        if (!t.isValid()) {
            fail(key, Tr::tr("expected an ISO 8601 date and time, got \"%1\"").arg(text.left(40)));
            return {};
        }
        return t.toUTC();
    }

    // "<key>Ms" relative to the run back to monotonic ns; null means "did not happen".
    qint64 instant(const QString &key, qint64 epochNs)
    {
        const QString name = key + QLatin1String("Ms");
        const QJsonValue v = value(name, false);
        if (v.isUndefined() || v.isNull())
            return -1;
        if (!v.isDouble() || !std::isfinite(v.toDouble()) || std::abs(v.toDouble()) > 9e12) {
            fail(name, Tr::tr("expected milliseconds or null"));
            return -1;
        }
        return epochNs + std::llround(v.toDouble() * 1e6);
    }

    qint64 duration(const QString &key)
    {
        const QJsonValue v = value(key, false);
        if (v.isUndefined())
            return 0;
        if (!v.isDouble() || !std::isfinite(v.toDouble()) || std::abs(v.toDouble()) > 9e12) {
            fail(key, Tr::tr("expected milliseconds"));
            return 0;
        }
        return std::llround(v.toDouble() * 1e6);
    }

    HeaderList headers(const QString &key)
    {
        HeaderList list;
        const QJsonValue v = value(key, false);
        if (v.isUndefined())
            return list;
        if (!v.isArray()) {
            fail(key, Tr::tr("expected an array of {\"name\", \"value\"} objects"));
            return list;
        }
        const QJsonArray array = v.toArray();
        for (qsizetype i = 0; i < array.size() && !failed(); ++i) {
            const QString itemKey = QStringLiteral("%1[%2]").arg(key).arg(i);
            if (!array.at(i).isObject()) {
                fail(itemKey, Tr::tr("expected an object with \"name\" and \"value\""));
                break;
            }
            const QJsonObject header = array.at(i).toObject();
            if (!header.contains(QStringLiteral("name")) || !header.contains(QStringLiteral("value"))) {
                fail(itemKey, Tr::tr("expected an object with \"name\" and \"value\""));
                break;
            }
            const QByteArray name = bytesOf(header.value(QStringLiteral("name")), itemKey + QLatin1String(".name"));
            const QByteArray headerValue
                = bytesOf(header.value(QStringLiteral("value")), itemKey + QLatin1String(".value"));
            list.append({name, headerValue});
        }
        return list;
    }

    QJsonArray array(const QString &key, bool required)
    {
        const QJsonValue v = value(key, required);
        if (v.isUndefined())
            return {};
        if (!v.isArray())
            fail(key, Tr::tr("expected an array"));
        return v.toArray();
    }

    template<typename T>
    T named(const QString &key, const QList<T> &all, QString (*nameOf)(T), T fallback, bool required = false)
    {
        const QString text = string(key, required);
        if (text.isEmpty() && !required)
            return fallback;
        for (T each : all) {
            if (nameOf(each) == text)
                return each;
        }
        QStringList names;
        for (T each : all)
            names.append(nameOf(each));
        fail(key, Tr::tr("unknown value \"%1\" (known: %2)").arg(text, names.join(QStringLiteral(", "))));
        return fallback;
    }

private:
    const QJsonObject &m_object;
    QString m_path;
    QString *m_error;
};

const QList<AttemptEnd> allEnds{AttemptEnd::Response, AttemptEnd::NetworkError, AttemptEnd::AttemptTimeout,
    AttemptEnd::Deadline, AttemptEnd::Cancelled};
const QList<Classification::Decision> allDecisions{Classification::Decision::Success,
    Classification::Decision::RetryAfterDelay, Classification::Decision::RetryImmediately,
    Classification::Decision::GiveUp};
const QList<RequestOutcome> allOutcomes{RequestOutcome::Succeeded, RequestOutcome::GaveUp,
    RequestOutcome::AttemptsExhausted, RequestOutcome::DeadlineExceeded, RequestOutcome::Cancelled,
    RequestOutcome::CircuitOpen, RequestOutcome::BudgetExhausted, RequestOutcome::InvalidRequest};
const QList<RequestSpec::Kind> allKinds{RequestSpec::Kind::Single, RequestSpec::Kind::ReadModifyWrite};

std::optional<QJsonObject> elementObject(const QJsonArray &array, qsizetype i, const QString &path, QString *error)
{
    if (array.at(i).isObject())
        return array.at(i).toObject();
    if (error->isEmpty())
        *error = Tr::tr("field \"%1[%2]\": expected an object").arg(path).arg(i);
    return std::nullopt;
}

RequestSpec readRequest(Fields &f)
{
    RequestSpec s;
    s.kind = f.named(QStringLiteral("kind"), allKinds, &kindName, RequestSpec::Kind::Single);
    s.method = f.bytes(QStringLiteral("method"), true);
    s.url = f.url(QStringLiteral("url"));
    s.headers = f.headers(QStringLiteral("headers"));
    s.body = f.bytes(QStringLiteral("body"));
    s.idempotent = f.boolean(QStringLiteral("idempotent"), false);
    s.attemptTimeoutMs = f.optionalNumber(QStringLiteral("attemptTimeoutMs"));
    s.label = f.string(QStringLiteral("label"));
    s.increment = f.integer(QStringLiteral("increment"), 1);
    return s;
}

AttemptRecord readAttempt(Fields &f, qint64 epochNs)
{
    AttemptRecord a;
    a.requestId = f.id(QStringLiteral("requestId"));
    a.attemptIndex = int(f.integer(QStringLiteral("attemptIndex"), 0, true, 0, 1'000'000'000));
    a.step = f.string(QStringLiteral("step"));
    a.sequenceRound = f.smallInt(QStringLiteral("sequenceRound"), 0, 0, 1'000'000'000);
    a.method = f.bytes(QStringLiteral("method"), true);
    a.url = f.url(QStringLiteral("url"));
    a.requestHeaders = f.headers(QStringLiteral("requestHeaders"));
    a.queuedNs = f.duration(QStringLiteral("queuedMs"));
    a.startNs = f.instant(QStringLiteral("start"), epochNs);
    a.endNs = f.instant(QStringLiteral("end"), epochNs);
    a.startWall = f.date(QStringLiteral("startWall"));
    a.plannedDelayMs = f.number(QStringLiteral("plannedDelayMs"), 0.0);
    a.actualDelayMs = f.number(QStringLiteral("actualDelayMs"), 0.0);
    a.connectionStartedNs = f.instant(QStringLiteral("connectionStarted"), epochNs);
    a.requestSentNs = f.instant(QStringLiteral("requestSent"), epochNs);
    a.firstByteNs = f.instant(QStringLiteral("firstByte"), epochNs);
    a.finishedNs = f.instant(QStringLiteral("finished"), epochNs);
    a.end = f.named(QStringLiteral("end"), allEnds, &attemptEndName, AttemptEnd::Response, true);
    a.httpStatus = f.optionalInt(QStringLiteral("httpStatus"), 0, 999);
    a.reasonPhrase = f.bytes(QStringLiteral("reasonPhrase"));

    const QString errorName = f.string(QStringLiteral("networkError"));
    if (!errorName.isEmpty()) {
        bool ok = false;
        const int code
            = QMetaEnum::fromType<QNetworkReply::NetworkError>().keyToValue(errorName.toLatin1().constData(), &ok);
        if (ok)
            a.networkError = QNetworkReply::NetworkError(code);
        else
            f.fail(QStringLiteral("networkError"), Tr::tr("unknown network error \"%1\"").arg(errorName));
    }
    a.errorString = f.string(QStringLiteral("errorString"));
    a.responseHeaders = f.headers(QStringLiteral("responseHeaders"));
    a.bytesReceived = f.integer(QStringLiteral("bytesReceived"), 0);
    a.expectedBytes = f.integer(QStringLiteral("expectedBytes"), -1);
    a.decision
        = f.named(QStringLiteral("decision"), allDecisions, &decisionName, Classification::Decision::GiveUp, true);
    a.cause = f.string(QStringLiteral("cause"));
    a.reason = f.string(QStringLiteral("reason"));
    a.retryAfterMs = f.optionalNumber(QStringLiteral("retryAfterMs"));
    a.retryAfterRaw = f.bytes(QStringLiteral("retryAfterRaw"));
    a.nextDelayMs = f.number(QStringLiteral("nextDelayMs"), -1.0);
    return a;
}

RequestResult readResult(Fields &f, qint64 epochNs)
{
    RequestResult r;
    r.requestId = f.id(QStringLiteral("requestId"));
    r.outcome = f.named(QStringLiteral("outcome"), allOutcomes, &requestOutcomeName, RequestOutcome::GaveUp, true);
    r.attempts = f.smallInt(QStringLiteral("attempts"), 0, 0, 1'000'000'000);
    r.reason = f.string(QStringLiteral("reason"));
    r.finalStatus = f.optionalInt(QStringLiteral("finalStatus"), 0, 999);
    r.startNs = f.instant(QStringLiteral("start"), epochNs);
    r.endNs = f.instant(QStringLiteral("end"), epochNs);
    r.body = f.bytes(QStringLiteral("body"));
    return r;
}

ExpectationResult readExpectation(Fields &f)
{
    ExpectationResult e;
    e.name = f.string(QStringLiteral("name"), true);
    e.passed = f.boolean(QStringLiteral("passed"), false);
    e.message = f.string(QStringLiteral("message"));
    e.durationMs = f.number(QStringLiteral("durationMs"), 0.0);
    const QJsonArray ids = f.array(QStringLiteral("requestIds"), false);
    for (qsizetype i = 0; i < ids.size() && !f.failed(); ++i) {
        const QJsonValue v = ids.at(i);
        const double d = v.toDouble(-1.0);
        bool ok = v.isDouble() && d >= 0 && d == std::floor(d) && d <= double(maxExactInteger);
        quint64 id = ok ? quint64(d) : 0;
        if (v.isString())
            id = v.toString().toULongLong(&ok);
        if (!ok) {
            f.fail(
                QStringLiteral("requestIds[%1]").arg(i), Tr::tr("expected a request id (a whole number of 0 or more)"));
            break;
        }
        e.requestIds.append(id);
    }
    return e;
}

} // namespace

QJsonObject toJsonObject(
    const RunRecord &run, const ExportOptions &options, const QList<ExpectationResult> &expectations)
{
    const Redactor redactor(options.redactCredentials);

    QList<quint64> ids = run.requests.keys();
    std::sort(ids.begin(), ids.end());
    QJsonArray requests;
    for (quint64 id : std::as_const(ids)) {
        QJsonObject request = requestObject(id, run.requests.value(id), redactor);
        if (const int index = run.requestPolicies.value(id, -1); index >= 0 && index < run.policies.size())
            request.insert(QStringLiteral("policyIndex"), index);
        requests.append(request);
    }
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

    QJsonArray attempts;
    for (const AttemptRecord &a : run.attempts)
        attempts.append(attemptObject(a, run, redactor));

    QHash<quint64, const HeaderList *> lastResponseHeaders;
    for (const AttemptRecord &a : run.attempts)
        lastResponseHeaders.insert(a.requestId, &a.responseHeaders);
    QJsonArray results;
    for (const RequestResult &r : run.results) {
        const HeaderList *headers = lastResponseHeaders.value(r.requestId);
        results.append(resultObject(r, headers ? *headers : HeaderList(), run, redactor));
    }

    QJsonArray verdicts;
    for (const ExpectationResult &e : expectations) {
        QJsonArray requestIds;
        for (quint64 id : e.requestIds)
            requestIds.append(unsignedValue(id));
        verdicts.append(QJsonObject{
            {QStringLiteral("name"), redactor.text(e.name)},
            {QStringLiteral("passed"), e.passed},
            {QStringLiteral("message"), redactor.text(e.message)},
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
        {QStringLiteral("policy"), PolicyJson::toJsonObject(run.policy)},
        {QStringLiteral("policies"), policies},
        {QStringLiteral("summary"), summaryObject(run)},
        {QStringLiteral("requests"), requests},
        {QStringLiteral("attempts"), attempts},
        {QStringLiteral("results"), results},
        {QStringLiteral("expectations"), verdicts},
    };
    if (!options.redactCredentials)
        report.insert(QStringLiteral("credentialsWarning"), ExportOptions::credentialsWarning());
    return report;
}

QByteArray toJson(const RunRecord &run, const ExportOptions &options, const QList<ExpectationResult> &expectations)
{
    return QJsonDocument(toJsonObject(run, options, expectations)).toJson(QJsonDocument::Indented);
}

Result<Report> fromJsonObject(const QJsonObject &object)
{
    QString error;
    Fields top(object, QString(), &error);
    Report report;

    const QString format = top.string(QStringLiteral("format"), true);
    if (!top.failed() && format != QLatin1String(formatName))
        top.fail(
            QStringLiteral("format"), Tr::tr("expected \"%1\", got \"%2\"").arg(QLatin1String(formatName), format));
    const qint64 version = top.integer(QStringLiteral("version"), 0, true);
    if (!top.failed() && (version < 1 || version > formatVersion))
        top.fail(QStringLiteral("version"),
            Tr::tr("version %1 is not supported (this build reads up to %2)").arg(version).arg(formatVersion));
    if (top.failed())
        return Result<Report>::failure(error);

    report.redacted = top.boolean(QStringLiteral("redacted"), true);
    report.run.startedAt = top.date(QStringLiteral("startedAt"));
    report.run.epochNs = top.integer(QStringLiteral("epochNs"), 0);

    const QJsonValue policy = top.value(QStringLiteral("policy"), true);
    if (!top.failed()) {
        if (!policy.isObject()) {
            top.fail(QStringLiteral("policy"), Tr::tr("expected an object"));
        } else {
            auto parsed = PolicyJson::fromJsonObject(policy.toObject());
            if (parsed)
                report.run.policy = std::move(parsed).value();
            else if (error.isEmpty())
                error = Tr::tr("in \"policy\": %1").arg(parsed.error());
        }
    }

    const QJsonArray policies = top.array(QStringLiteral("policies"), false);
    for (qsizetype i = 0; i < policies.size() && error.isEmpty(); ++i) {
        if (const auto o = elementObject(policies, i, QStringLiteral("policies"), &error)) {
            auto parsed = PolicyJson::fromJsonObject(o->value(QStringLiteral("policy")).toObject());
            if (parsed)
                report.run.policies.append(std::move(parsed).value());
            else
                error = Tr::tr("in \"policies[%1].policy\": %2").arg(i).arg(parsed.error());
        }
    }

    const QJsonArray requests = top.array(QStringLiteral("requests"), true);
    for (qsizetype i = 0; i < requests.size() && error.isEmpty(); ++i) {
        const QString path = QStringLiteral("requests[%1]").arg(i);
        if (const auto o = elementObject(requests, i, QStringLiteral("requests"), &error)) {
            Fields f(*o, path, &error);
            const quint64 id = f.id(QStringLiteral("id"));
            RequestSpec spec = readRequest(f);
            if (error.isEmpty() && report.run.requests.contains(id))
                f.fail(QStringLiteral("id"), Tr::tr("request %1 appears twice").arg(id));
            report.run.requests.insert(id, std::move(spec));
            const qint64 policyIndex = f.integer(QStringLiteral("policyIndex"), -1, false, 0, INT_MAX);
            if (policyIndex >= 0)
                report.run.requestPolicies.insert(id, int(policyIndex));
        }
    }

    for (auto it = report.run.requestPolicies.cbegin(); it != report.run.requestPolicies.cend() && error.isEmpty();
         ++it) {
        if (it.value() >= report.run.policies.size()) {
            error = Tr::tr("field \"policyIndex\" of request %1: %2 is not an index into \"policies\"")
                        .arg(it.key())
                        .arg(it.value());
        }
    }

    const QJsonArray attempts = top.array(QStringLiteral("attempts"), true);
    report.run.attempts.reserve(attempts.size());
    for (qsizetype i = 0; i < attempts.size() && error.isEmpty(); ++i) {
        if (const auto o = elementObject(attempts, i, QStringLiteral("attempts"), &error)) {
            Fields f(*o, QStringLiteral("attempts[%1]").arg(i), &error);
            report.run.attempts.append(readAttempt(f, report.run.epochNs));
        }
    }

    const QJsonArray results = top.array(QStringLiteral("results"), true);
    for (qsizetype i = 0; i < results.size() && error.isEmpty(); ++i) {
        if (const auto o = elementObject(results, i, QStringLiteral("results"), &error)) {
            Fields f(*o, QStringLiteral("results[%1]").arg(i), &error);
            report.run.results.append(readResult(f, report.run.epochNs));
        }
    }

    const QJsonArray expectations = top.array(QStringLiteral("expectations"), false);
    for (qsizetype i = 0; i < expectations.size() && error.isEmpty(); ++i) {
        if (const auto o = elementObject(expectations, i, QStringLiteral("expectations"), &error)) {
            Fields f(*o, QStringLiteral("expectations[%1]").arg(i), &error);
            report.expectations.append(readExpectation(f));
        }
    }

    if (!error.isEmpty())
        return Result<Report>::failure(error);
    return report;
}

Result<Report> fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return Result<Report>::failure(
            Tr::tr("not valid JSON at offset %1: %2").arg(parseError.offset).arg(parseError.errorString()));
    }
    if (!document.isObject())
        return Result<Report>::failure(Tr::tr("a report must hold a JSON object"));
    return fromJsonObject(document.object());
}

Result<Report> readFile(const QString &path)
{
    const QString shown = QDir::toNativeSeparators(path);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<Report>::failure(Tr::tr("cannot read %1: %2").arg(shown, file.errorString()));
    if (file.size() > maxReportBytes)
        return Result<Report>::failure(Tr::tr("%1 is too large to be a report (%2 bytes)").arg(shown).arg(file.size()));
    auto result = fromJson(file.readAll());
    if (!result) {
        qCWarning(lcReportJson).noquote() << "cannot load" << shown << ":" << result.error();
        return Result<Report>::failure(Tr::tr("%1: %2").arg(shown, result.error()));
    }
    return result;
}

Result<qint64> writeFile(const QString &path, const RunRecord &run, const ExportOptions &options,
    const QList<ExpectationResult> &expectations)
{
    return ExportFile::write(path, toJson(run, options, expectations));
}

} // namespace RetryLab::Core::ReportJson
