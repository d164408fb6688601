#include "core/proxy/proxycontrol.h"

#include "core/http/controlguard.h"
#include "core/http/httpheaders.h"
#include "core/proxy/proxyserver.h"
#include "core/util/coretr.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrlQuery>

namespace RetryLab::Core {

namespace {

ProxyControl::Answer error(int status, const QString &message)
{
    return {status, QJsonDocument(QJsonObject{{QStringLiteral("error"), message}}).toJson(QJsonDocument::Compact)};
}

ProxyControl::Answer state(const ProxyServer *proxy)
{
    return {200, QJsonDocument(proxy->faultState()).toJson(QJsonDocument::Indented)};
}

std::optional<bool> boolean(const QString &text)
{
    if (text == QLatin1String("true") || text == QLatin1String("on") || text == QLatin1String("1"))
        return true;
    if (text == QLatin1String("false") || text == QLatin1String("off") || text == QLatin1String("0"))
        return false;
    return std::nullopt;
}

/// Switches one rule or all; the answer of the change.
ProxyControl::Answer toggle(ProxyServer *proxy, const std::optional<QString> &rule, bool enabled)
{
    if (rule) {
        if (!proxy->setFaultEnabled(*rule, enabled)) {
            QStringList names;
            for (const FaultRule &r : proxy->faultRules())
                names << r.name;
            return error(404,
                Tr::tr("no rule named \"%1\" (rules: %2)")
                    .arg(rule->left(80), names.isEmpty() ? Tr::tr("none") : names.join(QStringLiteral(", "))));
        }
    } else {
        proxy->setAllFaultsEnabled(enabled);
    }
    return state(proxy);
}

} // namespace

ProxyControl::ProxyControl(ProxyServer *proxy, QObject *parent) : QObject(parent), m_proxy(proxy)
{
    m_endpoint = new LoopbackEndpoint(
        Tr::tr("the control port"),
        [this](const HttpRequest &request) {
            return m_proxy ? handle(m_proxy, request) : error(503, Tr::tr("the proxy is gone"));
        },
        &error, this);
}

ProxyControl::~ProxyControl() = default;

bool ProxyControl::listen(const QHostAddress &address, quint16 port)
{
    return m_endpoint->listen(address, port);
}

void ProxyControl::close()
{
    m_endpoint->close();
}

bool ProxyControl::isListening() const
{
    return m_endpoint->isListening();
}

QString ProxyControl::errorString() const
{
    return m_endpoint->errorString();
}

QUrl ProxyControl::url() const
{
    QUrl url = m_endpoint->url();
    if (!url.isEmpty())
        url.setPath(QStringLiteral("/_control/faults"));
    return url;
}

ProxyControl::Answer ProxyControl::handle(ProxyServer *proxy, const HttpRequest &request)
{
    // The same guard as the fault server's control endpoints: no web page may switch the rules.
    if (const auto refusal = controlRequestRefusal(request))
        return error(refusal->status, refusal->message);
    if (request.path != "/_control/faults")
        return error(404, Tr::tr("the control port answers /_control/faults only"));
    if (request.method == "GET")
        return state(proxy);
    if (request.method != "POST")
        return error(405, Tr::tr("use GET to read the rules and POST to change them"));

    const QUrlQuery query(QString::fromUtf8(request.query));
    if (query.hasQueryItem(QStringLiteral("enabled"))) {
        const auto enabled = boolean(query.queryItemValue(QStringLiteral("enabled")));
        if (!enabled)
            return error(400, Tr::tr("enabled must be true or false"));
        std::optional<QString> rule;
        if (query.hasQueryItem(QStringLiteral("rule")))
            rule = query.queryItemValue(QStringLiteral("rule"), QUrl::FullyDecoded);
        return toggle(proxy, rule, *enabled);
    }
    if (request.body.trimmed().isEmpty())
        return error(400, Tr::tr("say what to change: ?enabled=false, ?rule=NAME&enabled=true, or a JSON body"));

    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return error(400, Tr::tr("the body is not a JSON object: %1").arg(parseError.errorString()));
    const QJsonObject o = doc.object();
    if (o.contains(QStringLiteral("format"))) {
        const Result<FaultRuleList> rules = FaultRuleList::fromJson(request.body);
        if (!rules)
            return error(400, rules.error());
        proxy->setFaultRules(*rules);
        return state(proxy);
    }
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.key() != QLatin1String("rule") && it.key() != QLatin1String("enabled"))
            return error(400,
                Tr::tr("unknown field \"%1\": send \"enabled\" and perhaps \"rule\", or a "
                       "retrylab-faults document")
                    .arg(it.key().left(40)));
    }
    if (!o.value(QStringLiteral("enabled")).isBool())
        return error(400, Tr::tr("\"enabled\" must be true or false"));
    std::optional<QString> rule;
    if (o.contains(QStringLiteral("rule"))) {
        if (!o.value(QStringLiteral("rule")).isString())
            return error(400, Tr::tr("\"rule\" must be a rule's name"));
        rule = o.value(QStringLiteral("rule")).toString();
    }
    return toggle(proxy, rule, o.value(QStringLiteral("enabled")).toBool());
}

} // namespace RetryLab::Core
