#include "core/assertions/assertion.h"

#include "core/util/coretr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace RetryLab::Core {

QString Assertion::jsonText(const QJsonValue &value)
{
    if (value.isString())
        return QLatin1Char('"') + value.toString() + QLatin1Char('"');
    if (value.isNull())
        return QStringLiteral("null");
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 15);
    if (value.isUndefined())
        return QStringLiteral("nothing");
    const QJsonDocument document = value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject());
    return QString::fromUtf8(document.toJson(QJsonDocument::Compact));
}

QString Assertion::pointerText() const
{
    return pointer.isEmpty() ? Tr::tr("the whole body") : pointer;
}

QString Assertion::describe() const
{
    const QString headerName = QString::fromLatin1(header);
    QString what;
    switch (kind) {
    case Kind::StatusEquals:
    case Kind::StatusClass:
        what = Tr::tr("status %1").arg(statusText);
        break;
    case Kind::StatusIn:
        what = Tr::tr("status in %1").arg(statusText);
        break;
    case Kind::ResponseTimeUnder:
        what = Tr::tr("response time under %1 ms").arg(maxMs);
        break;
    case Kind::HeaderPresent:
        what = Tr::tr("header %1 present").arg(headerName);
        break;
    case Kind::HeaderEquals:
        what = Tr::tr("header %1 equals \"%2\"").arg(headerName, text);
        break;
    case Kind::HeaderMatches:
        what = Tr::tr("header %1 matches %2").arg(headerName, pattern.pattern());
        break;
    case Kind::BodyContains:
        what = Tr::tr("body contains \"%1\"").arg(text);
        break;
    case Kind::JsonPointerEquals:
        what = Tr::tr("%1 equals %2").arg(pointerText(), jsonText(expected));
        break;
    case Kind::JsonPointerExists:
        what = Tr::tr("%1 exists").arg(pointerText());
        break;
    case Kind::JsonPointerMatches:
        what = Tr::tr("%1 matches %2").arg(pointerText(), pattern.pattern());
        break;
    case Kind::Schema:
        what = Tr::tr("body valid against the schema");
        break;
    }
    return negate ? Tr::tr("not %1").arg(what) : what;
}

} // namespace RetryLab::Core
