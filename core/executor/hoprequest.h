#pragma once

#include "core/http/httpheaders.h"

#include <QByteArray>
#include <QUrl>

namespace RetryLab::Core {

/// One request on the wire within an attempt: the attempt's own, or where a
/// redirect led.
struct HopRequest
{
    QUrl url;
    QByteArray method;
    QByteArray body;
    HeaderList headers;
    /// The body is the request's BodySource (a file, multipart parts), opened for this hop.
    bool streamedBody = false;

    friend bool operator==(const HopRequest &, const HopRequest &) = default;
};

} // namespace RetryLab::Core
