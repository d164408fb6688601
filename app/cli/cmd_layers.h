#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/policy/retrylayers.h"
#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab layers --policy A --policy B [...]`: the layer calculator, retry
/// policies stacked outermost first and the attempts they multiply into.
namespace RetryLab::Cli::LayersCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    QList<Core::BackoffPolicy> stack; ///< the --policy options, read, outermost first
    Core::RetryLayers::Assumptions assumptions; ///< -p, --failure-ms, --threshold
    int runs = 10'000; ///< --runs: user actions played for the check; 0: no check
    std::optional<quint64> seed; ///< --seed; without it, a fresh one is drawn and printed
    bool json = false;
};

/// `arguments` as the command gets them: program, "layers", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::LayersCommand
