#pragma once

#include "core/import/importedrequest.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// Requests read from a Postman collection v2.1
/// (https://schema.getpostman.com/json/collection/v2.1.0/collection.json), as
/// Postman would send them.
///
/// - Items in nested folders keep their folders (ImportedRequest::folders) and
///   the file's order. A request may be a URL string or an object, its URL a
///   string or an object (`raw`, or `protocol`/`host`/`port`/`path`/`query`/
///   `hash` with path variables such as `:id` from `url.variable`).
/// - Disabled headers, query parameters and form fields are left out. Bodies:
///   raw (with the Content-Type of its language when none is set), urlencoded,
///   form-data (text fields; file fields are listed in `ignored`), GraphQL
///   (sent as JSON, as Postman does).
/// - Authorization is inherited as in Postman: the request's own, else its
///   innermost folder's, else the collection's; `noauth` stops the search.
///   basic, bearer and apikey (in a header or the query) become headers or
///   query parameters; other kinds are listed in `ignored`.
/// - Variables `{{name}}` in the URL, headers, body and authorization are
///   resolved from the collection's `variable` list and, with precedence, an
///   environment; a value that holds `{{other}}` is resolved one level further.
///   A variable defined nowhere (or only one level too deep) stays as written
///   and is listed in the request's `unknown` and in Collection::unresolvedVariables.
/// - Scripts (pre-request and test) are not run; each is listed in `ignored`.
///
/// Collections v1 and v2.0 are refused with the version named, as is
/// anything else that does not fit the format, with the place named:
/// "item[1].item[0].request.url: missing".
namespace PostmanImport {

/// Files above this size are refused before they are read.
inline constexpr qint64 maxFileBytes = qint64(64) * 1024 * 1024;

/// A Postman environment (or globals) file: its enabled values.
struct Environment
{
    QString name;
    QList<QPair<QString, QString>> values;
};

Result<Environment> readEnvironment(const QByteArray &json);
/// readEnvironment() on a file; the caller names the file when it shows an error.
Result<Environment> readEnvironmentFile(const QString &path);

struct Collection
{
    QString name; ///< info.name
    /// Every request, depth first in the file's order.
    QList<ImportedRequest> requests;
    /// The names of variables left as written, each once, in the order first met.
    QStringList unresolvedVariables;
};

/// Reads a collection, resolving its variables with `environment` over the
/// collection's own; errors name the place in `path`.
Result<Collection> read(const QByteArray &json, const Environment &environment = {});
/// read() on a file; the caller names the file when it shows an error.
Result<Collection> readFile(const QString &path, const Environment &environment = {});

} // namespace PostmanImport

} // namespace RetryLab::Core
