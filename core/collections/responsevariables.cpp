#include "core/collections/responsevariables.h"

#include "core/collections/jsontext.h"
#include "core/collections/variables.h"
#include "core/record/attemptrecord.h"
#include "core/util/coretr.h"
#include "core/util/jsonpointer.h"
#include "core/util/jsonreader.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QRegularExpression>

namespace RetryLab::Core {

namespace {

using RuleSource = ResponseVariables::Rule::Source;

const QList<RuleSource> &allSources()
{
    static const QList<RuleSource> all{
        RuleSource::JsonPointer, RuleSource::Header, RuleSource::Regex, RuleSource::Status};
    return all;
}

QString fieldOf(RuleSource source)
{
    switch (source) {
    case RuleSource::JsonPointer:
        return QStringLiteral("pointer");
    case RuleSource::Header:
        return QStringLiteral("header");
    case RuleSource::Regex:
        return QStringLiteral("pattern");
    case RuleSource::Status:
        break;
    }
    return {};
}

// The body parsed once for every pointer rule: the document, or why there is none.
struct ParsedBody
{
    bool parsed = false;
    std::optional<QJsonValue> document;
    QString problem;
};

void parseBody(const QByteArray &body, ParsedBody *out)
{
    if (out->parsed)
        return;
    out->parsed = true;
    if (body.trimmed().isEmpty()) {
        out->problem = Tr::tr("the body is empty");
        return;
    }
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError) {
        out->problem
            = Tr::tr("the body is not JSON (%1: %2)").arg(lineAndColumn(body, error.offset), error.errorString());
        return;
    }
    out->document = document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object());
}

ResponseVariables::Outcome applyRules(const QList<ResponseVariables::Rule> &rules, std::optional<int> status,
    const HeaderList &headers, const QByteArray &body, bool truncated)
{
    ResponseVariables::Outcome outcome;
    ParsedBody parsed;
    const QString bodyText = QString::fromUtf8(body);
    const QString partly
        = truncated ? Tr::tr(" (only the first %1 bytes of the body were kept)").arg(body.size()) : QString();
    for (const ResponseVariables::Rule &rule : rules) {
        std::optional<QString> value;
        QString problem;
        switch (rule.from) {
        case RuleSource::JsonPointer: {
            parseBody(body, &parsed);
            const QString shown = rule.pointer.isEmpty() ? Tr::tr("the pointer \"\"") : rule.pointer;
            if (!parsed.document) {
                problem = Tr::tr("%1, so %2 is not in it").arg(parsed.problem, shown);
            } else if (const auto found = JsonPointer::get(*parsed.document, rule.pointer)) {
                value = JsonText::variableText(*found);
            } else {
                problem = Tr::tr("%1 is not in the body").arg(shown) + partly;
            }
            break;
        }
        case RuleSource::Header:
            if (const auto found = headerValue(headers, rule.header.toLatin1()))
                value = QString::fromUtf8(*found);
            else
                problem = Tr::tr("the response has no %1 header").arg(rule.header);
            break;
        case RuleSource::Regex: {
            const QRegularExpression expression(rule.pattern);
            const QRegularExpressionMatch match = expression.match(bodyText);
            if (!match.hasMatch())
                problem = Tr::tr("%1 does not match the body").arg(rule.pattern) + partly;
            else if (expression.captureCount() == 0)
                value = match.captured(0);
            else if (match.capturedStart(1) >= 0)
                value = match.captured(1);
            else
                problem = Tr::tr("%1 matches the body, but its first group takes no part").arg(rule.pattern);
            break;
        }
        case RuleSource::Status:
            if (status)
                value = QString::number(*status);
            else
                problem = Tr::tr("no response came, so there is no status");
            break;
        }
        if (value)
            outcome.values.insert(rule.name, *value);
        else
            outcome.problems.append(QStringLiteral("%1: %2").arg(rule.name, problem));
    }
    return outcome;
}

} // namespace

QString ResponseVariables::sourceName(Rule::Source source)
{
    switch (source) {
    case Rule::Source::JsonPointer:
        return QStringLiteral("jsonPointer");
    case Rule::Source::Header:
        return QStringLiteral("header");
    case Rule::Source::Regex:
        return QStringLiteral("regex");
    case Rule::Source::Status:
        return QStringLiteral("status");
    }
    return {};
}

