#include "core/scenario/scenarioreader.h"

#include "core/auth/authjson.h"
#include "core/executor/requestcheck.h"
#include "core/faultserver/faultinstruction.h"
#include "core/http/httpheaders.h"
#include "core/policy/fallbacktriggers.h"
#include "core/policy/policyreference.h"
#include "core/record/transportjson.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QRegularExpression>

#include <algorithm>

// One job: a scenario file, field by field, into a Scenario. Each reader below is one
// part of one format (policies, requests, scripts, expectations) and reports through
// the same JsonReader paths ("requests[2].url: ..."); the format documented in one
// place is read in one.

namespace {
Q_LOGGING_CATEGORY(lcScenarioReader, "retrylab.core.scenarioreader")
} // namespace

namespace RetryLab::Core::ScenarioReader {

namespace {

QString describe(const QJsonValue &value)
{
    return JsonReader::describe(value);
}

// A preset's name, a policy object or a preset with overrides (PolicyReference).
void readPolicy(JsonReader &r, Scenario &scenario)
{
    if (auto read = PolicyReference::read(r, QStringLiteral("policy"))) {
        scenario.policy = std::move(read->policy);
        scenario.policyOrigin = std::move(read->origin);
    }
}

// {"host": "*.example.com", "path": "/upload/**", "policy": ...}, each a policy value as "policy" takes.
void readEndpointPolicies(JsonReader &r, Scenario &scenario)
{
    auto list = r.array(QStringLiteral("endpointPolicies"));
    if (!list)
        return;
    for (qsizetype i = 0; i < list->size() && !r.failed(); ++i) {
        auto o = list->object(i);
        if (!o)
            return;
        o->rejectUnknown({QStringLiteral("host"), QStringLiteral("path"), QStringLiteral("policy")});
        EndpointPolicy endpoint;
        endpoint.host = o->string(QStringLiteral("host")).value_or(QString()).trimmed();
        endpoint.path = o->string(QStringLiteral("path")).value_or(QString()).trimmed();
        // "upload/*" reads like a relative path, which a URL's path never is.
        if (endpoint.path.contains(QLatin1Char('/')) && !endpoint.path.startsWith(QLatin1Char('/')) && !o->failed()) {
            o->fail(QStringLiteral("path"),
                Tr::tr("a path pattern starts with /, or has no / at all to match the last segment (got \"%1\")")
                    .arg(endpoint.path));
        }
        if (o->failed())
            return;
        auto read = PolicyReference::read(*o, QStringLiteral("policy"));
        if (!read)
            return;
        endpoint.policy = std::move(read->policy);
        endpoint.origin = std::move(read->origin);
        scenario.endpointPolicies.append(endpoint);
    }
}

std::optional<quint64> readSeed(JsonReader &r, const QString &key)
{
    const QJsonValue v = r.value(key);
    if (v.isString()) {
        bool ok = false;
        const quint64 seed = v.toString().toULongLong(&ok);
        if (!ok || v.toString().startsWith(QLatin1Char('-')) || v.toString().startsWith(QLatin1Char('+'))) {
            r.fail(key, Tr::tr("\"%1\" is not a whole number from 0 to 18446744073709551615").arg(v.toString()));
            return std::nullopt;
        }
        return seed;
    }
    // Doubles hold integers exactly up to 2^53; larger seeds are written as strings.
    const auto n = r.integer(key, 0, qint64(1) << 53);
    if (!n)
        return std::nullopt;
    return static_cast<quint64>(*n);
}

// `key`: a field's name, or an index into an array.
void checkUrl(JsonReader &r, const JsonReader::Key &key, const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        r.fail(key,
            Tr::tr("empty; give an http or https URL, or \"%1/...\" for the embedded server")
                .arg(Scenario::serverPlaceholder()));
        return;
    }
    if (trimmed != text) {
        r.fail(key, Tr::tr("\"%1\" has spaces around it").arg(text));
        return;
    }
    if (const QString unknown = RequestTemplate::unknownPlaceholder(text); !unknown.isEmpty()) {
        r.fail(key,
            Tr::tr("%1 is not a placeholder; a URL may use %2 (the embedded server) and %3 (a key of its own for "
                   "every request)")
                .arg(unknown, Scenario::serverPlaceholder(), Scenario::idPlaceholder()));
        return;
    }
    // Checked with stand-ins for the server's address, which is known only when it
    // runs, and for the key, which every request gets anew.
    const QString resolved
        = Scenario::resolveUrl(text, QUrl(QStringLiteral("http://127.0.0.1:1")), QStringLiteral("key")).toString();
    const QUrl url(resolved, QUrl::StrictMode);
    if (!url.isValid()) {
        r.fail(key, Tr::tr("\"%1\" is not a valid URL: %2").arg(text, url.errorString()));
        return;
    }
    const QString scheme = url.scheme().toLower();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https")) {
        r.fail(key, Tr::tr("\"%1\" is not an http or https URL").arg(text));
        return;
    }
    if (url.host().isEmpty())
        r.fail(key, Tr::tr("\"%1\" has no host").arg(text));
}

