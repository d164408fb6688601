#pragma once

#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab observe [options]`: watches clients retry against the fault server and judges their policies.
namespace RetryLab::Cli::ObserveCommand {

struct Options
{
    QString help; ///< --help or --list-plans: the text to print instead of running
    quint16 port = 0;
    std::optional<QString> plan; ///< --plan: a plan's name or a plan file; without it the default plan
    std::optional<double> durationS; ///< --duration: stop after this many seconds
    std::optional<qint64> requests; ///< --requests: stop once this many logical requests have finished
    double gapWindowMs = 0.0; ///< --gap-window, else the grouper's default
    std::optional<quint64> seed; ///< --seed; without it, a fresh one is drawn and printed
    int maxLogicalRequests = 20'000;
    QString reportPath;
    QString junitPath;
    bool quiet = false;
};

/// `arguments` as the command gets them: program, "observe", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::ObserveCommand
