#pragma once

#include "core/assertions/assertion.h"
#include "core/collections/requestdraft.h"
#include "core/collections/responsevariables.h"
#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The policy a saved request is sent with: a built-in preset by id (so that the
/// file stays short and follows the preset), or a policy of its own.
struct SavedPolicy
{
    /// A built-in preset's id ("aws-standard"); empty: `custom` is the policy.
    QString preset;
    BackoffPolicy custom;

    /// The preset whose policy equals `policy`, or the policy itself.
    static SavedPolicy from(const BackoffPolicy &policy);
    /// The policy to load; nothing when the preset is not (or no longer) built in.
    std::optional<BackoffPolicy> policy() const;
    /// What the sidebar shows: the preset's name or the policy's.
    QString displayName() const;

    friend bool operator==(const SavedPolicy &, const SavedPolicy &) = default;
};

/// A folder or a saved request of a collection.
struct CollectionItem
{
    enum class Kind { Folder, Request };

    Kind kind = Kind::Request;
    /// Stable across saves (a request's id is written to the file), so that a
    /// git diff of a renamed or moved request stays small.
    QString id;
    QString name;
    // A request:
    RequestDraft request;
    SavedPolicy policy;
    /// What its answer must show when a collection is run (`retrylab run`).
    QList<Assertion> assertions;
    /// Values taken from its answer into the run's variables, for the requests after it.
    QList<ResponseVariables::Rule> extract;
    // A folder: its folders and requests, in the order shown.
    QList<CollectionItem> items;
    /// A folder's auth, for its requests whose own is Inherit ("No auth" in the
    /// window); Inherit: the folder's own folder's, up to the collection's.
    AuthSpec auth;

    bool isFolder() const { return kind == Kind::Folder; }
    static QString newId();
    /// A request item with a new id.
    static CollectionItem makeRequest(const QString &name, const RequestDraft &draft, const SavedPolicy &policy);
    static CollectionItem makeFolder(const QString &name);

    friend bool operator==(const CollectionItem &, const CollectionItem &) = default;
};

/// A collection of saved requests in folders: one JSON file in the user's data
/// folder (CollectionStore), readable and safe to keep in git (CollectionJson).
struct Collection
{
    QString name;
    QList<CollectionItem> items;
    /// The auth of every request whose own and whose folders' are Inherit.
    AuthSpec auth;
    /// The file's name in the store's folder ("payments.json"); empty until saved.
    /// Not part of the file, so that renaming a collection does not move it.
    QString fileName;

    /// Requests at every depth.
    int requestCount() const;

    /// A request with the folders around it.
    struct Request
    {
        /// Its folders' names and its own, joined by '/': "Orders/Refunds/Create".
        QString path;
        /// Into `items`: valid while the collection is not changed.
        const CollectionItem *item = nullptr;
        /// What it inherits: its innermost folder's auth that is not Inherit,
        /// else the collection's (Inherit when none has one).
        AuthSpec inherited = {};
        /// The auth it is sent with: its own, or what it inherits.
        AuthSpec effectiveAuth() const;
    };
    /// Every request at every depth, in the order shown.
    QList<Request> requests() const;
    /// The requests `nameOrPath` names: the one whose path it is, else every one
    /// of that name; none, one, or several in different folders.
    QList<Request> find(const QString &nameOrPath) const;
    /// What the item with `id` (a request or a folder) inherits from the folders
    /// around it and the collection; Inherit when nothing, or no such item.
    AuthSpec inheritedAuth(const QString &id) const;

    friend bool operator==(const Collection &, const Collection &) = default;
};

} // namespace RetryLab::Core