Result<ResponseVariables::Rule> ResponseVariables::ruleFromJson(const QJsonObject &object, const QString &path)
{
    JsonReader reader(object, path);
    Rule rule;
    const QString nameKey = QStringLiteral("name");
    rule.name = reader.string(nameKey, Presence::Required).value_or(QString());
    if (!reader.failed() && !Variables::isValidName(rule.name)) {
        reader.fail(nameKey,
            Tr::tr("\"%1\" is not a variable name (letters, digits, '_', '-' and '.', starting with a letter or '_')")
                .arg(rule.name));
    }
    const auto from = reader.named(QStringLiteral("from"), allSources(), &ResponseVariables::sourceName,
        Presence::Required, Tr::tr("unknown source \"%1\" (known: %2)"));
    if (reader.failed() || !from)
        return reader.result(rule);
    rule.from = *from;
    QStringList known{nameKey, QStringLiteral("from")};
    const QString field = fieldOf(rule.from);
    if (!field.isEmpty())
        known.append(field);
    reader.rejectUnknown(known);
    if (reader.failed())
        return reader.result(rule);
    switch (rule.from) {
    case RuleSource::JsonPointer:
        rule.pointer = reader.string(field, Presence::Required).value_or(QString());
        if (!reader.failed() && !JsonPointer::isValid(rule.pointer))
            reader.fail(field, Tr::tr("\"%1\" is not a JSON pointer (\"\" or \"/a/0/b\")").arg(rule.pointer));
        break;
    case RuleSource::Header:
        rule.header = reader.string(field, Presence::Required).value_or(QString());
        if (!reader.failed() && !isToken(QStringView(rule.header)))
            reader.fail(field, Tr::tr("\"%1\" is not a header name").arg(rule.header));
        break;
    case RuleSource::Regex: {
        rule.pattern = reader.string(field, Presence::Required).value_or(QString());
        const QRegularExpression expression(rule.pattern);
        if (!reader.failed() && !expression.isValid()) {
            reader.fail(field,
                Tr::tr("not a valid regular expression: %1 at character %2")
                    .arg(expression.errorString())
                    .arg(expression.patternErrorOffset()));
        }
        break;
    }
    case RuleSource::Status:
        break;
    }
    return reader.result(rule);
}

Result<ResponseVariables> ResponseVariables::fromJson(const QJsonArray &array, const QString &path)
{
    JsonReader reader(array, path);
    QList<Rule> rules;
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (!array.at(i).isObject())
            return Result<ResponseVariables>::failure(reader.pathOf(i), Tr::tr("must be an object"));
        auto rule = ruleFromJson(array.at(i).toObject(), reader.pathOf(i));
        if (!rule)
            return Result<ResponseVariables>(rule.errorDetail());
        rules.append(std::move(rule).value());
    }
    return ResponseVariables(std::move(rules));
}

QJsonObject ResponseVariables::ruleToJson(const Rule &rule)
{
    QJsonObject object{{QStringLiteral("name"), rule.name}, {QStringLiteral("from"), sourceName(rule.from)}};
    switch (rule.from) {
    case Rule::Source::JsonPointer:
        object.insert(fieldOf(rule.from), rule.pointer);
        break;
    case Rule::Source::Header:
        object.insert(fieldOf(rule.from), rule.header);
        break;
    case Rule::Source::Regex:
        object.insert(fieldOf(rule.from), rule.pattern);
        break;
    case Rule::Source::Status:
        break;
    }
    return object;
}

QJsonArray ResponseVariables::toJson() const
{
    QJsonArray array;
    for (const Rule &rule : m_rules)
        array.append(ruleToJson(rule));
    return array;
}

ResponseVariables::Outcome ResponseVariables::apply(
    std::optional<int> status, const HeaderList &headers, const QByteArray &body) const
{
    return applyRules(m_rules, status, headers, body, false);
}

ResponseVariables::Outcome ResponseVariables::apply(const AttemptRecord &attempt) const
{
    return applyRules(
        m_rules, attempt.httpStatus, attempt.responseHeaders, attempt.responseBody, attempt.responseBodyTruncated);
}

} // namespace RetryLab::Core
