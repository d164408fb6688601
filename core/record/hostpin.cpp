#include "core/record/hostpin.h"

#include "core/util/coretr.h"

#include <QHostAddress>

namespace RetryLab::Core {

namespace {

QString withoutBrackets(QString text)
{
    if (text.startsWith(QLatin1Char('[')) && text.endsWith(QLatin1Char(']')))
        text = text.mid(1, text.size() - 2);
    return text;
}

// Splits "A:B:C" where A and C may be bracketed IPv6 addresses holding colons.
QStringList pinFields(const QString &text)
{
    QStringList out;
    QString current;
    bool inBrackets = false;
    for (const QChar c : text) {
        if (c == QLatin1Char('['))
            inBrackets = true;
        else if (c == QLatin1Char(']'))
            inBrackets = false;
        if (c == QLatin1Char(':') && !inBrackets && out.size() < 2) {
            out.append(current);
            current.clear();
            continue;
        }
        current += c;
    }
    out.append(current);
    return out;
}

} // namespace

Result<HostPin> HostPin::parse(const QString &given)
{
    QString text = given.trimmed();
    if (text.startsWith(QLatin1Char('+')))
        text.remove(0, 1);
    if (text.startsWith(QLatin1Char('-'))) {
        return Result<HostPin>::failure(
            Tr::tr("\"%1\": removing an entry (-HOST:PORT) is not supported; give HOST:PORT:ADDRESS").arg(given));
    }
    const QStringList parts = pinFields(text);
    if (parts.size() < 3 || parts.at(0).isEmpty()) {
        return Result<HostPin>::failure(
            Tr::tr("\"%1\" is not HOST:PORT:ADDRESS (e.g. example.test:443:127.0.0.1)").arg(given));
    }
    bool ok = false;
    const uint port = parts.at(1).toUInt(&ok);
    if (!ok || port == 0 || port > 65535)
        return Result<HostPin>::failure(
            Tr::tr("\"%1\": the port \"%2\" is not from 1 to 65535").arg(given, parts.at(1)));
    QString address = parts.at(2).section(QLatin1Char(','), 0, 0).trimmed();
    if (address.isEmpty())
        return Result<HostPin>::failure(Tr::tr("\"%1\" gives no address to connect to (HOST:PORT:ADDRESS)").arg(given));
    address = withoutBrackets(address);
    const QHostAddress parsed(address);
    if (parsed.isNull()) {
        return Result<HostPin>::failure(Tr::tr("\"%1\": \"%2\" is not an IPv4 or IPv6 address").arg(given, address));
    }
    HostPin pin;
    pin.host = withoutBrackets(parts.at(0)).toLower();
    pin.port = quint16(port);
    pin.address = parsed.toString();
    return pin;
}

QString HostPin::text() const
{
    const bool v6 = address.contains(QLatin1Char(':'));
    const bool hostV6 = host.contains(QLatin1Char(':'));
    return QStringLiteral("%1:%2:%3")
        .arg(hostV6 ? QStringLiteral("[%1]").arg(host) : host)
        .arg(port)
        .arg(v6 ? QStringLiteral("[%1]").arg(address) : address);
}

bool HostPin::matches(const QUrl &url) const
{
    const int defaultPort = url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0 ? 443 : 80;
    if (url.port(defaultPort) != port)
        return false;
    return host == QLatin1String("*") || url.host().compare(host, Qt::CaseInsensitive) == 0;
}

std::optional<HostPin> HostPin::find(const QList<HostPin> &pins, const QUrl &url)
{
    for (const HostPin &pin : pins) {
        if (pin.matches(url))
            return pin;
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
