#include "core/executor/requestcheck.h"

#include "core/http/redactor.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/coretr.h"

namespace RetryLab::Core {

Result<void> checkRequest(const RequestSpec &spec)
{
    const QUrl &url = spec.url;
    if (!url.isValid() || url.host().isEmpty()) {
        QString problem = Tr::tr("the URL \"%1\" is not valid: %2")
                              .arg(url.toString(), url.errorString().isEmpty() ? Tr::tr("no host") : url.errorString());
        // QUrl quotes the whole input in its error: mask the password wherever it shows.
        const QString password = url.password(QUrl::FullyDecoded);
        if (!password.isEmpty()) {
            problem.replace(password, QString::fromLatin1(Redactor::mask()));
            problem.replace(url.password(QUrl::FullyEncoded), QString::fromLatin1(Redactor::mask()));
        }
        return Result<void>::failure(Redactor().text(problem));
    }
    const QString scheme = url.scheme().toLower();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        return Result<void>::failure(Tr::tr("only http and https URLs can be sent (got \"%1\")").arg(scheme));
    if (spec.method.trimmed().isEmpty() || spec.method.contains(' '))
        return Result<void>::failure(Tr::tr("\"%1\" is not an HTTP method").arg(QString::fromLatin1(spec.method)));
    if (spec.attemptTimeoutMs
        && !(*spec.attemptTimeoutMs >= 0.0 && *spec.attemptTimeoutMs <= PolicyLimits::maxDeadlineMs)) {
        return Result<void>::failure(
            Tr::tr("the per-attempt timeout must lie between 0 and %1 ms").arg(PolicyLimits::maxDeadlineMs, 0, 'f', 0));
    }
    return checkTransport(spec.transport);
}

Result<void> checkTransport(const TransportOptions &transport)
{
    using ProxyMode = TransportOptions::ProxyMode;
    if (transport.proxyMode == ProxyMode::Http || transport.proxyMode == ProxyMode::Socks5) {
        const QString kind = transport.proxyMode == ProxyMode::Http ? Tr::tr("HTTP") : Tr::tr("SOCKS5");
        const QString host = transport.proxyHost.trimmed();
        if (host.isEmpty())
            return Result<void>::failure(Tr::tr("the %1 proxy needs a host name or address").arg(kind));
        if (host.contains(QLatin1Char('/')) || host.contains(QLatin1Char('@')) || host.contains(QLatin1Char(' '))) {
            // Never quoted: "user:password@host" would show the password.
            return Result<void>::failure(Tr::tr("the %1 proxy's host must be a bare host name or address, without "
                                                "scheme, credentials or path")
                                             .arg(kind));
        }
        if (transport.proxyPort == 0)
            return Result<void>::failure(Tr::tr("the %1 proxy needs a port (1-65535)").arg(kind));
    }
    for (const QString &host : transport.insecureHosts) {
        if (host.trimmed().isEmpty())
            return Result<void>::failure(Tr::tr("a host whose certificate errors are to be ignored is empty"));
    }
    return {};
}

} // namespace RetryLab::Core
