#include "core/scenario/scenarioreader.h"

#include "core/faultserver/faultinstruction.h"
#include "core/policy/policyjson.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QRegularExpression>

#include <cmath>

Q_LOGGING_CATEGORY(lcScenarioReader, "retrylab.core.scenarioreader")

namespace RetryLab::Core::ScenarioReader {

namespace {

QString typeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return Tr::tr("null");
    case QJsonValue::Bool:
        return Tr::tr("true or false");
    case QJsonValue::Double:
        return Tr::tr("a number");
    case QJsonValue::String:
        return Tr::tr("a string");
    case QJsonValue::Array:
        return Tr::tr("an array");
    case QJsonValue::Object:
        return Tr::tr("an object");
    case QJsonValue::Undefined:
        break;
    }
    return Tr::tr("nothing");
}

int editDistance(const QString &a, const QString &b)
{
    QList<int> previous(b.size() + 1);
    QList<int> current(b.size() + 1);
    for (qsizetype j = 0; j <= b.size(); ++j)
        previous[j] = static_cast<int>(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        current[0] = static_cast<int>(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int substitution = previous[j - 1] + (a[i - 1].toLower() == b[j - 1].toLower() ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

// Accumulates the first error with the path of the field it is about.
class Reader
{
public:
    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }

    void fail(const QString &path, const QString &message)
    {
        if (m_error.isEmpty())
            m_error = path.isEmpty() ? message : Tr::tr("%1: %2").arg(path, message);
    }

    static QString join(const QString &prefix, const QString &key)
    {
        return prefix.isEmpty() ? key : prefix + QLatin1Char('.') + key;
    }
    static QString index(const QString &prefix, qsizetype i) { return QStringLiteral("%1[%2]").arg(prefix).arg(i); }

    // Unknown fields are refused: a misspelt "idempotnet" must not silently
    // leave a request non-idempotent.
    void rejectUnknown(const QJsonObject &object, const QString &prefix, const QStringList &known)
    {
        for (auto it = object.begin(); it != object.end() && !failed(); ++it) {
            if (known.contains(it.key()))
                continue;
            QString suggestion;
            int best = 3;
            for (const QString &candidate : known) {
                const int distance = editDistance(it.key(), candidate);
                if (distance < best) {
                    best = distance;
                    suggestion = candidate;
                }
            }
            fail(join(prefix, it.key()),
                suggestion.isEmpty() ? Tr::tr("unknown field (known: %1)").arg(known.join(QStringLiteral(", ")))
                                     : Tr::tr("unknown field; did you mean \"%1\"?").arg(suggestion));
        }
    }

    std::optional<QString> string(const QJsonObject &o, const QString &prefix, const QString &key, bool required)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined()) {
            if (required)
                fail(join(prefix, key), Tr::tr("missing"));
            return std::nullopt;
        }
        if (!v.isString()) {
            fail(join(prefix, key), Tr::tr("expected a string, got %1").arg(typeName(v)));
            return std::nullopt;
        }
        return v.toString();
    }

    std::optional<bool> boolean(const QJsonObject &o, const QString &prefix, const QString &key)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined())
            return std::nullopt;
        if (!v.isBool()) {
            fail(join(prefix, key), Tr::tr("expected true or false, got %1").arg(typeName(v)));
            return std::nullopt;
        }
        return v.toBool();
    }

    std::optional<double> number(
        const QJsonObject &o, const QString &prefix, const QString &key, double min, double max)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined())
            return std::nullopt;
        return number(v, join(prefix, key), min, max);
    }

    std::optional<double> number(const QJsonValue &v, const QString &path, double min, double max)
    {
        if (!v.isDouble()) {
            fail(path, Tr::tr("expected a number, got %1").arg(typeName(v)));
            return std::nullopt;
        }
        const double d = v.toDouble();
        if (!std::isfinite(d) || d < min || d > max) {
            fail(path, Tr::tr("%1 is out of range (%2 to %3)").arg(d).arg(min).arg(max));
            return std::nullopt;
        }
        return d;
    }

    std::optional<qint64> integer(
        const QJsonObject &o, const QString &prefix, const QString &key, qint64 min, qint64 max)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined())
            return std::nullopt;
        return integer(v, join(prefix, key), min, max);
    }

    std::optional<qint64> integer(const QJsonValue &v, const QString &path, qint64 min, qint64 max)
    {
        if (!v.isDouble()) {
            fail(path, Tr::tr("expected a whole number, got %1").arg(typeName(v)));
            return std::nullopt;
        }
        const double d = v.toDouble();
        if (!std::isfinite(d) || d != std::floor(d)) {
            fail(path, Tr::tr("expected a whole number, got %1").arg(d));
            return std::nullopt;
        }
        if (d < double(min) || d > double(max)) {
            fail(path, Tr::tr("%1 is out of range (%2 to %3)").arg(d, 0, 'f', 0).arg(min).arg(max));
            return std::nullopt;
        }
        return static_cast<qint64>(d);
    }

