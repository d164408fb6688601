#pragma once

#include "core/http/httprequestparser.h"
#include "core/proxy/loopbackendpoint.h"

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QUrl>

namespace RetryLab::Core {

class ProxyServer;

/// The control port of a fault proxy, loopback only: switches its fault rules
/// while traffic flows, as toxiproxy's API does, so that an outage can be
/// started and ended by hand (curl, a script, a test).
///
///     GET  /_control/faults                      the rules, switched on or off, with counts
///     POST /_control/faults?enabled=false        every rule off (true: on)
///     POST /_control/faults?rule=NAME&enabled=true
///     POST /_control/faults  {"enabled": false} or {"rule": "NAME", "enabled": true}
///     POST /_control/faults  a retrylab-faults document: replaces the rules
///
/// Every answer is JSON: the state after the change (FaultRuleSet::stateJson()),
/// or {"error": "..."} with 400 (a bad request), 404 (no such rule or path) or 405.
class ProxyControl final : public QObject
{
    Q_OBJECT

public:
    explicit ProxyControl(ProxyServer *proxy, QObject *parent = nullptr);
    ~ProxyControl() override;

    /// Listens on a loopback address only; false with errorString() otherwise.
    bool listen(const QHostAddress &address = QHostAddress(QHostAddress::LocalHost), quint16 port = 0);
    void close();
    bool isListening() const;
    QString errorString() const;
    /// "http://127.0.0.1:PORT/_control/faults".
    QUrl url() const;

    using Answer = LoopbackEndpoint::Answer;
    /// What the control port answers to a request; it changes the proxy's rules.
    static Answer handle(ProxyServer *proxy, const HttpRequest &request);

private:
    QPointer<ProxyServer> m_proxy;
    LoopbackEndpoint *m_endpoint;
};

} // namespace RetryLab::Core
