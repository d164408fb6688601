#include "core/monitor/savedrequestmonitor.h"

#include "core/util/coretr.h"

#include <QUrl>

namespace RetryLab::Core {

Result<Monitor> monitorFromSavedRequest(const SavedRequest &saved, const QString &name, bool keepSavedPolicy)
{
    using R = Result<Monitor>;
    if (saved.needsServer()) {
        return R::failure(
            Tr::tr("the saved request \"%1\" uses {server}; a monitor has no embedded server").arg(saved.path()));
    }
    const auto spec = saved.build(QUrl());
    if (!spec)
        return R(spec.errorDetail());
    Monitor monitor;
    monitor.name = name;
    monitor.request = *spec;
    monitor.request.label = name;
    monitor.urlTemplate = spec->url.toString();
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
