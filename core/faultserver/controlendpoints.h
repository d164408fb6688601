#pragma once

#include "core/faultserver/responseplan.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

#include <functional>

namespace RetryLab::Core {

class RequestTarget;
class ScriptedTests;
class ServerLog;
struct HttpRequest;

/// The fault server's control API under /_control: scripted tests (POST and GET
/// /_control/tests, GET and DELETE /_control/tests/{id}), the log (GET
/// /_control/log?since=&limit=), POST /_control/reset, and the HTTPS side (GET
/// /_control/ca.pem, GET /_control/tls, POST|DELETE /_control/tls/handshakes). Like FaultEndpoints it
/// turns a request into a ResponsePlan without a socket; the state it reads and
/// changes belongs to the server, which lends it here.
class ControlEndpoints final
{
public:
    /// What the control API reads and changes of the server's HTTPS side.
    class Tls
    {
    public:
        virtual ~Tls() = default;
        /// The certificates a client should trust (PEM); empty while HTTPS is off.
        virtual QByteArray trustAnchorsPem() const = 0;
        /// The HTTPS port, the port of each fault and the handshake script left, as JSON.
        virtual QJsonObject describeTls() const = 0;
        /// Replaces the handshake script of the HTTPS port; the steps as stored, or why not.
        virtual Result<QStringList> setHandshakeScript(const QStringList &steps) = 0;
    };

    /// `resetServer` forgets everything the server holds (FaultServer::reset()).
    ControlEndpoints(ScriptedTests &tests, const ServerLog &log, Tls &tls, std::function<void()> resetServer);

    /// True for the paths under /_control.
    static bool owns(const RequestTarget &target);
    ResponsePlan handle(const HttpRequest &request, const RequestTarget &target);

private:
    ResponsePlan testsEndpoint(const HttpRequest &request);
    ResponsePlan testEndpoint(const HttpRequest &request, const QString &id);
    ResponsePlan logEndpoint(const HttpRequest &request, const RequestTarget &target);
    ResponsePlan tlsEndpoint(const HttpRequest &request, const QStringList &segments);

    ScriptedTests &m_tests;
    const ServerLog &m_log;
    Tls &m_tls;
    std::function<void()> m_resetServer;
};

} // namespace RetryLab::Core
