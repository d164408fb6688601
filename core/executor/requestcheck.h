#pragma once

#include "core/record/attemptrecord.h"
#include "core/util/result.h"

namespace RetryLab::Core {

/// Whether `spec` can be sent at all: a valid http or https URL with a host, a
/// method that is one token, and a per-attempt timeout (when it has its own)
/// between 0 and PolicyLimits::maxDeadlineMs. The error is the reason of the
/// request's InvalidRequest result; it ends up in logs and exports, so it
/// never shows the URL's password, nor a secret query parameter.
/// The transport's values are checked too (checkTransport); its files are
/// read by PreparedTransport::prepare() when the request is submitted.
Result<void> checkRequest(const RequestSpec &spec);

/// Whether the transport's values can be used, before any file is read: an
/// explicit proxy has a bare host and a port, and no exempt host is empty.
/// The error never quotes the proxy's host (it might hold credentials).
Result<void> checkTransport(const TransportOptions &transport);

} // namespace RetryLab::Core
