#include "core/observe/policyinference.h"

// Placeholder until the inference lands.
namespace RetryLab::Core {

std::optional<BackoffAlgorithm> InferredPolicy::algorithm() const
{
    return std::nullopt;
}

BackoffPolicy InferredPolicy::toPolicy(const QString &clientName) const
{
    BackoffPolicy p;
    p.name = clientName;
    return p;
}

QJsonObject InferredPolicy::toJson() const
{
    return {};
}

QString InferredPolicy::summary() const
{
    return {};
}

InferredPolicy PolicyInference::infer(const QList<LogicalRequest> &requests)
{
    InferredPolicy p;
    p.logicalRequests = static_cast<int>(requests.size());
    return p;
}

QString PolicyInference::growthName(Growth)
{
    return {};
}

QString PolicyInference::jitterName(JitterKind)
{
    return {};
}

} // namespace RetryLab::Core
