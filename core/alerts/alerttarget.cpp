#include "core/alerts/alerttarget.h"

namespace RetryLab::Core {

BackoffPolicy AlertTarget::defaultWebhookPolicy()
{
    BackoffPolicy policy;
    policy.name = QStringLiteral("Alert webhook");
    policy.description = QStringLiteral("The delivery of an alert webhook when its target names no policy.");
    policy.algorithm = BackoffAlgorithm::FullJitter;
    policy.baseDelayMs = 1000.0;
    policy.multiplier = 2.0;
    policy.maxBackoffMs = 30'000.0;
    policy.maxAttempts = 5;
    policy.attemptTimeoutMs = 10'000.0;
    return policy;
}

QList<AlertTarget::Kind> alertTargetKinds()
{
    return {AlertTarget::Kind::Webhook, AlertTarget::Kind::Command, AlertTarget::Kind::Desktop};
}

QString alertTargetKindName(AlertTarget::Kind kind)
{
    switch (kind) {
    case AlertTarget::Kind::Webhook:
        return QStringLiteral("webhook");
    case AlertTarget::Kind::Command:
        return QStringLiteral("command");
    case AlertTarget::Kind::Desktop:
        return QStringLiteral("desktop");
    }
    return QStringLiteral("desktop");
}

std::optional<AlertTarget::Kind> alertTargetKindFromName(const QString &name)
{
    for (AlertTarget::Kind kind : alertTargetKinds()) {
        if (alertTargetKindName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