HeaderList readHeaders(JsonReader &r, const QString &key)
{
    HeaderList headers;
    const QJsonValue v = r.value(key);
    if (!v.isObject()) {
        r.fail(key, Tr::tr("expected an object of header names and values, got %1").arg(describe(v)));
        return headers;
    }
    auto object = r.object(key);
    static const QRegularExpression token(QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"));
    for (const QString &name : object->object().keys()) {
        if (!token.match(name).hasMatch()) {
            object->fail(name, Tr::tr("\"%1\" is not a valid header name").arg(name));
            return headers;
        }
        const auto value = object->string(name);
        if (!value)
            return headers;
        if (const QString problem = fieldValueProblem(value->toUtf8()); !problem.isEmpty()) {
            object->fail(name, problem);
            return headers;
        }
        headers.append({name.toLatin1(), value->toUtf8()});
    }
    return headers;
}

std::optional<ScenarioScript> readScript(JsonReader &r, const QString &key)
{
    ScenarioScript script;
    const QJsonValue v = r.value(key);
    std::optional<JsonReader> steps;
    if (v.isObject()) {
        auto object = r.object(key);
        object->rejectUnknown({QStringLiteral("steps"), QStringLiteral("shared")});
        script.shared = object->boolean(QStringLiteral("shared")).value_or(false);
        const QJsonValue list = object->value(QStringLiteral("steps"));
        if (list.isUndefined() && !r.failed())
            object->fail(QStringLiteral("steps"), Tr::tr("missing"));
        if (r.failed())
            return std::nullopt;
        if (!list.isArray()) {
            object->fail(QStringLiteral("steps"), Tr::tr("expected an array of steps, got %1").arg(describe(list)));
            return std::nullopt;
        }
        steps = object->array(QStringLiteral("steps"));
    } else if (v.isArray()) {
        steps = r.array(key);
    } else {
        r.fail(key,
            Tr::tr("expected an array of steps or {\"steps\": [...], \"shared\": false}, got %1").arg(describe(v)));
        return std::nullopt;
    }
    if (steps->size() == 0) {
        steps->failHere(Tr::tr("empty; give at least one step such as \"return-503\""));
        return std::nullopt;
    }
    static const QRegularExpression repeat(QStringLiteral("^(.*)\\*\\s*(\\d+)$"));
    qint64 expanded = 0;
    for (qsizetype i = 0; i < steps->size(); ++i) {
        const QJsonValue each = steps->value(i);
        if (!each.isString()) {
            steps->fail(i, Tr::tr("expected a step such as \"return-503\", got %1").arg(describe(each)));
            return std::nullopt;
        }
        const QString text = each.toString().trimmed();
        QString step = text;
        qint64 times = 1;
        if (const auto m = repeat.match(text); m.hasMatch()) {
            step = m.captured(1).trimmed();
            bool ok = false;
            times = m.captured(2).toLongLong(&ok);
            if (!ok || times < 1 || times > FaultInstruction::maxRepeat) {
                steps->fail(i,
                    Tr::tr("\"%1\": the repeat count must be from 1 to %2").arg(text).arg(FaultInstruction::maxRepeat));
                return std::nullopt;
            }
        }
        const auto parsed = FaultInstruction::parse(step);
        if (!parsed) {
            steps->fail(i, parsed.errorDetail());
            return std::nullopt;
        }
        expanded += times;
        if (expanded > FaultInstruction::maxInstructions) {
            steps->failHere(Tr::tr("more than %1 steps in all").arg(FaultInstruction::maxInstructions));
            return std::nullopt;
        }
        script.steps.append(text);
    }
    return script;
}

void readBody(JsonReader &o, bool rmw, RequestSpec &spec)
{
    const QString key = QStringLiteral("body");
    const QJsonValue body = o.value(key);
    if (rmw) {
        o.fail(key, Tr::tr("a read-modify-write request writes {\"value\": n} itself; leave the body out"));
        return;
    }
    if (body.isString())
        spec.body = body.toString().toUtf8();
    else if (body.isObject())
        spec.body = QJsonDocument(body.toObject()).toJson(QJsonDocument::Compact);
    else if (body.isArray())
        spec.body = QJsonDocument(body.toArray()).toJson(QJsonDocument::Compact);
    else
        o.fail(key, Tr::tr("expected a string or a JSON object or array, got %1").arg(describe(body)));
}

// {"readMethod", "writeMethod", "writeUrl", "valuePointer", "etagPointer", "writeEnvelope"}.
void readShape(JsonReader &o, const QString &key, ScenarioRequest &request)
{
    auto shape = o.object(key);
    if (!shape)
        return;
    shape->rejectUnknown({QStringLiteral("readMethod"), QStringLiteral("writeMethod"), QStringLiteral("writeUrl"),
        QStringLiteral("valuePointer"), QStringLiteral("etagPointer"), QStringLiteral("writeEnvelope")});
    ReadModifyWriteShape &s = request.spec.readModifyWrite;
    if (const auto method = shape->string(QStringLiteral("readMethod")))
        s.readMethod = method->toUpper().toLatin1();
    if (const auto method = shape->string(QStringLiteral("writeMethod")))
        s.writeMethod = method->toUpper().toLatin1();
    if (const auto url = shape->string(QStringLiteral("writeUrl"))) {
        checkUrl(*shape, QStringLiteral("writeUrl"), *url);
        request.writeUrlTemplate = *url;
    }
    s.valuePointer = shape->string(QStringLiteral("valuePointer")).value_or(s.valuePointer);
    s.etagPointer = shape->string(QStringLiteral("etagPointer")).value_or(s.etagPointer);
    s.writeEnvelope = shape->string(QStringLiteral("writeEnvelope")).value_or(s.writeEnvelope);
    if (shape->failed())
        return;
    // The URL is checked above with its placeholder; the rest as the executor will.
    ReadModifyWriteShape checked = s;
    checked.writeUrl.clear();
    if (const auto usable = checkShape(checked); !usable)
        shape->failHere(usable.error());
}

void readFallbacks(JsonReader &o, const QString &key, bool rmw, ScenarioRequest &request)
{
    if (rmw) {
        o.fail(key, Tr::tr("fallback endpoints are for single requests, not read-modify-write"));
        return;
    }
    const QJsonValue value = o.value(key);
    if (!value.isArray()) {
        o.fail(key, Tr::tr("expected an array of URLs, got %1").arg(describe(value)));
        return;
    }
    auto urls = o.array(key);
    if (urls->size() > maxFallbacks) {
        o.fail(key, Tr::tr("at most %1 fallback endpoints (got %2)").arg(maxFallbacks).arg(urls->size()));
        return;
    }
    for (qsizetype i = 0; i < urls->size() && !o.failed(); ++i) {
        const QJsonValue url = urls->value(i);
        if (!url.isString()) {
            urls->fail(i, Tr::tr("expected a URL, got %1").arg(describe(url)));
            return;
        }
        checkUrl(*urls, i, url.toString());
        request.fallbackTemplates.append(url.toString());
    }
}

// The request's own list of the faults that lead to its fallbacks, which it must have.
void readFallbackOn(JsonReader &o, const QString &key, ScenarioRequest &request)
{
    if (request.fallbackTemplates.isEmpty()) {
        o.fail(key, Tr::tr("names the faults that lead to the fallbacks; give \"fallbacks\" too"));
        return;
    }
    if (auto list = o.array(key)) {
        auto entries = FallbackTriggers::fromJson(list->array());
        if (entries)
            request.spec.fallbackOn = *entries;
        else
            o.fail(key, entries.errorDetail());
    }
}

bool readRequestFields(JsonReader *o, ScenarioRequest &request, const QStringList &extraKeys);

void readRequest(JsonReader &requests, qsizetype index, Scenario &scenario)
{
    const QJsonValue value = requests.value(index);
    if (!value.isObject()) {
        requests.fail(index, Tr::tr("expected an object, got %1").arg(describe(value)));
        return;
    }
    auto o = requests.object(index);
    ScenarioRequest request;
    if (!readRequestFields(&*o, request, {}))
        return;
    for (qsizetype i = 0; i < scenario.requests.size(); ++i) {
        if (scenario.requests[i].name == request.name) {
            o->fail(
                QStringLiteral("name"), Tr::tr("\"%1\" is already the name of requests[%2]").arg(request.name).arg(i));
            return;
        }
    }
    scenario.requests.append(request);
}

bool readRequestFields(JsonReader *o, ScenarioRequest &request, const QStringList &extraKeys)
{
    o->rejectUnknown(
        QStringList{QStringLiteral("name"), QStringLiteral("label"), QStringLiteral("kind"), QStringLiteral("method"),
            QStringLiteral("url"), QStringLiteral("headers"), QStringLiteral("body"), QStringLiteral("idempotent"),
            QStringLiteral("attemptTimeoutMs"), QStringLiteral("count"), QStringLiteral("concurrency"),
            QStringLiteral("increment"), QStringLiteral("script"), QStringLiteral("transport"), QStringLiteral("auth"),
            QStringLiteral("fallbacks"), QStringLiteral("fallbackOn")}
        + extraKeys);
    if (o->failed())
        return false;

    const QString nameKey = QStringLiteral("name");
    const auto name = o->string(nameKey, Presence::Required);
    if (o->failed())
        return false;
    if (name->trimmed().isEmpty() || name->size() > 100) {
        o->fail(nameKey, Tr::tr("a name has 1 to 100 characters"));
        return false;
    }
    for (QChar c : *name) {
        if (c.category() == QChar::Other_Control) {
            o->fail(nameKey, Tr::tr("a name cannot hold control characters"));
            return false;
        }
    }
    request.name = *name;
    request.spec.label = o->string(QStringLiteral("label")).value_or(*name);

    const QString kind = o->string(QStringLiteral("kind")).value_or(QStringLiteral("single"));
    if (o->failed())
        return false;
    if (kind == QLatin1String("read-modify-write")) {
        request.spec.kind = RequestSpec::Kind::ReadModifyWrite;
    } else if (kind != QLatin1String("single")) {
        o->fail(QStringLiteral("kind"), Tr::tr("unknown kind \"%1\" (known: single, read-modify-write)").arg(kind));
        return false;
    }
    const bool rmw = request.spec.kind == RequestSpec::Kind::ReadModifyWrite;

    if (const auto method = o->string(QStringLiteral("method"))) {
        static const QRegularExpression token(QStringLiteral("^[A-Za-z]{1,20}$"));
        if (!token.match(*method).hasMatch()) {
            o->fail(QStringLiteral("method"), Tr::tr("\"%1\" is not an HTTP method").arg(*method));
            return false;
        }
        if (rmw) {
            o->fail(QStringLiteral("method"),
                Tr::tr("a read-modify-write request sends GET, then PUT; leave the method out"));
            return false;
        }
        request.spec.method = method->toUpper().toLatin1();
    }
    if (o->failed())
        return false;

    const auto url = o->string(QStringLiteral("url"), Presence::Required);
    if (o->failed())
        return false;
    checkUrl(*o, QStringLiteral("url"), *url);
    request.urlTemplate = *url;

    if (o->contains(QStringLiteral("headers")))
        request.spec.headers = readHeaders(*o, QStringLiteral("headers"));
    if (o->contains(QStringLiteral("body"))) {
        readBody(*o, rmw, request.spec);
        if (rmw)
            return false;
    }

    if (o->contains(QStringLiteral("fallbacks"))) {
        readFallbacks(*o, QStringLiteral("fallbacks"), rmw, request);
        if (o->failed())
            return false;
    }
    if (o->contains(QStringLiteral("fallbackOn"))) {
        readFallbackOn(*o, QStringLiteral("fallbackOn"), request);
        if (o->failed())
            return false;
    }
    request.spec.idempotent = o->boolean(QStringLiteral("idempotent")).value_or(false);
    if (o->contains(QStringLiteral("transport"))) {
        if (auto transport = o->object(QStringLiteral("transport"))) {
            request.spec.transport = TransportJson::read(*transport);
            if (!transport->failed()) {
                if (const auto usable = checkTransport(request.spec.transport); !usable)
                    o->fail(QStringLiteral("transport"), usable.error());
            }
        }
    }
    if (o->contains(QStringLiteral("auth"))) {
        if (auto auth = o->object(QStringLiteral("auth"))) {
            request.spec.auth = AuthJson::read(*auth);
            if (!auth->failed()) {
                if (const QString problem = AuthJson::problem(request.spec.auth); !problem.isEmpty())
                    o->fail(QStringLiteral("auth"), problem);
            }
        }
    }
    if (const auto timeout = o->number(QStringLiteral("attemptTimeoutMs"), 0.0, PolicyLimits::maxDeadlineMs))
        request.spec.attemptTimeoutMs = *timeout;
    request.count = static_cast<int>(o->integer(QStringLiteral("count"), 1, maxTotalRequests).value_or(1));
    request.concurrency = static_cast<int>(
        o->integer(QStringLiteral("concurrency"), 1, maxConcurrency).value_or(std::min(request.count, maxConcurrency)));
    request.concurrency = std::min(request.concurrency, request.count);
    if (o->contains(QStringLiteral("increment"))) {
        if (!rmw) {
            o->fail(QStringLiteral("increment"), Tr::tr("only a read-modify-write request has an increment"));
            return false;
        }
        request.spec.increment
            = o->integer(QStringLiteral("increment"), -(qint64(1) << 52), qint64(1) << 52).value_or(1);
    }

    if (o->contains(QStringLiteral("readModifyWrite")) && !o->failed()) {
        if (!rmw) {
            o->fail(QStringLiteral("readModifyWrite"), Tr::tr("only a read-modify-write request has this shape"));
            return false;
        }
        readShape(*o, QStringLiteral("readModifyWrite"), request);
    }
    if (o->contains(QStringLiteral("script")) && !o->failed()) {
        request.script = readScript(*o, QStringLiteral("script"));
        if (!o->failed() && !url->startsWith(Scenario::serverPlaceholder())) {
            o->fail(QStringLiteral("script"),
                Tr::tr("a script is played by the embedded server, so the URL must start with %1")
                    .arg(Scenario::serverPlaceholder()));
        }
    }
    return !o->failed();
}

void readAttempts(JsonReader &r, const QString &key, ScenarioExpectation &e)
{
    const QJsonValue v = r.value(key);
    if (v.isObject()) {
        auto o = r.object(key);
        o->rejectUnknown({QStringLiteral("min"), QStringLiteral("max")});
        const auto min = o->integer(QStringLiteral("min"), 0, PolicyLimits::maxAttempts);
        const auto max = o->integer(QStringLiteral("max"), 0, PolicyLimits::maxAttempts);
        if (o->failed())
            return;
        if (!min && !max) {
            o->failHere(Tr::tr("give \"min\", \"max\" or both"));
            return;
        }
        if (min && max && *min > *max) {
            o->failHere(Tr::tr("min (%1) is larger than max (%2)").arg(*min).arg(*max));
            return;
        }
        if (min)
            e.minAttempts = static_cast<int>(*min);
        if (max)
            e.maxAttempts = static_cast<int>(*max);
        return;
    }
    if (!v.isDouble()) {
        r.fail(key, Tr::tr("expected a whole number or {\"min\": a, \"max\": b}, got %1").arg(describe(v)));
        return;
    }
    if (const auto n = r.integer(key, 0, PolicyLimits::maxAttempts)) {
        e.minAttempts = static_cast<int>(*n);
        e.maxAttempts = static_cast<int>(*n);
    }
}

QList<RequestOutcome> allOutcomes()
{
    QList<RequestOutcome> outcomes;
    for (int i = 0; i <= int(RequestOutcome::InvalidRequest); ++i)
        outcomes.append(RequestOutcome(i));
    return outcomes;
}

void readOutcomes(JsonReader &o, ScenarioExpectation &e)
{
    const QString key = QStringLiteral("outcome");
    const QString unknown = Tr::tr("unknown outcome \"%1\" (known: %2)");
    if (!o.value(key).isArray()) {
        if (const auto outcome = o.named(key, allOutcomes(), &requestOutcomeName, Presence::Optional, unknown))
            e.outcomes.append(*outcome);
        return;
    }
    auto names = o.array(key);
    if (names->size() == 0) {
        QStringList known;
        for (RequestOutcome outcome : allOutcomes())
            known.append(requestOutcomeName(outcome));
        names->failHere(Tr::tr("empty; give one outcome or several (%1)").arg(known.join(QStringLiteral(", "))));
        return;
    }
    for (qsizetype i = 0; i < names->size(); ++i) {
        const auto outcome = names->named(i, allOutcomes(), &requestOutcomeName, Presence::Required, unknown);
        if (!outcome)
            return;
        e.outcomes.append(*outcome);
    }
}

void readExpectation(JsonReader &expectations, qsizetype index, Scenario &scenario)
{
    const QJsonValue value = expectations.value(index);
    if (!value.isObject()) {
        expectations.fail(index, Tr::tr("expected an object, got %1").arg(describe(value)));
        return;
    }
    auto o = expectations.object(index);
    o->rejectUnknown({QStringLiteral("name"), QStringLiteral("request"), QStringLiteral("outcome"),
        QStringLiteral("attempts"), QStringLiteral("finalStatus"), QStringLiteral("minTotalMs"),
        QStringLiteral("maxTotalMs"), QStringLiteral("minSuccessRate"), QStringLiteral("lastCause")});
    if (o->failed())
        return;

    ScenarioExpectation e;
    e.name = o->string(QStringLiteral("name")).value_or(QString());
    const auto request = o->string(QStringLiteral("request"), Presence::Required);
    if (o->failed())
        return;
    if (!scenario.request(*request)) {
        QStringList names;
        for (const ScenarioRequest &each : std::as_const(scenario.requests))
            names.append(each.name);
        o->fail(QStringLiteral("request"),
            Tr::tr("no request is named \"%1\" (requests: %2)").arg(*request, names.join(QStringLiteral(", "))));
        return;
    }
    e.request = *request;

    readOutcomes(*o, e);
    if (o->contains(QStringLiteral("attempts")) && !o->failed())
        readAttempts(*o, QStringLiteral("attempts"), e);
    if (o->contains(QStringLiteral("finalStatus")) && !o->failed()) {
        e.checkFinalStatus = true;
        if (!o->value(QStringLiteral("finalStatus")).isNull()) {
            if (const auto status = o->integer(QStringLiteral("finalStatus"), 100, 599))
                e.finalStatus = static_cast<int>(*status);
        }
    }
    e.minTotalMs = o->number(QStringLiteral("minTotalMs"), 0.0, PolicyLimits::maxDeadlineMs);
    e.maxTotalMs = o->number(QStringLiteral("maxTotalMs"), 0.0, PolicyLimits::maxDeadlineMs);
    if (e.minTotalMs && e.maxTotalMs && *e.minTotalMs > *e.maxTotalMs) {
        o->fail(QStringLiteral("minTotalMs"),
            Tr::tr("%1 is larger than maxTotalMs (%2)").arg(*e.minTotalMs).arg(*e.maxTotalMs));
    }
    e.minSuccessRate = o->number(QStringLiteral("minSuccessRate"), 0.0, 1.0);
    e.lastCause = o->string(QStringLiteral("lastCause")).value_or(QString());
    if (o->failed())
        return;
    if (o->contains(QStringLiteral("lastCause")) && e.lastCause.isEmpty()) {
        o->fail(QStringLiteral("lastCause"), Tr::tr("empty"));
        return;
    }
    if (e.outcomes.isEmpty() && !e.minAttempts && !e.maxAttempts && !e.checkFinalStatus && !e.minTotalMs
        && !e.maxTotalMs && !e.minSuccessRate && e.lastCause.isEmpty()) {
        o->failHere(
            Tr::tr("checks nothing; give outcome, attempts, finalStatus, minTotalMs, maxTotalMs, minSuccessRate or "
                   "lastCause"));
        return;
    }
    scenario.expectations.append(e);
}

} // namespace

