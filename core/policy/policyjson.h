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
/// wrong type, an unknown name, or a value that validatePolicy() rejects fails.
Result<BackoffPolicy> fromJsonObject(const QJsonObject &object);
Result<BackoffPolicy> fromJson(const QByteArray &json);

Result<BackoffPolicy> readFile(const QString &path);
/// Writes atomically (QSaveFile); returns an empty string or the error.
Result<qint64> writeFile(const QString &path, const BackoffPolicy &policy);

} // namespace PolicyJson

/// The built-in presets (resources/presets/*.json), each citing its source.
namespace Presets {

struct Preset
{
    QString id; ///< file name without extension, e.g. "google-cloud-storage"
    BackoffPolicy policy;
};

/// All presets, sorted by id; loaded once from the resources.
const QList<Preset> &all();
/// A preset by id or (case-insensitive) name.
std::optional<BackoffPolicy> find(const QString &idOrName);
QStringList ids();

} // namespace Presets

} // namespace RetryLab::Core
