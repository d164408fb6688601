#include "core/assertions/assertionresult.h"

#include "core/http/httpheaders.h"
#include "core/record/attemptrecord.h"
#include "core/util/coretr.h"
#include "core/util/jsonpointer.h"
#include "core/util/jsonreader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <optional>

namespace RetryLab::Core {

namespace {

// What one check found. `decided` is false when the answer cannot say either
// way (no status, a body that is not JSON): such a check fails, negated or not.
struct Finding
{
    bool holds = false;
    bool decided = true;
    QString came; ///< what came, as "X expected, <came> came" puts it
    QString why; ///< the failure of the check as written (not negated); empty: the plain sentence
    QStringList notChecked;
};

struct ParsedBody
{
    std::optional<QJsonValue> value;
    QString error;
};

// A body as JSON; a scalar ("3", "\"ok\"") is JSON too, which QJsonDocument
// refuses at the top, so it is read as the one element of an array.
ParsedBody parsedBody(const QByteArray &body)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error == QJsonParseError::NoError)
        return {document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object()), {}};
    QJsonParseError wrappedError;
    const QJsonDocument wrapped = QJsonDocument::fromJson('[' + body + ']', &wrappedError);
    if (wrappedError.error == QJsonParseError::NoError && wrapped.array().size() == 1)
        return {wrapped.array().at(0), {}};
    return {std::nullopt, error.errorString()};
}

QString truncatedNote(const AttemptRecord &record, const QByteArray &body)
{
    return record.responseBodyTruncated ? Tr::tr(" (only its first %1 bytes were kept)").arg(body.size()) : QString();
}

Finding checkStatus(const Assertion &a, const AttemptRecord &record)
{
    if (!record.httpStatus)
        return {false, false, Tr::tr("no status"), Tr::tr("no HTTP status (expected %1)").arg(a.statusText), {}};
    const int status = *record.httpStatus;
    Finding f{a.statuses.contains(status), true, QString::number(status), {}, {}};
    if (a.kind == Assertion::Kind::StatusIn)
        f.why = Tr::tr("HTTP %1 is not in %2").arg(status).arg(a.statusText);
    return f;
}

Finding checkHeader(const Assertion &a, const AttemptRecord &record)
{
    const QString name = QString::fromLatin1(a.header);
    const auto value = headerValue(record.responseHeaders, a.header);
    if (!value)
        return {false, true, Tr::tr("no %1 header").arg(name), Tr::tr("the answer has no %1 header").arg(name), {}};
    const QString text = QString::fromUtf8(*value);
    Finding f{true, true, Assertion::jsonText(text), {}, {}};
    if (a.kind == Assertion::Kind::HeaderEquals) {
        f.holds = text == a.text;
    } else if (a.kind == Assertion::Kind::HeaderMatches) {
        f.holds = a.pattern.match(text).hasMatch();
        f.why = Tr::tr("the %1 header does not match %2: it is %3").arg(name, a.pattern.pattern(), f.came);
    }
    return f;
}

Finding checkPointer(const Assertion &a, const AttemptRecord &record, const QByteArray &body)
{
    const ParsedBody parsed = parsedBody(body);
    if (!parsed.value) {
        const QString why = Tr::tr("the body is not JSON (%1), so %2 cannot be read%3")
                                .arg(parsed.error, a.pointerText(), truncatedNote(record, body));
        return {false, false, Tr::tr("a body that is not JSON"), why, {}};
    }
    const std::optional<QJsonValue> found = JsonPointer::get(*parsed.value, a.pointer);
    if (!found) {
        const QString why = a.kind == Assertion::Kind::JsonPointerEquals
            ? Tr::tr("the body has nothing at %1 (expected %2)").arg(a.pointerText(), Assertion::jsonText(a.expected))
            : Tr::tr("the body has nothing at %1").arg(a.pointerText());
        return {false, true, Tr::tr("nothing at %1").arg(a.pointerText()), why, {}};
    }
    Finding f{true, true, Assertion::jsonText(*found), {}, {}};
    if (a.kind == Assertion::Kind::JsonPointerEquals) {
        f.holds = *found == a.expected;
        f.why = Tr::tr("%1 is %2, not %3").arg(a.pointerText(), f.came, Assertion::jsonText(a.expected));
    } else if (a.kind == Assertion::Kind::JsonPointerMatches) {
        if (!found->isString()) {
            f.holds = false;
            f.why = Tr::tr("%1 is %2, not a string to match %3")
                        .arg(a.pointerText(), JsonReader::describe(*found), a.pattern.pattern());
        } else {
            f.holds = a.pattern.match(found->toString()).hasMatch();
            f.why = Tr::tr("%1 is %2, which does not match %3").arg(a.pointerText(), f.came, a.pattern.pattern());
        }
    }
    return f;
}

