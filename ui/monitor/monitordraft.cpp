#include "ui/monitor/monitordraft.h"

#include "core/collections/collectionjson.h"
#include "core/collections/collectionstore.h"
#include "core/collections/requesttemplate.h"
#include "core/collections/savedrequest.h"
#include "core/monitor/savedrequestmonitor.h"
#include "ui/session/uitr.h"

#include <QLoggingCategory>

namespace RetryLab::Ui {

Q_LOGGING_CATEGORY(lcMonitorDraft, "retrylab.ui.monitordraft")

namespace {

constexpr qsizetype longestMonitorName = 100; // as MonitorsFileReader accepts

} // namespace

QString uniqueMonitorName(const QString &wanted, const QStringList &taken)
{
    QString base = wanted.trimmed();
    if (base.isEmpty())
        base = Tr::tr("monitor");
    base.truncate(longestMonitorName);
    if (!taken.contains(base))
        return base;
    for (int n = 2;; ++n) {
        const QString suffix = QStringLiteral(" (%1)").arg(n);
        const QString name = base.left(longestMonitorName - suffix.size()) + suffix;
        if (!taken.contains(name))
            return name;
    }
}

Core::Monitor monitorFromRequest(
    const Core::RequestSpec &spec, const Core::BackoffPolicy &policy, const QStringList &takenNames)
{
    QString wanted = spec.url.host();
    const QString path = spec.url.path();
    if (!path.isEmpty() && path != QLatin1String("/"))
        wanted += path;
    Core::Monitor monitor;
    monitor.name = uniqueMonitorName(wanted, takenNames);
    monitor.request = spec;
    monitor.request.label = monitor.name;
    monitor.urlTemplate = spec.url.toString();
    monitor.policy = policy;
    monitor.policyOrigin = QStringLiteral("inline");
    return monitor;
}

Core::Monitor monitorFromRequest(const Core::RequestSpec &spec, const QString &urlTemplate,
    const Core::BackoffPolicy &policy, const QStringList &takenNames)
{
    const QString typed = urlTemplate.trimmed();
    if (typed.isEmpty())
        return monitorFromRequest(spec, policy, takenNames);
    Core::Monitor monitor = monitorFromRequest(spec, policy, takenNames);
    monitor.urlTemplate = typed;
    if (typed.contains(Core::RequestTemplate::serverPlaceholder())) {
        // The host is the server's address of today: the template names it for good.
        monitor.name = uniqueMonitorName(typed.section(QLatin1Char('?'), 0, 0), takenNames);
        monitor.request.label = monitor.name;
    }
    return monitor;
}

CollectionMonitors monitorsFromCollection(const QString &collectionFile, const QString &requestOrFolder,
    const QString &environmentFile, const QString &environmentName, const QStringList &takenNames, bool allowServer)
{
    CollectionMonitors made;
    const auto bytes = Core::CollectionStore::readFile(collectionFile);
    if (!bytes) {
        made.errors.append(bytes.error());
        return made;
    }
    const auto read = Core::CollectionJson::fromJson(*bytes);
    if (!read) {
        made.errors.append(Tr::tr("%1: %2").arg(collectionFile, read.error()));
        return made;
    }
    QStringList paths;
    const QString folder = requestOrFolder + QLatin1Char('/');
    for (const Core::Collection::Request &request : read->collection.requests()) {
        if (requestOrFolder.isEmpty() || request.path == requestOrFolder || request.path.startsWith(folder))
            paths.append(request.path);
    }
    if (paths.isEmpty()) {
        made.errors.append(requestOrFolder.isEmpty()
                ? Tr::tr("the collection holds no request")
                : Tr::tr("the collection has no request or folder \"%1\"").arg(requestOrFolder));
        return made;
    }
    QStringList taken = takenNames;
    for (const QString &path : paths) {
        Core::SavedRequest::Source source;
        source.collectionFile = collectionFile;
        source.request = path;
        source.environmentFile = environmentFile;
        source.environmentName = environmentName;
        // The messages name what the window calls them, not the command's options.
        source.names.collection = Tr::tr("collection");
        source.names.request = Tr::tr("request");
        source.names.environmentFile = Tr::tr("environments file");
        source.names.environmentName = Tr::tr("environment");
        const auto saved = Core::SavedRequest::load(source);
        if (!saved) {
            made.errors.append(saved.error());
            continue;
        }
        const auto monitor = Core::monitorFromSavedRequest(*saved, uniqueMonitorName(path, taken), true, allowServer);
        if (!monitor) {
            made.errors.append(monitor.error());
            continue;
        }
        taken.append(monitor->name);
        made.monitors.append(*monitor);
    }
    qCDebug(lcMonitorDraft) << "monitors from" << collectionFile << made.monitors.size() << "refused"
                            << made.errors.size();
    return made;
}

} // namespace RetryLab::Ui
