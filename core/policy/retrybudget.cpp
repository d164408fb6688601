#include "core/policy/retrybudget.h"

#include <algorithm>

namespace RetryLab::Core {

RetryBudget::RetryBudget(RetryBudgetSettings settings) : m_settings(settings), m_tokens(capacity())
{ }

double RetryBudget::capacity() const
{
    switch (m_settings.kind) {
    case RetryBudgetKind::AwsStandard:
        return m_settings.awsCapacity;
    case RetryBudgetKind::GrpcThrottling:
        return m_settings.grpcMaxTokens;
    case RetryBudgetKind::None:
        break;
    }
    return 0.0;
}

double RetryBudget::threshold() const
{
    switch (m_settings.kind) {
    case RetryBudgetKind::AwsStandard:
        return m_settings.awsRetryCost;
    case RetryBudgetKind::GrpcThrottling:
        return m_settings.grpcMaxTokens / 2.0;
    case RetryBudgetKind::None:
        break;
    }
    return 0.0;
}

double RetryBudget::tryAcquireRetry(bool afterTimeout)
{
    switch (m_settings.kind) {
    case RetryBudgetKind::None:
        return 0.0;
    case RetryBudgetKind::AwsStandard: {
        const double cost = afterTimeout ? m_settings.awsTimeoutCost : m_settings.awsRetryCost;
        if (m_tokens < cost)
            return -1.0;
        m_tokens -= cost;
        return cost;
    }
    case RetryBudgetKind::GrpcThrottling:
        // gRPC: "retries are throttled while the token count is at or below half of maxTokens".
        return m_tokens > m_settings.grpcMaxTokens / 2.0 ? 0.0 : -1.0;
    }
    return -1.0;
}

void RetryBudget::refund(double cost)
{
    if (cost > 0.0)
        m_tokens = std::min(capacity(), m_tokens + cost);
}

void RetryBudget::recordFailure()
{
    if (m_settings.kind == RetryBudgetKind::GrpcThrottling)
        m_tokens = std::max(0.0, m_tokens - 1.0);
}

void RetryBudget::recordSuccess(double retryCost)
{
    switch (m_settings.kind) {
    case RetryBudgetKind::None:
        return;
    case RetryBudgetKind::AwsStandard:
        m_tokens = std::min(capacity(), m_tokens + (retryCost > 0.0 ? retryCost : m_settings.awsSuccessRefund));
        return;
    case RetryBudgetKind::GrpcThrottling:
        m_tokens = std::min(capacity(), m_tokens + m_settings.grpcTokenRatio);
        return;
    }
}

} // namespace RetryLab::Core
