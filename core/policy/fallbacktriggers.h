#pragma once

#include "core/policy/classifier.h"
#include "core/util/result.h"

#include <QJsonArray>

#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// A request's own list of the faults that send it to its fallback endpoints
/// (RequestSpec::fallbackOn), in place of the faults its policy calls
/// transient. An entry is an HTTP status from 400 to 599 ("503"), a class of
/// them ("4xx", "5xx"), or a network fault class by its name
/// (networkFaultClassName: "connection-refused", "connection-reset",
/// "timeout", "host-not-found", "tls-failure", "broken-stream",
/// "protocol-failure", "other"). "timeout" also covers an attempt the total
/// deadline cut. The list only names faults: whether the request may be sent
/// again (Classification::repeatable) is decided as for a retry.
namespace FallbackTriggers {

/// The entries as they are kept: trimmed, in lower case, duplicates dropped,
/// in their order. An error names the first entry that is none of the above.
Result<QStringList> normalized(const QStringList &entries);

/// One entry as it is kept (trimmed, lower case), or an error naming it.
Result<QString> normalizedEntry(const QString &entry);

/// The entries of a JSON array (a file's "fallbackOn"), normalized; an error
/// names the first element that is not a string, or not an entry, and its
/// index, as a path ("[1]").
Result<QStringList> fromJson(const QJsonArray &array);
/// The entries as a JSON array of strings.
QJsonArray toJson(const QStringList &entries);

/// Splits the text a person types ("5xx, timeout") at commas and white space.
QStringList split(const QString &text);

/// The first of `entries` (normalized) that the fault of an attempt classified
/// as `classification` matches; empty when none does, or the attempt succeeded.
QString match(const QStringList &entries, const Classification &classification);

/// The network faults an entry may name, by networkFaultClassName.
QStringList faultNames();

/// What an entry may be, in a sentence, for help texts and errors.
QString syntax();

} // namespace FallbackTriggers

} // namespace RetryLab::Core
