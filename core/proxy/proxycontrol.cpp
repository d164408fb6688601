#include "core/proxy/proxycontrol.h"

#include "core/http/controlguard.h"
#include "core/http/httpheaders.h"
#include "core/proxy/proxyserver.h"
#include "core/util/coretr.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
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

ProxyControl::ProxyControl(ProxyServer *proxy, QObject *parent)
    : QObject(parent), m_proxy(proxy), m_tcp(new QTcpServer(this))
{
    connect(m_tcp, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_tcp->nextPendingConnection()) {
            socket->setParent(this);
            auto parser = std::make_shared<HttpRequestParser>();
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QTcpSocket::readyRead, socket, [this, socket, parser] {
                const HttpRequestParser::Status status = parser->feed(socket->readAll());
                if (status == HttpRequestParser::Status::NeedMore)
                    return;
                Answer answer;
                if (status == HttpRequestParser::Status::Error)
                    answer = error(parser->errorStatus(), parser->errorString());
                else if (!m_proxy)
                    answer = error(503, Tr::tr("the proxy is gone"));
                else
                    answer = handle(m_proxy, parser->takeRequest());
                socket->write("HTTP/1.1 " + QByteArray::number(answer.status) + ' ' + reasonPhrase(answer.status)
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(answer.body.size())
                    + "\r\nConnection: close\r\n\r\n" + answer.body);
                QObject::disconnect(socket, &QTcpSocket::readyRead, nullptr, nullptr); // one request per connection
                socket->disconnectFromHost();
            });
        }
    });
}

ProxyControl::~ProxyControl() = default;

bool ProxyControl::listen(const QHostAddress &address, quint16 port)
{
    close();
    if (!address.isLoopback()) {
        m_error = Tr::tr("the control port listens on loopback only, not on %1").arg(address.toString());
        return false;
    }
    if (!m_tcp->listen(address, port)) {
        m_error = Tr::tr("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(m_tcp->errorString());
        return false;
    }
    m_error.clear();
    return true;
}

void ProxyControl::close()
{
    if (m_tcp->isListening())
        m_tcp->close();
}

bool ProxyControl::isListening() const
{
    return m_tcp->isListening();
}

QUrl ProxyControl::url() const
{
    if (!m_tcp->isListening())
        return {};
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(m_tcp->serverAddress().toString());
    url.setPort(m_tcp->serverPort());
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
