#include "core/assertions/jsonschema.h"

#include "core/assertions/assertion.h"
#include "core/util/coretr.h"
#include "core/util/jsonpointer.h"
#include "core/util/jsonreader.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

#include <cmath>

namespace RetryLab::Core {

namespace {

// Keywords that only annotate: they change no verdict, so they are neither
// checked nor reported as unchecked.
const QSet<QString> &schemaAnnotations()
{
    static const QSet<QString> names{QStringLiteral("$schema"), QStringLiteral("$id"), QStringLiteral("$comment"),
        QStringLiteral("$anchor"), QStringLiteral("title"), QStringLiteral("description"), QStringLiteral("default"),
        QStringLiteral("examples"), QStringLiteral("deprecated"), QStringLiteral("readOnly"),
        QStringLiteral("writeOnly"), QStringLiteral("$defs")};
    return names;
}

const QStringList &schemaTypeNames()
{
    static const QStringList names{QStringLiteral("null"), QStringLiteral("boolean"), QStringLiteral("object"),
        QStringLiteral("array"), QStringLiteral("number"), QStringLiteral("integer"), QStringLiteral("string")};
    return names;
}

const QString refPrefix = QStringLiteral("#/$defs/");

bool isWholeNumber(const QJsonValue &value)
{
    if (!value.isDouble())
        return false;
    const double d = value.toDouble();
    return std::isfinite(d) && d == std::floor(d);
}

bool hasType(const QJsonValue &value, const QString &type)
{
    if (type == QLatin1String("null"))
        return value.isNull();
    if (type == QLatin1String("boolean"))
        return value.isBool();
    if (type == QLatin1String("object"))
        return value.isObject();
    if (type == QLatin1String("array"))
        return value.isArray();
    if (type == QLatin1String("number"))
        return value.isDouble();
    if (type == QLatin1String("integer"))
        return isWholeNumber(value);
    return value.isString();
}

// The instance's type as the schema names it, for messages ("2.5 is a number").
QString schemaTypeOf(const QJsonValue &value)
{
    if (isWholeNumber(value))
        return QStringLiteral("integer");
    for (const QString &type : schemaTypeNames()) {
        if (hasType(value, type))
            return type;
    }
    return QStringLiteral("undefined");
}

QString escapedToken(QString token)
{
    return token.replace(QLatin1Char('~'), QStringLiteral("~0")).replace(QLatin1Char('/'), QStringLiteral("~1"));
}

qsizetype codePoints(const QString &text)
{
    return text.toUcs4().size();
}

// Reads one (sub)schema, checking that each keyword it knows is well formed
// and gathering the ones it does not know.
class SchemaChecker final
{
public:
    explicit SchemaChecker(const QJsonObject &root) : m_root(root) { }

    QStringList notChecked;

    void check(JsonReader &parent, const JsonReader::Key &key)
    {
        const QJsonValue value = parent.value(key);
        if (value.isBool())
            return;
        if (!value.isObject()) {
            parent.fail(key, Tr::tr("a schema is an object or a boolean, not %1").arg(JsonReader::describe(value)));
            return;
        }
        auto o = parent.object(key, Presence::Required);
        if (!o)
            return;
        checkObject(*o);
    }

    void checkObject(JsonReader &o)
    {
        const QJsonObject &schema = o.object();
        for (auto it = schema.begin(); it != schema.end(); ++it) {
            const QString &k = it.key();
            if (k == QLatin1String("type")) {
                checkType(o);
            } else if (k == QLatin1String("properties") || k == QLatin1String("$defs")) {
                if (auto properties = o.object(k)) {
                    for (const QString &name : properties->object().keys())
                        check(*properties, name);
                }
            } else if (k == QLatin1String("required")) {
                o.strings(k);
            } else if (k == QLatin1String("items")) {
                if (it.value().isArray())
                    o.fail(k, Tr::tr("takes one schema in draft 2020-12 (a list of schemas is prefixItems)"));
                else
                    check(o, k);
            } else if (k == QLatin1String("additionalProperties")) {
                check(o, k);
            } else if (k == QLatin1String("enum")) {
                o.array(k, Presence::Required);
            } else if (k == QLatin1String("const")) {
                // any value
            } else if (k == QLatin1String("minimum") || k == QLatin1String("maximum")
                || k == QLatin1String("exclusiveMinimum") || k == QLatin1String("exclusiveMaximum")) {
                o.number(k);
            } else if (k == QLatin1String("minLength") || k == QLatin1String("maxLength")
                || k == QLatin1String("minItems") || k == QLatin1String("maxItems")) {
                o.integer(k, 0);
            } else if (k == QLatin1String("pattern")) {
                if (const auto text = o.string(k)) {
                    const QRegularExpression expression(*text);
                    if (!expression.isValid())
                        o.fail(k, Tr::tr("not a regular expression: %1").arg(expression.errorString()));
                }
            } else if (k == QLatin1String("$ref")) {
                checkRef(o);
            } else if (!schemaAnnotations().contains(k) && !notChecked.contains(k)) {
                notChecked.append(k);
            }
            if (o.failed())
                return;
        }
    }

private:
    void checkType(JsonReader &o)
    {
        const QJsonValue type = o.value(QStringLiteral("type"));
        const QStringList names = type.isArray() ? o.strings(QStringLiteral("type")).value_or(QStringList())
                                                 : QStringList{o.string(QStringLiteral("type")).value_or(QString())};
        if (o.failed())
            return;
        for (const QString &name : names) {
            if (!schemaTypeNames().contains(name)) {
                o.fail(QStringLiteral("type"),
                    Tr::tr("unknown type \"%1\" (known: %2)").arg(name, schemaTypeNames().join(QStringLiteral(", "))));
                return;
            }
        }
    }

