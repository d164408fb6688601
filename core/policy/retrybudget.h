#pragma once

#include "core/policy/backoffpolicy.h"

namespace RetryLab::Core {

/// A token bucket that limits retries across all requests, so that a struggling
/// server is not flooded by amplification:
/// - AWS SDK standard mode: capacity 500; a retry costs 5 (10 after a timeout),
///   and is refused when the tokens do not cover it; every success refunds 1
///   (or what its retry cost, when the success came on a retry).
/// - gRPC throttling: tokens start at maxTokens; a failure costs 1, a success
///   adds tokenRatio; retries are refused while tokens <= maxTokens / 2.
class RetryBudget
{
public:
    explicit RetryBudget(RetryBudgetSettings settings = {});

    RetryBudgetKind kind() const { return m_settings.kind; }
    bool enabled() const { return m_settings.kind != RetryBudgetKind::None; }

    /// Asks to spend tokens for one retry. Returns the tokens taken (0 allowed
    /// for gRPC, which charges failures instead), or -1 when refused.
    double tryAcquireRetry(bool afterTimeout);
    /// Gives back what tryAcquireRetry() took for a retry that never went out
    /// (the request was cancelled before it).
    void refund(double cost);
    /// Records a failed attempt (gRPC charges here).
    void recordFailure();
    /// Records a success; `retryCost` is what the retry that succeeded had taken.
    void recordSuccess(double retryCost);

    double tokens() const { return m_tokens; }
    double capacity() const;
    /// Below this the budget refuses retries.
    double threshold() const;

private:
    RetryBudgetSettings m_settings;
    double m_tokens = 0.0;
};

} // namespace RetryLab::Core
