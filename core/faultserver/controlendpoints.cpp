#include "core/faultserver/controlendpoints.h"

#include "core/faultserver/requesttarget.h"
#include "core/faultserver/scriptedtests.h"
#include "core/faultserver/serverlog.h"
#include "core/http/controlguard.h"
#include "core/http/httprequestparser.h"
#include "core/util/coretr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <limits>

namespace RetryLab::Core {

namespace {

ResponsePlan wrongMethod(const char *allowed)
{
    ResponsePlan p = ResponsePlan::error(405, Tr::tr("this control endpoint takes %1").arg(QLatin1String(allowed)));
    p.addHeader("Allow", allowed);
    return p;
}

ResponsePlan noTest(const QString &id)
{
    return ResponsePlan::error(404, Tr::tr("no test \"%1\"").arg(RequestTarget::shortened(id)));
}

} // namespace

ControlEndpoints::ControlEndpoints(
    ScriptedTests &tests, const ServerLog &log, Tls &tls, std::function<void()> resetServer)
    : m_tests(tests), m_log(log), m_tls(tls), m_resetServer(std::move(resetServer))
{ }

bool ControlEndpoints::owns(const RequestTarget &target)
{
    return target.segments().value(0) == QLatin1String("_control");
}

ResponsePlan ControlEndpoints::handle(const HttpRequest &r, const RequestTarget &target)
{
    // A web page could reach the server too: not its control endpoints.
    if (const auto refusal = controlRequestRefusal(r))
        return ResponsePlan::error(refusal->status, refusal->message);
    const QStringList &segments = target.segments();
    const QString what = segments.value(1);
    if (what == QLatin1String("tests") && segments.size() == 2)
        return testsEndpoint(r);
    if (what == QLatin1String("tests") && segments.size() == 3)
        return testEndpoint(r, segments[2]);
    if (what == QLatin1String("log") && segments.size() == 2)
        return logEndpoint(r, target);
    if ((what == QLatin1String("ca.pem") && segments.size() == 2) || what == QLatin1String("tls"))
        return tlsEndpoint(r, segments);
    if (what == QLatin1String("reset") && segments.size() == 2) {
        if (r.method != "POST")
            return wrongMethod("POST");
        m_resetServer();
        return ResponsePlan::json(
            200, QJsonObject{{QStringLiteral("reset"), true}}, Tr::tr("forgot keys, tests, resources and the log"));
    }
    return ResponsePlan::error(
        404, Tr::tr("no control endpoint at /%1").arg(RequestTarget::shortened(segments.join(QLatin1Char('/')))));
}

ResponsePlan ControlEndpoints::testsEndpoint(const HttpRequest &r)
{
    if (r.method == "GET") {
        QJsonArray list;
        for (const ScriptedTestStatus &s : m_tests.statuses()) {
            list.append(QJsonObject{{QStringLiteral("id"), s.id}, {QStringLiteral("consumed"), s.consumed},
                {QStringLiteral("remaining"), s.instructions.size() - s.consumed}});
        }
        return ResponsePlan::json(
            200, QJsonObject{{QStringLiteral("tests"), list}}, Tr::tr("listed %n test(s)", nullptr, int(list.size())));
    }
    if (r.method != "POST")
        return wrongMethod("GET, POST");
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(r.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        return ResponsePlan::error(
            400, Tr::tr("the body must be a JSON object like {\"instructions\": [\"return-503\"]}"));
    }
    const QJsonValue value = doc.object().value(QStringLiteral("instructions"));
    if (!value.isArray())
        return ResponsePlan::error(400, Tr::tr("\"instructions\" must be an array of strings"));
    QStringList instructions;
    for (const QJsonValue &item : value.toArray()) {
        if (!item.isString())
            return ResponsePlan::error(400, Tr::tr("\"instructions\" must be an array of strings"));
        instructions.append(item.toString());
    }
    const Result<QString> created = m_tests.create(instructions);
    if (!created)
        return ResponsePlan::error(400, created.error());
    const QString id = *created;
    const auto status = m_tests.status(id);
    return ResponsePlan::json(201,
        QJsonObject{{QStringLiteral("id"), id},
            {QStringLiteral("instructions"),
                QJsonArray::fromStringList(status ? status->instructions : QStringList())}},
        Tr::tr("created test %1 with %n step(s)", nullptr, status ? int(status->instructions.size()) : 0).arg(id));
}

ResponsePlan ControlEndpoints::testEndpoint(const HttpRequest &r, const QString &id)
{
    if (r.method == "DELETE") {
        if (!m_tests.remove(id))
            return noTest(id);
        return ResponsePlan::json(200, QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("deleted"), true}},
            Tr::tr("deleted test %1").arg(id));
    }
    if (r.method != "GET" && r.method != "HEAD")
        return wrongMethod("GET, DELETE");
    const auto status = m_tests.status(id);
    if (!status)
        return noTest(id);
    return ResponsePlan::json(200,
        QJsonObject{{QStringLiteral("id"), status->id},
            {QStringLiteral("instructions"), QJsonArray::fromStringList(status->instructions)},
            {QStringLiteral("consumed"), status->consumed},
            {QStringLiteral("remaining"), status->instructions.size() - status->consumed},
            {QStringLiteral("replays"), status->replays}},
        Tr::tr("test %1: %2 of %n step(s) used", nullptr, int(status->instructions.size()))
            .arg(status->id)
            .arg(status->consumed));
}

