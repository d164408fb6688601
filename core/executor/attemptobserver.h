#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/policy/classifier.h"
#include "core/record/attemptrecord.h"

#include <QByteArray>
#include <QDateTime>

namespace RetryLab::Core {

/// What an attempt produced, once Qt has said all it will say about it.
/// AttemptTransport reads the reply; the reading of what it read is here, as a
/// function of values, so that a broken body or Qt's own timeout can be told
/// apart without a socket.
namespace AttemptObserver {

/// Completes `record` of an attempt that the executor saw end as `end` and
/// classifies it under `policy`. The record carries what Qt reported: status,
/// reason phrase, response headers, Content-Length (expectedBytes), bytes
/// received, the network error and its text, and the redirects met. `body` is
/// what the executor kept of the response body; `receivedAt` the wall time,
/// for Retry-After dates.
///
/// The record gets the text of a cut (per-attempt timeout, deadline, cancel),
/// its raw and honoured Retry-After, and ends in NetworkError when its body
/// broke off: shorter than its Content-Length (Qt 6.4 often reports no error
/// then) or cut after the status line. OperationCanceledError on an attempt
/// the executor did not cut is Qt's transfer timeout, classified as a timeout.
/// The classification's reason says which redirects were met. Through a
/// proxy, Qt 6.4 reports the proxy's failure as UnknownNetworkError with the
/// proxy socket engine's text ("Proxy connection refused", "Connection to
/// proxy refused", ...); the attempt is classified as the proxy error that
/// text names (ProxyConnectionRefusedError, ...), and the record keeps what
/// Qt said, as for the transfer timeout.
Classification conclude(AttemptRecord &record, AttemptEnd end, const RequestSpec &spec, const BackoffPolicy &policy,
    const QByteArray &body, const QDateTime &receivedAt);

} // namespace AttemptObserver

} // namespace RetryLab::Core
