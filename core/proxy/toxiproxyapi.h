#pragma once

#include "core/http/httprequestparser.h"
#include "core/proxy/loopbackendpoint.h"
#include "core/proxy/tcpproxy.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>

namespace RetryLab::Core {

/// toxiproxy's HTTP API on loopback, over RetryLab's TCP proxies (TcpProxy),
/// so that a test suite written against toxiproxy drives RetryLab unchanged:
///
///     GET    /version                       {"version": "..."}
///     GET    /proxies                       {"name": proxy, ...}
///     POST   /proxies                       create {name, listen, upstream, enabled}: 201
///     POST   /populate                      create or replace a list: 201 {"proxies": [...]}
///     GET    /proxies/{name}                the proxy, with its toxics
///     POST   /proxies/{name}                change listen, upstream, enabled
///     DELETE /proxies/{name}                204
///     GET    /proxies/{name}/toxics         [toxic, ...]
///     POST   /proxies/{name}/toxics         add {name, type, stream, toxicity, attributes}
///     GET    /proxies/{name}/toxics/{toxic}
///     POST   /proxies/{name}/toxics/{toxic} change toxicity, stream, attributes
///     DELETE /proxies/{name}/toxics/{toxic} 204
///     POST   /reset                         every proxy enabled, every toxic removed: 204
///
/// And RetryLab's own, for a proxy whose upstream speaks HTTP/1.1: its HTTP fault
/// rules (FaultRule, a retrylab-faults document), behind the toxics:
///
///     GET    /proxies/{name}/faults         the rules, their state and counts
///     POST   /proxies/{name}/faults         a retrylab-faults document: replaces them
///     DELETE /proxies/{name}/faults         none: bytes go straight to the upstream (204)
///
/// Errors are toxiproxy's shape, {"error": "proxy not found", "status": 404}:
/// 400 for a body that does not read (naming the field), 404, 405, 409 for a
/// name taken, 500 when a proxy cannot listen. Proxies listen on loopback only.
/// A web page cannot drive it: a request a browser marks as another site's
/// (Sec-Fetch-Site) is refused, and so is a Host or Origin that is not
/// loopback (DNS rebinding).
class ToxiproxyApi final : public QObject
{
    Q_OBJECT

public:
    /// The toxiproxy API version answered by /version.
    static constexpr const char *apiVersion = "2.12.0";
    /// Proxies one API keeps at most.
    static constexpr qsizetype maxProxies = 1000;

    explicit ToxiproxyApi(QObject *parent = nullptr);
    ~ToxiproxyApi() override;

    /// Listens on a loopback address only; false with errorString() otherwise.
    bool listen(const QHostAddress &address = QHostAddress(QHostAddress::LocalHost), quint16 port = 8474);
    void close();
    bool isListening() const;
    QString errorString() const;
    /// "http://127.0.0.1:8474".
    QUrl url() const;

    using Answer = LoopbackEndpoint::Answer;
    /// What the API answers to a request; it changes the proxies.
    Answer handle(const HttpRequest &request);

    /// Creates a proxy as POST /proxies does; errors say why (and `status` the HTTP status).
    Result<TcpProxy *> createProxy(const QJsonObject &object, int *status = nullptr);
    TcpProxy *proxy(const QString &name) const;
    const QList<TcpProxy *> &proxies() const { return m_proxies; }
    /// Seed of every proxy's toxicity draws, from now on.
    void setSeed(quint64 seed);

Q_SIGNALS:
    void proxyCreated(RetryLab::Core::TcpProxy *proxy);
    void proxyRemoved(const QString &name);
    /// A connection through any of the proxies ended.
    void linkClosed(const RetryLab::Core::TcpLinkSummary &summary);
    /// An HTTP exchange through a proxy's fault rules.
    void httpExchangeFinished(const QString &proxy, const RetryLab::Core::ServerLogEntry &entry);

private:
    Answer route(const HttpRequest &request);
    Answer proxiesRoute(const HttpRequest &request, const QStringList &parts);
    Answer toxicsRoute(const HttpRequest &request, TcpProxy *proxy, const QStringList &parts);
    Answer faultsRoute(const HttpRequest &request, TcpProxy *proxy);
    Answer populate(const QByteArray &body);
    Answer updateProxy(TcpProxy *proxy, const QJsonObject &object);
    void removeProxy(TcpProxy *proxy);

    LoopbackEndpoint *m_endpoint;
    QList<TcpProxy *> m_proxies;
    std::optional<quint64> m_seed;
};

} // namespace RetryLab::Core