ResponsePlan ControlEndpoints::logEndpoint(const HttpRequest &r, const RequestTarget &target)
{
    if (r.method != "GET" && r.method != "HEAD")
        return wrongMethod("GET");
    const int capacity = m_log.capacity();
    const auto since = target.integer("since", 0, std::numeric_limits<qint64>::max() / 2, 0);
    if (!since)
        return ResponsePlan::error(400, since.error());
    const auto limit = target.integer("limit", 1, capacity, std::min(capacity, 1000));
    if (!limit)
        return ResponsePlan::error(400, limit.error());
    QJsonArray entries;
    for (const ServerLogEntry &e : m_log.since(static_cast<quint64>(*since), *limit))
        entries.append(e.toJson());
    return ResponsePlan::json(
        200, QJsonObject{{QStringLiteral("entries"), entries}}, Tr::tr("listed %1 log entries").arg(entries.size()));
}

ResponsePlan ControlEndpoints::tlsEndpoint(const HttpRequest &r, const QStringList &segments)
{
    const QByteArray pem = m_tls.trustAnchorsPem();
    if (pem.isEmpty()) {
        return ResponsePlan::error(404,
            Tr::tr("this server does not serve HTTPS; start it with an HTTPS port (retrylab serve --https-port N)"));
    }
    if (segments.value(1) == QLatin1String("ca.pem")) {
        if (r.method != "GET" && r.method != "HEAD")
            return wrongMethod("GET");
        ResponsePlan p;
        p.body = pem;
        p.contentType = "application/x-pem-file";
        p.detail = Tr::tr("served the CA certificate to trust");
        return p;
    }
    if (segments.size() == 2) {
        if (r.method != "GET" && r.method != "HEAD")
            return wrongMethod("GET");
        return ResponsePlan::json(200, m_tls.describeTls(), Tr::tr("described the HTTPS ports"));
    }
    if (segments.size() != 3 || segments[2] != QLatin1String("handshakes"))
        return ResponsePlan::error(
            404, Tr::tr("no control endpoint at /%1").arg(RequestTarget::shortened(segments.join(QLatin1Char('/')))));
    QStringList steps;
    if (r.method == "POST") {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(r.body, &parseError);
        const QJsonValue value = doc.object().value(QStringLiteral("steps"));
        if (parseError.error != QJsonParseError::NoError || !doc.isObject() || !value.isArray()) {
            return ResponsePlan::error(
                400, Tr::tr("the body must be a JSON object like {\"steps\": [\"tls-cut\", \"expired\"]}"));
        }
        for (const QJsonValue &item : value.toArray()) {
            if (!item.isString())
                return ResponsePlan::error(400, Tr::tr("\"steps\" must be an array of strings"));
            steps.append(item.toString());
        }
    } else if (r.method != "DELETE") {
        return wrongMethod("POST, DELETE");
    }
    const Result<QStringList> stored = m_tls.setHandshakeScript(steps);
    if (!stored)
        return ResponsePlan::error(400, stored.error());
    return ResponsePlan::json(200,
        QJsonObject{{QStringLiteral("handshakeScript"), QJsonArray::fromStringList(*stored)}},
        Tr::tr("the next %n TLS handshake(s) on the HTTPS port follow the script", nullptr, int(stored->size())));
}

} // namespace RetryLab::Core
