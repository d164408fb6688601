#pragma once

#include "core/collections/savedrequest.h"
#include "core/monitor/monitor.h"
#include "core/util/result.h"

#include <QString>

namespace RetryLab::Core {

/// A monitor of a request saved in a collection, made the one way both a
/// monitors file's {"collection": ..., "request": ...} entry and the window's
/// "Add monitor from collection" make it: the request built with its
/// environment's values, labelled with the monitor's name, its URL as the
/// template; with `keepSavedPolicy`, the policy saved with the request (an
/// error when it names a preset this RetryLab lacks). A request that uses
/// {server} is refused: `retrylab monitor` has no embedded server. With
/// `allowServer` (the window's monitors) {server} may stand in the URL and is
/// kept in Monitor::urlTemplate; elsewhere (headers, body, fallbacks, write
/// URL) it is refused still, since only the URL is expanded at each check. The
/// interval, conditions and the rest keep Monitor's defaults.
Result<Monitor> monitorFromSavedRequest(
    const SavedRequest &saved, const QString &name, bool keepSavedPolicy, bool allowServer = false);

} // namespace RetryLab::Core
