#pragma once

#include "core/http/httprequestparser.h"

#include <QString>

#include <optional>

namespace RetryLab::Core {

/// Why a control API on loopback (the fault server's /_control, the proxy's
/// control port) refuses a request that a web page could have made, or
/// nothing when it may go on. A page the user visits can send requests to
/// 127.0.0.1 too; two rules keep it from driving a control API:
/// - the Host header must name loopback (localhost, 127.0.0.1, [::1]; any
///   port): DNS rebinding brings the page's own name, which is refused with 421;
/// - a POST must say its body is JSON (Content-Type: application/json): a form
///   or a text/plain fetch cannot, and a JSON one needs a CORS preflight,
///   which no control API grants. Refused with 415.
/// An Origin header, when there is one, must be a loopback origin too (403).
struct ControlRefusal
{
    int status = 403;
    QString message;
};
std::optional<ControlRefusal> controlRequestRefusal(const HttpRequest &request);

/// Whether a Host header value names loopback: "localhost", "127.0.0.1",
/// "[::1]", any of them with a port.
bool isLoopbackHost(QByteArrayView host);

} // namespace RetryLab::Core
