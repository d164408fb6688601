#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Cli {

/// A policy named on the command line, and where it came from.
struct NamedPolicy
{
    QString origin; ///< "preset google-cloud-storage" or the file
    Core::BackoffPolicy policy;
};

/// A preset id or name, or a policy file (a path that exists wins over a preset of the same name).
Core::Result<NamedPolicy> resolvePolicy(const QString &text);

/// Each of `names` (the values of a repeated --policy) resolved, in order;
/// "--policy NAME: why" for the first that is not.
Core::Result<QList<NamedPolicy>> resolvePolicyOptions(const QStringList &names);

} // namespace RetryLab::Cli
