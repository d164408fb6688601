#include "core/proxy/toxiproxyapi.h"

#include "core/http/controlguard.h"
#include "core/util/coretr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QUrl>

#include <memory>

namespace RetryLab::Core {

namespace {

using Answer = ToxiproxyApi::Answer;

Answer apiError(int status, const QString &message)
{
    const QJsonObject body{{QStringLiteral("error"), message}, {QStringLiteral("status"), status}};
    return {status, QJsonDocument(body).toJson(QJsonDocument::Compact)};
}

Answer apiJson(int status, const QJsonObject &object)
{
    return {status, QJsonDocument(object).toJson(QJsonDocument::Compact)};
}

Answer apiJson(int status, const QJsonArray &array)
{
    return {status, QJsonDocument(array).toJson(QJsonDocument::Compact)};
}

Answer apiNoContent()
{
    return {204, {}};
}

// A JSON object body; an empty body reads as {}.
Result<QJsonObject> objectBody(const QByteArray &body)
{
    if (body.trimmed().isEmpty())
        return QJsonObject();
    QJsonParseError parse;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parse);
    if (parse.error != QJsonParseError::NoError)
        return Result<QJsonObject>::failure(
            Tr::tr("bad request body: %1 at offset %2").arg(parse.errorString()).arg(parse.offset));
    if (!document.isObject())
        return Result<QJsonObject>::failure(Tr::tr("bad request body: expected a JSON object"));
    return document.object();
}

QString decoded(const QString &part)
{
    return QUrl::fromPercentEncoding(part.toUtf8());
}

bool validProxyName(const QString &name)
{
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9_.:-]{1,100}$"));
    return allowed.match(name).hasMatch();
}

// The listen address of a proxy: loopback only; "localhost:0" picks a port.
Result<void> readListen(const QJsonValue &value, TcpProxyOptions &options)
{
    if (!value.isString())
        return Result<void>::failure(QStringLiteral("listen"), Tr::tr("must be a string HOST:PORT"));
    if (const auto set = options.setListen(value.toString()); !set)
        return Result<void>::failure(QStringLiteral("listen"), set.error());
    if (!options.address.isLoopback() && !options.address.isEqual(QHostAddress::AnyIPv4)
        && !options.address.isEqual(QHostAddress::Any) && !options.address.isEqual(QHostAddress::AnyIPv6)) {
        return Result<void>::failure(
            QStringLiteral("listen"), Tr::tr("must be a loopback address (got %1)").arg(value.toString()));
    }
    // toxiproxy's examples listen on 0.0.0.0 or [::]; here they mean loopback.
    if (!options.address.isLoopback())
        options.address = QHostAddress(QHostAddress::LocalHost);
    return {};
}

} // namespace

ToxiproxyApi::ToxiproxyApi(QObject *parent) : QObject(parent)
{
    m_endpoint = new LoopbackEndpoint(
        Tr::tr("the toxiproxy API"), [this](const HttpRequest &request) { return handle(request); }, &apiError, this);
}

ToxiproxyApi::~ToxiproxyApi() = default;

bool ToxiproxyApi::listen(const QHostAddress &address, quint16 port)
{
    return m_endpoint->listen(address, port);
}

void ToxiproxyApi::close()
{
    m_endpoint->close();
}

bool ToxiproxyApi::isListening() const
{
    return m_endpoint->isListening();
}

QString ToxiproxyApi::errorString() const
{
    return m_endpoint->errorString();
}

QUrl ToxiproxyApi::url() const
{
    return m_endpoint->url();
}

void ToxiproxyApi::setSeed(quint64 seed)
{
    m_seed = seed;
    for (TcpProxy *proxy : std::as_const(m_proxies))
        proxy->setSeed(seed ^ qHash(proxy->name()));
}

TcpProxy *ToxiproxyApi::proxy(const QString &name) const
{
    for (TcpProxy *proxy : m_proxies) {
        if (proxy->name() == name)
            return proxy;
    }
    return nullptr;
}

