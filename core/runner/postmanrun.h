#pragma once

#include "core/runner/runcollection.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QString>

namespace RetryLab::Core {

/// A Postman collection (v2.0.0 or v2.1.0, as `info.schema` names it) as a
/// RunCollection for `retrylab run`, as newman would run it: the file's order,
/// folders, names and ids; the collection's `variable` list; the pre-request
/// and test scripts (`event`) of the collection, its folders and its requests,
/// each with its place ("item[1].item[0].event[0]"); the `auth` of every level
/// (basic, bearer, apikey, noauth; the parameters as v2.0's object or v2.1's
/// list; other kinds are listed in `ignored` and send nothing); and each
/// request as PostmanRunRequest reads it. Texts keep their {{variables}}: the
/// runner fills them in when it sends.
///
/// A collection v1, or anything else that does not fit the format, is refused
/// with its place: "item[1].item[0].request.url: missing",
/// "info.schema: Postman collection v1 is not supported ...", and text that is
/// not JSON with its line and column.
namespace PostmanRun {

/// The collection; errors have the JSON place as their path. `source` is left empty.
Result<RunCollection> read(const QByteArray &json);
/// read() on a file (refused over PostmanImport::maxFileBytes); `source` is
/// `path`, and an error's path is the file, its message starting with the
/// JSON place ("item[2].request.url: missing; ...").
Result<RunCollection> readFile(const QString &path);

/// A Postman environment or globals file: its enabled values. An error's path is the file.
Result<RunEnvironment> readEnvironmentFile(const QString &path);

} // namespace PostmanRun

} // namespace RetryLab::Core
