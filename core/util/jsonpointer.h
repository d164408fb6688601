#pragma once

#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// JSON Pointer (RFC 6901): "" is the whole document, "/a/0/b" the member "b" of
/// the first element of the member "a"; "~1" stands for "/" and "~0" for "~" in a name.
/// Used to find a value in a body whose shape the user names (the integer a
/// read-modify-write changes, the ETag an IAM policy carries).
namespace JsonPointer {

/// The reference tokens of `pointer`, unescaped; nullopt when it is not a pointer
/// (not empty and not starting with "/", or a "~" not followed by 0 or 1).
std::optional<QStringList> tokens(const QString &pointer);
bool isValid(const QString &pointer);

/// The value `pointer` names in `document`; nullopt when there is none.
std::optional<QJsonValue> get(const QJsonValue &document, const QString &pointer);

/// `document` with the value `pointer` names replaced by `value`. The parent
/// must exist; the last token may name a new member of an object. False (and
/// `document` unchanged) when the pointer does not fit the document.
bool set(QJsonValue &document, const QString &pointer, const QJsonValue &value);

} // namespace JsonPointer

} // namespace RetryLab::Core
