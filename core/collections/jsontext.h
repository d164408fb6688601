#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace RetryLab::Core {

/// What the collection and environments files share before their own fields
/// are read: the JSON object the text holds.
namespace JsonText {

/// The object `json` holds. Refused when it is not JSON ("not valid JSON
/// (unterminated object at byte 12)") or holds something else: then the
/// message is `notAnObject`.
Result<QJsonObject> object(const QByteArray &json, const QString &notAnObject);

} // namespace JsonText

} // namespace RetryLab::Core
