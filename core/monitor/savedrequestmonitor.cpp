#include "core/monitor/savedrequestmonitor.h"

#include "core/collections/requesttemplate.h"
#include "core/util/coretr.h"

#include <QUrl>

#include <algorithm>

namespace RetryLab::Core {

namespace {

// What {server} becomes while the request is built for a window monitor: a name
// that can never resolve (RFC 2606), turned back into {server} in the URL. Found
// anywhere else, {server} was used where a check does not expand it.
QString serverStandIn()
{
    return QStringLiteral("http://retrylab-embedded-server.invalid:1");
}

bool usesStandInBeyondUrl(const RequestSpec &spec)
{
    const QString standIn = serverStandIn();
    const QByteArray standInBytes = standIn.toUtf8();
    const auto inUrl = [&](const QUrl &url) { return url.toString().contains(standIn); };
    return spec.body.contains(standInBytes)
        || std::any_of(spec.headers.cbegin(), spec.headers.cend(),
            [&](const auto &header) { return header.second.contains(standInBytes); })
        || std::any_of(spec.fallbackUrls.cbegin(), spec.fallbackUrls.cend(), inUrl)
        || inUrl(spec.readModifyWrite.writeUrl);
}

} // namespace

Result<Monitor> monitorFromSavedRequest(
    const SavedRequest &saved, const QString &name, bool keepSavedPolicy, bool allowServer)
{
    using R = Result<Monitor>;
    const bool needsServer = saved.needsServer();
    if (needsServer && !allowServer) {
        return R::failure(
            Tr::tr("the saved request \"%1\" uses {server}; a monitor has no embedded server").arg(saved.path()));
    }
    const auto spec = saved.build(needsServer ? QUrl(serverStandIn()) : QUrl());
    if (!spec)
        return R(spec.errorDetail());
    Monitor monitor;
    monitor.name = name;
    monitor.request = *spec;
    monitor.request.label = name;
    monitor.urlTemplate = spec->url.toString();
    if (needsServer) {
        if (usesStandInBeyondUrl(*spec)) {
            return R::failure(Tr::tr("the saved request \"%1\" uses {server} outside its URL; a monitor expands "
                                     "{server} in the URL only")
                                  .arg(saved.path()));
        }
        monitor.urlTemplate.replace(serverStandIn(), RequestTemplate::serverPlaceholder());
        // The URL is made from the template at each check; the stand-in is never sent.
        monitor.request.url = QUrl();
    }
    if (keepSavedPolicy) {
        const auto policy = saved.policy();
        if (!policy)
            return R(policy.errorDetail());
        monitor.policy = *policy;
        monitor.policyOrigin = saved.policyOrigin();
    }
    return monitor;
}

} // namespace RetryLab::Core
