#include "core/alerts/alerttargetjson.h"

#include "core/http/redactor.h"
#include "core/policy/policyjson.h"
#include "core/policy/policyreference.h"
#include "core/util/coretr.h"

#include <QDir>
#include <QJsonArray>
#include <QSet>

namespace RetryLab::Core::AlertTargetJson {

namespace {

constexpr qint64 maxTargetIntervalMs = 7LL * 24 * 3600 * 1000;
constexpr qint64 maxCommandTimeoutMs = 3600LL * 1000;
constexpr int maxAlertsPerMinute = 1000;

// Header names are tokens, values field values; a value is a credential, so a
// message names the header and the place of the bad byte, never the value.
HeaderList readTargetHeaders(JsonReader &r)
{
    HeaderList headers;
    const QJsonValue v = r.value(QStringLiteral("headers"));
    if (v.isUndefined())
        return headers;
    if (!v.isObject()) {
        r.fail(QStringLiteral("headers"),
            Tr::tr("expected an object of header names and values, got %1").arg(JsonReader::describe(v)));
        return headers;
    }
    auto object = r.object(QStringLiteral("headers"));
    for (const QString &name : object->object().keys()) {
        if (!isToken(QStringView(name))) {
            object->fail(name, Tr::tr("\"%1\" is not a valid header name").arg(name));
            return headers;
        }
        const QJsonValue value = object->value(name);
        if (!value.isString()) {
            object->fail(name, Tr::tr("expected a string, got %1").arg(JsonReader::describe(value)));
            return headers;
        }
        const QByteArray bytes = value.toString().toUtf8();
        if (const QString problem = fieldValueProblem(bytes); !problem.isEmpty()) {
            object->fail(name, problem);
            return headers;
        }
        headers.append({name.toLatin1(), bytes});
    }
    return headers;
}

void readWebhook(JsonReader &r, AlertTarget &target)
{
    const auto text = r.string(QStringLiteral("url"), Presence::Required);
    if (!text)
        return;
    const QUrl url(text->trimmed(), QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        || url.host().isEmpty()) {
        // The URL may carry a token in its query or its user info.
        r.fail(QStringLiteral("url"),
            Tr::tr("expected an http:// or https:// URL with a host, got \"%1\"").arg(Redactor().text(*text)));
        return;
    }
    target.url = url;
    target.headers = readTargetHeaders(r);
    if (auto policy = PolicyReference::read(r, QStringLiteral("policy"), Presence::Optional)) {
        target.policy = std::move(policy->policy);
        target.policyOrigin = std::move(policy->origin);
        target.policyJson = r.value(QStringLiteral("policy"));
    }
}

void readCommand(JsonReader &r, AlertTarget &target)
{
    const auto command = r.strings(QStringLiteral("command"), Presence::Required);
    if (!command)
        return;
    if (command->isEmpty()) {
        r.fail(QStringLiteral("command"), Tr::tr("empty; give the program's absolute path, then its arguments"));
        return;
    }
    const QString program = command->first();
    if (program.isEmpty() || !QDir::isAbsolutePath(program)) {
        // Without a shell, a PATH search would depend on how the monitor was
        // started (a service has another PATH, another working directory).
        auto list = r.array(QStringLiteral("command"));
        list->fail(0,
            Tr::tr("expected the program's absolute path, got \"%1\": the monitor may run with another PATH and "
                   "working directory")
                .arg(program));
        return;
    }
    target.command = *command;
    target.timeoutMs
        = r.integer(QStringLiteral("timeoutMs"), 1, maxCommandTimeoutMs).value_or(AlertTarget::defaultCommandTimeoutMs);
}

// The policy as the file named it ("aws-standard") still gives the target's
// policy: write that back rather than every field. A policy a program changed
// since is written out whole.
bool writtenAsRead(const AlertTarget &target)
{
    if (target.policyJson.isUndefined())
        return false;
    JsonReader check(QJsonObject{{QStringLiteral("policy"), target.policyJson}});
    const auto again = PolicyReference::read(check, QStringLiteral("policy"));
    return again && again->policy == target.policy;
}

} // namespace

std::optional<AlertTarget> read(JsonReader &r)
{
    AlertTarget target;
    const auto name = r.string(QStringLiteral("name"), Presence::Required);
    if (!name)
        return std::nullopt;
    target.name = name->trimmed();
    if (target.name.isEmpty()) {
        r.fail(QStringLiteral("name"), Tr::tr("empty; give the target a name that monitors refer to"));
        return std::nullopt;
    }
    const auto kind = r.named(QStringLiteral("kind"), alertTargetKinds(), &alertTargetKindName, Presence::Required,
        Tr::tr("unknown alert target kind \"%1\" (known: %2)"));
    if (!kind)
        return std::nullopt;
    target.kind = *kind;

    QStringList known{QStringLiteral("name"), QStringLiteral("kind"), QStringLiteral("minIntervalMs"),
        QStringLiteral("maxPerMinute")};
    switch (target.kind) {
    case AlertTarget::Kind::Webhook:
        known << QStringLiteral("url") << QStringLiteral("headers") << QStringLiteral("policy");
        break;
    case AlertTarget::Kind::Command:
        known << QStringLiteral("command") << QStringLiteral("timeoutMs");
        break;
    case AlertTarget::Kind::Desktop:
        break;
    }
    r.rejectUnknown(known);
    if (r.failed())
        return std::nullopt;

    target.minIntervalMs = r.integer(QStringLiteral("minIntervalMs"), 0, maxTargetIntervalMs)
                               .value_or(AlertTarget::defaultMinIntervalMs);
    target.maxPerMinute = static_cast<int>(
        r.integer(QStringLiteral("maxPerMinute"), 1, maxAlertsPerMinute).value_or(AlertTarget::defaultMaxPerMinute));
    if (r.failed())
        return std::nullopt;

    switch (target.kind) {
    case AlertTarget::Kind::Webhook:
        readWebhook(r, target);
        break;
    case AlertTarget::Kind::Command:
        readCommand(r, target);
        break;
    case AlertTarget::Kind::Desktop:
        break;
    }
    if (r.failed())
        return std::nullopt;
    return target;
}

std::optional<QList<AlertTarget>> readList(JsonReader &array)
{
    QList<AlertTarget> targets;
    QSet<QString> names;
    for (qsizetype i = 0; i < array.size(); ++i) {
        auto entry = array.object(i, Presence::Required);
        if (!entry)
            return std::nullopt;
        auto target = read(*entry);
        if (!target)
            return std::nullopt;
        if (names.contains(target->name)) {
            entry->fail(QStringLiteral("name"), Tr::tr("a second alert target named \"%1\"").arg(target->name));
            return std::nullopt;
        }
        names.insert(target->name);
        targets.append(std::move(*target));
    }
    return targets;
}

QJsonObject toJson(const AlertTarget &target)
{
    QJsonObject o{
        {QStringLiteral("name"), target.name},
        {QStringLiteral("kind"), alertTargetKindName(target.kind)},
    };
    if (target.minIntervalMs != AlertTarget::defaultMinIntervalMs)
        o.insert(QStringLiteral("minIntervalMs"), target.minIntervalMs);
    if (target.maxPerMinute != AlertTarget::defaultMaxPerMinute)
        o.insert(QStringLiteral("maxPerMinute"), target.maxPerMinute);
    switch (target.kind) {
    case AlertTarget::Kind::Webhook: {
        o.insert(QStringLiteral("url"), target.url.toString(QUrl::FullyEncoded));
        if (!target.headers.isEmpty()) {
            QJsonObject headers;
            for (const auto &[name, value] : target.headers)
                headers.insert(QString::fromLatin1(name), QString::fromUtf8(value));
            o.insert(QStringLiteral("headers"), headers);
        }
        if (writtenAsRead(target))
            o.insert(QStringLiteral("policy"), target.policyJson);
        else if (target.policy != AlertTarget::defaultWebhookPolicy())
            o.insert(QStringLiteral("policy"), PolicyJson::toJsonObject(target.policy));
        break;
    }
    case AlertTarget::Kind::Command:
        o.insert(QStringLiteral("command"), QJsonArray::fromStringList(target.command));
        if (target.timeoutMs != AlertTarget::defaultCommandTimeoutMs)
            o.insert(QStringLiteral("timeoutMs"), target.timeoutMs);
        break;
    case AlertTarget::Kind::Desktop:
        break;
    }
    return o;
}

} // namespace RetryLab::Core::AlertTargetJson
