#pragma once

#include "core/collections/collection.h"
#include "core/runner/runcollection.h"
#include "core/util/result.h"

#include <QString>

namespace RetryLab::Core {

/// A RetryLab collection (CollectionJson's file) as a RunCollection: its
/// folders and requests in order, each request with its own policy
/// (SavedPolicy; a folder has none), its assertions and its extract rules.
/// Places are the file's ("items[1].items[0]"). A request sends the headers it
/// was saved with: its auth is Inherit, which RunCollection::requests() makes None.
namespace RetryLabRun {

/// Files above this size are refused before they are read.
inline constexpr qint64 maxFileBytes = qint64(64) * 1024 * 1024;

/// `c` to run; `source` names where it came from (RunCollection::source). A
/// request whose preset is not built in is refused with its place
/// ("items[0].policy.preset: ...").
Result<RunCollection> fromCollection(const Collection &c, const QString &source);
/// The file, read strictly: anything CollectionJson would leave out (an item,
/// an assertion, a rule) refuses it, since a run that silently skipped a
/// request or a check would pass for the wrong reason. An error's path is the
/// file, its message starting with the JSON place.
Result<RunCollection> readFile(const QString &path);

} // namespace RetryLabRun

} // namespace RetryLab::Core
