#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// Everything one run produced: the policy, each logical request, every attempt
/// and every final result. The exports (JSON, CSV, HAR, JUnit) read this.
struct RunRecord
{
    BackoffPolicy policy; ///< the policy the run started with
    /// Every policy the run's requests used, in the order each was first used (the
    /// policy can change between requests). Empty: every request used `policy`.
    QList<BackoffPolicy> policies;
    /// Index into `policies` of the policy each request ran with.
    QHash<quint64, int> requestPolicies;
    QDateTime startedAt; ///< UTC wall time of the executor's epoch
    qint64 epochNs = 0; ///< monotonic ns of startedAt on the executor's clock
    /// The seed of the whole run, when one seed drew all of its jitter (a
    /// headless run); each request also names its own (RequestSpec::seed).
    std::optional<quint64> seed;
    QHash<quint64, RequestSpec> requests;
    QList<AttemptRecord> attempts; ///< in the order they finished
    QList<RequestResult> results; ///< in the order they finished

    /// Wall time of a monotonic instant of this run.
    QDateTime wallTimeOf(qint64 ns) const { return startedAt.addMSecs((ns - epochNs) / 1'000'000); }
    /// The run's seed, or the one seed all of its requests name; unset when they differ.
    std::optional<quint64> commonSeed() const;
    /// The policy a request ran with.
    const BackoffPolicy &policyOf(quint64 requestId) const;
    /// Files a request under `policy`, adding the policy to `policies` when it is new.
    void notePolicy(quint64 requestId, const BackoffPolicy &policy);
    /// For each attempt, whether its request and response bodies fit within `budget`
    /// bytes, counted from the newest attempt back: an export carries the newest
    /// bodies and leaves out the oldest, as the window drops them.
    QList<bool> attemptBodiesWithin(qint64 budget) const;
    /// Attempts whose certificate errors were ignored (TlsDetails::errorsIgnored),
    /// which every export must say, and the hosts they went to, sorted.
    qsizetype certificateErrorsIgnored() const;
    QStringList hostsWithCertificateErrorsIgnored() const;
};

} // namespace RetryLab::Core
