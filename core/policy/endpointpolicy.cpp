#include "core/policy/endpointpolicy.h"

#include "core/http/pathpattern.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace RetryLab::Core {

namespace {

// Host names have no segments: "*" is any run of characters ("*.example.com"
// matches a.b.example.com), compared without regard to case.
bool hostMatches(const QString &pattern, const QString &host)
{
    if (pattern.isEmpty())
        return true;
    QRegularExpression re(
        QRegularExpression::wildcardToRegularExpression(pattern, QRegularExpression::UnanchoredWildcardConversion));
    re.setPattern(QStringLiteral("\\A(?:") + re.pattern() + QStringLiteral(")\\z"));
    re.setPatternOptions(QRegularExpression::CaseInsensitiveOption);
    return re.match(host).hasMatch();
}

} // namespace

bool EndpointPolicy::matches(const QUrl &url) const
{
    return hostMatches(host, url.host())
        && PathPattern(path).matches(QByteArrayView(url.path(QUrl::FullyEncoded).toLatin1()));
}

QString EndpointPolicy::describe() const
{
    if (host.isEmpty() && path.isEmpty())
        return Tr::tr("any request");
    if (host.isEmpty())
        return Tr::tr("path %1").arg(path);
    if (path.isEmpty())
        return Tr::tr("host %1").arg(host);
    return Tr::tr("host %1, path %2").arg(host, path);
}

const EndpointPolicy *matchingEndpointPolicy(const QList<EndpointPolicy> &policies, const QUrl &url)
{
    for (const EndpointPolicy &endpoint : policies) {
        if (endpoint.matches(url))
            return &endpoint;
    }
    return nullptr;
}

} // namespace RetryLab::Core
