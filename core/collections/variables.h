#pragma once

#include "core/collections/requestdraft.h"
#include "core/util/result.h"
#include "core/util/variablesubstitution.h"

#include <QHash>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

class DynamicVariables;

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
/// With `dynamic`, Postman's {{$name}} references (DynamicVariables) are
/// replaced as well, after the {{name}} ones, so that an environment's value
/// may hold one ("{{$guid}}"); an unknown {{$name}} is then an error naming it.
/// Without it, {{$name}} is left as written, as before.
Result<RequestDraft> apply(const RequestDraft &draft, const QHash<QString, QString> &values,
    const QString &environmentName, DynamicVariables *dynamic = nullptr);
/// `text` with its {{name}} references replaced (substitute()) and then, with
/// `dynamic`, its {{$name}} ones; an undefined name goes to `unresolved`, an
/// unknown $name to `unknownDynamic`.
QString resolve(const QString &text, const QHash<QString, QString> &values, DynamicVariables *dynamic,
    QStringList *unresolved, QStringList *unknownDynamic);

} // namespace Variables

} // namespace RetryLab::Core
