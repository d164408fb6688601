#pragma once

#include "core/collections/collection.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>

namespace RetryLab::Core {

/// The collection file: readable, indented JSON with its keys in a fixed order,
/// so that a collection kept in git gives small diffs. It carries a format
/// version, and never a secret: a credential typed into a request (an
/// Authorization value, a password in the URL, a token in the body) is written
/// as REDACTED, while a reference to a variable ("Bearer {{token}}") is kept as
/// it is typed, so that the value lives in the environment instead.
namespace CollectionJson {

inline constexpr int formatVersion = 1;

QByteArray toJson(const Collection &collection);
/// The request as the file holds it (see above).
QJsonObject requestToJson(const RequestDraft &draft);

struct Read
{
    Collection collection;
    /// Items and fields that could not be read and were left out, each with its
    /// path ("items[1].items[0].request") and why; the rest was read.
    QList<Error> leftOut;
};

/// Refused as a whole when the bytes are not a JSON object or were written by a
/// newer format; otherwise everything readable is kept and the rest is listed.
Result<Read> fromJson(const QByteArray &json);

} // namespace CollectionJson

} // namespace RetryLab::Core
