#pragma once

#include "core/proxy/faultrule.h"
#include "core/proxy/proxyserver.h"
#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab proxy --upstream URL [options]`: a reverse proxy on loopback in front
/// of a real service, injecting faults and watching the clients that use it.
namespace RetryLab::Cli::ProxyCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    Core::ProxyOptions proxy; ///< --upstream, --listen, --keep-host, --cacert, --allow-non-loopback
    double durationS = 0.0; ///< --duration; 0: until interrupted
    std::optional<QString> reportPath; ///< --report FILE (an empty FILE is an error when it is written)
    bool quiet = false;
    /// The rules of --faults FILE, then those of --fault; the seed is --seed, else
    /// the file's, else none (a fresh one is drawn when it runs, and printed).
    Core::FaultRuleList faults;
    quint16 controlPort = 0; ///< --control; 0: a free one
};

/// `arguments` as the command gets them: program, "proxy", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::ProxyCommand