    void checkRef(JsonReader &o)
    {
        const auto ref = o.string(QStringLiteral("$ref"));
        if (!ref)
            return;
        if (!ref->startsWith(refPrefix)) {
            o.fail(QStringLiteral("$ref"),
                Tr::tr("\"%1\" is not supported: only references to \"#/$defs/...\" are").arg(*ref));
            return;
        }
        // Follow a chain of references that are nothing but references: one that
        // comes back to itself would never reach a keyword that checks anything.
        QStringList seen;
        QString current = *ref;
        while (true) {
            const auto target = JsonPointer::get(m_root, current.mid(1));
            if (!target || !(target->isObject() || target->isBool())) {
                o.fail(QStringLiteral("$ref"), Tr::tr("\"%1\" names no schema of $defs").arg(current));
                return;
            }
            if (seen.contains(current)) {
                o.fail(QStringLiteral("$ref"), Tr::tr("\"%1\" refers to itself").arg(current));
                return;
            }
            seen.append(current);
            const QJsonValue next = target->toObject().value(QStringLiteral("$ref"));
            if (!next.isString() || !next.toString().startsWith(refPrefix))
                return;
            current = next.toString();
        }
    }

    QJsonObject m_root;
};

// Checks an instance against a schema already known to be well formed.
class SchemaValidator final
{
public:
    explicit SchemaValidator(const QJsonValue &root) : m_root(root) { }

    QList<JsonSchema::Failure> failures;

    void validate(const QJsonValue &schema, const QJsonValue &instance, const QString &path, int depth = 0)
    {
        if (schema.isBool()) {
            if (!schema.toBool())
                fail(path, QStringLiteral("false"), Tr::tr("the schema false allows nothing here"));
            return;
        }
        const QJsonObject s = schema.toObject();
        if (depth > maxDepth) {
            fail(path, QStringLiteral("$ref"), Tr::tr("references nest more than %1 deep").arg(maxDepth));
            return;
        }
        if (s.contains(QLatin1String("$ref"))) {
            const QString ref = s.value(QLatin1String("$ref")).toString();
            validate(JsonPointer::get(m_root, ref.mid(1)).value_or(QJsonValue(true)), instance, path, depth + 1);
        }
        if (s.contains(QLatin1String("type")))
            validateType(s.value(QLatin1String("type")), instance, path);
        if (s.contains(QLatin1String("enum"))) {
            const QJsonArray options = s.value(QLatin1String("enum")).toArray();
            if (!options.contains(instance))
                fail(path, QStringLiteral("enum"),
                    Tr::tr("'enum' %1: %2 is none of them")
                        .arg(Assertion::jsonText(options), Assertion::jsonText(instance)));
        }
        if (s.contains(QLatin1String("const")) && s.value(QLatin1String("const")) != instance) {
            fail(path, QStringLiteral("const"),
                Tr::tr("'const' %1: %2 differs")
                    .arg(Assertion::jsonText(s.value(QLatin1String("const"))), Assertion::jsonText(instance)));
        }
        if (instance.isDouble())
            validateNumber(s, instance.toDouble(), path);
        if (instance.isString())
            validateString(s, instance.toString(), path);
        if (instance.isArray())
            validateArray(s, instance.toArray(), path, depth);
        if (instance.isObject())
            validateObject(s, instance.toObject(), path, depth);
    }

private:
    static constexpr int maxDepth = 64;

    void fail(const QString &path, const QString &keyword, const QString &message)
    {
        failures.append({path, keyword, message});
    }

    void validateType(const QJsonValue &type, const QJsonValue &instance, const QString &path)
    {
        QStringList names;
        if (type.isArray()) {
            for (const QJsonValue &name : type.toArray())
                names.append(name.toString());
        } else {
            names.append(type.toString());
        }
        for (const QString &name : names) {
            if (hasType(instance, name))
                return;
        }
        fail(path, QStringLiteral("type"),
            Tr::tr("'type' %1: %2 is %3")
                .arg(names.join(QLatin1Char('|')), Assertion::jsonText(instance), schemaTypeOf(instance)));
    }

