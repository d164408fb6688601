#pragma once

#include "core/collections/requestdraft.h"
#include "core/util/result.h"
#include "core/util/variablesubstitution.h"

#include <QHash>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// {{name}} references to environment variables in a request (URL, header names
/// and values, body). Resolved before the placeholders {server} and {id}, so that
/// a variable may hold them ("base": "{server}"). A name that the environment
/// does not define is an error that names it: a request is never sent with a
/// literal "{{token}}" in it.
namespace Variables {

// The substitution is VariableSubstitution's with its default rules: a name
// such as "token" or "api.key" ("{{ token }}" too), and a value inserted as it
// is. Postman import uses the same substitution with Postman's rules.
using VariableSubstitution::isValidName;
using VariableSubstitution::referencedNames;
using VariableSubstitution::substitute;

/// The names referenced anywhere in the draft.
QStringList referencedNames(const RequestDraft &draft);
/// The draft with its references resolved, or an error naming the undefined
/// ones and the environment (`environmentName`, empty when none is selected).
Result<RequestDraft> apply(
    const RequestDraft &draft, const QHash<QString, QString> &values, const QString &environmentName);

} // namespace Variables

} // namespace RetryLab::Core
