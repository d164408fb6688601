#include "core/executor/connecttarget.h"

#include <QNetworkRequest>

namespace RetryLab::Core::ConnectTarget {

bool isAddress(const QUrl &url)
{
    return !QHostAddress(url.host()).isNull();
}

std::optional<QString> choose(const QList<QHostAddress> &addresses, TransportOptions::IpFamily family)
{
    for (const QHostAddress &address : addresses) {
        const bool fits = family == TransportOptions::IpFamily::Any
            || (family == TransportOptions::IpFamily::V4 && address.protocol() == QAbstractSocket::IPv4Protocol)
            || (family == TransportOptions::IpFamily::V6 && address.protocol() == QAbstractSocket::IPv6Protocol);
        if (fits)
            return address.toString();
    }
    return std::nullopt;
}

void aim(QNetworkRequest &request, const QUrl &url, const QString &address, bool hostGiven)
{
    QUrl wire = url;
    wire.setHost(address);
    request.setUrl(wire);
    if (!hostGiven) {
        // The port only when it is not the scheme's own, as Qt itself writes Host.
        const int defaultPort = url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0 ? 443 : 80;
        QByteArray host = url.host(QUrl::FullyEncoded).toUtf8();
        if (host.contains(':'))
            host = '[' + host + ']';
        if (url.port(defaultPort) != defaultPort)
            host += ':' + QByteArray::number(url.port());
        request.setRawHeader(QByteArrayLiteral("Host"), host);
    }
    request.setPeerVerifyName(url.host());
}

QString familyName(TransportOptions::IpFamily family)
{
    switch (family) {
    case TransportOptions::IpFamily::V4:
        return QStringLiteral("IPv4");
    case TransportOptions::IpFamily::V6:
        return QStringLiteral("IPv6");
    case TransportOptions::IpFamily::Any:
        break;
    }
    return QStringLiteral("IPv4 or IPv6");
}

} // namespace RetryLab::Core::ConnectTarget