private:
    QString m_error;
};

// PolicyJson says `field "classification.maxRetryAfterMs": ...`; a scenario
// names the same field by its path in the scenario.
QString policyError(const QString &prefix, const QString &message)
{
    static const QRegularExpression field(
        QStringLiteral("^field \"([^\"]*)\": (.*)$"), QRegularExpression::DotMatchesEverythingOption);
    if (const auto m = field.match(message); m.hasMatch())
        return Tr::tr("%1: %2").arg(Reader::join(prefix, m.captured(1)), m.captured(2));
    return Tr::tr("%1: %2").arg(prefix, message);
}

QJsonObject merged(QJsonObject base, const QJsonObject &overrides)
{
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
        const QJsonValue existing = base.value(it.key());
        if (existing.isObject() && it.value().isObject())
            base.insert(it.key(), merged(existing.toObject(), it.value().toObject()));
        else
            base.insert(it.key(), it.value());
    }
    return base;
}

QString presetList()
{
    return Presets::ids().join(QStringLiteral(", "));
}

void readPolicy(Reader &r, const QJsonObject &root, Scenario &scenario)
{
    const QString path = QStringLiteral("policy");
    const QJsonValue v = root.value(path);
    if (v.isUndefined()) {
        r.fail(path, Tr::tr("missing; name a preset (%1) or give a policy object").arg(presetList()));
        return;
    }
    if (v.isString()) {
        const auto preset = Presets::find(v.toString());
        if (!preset) {
            r.fail(path, Tr::tr("unknown preset \"%1\" (known: %2)").arg(v.toString(), presetList()));
            return;
        }
        scenario.policy = *preset;
        scenario.policyOrigin = Tr::tr("preset %1").arg(v.toString());
        return;
    }
    if (!v.isObject()) {
        r.fail(path, Tr::tr("expected a preset name or a policy object, got %1").arg(typeName(v)));
        return;
    }
    const QJsonObject object = v.toObject();
    if (!object.contains(QStringLiteral("preset"))) {
        auto policy = PolicyJson::fromJsonObject(object);
        if (!policy) {
            r.fail({}, policyError(path, policy.error()));
            return;
        }
        scenario.policy = std::move(policy).value();
        scenario.policyOrigin = Tr::tr("inline");
        return;
    }

    r.rejectUnknown(object, path, {QStringLiteral("preset"), QStringLiteral("overrides")});
    const auto presetName = r.string(object, path, QStringLiteral("preset"), true);
    if (r.failed())
        return;
    const auto preset = Presets::find(*presetName);
    if (!preset) {
        r.fail(Reader::join(path, QStringLiteral("preset")),
            Tr::tr("unknown preset \"%1\" (known: %2)").arg(*presetName, presetList()));
        return;
    }
    const QJsonValue overrides = object.value(QStringLiteral("overrides"));
    if (overrides.isUndefined()) {
        scenario.policy = *preset;
        scenario.policyOrigin = Tr::tr("preset %1").arg(*presetName);
        return;
    }
    const QString overridesPath = Reader::join(path, QStringLiteral("overrides"));
    if (!overrides.isObject()) {
        r.fail(overridesPath, Tr::tr("expected an object of policy fields, got %1").arg(typeName(overrides)));
        return;
    }
    const QJsonObject changes = overrides.toObject();
    for (const QString &fixed : {QStringLiteral("format"), QStringLiteral("version")}) {
        if (changes.contains(fixed)) {
            r.fail(Reader::join(overridesPath, fixed), Tr::tr("cannot be overridden"));
            return;
        }
    }
    auto policy = PolicyJson::fromJsonObject(merged(PolicyJson::toJsonObject(*preset), changes));
    if (!policy) {
        r.fail({}, policyError(overridesPath, policy.error()));
        return;
    }
    scenario.policy = std::move(policy).value();
    if (!changes.contains(QStringLiteral("name")))
        scenario.policy.name = Tr::tr("%1 (modified)").arg(preset->name);
    scenario.policyOrigin
        = Tr::tr("preset %1 with overrides: %2").arg(*presetName, changes.keys().join(QStringLiteral(", ")));
}

