#pragma once

#include "core/scripting/scriptsandbox.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

// What the sandbox tests share: a response to check and a run of one script
// with everything it read and wrote.
namespace SandboxTesting {

using RetryLab::Core::RunScript;
using RetryLab::Core::ScriptInfo;
using RetryLab::Core::ScriptOutcome;
using RetryLab::Core::ScriptRequest;
using RetryLab::Core::ScriptResponse;
using RetryLab::Core::ScriptSandbox;
using RetryLab::Core::ScriptScopes;

/// A script's text. (Not QStringLiteral: moc's preprocessor trips over long
/// raw strings passed to a macro.)
inline QString js(const char *source)
{
    return QString::fromUtf8(source);
}

inline ScriptResponse jsonResponse(int code = 200, const QString &status = QStringLiteral("OK"),
    const QByteArray &body = QByteArrayLiteral(R"js({"id":7,"name":"widget","tags":["a","b"],"nested":{"ok":true}})js"))
{
    ScriptResponse response;
    response.code = code;
    response.status = status;
    response.headers = {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")},
        {QByteArrayLiteral("X-Request-Id"), QByteArrayLiteral("abc-123")},
        {QByteArrayLiteral("Set-Cookie"), QByteArrayLiteral("session=s1; Path=/; HttpOnly")}};
    response.body = body;
    response.responseTimeMs = 42.5;
    return response;
}

inline ScriptRequest sampleRequest()
{
    ScriptRequest request;
    request.id = QStringLiteral("req-1");
    request.name = QStringLiteral("Create widget");
    request.method = QStringLiteral("POST");
    request.url = QStringLiteral("https://{{host}}/api/widgets?page=1&size=10");
    request.headers = {{QStringLiteral("Content-Type"), QStringLiteral("application/json")},
        {QStringLiteral("X-Trace"), QStringLiteral("t1")}};
    request.body = QStringLiteral(R"js({"name":"widget"})js");
    return request;
}

inline ScriptInfo sampleInfo()
{
    ScriptInfo info;
    info.requestName = QStringLiteral("Create widget");
    info.requestId = QStringLiteral("req-1");
    info.iteration = 1;
    info.iterationCount = 3;
    return info;
}

/// One script run, and the state it left.
struct Run
{
    ScriptOutcome outcome;
    ScriptScopes scopes;
    ScriptRequest request = sampleRequest();
};

inline RunScript script(const QString &source, int firstLine = 0)
{
    return RunScript{source, QStringLiteral("item[0].event[1]"), firstLine};
}

/// A test script (pm.response / res is `response`) against `scopes`.
inline Run runTest(ScriptSandbox &sandbox, const QString &source, const ScriptResponse &response = jsonResponse(),
    const ScriptScopes &scopes = {})
{
    Run run;
    run.scopes = scopes;
    run.outcome
        = sandbox.run(script(source), ScriptSandbox::Event::Test, run.scopes, run.request, &response, sampleInfo());
    return run;
}

inline Run runPreRequest(ScriptSandbox &sandbox, const QString &source, const ScriptScopes &scopes = {})
{
    Run run;
    run.scopes = scopes;
    run.outcome
        = sandbox.run(script(source), ScriptSandbox::Event::PreRequest, run.scopes, run.request, nullptr, sampleInfo());
    return run;
}

/// The tests of an outcome as "name: pass", "name: fail: why", "name: skip", for one QCOMPARE.
inline QStringList testLines(const ScriptOutcome &outcome)
{
    QStringList lines;
    for (const auto &test : outcome.tests) {
        if (test.skipped)
            lines.append(test.name + QStringLiteral(": skip"));
        else if (test.passed)
            lines.append(test.name + QStringLiteral(": pass"));
        else
            lines.append(test.name + QStringLiteral(": fail: ") + test.error);
    }
    return lines;
}

} // namespace SandboxTesting
