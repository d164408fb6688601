#include "core/policy/endpointpolicy.h"

#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace RetryLab::Core {

namespace {

bool wildcardMatch(const QString &pattern, const QString &text, Qt::CaseSensitivity cs)
{
    if (pattern.isEmpty())
        return true;
    QRegularExpression re(
        QRegularExpression::wildcardToRegularExpression(pattern, QRegularExpression::UnanchoredWildcardConversion));
    re.setPattern(QStringLiteral("\\A(?:") + re.pattern() + QStringLiteral(")\\z"));
    if (cs == Qt::CaseInsensitive)
        re.setPatternOptions(QRegularExpression::CaseInsensitiveOption);
    return re.match(text).hasMatch();
}

} // namespace

bool EndpointPolicy::matches(const QUrl &url) const
{
    return wildcardMatch(host, url.host(), Qt::CaseInsensitive)
        && wildcardMatch(path, url.path().isEmpty() ? QStringLiteral("/") : url.path(), Qt::CaseSensitive);
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