    void validateNumber(const QJsonObject &s, double n, const QString &path)
    {
        const QString value = Assertion::jsonText(n);
        const auto bound = [&](const char *keyword, bool holds, const QString &what) {
            const QString name = QLatin1String(keyword);
            if (s.contains(name) && !holds) {
                fail(path, name, Tr::tr("'%1' %2: %3 %4").arg(name, Assertion::jsonText(s.value(name)), value, what));
            }
        };
        bound("minimum", n >= s.value(QLatin1String("minimum")).toDouble(), Tr::tr("is less"));
        bound("maximum", n <= s.value(QLatin1String("maximum")).toDouble(), Tr::tr("is more"));
        bound("exclusiveMinimum", n > s.value(QLatin1String("exclusiveMinimum")).toDouble(), Tr::tr("is not more"));
        bound("exclusiveMaximum", n < s.value(QLatin1String("exclusiveMaximum")).toDouble(), Tr::tr("is not less"));
    }

    void validateString(const QJsonObject &s, const QString &text, const QString &path)
    {
        const qsizetype length = codePoints(text);
        const QString quoted = Assertion::jsonText(text);
        if (s.contains(QLatin1String("minLength")) && length < s.value(QLatin1String("minLength")).toInteger()) {
            fail(path, QStringLiteral("minLength"),
                Tr::tr("'minLength' %1: %2 has %3 characters")
                    .arg(s.value(QLatin1String("minLength")).toInteger())
                    .arg(quoted)
                    .arg(length));
        }
        if (s.contains(QLatin1String("maxLength")) && length > s.value(QLatin1String("maxLength")).toInteger()) {
            fail(path, QStringLiteral("maxLength"),
                Tr::tr("'maxLength' %1: %2 has %3 characters")
                    .arg(s.value(QLatin1String("maxLength")).toInteger())
                    .arg(quoted)
                    .arg(length));
        }
        if (s.contains(QLatin1String("pattern"))) {
            const QString pattern = s.value(QLatin1String("pattern")).toString();
            if (!QRegularExpression(pattern).match(text).hasMatch())
                fail(path, QStringLiteral("pattern"), Tr::tr("'pattern' %1: %2 does not match").arg(pattern, quoted));
        }
    }

    void validateArray(const QJsonObject &s, const QJsonArray &array, const QString &path, int depth)
    {
        if (s.contains(QLatin1String("minItems")) && array.size() < s.value(QLatin1String("minItems")).toInteger()) {
            fail(path, QStringLiteral("minItems"),
                Tr::tr("'minItems' %1: %2 items")
                    .arg(s.value(QLatin1String("minItems")).toInteger())
                    .arg(array.size()));
        }
        if (s.contains(QLatin1String("maxItems")) && array.size() > s.value(QLatin1String("maxItems")).toInteger()) {
            fail(path, QStringLiteral("maxItems"),
                Tr::tr("'maxItems' %1: %2 items")
                    .arg(s.value(QLatin1String("maxItems")).toInteger())
                    .arg(array.size()));
        }
        if (s.contains(QLatin1String("items"))) {
            for (qsizetype i = 0; i < array.size(); ++i)
                validate(s.value(QLatin1String("items")), array.at(i), path + QLatin1Char('/') + QString::number(i),
                    depth + 1);
        }
    }

    void validateObject(const QJsonObject &s, const QJsonObject &object, const QString &path, int depth)
    {
        for (const QJsonValue &name : s.value(QLatin1String("required")).toArray()) {
            if (!object.contains(name.toString()))
                fail(path, QStringLiteral("required"), Tr::tr("'required' %1: missing").arg(name.toString()));
        }
        const QJsonObject properties = s.value(QLatin1String("properties")).toObject();
        const bool hasAdditional = s.contains(QLatin1String("additionalProperties"));
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString childPath = path + QLatin1Char('/') + escapedToken(it.key());
            if (properties.contains(it.key())) {
                validate(properties.value(it.key()), it.value(), childPath, depth + 1);
            } else if (hasAdditional) {
                const QJsonValue additional = s.value(QLatin1String("additionalProperties"));
                if (additional.isBool() && !additional.toBool())
                    fail(childPath, QStringLiteral("additionalProperties"),
                        Tr::tr("'additionalProperties' false: %1 is not one of the properties").arg(it.key()));
                else
                    validate(additional, it.value(), childPath, depth + 1);
            }
        }
    }

    QJsonValue m_root;
};

} // namespace

QString JsonSchema::Failure::text() const
{
    return (instancePath.isEmpty() ? QStringLiteral("(root)") : instancePath) + QStringLiteral(": ") + message;
}

Result<JsonSchema> JsonSchema::parse(const QJsonValue &schema)
{
    JsonSchema out;
    out.m_source = schema;
    if (schema.isBool())
        return out;
    if (!schema.isObject())
        return Result<JsonSchema>::failure(
            Tr::tr("a schema is an object or a boolean, not %1").arg(JsonReader::describe(schema)));
    JsonReader r(schema.toObject());
    SchemaChecker checker(schema.toObject());
    checker.checkObject(r);
    if (r.failed())
        return Result<JsonSchema>(r.firstError());
    out.m_notChecked = checker.notChecked;
    return out;
}

JsonSchema::Validation JsonSchema::validate(const QJsonValue &instance) const
{
    SchemaValidator validator(m_source);
    validator.validate(m_source, instance, QString());
    return {validator.failures, m_notChecked};
}

} // namespace RetryLab::Core
