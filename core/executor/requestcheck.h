#pragma once

#include "core/record/attemptrecord.h"
#include "core/util/result.h"

namespace RetryLab::Core {

/// Whether `spec` can be sent at all: a valid http or https URL with a host, a
/// method that is one token, header names that are tokens and values that are
/// field values (checkHeaders), and a per-attempt timeout (when it has its own)
/// between 0 and PolicyLimits::maxDeadlineMs. The error is the reason of the
/// request's InvalidRequest result; it ends up in logs and exports, so it
/// never shows the URL's password, nor a secret query parameter.
/// The transport's values are checked too (checkTransport); its files are
/// read by PreparedTransport::prepare() when the request is submitted.
/// Fallback URLs are checked alike, and allowed on single requests only, at most maxFallbacks;
/// every entry of the fallback list (RequestSpec::fallbackOn) is one FallbackTriggers knows.
Result<void> checkRequest(const RequestSpec &spec);

/// Whether every header can go onto the wire as it is (RFC 9110 sections 5.1
/// and 5.5): a CR or LF in a value would end its line and send the rest as
/// headers of its own, or as a second request. The error names the header,
/// never its value (it may be a credential).
Result<void> checkHeaders(const HeaderList &headers);

/// Whether a read-modify-write's shape can be used: methods that are tokens, a
/// valid write URL when it has one, JSON pointers that are pointers, an envelope
/// that is a member name.
Result<void> checkShape(const ReadModifyWriteShape &shape);

/// The most fallback endpoints a request may name.
inline constexpr int maxFallbacks = 8;

/// Whether the transport's values can be used, before any file is read: an
/// explicit proxy has a bare host and a port, and no exempt host is empty.
/// The error never quotes the proxy's host (it might hold credentials).
Result<void> checkTransport(const TransportOptions &transport);

} // namespace RetryLab::Core
