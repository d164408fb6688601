#include "ui/session/hosting/proxysettings.h"

#include "core/util/jsonreader.h"
#include "ui/session/uitr.h"

#include <QJsonDocument>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

QString ProxySettings::upstreamText() const
{
    return upstreamIsServer ? serverPlaceholder() + upstream.toString() : upstream.toString();
}

void ProxySettings::setUpstreamText(const QString &text)
{
    const QString typed = text.trimmed();
    upstreamIsServer = typed.startsWith(serverPlaceholder());
    upstream = upstreamIsServer ? QUrl(typed.mid(serverPlaceholder().size())) : QUrl(typed, QUrl::StrictMode);
}

QUrl ProxySettings::resolvedUpstream(const QUrl &server) const
{
    if (!upstreamIsServer)
        return upstream;
    if (server.isEmpty())
        return {};
    QUrl resolved = server;
    resolved.setPath(server.path() + upstream.path());
    resolved.setQuery(upstream.query());
    return resolved;
}

QString ProxySettings::upstreamProblem(const QUrl &server) const
{
    if (forward)
        return {};
    const QString hint
        = Tr::tr("type an http:// or https:// URL with a host, or {server} for RetryLab's own fault server");
    if (upstreamIsServer) {
        if (server.isEmpty())
            return Tr::tr("{server} stands for RetryLab's own fault server, which is not running");
        if (!upstream.path().isEmpty() && !upstream.path().startsWith(QLatin1Char('/')))
            return Tr::tr("what follows {server} must be a path starting with /, as in {server}/api");
        return {};
    }
    if (upstream.isEmpty())
        return Tr::tr("no upstream: %1").arg(hint);
    // An invalid URL has no text of its own to quote: its error says what is wrong instead.
    if (!upstream.isValid())
        return Tr::tr("the upstream is not a URL (%1): %2").arg(upstream.errorString(), hint);
    if (upstream.host().isEmpty()
        || (upstream.scheme() != QLatin1String("http") && upstream.scheme() != QLatin1String("https")))
        return Tr::tr("the upstream %1 is not a URL the proxy can forward to: %2").arg(upstream.toString(), hint);
    return {};
}

QJsonObject ProxySettings::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("upstream"), upstreamText()},
        {QStringLiteral("port"), int(port)}, {QStringLiteral("keepHost"), keepHost},
        {QStringLiteral("caBundle"), caBundlePath}, {QStringLiteral("record"), recordDirectory},
        {QStringLiteral("forward"), forward}, {QStringLiteral("faults"), rules.toJson()}};
}

Result<ProxySettings> ProxySettings::fromJson(const QJsonObject &object)
{
    JsonReader r(object);
    r.rejectUnknown(
        {QStringLiteral("name"), QStringLiteral("upstream"), QStringLiteral("port"), QStringLiteral("keepHost"),
            QStringLiteral("caBundle"), QStringLiteral("record"), QStringLiteral("forward"), QStringLiteral("faults")});
    ProxySettings s;
    s.name = r.string(QStringLiteral("name")).value_or(QString());
    s.forward = r.boolean(QStringLiteral("forward")).value_or(false);
    const auto upstream = r.string(QStringLiteral("upstream"), s.forward ? Presence::Optional : Presence::Required);
    if (upstream)
        s.setUpstreamText(*upstream);
    s.port = quint16(r.integer(QStringLiteral("port"), 0, 65535).value_or(0));
    s.keepHost = r.boolean(QStringLiteral("keepHost")).value_or(false);
    s.caBundlePath = r.string(QStringLiteral("caBundle")).value_or(QString());
    s.recordDirectory = r.string(QStringLiteral("record")).value_or(QString());
    if (r.failed())
        return Result<ProxySettings>(r.firstError());
    if (object.contains(QStringLiteral("faults"))) {
        const auto rules
            = FaultRuleList::fromJson(QJsonDocument(object.value(QStringLiteral("faults")).toObject()).toJson());
        if (!rules)
            return Result<ProxySettings>(rules.errorDetail().under(QStringLiteral("faults")));
        s.rules = *rules;
    }
    return s;
}

bool ProxySettings::operator==(const ProxySettings &other) const
{
    return name == other.name && upstream == other.upstream && upstreamIsServer == other.upstreamIsServer
        && port == other.port && keepHost == other.keepHost && caBundlePath == other.caBundlePath
        && recordDirectory == other.recordDirectory && forward == other.forward && rules.rules == other.rules.rules
        && rules.seed == other.rules.seed;
}

} // namespace RetryLab::Ui
