#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

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
