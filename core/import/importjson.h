#pragma once

#include "core/util/jsonreader.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// What the importers of other tools' JSON files (HAR, Postman) share: reading a
/// file with a size limit before a byte is parsed, refusing text that is not
/// JSON with its line and column, and reading the loosely typed scalars those
/// tools write (a Postman variable's value may be a string, a number or null).
namespace ImportJson {

/// The top-level object of a JSON text. `what` names the format in the message
/// when the text holds something else ("a HAR file").
Result<QJsonObject> parseObject(const QByteArray &json, const QString &what);

/// The bytes of a file, refused before reading when it is larger than
/// `maxBytes`; `what` names the kind of file in that message ("HAR files").
/// The file is not named in the error: the caller says which file it opened.
Result<QByteArray> readFile(const QString &path, qint64 maxBytes, const QString &what);

/// "256 MiB", "12.5 MiB", for the size messages.
QString mebibytes(qint64 bytes);
/// "the file is 268435457 bytes; HAR files over 256 MiB are refused"
QString tooLarge(qint64 bytes, qint64 maxBytes, const QString &what);

/// A scalar as text: strings as they are, numbers as written shortest,
/// booleans "true"/"false", null as empty; nothing for arrays and objects.
std::optional<QString> scalarText(const QJsonValue &value);

/// A field read as scalarText(): absent gives nothing (an error when
/// required), an array or object is an error at the field.
std::optional<QString> text(JsonReader &reader, const JsonReader::Key &key, Presence presence = Presence::Optional);

/// A field that is a boolean, or the strings "true"/"false" some exporters
/// write; anything else is an error at the field.
std::optional<bool> flag(JsonReader &reader, const JsonReader::Key &key);

} // namespace ImportJson

} // namespace RetryLab::Core
