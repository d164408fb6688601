#pragma once

#include "core/runner/runcollection.h"
#include "core/util/result.h"

#include <QString>

namespace RetryLab::Core {

/// The collection `retrylab run FILE` names, whatever its format, told by its
/// content rather than its name: a Postman collection (`info.schema` or
/// `info._postman_id`; PostmanRun), a RetryLab collection (`formatVersion` and
/// `items`; RetryLabRun) or a HAR file (`log.entries`; HarRun). A folder is a
/// Bruno collection (BrunoRun).
namespace RunCollectionReader {

/// The collection at `path`. An error's path is the file and its message
/// starts with the JSON place, or the line and column of text that is not JSON.
Result<RunCollection> read(const QString &path);

} // namespace RunCollectionReader

} // namespace RetryLab::Core
