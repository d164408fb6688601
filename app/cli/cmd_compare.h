#pragma once

#include "app/cli/policyargument.h"

#include "core/scenario/scenario.h"
#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab compare --policy A --policy B [...] --scenario FILE`: one scenario
/// under 2 to 4 policies at once, as timelines on one axis and a summary table.
namespace RetryLab::Cli::CompareCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    QList<NamedPolicy> policies; ///< the --policy options, read, in their order
    Core::Scenario scenario; ///< --scenario, read (its policy is replaced)
    QString scenarioPath; ///< as given, for the heading
    int width = 60; ///< --width: characters of the time axis
    std::optional<quint64> seed; ///< --seed; without it, a fresh one is drawn and printed
    bool json = false;
};

/// `arguments` as the command gets them: program, "compare", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::CompareCommand
