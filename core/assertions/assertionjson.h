#pragma once

#include "core/assertions/assertion.h"
#include "core/util/jsonreader.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>

#include <optional>

namespace RetryLab::Core {

/// Assertions as files keep them: a JSON array of objects, each with a "kind"
/// and the fields of that kind (docs/assertions.md):
///   {"kind": "status", "equals": 200} | {"class": "2xx"} | {"in": [200, 204]} or "200,204"
///   {"kind": "responseTime", "underMs": 800}
///   {"kind": "header", "header": "ETag", "exists": true} | {"equals": "..."} | {"matches": "..."}
///   {"kind": "body", "contains": "ok"}
///   {"kind": "jsonPointer", "pointer": "/id", "equals": 7} | {"exists": true} | {"matches": "^a"}
///   {"kind": "schema", "schema": {...}}
/// with, on any of them, "not": true and "name": "a name for reports".
/// write() gives back what read() takes.
namespace AssertionJson {

/// The list, or the first error with its path ("[2].pointer").
Result<QList<Assertion>> read(const QJsonArray &array);
/// The array at `key` of `r` (none: an empty list); errors go to `r` with their path.
std::optional<QList<Assertion>> read(JsonReader &r, const QString &key);
/// One assertion read from its object; errors go to `o`.
std::optional<Assertion> readOne(JsonReader &o);

QJsonObject write(const Assertion &assertion);
QJsonArray write(const QList<Assertion> &assertions);

} // namespace AssertionJson

} // namespace RetryLab::Core
