#include "core/runner/runcollection.h"

#include <algorithm>

namespace RetryLab::Core {

namespace {

struct Walk
{
    const RunCollection &collection;
    const QStringList &wanted;
    QList<RunCollection::Request> requests;

    static bool names(const QString &wantedName, const QString &path, const RunItem &folder)
    {
        return wantedName == path || wantedName == folder.name;
    }

    void visit(const QList<RunItem> &items, const QString &prefix, QList<const RunItem *> &folders, bool inside)
    {
        for (const RunItem &item : items) {
            const QString path = prefix.isEmpty() ? item.name : prefix + QLatin1Char('/') + item.name;
            if (item.isFolder()) {
                const bool selected = inside || wanted.isEmpty()
                    || std::any_of(
                        wanted.cbegin(), wanted.cend(), [&](const QString &name) { return names(name, path, item); });
                folders.append(&item);
                visit(item.items, path, folders, selected);
                folders.removeLast();
                continue;
            }
            if (!inside && !wanted.isEmpty())
                continue;
            RunCollection::Request request;
            request.path = path;
            request.item = &item;
            request.folders = folders;
            request.auth = item.auth;
            request.policy = item.policy;
            for (auto folder = folders.crbegin(); folder != folders.crend(); ++folder) {
                if (request.auth.kind == RunAuth::Kind::Inherit)
                    request.auth = (*folder)->auth;
                if (!request.policy)
                    request.policy = (*folder)->policy;
            }
            if (request.auth.kind == RunAuth::Kind::Inherit)
                request.auth = collection.auth;
            if (request.auth.kind == RunAuth::Kind::Inherit)
                request.auth.kind = RunAuth::Kind::None;
            if (!request.policy)
                request.policy = collection.policy;
            requests.append(request);
        }
    }
};

void collectFolders(const QList<RunItem> &items, const QString &prefix, QStringList &names, QStringList &paths)
{
    for (const RunItem &item : items) {
        if (!item.isFolder())
            continue;
        const QString path = prefix.isEmpty() ? item.name : prefix + QLatin1Char('/') + item.name;
        names.append(item.name);
        paths.append(path);
        collectFolders(item.items, path, names, paths);
    }
}

int countRequests(const QList<RunItem> &items)
{
    int count = 0;
    for (const RunItem &item : items)
        count += item.isFolder() ? countRequests(item.items) : 1;
    return count;
}

} // namespace

QString RunCollection::formatName(Format format)
{
    switch (format) {
    case Format::RetryLab:
        return QStringLiteral("RetryLab collection");
    case Format::Postman:
        return QStringLiteral("Postman collection");
    case Format::Bruno:
        return QStringLiteral("Bruno collection");
    case Format::Har:
        return QStringLiteral("HAR file");
    }
    return {};
}

QList<RunCollection::Request> RunCollection::requests(const QStringList &folders) const
{
    Walk walk{*this, folders, {}};
    QList<const RunItem *> path;
    walk.visit(items, {}, path, false);
    return walk.requests;
}

QStringList RunCollection::unknownFolders(const QStringList &folders) const
{
    QStringList names;
    QStringList paths;
    collectFolders(items, {}, names, paths);
    QStringList unknown;
    for (const QString &folder : folders) {
        if (!names.contains(folder) && !paths.contains(folder))
            unknown.append(folder);
    }
    return unknown;
}

int RunCollection::requestCount() const
{
    return countRequests(items);
}

} // namespace RetryLab::Core
