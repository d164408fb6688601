#include "core/executor/requestcheck.h"

#include "core/http/httpheaders.h"
#include "core/http/redactor.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/fallbacktriggers.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"
#include "core/util/jsonpointer.h"

#include <QHostAddress>

#include <algorithm>

namespace RetryLab::Core {

namespace {

/// A URL the executor can send to: valid, with a host, http or https. `what` names it in the error.
Result<void> checkUrl(const QUrl &url, const QString &what)
{
    if (!url.isValid() || url.host().isEmpty()) {
        QString problem = Tr::tr("the URL \"%1\" is not valid: %2")
                              .arg(url.toString(), url.errorString().isEmpty() ? Tr::tr("no host") : url.errorString());
        if (!what.isEmpty())
            problem = Tr::tr("%1: %2").arg(what, problem);
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
        return Result<void>::failure(what.isEmpty()
                ? Tr::tr("only http and https URLs can be sent (got \"%1\")").arg(scheme)
                : Tr::tr("%1: only http and https URLs can be sent (got \"%2\")").arg(what, scheme));
    return {};
}

bool isMethod(const QByteArray &method)
{
    const QByteArray m = method.trimmed();
    return !m.isEmpty() && m.size() <= 20
        && std::all_of(m.cbegin(), m.cend(), [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); });
}

} // namespace

Result<void> checkHeaders(const HeaderList &headers)
{
    for (const auto &[name, value] : headers) {
        if (const QString problem = tokenProblem(name); !problem.isEmpty())
            return Result<void>::failure(Tr::tr("a header name is not a token: %1").arg(problem));
        if (const QString problem = fieldValueProblem(value); !problem.isEmpty()) {
            return Result<void>::failure(Tr::tr("the header \"%1\": %2").arg(QString::fromLatin1(name), problem));
        }
    }
    return {};
}

Result<void> checkShape(const ReadModifyWriteShape &shape)
{
    using R = Result<void>;
    if (!isMethod(shape.readMethod))
        return R::failure(
            Tr::tr("the read's method \"%1\" is not an HTTP method").arg(QString::fromLatin1(shape.readMethod)));
    if (!isMethod(shape.writeMethod)) {
        return R::failure(
            Tr::tr("the write's method \"%1\" is not an HTTP method").arg(QString::fromLatin1(shape.writeMethod)));
    }
    if (!shape.writeUrl.isEmpty()) {
        if (auto url = checkUrl(shape.writeUrl, Tr::tr("the write's URL")); !url)
            return url;
    }
    if (!JsonPointer::isValid(shape.valuePointer)) {
        return R::failure(
            Tr::tr("the value's JSON pointer \"%1\" is not one (it starts with /, as /value or /spec/replicas)")
                .arg(shape.valuePointer));
    }
    if (!shape.etagPointer.isEmpty() && !JsonPointer::isValid(shape.etagPointer)) {
        return R::failure(
            Tr::tr("the etag's JSON pointer \"%1\" is not one (it starts with /, as /etag)").arg(shape.etagPointer));
    }
    if (shape.writeEnvelope.contains(QLatin1Char('/')) || shape.writeEnvelope.trimmed() != shape.writeEnvelope)
        return R::failure(
            Tr::tr("the write's envelope is a member name (as policy), not \"%1\"").arg(shape.writeEnvelope));
    return {};
}

Result<void> checkRequest(const RequestSpec &spec)
{
    if (auto url = checkUrl(spec.url, {}); !url)
        return url;
    if (!spec.fallbackUrls.isEmpty() && spec.kind != RequestSpec::Kind::Single)
        return Result<void>::failure(Tr::tr("fallback endpoints are for single requests, not read-modify-write"));
    if (spec.fallbackUrls.size() > maxFallbacks)
        return Result<void>::failure(
            Tr::tr("at most %1 fallback endpoints (got %2)").arg(maxFallbacks).arg(spec.fallbackUrls.size()));
    if (spec.kind == RequestSpec::Kind::ReadModifyWrite) {
        if (auto shape = checkShape(spec.readModifyWrite); !shape)
            return shape;
    }
    for (qsizetype i = 0; i < spec.fallbackUrls.size(); ++i) {
        if (auto url = checkUrl(spec.fallbackUrls.at(i), Tr::tr("fallback %1").arg(i + 1)); !url)
            return url;
    }
    if (auto triggers = FallbackTriggers::normalized(spec.fallbackOn); !triggers)
        return Result<void>::failure(Tr::tr("the fallback list: %1").arg(triggers.error()));
    if (spec.method.trimmed().isEmpty() || spec.method.contains(' '))
        return Result<void>::failure(Tr::tr("\"%1\" is not an HTTP method").arg(QString::fromLatin1(spec.method)));
    // The method is not quoted from here on: it may hold the line break that is the problem.
    if (const QString problem = tokenProblem(spec.method); !problem.isEmpty())
        return Result<void>::failure(Tr::tr("the method is not an HTTP method: %1").arg(problem));
    if (auto headers = checkHeaders(spec.headers); !headers)
        return headers;
    if (spec.attemptTimeoutMs
        && !(*spec.attemptTimeoutMs >= 0.0 && *spec.attemptTimeoutMs <= PolicyLimits::maxDeadlineMs)) {
        return Result<void>::failure(
            Tr::tr("the per-attempt timeout must lie between 0 and %1")
                .arg(DurationText::format(PolicyLimits::maxDeadlineMs, DurationText::Style::Exact)));
    }
    if (!spec.bodySource.isInline()) {
        if (spec.kind != RequestSpec::Kind::Single)
            return Result<void>::failure(Tr::tr("a body from a file or form parts is for single requests"));
        if (!spec.body.isEmpty())
            return Result<void>::failure(Tr::tr("the request has a body and a body file; it can send one"));
        if (auto files = spec.bodySource.checkFiles(); !files)
            return files;
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
    if (transport.connectTimeoutMs
        && !(*transport.connectTimeoutMs > 0.0 && *transport.connectTimeoutMs <= PolicyLimits::maxDeadlineMs)) {
        return Result<void>::failure(
            Tr::tr("the connect timeout must be more than 0 and at most %1")
                .arg(DurationText::format(PolicyLimits::maxDeadlineMs, DurationText::Style::Exact)));
    }
    for (const HostPin &pin : transport.resolve) {
        if (pin.host.isEmpty() || pin.port == 0 || QHostAddress(pin.address).isNull())
            return Result<void>::failure(Tr::tr("the --resolve entry \"%1\" is not HOST:PORT:ADDRESS").arg(pin.text()));
    }
    return {};
}

} // namespace RetryLab::Core