std::optional<quint64> readSeed(Reader &r, const QJsonValue &v, const QString &path)
{
    if (v.isString()) {
        bool ok = false;
        const quint64 seed = v.toString().toULongLong(&ok);
        if (!ok || v.toString().startsWith(QLatin1Char('-')) || v.toString().startsWith(QLatin1Char('+'))) {
            r.fail(path, Tr::tr("\"%1\" is not a whole number from 0 to 18446744073709551615").arg(v.toString()));
            return std::nullopt;
        }
        return seed;
    }
    // Doubles hold integers exactly up to 2^53; larger seeds are written as strings.
    const auto n = r.integer(v, path, 0, qint64(1) << 53);
    if (!n)
        return std::nullopt;
    return static_cast<quint64>(*n);
}

QUrl checkedUrl(Reader &r, const QString &text, const QString &path)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        r.fail(path,
            Tr::tr("empty; give an http or https URL, or \"%1/...\" for the embedded server")
                .arg(Scenario::serverPlaceholder()));
        return {};
    }
    if (trimmed != text) {
        r.fail(path, Tr::tr("\"%1\" has spaces around it").arg(text));
        return {};
    }
    // Checked with a stand-in for the server's address, which is known only when it runs.
    const QString resolved = Scenario::resolveUrl(text, QUrl(QStringLiteral("http://127.0.0.1:1"))).toString();
    const QUrl url(resolved, QUrl::StrictMode);
    if (!url.isValid()) {
        r.fail(path, Tr::tr("\"%1\" is not a valid URL: %2").arg(text, url.errorString()));
        return {};
    }
    const QString scheme = url.scheme().toLower();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https")) {
        r.fail(path, Tr::tr("\"%1\" is not an http or https URL").arg(text));
        return {};
    }
    if (url.host().isEmpty()) {
        r.fail(path, Tr::tr("\"%1\" has no host").arg(text));
        return {};
    }
    return url;
}

HeaderList readHeaders(Reader &r, const QJsonValue &v, const QString &path)
{
    HeaderList headers;
    if (!v.isObject()) {
        r.fail(path, Tr::tr("expected an object of header names and values, got %1").arg(typeName(v)));
        return headers;
    }
    static const QRegularExpression token(QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"));
    const QJsonObject object = v.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString where = Reader::join(path, it.key());
        if (!token.match(it.key()).hasMatch()) {
            r.fail(where, Tr::tr("\"%1\" is not a valid header name").arg(it.key()));
            return headers;
        }
        if (!it.value().isString()) {
            r.fail(where, Tr::tr("expected a string, got %1").arg(typeName(it.value())));
            return headers;
        }
        const QString value = it.value().toString();
        if (value.contains(QLatin1Char('\r')) || value.contains(QLatin1Char('\n')) || value.contains(QChar(0))) {
            r.fail(where, Tr::tr("a header value cannot hold a line break or NUL"));
            return headers;
        }
        headers.append({it.key().toLatin1(), value.toUtf8()});
    }
    return headers;
}

