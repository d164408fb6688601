#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/scenario/scenario.h"
#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

// retrylab export-locust and retrylab import-locust: a scenario carried to
// Locust's distributed workers, and their attempt logs brought back as a report.

/// `retrylab export-locust SCENARIO.json [--policy ID|FILE] -o FILE`.
namespace RetryLab::Cli::ExportLocustCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    Core::Scenario scenario; ///< read
    Core::BackoffPolicy policy; ///< --policy, read; else the scenario's
    std::optional<quint64> seed; ///< --seed, else the scenario's; without either, a fresh one, printed
    QString outputPath; ///< -o: the Locust file
};

/// `arguments` as the command gets them: program, "export-locust", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::ExportLocustCommand

/// `retrylab import-locust FOLDER|FILE... -o report.json [--har F] [--csv F] [--scenario F [--junit F]]`.
namespace RetryLab::Cli::ImportLocustCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    QStringList logPaths; ///< the folder of attempt logs, or the files
    QString outputPath; ///< -o: the JSON report
    std::optional<QString> harPath;
    std::optional<QString> csvPath;
    std::optional<QString> scenarioPath; ///< --scenario: its expectations are judged
    std::optional<QString> junitPath; ///< with --scenario
    bool redact = true; ///< not --no-redact
};

/// `arguments` as the command gets them: program, "import-locust", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::ImportLocustCommand
