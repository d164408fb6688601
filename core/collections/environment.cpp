#include "core/collections/environment.h"

#include "core/collections/variables.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QSet>

namespace RetryLab::Core {

QHash<QString, QString> Environment::values() const
{
    QHash<QString, QString> out;
    for (const EnvironmentVariable &variable : variables) {
        // A secret not kept on disk is empty after a restart until it is typed again:
        // unresolved, so that "Bearer " never goes out in its place.
        if (!variable.secret || !variable.value.isEmpty())
            out.insert(variable.name, variable.value);
    }
    return out;
}

QStringList Environment::secretValues() const
{
    QStringList out;
    for (const EnvironmentVariable &variable : variables) {
        if (variable.secret && !variable.value.isEmpty())
            out.append(variable.value);
    }
    return out;
}

const EnvironmentVariable *Environment::find(const QString &variableName) const
{
    for (const EnvironmentVariable &variable : variables) {
        if (variable.name == variableName)
            return &variable;
    }
    return nullptr;
}

QJsonObject Environment::toJson() const
{
    QJsonArray array;
    for (const EnvironmentVariable &variable : variables) {
        QJsonObject entry{{QStringLiteral("name"), variable.name}};
        if (variable.secret)
            entry.insert(QStringLiteral("secret"), true);
        if (!variable.secret || storeSecrets)
            entry.insert(QStringLiteral("value"), variable.value);
        array.append(entry);
    }
    QJsonObject object{{QStringLiteral("name"), name}, {QStringLiteral("variables"), array}};
    if (storeSecrets)
        object.insert(QStringLiteral("storeSecrets"), true);
    return object;
}

Result<Environment> Environment::fromJson(const QJsonObject &object)
{
    JsonReader reader(object);
    reader.rejectUnknown({QStringLiteral("name"), QStringLiteral("variables"), QStringLiteral("storeSecrets")});
    Environment environment;
    environment.name = reader.string(QStringLiteral("name"), Presence::Required).value_or(QString());
    if (!reader.failed() && environment.name.trimmed().isEmpty())
        reader.fail(QStringLiteral("name"), Tr::tr("must not be empty"));
    environment.storeSecrets = reader.boolean(QStringLiteral("storeSecrets")).value_or(false);
    if (auto list = reader.array(QStringLiteral("variables"))) {
        if (list->size() > maxVariables)
            list->failHere(Tr::tr("more than %1 variables").arg(maxVariables));
        QSet<QString> seen;
        for (qsizetype i = 0; i < list->size() && !reader.failed(); ++i) {
            auto entry = list->object(i, Presence::Required);
            if (!entry)
                break;
            entry->rejectUnknown({QStringLiteral("name"), QStringLiteral("value"), QStringLiteral("secret")});
            EnvironmentVariable variable;
            variable.name = entry->string(QStringLiteral("name"), Presence::Required).value_or(QString());
            variable.value = entry->string(QStringLiteral("value")).value_or(QString());
            variable.secret = entry->boolean(QStringLiteral("secret")).value_or(false);
            if (reader.failed())
                break;
            if (!Variables::isValidName(variable.name)) {
                entry->fail(QStringLiteral("name"),
                    Tr::tr("\"%1\" is not a variable name (letters, digits, _ - and ., starting with a letter or _)")
                        .arg(variable.name));
            } else if (seen.contains(variable.name)) {
                entry->fail(QStringLiteral("name"), Tr::tr("\"%1\" is defined twice").arg(variable.name));
            } else if (variable.value.size() > maxValueLength) {
                entry->fail(QStringLiteral("value"), Tr::tr("longer than %1 characters").arg(maxValueLength));
            }
            seen.insert(variable.name);
            environment.variables.append(variable);
        }
    }
    return reader.result(environment);
}

} // namespace RetryLab::Core