std::optional<ScenarioScript> readScript(Reader &r, const QJsonValue &v, const QString &path)
{
    ScenarioScript script;
    QJsonValue steps = v;
    QString stepsPath = path;
    if (v.isObject()) {
        const QJsonObject object = v.toObject();
        r.rejectUnknown(object, path, {QStringLiteral("steps"), QStringLiteral("shared")});
        script.shared = r.boolean(object, path, QStringLiteral("shared")).value_or(false);
        steps = object.value(QStringLiteral("steps"));
        stepsPath = Reader::join(path, QStringLiteral("steps"));
        if (steps.isUndefined() && !r.failed())
            r.fail(stepsPath, Tr::tr("missing"));
    } else if (!v.isArray()) {
        r.fail(path,
            Tr::tr("expected an array of steps or {\"steps\": [...], \"shared\": false}, got %1").arg(typeName(v)));
    }
    if (r.failed())
        return std::nullopt;
    if (!steps.isArray()) {
        r.fail(stepsPath, Tr::tr("expected an array of steps, got %1").arg(typeName(steps)));
        return std::nullopt;
    }
    const QJsonArray array = steps.toArray();
    if (array.isEmpty()) {
        r.fail(stepsPath, Tr::tr("empty; give at least one step such as \"return-503\""));
        return std::nullopt;
    }
    static const QRegularExpression repeat(QStringLiteral("^(.*)\\*\\s*(\\d+)$"));
    qint64 expanded = 0;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString where = Reader::index(stepsPath, i);
        if (!array[i].isString()) {
            r.fail(where, Tr::tr("expected a step such as \"return-503\", got %1").arg(typeName(array[i])));
            return std::nullopt;
        }
        const QString text = array[i].toString().trimmed();
        QString step = text;
        qint64 times = 1;
        if (const auto m = repeat.match(text); m.hasMatch()) {
            step = m.captured(1).trimmed();
            bool ok = false;
            times = m.captured(2).toLongLong(&ok);
            if (!ok || times < 1 || times > FaultInstruction::maxRepeat) {
                r.fail(where,
                    Tr::tr("\"%1\": the repeat count must be from 1 to %2").arg(text).arg(FaultInstruction::maxRepeat));
                return std::nullopt;
            }
        }
        const auto parsed = FaultInstruction::parse(step);
        if (!parsed) {
            r.fail(where, parsed.error());
            return std::nullopt;
        }
        expanded += times;
        if (expanded > FaultInstruction::maxInstructions) {
            r.fail(stepsPath, Tr::tr("more than %1 steps in all").arg(FaultInstruction::maxInstructions));
            return std::nullopt;
        }
        script.steps.append(text);
    }
    return script;
}

