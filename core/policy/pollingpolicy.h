#pragma once

#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// How a long-running operation is polled until it is done, apart from how each
/// poll is retried (the retry policy): the wait before poll n (0-based) is
/// min(initialDelayMs * multiplier^n, maxDelayMs), without jitter, and polling
/// ends at a total timeout, after a number of polls, or both; a policy with
/// neither is refused, since it could poll forever. A poll's answer is done when
/// the value at `donePointer` is true, and failed when, done, it carries a value
/// at `errorPointer` (google.longrunning.Operation's "done" and "error").
struct PollingPolicy
{
    double initialDelayMs = 1000.0;
    double multiplier = 1.5;
    double maxDelayMs = 45000.0;
    double totalTimeoutMs = 0.0; ///< from the first request's start; 0: none
    int maxPolls = 0; ///< polls after the first request; 0: none
    QString donePointer = QStringLiteral("/done");
    /// Empty: a done answer is never read as a failure.
    QString errorPointer = QStringLiteral("/error");

    /// Limits beyond which a value is a mistake rather than a choice.
    static constexpr double maxDurationMs = 7.0 * 24 * 3600 * 1000; // a week
    static constexpr double maxMultiplier = 10.0;
    static constexpr int maxPollLimit = 1000000;

    /// The wait before poll `index` (0 for the first poll after the first request).
    double delayBeforePoll(int index) const;

    /// The built-in polling policies by id ("google-lro"); nullopt for another id.
    static std::optional<PollingPolicy> preset(const QString &id);
    static QStringList presetIds();

    bool operator==(const PollingPolicy &) const = default;
};

/// The first problem of `policy`, naming its field as the JSON format does
/// ("maxDelayMs"); ok when the policy can be used.
Result<void> validatePollingPolicy(const PollingPolicy &policy);

} // namespace RetryLab::Core
