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
/// The field's name in the JSON format and in PolicyIssue::field, e.g. "maxBackoffMs"
/// (the key of its PolicyField).
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
/// Why `policy` does not read the field named `field` (PolicyField::name(),
/// e.g. "multiplier" or "circuitBreaker.openMs"); empty when it does or the
/// name is unknown. Besides the algorithm's fields, a switch turns a group off:
/// honourRetryAfter (with honourRateLimitReset) its bound, circuitBreaker.enabled
/// the breaker's numbers.
QString unusedFieldReason(const BackoffPolicy &policy, const QString &field);

/// Every field of a BackoffPolicy, in the order of policyFields().
enum class PolicyFieldId {
    Name,
    Description,
    Source,
    Algorithm,
    BaseDelay,
    Multiplier,
    MaxBackoff,
    Jitter,
    JitterFraction,
    IntervalJitter,
    MaxAttempts,
    Deadline,
    AttemptTimeout,
    RetryableStatuses,
    RetryConflictAborted,
    RetryNonIdempotent,
    PutDeleteNeedPrecondition,
    HonourRetryAfter,
    HonourRateLimitReset,
    MaxRetryAfter,
    StatusDelayFactors,
    RetryOnResponse,
    NetworkActions,
    NetworkDelayFactors,
    BreakerEnabled,
    BreakerConsecutiveFailures,
    BreakerFailureRatio,
    BreakerWindow,
    BreakerOpen,
    BreakerHalfOpenTrials,
    BudgetKind,
    AwsCapacity,
    AwsRetryCost,
    AwsTimeoutCost,
    AwsSuccessRefund,
    GrpcMaxTokens,
    GrpcTokenRatio,
    LimiterKind,
    LimiterBeta,
    LimiterScale,
    LimiterMinRate,
    HedgingEnabled,
    HedgingMaxAttempts,
    HedgingDelay,
};

/// One field of a BackoffPolicy as every reader, writer and form knows it: its
/// key in the policy file, its label, unit and help in the editor, the range
/// validatePolicy() enforces, the command-line option that sets it, and how to
/// read and write it in a policy. policyFields() is the one table of them; the
/// JSON format, validatePolicy(), the policy editor, `retrylab request`'s
/// --retry-* options and the curl import all read it, so that a field is
/// spelt once.
///
/// Choices and collections (the algorithm, the retryable statuses, the network
/// actions...) have a key, label and help here but no accessor: each reader has
/// a format of its own for them.
struct PolicyField
{
    /// The group of fields a form shows together, which also says where the
    /// field lives in the file: at the top, or in "classification",
    /// "circuitBreaker", "retryBudget", "rateLimiter" or "hedging".
    enum class Section {
        Details, ///< name, description, source
        Delay, ///< the delay formula
        Limits, ///< attempts, deadline, per-attempt timeout
        Responses, ///< what to retry among HTTP responses (in "classification")
        NetworkFaults, ///< what to do after a network fault (in "classification")
        CircuitBreaker,
        RetryBudget,
        RateLimiter,
        Hedging,
    };
    enum class Type {
        Text,
        Choice, ///< one stable name of a list (the algorithm, the interval jitter, the kind of budget)
        Collection, ///< a set or a map (statuses, network actions, delay factors)
        Switch,
        WholeNumber, ///< an int in the policy, a double through number()
        Number,
    };
    /// What a number counts; with displayScale, the unit the editor shows.
    enum class Unit {
        None, ///< a plain number: tokens, outcomes, trials
        Milliseconds,
        Fraction, ///< 0 to 1, shown as percent
        Factor, ///< a multiplier, shown as ×
        Attempts,
    };
    /// How validatePolicy() checks a number against [min, max].
    enum class Check {
        None,
        /// A time: finite, not negative (above zero when minExclusive), at most
        /// max, with messages in milliseconds and in words ("24 h").
        Duration,
        /// min <= value <= max (min < value when minExclusive), in the shown unit.
        Range,
        /// By rules of the field's own that use min and max (the multiplier is
        /// at least 1 only where the algorithm multiplies; 0 attempts needs a
        /// deadline), or a collection checked element by element.
        Special,
    };
    /// Reads and writes the field in a policy: the pair of its type, or none
    /// for choices and collections.
    struct Access
    {
        double (*number)(const BackoffPolicy &) = nullptr;
        void (*setNumber)(BackoffPolicy &, double) = nullptr;
        bool (*flag)(const BackoffPolicy &) = nullptr;
        void (*setFlag)(BackoffPolicy &, bool) = nullptr;
        QString (*text)(const BackoffPolicy &) = nullptr;
        void (*setText)(BackoffPolicy &, const QString &) = nullptr;
    };

