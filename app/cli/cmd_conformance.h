#pragma once

#include "app/cli/headlessoptions.h"

#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab conformance [options]`: the retry conformance matrix for one or more policies.
namespace RetryLab::Cli::ConformanceCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    HeadlessOptions shared;
    /// --policy, as given: a preset id or name, a policy file, or "all" for every preset.
    QStringList policies{QStringLiteral("google-cloud-storage")};
    std::optional<QString> expectPolicy; ///< --expect-policy
};

/// `arguments` as the command gets them: program, "conformance", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::ConformanceCommand
