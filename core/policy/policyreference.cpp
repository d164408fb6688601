#include "core/policy/policyreference.h"

#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/util/coretr.h"

#include <QJsonObject>

namespace RetryLab::Core::PolicyReference {

namespace {

// Nested objects merge field by field, so that an override of one
// classification field keeps the preset's others.
QJsonObject mergedOverrides(QJsonObject base, const QJsonObject &overrides)
{
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
        const QJsonValue existing = base.value(it.key());
        if (existing.isObject() && it.value().isObject())
            base.insert(it.key(), mergedOverrides(existing.toObject(), it.value().toObject()));
        else
            base.insert(it.key(), it.value());
    }
    return base;
}

std::optional<Read> readPresetWithOverrides(JsonReader &r, const JsonReader::Key &key)
{
    auto p = r.object(key);
    p->rejectUnknown({QStringLiteral("preset"), QStringLiteral("overrides")});
    const auto presetName = p->string(QStringLiteral("preset"), Presence::Required);
    if (r.failed())
        return std::nullopt;
    const auto preset = Presets::find(*presetName);
    if (!preset) {
        p->fail(QStringLiteral("preset"), Tr::tr("unknown preset \"%1\" (known: %2)").arg(*presetName, presetList()));
        return std::nullopt;
    }
    const QJsonValue overrides = p->value(QStringLiteral("overrides"));
    if (overrides.isUndefined())
        return Read{*preset, Tr::tr("preset %1").arg(*presetName)};
    if (!overrides.isObject()) {
        p->fail(QStringLiteral("overrides"),
            Tr::tr("expected an object of policy fields, got %1").arg(JsonReader::describe(overrides)));
        return std::nullopt;
    }
    auto changes = p->object(QStringLiteral("overrides"));
    for (const QString &fixed : {QStringLiteral("format"), QStringLiteral("version")}) {
        if (changes->contains(fixed)) {
            changes->fail(fixed, Tr::tr("cannot be overridden"));
            return std::nullopt;
        }
    }
    auto read = PolicyJson::fromJsonObject(mergedOverrides(PolicyJson::toJsonObject(*preset), changes->object()));
    if (!read) {
        changes->fail(QString(), read.errorDetail());
        return std::nullopt;
    }
    Read out{std::move(read).value(), {}};
    if (!changes->contains(QStringLiteral("name")))
        out.policy.name = Tr::tr("%1 (modified)").arg(preset->name);
    out.origin
        = Tr::tr("preset %1 with overrides: %2").arg(*presetName, changes->object().keys().join(QStringLiteral(", ")));
    if (r.failed())
        return std::nullopt;
    return out;
}

} // namespace

std::optional<Read> read(JsonReader &r, const JsonReader::Key &key, Presence presence)
{
    const QJsonValue v = r.value(key);
    if (v.isUndefined()) {
        if (presence == Presence::Required)
            r.fail(key, Tr::tr("missing; name a preset (%1) or give a policy object").arg(presetList()));
        return std::nullopt;
    }
    if (v.isString()) {
        const auto preset = Presets::find(v.toString());
        if (!preset) {
            r.fail(key, Tr::tr("unknown preset \"%1\" (known: %2)").arg(v.toString(), presetList()));
            return std::nullopt;
        }
        return Read{*preset, Tr::tr("preset %1").arg(v.toString())};
    }
    if (!v.isObject()) {
        r.fail(key, Tr::tr("expected a preset name or a policy object, got %1").arg(JsonReader::describe(v)));
        return std::nullopt;
    }
    const QJsonObject object = v.toObject();
    if (object.contains(QStringLiteral("preset")))
        return readPresetWithOverrides(r, key);
    // A policy nested in a file reports its own errors with paths inside the
    // policy; they are nested under the file's path to it.
    auto read = PolicyJson::fromJsonObject(object);
    if (!read) {
        r.fail(key, read.errorDetail());
        return std::nullopt;
    }
    return Read{std::move(read).value(), Tr::tr("inline")};
}

QString presetList()
{
    return Presets::ids().join(QStringLiteral(", "));
}

} // namespace RetryLab::Core::PolicyReference
