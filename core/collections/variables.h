#pragma once

#include "core/collections/requestdraft.h"
#include "core/util/result.h"

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

/// Letters, digits, '_', '-' and '.', starting with a letter or '_'.
bool isValidName(const QString &name);
/// The names referenced in `text`, in order of appearance, each once.
QStringList referencedNames(const QString &text);
/// The names referenced anywhere in the draft.
QStringList referencedNames(const RequestDraft &draft);
/// `text` with every {{name}} replaced; names not in `values` stay as they are
/// and are added to `unresolved` (when given).
QString substitute(const QString &text, const QHash<QString, QString> &values, QStringList *unresolved = nullptr);
/// The draft with its references resolved, or an error naming the undefined
/// ones and the environment (`environmentName`, empty when none is selected).
Result<RequestDraft> apply(
    const RequestDraft &draft, const QHash<QString, QString> &values, const QString &environmentName);

} // namespace Variables

} // namespace RetryLab::Core