Result<Scenario> fromJson(const QByteArray &json)
{
    using R = Result<Scenario>;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return jsonSyntaxError(json, parseError);
    if (!document.isObject())
        return R::failure(Tr::tr("a scenario file holds one JSON object"));

    JsonReader r(document.object());
    Scenario scenario;
    const QString formatKey = QStringLiteral("format");
    const auto format = r.string(formatKey);
    if (r.failed())
        return r.firstError();
    if (!format) {
        return R::failure(
            formatKey, Tr::tr("missing; a scenario file says \"format\": \"%1\"").arg(QLatin1String(formatName)));
    }
    if (*format != QLatin1String(formatName)) {
        return R::failure(
            formatKey, Tr::tr("\"%1\" is not a scenario (expected \"%2\")").arg(*format, QLatin1String(formatName)));
    }
    if (const auto version = r.integer(QStringLiteral("version"), 1, 1'000'000); version && *version > formatVersion) {
        r.fail(QStringLiteral("version"),
            Tr::tr("version %1 is not supported (this build reads up to %2)").arg(*version).arg(formatVersion));
    }
    r.rejectUnknown({QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("name"),
        QStringLiteral("description"), QStringLiteral("policy"), QStringLiteral("seed"), QStringLiteral("concurrency"),
        QStringLiteral("timeoutMs"), QStringLiteral("requests"), QStringLiteral("expectations"),
        QStringLiteral("endpointPolicies")});
    scenario.name = r.string(QStringLiteral("name")).value_or(QString());
    scenario.description = r.string(QStringLiteral("description")).value_or(QString());
    if (r.failed())
        return r.firstError();

    readPolicy(r, scenario);
    if (r.contains(QStringLiteral("endpointPolicies")) && !r.failed())
        readEndpointPolicies(r, scenario);
    if (r.contains(QStringLiteral("seed")) && !r.failed()) {
        if (const auto seed = readSeed(r, QStringLiteral("seed")))
            scenario.seed = *seed;
    }
    scenario.concurrency
        = static_cast<int>(r.integer(QStringLiteral("concurrency"), 1, maxConcurrency).value_or(scenario.concurrency));
    scenario.timeoutMs = r.number(QStringLiteral("timeoutMs"), 0.0, PolicyLimits::maxDeadlineMs).value_or(0.0);
    if (r.failed())
        return r.firstError();

    const QString requestsKey = QStringLiteral("requests");
    const QJsonValue requestsValue = r.value(requestsKey);
    if (requestsValue.isUndefined())
        return R::failure(requestsKey, Tr::tr("missing; a scenario sends at least one request"));
    if (!requestsValue.isArray())
        return R::failure(requestsKey, Tr::tr("expected an array of requests, got %1").arg(describe(requestsValue)));
    auto requests = r.array(requestsKey);
    if (requests->size() == 0)
        return R::failure(requestsKey, Tr::tr("empty; a scenario sends at least one request"));
    if (requests->size() > maxRequestEntries) {
        return R::failure(
            requestsKey, Tr::tr("%1 entries; at most %2 are allowed").arg(requests->size()).arg(maxRequestEntries));
    }
    qint64 total = 0;
    for (qsizetype i = 0; i < requests->size() && !r.failed(); ++i) {
        readRequest(*requests, i, scenario);
        if (r.failed())
            break;
        total += scenario.requests.constLast().count;
        if (total > maxTotalRequests) {
            requests->fail(i,
                Error{QStringLiteral("count"),
                    Tr::tr("the scenario would send %1 requests; at most %2 are allowed")
                        .arg(total)
                        .arg(maxTotalRequests)});
        }
    }

    if (r.contains(QStringLiteral("expectations")) && !r.failed()) {
        if (auto expectations = r.array(QStringLiteral("expectations"))) {
            for (qsizetype i = 0; i < expectations->size() && !r.failed(); ++i)
                readExpectation(*expectations, i, scenario);
        }
    }
    return r.result(std::move(scenario));
}

