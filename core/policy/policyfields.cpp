#include "core/policy/policyfields.h"

#include "core/util/coretr.h"

#include <array>
#include <utility>

namespace RetryLab::Core {

namespace {

constexpr std::array<std::pair<DelayField, const char *>, 5> delayFieldNames{{
    {DelayField::BaseDelay, "baseDelayMs"},
    {DelayField::Multiplier, "multiplier"},
    {DelayField::MaxBackoff, "maxBackoffMs"},
    {DelayField::Jitter, "jitterMs"},
    {DelayField::JitterFraction, "jitterFraction"},
}};

} // namespace

QList<DelayField> allDelayFields()
{
    QList<DelayField> all;
    for (const auto &[field, name] : delayFieldNames)
        all.append(field);
    return all;
}

QString delayFieldName(DelayField field)
{
    for (const auto &[f, name] : delayFieldNames) {
        if (f == field)
            return QString::fromLatin1(name);
    }
    return {};
}

std::optional<DelayField> delayFieldFromName(const QString &name)
{
    for (const auto &[field, n] : delayFieldNames) {
        if (name == QLatin1String(n))
            return field;
    }
    return std::nullopt;
}

// Where the answer is a list, the switch names every algorithm without a
// default, so that a new algorithm does not compile until it has its answer.

bool usesBaseDelay(BackoffAlgorithm algorithm)
{
    return algorithm != BackoffAlgorithm::Immediate;
}

bool usesMultiplier(BackoffAlgorithm algorithm)
{
    switch (algorithm) {
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
    case BackoffAlgorithm::Exponential:
    case BackoffAlgorithm::FullJitter:
    case BackoffAlgorithm::EqualJitter:
    case BackoffAlgorithm::ProportionalJitter:
        return true;
    case BackoffAlgorithm::DecorrelatedJitter: // grows by a fixed factor of 3
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
    case BackoffAlgorithm::Immediate:
        break;
    }
    return false;
}

bool usesMaxBackoff(BackoffAlgorithm algorithm)
{
    return algorithm != BackoffAlgorithm::Immediate;
}

bool usesAdditiveJitter(BackoffAlgorithm algorithm)
{
    return algorithm == BackoffAlgorithm::GoogleTruncatedExponential
        || algorithm == BackoffAlgorithm::IamTruncatedExponential;
}

bool usesJitterFraction(BackoffAlgorithm algorithm)
{
    return algorithm == BackoffAlgorithm::ProportionalJitter;
}

bool usesField(BackoffAlgorithm algorithm, DelayField field)
{
    switch (field) {
    case DelayField::BaseDelay:
        return usesBaseDelay(algorithm);
    case DelayField::Multiplier:
        return usesMultiplier(algorithm);
    case DelayField::MaxBackoff:
        return usesMaxBackoff(algorithm);
    case DelayField::Jitter:
        return usesAdditiveJitter(algorithm);
    case DelayField::JitterFraction:
        return usesJitterFraction(algorithm);
    }
    return false;
}

bool usesIntervalJitter(BackoffAlgorithm algorithm)
{
    return algorithm == BackoffAlgorithm::Constant || algorithm == BackoffAlgorithm::Linear;
}

bool growsExponentially(BackoffAlgorithm algorithm)
{
    switch (algorithm) {
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
    case BackoffAlgorithm::Exponential:
    case BackoffAlgorithm::FullJitter:
    case BackoffAlgorithm::EqualJitter:
    case BackoffAlgorithm::DecorrelatedJitter:
    case BackoffAlgorithm::ProportionalJitter:
        return true;
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
    case BackoffAlgorithm::Immediate:
        break;
    }
    return false;
}

bool alwaysRandom(BackoffAlgorithm algorithm)
{
    switch (algorithm) {
    case BackoffAlgorithm::FullJitter:
    case BackoffAlgorithm::EqualJitter:
    case BackoffAlgorithm::DecorrelatedJitter:
        return true;
    case BackoffAlgorithm::GoogleTruncatedExponential: // random only while jitterMs > 0
    case BackoffAlgorithm::IamTruncatedExponential:
    case BackoffAlgorithm::ProportionalJitter: // random only while jitterFraction > 0
    case BackoffAlgorithm::Exponential:
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
    case BackoffAlgorithm::Immediate:
        break;
    }
    return false;
}

bool hasJitter(const BackoffPolicy &policy)
{
    if (alwaysRandom(policy.algorithm))
        return true;
    if (usesAdditiveJitter(policy.algorithm))
        return policy.jitterMs > 0.0;
    if (usesJitterFraction(policy.algorithm))
        return policy.jitterFraction > 0.0;
    if (usesIntervalJitter(policy.algorithm)) {
        return policy.intervalJitter == IntervalJitter::Proportional ? policy.jitterFraction > 0.0
                                                                     : policy.intervalJitter != IntervalJitter::None;
    }
    return false;
}

QString unusedFieldReason(BackoffAlgorithm algorithm, DelayField field)
{
    if (usesField(algorithm, field))
        return {};
    const QString title = algorithmTitle(algorithm);
    if (algorithm == BackoffAlgorithm::Immediate)
        return Tr::tr("Not used by %1: every retry goes out at once.").arg(title);
    switch (field) {
    case DelayField::Multiplier:
        if (algorithm == BackoffAlgorithm::DecorrelatedJitter)
            return Tr::tr("Not used by %1: it grows by a fixed factor of 3 from the previous delay.").arg(title);
        return Tr::tr("Not used by %1: its delay does not grow exponentially.").arg(title);
    case DelayField::Jitter:
        return Tr::tr("Not used by %1: only the Google and IAM formulas add a random part U[0, jitter].").arg(title);
    case DelayField::JitterFraction:
        return Tr::tr("Not used by %1: only proportional jitter multiplies by U[1 - f, 1 + f].").arg(title);
    case DelayField::BaseDelay:
    case DelayField::MaxBackoff:
        break;
    }
    return Tr::tr("Not used by %1.").arg(title);
}

QString unusedFieldReason(const BackoffPolicy &policy, const QString &field)
{
    // Constant and linear read the fraction when their interval jitter is proportional.
    if (field == QLatin1String("jitterFraction") && usesIntervalJitter(policy.algorithm)) {
        if (policy.intervalJitter == IntervalJitter::Proportional)
            return {};
        return Tr::tr("Not used by %1: its interval jitter is not proportional.").arg(algorithmTitle(policy.algorithm));
    }
    if (field == QLatin1String("intervalJitter") && !usesIntervalJitter(policy.algorithm)) {
        return Tr::tr("Not used by %1: only the constant and linear intervals take this jitter; the others have "
                      "their own.")
            .arg(algorithmTitle(policy.algorithm));
    }
    if (const auto delayField = delayFieldFromName(field))
        return unusedFieldReason(policy.algorithm, *delayField);
    if (field == QLatin1String("maxRetryAfterMs") && !policy.classification.honourRetryAfter)
        return Tr::tr("Retry-After is not honoured, so it needs no bound.");
    if (field.startsWith(QLatin1String("circuitBreaker.")) && !policy.circuitBreaker.enabled)
        return Tr::tr("The circuit breaker is off.");
    return {};
}

} // namespace RetryLab::Core