    PolicyFieldId id;
    Section section;
    Type type;
    const char *key; ///< in its object of the file: "baseDelayMs", "openMs"
    const char *label; ///< untranslated, with the editor's & mnemonic; see title()
    const char *help; ///< untranslated, the editor's tooltip; see toolTip()
    Unit unit = Unit::None;
    /// How many stored units one shown unit is: 1000 for milliseconds shown as
    /// seconds, 0.01 for a fraction shown as percent.
    double displayScale = 1.0;
    Check check = Check::None;
    double min = 0.0;
    double max = 0.0;
    bool minExclusive = false;
    /// When validatePolicy() checks the field at all (the breaker's numbers
    /// only while it is enabled, a budget's only for its kind); nullptr: always.
    bool (*checkedWhen)(const BackoffPolicy &) = nullptr;
    /// Which algorithms read it, for the fields of the delay formula.
    std::optional<DelayField> delayField{};
    /// 0 means there is none (a deadline, a timeout).
    bool zeroMeansNone = false;
    /// The command-line option that sets it, without dashes ("base-ms");
    /// `retrylab request` puts "retry-" before it. nullptr: none.
    const char *option = nullptr;
    Access access{};

    /// As PolicyIssue::field and the editor name it: "baseDelayMs",
    /// "maxRetryAfterMs" (the classification's fields go without their
    /// object), "circuitBreaker.openMs".
    QString name() const;
    /// Where it is in the file: "baseDelayMs", "classification.maxRetryAfterMs".
    QString path() const;
    /// The object of the file that holds it: empty at the top, else "classification",
    /// "circuitBreaker", "retryBudget", "rateLimiter" or "hedging".
    QString object() const;
    /// The label, translated, with its & mnemonic.
    QString title() const;
    QString toolTip() const;
    /// The unit the editor shows, translated: "ms", "s", "%", "×" or empty.
    QString unitText() const;
    /// The decimals the editor shows.
    int decimals() const;
    /// True when `algorithm` reads it (always for fields outside the delay formula).
    bool usedBy(BackoffAlgorithm algorithm) const;
    /// True for the types with an accessor: text, switches and numbers.
    bool isScalar() const { return type != Type::Choice && type != Type::Collection; }

    double number(const BackoffPolicy &policy) const { return access.number(policy); }
    /// A whole number is rounded, and kept within what an int holds.
    void setNumber(BackoffPolicy &policy, double value) const { access.setNumber(policy, value); }
    bool flag(const BackoffPolicy &policy) const { return access.flag(policy); }
    void setFlag(BackoffPolicy &policy, bool value) const { access.setFlag(policy, value); }
    QString text(const BackoffPolicy &policy) const { return access.text(policy); }
    void setText(BackoffPolicy &policy, const QString &value) const { access.setText(policy, value); }
};

/// Every field of a BackoffPolicy, in the order of PolicyFieldId: within a
/// section, the order the editor shows them in.
const QList<PolicyField> &policyFields();
const PolicyField &policyField(PolicyFieldId id);
/// The field of that name() (as PolicyIssue::field names it), or nullptr.
const PolicyField *policyFieldNamed(const QString &name);
/// The field at that path() of the file, or nullptr.
const PolicyField *policyFieldAt(const QString &path);
/// The field `retrylab simulate` and `retrylab request` set with `option`
/// (without dashes or "retry-"), or nullptr.
const PolicyField *policyFieldForOption(const QString &option);
/// policyField(id).name(): the field as PolicyIssue::field names it.
QString policyFieldName(PolicyFieldId id);

} // namespace RetryLab::Core