Finding checkSchema(const Assertion &a, const AttemptRecord &record, const QByteArray &body)
{
    const ParsedBody parsed = parsedBody(body);
    const QStringList notChecked = a.schema.notChecked();
    if (!parsed.value) {
        const QString why = Tr::tr("the body is not JSON (%1)%2").arg(parsed.error, truncatedNote(record, body));
        return {false, true, Tr::tr("a body that is not JSON"), why, notChecked};
    }
    const JsonSchema::Validation validation = a.schema.validate(*parsed.value);
    if (validation.valid())
        return {true, true, Tr::tr("a valid body"), {}, notChecked};
    QStringList lines;
    for (const JsonSchema::Failure &failure : validation.failures)
        lines.append(failure.text());
    const QString came = Tr::tr("a body with %n failure(s)", nullptr, static_cast<int>(lines.size()));
    const QString why = Tr::tr("the body is not valid against the schema: %1").arg(lines.join(QStringLiteral("; ")));
    return {false, true, came, why, notChecked};
}

Finding check(const Assertion &a, const AttemptRecord &record, const QByteArray &body)
{
    switch (a.kind) {
    case Assertion::Kind::StatusEquals:
    case Assertion::Kind::StatusClass:
    case Assertion::Kind::StatusIn:
        return checkStatus(a, record);
    case Assertion::Kind::ResponseTimeUnder: {
        const double ms = record.durationMs();
        const QString came = Tr::tr("%1 ms").arg(ms, 0, 'f', 1);
        return {ms < a.maxMs, true, came,
            Tr::tr("the response took %1 ms, not under %2 ms").arg(ms, 0, 'f', 1).arg(a.maxMs), {}};
    }
    case Assertion::Kind::HeaderPresent:
    case Assertion::Kind::HeaderEquals:
    case Assertion::Kind::HeaderMatches:
        return checkHeader(a, record);
    case Assertion::Kind::BodyContains: {
        const bool holds = body.contains(a.text.toUtf8());
        const QString why = record.responseBodyTruncated
            ? Tr::tr("the first %1 bytes of the body do not contain \"%2\"").arg(body.size()).arg(a.text)
            : Tr::tr("the body does not contain \"%1\"").arg(a.text);
        return {holds, true,
            (holds ? Tr::tr("a body that contains it") : Tr::tr("a body without it")) + truncatedNote(record, body),
            why, {}};
    }
    case Assertion::Kind::JsonPointerEquals:
    case Assertion::Kind::JsonPointerExists:
    case Assertion::Kind::JsonPointerMatches:
        return checkPointer(a, record, body);
    case Assertion::Kind::Schema:
        return checkSchema(a, record, body);
    }
    return {};
}

} // namespace

AssertionResult evaluate(const Assertion &assertion, const AttemptRecord &record, const QByteArray &body)
{
    const Finding f = check(assertion, record, body);
    AssertionResult result;
    result.name = assertion.displayName();
    result.notChecked = f.notChecked;
    result.passed = f.decided && f.holds != assertion.negate;
    const QString plain = Tr::tr("%1 expected, %2 came").arg(assertion.describe(), f.came);
    if (!f.decided || (!result.passed && !assertion.negate))
        result.message = f.why.isEmpty() ? plain : f.why;
    else
        result.message = plain;
    if (!f.notChecked.isEmpty())
        result.message += Tr::tr(" (not checked: %1)").arg(f.notChecked.join(QStringLiteral(", ")));
    return result;
}

AssertionResult evaluate(const Assertion &assertion, const AttemptRecord &record)
{
    return evaluate(assertion, record, record.responseBody);
}

QList<AssertionResult> evaluateAll(const QList<Assertion> &assertions, const AttemptRecord &record)
{
    QList<AssertionResult> results;
    results.reserve(assertions.size());
    for (const Assertion &assertion : assertions)
        results.append(evaluate(assertion, record));
    return results;
}

} // namespace RetryLab::Core
