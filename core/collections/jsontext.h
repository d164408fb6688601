#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace RetryLab::Core {

/// What the collection and environments files share before their own fields
/// are read: the JSON object the text holds; and a JSON value as a variable's text.
namespace JsonText {

/// The object `json` holds. Refused when it is not JSON ("not valid JSON
/// (unterminated object at byte 12)") or holds something else: then the
/// message is `notAnObject`.
Result<QJsonObject> object(const QByteArray &json, const QString &notAnObject);

/// A value as text for a variable: a string as it is, anything else as compact
/// JSON (42, true, null, {"a":1}), as Postman and newman turn values into text.
QString variableText(const QJsonValue &value);

} // namespace JsonText

} // namespace RetryLab::Core
