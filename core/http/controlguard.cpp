#include "core/http/controlguard.h"

#include "core/util/coretr.h"

#include <QList>
#include <QUrl>

namespace RetryLab::Core {

namespace {

// 127.0.0.0/8 in dotted decimal, as a Host header writes it.
bool isLoopbackIPv4(QByteArrayView name)
{
    const QList<QByteArray> parts = name.toByteArray().split('.');
    if (parts.size() != 4 || parts.constFirst() != "127")
        return false;
    for (const QByteArray &part : parts) {
        bool ok = false;
        const int value = part.toInt(&ok);
        if (!ok || part.isEmpty() || part.size() > 3 || value < 0 || value > 255)
            return false;
    }
    return true;
}

} // namespace

bool isLoopbackHost(QByteArrayView host)
{
    QByteArrayView name = host.trimmed();
    if (name.startsWith('[')) { // "[::1]" or "[::1]:8080"
        const qsizetype close = name.indexOf(']');
        if (close < 0)
            return false;
        const QByteArrayView rest = name.sliced(close + 1);
        if (!rest.isEmpty() && !rest.startsWith(':'))
            return false;
        name = name.sliced(1, close - 1);
    } else if (name.count(':') == 1) { // "localhost:8080", "127.0.0.1:8080"
        name = name.first(name.indexOf(':'));
    }
    return name.compare("localhost", Qt::CaseInsensitive) == 0 || name == "::1" || name == "0:0:0:0:0:0:0:1"
        || isLoopbackIPv4(name);
}

std::optional<ControlRefusal> controlRequestRefusal(const HttpRequest &request)
{
    const std::optional<QByteArray> host = request.header("Host");
    if (!host || !isLoopbackHost(*host)) {
        return ControlRefusal{421,
            Tr::tr("the control API answers requests for a loopback host (localhost, 127.0.0.1, [::1]) only, "
                   "not for \"%1\"")
                .arg(QString::fromLatin1(host.value_or(QByteArray()).left(80)))};
    }
    if (const std::optional<QByteArray> origin = request.header("Origin"); origin && *origin != "null") {
        const QUrl url(QString::fromLatin1(*origin));
        if (!url.isValid() || !isLoopbackHost(url.host(QUrl::FullyEncoded).toLatin1())) {
            return ControlRefusal{403,
                Tr::tr("the control API does not take requests from web pages (Origin %1)")
                    .arg(QString::fromLatin1(origin->left(80)))};
        }
    } else if (origin) {
        return ControlRefusal{403, Tr::tr("the control API does not take requests from web pages (Origin null)")};
    }
    if (request.method == "POST") {
        const QByteArray type = request.header("Content-Type").value_or(QByteArray());
        const QByteArray mediaType = type.left(type.indexOf(';') < 0 ? type.size() : type.indexOf(';')).trimmed();
        if (mediaType.compare("application/json", Qt::CaseInsensitive) != 0) {
            return ControlRefusal{
                415, Tr::tr("a POST to the control API says its body is JSON: send Content-Type: application/json")};
        }
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