void readRequest(Reader &r, const QJsonValue &value, const QString &path, Scenario &scenario)
{
    if (!value.isObject()) {
        r.fail(path, Tr::tr("expected an object, got %1").arg(typeName(value)));
        return;
    }
    const QJsonObject o = value.toObject();
    r.rejectUnknown(o, path,
        {QStringLiteral("name"), QStringLiteral("label"), QStringLiteral("kind"), QStringLiteral("method"),
            QStringLiteral("url"), QStringLiteral("headers"), QStringLiteral("body"), QStringLiteral("idempotent"),
            QStringLiteral("attemptTimeoutMs"), QStringLiteral("count"), QStringLiteral("concurrency"),
            QStringLiteral("increment"), QStringLiteral("script")});
    if (r.failed())
        return;

    ScenarioRequest request;
    const auto name = r.string(o, path, QStringLiteral("name"), true);
    if (r.failed())
        return;
    const QString namePath = Reader::join(path, QStringLiteral("name"));
    if (name->trimmed().isEmpty() || name->size() > 100) {
        r.fail(namePath, Tr::tr("a name has 1 to 100 characters"));
        return;
    }
    for (QChar c : *name) {
        if (c.category() == QChar::Other_Control) {
            r.fail(namePath, Tr::tr("a name cannot hold control characters"));
            return;
        }
    }
    for (qsizetype i = 0; i < scenario.requests.size(); ++i) {
        if (scenario.requests[i].name == *name) {
            r.fail(namePath, Tr::tr("\"%1\" is already the name of requests[%2]").arg(*name).arg(i));
            return;
        }
    }
    request.name = *name;
    request.spec.label = r.string(o, path, QStringLiteral("label"), false).value_or(*name);

    const QString kind = r.string(o, path, QStringLiteral("kind"), false).value_or(QStringLiteral("single"));
    if (r.failed())
        return;
    if (kind == QLatin1String("read-modify-write")) {
        request.spec.kind = RequestSpec::Kind::ReadModifyWrite;
    } else if (kind != QLatin1String("single")) {
        r.fail(Reader::join(path, QStringLiteral("kind")),
            Tr::tr("unknown kind \"%1\" (known: single, read-modify-write)").arg(kind));
        return;
    }
    const bool rmw = request.spec.kind == RequestSpec::Kind::ReadModifyWrite;

    if (const auto method = r.string(o, path, QStringLiteral("method"), false)) {
        static const QRegularExpression token(QStringLiteral("^[A-Za-z]{1,20}$"));
        const QString methodPath = Reader::join(path, QStringLiteral("method"));
        if (!token.match(*method).hasMatch()) {
            r.fail(methodPath, Tr::tr("\"%1\" is not an HTTP method").arg(*method));
            return;
        }
        if (rmw) {
            r.fail(methodPath, Tr::tr("a read-modify-write request sends GET, then PUT; leave the method out"));
            return;
        }
        request.spec.method = method->toUpper().toLatin1();
    }
    if (r.failed())
        return;

    const auto url = r.string(o, path, QStringLiteral("url"), true);
    if (r.failed())
        return;
    checkedUrl(r, *url, Reader::join(path, QStringLiteral("url")));
    request.urlTemplate = *url;

    const QJsonValue headers = o.value(QStringLiteral("headers"));
    if (!headers.isUndefined())
        request.spec.headers = readHeaders(r, headers, Reader::join(path, QStringLiteral("headers")));

    const QJsonValue body = o.value(QStringLiteral("body"));
    if (!body.isUndefined()) {
        const QString bodyPath = Reader::join(path, QStringLiteral("body"));
        if (rmw) {
            r.fail(bodyPath, Tr::tr("a read-modify-write request writes {\"value\": n} itself; leave the body out"));
            return;
        }
        if (body.isString())
            request.spec.body = body.toString().toUtf8();
        else if (body.isObject())
            request.spec.body = QJsonDocument(body.toObject()).toJson(QJsonDocument::Compact);
        else if (body.isArray())
            request.spec.body = QJsonDocument(body.toArray()).toJson(QJsonDocument::Compact);
        else
            r.fail(bodyPath, Tr::tr("expected a string or a JSON object or array, got %1").arg(typeName(body)));
    }

    request.spec.idempotent = r.boolean(o, path, QStringLiteral("idempotent")).value_or(false);
    if (const auto timeout = r.number(o, path, QStringLiteral("attemptTimeoutMs"), 0.0, PolicyLimits::maxDeadlineMs)) {
        request.spec.attemptTimeoutMs = *timeout;
    }
    request.count = static_cast<int>(
        r.integer(o, path, QStringLiteral("count"), 1, ScenarioReader::maxTotalRequests).value_or(1));
    request.concurrency
        = static_cast<int>(r.integer(o, path, QStringLiteral("concurrency"), 1, ScenarioReader::maxConcurrency)
                               .value_or(std::min(request.count, ScenarioReader::maxConcurrency)));
    request.concurrency = std::min(request.concurrency, request.count);
    if (o.contains(QStringLiteral("increment"))) {
        const QString incrementPath = Reader::join(path, QStringLiteral("increment"));
        if (!rmw) {
            r.fail(incrementPath, Tr::tr("only a read-modify-write request has an increment"));
            return;
        }
        request.spec.increment
            = r.integer(o, path, QStringLiteral("increment"), -(qint64(1) << 52), qint64(1) << 52).value_or(1);
    }

    const QJsonValue script = o.value(QStringLiteral("script"));
    if (!script.isUndefined() && !r.failed()) {
        const QString scriptPath = Reader::join(path, QStringLiteral("script"));
        request.script = readScript(r, script, scriptPath);
        if (!r.failed() && !url->startsWith(Scenario::serverPlaceholder())) {
            r.fail(scriptPath,
                Tr::tr("a script is played by the embedded server, so the URL must start with %1")
                    .arg(Scenario::serverPlaceholder()));
        }
    }
    if (!r.failed())
        scenario.requests.append(request);
}

