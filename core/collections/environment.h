#pragma once

#include "core/util/result.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// One variable of an environment: {{name}} in a request stands for `value`.
struct EnvironmentVariable
{
    QString name;
    QString value;
    /// A token, a password: never written to a collection or an export, and to
    /// the environments file only when its environment opts in (storeSecrets).
    bool secret = false;

    friend bool operator==(const EnvironmentVariable &, const EnvironmentVariable &) = default;
};

/// A named set of variables ("Staging": base, token), switched from the toolbar,
/// so that one saved request can be sent to several deployments.
struct Environment
{
    static constexpr int maxVariables = 500;
    static constexpr qsizetype maxValueLength = 64 * 1024;

    QString name;
    QList<EnvironmentVariable> variables;
    /// The user chose to keep this environment's secret values on disk (the file
    /// is plain text); otherwise they live only as long as the window.
    bool storeSecrets = false;

    /// name -> value, for substitution; a secret without a value is left out.
    QHash<QString, QString> values() const;
    /// The non-empty values of secret variables, to be masked in exports.
    QStringList secretValues() const;
    const EnvironmentVariable *find(const QString &variableName) const;

    /// Secret values are written only when storeSecrets is set (a secret without
    /// its value is written with "secret": true and no "value").
    QJsonObject toJson() const;
    /// Reads what toJson() wrote; the error names the field ("variables[2].name").
    static Result<Environment> fromJson(const QJsonObject &object);

    friend bool operator==(const Environment &, const Environment &) = default;
};

} // namespace RetryLab::Core
