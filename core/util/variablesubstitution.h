#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// {{name}} references to variables in text, replaced by their values. The one
/// substitution of RetryLab's collections and environments (core/collections'
/// Variables) and of Postman import, which differ only in the Rules: what may
/// stand between the braces, and whether a value is itself a template. It sits
/// here, below both, so that import need not depend on collections (nor, through
/// them, on the executor).
namespace VariableSubstitution {

/// What a reference may hold between its braces.
enum class Names {
    /// A name (isValidName) with spaces allowed around it: "{{ token }}" is
    /// token. Anything else in double braces ("{{$guid}}") is no reference and
    /// is left alone, unreported. RetryLab's rule.
    Strict,
    /// Anything but braces, taken as written: "{{$guid}}" is named "$guid" and
    /// "{{ c }}" " c ". Postman's rule.
    Loose,
};

/// What becomes of references inside a value that replaced one.
enum class Nesting {
    /// The value is inserted as it is, never resolved further (a RetryLab
    /// variable may hold {server}, not another variable).
    None,
    /// The value's own references are replaced once more; those left in a value
    /// at that second level stay as written and are reported as unresolved.
    /// Postman's rule.
    OneLevel,
};

struct Rules
{
    Names names = Names::Strict;
    Nesting nesting = Nesting::None;
};

/// Letters, digits, '_', '-' and '.', starting with a letter or '_', at most
/// 200 characters: the names a Strict reference holds and an environment defines.
bool isValidName(const QString &name);

/// The names referenced in `text`, in order of first appearance, each once.
QStringList referencedNames(const QString &text, Names names = Names::Strict);

/// `text` with every reference to a name in `values` replaced by its value (see
/// Rules for what happens inside that value). A reference to any other name
/// stays as written and its name is added to `unresolved` (when given), once.
QString substitute(
    const QString &text, const QHash<QString, QString> &values, QStringList *unresolved = nullptr, Rules rules = {});

} // namespace VariableSubstitution

} // namespace RetryLab::Core
