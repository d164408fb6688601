#pragma once

#include "core/util/jsonreader.h"

#include <QByteArray>
#include <QHash>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The parts of a Postman collection's request that the window's import
/// (PostmanImport) and the collection runner (PostmanRunRequest) read alike:
/// the URL object put together, its path variables, a raw body's type.
namespace PostmanUrl {

/// A request's `url` as written: a string, or an object's `raw` or its parts
/// put together (assemble()), with its path variables (the enabled ones of
/// `url.variable`); `{{variables}}` stay as written.
struct Written
{
    QString text;
    QHash<QString, QString> pathVariables;
};
/// The `url` of a request; nothing when it is missing, empty or malformed, the
/// reader failed at the place.
std::optional<Written> read(JsonReader &request);
/// `text` with http:// in front when it has no scheme, as Postman sends it; a URL
/// that starts with a variable ({{baseUrl}}/users) gets its scheme from the variable.
QString withDefaultScheme(QString text);

/// The URL object's parts (protocol, host, port, path, enabled query, hash) as
/// Postman's library puts them together when the object has a host or a path
/// (`raw` is then only what the app shows); `{{variables}}` stay as written. A
/// part of the wrong type fails the reader at its place.
QString assemble(JsonReader &url);
/// `:name` path segments replaced by the URL's path variables (the path only,
/// not the host's port, the query or the fragment).
QString withPathVariables(const QString &text, const QHash<QString, QString> &pathVariables);
/// The Content-Type a raw body's `options.raw.language` implies ("json" ->
/// application/json); text/plain for any other.
QByteArray rawContentType(const QString &language);

} // namespace PostmanUrl

} // namespace RetryLab::Core