void readAttempts(Reader &r, const QJsonValue &v, const QString &path, ScenarioExpectation &e)
{
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        r.rejectUnknown(o, path, {QStringLiteral("min"), QStringLiteral("max")});
        const auto min = r.integer(o, path, QStringLiteral("min"), 0, PolicyLimits::maxAttempts);
        const auto max = r.integer(o, path, QStringLiteral("max"), 0, PolicyLimits::maxAttempts);
        if (r.failed())
            return;
        if (!min && !max) {
            r.fail(path, Tr::tr("give \"min\", \"max\" or both"));
            return;
        }
        if (min && max && *min > *max) {
            r.fail(path, Tr::tr("min (%1) is larger than max (%2)").arg(*min).arg(*max));
            return;
        }
        if (min)
            e.minAttempts = static_cast<int>(*min);
        if (max)
            e.maxAttempts = static_cast<int>(*max);
        return;
    }
    if (!v.isDouble()) {
        r.fail(path, Tr::tr("expected a whole number or {\"min\": a, \"max\": b}, got %1").arg(typeName(v)));
        return;
    }
    if (const auto n = r.integer(v, path, 0, PolicyLimits::maxAttempts)) {
        e.minAttempts = static_cast<int>(*n);
        e.maxAttempts = static_cast<int>(*n);
    }
}

QString outcomeList()
{
    QStringList names;
    for (int i = 0; i <= int(RequestOutcome::InvalidRequest); ++i)
        names.append(requestOutcomeName(RequestOutcome(i)));
    return names.join(QStringLiteral(", "));
}

