#pragma once

#include "core/scripting/scriptscopes.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace RetryLab::Core {

class DynamicVariables;

/// Whose scripts: Postman's (the pm API) or Bruno's (bru, req, res, test, expect).
enum class ScriptDialect { Postman, Bruno };

/// A script of a collection, with where it came from for the messages.
struct RunScript
{
    QString source;
    /// "item[2].event[0]" (Postman), "users/create.bru" (Bruno).
    QString place;
    /// The line of its file where `source` begins (1-based), so that an error's line
    /// is the file's; 0 when the file has no lines to speak of (JSON).
    int firstLine = 0;

    bool isEmpty() const { return source.trimmed().isEmpty(); }
    friend bool operator==(const RunScript &, const RunScript &) = default;
};

/// The request as a script sees it (pm.request, Bruno's req). A pre-request script
/// may change it; the runner sends what it left.
struct ScriptRequest
{
    QString id;
    QString name;
    QString method;
    QString url;
    QList<QPair<QString, QString>> headers;
    QString body;
    friend bool operator==(const ScriptRequest &, const ScriptRequest &) = default;
};

/// The answer a test script checks (pm.response, Bruno's res).
struct ScriptResponse
{
    int code = 0;
    /// The reason phrase: "OK", "Service Unavailable".
    QString status;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    double responseTimeMs = 0.0;
};

/// pm.info, and what the messages name.
struct ScriptInfo
{
    QString requestName;
    QString requestId;
    int iteration = 0; ///< from 0
    int iterationCount = 1;
};

/// One pm.test / Bruno test().
struct ScriptTest
{
    QString name;
    bool passed = true;
    /// pm.test.skip.
    bool skipped = false;
    /// Why it failed: the assertion's message ("expected 503 to equal 200"), or what
    /// was missing ("pm.cookies.jar is not a function in this runner").
    QString error;
    friend bool operator==(const ScriptTest &, const ScriptTest &) = default;
};

/// What running one script gave.
struct ScriptOutcome
{
    QList<ScriptTest> tests;
    /// console.log/info/warn/error lines, as printed ("warn: slow").
    QStringList console;
    /// Why the script stopped before its end: a syntax error, an exception no
    /// pm.test caught, the time limit; with the script's place and line
    /// ("item[2].event[0], line 4: ReferenceError: foo is not defined"). Empty when it ran to its end.
    QString error;
    bool timedOut = false;
    /// pm.setNextRequest(name): the name; pm.setNextRequest(null): an empty string; unset when not called.
    std::optional<QString> nextRequest;
    /// bru.runner.skipRequest() in a pre-request script: the request is not sent.
    bool skipRequest = false;
};

/// Runs a collection's scripts in Qt's JavaScript engine (QJSEngine), with the
/// API of their dialect: pm.test, pm.expect (chai, with Postman's
/// to.have.status/header), pm.response, pm.environment, pm.collectionVariables,
/// pm.variables (with replaceIn and the dynamic variables), pm.globals,
/// pm.request, pm.info, pm.setNextRequest, console; require() of moment,
/// lodash, crypto-js, uuid, chai, ajv and tv4 (the npm packages scripts/deps.sh
/// installs, built into the program); atob and btoa. Bruno: bru.getVar/setVar,
/// getEnvVar/setEnvVar, req, res, test, expect.
///
/// A script has no file, network or process access, and runs at most
/// Options::timeLimitMs: past it, it is stopped, and its outcome says so. One
/// sandbox runs the scripts of one run in turn; each script runs in a scope of
/// its own, so that its `var`s do not reach the next.
class ScriptSandbox final
{
public:
    struct Options
    {
        ScriptDialect dialect = ScriptDialect::Postman;
        int timeLimitMs = 5000;
        /// {{$guid}}, {{$randomInt}}... for pm.variables.replaceIn; not owned, may be null.
        DynamicVariables *dynamic = nullptr;
    };
    enum class Event { PreRequest, Test };

    explicit ScriptSandbox(const Options &options);
    ~ScriptSandbox();
    ScriptSandbox(const ScriptSandbox &) = delete;
    ScriptSandbox &operator=(const ScriptSandbox &) = delete;

    /// Runs `script` for one request. It reads and writes `scopes` and, before the
    /// request is sent, `request`; `response` is null in a pre-request script.
    ScriptOutcome run(const RunScript &script, Event event, ScriptScopes &scopes, ScriptRequest &request,
        const ScriptResponse *response, const ScriptInfo &info);

    /// The names require() knows: "moment", "lodash", ...
    static QStringList libraries();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace RetryLab::Core
