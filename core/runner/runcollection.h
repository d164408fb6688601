#pragma once

#include "core/assertions/assertion.h"
#include "core/auth/authspec.h"
#include "core/collections/collection.h"
#include "core/collections/responsevariables.h"
#include "core/scripting/scriptsandbox.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// How a request proves who sends it, as Postman and Bruno write it. Its values may
/// hold {{variables}}; the runner fills them in before the request is sent.
using RunAuth = AuthSpec;

/// A folder or a request of a collection to run, from any of the formats
/// `retrylab run` reads. A request's texts keep their {{variables}}: they are
/// filled in when it is sent, after its pre-request scripts.
struct RunItem
{
    enum class Kind { Folder, Request };
    Kind kind = Kind::Request;
    QString name;
    /// Where it is in its source, for the messages: "item[1].item[0]" (Postman),
    /// "users/create.bru" (Bruno), "requests[3]".
    QString place;
    QString id;
    RunScript preRequest;
    RunScript test;
    RunAuth auth;
    /// Its own policy; unset: its folder's, else the run's (--policy).
    std::optional<SavedPolicy> policy;
    // A request:
    RequestDraft request;
    QList<Assertion> assertions;
    /// Values taken from its answer into the run's variables (pm.variables scope).
    QList<ResponseVariables::Rule> extract;
    /// Variables set before it is sent (Bruno's vars:pre-request), in order.
    QList<QPair<QString, QString>> variables;
    // A folder: its folders and requests, in order.
    QList<RunItem> items;

    bool isFolder() const { return kind == Kind::Folder; }
    friend bool operator==(const RunItem &, const RunItem &) = default;
};

/// Named values from the collection's own files (Bruno's environments/*.bru).
struct RunEnvironment
{
    QString name;
    QList<QPair<QString, QString>> values;
    friend bool operator==(const RunEnvironment &, const RunEnvironment &) = default;
};

/// A collection `retrylab run` can run, and the window's runner too.
struct RunCollection
{
    enum class Format { RetryLab, Postman, Bruno, Har };
    Format format = Format::RetryLab;
    ScriptDialect dialect = ScriptDialect::Postman;
    QString name;
    /// The file (or Bruno's folder) it was read from.
    QString source;
    /// The collection's variables (pm.collectionVariables).
    QList<QPair<QString, QString>> variables;
    RunScript preRequest;
    RunScript test;
    RunAuth auth;
    std::optional<SavedPolicy> policy;
    QList<RunItem> items;
    QList<RunEnvironment> environments;
    /// What the source holds that the runner does not use, each with its place
    /// ("item[3].request.body: file field \"avatar\" is not sent"), to be said once.
    QStringList ignored;

    static QString formatName(Format format);

    /// A request with everything around it that it inherits, outermost first.
    struct Request
    {
        /// Its folders' names and its own, joined by '/': "Orders/Refunds/Create".
        QString path;
        const RunItem *item = nullptr;
        /// Its folders, outermost first (into `items`).
        QList<const RunItem *> folders;
        /// The auth it is sent with: its own, else its innermost folder's that
        /// says one, else the collection's; Kind::None when nobody says.
        RunAuth auth;
        /// Its policy, else its innermost folder's that has one, else the collection's.
        std::optional<SavedPolicy> policy;
    };
    /// Every request at every depth, in order; with `folders`, only those inside a
    /// folder of one of those names or paths ("Orders", "Orders/Refunds"), in
    /// order, each once.
    QList<Request> requests(const QStringList &folders = {}) const;
    /// The folder names or paths of `folders` that name no folder.
    QStringList unknownFolders(const QStringList &folders) const;
    int requestCount() const;

    friend bool operator==(const RunCollection &, const RunCollection &) = default;
};

} // namespace RetryLab::Core