void readExpectation(Reader &r, const QJsonValue &value, const QString &path, Scenario &scenario)
{
    if (!value.isObject()) {
        r.fail(path, Tr::tr("expected an object, got %1").arg(typeName(value)));
        return;
    }
    const QJsonObject o = value.toObject();
    r.rejectUnknown(o, path,
        {QStringLiteral("name"), QStringLiteral("request"), QStringLiteral("outcome"), QStringLiteral("attempts"),
            QStringLiteral("finalStatus"), QStringLiteral("minTotalMs"), QStringLiteral("maxTotalMs"),
            QStringLiteral("minSuccessRate"), QStringLiteral("lastCause")});
    if (r.failed())
        return;

    ScenarioExpectation e;
    e.name = r.string(o, path, QStringLiteral("name"), false).value_or(QString());
    const auto request = r.string(o, path, QStringLiteral("request"), true);
    if (r.failed())
        return;
    if (!scenario.request(*request)) {
        QStringList names;
        for (const ScenarioRequest &each : std::as_const(scenario.requests))
            names.append(each.name);
        r.fail(Reader::join(path, QStringLiteral("request")),
            Tr::tr("no request is named \"%1\" (requests: %2)").arg(*request, names.join(QStringLiteral(", "))));
        return;
    }
    e.request = *request;

    const QJsonValue outcome = o.value(QStringLiteral("outcome"));
    if (!outcome.isUndefined()) {
        const QString outcomePath = Reader::join(path, QStringLiteral("outcome"));
        const QJsonArray names = outcome.isArray() ? outcome.toArray() : QJsonArray{outcome};
        if (names.isEmpty())
            r.fail(outcomePath, Tr::tr("empty; give one outcome or several (%1)").arg(outcomeList()));
        for (qsizetype i = 0; i < names.size() && !r.failed(); ++i) {
            const QString where = outcome.isArray() ? Reader::index(outcomePath, i) : outcomePath;
            const auto parsed = requestOutcomeFromName(names[i].toString());
            if (!names[i].isString() || !parsed) {
                r.fail(where,
                    names[i].isString()
                        ? Tr::tr("unknown outcome \"%1\" (known: %2)").arg(names[i].toString(), outcomeList())
                        : Tr::tr("expected an outcome name, got %1").arg(typeName(names[i])));
                break;
            }
            e.outcomes.append(*parsed);
        }
    }
    const QJsonValue attempts = o.value(QStringLiteral("attempts"));
    if (!attempts.isUndefined() && !r.failed())
        readAttempts(r, attempts, Reader::join(path, QStringLiteral("attempts")), e);
    const QJsonValue status = o.value(QStringLiteral("finalStatus"));
    if (!status.isUndefined() && !r.failed()) {
        e.checkFinalStatus = true;
        if (!status.isNull()) {
            if (const auto s = r.integer(status, Reader::join(path, QStringLiteral("finalStatus")), 100, 599))
                e.finalStatus = static_cast<int>(*s);
        }
    }
    e.minTotalMs = r.number(o, path, QStringLiteral("minTotalMs"), 0.0, PolicyLimits::maxDeadlineMs);
    e.maxTotalMs = r.number(o, path, QStringLiteral("maxTotalMs"), 0.0, PolicyLimits::maxDeadlineMs);
    if (e.minTotalMs && e.maxTotalMs && *e.minTotalMs > *e.maxTotalMs) {
        r.fail(Reader::join(path, QStringLiteral("minTotalMs")),
            Tr::tr("%1 is larger than maxTotalMs (%2)").arg(*e.minTotalMs).arg(*e.maxTotalMs));
    }
    e.minSuccessRate = r.number(o, path, QStringLiteral("minSuccessRate"), 0.0, 1.0);
    e.lastCause = r.string(o, path, QStringLiteral("lastCause"), false).value_or(QString());
    if (r.failed())
        return;
    if (o.contains(QStringLiteral("lastCause")) && e.lastCause.isEmpty()) {
        r.fail(Reader::join(path, QStringLiteral("lastCause")), Tr::tr("empty"));
        return;
    }
    if (e.outcomes.isEmpty() && !e.minAttempts && !e.maxAttempts && !e.checkFinalStatus && !e.minTotalMs
        && !e.maxTotalMs && !e.minSuccessRate && e.lastCause.isEmpty()) {
        r.fail(path,
            Tr::tr("checks nothing; give outcome, attempts, finalStatus, minTotalMs, maxTotalMs, minSuccessRate or "
                   "lastCause"));
        return;
    }
    scenario.expectations.append(e);
}

} // namespace

QString lineAndColumn(const QByteArray &text, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, text.size());
    const QByteArrayView before(text.constData(), offset);
    const qsizetype line = before.count('\n') + 1;
    const qsizetype lineStart = before.lastIndexOf('\n') + 1;
    // Columns count characters, not bytes, so that an editor finds the spot.
    const qsizetype column = QString::fromUtf8(before.sliced(lineStart)).size() + 1;
    return Tr::tr("line %1, column %2").arg(line).arg(column);
}

