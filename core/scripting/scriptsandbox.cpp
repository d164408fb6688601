#include "core/scripting/scriptsandbox.h"

#include "core/scripting/scripthost.h"
#include "core/scripting/scriptwatchdog.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QFile>
#include <QJSEngine>
#include <QLoggingCategory>

#include <array>
#include <mutex>

Q_LOGGING_CATEGORY(lcScriptSandbox, "retrylab.core.scripting.sandbox")

namespace RetryLab::Core {

namespace {

// Must match SCRIPT_FILE in sandbox/runtime.js, which finds a script's frames
// in an error's stack by it.
const QString sandboxScriptFile = QStringLiteral("retrylab-script");

QLoggingCategory::CategoryFilter previousSandboxLogFilter = nullptr;

// Qt's JavaScript compiler warns about every minified bundle ("Variable "u" is
// used before its declaration"): noise for whoever runs a collection.
void quietJavaScriptCompiler(QLoggingCategory *category)
{
    if (previousSandboxLogFilter)
        previousSandboxLogFilter(category);
    if (qstrcmp(category->categoryName(), "qt.qml.compiler") == 0)
        category->setEnabled(QtWarningMsg, false);
}

QString readSandboxFile(const QString &name)
{
    QFile file(QStringLiteral(":/retrylab/sandbox/") + name);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

QJSValue headersToScript(QJSEngine &engine, const QList<QPair<QString, QString>> &headers)
{
    QJSValue array = engine.newArray(quint32(headers.size()));
    for (qsizetype i = 0; i < headers.size(); ++i) {
        QJSValue entry = engine.newObject();
        entry.setProperty(QStringLiteral("key"), headers.at(i).first);
        entry.setProperty(QStringLiteral("value"), headers.at(i).second);
        array.setProperty(quint32(i), entry);
    }
    return array;
}

QList<QPair<QString, QString>> headersFromScript(const QJSValue &array)
{
    QList<QPair<QString, QString>> headers;
    const quint32 length = array.property(QStringLiteral("length")).toUInt();
    for (quint32 i = 0; i < length; ++i) {
        const QJSValue entry = array.property(i);
        const QJSValue value = entry.property(QStringLiteral("value"));
        headers.append({entry.property(QStringLiteral("key")).toString(),
            value.isUndefined() || value.isNull() ? QString() : value.toString()});
    }
    return headers;
}

} // namespace

struct ScriptSandbox::Private
{
    explicit Private(const Options &sandboxOptions)
        : options(sandboxOptions), host(&engine, sandboxOptions.dynamic),
          watchdog([interrupted = &engine] { interrupted->setInterrupted(true); })
    { }

    bool start();
    QJSValue context(Event event, const ScriptScopes &scopes, const ScriptRequest &request,
        const ScriptResponse *response, const ScriptInfo &info);
    QString located(const RunScript &script, int line, const QString &message) const;