Result<Scenario> readFile(const QString &path)
{
    const QString shown = QDir::toNativeSeparators(path);
    const auto bytes = BoundedFile::read(path, {maxFileBytes, Tr::tr("a scenario file")});
    if (!bytes)
        return bytes.errorDetail();
    auto scenario = fromJson(*bytes);
    if (!scenario)
        return Result<Scenario>::failure(Tr::tr("%1: %2").arg(shown, scenario.error()));
    if (scenario.value().name.isEmpty())
        scenario.value().name = QFileInfo(path).completeBaseName();
    // Certificate files named relative to the scenario are found beside it.
    const QDir folder = QFileInfo(path).absoluteDir();
    for (ScenarioRequest &request : scenario.value().requests) {
        TransportOptions &t = request.spec.transport;
        for (QString *named : {&t.caBundlePath, &t.clientCertificatePath, &t.clientKeyPath}) {
            if (!named->isEmpty() && QFileInfo(*named).isRelative())
                *named = QDir::cleanPath(folder.filePath(*named));
        }
    }
    qCDebug(lcScenarioReader) << "read" << path << "with" << scenario.value().requests.size() << "request entries";
    return scenario;
}

bool readRequestEntry(JsonReader &entry, ScenarioRequest &request, const QStringList &extraKeys)
{
    return readRequestFields(&entry, request, extraKeys);
}

QStringList builtInScenarios()
{
    const QDir dir(QStringLiteral(":/scenarios"));
    QStringList paths;
    for (const QString &entry : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
        paths.append(dir.filePath(entry));
    return paths;
}

} // namespace RetryLab::Core::ScenarioReader