Answer ToxiproxyApi::handle(const HttpRequest &request)
{
    if (const auto host = request.header("Host"); host && !isLoopbackHost(*host))
        return apiError(
            421, Tr::tr("the Host header must name loopback (got \"%1\")").arg(QString::fromLatin1(host->left(100))));
    if (const auto origin = request.header("Origin"); origin) {
        const QUrl url(QString::fromLatin1(*origin));
        if (!isLoopbackHost(url.host().toLatin1()) && url.host() != QLatin1String("::1"))
            return apiError(
                403, Tr::tr("requests from the origin %1 are not allowed").arg(QString::fromLatin1(origin->left(100))));
    }
    // A page in a browser cannot drive it: browsers mark requests a page of another site makes.
    // (toxiproxy refuses every User-Agent starting "Mozilla/", which Qt's own requests send too.)
    const QByteArray site = request.header("Sec-Fetch-Site").value_or(QByteArray());
    if (site == "cross-site" || site == "same-site")
        return apiError(403, Tr::tr("requests from web pages are not allowed"));
    return route(request);
}

Answer ToxiproxyApi::route(const HttpRequest &request)
{
    const QString path = QString::fromLatin1(request.path);
    QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (QString &part : parts)
        part = decoded(part);
    const QByteArray &method = request.method;
    if (parts == QStringList{QStringLiteral("version")}) {
        if (method != "GET")
            return apiError(405, Tr::tr("method not allowed"));
        return apiJson(200, QJsonObject{{QStringLiteral("version"), QString::fromLatin1(apiVersion)}});
    }
    if (parts == QStringList{QStringLiteral("reset")}) {
        if (method != "POST")
            return apiError(405, Tr::tr("method not allowed"));
        for (TcpProxy *proxy : std::as_const(m_proxies)) {
            proxy->removeAllToxics();
            proxy->setHttpFaultRules({});
            if (!proxy->setEnabled(true))
                return apiError(500, proxy->errorString());
        }
        return apiNoContent();
    }
    if (parts == QStringList{QStringLiteral("populate")}) {
        if (method != "POST")
            return apiError(405, Tr::tr("method not allowed"));
        return populate(request.body);
    }
    if (!parts.isEmpty() && parts.first() == QLatin1String("proxies"))
        return proxiesRoute(request, parts);
    return apiError(
        404, Tr::tr("not found: %1 (the toxiproxy API has /proxies, /populate, /reset, /version)").arg(path.left(200)));
}

Result<TcpProxy *> ToxiproxyApi::createProxy(const QJsonObject &object, int *status)
{
    const auto fail = [status](int code, const QString &field, const QString &message) {
        if (status)
            *status = code;
        return Result<TcpProxy *>::failure(field, message);
    };
    static const QStringList keys{QStringLiteral("name"), QStringLiteral("listen"), QStringLiteral("upstream"),
        QStringLiteral("enabled"), QStringLiteral("toxics")};
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!keys.contains(it.key()))
            return fail(
                400, it.key().left(40), Tr::tr("is not a field of a proxy (%1)").arg(keys.join(QStringLiteral(", "))));
    }
    TcpProxyOptions options;
    options.name = object.value(QStringLiteral("name")).toString();
    if (options.name.isEmpty())
        return fail(400, QStringLiteral("name"), Tr::tr("missing required field: name"));
    if (!validProxyName(options.name))
        return fail(400, QStringLiteral("name"), Tr::tr("must be 1-100 letters, digits, '_', '.', ':' or '-'"));
    if (proxy(options.name))
        return fail(409, QStringLiteral("name"), Tr::tr("proxy already exists"));
    if (m_proxies.size() >= maxProxies)
        return fail(400, QString(), Tr::tr("at most %1 proxies").arg(maxProxies));
    if (!object.value(QStringLiteral("upstream")).isString())
        return fail(400, QStringLiteral("upstream"), Tr::tr("missing required field: upstream"));
    if (const auto set = options.setUpstream(object.value(QStringLiteral("upstream")).toString()); !set)
        return fail(400, QStringLiteral("upstream"), set.error());
    if (object.contains(QStringLiteral("listen"))) {
        if (const auto read = readListen(object.value(QStringLiteral("listen")), options); !read)
            return fail(400, read.errorDetail().path, read.errorDetail().message);
    }
    const QJsonValue enabled = object.value(QStringLiteral("enabled"));
    if (!enabled.isUndefined() && !enabled.isBool())
        return fail(400, QStringLiteral("enabled"), Tr::tr("must be true or false"));
    auto *created = new TcpProxy(options, this);
    if (m_seed)
        created->setSeed(*m_seed ^ qHash(options.name));
    if (enabled.toBool(true) && !created->listen()) {
        const QString why = created->errorString();
        delete created;
        return fail(500, QStringLiteral("listen"), why);
    }
    if (!enabled.toBool(true))
        created->setEnabled(false);
    connect(created, &TcpProxy::linkClosed, this, &ToxiproxyApi::linkClosed);
    connect(created, &TcpProxy::httpExchangeFinished, this,
        [this, name = options.name](const ServerLogEntry &entry) { Q_EMIT httpExchangeFinished(name, entry); });
    m_proxies << created;
    Q_EMIT proxyCreated(created);
    return created;
}

