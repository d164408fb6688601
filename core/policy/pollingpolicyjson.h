#pragma once

#include "core/policy/pollingpolicy.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>

namespace RetryLab::Core {

/// Reading and writing polling policies as JSON ("format": "retrylab-polling-policy").
/// Missing fields keep their defaults; a field of the wrong type, an unknown name or a
/// value validatePollingPolicy() refuses fails with the field's name as its path.
namespace PollingPolicyJson {

inline constexpr int formatVersion = 1;

QJsonObject toJsonObject(const PollingPolicy &policy);
QByteArray toJson(const PollingPolicy &policy);

Result<PollingPolicy> fromJsonObject(const QJsonObject &object);
Result<PollingPolicy> fromJson(const QByteArray &json);
/// The error starts with the file name, then the field and the problem.
Result<PollingPolicy> readFile(const QString &path);

} // namespace PollingPolicyJson

} // namespace RetryLab::Core
