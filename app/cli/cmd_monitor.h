#pragma once

#include "core/util/result.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab monitor FILE [options]`: the monitors of a monitors file, for as
/// long as --duration says or until interrupted.
namespace RetryLab::Cli::MonitorCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    QString file;
    /// --metrics-listen HOST:PORT: where /metrics is served; none: not served.
    std::optional<QHostAddress> metricsAddress;
    quint16 metricsPort = 0;
    bool allowNonLoopback = false;
    QString agent; ///< --agent; empty: this machine's name
    QString environment; ///< --env: overrides the file's "environment"
    std::optional<double> durationS; ///< --duration; none: until interrupted
    bool quiet = false;
};

Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::MonitorCommand
