#pragma once

#include "core/assertions/jsonschema.h"

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <QRegularExpression>
#include <QSet>
#include <QString>

namespace RetryLab::Core {

/// One declarative check a request of a collection (or a monitor) makes of
/// the answer it gets. Only the fields of its kind are used; `negate` turns
/// it around ("not": the header must be absent, the body must not contain).
/// AssertionJson reads and writes it; evaluate() (assertionresult.h) checks it.
struct Assertion
{
    enum class Kind {
        StatusEquals, ///< statuses: one code
        StatusClass, ///< statuses: a hundred ("2xx")
        StatusIn, ///< statuses: a set ("200,204")
        ResponseTimeUnder, ///< maxMs: the attempt's whole exchange
        HeaderPresent, ///< header
        HeaderEquals, ///< header, text: its whole value
        HeaderMatches, ///< header, pattern
        BodyContains, ///< text
        JsonPointerEquals, ///< pointer, expected
        JsonPointerExists, ///< pointer
        JsonPointerMatches, ///< pointer, pattern: the value must be a string that matches
        Schema, ///< schema: the body is JSON valid against it
    };

    Kind kind = Kind::StatusEquals;
    bool negate = false;
    /// A name for reports; empty: describe().
    QString name;

    QSet<int> statuses;
    QString statusText; ///< as written, for messages: "200", "2xx", "200,204"
    double maxMs = 0.0;
    QByteArray header;
    QString text;
    /// A regular expression (searched, not anchored), compiled once and shared by copies.
    QRegularExpression pattern;
    QString pointer;
    QJsonValue expected;
    JsonSchema schema;

    /// What it asks: "status 200", "not body contains \"error\"", "/id exists".
    QString describe() const;
    /// The pointer as messages name it: "/id", or "the whole body" for "".
    QString pointerText() const;
    /// `name`, or describe() when it has none.
    QString displayName() const { return name.isEmpty() ? describe() : name; }

    /// A JSON value as messages quote it: "ok" quoted, numbers plain, compact JSON.
    static QString jsonText(const QJsonValue &value);

    friend bool operator==(const Assertion &, const Assertion &) = default;
};

} // namespace RetryLab::Core
