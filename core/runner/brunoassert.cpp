#include "core/runner/brunoassert.h"

#include "core/util/coretr.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QStringList>

namespace RetryLab::Core::BrunoAssert {

Q_LOGGING_CATEGORY(lcBrunoAssert, "retrylab.core.brunoassert")

namespace {

const QString &variableCall()
{
    static const QString name = QStringLiteral("__bruVar(");
    return name;
}

const QString &valueCall()
{
    static const QString name = QStringLiteral("__bruValue(");
    return name;
}

const QRegularExpression &referencePattern()
{
    static const QRegularExpression pattern(QStringLiteral(R"(\{\{([^{}]+)\}\})"));
    return pattern;
}

bool isQuoted(const QString &text, QChar quote)
{
    return text.size() >= 2 && text.startsWith(quote) && text.endsWith(quote);
}

// "a{{x}}b" -> "a" + __bruVar("x") + "b": a string built when the test runs.
QString interpolated(const QString &text)
{
    QStringList parts;
    qsizetype from = 0;
    QRegularExpressionMatchIterator it = referencePattern().globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        if (match.capturedStart() > from)
            parts.append(jsString(text.mid(from, match.capturedStart() - from)));
        parts.append(variableCall() + jsString(match.captured(1).trimmed()) + QLatin1Char(')'));
        from = match.capturedEnd();
    }
    if (from < text.size())
        parts.append(jsString(text.mid(from)));
    // String() so that a lone variable holding a number is text for __bruValue.
    return QStringLiteral("String(") + parts.join(QStringLiteral(" + ")) + QLatin1Char(')');
}

bool hasReference(const QString &text)
{
    return referencePattern().match(text).hasMatch();
}

// The text a string operator (matches, startsWith) works on: quotes taken off.
QString unquoted(const QString &text)
{
    if (isQuoted(text, QLatin1Char('"')) || isQuoted(text, QLatin1Char('\'')))
        return text.mid(1, text.size() - 2);
    return text;
}

// A string-valued expression of `text`, unquoted, its references looked up.
QString stringExpression(const QString &text)
{
    const QString inner = unquoted(text.trimmed());
    return hasReference(inner) ? interpolated(inner) : jsString(inner);
}

// One value of a right-hand side as a JavaScript expression, typed as Bruno types it.
QString valueExpression(const QString &written)
{
    static const QRegularExpression number(QStringLiteral(R"(^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$)"));
    const QString text = written.trimmed();
    if (isQuoted(text, QLatin1Char('"')) || isQuoted(text, QLatin1Char('\'')))
        return stringExpression(text);
    if (hasReference(text))
        return valueCall() + interpolated(text) + QLatin1Char(')');
    if (text == QLatin1String("true") || text == QLatin1String("false") || text == QLatin1String("null")
        || text == QLatin1String("undefined") || number.match(text).hasMatch())
        return text;
    if (text.startsWith(QLatin1Char('[')) || text.startsWith(QLatin1Char('{'))) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &error);
        if (error.error == QJsonParseError::NoError)
            return QString::fromUtf8(document.toJson(QJsonDocument::Compact));
    }
    return jsString(text);
}

// "[200, 201]" or "200, 201" -> "[200, 201]".
QString listExpression(const QString &written)
{
    QString text = written.trimmed();
    if (text.startsWith(QLatin1Char('[')) && text.endsWith(QLatin1Char(']')))
        text = text.mid(1, text.size() - 2);
    QStringList values;
    for (const QString &value : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        if (!value.trimmed().isEmpty())
            values.append(valueExpression(value));
    }
    return QLatin1Char('[') + values.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString escapedForRegExp(const QString &text)
{
    static const QString special = QStringLiteral(".*+?^${}()|[]\\/");
    QString escaped;
    for (const QChar c : text) {
        if (special.contains(c))
            escaped += QLatin1Char('\\');
        escaped += c;
    }
    return escaped;
}

// A RegExp for `matches`: "/a+/i" with its flags, or the text as the pattern.
QString regExpExpression(const QString &written)
{
    static const QRegularExpression literal(QStringLiteral(R"(^/(.*)/([dgimsuy]*)$)"));
    const QString text = unquoted(written.trimmed());
    const QRegularExpressionMatch match = literal.match(text);
    if (match.hasMatch() && !hasReference(text)) {
        return QStringLiteral("new RegExp(%1, %2)").arg(jsString(match.captured(1)), jsString(match.captured(2)));
    }
    return QStringLiteral("new RegExp(%1)").arg(stringExpression(text));
}

// startsWith and endsWith through to.match, whose message names both sides.
QString anchoredExpression(const QString &written, bool atStart)
{
    const QString text = unquoted(written.trimmed());
    if (!hasReference(text)) {
        const QString pattern = escapedForRegExp(text);
        return QStringLiteral("new RegExp(%1)")
            .arg(jsString(atStart ? QString(QLatin1Char('^') + pattern) : QString(pattern + QLatin1Char('$'))));
    }
    const QString escaped = interpolated(text) + QStringLiteral(R"(.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&"))");
    return atStart ? QStringLiteral("new RegExp(\"^\" + %1)").arg(escaped)
                   : QStringLiteral("new RegExp(%1 + \"$\")").arg(escaped);
}

