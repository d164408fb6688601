#pragma once

#include "core/record/transportoptions.h"

#include <QHostAddress>
#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

QT_BEGIN_NAMESPACE
class QNetworkRequest;
QT_END_NAMESPACE

namespace RetryLab::Core {

/// Where an attempt connects when that is not simply its URL's host: a
/// --resolve pin, or the address of one IP version chosen from a name lookup
/// (-4, -6). Qt 6.4 has no hook for either, so the request on the wire names
/// the address in its URL, while the Host header and the name the certificate
/// must carry (QNetworkRequest::setPeerVerifyName, which Qt also sends as SNI)
/// stay the URL's host. The TLS check is therefore the same as without the pin.
namespace ConnectTarget {

/// The URL names an IP address: no lookup is needed.
bool isAddress(const QUrl &url);

/// The address a lookup's answer gives for `family`: the first of that
/// version (Any: the first), none when there is none.
std::optional<QString> choose(const QList<QHostAddress> &addresses, TransportOptions::IpFamily family);

/// Points `request` (whose URL is `url`) at `address`: the URL's host
/// becomes the address, the Host header the URL's host and port (unless
/// `hostGiven`: the user set one), and the peer verify name the URL's host.
void aim(QNetworkRequest &request, const QUrl &url, const QString &address, bool hostGiven);

/// "IPv4", "IPv6".
QString familyName(TransportOptions::IpFamily family);

} // namespace ConnectTarget

} // namespace RetryLab::Core
