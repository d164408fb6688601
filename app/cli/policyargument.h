#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QString>

namespace RetryLab::Cli {

/// A policy named on the command line, and where it came from.
struct NamedPolicy
{
    QString origin; ///< "preset google-cloud-storage" or the file
    Core::BackoffPolicy policy;
};

/// A preset id or name, or a policy file (a path that exists wins over a preset of the same name).
Core::Result<NamedPolicy> resolvePolicy(const QString &text);

} // namespace RetryLab::Cli
