#pragma once

#include "core/history/storedcheck.h"
#include "core/util/result.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab monitor FILE [options]`: the monitors of a monitors file, for as
/// long as --duration says or until interrupted, with every check kept in the
/// history database.
namespace RetryLab::Cli::MonitorCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    QString file;
    QString database; ///< --db: a SQLite file or a postgresql:// URL; empty: the default file
    int retentionDays
        = Core::HistoryLimits::defaultRawRetentionDays; ///< --retention-days: raw rows kept, then rolled up
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
/// Where the history goes without --db: history.sqlite in the application's data folder.
QString defaultDatabase();

} // namespace RetryLab::Cli::MonitorCommand
