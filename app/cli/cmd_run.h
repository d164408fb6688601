#pragma once

#include "app/cli/headlessoptions.h"

#include "core/util/result.h"

#include <QString>
#include <QStringList>

/// `retrylab run [options] SCENARIO.json`: runs a scenario file and checks its expectations.
namespace RetryLab::Cli::RunCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    HeadlessOptions shared;
    bool insecure = false; ///< --insecure: a scenario may switch certificate checks off
    QString scenarioPath;
};

/// `arguments` as the command gets them: program, "run", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::RunCommand
