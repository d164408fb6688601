#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>

namespace RetryLab::Core {

/// Reading and writing policies as JSON. The format carries a version; a round
/// trip is lossless, and a bad file is refused with a message naming the field.
namespace PolicyJson {

inline constexpr int formatVersion = 1;

QJsonObject toJsonObject(const BackoffPolicy &policy);
QByteArray toJson(const BackoffPolicy &policy);

/// Reads a policy object. Missing fields keep their defaults; a field of the
/// wrong type, an unknown name, or a value that validatePolicy() rejects fails
/// with the field's path in the object ("classification.maxRetryAfterMs"), so
/// that a format holding a policy can nest it under its own path.
Result<BackoffPolicy> fromJsonObject(const QJsonObject &object);
Result<BackoffPolicy> fromJson(const QByteArray &json);

/// The error starts with the file name, then the field and the problem.
Result<BackoffPolicy> readFile(const QString &path);
/// Writes atomically (ExportFile::write); returns the bytes written or the error.
Result<qint64> writeFile(const QString &path, const BackoffPolicy &policy);

} // namespace PolicyJson

} // namespace RetryLab::Core
