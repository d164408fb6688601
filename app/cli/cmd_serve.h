#pragma once

#include "core/faultserver/faultserver.h"
#include "core/proxy/faultrule.h"
#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab serve [options]`: the fault-injection server on loopback until interrupted.
namespace RetryLab::Cli::ServeCommand {

struct Options
{
    QString help; ///< --help: the text to print instead of running
    /// What the options set of the server's; its seed and key passphrase come from the two below.
    Core::FaultServerOptions server;
    std::optional<quint64> seed; ///< --seed; without it, a fresh one is drawn and printed
    QString tlsKeyPassFile; ///< --tls-key-pass-file: read when the server starts
    bool quiet = false;
    std::optional<QString> replayDirectory; ///< --replay DIR
    Core::FaultRuleList replayFaults; ///< --faults FILE, then --fault rules
    bool replayTiming = true; ///< without --no-timing
};

/// `arguments` as the command gets them: program, "serve", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);
/// --replay: the recording, with the fault rules in front.
int runReplay(const Options &options);

} // namespace RetryLab::Cli::ServeCommand