Answer ToxiproxyApi::populate(const QByteArray &body)
{
    QJsonParseError parse;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parse);
    if (parse.error != QJsonParseError::NoError || !document.isArray())
        return apiError(400, Tr::tr("bad request body: expected a JSON array of proxies"));
    QJsonArray created;
    const QJsonArray list = document.array();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject object = list.at(i).toObject();
        const QString name = object.value(QStringLiteral("name")).toString();
        if (TcpProxy *existing = proxy(name)) {
            // Populate replaces a proxy whose address or upstream changed, and keeps one that did not.
            TcpProxyOptions wanted = existing->options();
            if (object.contains(QStringLiteral("upstream")))
                wanted.setUpstream(object.value(QStringLiteral("upstream")).toString());
            if (object.contains(QStringLiteral("listen")))
                readListen(object.value(QStringLiteral("listen")), wanted);
            if (wanted.upstream() == existing->options().upstream()
                && (wanted.port == 0 || wanted.port == existing->serverPort())) {
                created.append(existing->toJson());
                continue;
            }
            removeProxy(existing);
        }
        int status = 400;
        const auto made = createProxy(object, &status);
        if (!made) {
            return apiError(status,
                Tr::tr("proxies[%1]%2: %3")
                    .arg(i)
                    .arg(name.isEmpty() ? QString() : QStringLiteral(" (\"%1\")").arg(name.left(100)), made.error()));
        }
        created.append((*made)->toJson());
    }
    return apiJson(201, QJsonObject{{QStringLiteral("proxies"), created}});
}

Answer ToxiproxyApi::proxiesRoute(const HttpRequest &request, const QStringList &parts)
{
    const QByteArray &method = request.method;
    if (parts.size() == 1) {
        if (method == "GET") {
            QJsonObject all;
            for (const TcpProxy *proxy : std::as_const(m_proxies))
                all.insert(proxy->name(), proxy->toJson());
            return apiJson(200, all);
        }
        if (method != "POST")
            return apiError(405, Tr::tr("method not allowed"));
        const auto object = objectBody(request.body);
        if (!object)
            return apiError(400, object.error());
        int status = 400;
        const auto made = createProxy(*object, &status);
        if (!made)
            return apiError(status, status == 409 ? made.errorDetail().message : made.error());
        return apiJson(201, (*made)->toJson());
    }
    TcpProxy *found = proxy(parts.at(1));
    if (!found)
        return apiError(404, Tr::tr("proxy not found"));
    if (parts.size() >= 3 && parts.at(2) == QLatin1String("toxics"))
        return toxicsRoute(request, found, parts);
    if (parts.size() == 3 && parts.at(2) == QLatin1String("faults"))
        return faultsRoute(request, found);
    if (parts.size() != 2)
        return apiError(404, Tr::tr("not found"));
    if (method == "GET")
        return apiJson(200, found->toJson());
    if (method == "DELETE") {
        removeProxy(found);
        return apiNoContent();
    }
    if (method == "POST" || method == "PATCH") {
        const auto object = objectBody(request.body);
        if (!object)
            return apiError(400, object.error());
        return updateProxy(found, *object);
    }
    return apiError(405, Tr::tr("method not allowed"));
}

