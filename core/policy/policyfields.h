#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The fields of the delay formula, the ones an algorithm may leave unused.
/// Which of them each algorithm reads is written once, here: validatePolicy()
/// checks the multiplier only where it is used, the policy editor disables the
/// fields that are not, and the exports ask how the delay grows.
enum class DelayField {
    BaseDelay, ///< baseDelayMs
    Multiplier, ///< multiplier
    MaxBackoff, ///< maxBackoffMs, the cap
    Jitter, ///< jitterMs, the additive U[0, jitter]
    JitterFraction, ///< jitterFraction, the proportional U[1 - f, 1 + f]
};

QList<DelayField> allDelayFields();
/// The field's name in the JSON format and in PolicyIssue::field, e.g. "maxBackoffMs".
QString delayFieldName(DelayField field);
std::optional<DelayField> delayFieldFromName(const QString &name);

/// False only for Immediate, which retries at once.
bool usesBaseDelay(BackoffAlgorithm algorithm);
/// True when the delay is base * multiplier^n (before jitter and cap).
bool usesMultiplier(BackoffAlgorithm algorithm);
/// False only for Immediate: every other delay is truncated to the cap.
bool usesMaxBackoff(BackoffAlgorithm algorithm);
/// True when U[0, jitterMs] is added to the exponential term (Google, IAM).
bool usesAdditiveJitter(BackoffAlgorithm algorithm);
/// True when the delay is multiplied by U[1 - f, 1 + f] (proportional jitter).
bool usesJitterFraction(BackoffAlgorithm algorithm);
bool usesField(BackoffAlgorithm algorithm, DelayField field);
/// True for constant and linear, whose interval intervalJitter randomises.
bool usesIntervalJitter(BackoffAlgorithm algorithm);

/// True when the delay grows geometrically with the retry index: by the
/// multiplier, or for decorrelated jitter by up to three times the previous
/// delay. A client whose only growing backoff is exponential (curl) can match
/// these and no others. Not the same question as usesMultiplier().
bool growsExponentially(BackoffAlgorithm algorithm);
/// True when the formula itself is a random draw, so no field of the policy
/// can take the randomness out (full, equal and decorrelated jitter).
bool alwaysRandom(BackoffAlgorithm algorithm);
/// True when two clients with this policy may wait different times after the
/// same failure: the algorithm draws at random, or its jitter field is above 0.
bool hasJitter(const BackoffPolicy &policy);

/// Why `algorithm` does not read `field`, as one sentence for people; empty
/// when it does.
QString unusedFieldReason(BackoffAlgorithm algorithm, DelayField field);
/// Why `policy` does not read the field named `field` (the JSON / PolicyIssue
/// name, e.g. "multiplier" or "circuitBreaker.openMs"); empty when it does or
/// the name is unknown. Besides the algorithm's fields, a switch turns a group
/// off: honourRetryAfter its bound, circuitBreaker.enabled the breaker's numbers.
QString unusedFieldReason(const BackoffPolicy &policy, const QString &field);

} // namespace RetryLab::Core
