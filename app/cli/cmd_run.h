#pragma once

#include "app/cli/cmd_runcollection.h"
#include "app/cli/headlessoptions.h"

#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab run [options] SCENARIO.json|COLLECTION`: runs a scenario file and checks its
/// expectations, or runs a collection (RunCollectionCommand).
namespace RetryLab::Cli::RunCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    HeadlessOptions shared;
    bool insecure = false; ///< --insecure: a scenario may switch certificate checks off
    QString scenarioPath;
    /// Set when the file is a collection (or a Bruno folder): what runs instead of a scenario.
    std::optional<RunCollectionCommand::Options> collection;
};

/// `arguments` as the command gets them: program, "run", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::RunCommand
