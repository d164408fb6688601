#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/policy/pollingpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/util/result.h"

#include <QString>

/// `retrylab request --poll`: the request starts (or reads) a long-running
/// operation, which is then polled at its URL under a polling policy, each poll
/// retried under the retry policy; one line per poll, then how it ended.
namespace RetryLab::Cli {

class Console;

namespace OperationRun {

/// A polling policy named on the command line, and where it came from.
struct NamedPollingPolicy
{
    QString origin; ///< "preset google-lro" or the file
    Core::PollingPolicy policy;
};

/// --poll's value: a file that exists, else a preset id; the error names the option.
Core::Result<NamedPollingPolicy> readPollingPolicy(const QString &text);

struct Settings
{
    Core::RequestSpec first; ///< the request as given; the polls GET its URL
    Core::BackoffPolicy retryPolicy;
    NamedPollingPolicy polling;
    quint64 seed = 0;
    qint64 bodyLimit = 0;
    bool live = true; ///< print each poll and retry, not only the body and errors
    bool redact = true; ///< mask credentials in the body printed
};

/// Polls to the end (or Ctrl+C) and prints the last answer's body on standard
/// output; the exit status: 0 done, 1 failed or not done in time.
int run(const Settings &settings, Console &console);

} // namespace OperationRun

} // namespace RetryLab::Cli
