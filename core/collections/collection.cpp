#include "core/collections/collection.h"

#include "core/policy/presets.h"

#include <QUuid>

namespace RetryLab::Core {

SavedPolicy SavedPolicy::from(const BackoffPolicy &policy)
{
    for (const Presets::Preset &preset : Presets::all()) {
        if (preset.policy == policy)
            return {preset.id, {}};
    }
    return {{}, policy};
}

std::optional<BackoffPolicy> SavedPolicy::policy() const
{
    if (preset.isEmpty())
        return custom;
    for (const Presets::Preset &each : Presets::all()) {
        if (each.id == preset)
            return each.policy;
    }
    return std::nullopt;
}

QString SavedPolicy::displayName() const
{
    if (preset.isEmpty())
        return custom.name;
    if (const auto found = policy())
        return found->name;
    return preset;
}

QString CollectionItem::newId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

CollectionItem CollectionItem::makeRequest(const QString &name, const RequestDraft &draft, const SavedPolicy &policy)
{
    CollectionItem item;
    item.kind = Kind::Request;
    item.id = newId();
    item.name = name;
    item.request = draft;
    item.policy = policy;
    return item;
}

CollectionItem CollectionItem::makeFolder(const QString &name)
{
    CollectionItem item;
    item.kind = Kind::Folder;
    item.id = newId();
    item.name = name;
    return item;
}

namespace {

int countRequests(const QList<CollectionItem> &items)
{
    int count = 0;
    for (const CollectionItem &item : items)
        count += item.isFolder() ? countRequests(item.items) : 1;
    return count;
}

// `inherited`: what the folders around `items` (and the collection) hand down.
void addRequests(const QList<CollectionItem> &items, const QString &folder, const AuthSpec &inherited,
    QList<Collection::Request> *out)
{
    for (const CollectionItem &item : items) {
        const QString path = folder.isEmpty() ? item.name : folder + QLatin1Char('/') + item.name;
        if (item.isFolder())
            addRequests(item.items, path, item.auth.kind == AuthSpec::Kind::Inherit ? inherited : item.auth, out);
        else
            out->append({path, &item, inherited});
    }
}

// True when `id` is found under `items`; `inherited` is then what it inherits.
bool findInherited(const QList<CollectionItem> &items, const QString &id, AuthSpec *inherited)
{
    for (const CollectionItem &item : items) {
        if (item.id == id)
            return true;
        if (!item.isFolder())
            continue;
        AuthSpec below = item.auth.kind == AuthSpec::Kind::Inherit ? *inherited : item.auth;
        if (findInherited(item.items, id, &below)) {
            *inherited = below;
            return true;
        }
    }
    return false;
}

} // namespace

int Collection::requestCount() const
{
    return countRequests(items);
}

QList<Collection::Request> Collection::requests() const
{
    QList<Request> out;
    addRequests(items, {}, auth, &out);
    return out;
}

QList<Collection::Request> Collection::find(const QString &nameOrPath) const
{
    const QList<Request> all = requests();
    QList<Request> byPath;
    QList<Request> byName;
    for (const Request &request : all) {
        if (request.path == nameOrPath)
            byPath.append(request);
        else if (request.item->name == nameOrPath)
            byName.append(request);
    }
    return byPath.isEmpty() ? byName : byPath;
}

AuthSpec Collection::Request::effectiveAuth() const
{
    return item->request.auth.kind == AuthSpec::Kind::Inherit ? inherited : item->request.auth;
}

AuthSpec Collection::inheritedAuth(const QString &id) const
{
    AuthSpec inherited = auth;
    return findInherited(items, id, &inherited) ? inherited : AuthSpec{};
}

} // namespace RetryLab::Core
