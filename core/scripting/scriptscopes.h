#pragma once

#include <QHash>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The variables a collection run's requests and scripts read and write, in
/// Postman's scopes. A script may store any JSON value (pm.environment.set("n", 5)
/// keeps a number); a {{name}} in a request stands for its text().
struct ScriptScopes
{
    QHash<QString, QJsonValue> globals;
    QHash<QString, QJsonValue> collection;
    QHash<QString, QJsonValue> environment;
    /// The current row of --data.
    QHash<QString, QJsonValue> data;
    /// pm.variables.set: the run's own, the narrowest.
    QHash<QString, QJsonValue> local;

    /// The value {{name}} stands for: the narrowest scope that has it (local, data,
    /// environment, collection, globals: Postman's order); nothing when none has.
    std::optional<QJsonValue> resolve(const QString &name) const;
    /// Every name with the text of the value resolve() gives it, for substitution.
    QHash<QString, QString> flattened() const;
    /// A value as it is substituted: a string as it is, a number as JavaScript
    /// writes it ("5", "2.5"), true/false, null as "null", arrays and objects as
    /// compact JSON, undefined as "".
    static QString text(const QJsonValue &value);

    friend bool operator==(const ScriptScopes &, const ScriptScopes &) = default;
};

} // namespace RetryLab::Core
