#include "core/grouping/observedattempt.h"

#include "core/util/coretr.h"

#include <array>
#include <utility>

namespace RetryLab::Core {

namespace {

struct RuleName
{
    GroupingRule rule;
    const char *name;
};

constexpr std::array ruleNames{
    RuleName{GroupingRule::AwsInvocationId, "aws-invocation-id"},
    RuleName{GroupingRule::GoogleInvocationId, "google-invocation-id"},
    RuleName{GroupingRule::RetryRequestId, "retry-request-id"},
    RuleName{GroupingRule::IdempotencyKey, "idempotency-key"},
    RuleName{GroupingRule::GrpcPreviousAttempts, "grpc-previous-attempts"},
    RuleName{GroupingRule::SameRequest, "same-request"},
    RuleName{GroupingRule::NewRequest, "new-request"},
};

} // namespace

QString GroupingRules::name(GroupingRule rule)
{
    for (const RuleName &r : ruleNames) {
        if (r.rule == rule)
            return QString::fromLatin1(r.name);
    }
    return QStringLiteral("new-request");
}

QString GroupingRules::describe(GroupingRule rule)
{
    switch (rule) {
    case GroupingRule::AwsInvocationId:
        return Tr::tr("same amz-sdk-invocation-id (AWS SDK)");
    case GroupingRule::GoogleInvocationId:
        return Tr::tr("same gccl-invocation-id in x-goog-api-client (Google Cloud client)");
    case GroupingRule::RetryRequestId:
        return Tr::tr("same X-Retry-Request-Id");
    case GroupingRule::IdempotencyKey:
        return Tr::tr("same Idempotency-Key");
    case GroupingRule::GrpcPreviousAttempts:
        return Tr::tr("grpc-previous-rpc-attempts says it is a retry");
    case GroupingRule::SameRequest:
        return Tr::tr("same method, target and body from the same client within the gap window");
    case GroupingRule::NewRequest:
        return Tr::tr("the first attempt of a logical request");
    }
    return {};
}

std::optional<GroupingRule> GroupingRules::fromName(const QString &name)
{
    for (const RuleName &r : ruleNames) {
        if (name == QLatin1String(r.name))
            return r.rule;
    }
    return std::nullopt;
}

QString ObservedAttempt::served() const
{
    if (!complete)
        return Tr::tr("pending");
    if (!status)
        return action;
    if (retryAfterMs)
        return Tr::tr("%1 (Retry-After %2 s)").arg(*status).arg(*retryAfterMs / 1000.0);
    return QString::number(*status);
}

bool ObservedAttempt::transientFault() const
{
    if (!complete)
        return false;
    if (!status)
        return true;
    return *status >= 500 || *status == 408 || *status == 429;
}

QString ObservedClient::makeId(const QString &userAgent, const QString &address)
{
    // Once per observed request: translated once (the language is chosen at start), and joined
    // without arg()'s parsing of a format.
    static const QString noAgent = Tr::tr("(no User-Agent)");
    return (userAgent.isEmpty() ? noAgent : userAgent) + QStringLiteral(" @ ") + address;
}

} // namespace RetryLab::Core
