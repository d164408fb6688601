#pragma once

#include "core/runner/runcollection.h"
#include "core/util/result.h"

#include <QString>

namespace RetryLab::Core {

/// A HAR file (HarImport's reading: what a browser sent, or RetryLab's own
/// export with its attempts folded into one request) as a RunCollection: each
/// request one item, in the file's order, with no folders; its place the
/// entry's ("log.entries[3]"), its name the page's title or "METHOD URL". A
/// RetryLab HAR's policy is the collection's. Entries HarImport skips, headers
/// it leaves out, and bodies that are not text are listed in `ignored`.
namespace HarRun {

/// The archive; an error's path is the file, its message starting with the
/// JSON place ("log.entries[3].request.url: missing").
Result<RunCollection> readFile(const QString &path);

} // namespace HarRun

} // namespace RetryLab::Core
