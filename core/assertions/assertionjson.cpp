#include "core/assertions/assertionjson.h"

#include "core/http/httpheaders.h"
#include "core/http/httpstatuslist.h"
#include "core/util/coretr.h"
#include "core/util/jsonpointer.h"

namespace RetryLab::Core {

namespace {

const QStringList &assertionKinds()
{
    static const QStringList kinds{QStringLiteral("status"), QStringLiteral("responseTime"), QStringLiteral("header"),
        QStringLiteral("body"), QStringLiteral("jsonPointer"), QStringLiteral("schema")};
    return kinds;
}

const QString commonKeys[] = {QStringLiteral("kind"), QStringLiteral("not"), QStringLiteral("name")};

QStringList keysWith(std::initializer_list<QString> own)
{
    QStringList keys(std::begin(commonKeys), std::end(commonKeys));
    keys.append(QStringList(own));
    return keys;
}

// Exactly one of `operators` must be present; returns it, or nothing after an error.
std::optional<QString> oneOperator(JsonReader &o, const QStringList &operators)
{
    QStringList present;
    for (const QString &key : operators) {
        if (o.contains(key))
            present.append(key);
    }
    if (present.size() == 1)
        return present.constFirst();
    const QString kind = o.value(QStringLiteral("kind")).toString();
    o.failHere(present.isEmpty()
            ? Tr::tr("a %1 assertion has one of %2").arg(kind, operators.join(QStringLiteral(", ")))
            : Tr::tr("a %1 assertion has one of %2, not several (%3)")
                  .arg(kind, operators.join(QStringLiteral(", ")), present.join(QStringLiteral(", "))));
    return std::nullopt;
}

std::optional<QRegularExpression> readPattern(JsonReader &o, const QString &key)
{
    const auto text = o.string(key, Presence::Required);
    if (!text)
        return std::nullopt;
    QRegularExpression expression(*text);
    if (!expression.isValid()) {
        o.fail(key,
            Tr::tr("not a regular expression: %1 at %2")
                .arg(expression.errorString())
                .arg(expression.patternErrorOffset()));
        return std::nullopt;
    }
    return expression;
}

// "exists" is only ever true: an absence is written as "not", so that each
// assertion has one way to be written.
void readExists(JsonReader &o)
{
    const auto exists = o.boolean(QStringLiteral("exists"), Presence::Required);
    if (exists && !*exists)
        o.fail(QStringLiteral("exists"), Tr::tr("is true or left out; for an absence write \"not\": true"));
}

bool readStatus(JsonReader &o, Assertion &a)
{
    o.rejectUnknown(keysWith({QStringLiteral("equals"), QStringLiteral("class"), QStringLiteral("in")}));
    const auto op = oneOperator(o, {QStringLiteral("equals"), QStringLiteral("class"), QStringLiteral("in")});
    if (!op || o.failed())
        return false;
    if (*op == QLatin1String("equals")) {
        const auto code = o.integer(*op, 100, 599, Presence::Required);
        if (!code)
            return false;
        a.kind = Assertion::Kind::StatusEquals;
        a.statuses = {static_cast<int>(*code)};
        a.statusText = QString::number(*code);
        return true;
    }
    if (*op == QLatin1String("class")) {
        const auto text = o.string(*op, Presence::Required);
        if (!text)
            return false;
        static const QRegularExpression classPattern(QStringLiteral("^[1-5]xx$"));
        if (!classPattern.match(*text).hasMatch()) {
            o.fail(*op, Tr::tr("\"%1\" is not a status class (1xx to 5xx)").arg(*text));
            return false;
        }
        a.kind = Assertion::Kind::StatusClass;
        a.statuses = *HttpStatusList::parse(*text);
        a.statusText = *text;
        return true;
    }
    a.kind = Assertion::Kind::StatusIn;
    if (o.value(*op).isArray()) {
        const auto codes = o.integers(*op, 100, 599);
        if (!codes)
            return false;
        for (qint64 code : *codes)
            a.statuses.insert(static_cast<int>(code));
        a.statusText = HttpStatusList::format(a.statuses);
    } else {
        const auto text = o.string(*op, Presence::Required);
        if (!text)
            return false;
        auto parsed = HttpStatusList::parse(*text);
        if (!parsed) {
            o.fail(*op, parsed.errorDetail().message);
            return false;
        }
        a.statuses = *parsed;
        a.statusText = text->trimmed();
    }
    if (a.statuses.isEmpty()) {
        o.fail(*op, Tr::tr("names no status"));
        return false;
    }
    return true;
}

bool readKind(JsonReader &o, const QString &kind, Assertion &a)
{
    if (kind == QLatin1String("status"))
        return readStatus(o, a);
    if (kind == QLatin1String("responseTime")) {
        o.rejectUnknown(keysWith({QStringLiteral("underMs")}));
        const auto ms = o.number(QStringLiteral("underMs"), 1.0, 3'600'000.0, Presence::Required);
        if (!ms)
            return false;
        a.kind = Assertion::Kind::ResponseTimeUnder;
        a.maxMs = *ms;
        return !o.failed();
    }
    if (kind == QLatin1String("header")) {
        o.rejectUnknown(keysWith(
            {QStringLiteral("header"), QStringLiteral("exists"), QStringLiteral("equals"), QStringLiteral("matches")}));
        if (o.failed())
            return false;
        const auto header = o.string(QStringLiteral("header"), Presence::Required);
        if (!header)
            return false;
        if (!isToken(QStringView(*header))) {
            o.fail(QStringLiteral("header"), Tr::tr("\"%1\" is not a header name").arg(*header));
            return false;
        }
        a.header = header->toLatin1();
        const auto op = oneOperator(o, {QStringLiteral("exists"), QStringLiteral("equals"), QStringLiteral("matches")});
        if (!op)
            return false;
        if (*op == QLatin1String("exists")) {
            a.kind = Assertion::Kind::HeaderPresent;
            readExists(o);
        } else if (*op == QLatin1String("equals")) {
            a.kind = Assertion::Kind::HeaderEquals;
            a.text = o.string(*op, Presence::Required).value_or(QString());
        } else {
            a.kind = Assertion::Kind::HeaderMatches;
            a.pattern = readPattern(o, *op).value_or(QRegularExpression());
        }
        return !o.failed();
    }
    if (kind == QLatin1String("body")) {
        o.rejectUnknown(keysWith({QStringLiteral("contains")}));
        const auto text = o.string(QStringLiteral("contains"), Presence::Required);
        if (!text)
            return false;
        if (text->isEmpty()) {
            o.fail(QStringLiteral("contains"), Tr::tr("an empty text is in every body; give the text to look for"));
            return false;
        }
        a.kind = Assertion::Kind::BodyContains;
        a.text = *text;
        return !o.failed();
    }
    if (kind == QLatin1String("jsonPointer")) {
        o.rejectUnknown(keysWith({QStringLiteral("pointer"), QStringLiteral("equals"), QStringLiteral("exists"),
            QStringLiteral("matches")}));
        const auto pointer = o.string(QStringLiteral("pointer"), Presence::Required);
        if (!pointer)
            return false;
        if (!JsonPointer::isValid(*pointer)) {
            o.fail(QStringLiteral("pointer"),
                Tr::tr("\"%1\" is not a JSON pointer (RFC 6901: \"\" or \"/a/0/b\")").arg(*pointer));
            return false;
        }
        a.pointer = *pointer;
        const auto op = oneOperator(o, {QStringLiteral("equals"), QStringLiteral("exists"), QStringLiteral("matches")});
        if (!op)
            return false;
        if (*op == QLatin1String("equals")) {
            a.kind = Assertion::Kind::JsonPointerEquals;
            a.expected = o.value(*op);
        } else if (*op == QLatin1String("exists")) {
            a.kind = Assertion::Kind::JsonPointerExists;
            readExists(o);
        } else {
            a.kind = Assertion::Kind::JsonPointerMatches;
            a.pattern = readPattern(o, *op).value_or(QRegularExpression());
        }
        return !o.failed();
    }
    o.rejectUnknown(keysWith({QStringLiteral("schema")}));
    if (!o.require(QStringLiteral("schema")))
        return false;
    auto schema = JsonSchema::parse(o.value(QStringLiteral("schema")));
    if (!schema) {
        o.fail(QStringLiteral("schema"), schema.errorDetail());
        return false;
    }
    a.kind = Assertion::Kind::Schema;
    a.schema = *schema;
    return !o.failed();
}

QString kindName(Assertion::Kind kind)
{
    switch (kind) {
    case Assertion::Kind::StatusEquals:
    case Assertion::Kind::StatusClass:
    case Assertion::Kind::StatusIn:
        return QStringLiteral("status");
    case Assertion::Kind::ResponseTimeUnder:
        return QStringLiteral("responseTime");
    case Assertion::Kind::HeaderPresent:
    case Assertion::Kind::HeaderEquals:
    case Assertion::Kind::HeaderMatches:
        return QStringLiteral("header");
    case Assertion::Kind::BodyContains:
        return QStringLiteral("body");
    case Assertion::Kind::JsonPointerEquals:
    case Assertion::Kind::JsonPointerExists:
    case Assertion::Kind::JsonPointerMatches:
        return QStringLiteral("jsonPointer");
    case Assertion::Kind::Schema:
        return QStringLiteral("schema");
    }
    return {};
}

} // namespace

std::optional<Assertion> AssertionJson::readOne(JsonReader &o)
{
    const auto kind = o.string(QStringLiteral("kind"), Presence::Required);
    if (!kind)
        return std::nullopt;
    if (!assertionKinds().contains(*kind)) {
        const auto close = JsonReader::closestName(*kind, assertionKinds());
        o.fail(QStringLiteral("kind"),
            close ? Tr::tr("unknown kind \"%1\"; did you mean \"%2\"?").arg(*kind, *close)
                  : Tr::tr("unknown kind \"%1\" (known: %2)").arg(*kind, assertionKinds().join(QStringLiteral(", "))));
        return std::nullopt;
    }
    Assertion a;
    a.negate = o.boolean(QStringLiteral("not")).value_or(false);
    a.name = o.string(QStringLiteral("name")).value_or(QString());
    if (o.failed() || !readKind(o, *kind, a) || o.failed())
        return std::nullopt;
    return a;
}

std::optional<QList<Assertion>> AssertionJson::read(JsonReader &r, const QString &key)
{
    auto list = r.array(key);
    if (!list)
        return r.failed() ? std::nullopt : std::optional<QList<Assertion>>(QList<Assertion>{});
    QList<Assertion> out;
    for (qsizetype i = 0; i < list->size(); ++i) {
        auto o = list->object(i, Presence::Required);
        if (!o)
            return std::nullopt;
        auto a = readOne(*o);
        if (!a)
            return std::nullopt;
        out.append(*a);
    }
    return out;
}

Result<QList<Assertion>> AssertionJson::read(const QJsonArray &array)
{
    JsonReader r(QJsonObject{{QStringLiteral("assertions"), array}});
    const auto list = read(r, QStringLiteral("assertions"));
    if (!list) {
        // The array is the whole input here: its elements are "[2]", not "assertions[2]".
        Error error = r.firstError();
        error.path = error.path.mid(QStringLiteral("assertions").size());
        return error;
    }
    return *list;
}

QJsonObject AssertionJson::write(const Assertion &a)
{
    QJsonObject o{{QStringLiteral("kind"), kindName(a.kind)}};
    if (!a.name.isEmpty())
        o.insert(QStringLiteral("name"), a.name);
    if (a.negate)
        o.insert(QStringLiteral("not"), true);
    switch (a.kind) {
    case Assertion::Kind::StatusEquals:
        o.insert(QStringLiteral("equals"), a.statuses.isEmpty() ? 0 : *a.statuses.constBegin());
        break;
    case Assertion::Kind::StatusClass:
        o.insert(QStringLiteral("class"), a.statusText);
        break;
    case Assertion::Kind::StatusIn:
        o.insert(QStringLiteral("in"), a.statusText);
        break;
    case Assertion::Kind::ResponseTimeUnder:
        o.insert(QStringLiteral("underMs"), a.maxMs);
        break;
    case Assertion::Kind::HeaderPresent:
        o.insert(QStringLiteral("header"), QString::fromLatin1(a.header));
        o.insert(QStringLiteral("exists"), true);
        break;
    case Assertion::Kind::HeaderEquals:
        o.insert(QStringLiteral("header"), QString::fromLatin1(a.header));
        o.insert(QStringLiteral("equals"), a.text);
        break;
    case Assertion::Kind::HeaderMatches:
        o.insert(QStringLiteral("header"), QString::fromLatin1(a.header));
        o.insert(QStringLiteral("matches"), a.pattern.pattern());
        break;
    case Assertion::Kind::BodyContains:
        o.insert(QStringLiteral("contains"), a.text);
        break;
    case Assertion::Kind::JsonPointerEquals:
        o.insert(QStringLiteral("pointer"), a.pointer);
        o.insert(QStringLiteral("equals"), a.expected);
        break;
    case Assertion::Kind::JsonPointerExists:
        o.insert(QStringLiteral("pointer"), a.pointer);
        o.insert(QStringLiteral("exists"), true);
        break;
    case Assertion::Kind::JsonPointerMatches:
        o.insert(QStringLiteral("pointer"), a.pointer);
        o.insert(QStringLiteral("matches"), a.pattern.pattern());
        break;
    case Assertion::Kind::Schema:
        o.insert(QStringLiteral("schema"), a.schema.source());
        break;
    }
    return o;
}

QJsonArray AssertionJson::write(const QList<Assertion> &assertions)
{
    QJsonArray array;
    for (const Assertion &a : assertions)
        array.append(write(a));
    return array;
}

} // namespace RetryLab::Core
