#pragma once

#include "core/herd/herdparameters.h"
#include "core/util/jsonreader.h"

#include <QJsonObject>

namespace RetryLab::Core {

/// The herd simulator's parameters as JSON, the form the settings keep the
/// simulator's form in. Written whole; read field by field, because a stored
/// form outlives the rules it was checked against: one damaged or no longer
/// valid field must not cost the user the others.
namespace HerdParametersJson {

/// The model, the grid, the strategies and every stored field of herdParameterFields().
QJsonObject toJsonObject(const HerdParameters &parameters);

/// Reads on top of HerdParameters::defaultsFor(the stored model). A field of the
/// wrong type, or one that makes the parameters invalid, keeps its default and is
/// named in `leftOut` with why; the others are kept. An unknown model is left out
/// too and gives the defaults of optimistic concurrency. Never `unreadable`.
Salvaged<HerdParameters> fromJsonObject(const QJsonObject &object);

} // namespace HerdParametersJson

} // namespace RetryLab::Core
