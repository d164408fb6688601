#pragma once

#include "core/proxy/faultrule.h"
#include "core/proxy/proxyserver.h"
#include "core/proxy/tcpproxy.h"
#include "core/proxy/toxic.h"
#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab proxy --upstream URL [options]`: a reverse proxy on loopback in front
/// of a real service, injecting faults and watching the clients that use it.
/// `retrylab proxy --tcp --upstream HOST:PORT`: a TCP proxy with toxiproxy's toxics;
/// `retrylab proxy --api 127.0.0.1:8474`: toxiproxy's HTTP API, with no proxy until one is made.
namespace RetryLab::Cli::ProxyCommand {

struct Options
{
    enum class Mode { Reverse, Tcp, Api };

    QString help; ///< --help: the text to print instead of running
    Mode mode = Mode::Reverse;
    Core::TcpProxyOptions tcp; ///< --tcp: --upstream HOST:PORT, --listen
    Core::ToxicList toxics; ///< --toxic, for --tcp
    /// --api ADDR:PORT: toxiproxy's API (alone, or over the --tcp proxy too).
    std::optional<QHostAddress> apiAddress;
    quint16 apiPort = 8474;
    Core::ProxyOptions proxy; ///< --upstream, --listen, --keep-host, --cacert, --allow-non-loopback
    double durationS = 0.0; ///< --duration; 0: until interrupted
    std::optional<QString> reportPath; ///< --report FILE (an empty FILE is an error when it is written)
    bool quiet = false;
    /// The rules of --faults FILE, then those of --fault; the seed is --seed, else
    /// the file's, else none (a fresh one is drawn when it runs, and printed).
    Core::FaultRuleList faults;
    quint16 controlPort = 0; ///< --control; 0: a free one
    std::optional<QString> interceptCaPath; ///< --intercept-ca FILE
    std::optional<QString> recordDirectory; ///< --record DIR
};

/// `arguments` as the command gets them: program, "proxy", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);
/// --tcp and --api (cmd_proxytcp.cpp).
int runTcp(const Options &options);

} // namespace RetryLab::Cli::ProxyCommand
