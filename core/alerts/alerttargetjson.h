#pragma once

#include "core/alerts/alerttarget.h"
#include "core/util/jsonreader.h"

#include <QJsonObject>
#include <QList>

#include <optional>

namespace RetryLab::Core {

/// The entries of the monitors file's "alerts" array:
///
///     {"name": "ops", "kind": "webhook", "url": "https://hooks.example/alert",
///      "headers": {"Authorization": "Bearer ..."}, "policy": "aws-standard",
///      "minIntervalMs": 60000, "maxPerMinute": 10}
///     {"name": "page", "kind": "command", "command": ["/usr/local/bin/page", "--urgent"],
///      "timeoutMs": 10000}
///     {"name": "desktop", "kind": "desktop"}
///
/// "policy" takes what a scenario's does (PolicyReference: a preset, a policy
/// object, a preset with overrides); without it a webhook delivers under
/// AlertTarget::defaultWebhookPolicy(). A mistake is refused with its path
/// ("alerts[1].command[0]: ..."); a header's value, a credential, is never
/// part of a message.
namespace AlertTargetJson {

/// Reads one entry; a mistake is recorded in `object` and gives nothing.
std::optional<AlertTarget> read(JsonReader &object);
/// Reads the whole array, each entry under its index; names must be unique.
std::optional<QList<AlertTarget>> readList(JsonReader &array);

/// The entry as read() takes it back (the policy as the file gave it).
QJsonObject toJson(const AlertTarget &target);

} // namespace AlertTargetJson

} // namespace RetryLab::Core