Result<Scenario> fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return Result<Scenario>::failure(
            Tr::tr("%1: not valid JSON: %2").arg(lineAndColumn(json, parseError.offset), parseError.errorString()));
    }
    if (!document.isObject())
        return Result<Scenario>::failure(Tr::tr("a scenario file holds one JSON object"));
    const QJsonObject root = document.object();

    Reader r;
    Scenario scenario;
    const auto format = r.string(root, {}, QStringLiteral("format"), false);
    if (r.failed())
        return Result<Scenario>::failure(r.error());
    if (!format) {
        return Result<Scenario>::failure(
            Tr::tr("format: missing; a scenario file says \"format\": \"%1\"").arg(QLatin1String(formatName)));
    }
    if (*format != QLatin1String(formatName)) {
        return Result<Scenario>::failure(
            Tr::tr("format: \"%1\" is not a scenario (expected \"%2\")").arg(*format, QLatin1String(formatName)));
    }
    if (const auto version = r.integer(root, {}, QStringLiteral("version"), 1, 1'000'000);
        version && *version > formatVersion) {
        r.fail(QStringLiteral("version"),
            Tr::tr("version %1 is not supported (this build reads up to %2)").arg(*version).arg(formatVersion));
    }
    r.rejectUnknown(root, {},
        {QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("name"), QStringLiteral("description"),
            QStringLiteral("policy"), QStringLiteral("seed"), QStringLiteral("concurrency"),
            QStringLiteral("timeoutMs"), QStringLiteral("requests"), QStringLiteral("expectations")});
    scenario.name = r.string(root, {}, QStringLiteral("name"), false).value_or(QString());
    scenario.description = r.string(root, {}, QStringLiteral("description"), false).value_or(QString());
    if (r.failed())
        return Result<Scenario>::failure(r.error());

    readPolicy(r, root, scenario);
    if (const QJsonValue seed = root.value(QStringLiteral("seed")); !seed.isUndefined() && !r.failed()) {
        if (const auto s = readSeed(r, seed, QStringLiteral("seed")))
            scenario.seed = *s;
    }
    scenario.concurrency = static_cast<int>(
        r.integer(root, {}, QStringLiteral("concurrency"), 1, maxConcurrency).value_or(scenario.concurrency));
    scenario.timeoutMs
        = r.number(root, {}, QStringLiteral("timeoutMs"), 0.0, PolicyLimits::maxDeadlineMs).value_or(0.0);
    if (r.failed())
        return Result<Scenario>::failure(r.error());

    const QJsonValue requests = root.value(QStringLiteral("requests"));
    if (requests.isUndefined())
        return Result<Scenario>::failure(Tr::tr("requests: missing; a scenario sends at least one request"));
    if (!requests.isArray()) {
        return Result<Scenario>::failure(
            Tr::tr("requests: expected an array of requests, got %1").arg(typeName(requests)));
    }
    const QJsonArray requestArray = requests.toArray();
    if (requestArray.isEmpty())
        return Result<Scenario>::failure(Tr::tr("requests: empty; a scenario sends at least one request"));
    if (requestArray.size() > maxRequestEntries) {
        return Result<Scenario>::failure(
            Tr::tr("requests: %1 entries; at most %2 are allowed").arg(requestArray.size()).arg(maxRequestEntries));
    }
    qint64 total = 0;
    for (qsizetype i = 0; i < requestArray.size() && !r.failed(); ++i) {
        readRequest(r, requestArray[i], Reader::index(QStringLiteral("requests"), i), scenario);
        if (!r.failed()) {
            total += scenario.requests.constLast().count;
            if (total > maxTotalRequests) {
                r.fail(Reader::index(QStringLiteral("requests"), i) + QStringLiteral(".count"),
                    Tr::tr("the scenario would send %1 requests; at most %2 are allowed")
                        .arg(total)
                        .arg(maxTotalRequests));
            }
        }
    }

    const QJsonValue expectations = root.value(QStringLiteral("expectations"));
    if (!expectations.isUndefined() && !r.failed()) {
        if (!expectations.isArray()) {
            r.fail(QStringLiteral("expectations"), Tr::tr("expected an array, got %1").arg(typeName(expectations)));
        } else {
            const QJsonArray array = expectations.toArray();
            for (qsizetype i = 0; i < array.size() && !r.failed(); ++i)
                readExpectation(r, array[i], Reader::index(QStringLiteral("expectations"), i), scenario);
        }
    }
    if (r.failed())
        return Result<Scenario>::failure(r.error());
    return scenario;
}

Result<Scenario> readFile(const QString &path)
{
    const QString shown = QDir::toNativeSeparators(path);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<Scenario>::failure(Tr::tr("%1: cannot read: %2").arg(shown, file.errorString()));
    if (file.size() > maxFileBytes) {
        return Result<Scenario>::failure(Tr::tr("%1: %2 bytes is too large for a scenario file (at most %3)")
                                             .arg(shown)
                                             .arg(file.size())
                                             .arg(maxFileBytes));
    }
    auto scenario = fromJson(file.readAll());
    if (!scenario)
        return Result<Scenario>::failure(Tr::tr("%1: %2").arg(shown, scenario.error()));
    if (scenario.value().name.isEmpty())
        scenario.value().name = QFileInfo(path).completeBaseName();
    qCDebug(lcScenarioReader) << "read" << path << "with" << scenario.value().requests.size() << "request entries";
    return scenario;
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
