#pragma once

#include "core/util/result.h"

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// A JSON Schema (draft 2020-12) for checking response bodies, limited to the
/// keywords most API schemas use: type (a name or a list; "integer" is a whole
/// number), properties, required, additionalProperties (a boolean or a schema),
/// items, enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
/// minLength, maxLength, pattern, minItems, maxItems, and $ref to "#/$defs/...".
/// Annotations ($schema, $id, title, description, default, examples...) are
/// accepted. Any other keyword is listed in notChecked() and in every
/// validation's result, so that a schema that asks more than this validator
/// checks never passes silently. parse() refuses a schema that is not well
/// formed (a "minimum" that is not a number, a $ref that leads nowhere).
class JsonSchema final
{
public:
    /// One failure of an instance: where in it (a JSON pointer, "" for the
    /// whole document), the keyword, and what was wrong.
    struct Failure
    {
        QString instancePath;
        QString keyword;
        QString message; ///< "'minimum' 0: -5 is less"
        /// "/items/2/price: 'minimum' 0: -5 is less"; "(root): ..." for the whole document.
        QString text() const;
        friend bool operator==(const Failure &, const Failure &) = default;
    };

    struct Validation
    {
        QList<Failure> failures;
        /// The keywords of the schema this validator does not check, each once.
        QStringList notChecked;
        bool valid() const { return failures.isEmpty(); }
    };

    JsonSchema() = default;
    /// The schema `schema` (an object or a boolean), or the first thing wrong with
    /// it, its path in JsonReader's form ("properties.price.minimum").
    static Result<JsonSchema> parse(const QJsonValue &schema);

    /// Every failure of `instance`, in document order.
    Validation validate(const QJsonValue &instance) const;

    const QJsonValue &source() const { return m_source; }
    const QStringList &notChecked() const { return m_notChecked; }

    friend bool operator==(const JsonSchema &a, const JsonSchema &b) { return a.m_source == b.m_source; }

private:
    QJsonValue m_source = QJsonValue(true);
    QStringList m_notChecked;
};

} // namespace RetryLab::Core
