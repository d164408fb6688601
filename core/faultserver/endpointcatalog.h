#pragma once

#include <QList>
#include <QString>

namespace RetryLab::Core {

/// One endpoint of the fault server, for help texts.
struct FaultServerEndpoint
{
    QString method; ///< "GET", "PUT", "GET, PUT", or "any"
    QString path; ///< "/status/{code}"
    QString parameters; ///< "?retry_after=S | ?retry_after_date=DATE|S | ?ratelimit_reset=S"
    QString description;
};

/// The fault server's endpoints and scripted steps described for people: the
/// table behind FaultServer::endpoints(), and the text that GET /, `retrylab
/// serve --help` and the GUI's help show.
namespace EndpointCatalog {

QList<FaultServerEndpoint> endpoints();
/// Endpoints and instructions as plain text.
QString usageText();

} // namespace EndpointCatalog

} // namespace RetryLab::Core
