#pragma once

#include "core/faultserver/responseplan.h"

#include <functional>

namespace RetryLab::Core {

class RequestTarget;
class ScriptedTests;
class ServerLog;
struct HttpRequest;

/// The fault server's control API under /_control: scripted tests (POST and GET
/// /_control/tests, GET and DELETE /_control/tests/{id}), the log (GET
/// /_control/log?since=&limit=) and POST /_control/reset. Like FaultEndpoints it
/// turns a request into a ResponsePlan without a socket; the state it reads and
/// changes belongs to the server, which lends it here.
class ControlEndpoints final
{
public:
    /// `resetServer` forgets everything the server holds (FaultServer::reset()).
    ControlEndpoints(ScriptedTests &tests, const ServerLog &log, std::function<void()> resetServer);

    /// True for the paths under /_control.
    static bool owns(const RequestTarget &target);
    ResponsePlan handle(const HttpRequest &request, const RequestTarget &target);

private:
    ResponsePlan testsEndpoint(const HttpRequest &request);
    ResponsePlan testEndpoint(const HttpRequest &request, const QString &id);
    ResponsePlan logEndpoint(const HttpRequest &request, const RequestTarget &target);

    ScriptedTests &m_tests;
    const ServerLog &m_log;
    std::function<void()> m_resetServer;
};

} // namespace RetryLab::Core