struct Operator
{
    QString name;
    QString rest;
};

const QStringList &operatorNames()
{
    static const QStringList names{QStringLiteral("eq"), QStringLiteral("neq"), QStringLiteral("gt"),
        QStringLiteral("gte"), QStringLiteral("lt"), QStringLiteral("lte"), QStringLiteral("in"),
        QStringLiteral("notIn"), QStringLiteral("contains"), QStringLiteral("notContains"), QStringLiteral("length"),
        QStringLiteral("matches"), QStringLiteral("notMatches"), QStringLiteral("startsWith"),
        QStringLiteral("endsWith"), QStringLiteral("between"), QStringLiteral("isEmpty"), QStringLiteral("isNull"),
        QStringLiteral("isUndefined"), QStringLiteral("isDefined"), QStringLiteral("isTruthy"),
        QStringLiteral("isFalsy"), QStringLiteral("isJson"), QStringLiteral("isNumber"), QStringLiteral("isString"),
        QStringLiteral("isBoolean"), QStringLiteral("isArray")};
    return names;
}

// As Bruno: the first word when it is an operator, else "eq" and the whole value.
Operator operatorOf(const QString &rhs)
{
    const QString text = rhs.trimmed();
    const qsizetype space = text.indexOf(QLatin1Char(' '));
    const QString first = space < 0 ? text : text.left(space);
    if (operatorNames().contains(first))
        return {first, space < 0 ? QString() : text.mid(space + 1).trimmed()};
    return {QStringLiteral("eq"), text};
}

// The chai chain after expect(lhs) for `op`, or an empty string when the
// right-hand side does not fit it (`reason` says why).
QString chain(const Operator &op, QString &reason)
{
    static const QHash<QString, QString> unary{
        {QStringLiteral("isEmpty"), QStringLiteral(".to.be.empty")},
        {QStringLiteral("isNull"), QStringLiteral(".to.be.null")},
        {QStringLiteral("isUndefined"), QStringLiteral(".to.be.undefined")},
        {QStringLiteral("isDefined"), QStringLiteral(".to.not.be.undefined")},
        {QStringLiteral("isTruthy"), QStringLiteral(".to.be.ok")},
        {QStringLiteral("isFalsy"), QStringLiteral(".to.not.be.ok")},
        {QStringLiteral("isNumber"), QStringLiteral(".to.be.a(\"number\")")},
        {QStringLiteral("isString"), QStringLiteral(".to.be.a(\"string\")")},
        {QStringLiteral("isBoolean"), QStringLiteral(".to.be.a(\"boolean\")")},
        {QStringLiteral("isArray"), QStringLiteral(".to.be.an(\"array\")")},
        // Bruno's isJson: a plain object (what a JSON object body parses to).
        {QStringLiteral("isJson"),
            QStringLiteral(".to.satisfy(function (value) { return Object.prototype.toString.call(value) === "
                           "\"[object Object]\"; })")},
    };
    static const QHash<QString, QString> binary{
        {QStringLiteral("eq"), QStringLiteral(".to.eql(%1)")},
        {QStringLiteral("neq"), QStringLiteral(".to.not.eql(%1)")},
        {QStringLiteral("gt"), QStringLiteral(".to.be.above(%1)")},
        {QStringLiteral("gte"), QStringLiteral(".to.be.at.least(%1)")},
        {QStringLiteral("lt"), QStringLiteral(".to.be.below(%1)")},
        {QStringLiteral("lte"), QStringLiteral(".to.be.at.most(%1)")},
        {QStringLiteral("contains"), QStringLiteral(".to.include(%1)")},
        {QStringLiteral("notContains"), QStringLiteral(".to.not.include(%1)")},
        {QStringLiteral("length"), QStringLiteral(".to.have.lengthOf(%1)")},
    };
    if (const auto found = unary.constFind(op.name); found != unary.cend())
        return *found;
    if (op.rest.isEmpty()) {
        reason = Tr::tr("%1 needs a value").arg(op.name);
        return {};
    }
    if (const auto found = binary.constFind(op.name); found != binary.cend())
        return found->arg(valueExpression(op.rest));
    if (op.name == QLatin1String("in"))
        return QStringLiteral(".to.be.oneOf(%1)").arg(listExpression(op.rest));
    if (op.name == QLatin1String("notIn"))
        return QStringLiteral(".to.not.be.oneOf(%1)").arg(listExpression(op.rest));
    if (op.name == QLatin1String("matches"))
        return QStringLiteral(".to.match(%1)").arg(regExpExpression(op.rest));
    if (op.name == QLatin1String("notMatches"))
        return QStringLiteral(".to.not.match(%1)").arg(regExpExpression(op.rest));
    if (op.name == QLatin1String("startsWith") || op.name == QLatin1String("endsWith"))
        return QStringLiteral(".to.match(%1)").arg(anchoredExpression(op.rest, op.name == QLatin1String("startsWith")));
    // between
    const QStringList bounds = op.rest.split(QLatin1Char(','));
    if (bounds.size() != 2 || bounds.at(0).trimmed().isEmpty() || bounds.at(1).trimmed().isEmpty()) {
        reason = Tr::tr("between needs two values, as \"between 1, 10\"");
        return {};
    }
    return QStringLiteral(".to.be.within(%1, %2)").arg(valueExpression(bounds.at(0)), valueExpression(bounds.at(1)));
}

} // namespace

