#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>
#include <QUrl>

namespace RetryLab::Core {

/// A policy attached to the requests of one host or path (Azure: tune the
/// strategy to the operation and the service; an upload may retry like a batch
/// job while a page's API calls fail fast). A request's policy is the first
/// endpoint policy that matches its URL, else the default one.
struct EndpointPolicy
{
    /// The host, case-insensitive; "*" and "?" are wildcards ("*.example.com"). Empty: any host.
    QString host;
    /// The path, a PathPattern ("/upload/**": `*` within a segment, `**` across
    /// segments, `?` one character); empty: any path.
    QString path;
    BackoffPolicy policy;
    /// Where the policy came from, for people ("preset azure-batch").
    QString origin;

    bool matches(const QUrl &url) const;
    /// "host *.example.com, path /upload/**" or "any request".
    QString describe() const;

    friend bool operator==(const EndpointPolicy &, const EndpointPolicy &) = default;
};

/// The first endpoint policy that matches `url`, or null when none does.
const EndpointPolicy *matchingEndpointPolicy(const QList<EndpointPolicy> &policies, const QUrl &url);

} // namespace RetryLab::Core
