#pragma once

#include "core/scripting/scriptscopes.h"

#include <QHash>
#include <QJsonValue>
#include <QJSValue>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariantList>

class QJSEngine;

namespace RetryLab::Core {

class DynamicVariables;

/// What the sandbox's JavaScript (core/scripting/sandbox/*.js) asks of C++, as
/// the object `host` there: the {{name}} and {{$name}} substitution the runner
/// uses for requests (so that pm.variables.replaceIn gives what a request would
/// get), the library bundles built into the program, base64 in Postman's
/// atob/btoa form and random bytes for crypto.getRandomValues. It is no door to
/// files, processes or the network: those stay out of the sandbox.
class ScriptHost final : public QObject
{
    Q_OBJECT

public:
    ScriptHost(QJSEngine *engine, DynamicVariables *dynamic);

    /// The names require() knows.
    static QStringList libraries();
    /// A scope's JavaScript object (name -> value, any JSON type) and back.
    static QJSValue toScript(QJSEngine &engine, const QHash<QString, QJsonValue> &scope);
    static QHash<QString, QJsonValue> fromScript(QJSEngine &engine, const QJSValue &scope);

    /// `text` with its {{name}}s from `scopes` (an object with some of globals,
    /// collection, environment, data, local) and then its {{$name}}s replaced.
    Q_INVOKABLE QString replaceIn(const QString &text, const QJSValue &scopes) const;
    /// The library's bundle as a function (module, exports, define) that fills
    /// module.exports; throws in the engine for an unknown name.
    Q_INVOKABLE QJSValue compileLibrary(const QString &name) const;
    Q_INVOKABLE QString btoa(const QString &binary) const;
    Q_INVOKABLE QString atob(const QString &base64) const;
    /// `count` unsigned 32-bit random numbers from the system's generator.
    Q_INVOKABLE QVariantList randomWords(int count) const;

private:
    QJSEngine *m_engine;
    DynamicVariables *m_dynamic;
};

} // namespace RetryLab::Core