std::optional<Assertion> statusAssertion(const QString &lhs, const QString &rhs)
{
    static const QRegularExpression code(QStringLiteral(R"(^[1-5]\d\d$)"));
    if (lhs.trimmed() != QLatin1String("res.status"))
        return std::nullopt;
    const Operator op = operatorOf(rhs);
    if (op.name != QLatin1String("eq") || !code.match(op.rest).hasMatch())
        return std::nullopt;
    Assertion assertion;
    assertion.kind = Assertion::Kind::StatusEquals;
    assertion.statuses = {op.rest.toInt()};
    assertion.statusText = op.rest;
    assertion.name = lhs.trimmed() + QStringLiteral(": ") + rhs.trimmed();
    return assertion;
}

QString testScript(const QString &lhs, const QString &rhs)
{
    const QString name = jsString(lhs.trimmed() + QStringLiteral(": ") + rhs.trimmed());
    QString reason;
    const QString tail = chain(operatorOf(rhs), reason);
    if (tail.isEmpty()) {
        // A test that fails says what is wrong where the results are read.
        qCDebug(lcBrunoAssert) << "assert that cannot run:" << lhs << rhs << reason;
        return QStringLiteral("test(%1, function () { throw new Error(%2); });").arg(name, jsString(reason));
    }
    return QStringLiteral("test(%1, function () { expect(%2)%3; });").arg(name, lhs.trimmed(), tail);
}

bool needsHelpers(const QString &script)
{
    return script.contains(variableCall()) || script.contains(valueCall());
}

QString helperScript()
{
    return QStringLiteral(
        "function __bruVar(name) { var value = bru.getVar(name); return value === undefined || value === null ? "
        "bru.getEnvVar(name) : value; } "
        "function __bruValue(text) { if (text === \"true\") return true; if (text === \"false\") return false; "
        "if (text === \"null\") return null; if (text === \"undefined\") return undefined; "
        "if (text.trim() !== \"\" && !isNaN(Number(text))) return Number(text); return text; }");
}

QString setVarScript(const QString &name, const QString &expression)
{
    const QString value = expression.trimmed();
    return QStringLiteral("bru.setVar(%1, %2);")
        .arg(jsString(name), value.isEmpty() ? QStringLiteral("undefined") : value);
}

QString jsString(const QString &text)
{
    QString quoted;
    quoted.reserve(text.size() + 2);
    quoted += QLatin1Char('"');
    for (const QChar c : text) {
        switch (c.unicode()) {
        case '"':
            quoted += QStringLiteral("\\\"");
            break;
        case '\\':
            quoted += QStringLiteral("\\\\");
            break;
        case '\n':
            quoted += QStringLiteral("\\n");
            break;
        case '\r':
            quoted += QStringLiteral("\\r");
            break;
        case '\t':
            quoted += QStringLiteral("\\t");
            break;
        default:
            // Control characters, and the two line terminators JavaScript does not
            // allow raw in a string literal before ES2019.
            if (c.unicode() < 0x20 || c.unicode() == 0x2028 || c.unicode() == 0x2029)
                quoted += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            else
                quoted += c;
        }
    }
    quoted += QLatin1Char('"');
    return quoted;
}

} // namespace RetryLab::Core::BrunoAssert
