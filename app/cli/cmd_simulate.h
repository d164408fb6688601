#pragma once

#include "core/herd/herdparameters.h"
#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab simulate [options]`: the herd simulator, backoff strategies compared on a virtual clock.
namespace RetryLab::Cli::SimulateCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    /// The model's defaults with the options over them, checked; the seed comes from `seed`.
    Core::HerdParameters parameters;
    std::optional<quint64> seed; ///< --seed; without it, a fresh one is drawn and printed
    QString csvPath; ///< --csv FILE; empty: none, or standard output with csvToStandardOutput
    bool csvToStandardOutput = false; ///< --csv -: the CSV instead of the tables
    QString loadCsvPath; ///< --load-csv
    bool timing = false;
    bool quiet = false;
};

/// `arguments` as the command gets them: program, "simulate", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::SimulateCommand
