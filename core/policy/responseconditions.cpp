#include "core/policy/responseconditions.h"

#include "core/util/coretr.h"
#include "core/util/jsonpointer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QStringList>

namespace RetryLab::Core::ResponseConditions {

namespace {

using Kind = ResponseRetryCondition::Kind;

// A JSON value as one line of text: "PENDING" with its quotes, true, 3, {"a":1}.
QString compactJson(const QJsonValue &value)
{
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

// One JSON value of any type (a bare string, number or literal too).
std::optional<QJsonValue> jsonValueOf(const QString &text)
{
    QJsonParseError error;
    const QJsonDocument document
        = QJsonDocument::fromJson(QByteArrayLiteral("[") + text.toUtf8() + QByteArrayLiteral("]"), &error);
    if (error.error != QJsonParseError::NoError || !document.isArray() || document.array().size() != 1)
        return std::nullopt;
    return document.array().first();
}

// A text with spaces at its ends, or one that starts with a quote, is written as a JSON string.
QString quotedIfNeeded(const QString &text)
{
    if (!text.isEmpty() && text.trimmed() == text && !text.startsWith(QLatin1Char('"')))
        return text;
    return compactJson(text);
}

QString unquoted(const QString &text)
{
    if (text.size() >= 2 && text.startsWith(QLatin1Char('"')) && text.endsWith(QLatin1Char('"'))) {
        if (const auto value = jsonValueOf(text); value && value->isString())
            return value->toString();
    }
    return text;
}

} // namespace

QString kindName(Kind kind)
{
    switch (kind) {
    case Kind::JsonPointer:
        return QStringLiteral("json");
    case Kind::Header:
        return QStringLiteral("header");
    case Kind::BodyContains:
        break;
    }
    return QStringLiteral("body");
}

std::optional<Problem> problemOf(const ResponseRetryCondition &c)
{
    switch (c.kind) {
    case Kind::JsonPointer:
        if (!JsonPointer::isValid(c.jsonPointer)) {
            return Problem{QStringLiteral("jsonPointer"),
                Tr::tr("\"%1\" is not a JSON pointer: it is empty (the whole body) or starts with /, and ~ is "
                       "followed by 0 or 1")
                    .arg(c.jsonPointer.left(80))};
        }
        if (c.equals.isUndefined())
            return Problem{QStringLiteral("equals"), Tr::tr("the value the pointer must equal is missing")};
        break;
    case Kind::Header:
        if (c.header.isEmpty())
            return Problem{QStringLiteral("header"), Tr::tr("the header's name is empty")};
        if (!isToken(QStringView(c.header))) {
            return Problem{QStringLiteral("header"),
                Tr::tr("\"%1\" is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)")
                    .arg(c.header.left(80))};
        }
        break;
    case Kind::BodyContains:
        if (c.bodyText.isEmpty())
            return Problem{QStringLiteral("bodyContains"), Tr::tr("the text is empty: every body contains it")};
        break;
    }
    return std::nullopt;
}

std::optional<Match> match(
    const QList<ResponseRetryCondition> &conditions, const HeaderList &headers, const QByteArray &body)
{
    std::optional<QJsonValue> document; // parsed at the first JSON condition
    for (int i = 0; i < conditions.size(); ++i) {
        const ResponseRetryCondition &c = conditions.at(i);
        switch (c.kind) {
        case Kind::JsonPointer: {
            if (!document) {
                QJsonParseError error;
                const QJsonDocument parsed = QJsonDocument::fromJson(body, &error);
                document = error.error != QJsonParseError::NoError ? QJsonValue(QJsonValue::Undefined)
                    : parsed.isObject()                            ? QJsonValue(parsed.object())
                    : parsed.isArray()                             ? QJsonValue(parsed.array())
                                                                   : QJsonValue(QJsonValue::Undefined);
            }
            if (document->isUndefined())
                break;
            const auto value = JsonPointer::get(*document, c.jsonPointer);
            if (value && *value == c.equals) {
                const QString where = c.jsonPointer.isEmpty() ? Tr::tr("the body") : c.jsonPointer;
                return Match{i, c.kind, Tr::tr("%1 is %2").arg(where, compactJson(*value))};
            }
            break;
        }
        case Kind::Header: {
            const QByteArray name = c.header.toLatin1();
            for (const auto &[headerName, value] : headers) {
                if (headerName.compare(name, Qt::CaseInsensitive) != 0)
                    continue;
                const QString text = QString::fromUtf8(value).trimmed();
                if (!c.headerValue)
                    return Match{i, c.kind, Tr::tr("it carries %1 (\"%2\")").arg(c.header, text.left(80))};
                if (text == *c.headerValue)
                    return Match{i, c.kind, Tr::tr("%1 is \"%2\"").arg(c.header, text.left(80))};
            }
            break;
        }
        case Kind::BodyContains:
            if (!c.bodyText.isEmpty() && body.contains(c.bodyText.toUtf8()))
                return Match{i, c.kind, Tr::tr("the body contains \"%1\"").arg(c.bodyText.left(80))};
            break;
        }
    }
    return std::nullopt;
}

QString formatLine(const ResponseRetryCondition &c)
{
    switch (c.kind) {
    case Kind::JsonPointer:
        return QStringLiteral("json %1 = %2").arg(c.jsonPointer, compactJson(c.equals));
    case Kind::Header:
        if (c.headerValue)
            return QStringLiteral("header %1 = %2").arg(c.header, *c.headerValue);
        return QStringLiteral("header ") + c.header;
    case Kind::BodyContains:
        break;
    }
    return QStringLiteral("body ") + quotedIfNeeded(c.bodyText);
}

QString format(const QList<ResponseRetryCondition> &conditions)
{
    QStringList lines;
    for (const ResponseRetryCondition &c : conditions)
        lines.append(formatLine(c));
    return lines.join(QLatin1Char('\n'));
}

Result<QList<ResponseRetryCondition>> parse(const QString &text)
{
    QList<ResponseRetryCondition> conditions;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (qsizetype n = 0; n < lines.size(); ++n) {
        const QString line = lines.at(n).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        const auto fail = [n](const QString &message) {
            return Result<QList<ResponseRetryCondition>>::failure(Tr::tr("line %1: %2").arg(n + 1).arg(message));
        };
        const qsizetype space = line.indexOf(QLatin1Char(' '));
        const QString word = (space < 0 ? line : line.left(space)).toLower();
        const QString rest = space < 0 ? QString() : line.mid(space + 1).trimmed();
        if (word == QLatin1String("json")) {
            // The pointer ends at the first " = " (or "=" when there is none with spaces).
            qsizetype equals = rest.indexOf(QLatin1String(" = "));
            qsizetype after = equals + 3;
            if (equals < 0) {
                equals = rest.indexOf(QLatin1Char('='));
                after = equals + 1;
            }
            if (equals < 0)
                return fail(Tr::tr("write json POINTER = VALUE, e.g. json /status = \"PENDING\""));
            const auto value = jsonValueOf(rest.mid(after).trimmed());
            if (!value) {
                return fail(Tr::tr("\"%1\" is not a JSON value: write a \"string\" in quotes, a number, true, false "
                                   "or null")
                                .arg(rest.mid(after).trimmed().left(80)));
            }
            conditions.append(ResponseRetryCondition::jsonEquals(rest.left(equals).trimmed(), *value));
        } else if (word == QLatin1String("header")) {
            const qsizetype equals = rest.indexOf(QLatin1Char('='));
            if (rest.isEmpty() || equals == 0)
                return fail(Tr::tr("write header NAME, or header NAME = VALUE"));
            if (equals < 0)
                conditions.append(ResponseRetryCondition::headerPresent(rest));
            else
                conditions.append(
                    ResponseRetryCondition::headerPresent(rest.left(equals).trimmed(), rest.mid(equals + 1).trimmed()));
        } else if (word == QLatin1String("body")) {
            if (rest.isEmpty())
                return fail(Tr::tr("write body TEXT, e.g. body try again"));
            conditions.append(ResponseRetryCondition::bodyContains(unquoted(rest)));
        } else {
            return fail(Tr::tr("\"%1\" is not a kind of condition (json, header or body)").arg(word.left(40)));
        }
    }
    return conditions;
}

} // namespace RetryLab::Core::ResponseConditions
