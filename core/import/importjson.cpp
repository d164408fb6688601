#include "core/import/importjson.h"

#include "core/util/boundedfile.h"
#include "core/util/coretr.h"

#include <QFile>
#include <QJsonDocument>
#include <QLocale>

#include <algorithm>

namespace RetryLab::Core::ImportJson {

Result<QJsonObject> parseObject(const QByteArray &json, const QString &what)
{
    using R = Result<QJsonObject>;
    if (json.trimmed().isEmpty())
        return R::failure(Tr::tr("the file is empty; %1 holds one JSON object").arg(what));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return jsonSyntaxError(json, parseError);
    if (!document.isObject())
        return R::failure(Tr::tr("%1 holds one JSON object, not an array").arg(what));
    return document.object();
}

QString mebibytes(qint64 bytes)
{
    constexpr qint64 mib = 1024 * 1024;
    if (bytes % mib == 0)
        return QString::number(bytes / mib) + QStringLiteral(" MiB");
    return QLocale::c().toString(double(bytes) / double(mib), 'f', 1) + QStringLiteral(" MiB");
}

QString tooLarge(qint64 bytes, qint64 maxBytes, const QString &what)
{
    return Tr::tr("the file is %1 bytes; %2 over %3 are refused").arg(bytes).arg(what, mebibytes(maxBytes));
}

Result<QByteArray> readFile(const QString &path, qint64 maxBytes, const QString &what)
{
    using R = Result<QByteArray>;
    if (const QString problem = BoundedFile::notARegularFile(path); !problem.isEmpty())
        return R::failure(problem);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return R::failure(Tr::tr("cannot read: %1").arg(file.errorString()));
    if (file.size() > maxBytes) {
        return R::failure(tooLarge(file.size(), maxBytes, what));
    }
    QByteArray bytes = file.read(maxBytes + 1);
    if (file.error() != QFileDevice::NoError)
        return R::failure(Tr::tr("cannot read: %1").arg(file.errorString()));
    // A file that grew while it was read (a browser still saving it) is measured again.
    if (bytes.size() > maxBytes) {
        return R::failure(tooLarge(bytes.size(), maxBytes, what));
    }
    return bytes;
}

std::optional<QString> scalarText(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Double: {
        const double d = value.toDouble();
        return QString::number(d, 'g', QLocale::FloatingPointShortest);
    }
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return QString();
    case QJsonValue::Array:
    case QJsonValue::Object:
        break;
    }
    return std::nullopt;
}

std::optional<QString> text(JsonReader &reader, const JsonReader::Key &key, Presence presence)
{
    if (!reader.contains(key)) {
        if (presence == Presence::Required)
            reader.require(key);
        return std::nullopt;
    }
    const QJsonValue value = reader.value(key);
    auto result = scalarText(value);
    if (!result)
        reader.fail(key, Tr::tr("expected a string, got %1").arg(JsonReader::describe(value)));
    return result;
}

std::optional<bool> flag(JsonReader &reader, const JsonReader::Key &key)
{
    if (!reader.contains(key))
        return std::nullopt;
    const QJsonValue value = reader.value(key);
    if (value.isBool())
        return value.toBool();
    if (value.isNull())
        return std::nullopt;
    if (value.isString()) {
        if (value.toString().compare(QLatin1String("true"), Qt::CaseInsensitive) == 0)
            return true;
        if (value.toString().compare(QLatin1String("false"), Qt::CaseInsensitive) == 0)
            return false;
    }
    reader.fail(key, Tr::tr("expected true or false, got %1").arg(JsonReader::describe(value)));
    return std::nullopt;
}

} // namespace RetryLab::Core::ImportJson
