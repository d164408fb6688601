#include "core/scripting/scriptscopes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <array>
#include <cmath>

namespace RetryLab::Core {

std::optional<QJsonValue> ScriptScopes::resolve(const QString &name) const
{
    const std::array<const QHash<QString, QJsonValue> *, 5> narrowestFirst
        = {&local, &data, &environment, &collection, &globals};
    for (const auto *scope : narrowestFirst) {
        const auto found = scope->constFind(name);
        if (found != scope->constEnd())
            return found.value();
    }
    return std::nullopt;
}

QHash<QString, QString> ScriptScopes::flattened() const
{
    QHash<QString, QString> values;
    const std::array<const QHash<QString, QJsonValue> *, 5> widestFirst
        = {&globals, &collection, &environment, &data, &local};
    for (const auto *scope : widestFirst) {
        for (auto it = scope->constBegin(); it != scope->constEnd(); ++it)
            values.insert(it.key(), text(it.value()));
    }
    return values;
}

QString ScriptScopes::text(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Double: {
        const double number = value.toDouble();
        if (std::isfinite(number) && number == std::trunc(number) && std::abs(number) < 1e21)
            return QString::number(qint64(number));
        return QString::number(number, 'g', QLocale::FloatingPointShortest);
    }
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    case QJsonValue::Undefined:
        break;
    }
    return {};
}

} // namespace RetryLab::Core
