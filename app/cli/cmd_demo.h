#pragma once

#include "app/cli/headlessoptions.h"

#include "core/util/result.h"

#include <QString>
#include <QStringList>

/// `retrylab demo [options]`: why retries need jitter, shown in the terminal in a few seconds.
namespace RetryLab::Cli::DemoCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    HeadlessOptions shared;
    int width = 64; ///< --width: characters of the time axis
};

/// `arguments` as the command gets them: program, "demo", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::DemoCommand