    Options options;
    QJSEngine engine;
    ScriptHost host;
    ScriptWatchdog watchdog;
    QJSValue runtime;
    QString postmanParameters;
    QString brunoParameters;
    /// Why the sandbox's own JavaScript did not load (a broken build): every run says so.
    QString startError;
};

bool ScriptSandbox::Private::start()
{
    static std::once_flag quietOnce;
    std::call_once(
        quietOnce, [] { previousSandboxLogFilter = QLoggingCategory::installFilter(quietJavaScriptCompiler); });

    QJSEngine::setObjectOwnership(&host, QJSEngine::CppOwnership);
    const QJSValue hostValue = engine.newQObject(&host);
    const QJSValue makeRuntime = engine.evaluate(
        readSandboxFile(QStringLiteral("runtime.js")), QStringLiteral(":/retrylab/sandbox/runtime.js"));
    runtime = makeRuntime.call({hostValue, engine.globalObject()});
    if (makeRuntime.isError() || runtime.isError() || !runtime.isObject()) {
        startError = makeRuntime.isError() ? makeRuntime.toString() : runtime.toString();
        return false;
    }
    for (const QString &name :
        {QStringLiteral("chaipostman.js"), QStringLiteral("postman.js"), QStringLiteral("bruno.js")}) {
        const QJSValue install = engine.evaluate(readSandboxFile(name), QStringLiteral(":/retrylab/sandbox/") + name);
        const QJSValue installed = install.call({runtime});
        if (install.isError() || installed.isError()) {
            startError = name + QStringLiteral(": ") + (install.isError() ? install.toString() : installed.toString());
            return false;
        }
    }
    const QJSValue parameterNames = runtime.property(QStringLiteral("parameterNames"));
    postmanParameters = parameterNames.callWithInstance(runtime, {QStringLiteral("postman")}).toString();
    brunoParameters = parameterNames.callWithInstance(runtime, {QStringLiteral("bruno")}).toString();
    runtime.property(QStringLiteral("sealGlobals")).callWithInstance(runtime);
    return true;
}

QJSValue ScriptSandbox::Private::context(Event event, const ScriptScopes &scopes, const ScriptRequest &request,
    const ScriptResponse *response, const ScriptInfo &info)
{
    QJSValue ctx = engine.newObject();
    ctx.setProperty(QStringLiteral("dialect"),
        options.dialect == ScriptDialect::Postman ? QStringLiteral("postman") : QStringLiteral("bruno"));

    QJSValue scopeValues = engine.newObject();
    scopeValues.setProperty(QStringLiteral("globals"), ScriptHost::toScript(engine, scopes.globals));
    scopeValues.setProperty(QStringLiteral("collection"), ScriptHost::toScript(engine, scopes.collection));
    scopeValues.setProperty(QStringLiteral("environment"), ScriptHost::toScript(engine, scopes.environment));
    scopeValues.setProperty(QStringLiteral("data"), ScriptHost::toScript(engine, scopes.data));
    scopeValues.setProperty(QStringLiteral("local"), ScriptHost::toScript(engine, scopes.local));
    ctx.setProperty(QStringLiteral("scopes"), scopeValues);

    QJSValue requestValue = engine.newObject();
    requestValue.setProperty(QStringLiteral("id"), request.id);
    requestValue.setProperty(QStringLiteral("name"), request.name);
    requestValue.setProperty(QStringLiteral("method"), request.method);
    requestValue.setProperty(QStringLiteral("url"), request.url);
    requestValue.setProperty(QStringLiteral("headers"), headersToScript(engine, request.headers));
    requestValue.setProperty(QStringLiteral("body"), request.body);
    ctx.setProperty(QStringLiteral("request"), requestValue);

    if (response) {
        QList<QPair<QString, QString>> headers;
        headers.reserve(response->headers.size());
        for (const auto &[name, value] : response->headers)
            headers.append({QString::fromLatin1(name), QString::fromUtf8(value)});
        QJSValue responseValue = engine.newObject();
        responseValue.setProperty(QStringLiteral("code"), response->code);
        responseValue.setProperty(QStringLiteral("status"), response->status);
        responseValue.setProperty(QStringLiteral("headers"), headersToScript(engine, headers));
        responseValue.setProperty(QStringLiteral("body"), QString::fromUtf8(response->body));
        responseValue.setProperty(QStringLiteral("size"), int(response->body.size()));
        responseValue.setProperty(QStringLiteral("responseTime"), response->responseTimeMs);
        ctx.setProperty(QStringLiteral("response"), responseValue);
    } else {
        ctx.setProperty(QStringLiteral("response"), QJSValue::NullValue);
    }

    QJSValue infoValue = engine.newObject();
    infoValue.setProperty(QStringLiteral("eventName"),
        event == Event::PreRequest ? QStringLiteral("prerequest") : QStringLiteral("test"));
    infoValue.setProperty(QStringLiteral("iteration"), info.iteration);
    infoValue.setProperty(QStringLiteral("iterationCount"), info.iterationCount);
    infoValue.setProperty(QStringLiteral("requestName"), info.requestName);
    infoValue.setProperty(QStringLiteral("requestId"), info.requestId);
    ctx.setProperty(QStringLiteral("info"), infoValue);
    return ctx;
}

QString ScriptSandbox::Private::located(const RunScript &script, int line, const QString &message) const
{
    const QString place = script.place.isEmpty() ? Tr::tr("script") : script.place;
    if (line <= 0)
        return Tr::tr("%1: %2").arg(place, message);
    const int fileLine = script.firstLine > 0 ? script.firstLine + line - 1 : line;
    return Tr::tr("%1, line %2: %3").arg(place).arg(fileLine).arg(message);
}

ScriptSandbox::ScriptSandbox(const Options &options) : d(std::make_unique<Private>(options))
{
    if (!d->start())
        qCCritical(lcScriptSandbox) << "the script sandbox's own JavaScript did not load:" << d->startError;
}

ScriptSandbox::~ScriptSandbox() = default;

QStringList ScriptSandbox::libraries()
{
    return ScriptHost::libraries();
}

ScriptOutcome ScriptSandbox::run(const RunScript &script, Event event, ScriptScopes &scopes, ScriptRequest &request,
    const ScriptResponse *response, const ScriptInfo &info)
{
    ScriptOutcome outcome;
    if (script.isEmpty())
        return outcome;
    if (!d->startError.isEmpty()) {
        outcome.error = d->located(script, 0, Tr::tr("the script sandbox did not start: %1").arg(d->startError));
        return outcome;
    }

    QJSValue ctx = d->context(event, scopes, request, response, info);
    const QString &parameters
        = d->options.dialect == ScriptDialect::Postman ? d->postmanParameters : d->brunoParameters;
    // The script's body becomes a function of its own (its vars stay in it),
    // inside one that takes the dialect's names as parameters; both open on the
    // script's first line, so that its lines are the program's.
    const QString program = QStringLiteral("(function (") + parameters + QStringLiteral(") { return function () {")
        + script.source + QStringLiteral("\n}; })");

    d->engine.setInterrupted(false);
    d->watchdog.arm(std::chrono::milliseconds(qMax(1, d->options.timeLimitMs)));
    const QJSValue compiled = d->engine.evaluate(program, sandboxScriptFile, 1);
    QJSValue result;
    if (!compiled.isError())
        result = d->runtime.property(QStringLiteral("run")).callWithInstance(d->runtime, {ctx, compiled});
    const bool timedOut = d->watchdog.disarm() || d->engine.isInterrupted();
    d->engine.setInterrupted(false);

    if (compiled.isError() && !timedOut) {
        outcome.error
            = d->located(script, compiled.property(QStringLiteral("lineNumber")).toInt(), compiled.toString());
        return outcome;
    }
    if (timedOut) {
        // The runtime never reached its own cleanup.
        d->runtime.property(QStringLiteral("cleanup")).callWithInstance(d->runtime);
        outcome.timedOut = true;
        outcome.error = d->located(script, 0,
            Tr::tr("stopped after the time limit of %1")
                .arg(DurationText::format(d->options.timeLimitMs, DurationText::Style::Exact)));
    } else if (result.isError()) {
        outcome.error = d->located(script, 0, Tr::tr("the sandbox failed: %1").arg(result.toString()));
    }

    const QJSValue state = ctx.property(QStringLiteral("outcome"));
    if (state.isObject()) {
        const QJSValue tests = state.property(QStringLiteral("tests"));
        const quint32 testCount = tests.property(QStringLiteral("length")).toUInt();
        for (quint32 i = 0; i < testCount; ++i) {
            const QJSValue test = tests.property(i);
            outcome.tests.append({test.property(QStringLiteral("name")).toString(),
                test.property(QStringLiteral("passed")).toBool(), test.property(QStringLiteral("skipped")).toBool(),
                test.property(QStringLiteral("error")).toString()});
        }
        const QJSValue console = state.property(QStringLiteral("console"));
        const quint32 lineCount = console.property(QStringLiteral("length")).toUInt();
        for (quint32 i = 0; i < lineCount; ++i)
            outcome.console.append(console.property(i).toString());
        const QJSValue next = state.property(QStringLiteral("nextRequest"));
        if (next.isNull())
            outcome.nextRequest = QString();
        else if (!next.isUndefined())
            outcome.nextRequest = next.toString();
        outcome.skipRequest = state.property(QStringLiteral("skipRequest")).toBool();
        const QJSValue error = state.property(QStringLiteral("error"));
        if (!timedOut && error.isObject()) {
            outcome.error = d->located(script, error.property(QStringLiteral("line")).toInt(),
                error.property(QStringLiteral("message")).toString());
        }
    }

    // What the script changed; a script stopped halfway keeps what it did before.
    const QJSValue scopeValues = ctx.property(QStringLiteral("scopes"));
    scopes.globals = ScriptHost::fromScript(d->engine, scopeValues.property(QStringLiteral("globals")));
    scopes.collection = ScriptHost::fromScript(d->engine, scopeValues.property(QStringLiteral("collection")));
    scopes.environment = ScriptHost::fromScript(d->engine, scopeValues.property(QStringLiteral("environment")));
    scopes.data = ScriptHost::fromScript(d->engine, scopeValues.property(QStringLiteral("data")));
    scopes.local = ScriptHost::fromScript(d->engine, scopeValues.property(QStringLiteral("local")));
    if (event == Event::PreRequest) {
        const QJSValue requestValue = ctx.property(QStringLiteral("request"));
        request.method = requestValue.property(QStringLiteral("method")).toString();
        request.url = requestValue.property(QStringLiteral("url")).toString();
        request.headers = headersFromScript(requestValue.property(QStringLiteral("headers")));
        request.body = requestValue.property(QStringLiteral("body")).toString();
    }
    return outcome;
}

} // namespace RetryLab::Core
