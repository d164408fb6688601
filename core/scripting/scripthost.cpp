#include "core/scripting/scripthost.h"

#include "core/collections/dynamicvariables.h"
#include "core/util/variablesubstitution.h"

#include <QFile>
#include <QJSEngine>
#include <QJSValueIterator>
#include <QLoggingCategory>
#include <QRandomGenerator>

#include <array>

Q_LOGGING_CATEGORY(lcScriptHost, "retrylab.core.scripting.host")

namespace RetryLab::Core {

namespace {

struct SandboxLibrary
{
    QLatin1String name;
    QLatin1String bundle;
};

// The browser bundles core/scripting/CMakeLists.txt builds in.
constexpr std::array libraryBundles = {
    SandboxLibrary{QLatin1String("moment"), QLatin1String("moment/min/moment.min.js")},
    SandboxLibrary{QLatin1String("lodash"), QLatin1String("lodash/lodash.min.js")},
    SandboxLibrary{QLatin1String("crypto-js"), QLatin1String("crypto-js/crypto-js.js")},
    SandboxLibrary{QLatin1String("uuid"), QLatin1String("uuid/dist/umd/uuid.min.js")},
    SandboxLibrary{QLatin1String("chai"), QLatin1String("chai/chai.js")},
    SandboxLibrary{QLatin1String("ajv"), QLatin1String("ajv/dist/ajv.bundle.js")},
    SandboxLibrary{QLatin1String("tv4"), QLatin1String("tv4/tv4.js")},
};

} // namespace

ScriptHost::ScriptHost(QJSEngine *engine, DynamicVariables *dynamic) : m_engine(engine), m_dynamic(dynamic)
{ }

QStringList ScriptHost::libraries()
{
    QStringList names;
    for (const auto &library : libraryBundles)
        names.append(library.name);
    return names;
}

QJSValue ScriptHost::toScript(QJSEngine &engine, const QHash<QString, QJsonValue> &scope)
{
    QJSValue object = engine.newObject();
    for (auto it = scope.constBegin(); it != scope.constEnd(); ++it)
        object.setProperty(it.key(), engine.toScriptValue(it.value()));
    return object;
}

QHash<QString, QJsonValue> ScriptHost::fromScript(QJSEngine &engine, const QJSValue &scope)
{
    QHash<QString, QJsonValue> values;
    if (!scope.isObject())
        return values;
    QJSValueIterator it(scope);
    while (it.hasNext()) {
        it.next();
        const QJSValue value = it.value();
        // What JSON cannot hold keeps its text, as Postman's stores do when they
        // save a value: a function, a Date.
        if (value.isCallable() || value.isDate())
            values.insert(it.name(), value.toString());
        else
            values.insert(it.name(), engine.fromScriptValue<QJsonValue>(value));
    }
    return values;
}

QString ScriptHost::replaceIn(const QString &text, const QJSValue &scopes) const
{
    ScriptScopes flat;
    flat.globals = fromScript(*m_engine, scopes.property(QStringLiteral("globals")));
    flat.collection = fromScript(*m_engine, scopes.property(QStringLiteral("collection")));
    flat.environment = fromScript(*m_engine, scopes.property(QStringLiteral("environment")));
    flat.data = fromScript(*m_engine, scopes.property(QStringLiteral("data")));
    flat.local = fromScript(*m_engine, scopes.property(QStringLiteral("local")));
    const VariableSubstitution::Rules postman{
        VariableSubstitution::Names::Loose, VariableSubstitution::Nesting::OneLevel};
    QString replaced = VariableSubstitution::substitute(text, flat.flattened(), nullptr, postman);
    if (m_dynamic)
        replaced = m_dynamic->expand(replaced);
    return replaced;
}

QJSValue ScriptHost::compileLibrary(const QString &name) const
{
    for (const auto &library : libraryBundles) {
        if (library.name != name)
            continue;
        const QString path = QStringLiteral(":/retrylab/sandbox/lib/") + library.bundle;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            qCWarning(lcScriptHost) << "cannot read the built-in bundle" << path;
            m_engine->throwError(QJSValue::ReferenceError,
                QStringLiteral("require('%1'): its bundle is missing from this build").arg(name));
            return {};
        }
        // A CommonJS shim: the UMD bundles see module/exports and fill them; no
        // AMD define, and no window, so that none takes itself for a browser page.
        const QString wrapped = QStringLiteral("(function (module, exports, define, window, global) {")
            + QString::fromUtf8(file.readAll()) + QStringLiteral("\n})");
        return m_engine->evaluate(wrapped, QStringLiteral("lib/") + library.bundle);
    }
    m_engine->throwError(QJSValue::ReferenceError,
        QStringLiteral("require('%1'): no such library in this runner (it has %2)")
            .arg(name, libraries().join(QStringLiteral(", "))));
    return {};
}

QString ScriptHost::btoa(const QString &binary) const
{
    // Postman's btoa takes each character as one byte (its low eight bits), as
    // Node's Buffer.from(text, 'binary') does.
    QByteArray bytes;
    bytes.reserve(binary.size());
    for (const QChar c : binary)
        bytes.append(char(c.unicode() & 0xff));
    return QString::fromLatin1(bytes.toBase64());
}

QString ScriptHost::atob(const QString &base64) const
{
    // Lenient, as Node's Buffer.from(text, 'base64') behind Postman's atob is:
    // what is not base64 is skipped. Each byte becomes one character.
    return QString::fromLatin1(QByteArray::fromBase64(base64.toLatin1()));
}

QVariantList ScriptHost::randomWords(int count) const
{
    QVariantList words;
    words.reserve(qMax(0, count));
    for (int i = 0; i < count; ++i)
        words.append(QRandomGenerator::system()->generate());
    return words;
}

} // namespace RetryLab::Core