Answer ToxiproxyApi::updateProxy(TcpProxy *proxy, const QJsonObject &object)
{
    TcpProxyOptions options = proxy->options();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString key = it.key();
        if (key == QLatin1String("upstream")) {
            if (const auto set = options.setUpstream(it.value().toString()); !set)
                return apiError(400, QStringLiteral("upstream: ") + set.error());
        } else if (key == QLatin1String("listen")) {
            if (const auto read = readListen(it.value(), options); !read)
                return apiError(400, read.error());
        } else if (key == QLatin1String("name")) {
            if (it.value().toString() != proxy->name())
                return apiError(400, Tr::tr("name: cannot change; delete the proxy and create another"));
        } else if (key == QLatin1String("enabled")) {
            if (!it.value().isBool())
                return apiError(400, Tr::tr("enabled: must be true or false"));
        } else if (key != QLatin1String("toxics")) {
            return apiError(400, Tr::tr("%1: is not a field of a proxy").arg(key.left(40)));
        }
    }
    if (!proxy->reconfigure(options))
        return apiError(500, proxy->errorString());
    if (object.contains(QStringLiteral("enabled"))) {
        if (!proxy->setEnabled(object.value(QStringLiteral("enabled")).toBool()))
            return apiError(500, proxy->errorString());
    }
    return apiJson(200, proxy->toJson());
}

void ToxiproxyApi::removeProxy(TcpProxy *proxy)
{
    const QString name = proxy->name();
    m_proxies.removeOne(proxy);
    proxy->close();
    proxy->deleteLater();
    Q_EMIT proxyRemoved(name);
}

Answer ToxiproxyApi::faultsRoute(const HttpRequest &request, TcpProxy *proxy)
{
    // RetryLab's own: HTTP fault rules for a proxy whose upstream speaks HTTP/1.1.
    const QByteArray &method = request.method;
    if (method == "GET")
        return apiJson(200, proxy->httpFaultState());
    if (method == "DELETE") {
        proxy->setHttpFaultRules({});
        return apiNoContent();
    }
    if (method != "POST")
        return apiError(405, Tr::tr("method not allowed"));
    const auto rules = FaultRuleList::fromJson(request.body);
    if (!rules)
        return apiError(400, rules.error());
    if (const auto set = proxy->setHttpFaultRules(*rules); !set)
        return apiError(500, set.error());
    return apiJson(200, proxy->httpFaultState());
}

Answer ToxiproxyApi::toxicsRoute(const HttpRequest &request, TcpProxy *proxy, const QStringList &parts)
{
    const QByteArray &method = request.method;
    if (parts.size() == 3) {
        if (method == "GET") {
            QJsonArray toxics;
            for (const Toxic &toxic : proxy->toxics())
                toxics.append(toxic.toJson());
            return apiJson(200, toxics);
        }
        if (method != "POST")
            return apiError(405, Tr::tr("method not allowed"));
        const auto object = objectBody(request.body);
        if (!object)
            return apiError(400, object.error());
        const auto toxic = Toxic::fromJson(*object);
        if (!toxic)
            return apiError(400, toxic.error());
        if (const auto added = proxy->addToxic(*toxic); !added) {
            const bool taken = proxy->toxic(toxic->name) != nullptr;
            return apiError(taken ? 409 : 400, taken ? Tr::tr("toxic already exists") : added.error());
        }
        return apiJson(200, toxic->toJson());
    }
    if (parts.size() != 4)
        return apiError(404, Tr::tr("not found"));
    const QString name = parts.at(3);
    const Toxic *toxic = proxy->toxic(name);
    if (!toxic)
        return apiError(404, Tr::tr("toxic not found"));
    if (method == "GET")
        return apiJson(200, toxic->toJson());
    if (method == "DELETE") {
        proxy->removeToxic(name);
        return apiNoContent();
    }
    if (method == "POST" || method == "PATCH") {
        const auto object = objectBody(request.body);
        if (!object)
            return apiError(400, object.error());
        const auto updated = proxy->updateToxic(name, *object);
        if (!updated)
            return apiError(400, updated.error());
        return apiJson(200, updated->toJson());
    }
    return apiError(405, Tr::tr("method not allowed"));
}

} // namespace RetryLab::Core
